"""Kernel counters: per kernel, the counters of inputs that record counters but no timestamps.

A rocprof v1 counter-mode CSV (``pmc:`` without ``--timestamp on``) or a rocprof-compute workload without
timestamps lists one row per dispatch with its launch resources and counter values, but no start or end: the
collector keeps them in the ``unattached_counters`` side table (long form: ``dispatch_seq``, ``name``,
``device_id``, ``metric``, ``value``, ``unit``). Such an input is analysable: this analyzer gives one row per kernel
name with its dispatch count and, per counter, the mean over its dispatches (the sum for byte and instruction
counts would depend on how many dispatches were profiled). Busy time, span and idle are unknown (not measured).
Percentage counters (``GPUBusy``…, :mod:`gpulens.timeline.percent`) are declared ``%``; their values above 100
never reach this analyzer (``Timeline.validate`` drops them with a counted warning). A counter whose recorded unit
is one of the report units (``KiB`` for rocprof ``FETCH_SIZE`` / ``WRITE_SIZE``, ``bytes``, ``ns``) is declared in
it; the others (counts, ratios the tool documents no unit for) ``ratio``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.timeline.percent import is_percent_counter
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.timeline import Timeline

#: Recorded counter units that are report units (:data:`gpulens.analyzers.base.UNITS`): declared as such.
_DECLARED = ("KiB", "bytes", "ns")
BASE_COLUMNS = {"name": "kernel name as recorded", "dispatches": "dispatches of the kernel in the input [count]",
                "device_id": "GPU index (first seen) [id]"}


class KernelCounters(Analyzer):
    """Per-kernel counter table of timestamp-less counter inputs (see module docstring)."""

    name = "kernel_counters"
    order = 12

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        uc = timeline.tables.get("unattached_counters")
        if uc is None or not len(uc) or not {"name", "metric", "value"} <= set(uc.columns):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(BASE_COLUMNS)), BASE_COLUMNS,
                                  skipped_reason="for inputs that record per-kernel counters without kernel "
                                                 "timestamps (a counter-collection run); this input has "
                                                 "no such rows")
        uc = uc.assign(name=uc["name"].astype(str), metric=uc["metric"].astype(str),
                       value=pd.to_numeric(uc["value"], errors="coerce"))
        units = uc["unit"].astype(str) if "unit" in uc else pd.Series("", index=uc.index)
        pct_metrics = {m for m, u in set(zip(uc["metric"], units)) if is_percent_counter(m, u)}
        unit_of = {m: u for m, u in set(zip(uc["metric"], units)) if u in _DECLARED}  # the recorded unit, if one
        seq = "dispatch_seq" if "dispatch_seq" in uc else None
        g = uc.groupby("name", sort=False)
        t = pd.DataFrame({"dispatches": g[seq].nunique() if seq else g.size()})
        if "device_id" in uc:
            t["device_id"] = g["device_id"].first()
        wide = uc.pivot_table(index="name", columns="metric", values="value", aggfunc="mean")
        wide = wide.where(np.isfinite(wide.to_numpy(dtype="float64")))  # a mean past float64 (1e308s) is unknown
        t = t.join(wide).reset_index().rename(columns={"index": "name"})
        t = t.sort_values(["dispatches", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)
        cols = {**BASE_COLUMNS, **{m: f"mean over the kernel's dispatches of counter {m} "
                                      f"[{'%' if m in pct_metrics else unit_of.get(m, 'ratio')}]"
                                   for m in wide.columns}}
        if "device_id" not in t:
            cols.pop("device_id")
        summary = {"kernels": int(len(t)), "dispatches": int(t["dispatches"].sum()),
                   "counters": sorted(map(str, wide.columns))}
        summary_columns = {"kernels": "kernel names [count]", "dispatches": "profiled dispatches [count]"}
        return AnalysisResult(self.name, t[list(cols)], cols, summary, summary_columns=summary_columns)
