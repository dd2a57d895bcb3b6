"""Bottlenecks from the timeline alone: why each GPU sat idle, and what runs exposed (no counters needed).

Per rank × device, GPU events are repaired (each stream serial), merged into busy segments, and every idle gap
between two segments is attributed by looking at the GPU event that ends it and the runtime call that launched it
(linked by correlation id, one-to-many for CUDA/HIP graph launches):

* ``queued`` — the launch call had returned before the GPU went idle: work was already enqueued (cross-stream
  dependency, event wait, device-side scheduling, gaps between the nodes of one graph replay). Neither host nor
  launch overhead.
* ``launch`` — the work was not enqueued yet, and either the launch call was already running when the GPU went idle
  or the gap is at most ``launch_gap_ns`` (default 20 µs, the upper end of typical launch costs): launch overhead
  between back-to-back kernels (HTA's "kernel wait").
* ``host`` — the work was not enqueued and the host was doing something else for longer: the CPU is not feeding
  the GPU (HTA's "host wait").
* ``sync`` — the part of a host/launch/unattributed gap during which the rank's host was inside a synchronisation
  call (``cuda|hip(Device|Stream|Event)Synchronize``, Kineto ``cuda_sync`` events).
* ``boundary`` — a warm-up, boundary or one-off gap: much longer than the device's other gaps (see
  ``BOUNDARY_FACTOR``) and a large part of its idle time, e.g. the seconds between a first copy and the first
  kernel. Reported as its own finding and left out of the steady-state verdict (whose span excludes it);
  ``--steps`` analyses the steady state alone.
* ``unattributed`` — the launch call is unknown (no correlation) and the gap is longer than ``launch_gap_ns``, or
  the rank has no launch call recorded at all (GPU-only traces).

Skipped for counter-collection runs (ncu, rocprof-compute, rocprof ``pmc``, rocprofv3 counter collection): their
kernels were serialised and replayed, so the gaps between them are not idle time.

Per rank the table adds exposed communication / memcpy (from the ``breakdown`` analyzer), kernels shorter than
their launch call (a graph launch counts once, against the sum of its kernels), and small-grid kernels (fewer
blocks than SMs/CUs). ``verdict`` names the largest of host, launch, sync, exposed communication, exposed memcpy and
unattributed idle when it reaches ``min_share`` of the span, else ``gpu-bound`` (queued idle is GPU-side waiting,
not an overhead the host can remove). Rules follow gpu-facts §3.3 (HTA idle-time breakdown, TraceLens exposed
comm/memcpy).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers._span import REPLAY_COLLECTORS, replayed_for_counters  # noqa: F401 (re-exported)
from gpulens.analyzers.breakdown import Breakdown
from gpulens.analyzers.context import category_mask, context_of, text_series
from gpulens.analyzers.intervals import merge
from gpulens.analyzers.launches import LAUNCH_RE, link_gpu_to_launch
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns

SYNC_RE = re.compile(r"^(?:cuda|hip|cu)(?:Device|Stream|Event|Ctx)?Synchroni[sz]e")
GAP_CLASSES = ("host", "launch", "sync", "queued", "unattributed", "boundary")
#: A gap is a warm-up / boundary / one-off gap (class ``boundary``, left out of the steady-state verdict) when the
#: device has at least BOUNDARY_MIN_GAPS gaps, the gap is ≥ BOUNDARY_FACTOR × the median of its device's other gaps
#: and it alone is ≥ BOUNDARY_IDLE_SHARE of the device's idle time.
BOUNDARY_FACTOR = 10.0
BOUNDARY_IDLE_SHARE = 0.25
BOUNDARY_MIN_GAPS = 3
#: run/rank classes, in the order ties are broken
RANK_CLASSES = {"idle_host_ns": "host-bound", "idle_launch_ns": "launch-bound", "idle_sync_ns": "sync-bound",
                "exposed_comm_ns": "communication-bound", "exposed_memcpy_ns": "memcpy-bound",
                "idle_unattributed_ns": "idle-unattributed"}

COLUMNS = {
    "rank": "distributed rank", "device_id": "GPU index",
    "span_ns": "first → last GPU event [ns]", "busy_ns": "union of GPU events [ns]",
    "computation_ns": "union of compute kernels [ns]", "idle_ns": "span − busy [ns]",
    **{f"idle_{c}_ns": f"idle time attributed to {c} (see module docstring) [ns]" for c in GAP_CLASSES},
    "exposed_comm_ns": "collective time not overlapped by compute [ns]",
    "exposed_memcpy_ns": "copy time overlapped by no kernel or collective [ns]",
    "launch_calls": "kernel launch calls linked to GPU work (a graph launch counts once)",
    "short_launches": "launch calls whose GPU work (sum over a graph) is shorter than the call itself",
    "short_kernel_ns": "GPU time of those launches [ns]",
    "small_grid_kernels": "kernels with fewer blocks than SMs/CUs (<NA> when the SM count is unknown)",
    "small_grid_ns": "their summed duration [ns]",
    "num_sms": "SMs / CUs of the device (<NA> when unknown)",
    "verdict": "the largest idle/overhead cause when it is at least 10 % of the span, else gpu-bound [text]",
}


def device_sms(timeline: Timeline, device: Any, rank: int, device_id: int) -> int | None:
    """SM/CU count: from the device spec when it has one, else from the trace's device record (None if unknown)."""
    for attr in ("num_sms", "sm_count", "multiprocessor_count", "num_cus", "cu_count", "compute_units"):
        v = getattr(device, attr, None) if device is not None else None
        if isinstance(v, (int, np.integer)) and v > 0:
            return int(v)
    mine = [d for d in timeline.meta.devices if int(d.get("rank", 0) or 0) == rank]
    exact = [d for d in mine if int(d.get("device_id", -1) if d.get("device_id") is not None else -1) == device_id]
    # one GPU recorded for the rank but under another index (ROCm traces number devices by pid): use it
    for d in exact or (mine if len({str(x.get("name")) for x in mine}) == 1 else []):
        v = d.get("num_sms") or d.get("num_cus")
        if v:
            return int(v)
    return None


def sync_calls(timeline: Timeline) -> pd.DataFrame:
    """Host synchronisation intervals: runtime calls named like ``*Synchronize`` and ``sync``-kind events."""
    ctx = context_of(timeline)
    rt = ctx.of_kind("runtime")
    return pd.concat([rt[category_mask(rt["name"], SYNC_RE)], ctx.of_kind("sync")])


def covered_until(t: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """For each time in ``t``: length of the disjoint sorted segments (s, e) lying before it (ns)."""
    t = np.asarray(t, dtype="int64")
    if not s.size:
        return np.zeros(t.size, dtype="int64")
    cum = np.concatenate([[0], np.cumsum(e - s)])
    i = np.searchsorted(s, t, side="right") - 1
    inside = np.where(i >= 0, np.clip(t - s[np.maximum(i, 0)], 0, (e - s)[np.maximum(i, 0)]), 0)
    return np.where(i >= 0, cum[np.maximum(i, 0)] + inside, 0)


def classify_gaps(timeline: Timeline, launch_gap_ns: int = 20_000, links: pd.Series | None = None) -> pd.DataFrame:
    """Every idle gap between busy segments of each GPU, attributed (see module docstring).

    ``links`` (optional): ``link_gpu_to_launch(timeline)["launch_event_id"]`` when the caller already has it.

    Returns:
        one row per gap: ``rank``, ``device_id``, ``start_ns``, ``dur_ns``, ``next_event_id`` (the GPU event that
        ends the gap), ``next_name``, ``cls`` (one of ``GAP_CLASSES`` minus ``sync``), ``sync_ns`` (part of the
        gap inside a host sync call; the rest, ``dur_ns − sync_ns``, belongs to ``cls``), ``base_cls`` (the class
        the gap has from its launch alone, before the boundary rule: what a ``boundary`` gap was waiting on).
    """
    ctx = context_of(timeline)
    if links is None or links.equals(ctx.links["launch_event_id"]):  # the shared links: computed once per Timeline
        return ctx.memo(f"classify_gaps:{launch_gap_ns}",
                        lambda: _classify_gaps(timeline, launch_gap_ns, ctx.links["launch_event_id"])).copy(deep=False)
    return _classify_gaps(timeline, launch_gap_ns, links)


def _classify_gaps(timeline: Timeline, launch_gap_ns: int, links: pd.Series) -> pd.DataFrame:
    ctx = context_of(timeline)
    gpu = ctx.gpu
    cols = ["rank", "device_id", "start_ns", "dur_ns", "next_event_id", "next_name", "cls", "sync_ns", "base_cls"]
    if not len(gpu):
        return pd.DataFrame(columns=cols)
    gpu = gpu.assign(dur_ns=ctx.effective_ns)
    syncs = sync_calls(timeline)
    rt = ctx.of_kind("runtime")
    launch_ranks = set(rt.loc[category_mask(rt["name"], LAUNCH_RE), "rank"].unique())
    out = []
    for (rank, dev), g in gpu.groupby(["rank", "device_id"], sort=True, observed=True):
        g = g.sort_values("start_ns", kind="stable")
        st = g["start_ns"].to_numpy("int64")
        s, e = merge(st, st + g["dur_ns"].to_numpy("int64"))
        if s.size < 2:
            continue
        sy = syncs[syncs["rank"] == rank]
        ss, se = merge(sy["start_ns"].to_numpy("int64"), (sy["start_ns"] + sy["dur_ns"]).to_numpy("int64"))
        gs, ge = e[:-1], s[1:]
        dur = ge - gs
        nxt = g.iloc[np.searchsorted(st, ge, side="left")]
        lid = links.reindex(nxt.index)
        known = lid.notna().to_numpy()
        lk = lid.fillna(-1).astype("int64").to_numpy()
        l_start = ctx.event_values("start_ns", lk).astype(float)
        l_end = l_start + ctx.event_values("dur_ns", lk).astype(float)
        # without any launch call recorded on the rank a short gap says nothing about launches
        short = (dur <= launch_gap_ns) & (rank in launch_ranks)
        cls = np.select([~known & short, ~known, l_end <= gs, (l_start < gs) | short],
                        ["launch", "unattributed", "queued", "launch"], "host")
        base_cls = cls
        cls = np.where(boundary_gaps(dur), "boundary", cls)
        sync = covered_until(ge, ss, se) - covered_until(gs, ss, se)
        sync = np.where((cls == "queued") | (cls == "boundary"), 0, sync)
        out.append(pd.DataFrame({"rank": int(rank), "device_id": int(dev), "start_ns": gs, "dur_ns": dur,
                                 "next_event_id": nxt["event_id"].to_numpy(),
                                 "next_name": text_series(nxt["name"]), "cls": cls, "sync_ns": sync,
                                 "base_cls": base_cls}))
    if not out:
        return pd.DataFrame(columns=cols)
    return pd.concat(out, ignore_index=True)[cols]


def boundary_gaps(dur: np.ndarray) -> np.ndarray:
    """Boolean mask of the gaps (durations in time order, one device) that are warm-up / boundary / one-off gaps
    (rule at :data:`BOUNDARY_FACTOR`)."""
    dur = np.asarray(dur, dtype="int64")
    out = np.zeros(dur.size, dtype=bool)
    total = int(dur.sum())
    if dur.size < BOUNDARY_MIN_GAPS or total <= 0:
        return out
    for i in np.argsort(-dur, kind="stable"):
        others = np.delete(dur, i)
        if dur[i] >= BOUNDARY_FACTOR * max(float(np.median(others)), 1.0) and dur[i] >= BOUNDARY_IDLE_SHARE * total:
            out[i] = True
        else:
            break
    return out


def short_launches(timeline: Timeline, links: pd.Series | None = None) -> pd.DataFrame:
    """Per launch call with linked kernels: GPU time of its kernels vs the call's own duration.

    ``links`` (optional): as for :func:`classify_gaps`.

    Returns:
        rows ``launch_event_id``, ``rank``, ``device_id``, ``kernels`` (count; > 1 for graph launches),
        ``gpu_ns`` (sum of the kernels' durations), ``call_ns``, ``short`` (gpu_ns < call_ns).
    """
    ctx = context_of(timeline)
    if links is None or links.equals(ctx.links["launch_event_id"]):  # the shared links: computed once per Timeline
        return ctx.memo("short_launches", lambda: _short_launches(timeline, ctx.links["launch_event_id"])
                        ).copy(deep=False)
    return _short_launches(timeline, links)


def _short_launches(timeline: Timeline, links: pd.Series) -> pd.DataFrame:
    k = context_of(timeline).kernels
    lid = links.reindex(k.index)
    k = k.assign(launch_event_id=lid)[lid.notna().to_numpy()]
    if not len(k):
        return pd.DataFrame(columns=["launch_event_id", "rank", "device_id", "kernels", "gpu_ns", "call_ns", "short"])
    g = k.groupby("launch_event_id", observed=True).agg(rank=("rank", "first"), device_id=("device_id", "first"),
                                                        kernels=("dur_ns", "size"), gpu_ns=("dur_ns", "sum"))
    g["call_ns"] = context_of(timeline).event_values("dur_ns", g.index.astype("int64").to_numpy())
    g["short"] = g["gpu_ns"] < g["call_ns"]
    return g.reset_index()


def _rank_verdict(row: dict[str, Any], min_share: float) -> str:
    span = max(row["span_ns"] - row.get("idle_boundary_ns", 0), 1)  # the steady state: boundary gaps left out
    cls, ns = max(((c, row[k]) for k, c in RANK_CLASSES.items()), key=lambda kv: kv[1])
    return cls if ns >= min_share * span else "gpu-bound"


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
        kern = timeline.of_kind("kernel")
        blocks = (kern["grid_x"].fillna(1) * kern["grid_y"].fillna(1) * kern["grid_z"].fillna(1)).where(
            kern["grid_x"].notna())
        rows = []
        for b in bd.table.to_dict("records"):
            r, d = int(b["rank"]), int(b["device_id"])
            row = {k: int(b[k]) for k in ("span_ns", "busy_ns", "computation_ns", "idle_ns", "exposed_comm_ns",
                                          "exposed_memcpy_ns")}
            g = gaps[(gaps["rank"] == r) & (gaps["device_id"] == d)]
            for c in GAP_CLASSES:
                row[f"idle_{c}_ns"] = int((g["dur_ns"] - g["sync_ns"])[g["cls"] == c].sum())
            row["idle_sync_ns"] = int(g["sync_ns"].sum())
            s = sl[(sl["rank"] == r) & (sl["device_id"] == d)]
            row.update(launch_calls=int(len(s)), short_launches=int(s["short"].sum()),
                       short_kernel_ns=int(s.loc[s["short"].astype(bool), "gpu_ns"].sum()))
            sms = device_sms(timeline, device, r, d)
            here = (kern["rank"] == r) & (kern["device_id"] == d)
            if sms is None or not blocks[here].notna().any():
                row.update(small_grid_kernels=pd.NA, small_grid_ns=pd.NA)
            else:
                small = here & (blocks < sms).fillna(False)
                row.update(small_grid_kernels=int(small.sum()), small_grid_ns=int(kern.loc[small, "dur_ns"].sum()))
            row.update(rank=r, device_id=d, num_sms=sms if sms is not None else pd.NA)
            row["verdict"] = _rank_verdict(row, self.min_share)
            rows.append(row)
        t = pd.DataFrame(rows)[list(COLUMNS)]
        for c in ("small_grid_kernels", "small_grid_ns", "num_sms"):
            t[c] = t[c].astype("Int64")
        tot = {c: int(t[c].sum()) for c in COLUMNS if c.endswith("_ns") and c != "small_grid_ns"}
        tot["small_grid_ns"] = int(t["small_grid_ns"].sum()) if t["small_grid_ns"].notna().any() else None
        verdict = _rank_verdict(tot, self.min_share)
        summary = {**{("device_span_ns" if k == "span_ns" else k): v for k, v in tot.items()},
                   "launch_calls": int(t["launch_calls"].sum()),
                   "short_launches": int(t["short_launches"].sum()),
                   "gaps": int(len(gaps)), "launch_gap_ns": self.launch_gap_ns, "min_share": self.min_share,
                   "verdict": verdict, "rank_verdicts": {int(r): v for r, v in zip(t["rank"], t["verdict"])}}
        idle_root = any(f.key == "idle" for f in bd.findings)
        findings = _findings(tot, summary, "idle" if idle_root else None)
        summary["boundary_gaps"] = _boundary_rows(gaps, timeline)
        if summary["boundary_gaps"]:
            findings.insert(0, _boundary_finding(summary["boundary_gaps"], tot, timeline, "idle" if idle_root else None))
        for f in bd.findings:
            if f.key == "idle":
                explain_idle(f, tot, summary["boundary_gaps"])
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)


#: how each gap class reads in a sentence (the boundary gaps by the class they would otherwise have had)
CLASS_WORDS = {"host": "waiting for the host", "launch": "on launch overhead", "sync": "in host synchronisations",
               "queued": "with work already queued (waiting on another stream or event)",
               "unattributed": "with no cause the trace shows", "boundary": "in one-off gaps"}
#: the next step for each idle cause, in a few words
CLASS_ACTIONS = {
    "host": "move work off the host thread that feeds the GPU (data loading, Python, CPU ops)",
    "launch": "fuse small kernels (torch.compile) or capture the step in CUDA/HIP graphs",
    "sync": "remove synchronisations (.item(), .cpu(), cudaDeviceSynchronize) from the step loop",
    "queued": "look at cross-stream dependencies and event waits",
    "unattributed": "record the host side too (torch.profiler with CPU activity) to find what the GPU waited for",
}


def _host_calls_during(timeline: Timeline, rank: int, start: int, end: int, n: int = 2) -> list[tuple[str, int]]:
    """The ``n`` runtime calls of ``rank`` that overlap [start, end) the most: (name, overlap ns)."""
    rt = context_of(timeline).of_kind("runtime")
    rt = rt[(rt["rank"] == rank).to_numpy()]
    st = rt["start_ns"].to_numpy("int64")
    ov = np.minimum(st + rt["dur_ns"].to_numpy("int64"), end) - np.maximum(st, start)
    keep = np.flatnonzero(ov > 0)
    if not keep.size:
        return []
    top = keep[np.argsort(-ov[keep], kind="stable")[:n]]
    names = text_series(rt["name"].iloc[top]).tolist()
    return [(str(nm), int(o)) for nm, o in zip(names, ov[top])]


def _boundary_rows(gaps: pd.DataFrame, timeline: Timeline) -> list[dict[str, Any]]:
    """The boundary gaps: rank, device, start [ns from the first GPU event of its device], duration [ns],
    position (``before the steady state`` = first gap of its device, ``after`` = last, else ``one-off``), ``cause``
    (the class the gap has from its launch alone: host, launch, queued or unattributed) and ``host_calls`` (the
    runtime calls of the rank that overlap it most: name, overlap [ns])."""
    out = []
    for (r, d), g in gaps.groupby(["rank", "device_id"], sort=True):
        g = g.reset_index(drop=True)
        first = int(context_of(timeline).gpu.query("rank == @r and device_id == @d")["start_ns"].min())
        for i in np.flatnonzero(g["cls"].to_numpy() == "boundary"):
            pos = "leading" if i == 0 else "trailing" if i == len(g) - 1 else "one-off"
            start, dur = int(g.loc[i, "start_ns"]), int(g.loc[i, "dur_ns"])
            out.append({"rank": int(r), "device_id": int(d), "offset_ns": start - first,
                        "dur_ns": dur, "position": pos,
                        "median_other_gap_ns": int(np.median(np.delete(g["dur_ns"].to_numpy(), i))),
                        "cause": str(g.loc[i, "base_cls"]) if "base_cls" in g else "unattributed",
                        "host_calls": [{"name": nm, "overlap_ns": o}
                                       for nm, o in _host_calls_during(timeline, int(r), start, start + dur)]})
    return out


def _gap_cause_text(row: dict[str, Any]) -> str:
    """What a boundary gap waited on, in words, with the host calls that filled it."""
    calls = ", ".join(f"{c['name']} {fmt_ns(c['overlap_ns'])}" for c in row.get("host_calls") or [])
    cause = row.get("cause", "unattributed")
    if cause in ("host", "launch") and calls:
        return f"the host was busy (largest runtime calls in it: {calls})"
    if cause == "queued":
        return "the work was already queued: the GPU waited on another stream or event"
    if cause in ("host", "launch"):
        return "the work that ended it was launched only after it began, and no runtime call fills it"
    return "no launch call is linked to the work that ended it: the trace does not show the cause" + (
        f" (runtime calls in it: {calls})" if calls else "")


def _boundary_finding(rows: list[dict[str, Any]], tot: dict[str, Any], timeline: Timeline,
                      parent: str | None) -> Finding:
    total = sum(r["dur_ns"] for r in rows)
    big = max(rows, key=lambda r: r["dur_ns"])
    where = {"leading": "before the steady state (warm-up: the first GPU work, then a long wait)",
             "trailing": "after the steady state (the run's tail)",
             "one-off": "in the middle of the run (a one-off stall: checkpoint, evaluation, compilation, allocation)"}
    steps = sorted({int(m) for m in timeline.events["name"].astype(str).str.extract(r"^ProfilerStep#(\d+)$")[0]
                    .dropna()})
    src = next((str(x["path"]) for x in timeline.meta.sources if x.get("path")), "FILE")
    hint = (f"gpulens analyze {src} --steps {steps[1]}:{steps[-1]}" if len(steps) > 2 else
            f"gpulens analyze {src} --steps A:B (or --window START:END)")
    n = "1 warm-up/boundary idle gap" if len(rows) == 1 else f"{len(rows)} warm-up/boundary idle gaps"
    return Finding(
        f"{n} left out of the verdict: {fmt_ns(total)}"
        + (f", the largest {fmt_ns(big['dur_ns'])}" if len(rows) > 1 else "")
        + f" {where[big['position']].split(' (')[0]}",
        f"The largest gap starts {fmt_ns(big['offset_ns'])} after the first GPU event of rank {big['rank']} "
        f"GPU {big['device_id']}, {where[big['position']]}; it is {big['dur_ns'] / max(big['median_other_gap_ns'], 1):.0f}× "
        f"the median of the other gaps. During it {_gap_cause_text(big)}. Such gaps say nothing about the steady "
        f"state, so the verdict is drawn without them (the span it uses is "
        f"{fmt_ns(tot['span_ns'] - tot['idle_boundary_ns'])}).",
        severity="info", category="boundary", time_at_stake_ns=int(total), key="idle/boundary", parent=parent,
        action=f"Analyse the steady state alone: {hint}.")


def _idle_split(tot: dict[str, Any], boundary: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """The idle time by cause, largest first: (class, ns) for the classes with idle time (sync included)."""
    parts = [(c, int(tot.get(f"idle_{c}_ns") or 0)) for c in GAP_CLASSES]
    return sorted([p for p in parts if p[1] > 0], key=lambda p: -p[1])


def explain_idle(root: Finding, tot: dict[str, Any], boundary: list[dict[str, Any]]) -> None:
    """Write the idle split by cause into the breakdown's ``idle`` finding (in place), so that a reader who sees only
    the root finding still sees where every idle nanosecond went — including the part no cause explains."""
    split = _idle_split(tot, boundary)
    if not split:
        return
    words = []
    for c, ns in split:
        if c == "boundary":
            k = len(boundary)
            words.append(f"{fmt_ns(ns)} in {'one one-off gap' if k == 1 else f'{k} one-off gaps'}")
        else:
            words.append(f"{fmt_ns(ns)} {CLASS_WORDS[c]}")
    root.title = root.title.split(": ")[0] + ": " + ", ".join(words[:3]) + (
        f", {fmt_ns(sum(ns for _, ns in split[3:]))} other causes" if len(split) > 3 else "")
    top, ns = split[0]
    if top == "boundary":
        big = max(boundary, key=lambda r: r["dur_ns"])
        root.action = (f"Start with the {fmt_ns(big['dur_ns'])} gap {fmt_ns(big['offset_ns'])} after the first GPU "
                       f"event: {_gap_cause_text(big)}.")
    else:
        root.action = f"Start with the largest cause ({fmt_ns(ns)} {CLASS_WORDS[top]}): {CLASS_ACTIONS[top]}."


def _findings(tot: dict[str, Any], summary: dict[str, Any], parent: str | None = None) -> list[Finding]:
    """Idle-cause findings (children of the breakdown's ``idle`` finding when it was reported: ``parent``)."""
    span = max(tot["span_ns"], 1)
    out = []
    texts = {
        "idle_host_ns": ("host-bound", "GPU idle waiting for the host",
                         "The next kernel was launched only after the GPU had run dry: the CPU is busy elsewhere "
                         "(Python, data loading, CPU ops). Move work off the critical host thread, prefetch data "
                         "(DataLoader workers, pin_memory), or batch more work per step."),
        "idle_launch_ns": ("launch-bound", "GPU idle on kernel launch overhead",
                           f"{summary['short_launches']} of {summary['launch_calls']} launches did less GPU work "
                           "than the launch call cost. Fuse small kernels (torch.compile) or capture the step in "
                           "CUDA/HIP graphs so one launch replays many kernels."),
        "idle_sync_ns": ("sync-bound", "GPU idle while the host synchronises",
                         "Idle gaps overlap host synchronisation calls (.item(), .cpu(), cudaDeviceSynchronize): "
                         "each drains the queue. Remove syncs from the step loop or defer them."),
    }
    texts["idle_queued_ns"] = (
        "queued", "GPU idle with work already queued",
        "The launch call had returned before the GPU went idle: the work waited on another stream, an event or "
        "device-side scheduling, not on the host. Look at cross-stream dependencies and event waits.")
    texts["idle_unattributed_ns"] = (
        "idle-unattributed", "GPU idle for reasons the trace does not show",
        "No launch call is linked to the work that ended these gaps (GPU-only trace, or calls outside the profiling "
        "window). Record the host side too (torch.profiler with CPU activity) to attribute them.")
    for key, (cat, title, detail) in texts.items():
        if tot[key] >= 0.05 * span:
            out.append(Finding(f"{title}: {fmt_ns(tot[key])} ({100 * tot[key] / span:.1f} % of GPU span)",
                               detail, severity="warning" if tot[key] >= 0.1 * span else "info", category=cat,
                               time_at_stake_ns=int(tot[key]), key="idle/" + key[5:-3], parent=parent))
    if tot.get("small_grid_ns"):
        # busy kernel time, already ranked through those kernels' verdicts: stated, not counted a second time
        out.append(Finding(f"Small-grid kernels: {fmt_ns(tot['small_grid_ns'])} in kernels with fewer blocks "
                           "than SMs/CUs", "These launches leave part of the GPU empty. Give them more blocks "
                           "(split-K, smaller tiles, batch several problems per launch) or run them concurrently "
                           "on another stream.", category="latency/occupancy-bound", key="small-grid"))
    return out
