"""Kernel-name codes without per-row strings (gpulens.analyzers.context.first_seen_codes / recode_first_seen) number
the names exactly as ``pd.factorize`` of the per-row strings does (order of first appearance, missing → −1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers.context import first_seen_codes, recode_first_seen


def test_hand_example_categorical_with_missing_and_unused_categories():
    # rows: b, <missing>, a, b, c  → first appearances b (0), a (1), c (2); the missing row is −1 and the unused
    # category "z" is no value seen
    s = pd.Series(["b", None, "a", "b", "c"], dtype=pd.CategoricalDtype(["z", "a", "b", "c"]))
    codes, names = first_seen_codes(s)
    assert codes.tolist() == [0, -1, 1, 0, 2]
    assert names.tolist() == ["b", "a", "c"]


def test_recode_subset_of_rows():
    # codes into ["x", "y", "w"] for rows y, <missing>, w, y → y first (0), w (1)
    codes, names = recode_first_seen(np.array([1, -1, 2, 1]), np.array(["x", "y", "w"], dtype=object))
    assert codes.tolist() == [0, -1, 1, 0]
    assert names.tolist() == ["y", "w"]


@pytest.mark.parametrize("seed", range(20))
def test_equals_factorize_of_the_strings(seed):
    rng = np.random.default_rng(seed)
    cats = [f"k{i}" for i in range(int(rng.integers(1, 9)))]
    rows = [None if rng.random() < 0.2 else cats[int(rng.integers(len(cats)))] for _ in range(int(rng.integers(0, 40)))]
    for s in (pd.Series(rows, dtype=pd.CategoricalDtype(cats + ["unused"])), pd.Series(rows, dtype=object)):
        expect_codes, expect_names = pd.factorize(np.array(rows, dtype=object), sort=False)
        codes, names = first_seen_codes(s)
        assert codes.tolist() == expect_codes.tolist()
        assert names.tolist() == list(expect_names)


def test_reindex_sorted_equals_pandas_reindex():
    # reindex_sorted (binary search on a strictly increasing integer index) against pandas' own reindex: values,
    # dtype (nullable Int64 with missing values too), name and index, also for labels that are absent
    from gpulens.analyzers.context import reindex_sorted

    rng = np.random.default_rng(3)
    for t in range(300):
        n = int(rng.integers(1, 30))
        idx = np.sort(rng.choice(100, n, replace=False))
        vals = [pd.array(rng.integers(0, 9, n), dtype="Int64"), rng.random(n),
                pd.array(np.where(rng.random(n) < .3, None, rng.integers(0, 9, n)), dtype="Int64")][t % 3]
        s = pd.Series(vals, index=pd.Index(idx), name="x")
        target = pd.Index(rng.choice(idx, int(rng.integers(0, 20))) if t % 2 else rng.integers(0, 100, 10))
        pd.testing.assert_series_equal(reindex_sorted(s, target), s.reindex(target))


def test_lookup_sorted_equals_pandas_reindex():
    # lookup_sorted (binary search on a strictly increasing integer index, as verdicts reads the short-launch flags
    # by launch id and the counter source by event id) against pandas' reindex: the values found are reindex's,
    # and "found" is exactly where reindex finds the key; keys out of range on both sides, repeated keys, a nullable
    # Int64 index (a groupby on Int64 keys) included; an unsorted or repeated index is declined (None)
    from gpulens.analyzers.context import lookup_sorted

    rng = np.random.default_rng(5)
    for t in range(300):
        n = int(rng.integers(1, 30))
        idx = np.sort(rng.choice(100, n, replace=False))
        index = pd.Index(pd.array(idx, dtype="Int64")) if t % 3 == 0 else pd.Index(idx)
        vals = [rng.random(n) < .5, np.array([f"s{v}" for v in rng.integers(0, 5, n)], dtype=object),
                rng.integers(-5, 5, n)][t % 3]
        s = pd.Series(vals, index=index)
        keys = rng.integers(-10, 110, int(rng.integers(0, 25)))
        got, found = lookup_sorted(s, keys)
        ref = s.reindex(keys)
        assert found.tolist() == ref.notna().tolist()
        assert got[found].tolist() == ref[found].tolist()
    assert lookup_sorted(pd.Series([1, 2], index=[5, 3]), np.array([3])) is None
    assert lookup_sorted(pd.Series([1, 2], index=[3, 3]), np.array([3])) is None
