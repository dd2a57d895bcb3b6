"""Op-category summary: GPU time per work category (GEMM, attention, elementwise, normalisation, communication,
copy, other — rules in :mod:`gpulens.analyzers._categories`): each GPU event counted once, so the rows add up to the
trace's GPU event time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._span import durations_unknown
from gpulens.analyzers._attribution import gpu_attribution
from gpulens.analyzers._categories import CATEGORIES
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.timeline import Timeline

COLUMNS = {
    "category": "work category [text]",
    "gpu_events": "GPU events [count]",
    "gpu_time_ns": "effective GPU time [ns]",
    "share": "gpu_time_ns / all GPU event time [share]",
    "ops": "distinct launching framework ops [count]",
    "top_op": "launching op with the most time ('' when none) [text]",
}


class OpCategories(Analyzer):
    """GPU time per work category (see module docstring)."""

    name = "op_categories"
    order = 58

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        att = gpu_attribution(timeline)
        if not len(att):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no GPU events in the trace")
        g = att.groupby("category", sort=False)
        t = pd.DataFrame({"gpu_events": g.size(), "gpu_time_ns": g["time_ns"].sum(),
                          "ops": g["op"].agg(lambda s: int(s[s != ""].nunique()))})
        by_op = att[att["op"] != ""].groupby(["category", "op"])["time_ns"].sum()
        top = by_op.sort_values(ascending=False, kind="stable").reset_index().drop_duplicates("category")
        tops = dict(zip(top["category"], top["op"]))
        t["top_op"] = [str(tops.get(c, "")) for c in t.index]
        total = float(att["time_ns"].sum())
        t["share"] = t["gpu_time_ns"] / total if total else 0.0
        t = t.reindex([c for c in CATEGORIES if c in t.index]).reset_index(names="category")
        t = t.sort_values("gpu_time_ns", ascending=False, kind="stable").reset_index(drop=True)
        if durations_unknown(timeline):  # durations not recorded: the time per category is unknown, not 0
            t["gpu_time_ns"], t["share"], total = np.nan, np.nan, None
        summary = {"gpu_time_ns": total, "top_category": str(t.loc[0, "category"])}
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, summary,
                              summary_columns={"gpu_time_ns": "GPU event time [ns]",
                                               "top_category": "category with the most GPU time [text]"})
