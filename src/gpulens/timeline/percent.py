"""The one definition of an impossible percentage, shared by every analyzer that shows a profiler's own % figure.

A percentage a profiler measures (ncu ``lts__t_sector_hit_rate.pct``, Kineto ``est. achieved occupancy %``,
rocprof's derived ``GPUBusy``) cannot exceed 100: a value above :data:`PCT_MAX` is not a measurement (a rounding of
the profiler's own, a counter wrap, a corrupt cell) and is shown as unknown, and the number of such values is counted
in the result's summary under :data:`IMPOSSIBLE_KEY` (described by :data:`IMPOSSIBLE_DOC`).

Two places apply it: ``Timeline.validate`` drops the percentage *counter* values above 100 (unknown from then on,
for every analyzer) with one counted warning (:func:`percent_over`, :func:`warning_of`), as it drops negative and
infinite counters; analyzers that compute or aggregate a ``*_pct`` figure make the ones above 100 unknown and count
them (:func:`unknown_above_100`).

Which counters are percentages: unit ``%`` (ncu prints one; Kineto's estimate has one), or one of the rocprof /
rocprof-compute derived metrics whose unit AMD documents as a percentage (:data:`AMD_PERCENT_COUNTERS`; rocprof
``--list-derived`` and GPUPerfAPI's counter tables: GPUBusy "the percentage of time GPU was busy", VALUBusy,
SALUBusy, VALUUtilization, MemUnitBusy, MemUnitStalled, WriteUnitStalled, ALUStalledByLDS, LDSBankConflict,
L2CacheHit; rocprofiler-sdk counter_defs.yaml: OccupancyPercent "GPU Occupancy as % of maximum").

One kind of percentage exceeds 100 by its definition and is kept: ncu's ``.max`` rollup of a
``pct_of_peak_*_active`` ratio (:func:`exceeds_100_by_design`) — the busiest unit over the average unit's active
cycles. A hit rate above 100 (``lts__t_sector_op_write_hit_rate.pct`` 129.5 % on the same capture) stays a fault.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from gpulens.units import plural

#: The largest percentage that is a measurement (beyond it: unknown).
PCT_MAX = 100.0

#: rocprof / rocprof-compute derived counters documented as percentages (unit "Percentage").
AMD_PERCENT_COUNTERS = frozenset({"GPUBusy", "VALUBusy", "SALUBusy", "VALUUtilization", "MemUnitBusy",
                                  "MemUnitStalled", "WriteUnitStalled", "ALUStalledByLDS", "LDSBankConflict",
                                  "L2CacheHit", "OccupancyPercent"})

#: Summary key of the count, and its declared meaning.
IMPOSSIBLE_KEY = "impossible_pct_values"
IMPOSSIBLE_DOC = ("profiler percentages above 100 (e.g. an ncu hit rate of 100.39 %, a GPUBusy of 150), shown as "
                  "unknown [count]")


#: ncu metrics printed with unit ``%`` that are no percentage of anything: the Occupancy section's graph data
#: (``derived__pct_occupancy_per_block_size`` … — the "Impact of Varying Block Size / Register Count / Shared Memory"
#: curves, 5706 on every kernel of an H200 capture). Never dropped or counted as impossible.
NOT_PERCENT_PREFIXES = ("derived__pct_occupancy_per_",)


#: ncu ``.max`` rollups of a ``pct_of_peak_*_active`` ratio: the busiest unit instance's count over one instance's
#: peak times the *average* active cycles of all instances (Nsight Compute Kernel Profiling Guide, "Metrics
#: Structure": rollup ``.max`` over unit instances, ratio ``pct_of_peak_sustained_active`` "% of peak sustained rate
#: achieved during unit active cycles"; that the active-cycle divisor is ``<unit>__cycles_active.avg`` for every
#: rollup is read off the recorded figures, below: ``.max.per_cycle_active`` = ``.sum.per_cycle_active`` when one
#: SM did all the work). Work that sits on few of the instances (a 1-block grid on a 128-SM RTX 4090: only one SM active)
#: puts it above 100, up to 100 × the instance count (victor-lvsy/seq_align profile.ncu-rep:
#: ``sm__warps_active.max.pct_of_peak_sustained_active`` 5,642.59 % = 2,708.44 warps ``max.per_cycle_active`` / 48
#: warps per SM, and 128 × its ``.avg`` 44.08 %). A measurement, not a fault: kept, never counted as impossible, and
#: never a utilisation of any one unit (:func:`exceeds_100_by_design`).
_ROLLUP_MAX_ACTIVE = re.compile(r"\.max\.pct_of_peak_(?:sustained|burst)_active$")


def exceeds_100_by_design(metric: str) -> bool:
    """True for a percentage counter whose definition lets it exceed 100 (:data:`_ROLLUP_MAX_ACTIVE`: ncu's
    ``<counter>.max.pct_of_peak_sustained_active``); such a value is kept, not dropped or warned about."""
    return bool(_ROLLUP_MAX_ACTIVE.search(str(metric)))


def is_percent_counter(metric: str, unit: str = "") -> bool:
    """True when counter ``metric`` (with its recorded ``unit``) is a percentage (see module docstring; not the
    :data:`NOT_PERCENT_PREFIXES` series)."""
    if str(metric).startswith(NOT_PERCENT_PREFIXES):
        return False
    return str(unit).strip() == "%" or str(metric) in AMD_PERCENT_COUNTERS


def above_max(values) -> np.ndarray:
    """Mask of the values above :data:`PCT_MAX` (NaN and NA are not)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":  # already numbers: no Series, no copy
        v = values
    else:
        v = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    with np.errstate(invalid="ignore"):
        return v > PCT_MAX


def unknown_above_100(table: pd.DataFrame, columns=None) -> int:
    """Turn every figure above :data:`PCT_MAX` in ``columns`` (default: every numeric ``*_pct`` column) into unknown
    (NaN), in place. Returns how many were changed."""
    n = 0
    cols = [c for c in table.columns if str(c).endswith("_pct")] if columns is None else list(columns)
    for c in cols:
        if c in table and pd.api.types.is_numeric_dtype(table[c]):
            over = above_max(table[c])
            if over.any():
                table[c] = table[c].mask(over)
                n += int(over.sum())
    return n


def percent_over(metrics, units, values) -> np.ndarray:
    """Mask of the counter rows that are percentages (:func:`is_percent_counter`) above :data:`PCT_MAX`, less the
    ones whose definition lets them exceed it (:func:`exceeds_100_by_design`)."""
    over = above_max(values)
    if not over.any():
        return over
    # texts of the rows above the maximum only: a str per row of every counter (3M rows at 1M kernels) was the
    # largest allocation of loading a trace
    rows = np.flatnonzero(over)
    m = pd.Series(metrics).iloc[rows].astype(str).to_numpy()
    u = pd.Series(units).iloc[rows].astype(str).to_numpy() if units is not None else np.full(len(rows), "")
    pct = {(a, b): is_percent_counter(a, b) and not exceeds_100_by_design(a) for a, b in set(zip(m, u))}
    out = np.zeros(len(over), dtype=bool)
    out[rows] = [pct[(a, b)] for a, b in zip(m, u)]
    return out


def warning_of(over: np.ndarray, metrics, what: str = "") -> str | None:
    """The one warning counting percentage counter values above 100 (None when there are none); ``what`` qualifies
    them (``"per-kernel "``)."""
    n = int(np.count_nonzero(over))
    if not n:
        return None
    names = sorted(set(pd.Series(metrics).astype(str).to_numpy()[over]))
    return f"{plural(n, what + 'percentage counter value(s)')} above 100 dropped (unknown now): {', '.join(names[:3])[:160]}"

