"""Rendered reports served from the analysis-results cache: a cache hit of ``gpulens analyze`` re-writes the JSON,
HTML and Markdown reports without rendering them again.

A report whose results came from (or were stored into) the results cache (:attr:`gpulens.report.Report.results_file`)
is rendered once with a placeholder for its creation time; the text is stored beside the results entry
(:func:`gpulens.cache.render_path`: keyed by the entry — trace identity, options, gpulens code — the renderer and
the input's label) and the placeholder replaced by the report's own ``created`` each time it is written. Anything
else renders as usual. Renderers compute nothing, so the same results always render to the same text.

The console summary is kept the same way (:func:`console_summary`, keyed by what changes its rendering: width,
colour system, terminal or not, encoding and ``--top``), with the source's state (has GPU work). A cache hit that
finds every requested output stored is served by :func:`stored_outputs` without unpickling the results at all —
neither pandas nor an analyzer is imported.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
from pathlib import Path
from typing import Any

#: Stands for ``Report.created`` in a stored rendering (letters, digits and hyphens: no renderer escapes it).
CREATED_PLACEHOLDER = "GPULENS-CREATED-7F3A9C2E5B1D"
#: Renderers whose output is cached (``gpulens.reports.<name>.render``); others always render afresh.
CACHED = ("json_report", "html", "markdown")
_STATE = "state"


def created_now() -> str:
    """A report's creation time: now, UTC, ISO 8601 to the second (``Report.created``)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def console_key(console: Any, top: int) -> str:
    """Name of a stored console summary: what changes its rendering (``rich`` console width, colour system,
    terminal or not, encoding) and the number of kernels shown."""
    return f"console-{console.width}-{console.color_system}-{int(console.is_terminal)}-{console.encoding}-{top}"


def console_summary(report: Any, console: Any, top: int) -> str:
    """The console summary of ``report`` as ``console`` would print it (ANSI text), stored beside the report's
    cached results (:func:`console_key`) together with the source's state, and served from there when present."""
    from gpulens.reports.console import print_report

    file = getattr(report, "results_file", None)
    where = None
    if file is not None and len(report.sources) == 1:
        from gpulens.cache import load_render, render_path

        where = render_path(file, console_key(console, top), report.sources[0].label)
        text = load_render(where)
        if text is not None:
            return text
    with console.capture() as cap:
        print_report(report, console, top=top)
    text = cap.get()
    if where is not None:
        from gpulens.cache import render_path, store_render

        store_render(where, text)
        _store_state(report)
    return text


def _store_state(report: Any) -> None:
    """Store what a served cache hit needs besides the renderings: whether the source has GPU work."""
    from gpulens.cache import render_path, store_render

    store_render(render_path(report.results_file, _STATE, report.sources[0].label),
                 json.dumps({"has_gpu_work": bool(report.has_gpu_work), "partial": partial_lines(report)}))


def partial_lines(report: Any) -> list[str]:
    """``"<label>: <why the results are partial>"`` per source of status ``partial``
    (:func:`~gpulens.reports._answer.partial_reason`; a source with no GPU work is an error or a note of its own)."""
    from gpulens.reports._answer import partial_reason

    return [f"{s.label}: {partial_reason(s)}" for s in report.sources if s.status == "partial"]


def stored_outputs(results_file: Path, label: str, modules: list[str], console_name: str | None) -> dict | None:
    """Everything a cache hit of ``gpulens analyze`` writes, read from the stored renderings alone: ``{module:
    text}`` for each renderer in ``modules`` (creation time filled in with :func:`created_now`), plus ``"console"``
    (the text stored under ``console_name``; skipped when None). None when any piece is missing, not every module is
    a cached renderer, or the source had no GPU work (that run prints more than the summary). ``"partial"``: the
    lines saying why the results are partial (:func:`partial_lines`; empty when complete)."""
    from gpulens.cache import load_render, render_path

    if any(m not in CACHED for m in modules):
        return None
    state = load_render(render_path(results_file, _STATE, label))
    try:
        st = json.loads(state) if state is not None else None
        if st is None or st.get("has_gpu_work") is not True or not isinstance(st.get("partial", []), list):
            return None
    except (ValueError, AttributeError):
        return None
    out: dict[str, Any] = {"partial": [str(x) for x in st.get("partial", [])]}
    if console_name is not None:
        text = load_render(render_path(results_file, console_name, label))
        if text is None:
            return None
        out["console"] = text
    created = created_now()
    for m in modules:
        text = load_render(render_path(results_file, m, label))
        if text is None or CREATED_PLACEHOLDER not in text:
            return None
        out[m] = text.replace(CREATED_PLACEHOLDER, created)
    return out


def render(report: Any, module: str) -> str | bytes:
    """``gpulens.reports.<module>.render(report)``, served from the render cache when possible (module doc)."""
    file = getattr(report, "results_file", None)
    if file is None or module not in CACHED or len(report.sources) != 1:
        return importlib.import_module(f"gpulens.reports.{module}").render(report)
    from gpulens.cache import load_render, render_path, store_render

    where = render_path(file, module, report.sources[0].label)
    text = load_render(where)
    if text is not None and CREATED_PLACEHOLDER in text:  # a hit: the renderer is not even imported
        return text.replace(CREATED_PLACEHOLDER, report.created)
    mod = importlib.import_module(f"gpulens.reports.{module}")
    created = report.created
    report.created = CREATED_PLACEHOLDER
    try:
        text = mod.render(report)
    finally:
        report.created = created
    if isinstance(text, str) and CREATED_PLACEHOLDER in text:
        store_render(where, text)
        _store_state(report)
        return text.replace(CREATED_PLACEHOLDER, created)
    return mod.render(report)  # the placeholder did not come through: never cache such a rendering
