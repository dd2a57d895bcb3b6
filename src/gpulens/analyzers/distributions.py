"""Duration distributions and outliers of the hot kernels: percentiles per kernel, and the slowest instances with
their step and rank (HTA/TraceLens users look for these first when a mean hides a long tail).

Durations are effective (overrun-clipped) ns. Percentiles are numpy's linear interpolation (``np.percentile``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._span import durations_unknown
from gpulens.analyzers._steps import gpu_steps, hot_names
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline

COLUMNS = {
    "name": "kernel name [text]",
    "calls": "instances [count]",
    "total_ns": "summed effective duration [ns]",
    "mean_ns": "mean duration [ns]",
    "p50_ns": "median duration [ns]",
    "p90_ns": "90th percentile [ns]",
    "p99_ns": "99th percentile [ns]",
    "max_ns": "longest instance [ns]",
    "cv": "coefficient of variation: standard deviation / mean [ratio]",
    "tail_ratio": "max / median [ratio]",
}
OUTLIER_COLUMNS = {
    "name": "kernel name [text]",
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number of the instance (unknown when the trace has no steps) [id]",
    "stream_id": "GPU stream [id]",
    "start_ns": "start on the Timeline clock [ns]",
    "dur_ns": "effective duration [ns]",
    "vs_median": "duration / the kernel's median [ratio]",
}


def _hot_frame(timeline: Timeline, results) -> pd.DataFrame:
    ctx = context_of(timeline)
    names = hot_names(timeline, results)
    k = ctx.of_kind("kernel", "comm")
    sel = k[k["name"].astype(str).isin(names).to_numpy()]
    steps = gpu_steps(timeline)
    return pd.DataFrame({"name": sel["name"].astype(str).to_numpy(), "rank": sel["rank"].to_numpy(),
                         "stream_id": sel["stream_id"].to_numpy(), "start_ns": sel["start_ns"].to_numpy(),
                         "dur_ns": ctx.effective_ns.loc[sel.index].to_numpy(),
                         "step": steps.loc[sel.index].to_numpy()}), names


#: Why duration statistics are skipped for inputs whose kernel durations were lost.
UNKNOWN_DURATIONS = "the kernels' durations were not recorded (timestamps without their digits): no distribution"

class KernelDistributions(Analyzer):
    """p50/p90/p99/max, CV and tail ratio per hot kernel."""

    name = "kernel_distributions"
    order = 62

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        df, names = _hot_frame(timeline, results)
        if not len(df) or durations_unknown(timeline):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=UNKNOWN_DURATIONS if len(df) else "no kernels in the trace")
        rows = []
        for name, g in df.groupby("name", sort=False):
            d = g["dur_ns"].to_numpy(dtype=float)
            p50, p90, p99 = np.percentile(d, [50, 90, 99])
            mean = d.mean()
            rows.append({"name": name, "calls": len(d), "total_ns": d.sum(), "mean_ns": mean, "p50_ns": p50,
                         "p90_ns": p90, "p99_ns": p99, "max_ns": d.max(), "cv": d.std() / mean if mean else np.nan,
                         "tail_ratio": d.max() / p50 if p50 else np.nan})
        t = pd.DataFrame(rows).sort_values("total_ns", ascending=False, kind="stable").reset_index(drop=True)
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, {"kernels": int(len(t))},
                              summary_columns={"kernels": "hot kernels described [count]"})


class KernelOutliers(Analyzer):
    """The slowest instances of each hot kernel (``per_kernel`` of them), with step, rank and stream."""

    name = "kernel_outliers"
    order = 63

    def __init__(self, per_kernel: int = 3):
        self.per_kernel = per_kernel

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        df, _ = _hot_frame(timeline, results)
        if not len(df) or durations_unknown(timeline):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(OUTLIER_COLUMNS)), OUTLIER_COLUMNS,
                                  skipped_reason=UNKNOWN_DURATIONS if len(df) else "no kernels in the trace")
        med = df.groupby("name")["dur_ns"].transform("median")
        df = df.assign(vs_median=df["dur_ns"] / med.where(med > 0))
        df = df.sort_values(["name", "dur_ns", "start_ns"], ascending=[True, False, True], kind="stable")
        t = df.groupby("name", sort=False).head(self.per_kernel)
        t = t.sort_values(["vs_median", "dur_ns"], ascending=False, kind="stable").reset_index(drop=True)
        t["step"] = t["step"].astype("Int64")
        return AnalysisResult(self.name, t[list(OUTLIER_COLUMNS)], OUTLIER_COLUMNS,
                              {"instances": int(len(t)), "worst_vs_median": float(t["vs_median"].max())
                               if t["vs_median"].notna().any() else None},
                              summary_columns={"instances": "slow instances listed [count]",
                                               "worst_vs_median": "largest duration / median [ratio]"})
