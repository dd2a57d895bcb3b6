"""The one definition of span, busy % and utilisation used by every analyzer and report.

Definitions (all ns; GPU events = kernels, collectives, copies and fills after stream-overrun repair; events the
validator rejected — ``ts 0``, negative ``dur`` — never take part):

* **GPU span** of a device: first GPU event start → last GPU event end on that device (copies and fills included,
  as TraceLens' ``total_time``). **busy** of a device: the union of its GPU events. **busy %** = busy / GPU span.
* **Run figures** over several devices: ``span_ns`` is the *wall* span, first GPU event start → last GPU event end
  on any device (never a sum of spans); ``device_span_ns`` is the sum of the per-device spans (device-time);
  ``busy_pct`` is the device-time ratio Σ busy / Σ device span, a number that can never exceed 100 %.
* **Profiled window** of a rank: first → last valid event of the rank of any kind but ``other`` (host operations
  included); ``gpu_utilization_pct`` = Σ busy / Σ window of each device's rank: the share of the profiled time the
  GPUs were busy.
* **Clock domains on one device**: a gap of a day or more between two GPU events of one device is not idle time
  but two time bases (files of one run written on different clocks); such gaps are left out of that device's span
  (``clock_domain_gap_ns``), so no span is impossible.
* **Clock check**: when the ranks' GPU spans do not overlap enough for the wall span to be at most the sum of the
  per-rank spans, the ranks' time bases disagree (or the files come from different runs); the wall span is then
  not a real duration: ``span_ns`` is the longest per-rank span, ``span_basis`` says so and ``clock_skew_ns`` gives
  the size of the disagreement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import is_clock_position
from gpulens.units import plural

#: collectors whose kernels were serialised or replayed to read counters: their gaps are profiler artefacts
REPLAY_COLLECTORS = frozenset({"ncu_csv", "ncu_rep", "ncu_text", "omniperf"})
#: side tables that carry kernels without a timeline (aggregate summaries, counter rows without timestamps)
SUMMARY_TABLES = ("kernel_summary", "rocprof_stats", "unattached_counters")


def replayed_for_counters(timeline: Any) -> bool:
    """True when every input was a counter-collection run (ncu, rocprof-compute, rocprof ``pmc``, rocprofv3
    counter collection) or has synthetic start times: there is no real timeline to find idle time in."""
    srcs = timeline.meta.sources
    return bool(srcs) and all(_no_workload_starts(s) for s in srcs)


def _no_workload_starts(source: dict) -> bool:
    """Whether a source's starts are not the workload's: a counter-collection run or synthetic starts."""
    return bool(source.get("synthetic_start") or source.get("collector") in REPLAY_COLLECTORS or source.get("pmc")
                or source.get("table") == "counter")


def synthetic_start_mask(timeline: Any) -> np.ndarray:
    """One bool per row of ``timeline.events``: True where the row's start is no workload time — its source is a
    counter-collection replay or has synthetic starts (:func:`replayed_for_counters`' test, per source: an ncu
    CSV's launches are laid end to end from 0 ns). Such a start is never shown as when the work ran."""
    ev = timeline.events
    out = np.zeros(len(ev), dtype=bool)
    fake = [s for s in timeline.meta.sources if _no_workload_starts(s)]
    if not fake or not len(ev):
        return out
    if len(fake) == len(timeline.meta.sources) or "source" not in ev:
        out[:] = True
        return out
    from gpulens.analyzers.context import category_mask

    # tested once per distinct source (no str copy of every event's source)
    return category_mask(ev["source"], {str(s.get("collector")) for s in fake})


def has_summary_kernels(timeline: Any) -> bool:
    """True when the Timeline carries kernels only as a summary or as counter rows without timestamps."""
    return any(len(timeline.tables.get(n, ())) for n in SUMMARY_TABLES)


def durations_unknown(timeline: Any) -> bool:
    """True when the input's GPU events carry no real duration: a collector recorded ``durations_unknown`` (e.g.
    rocprof-compute timestamps written in scientific notation, start == end) and every GPU event has ``dur 0``.
    Kernel times, shares and time at stake are then unknown, never 0. Also True, whatever the collector, when every
    GPU event lasts 0 ns (:func:`no_gpu_extent`: durations not recorded, or below the clock's resolution)."""
    if not any(s.get("durations_unknown") for s in timeline.meta.sources):
        return no_gpu_extent(timeline)
    ev = timeline.events
    gpu = ev["kind"].isin(("kernel", "comm", "memcpy", "memset")).to_numpy()
    return bool(gpu.any()) and not bool((ev["dur_ns"].to_numpy()[gpu] > 0).any())


def busy_unknown_reason(timeline: Any) -> str | None:
    """Why busy time, span and idle cannot be measured for this Timeline (None when they can): a counter-collection
    run replays kernels one at a time; a summary or timestamp-less counter file has no timeline at all."""
    if replayed_for_counters(timeline):
        return ("counter-collection run: the profiler replayed the kernels one at a time, so their start times and "
                "the gaps between them are not the workload's")
    if has_summary_kernels(timeline) and not _any_gpu_event(timeline):
        return "the input is a per-kernel summary or counter table without timestamps: there is no timeline"
    unread = unread_device_work(timeline)
    if unread and not _any_gpu_event(timeline):
        return f"the device's work is recorded only as events gpulens does not read: {unread}"
    if no_gpu_extent(timeline):
        return ("every kernel lasts 0 ns (durations not recorded, or below the clock's resolution): the GPU's work "
                "spans no measured time, so busy %, idle time and kernel times are unknown")
    return None


def no_timeline_reason(timeline: Any) -> str | None:
    """``"no workload timeline: <why>"`` when the input has no workload timeline (a counter-collection replay, a
    per-kernel summary: :func:`busy_unknown_reason`), else None — the one skip reason of every analysis that needs
    when the work ran (critical path, queue lengths)."""
    why = busy_unknown_reason(timeline)
    return f"no workload timeline: {why}" if why else None


def counter_only_reason(timeline: Any) -> str | None:
    """:func:`no_timeline_reason` for an input with counters but no timeline (an ncu CSV, a rocprof counter or stats
    file: a counter-collection replay, or kernels without timestamps), else None — the one skip reason of the
    analyses that need timed GPU events, given before their "no GPU events" (a counter file has kernels, untimed)."""
    # whether any timed GPU event exists is asked only of an input with summary kernels (a scan of every event's
    # kind — 3M rows at 1M kernels — for each of the two analyzers calling this, whatever the input)
    if replayed_for_counters(timeline) or (has_summary_kernels(timeline) and not _any_gpu_event(timeline)):
        return no_timeline_reason(timeline)
    return None


def _any_gpu_event(timeline: Any) -> bool:
    """Whether any event of ``timeline`` is a kernel, collective, copy or fill."""
    return bool(timeline.events["kind"].isin(("kernel", "comm", "memcpy", "memset")).any())


def unread_device_work(timeline: Any) -> str:
    """The collectors' sentences naming on-device events of a backend they do not read (Kineto ``mtia_ccp_events``,
    see ``collectors.kineto.UNREAD_DEVICE_CATEGORIES``), joined; ``""`` when there are none."""
    return "; ".join(str(s["unread_device_events"]) for s in timeline.meta.sources if s.get("unread_device_events"))


def no_gpu_extent(timeline: Any) -> bool:
    """True when every kernel and collective of the Timeline lasts 0 ns (with none, every copy and fill): the GPU's
    work has no measured time — busy % would be 0 / 0 or the copies' time alone, kernel shares 0 / 0 (unknown, not
    0 % and not 100 %). Computed once per Timeline (its analysis context)."""
    from gpulens.analyzers.context import context_of

    def compute() -> bool:
        ctx = context_of(timeline)
        dur = timeline.events["dur_ns"].to_numpy()
        work = ctx.mask_of("kernel", "comm")
        if not work.any():
            work = ctx.mask_of("memcpy", "memset")
        return bool(work.any()) and not bool((dur[work] > 0).any())

    return bool(context_of(timeline).memo("no_gpu_extent", compute))


#: A gap this long between two GPU events of one device cannot be idle time inside one profile: the events come
#: from time bases that differ (e.g. a copy file on another clock, days apart). 1 day.
CLOCK_GAP_NS = 86_400 * 10**9


def cross_domain_gaps(ev: pd.DataFrame) -> list[int]:
    """Lengths [ns] of the gaps ≥ :data:`CLOCK_GAP_NS` between the merged busy segments of one device's events."""
    from gpulens.analyzers.intervals import merge

    st = ev["start_ns"].to_numpy("int64")
    s, e = merge(st, st + ev["dur_ns"].to_numpy("int64"))
    gaps = s[1:] - e[:-1]
    return [int(g) for g in gaps[gaps >= CLOCK_GAP_NS]]


def clock_windows(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    """The clock domains of a set of events (start, end [ns] each): (first start, last end) of each run of events
    whose merged busy segments are less than :data:`CLOCK_GAP_NS` apart, earliest first. One window when the
    events share a clock; a span, step, critical path or overlap is measured inside one window, never across
    a jump between two (the jump is two time bases, not time). Empty input: ``[]``."""
    from gpulens.analyzers.intervals import merge

    if not len(starts):
        return []
    s, e = merge(np.asarray(starts, dtype="int64"), np.asarray(ends, dtype="int64"))
    cut = np.flatnonzero((s[1:] - e[:-1]) >= CLOCK_GAP_NS)
    lo = np.concatenate([[0], cut + 1])
    hi = np.concatenate([cut, [len(s) - 1]])
    return [(int(s[a]), int(e[b])) for a, b in zip(lo, hi)]


def clock_domain_of(times: np.ndarray, windows: list[tuple[int, int]]) -> np.ndarray:
    """Index in ``windows`` (:func:`clock_windows`) of the clock domain each time [ns] lies in (the last window
    starting at or before it; 0 before the first)."""
    if not windows:
        return np.zeros(len(times), dtype=np.intp)
    firsts = np.array([w[0] for w in windows], dtype="int64")
    return np.maximum(np.searchsorted(firsts, np.asarray(times, dtype="int64"), side="right") - 1, 0)


def other_clock_idle(starts: np.ndarray, ends: np.ndarray) -> int:
    """How much of one GPU's idle time may be its own work written on another clock [ns]: 0 when its events share
    one clock (:func:`clock_windows`). Idle is measured inside each clock domain (the jump left out); a domain's gaps
    can hold the work of the GPU's other domains, whose place on this clock is unknown — up to the smaller of the
    domain's idle and the other domains' busy time. Summed over the domains: an upper bound on the part of the
    per-domain idle that is not idle at all, so the idle is bounded ("at most the per-domain idle, of which up to
    this may be work on another clock"), never a measured figure (docs/bottlenecks.md "Clock domains")."""
    from gpulens.analyzers.intervals import merge

    windows = clock_windows(starts, ends)
    if len(windows) < 2:
        return 0
    st, en = np.asarray(starts, dtype="int64"), np.asarray(ends, dtype="int64")
    dom = clock_domain_of(st, windows)
    busy = []
    for d in range(len(windows)):
        s, e = merge(st[dom == d], en[dom == d])
        busy.append(int((e - s).sum()))
    total = sum(busy)
    return int(sum(min(hi - lo - b, total - b) for (lo, hi), b in zip(windows, busy)))


#: How the run's idle reads when part of it may be the GPU's work on another clock (:func:`other_clock_idle`)
IDLE_BOUND_CLOCKS = ("at most {idle}: up to {other} of it may be GPU work written on another clock (events of one "
                     "GPU on several time bases), so it is not a measured idle")


#: ``idle_bound`` when GPU work was recorded without a time (:func:`gpulens.analyzers._unknown_time.untimed_gpu_rows`)
IDLE_BOUND_UNTIMED = ("at most {idle}: {launches} ran without a usable recorded start or end, and may fill any of "
                      "it, so it is not a measured idle")


def idle_unmeasured_ns(row: Any) -> int:
    """How much of a breakdown/bottlenecks row's (or summary's) ``idle_ns`` may be GPU work: the part on another
    clock (``idle_other_clock_ns``) plus the part GPU work recorded without a time may fill (``idle_untimed_ns``)
    [ns]; 0 when the idle is measured. Above 0, the idle is an upper bound: no time at stake, no verdict rests on
    it."""
    out = 0
    for k in ("idle_other_clock_ns", "idle_untimed_ns"):
        v = row.get(k) if hasattr(row, "get") else None
        if v is not None and v == v and v is not pd.NA:
            out += int(v)
    return out


#: Said wherever an overlap between two kinds of GPU events cannot be measured because they lie on different clocks
OVERLAP_UNKNOWN_CLOCKS = "unknown: {a} and {b} are on different clocks"


SPAN_DEFINITION = ("GPU span = first → last GPU event (kernels, collectives, copies, fills); busy % = union of GPU "
                   "events / GPU span; over several GPUs: wall span, busy % = Σ busy / Σ per-GPU span (gpu_busy_ns, "
                   "computation_ns, the exposed_*_ns and idle_ns are then sums over the GPUs, device time: a share "
                   "of them is of device_span_ns, never of the wall span_ns); profiled "
                   "window = first → last recorded event, host included (runtime calls, CPU ops, Python functions, "
                   "annotations) — the one window every report shows; the timeline tab's extent (events drawn), a "
                   "profiler step (ProfilerStep#N) and the profiler's own session record (Kineto 'PyTorch Profiler "
                   "(0)', which opens before the first event) are other spans, labelled as such")


def hull(ev: pd.DataFrame) -> tuple[int, int]:
    """(first start, last end) of a slice of events (ns); (0, 0) when empty."""
    if not len(ev):
        return 0, 0
    s = ev["start_ns"].to_numpy("int64")
    return int(s.min()), int((s + ev["dur_ns"].to_numpy("int64")).max())


def rank_hulls(ev: pd.DataFrame) -> dict[int, tuple[int, int]]:
    """Per rank: (first start, last end) of its events (ns), the end moved back by the rank's cross-clock-domain
    gaps (:func:`cross_domain_gaps`) so that ``end − start`` is never an impossible span."""
    if not len(ev):
        return {}
    s = ev["start_ns"].to_numpy("int64")
    return hulls_of(ev["rank"].to_numpy(), s, s + ev["dur_ns"].to_numpy("int64"))


def hulls_of(rank: np.ndarray, s: np.ndarray, e: np.ndarray) -> dict[int, tuple[int, int]]:
    """:func:`rank_hulls` on arrays (rank, start, end [ns] per event). The busy segments (a sort of the events)
    are merged only for the ranks whose hull is at least :data:`CLOCK_GAP_NS` long: a shorter hull cannot hold a
    cross-domain gap."""
    from gpulens.analyzers.intervals import group_segments, group_sum

    if len(rank) and rank.dtype.kind in "iu" and rank.min() == rank.max():  # one rank (the usual case)
        # its code as a read-only view, not an array of every event's length
        codes, ranks = np.broadcast_to(np.intp(0), len(rank)), rank[:1]
    else:
        codes, ranks = pd.factorize(rank, sort=True)
    n = len(ranks)
    if (codes < 0).any():  # a missing rank: the general path
        seg = group_segments(codes, s, e)
        first = pd.Series(seg["start"]).groupby(seg["group"], sort=True).min()
        last = pd.Series(seg["end"]).groupby(seg["group"], sort=True).max()
        far = seg["gap_before"] >= CLOCK_GAP_NS
        cross = group_sum(seg["group"][far], seg["gap_before"][far], n)
        return {int(ranks[k]): (int(first[k]), int(last[k]) - int(cross[k])) for k in first.index}
    if n == 1:
        first, last = np.array([s.min()]), np.array([e.max()])
    else:
        first = np.full(n, np.iinfo("int64").max, dtype="int64")
        last = np.full(n, np.iinfo("int64").min, dtype="int64")
        np.minimum.at(first, codes, s)
        np.maximum.at(last, codes, e)
    cross = np.zeros(n, dtype="int64")
    wide = (last - first) >= CLOCK_GAP_NS
    if wide.any():  # every rank at once: no per-rank slice (thousands of rank files)
        rows = np.flatnonzero(wide[codes])
        seg = group_segments(codes[rows], s[rows], e[rows])
        far = seg["gap_before"] >= CLOCK_GAP_NS
        cross = group_sum(seg["group"][far], seg["gap_before"][far], n)
    return {int(ranks[k]): (int(first[k]), int(last[k]) - int(cross[k])) for k in range(n)}


#: Doc string of the ``trace_offset_ns`` column (kernel outliers, steps): the time a user pastes into ``--window``.
TRACE_OFFSET_DOC = ("start − the start of its rank's profiled window (its first event, host events included, the "
                    "profiler's own session record excepted; with a --steps/--window selection, the selection's "
                    "first event): the origin --window counts from [ns]")


def trace_offsets(timeline: Any, rank: np.ndarray, start: np.ndarray) -> np.ndarray:
    """``start − the start of its rank's profiled window`` [ns, int64] for rows of ``rank``/``start`` (ns): the offset
    a ``--window START:END`` selection reads (as :func:`gpulens.timeline.selection.window_origin`: the rank's earliest
    event of any kind but ``other``, the same first event as the profiled window's), computed in integers — an epoch
    clock (~1.7e18 ns) is beyond a double's exact range. A row whose rank is missing is measured from 0 (its start
    as recorded)."""
    from gpulens.analyzers.context import context_of
    from gpulens.timeline.selection import side_instants, window_origin

    def firsts() -> dict[int, int]:
        ev = timeline.events
        if not len(ev):
            return {}
        instants = side_instants(timeline.tables)  # allocator events before the first op are inside the window
        r = ev["rank"].to_numpy()
        s = ev["start_ns"].to_numpy("int64")
        other = context_of(timeline).mask_of("other")
        if r.dtype.kind in "iu" and r.min() == r.max():  # one rank (the usual case)
            return {int(r[0]): window_origin(s, other, instants.get(int(r[0])))}
        codes, ranks = pd.factorize(r, sort=True)
        big = np.iinfo("int64").max
        first, first_any = np.full(len(ranks), big, dtype="int64"), np.full(len(ranks), big, dtype="int64")
        ok = codes >= 0
        np.minimum.at(first, codes[ok & ~other], s[ok & ~other])
        np.minimum.at(first_any, codes[ok], s[ok])
        # window_origin per rank, at once: a rank of only "other" events counts from its earliest event
        first = np.where(first == big, first_any, first)
        out = {int(k): int(v) for k, v in zip(ranks, first)}
        for k, t in instants.items():
            if k in out and len(t):
                out[k] = min(out[k], int(t.min()))
        return out

    origin = context_of(timeline).memo("rank_window_start", firsts)
    rank = np.asarray(rank)
    # one lookup per distinct rank, not per row (a memory table or queue series has a row per allocator event/bin)
    uniq, inv = np.unique(rank.astype("float64"), return_inverse=True) if len(rank) else (np.zeros(0), np.zeros(0, int))
    per = np.array([origin.get(int(x), 0) if x == x else 0 for x in uniq.tolist()], dtype="int64")
    base = per[np.asarray(inv).reshape(-1)] if len(rank) else np.zeros(0, dtype="int64")
    return np.asarray(start, dtype="int64") - base


def wall_span(hulls: dict[Any, tuple[int, int]]) -> tuple[int, int, str]:
    """Wall span over the hulls of several ranks, applying the clock check of the module docstring.

    Returns:
        (span_ns, clock_skew_ns, basis): ``basis`` is ``"wall"`` (first start → last end over all ranks) or
        ``"longest rank"`` (ranks' clocks disagree; ``clock_skew_ns`` > 0 is how far the wall span exceeds the
        sum of the per-rank spans).
    """
    if not hulls:
        return 0, 0, "wall"
    spans = [e - s for s, e in hulls.values()]
    wall = max(e for _, e in hulls.values()) - min(s for s, _ in hulls.values())
    if len(hulls) > 1 and wall > sum(spans):
        return max(spans), int(wall - sum(spans)), "longest rank"
    return int(wall), 0, "wall"


def run_figures(per_device: pd.DataFrame, gpu: pd.DataFrame, every: pd.DataFrame,
                every_hulls: dict[int, tuple[int, int]] | None = None) -> dict[str, Any]:
    """Run-level span, busy and utilisation from the per-device breakdown rows.

    Args:
        per_device: one row per (rank, device_id) with ``span_ns``, ``busy_ns``, ``window_ns``.
        gpu: the GPU events (effective durations) — for the wall span.
        every: every valid event but ``other`` (``rank``, ``start_ns``, ``dur_ns``) — for the profiled window.
        every_hulls: ``rank_hulls(every)`` when the caller has it already (``every`` is then not read).
    """
    gpu_hulls = rank_hulls(gpu)
    span, skew, basis = wall_span(gpu_hulls)
    window, wskew, _ = wall_span(rank_hulls(every) if every_hulls is None else every_hulls)
    dev_span = int(per_device["span_ns"].sum())
    busy = int(per_device["busy_ns"].sum())
    dev_window = int(per_device["window_ns"].sum())
    rank_span = {int(r): int(e - s) for r, (s, e) in gpu_hulls.items()}
    return {
        "span_ns": span, "span_basis": basis, "clock_skew_ns": max(skew, wskew),
        "device_span_ns": dev_span, "rank_span_ns": rank_span,
        "busy_pct": 100.0 * busy / dev_span if dev_span else 0.0,
        "busy_pct_mean": float(np.mean(per_device["busy_pct"])) if len(per_device) else 0.0,
        "window_ns": window, "trace_span_ns": window,
        "gpu_utilization_pct": 100.0 * busy / dev_window if dev_window else 0.0,
        "span_definition": SPAN_DEFINITION,
    }


#: the topics of the clock warnings (the breakdown and launch latency make them): one device's events on two time
#: bases, ranks whose time bases disagree, GPU and host time bases that disagree. Reports show them beside the verdict
#: (:func:`gpulens.reports._answer.clock_note`).
CLOCK_GAP_TOPIC = "GPU events on different clocks"
CLOCK_SKEW_TOPIC = "ranks' clocks disagree"
#: GPU events that start before their launch call, or a day or more after it (launch_latency makes it)
CLOCK_HOST_TOPIC = "GPU and host clocks disagree"


def unplaced_clock_files(timeline: Any) -> str | None:
    """Why the ranks' clocks disagree, when the inputs say it: the rank files of one format that record their clock
    origin (Kineto's ``baseTimeNanoseconds``, an nsys export's capture start) beside files of that format that do
    not (a trace cut before its trailing ``baseTimeNanoseconds``, an array-form trace): the latter's times count
    from an origin of their own and cannot be placed against the others'. None when every file of a format records
    its origin, or none does."""
    keys = {"base_time_ns": "baseTimeNanoseconds", "session_start_epoch_ns": "capture start"}
    for key, what in keys.items():
        files = [s for s in timeline.meta.sources if isinstance(s, dict) and key in s]
        lost = [s for s in files if not s.get(key)]
        if lost and len(lost) < len(files):
            names = ", ".join(f"{Path(str(s.get('path', '?'))).name} (rank {s.get('rank', '?')})" for s in lost[:4])
            more = f" and {len(lost) - 4} more" if len(lost) > 4 else ""
            one = len(lost) == 1
            return (f"{plural(len(lost), 'rank file(s)')} of {len(files)} record{'s' if one else ''} no clock origin "
                    f"({what}; a trace cut before it, or written without it): {names}{more} — "
                    f"{'its' if one else 'their'} times count from an origin of {'its' if one else 'their'} own and "
                    "cannot be placed against the other ranks'")
    return None


def warn_once(timeline: Any, topic: str, detail: str) -> None:
    """Add ``"<topic>: <detail>"`` to the Timeline's warnings unless a warning on ``topic`` is already there."""
    if not any(w.startswith(topic) for w in timeline.meta.warnings):
        timeline.meta.warnings.append(f"{topic}: {detail}")


#: results that are drawing data (bins and positions of the timeline views), not figures shown as measurements
_DRAWING_RESULTS = frozenset({"stream_timeline", "critical_path_segments"})


def blank_unknown_durations(timeline: Any, results: dict[str, Any]) -> int:
    """When the input recorded no kernel durations (:func:`durations_unknown`), every duration-like figure an
    analyzer computed from them is a sum of zeros, not a measurement: turn each 0 of a column or summary key
    declared in ``[ns]`` (clock positions, :func:`gpulens.analyzers.base.is_clock_position`, and the timeline views'
    drawing data excepted) into unknown
    (``<NA>`` in tables, ``None`` in summaries), so no report shows "0 ns" of kernel time, stake or wave loss.

    Args:
        timeline: the analysed Timeline. results: ``run_all``'s name → AnalysisResult, changed in place.
    Returns:
        how many figures were turned into unknown (0 when durations are known).
    """
    if not durations_unknown(timeline):  # some durations known: analyzers._unknown_time.blank_untimed_rows
        return 0
    n = 0
    for name, r in results.items():
        if name in _DRAWING_RESULTS or name.endswith("_series"):
            continue
        for c, doc in list(getattr(r, "columns", {}).items()):
            if not str(doc).endswith("[ns]") or is_clock_position(c) or c not in r.table.columns:
                continue
            col = r.table[c]
            zero = (pd.to_numeric(col, errors="coerce") == 0).fillna(False).to_numpy(dtype=bool)
            if zero.any():
                num = pd.to_numeric(col, errors="coerce")
                out = num.astype("Int64") if pd.api.types.is_integer_dtype(num.dtype) else num.astype("Float64")
                r.table[c] = out.mask(zero)
                n += int(zero.sum())
        docs = {**getattr(r, "summary_columns", {})}
        for k, v in list(r.summary.items()):
            if (k.endswith("_ns") or str(docs.get(k, "")).endswith("[ns]")) and not is_clock_position(k) \
                    and isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0:
                r.summary[k] = None
                n += 1
    return n
