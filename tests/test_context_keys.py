"""Key helpers of the analysis context give exactly what the numpy/pandas calls they replace give:

* ``unique_ints`` = ``np.unique`` (values, first positions, inverse; same dtypes and shapes) for every kind of
  integer input: unsorted with few distinct values (the hashed path), sorted, mostly distinct, negative codes,
  narrow dtypes, empty and one-row arrays;
* ``reindex_sorted`` = ``Series.reindex`` and ``lookup_sorted`` = the values at found keys, for dense indexes (the
  lookup-table path), sparse ones (binary search), labels missing below, inside and above the index."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers.context import (isin_ints, lookup_sorted, reindex_sorted, sorted_codes, sorted_positions,
                                       unique_ints)


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
    # sorted with repeats (event ids of counter rows): the no-sort path, distinct values where the value changes
    yield np.sort(rng.integers(-3, 40, 20_000))
    yield np.sort(rng.integers(0, 200, 5_000)).astype("uint8")
    yield np.repeat(np.array([7]), 50)  # one value repeated
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


def test_sorted_positions_hand_example():
    # index labels 10, 11, 13 (dense: a lookup table); 13 at position 2, 10 at 0; 12 and 99 are absent and get
    # positions whose label differs from them
    sv = np.array([10, 11, 13])
    pos = sorted_positions(sv, np.array([13, 10, 12, 99, 5]))
    assert pos[:2].tolist() == [2, 0]
    assert ((pos >= 0) & (pos < 3)).all()
    assert (sv[pos[2:]] != np.array([12, 99, 5])).all()


@pytest.mark.parametrize("spread", [1, 3, 1000, 10 ** 12])
def test_reindex_and_lookup_same_as_pandas(spread):
    rng = np.random.default_rng(spread % 97)
    for trial in range(40):
        n = int(rng.integers(1, 300))
        labels = np.unique(rng.integers(0, n * spread, n)) - 7  # strictly increasing, some negative
        s = pd.Series(rng.normal(size=len(labels)), index=pd.Index(labels), name="v")
        want_keys = rng.choice(labels, size=int(rng.integers(1, 400)))
        # every label present: the fast path; with labels missing below, between and above: pandas' reindex
        for keys in (want_keys, np.r_[want_keys, labels[0] - 1, labels[-1] + 3, labels[0] + 1]):
            pd.testing.assert_series_equal(reindex_sorted(s, pd.Index(keys)), s.reindex(pd.Index(keys)))
            values, found = lookup_sorted(s, keys)
            assert found.tolist() == np.isin(keys, labels).tolist()
            assert np.array_equal(values[found], s.reindex(keys[found]).to_numpy())


def test_int_sums_and_first_rows_hand_example():
    from gpulens.analyzers.context import first_rows, int_sums

    # groups 0 1 0 2 1 with values 5 7 11 13 17 → sums 16, 24, 13; first rows 0, 1, 3
    g = np.array([0, 1, 0, 2, 1])
    assert int_sums(g, np.array([5, 7, 11, 13, 17]), 3).tolist() == [16, 24, 13]
    assert first_rows(g).tolist() == [0, 1, 3]


@pytest.mark.parametrize("scale", [1, 10 ** 6, 2 ** 60])
def test_int_sums_exact_as_add_at(scale):
    from gpulens.analyzers.context import first_rows, int_sums

    rng = np.random.default_rng(scale % 1009)
    for n in (0, 1, 1000, 50_000):
        v = rng.integers(0, 1000, n) * (scale // 1000 + 1) if scale < 2 ** 60 else rng.integers(0, 2 ** 52, n) * 4
        g = pd.factorize(rng.integers(0, 37, n))[0]
        want = np.zeros(38, dtype=np.int64)
        np.add.at(want, g, v.astype(np.int64))  # large values: past 2**53 float sums would round
        assert int_sums(g, v, 38).tolist() == want.tolist()
        assert first_rows(g).tolist() == pd.Series(g, dtype="int64").drop_duplicates().index.tolist()


def test_mask_of_is_the_kind_test_and_a_fresh_array():
    from gpulens.analyzers.context import context_of
    from gpulens.collectors import collect
    from tests.conftest import KINETO

    path = sorted(p for p in KINETO.iterdir() if p.suffix == ".json")[0]
    tl = collect(path)
    ctx = context_of(tl)
    kind = tl.events["kind"].astype(str).to_numpy()
    for kinds in (("kernel",), ("cpu_op", "runtime"), ("runtime", "cpu_op"), ("no_such_kind",)):
        want = np.isin(kind, kinds)
        m = ctx.mask_of(*kinds)
        assert m.tolist() == want.tolist()
        m[:] = ~m  # the caller's copy: the next call is unaffected
        assert ctx.mask_of(*kinds).tolist() == want.tolist()


def test_sorted_codes_hand_example():
    # values 512, 128, -1, 512, 256 → sorted distinct -1, 128, 256, 512; row codes are their ranks
    codes, uniq = sorted_codes(np.array([512, 128, -1, 512, 256]))
    assert uniq.tolist() == [-1, 128, 256, 512]
    assert codes.tolist() == [3, 1, 0, 3, 2]


def test_sorted_codes_same_as_factorize_sorted():
    # the presence-table path (small spans) and the factorize path (wide spans) against pandas' own definition
    rng = np.random.default_rng(11)
    for v in (rng.integers(0, 1024, 30_000), rng.integers(-1, 255, 30_000).astype("int32"),
              rng.integers(0, 2 ** 40, 1_000), np.array([3]), rng.integers(0, 5, 10).astype("uint16")):
        want_codes, want_uniq = pd.factorize(v, sort=True)
        codes, uniq = sorted_codes(v)
        assert np.array_equal(codes, want_codes) and np.array_equal(uniq, np.asarray(want_uniq))
        assert uniq.dtype == np.asarray(want_uniq).dtype


def test_isin_ints_same_as_np_isin():
    # ids in order (the lookup path: dense and sparse spans) and not (np.isin itself), with and without a row mask;
    # values below, inside (absent) and above the ids
    rng = np.random.default_rng(13)
    values = rng.integers(-50, 3_000, 40_000)
    where = rng.random(len(values)) < 0.6
    for ids in (np.arange(0, 2_000, 3), np.sort(rng.choice(10 ** 9, 500, replace=False)), np.array([5, 7]),
                rng.permutation(np.arange(0, 2_000, 3)), np.array([4])):
        want = np.isin(values, ids)
        assert np.array_equal(isin_ints(values, ids), want)
        assert np.array_equal(isin_ints(values, ids, where=where), want & where)
    assert isin_ints(np.array([1, 2, 3]), np.array([2, 3]), where=np.zeros(3, dtype=bool)).tolist() == [False] * 3
