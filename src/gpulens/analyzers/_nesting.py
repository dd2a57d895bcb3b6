"""Vectorised nesting of host intervals: the stack sweeps of :mod:`._optree` and :mod:`._critical_walk` in numpy.

Both sweeps visit the events of a thread in start order (longer first) with a stack of open events and pop the top
while it has ended (``end <= start`` of the event visited). Whatever the intervals (well nested or not), the top
left after popping is **the last event before i (in visit order) whose end is after i's start**: every event pushed
after it was popped at an earlier or the current start, i.e. ended by then. So the parent of each event is a
"last earlier element above a threshold" query, solved here by pointer jumping instead of a Python loop:

* each unresolved event keeps a candidate ``cand`` (initially the previous eligible event of its thread) with the
  invariant that every eligible event strictly between ``cand`` and itself has ended by its start;
* if the candidate has not ended by the start, it is the parent; otherwise the event jumps to the candidate's own
  candidate (which keeps the invariant, since starts are sorted), so chains shrink by doubling.

:func:`nest_open` is the sweep of :func:`._optree._sweep` (raw ends; only some rows may be parents), :func:`nest_clipped`
the one of :func:`._critical_walk.leaf_segments` (every event a parent; a child's end is clipped to its parent's).
The depth of an event is its parent's plus one (the stack below the parent is the parent's own stack), computed by
list ranking. Both fall back to the plain Python sweep when pointer jumping needs too many rounds (pathological chains
of partly overlapping events), so the result is always the sweep's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._groupstats import stable_order, tie_runs

#: Pointer-jumping rounds after which the Python sweep is used instead (it is exact and O(n); rounds are O(log n)
#: for well-nested traces).
MAX_ROUNDS = 64
#: Top-down passes of :func:`chain_min` before it finishes by pointer doubling.
_TOP_DOWN_ROUNDS = 8


class _TooDeep(Exception):
    pass


def thread_codes(df: pd.DataFrame, cols: tuple[str, ...] = ("rank", "pid", "tid")) -> np.ndarray:
    """One int64 code per row for the distinct (rank, pid, tid) of ``df`` (missing values form their own key, as
    ``fillna(-1)`` did); codes follow the sorted order of the keys."""
    if not len(df):
        return np.zeros(0, dtype=np.int64)
    code = None
    for c in cols:
        col = df[c]
        if pd.api.types.is_integer_dtype(col.dtype):  # numpy or nullable ints: no Int64 copy, then a filled copy
            vals = col.to_numpy(dtype=np.int64, na_value=-1)
        else:
            vals = col.astype("Int64").fillna(-1).to_numpy(dtype=np.int64)
        if vals.min() == vals.max():
            # one value (one rank, one process…): its rank is 0 everywhere, which only scales the folded code
            # (code · 2): the final dense ranks are the same without it
            continue
        rank, k = _dense_rank(vals)
        del vals
        if code is None:
            code = rank
        else:
            code *= k + 1
            code += rank
    if code is None:  # one thread
        return np.zeros(len(df), dtype=np.int64)
    return _dense_rank(code)[0]


def _dense_rank(vals: np.ndarray) -> tuple[np.ndarray, int]:
    """(rank of each value among the distinct values in sorted order, number of distinct values); by a presence
    table when the values span a small range (ids, ranks), else by factorizing."""
    lo, hi = int(vals.min()), int(vals.max())
    if hi - lo < max(4 * len(vals), 1 << 16):
        present = np.zeros(hi - lo + 1, dtype=bool)
        off = vals - lo
        present[off] = True
        rank_of = np.cumsum(present, dtype=np.int64)
        rank_of -= 1
        return rank_of[off], int(rank_of[-1]) + 1
    inv, uniq = pd.factorize(vals)
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.argsort(uniq, kind="stable")] = np.arange(len(uniq))
    return rank[inv], len(uniq)


def visit_order(group: np.ndarray, start: np.ndarray, dur: np.ndarray | None, tie: Any = None, *,
                end: np.ndarray | None = None, ties: Any = None) -> np.ndarray:
    """The sweeps' visit order: ``np.lexsort((tie, -dur, start, group))`` (``tie`` optional), computed as a stable
    sort of the starts (fast: traces list events nearly in start order), the few runs of equal starts re-sorted by
    (−dur, tie, ties(rows)…, row), then a stable sort by group. ``dur`` may be None with ``end`` given: the durations
    ``end − start`` are then computed for the tied rows only (no full-length array of them).

    ``ties`` (optional): a function of the tied rows' positions returning further keys, most significant first
    (:func:`host_ties`), so that events with the same interval nest the same way whatever the order of the trace
    file; the row is the last resort only."""
    o = np.argsort(start, kind="stable")
    s = start[o]
    eq = s[1:] == s[:-1]
    if eq.any():
        pos, run = tie_runs(eq)
        rows = o[pos]
        neg_dur = -dur[rows] if dur is not None else start[rows] - end[rows]
        extra = tuple(reversed(tuple(ties(rows)))) if ties is not None else ()
        keys = (rows,) + extra + ((tie[rows],) if tie is not None else ()) + (neg_dur, run)
        o[pos] = rows[np.lexsort(keys)]
    if len(group) and group.min() != group.max():
        o = o[stable_order(group[o])]
    return o


def host_ties(kind: pd.Series, name: pd.Series, external_id: Any = None) -> Any:
    """Tie keys (:func:`visit_order`'s ``ties``) of host events whose start and duration are equal: the framework op
    first (a cpu_op encloses the runtime calls it makes), then the lower external id (PyTorch numbers ops as they
    begin, so ``aten::to`` before the ``aten::_to_copy`` it calls with the same timestamps), then the name.
    ``external_id``: a function of the tied rows' positions returning their external ids (float, missing = inf),
    or None."""
    def keys(rows: np.ndarray) -> tuple:
        k = kind.iloc[rows]
        not_op = (np.asarray(k.astype(str), dtype=object) != "cpu_op").astype(np.int64)
        ext = external_id(rows) if external_id is not None else np.zeros(len(rows))
        nm = pd.factorize(np.asarray(name.iloc[rows].astype(str), dtype=object), sort=True)[0]
        return not_op, ext, nm
    return keys


def _first_of_group(group: np.ndarray) -> np.ndarray:
    """Index of the first row of each row's run of equal ``group`` values (``group`` sorted)."""
    n = len(group)
    new = np.ones(n, dtype=bool)
    new[1:] = group[1:] != group[:-1]
    return np.maximum.accumulate(np.where(new, np.arange(n), 0))


def _one_group(group: np.ndarray) -> bool:
    """Whether every row is in the same group."""
    return not len(group) or bool(group.min() == group.max())


def _prev_eligible(group: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """Last eligible position before each position, in the same group (−1 none)."""
    n = len(group)
    if not n:
        return np.empty(0, dtype=np.int64)
    if eligible.all():  # every row eligible: the row before (no running maximum over every row)
        prev = np.arange(-1, n - 1, dtype=np.int64)
    else:
        prev = np.empty(n, dtype=np.int64)
        prev[0] = -1
        prev[1:] = np.maximum.accumulate(np.where(eligible[:-1], np.arange(n - 1), -1))
    if not _one_group(group):  # one group (one host thread): no earlier row is in another group
        prev[prev < _first_of_group(group)] = -1
    return prev


def _max_end_before(group: np.ndarray, end: np.ndarray, eligible: np.ndarray, prev: np.ndarray | None
                    ) -> np.ndarray:
    """Largest end of the eligible events before each position in its group (int64 min when none); ``prev``:
    :func:`_prev_eligible` of the rows, computed here when None and needed."""
    lo = np.iinfo(np.int64).min
    one = _one_group(group)
    if one and len(end) and eligible.all():  # every earlier row: the running maximum of the ends, shifted by one
        out = np.empty(len(end), dtype=np.int64)
        out[0] = lo
        np.maximum.accumulate(end[:-1], out=out[1:])
        return out
    if prev is None:
        prev = _prev_eligible(group, eligible)
    vals = np.where(eligible, end, lo)
    if one:  # one running maximum, not a pandas groupby
        vals = np.maximum.accumulate(vals) if len(vals) else vals
    else:
        vals = pd.Series(vals).groupby(group).cummax().to_numpy()
    return np.where(prev >= 0, vals[np.maximum(prev, 0)], lo)


def levels(parent: np.ndarray, max_depth: int) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """(number of ancestors of each node, the nodes of each depth 1, 2, … in ascending order) of a forest given by
    ``parent`` (−1 = root), found top down one level at a time — or None when some node is deeper than
    ``max_depth`` (then :func:`depths`, whose pointer doubling costs O(n log depth) rather than O(n · depth)).
    Host threads nest a few levels deep: the levels come with the depths, no sort of the depths."""
    has = parent >= 0
    depth = has.astype(np.int64)
    rows = np.flatnonzero(has)
    anc = parent[rows]  # each row's ancestor at the current level's distance
    out: list[np.ndarray] = []
    for _ in range(max_depth):
        if not rows.size:
            return depth, out
        deeper = has[anc]
        out.append(rows[~deeper])  # rows exactly this deep
        rows = rows[deeper]
        anc = parent[anc[deeper]]
        depth[rows] += 1
    return (depth, out) if not rows.size else None


def depths(parent: np.ndarray) -> np.ndarray:
    """Number of ancestors of each node of a forest given by ``parent`` (−1 = root), by pointer doubling."""
    d = (parent >= 0).astype(np.int64)
    nxt = parent.copy()
    idx = np.flatnonzero(nxt >= 0)
    while idx.size:
        t = nxt[idx]
        d[idx] = d[idx] + d[t]
        nxt[idx] = nxt[t]
        idx = idx[nxt[idx] >= 0]
    return d


def _open_before(group: np.ndarray, start: np.ndarray, end: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """Whether some eligible row before each row (visit order) in its group ends after the row's start."""
    meb = _max_end_before(group, end, eligible, None)
    return np.greater(meb, start, out=np.empty(len(start), dtype=bool))


def nest_open(group: np.ndarray, start: np.ndarray, end: np.ndarray, eligible: np.ndarray,
              open_before: np.ndarray | None = None) -> np.ndarray:
    """Parent position (−1 none) of each row, rows given in visit order (group, then start, longer first).

    The parent is the last eligible row before it in its group whose (raw) end is after its start: the stack
    sweep's top. ``open_before``: whether an eligible row before each row in its group ends after its start
    (:func:`_open_before`; computed here when None). Raises :class:`_TooDeep` past :data:`MAX_ROUNDS` rounds.
    """
    n = len(start)
    parent = np.full(n, -1, dtype=np.int64)
    if not n:
        return parent
    cand = _prev_eligible(group, eligible)
    if open_before is None:
        open_before = _max_end_before(group, end, eligible, cand) > start  # else: nothing open, top level
    cand[~open_before] = -1
    active = np.flatnonzero(cand >= 0)
    for _ in range(MAX_ROUNDS):
        if not active.size:
            return parent
        c = cand[active]
        hit = end[c] > start[active]
        parent[active[hit]] = c[hit]
        rest, c = active[~hit], c[~hit]
        nc = cand[c]
        cand[rest] = nc
        active = rest[nc >= 0]
    raise _TooDeep


def chain_min(parent: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Minimum of ``values`` over each node and its ancestors (forest ``parent``, −1 = root): a new array.

    Top down: each node takes its parent's minimum where that is smaller, then only the children of the nodes that
    changed are looked at again — in a trace few events outlast their parent, so after one pass over every node the
    rest is small (no copy of the parents and no index of every child, as pointer doubling needs: those were
    full-length temporaries of millions of host rows at 1M kernels). After :data:`_TOP_DOWN_ROUNDS` passes (long
    chains of clipped nodes) pointer doubling finishes from the values reached so far (each is already a minimum
    over part of the node's chain, so the result is the same)."""
    m = values.copy()
    n = len(m)
    if not n:
        return m
    has = parent >= 0
    up = m[parent]  # a root reads the last row's value (index −1): masked out by ``has``
    low = up < m
    low &= has
    rows = np.flatnonzero(low)
    m[rows] = up[rows]
    del up, low
    for _ in range(_TOP_DOWN_ROUNDS):
        if not rows.size:
            return m
        changed = np.zeros(n, dtype=bool)
        changed[rows] = True
        kids = changed[parent]  # rows whose parent was just lowered (a root reads the last row's flag: masked)
        kids &= has
        cand = np.flatnonzero(kids)
        del changed, kids
        pv = m[parent[cand]]
        lower = pv < m[cand]
        rows = cand[lower]
        m[rows] = pv[lower]
    if not rows.size:
        return m
    nxt = parent.copy()
    idx = np.flatnonzero(nxt >= 0)
    while idx.size:
        t = nxt[idx]
        m[idx] = np.minimum(m[idx], m[t])
        nxt[idx] = nxt[t]
        idx = idx[nxt[idx] >= 0]
    return m


def nest_clipped(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parent position (−1 none) and clipped end of each row, rows in visit order; every row may be a parent and a
    row's end is clipped to its parent's clipped end.

    The sweep's answer is the unique solution of "parent = last earlier row whose clipped end is after my start,
    clipped end = min(own end, parent's clipped end)" (unique: each row depends only on earlier rows). It is found
    by fixed-point iteration: parents from the current ends (:func:`nest_open`), ends clipped along the new parent
    chains, until the parents stop changing — once for well-nested threads, where nothing is clipped. Raises
    :class:`_TooDeep` when that takes more than a few passes.
    """
    n = len(start)
    if not n:
        return np.full(0, -1, dtype=np.int64), end.copy()
    every = np.ones(n, dtype=bool)
    # whether a row before each one (same group) ends after its start: read by the first parents and, below, by
    # the components (computed once)
    open_before = _open_before(group, start, end, every)
    p = nest_open(group, start, end, every, open_before)
    cend = chain_min(p, end)
    if np.array_equal(cend, end):  # well nested: nothing clipped
        return p, cend
    # only the top-level components (maximal runs of rows overlapping by raw ends) holding a clipped row can
    # change: parents never cross a component boundary (every earlier row has ended, raw and clipped)
    np.logical_not(open_before, out=open_before)  # now: nothing open before the row — a component starts there
    comp = np.cumsum(open_before)
    del open_before
    # components are numbered in row order (a running count), so a presence table over them marks the rows of the
    # components holding a clipped row (np.isin sorted both arrays)
    marked = np.zeros(int(comp[-1]) + 1, dtype=bool)
    marked[comp[cend < end]] = True
    rows = np.flatnonzero(marked[comp])
    del marked
    g, s, e = group[rows], start[rows], end[rows]
    sub_every = np.ones(len(rows), dtype=bool)
    q = nest_open(g, s, e, sub_every)
    for _ in range(4):
        ce = chain_min(q, e)
        r = nest_open(g, s, ce, sub_every)
        if np.array_equal(r, q):
            p[rows] = np.where(q >= 0, rows[np.maximum(q, 0)], -1)
            cend[rows] = ce
            return p, cend
        q = r
    raise _TooDeep


def leaf_tiles(group: np.ndarray, start: np.ndarray, cend: np.ndarray, parent: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tiles of each group's time by the innermost covering event: (group, tile start, tile end, owner row or −1).

    Rows in visit order with clipped ends and parents from :func:`nest_clipped` (so intervals nest). The sweep meets
    the boundaries in Euler-tour order: the start of each row in visit order, each row's end right after the last
    row of its subtree (innermost first); a tile runs from one boundary to the next distinct one and belongs to the
    row on top after the first: the row itself after a start, its parent after an end. Tiles cover each group from
    its first start to its last end. Raises :class:`_TooDeep` if the boundaries are not in time order (they always
    are for a nesting from :func:`nest_clipped`; the check keeps the result exact whatever the input). For a single
    group, the group array returned is a read-only broadcast view of its code.
    """
    n = len(start)
    if not n:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z
    bounds = np.flatnonzero(np.r_[True, group[1:] != group[:-1], True])
    # last row of each subtree: the row itself plus its descendants, which follow it in visit order (the rows
    # starting before its clipped end; a zero-length row has none). Subtree sizes summed bottom-up, one nesting
    # level at a time (rows grouped by depth with one radix sort) — not a binary search of every row's end among
    # the starts (a cache miss per step on millions of rows)
    size = np.ones(n, dtype=np.int64)
    lv = levels(parent, _TOP_DOWN_ROUNDS)
    if lv is not None:  # a shallow forest (host threads): the rows of each depth found top down
        depth, by_level = lv
        for rows in reversed(by_level):
            np.add.at(size, parent[rows], size[rows])
        del by_level
    else:
        depth = depths(parent)
        by_depth = stable_order(depth)
        level_end = np.cumsum(np.bincount(depth))
        for d in range(len(level_end) - 1, 0, -1):
            rows = by_depth[level_end[d - 1]:level_end[d]]
            np.add.at(size, parent[rows], size[rows])
        del by_depth
    # in place where possible: at 1M kernels these are arrays of millions of rows, and fresh memory is what costs
    # Euler-tour slots in closed form: before row i's start come the i earlier starts and the ends of the earlier
    # rows that are not its ancestors (i − depth(i) of them), so start(i) is at 2·i − depth(i); its end follows the
    # start and end of every row of its subtree (the rows i+1..last(i), ends of rows inside it) and the starts of
    # its descendants, which puts it at 2·last(i) + 1 − depth(i) (no running count of the ends, no gathers)
    ar = np.arange(n)
    pos_s = np.multiply(ar, 2)
    pos_s -= depth
    pos_e = size  # last(i) = i + size(i) − 1, in place
    pos_e -= 1
    pos_e += ar
    pos_e *= 2
    pos_e += 1
    pos_e -= depth
    del depth, size
    m = 2 * n
    if min(pos_s.min(), pos_e.min()) < 0 or max(pos_s.max(), pos_e.max()) >= m:
        raise _TooDeep
    hit = np.zeros(m, dtype=bool)  # m positions in [0, m) that hit every slot: a permutation
    hit[pos_s] = True
    hit[pos_e] = True
    if not hit.all():
        raise _TooDeep
    del hit
    val = np.empty(m, dtype=np.int64)
    val[pos_s], val[pos_e] = start, cend
    own = np.empty(m, dtype=np.int64)
    own[pos_s], own[pos_e] = ar, parent
    lo, hi = bounds[:-1], bounds[1:]
    # each group's boundaries fill its own slots: rows lo..hi-1 of a group take positions 2·lo..2·hi-1 (every
    # subtree closes inside its group, and the slots are a permutation), so the group of slot k is the group of
    # row k // 2, and neighbours differ in group only at the slots 2·hi-1 / 2·hi
    if len(bounds) > 2 and (pos_e >= 2 * np.repeat(hi, hi - lo)).any():  # starts lie there by construction
        raise _TooDeep
    # from here on only what the tiles need is held: at 1M kernels these arrays (2 slots per host row) are the
    # critical path's, and the whole command's, largest allocations
    del pos_s, pos_e, ar
    up = val[1:] > val[:-1]  # boolean steps rather than an int64 difference array
    down = val[1:] < val[:-1]
    if len(bounds) > 2:  # across two groups' slots the time may go back, and no tile spans them
        up[2 * hi[:-1] - 1] = False
        down[2 * hi[:-1] - 1] = False
    if down.any():
        raise _TooDeep
    del down
    # the tiles picked by the boolean steps (no index array of every tile)
    owner = own[:-1][up]
    del own
    ta = val[:-1][up]
    tb = val[1:][up]
    del val
    # one group (the usual case): its code as a read-only view of the tiles' length, not an array
    tg = np.broadcast_to(group[0], len(ta)) if len(bounds) == 2 else group[np.flatnonzero(up) // 2]
    return tg, ta, tb, owner
