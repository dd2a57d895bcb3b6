"""Breakdown: per rank and device, where the GPU's wall time went — computation, exposed communication,
exposed memcpy/memset, idle — with overlap counted once.

Definitions (per rank × device; all ns; intervals are unions across streams):

GPU events are first repaired so that each stream is serial (an event that overruns the start of the next one on
its stream is clipped, see :func:`~gpulens.analyzers.intervals.repair_stream_overruns`).

* ``span_ns`` — first GPU event start to last GPU event end;
* ``busy_ns`` — union of all GPU events; ``kernel_busy_ns`` — union of kernel + comm events;
* ``computation_ns`` — union of compute kernels;
* ``exposed_comm_ns`` — communication time not overlapped by computation;
* ``exposed_memcpy_ns`` / ``exposed_memset_ns`` — copy / set time overlapped by neither of the above;
* ``idle_ns`` — ``span_ns − busy_ns``. So computation + exposed comm + exposed memcpy + exposed memset + idle = span.

The summary adds ``trace_span_ns`` (first to last valid event of any kind but ``other``, host included, summed over
ranks) and ``gpu_utilization_pct`` = busy / trace span: how much of the profiled window kept the GPUs busy.

This follows the GPU-timeline split of TraceLens / HTA ("temporal breakdown"), checked against TraceLens' own CSVs.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import context_of
from gpulens.analyzers.intervals import union_of
from gpulens.timeline import GPU_KINDS, Timeline

COLUMNS = {
    "rank": "distributed rank",
    "device_id": "GPU index",
    "span_ns": "first GPU event start → last GPU event end [ns]",
    "busy_ns": "union of all GPU events [ns]",
    "kernel_busy_ns": "union of kernel and collective events [ns]",
    "computation_ns": "union of compute kernels [ns]",
    "comm_ns": "union of collective kernels [ns]",
    "exposed_comm_ns": "collective time not overlapped by computation [ns]",
    "exposed_memcpy_ns": "copy time overlapped by neither computation nor collectives [ns]",
    "exposed_memset_ns": "memset time overlapped by no other GPU work [ns]",
    "idle_ns": "span_ns − busy_ns [ns]",
    "busy_pct": "busy_ns / span_ns [%]",
    "computation_pct": "computation_ns / span_ns [%]",
    "idle_pct": "idle_ns / span_ns [%]",
    "kernel_count": "kernel + comm events",
}


def _split(ev: pd.DataFrame) -> dict[str, int]:
    comp = ev[ev["kind"] == "kernel"]
    comm = ev[ev["kind"] == "comm"]
    cpy = ev[ev["kind"] == "memcpy"]
    start = int(ev["start_ns"].min())
    span = int((ev["start_ns"] + ev["dur_ns"]).max()) - start
    u_comp = union_of(comp)
    u_comp_comm = union_of(pd.concat([comp, comm]))
    u_ccc = union_of(pd.concat([comp, comm, cpy]))
    busy = union_of(ev)
    return {
        "span_ns": span,
        "busy_ns": busy,
        "kernel_busy_ns": u_comp_comm,
        "computation_ns": u_comp,
        "comm_ns": union_of(comm),
        "exposed_comm_ns": u_comp_comm - u_comp,
        "exposed_memcpy_ns": u_ccc - u_comp_comm,
        "exposed_memset_ns": busy - u_ccc,
        "idle_ns": span - busy,
        "kernel_count": int(len(comp) + len(comm)),
    }


class Breakdown(Analyzer):
    """Temporal breakdown of GPU time per rank and device (see module docstring)."""

    name = "breakdown"
    order = 20

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        ctx = context_of(timeline)
        gpu = ctx.gpu
        if not len(gpu):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  {"span_ns": 0, "busy_ns": 0, "gpu_count": 0},
                                  skipped_reason="no GPU events in the trace")
        gpu = gpu[["rank", "device_id", "kind", "start_ns", "dur_ns"]].assign(dur_ns=ctx.effective_ns)
        rows = []
        for (rank, dev), ev in gpu.groupby(["rank", "device_id"], sort=True, observed=True):
            rows.append({"rank": int(rank), "device_id": int(dev), **_split(ev)})
        t = pd.DataFrame(rows)
        for col, num in (("busy_pct", "busy_ns"), ("computation_pct", "computation_ns"), ("idle_pct", "idle_ns")):
            t[col] = (100.0 * t[num] / t["span_ns"]).where(t["span_ns"] > 0, 0.0)
        t = t[list(COLUMNS)]
        tot = {c: int(t[c].sum()) for c in COLUMNS if c.endswith("_ns")}
        ev = timeline.events
        host = ~ctx.mask_of("other", *GPU_KINDS)  # numpy columns of the host rows: no copy of the events table
        every = pd.concat([pd.DataFrame({c: ev[c].to_numpy()[host] for c in ("rank", "start_ns", "dur_ns")}),
                           gpu[["rank", "start_ns", "dur_ns"]]])
        trace_span = 0
        for _, ev in every.groupby("rank", observed=True):
            trace_span += int((ev["start_ns"] + ev["dur_ns"]).max() - ev["start_ns"].min())
        summary = {**tot, "gpu_count": int(len(t)), "trace_span_ns": trace_span,
                   "gpu_utilization_pct": 100.0 * tot["busy_ns"] / trace_span if trace_span else 0.0,
                   "busy_pct": 100.0 * tot["busy_ns"] / tot["span_ns"] if tot["span_ns"] else 0.0,
                   "idle_pct": 100.0 * tot["idle_ns"] / tot["span_ns"] if tot["span_ns"] else 0.0}
        findings = []
        if summary["idle_pct"] > 50:
            findings.append(Finding(
                f"GPU idle {summary['idle_pct']:.1f} % of its active span",
                "Between its first and last GPU event the device ran nothing most of the time: the host is not "
                "keeping it fed (CPU-bound step, synchronisations, data loading) or kernels are tiny. Look at "
                "the gaps on the timeline; CUDA/HIP graphs or larger batches reduce launch gaps.",
                severity="warning", category="gpu-idle", time_at_stake_ns=tot["idle_ns"]))
        if tot["exposed_comm_ns"] > 0.1 * max(tot["span_ns"], 1):
            findings.append(Finding(
                f"Exposed communication: {tot['exposed_comm_ns'] / 1e6:.3f} ms not overlapped with compute",
                "Collectives run while no compute kernel does. Overlap them with computation (bucketed all-reduce "
                "during backward, FSDP prefetch) or reduce their size.",
                severity="warning", category="communication-bound", time_at_stake_ns=tot["exposed_comm_ns"]))
        if tot["exposed_memcpy_ns"] > 0.05 * max(tot["span_ns"], 1):
            findings.append(Finding(
                f"Exposed memory copies: {tot['exposed_memcpy_ns'] / 1e6:.3f} ms not overlapped with kernels",
                "Copies run with no kernel beside them. Use pinned memory and non_blocking copies on a side "
                "stream, or keep tensors on the device.",
                severity="warning", category="memcpy-bound", time_at_stake_ns=tot["exposed_memcpy_ns"]))
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)
