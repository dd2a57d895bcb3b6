"""Training steps: the ``ProfilerStep#N`` ranges torch.profiler writes around each ``prof.step()``.

Only host-side ranges count (``device_id`` -1); Kineto also mirrors them on the GPU timeline
(``gpu_user_annotation``), which would double the count. Older traces record them as ``cpu_op``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._span import CLOCK_GAP_NS, TRACE_OFFSET_DOC, clock_windows, trace_offsets
from gpulens.analyzers._steps import step_ranges
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import context_of, step_numbers_in
from gpulens.analyzers.intervals import merge
from gpulens.timeline import Timeline
from gpulens.timeline.selection import STEP_NAME
from gpulens.units import fmt_ns, plural

STEP_RE = STEP_NAME
#: A step longer than this multiple of the median step is reported as an outlier.
OUTLIER_RATIO = 1.5

COLUMNS = {
    "rank": "distributed rank",
    "step": "step number N of ProfilerStep#N",
    "trace_offset_ns": TRACE_OFFSET_DOC,
    "dur_ns": "host wall time of the step [ns]",
    "cpu_ops": "cpu_op events starting inside the step on the same rank",
    "start_ns": "start of the step on the Timeline's clock [ns]",
    "clipped": "the step runs past the end of a --window selection, which cut it: its duration is not the step's, "
               "and it is left out of the median, the extremes and the slow-step finding [bool]",
}


def _sorted(x: np.ndarray) -> np.ndarray:
    """``np.sort(x)``, without the sort when ``x`` is already in order (ops are recorded in start order)."""
    return x if len(x) < 2 or bool((x[1:] >= x[:-1]).all()) else np.sort(x)


class Steps(Analyzer):
    """Per recorded step: number, start, duration, cpu_op count; step-time outliers as findings."""

    name = "steps"
    order = 5

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        ev = timeline.events
        ctx = context_of(timeline)
        # the host-side step ranges of the shared step selection (only the rows named like a step, with their
        # numbers: not the million cpu_ops around them)
        sr = step_ranges(timeline)
        st = sr[(sr["device_id"] == -1).to_numpy()]
        if not len(st):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no ProfilerStep#N ranges in the trace (no prof.step() calls)")
        st = st.sort_values(["rank", "start_ns"])
        is_op = ctx.mask_of("cpu_op")
        op_rank, op_start = ev["rank"].to_numpy()[is_op], ev["start_ns"].to_numpy()[is_op]
        if len(op_rank) and op_rank.min() == op_rank.max():  # one rank: its ops' starts, no grouping
            starts = {int(op_rank[0]): _sorted(op_start)}
        else:
            ops = pd.DataFrame({"rank": op_rank, "start_ns": op_start})
            starts = {int(k): _sorted(g.to_numpy()) for k, g in ops.groupby("rank")["start_ns"]}
        counts = []
        for r in st.itertuples():
            o = starts.get(int(r.rank), np.zeros(0, dtype="int64"))
            counts.append(int(np.searchsorted(o, r.start_ns + r.dur_ns) - np.searchsorted(o, r.start_ns)))
        table = pd.DataFrame({"rank": st["rank"].to_numpy(), "step": st["step"].to_numpy(),
                              "start_ns": st["start_ns"].to_numpy(), "dur_ns": st["dur_ns"].to_numpy(),
                              "cpu_ops": np.array(counts, dtype="int64")})
        table["trace_offset_ns"] = trace_offsets(timeline, table["rank"].to_numpy(), table["start_ns"].to_numpy())
        table["clipped"] = _clipped_by_window(timeline, table)
        table = table[list(COLUMNS)]
        whole = table[~table["clipped"]]  # a step cut at a --window end is not a step's duration
        d = (whole if len(whole) else table)["dur_ns"].to_numpy()
        med = float(np.median(d))
        summary = {"step_count": int(len(table)), "steps": sorted({int(s) for s in table["step"]}),
                   "median_step_ns": int(med), "min_step_ns": int(d.min()), "max_step_ns": int(d.max()),
                   "total_step_ns": int(table["dur_ns"].sum()), "clipped_steps": int(table["clipped"].sum())}
        findings = []
        slow = whole[whole["dur_ns"] > OUTLIER_RATIO * med]
        if len(whole) >= 3 and len(slow):
            findings.append(_slow_step_finding(timeline, table, slow, med))
        return AnalysisResult(self.name, table, COLUMNS, summary, findings)


def _slow_step_finding(timeline: Timeline, table: pd.DataFrame, slow: pd.DataFrame, med: float) -> Finding:
    """The slow-step finding. A host step's extra time costs the run only where its GPU waited for it: the time at
    stake of each slow step is its excess over the median, capped by the GPU idle time of its rank inside the step
    (within the rank's GPU span, :func:`gpu_idle_in`). While the GPU runs work queued by earlier steps (the host runs
    ahead: a GPU-bound loop) or has not started yet (host-only time outside the GPU span, reported on its own), a slow
    host step loses no GPU time, and the finding says so (info, 0 at stake).

    Capped by GPU idle time, the time at stake is part of the idle finding's (``idle``, the breakdown's): the finding
    is its child, so the roots count each nanosecond once (a root, 620 ms of slow-step idle beside the 1.86 s idle
    root that holds it, put the roots' sum past the run's summed spans). Uncapped (a window on no common clock with
    the GPU events, a rank without GPU events) it is wall time, a root of its own."""
    worst = slow.loc[slow["dur_ns"].idxmax()]
    a, b = _inside_the_run(timeline, slow)
    excess = np.maximum(b - a - med, 0).astype("float64")  # a step's time lies inside the run (its other events)
    idle = gpu_idle_in(timeline, slow["rank"].to_numpy(), a, b)
    unknown = np.isnan(idle)  # no common clock with the GPU events, or a rank without any: no idle to cap by
    if unknown.all():  # wall time of the host, a root of its own
        stake, parent = int(excess.sum()), None
    else:  # GPU idle time: a part of the idle finding's (when shown); a step without a cap is not added to it
        stake, parent = int(np.minimum(excess, idle)[~unknown].sum()), "idle"
    title = f"{len(slow)} of {plural(len(table), 'step')} took over {OUTLIER_RATIO}× the median step time"
    detail = f"step {int(worst['step'])} took {worst['dur_ns'] / med:.1f}× the median ({fmt_ns(med)}) on the host; "
    if unknown.any() and not unknown.all():
        detail += (f"{plural(int(unknown.sum()), 'slow step')} {'shares' if unknown.sum() == 1 else 'share'} no clock "
                   "with the GPU events (its GPU time lost is unknown, not counted here); ")
    if stake:
        return Finding(title, detail + "look for one-off work (compilation, allocator growth, data loading, "
                       "checkpointing) in it.", "warning", "step-time", stake, rank=int(worst["rank"]),
                       parent=parent)
    return Finding(title, detail + "the GPU never waited for it (no GPU idle time inside the GPU span during the slow "
                   "steps: its work was queued ahead of the host, or had not started), so no GPU time was lost to it.",
                   "info", "step-time", 0, rank=int(worst["rank"]))


def _inside_the_run(timeline: Timeline, steps: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each step's ``[start, end)`` [ns] cut to its rank's run: the first start → last end of the rank's events
    other than annotations (the step ranges themselves, whose recorded end may be corrupt: a step can hold no time
    before the run's first op or after its last GPU event ends). A rank with no such event keeps its steps whole."""
    start = steps["start_ns"].to_numpy("int64")
    end = start + steps["dur_ns"].to_numpy("int64")
    ctx = context_of(timeline)
    ev = timeline.events
    work = ~ctx.mask_of("annotation", "other")
    if not work.any():
        return start, end
    s = ev["start_ns"].to_numpy("int64")[work]
    e = s + ev["dur_ns"].to_numpy("int64")[work]
    r = ev["rank"].to_numpy()[work]
    lo = pd.Series(s).groupby(r).min()
    hi = pd.Series(e).groupby(r).max()
    rank = steps["rank"].to_numpy()
    lo_r = lo.reindex(rank).to_numpy("float64")
    hi_r = hi.reindex(rank).to_numpy("float64")
    a = np.where(np.isnan(lo_r), start, np.maximum(start, np.nan_to_num(lo_r))).astype("int64")
    b = np.where(np.isnan(hi_r), end, np.minimum(end, np.nan_to_num(hi_r))).astype("int64")
    return a, np.maximum(a, b)


def gpu_idle_in(timeline: Timeline, rank: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """GPU idle time [ns] of each window ``[start, end)`` on its rank: the part of the window inside that rank's GPU
    span (first GPU event start → last GPU event end, kernels, collectives, copies and memsets of all its devices)
    covered by none of its GPU events. NaN where that is unknown or no bound: a rank without GPU events (a CPU-only
    run, whose slow step costs wall time all the same), or a window and GPU events that share no clock
    (:func:`gpulens.analyzers._span.clock_windows`: the rank's GPU events on several time bases, or the window a
    day or more away from them).

    Args:
        timeline: the Timeline whose GPU events are used.
        rank, start, end: one window per element (rank ids, ns on the Timeline's clock).

    Returns:
        float64 array of idle ns (whole numbers, or NaN), one per window.
    """
    ctx = context_of(timeline)
    gpu = ctx.gpu
    out = np.full(len(rank), np.nan)
    if not len(gpu) or not len(rank):
        return out
    g_rank = gpu["rank"].to_numpy()
    g_start = gpu["start_ns"].to_numpy("int64")
    g_end = g_start + ctx.effective_ns.fillna(0).to_numpy("int64")
    for r in np.unique(rank):
        on = g_rank == r
        rows = np.flatnonzero(rank == r)
        if not on.any():
            continue
        seg_s, seg_e = merge(g_start[on], g_end[on])
        lo = np.clip(start[rows], seg_s[0], seg_e[-1])
        hi = np.clip(end[rows], seg_s[0], seg_e[-1])
        out[rows] = np.maximum(hi - lo, 0) - (_covered(seg_s, seg_e, hi) - _covered(seg_s, seg_e, lo))
        far = (start[rows] > seg_e[-1] + CLOCK_GAP_NS) | (end[rows] < seg_s[0] - CLOCK_GAP_NS)
        out[rows[far | (len(clock_windows(seg_s, seg_e)) > 1)]] = np.nan
    return out


def _covered(seg_s: np.ndarray, seg_e: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Length [ns] of the disjoint sorted segments ``[seg_s, seg_e)`` lying before each time ``x``."""
    before = np.concatenate([[0], np.cumsum(seg_e - seg_s)])
    i = np.searchsorted(seg_s, x, side="right")  # segments starting at or before x
    part = np.where(i > 0, np.clip(x - seg_s[np.maximum(i - 1, 0)], 0, None), 0)
    last = np.where(i > 0, seg_e[np.maximum(i - 1, 0)] - seg_s[np.maximum(i - 1, 0)], 0)
    return before[np.maximum(i - 1, 0)] * (i > 0) + np.minimum(part, last)


def _clipped_by_window(timeline: Timeline, table: pd.DataFrame) -> np.ndarray:
    """Per step row: True when a ``--window`` selection with an end cut it — the step ends at its rank's last event
    end, where :meth:`gpulens.timeline.selection.Selection.clip_dur` cut every event that ran past the window. (A
    ``--steps`` selection keeps whole steps: never clipped.)"""
    out = np.zeros(len(table), dtype=bool)
    cut = any("window" in str(src.get("selection") or "") and "end" in (src.get("selection_cuts") or ())
              for src in timeline.meta.sources)
    if not cut or not len(table):
        return out
    ev = timeline.events
    end = ev["start_ns"].to_numpy("int64") + ev["dur_ns"].to_numpy("int64")
    last = pd.Series(end).groupby(ev["rank"].to_numpy()).max()
    step_end = (table["start_ns"] + table["dur_ns"]).to_numpy("int64")
    return step_end >= last.reindex(table["rank"].to_numpy()).to_numpy("int64")


def step_numbers(timeline: Timeline) -> list[int]:
    """The N of every host-side ``ProfilerStep#N`` range of the Timeline, sorted, each once."""
    ev = timeline.events
    host = (ev["kind"].isin(["annotation", "cpu_op"]) & (ev["device_id"] == -1)).to_numpy(dtype=bool, na_value=False)
    return step_numbers_in(ev["name"], host)  # no copy of the host rows, no str per row
