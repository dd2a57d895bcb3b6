"""Which analyses ran on a run, which do not apply to it and which had no data — one definition for every reporter.

* **ran** — the analyzer produced its result (a table, possibly empty, and a summary);
* **not applicable** — the analysis belongs to another GPU vendor's tool or markers (Nsight Compute's rules, NVTX
  ranges on an AMD run): :attr:`~gpulens.analyzers.base.AnalysisResult.applies` is False. Nothing the user could
  collect for this run fills it, so the human reports leave it out of their "Not analysed" lists;
* **no data** — the analysis applies but the input lacked what it needs (``skipped_reason`` says what): the
  Markdown report's "Not analysed" list and the JSON report's ``analysis_coverage.no_data`` are this list.

Section titles name the run's vendor where the analysis is one vendor's: the annotation-range analysis is "NVTX
ranges" on NVIDIA, "ROCTX ranges" on AMD and "Annotations (NVTX/ROCTX)" when the vendor is unknown.
"""

from __future__ import annotations

from typing import Any, Mapping

#: Titles of analyses whose subject is one vendor's API: (NVIDIA, AMD, vendor unknown).
VENDOR_TITLES: dict[str, tuple[str, str, str]] = {
    "nvtx": ("NVTX ranges", "ROCTX ranges", "Annotations (NVTX/ROCTX)"),
}


def vendor_title(name: str, vendor: str | None) -> str | None:
    """The title of analysis ``name`` in ``vendor``'s words (``"nvidia"``/``"amd"``/None), or None when the
    analysis names no vendor's API."""
    words = VENDOR_TITLES.get(name)
    if words is None:
        return None
    return words[0] if vendor == "nvidia" else words[1] if vendor == "amd" else words[2]


def analysis_coverage(results: Mapping[str, Any], vendor: str | None = None) -> dict[str, list]:
    """``{"ran": [name, …], "not_applicable": [{analysis, title, reason}, …], "no_data": [{…}, …]}`` of
    ``results`` (analysis name → :class:`~gpulens.analyzers.base.AnalysisResult`), in report order; ``title`` is
    the section title a person reads (in ``vendor``'s words, :func:`vendor_title`), ``reason`` the skip reason."""
    from gpulens.reports._format import result_title

    out: dict[str, list] = {"ran": [], "not_applicable": [], "no_data": []}
    for name, r in results.items():
        if not r.skipped:
            out["ran"].append(name)
            continue
        item = {"analysis": name, "title": result_title(name, vendor), "reason": str(r.skipped_reason)}
        out["no_data" if getattr(r, "applies", True) else "not_applicable"].append(item)
    return out
