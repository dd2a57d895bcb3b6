"""Step and hot-set helpers shared by the distribution, variation and critical-path analyzers.

* The **step** of a GPU event is N of the ``ProfilerStep#N`` range that contains its launching runtime call on the
  same host thread; GPU events without a launch call fall back to a GPU-side ``ProfilerStep#N`` range containing
  their start on the same stream track. <NA> when neither exists.
* The **hot kernels** are the names of the hotspots performance-critical set when that result is present, else the
  ``limit`` names with the most effective time.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from gpulens.analyzers._optree import _sweep
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline

_STEP = re.compile(r"^ProfilerStep#(\d+)$")


def step_ranges(timeline: Timeline) -> pd.DataFrame:
    """ProfilerStep#N annotation rows with an int ``step`` column (host and GPU-side alike)."""
    ann = context_of(timeline).of_kind("annotation")
    names = ann["name"].astype(str)
    m = names.str.extract(_STEP, expand=False)
    sel = ann[m.notna().to_numpy()]
    return sel.assign(step=m[m.notna()].astype("int64").to_numpy())


def gpu_steps(timeline: Timeline) -> pd.Series:
    """Step number of every GPU event (Int64, indexed like ``context_of(timeline).gpu``); memoised."""
    ctx = context_of(timeline)
    return ctx.memo("gpu_steps", lambda: _gpu_steps(timeline))


def _owner(ranges: pd.DataFrame, leaves: pd.DataFrame) -> np.ndarray:
    host = pd.concat([ranges[["rank", "pid", "tid", "start_ns", "dur_ns"]],
                      leaves[["rank", "pid", "tid", "start_ns"]].assign(dur_ns=0)])
    is_range = np.r_[np.ones(len(ranges), bool), np.zeros(len(leaves), bool)]
    parent, _ = _sweep(host, is_range)
    return parent[len(ranges):]


def _gpu_steps(timeline: Timeline) -> pd.Series:
    ctx = context_of(timeline)
    gpu = ctx.gpu
    out = pd.Series(pd.array([pd.NA] * len(gpu), dtype="Int64"), index=gpu.index)
    steps = step_ranges(timeline)
    if not len(steps) or not len(gpu):
        return out
    gside = (steps["stream_id"].notna() | (steps["device_id"] >= 0)).to_numpy()
    host, dev = steps[~gside], steps[gside]
    launch = ctx.links["launch_event_id"]
    has = launch.notna().to_numpy()
    if len(host) and has.any():
        ev = timeline.events.set_index("event_id")
        rt = ev.loc[launch[has].astype("int64").to_numpy(), ["rank", "pid", "tid", "start_ns"]].reset_index(drop=True)
        own = _owner(host.reset_index(drop=True), rt)
        vals = np.where(own >= 0, host["step"].to_numpy()[np.clip(own, 0, None)], -1)
        idx = gpu.index[has][vals >= 0]
        out.loc[idx] = vals[vals >= 0]
    if len(dev):
        miss = out.isna().to_numpy()
        if miss.any():
            own = _owner(dev.reset_index(drop=True), gpu[miss][["rank", "pid", "tid", "start_ns"]])
            vals = np.where(own >= 0, dev["step"].to_numpy()[np.clip(own, 0, None)], -1)
            idx = gpu.index[miss][vals >= 0]
            out.loc[idx] = vals[vals >= 0]
    return out


def hot_names(timeline: Timeline, results: dict | None, limit: int = 20) -> list[str]:
    """Names of the hot kernels (see module docstring), at most ``limit``."""
    hs = (results or {}).get("hotspots")
    if hs is not None and not hs.skipped and len(hs.table) and "critical" in hs.table:
        crit = hs.table[hs.table["critical"].astype(bool)]
        if len(crit):
            return [str(n) for n in crit["name"].head(limit)]
    ctx = context_of(timeline)
    k = ctx.of_kind("kernel", "comm")
    if not len(k):
        return []
    eff = ctx.effective_ns.loc[k.index]
    by = eff.groupby(k["name"].astype(str).to_numpy()).sum().sort_values(ascending=False, kind="stable")
    return [str(n) for n in by.index[:limit]]
