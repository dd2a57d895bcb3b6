"""Training steps: the ``ProfilerStep#N`` ranges torch.profiler writes around each ``prof.step()``.

Only host-side ranges count (``device_id`` -1); Kineto also mirrors them on the GPU timeline
(``gpu_user_annotation``), which would double the count. Older traces record them as ``cpu_op``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._span import TRACE_OFFSET_DOC, trace_offsets
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import category_mask, context_of
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
        # only the rows named like a step are materialised (not the million cpu_ops around them)
        cand = ctx.mask_of("annotation", "cpu_op") & category_mask(ev["name"], STEP_RE) & \
            (ev["device_id"] == -1).to_numpy()
        host = ev[cand]
        names = host["name"]
        num = names.astype(str).str.extract(STEP_RE, expand=False) if len(host) else pd.Series(dtype=object)
        st = host[num.notna()].assign(step=num[num.notna()].astype("int64"))
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
            worst = slow.loc[slow["dur_ns"].idxmax()]
            findings.append(Finding(
                f"{len(slow)} of {plural(len(table), 'step')} took over {OUTLIER_RATIO}× the median step time",
                f"step {int(worst['step'])} took {worst['dur_ns'] / med:.1f}× the median ({fmt_ns(med)}); "
                "look for one-off work (compilation, allocator growth, data loading, checkpointing) in it.",
                "warning", "step-time", int((slow["dur_ns"] - med).sum()), rank=int(worst["rank"])))
        return AnalysisResult(self.name, table, COLUMNS, summary, findings)


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
    host = ev[ev["kind"].isin(["annotation", "cpu_op"]) & (ev["device_id"] == -1)]
    num = host["name"].astype(str).str.extract(STEP_RE, expand=False).dropna()
    return sorted({int(n) for n in num})
