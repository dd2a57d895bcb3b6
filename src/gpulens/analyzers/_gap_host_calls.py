"""The runtime calls the host was in during idle GPU gaps — the look-ups behind the idle findings' "runtime calls in
them" (:func:`host_calls_in_gaps`) and a one-off gap's cause (:func:`_host_calls_during`), through an index of the
runtime calls built once per Timeline (the analysis context's memo). Split from :mod:`._idle_findings`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._gap_codes import gap_class_mask
from gpulens.analyzers.context import category_mask, context_of, strings, text_series
from gpulens.timeline import Timeline


def host_calls_in_gaps(timeline: Timeline, gaps: pd.DataFrame, cls: str = "host", n: int = 2,
                       max_gaps: int = 200) -> list[dict[str, Any]]:
    """The runtime calls the host was in during the idle gaps of class ``cls`` (``gaps``:
    :func:`gpulens.analyzers.bottlenecks.classify_gaps`; boundary gaps are another class, so left out): per call
    name, ``overlap_ns`` (its time inside those gaps: the union of its calls' parts there, per rank) and ``calls``
    (distinct calls) and ``longest_ns`` (the one call with the most time inside them, its parts' union) — the ``n`` largest, over the ``max_gaps`` longest gaps of the class (the others hold less time
    each). Blocking calls (:data:`~gpulens.analyzers.bottlenecks.BLOCKING_RE`) are left out: their time is the
    "host blocked" cause. Empty when no call overlaps them."""
    if not len(gaps):
        return []
    g = gaps[gap_class_mask(gaps, cls)]
    if not len(g):
        return []
    g = g.nlargest(max_gaps, "dur_ns")
    call_names, r_s, r_e, order, ranks, bounds, starts, reach = _runtime_calls_by_start(timeline)
    if not len(r_s):
        return []
    # per gap the calls that overlap it, in row order: only the calls that start before the gap ends and (by the
    # running latest end) may end after it starts are tested — not every runtime call once per gap
    hits: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
    for r, s, d in zip(g["rank"].tolist(), g["start_ns"].tolist(), g["dur_ns"].tolist()):
        k = int(np.searchsorted(ranks, r))
        if k == len(ranks) or ranks[k] != r:
            continue
        a, b = int(bounds[k]), int(bounds[k + 1])
        lo_i = a + int(np.searchsorted(reach[a:b], s, side="right"))
        hi_i = a + int(np.searchsorted(starts[a:b], s + d, side="left"))
        i = np.sort(order[lo_i:hi_i])
        lo, hi = np.maximum(r_s[i], s), np.minimum(r_e[i], s + d)
        keep = hi > lo
        if keep.any():
            hits.append((r, i[keep], lo[keep], hi[keep]))
    if not hits:
        return []
    rows_hit = np.unique(np.concatenate([h[1] for h in hits]))
    names = dict(zip(rows_hit.tolist(), strings(call_names.iloc[rows_hit]).tolist()))
    # per call name: its distinct calls, and the parts of them inside the gaps — one call across several gaps is one
    # call, and calls on two threads at the same moment are that moment once (the union, per rank)
    per: dict[str, dict[str, Any]] = {}
    for r, idx, lo, hi in hits:
        for i, a, b in zip(idx.tolist(), lo.tolist(), hi.tolist()):
            x = per.setdefault(str(names[i]), {"ids": {}, "parts": []})
            x["ids"].setdefault(i, []).append((r, a, b))  # each call's parts in the gaps
            x["parts"].append((r, a, b))
    rows = [{"name": k, "overlap_ns": _union_ns(v["parts"]), "calls": len(v["ids"]),
             "longest_ns": max(_union_ns(p) for p in v["ids"].values())} for k, v in per.items()]
    return sorted(rows, key=lambda x: -x["overlap_ns"])[:n]


def _runtime_calls_by_start(timeline: Timeline) -> tuple[pd.Series, np.ndarray, np.ndarray, np.ndarray,
                                                            np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The runtime calls but the blocking ones (:data:`~gpulens.analyzers.bottlenecks.BLOCKING_RE`), indexed for
    interval look-ups, once per Timeline: ``(names, starts, ends, order, ranks, bounds, sorted_starts, reach)`` —
    per call in row order its name (the column's dtype), start and end [ns]; ``order`` the row positions sorted by
    (rank, start), rank ``ranks[k]`` holding ``order[bounds[k]:bounds[k + 1]]``; ``sorted_starts`` the starts in
    that order and ``reach`` the latest end [ns] so far within the rank (non-decreasing: no call before the first
    position whose reach exceeds t ends after t)."""
    from gpulens.analyzers.bottlenecks import BLOCKING_RE

    def build() -> tuple:
        rt = _runtime_rows(timeline)
        keep = ~category_mask(rt["name"], BLOCKING_RE) if len(rt) else np.zeros(0, dtype=bool)
        names = rt["name"][keep]
        rank = rt["rank"].to_numpy("int64")[keep]
        s = rt["start_ns"].to_numpy("int64")[keep]
        e = s + rt["dur_ns"].to_numpy("int64")[keep]
        order = np.lexsort((s, rank))
        ranks, first = np.unique(rank[order], return_index=True)
        bounds = np.append(first, len(order))
        reach = e[order]
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            np.maximum.accumulate(reach[a:b], out=reach[a:b])
        return names, s, e, order, ranks, bounds, s[order], reach

    return context_of(timeline).memo("runtime_calls_by_start", build)


#: The columns of the runtime calls that the idle-gap look-ups read (:func:`_runtime_rows`).
RUNTIME_COLUMNS = ("name", "rank", "start_ns", "dur_ns")


def _runtime_rows(timeline: Timeline) -> pd.DataFrame:
    """The runtime calls (``of_kind("runtime")``'s rows, in row order, index kept) with the columns the idle-gap
    look-ups read only (:data:`RUNTIME_COLUMNS`): not a copy of every column of a million calls (0.12 s at 1M
    kernels, and the pages of 30 columns)."""
    ctx = context_of(timeline)
    return ctx.take_rows(ctx.mask_of("runtime"), RUNTIME_COLUMNS)


def _union_ns(parts: list[tuple[Any, int, int]]) -> int:
    """Summed length [ns] of the union, per rank, of (rank, start, end) intervals."""
    from gpulens.analyzers.intervals import merge

    total = 0
    for rank in {p[0] for p in parts}:
        mine = [(a, b) for r, a, b in parts if r == rank]
        ms, me = merge(np.array([a for a, _ in mine], dtype=np.int64), np.array([b for _, b in mine], dtype=np.int64))
        total += int((me - ms).sum())
    return total


def _host_calls_during(timeline: Timeline, rank: int, start: int, end: int, n: int = 2) -> list[tuple[str, int]]:
    """The ``n`` runtime calls of ``rank`` that overlap [start, end) the most: (name, overlap ns)."""
    ctx = context_of(timeline)
    rt = ctx.memo("runtime_rows", lambda: _runtime_rows(timeline))
    by_rank = ctx.memo("runtime_rows_by_rank", lambda: pd.Series(np.arange(len(rt))).groupby(
        rt["rank"].to_numpy(), sort=False).indices if len(rt) else {})  # grouped once, not a mask per gap
    rt = rt.iloc[by_rank.get(rank, np.zeros(0, dtype="int64"))]
    st = rt["start_ns"].to_numpy("int64")
    ov = np.minimum(st + rt["dur_ns"].to_numpy("int64"), end) - np.maximum(st, start)
    keep = np.flatnonzero(ov > 0)
    if not keep.size:
        return []
    top = keep[np.argsort(-ov[keep], kind="stable")[:n]]
    names = text_series(rt["name"].iloc[top]).tolist()
    return [(str(nm), int(o)) for nm, o in zip(names, ov[top])]
