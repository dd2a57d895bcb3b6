"""The wording of the ``bottlenecks`` findings: the idle split by cause, the boundary (warm-up / tail / one-off) gaps
and what the host was doing during them, the blocking calls behind ``sync`` idle, and the host-only time of the
profiled window outside the GPU span (the blocking calls behind that idle: :mod:`gpulens.analyzers._idle_blocking`).
Figures come from :mod:`gpulens.analyzers.bottlenecks`; nothing is measured here but which host events overlap a given
interval.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers._gap_codes import GAP_CLASSES, gap_class_mask  # noqa: F401  (GAP_CLASSES re-exported)
from gpulens.analyzers._gap_host_calls import (RUNTIME_COLUMNS, _host_calls_during, _runtime_calls_by_start,  # noqa: F401
                                                _runtime_rows, _union_ns, host_calls_in_gaps)
from gpulens.analyzers._idle_blocking import longest_text, one_gap_text, unrecorded_wait_text
from gpulens.analyzers._span import trace_offsets
from gpulens.analyzers.base import Finding
from gpulens.analyzers.context import category_mask, context_of, reindex_sorted, step_numbers_in
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns, plural, share_pct_text

#: how each gap class reads in a sentence (the boundary gaps by the class they would otherwise have had)
CLASS_WORDS = {"host": "waiting for the host", "launch": "on launch overhead",
               "sync": "with the host blocked in synchronisations or synchronous copies",
               "queued": "waiting on work already queued (another stream, an event or a late start)",
               "unattributed": "with no cause the trace shows", "boundary": "in one-off gaps"}
#: GPU-idle time inside one blocking call from which it waited on something unseen (a queue drain idles µs, not ms)
LONG_BLOCK_NS = 1_000_000
#: the next step for each idle cause, in a few words (a PyTorch program's; others: ``_advice.IDLE_ACTIONS[False]``)
CLASS_ACTIONS = _advice.IDLE_ACTIONS[True]


#: A gap with less than this share of its device's GPU busy time before it lies before the steady state: the work
#: before it is set-up (a first copy or an index fill), not the run — a 463 ms blocking hipMemcpyWithStream after
#: one 4 µs arange kernel (SGLang decode, MI300X) is warm-up (weights or inputs loading), as a gap before the first
#: kernel is.
LEADING_WORK_SHARE = 0.01


def before_steady_state(gs: np.ndarray, dur: np.ndarray, first: int, last: int) -> np.ndarray:
    """Per gap of one device (``gs`` starts, ``dur`` durations [ns], time order; ``first``/``last``: the device's
    first GPU event start and last end [ns]): whether the GPU busy time before it — its offset from ``first`` less
    the earlier gaps — is at most :data:`LEADING_WORK_SHARE` of the device's busy time (span less all gaps)."""
    gs, dur = np.asarray(gs, dtype="int64"), np.asarray(dur, dtype="int64")
    busy_before = (gs - first) - (np.cumsum(dur) - dur)
    busy = max(int(last - first - dur.sum()), 1)
    return busy_before <= LEADING_WORK_SHARE * busy


def steady_state(tot: dict[str, Any]) -> tuple[int, int]:
    """The one definition of what the verdict and the idle findings are about: ``(steady span, recoverable idle)``
    [ns] — the GPU span and the idle time with the warm-up / tail / one-off gaps (``idle_boundary_ns``) left out.
    Those gaps say nothing about the steady state (they are a property of where the profiler started and stopped,
    or of a one-off stall), so the verdict's span, the idle finding's time at stake and every idle cause's share are
    taken of the steady state alone (``tot``: span_ns, idle_ns, idle_boundary_ns summed over the GPUs)."""
    boundary = int(tot.get("idle_boundary_ns") or 0)
    return (max(int(tot.get("span_ns") or 0) - boundary, 0), max(int(tot.get("idle_ns") or 0) - boundary, 0))


def span_share_text(ns: int | float | None, span: int | float) -> str:
    """A time's share of the span it is judged over, in words ("29.2 %"; "unknown" when the time is not measured):
    ``100 · ns / span``, the span at least 1 ns. The one wording of an idle cause's or the computing share in the
    idle findings and the run verdict's basis (:func:`gpulens.analyzers._run_shares._pct_of`), over the span
    :func:`steady_state` defines."""
    return "unknown" if ns is None else share_pct_text(100.0 * ns / max(span, 1))


def steady_idle_pct(tot: dict[str, Any]) -> float:
    """The steady state's idle as a share of the steady span [%] (:func:`steady_state`; 0 when that span is 0): the
    figure the idle finding's title leads with when one-off gaps are left out, and the bottlenecks summary's
    ``steady_idle_pct`` that the reports print beside the bar of the same idle time (one definition)."""
    steady_span, recoverable = steady_state(tot)
    return 100.0 * recoverable / steady_span if steady_span else 0.0


#: a launch call this long on average is no launch overhead but the launch loading its kernel's module (CUDA's lazy
#: loading, CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2; HIP loads code objects at the first launch
#: likewise): a normal launch takes microseconds (nsys fuser H200: cudaLaunchKernel 42.88 ms in 11 calls)
LOADING_LAUNCH_NS = 1_000_000


def _is_setup(call: dict[str, Any]) -> bool:
    """Whether a runtime call row of an idle gap (name, overlap_ns, calls) is set-up: a set-up call by name
    (:func:`gpulens.analyzers._advice.is_setup_call`), or launches averaging :data:`LOADING_LAUNCH_NS` or more."""
    from gpulens.analyzers.launches import LAUNCH_RE

    if _advice.is_setup_call(call["name"]):
        return True
    calls = max(int(call.get("calls") or 1), 1)
    return bool(LAUNCH_RE.match(str(call["name"]))) and int(call["overlap_ns"]) / calls >= LOADING_LAUNCH_NS


def setup_ns(host_calls: list[dict[str, Any]] | None) -> int:
    """The time [ns] that set-up calls (:func:`_is_setup`) fill in the idle gaps waiting for the host, from the call
    rows of :func:`host_calls_in_gaps` (their ``overlap_ns``)."""
    return sum(int(c["overlap_ns"]) for c in host_calls or [] if _is_setup(c))


#: The one-off part of a host wait in words, one wording for the run headline and the idle finding (each says what
#: its time at stake leaves out): "2.68 s of one-off set-up calls in the host wait (once per run, not per step)".
SETUP_WORDS = "one-off set-up calls in the host wait (once per run, not per step)"


def setup_part(tot: dict[str, Any], host_calls: list[dict[str, Any]] | None) -> int:
    """The one-off part [ns] of the idle waiting for the host: the set-up calls' time (:func:`setup_ns`) when they
    fill at least :data:`SETUP_GAP_SHARE` of that idle (``tot["idle_host_ns"]``), else 0 — the rule of the run
    verdict's :func:`gpulens.analyzers._run_shares.host_setup`, so the idle findings' time at stake (the idle less
    this part) is the "at stake in steady state" figure the run headline leads with (HTA AlexNet: 2.82 s waiting
    for the host, 2.68 s of it cudaMalloc and stream creation, 139.81 ms at stake)."""
    host, setup = int(tot.get("idle_host_ns") or 0), setup_ns(host_calls)
    return min(setup, host) if host and setup >= SETUP_GAP_SHARE * host else 0


def _calls_text(rows: list[dict[str, Any]]) -> str:
    """``"cudaLaunchKernel 2.41 s in 12 calls, cudaFree 3.00 ms in 1 call"``, and the one call that holds most of a
    row's time when one does (:func:`gpulens.analyzers._idle_blocking.longest_text`: "cudaStreamCreateWithFlags 734.88 ms
    in 16 calls (one call: 732.66 ms)")."""
    return ", ".join(f"{c['name']} {fmt_ns(c['overlap_ns'])} in {c['calls']:,} call{'s' if c['calls'] != 1 else ''}"
                     f"{longest_text(c)}" for c in rows)


def _boundary_rows(gaps: pd.DataFrame, timeline: Timeline) -> list[dict[str, Any]]:
    """The boundary gaps: rank, device, start [ns from the first GPU event of its device], duration [ns],
    position (``before the steady state`` = first gap of its device, ``after`` = last, else ``one-off``), the
    device's span (first GPU event start → last GPU event end) [ns], ``cause``
    (the class the gap has from its launch alone: host, launch, queued or unattributed) and ``host_calls`` (the
    runtime calls of the rank that overlap it most: name, overlap [ns])."""
    out = []
    if not len(gaps) or not gap_class_mask(gaps, "boundary").any():
        return out
    ctx = context_of(timeline)
    gpu = ctx.gpu
    firsts = gpu.groupby(["rank", "device_id"], observed=True)["start_ns"].min()  # once, not a query per device
    lasts = (gpu["start_ns"] + gpu["dur_ns"]).groupby([gpu["rank"], gpu["device_id"]], observed=True).max()
    kern = gpu[category_mask(gpu["kind"], {"kernel", "comm"})]
    eff = reindex_sorted(ctx.effective_ns, kern.index)
    kspan = kern.assign(end=kern["start_ns"] + eff.fillna(kern["dur_ns"])).groupby(
        ["rank", "device_id"], observed=True).agg(first=("start_ns", "min"), last=("end", "max"))
    has = set(gaps.loc[gap_class_mask(gaps, "boundary"), ["rank", "device_id"]].itertuples(index=False, name=None))
    g_start = gpu["start_ns"].to_numpy("int64")
    g_end = g_start + gpu["dur_ns"].to_numpy("int64")
    for (r, d), g in gaps.groupby(["rank", "device_id"], sort=True):
        if (r, d) not in has:
            continue
        g = g.reset_index(drop=True)
        first = int(firsts.loc[(r, d)])
        kf, kl = (int(kspan.loc[(r, d), "first"]), int(kspan.loc[(r, d), "last"])) if (r, d) in kspan.index \
            else (None, None)
        lead = before_steady_state(g["start_ns"].to_numpy(), g["dur_ns"].to_numpy(), first, int(lasts.loc[(r, d)]))
        for i in np.flatnonzero(gap_class_mask(g, "boundary")):
            start, dur = int(g.loc[i, "start_ns"]), int(g.loc[i, "dur_ns"])
            # as boundary_mask: before the first kernel (or after set-up work only) = warm-up, after the last = tail,
            # else one-off
            calls = [{"name": nm, "overlap_ns": o} for nm, o in _host_calls_during(timeline, int(r), start, start + dur)]
            pos = "leading" if kf is None or start + dur <= kf or (lead[i] and _blocked_by(calls, dur)) else \
                "trailing" if start >= kl else "one-off"
            out.append({"rank": int(r), "device_id": int(d), "offset_ns": start - first,
                        "dur_ns": dur, "position": pos, "span_ns": int(lasts.loc[(r, d)]) - first,
                        "median_other_gap_ns": int(np.median(np.delete(g["dur_ns"].to_numpy(), i))),
                        "cause": str(g.loc[i, "base_cls"]) if "base_cls" in g else "unattributed",
                        # GPU work of any stream or device during it (a device's own work never lies in its gaps)
                        "gpu_work_elsewhere": bool(((g_start < start + dur) & (g_end > start)).any()),
                        "host_calls": calls})
    return out


def _blocked_by(calls: list[dict[str, Any]], dur: int) -> list[dict[str, Any]]:
    """The blocking calls (synchronisations, synchronous copies: ``bottlenecks.BLOCKING_RE``) among a gap's host
    ``calls`` (name, overlap [ns]) that cover at least half of its ``dur`` [ns], as ``bottlenecks.boundary_mask``'s
    ``BLOCKING_COVER_SHARE``."""
    from gpulens.analyzers.bottlenecks import BLOCKING_COVER_SHARE, BLOCKING_RE

    return [c for c in calls if BLOCKING_RE.search(str(c["name"])) and c["overlap_ns"] >= BLOCKING_COVER_SHARE * dur]


def _gap_cause_text(row: dict[str, Any]) -> str:
    """What a boundary gap waited on, in words, with the host calls that filled it."""
    calls = ", ".join(f"{c['name']} {fmt_ns(c['overlap_ns'])}" for c in row.get("host_calls") or [])
    cause = row.get("cause", "unattributed")
    block = _blocked_by(row.get("host_calls") or [], row.get("dur_ns", 0))
    # queued work that waited on nothing the trace records (no GPU work on any stream or device during the gap)
    outside = unrecorded_wait_text(row, int(row.get("dur_ns", 0))) if cause == "queued" else ""
    if block:  # a synchronisation or synchronous copy fills it: the host waited, it was not busy
        return (f"the host was blocked in {block[0]['name']} for {fmt_ns(block[0]['overlap_ns'])} (a synchronisation "
                f"or synchronous copy; runtime calls in it: {calls})" + (f"; the work after it was already queued, "
                                                                           f"and {outside}" if outside else ""))
    if cause in ("host", "launch") and calls:
        return f"the host was busy (largest runtime calls in it: {calls})"
    if cause == "queued":
        return (f"the work was already queued, and {outside}" if outside else
                "the work was already queued: the GPU waited on another stream, an event or a start delayed after "
                "its launch call returned")
    if cause in ("host", "launch"):
        return "the work that ended it was launched only after it began, and no runtime call fills it"
    return "no launch call is linked to the work that ended it: the trace does not show the cause" + (
        f" (runtime calls in it: {calls})" if calls else "")


def _window_option(rows: list[dict[str, Any]], big: dict[str, Any], timeline: Timeline) -> str | None:
    """A ``--window`` option the user can paste that leaves out the largest boundary gap (``big``) and the other
    leading/trailing gaps of its rank: ``--window Nus:`` (after a warm-up gap), ``--window :Nus`` (before a tail gap),
    both bounds when the rank has both. Times count from the rank's profiled window start (as ``--window`` reads them), in
    whole µs rounded into the gap (the window start down, its end up), so no event of the steady state is cut. A
    one-off gap in the middle names the two windows on either side of it. None when the times are unknown."""
    ctx = context_of(timeline)
    ev, gpu = timeline.events, ctx.gpu
    rank = big["rank"]
    r_start = ev["start_ns"].to_numpy()[ev["rank"].to_numpy() == rank]
    on_rank = gpu["rank"].to_numpy() == rank
    if not len(r_start) or not ((gpu["device_id"].to_numpy() == big["device_id"]) & on_rank).any():
        return None
    # the rows' offsets count from their own device's first event: one origin per GPU of the rank
    firsts = gpu[on_rank].groupby("device_id")["start_ns"].min().to_dict()
    g0 = int(firsts[big["device_id"]])
    # --window counts from the rank's profiled window start (selection.window_origin: its earliest event, host
    # events included, the profiler's session record excepted) — the one origin, read through _span.trace_offsets
    origin = g0 - int(trace_offsets(timeline, np.array([rank]), np.array([g0], dtype="int64"))[0])

    def rel(row: dict[str, Any], end: bool) -> int:  # gap start or end [ns from the rank's earliest event]
        return int(firsts[row["device_id"]]) + int(row["offset_ns"]) + (int(row["dur_ns"]) if end else 0) - origin

    def us(ns: int, up: bool) -> str:
        return f"{-(-ns // 1000) if up else ns // 1000}us"

    if big["position"] == "one-off":
        return (f"--window :{us(rel(big, False), True)} before the gap, or --window {us(rel(big, True), False)}: "
                f"after it" if rel(big, False) > 0 else None)
    # every GPU of the rank: one window leaves out the warm-up / tail gaps of all of them, as the docstring says
    same = [r for r in rows if r["rank"] == rank and r["device_id"] in firsts]
    lead = [rel(r, True) for r in same if r["position"] == "leading"]
    tail = [rel(r, False) for r in same if r["position"] == "trailing"]
    lo = us(max(lead), False) if lead else ""
    hi = us(min(tail), True) if tail else ""
    if not lo and not hi or (lead and tail and max(lead) // 1000 >= -(-min(tail) // 1000)):
        return None
    return f"--window {lo}:{hi}"


#: Timelines up to this many events get their suggested ``--window`` checked for one-off gaps of its own
#: (:func:`_then_one_offs`: the gap classification run again on the selection); larger ones are not.
WINDOW_CHECK_EVENTS = 300_000


def _then_one_offs(timeline: Timeline, option: str, rank: int) -> str:
    """What a suggested ``option`` (``"--window A:B"``, or the two windows around a one-off gap) would still leave
    in: a gap that is no outlier beside the one left out (its share of all idle is small) may be one within the
    window, where the verdict leaves it out in turn (SGLang MI300X decode: ``--window 463380us:`` past the
    463.30 ms gap leaves a 273.69 µs one-off gap in 10.45 ms). The selection is applied and its gaps classified as
    for any run (:func:`gpulens.timeline.selection.Selection.apply`, :func:`~._gap_classes.one_off_gaps`), on
    every GPU of ``rank`` (the window selects the rank, all its GPUs); returns ``"; within it, 1 more one-off gap of
    273.69 µs then stands out and is left out too: 2 in all"`` (one GPU) — with several GPUs the GPUs named and no
    total (the window itself cuts a warm-up gap per GPU: nvprof V100×4 read "1 more … 2 in all" from GPU 3 alone
    where the window's own verdict left out 3 gaps, on GPUs 0, 1 and 3) —, or ``""`` when there is none, the
    timeline is over :data:`WINDOW_CHECK_EVENTS` events or the window cannot be read back."""
    import re

    from gpulens.analyzers._gap_classes import one_off_gaps
    from gpulens.errors import GpulensError
    from gpulens.timeline.selection import Selection

    if len(timeline.events) > WINDOW_CHECK_EVENTS:
        return ""
    found: list[tuple[int, int]] = []  # (duration [ns], GPU)
    for spec in re.findall(r"--window (\S*:\S*)", option):
        try:
            sub = Selection.parse(window=spec, ranks=str(rank)).apply(timeline)
            gaps = one_off_gaps(sub)
        except (GpulensError, ValueError, KeyError):
            return ""
        mine = gaps[gaps["rank"].to_numpy() == rank]
        found += [(int(x), int(d)) for x, d in zip(mine["dur_ns"].to_numpy(), mine["device_id"].to_numpy())]
    if not found:
        return ""
    found.sort(key=lambda g: -g[0])
    each = ", ".join(fmt_ns(x) for x, _ in found[:3]) + (", …" if len(found) > 3 else "")
    gpu = context_of(timeline).gpu
    several = gpu.loc[gpu["rank"].to_numpy() == rank, "device_id"].nunique() > 1
    devs = sorted({d for _, d in found})
    where = (f" (on GPU{'s' if len(devs) > 1 else ''} " + ", ".join(map(str, devs[:-1]))
             + (" and " if len(devs) > 1 else "") + f"{devs[-1]})") if several else ""
    return (f"; within {'it' if option.count('--window') == 1 else 'them'}, "
            f"{plural(len(found), 'more one-off gap')} of {each}{where} then stand{'s' if len(found) == 1 else ''} "
            f"out and {'is' if len(found) == 1 else 'are'} left out too" + ("" if several else f": {1 + len(found)} in all"))


def _part_of_run(row: dict[str, Any]) -> str:
    """Where a one-off gap between kernels lies in its device's span, in words: it starts in the first tenth ("early
    in the run, after the first GPU work"), ends in the last tenth ("late in the run"), else "in the middle of the
    run" — a 396.82 ms gap starting 188 µs after the first GPU event of a 508 ms span is not in its middle."""
    span = max(int(row.get("span_ns") or 0), 1)
    if row["offset_ns"] < 0.1 * span:
        return "early in the run, after the first GPU work"
    if row["offset_ns"] + row["dur_ns"] > 0.9 * span:
        return "late in the run, before the last GPU work"
    return "in the middle of the run"


#: Above this many times the other gaps' median, the ratio itself says nothing more ("463295405×" beside a median
#: of 1 ns between back-to-back kernels): the text gives the median instead.
RATIO_WORDS_MAX = 1000


#: A median gap below this [ns] means the device's other work ran back to back (a launch queue kept full).
BACK_TO_BACK_NS = 1_000


def _against_median(row: dict[str, Any]) -> str:
    """How a boundary gap compares with its device's other gaps, in words: "the other gaps' median is 40.00 µs: it
    is 12× that", or, past :data:`RATIO_WORDS_MAX`, "the other gaps' median is 1 ns (work back to back): it is over
    1000× that". The median is named before the ratio: "over 1000× the median of the other gaps (1 ns)" read as a
    1 ns figure of the gap itself (SGLang decode on an MI300X)."""
    med = int(row.get("median_other_gap_ns") or 0)
    ratio = row["dur_ns"] / max(med, 1)
    head = f"over {RATIO_WORDS_MAX}×" if ratio > RATIO_WORDS_MAX else f"{ratio:.0f}×"
    tight = " (work back to back)" if med < BACK_TO_BACK_NS else ""
    return f"the other gaps' median is {fmt_ns(med)}{tight}: it is {head} that"


def _boundary_finding(rows: list[dict[str, Any]], tot: dict[str, Any], timeline: Timeline,
                      parent: str | None) -> Finding:
    total = sum(r["dur_ns"] for r in rows)
    big = max(rows, key=lambda r: r["dur_ns"])
    where = {"leading": "before the steady state (warm-up: the first GPU work, then a long wait)",
             "trailing": "after the steady state (the run's tail)",
             "one-off": f"{_part_of_run(big)} (a one-off stall: checkpoint, evaluation, compilation, allocation)"}
    steps = step_numbers_in(timeline.events["name"])  # of any event, host or GPU
    src = next((str(x["path"]) for x in timeline.meta.sources if x.get("path")), "FILE")
    window = _window_option(rows, big, timeline)
    if window:  # the suggested window's own one-off gaps (hidden beside this larger one): counted, never a surprise
        window += _then_one_offs(timeline, window, int(big["rank"]))
    hint = (f"gpulens analyze {src} --steps {steps[1]}:{steps[-1]}" + (f" (or {window})" if window else "")
            if len(steps) > 2 else f"gpulens analyze {src} {window}" if window else
            f"gpulens analyze {src} --steps A:B (or --window START:END)")
    n = "1 warm-up/boundary idle gap" if len(rows) == 1 else f"{len(rows)} warm-up/boundary idle gaps"
    return Finding(
        f"{n} left out of the verdict: {fmt_ns(total)}"
        + (f", the largest {fmt_ns(big['dur_ns'])}" if len(rows) > 1 else "")
        + f" {where[big['position']].split(' (')[0]}",
        f"The largest gap starts {fmt_ns(big['offset_ns'])} after the first GPU event of rank {big['rank']} "
        f"GPU {big['device_id']}, {where[big['position']]}; {_against_median(big)}. During it {_gap_cause_text(big)}. Such gaps say nothing about the steady "
        f"state, so the verdict and the idle time at stake are drawn without them (the span they use is "
        f"{fmt_ns(steady_state(tot)[0])}); no time at stake is given for them.",
        severity="info", category="profiling-window", time_at_stake_ns=None, key="idle/boundary", parent=parent,
        action=f"Profiling-window note, not a cause to fix: analyse the steady state alone ({hint}).")


def _idle_split(tot: dict[str, Any], boundary: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """The idle time by cause, largest first: (class, ns) for the classes with idle time (sync included)."""
    parts = [(c, int(tot.get(f"idle_{c}_ns") or 0)) for c in GAP_CLASSES]
    return sorted([p for p in parts if p[1] > 0], key=lambda p: -p[1])


def cause_words(cause: str, tot: dict[str, Any]) -> str:
    """An idle cause in the words after its time (:data:`CLASS_WORDS`); idle with no launch call to explain it is
    named by the cause the trace records for most of it (:func:`gpulens.analyzers.bottlenecks.idle_cause_label`)."""
    from gpulens.analyzers.bottlenecks import idle_cause_label

    label = idle_cause_label(tot) if cause == "unattributed" else None
    return f"mostly on {label} (no launch call enqueues them)" if label else CLASS_WORDS[cause]


def uvm_text(tot: dict[str, Any], of: str = "of it lies") -> str:
    """When most unexplained idle ends in unified-memory page migrations (``gaps_unattributed_uvm`` /
    ``idle_unattributed_uvm_ns`` of the bottlenecks summary: the driver moves managed pages on a page fault, and no
    launch call enqueues that), what the gaps are and the remedy (CUDA Programming Guide, unified memory:
    prefetching with ``cudaMemPrefetchAsync``); '' otherwise — the gaps then lack a launch call the trace could
    have recorded. ``of``: the words between the time and "in N gaps" ("of it lies", "of the idle lies")."""
    from gpulens.analyzers.bottlenecks import idle_cause_label

    if not idle_cause_label(tot):
        return ""
    ns, n = int(tot.get("idle_unattributed_uvm_ns") or 0), int(tot.get("gaps_unattributed_uvm") or 0)
    return (f"{fmt_ns(ns)} {of} in {n:,} gap{'s' if n != 1 else ''} ending in a unified-memory page migration "
            f"(managed memory moved by the driver on a page fault, which no launch call enqueues): {UVM_FIX}")


#: The remedy for idle on unified-memory page migrations (CUDA Programming Guide, unified memory: performance
#: tuning — prefetching with cudaMemPrefetchAsync, data usage hints with cudaMemAdvise), said by the idle finding
#: and the run verdict alike.
UVM_FIX = ("prefetch managed buffers to the processor that touches them next (cudaMemPrefetchAsync), set their "
           "preferred location or read-mostly hints (cudaMemAdvise), or keep the data in device memory with explicit "
           "copies")


def explain_idle(root: Finding, tot: dict[str, Any], boundary: list[dict[str, Any]], pytorch: bool = True,
                 blocking: list[dict[str, Any]] | None = None, tool: str | None = None,
                 host_calls: list[dict[str, Any]] | None = None, linked: int = 0,
                 vendor: str | None = None, recorded: int = 0, queued_text: str = "",
                 largest: dict[str, dict[str, Any]] | None = None, timeline: Timeline | None = None) -> None:
    """Write the idle split by cause into the breakdown's ``idle`` finding (in place), so that a reader who sees only
    the root finding still sees where every idle nanosecond went — including the part no cause explains.

    Its time at stake is the recoverable idle of :func:`steady_state` (the verdict's definition: warm-up / tail /
    one-off gaps left out); those gaps are named in the title as a profiling-window note, never as the next step,
    which goes to the largest idle cause that recurs in the steady state. ``blocking``:
    :func:`blocking_calls_in_idle`, named when synchronisation is the largest cause; ``host_calls``:
    :func:`host_calls_in_gaps`, named when waiting for the host is; ``tool``: how to record the host side with the
    input's own profiler (:func:`gpulens.analyzers._advice.host_trace`); ``linked``: launch calls linked to GPU work
    (the host side was recorded: gaps with no cause are launches it missed, :func:`~._advice.idle_text`);
    ``recorded``: launch calls the trace holds, linked or not (none linked: calls without correlation ids);
    ``queued_text``: :func:`queued_wait_text`, named when work already queued is the largest cause;
    ``vendor``: the words of the advice (CUDA or HIP graphs, :func:`gpulens.analyzers._advice.vendor_text`);
    ``largest``: each cause's largest gap (:func:`gpulens.analyzers._idle_blocking.largest_gaps`), named after the
    cause's "over N gaps" when it holds most of it; with queued work that waited on nothing the trace records, the
    step says the idle is the capture's and gives the ``--window`` that leaves it out (``timeline``: its origin)."""
    split = _idle_split(tot, boundary)
    if not split:
        return
    steady_span, recoverable = steady_state(tot)
    b_ns = int(tot.get("idle_boundary_ns") or 0)
    causes = [(c, ns) for c, ns in split if c != "boundary"]
    # every cause by the name the idle table gives it: no "other causes" lumping figures the table names one by one
    words = ", ".join(f"{fmt_ns(ns)} {cause_words(c, tot)}" for c, ns in causes)
    head = root.title.split(": ")[0]
    one_off = setup_part(tot, host_calls)
    if one_off:  # the causes ranked by their steady-state time, in the title and the step (AMD matmul rpd: 27.20 ms of
        # its 28.53 ms host wait are set-up calls, so 13.16 ms of launch overhead lead); the host wait keeps its time
        causes = sorted(causes, key=lambda c: -(c[1] - one_off if c[0] == "host" else c[1]))
        words = ", ".join(f"{fmt_ns(ns)} {cause_words(c, tot)}" for c, ns in causes)
    left = []  # what the stake leaves out as one-off, said once at the end (nsys fuser H200: two exclusions and
    # five ms figures in one title before the stake)
    if one_off:  # the host wait is mostly one-off set-up: the steady-state stake leads, as in the run headline
        host = int(tot.get("idle_host_ns") or 0)  # its cause figure is the host wait less the set-up calls
        words = words.replace(f"{fmt_ns(host)} {cause_words('host', tot)}",
                              f"{fmt_ns(host - one_off)} {cause_words('host', tot)}", 1)
        left.append(f"{fmt_ns(one_off)} of {SETUP_WORDS}")
    many = head.startswith("GPUs")
    if b_ns:
        k = len(boundary) or 1
        left.append(f"{fmt_ns(b_ns)} in {'a single one-off gap' if k == 1 else f'{k} one-off gaps'} (warm-up, tail or "
                    "a stall: profiling-window note)")
    if one_off:  # the stake first, then its causes, then one clause naming every one-off part left out
        summed = re.search(r"summed over [0-9,]+ GPUs", root.title) if many else None
        root.title = (f"{'GPUs' if many else 'GPU'} idle in steady state: {fmt_ns(recoverable - one_off)} at stake "
                      f"(every idle cause{'; ' + summed.group(0) if summed else ''}) — by cause: {words}; left out, "
                      f"as by the verdict: {' and '.join(left)}")
    if b_ns:
        pct = steady_idle_pct(tot)
        # both denominators named: the share of the time the verdict judges, and of the whole span that the
        # breakdown's bar reads beside it (SGLang MI300X: "idle 6.5 %" of 10.45 ms beside a bar's "0.1 %" of 473.75 ms)
        whole = int(tot.get("span_ns") or 0)
        gaps = "the one-off gap" if k == 1 else f"the {k} one-off gaps"
        of_whole = (f"; {share_pct_text(100.0 * recoverable / whole)} of "
                    f"{'their summed' if many else 'its whole'} {fmt_ns(whole)} span{'s' if many else ''}"
                    if whole > steady_span else "")
        head = (f"{'GPUs' if many else 'GPU'} idle {share_pct_text(pct)} of the {fmt_ns(steady_span)} "
                f"{'of their spans ' if many else ''}outside {gaps} ({fmt_ns(recoverable)}{of_whole})")
        note = (f"{fmt_ns(b_ns)} in {'a single one-off gap' if k == 1 else f'{k} one-off gaps'} left out, as by the "
                "verdict (profiling-window note)")
        if not one_off:
            root.title = head + (f": {words}; " if words else ": ") + note
        root.severity = "warning" if pct > 50 else "info"
        big = max(boundary, key=lambda r: r["dur_ns"]) if boundary else None
        if big is not None and "one-off gap" not in root.detail:
            root.detail += (f" The time at stake leaves out the {fmt_ns(big['dur_ns'])} gap "
                            f"{fmt_ns(big['offset_ns'])} after the first GPU event"
                            + (f" and {k - 1} more" if k > 1 else "") + " — warm-up, tail or a one-off stall that "
                            "says nothing about the steady state (see its note) — as the verdict does.")
    elif not one_off:
        root.title = head + ": " + words
    from gpulens.analyzers._lost_work import lost_stake_note, measured_stake

    # lost GPU work most likely filled part of the queued idle: no measured idle there, nothing at stake in it
    root.time_at_stake_ns = measured_stake(int(recoverable - one_off), tot)
    if (note := lost_stake_note(tot)) and note not in root.detail:
        root.detail += note
    if not causes:
        k = len(boundary) or 1
        root.action = (f"The idle time is all in {'the one-off gap' if k == 1 else f'the {k} one-off gaps'} the "
                       "verdict leaves out: analyse the steady state alone (see the profiling-window note).")
        return
    top, ns = causes[0]
    n = int(tot.get(f"gaps_{top}") or 0)
    big = (largest or {}).get(top)
    over = f" over {plural(n, 'gap')}{one_gap_text(big, ns, n)}" if n else ""
    unrecorded = unrecorded_wait_text(big, ns) if top == "queued" else ""
    if top == "sync" and blocking:
        b = blocking[0]
        from gpulens.analyzers.bottlenecks import ASYNC_COPY_RE
        lead = (f"Start with the largest cause, {fmt_ns(ns)} with the host blocked — mostly in {b['name']}"
                + (f" inside {b['op']}" if b.get("op") else "") + f" ({fmt_ns(b['overlap_ns'])}")
        if ASYNC_COPY_RE.match(str(b["name"])):  # blocking only as a pageable copy (sync_calls): the host stages it
            root.action = (f"{lead}), copies to or from pageable host memory that the host stages: "
                           f"{_advice.pin_step(pytorch, vendor)}.")
        elif b["overlap_ns"] / max(int(b.get("calls") or 1), 1) >= LONG_BLOCK_NS:
            # ms of GPU idle inside one blocking call: no queue draining but a wait the trace does not show
            root.action = (f"{lead} over {plural(int(b.get('calls') or 1), 'call(s)')}) while the GPU ran nothing: "
                           f"find what it "
                           "waited for (another process's, stream's or device's work the trace does not show), then "
                           "defer or remove the blocking call.")
            if int(b.get("calls") or 1) == 1 and 2 * int(b["overlap_ns"]) >= steady_span:
                # one interval decides the verdict: if it is set-up outside the work to measure, the rest is the run
                root.action += (f" That one call holds {share_pct_text(100.0 * b['overlap_ns'] / steady_span)} of "
                                "the span: if it is set-up outside the work you mean to measure, analyse the rest "
                                "alone (gpulens analyze FILE --window START:END).")
        else:
            root.action = f"{lead}): {_advice.idle_text(_advice.IDLE_ACTIONS, pytorch, top, tool, vendor=vendor)}."
    elif top == "host":
        calls = (f" (runtime calls in them: {_calls_text(host_calls)})" if host_calls else
                 " (no runtime call recorded in them: host code the profiler does not break down)")
        # allocating or creating streams, not preparing data (AlexNet: cudaMalloc 1.94 s of 2.82 s): set-up advice
        step = ("set-up calls fill most of it (allocation, stream or module creation, or first launches loading "
                "their kernels' code, inside the run): "
                + _advice.setup_step(pytorch)) if one_off else \
            _advice.idle_text(_advice.IDLE_ACTIONS, pytorch, top, tool, vendor=vendor)
        what = (f"waiting for the host ({fmt_ns(ns - one_off)} in steady state, {fmt_ns(ns)} with its one-off set-up "
                "calls)" if one_off else f"{fmt_ns(ns)} waiting for the host")  # the title's figure, then the whole
        root.action = f"Start with the largest cause, {what}{over}{calls}: {step}."
    elif unrecorded:
        row = {**big, "dur_ns": big["gap_ns"], "position": "leading" if big.get("first_gap") else "one-off"}
        window = _window_option([row], row, timeline) if timeline is not None else None
        if window:  # as the profiling-window note's: the window's own one-off gaps counted
            window += _then_one_offs(timeline, window, int(row["rank"]))
        root.action = (f"Start with the largest cause, {fmt_ns(ns)} {cause_words(top, tot)}{over}"
                       + (f" ({queued_text})" if queued_text else "") + f": {unrecorded}. Judge the rest alone"
                       + (f" (gpulens analyze FILE {window})" if window else " (gpulens analyze FILE --window START:END)")
                       # a module-load gap is start-up, not work enqueued before the capture: its own remedy
                       # (warm-up launch, eager loading) is in ``unrecorded``; a fresh capture point fixes nothing
                       + ("." if big.get("module_loading") or big.get("lost_launches") else
                          ", or capture again from a point where no earlier work is in flight."))
    elif top == "queued" and queued_text:
        root.action = (f"Start with the largest cause, {fmt_ns(ns)} {cause_words(top, tot)}{over} ({queued_text}): "
                       f"{_advice.idle_text(_advice.IDLE_ACTIONS, pytorch, top, tool, linked, vendor, recorded)}.")
    elif top == "unattributed" and uvm_text(tot):
        root.action = (f"Start with the largest cause, {fmt_ns(ns)} {cause_words(top, tot)}{over}: "
                       f"{uvm_text(tot)}.")
    else:
        root.action = (f"Start with the largest cause, {fmt_ns(ns)} {cause_words(top, tot)}{over}: "
                       f"{_advice.idle_text(_advice.IDLE_ACTIONS, pytorch, top, tool, linked, vendor, recorded)}.")
    from gpulens.analyzers.bottlenecks import GAP_EVIDENCE, if_recurs, too_few_gaps

    if top in GAP_EVIDENCE.values() and too_few_gaps(n, ns, steady_span):
        # advice follows the evidence: the verdict calls this cause too little evidence, so no fix is claimed — only
        # what to collect and the step if the cause recurs (nsys lashi streamSimple: 2 launch gaps, 10.14 µs)
        root.action = if_recurs(root.action)  # the action names the cause, its time and its gaps


#: At or above this share of the host-wait idle filled by set-up runtime calls (:func:`_advice.is_setup_call`),
#: the idle finding's next step is the one-off set-up advice, not "move work off the host thread".
SETUP_GAP_SHARE = 0.5
