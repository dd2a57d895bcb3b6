"""Inclusive op values (``_optree.inclusive`` / ``inclusive_many``) and the position lookup they use
(``_optree._positions_of``) against the definitions written out here: ``Index.get_indexer`` and a bottom-up walk of
each op's ancestors in plain Python — on random op forests with ids in order (the lookup path) and shuffled (the
hash path), ops without a value, a missing (NaN) value and parents outside the table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers._optree import _positions_of, inclusive, inclusive_many


def _forest(n: int, seed: int, shuffled: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ids = np.arange(10, 10 + 3 * n, 3)
    parent = np.full(n, -1)
    depth = np.zeros(n, dtype=np.int64)
    for i in range(1, n):
        if rng.random() < 0.8:
            parent[i] = rng.integers(0, i)
            depth[i] = depth[parent[i]] + 1
    pid = pd.array(np.where(parent >= 0, ids[np.maximum(parent, 0)], 0), dtype="Int64")
    pid[parent < 0] = pd.NA
    ops = pd.DataFrame({"event_id": ids, "parent_event_id": pid, "depth": depth})
    return ops.sample(frac=1, random_state=seed).reset_index(drop=True) if shuffled else ops


def _reference(ops: pd.DataFrame, values: pd.Series) -> dict:
    own = values.reindex(ops["event_id"].to_numpy()).fillna(0).to_dict()
    parent = dict(zip(ops["event_id"], ops["parent_event_id"]))
    out = dict.fromkeys(own, 0.0)
    for i, v in own.items():  # every op's own value added to itself and each of its ancestors
        j = i
        while j is not None and not pd.isna(j) and j in out:
            out[j] += v
            j = parent.get(j)
    return out


def test_hand_example():
    # op 1 contains op 2, which contains op 3; op 4 stands alone: own values 1, 10, 100, 1000
    ops = pd.DataFrame({"event_id": [1, 2, 3, 4], "parent_event_id": pd.array([None, 1, 2, None], dtype="Int64"),
                        "depth": [0, 1, 2, 0]})
    got = inclusive(ops, pd.Series([1.0, 10.0, 100.0, 1000.0], index=[1, 2, 3, 4]))
    assert got.tolist() == [111.0, 110.0, 100.0, 1000.0]


def test_same_as_reference_walk():
    for shuffled in (False, True):
        ops = _forest(400, 3 + shuffled, shuffled)
        rng = np.random.default_rng(9)
        ids = ops["event_id"].to_numpy()
        a = pd.Series(rng.integers(0, 1000, 150).astype(float), index=np.sort(rng.choice(ids, 150, replace=False)))
        a.iloc[3] = np.nan  # a missing own value counts as none
        b = pd.Series(np.ones(60), index=rng.choice(ids, 60, replace=False))  # index not in order: hash path
        for values, got in zip((a, b), inclusive_many(ops, [a, b])):
            want = _reference(ops, values)
            assert got.index.tolist() == ids.tolist()
            assert got.tolist() == [want[i] for i in ids.tolist()]


def test_positions_of_same_as_get_indexer():
    rng = np.random.default_rng(4)
    keys = rng.integers(-5, 400, 3000)
    for ids in (np.arange(0, 300, 2), np.sort(rng.choice(10 ** 8, 200, replace=False)), rng.permutation(150)):
        assert np.array_equal(_positions_of(ids, keys), pd.Index(ids).get_indexer(keys))


def test_own_values_same_as_reindex_fillna():
    # op_rollup._own_values against pandas' reindex(...).fillna(0): ids all found (dtype kept), some missing (float,
    # 0 where missing), a NaN value, no ids, and an empty Series
    from gpulens.analyzers.op_rollup import _own_values

    ints = pd.Series([5, 7, 9], index=[10, 20, 30])
    floats = pd.Series([1.5, np.nan, 2.0], index=[10, 20, 30])
    empty = pd.Series([], dtype="int64", index=pd.Index([], dtype="int64"))
    for values in (ints, floats, empty):
        for ids in (np.array([30, 10]), np.array([10, 15, 30, 99]), np.array([], dtype=np.int64)):
            want = values.reindex(ids).fillna(0).to_numpy()
            got = _own_values(values, ids)
            assert got.dtype == want.dtype and got.tolist() == want.tolist()
