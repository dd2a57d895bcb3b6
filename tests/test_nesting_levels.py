"""Forest helpers of the vectorised nesting (``gpulens.analyzers._nesting``) against plain ancestor walks written
here: ``chain_min`` (minimum over a node and its ancestors, top down with a pointer-doubling finish), ``levels``
(depths and the rows of each depth, top down), ``visit_order`` with ends instead of durations, and the host tiles
of threads nested deeper than the top-down passes (``leaf_tiles``' fallback to ``depths``)."""

from __future__ import annotations

import numpy as np
import pytest

from gpulens.analyzers._critical_walk import leaf_segments, thread_segments
from gpulens.analyzers._nesting import _TOP_DOWN_ROUNDS, chain_min, depths, levels, visit_order


def _forest(rng, n: int, deep: bool) -> np.ndarray:
    """Parents of a random forest whose parents come before their children (visit order); ``deep``: long chains."""
    parent = np.full(n, -1, dtype=np.int64)
    for i in range(1, n):
        if deep and rng.random() < 0.9:
            parent[i] = i - 1
        elif rng.random() < 0.7:
            parent[i] = int(rng.integers(0, i))
    return parent


def _ancestors(parent: np.ndarray, i: int) -> list[int]:
    out = []
    while parent[i] >= 0:
        i = int(parent[i])
        out.append(i)
    return out


@pytest.mark.parametrize("deep", [False, True])
def test_chain_min_equals_ancestor_walk(deep):
    rng = np.random.default_rng(5 if deep else 6)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        parent = _forest(rng, n, deep)
        values = rng.integers(0, 30, n).astype(np.int64)
        if deep and rng.random() < 0.5:  # each node above its parent: a pass lowers each chain by one level only (fallback)
            values = np.arange(1, n + 1, dtype=np.int64)
        want = [min([int(values[i])] + [int(values[a]) for a in _ancestors(parent, i)]) for i in range(n)]
        before = values.copy()
        assert chain_min(parent, values).tolist() == want
        assert values.tolist() == before.tolist()  # a new array: the input is left as it was


def test_chain_min_by_hand():
    # 0 ← 1 ← 2, 3 (root); values 5, 9, 1, 7: node 1 takes 5 from 0, node 2 keeps its 1, the root 3 keeps 7
    parent = np.array([-1, 0, 1, -1])
    assert chain_min(parent, np.array([5, 9, 1, 7])).tolist() == [5, 5, 1, 7]
    # a chain longer than the top-down passes: the minimum at its root reaches its last node
    n = _TOP_DOWN_ROUNDS + 5
    assert chain_min(np.arange(-1, n - 1), np.r_[0, np.full(n - 1, 9)]).tolist() == [0] * n


@pytest.mark.parametrize("deep", [False, True])
def test_levels_equal_ancestor_counts(deep):
    rng = np.random.default_rng(7 if deep else 8)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        parent = _forest(rng, n, deep)
        want = np.array([len(_ancestors(parent, i)) for i in range(n)])
        assert depths(parent).tolist() == want.tolist()
        lv = levels(parent, _TOP_DOWN_ROUNDS)
        if want.max() > _TOP_DOWN_ROUNDS:
            assert lv is None
            continue
        d, by_level = lv
        assert d.tolist() == want.tolist()
        assert len(by_level) == want.max()
        for k, rows in enumerate(by_level, start=1):
            assert rows.tolist() == np.flatnonzero(want == k).tolist()


def test_levels_by_hand():
    # 0 ← 1 ← 2 and 0 ← 3; 4 a root: depths 0 1 2 1 0, depth 1 = rows 1 and 3, depth 2 = row 2
    d, by_level = levels(np.array([-1, 0, 1, 0, -1]), 4)
    assert d.tolist() == [0, 1, 2, 1, 0]
    assert [r.tolist() for r in by_level] == [[1, 3], [2]]
    assert levels(np.array([-1, 0, 1, 0, -1]), 1) is None


def test_visit_order_from_ends_is_the_lexsort():
    rng = np.random.default_rng(9)
    for _ in range(200):
        n = int(rng.integers(1, 80))
        g, s, d = rng.integers(0, 3, n), rng.integers(0, 10, n), rng.integers(0, 4, n)
        assert visit_order(g, s, None, end=s + d).tolist() == np.lexsort((-d, s, g)).tolist()


def test_deep_threads_tile_as_the_stack_sweep():
    # chains nested deeper than the top-down passes (some children running past their parents): the tiles of
    # leaf_tiles' depth fallback equal the plain stack sweep's
    rng = np.random.default_rng(11)
    for _ in range(60):
        rows = []
        for thread in range(int(rng.integers(1, 3))):
            a, b = 0, 1000
            for _ in range(int(rng.integers(_TOP_DOWN_ROUNDS + 3, _TOP_DOWN_ROUNDS + 12))):
                end = b + (int(rng.integers(1, 4)) if rng.random() < 0.15 else 0)  # sometimes past the parent
                rows.append((thread, a, end))
                a, b = a + int(rng.integers(1, 5)), b - int(rng.integers(1, 5))
            rows += [(thread, int(x), int(x) + int(rng.integers(0, 30))) for x in rng.integers(0, 1100, 10)]
        group = np.array([r[0] for r in rows], dtype=np.int64)
        s = np.array([r[1] for r in rows], dtype=np.int64)
        e = np.array([r[2] for r in rows], dtype=np.int64)
        g, ta, tb, who = thread_segments(group, s, e)
        for code in np.unique(group):
            idx = np.flatnonzero(group == code)
            ra, rb, rw = leaf_segments(s[idx], e[idx])
            m = g == code
            assert ta[m].tolist() == ra.tolist() and tb[m].tolist() == rb.tolist()
            assert who[m].tolist() == np.where(rw >= 0, idx[np.maximum(rw, 0)], -1).tolist()


@pytest.mark.parametrize("constant", [(), ("rank",), ("rank", "pid"), ("pid",), ("tid",), ("rank", "pid", "tid")])
def test_thread_codes_are_ranks_of_the_sorted_keys(constant):
    # codes follow the sorted order of the distinct (rank, pid, tid) keys (missing: −1), whichever columns hold a
    # single value (those are skipped when folding)
    import pandas as pd

    from gpulens.analyzers._nesting import thread_codes

    rng = np.random.default_rng(len(constant))
    for _ in range(50):
        n = int(rng.integers(1, 40))
        cols = {c: (np.full(n, 3) if c in constant else rng.integers(0, 4, n)) for c in ("rank", "pid", "tid")}
        df = pd.DataFrame({"rank": cols["rank"], "pid": pd.array(cols["pid"], dtype="Int64"),
                           "tid": pd.array(np.where(rng.random(n) < .2, None, cols["tid"]) if "tid" not in constant
                                           else cols["tid"], dtype="Int64")})
        keys = list(zip(df["rank"].tolist(), df["pid"].fillna(-1).tolist(), df["tid"].fillna(-1).tolist()))
        order = {k: i for i, k in enumerate(sorted(set(keys)))}
        assert thread_codes(df).tolist() == [order[k] for k in keys]
