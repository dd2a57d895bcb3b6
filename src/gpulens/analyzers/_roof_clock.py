"""The SM clock a profiler recorded while it measured the kernels (the roofline's compute roofs are scaled to it:
:mod:`gpulens.devices.clocks`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.timeline import Timeline

#: Nsight Compute's SM clock per kernel: the raw metric and its GPU Speed Of Light section's "SM Frequency" [Hz]
SM_CLOCK_METRICS = ("sm__cycles_elapsed.avg.per_second", "SM Frequency")


def recorded_sm_clock_hz(timeline: Timeline) -> float | None:
    """The median over the profiled kernels of the SM clock ncu recorded for each [Hz] (a kernel's first of
    :data:`SM_CLOCK_METRICS`), None when no kernel has one in Hz."""
    c = timeline.counters
    if not len(c):
        return None
    metric = c["metric"]
    # a Kineto trace has no such metric: asked of the categories, not of its millions of counter rows (issue 16)
    if isinstance(metric.dtype, pd.CategoricalDtype) and not set(SM_CLOCK_METRICS) & set(metric.cat.categories):
        return None
    rows = metric.isin(SM_CLOCK_METRICS).to_numpy()
    if not rows.any():
        return None
    m = c[rows]
    m = m[(m["unit"].astype(str) == "Hz").to_numpy()]  # the unit as text on the clock rows only
    if not len(m):
        return None
    v = m.groupby("event_id", observed=True, sort=False)["value"].first().to_numpy(dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    return float(np.median(v)) if len(v) else None
