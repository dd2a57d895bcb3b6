"""Launch latency: how long after its launch call each kernel started — the evidence behind "launch-bound".

For every GPU event linked to the runtime call that enqueued it (correlation id, :func:`link_gpu_to_launch`):

* ``launch latency`` = GPU event start − launch call start (Holistic Trace Analysis' "kernel launch delay" measures
  the same interval): the whole cost of getting the work onto the GPU;
* ``queue delay`` = GPU event start − launch call end, floored at 0: how long the work waited in the stream queue
  after the call returned (0 when the GPU started it while the call was still running);
* ``backlog`` = the part of the queue delay its GPU (rank, device) was busy with earlier GPU events (kernels, copies,
  memsets, collectives; their union, overrun-clipped): the wait *behind earlier GPU work*. A queue delay with the
  GPU idle is no backlog (HTA's call-stack trace: one kernel, its only GPU work, starting 64.12 ms after its launch
  call returned — the GPU ran nothing in between), and only a backlog says the GPU, not the host, set the pace.

A CUDA/HIP graph launch enqueues many kernels under one call: only the first of them is measured (the later ones
wait for the earlier nodes, not for the launch). A multi-device launch (``cudaLaunchCooperativeKernelMultiDevice``)
starts one kernel on each device from one call: each device's is measured, so ``launches`` counts one kernel per call
and device — the kernels a table beside it counts (the nvprof V100×4 NCCL trace: 12 kernels from 4 such calls
read as 4 launches). Per kernel name and for the run: count, p50, p90 and max of both
(``numpy.percentile``, linear interpolation).

Clock-domain check: a GPU event that starts *before* the call that launched it (negative launch latency) is
impossible on one clock — the GPU and host time bases disagree; so is one that starts a day or more after it
(:data:`~gpulens.analyzers._span.CLOCK_GAP_NS`, two time bases). Such events are left out of the distributions,
counted (``clock_skew_events``) and warned about once with the size of the largest skew.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._groupstats import group_percentile_table
from gpulens.analyzers._span import CLOCK_GAP_NS, CLOCK_HOST_TOPIC, counter_only_reason, warn_once
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import codes_of, context_of
from gpulens.timeline import Timeline
from gpulens.units import agree, fmt_ns, plural

COLUMNS = {
    "name": "kernel name as recorded",
    "launches": "kernel launches measured: one per launch call and device (a graph launch's first kernel) [count]",
    "latency_p50_ns": "median of kernel start − launch call start [ns]",
    "latency_p90_ns": "90th percentile of kernel start − launch call start [ns]",
    "latency_max_ns": "largest kernel start − launch call start [ns]",
    "queue_p50_ns": "median of kernel start − launch call end, floored at 0 [ns]",
    "queue_p90_ns": "90th percentile of the queue delay [ns]",
    "queue_max_ns": "largest queue delay [ns]",
    "backlog_p50_ns": "median backlog: the GPU's busy time inside the queue delay, the wait behind earlier GPU work [ns]",
}
SUMMARY_COLUMNS = {
    "launches": "kernel launches measured: one per launch call and device (a graph launch's first kernel) [count]",
    "latency_p50_ns": "run median launch latency [ns]", "latency_p90_ns": "run p90 launch latency [ns]",
    "latency_max_ns": "run largest launch latency [ns]",
    "queue_p50_ns": "run median queue delay [ns]", "queue_p90_ns": "run p90 queue delay [ns]",
    "queue_max_ns": "run largest queue delay [ns]",
    "backlog_p50_ns": "run median backlog: the GPU's busy time inside each launch's queue delay, the wait behind "
                      "earlier GPU work [ns]",
    "clock_skew_events": "GPU events starting before their launch call (clock domains disagree) [count]",
    "clock_skew_max_ns": "largest such skew [ns]",
}


def latencies(timeline: Timeline) -> pd.DataFrame:
    """One row per measured launch: ``name`` (kernel; object str), ``latency_ns``, ``queue_ns`` (see module
    docstring) and ``name_code`` (the kernel's code in the events' ``name`` categories); rows with a negative
    latency are kept with ``skew`` True. Rows in GPU start order (stable), first GPU event per call and device."""
    ctx = context_of(timeline)
    gpu = ctx.gpu
    lid = ctx.links["launch_event_id"]
    cats = list(timeline.events["kind"].cat.categories)
    kc = codes_of(gpu["kind"])
    ok = lid.notna().to_numpy() & np.isin(kc, [cats.index(k) for k in ("kernel", "comm") if k in cats])
    cols = ["name", "latency_ns", "queue_ns", "backlog_ns", "skew"]
    if not ok.any():
        return pd.DataFrame(columns=cols)
    k = gpu[["name", "start_ns", "device_id"]][ok]
    ids = lid[ok].to_numpy(dtype="int64")
    pos = ctx.positions(ids)
    found = pos >= 0
    ev = timeline.events
    c_start = ev["start_ns"].to_numpy("int64")[np.maximum(pos, 0)]
    c_dur = ev["dur_ns"].to_numpy("int64")[np.maximum(pos, 0)]
    start = k["start_ns"].to_numpy("int64")
    codes = codes_of(k["name"]).astype("int64")
    rows = np.flatnonzero(found)
    rows = rows[np.argsort(start[rows], kind="stable")]
    # first GPU event (in start order) of each call on each device: the rows whose (call id, device) was not seen
    # before (a hash pass, not a sort of every id); a multi-device launch's kernels are one per device
    ri = ids[rows]
    if len(ri) > 1 and not bool((ri[1:] > ri[:-1]).all()):  # call ids increasing in GPU start order: all distinct
        dev = k["device_id"].to_numpy()[rows]
        rows = rows[~pd.DataFrame({"call": ri, "device": dev}).duplicated(keep="first").to_numpy()]
    lat = start[rows] - c_start[rows]
    queue = np.maximum(start[rows] - (c_start[rows] + c_dur[rows]), 0)
    backlog = _backlog(ctx, gpu, np.flatnonzero(ok)[rows], start[rows] - queue, start[rows])
    names = np.append(np.asarray(k["name"].cat.categories.astype(object), dtype=object), np.nan)
    # a latency of a day or more (_span.CLOCK_GAP_NS) is two time bases too, not time: left out like a negative one
    return pd.DataFrame({"name": pd.Series(names[codes[rows]], dtype=object), "latency_ns": lat, "queue_ns": queue,
                         "backlog_ns": backlog, "skew": (lat < 0) | (lat >= CLOCK_GAP_NS), "name_code": codes[rows]})


def _backlog(ctx: Any, gpu: pd.DataFrame, rows: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Busy time [ns] of each measured launch's GPU (its rank and device: the union of that GPU's events,
    overrun-clipped) inside ``[a, b)`` — its queue delay (module docstring's ``backlog``). ``rows``: the launches'
    positions in ``gpu``."""
    from gpulens.analyzers.intervals import covered_before, key_codes, merge

    out = np.zeros(len(rows), dtype="int64")
    if not len(rows) or not (b > a).any():
        return out
    g_start = gpu["start_ns"].to_numpy("int64")
    g_end = g_start + ctx.effective_ns.to_numpy("int64")
    code, keys = key_codes(gpu["rank"].to_numpy("int64"), gpu["device_id"].to_numpy("int64"))
    mine = code[rows]
    for k in np.unique(mine[b > a]).tolist():
        at = np.flatnonzero(code == k)
        us, ue = merge(g_start[at], g_end[at])
        sel = np.flatnonzero((mine == k) & (b > a))
        out[sel] = covered_before(us, ue, b[sel]) - covered_before(us, ue, a[sel])
    return out


def _dist(x: np.ndarray) -> tuple[int, int, int]:
    return int(round(np.percentile(x, 50))), int(round(np.percentile(x, 90))), int(x.max())


class LaunchLatency(Analyzer):
    """Launch latency and queue delay per kernel and for the run; clock-skew check (see module docstring)."""

    name = "launch_latency"
    order = 32

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        def skip(reason: str) -> AnalysisResult:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=reason)

        counters_only = counter_only_reason(timeline)
        if counters_only:
            return skip(counters_only)
        lat = latencies(timeline)
        if not len(lat):
            return skip("no kernel linked to a launch call (no correlation ids, or no host runtime events)")
        skew = lat[lat["skew"]]
        good = lat[~lat["skew"]]
        summary: dict[str, Any] = {"launches": int(len(good)), "clock_skew_events": int(len(skew)),
                                   "clock_skew_max_ns": int(skew["latency_ns"].abs().max()) if len(skew) else 0}
        if len(skew):
            warn_once(timeline, CLOCK_HOST_TOPIC,
                      f"{plural(len(skew), 'GPU event(s)')} {agree(len(skew), 'starts', 'start')} before the call that launched them, or a day or more "
                      f"after it (by up to {fmt_ns(summary['clock_skew_max_ns'])}); they are left out of the launch "
                      "latencies")
        if not len(good):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, summary,
                                  skipped_reason="every linked kernel starts before its launch call (clock skew)",
                                  summary_columns=SUMMARY_COLUMNS)
        la, qu = good["latency_ns"].to_numpy("int64"), good["queue_ns"].to_numpy("int64")
        for pre, x in (("latency", la), ("queue", qu)):
            summary.update(zip((f"{pre}_p50_ns", f"{pre}_p90_ns", f"{pre}_max_ns"), _dist(x)))
        summary["backlog_p50_ns"] = _dist(good["backlog_ns"].to_numpy("int64"))[0]
        # per kernel name, in order of first appearance (groupby(sort=False) order), without a per-name loop
        keep = good["name_code"].to_numpy() >= 0  # a missing name is no group (as groupby drops NaN keys)
        gc, uniq = pd.factorize(good["name_code"].to_numpy()[keep], sort=False)
        names = good["name"].to_numpy(dtype=object)
        la_k, qu_k = la[keep], qu[keep]
        first = np.full(len(uniq), len(gc), dtype="int64")
        np.minimum.at(first, gc, np.arange(len(gc)))
        stats = {}
        for pre, x in (("latency", la_k), ("queue", qu_k), ("backlog", good["backlog_ns"].to_numpy("int64")[keep])):
            (p50, p90), top = group_percentile_table(gc, x, (50, 90))
            stats[pre] = [np.round(p50), np.round(p90), top]
        names_k = names[keep]  # once, not once per kernel name
        rows = {"name": [names_k[i] for i in first.tolist()], "launches": np.bincount(gc).tolist(),
                **{f"{pre}_{s}_ns": [int(v) for v in stats[pre][j].tolist()]
                   for pre in ("latency", "queue") for j, s in enumerate(("p50", "p90", "max"))},
                "backlog_p50_ns": [int(v) for v in stats["backlog"][0].tolist()]}
        t = pd.DataFrame(rows, columns=list(COLUMNS)).sort_values(["launches", "name"], ascending=[False, True],
                                                                  kind="stable").reset_index(drop=True)
        return AnalysisResult(self.name, t, COLUMNS, summary, summary_columns=SUMMARY_COLUMNS)
