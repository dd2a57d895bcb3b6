"""Session 48 (fixed costs at 100k kernels): small tables grouped on numpy must give what pandas' groupby gives.

Kind of fault guarded: a speed rewrite of a small ``groupby(sort=False)`` (first row, count, sum per group) that
changes the group order, a count or a sum. Expected values are worked by hand from the rows written in each test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers.op_shapes import _groups

KEYS = ["_op", "_dims", "_types", "_kernel"]


def _calls(t: list) -> pd.DataFrame:
    # groups by (op, dims, types, kernel) codes, in order of first appearance:
    #   (3, 0, 0, 9) rows 0, 2, 5;  (1, 2, 0, 9) rows 1, 4;  (3, 1, 0, 7) row 3
    return pd.DataFrame({"_op": [3, 1, 3, 3, 1, 3], "_dims": [0, 2, 0, 1, 2, 0], "_types": [0] * 6,
                         "_kernel": [9, 9, 9, 7, 9, 9], "op": ["a", "b", "a", "a", "b", "a"],
                         "gpu_time_ns": t}, index=[10, 11, 12, 13, 14, 15])


def test_groups_in_order_of_first_appearance_with_counts_and_sums():
    first, n, t = _groups(_calls([100.0, 20.0, 300.0, 5.0, 40.0, 7.0]), KEYS)
    assert first.index.tolist() == [10, 11, 13]  # the first row of each group, groups as they first appear
    assert n.tolist() == [3, 2, 1]
    assert t.tolist() == [100.0 + 300.0 + 7.0, 20.0 + 40.0, 5.0]
    assert n.dtype == np.int64 and t.dtype == np.float64


@pytest.mark.parametrize("times", [
    [100.5, 20.0, 300.25, 5.0, 40.0, 7.0],  # fractions of a ns: pandas' own (compensated) sum
    [100.0, np.nan, 300.0, 5.0, 40.0, 7.0],  # a missing time counts as 0 in pandas' sum, the row still counted
    [2.0 ** 52, 20.0, 2.0 ** 52, 5.0, 40.0, 7.0],  # sums past 2**53: not exact in float64 bincount
])
def test_groups_equal_pandas_where_the_fast_path_does_not_apply(times):
    calls = _calls(times)
    first, n, t = _groups(calls, KEYS)
    g = calls.groupby(KEYS, sort=False)
    pd.testing.assert_frame_equal(first, g.head(1))
    assert n.tolist() == [3, 2, 1]
    np.testing.assert_array_equal(t, g["gpu_time_ns"].sum().to_numpy())
    # by hand for the missing time: group (1, 2, 0, 9) is rows 1 and 4 -> 0 + 40
    if np.isnan(times[1]):
        assert t[1] == 40.0


def test_int_sums_exact_per_group_whatever_the_route():
    """Exact int64 sums per group: small values, and values whose sum passes 2**53 (a float64 total would round)."""
    from gpulens.analyzers import _int_arrays as context  # int_sums and its switch live there

    groups = np.array([2, 0, 2, 1, 2], dtype=np.int64)
    values = np.array([5, 7, 11, 13, 17], dtype=np.int64)
    big = np.array([2 ** 53, 1, 1, 3, 2 ** 53], dtype=np.int64)
    for fast in (True, False):
        old = context._FAST_ADD_AT
        context._FAST_ADD_AT = fast
        try:
            assert context.int_sums(groups, values, 4).tolist() == [7, 13, 5 + 11 + 17, 0]
            # group 2: 2**53 + 1 + 2**53, odd: not a float64 value
            assert context.int_sums(groups, big, 3).tolist() == [1, 3, 2 ** 54 + 1]
            assert context.int_sums(groups, values, 4).dtype == np.int64
        finally:
            context._FAST_ADD_AT = old
