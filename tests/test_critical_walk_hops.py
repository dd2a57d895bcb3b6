"""The critical-path walk decides once, for every GPU event at once, what the event waited for
(:meth:`gpulens.analyzers._critical_walk.Walker._hops`). These tests check that table against the rule written out
event by event (module docstring of ``_critical_walk``): the latest of the launch call's start and the end of the
previous event on the stream binds; only when both are earlier than the event's start does the latest-ending event
of another stream of the same rank ending before the start (and after both) bind."""

from __future__ import annotations

import numpy as np
import pytest
import pandas as pd

from gpulens.analyzers._critical_walk import _HOP, _STOP, _TO_HOST, CODE, Walker


def _walker(rng: np.random.Generator, n: int, ranks: int = 2, streams: int = 3):
    start = np.sort(rng.integers(0, 5_000, n))
    dur = rng.integers(0, 120, n)
    rank = rng.integers(0, ranks, n)
    stream = rng.integers(0, streams, n)
    gpu = pd.DataFrame({"start_ns": start, "eff_ns": dur, "kind": pd.Categorical(["kernel"] * n),
                        "stream_id": stream, "rank": rank})
    host = pd.DataFrame({"start_ns": np.sort(rng.integers(0, 5_000, n))})
    launch = np.where(rng.random(n) < 0.7, rng.integers(0, n, n), -1)
    prev = np.full(n, -1)
    for r in range(ranks):  # previous event on the same (rank, stream), by start
        for s in range(streams):
            idx = np.flatnonzero((rank == r) & (stream == s))
            prev[idx[1:]] = idx[:-1]
    end = start + dur
    rank_ends = {}
    for r in range(ranks):
        idx = np.flatnonzero(rank == r)
        o = idx[np.argsort(end[idx], kind="stable")]
        rank_ends[r] = (end[o], o)
    w = Walker(host, np.zeros(n, np.int8), {}, gpu, launch, np.full(n, None, dtype=object), prev, rank_ends)
    return w, start, end, rank, stream, host["start_ns"].to_numpy(), launch, prev


def _expected(g, start, end, rank, stream, h_start, launch, prev):
    """The rule for one event, by brute force over every other event."""
    t_launch = int(h_start[launch[g]]) if launch[g] >= 0 else -1
    t_prev = int(end[prev[g]]) if prev[g] >= 0 else -1
    best = max(t_launch, t_prev)
    x = -1
    if best < start[g]:
        # latest end ≤ start(g) on the rank; among equal ends the last in end-sorted (stable) order wins
        cands = [(int(end[j]), k) for k, j in enumerate(np.argsort(end, kind="stable"))
                 if rank[j] == rank[g] and end[j] <= start[g]]
        cands.sort()
        order = np.argsort(end, kind="stable")
        for e, k in reversed(cands):
            j = order[k]
            if e <= best:
                break
            if stream[j] != stream[g]:
                x = int(j)
                break
    gap = CODE["gpu_gap"] if launch[g] >= 0 else CODE["unattributed"]
    if x >= 0:
        return _HOP, x, min(int(end[x]), int(start[g])), gap
    if prev[g] >= 0 and t_prev >= t_launch:
        return _HOP, int(prev[g]), min(t_prev, int(start[g])), gap
    if launch[g] >= 0:
        return _TO_HOST, -1, min(t_launch, int(start[g])), CODE["launch_delay"]
    return _STOP, -1, None, CODE["unattributed"]


def test_hop_table_matches_the_rule_event_by_event():
    rng = np.random.default_rng(7)
    for n in (1, 2, 17, 300):
        w, start, end, rank, stream, h_start, launch, prev = _walker(rng, n)
        kind, target, resume, gap = w._hops()
        kinds = set()
        for g in range(n):
            k, x, t, c = _expected(g, start, end, rank, stream, h_start, launch, prev)
            kinds.add(k)
            assert (int(kind[g]), int(target[g]), int(gap[g])) == (k, x, c), g
            if t is not None:
                assert int(resume[g]) == t, g
        if n == 300:  # the random trace exercised every branch
            assert kinds == {_HOP, _TO_HOST, _STOP}


def test_cross_stream_wait_needs_both_predecessors_earlier():
    """Hand case, one rank: k0 stream 1 [0, 50); k1 stream 2 [10, 20) launched at 5; k2 stream 2 [60, 70) launched
    at 8. k2's launch (8) and its stream's previous end (20) are both before k0's end (50) ≤ 60: k2 waited for k0,
    resuming at 50. k1's launch at 5 binds it (no event of another stream ends in (5, 10]): it goes to the host."""
    gpu = pd.DataFrame({"start_ns": [0, 10, 60], "eff_ns": [50, 10, 10], "kind": pd.Categorical(["kernel"] * 3),
                        "stream_id": [1, 2, 2], "rank": [0, 0, 0]})
    host = pd.DataFrame({"start_ns": [5, 8]})
    end = np.array([50, 20, 70])
    o = np.argsort(end, kind="stable")
    w = Walker(host, np.zeros(2, np.int8), {}, gpu, np.array([-1, 0, 1]), np.full(3, None, dtype=object),
               np.array([-1, -1, 1]), {0: (end[o], o)})
    kind, target, resume, gap = w._hops()
    assert (int(kind[2]), int(target[2]), int(resume[2])) == (_HOP, 0, 50)
    assert (int(kind[1]), int(resume[1]), int(gap[1])) == (_TO_HOST, 5, CODE["launch_delay"])
    assert int(kind[0]) == _STOP and int(gap[0]) == CODE["unattributed"]


def test_compiled_chain_loop_reads_as_the_plain_one():
    """From :data:`JIT_MIN_EVENTS` GPU events the walk's inner loop runs compiled by numba; on random hop tables it
    visits the same events, in the same order, with the same segment ends and stopping point as the plain loop."""
    pytest.importorskip("numba")
    from gpulens.analyzers import _critical_chain as cc

    fast = cc.follower(cc.JIT_MIN_EVENTS)
    if fast is cc.follow:
        pytest.skip("numba did not compile the loop on this machine")
    rng = np.random.default_rng(3)
    n = 500
    start = np.sort(rng.integers(0, 10_000, n))
    target = np.array([rng.integers(0, i) if i else -1 for i in range(n)], dtype=np.int64)  # an earlier event
    kind = np.where((target >= 0) & (rng.random(n) < 0.9), 0, rng.integers(1, 3, n)).astype(np.int8)
    target[kind != 0] = -1
    resume = np.where(target >= 0, start, np.iinfo(np.int64).min)
    target[7] = 7  # a zero-length cycle: event 7 waits for itself
    kind[7], resume[7] = 0, start[7]
    outs = []
    for fn in (cc.follow, fast):
        stamp, res = np.zeros(n, np.int32), []
        for w, (g, lo) in enumerate([(n - 1, 0), (n - 1, 5_000), (300, 0), (7, 0), (n - 2, 0)], start=1):
            chain, ends = np.empty(n, np.int64), np.empty(n, np.int64)
            k, g2, t2, cyc = fn(g, int(start[g]) + 5, lo, kind, target, resume, start, stamp, w, chain, ends)
            res.append((int(k), int(g2), int(t2), bool(cyc), chain[:k].tolist(), ends[:k].tolist()))
        outs.append(res)
    assert outs[0] == outs[1]
    assert any(r[3] for r in outs[0])  # the cycle was met
    assert max(r[0] for r in outs[0]) > 3  # chains longer than a few events were followed
