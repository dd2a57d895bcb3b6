"""Bottlenecks from the timeline alone: why each GPU sat idle, and what runs exposed (no counters needed).

Per rank × device, GPU events are repaired (each stream serial), merged into busy segments, and every idle gap
between two segments is attributed by looking at the GPU event that ends it and the runtime call that launched it
(linked by correlation id, one-to-many for CUDA/HIP graph launches):

* ``queued`` — the launch call had returned before the GPU went idle: work was already enqueued (cross-stream
  dependency, event wait, device-side scheduling, gaps between the nodes of one graph replay). Neither host nor
  launch overhead. Also a gap in which the launch call returned and the work started more than ``launch_gap_ns``
  later, that delay being the larger part of the gap (a late start: the GPU held the work and did not run it —
  the launch latency analyzer's queue delay), whatever the host did meanwhile.
* ``launch`` — the work was not enqueued yet, and either the launch call was already running when the GPU went idle
  or the gap is at most ``launch_gap_ns`` (default 20 µs, the upper end of typical launch costs): launch overhead
  between back-to-back kernels (HTA's "kernel wait"). Not a gap between two kernels of one graph replay (an earlier
  GPU event of the same launch call ran before it): the one call submitted the replay, so that gap is ``queued``
  even while the graph-launch call is still running.
* ``host`` — the work was not enqueued and the host was doing something else for longer: the CPU is not feeding
  the GPU (HTA's "host wait").
* ``sync`` — the part of a host/launch/unattributed gap during which the rank's host was inside a blocking call
  before the launch call of the work ending the gap returned (after it, the blocking call waits on that submitted
  work, not the cause of the idle)
  (:data:`BLOCKING_RE`): a synchronisation (``cuda|hip(Device|Stream|Event)Synchronize``, Kineto ``cuda_sync``
  events) or a synchronous copy (``cudaMemcpy``, ``hipMemcpyWithStream``, ``cuMemcpyDtoH``... — not the ``Async``
  ones), which returns only when the GPU work before it is done.
* ``boundary`` — a warm-up, boundary or one-off gap: much longer than the device's other gaps (see
  ``BOUNDARY_FACTOR``) and a large part of its idle time — or, once those are left out, a large part of the idle
  left while no other gap comes near it (:func:`boundary_passes`) — e.g. the seconds between a first copy and the
  first kernel. Reported as its own finding and left out of the steady-state verdict (whose span excludes it);
  ``--steps`` analyses the steady state alone. Not boundary, whatever its length (:func:`boundary_mask`): a gap
  after the first kernel and before the last one that a blocking call covers for at least half its length (the
  host waited on the GPU: a cause the program repeats, e.g. a ``.item()`` or a device-to-host copy in the only
  profiled step), and two or more such long gaps between kernels (they recur, e.g. once per step: a pattern, not
  a one-off). A leading gap before the device's first kernel (and before the first ``ProfilerStep`` mark) or a
  trailing one after its last kernel stays warm-up / tail whatever the host did; so does a blocking interval after
  set-up work only (under ``LEADING_WORK_SHARE``, 1 %, of the device's busy time before it: a 463 ms blocking copy
  after one 4 µs kernel), labelled before the steady state.
* ``unattributed`` — the launch call is unknown (no correlation) and the gap is longer than ``launch_gap_ns``, or
  the rank has no launch call recorded at all (GPU-only traces).

Skipped for counter-collection runs (ncu, rocprof-compute, rocprof ``pmc``, rocprofv3 counter collection): their
kernels were serialised and replayed, so the gaps between them are not idle time.

Per rank the table adds exposed communication / memcpy (from the ``breakdown`` analyzer), kernels shorter than
their launch call (a graph launch counts once, against the sum of its kernels), and small-grid kernels (fewer
blocks than SMs/CUs). ``overhead`` names the largest of host, launch, sync, exposed communication, exposed memcpy,
unattributed and queued idle (``dependency-bound``: GPU-side waiting, not an overhead the host can remove, but the
verdict names the larger cause) when it reaches ``min_share`` of the span, else ``none``; the summary's ``overhead`` is the run's, and its legacy ``verdict`` key the
same with ``gpu-bound`` for ``none`` (the ``verdicts`` analyzer's input). The run verdict is the ``verdicts``
analyzer's, which weighs this overhead against the GPU's computing time (the dominant share wins, the other is the
secondary cause): one figure called the verdict per report. Rules follow gpu-facts §3.3 (HTA idle-time breakdown, TraceLens exposed
comm/memcpy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers._span import CLOCK_GAP_NS, REPLAY_COLLECTORS, replayed_for_counters  # noqa: F401 (re-exported)
from gpulens.analyzers._span import idle_unmeasured_ns
from gpulens.analyzers.breakdown import Breakdown, span_shares
from gpulens.analyzers.context import category_mask, context_of
from gpulens.analyzers.intervals import key_codes
from gpulens.analyzers.launches import launch_call_mask, link_gpu_to_launch
from gpulens.analyzers.verdict_rules import FULL_GRID_SHARE
from gpulens.analyzers._window_findings import window_finding
from gpulens.analyzers._idle_causes import cause_findings, mark_setup
from gpulens.analyzers._idle_findings import (  # noqa: F401 (CLASS_WORDS, CLASS_ACTIONS re-exported)
    CLASS_ACTIONS,
    CLASS_WORDS,
    _boundary_finding,
    _boundary_rows,
    explain_idle,
    setup_ns,
    setup_part,
    host_calls_in_gaps,
    steady_idle_pct,
    steady_state,
)
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns, pct_words, plural
from gpulens.analyzers._gap_codes import GAP_CLASSES, gap_class_codes  # one definition
from gpulens.analyzers._lost_work import lost_queued_mask, lost_queued_ns, lost_work_reason
from gpulens.analyzers._idle_blocking import STREAM_WAIT_RE, blocking_calls_in_idle, largest_gaps, queued_wait_text
from gpulens.analyzers._gap_classes import (  # noqa: F401 (re-exported)
    ASYNC_COPY_RE, BLOCKING_COPY_RE, BLOCKING_COVER_SHARE, BLOCKING_RE, BOUNDARY_FACTOR, BOUNDARY_IDLE_SHARE,
    BOUNDARY_MIN_GAPS, PAGEABLE_COPY_RE, SYNC_RE, _QUEUE_OPS_RE, _classify_gaps, _first_step_start, _kernel_columns,
    _queue_ops_re, _short_launches, _step_spans, boundary_gaps, boundary_mask, classify_gaps, covered_until,
    short_launches, sync_calls)


#: An idle cause (host, launch, sync, unattributed) becomes a verdict only when at least this many gaps show it, or
#: when it holds at least DOMINANT_SHARE of the steady span whatever the number of gaps: a verdict says the run
#: keeps losing time to that cause, and one or two gaps that hold a minor share show no pattern (the same reasoning
#: as BOUNDARY_MIN_GAPS) — e.g. the 2 launch gaps (10 µs, 13 %) of a 77 µs run of 16 kernels. Otherwise the rank's
#: class is ``undetermined`` and the summary says why.
MIN_VERDICT_GAPS = 3
DOMINANT_SHARE = 0.5
#: Why an idle cause in too few gaps is no verdict — and gets no fix advice, only "if it recurs, then …"
THIN_RULE = (f"an idle cause needs at least {MIN_VERDICT_GAPS} gaps, or half the span, to make a verdict: fewer "
             "show no pattern")


def too_few_gaps(n: int | None, ns: float, span: float) -> bool:
    """Whether an idle cause of ``ns`` seen in ``n`` gaps (None: not a gap cause) over a steady ``span`` [ns] is too
    little evidence for a verdict — and so for fix advice (:data:`THIN_RULE`; nsys lashi streamSimple: 10.14 µs of
    launch idle from 2 gaps, 13.2 % of the span)."""
    return n is not None and not n >= MIN_VERDICT_GAPS and ns < DOMINANT_SHARE * span  # NaN counts: few


def if_recurs(step: str, what: str | None = None, n: int = 0) -> str:
    """A fix ``step`` for an idle cause seen in too few gaps, worded as the evidence allows (:data:`THIN_RULE`):
    what to collect first, then "if …, then" the step; ``what`` (the cause's time) and ``n`` (its gaps) are said
    first when the step does not say them."""
    seen = f": {what} over only {plural(n, 'gap')} ({THIN_RULE})" if what else f" ({THIN_RULE})"
    return (f"Too little evidence to act on yet{seen}. Profile more iterations (a longer capture); if this idle "
            f"recurs there, then: {step[0].lower() + step[1:]}")


#: idle-cause columns that are made of gaps (their evidence is counted in gaps)
GAP_EVIDENCE = {"idle_host_ns": "host", "idle_launch_ns": "launch", "idle_sync_ns": "sync",
                "idle_unattributed_ns": "unattributed", "idle_queued_ns": "queued"}
#: run/rank classes, in the order ties are broken. Queued idle (the GPU idle with its next work already enqueued:
#: waits on another stream, an event or device-side scheduling) is a class too: a run whose steady state idles
#: 52 µs that way beside 37 µs of exposed copies is not "memcpy-bound" (nsys T4 4-stream vectorAdd export).
RANK_CLASSES = {"idle_host_ns": "host-bound", "idle_launch_ns": "launch-bound", "idle_sync_ns": "sync-bound",
                "exposed_comm_ns": "communication-bound", "exposed_memcpy_ns": "memcpy-bound",
                "idle_unattributed_ns": "idle-unattributed", "idle_queued_ns": "dependency-bound"}

COLUMNS = {
    "rank": "distributed rank", "device_id": "GPU index",
    "span_ns": "first → last GPU event [ns]", "busy_ns": "union of GPU events [ns]",
    "computation_ns": "union of compute kernels [ns]", "idle_ns": "span − busy [ns]",
    **{f"idle_{c}_ns": f"idle time whose cause is {c} (see module docstring) [ns]" for c in GAP_CLASSES},
    # the one class whose name is no cause: said as what it is ("idle time attributed to unattributed" read as a
    # riddle), true for every row — also one whose gaps a finding explains (unified-memory migrations end them)
    "idle_unattributed_ns": "idle time no launch call explains: the work ending the gap has no recorded launch call "
                            "(no correlation id) and the gap is longer than the launch gap, or the rank recorded no "
                            "launch call; the overhead column names what ended most of it when the trace shows it "
                            "(unified-memory page migrations) [ns]",
    "exposed_comm_ns": "collective time not overlapped by compute [ns]",
    "exposed_memcpy_ns": "copy time overlapped by no kernel or collective [ns]",
    "steady_idle_ns": "idle_ns less idle_boundary_ns: the idle time of the steady state the verdict is about, the "
                      "one-off / warm-up gaps left out (the reports draw idle as these two parts) [ns]",
    "steady_idle_pct": "steady_idle_ns / span_ns [%] (unknown when idle_ns is)",
    "idle_boundary_pct": "idle_boundary_ns / span_ns [%]",
    "idle_other_clock_ns": "part of idle_ns that may be this GPU's work written on another clock (breakdown): the "
                           "idle and its causes are then at most, and no verdict rests on them [ns]",
    "idle_untimed_ns": "part of idle_ns that GPU work recorded without a usable start or end may fill (breakdown): the idle "
                       "and its causes are then at most, and no verdict rests on them [ns]",
    "launch_calls": "kernel launch calls linked to GPU work (a graph launch counts once)",
    "short_launches": "launch calls whose GPU work (sum over a graph) is shorter than the call itself",
    "short_kernel_ns": "GPU time of those launches [ns]",
    "small_grid_kernels": "kernels with fewer blocks (workgroups) than 90 % of the SMs/CUs (unknown when the "
                          "SM/CU count is)",
    "small_grid_ns": "their summed duration [ns]",
    "num_sms": "SMs / CUs of the device; unknown when the GPU model is not known",
    "overhead": "the largest idle/overhead cause (host-bound, launch-bound, sync-bound, communication-bound, "
                "memcpy-bound, GPU idle, cause not recorded, dependency-bound: idle with work queued) when it is at least 10 % of the steady span, else none; "
                "undetermined when that cause is idle seen in fewer than 3 gaps and under half the span — an input "
                "of the run verdict, not the verdict itself [text]",
}


def device_sms(timeline: Timeline, device: Any, rank: int, device_id: int) -> int | None:
    """SM/CU count: from the device spec when it has one, else from the trace's device record (None if unknown)."""
    for attr in ("num_sms", "sm_count", "multiprocessor_count", "num_cus", "cu_count", "compute_units"):
        v = getattr(device, attr, None) if device is not None else None
        if isinstance(v, (int, np.integer)) and v > 0:
            return int(v)
    by_rank = context_of(timeline).memo("devices_by_rank", lambda: _devices_by_rank(timeline))
    mine = by_rank.get(rank, [])
    exact = [d for d in mine if int(d.get("device_id", -1) if d.get("device_id") is not None else -1) == device_id]
    # one GPU recorded for the rank but under another index (ROCm traces number devices by pid): use it
    for d in exact or (mine if len({str(x.get("name")) for x in mine}) == 1 else []):
        v = d.get("num_sms") or d.get("num_cus")
        if v:
            return int(v)
    return None


def _devices_by_rank(timeline: Timeline) -> dict[int, list[dict]]:
    """``meta.devices`` grouped by rank once (a per-rank scan of every record is quadratic in the rank count)."""
    out: dict[int, list[dict]] = {}
    for d in timeline.meta.devices:
        out.setdefault(int(d.get("rank", 0) or 0), []).append(d)
    return out


def _launch_counts(sl: pd.DataFrame) -> dict[tuple[int, int], dict[str, int]]:
    """Per (rank, device) of the short-launch table (:func:`short_launches`): launch calls ``n``, short ones
    ``short`` and their kernels' GPU time ``sns`` [ns]. Integer rank/device columns are grouped on pair codes
    (bincount, exact int64 sums); others (missing values: left out, as a groupby drops them) by pandas."""
    if not len(sl):
        return {}
    short = sl["short"].astype(bool).to_numpy()
    if sl["rank"].dtype.kind in "iu" and sl["device_id"].dtype.kind in "iu" and sl["gpu_ns"].dtype.kind in "iu":
        pair, keys = key_codes(sl["rank"].to_numpy(), sl["device_id"].to_numpy())
        n = np.bincount(pair, minlength=len(keys))
        k_short = np.bincount(pair[short], minlength=len(keys))
        sns = np.zeros(len(keys), dtype=np.int64)
        np.add.at(sns, pair[short], sl["gpu_ns"].to_numpy("int64")[short])
        return {(int(r), int(d)): {"n": int(a), "short": int(b), "sns": int(c)}
                for (r, d), a, b, c in zip(keys, n.tolist(), k_short.tolist(), sns.tolist())}
    sg = sl.assign(_short=short, _sns=sl["gpu_ns"].where(short, 0)).groupby(["rank", "device_id"]).agg(
        n=("_short", "size"), short=("_short", "sum"), sns=("_sns", "sum"))
    return {tuple(int(x) for x in k): v for k, v in sg.to_dict("index").items()}


def _uvm_mask(timeline: Timeline, gaps: pd.DataFrame, code: np.ndarray) -> np.ndarray:
    """Per gap: unattributed and ending in a unified-memory page migration (copy kind ``UVM …``: the driver moves
    managed pages on a page fault or prefetch; no launch call enqueues it, so no launch call can explain the gap)."""
    ev = timeline.events
    if not len(gaps) or "copy_kind" not in ev:
        return np.zeros(len(gaps), dtype=bool)
    # tested once per distinct copy kind (category codes), not as a str per event row: ~0.3 s at 1M kernels
    uvm = category_mask(ev["copy_kind"], lambda k: k.startswith("UVM"))
    uvm_ids = ev["event_id"].to_numpy()[uvm]
    if not uvm_ids.size:
        return np.zeros(len(gaps), dtype=bool)
    return (code == GAP_CLASSES.index("unattributed")) & np.isin(gaps["next_event_id"].to_numpy(), uvm_ids)


def _uvm_gaps(gaps: pd.DataFrame, m: np.ndarray, group: np.ndarray | None = None,
              groups: int = 1) -> pd.DataFrame:
    """The gaps of :func:`_uvm_mask` (``m``) per group code (as :func:`_gap_counts`): ``gaps_unattributed_uvm``
    (count) and ``idle_unattributed_uvm_ns`` (their idle time outside sync calls) [ns]."""
    g = np.zeros(len(gaps), dtype=np.int64) if group is None else group
    own = (gaps["dur_ns"] - gaps["sync_ns"]).to_numpy("int64").clip(min=0) if len(gaps) else np.zeros(0, np.int64)
    ns = np.zeros(groups, dtype=np.int64)
    np.add.at(ns, g[m], own[m])
    return pd.DataFrame({"gaps_unattributed_uvm": np.bincount(g[m], minlength=groups).astype("int64"),
                         "idle_unattributed_uvm_ns": ns})


def idle_cause_label(figures: dict[str, Any] | None) -> str | None:
    """The recorded cause of idle that no launch call explains, in words, when the trace shows one for most of it
    (``figures``: a bottlenecks row or summary): "unified-memory page migrations" when at least half of
    ``idle_unattributed_ns`` is in gaps ending in one (``idle_unattributed_uvm_ns``, ``gaps_unattributed_uvm``);
    None otherwise. The one test shared by the idle finding's words, the overhead column and the run verdict, so
    that a cause a finding names is never "cause not recorded" in the verdict."""
    f = figures or {}
    ns, n = int(f.get("idle_unattributed_uvm_ns") or 0), int(f.get("gaps_unattributed_uvm") or 0)
    if not n or 2 * ns < int(f.get("idle_unattributed_ns") or 0):
        return None
    return "unified-memory page migrations"


def _gap_counts(gaps: pd.DataFrame, group: np.ndarray | None = None, groups: int = 1,
                code: np.ndarray | None = None) -> pd.DataFrame:
    """Number of gaps holding time of each idle cause, in the ``gaps_<cause>`` columns (host, launch, unattributed,
    queued: the gap's class, when time is left after its sync part; sync: a sync part): the evidence
    :data:`MIN_VERDICT_GAPS` counts. One row per group code (``group``: a code in ``range(groups)`` per gap; all
    gaps in one row when None); ``code``: :func:`~gpulens.analyzers._gap_codes.gap_class_codes` of ``gaps`` when
    the caller has them."""
    code = gap_class_codes(gaps) if code is None else code
    own = (gaps["dur_ns"] - gaps["sync_ns"]).to_numpy() > 0
    g = np.zeros(len(gaps), dtype=np.int64) if group is None else group

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(g[mask], minlength=groups).astype("int64")

    out = {f"gaps_{c}": count((code == GAP_CLASSES.index(c)) & own)
           for c in ("host", "launch", "unattributed", "queued")}
    out["gaps_sync"] = count(gaps["sync_ns"].to_numpy() > 0)
    return pd.DataFrame(out)


#: How a person reads a class whose identifier is not words (the JSON summary keeps the identifier).
CLASS_LABELS = {"idle-unattributed": "GPU idle, cause not recorded",
                "dependency-bound": "dependency-bound (GPU idle with work queued)",
                # the kernel class of a run whose kernels sit below both roofs, latency or occupancy not shown
                "below-roofs": "below both roofs"}


def class_label(verdict: str, figures: dict[str, Any] | None = None) -> str:
    """A run/rank class in the words reports show (:data:`CLASS_LABELS`; the identifier itself otherwise). Idle with
    no launch call to explain it is named by the cause the trace does record for most of it (``figures``: the
    bottlenecks summary or row, :func:`idle_cause_label`) — "GPU idle on unified-memory page migrations", never
    "cause not recorded" beside a finding that names the migrations (nsys A100 managed-memory export)."""
    cause = idle_cause_label(figures) if verdict == "idle-unattributed" else None
    return f"GPU idle on {cause}" if cause else CLASS_LABELS.get(verdict, verdict)


def _overhead_word(verdict: str, figures: dict[str, Any] | None = None) -> str:
    """The overhead column's value: the cause in words (:func:`class_label`), or ``none`` when no cause reaches
    ``min_share`` (the legacy summary ``verdict`` says ``gpu-bound`` there; a table column "gpu-bound" beside a run
    verdict such as "latency/occupancy-bound" read as a second, contradicting verdict)."""
    return "none" if verdict == "gpu-bound" else class_label(verdict, figures)


def _rank_verdict(row: dict[str, Any], min_share: float) -> str:
    """The row's class: the largest overhead reaching ``min_share`` of the steady span, ``gpu-bound`` when none
    does, ``undetermined`` when that overhead is an idle cause seen in fewer than :data:`MIN_VERDICT_GAPS` gaps
    (``row["gaps_<cause>"]``; rows without gap counts are not checked) and holding less than
    :data:`DOMINANT_SHARE` of the span."""
    return _thin_evidence(row, min_share)[0]


def _thin_evidence(row: dict[str, Any], min_share: float) -> tuple[str, str]:
    """(class, why it is undetermined or "") — see :func:`_rank_verdict`."""
    span = max(steady_state(row)[0], 1)  # the steady state: boundary gaps left out
    big = sorted(((c, k, row[k]) for k, c in RANK_CLASSES.items()
                  if not pd.isna(row[k]) and row[k] >= min_share * span),
                 key=lambda x: -x[2])  # stable: ties keep RANK_CLASSES order
    if not big:
        return "gpu-bound", ""
    cls, k, ns = big[0]  # the largest cause decides: a smaller one never stands in for an unproven larger one
    other = idle_unmeasured_ns(row)
    if k in GAP_EVIDENCE and other:  # the GPU's work on another clock may fill the gaps
        if not row.get("idle_other_clock_ns") or pd.isna(row.get("idle_other_clock_ns")):
            return "undetermined", (f"the idle ({fmt_ns(int(row['idle_ns']))}) is at most: GPU work recorded without "
                                    "a usable start or end ran somewhere in it — not a measured idle, no verdict "
                                    "rests on it")
        return "undetermined", (f"the idle ({fmt_ns(int(row['idle_ns']))}) is measured inside one clock domain while "
                                f"up to {fmt_ns(int(other))} of it may be the GPU's work written on another clock: "
                                "not a measured idle, no verdict rests on it")
    if k == "idle_queued_ns" and (why := lost_work_reason(row, int(ns))):  # lost GPU work most likely ran there
        return "undetermined", why
    n = row.get(f"gaps_{GAP_EVIDENCE[k]}") if k in GAP_EVIDENCE else None
    if not too_few_gaps(n, ns, span):
        return cls, ""
    what = "idle with no recorded cause" if GAP_EVIDENCE[k] == "unattributed" else f"{GAP_EVIDENCE[k]} idle"
    return "undetermined", (f"{fmt_ns(ns)} of {what} ({pct_words(100 * ns / span)} of the span) comes "
                            f"from only {plural(n, 'gap')} ({THIN_RULE})")


class Bottlenecks(Analyzer):
    """Timeline-only bottleneck classification per rank and device (see module docstring).

    Args:
        launch_gap_ns: gaps up to this long before not-yet-enqueued work count as launch overhead.
        min_share: a class becomes the rank's verdict when it covers at least this fraction of the GPU span.
    """

    name = "bottlenecks"
    order = 55

    def __init__(self, launch_gap_ns: int = 20_000, min_share: float = 0.10):
        self.launch_gap_ns = launch_gap_ns
        self.min_share = min_share

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        results = results or {}
        bd = results.get("breakdown") or Breakdown().analyze(timeline, device)
        if bd.skipped or not len(bd.table):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=bd.skipped_reason or "no GPU events")
        if replayed_for_counters(timeline):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=(
                "counter-collection run (kernels serialised and replayed by the profiler): gaps between kernels "
                "are profiler artefacts, not idle time; profile with a tracer (torch.profiler, nsys, rocprofv3 "
                "--kernel-trace) for the timeline classification"))
        links = link_gpu_to_launch(timeline)["launch_event_id"]
        gaps = classify_gaps(timeline, self.launch_gap_ns, links)
        sl = short_launches(timeline, links)
        code = gap_class_codes(gaps) if len(gaps) else np.zeros(0, dtype=np.int8)
        uvm = _uvm_mask(timeline, gaps, code)
        lost = lost_queued_mask(timeline, gaps, code)  # queued gaps that lost GPU work most likely filled
        rows = self._rows(timeline, device, bd.table, gaps, sl, code, uvm, lost)
        t = pd.DataFrame(rows)[list(COLUMNS)]
        for c in ("small_grid_kernels", "small_grid_ns", "num_sms"):
            t[c] = t[c].astype("Int64")
        tot = {c: int(t[c].sum()) for c in COLUMNS if c.endswith("_ns") and c != "small_grid_ns"}
        tot["small_grid_ns"] = int(t["small_grid_ns"].sum()) if t["small_grid_ns"].notna().any() else None
        tot.update(_gap_counts(gaps, code=code).iloc[0].to_dict() if len(gaps) else {})
        tot.update({k: int(v) for k, v in _uvm_gaps(gaps, uvm).iloc[0].items()})
        tot.update({k: int(v) for k, v in lost_queued_ns(gaps, lost).iloc[0].items()})
        verdict, thin = _thin_evidence(tot, self.min_share)
        summary = {**{("device_span_ns" if k == "span_ns" else k): v for k, v in tot.items()},
                   "launch_calls": int(t["launch_calls"].sum()),
                   # launch calls in the trace, linked to GPU work or not (none linked: no correlation ids)
                   "launch_calls_recorded": int(launch_call_mask(timeline).sum()),
                   "short_launches": int(t["short_launches"].sum()),
                   "gaps": int(len(gaps)), "launch_gap_ns": self.launch_gap_ns, "min_share": self.min_share,
                   "overhead": _overhead_word(verdict, tot), "verdict": verdict, "verdict_evidence": thin or None,
                   "rank_verdicts": {int(r): v for r, v in zip(t["rank"], t["overhead"])}}
        idle_root = any(f.key == "idle" for f in bd.findings)
        pytorch = _advice.uses_pytorch(timeline)
        blocking = blocking_calls_in_idle(timeline, gaps, sync_calls(timeline)) if tot.get("idle_sync_ns") else []
        summary["blocking_calls"] = blocking
        tool = _advice.host_trace(timeline, device)
        vendor = _advice.vendor_of(timeline, device)
        queued_text = ""
        if tot.get("idle_queued_ns"):  # what the queued gaps show of their dependency: the waits, named
            waits = [c for c in host_calls_in_gaps(timeline, gaps, cls="queued", n=20)
                     if STREAM_WAIT_RE.search(str(c["name"]))][:2]
            queued_text = queued_wait_text(blocking_calls_in_idle(timeline, gaps, sync_calls(timeline),
                                                                  cls="queued"), waits)
        # each cause's largest gap: named wherever one gap holds most of a cause's "X over N gaps"
        summary["largest_gap"] = largest_gaps(timeline, gaps)
        findings = cause_findings(tot, summary, "idle" if idle_root else None, pytorch, blocking, tool, vendor,
                             gpus=len(t), queued_text=queued_text)
        summary["boundary_gaps"] = _boundary_rows(gaps, timeline)
        steady, recoverable = steady_state(tot)
        summary["recoverable_idle_ns"] = int(recoverable)  # idle less one-off gaps; the idle stake also less set-up
        if tot.get("idle_boundary_ns"):  # the steady state the verdict is about: boundary gaps left out
            summary["steady_span_ns"] = int(max(steady, 1))
            summary["steady_busy_pct"] = min(100.0 * tot["busy_ns"] / max(steady, 1), 100.0)
            summary["steady_idle_pct"] = steady_idle_pct(tot)  # the idle finding's leading share
            # the two idle parts as shares of the whole span(s), beside the breakdown's other parts (one definition)
            summary["idle_split_pct"] = span_shares(summary, summary.get("device_span_ns"),
                                                    ("steady_idle_ns", "idle_boundary_ns"))
        edges, wf = window_finding(timeline)
        summary.update(edges)
        if wf is not None:
            findings.append(wf)
        if summary["boundary_gaps"]:
            findings.insert(0, _boundary_finding(summary["boundary_gaps"], tot, timeline, "idle" if idle_root else None))
        host_calls = host_calls_in_gaps(timeline, gaps) if tot.get("idle_host_ns") else []
        # the part of the idle spent waiting for the host that set-up calls fill (allocation, stream or module
        # creation): start-up inside the span, which the run verdict names as such [ns]
        summary["idle_host_setup_ns"] = setup_ns(host_calls)
        mark_setup(findings, setup_part(tot, host_calls))  # the host wait's stake in steady state (one definition)
        for f in bd.findings:
            if f.key == "idle":
                explain_idle(f, tot, summary["boundary_gaps"], pytorch, blocking, tool, host_calls,
                             summary["launch_calls"], vendor, summary["launch_calls_recorded"], queued_text,
                             summary["largest_gap"], timeline)
                if idle_unmeasured_ns(tot):  # the idle is at most (clock domains, untimed work): nothing at stake
                    f.time_at_stake_ns = None
        if idle_unmeasured_ns(tot):
            summary["recoverable_idle_ns"] = None
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)


    def _rows(self, timeline: Timeline, device: Any, bd: pd.DataFrame, gaps: pd.DataFrame,
              sl: pd.DataFrame, code: np.ndarray, uvm: np.ndarray, lost: np.ndarray) -> list[dict[str, Any]]:
        """One row per breakdown row (rank, GPU): idle split by gap class, launch counts and small-grid kernels.
        Every per-(rank, GPU) figure comes from one pass over all rows, grouped by pair codes (no mask per rank:
        quadratic with thousands of rank files). ``code``:
        :func:`~gpulens.analyzers._gap_codes.gap_class_codes` of ``gaps``; ``uvm``: :func:`_uvm_mask` of them."""
        key = ["rank", "device_id"]
        # per (rank, GPU) of the gaps: idle time of each class, sync time and gap counts, summed over pair codes
        # (a pivot table and two group-bys of a million gaps hashed the class texts and the keys three times)
        idle_d: dict[tuple, dict] = {}
        sync_d: dict[tuple, int] = {}
        counts_d: dict[tuple, dict] = {}
        if len(gaps):
            gpair, gkeys = key_codes(gaps["rank"].to_numpy(), gaps["device_id"].to_numpy())
            gkeys = [(int(r), int(d)) for r, d in gkeys]
            sync_ns = gaps["sync_ns"].to_numpy("int64")
            own_ns = gaps["dur_ns"].to_numpy("int64") - sync_ns
            per_class = {}
            for j, c in enumerate(GAP_CLASSES):
                m = code == j
                if m.any():
                    per_class[c] = np.zeros(len(gkeys), dtype=np.int64)
                    np.add.at(per_class[c], gpair[m], own_ns[m])
            del own_ns
            sync = np.zeros(len(gkeys), dtype=np.int64)
            np.add.at(sync, gpair, sync_ns)
            idle_d = {k: {c: int(v[i]) for c, v in per_class.items()} for i, k in enumerate(gkeys)}
            sync_d = {k: int(sync[i]) for i, k in enumerate(gkeys)}
            counts = pd.concat([_gap_counts(gaps, gpair, len(gkeys), code), _uvm_gaps(gaps, uvm, gpair, len(gkeys)),
                                lost_queued_ns(gaps, lost, gpair, len(gkeys))], axis=1)
            counts_d = dict(zip(gkeys, counts.to_dict("records")))
        sg_d = _launch_counts(sl)
        kern = _kernel_columns(timeline)
        blocks = (kern["grid_x"].fillna(1) * kern["grid_y"].fillna(1) * kern["grid_z"].fillna(1)).where(
            kern["grid_x"].notna())
        pairs = [(int(b["rank"]), int(b["device_id"])) for b in bd[key].to_dict("records")]
        sms_of = {rd: device_sms(timeline, device, *rd) for rd in dict.fromkeys(pairs)}
        kr, kd = kern["rank"].to_numpy(), kern["device_id"].to_numpy()
        # SMs per kernel row: looked up once per distinct (rank, device), not per row through a tuple Series
        pair, first = key_codes(kr, kd) if len(kern) else (np.zeros(0, int), [])
        per_pair = np.array([np.nan if (v := sms_of.get((int(r), int(d)))) is None else float(v) for r, d in first],
                            dtype=float)
        sms_row = per_pair[pair] if len(kern) else np.zeros(0)
        bl = blocks.to_numpy(dtype=float, na_value=np.nan)
        # fewer blocks than FULL_GRID_SHARE of the SMs: a grid covering ~every SM leaves no part of the GPU empty
        small = ~np.isnan(bl) & ~np.isnan(sms_row) & (bl < FULL_GRID_SHARE * np.nan_to_num(sms_row, nan=0.0))
        # per (rank, device): kernels with a grid, small-grid kernels and their time, summed over the pair codes
        # (no DataFrame of every kernel row grouped by two columns: that was this analyzer's peak memory at 1M)
        kg_d = {}
        if len(kern):
            has_n = np.bincount(pair[~np.isnan(bl)], minlength=len(first))
            small_n = np.bincount(pair[small], minlength=len(first))
            sns = np.zeros(len(first), dtype=np.int64)
            np.add.at(sns, pair[small], kern["dur_ns"].to_numpy("int64")[small])
            kg_d = {(int(r), int(d)): {"has": h, "small": s, "sns": t}
                    for (r, d), h, s, t in zip(first, has_n.tolist(), small_n.tolist(), sns.tolist())}
        rows = []
        for b in bd.to_dict("records"):
            r, d = int(b["rank"]), int(b["device_id"])
            # an exposed part on another clock than the work that could hide it is unknown (breakdown: <NA>)
            row = {k: pd.NA if pd.isna(b[k]) else int(b[k])
                   for k in ("span_ns", "busy_ns", "computation_ns", "idle_ns", "exposed_comm_ns", "exposed_memcpy_ns",
                             "idle_other_clock_ns", "idle_untimed_ns")}
            i = idle_d.get((r, d), {})
            for c in GAP_CLASSES:
                row[f"idle_{c}_ns"] = int(i.get(c, 0))
            row["idle_sync_ns"] = sync_d.get((r, d), 0)
            row["steady_idle_ns"] = max(row["idle_ns"] - row["idle_boundary_ns"], 0) \
                if not pd.isna(row["idle_ns"]) else pd.NA
            split = ("steady_idle_ns", "idle_boundary_ns")  # each GPU's idle parts as shares of its span
            for k, v in span_shares({k: None if pd.isna(row[k]) else row[k] for k in split}, row["span_ns"],
                                    split).items():
                row[k.replace("_ns", "_pct")] = pd.NA if v is None else v
            lg = sg_d.get((r, d), {"n": 0, "short": 0, "sns": 0})
            row.update(launch_calls=int(lg["n"]), short_launches=int(lg["short"]), short_kernel_ns=int(lg["sns"]))
            sms = sms_of[(r, d)]
            k = kg_d.get((r, d))
            if sms is None or k is None or not k["has"]:
                row.update(small_grid_kernels=pd.NA, small_grid_ns=pd.NA)
            else:
                row.update(small_grid_kernels=int(k["small"]), small_grid_ns=int(k["sns"]))
            row.update(rank=r, device_id=d, num_sms=sms if sms is not None else pd.NA)
            figures = {**row, **counts_d.get((r, d), {})}
            row["overhead"] = _overhead_word(_rank_verdict(figures, self.min_share), figures)
            rows.append(row)
        return rows
