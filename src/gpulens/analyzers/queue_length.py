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

from gpulens.analyzers._span import CLOCK_GAP_NS, TRACE_OFFSET_DOC, no_timeline_reason, trace_offsets
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of
from gpulens.analyzers.intervals import key_codes
from gpulens.timeline import Timeline

COLUMNS = {
    "rank": "distributed rank [id]",
    "device_id": "GPU index [id]",
    "stream_id": "stream / queue [id]",
    "launches": "GPU events with a launch call [count]",
    "max_queue": "largest number of outstanding operations [count]",
    "mean_queue": "time-weighted mean number of outstanding operations [count]",
    "empty_share": "share of the span with nothing enqueued [share]",
    "span_ns": "first launch to last end, clock jumps (gaps of a day or more, two time bases) left out [ns]",
}
SERIES_COLUMNS = {
    "rank": "distributed rank [id]",
    "device_id": "GPU index [id]",
    "stream_id": "stream [id]",
    "bin_start_ns": "start of the time bin, from the stream's first launch [ns]",
    "trace_offset_ns": "start of the time bin: " + TRACE_OFFSET_DOC,
    "bin_ns": "bin width [ns]",
    "max_queue": "largest queue length in the bin [count]",
    "mean_queue": "time-weighted mean queue length in the bin [count]",
}
BINS = 100


def _steps(timeline: Timeline) -> list[tuple[tuple, np.ndarray, np.ndarray]]:
    """Per stream, in (rank, device_id, stream_id) order: (key, change times, queue length after each change);
    memoised (both analyzers of this module use it)."""
    return context_of(timeline).memo("queue_steps", lambda: _all_steps(timeline))


def _all_steps(timeline: Timeline) -> list[tuple[tuple, np.ndarray, np.ndarray]]:
    """:func:`_steps` with one sort of every stream's changes (a pandas group per stream cost ~1 ms each: 20 s at
    10,000 ranks). Each stream's launches (+1) and completions (−1) sum to 0, so the running sum over the sorted
    changes of all streams restarts at 0 on every stream."""
    ctx = context_of(timeline)
    gpu, links = ctx.gpu, ctx.links
    has = links["launch_event_id"].notna().to_numpy()
    if not has.any():
        return []
    pos = ctx.positions(links.loc[has, "launch_event_id"].to_numpy(dtype="int64"))  # binary search, no reindex
    t_launch = timeline.events["start_ns"].to_numpy(np.int64)[pos]
    # effective_ns is indexed like gpu: positional, no index alignment
    end = gpu["start_ns"].to_numpy(np.int64)[has] + ctx.effective_ns.to_numpy(np.int64)[has]
    stream, uniq = key_codes(gpu["rank"].to_numpy(np.int64)[has], gpu["device_id"].to_numpy(np.int64)[has],
                                gpu["stream_id"].fillna(-1).astype("int64").to_numpy()[has])
    n = len(stream)
    # changes ordered by (stream, time, completions (−1) before launches (+1) at equal times): the completions
    # first in the array, then two stable sorts — by time, then by stream
    times = np.r_[np.maximum(end, t_launch), t_launch]
    delta = np.r_[-np.ones(n, np.int64), np.ones(n, np.int64)]
    which = np.r_[stream, stream]
    order = np.argsort(times, kind="stable")
    if len(uniq) > 1:
        small = which.astype(np.int16 if len(uniq) < 2 ** 15 else np.int64)  # int16: numpy's radix sort
        order = order[np.argsort(small[order], kind="stable")]
    times, q, which = times[order], np.cumsum(delta[order]), which[order]
    cut = np.flatnonzero(np.diff(which)) + 1
    return [(k, t, v) for k, t, v in zip(uniq, np.split(times, cut), np.split(q, cut))]


def _weighted(times: np.ndarray, q: np.ndarray, lo: int, hi: int) -> tuple[float, int, float]:
    """(time-weighted mean, max, time at 0) of the step function (value ``q[i]`` from ``times[i]`` on) over
    [lo, hi); ``times`` sorted."""
    i0 = int(np.searchsorted(times, lo, side="right"))
    i1 = int(np.searchsorted(times, hi, side="left"))
    q0 = int(q[i0 - 1]) if i0 > 0 else 0
    vals = np.r_[q0, q[i0:i1]]
    w = np.diff(np.r_[lo, times[i0:i1], hi]).astype(float)
    w[w >= CLOCK_GAP_NS] = 0.0  # a jump between two time bases (_span.CLOCK_GAP_NS) is no time in the queue
    span = float(w.sum()) or 1.0
    mx = int(vals[w > 0].max()) if (w > 0).any() else q0
    return float((vals * w).sum() / span), mx, float(w[vals == 0].sum())


#: Why there is no queue to measure on an input with a timeline.
NO_LINKS = "no GPU event is linked to a launch call"


class QueueLength(Analyzer):
    """Per stream: launches, max and time-weighted mean queue length, share of time with an empty queue."""

    name = "queue_length"
    order = 64

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        rows = []
        for key, times, q in _steps(timeline):
            lo, hi = int(times[0]), int(times[-1])
            steps = np.diff(times)
            length = hi - lo - int(steps[steps >= CLOCK_GAP_NS].sum())  # clock jumps left out
            mean, mx, empty = _weighted(times, q, lo, hi) if hi > lo else (0.0, int(q.max()), 0.0)
            rows.append({**dict(zip(["rank", "device_id", "stream_id"], key)), "launches": len(times) // 2,
                         "max_queue": int(q.max()), "mean_queue": mean,
                         "empty_share": empty / length if length > 0 else 0.0, "span_ns": length})
        if not rows:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=no_timeline_reason(timeline) or NO_LINKS)
        t = pd.DataFrame(rows)[list(COLUMNS)]
        return AnalysisResult(self.name, t, COLUMNS, {"streams": int(len(t)), "max_queue": int(t["max_queue"].max())},
                              summary_columns={"streams": "streams [count]",
                                               "max_queue": "largest queue length on any stream [count]"})


class QueueLengthSeries(Analyzer):
    """Queue length over time per stream, in :data:`BINS` bins per stream (max and time-weighted mean per bin)."""

    name = "queue_length_series"
    order = 65

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        cols: dict[str, list] = {c: [] for c in SERIES_COLUMNS}
        for key, times, q in _steps(timeline):  # arrays per stream, one table at the end (not one per stream)
            lo, hi = int(times[0]), int(times[-1])
            if hi <= lo:
                continue
            width = max(1, -(-(hi - lo) // BINS))
            b = np.arange(lo, hi, width, dtype="int64")
            mean, mx = _binned(times, q, b, np.minimum(b + width, hi))
            for c, v in zip(("rank", "device_id", "stream_id", "bin_ns"), (*key, width)):
                cols[c].append(np.full(len(b), v, dtype=np.int64))
            cols["bin_start_ns"].append(b - lo)
            cols["trace_offset_ns"].append(trace_offsets(timeline, np.full(len(b), key[0]), b))
            cols["max_queue"].append(mx)
            cols["mean_queue"].append(mean)
        if not cols["rank"]:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(SERIES_COLUMNS)), SERIES_COLUMNS,
                                  skipped_reason=no_timeline_reason(timeline) or NO_LINKS)
        table = pd.DataFrame({c: np.concatenate(v) for c, v in cols.items()})
        return AnalysisResult(self.name, table[list(SERIES_COLUMNS)], SERIES_COLUMNS, {"bins_per_stream": BINS})


def _binned(times: np.ndarray, q: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_weighted`'s (time-weighted mean, max) for many windows [lo, hi) of one step function at once.

    The mean is the integral of the step function (exact int64: queue length × ns) over the window / its length —
    the same figure ``_weighted`` sums piece by piece (its float products and sums are exact integers below 2^53);
    the max runs over the pieces of positive width inside the window (``np.maximum.reduceat``).
    """
    times = np.asarray(times, dtype="int64")
    q = np.asarray(q, dtype="int64")
    steps = np.diff(times)
    cum = np.concatenate(([0], np.cumsum(q[:-1] * steps)))  # ∫ from times[0] to times[k]

    def integral(x: np.ndarray) -> np.ndarray:  # ∫ from times[0] to x (x ≥ times[0])
        k = np.searchsorted(times, x, side="right") - 1
        return cum[k] + q[k] * (x - times[k])

    i0 = np.searchsorted(times, lo, side="right")
    i1 = np.searchsorted(times, hi, side="left")
    area = integral(hi) - integral(lo)
    span = (hi - lo).astype(float)
    span[span == 0] = 1.0
    mean = area.astype(float) / span
    q0 = np.where(i0 > 0, q[np.maximum(i0 - 1, 0)], 0)
    floor = np.iinfo("int64").min
    # a piece inside the window has positive width unless the next change is at the same time; the window's last
    # piece ends at hi (> its start) and its first (value q0) at times[i0] > lo
    eff = np.where(np.append(steps > 0, True), q, floor)
    mx = q0.copy()
    last = i1 - 1
    has = i1 > i0
    mx[has] = np.maximum(mx[has], q[last[has]])
    mid = has & (last > i0)
    if mid.any():
        idx = np.stack([i0[mid], last[mid]], axis=1).ravel()
        mx[mid] = np.maximum(mx[mid], np.maximum.reduceat(eff, idx)[::2])
    return mean, mx

