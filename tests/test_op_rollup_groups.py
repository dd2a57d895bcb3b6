"""The operator roll-up's grouping on folded code keys (``op_rollup._row_groups``) and its exact sums
(``op_rollup._exact_sums``) against pandas' groupby — the definition they replace — on random code columns with
missing codes (−1), integer and whole-number float times, and fractional values (which take pandas' own sum)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers.op_rollup import _exact_sums, _row_groups


def test_hand_example():
    # rows (op, shapes) = (1, 0), (0, -1), (1, 0), (0, 2): groups numbered in order of first appearance 0, 1, 0, 2
    df = pd.DataFrame({"a": [1, 0, 1, 0], "b": [0, -1, 0, 2]})
    group, n = _row_groups(df, ("a", "b"))
    assert group.tolist() == [0, 1, 0, 2] and n == 3
    # times 10 + 30 ns in group 0, 20 in 1, 40 in 2
    assert _exact_sums(group, np.array([10, 20, 30, 40]), n).tolist() == [40, 20, 40]


def test_same_as_groupby():
    rng = np.random.default_rng(5)
    n = 20_000
    df = pd.DataFrame({"_op": rng.integers(0, 30, n), "_dims": rng.integers(-1, 12, n),
                       "_types": rng.integers(-1, 3, n)})
    group, n_groups = _row_groups(df, ("_op", "_dims", "_types"))
    want = df.groupby(["_op", "_dims", "_types"], sort=False).ngroup().to_numpy()
    assert np.array_equal(group, want) and n_groups == want.max() + 1
    for values in (rng.integers(0, 10 ** 9, n),  # int ns
                   rng.integers(0, 10 ** 9, n).astype(float),  # whole-number floats (GPU times summed as float)
                   rng.random(n) * 1e12):  # fractional: pandas' compensated sum itself
        got = _exact_sums(group, values, n_groups)
        ref = pd.Series(values).groupby(want).sum().to_numpy()
        assert got.dtype == ref.dtype and np.array_equal(got, ref)
