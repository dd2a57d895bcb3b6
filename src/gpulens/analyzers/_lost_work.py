"""Queued idle gaps that lost GPU work most likely filled: a launch call with no GPU record (its correlation id on no
GPU event of its rank; not made during a stream capture) issued during the gap or the gap's length before it — most
often a CUDA/HIP graph launch whose kernels the profiler did not record. The GPU was not idle for certain there: such
idle is no evidence of a dependency (``bottlenecks``' verdict rests on no such idle; the finding says what most likely
ran, :func:`gpulens.analyzers._idle_blocking.unrecorded_wait_text`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers._gap_codes import GAP_CLASSES
from gpulens.analyzers.context import context_of, text_series
from gpulens.timeline import Timeline


def lost_calls(timeline: Timeline) -> pd.DataFrame:
    """The launch calls with no GPU record (module docstring): ``rank``, ``start_ns``, ``name``; start order."""
    from gpulens.analyzers.launches import (captured_calls, launch_call_mask, launch_calls, refused_work_calls,
                                            selection_cut_calls)

    def build() -> pd.DataFrame:
        ctx = context_of(timeline)
        empty = pd.DataFrame({"rank": np.zeros(0, np.int64), "start_ns": np.zeros(0, np.int64), "name": []})
        ev = timeline.events
        mask = launch_call_mask(timeline)
        if not mask.any() or "correlation_id" not in ev:
            return empty
        # the launch calls' rows (launch_calls' rows, in order): two columns read, not a full-width copy of a
        # million rows (0.12 s at 1M kernels) unless some call is lost
        rows = np.flatnonzero(ctx.mask_of("runtime"))[mask]
        corr = ev["correlation_id"].iloc[rows].to_numpy(dtype="float64", na_value=np.nan)
        # the calls no GPU event links to (the one launch ↔ GPU-work link, by rank and correlation id)
        linked = ctx.links["launch_event_id"].dropna().to_numpy(dtype="int64")
        lost = ~np.isnan(corr) & ~np.isin(ev["event_id"].iloc[rows].to_numpy(dtype="int64"), linked)
        if not lost.any():
            return empty
        calls = launch_calls(timeline)
        # recorded into a graph (stream capture), work refused as invalid, or cut by a --window/--steps selection:
        # not lost work (as the launches analyzer counts them)
        lost &= ~captured_calls(timeline, calls)[0] & ~refused_work_calls(timeline, calls) \
            & ~selection_cut_calls(timeline, calls)
        out = pd.DataFrame({"rank": calls["rank"].to_numpy()[lost].astype(np.int64),
                            "start_ns": calls["start_ns"].to_numpy("int64")[lost],
                            "name": text_series(calls["name"]).to_numpy(dtype=object)[lost].astype(str)})
        return out.sort_values(["rank", "start_ns"], kind="stable").reset_index(drop=True)

    return context_of(timeline).memo("lost_launch_calls", build)


def lost_in_gap(timeline: Timeline, rank: int, s: int, e: int) -> dict[str, int]:
    """Name → count of the lost launch calls of ``rank`` issued in ``[s − (e − s), e)`` (a gap ``[s, e)`` [ns])."""
    c = lost_calls(timeline)
    if not len(c):
        return {}
    m = (c["rank"].to_numpy() == rank) & (c["start_ns"].to_numpy() >= s - (e - s)) & (c["start_ns"].to_numpy() < e)
    names, counts = np.unique(c["name"].to_numpy()[m].astype(str), return_counts=True)
    return {str(n): int(k) for n, k in zip(names, counts)}


def lost_queued_mask(timeline: Timeline, gaps: pd.DataFrame, code: np.ndarray) -> np.ndarray:
    """Per gap: queued, with a lost launch call issued in ``[start − dur, end)`` on its rank."""
    out = np.zeros(len(gaps), dtype=bool)
    c = lost_calls(timeline)
    q = np.flatnonzero(code == GAP_CLASSES.index("queued")) if len(gaps) else np.zeros(0, np.int64)
    if not len(c) or not len(q):
        return out
    g_rank = gaps["rank"].to_numpy()[q]
    s = gaps["start_ns"].to_numpy("int64")[q]
    e = s + gaps["dur_ns"].to_numpy("int64")[q]
    for r in np.unique(g_rank):
        st = c.loc[c["rank"].to_numpy() == r, "start_ns"].to_numpy("int64")  # sorted
        on = g_rank == r
        lo = np.searchsorted(st, (s - (e - s))[on], "left")
        hi = np.searchsorted(st, e[on], "left")
        out[q[on]] = hi > lo
    return out


def lost_queued_ns(gaps: pd.DataFrame, m: np.ndarray, group: np.ndarray | None = None,
                   groups: int = 1) -> pd.DataFrame:
    """``idle_queued_lost_ns`` per group code (as ``bottlenecks._gap_counts``): the idle time outside sync calls of
    the gaps of :func:`lost_queued_mask` (``m``) [ns]."""
    g = np.zeros(len(gaps), dtype=np.int64) if group is None else group
    own = (gaps["dur_ns"] - gaps["sync_ns"]).to_numpy("int64").clip(min=0) if len(gaps) else np.zeros(0, np.int64)
    ns = np.zeros(groups, dtype=np.int64)
    np.add.at(ns, g[m], own[m])
    return pd.DataFrame({"idle_queued_lost_ns": ns})


def measured_stake(ns: int, tot: dict) -> int | None:
    """A time at stake of ``ns`` [ns] of idle that holds the queued idle, less the part that lies in gaps lost GPU
    work most likely filled (``tot["idle_queued_lost_ns"]``, :func:`lost_queued_ns`): that part is no measured idle,
    so nothing is at stake in it — the verdict already refuses to rest on it (:func:`lost_work_reason`), and a
    finding that kept it read "180 µs at stake" beside "not a measured idle". None (unknown) when nothing measured is
    left. The one rule of the idle finding's and the queued cause's stakes."""
    lost = int(tot.get("idle_queued_lost_ns") or 0)
    if not lost:
        return int(ns)
    left = int(ns) - lost
    return left if left > 0 else None


def lost_stake_note(tot: dict) -> str:
    """The sentence a stake that :func:`measured_stake` reduced carries ("" when nothing was left out)."""
    lost = int(tot.get("idle_queued_lost_ns") or 0)
    if not lost:
        return ""
    from gpulens.units import fmt_ns

    return (f" The time at stake leaves out the {fmt_ns(lost)} in gaps after launch calls with no GPU record (their "
            "work most likely ran there: not a measured idle).")


def lost_work_reason(row: dict, ns: int) -> str:
    """Why queued idle of ``ns`` [ns] is no verdict when at least half of it lies in gaps lost GPU work most likely
    filled (``row["idle_queued_lost_ns"]``), else ""."""
    lost = int(row.get("idle_queued_lost_ns") or 0)
    if not ns or 2 * lost < ns:
        return ""
    from gpulens.units import fmt_ns

    return (f"{fmt_ns(lost)} of the idle with work queued lies in gaps after launch calls with no GPU record: their "
            "work (a graph's kernels the profiler did not record, most often) most likely ran there — not a measured "
            "idle, and no dependency the trace shows; no verdict rests on it")
