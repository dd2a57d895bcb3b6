"""Kernel counters: per kernel, the counters of inputs that record counters but no timestamps.

A rocprof v1 counter-mode CSV (``pmc:`` without ``--timestamp on``) or a rocprof-compute workload without
timestamps lists one row per dispatch with its launch resources and counter values, but no start or end: the
collector keeps them in the ``unattached_counters`` side table (long form: ``dispatch_seq``, ``name``,
``device_id``, ``metric``, ``value``, ``unit``). Such an input is analysable: this analyzer gives one row per kernel
name with its dispatch count and, per counter, the mean over its dispatches (the sum for byte and instruction
counts would depend on how many dispatches were profiled). Busy time, span and idle are unknown (not measured).
Each counter is declared in what it measures (:func:`gpulens.analyzers._counter_units.counter_unit`): ``%`` for
percentages (``GPUBusy``…, whose values above 100 never reach this analyzer: ``Timeline.validate`` drops them with
a counted warning), the recorded unit when it is a report unit (``KiB`` for rocprof ``FETCH_SIZE``), ``count`` for
event and cycle counters (``SQ_WAVES``, ``GRBM_COUNT``, ``TCC_HIT_sum``), ``ratio`` for per-work-item averages
(``VALUInsts``), and ``number`` — no unit claimed — when what it measures is not known.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._counter_units import counter_unit
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.timeline import Timeline
from gpulens.timeline.percent import exceeds_100_by_design

BASE_COLUMNS = {"name": "kernel name as recorded", "dispatches": "dispatches of the kernel in the input [count]",
                "kind": "kernel | memset | memcpy: a HIP runtime fill or copy kernel (__amd_rocclr_fillBuffer…) "
                        "is a memset or memcpy, as the run summary counts it (its launches and kernel count leave "
                        "these rows out) [text]",
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
        unit_of = {m: counter_unit(m, u) for m, u in set(zip(uc["metric"], units))}
        seq = "dispatch_seq" if "dispatch_seq" in uc else None
        g = uc.groupby("name", sort=False)
        t = pd.DataFrame({"dispatches": g[seq].nunique() if seq else g.size()})
        if "device_id" in uc:
            t["device_id"] = g["device_id"].first()
        wide = uc.pivot_table(index="name", columns="metric", values="value", aggfunc="mean")
        wide = wide.where(np.isfinite(wide.to_numpy(dtype="float64")))  # a mean past float64 (1e308s) is unknown
        t = t.join(wide).reset_index().rename(columns={"index": "name"})
        from gpulens.analyzers.hotspots import copy_kinds

        kinds = copy_kinds(timeline)
        t["kind"] = pd.Series([kinds.get(n, "kernel") for n in t["name"]], index=t.index, dtype=object)
        t = t.sort_values(["dispatches", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)
        cols = {**BASE_COLUMNS, **{m: f"mean over the kernel's dispatches of counter {m}"
                                      + (" (unit not documented by the profiler)" if unit_of[m] == "number" else "")
                                      + (" (the busiest unit's count over the average unit's active cycles: above "
                                         "100 when the work runs on few units; no unit's utilisation)"
                                         if exceeds_100_by_design(m) else "")
                                      + f" [{unit_of[m]}]" for m in wide.columns}}
        if "device_id" not in t:
            cols.pop("device_id")
        is_k = (t["kind"] == "kernel").to_numpy()
        # every row listed, and how many of them are copy/fill kernels: kernels − copy_fill_names (dispatches −
        # copy_fill_dispatches) is the run summary's "N launches of K kernels"
        summary = {"kernels": int(len(t)), "dispatches": int(t["dispatches"].sum()),
                   "copy_fill_names": int((~is_k).sum()), "copy_fill_dispatches": int(t["dispatches"][~is_k].sum()),
                   "counters": sorted(map(str, wide.columns))}
        summary_columns = {"kernels": "kernel names listed, copy and fill kernels included [count]",
                           "dispatches": "profiled dispatches listed [count]",
                           "copy_fill_names": "of those names, HIP runtime copy/fill kernels (kind memcpy/memset), "
                                              "which the run summary counts as copies and memsets [count]",
                           "copy_fill_dispatches": "their dispatches [count]"}
        return AnalysisResult(self.name, t[list(cols)], cols, summary, summary_columns=summary_columns)
