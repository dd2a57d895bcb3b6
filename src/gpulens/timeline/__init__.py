"""The unified Timeline: schema (as data) and the table class. See :mod:`gpulens.timeline.timeline`."""

from gpulens.timeline.schema import COUNTER_COLUMNS, EVENT_COLUMNS, GPU_KINDS, KINDS, REJECTED_COLUMNS, Column
from gpulens.timeline.timeline import Timeline, TimelineMeta, concat, make_table

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
