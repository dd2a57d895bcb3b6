"""gpulens.analyzers.context.unique_ints gives exactly what ``np.unique`` gives (values, first positions, inverse;
same dtypes and shapes) for every kind of integer input: unsorted with few distinct values (the hashed path),
sorted, mostly distinct, negative codes, narrow dtypes, empty and one-row arrays."""

from __future__ import annotations

import numpy as np
import pytest

from gpulens.analyzers.context import unique_ints


def test_hand_example():
    # rows 5, 3, 5, -1, 3, 9 → sorted distinct -1, 3, 5, 9; first seen at rows 3, 1, 0, 5; row i's rank in them
    v = np.array([5, 3, 5, -1, 3, 9] * 1000)  # long enough and few distinct: the hashed path
    u, first, inv = unique_ints(v, return_index=True, return_inverse=True)
    assert u.tolist() == [-1, 3, 5, 9]
    assert first.tolist() == [3, 1, 0, 5]
    assert inv[:6].tolist() == [2, 1, 2, 0, 1, 3]


def _cases():
    rng = np.random.default_rng(7)
    yield np.zeros(0, dtype=np.int64)
    yield np.array([4])
    yield np.arange(1000)  # sorted
    yield rng.permutation(50_000)  # all distinct
    for dt in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        v = rng.integers(0, 40, 20_000).astype(dt)
        if dt.startswith("int"):
            v[::9] = -1  # missing-category code
        yield v
    yield rng.integers(-(2 ** 62), 2 ** 62, 30_000)  # wide keys
    yield rng.integers(0, 5_000, 30_000) * 1_000_003  # packed keys, some repeated


@pytest.mark.parametrize("return_index", [False, True])
@pytest.mark.parametrize("return_inverse", [False, True])
def test_same_as_np_unique(return_index, return_inverse):
    for v in _cases():
        want = np.unique(v, return_index=return_index, return_inverse=return_inverse)
        got = unique_ints(v, return_index=return_index, return_inverse=return_inverse)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for w, g in zip(want, got):
            assert g.dtype == w.dtype and g.shape == w.shape
            assert np.array_equal(g, w)
