"""The profiled window's host-only edges: time before each rank's first GPU event and after its last, on the
events' own clock (clock-domain gaps left out), and the finding that says how much of the window it is and what the
host ran there (:func:`window_finding`). Read by the idle analysis (bottlenecks) and the critical path."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers.base import Finding
from gpulens.analyzers.context import context_of, reindex_sorted, text_series
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns, pct_words, share_pct_text

#: Host-only time at the edges of the profiled window — before a rank's first GPU event and after its last — gets a
#: finding when it is at least this share of the window (a warning from half of it).
WINDOW_IDLE_SHARE = 0.25
#: A rank's first GPU work that starts more than this after its launch call returned was held by the GPU: the time
#: from that return to the first GPU event is not host-only (the bottlenecks analyzer's launch_gap_ns default, the
#: upper end of typical launch costs).
PENDING_START_NS = 20_000
_TEARDOWN = ("cuModuleUnload", "hipModuleUnload", "cuMemFree", "cudaFree", "hipFree", "cuCtxDestroy", "hipCtxDestroy",
             "cuMemUnmap", "cuMemRelease", "cudaStreamDestroy", "hipStreamDestroy", "cudaEventDestroy",
             "cuMemAddressFree", "cudaDeviceReset", "hipDeviceReset")


def _host_activity(timeline: Timeline, rank: int, start: int, end: int, n: int = 3
                   ) -> tuple[list[dict[str, Any]], int]:
    """The host events (runtime calls, CPU operators, syncs) of ``rank`` with the most time inside [start, end):
    name, summed overlap [ns], count — the ``n`` largest; and the time their union covers [ns]."""
    from gpulens.analyzers.intervals import merge

    ctx = context_of(timeline)
    ev = ctx.of_kind("runtime", "cpu_op", "sync")
    if not len(ev):
        return [], 0
    s = ev["start_ns"].to_numpy("int64")
    e = s + ev["dur_ns"].to_numpy("int64")
    ov = np.minimum(e, end) - np.maximum(s, start)
    keep = np.flatnonzero((ov > 0) & (ev["rank"].to_numpy() == rank))
    if not keep.size:
        return [], 0
    ms, me = merge(np.maximum(s[keep], start), np.minimum(e[keep], end))
    df = pd.DataFrame({"name": text_series(ev["name"].iloc[keep]).to_numpy(), "ov": ov[keep]})
    g = df.groupby("name", sort=False)["ov"].agg(["sum", "size"]).sort_values("sum", ascending=False).head(n)
    return ([{"name": str(k), "overlap_ns": int(v["sum"]), "calls": int(v["size"])} for k, v in g.iterrows()],
            int((me - ms).sum()))


def _one_rank_window(ev: pd.DataFrame, host: np.ndarray, gpu: pd.DataFrame, eff: pd.Series
                     ) -> dict[int, tuple[int, int]] | None:
    """:func:`gpulens.analyzers._span.hulls_of` of the host rows (``host``) and the GPU rows (effective ends) of a
    one-rank trace whose window is shorter than :data:`~gpulens.analyzers._span.CLOCK_GAP_NS` — there the hull is
    the first start and the last end, found without joining every event's interval into new arrays (at 1M kernels
    those were this analysis's largest allocation). None otherwise (the caller takes the general path)."""
    from gpulens.analyzers._span import CLOCK_GAP_NS

    rank = ev["rank"].to_numpy()
    if not len(rank) or rank.dtype.kind not in "iu" or rank.min() != rank.max():
        return None
    gs = gpu["start_ns"].to_numpy("int64")
    first, last = int(gs.min()), int((gs + eff.to_numpy("int64")).max())
    if host.any():
        hs = ev["start_ns"].to_numpy("int64")[host]
        first = min(first, int(hs.min()))
        hs += ev["dur_ns"].to_numpy("int64")[host]  # now the host rows' ends
        last = max(last, int(hs.max()))
    if last - first >= CLOCK_GAP_NS:
        return None
    return {int(rank[0]): (first, last)}


def host_only_window(timeline: Timeline) -> tuple[dict[str, int], tuple]:
    """The figures of :func:`window_finding`, computed once per Timeline (its analysis context; the critical path
    reads them too): ``({"window_ns", "host_only_before_ns", "host_only_after_ns", "gpu_pending_before_ns"} [ns,
    summed over ranks], the largest host-only part as (ns, rank, start, end, side))``; ``({}, ())`` without GPU
    events. An edge a --steps/--window selection cut holds no host-only time. ``gpu_pending_before_ns``: the part of
    the time before a rank's first GPU event during which the GPU already held recorded work — from the earliest
    return of a launch call of the rank's GPU events to its first GPU event, when that is over
    :data:`PENDING_START_NS` (:func:`_pending_before`); it is not host-only time. ``window_ranks`` (several ranks
    only): how many ranks' windows ``window_ns`` sums (:func:`window_words` names it)."""
    return context_of(timeline).memo("host_only_window", lambda: _host_only_window(timeline))


def _host_only_window(timeline: Timeline) -> tuple[dict[str, int], tuple]:
    from gpulens.analyzers._span import hulls_of, rank_hulls

    ctx = context_of(timeline)
    gpu = ctx.gpu
    if not len(gpu):
        return {}, ()
    ev = timeline.events
    host = ctx.host_rows
    win = _one_rank_window(ev, host, gpu, ctx.effective_ns)
    far: dict[int, tuple[int, int, np.ndarray, np.ndarray]] = {}
    if win is None:  # several ranks, or a window long enough to hold a clock-domain gap: every event's interval
        st = np.concatenate([ev["start_ns"].to_numpy("int64")[host], gpu["start_ns"].to_numpy("int64")])
        en = np.concatenate([(ev["start_ns"] + ev["dur_ns"]).to_numpy("int64")[host],
                             gpu["start_ns"].to_numpy("int64") + ctx.effective_ns.to_numpy("int64")])
        rk = np.concatenate([ev["rank"].to_numpy()[host], gpu["rank"].to_numpy()])
        win = hulls_of(rk, st, en)
        far = _far_gaps(rk, st, en)
    ghull = rank_hulls(gpu.assign(dur_ns=ctx.effective_ns))
    # an edge that a --steps/--window selection cut is the user's, not the profiler's: time between it and the GPU
    # work is no profiler-range fault (and the window is bounded by the selection: Selection.clip_dur)
    cuts = {c for src in (timeline.meta.sources if timeline.meta else []) for c in src.get("selection_cuts") or ()}
    before = after = window = 0
    worst = (0, None, 0, 0, "")
    g_first, g_last = _real_hulls(gpu["rank"].to_numpy(), gpu["start_ns"].to_numpy("int64"),
                                  gpu["start_ns"].to_numpy("int64") + ctx.effective_ns.to_numpy("int64"))
    held = _pending_before(timeline, g_first)
    pending = 0
    for r, (gs, ge) in ghull.items():
        ws, we = win.get(r, (gs, ge))
        if r in far:  # a clock-domain gap in the window: host-only parts measured on the real clock, gaps left out
            first, last, gap_lo, gap_hi = far[r]
            rgs, rge = g_first[r], g_last[r]
            b = rgs - first - int((gap_hi - gap_lo)[gap_hi <= rgs].sum())
            a = last - rge - int((gap_hi - gap_lo)[gap_lo >= rge].sum())
            b, a = (0 if "start" in cuts else max(b, 0)), (0 if "end" in cuts else max(a, 0))
        else:
            b = 0 if "start" in cuts else max(gs - ws, 0)
            a = 0 if "end" in cuts else max(we - ge, 0)
        p = min(held.get(r, 0), b)  # the GPU held enqueued work: not host-only, and not in the host-only part
        b -= p
        before, after, window, pending = before + b, after + a, window + (we - ws), pending + p
        for part, lo, hi, side in ((b, ws, gs - p, "before"), (a, ge, we, "after")):
            if part > worst[0]:
                worst = (part, r, lo, hi, side)
    out = {"window_ns": int(window), "host_only_before_ns": int(before), "host_only_after_ns": int(after),
           "gpu_pending_before_ns": int(pending)}
    if len(ghull) > 1:  # ``window_ns`` is a sum over ranks, not the run's wall-clock window: the texts say so
        out["window_ranks"] = len(ghull)
    return out, worst


def window_words(ranks: int | None, window_ns: int | None = None) -> str:
    """The name of the window ``window_ns`` is: "the profiled window" of one rank, "the N ranks' summed profiled
    windows" of several (a sum over ranks is not the run's wall-clock window, which the summary quotes as "profiled
    window"); with ``window_ns``, its length: "the 76.02 ms profiled window"."""
    n = int(ranks or 1)
    length = f"{fmt_ns(window_ns)} " if window_ns is not None else ""
    return f"the {length}profiled window" if n <= 1 else f"the {n:,} ranks' {length}summed profiled windows"


def _pending_before(timeline: Timeline, first: dict[int, int]) -> dict[int, int]:
    """Per rank, how long before its first GPU event (``first``: rank → start [ns]) the GPU already held recorded
    work: first start − the earliest end of a launch call linked to one of the rank's GPU events, when that is over
    :data:`PENDING_START_NS` (ranks without such a launch are absent). The work was enqueued and the GPU ran none
    of it — it was busy with work launched before the profiler started, which the profiler does not record (a
    vLLM decode on an MI300X: the first copies started 149 ms after their hipMemcpyAsync returned, every launch of
    the run made in the first 26 ms of the window)."""
    ctx = context_of(timeline)
    lid = reindex_sorted(ctx.links["launch_event_id"], ctx.gpu.index)  # aligned with the GPU rows
    known = lid.notna().to_numpy()
    if not known.any():
        return {}
    pos = ctx.positions(lid[known].astype("int64").to_numpy())
    ok = pos >= 0
    ev = timeline.events
    ends = (ev["start_ns"].to_numpy("int64") + ev["dur_ns"].to_numpy("int64"))[pos[ok]]
    ranks = ctx.gpu["rank"].to_numpy()[known][ok]
    if not len(ends):
        return {}
    earliest = pd.Series(ends).groupby(ranks).min()
    out = {}
    for r, e in earliest.items():
        f = first.get(int(r))
        if f is not None and f - int(e) > PENDING_START_NS:
            out[int(r)] = f - int(e)
    return out


def _real_hulls(rank: np.ndarray, s: np.ndarray, e: np.ndarray) -> tuple[dict[int, int], dict[int, int]]:
    """Per rank: the first start and the last end [ns] on the events' own clock (no gap left out)."""
    if not len(rank):
        return {}, {}
    df = pd.DataFrame({"rank": rank, "s": s, "e": e}).groupby("rank", sort=True)
    lo, hi = df["s"].min(), df["e"].max()
    return ({int(k): int(v) for k, v in lo.items()}, {int(k): int(v) for k, v in hi.items()})


def _far_gaps(rank: np.ndarray, s: np.ndarray, e: np.ndarray) -> dict[int, tuple[int, int, np.ndarray, np.ndarray]]:
    """Ranks whose events span at least :data:`~gpulens.analyzers._span.CLOCK_GAP_NS`: rank → (first start, last end,
    and the bounds of each gap of at least that length between its merged busy segments) [ns]. A host event on
    another clock (a timestamp days away) is no host-only time before or after the GPU work."""
    from gpulens.analyzers._span import CLOCK_GAP_NS
    from gpulens.analyzers.intervals import group_segments

    first, last = _real_hulls(rank, s, e)
    wide = [r for r in first if last[r] - first[r] >= CLOCK_GAP_NS]
    out = {}
    for r in wide:  # rare: a window over a day long
        rows = np.flatnonzero(rank == r)
        seg = group_segments(np.zeros(len(rows), dtype=np.int64), s[rows], e[rows])
        k = np.flatnonzero(seg["gap_before"] >= CLOCK_GAP_NS)
        out[r] = (first[r], last[r], seg["end"][k - 1], seg["start"][k])
    return out


def window_finding(timeline: Timeline) -> tuple[dict[str, Any], Finding | None]:
    """Host-only time of the profiled window outside the GPU span (before the first / after the last GPU event of
    each rank): the figures (``host_only_before_ns``, ``host_only_after_ns``, ``window_ns`` summed over ranks,
    ``host_only_outside_pct`` = 100 × (before + after) / window [%] — the one share every report and verdict quotes;
    None for an empty window — and ``host_only_activity``: what the host ran in the larger part of the rank with the
    most) and a finding when it is
    at least :data:`WINDOW_IDLE_SHARE` of the window. Busy %, the idle split and the verdict are about the GPU span,
    so without this a window that is 99 % host-only reads "gpu-bound" and nothing else."""
    out, worst = host_only_window(timeline)
    if not out:
        return {}, None
    out = dict(out)  # the memo's figures stay as computed
    before, after, window = out["host_only_before_ns"], out["host_only_after_ns"], out["window_ns"]
    outside = before + after
    nr = int(out.get("window_ranks") or 1)
    out["host_only_outside_pct"] = 100.0 * outside / window if window > 0 else None
    pending = int(out.get("gpu_pending_before_ns") or 0)
    if window > 0 and pending >= WINDOW_IDLE_SHARE * window and pending >= outside:
        return out, _pending_finding(timeline, pending, window, nr)
    if window <= 0 or outside < WINDOW_IDLE_SHARE * window:
        return out, None
    part, r, lo, hi, side = worst
    acts, covered = _host_activity(timeline, int(r), int(lo), int(hi))
    out["host_only_activity"] = acts
    share_text = share_pct_text(out["host_only_outside_pct"])  # never "100 %" of some work: "over 99.9 %"
    what = ", ".join(f"{a['name']} {fmt_ns(a['overlap_ns'])} in {a['calls']:,} call{'s' if a['calls'] != 1 else ''}"
                     for a in acts)
    names = [a["name"] for a in acts]
    kind = (" — module unloading and memory release: the program's teardown"
            if names and all(n.startswith(_TEARDOWN) for n in names) else
            " — module loading, allocation and set-up" if names and all(map(_advice.is_setup_call, names)) else "")
    cover = "" if covered >= 0.5 * part else (
        f" Recorded calls and operators cover only {pct_words(100.0 * covered / max(part, 1))} of it: the rest is host "
        "code the profiler does not break down (Python, I/O, waiting) or the profiler's own start/stop.")
    during = (f"During the larger part ({fmt_ns(part)} {side} the GPU work on rank {r}) the host ran {what}{kind}."
              + cover if acts else f"No host call or operator is recorded in the larger part ({fmt_ns(part)} {side} the GPU "
                           f"work on rank {r}): the profiler's own start/stop, or host code it does not trace.")
    where = "after the last GPU work" if after >= before else "before the first GPU work"
    rng = _advice.profiler_range(timeline)
    act = (f"Stop the profiler when the GPU work ends ({rng}) so the figures cover the work; if this "
           "host work is part of every iteration, overlap it with GPU work." if after >= before else
           f"Start the profiler where the GPU work starts ({rng}) so the figures cover the work; if this host work "
           "is part of every iteration, prepare it ahead or overlap it with GPU work.")
    cut = bool(getattr(timeline.meta, "truncated", False))
    if cut:  # events are not written in time order: a cut file can lack GPU work anywhere in the window
        act = ("Re-copy or re-export the complete trace: the file ends early, so GPU work recorded after the cut is "
               "missing and this host-only time may not have been idle.")
    f = Finding(
        # not "GPU idle N % of the window": the GPU is idle inside its span too (the idle finding's share), so the
        # window's idle share is larger than this one — the figure is the host-only time outside the span
        f"Host-only time outside the GPU span: {fmt_ns(outside)} ({share_text} of {window_words(nr)}), mostly "
        f"{where}"
        + (" read (the file is cut: GPU work may be missing)" if cut else ""),
        (f"The profiled window is {fmt_ns(window)} (first to last recorded event, host included); the GPU's work "
         f"spans only {fmt_ns(window - outside - pending)} of it: " if nr <= 1 else
         f"The {nr:,} ranks' profiled windows (each first to last recorded event of the rank, host included) sum to "
         f"{fmt_ns(window)}; their GPU work spans only {fmt_ns(window - outside - pending)} of it: ")
        + f"{fmt_ns(before)} before the first GPU event and "
        f"{fmt_ns(after)} after the last. {during} Busy %, the idle split and the verdict are about the GPU span "
        "and leave this time out."
        + (f" Not counted here: {fmt_ns(pending)} before the first GPU event during which the GPU already held "
           "enqueued work (launched, not yet run)." if pending else ""),
        severity="warning" if outside >= 0.5 * window and not cut else "info", category="host-only-window",
        time_at_stake_ns=None if cut else int(outside), key="window/host-only", action=act)
    return out, f


def _pending_finding(timeline: Timeline, pending: int, window: int, ranks: int = 1) -> Finding:
    """The finding for a window whose leading time is mostly the GPU holding enqueued work
    (``gpu_pending_before_ns``, :func:`_pending_before`): not host-only time, and not measured GPU work either."""
    share = share_pct_text(100.0 * pending / window)
    return Finding(
        f"GPU work enqueued {fmt_ns(pending)} before any recorded GPU event ran ({share} of {window_words(ranks)})",
        f"The first recorded GPU work was launched and its launch call had returned {fmt_ns(pending)} (summed over "
        "ranks) before the first GPU event started, with no recorded GPU work running meanwhile: the GPU was most "
        "likely still running work launched before the profiler started, which the profiler does not record. That "
        "time is neither host-only nor measured GPU work; busy %, the idle split and the verdict are about the "
        "recorded GPU span and leave it out.",
        severity="info", category="host-only-window", time_at_stake_ns=None, key="window/gpu-pending",
        action="Start the profiler with the GPU idle (synchronise the device — torch.cuda.synchronize() — before it "
               "starts) or earlier, so the window records the work the GPU was running.")
