"""Queue length over time per GPU stream (Holistic Trace Analysis' queue-length analysis): the number of GPU
operations enqueued on a stream and not yet finished — +1 when the launching runtime call starts, −1 when the GPU
event ends. A queue often at 0 means the host does not keep the GPU fed; a long queue means the host runs ahead.

GPU events without a recorded launch call are left out (they cannot be placed in the queue).
Time-weighted figures integrate the step function over the stream's span (first launch → last end).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline

COLUMNS = {
    "rank": "distributed rank [id]",
    "device_id": "GPU index [id]",
    "stream_id": "stream / queue [id]",
    "launches": "GPU events with a launch call [count]",
    "max_queue": "largest number of outstanding operations [count]",
    "mean_queue": "time-weighted mean number of outstanding operations [count]",
    "empty_share": "share of the span with nothing enqueued [share]",
    "span_ns": "first launch to last end [ns]",
}
SERIES_COLUMNS = {
    "rank": "distributed rank [id]",
    "device_id": "GPU index [id]",
    "stream_id": "stream [id]",
    "bin_start_ns": "start of the time bin, from the stream's first launch [ns]",
    "bin_ns": "bin width [ns]",
    "max_queue": "largest queue length in the bin [count]",
    "mean_queue": "time-weighted mean queue length in the bin [count]",
}
BINS = 100


def _steps(timeline: Timeline) -> list[tuple[tuple, np.ndarray, np.ndarray]]:
    """Per stream: (key, change times, queue length after each change)."""
    ctx = context_of(timeline)
    gpu, links = ctx.gpu, ctx.links
    has = links["launch_event_id"].notna().to_numpy()
    if not has.any():
        return []
    ev = timeline.events.set_index("event_id")
    t_launch = ev.loc[links.loc[has, "launch_event_id"].astype("int64").to_numpy(), "start_ns"].to_numpy(np.int64)
    g = gpu[has]
    end = (g["start_ns"] + ctx.effective_ns.loc[g.index]).to_numpy(np.int64)
    df = pd.DataFrame({"rank": g["rank"].to_numpy(), "device_id": g["device_id"].to_numpy(),
                       "stream_id": g["stream_id"].fillna(-1).astype("int64").to_numpy(), "launch": t_launch,
                       "end": np.maximum(end, t_launch)})
    out = []
    for key, s in df.groupby(["rank", "device_id", "stream_id"], sort=True):
        times = np.r_[s["launch"].to_numpy(), s["end"].to_numpy()]
        delta = np.r_[np.ones(len(s), np.int64), -np.ones(len(s), np.int64)]
        order = np.lexsort((delta, times))  # at equal times, completions (−1) before launches
        times, q = times[order], np.cumsum(delta[order])
        out.append((key, times, q))
    return out


def _weighted(times: np.ndarray, q: np.ndarray, lo: int, hi: int) -> tuple[float, int, float]:
    """(time-weighted mean, max, time at 0) of the step function (value ``q[i]`` from ``times[i]`` on) over
    [lo, hi); ``times`` sorted."""
    i0 = int(np.searchsorted(times, lo, side="right"))
    i1 = int(np.searchsorted(times, hi, side="left"))
    q0 = int(q[i0 - 1]) if i0 > 0 else 0
    vals = np.r_[q0, q[i0:i1]]
    w = np.diff(np.r_[lo, times[i0:i1], hi]).astype(float)
    span = float(hi - lo) or 1.0
    mx = int(vals[w > 0].max()) if (w > 0).any() else q0
    return float((vals * w).sum() / span), mx, float(w[vals == 0].sum())


class QueueLength(Analyzer):
    """Per stream: launches, max and time-weighted mean queue length, share of time with an empty queue."""

    name = "queue_length"
    order = 64

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        rows = []
        for key, times, q in _steps(timeline):
            lo, hi = int(times[0]), int(times[-1])
            mean, mx, empty = _weighted(times, q, lo, hi) if hi > lo else (0.0, int(q.max()), 0.0)
            rows.append({**dict(zip(["rank", "device_id", "stream_id"], key)), "launches": len(times) // 2,
                         "max_queue": int(q.max()), "mean_queue": mean,
                         "empty_share": empty / (hi - lo) if hi > lo else 0.0, "span_ns": hi - lo})
        if not rows:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no GPU event is linked to a launch call")
        t = pd.DataFrame(rows)[list(COLUMNS)]
        return AnalysisResult(self.name, t, COLUMNS, {"streams": int(len(t)), "max_queue": int(t["max_queue"].max())},
                              summary_columns={"streams": "streams [count]",
                                               "max_queue": "largest queue length on any stream [count]"})


class QueueLengthSeries(Analyzer):
    """Queue length over time per stream, in :data:`BINS` bins per stream (max and time-weighted mean per bin)."""

    name = "queue_length_series"
    order = 65

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        rows = []
        for key, times, q in _steps(timeline):
            lo, hi = int(times[0]), int(times[-1])
            if hi <= lo:
                continue
            width = max(1, -(-(hi - lo) // BINS))
            for b in range(lo, hi, width):
                mean, mx, _ = _weighted(times, q, b, min(b + width, hi))
                rows.append({**dict(zip(["rank", "device_id", "stream_id"], key)), "bin_start_ns": b - lo,
                             "bin_ns": width, "max_queue": mx, "mean_queue": mean})
        if not rows:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(SERIES_COLUMNS)), SERIES_COLUMNS,
                                  skipped_reason="no GPU event is linked to a launch call")
        return AnalysisResult(self.name, pd.DataFrame(rows)[list(SERIES_COLUMNS)], SERIES_COLUMNS,
                              {"bins_per_stream": BINS})
