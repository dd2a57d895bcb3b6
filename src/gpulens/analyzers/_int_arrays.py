"""Integer-array primitives of the analyzers: ``np.unique`` / ``pd.factorize`` / ``np.isin`` / ``reindex`` of integer
arrays (event ids, row labels, category codes) by position look-up and presence tables instead of sorting and
hashing, and exact int64 sums per group. Each gives the same result as the numpy or pandas call it replaces (its
docstring names it) and falls back to that call where its shortcut does not apply. Importable from
:mod:`gpulens.analyzers.context` too, their home before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def unique_ints(values: Any, return_index: bool = False, return_inverse: bool = False) -> Any:
    """``np.unique(values, return_index=…, return_inverse=…)`` of a 1-D integer array, with the same outputs (sorted
    distinct values; position of each one's first occurrence; inverse, int64, shaped like ``values``), by hashing:
    the rows are factorised (``pd.factorize``) and only the distinct values sorted. ``np.unique`` sorts every row
    (an argsort of a million unsorted keys ≈ 0.08 s). An input already in order, mostly distinct (judged on a
    sample of 4,096 rows: hashing then sorting nearly every row costs more) or not integers goes to ``np.unique``
    itself."""
    v = np.asarray(values)
    if v.ndim != 1 or v.dtype.kind not in "iu" or len(v) < 2:
        return np.unique(v, return_index=return_index, return_inverse=return_inverse)
    if bool((v[1:] >= v[:-1]).all()):
        # already in order (event ids of rows): a distinct value starts where the value changes — no sort at all
        # (np.unique sorts even a sorted input: ~0.05 s per million)
        head = np.empty(len(v), dtype=bool)
        head[0] = True
        np.not_equal(v[1:], v[:-1], out=head[1:])
        out = [v[head]]
        if return_index:
            out.append(np.flatnonzero(head).astype(np.intp, copy=False))
        if return_inverse:
            inv = np.cumsum(head, dtype=np.intp)
            inv -= 1
            out.append(inv)
        return out[0] if len(out) == 1 else tuple(out)
    sample = v[:: max(len(v) // 4096, 1)]
    if len(np.unique(sample)) > len(sample) // 2:
        return np.unique(v, return_index=return_index, return_inverse=return_inverse)
    codes, first_seen = pd.factorize(v)  # codes numbered in order of first appearance
    first_seen = np.asarray(first_seen)
    order = np.argsort(first_seen, kind="stable")
    out = [first_seen[order]]
    if return_index:
        out.append(first_rows(codes)[order].astype(np.intp, copy=False))
    if return_inverse:
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order), dtype=np.intp)
        out.append(rank[codes])
    return out[0] if len(out) == 1 else tuple(out)


def sorted_codes(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(values, sort=True)`` of a 1-D integer array (no missing values): (int64 code of each row in
    the sorted order of the distinct values, those values sorted). Values within a small range (block sizes,
    register counts, name codes: a span up to 4 × the rows, at least 65,536) are ranked by a presence table over the
    span, without hashing; others go to ``pd.factorize``."""
    v = np.asarray(values)
    if v.ndim == 1 and v.dtype.kind in "iu" and len(v):
        lo, hi = int(v.min()), int(v.max())
        if hi - lo < max(4 * len(v), 1 << 16):
            off = v.astype(np.int64) - lo
            present = np.zeros(hi - lo + 1, dtype=bool)
            present[off] = True
            rank = np.cumsum(present, dtype=np.int64)
            rank -= 1
            return rank[off], (np.flatnonzero(present) + lo).astype(v.dtype, copy=False)
    codes, uniq = pd.factorize(v, sort=True)
    return codes.astype(np.int64, copy=False), np.asarray(uniq)


#: NumPy 1.25 made ``ufunc.at`` fast for simple cases (its release notes: "``ufunc.at`` can be up to 6x faster");
#: from then on ``np.add.at`` on int64 beats :func:`int_sums`' ``bincount`` route (numpy 2.4, 1M rows in 30 groups:
#: 8 ms vs 24 ms with the range check; 100k rows: 0.15 ms vs 0.27 ms).
_FAST_ADD_AT = np.lib.NumpyVersion(np.__version__) >= "1.25.0"


def int_sums(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Exact int64 sum of integer ``values`` per group code (0..n_groups−1), as ``np.add.at`` on int64 gives it.

    By ``np.add.at`` itself on NumPy 1.25 and later (:data:`_FAST_ADD_AT`). Before it, by ``np.bincount`` with
    float64 weights (several times faster than the old ``np.add.at``) when every partial sum is exact in float64:
    the values' absolute sum below 2**53 (104 days of ns); else ``np.add.at``."""
    v = np.asarray(values)
    out = np.zeros(n_groups, dtype=np.int64)
    if not len(v):
        return out
    if not _FAST_ADD_AT and v.dtype.kind in "iu" and float(np.abs(v).max()) * len(v) < 2.0 ** 53:
        out[:] = np.bincount(np.asarray(groups), weights=v, minlength=n_groups)[:n_groups].astype(np.int64)
        return out
    np.add.at(out, np.asarray(groups, dtype=np.int64), v.astype(np.int64, copy=False))
    return out


def first_rows(codes: np.ndarray) -> np.ndarray:
    """Row of the first occurrence of each code, for codes numbered in order of first appearance (0, 1, 2, … as
    ``pd.factorize`` numbers them, no −1): a row is a first occurrence where its code exceeds every code before
    it. Same as ``pd.Series(codes).drop_duplicates().index`` (int64, in code order), without a hash table."""
    c = np.asarray(codes)
    if not len(c):
        return np.zeros(0, dtype=np.int64)
    before = np.maximum.accumulate(c)
    return np.flatnonzero(np.r_[True, c[1:] > before[:-1]]).astype(np.int64, copy=False)


def sorted_positions(sv: np.ndarray, tv: np.ndarray) -> np.ndarray:
    """Positions in ``sv`` (strictly increasing integers, not empty) of the values ``tv``: where a value is in
    ``sv``, its position; elsewhere some position in ``[0, len(sv))`` (callers check ``sv[pos] == tv``).

    When ``sv`` is dense enough (its span at most 4 × the rows of both: Timeline row labels of a selection), one
    lookup table over the span (a random access per value) instead of ``np.searchsorted`` (a binary search per value,
    ~0.025 s per million); else the binary search."""
    lo, hi = int(sv[0]), int(sv[-1])
    if hi - lo < 4 * (len(sv) + len(tv)):
        # int32 positions where they fit: half the table's fresh pages (page faults were most of its cost)
        dt = np.int32 if len(sv) < 2 ** 31 else np.intp
        lut = np.zeros(hi - lo + 1, dtype=dt)  # absent values: position 0, which the caller's check rejects
        lut[sv - lo] = np.arange(len(sv), dtype=dt)
        return lut[np.clip(tv, lo, hi) - lo]
    return np.minimum(np.searchsorted(sv, tv), len(sv) - 1)


def isin_ints(values: Any, ids: Any, where: np.ndarray | None = None) -> np.ndarray:
    """``np.isin(values, ids)`` for integer arrays (a bool mask shaped like ``values``); with ``where`` (a bool mask
    like ``values``), only those rows are tested and the others are False.

    When ``ids`` are strictly increasing (event ids of rows), by position lookup (:func:`sorted_positions`) instead
    of ``np.isin``'s sort of both arrays (~0.1 s at a million of each)."""
    v, k = np.asarray(values), np.asarray(ids)
    if not (len(k) > 1 and v.dtype.kind in "iu" and k.dtype.kind in "iu" and bool((k[1:] > k[:-1]).all())):
        out = np.isin(v, k)
        return out if where is None else out & where
    rows = np.arange(len(v)) if where is None else np.flatnonzero(where)
    out = np.zeros(v.shape, dtype=bool)
    if len(rows):
        sel = v[rows]
        out[rows[k[sorted_positions(k, sel)] == sel]] = True
    return out


def reindex_sorted(series: pd.Series, index: pd.Index) -> pd.Series:
    """``series.reindex(index)``, by position lookup (:func:`sorted_positions`) instead of a hash table when
    ``series``'s index is strictly increasing integers (a selection of Timeline rows) and every label of ``index``
    is in it; otherwise pandas' own ``reindex``. Same values, dtype and name either way."""
    src = series.index
    if len(src) and len(index) and src.dtype.kind in "iu" and index.dtype.kind in "iu":
        if src is index or (len(src) == len(index) and src.equals(index)):
            return series.set_axis(index)  # the same labels in the same order: the values as they are, no look-up
        sv, tv = src.to_numpy(), index.to_numpy()
        if bool((sv[1:] > sv[:-1]).all()):
            pos = sorted_positions(sv, tv)
            if bool((sv[pos] == tv).all()):
                return series.iloc[pos].set_axis(index)
    return series.reindex(index)


def lookup_sorted(series: pd.Series, keys: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Values of ``series`` at integer ``keys`` by binary search, for a Series whose index is strictly increasing
    integers (a groupby result, per-event-id values): ``(values, found)`` — ``values[i]`` is the value at
    ``keys[i]`` where ``found[i]``, an arbitrary value of the Series elsewhere (the caller fills those). None when the
    index is not such (the caller then uses ``reindex``). Replaces ``series.reindex(keys)``'s hash table of a
    million keys."""
    keys = np.asarray(keys)
    idx = series.index
    if not (len(idx) and idx.dtype.kind in "iu" and keys.dtype.kind in "iu" and idx.is_monotonic_increasing
            and idx.is_unique):
        return None
    iv = idx.to_numpy(dtype="int64")
    pos = sorted_positions(iv, keys)
    return series.to_numpy()[pos], iv[pos] == keys
