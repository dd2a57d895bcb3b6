"""The vectorised nesting sweeps (gpulens.analyzers._nesting) against plain stack sweeps written here.

The references below are the textbook stack sweeps the analyzers used before vectorisation (visit the events of a
thread by start, longer first; pop the stack top while it has ended by the current start): the vectorised versions
must give exactly the same parents, depths and tiles, also for ill-nested inputs (children running past their
parents, zero-length events, equal starts), which real traces contain.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers._critical_walk import thread_segments
from gpulens.analyzers._nesting import visit_order
from gpulens.analyzers._optree import _sweep


def _ref_sweep(thread, start, end, is_op):
    """Parent (−1) and depth per row: innermost op still open at the row's start on its thread (raw ends)."""
    n = len(start)
    order = np.lexsort((~is_op, -(end - start), start, thread))
    parent, depth = [-1] * n, [0] * n
    stack: list[int] = []
    last = None
    for i in order.tolist():
        if thread[i] != last:
            stack, last = [], thread[i]
        while stack and end[stack[-1]] <= start[i]:
            stack.pop()
        if stack:
            parent[i], depth[i] = stack[-1], len(stack)
        if is_op[i]:
            stack.append(i)
    return np.array(parent), np.array(depth)


def _ref_tiles(start, end):
    """(start, end, innermost event) tiles of one thread; a child's end is clipped to its parent's."""
    order = np.lexsort((-(end - start), start))
    out, stack = [], []  # stack of (clipped end, row)
    cur = int(start[order[0]])
    for i in order.tolist():
        s = int(start[i])
        while stack and stack[-1][0] <= s:
            te, tp = stack.pop()
            if te > cur:
                out.append((cur, te, tp))
                cur = te
        if s > cur:
            out.append((cur, s, stack[-1][1] if stack else -1))
            cur = s
        stack.append((int(end[i]) if not stack else min(int(end[i]), stack[-1][0]), i))
    while stack:
        te, tp = stack.pop()
        if te > cur:
            out.append((cur, te, tp))
            cur = te
    return out


def _frame(rng, n, spread, longest):
    start = rng.integers(0, spread, n)
    return pd.DataFrame({"rank": rng.integers(0, 2, n), "pid": pd.array(rng.integers(0, 2, n), dtype="Int64"),
                         "tid": pd.array(np.where(rng.random(n) < .1, None, rng.integers(0, 2, n)), dtype="Int64"),
                         "start_ns": start, "dur_ns": rng.integers(0, longest, n)})


def test_hand_made_nesting():
    # op A [0,10) holds B [2,5) (a launch inside it) and C [4,20) runs past A's end; D [12,13) starts after A ended
    # but inside C, so its innermost open op is C (raw ends); E [30,31) is top level
    ev = pd.DataFrame({"rank": 0, "pid": 1, "tid": 1, "start_ns": [0, 2, 4, 12, 30], "dur_ns": [10, 3, 16, 1, 1]})
    is_op = np.array([True, False, True, True, True])
    parent, depth = _sweep(ev, is_op)
    assert parent.tolist() == [-1, 0, 0, 2, -1]
    assert depth.tolist() == [0, 1, 1, 2, 0]


def test_hand_made_tiles():
    # A [0,10) holds B [2,4), a zero-length Z at 6 and C [8,20) clipped to A's end (10); then a gap, D [12,15)
    start = np.array([0, 2, 6, 8, 12], dtype=np.int64)
    end = np.array([10, 4, 6, 20, 15], dtype=np.int64)
    g, a, b, who = thread_segments(np.zeros(5, dtype=np.int64), start, end)
    # tiles cut at every distinct start and clipped end: 0 2 4 6 8 10 12 15
    assert list(zip(a.tolist(), b.tolist(), who.tolist())) == [
        (0, 2, 0), (2, 4, 1), (4, 6, 0), (6, 8, 0), (8, 10, 3), (10, 12, -1), (12, 15, 4)]


@pytest.mark.parametrize("spread,longest", [(50, 20), (8, 5), (1000, 3), (200, 60)])
def test_sweep_equals_stack_sweep(spread, longest):
    rng = np.random.default_rng(spread)
    for _ in range(300):
        ev = _frame(rng, int(rng.integers(1, 60)), spread, longest)
        is_op = rng.random(len(ev)) < .7
        thread = pd.MultiIndex.from_frame(ev[["rank", "pid", "tid"]].astype("Int64").fillna(-1)).codes
        code = (thread[0] * 10 + thread[1]) * 10 + thread[2]
        s = ev["start_ns"].to_numpy(np.int64)
        parent, depth = _sweep(ev, is_op)
        ref_p, ref_d = _ref_sweep(np.asarray(code), s, s + ev["dur_ns"].to_numpy(np.int64), is_op)
        assert parent.tolist() == ref_p.tolist()
        assert depth.tolist() == ref_d.tolist()


@pytest.mark.parametrize("spread,longest", [(50, 20), (8, 5), (1000, 3), (200, 60)])
def test_tiles_equal_stack_sweep(spread, longest):
    rng = np.random.default_rng(spread + 1)
    for _ in range(300):
        n = int(rng.integers(1, 50))
        group = rng.integers(0, 3, n).astype(np.int64)
        start = rng.integers(0, spread, n).astype(np.int64)
        end = start + rng.integers(0, longest, n)
        g, a, b, who = thread_segments(group, start, end)
        for code in np.unique(group):
            rows = np.flatnonzero(group == code)
            ref = [(x, y, rows[w] if w >= 0 else -1) for x, y, w in _ref_tiles(start[rows], end[rows])]
            m = g == code
            assert list(zip(a[m].tolist(), b[m].tolist(), who[m].tolist())) == ref


def test_visit_order_is_the_lexsort():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 80))
        g, s, d = rng.integers(0, 3, n), rng.integers(0, 10, n), rng.integers(0, 4, n)
        tie = rng.random(n) < .5
        assert visit_order(g, s, d, tie).tolist() == np.lexsort((tie, -d, s, g)).tolist()


# -- grouping by codes equals grouping by text -------------------------------------------------------------------

from tests.conftest import KINETO  # noqa: E402

_TRACES = [KINETO / "tracelens_h100_bert-small.json.gz", KINETO / "hta_alexnet_a100.json.gz",
           KINETO / "aorta_mi350x_train_step.pt.trace.json"]


@pytest.mark.parametrize("path", [p for p in _TRACES if p.exists()], ids=lambda p: p.name)
def test_kernel_groups_by_codes_equal_groups_by_text(path):
    # kernel_groups groups the attribution table by int codes of its texts; pandas' groupby on the texts themselves
    # (group_table, the definition) must give the same rows in the same order
    from gpulens.analyzers._attribution import attribution_codes
    from gpulens.analyzers.kernel_groups import _group_codes, group_table
    from gpulens.collectors import collect

    att, codes = attribution_codes(collect(path))
    for col, (code, values) in codes.items():  # each code stands for exactly one text, and the table is right
        assert att[col].astype(object).fillna("<NA>").tolist() == pd.Series(values[code], dtype=object).fillna("<NA>").tolist()
        assert len(set(pd.Series(values, dtype=object).fillna("<NA>"))) == len(values)
    by_text = group_table(att.astype({c: object for c in codes}))
    by_code = _group_codes(att, codes)
    pd.testing.assert_frame_equal(by_code.astype(object), by_text.astype(object))


@pytest.mark.parametrize("all_ops", [True, False])
@pytest.mark.parametrize("spread,longest", [(50, 20), (8, 5), (200, 60)])
def test_one_thread_sweep_and_tiles_equal_stack_sweep(spread, longest, all_ops):
    # one host thread (the single-group paths: no per-group masks or groupby) and every row an op (no running
    # maximum over eligible rows), against the same references
    rng = np.random.default_rng(spread * 7 + all_ops)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        ev = pd.DataFrame({"rank": 3, "pid": 1, "tid": 2, "start_ns": rng.integers(0, spread, n),
                           "dur_ns": rng.integers(0, longest, n)})
        is_op = np.ones(n, dtype=bool) if all_ops else rng.random(n) < .7
        s = ev["start_ns"].to_numpy(np.int64)
        e = s + ev["dur_ns"].to_numpy(np.int64)
        parent, depth = _sweep(ev, is_op)
        ref_p, ref_d = _ref_sweep(np.zeros(n, dtype=np.int64), s, e, is_op)
        assert parent.tolist() == ref_p.tolist() and depth.tolist() == ref_d.tolist()
        g, a, b, who = thread_segments(np.full(n, 5, dtype=np.int64), s, e)
        assert list(zip(a.tolist(), b.tolist(), who.tolist())) == _ref_tiles(s, e)
