"""Host operators: which framework ops (``cpu_op``: ``aten::mm``, ...) ran, how often, how long, and their FLOPs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of, text_series
from gpulens.timeline import Timeline

COLUMNS = {
    "name": "operator name as recorded",
    "calls": "number of calls",
    "total_ns": "sum of host durations, inclusive of nested ops [ns]",
    "mean_ns": "total_ns / calls [ns]",
    "flops": "sum of the FLOP counts the profiler recorded (with_flops); null when none [FLOP]",
    "flops_per_s": "flops / total_ns, host-side rate (for GPU ops the kernels' time is the better divisor) [FLOP/s]",
}


class CpuOps(Analyzer):
    """Per cpu_op name: calls, inclusive host time, FLOPs and FLOP/s, longest total first."""

    name = "cpu_ops"
    order = 15

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        ev = timeline.events
        ops = ev.loc[context_of(timeline).mask_of("cpu_op"), ["name", "dur_ns", "flops"]]  # the columns read here
        if not len(ops):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no framework operators (cpu_op) in the trace")
        g = ops.assign(name=text_series(ops["name"], ops.index)).groupby("name", sort=False)
        t = pd.DataFrame({"calls": g.size(), "total_ns": g["dur_ns"].sum(),
                          "flops": g["flops"].sum(min_count=1)}).reset_index()
        t["mean_ns"] = t["total_ns"] / t["calls"]
        t["flops_per_s"] = np.where(t["total_ns"] > 0, t["flops"] / t["total_ns"].clip(lower=1) * 1e9, np.nan)
        t = t.sort_values(["total_ns", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)
        t = t[list(COLUMNS)]
        summary = {"cpu_op_count": int(len(ops)), "unique_ops": int(len(t)),
                   "ops_with_flops": int(ops["flops"].notna().sum()),
                   "total_flops": float(ops["flops"].sum()) if ops["flops"].notna().any() else None}
        return AnalysisResult(self.name, t, COLUMNS, summary)
