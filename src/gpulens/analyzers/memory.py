"""Memory timeline from the caching allocator's events (Kineto ``profile_memory=True``: ``[memory]`` instant events,
kept by the Kineto collector in the Timeline's ``memory`` side table): allocated and reserved bytes per device over
time, the peak and where it occurs (the innermost framework op and annotation range running at that instant).

``allocated`` is what live tensors hold; ``reserved`` what the caching allocator holds from the driver (≥ allocated;
the gap is cached, reusable memory). Device type follows c10::DeviceType (0 CPU, 1 CUDA — ROCm builds report CUDA).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline
from gpulens.units import agree, plural

COLUMNS = {
    "rank": "distributed rank [id]",
    "device": "'cuda:N' (GPU N) or 'cpu' [text]",
    "events": "allocator events [count]",
    "peak_allocated_bytes": "largest allocated total [bytes]",
    "peak_offset_ns": "time of the peak from the start of its rank's profiled window (the origin --window counts "
                      "from: the rank's first event or allocator event, whichever came first; never negative) [ns]",
    "peak_op": "innermost framework op running at the peak ('' when none) [text]",
    "peak_annotation": "innermost annotation range running at the peak ('' when none) [text]",
    "peak_reserved_bytes": "largest reserved total (unknown for the CPU allocator, which keeps none) [bytes]",
    "final_allocated_bytes": "allocated total after the last event [bytes]",
    "allocated_bytes_total": "sum of all allocations (positive deltas) [bytes]",
}
SERIES_COLUMNS = {
    "rank": "distributed rank [id]",
    "device": "'cuda:N' or 'cpu' [text]",
    "offset_ns": "bin start from the start of its rank's profiled window (as peak_offset_ns) [ns]",
    "allocated_bytes": "largest allocated total in the bin [bytes]",
    "reserved_bytes": "largest reserved total in the bin (unknown for the CPU allocator) [bytes]",
}
POINTS = 200


def _mem(timeline: Timeline) -> pd.DataFrame | None:
    m = timeline.tables.get("memory")
    if m is None or not len(m):
        return None
    m = m.sort_values("time_ns", kind="stable").reset_index(drop=True)
    dev = np.where(m["device_type"] == 0, "cpu", "cuda:" + m["device_id"].fillna(-1).astype("int64").astype(str))
    t0 = m.groupby("rank", dropna=False)["time_ns"].transform("min").to_numpy("int64")
    if len(timeline.events):  # one origin with the steps, outliers and --window: the rank's profiled window start
        from gpulens.analyzers._span import trace_offsets

        ts = m["time_ns"].to_numpy("int64")
        t0 = ts - trace_offsets(timeline, m["rank"].to_numpy(), ts)
    return m.assign(device=dev, t0=t0)


def _innermost(rows: pd.DataFrame, rank: int, t: int) -> str:
    """Name of the shortest range of ``rows`` on ``rank`` containing instant ``t`` ('' when none)."""
    r = rows[(rows["rank"] == rank) & (rows["start_ns"] <= t) & (rows["start_ns"] + rows["dur_ns"] >= t)]
    return str(r.loc[r["dur_ns"].idxmin(), "name"]) if len(r) else ""


def _max_or_none(s: pd.Series) -> float | None:
    """Largest value of ``s``, None (unknown) when it holds no value."""
    s = pd.to_numeric(s, errors="coerce").dropna()
    return float(s.max()) if len(s) else None


def _last_or_none(s: pd.Series) -> float | None:
    """Last value of ``s``, None (unknown) when that value is missing."""
    v = s.iloc[-1] if len(s) else None
    return None if v is None or pd.isna(v) else float(v)


class MemoryTimeline(Analyzer):
    """Per device: peak allocated/reserved bytes, when and where (see module docstring)."""

    name = "memory_timeline"
    order = 68

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        m = _mem(timeline)
        if m is None:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="the trace has no allocator events (record with "
                                                 "profile_memory=True)")
        ctx = context_of(timeline)
        ops, ann = ctx.of_kind("cpu_op"), ctx.of_kind("annotation")
        rows = []
        no_totals = 0
        for (rank, dev), g in m.groupby(["rank", "device"], sort=True):
            row = {"rank": rank, "device": dev, "events": len(g), "peak_allocated_bytes": None,
                   "peak_offset_ns": None, "peak_op": "", "peak_annotation": "",
                   "peak_reserved_bytes": _max_or_none(g["reserved_bytes"]),
                   "final_allocated_bytes": _last_or_none(g["allocated_bytes"]),
                   "allocated_bytes_total": float(g["delta_bytes"].clip(lower=0).sum())}
            if g["allocated_bytes"].notna().any():
                i = g["allocated_bytes"].idxmax()
                t = int(g.loc[i, "time_ns"])
                row.update(peak_allocated_bytes=float(g.loc[i, "allocated_bytes"]),
                           peak_offset_ns=t - int(g.loc[i, "t0"]), peak_op=_innermost(ops, rank, t),
                           peak_annotation=_innermost(ann, rank, t))
            else:
                no_totals += 1
            rows.append(row)
        t = pd.DataFrame(rows)[list(COLUMNS)]
        gpu = t[t["device"] != "cpu"]
        summary = {"devices": int(len(t)), "peak_allocated_bytes": _max_or_none(gpu["peak_allocated_bytes"])}
        if no_totals:
            summary["peak_unknown_reason"] = (
                f"{no_totals} of {plural(len(t), 'device(s)')} {agree(no_totals, 'has', 'have')} allocator events without allocated/reserved totals "
                "(older PyTorch records only each allocation's size): their peak is unknown")
        return AnalysisResult(self.name, t, COLUMNS, summary,
                              summary_columns={"devices": "devices with allocator events [count]",
                                               "peak_unknown_reason": "why a peak is unknown [text]",
                                               "peak_allocated_bytes": "largest GPU allocated total [bytes]"})


class MemorySeries(Analyzer):
    """Allocated and reserved bytes over time per device, at most :data:`POINTS` bins (bin maxima)."""

    name = "memory_series"
    order = 69

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        m = _mem(timeline)
        if m is None:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(SERIES_COLUMNS)), SERIES_COLUMNS,
                                  skipped_reason="the trace has no allocator events")
        if m["allocated_bytes"].isna().all() and m["reserved_bytes"].isna().all():
            return AnalysisResult(self.name, pd.DataFrame(columns=list(SERIES_COLUMNS)), SERIES_COLUMNS,
                                  skipped_reason="the allocator events carry no allocated/reserved totals (older "
                                                 "PyTorch records only each allocation's size)")
        off = m["time_ns"] - m["t0"]
        span = int(off.max()) - min(int(off.min()), 0) + 1
        width = max(1, -(-span // POINTS))
        m = m.assign(offset_ns=(off // width) * width)
        g = m.groupby(["rank", "device", "offset_ns"], sort=True)
        t = pd.DataFrame({"allocated_bytes": g["allocated_bytes"].max(),
                          "reserved_bytes": g["reserved_bytes"].max()}).reset_index()
        return AnalysisResult(self.name, t[list(SERIES_COLUMNS)], SERIES_COLUMNS, {"bin_ns": width})
