"""Per-group helpers of :mod:`gpulens.analyzers._groupstats`: each must give exactly what the plain numpy / Python
computation it replaces gives (stable order of group codes; per-group sums in row order)."""

import numpy as np
import pytest

from gpulens.analyzers._groupstats import group_sums, group_sums_many, stable_order


@pytest.mark.parametrize("lo, hi", [(0, 3), (0, 255), (0, 256), (0, 65535), (0, 65536), (-5, 40), (0, 2 ** 40)])
def test_stable_order_is_pythons_stable_sort(lo, hi):
    rng = np.random.default_rng(hi)
    codes = rng.integers(lo, hi + 1, size=5000)
    codes[:3] = (lo, hi, lo)  # both ends present: the narrow dtype is chosen from them
    expected = sorted(range(len(codes)), key=lambda i: codes[i])  # Python's sort is stable: ties keep row order
    assert stable_order(codes).tolist() == expected


def test_stable_order_of_nothing_and_of_other_dtypes():
    assert stable_order(np.zeros(0, dtype=np.int64)).tolist() == []
    vals = np.array([2.5, -1.0, 2.5, 0.0])
    assert stable_order(vals).tolist() == [1, 3, 0, 2]


def test_group_sums_many_equal_each_groups_sum_in_row_order():
    # several value arrays over one grouping (one shared order): each equals numpy's sum of its group's rows
    rng = np.random.default_rng(8)
    g = rng.integers(0, 7, size=30000)  # few large groups, as the kernels of a trace
    xs = [rng.random(30000) * 1e9, rng.random(30000), rng.integers(0, 10 ** 6, 30000).astype(float)]
    got = group_sums_many(g, xs, 9)
    assert len(got) == 3
    for x, out in zip(xs, got):
        assert np.array_equal(out, group_sums(g, x, 9))
        for k in range(9):
            assert out[k] == x[g == k].sum()


def test_group_sums_equal_each_groups_sum_in_row_order():
    rng = np.random.default_rng(7)
    g = rng.integers(0, 300, size=20000)
    x = rng.random(20000) * 1e9
    got = group_sums(g, x, 302)
    for k in range(302):
        assert got[k] == x[g == k].sum()  # numpy's own (pairwise) sum of the group's rows, bit for bit
