"""Reporters: one module per output format; each renders a :class:`~gpulens.report.Report` and computes nothing.

The format modules load on first use (PEP 562), so ``gpulens.reports.html.render(report)``,
``gpulens.reports.markdown.render(report)`` and ``gpulens.reports.perfetto.render(report)`` work after a plain
``import gpulens``, as the README shows, without importing plotly for a console-only run.
"""

from __future__ import annotations

from typing import Any

#: The public reporter modules, imported when first named as attributes of this package.
FORMATS = ("console", "diff", "html", "json_report", "markdown", "perfetto")


def __getattr__(name: str) -> Any:
    if name in FORMATS:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
