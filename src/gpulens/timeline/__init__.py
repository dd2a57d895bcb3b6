"""The unified Timeline: schema (as data) and the table class. See :mod:`gpulens.timeline.timeline`.

The table class and its helpers (``Timeline``, ``TimelineMeta``, ``concat``, ``make_table``) are imported on first
use (PEP 562), so that light modules of this package (:mod:`.schema`, :mod:`.selection`, :mod:`.names`) can be
imported without pandas — a cached ``gpulens analyze`` never needs it.
"""

from typing import Any

from gpulens.timeline.schema import COUNTER_COLUMNS, EVENT_COLUMNS, GPU_KINDS, KINDS, REJECTED_COLUMNS, Column

_LAZY = ("Timeline", "TimelineMeta", "concat", "make_table")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from gpulens.timeline import timeline as _timeline

        return getattr(_timeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "COUNTER_COLUMNS",
    "Column",
    "EVENT_COLUMNS",
    "GPU_KINDS",
    "KINDS",
    "REJECTED_COLUMNS",
    "Timeline",
    "TimelineMeta",
    "concat",
    "make_table",
]
