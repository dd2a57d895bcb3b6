"""Memory cuts of the 1M-kernel analysis (issue 16: peak RSS ≤ 2 GB) keep every figure.

* the critical path's host tiles (:func:`gpulens.analyzers._critical_walk.thread_segments`) hold at most 18 int64
  arrays of the rows' length at their peak (counted below), against 24–28 before;
* bottlenecks' per-(rank, GPU) idle split, sync time and gap counts, now summed over pair and class codes, equal a
  pandas pivot / group-by of the gap table written here (what the analyzer did before);
* the Timeline's check of percentage counters above 100 makes no str per counter row (3M rows at 1M kernels: the
  load's peak) and flags the same rows as the per-row rule.
"""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import gpulens
from gpulens.analyzers._critical_walk import thread_segments
from gpulens.analyzers.bottlenecks import classify_gaps
from tests.conftest import KINETO

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import gen_kineto  # noqa: E402


def _op_with_launch(n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """One host thread as Kineto records it: op i [10i, 10i+8) holds its launch call [10i+2, 10i+5) [ns]."""
    n = 2 * n_pairs
    start, end = np.empty(n, np.int64), np.empty(n, np.int64)
    start[0::2] = 10 * np.arange(n_pairs)
    end[0::2] = start[0::2] + 8
    start[1::2] = start[0::2] + 2
    end[1::2] = start[0::2] + 5
    return start, end


@pytest.mark.parametrize("groups", [1, 2])
def test_thread_segments_peak_memory(groups):
    start, end = _op_with_launch(100_000)
    n = len(start)
    group = (np.arange(n) >= n // 2).astype(np.int64) if groups == 2 else np.zeros(n, np.int64)
    tracemalloc.start()  # numpy reports its array memory to tracemalloc
    try:
        tg, ta, tb, who = thread_segments(group, start, end)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # each pair tiles as op [10i, 10i+2) | call [+2, +5) | op [+5, +8) | idle [+8, +10): 4 tiles, but no idle tile
    # after a group's last op
    assert len(ta) == 4 * (n // 2) - groups
    assert (tb > ta).all() and set(np.unique(who[who >= 0])) == set(range(n))
    # held at the peak (int64 arrays of n rows): visit order 1, sorted group and start 2, parents and clipped ends
    # 2, slot times 2, tile positions 2, the three tile outputs 6 = 15, plus boolean masks and slack: ≤ 18
    # (the same call held 24 (one group) and 28 (two groups) before)
    assert peak <= 18 * 8 * n, peak / (8 * n)


def test_bottleneck_rows_equal_pivot_of_gap_table(tmp_path):
    # two real rank files (one GPU each) and a generated 3-rank folder: several (rank, GPU) pairs, every class
    for src in (KINETO / "multirank", tmp_path / "gen"):
        if src.name == "gen":
            gen_kineto.generate(src, 2000, ranks=3, steps=4)
        s = gpulens.analyze([src]).sources[0]
        res = s.results["bottlenecks"]
        gaps = classify_gaps(s.timeline)
        assert len(gaps) > 100
        key = ["rank", "device_id"]
        ref = gaps.assign(_idle=gaps["dur_ns"] - gaps["sync_ns"]).pivot_table(
            index=key, columns="cls", values="_idle", aggfunc="sum", fill_value=0)
        sync = gaps.groupby(key)["sync_ns"].sum()
        t = res.table.set_index(key)
        for pair, row in ref.iterrows():
            for c, v in row.items():
                assert t.loc[pair, f"idle_{c}_ns"] == v, (src.name, pair, c)
            assert t.loc[pair, "idle_sync_ns"] == sync.loc[pair]
        own = (gaps["dur_ns"] - gaps["sync_ns"]) > 0
        for c in ("host", "launch", "unattributed", "queued"):
            assert res.summary[f"gaps_{c}"] == int(((gaps["cls"] == c) & own).sum()), c
        assert res.summary["gaps_sync"] == int((gaps["sync_ns"] > 0).sum())


def test_percent_over_reads_texts_of_the_rows_above_100_only():
    import pandas as pd

    from gpulens.timeline.percent import is_percent_counter, percent_over

    n = 300_000
    metrics = pd.Series(pd.Categorical.from_codes(np.arange(n) % 3, ["kineto.blocks_per_sm",
                                                                     "kineto.est_achieved_occupancy_pct",
                                                                     "GPUBusy"]))
    units = pd.Series(pd.Categorical.from_codes(np.arange(n) % 3, ["blocks", "%", ""]))
    values = np.linspace(0.0, 99.0, n)
    tracemalloc.start()
    try:
        none = percent_over(metrics, units, values)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not none.any()
    # nothing above 100: the mask (n bytes) and one comparison, not a str object per row (≥ 8 bytes each)
    assert peak <= 3 * n, peak / n
    # above 100: a percentage (unit "%", or an AMD percent counter such as GPUBusy) only; 150 blocks per SM is a count
    values = values.copy()
    values[::7] = 150.0
    got = percent_over(metrics, units, values)
    ref = np.array([v > 100 and is_percent_counter(m, u) for m, u, v in
                    zip(metrics.astype(str), units.astype(str), values)])
    assert got.tolist() == ref.tolist() and got.any() and not got[values <= 100].any()
