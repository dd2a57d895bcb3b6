"""Session 48 (issue 16, targets 3 and 5): the two-process analysis split adds no serial work after the join, and the
report shortcuts of this session give the texts the full rules give.

Expected values come from the READS declaration as written (which analyzer reads which result), from hand
calculation of the time formatter's rounding rule, and from hand-built tables.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers import registry
from gpulens.analyzers import _parallel_run as PR
from gpulens.analyzers.base import AnalysisResult
from gpulens.reports._compact import compact_columns
from gpulens.reports._html_timeline import _durations, _level0
from gpulens.units import fmt_ns


def _plan():
    classes = sorted(registry().values(), key=lambda c: (c.order, c.name))
    p = PR.plan(classes)
    assert p is not None
    return p


# -- target 5: the split ------------------------------------------------------------------------------------------

def test_only_the_analyzers_reading_every_result_wait_for_the_join():
    """READS: verdicts reads every result ("*"), ncu_rules reads verdicts; nothing else reads a child's result, so
    nothing else may run after the join (serial work on the critical path of a 2-worker run)."""
    assert {c.name for c in _plan().deferred} == {"verdicts", "ncu_rules"}


def test_every_child_analyzer_runs_in_the_child_and_only_hotspots_before_the_fork():
    """The child analyzers read hotspots (kernel statistics, roofline, occupancy, speed of light, hierarchical
    roofline), roofline (occupancy: a child result) and breakdown (rank_kernels: the early result), so hotspots is
    the one analyzer that must run before the fork, and none of them is kept back in the parent."""
    p = _plan()
    names = set(registry())
    assert {c.name for c in p.child} == PR.CHILD & names
    assert {c.name for c in p.prefix} == {"hotspots"}
    assert {c.name for c in p.early} == {"breakdown"}


def test_no_parent_analyzer_reads_a_child_result_before_the_join():
    p = _plan()
    child = {c.name for c in p.child} | {c.name for c in p.early}
    for c in p.parent:
        reads = set(PR.READS.get(c.name, ()))
        assert "*" not in reads
        # the early result (breakdown) is sent ahead; no other child result may be read in the parent
        assert not (reads & (child - {c.name for c in p.early})), c.name


# -- target 3: report shortcuts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("ns, text", [
    (999.4, "999 ns"),              # 999.4 ns as µs to 0 decimals: "999" — stays in ns
    (999.5, "1.00 µs"),             # "1000" (half to even) in ns would read 1000 ns: one µs
    (999_994.0, "999.99 µs"),       # 999.994 µs to 2 decimals: "999.99"
    (999_999.99, "1.00 ms"),        # 999.99999 µs to 2 decimals: "1000.00" — reads in ms
    (1_000_000.0, "1.00 ms"),
    (-999_999.99, "-1.00 ms"),
    (998_000.0, "998.00 µs"),       # far from the boundary: no rounding text needed
    (12_345_678_912.0, "12.35 s"),
    (7.2e12, "2.00 h"),
])
def test_time_text_at_unit_boundaries(ns, text):
    assert fmt_ns(ns) == text
    assert fmt_ns(int(ns)) == fmt_ns(float(int(ns)))


def test_time_text_unknown_for_impossible_values():
    assert fmt_ns(math.inf) == "unknown"
    assert fmt_ns(float("nan")) == "unknown"


def _segments(levels: list[int]) -> pd.DataFrame:
    n = len(levels)
    return pd.DataFrame({"level": levels, "window": [0] * n, "rank": [0] * n, "device_id": [0] * n,
                         "stream_id": [7] * n, "thread_id": [-1] * n, "start_ns": [10 * i for i in range(n)],
                         "end_ns": [10 * i + 4 for i in range(n)], "offset_ns": [10 * i for i in range(n)],
                         "busy_ns": [4] * n, "events": [1] * n, "kind": ["kernel"] * n,
                         "name": [f"k{i}" for i in range(n)]})


def test_level0_rows_when_they_come_first():
    got = _level0(_segments([0, 0, 1, 2]))
    assert got["name"].tolist() == ["k0", "k1"]
    assert "level" not in got and "start_ns" not in got  # only what the tab shows and labels lanes with


def test_level0_rows_when_interleaved():
    got = _level0(_segments([1, 0, 2, 0, 1]))
    assert got["name"].tolist() == ["k1", "k3"]
    assert got["offset_ns"].tolist() == [10, 30]


def test_level0_rows_none():
    assert len(_level0(_segments([1, 2]))) == 0


def test_segment_durations_never_negative():
    t = pd.DataFrame({"start_ns": np.array([0, 50, 100], dtype=np.int64),
                      "end_ns": np.array([40, 45, 130], dtype=np.int64)})
    assert _durations(t).tolist() == [40, 0, 30]  # 45 − 50 < 0: clipped to 0
    nullable = t.astype("Int64")  # not int64: the pandas path, same figures
    assert _durations(nullable).tolist() == [40, 0, 30]


def test_compact_columns_per_result_and_not_shared_between_tables():
    docs = {"name": "kernel [text]", "time_ns": "GPU time [ns]", "calls": "launches [count]",
            "note": "remark [text]"}
    a = pd.DataFrame({"name": ["x", "y"], "time_ns": [30, 10], "calls": [1, 2], "note": [None, None]})
    b = pd.DataFrame({"name": ["x", "y"], "time_ns": [30, 10], "calls": [1, 2], "note": ["slow", ""]})
    ra, rb = AnalysisResult("t", table=a, columns=docs), AnalysisResult("t", table=b, columns=docs)
    assert compact_columns(ra, 8) == ["name", "time_ns", "calls"]  # a note unknown on every row: left out
    assert compact_columns(rb, 8) == ["name", "time_ns", "calls", "note"]
    first = compact_columns(ra, 8)
    first.append("mutated")  # a caller changing its list changes nothing for the next one
    assert compact_columns(ra, 8) == ["name", "time_ns", "calls"]
    assert compact_columns(ra, 2) == ["name", "time_ns"]
