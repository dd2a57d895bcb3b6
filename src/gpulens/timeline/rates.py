"""The one definition of an impossible throughput counter: a bandwidth no GPU reaches is no measurement.

A profiler's rate counter (ncu Memory Workload Analysis "Memory Throughput" = DRAM bytes per second, printed in
``Gbyte/second``; any ncu ``*.per_second`` byte metric; stored in base units, ``bytes/s``, by the collectors) is
bounded by the hardware. The largest bandwidth any counter of any GPU can measure is an on-chip aggregate — L1 /
shared memory (LDS) over all SMs / CUs — which stays well below :data:`BYTES_PER_S_MAX`:

* AMD Instinct MI355X (CDNA4): 256 CUs × 256 B/clk LDS reads × 2.4 GHz ≈ 157 TB/s (an upper estimate: the CDNA4
  whitepaper's doubled LDS read width at the peak engine clock);
* NVIDIA B200: 148 SMs × 128 B/clk L1 × 1.965 GHz ≈ 37 TB/s; H100 SXM: 132 × 128 B/clk × 1.98 GHz ≈ 33 TB/s;
* HBM/DRAM peaks are lower still (8 TB/s on B200 and MI355X datasheets).

So :data:`BYTES_PER_S_MAX` = 1 PB/s (10^15 B/s), 6× above the largest of these, never drops a real measurement
and catches what is no measurement: an ncu "Memory Throughput" of 1,532 Tbyte/second (1.532 × 10^15 B/s; a unit
slip of 1,000×, a counter wrap, a corrupt cell). ``Timeline.validate`` drops such counter values (unknown from then
on, for every analyzer) with one warning counting them (:func:`rate_over`, :func:`rate_warning`), as it drops
percentages above 100 (:mod:`gpulens.timeline.percent`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.units import plural

#: The largest byte rate that is a measurement [bytes/s] (see the module docstring for the derivation).
BYTES_PER_S_MAX = 1e15

#: Counter units (as the collectors store them) that are byte rates.
BYTE_RATE_UNITS = frozenset({"bytes/s", "B/s", "byte/s"})


def rate_over(units, values) -> np.ndarray:
    """Mask of the counter rows whose unit is a byte rate (:data:`BYTE_RATE_UNITS`) and whose value exceeds
    :data:`BYTES_PER_S_MAX` (NaN and NA are not)."""
    v = values if isinstance(values, np.ndarray) and values.dtype.kind == "f" else \
        pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    with np.errstate(invalid="ignore"):
        over = v > BYTES_PER_S_MAX
    if units is None:
        return np.zeros(len(v), dtype=bool)
    if not over.any():
        return over
    rows = np.flatnonzero(over)
    u = pd.Series(units).iloc[rows].astype(str).str.strip().to_numpy()
    out = np.zeros(len(over), dtype=bool)
    out[rows] = [x in BYTE_RATE_UNITS for x in u]
    return out


def rate_warning(over: np.ndarray, metrics, what: str = "") -> str | None:
    """The one warning counting the byte-rate counter values beyond any GPU (None when there are none); ``what``
    qualifies them (``"per-kernel "``)."""
    n = int(np.count_nonzero(over))
    if not n:
        return None
    names = sorted(set(pd.Series(metrics).astype(str).to_numpy()[over]))
    return (f"{plural(n, what + 'throughput counter value(s)')} above 1 PB/s dropped (unknown now: no GPU moves data "
            f"that fast): {', '.join(names[:3])[:160]}")
