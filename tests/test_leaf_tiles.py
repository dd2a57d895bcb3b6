"""The vectorised tiling of host threads by their innermost event (``_nesting.leaf_tiles`` after ``nest_clipped``,
the critical path's host segments) against the plain stack sweep (``_critical_walk.leaf_segments``) — on random
nested events (children inside parents, equal starts, zero-length events, several threads) and on children running
past their parents (clipped), where the vectorised path must run (no fallback) and give the sweep's tiles."""

from __future__ import annotations

import numpy as np

from gpulens.analyzers._critical_walk import leaf_segments
from gpulens.analyzers._nesting import leaf_tiles, nest_clipped, visit_order


def _nested(rng, lo: int, hi: int, depth: int, out: list) -> None:
    t = lo
    while t < hi and rng.random() < 0.85:
        a = int(rng.integers(t, hi)) if rng.random() < 0.8 else t  # some events start where the last one ended
        b = int(rng.integers(a, hi + 1)) if rng.random() < 0.9 else a  # some zero-length events
        if rng.random() < 0.1 and depth:  # a child running past its parent's end (clipped by the sweep)
            out.append((a, min(b + int(rng.integers(1, 5)), hi + 5)))
        else:
            out.append((a, b))
        if depth and b - a > 2:
            _nested(rng, a, b, depth - 1, out)
        t = b


def _tiles(group, s, e):
    order = visit_order(group, s, e - s)
    g, ss, ee = group[order], s[order], e[order]
    parent, cend = nest_clipped(g, ss, ee)
    tg, ta, tb, own = leaf_tiles(g, ss, cend, parent)
    who = np.where(own >= 0, order[np.maximum(own, 0)], -1)
    return tg, ta, tb, who


def test_hand_example():
    # event 0 [0, 10) holds 1 [2, 5) and 2 [5, 5) (zero length); 3 [12, 14) after a gap: tiles 0, 1, 0, idle, 3
    s, e = np.array([0, 2, 5, 12]), np.array([10, 5, 5, 14])
    tg, ta, tb, who = _tiles(np.zeros(4, dtype=np.int64), s, e)
    assert list(zip(ta.tolist(), tb.tolist(), who.tolist())) == [(0, 2, 0), (2, 5, 1), (5, 10, 0), (10, 12, -1),
                                                                 (12, 14, 3)]


def test_nested_threads_equal_stack_sweep_without_fallback():
    rng = np.random.default_rng(17)
    vectorised = 0
    for trial in range(150):
        rows = []
        for thread in range(int(rng.integers(1, 4))):
            ev: list = []
            _nested(rng, 0, int(rng.integers(5, 400)), 4, ev)
            rows += [(thread, a, b) for a, b in ev]
        if not rows:
            continue
        group = np.array([r[0] for r in rows], dtype=np.int64)
        s = np.array([r[1] for r in rows], dtype=np.int64)
        e = np.array([r[2] for r in rows], dtype=np.int64)
        try:
            tg, ta, tb, who = _tiles(group, s, e)
        except Exception:  # the vectorised path declined (pathological overlaps): not the case tested here
            continue
        vectorised += 1
        for code in np.unique(group):
            idx = np.flatnonzero(group == code)
            rs, re_, rw = leaf_segments(s[idx], e[idx])
            mine = tg == code
            assert ta[mine].tolist() == rs.tolist() and tb[mine].tolist() == re_.tolist()
            assert who[mine].tolist() == np.where(rw >= 0, idx[np.maximum(rw, 0)], -1).tolist()
    assert vectorised >= 100  # most inputs took the vectorised path
