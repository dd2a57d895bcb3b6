"""Rendered reports served from the analysis-results cache: a cache hit of ``gpulens analyze`` re-writes the JSON,
HTML and Markdown reports without rendering them again.

A report whose results came from (or were stored into) the results cache (:attr:`gpulens.report.Report.results_file`)
is rendered once with a placeholder for its creation time; the text is stored beside the results entry
(:func:`gpulens.cache.render_path`: keyed by the entry — trace identity, options, gpulens code — the renderer and
the input's label) and the placeholder replaced by the report's own ``created`` each time it is written. Anything
else renders as usual. Renderers compute nothing, so the same results always render to the same text.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Stands for ``Report.created`` in a stored rendering (letters, digits and hyphens: no renderer escapes it).
CREATED_PLACEHOLDER = "GPULENS-CREATED-7F3A9C2E5B1D"
#: Renderers whose output is cached (``gpulens.reports.<name>.render``); others always render afresh.
CACHED = ("json_report", "html", "markdown")


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
        return text.replace(CREATED_PLACEHOLDER, created)
    return mod.render(report)  # the placeholder did not come through: never cache such a rendering
