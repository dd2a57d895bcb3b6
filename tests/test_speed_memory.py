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


def test_one_rank_window_equals_the_general_hull(tmp_path):
    from gpulens.analyzers._window_findings import _one_rank_window
    from gpulens.analyzers._span import CLOCK_GAP_NS, hulls_of
    from gpulens.analyzers.context import context_of
    from gpulens.timeline import GPU_KINDS

    gen = tmp_path / "g.pt.trace.json"
    gen_kineto.generate(gen, 2000, steps=4)
    for path in (gen, KINETO / "hta_alexnet_a100.json.gz", KINETO / "tracelens_mi300x_bert-small.json.gz"):
        tl = gpulens.analyze([path]).sources[0].timeline
        ctx = context_of(tl)
        ev, gpu, eff = tl.events, ctx.gpu, ctx.effective_ns
        host = ~ctx.mask_of("other", *GPU_KINDS)
        # the general path, written out: every host interval and every GPU interval (effective end) of the rank
        st = np.concatenate([ev["start_ns"].to_numpy("int64")[host], gpu["start_ns"].to_numpy("int64")])
        en = np.concatenate([(ev["start_ns"] + ev["dur_ns"]).to_numpy("int64")[host],
                             gpu["start_ns"].to_numpy("int64") + eff.to_numpy("int64")])
        rk = np.concatenate([ev["rank"].to_numpy()[host], gpu["rank"].to_numpy()])
        assert _one_rank_window(ev, host, gpu, eff) == hulls_of(rk, st, en) == {int(rk[0]): (st.min(), en.max())}
        # a host event a day after the GPU work: a possible clock-domain gap, left to the general path
        late = ev["start_ns"].to_numpy("int64").copy()
        late[np.flatnonzero(host)[-1]] += CLOCK_GAP_NS
        assert _one_rank_window(ev.assign(start_ns=late), host, gpu, eff) is None


def test_last_segment_search_sorted_queries_equal_count_by_hand():
    # one rank, queries in time order and more of them than segments (a path's wait segments): the count of
    # segment starts at or before each query, minus one — ties at a start, before the first and after the last
    from gpulens.analyzers._critical_paths import last_segment_at_or_before

    rng = np.random.default_rng(5)
    for _ in range(200):
        ss = np.sort(rng.choice(1000, int(rng.integers(1, 20)), replace=False)).astype(np.int64)
        t = np.sort(np.concatenate([rng.integers(-10, 1010, 40), ss[rng.integers(0, len(ss), 5)]])).astype(np.int64)
        got = last_segment_at_or_before(np.zeros(len(ss), np.int64), ss, np.zeros(len(t), np.int64), t)
        assert got.tolist() == [int((ss <= x).sum()) - 1 for x in t]


def test_last_segment_search_one_rank_equals_the_sort_over_ranks():
    from gpulens.analyzers._critical_paths import last_segment_at_or_before

    rng = np.random.default_rng(3)
    for _ in range(200):
        sizes = rng.integers(1, 30, 3)
        sg = np.repeat(np.arange(3), sizes)
        ss = np.concatenate([np.sort(rng.choice(1000, s, replace=False)) for s in sizes]).astype(np.int64)
        k = rng.integers(0, 3, 40)
        t = rng.integers(-10, 1010, 40).astype(np.int64)
        t[:5] = ss[rng.integers(0, len(ss), 5)]  # queries exactly at a segment start count that segment
        both = last_segment_at_or_before(sg, ss, k, t)  # several ranks: the lexicographic sort
        first = np.concatenate(([0], np.cumsum(sizes)))
        for r in range(3):  # each rank alone: the binary search, shifted by the rank's first position
            q = k == r
            alone = last_segment_at_or_before(np.zeros(sizes[r], np.int64), ss[first[r]:first[r + 1]],
                                              np.zeros(q.sum(), np.int64), t[q])
            # by hand: number of the rank's starts at or before t, minus one
            hand = np.array([(ss[first[r]:first[r + 1]] <= x).sum() - 1 for x in t[q]])
            assert alone.tolist() == hand.tolist()
            got = both[q] - first[r]
            assert np.where(got < 0, -1, got).tolist() == hand.tolist()
