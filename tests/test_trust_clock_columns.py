"""One definition of "a column that places an event on the clock" (session 6, "trust"): the formatter and the
unknown-duration rule read the same predicate, so a duration column whose name merely ends in ``ts_ns``
(``not_in_parts_ns``) is never taken for a timestamp and an offset is never taken for an unknown duration.
Expected answers are read off the column meanings written beside each name."""

from __future__ import annotations

import pytest

from gpulens.analyzers.base import is_clock_column, is_clock_position
from gpulens.reports._format import unit_of


@pytest.mark.parametrize("column, clock, position", [
    ("start_ns", True, True),            # an event's start on the trace clock
    ("kernel_end_ns", True, True),       # a named event's end
    ("ts_ns", True, True),
    ("peak_at_ns", True, True),          # "at": a point in time
    ("offset_ns", False, True),          # bin start from a reference event: a position, shown as a duration
    ("peak_offset_ns", False, True),
    ("not_in_parts_ns", False, False),   # span not in the parts shown: a duration (ends in "ts_ns" by accident)
    ("idle_ns", False, False),
    ("dur_ns", False, False),
])
def test_clock_columns_have_one_definition(column, clock, position):
    assert is_clock_column(column) is clock
    assert is_clock_position(column) is position
    # the formatter shows clock columns as timestamps, everything else in [ns] as a duration
    assert unit_of(column, "x [ns]") == ("timestamp" if clock else "ns")


def test_unknown_duration_rule_blanks_a_duration_named_like_a_timestamp_suffix():
    # a run with no recorded durations: every 0 ns duration is unknown — including one named *parts_ns — while a
    # clock position at 0 stays 0
    import pandas as pd

    from gpulens.analyzers._span import blank_unknown_durations
    from gpulens.analyzers.base import AnalysisResult

    class _TL:  # blank_unknown_durations reads only whether durations are unknown
        pass

    r = AnalysisResult("x", pd.DataFrame({"not_in_parts_ns": [0], "start_ns": [0]}),
                       {"not_in_parts_ns": "span not in the parts [ns]", "start_ns": "start [ns]"})
    import gpulens.analyzers._span as span
    orig = span.durations_unknown
    span.durations_unknown = lambda tl: True
    try:
        blank_unknown_durations(_TL(), {"x": r})
    finally:
        span.durations_unknown = orig
    assert pd.isna(r.table["not_in_parts_ns"].iloc[0]) and r.table["start_ns"].iloc[0] == 0


def test_placeholder_scan_runs_only_for_a_piece_with_a_ts_0(tmp_path, monkeypatch):
    # the placeholder rule builds an array of every non-zero timestamp of the piece: only worth it when some event
    # has ts 0 (a trace without one must never pay for it)
    import json

    import gpulens.collectors._kineto_acc as acc
    from gpulens.collectors import collect

    calls = []
    real = acc.zero_ts_placeholders
    monkeypatch.setattr(acc, "zero_ts_placeholders", lambda *a, **k: calls.append(1) or real(*a, **k))
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5 + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": 7}} for i in range(3)]
    p = tmp_path / "a.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    assert len(collect(p, cache=False).gpu_events()) == 3 and calls == []
    ev[0]["ts"] = 0  # a clock starting at 0 (rebased): scanned, and kept (0 is near the others)
    q = tmp_path / "b.json"
    q.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    assert len(collect(q, cache=False).gpu_events()) == 3 and calls
