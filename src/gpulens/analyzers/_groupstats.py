"""Per-group statistics on numpy arrays (no per-group DataFrame): what ``groupby(...).agg`` with numpy's
percentile gives, computed for every group at once.

Groups are integer codes ``0..G-1`` (e.g. category codes of a name column). :func:`group_percentiles` reproduces
``numpy.percentile(x, q)`` (method ``linear``) bit for bit — the same virtual index ``(n − 1) × q/100`` and the
same two-sided interpolation as numpy's ``_lerp`` — so tables built with it equal the per-group loops they replace.
"""

from __future__ import annotations

import numpy as np


def stable_order(codes: np.ndarray) -> np.ndarray:
    """``np.argsort(codes, kind="stable")`` — the same permutation — for integer codes, faster when they fit in 16
    bits: those are sorted as ``uint8``/``uint16``, for which numpy's stable sort is a radix sort (linear time; about
    6× quicker than the int64 sort at a million rows). Other codes are sorted as they are."""
    c = np.asarray(codes)
    if len(c) and c.dtype.kind in "iu":
        lo, hi = int(c.min()), int(c.max())
        if lo >= 0 and hi < 256:
            c = c.astype(np.uint8)
        elif lo >= 0 and hi < 65536:
            c = c.astype(np.uint16)
    return np.argsort(c, kind="stable")


def stable_argsort(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` — the same permutation — faster for integer values (or floats that are
    all whole numbers below 2^53, such as durations in ns) in no particular order: each value is folded with its row
    number into one int64 key, ``(value − min) × n + row``, and the keys are sorted as values (numpy's SIMD sort;
    the keys are distinct, so the order of equal values is the rows' order, as in a stable sort). About 7× quicker
    than numpy's stable sort (a timsort) on a million shuffled values; values already nearly in order (timsort's
    best case) or whose range × rows does not fit 2^62 are sorted as they are."""
    v = np.asarray(values)
    n = len(v)
    if n < 4096 or v.ndim != 1 or v.dtype.kind not in "iuf":
        return np.argsort(v, kind="stable")
    if v.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            whole = bool(np.all(np.abs(v) < 2.0 ** 53)) and bool(np.all(v == np.trunc(v)))
        if not whole:  # fractions, NaN, infinities: numpy's order
            return np.argsort(v, kind="stable")
    if np.count_nonzero(v[1:] < v[:-1]) < n // 64:  # nearly sorted: timsort takes the runs as they come
        return np.argsort(v, kind="stable")
    lo, hi = int(v.min()), int(v.max())
    if (hi - lo + 1) * n >= 2 ** 62 or hi >= 2 ** 63:
        return np.argsort(v, kind="stable")
    key = (v.astype(np.int64) - lo) * n  # -0.0 and 0.0 both fold to 0: equal, as the comparison sort has them
    key += np.arange(n, dtype=np.int64)
    key.sort()
    return key % n


def sort_by_group(groups: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Values sorted by (group, value) and each group's start offset and size.

    Args:
        groups: int group code per row (0..G-1, every code present or not).
        values: one number per row (any numeric dtype).

    Returns:
        (sorted values, sorted group codes, starts, counts); starts/counts are indexed by group code (size G =
        max code + 1; an absent group has count 0).
    """
    groups = np.asarray(groups, dtype="int64")
    values = np.asarray(values)
    n_groups = int(groups.max()) + 1 if len(groups) else 0
    counts = np.bincount(groups, minlength=n_groups) if n_groups else np.zeros(0, dtype="int64")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])) if n_groups else np.zeros(0, dtype="int64")
    if len(values) and values.dtype.kind in "iu" and int(groups.min()) >= 0:
        # integers: (group, value) folded into one int64 key and sorted as values (no permutation: the sorted pairs
        # are the same whatever order equal pairs take) — about 4× quicker than the lexsort at a million rows
        lo, hi = int(values.min()), int(values.max())
        width = hi - lo + 1
        if n_groups * width < 2 ** 62:
            key = groups * width + (values.astype("int64") - lo)
            key.sort()
            g = key // width
            return (key - g * width + lo).astype(values.dtype, copy=False), g, starts, counts
    order = np.lexsort((values, groups))
    return values[order], groups[order], starts, counts


def group_percentiles(sorted_values: np.ndarray, starts: np.ndarray, counts: np.ndarray, q: float) -> np.ndarray:
    """``numpy.percentile(group, q)`` (linear) for every group with count > 0 (float64; NaN for empty groups).

    Args:
        sorted_values: values sorted within each group (:func:`sort_by_group`).
        starts, counts: each group's offset into ``sorted_values`` and its size.
        q: percentile in [0, 100].
    """
    n = np.asarray(counts, dtype="int64")
    out = np.full(len(n), np.nan)
    has = n > 0
    if not has.any():
        return out
    qf = np.true_divide(q, 100)
    virtual = (n[has] - 1) * qf
    prev = np.floor(virtual)
    above = virtual >= n[has] - 1
    gamma = virtual - np.where(above, -1.0, prev)
    s = np.asarray(starts, dtype="int64")[has]
    last = s + n[has] - 1
    lo = np.where(above, last, s + prev.astype("int64"))
    hi = np.where(above, last, np.minimum(lo + 1, last))
    a, b = sorted_values[lo], sorted_values[hi]
    diff = b - a
    res = np.add(a, diff * gamma)
    big = gamma >= 0.5
    res = np.where(big, np.subtract(b, diff * (1 - gamma)), res)
    out[has] = res
    return out


def first_max_rows(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group code (0..n_groups−1, every one present, no −1): the row of its largest integer value, the first
    such row on a tie — ``pd.Series(values).groupby(groups).idxmax()`` in code order (int64 rows), by one
    ``np.maximum.at`` and one ``np.minimum.at`` over the rows instead of a groupby's hash and sort (≈ 0.09 →
    0.05 s per million rows). ``values``: an integer array (no missing values)."""
    g = np.asarray(groups, dtype=np.int64)
    v = np.asarray(values)
    top = np.full(n_groups, np.iinfo(v.dtype).min, dtype=v.dtype)
    np.maximum.at(top, g, v)
    cand = np.flatnonzero(v == top[g])  # rows holding their group's maximum, ascending
    first = np.full(n_groups, len(v), dtype=np.int64)
    np.minimum.at(first, g[cand], cand)
    return first


def group_sums(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Per-group ``values[rows of the group].sum()`` (float64), equal bit for bit to numpy's sum of each group's
    values in row order (numpy sums pairwise, so a sequential ``bincount`` can differ in the last bit).

    Groups of one or two rows come from ``bincount`` (the same two-operand sum); larger groups are summed slice by
    slice on the rows sorted stably by group — one numpy call per such group.
    """
    return group_sums_many(groups, [values], n_groups)[0]


def group_sums_many(groups: np.ndarray, values: list, n_groups: int) -> list[np.ndarray]:
    """:func:`group_sums` of several value arrays over the same ``groups`` (one float64 array per entry of
    ``values``, each equal to ``group_sums(groups, v, n_groups)``): the group counts and the stable order of the
    groups are computed once for all of them."""
    g = np.asarray(groups, dtype="int64")
    counts = np.bincount(g, minlength=n_groups)
    big = np.flatnonzero(counts > 2)
    order = stable_order(g) if len(big) else None
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])) if len(big) else None
    outs = []
    for v in values:
        x = np.asarray(v, dtype="float64")
        out = np.bincount(g, x, minlength=n_groups).astype("float64")
        if len(big):
            xs = x[order]
            for k, s, n in zip(big.tolist(), starts[big].tolist(), counts[big].tolist()):
                out[k] = xs[s:s + n].sum()
        outs.append(out)
    return outs


def group_percentile_table(groups: np.ndarray, values: np.ndarray,
                           qs: tuple[float, ...]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per group code 0..G−1 (G = max code + 1): ``numpy.percentile(group, q)`` (linear) for each ``q`` of ``qs``, and
    the group's largest value — what :func:`sort_by_group` + :func:`group_percentiles` give (NaN percentiles for an
    absent group; its maximum then is undefined).

    Few, large groups (G ≤ max(16, rows // 1000)): each group's values gathered by a radix sort of the codes
    (:func:`stable_order`) and given to ``numpy.percentile`` itself (a partition per group, no full sort: about
    5× quicker at a million rows and 30 groups). Many groups: the sort of every (group, value) pair.

    Returns:
        (one float64 array per ``q``, the int/float maximum per group in ``values``' dtype).
    """
    g = np.asarray(groups, dtype="int64")
    x = np.asarray(values)
    n_groups = int(g.max()) + 1 if len(g) else 0
    if not n_groups or n_groups > max(16, len(x) // 1000):
        sv, _, st, ct = sort_by_group(g, x)
        top = sv[np.maximum(st + ct - 1, 0)] if len(sv) else np.zeros(n_groups, dtype=x.dtype)
        return [group_percentiles(sv, st, ct, q) for q in qs], top
    order = stable_order(g)
    xs = x[order]
    counts = np.bincount(g, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out = [np.full(n_groups, np.nan) for _ in qs]
    top = np.zeros(n_groups, dtype=x.dtype)
    for k, s, n in zip(range(n_groups), starts.tolist(), counts.tolist()):
        if n:
            part = xs[s:s + n]
            for j, v in enumerate(np.percentile(part, list(qs)).tolist()):
                out[j][k] = v
            top[k] = part.max()
    return out, top


def tie_runs(eq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For sorted keys with ``eq = key[1:] == key[:-1]``: the positions whose key equals a neighbour's, and for each
    the number of its run of equal keys (increasing along the order) — what a tie-break sorts within."""
    tied = np.zeros(len(eq) + 1, dtype=bool)
    tied[1:] |= eq
    tied[:-1] |= eq
    pos = np.flatnonzero(tied)
    return pos, np.cumsum(np.r_[True, ~eq])[pos]
