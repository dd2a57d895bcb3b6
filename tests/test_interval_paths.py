"""The vectorised interval helpers behind breakdown, queue length, overrun repair and the rank hulls.

Expected values come from plain Python loops written here (independent of the numpy code) or by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers import intervals
from gpulens.analyzers._span import CLOCK_GAP_NS, rank_hulls
from gpulens.analyzers.intervals import group_cummax, key_codes, repair_stream_overruns


def _running_max_by_group(g, v):
    out, cur, prev = [], None, object()
    for gi, vi in zip(g.tolist(), v.tolist()):
        cur = vi if gi != prev else max(cur, vi)
        prev = gi
        out.append(cur)
    return out


def test_group_cummax_is_a_running_max_restarting_at_each_group():
    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(1, 50))
        g = np.sort(rng.integers(0, int(rng.integers(1, 6)), n))
        big = trial % 3 == 0  # values over most of int64: the shifted fold would overflow, pandas path
        v = rng.integers(-10**18 if big else 0, 10**18 if big else 1000, n)
        assert group_cummax(g, v).tolist() == _running_max_by_group(g, v)


def test_key_codes_number_the_keys_in_sorted_order():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        cols = [rng.integers(-1, int(rng.integers(1, 4)), n) for _ in range(3)]
        code, keys = key_codes(*cols)
        rows = list(zip(*(c.tolist() for c in cols)))
        assert keys == sorted(set(rows))
        assert [keys[c] for c in code.tolist()] == rows


def test_overrun_repair_clips_to_the_next_start_on_the_same_stream_only():
    # stream 7: [0, 100) overruns [50, 60) → clipped to 50; stream 8 (same device) [55, 200) is another stream;
    # rank 1 stream 7 [10, 40) is another rank. The last event of each stream keeps its duration.
    gpu = pd.DataFrame({"rank": [0, 0, 0, 1], "device_id": [0, 0, 0, 0],
                        "stream_id": pd.array([7, 7, 8, 7], dtype="Int64"),
                        "start_ns": [0, 50, 55, 10], "dur_ns": [100, 10, 145, 30]}, index=[13, 11, 12, 10])
    rep = repair_stream_overruns(gpu)
    assert rep.index.tolist() == [13, 11, 12, 10]
    assert rep["effective_ns"].tolist() == [50, 10, 145, 30]
    assert rep["overrun_ns"].tolist() == [50, 0, 0, 0]


def test_rank_hulls_move_back_only_the_rank_that_spans_two_clocks():
    # rank 0: [0, 100) and, two days later, [2d, 2d + 50): the 2-day gap is two time bases → end = 2d + 50 − gap
    # where gap = 2d − 100, so the hull is (0, 150). Rank 1: [5, 25) and [30, 90): (5, 90), nothing moved.
    two_days = 2 * CLOCK_GAP_NS
    ev = pd.DataFrame({"rank": [0, 0, 1, 1], "start_ns": [0, two_days, 5, 30], "dur_ns": [100, 50, 20, 60]})
    assert rank_hulls(ev) == {0: (0, 150), 1: (5, 90)}


def test_breakdown_sorts_the_gpu_events_once(monkeypatch):
    # one sort by (GPU, start) serves the busy union and the four partial unions (five sorts before)
    from gpulens.analyzers import breakdown

    calls = []
    real = intervals.group_order
    monkeypatch.setattr(intervals, "group_order", lambda g, s: calls.append(len(g)) or real(g, s))
    gpu = pd.DataFrame({"rank": [0, 0, 0, 0, 0], "device_id": [0, 0, 1, 1, 1],
                        "kind": pd.Categorical(["kernel", "comm", "kernel", "memcpy", "memset"]),
                        "start_ns": [0, 50, 0, 10, 100], "dur_ns": [100, 100, 20, 30, 5]})
    t = breakdown._split_all(gpu)
    assert calls == [5]
    # device 0: kernel [0,100) ∪ comm [50,150) → busy 150, computation 100, exposed comm 50
    # device 1: kernel [0,20), memcpy [10,40), memset [100,105) → busy 45, exposed memcpy 20, exposed memset 5
    assert t["busy_ns"].tolist() == [150, 45]
    assert t["exposed_comm_ns"].tolist() == [50, 0]
    assert t["exposed_memcpy_ns"].tolist() == [0, 20]
    assert t["exposed_memset_ns"].tolist() == [0, 5]
    assert t["idle_ns"].tolist() == [0, 105 - 45]
