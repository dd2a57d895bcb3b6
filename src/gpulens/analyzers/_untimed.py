"""Kernel dispatches recorded without timestamps, as the per-kernel analyzers' launches (roofline, speed of light,
occupancy) when an input holds no timed kernel at all.

A rocprof v1 ``pmc:`` pass without ``--timestamp on``, a rocprofv3 ``counter_collection.csv`` alone or a
rocprof-compute workload without timestamps records each dispatch's counters and launch configuration but no start
or end. The collector keeps them in ``tables["unattached_counters"]`` and ``tables["untimed_launches"]``
(:mod:`gpulens.collectors._dispatch`), and the Timeline has no kernel event; the run's per-kernel summary
(``results.stats.csv``, an nsys or rocprofv3 stats table) gives each kernel's calls and total time, which the
hotspots analyzer ranks. :func:`untimed_kernels` joins the two:

* one row per profiled dispatch, shaped as :func:`gpulens.analyzers._hot.hot_kernels` rows
  (:data:`~gpulens.analyzers._hot.HOT_COLUMNS` + ``time_ns``): ``event_id`` = its ``dispatch_seq`` (the key of its
  counter rows), no ``start_ns``, the launch configuration of ``untimed_launches``;
* ``time_ns`` = ``dur_ns`` = the kernel's **mean** duration [ns] from the summary (total / calls), matched by kernel
  name (normalised: ``.kd`` suffixes, clone markers), 0 (not recorded) without one. Each profiled dispatch stands for
  one launch of that mean, so a kernel's bytes / time is its mean bytes per dispatch / its mean duration — the
  counters and the durations come from separate runs of the same program (rocprof re-runs it for each pass);
* its counters as Counters rows (``event_id`` = ``dispatch_seq``, ``metric``, ``value``, ``unit``, ``source``), the
  first value per (dispatch, metric): two passes of one run list the same dispatches with their own counters and
  the same launch resources.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.timeline import Timeline

#: What the analyzers say about figures that rest on :func:`untimed_kernels` (evidence, notes).
MEAN_DURATION = "the kernel's mean duration from the run's per-kernel summary (its dispatches were profiled " \
                "without timestamps)"


def untimed_kernels(timeline: Timeline, results: Mapping[str, Any] | None,
                    critical_only: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(launches, counters) of the kernel dispatches recorded without timestamps (module docstring); both empty
    when the input has a timed kernel (those are the launches then) or no such dispatch.

    Args:
        critical_only: keep the kernels of the hotspots result's performance-critical set (its ``critical``
            column; every kernel when hotspots ranked none).
    """
    from gpulens.analyzers._hot import HOT_COLUMNS
    from gpulens.analyzers.context import context_of
    from gpulens.analyzers.hotspots import _kernel_rows

    none = (pd.DataFrame({c: pd.Series(dtype="int64") for c in (*HOT_COLUMNS, "time_ns")}),
            timeline.counters.iloc[0:0])
    if context_of(timeline).mask_of("kernel").any():
        return none
    uc = _kernel_rows(timeline, timeline.tables.get("unattached_counters"))
    ul = timeline.tables.get("untimed_launches")
    parts = []
    if ul is not None and len(ul):
        parts.append(ul[ul["kind"].astype(str) == "kernel"])
    if uc is not None and len(uc) and {"dispatch_seq", "name"} <= set(uc.columns):
        parts.append(uc[["dispatch_seq", "name", "device_id"]])
    if not parts:
        return none
    disp = pd.concat(parts, ignore_index=True).drop_duplicates("dispatch_seq").sort_values("dispatch_seq",
                                                                                          kind="stable")
    names = disp["name"].astype(str)
    mean, calls, crit = _summary_means(results)
    key = names.map(_norm)
    if critical_only and crit is not None:
        keep = key.isin(crit).to_numpy()
        disp, names, key = disp[keep], names[keep], key[keep]
    if not len(disp):
        return none
    t = _spread(key.to_numpy(dtype=object), mean, calls)
    n = len(disp)

    def col(c: str, dtype: str = "Int64") -> Any:
        return pd.array(disp[c], dtype=dtype) if c in disp else all_missing(n, dtype)

    hot = pd.DataFrame({
        "event_id": disp["dispatch_seq"].to_numpy(dtype="int64"), "name": pd.Series(names.to_numpy(), dtype=object),
        "start_ns": all_missing(n), "dur_ns": t,
        "rank": col("rank").fillna(0).to_numpy(dtype="int64"),
        "device_id": col("device_id").fillna(0).to_numpy(dtype="int64"), "stream_id": col("stream_id"),
        **{c: col(c) for c in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "regs_per_thread",
                               "smem_static_bytes", "smem_dynamic_bytes")},
        "time_ns": t})
    return hot.reset_index(drop=True), untimed_counters(timeline, hot["event_id"].to_numpy())


def untimed_counters(timeline: Timeline, seqs: np.ndarray) -> pd.DataFrame:
    """The Counters rows (``event_id`` = ``dispatch_seq``, ``metric``, ``value``, ``unit``, ``source``) of the untimed
    dispatches ``seqs``: their ``unattached_counters`` rows, the first value per (dispatch, metric)."""
    from gpulens.timeline import COUNTER_COLUMNS, make_table

    uc = timeline.tables.get("unattached_counters")
    if uc is None or not len(uc) or not len(seqs):
        return timeline.counters.iloc[0:0]
    u = uc[uc["dispatch_seq"].isin(np.asarray(seqs))].drop_duplicates(["dispatch_seq", "metric"])
    unit = u["unit"].astype(str).to_numpy() if "unit" in u else np.full(len(u), "")
    source = u["source"].astype(str).to_numpy() if "source" in u else np.full(len(u), "")
    return make_table(COUNTER_COLUMNS, {
        "event_id": u["dispatch_seq"].to_numpy(dtype="int64"), "metric": u["metric"].astype(str).tolist(),
        "value": pd.to_numeric(u["value"], errors="coerce").to_numpy(dtype="float64"), "unit": unit.tolist(),
        "source": source.tolist()}, n=len(u))


def _norm(name: str) -> str:
    from gpulens.timeline.names import normalize_kernel_name

    return normalize_kernel_name(str(name))


def _spread(keys: np.ndarray, mean: dict[str, float], calls: dict[str, int]) -> np.ndarray:
    """Duration [ns, int64] of each untimed dispatch (``keys``: its normalised kernel name): the kernel's mean
    duration; when the dispatches of a kernel are as many as its summary's calls, its total split over them in whole
    ns (``total // n``, one ns more for the first ``total % n``), so their sum is the summary's total exactly."""
    out = np.zeros(len(keys), dtype="int64")
    for k in pd.unique(keys):
        rows = np.flatnonzero(keys == k)
        m = mean.get(k)
        if m is None:
            continue
        n = len(rows)
        if calls.get(k) == n:
            total = int(round(m * n))
            out[rows] = total // n
            out[rows[: total % n]] += 1
        else:
            out[rows] = int(round(m))
    return out


def _summary_means(results: Mapping[str, Any] | None) -> tuple[dict[str, float], dict[str, int], set[str] | None]:
    """(normalised kernel name → mean duration [ns] from the hotspots table, → its calls, the critical names or None
    when hotspots ranked none)."""
    hs = (results or {}).get("hotspots")
    if hs is None or hs.skipped or not len(hs.table):
        return {}, {}, None
    t = hs.table
    key = t["name"].astype(str).map(_norm)
    calls = pd.to_numeric(t["calls"], errors="coerce")
    eff = pd.to_numeric(t["effective_ns"], errors="coerce")
    mean = (eff / calls.where(calls > 0)).to_numpy(dtype="float64")
    means = {k: float(m) for k, m in zip(key, mean) if m == m and m > 0}
    ncalls = {k: int(c) for k, c in zip(key, calls) if c == c}
    crit = set(key[t["critical"].to_numpy(dtype=bool) & (t["kind"].astype(str) == "kernel").to_numpy()]) \
        if "critical" in t else None
    return means, ncalls, crit
