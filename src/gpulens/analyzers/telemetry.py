"""GPU telemetry recorded during a live profile: per-GPU ranges of utilisation, clocks, power, temperature, memory,
and findings for clock drops and power/thermal throttling.

Reads Counters rows with a ``time_ns`` and a ``telemetry.<quantity>.gpu<N>`` metric (written by
:mod:`gpulens.profiler.telemetry`) and the Timeline source whose collector is ``telemetry`` (availability and why not).

* **Throttling**: samples whose NVML clocks-event bitmask has a power/thermal slowdown bit
  (SwPowerCap 0x4, HwSlowdown 0x8, SwThermal 0x20, HwThermal 0x40, HwPowerBrake 0x80; nvml.h). Time at stake =
  Σ over busy throttled samples of the median sampling interval × (1 − SM clock / highest busy SM clock): the time
  the work would have saved at full clock if it scaled with the clock (an upper bound), not the throttled time.
* **Clock drop**: among busy samples (GPU utilisation > 0 and not flagged GpuIdle), the SM clock falls more than
  :data:`CLOCK_DROP` below the highest busy sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import category_mask
from gpulens.timeline import Timeline

#: quantity → base unit of its value (the sampler converts MHz → Hz and mW → W).
QUANTITIES: dict[str, str] = {
    "gpu_util": "%",  # share of the driver's sampling window in which a kernel ran
    "mem_util": "%",  # share of the window in which device memory was read or written
    "sm_clock": "Hz",
    "mem_clock": "Hz",
    "power": "W",
    "temperature": "degC",
    "memory_used": "bytes",
    "clock_event_reasons": "",  # NVML clocks-event reason bitmask
}
METRIC_PREFIX = "telemetry."

def metric_name(quantity: str, device: int) -> str:
    """Counters ``metric`` for ``quantity`` of GPU ``device`` (``telemetry.sm_clock.gpu0``)."""
    return f"{METRIC_PREFIX}{quantity}.gpu{device}"


def parse_metric(metric: str) -> tuple[str, int] | None:
    """Inverse of :func:`metric_name`: ``(quantity, device)``, or None for other metrics."""
    if not metric.startswith(METRIC_PREFIX):
        return None
    q, _, dev = metric[len(METRIC_PREFIX):].rpartition(".gpu")
    return (q, int(dev)) if q and dev.isascii() and dev.isdigit() else None


#: Fractional SM-clock fall (vs the highest busy sample) reported as a clock drop.
CLOCK_DROP = 0.10
#: NVML clocks-event reason bits meaning a power or thermal slowdown (nvml.h).
SLOWDOWN_BITS = {0x4: "SwPowerCap", 0x8: "HwSlowdown", 0x20: "SwThermalSlowdown", 0x40: "HwThermalSlowdown",
                 0x80: "HwPowerBrakeSlowdown"}
IDLE_BIT = 0x1

COLUMNS = {
    "device_id": "GPU ordinal as the process saw it",
    "quantity": "gpu_util, mem_util, sm_clock, mem_clock, power, temperature, memory_used",
    "unit": "unit of min/mean/max (%, Hz, W, degC, bytes)",
    "samples": "number of samples",
    "min": "smallest sample",
    "mean": "mean of the samples",
    "max": "largest sample",
}


def telemetry_frame(timeline: Timeline) -> pd.DataFrame:
    """Telemetry samples as a wide frame: one row per (device_id, time_ns), one column per quantity."""
    co = timeline.counters
    co = co[co["time_ns"].notna().to_numpy() & category_mask(co["metric"], lambda m: m.startswith(METRIC_PREFIX))]
    if not len(co):
        return pd.DataFrame()
    parts = co["metric"].astype(str).str[len(METRIC_PREFIX):].str.extract(r"^(?P<quantity>.+)\.gpu(?P<device_id>\d+)$")
    df = pd.DataFrame({"device_id": parts["device_id"].astype("int64").to_numpy(),
                       "quantity": parts["quantity"].to_numpy(), "time_ns": co["time_ns"].astype("int64").to_numpy(),
                       "value": co["value"].to_numpy()})
    return df.pivot_table(index=["device_id", "time_ns"], columns="quantity", values="value",
                          aggfunc="last").reset_index()


class Telemetry(Analyzer):
    """Summarises telemetry counter tracks; skipped (saying why) when none were recorded."""

    name = "telemetry"
    order = 60

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        status = next((s for s in timeline.meta.sources if s.get("collector") == "telemetry"), None)
        wide = telemetry_frame(timeline)
        empty = pd.DataFrame(columns=list(COLUMNS))
        if status is not None and not status.get("available"):
            return AnalysisResult(self.name, empty, COLUMNS, {"available": False, "reason": status.get("reason")},
                                  skipped_reason=f"telemetry unavailable: {status.get('reason')}")
        if not len(wide):
            why = "no telemetry samples fell inside the recorded window" if status else \
                "no telemetry in the input (record it with gpulens.profile() or `gpulens profile`)"
            return AnalysisResult(self.name, empty, COLUMNS, {"available": status is not None}, skipped_reason=why)
        units = {q: u for q, u in QUANTITIES.items() if u}
        rows, findings = [], []
        for dev, g in wide.groupby("device_id"):
            for q in [c for c in units if c in g]:
                v = g[q].dropna()
                if len(v):
                    rows.append({"device_id": int(dev), "quantity": q, "unit": units[q], "samples": int(len(v)),
                                 "min": float(v.min()), "mean": float(v.mean()), "max": float(v.max())})
            findings += _findings(int(dev), g.sort_values("time_ns"))
        summary = {"available": True, "backend": (status or {}).get("backend"),
                   "samples": int(len(wide)), "devices": sorted(int(d) for d in wide["device_id"].unique())}
        return AnalysisResult(self.name, pd.DataFrame(rows, columns=list(COLUMNS)), COLUMNS, summary, findings)


def _findings(dev: int, g: pd.DataFrame) -> list[Finding]:
    """Throttling and clock-drop findings of one GPU. Time at stake of both: Σ over the busy samples concerned of
    interval × (1 − SM clock / highest busy SM clock) — what the same work would have saved at the full clock if its
    time scaled with the clock (an upper bound: memory-bound work slows less); unknown (None) without SM clock
    samples. The clock drop details the throttling when they share samples (the same time, counted once)."""
    out = []
    t = g["time_ns"].to_numpy()
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    reasons = g["clock_event_reasons"].fillna(0).astype("int64").to_numpy() if "clock_event_reasons" in g \
        else np.zeros(len(g), dtype="int64")
    mask = sum(SLOWDOWN_BITS)
    thr = (reasons & mask) != 0
    busy = (reasons & IDLE_BIT) == 0
    if "gpu_util" in g:
        busy &= g["gpu_util"].fillna(0).to_numpy() > 0
    clk = g["sm_clock"].to_numpy(dtype=float) if "sm_clock" in g else np.full(len(g), np.nan)
    ok = busy & ~np.isnan(clk)
    top = float(clk[ok].max()) if ok.any() else float("nan")

    def slowed_ns(sel: np.ndarray) -> int | None:
        s = sel & ok
        if not dt or top != top or not s.any():
            return None
        return int(round(dt * float(np.clip(1.0 - clk[s] / top, 0.0, 1.0).sum())))

    thr_key = f"telemetry/throttling/gpu{dev}"
    if thr.any():
        seen = [n for b, n in SLOWDOWN_BITS.items() if (reasons[thr] & b).any()]
        out.append(Finding(
            f"GPU {dev} was throttled ({', '.join(seen)}) in {int(thr.sum()):,} of {len(g):,} telemetry samples",
            "The driver lowered clocks for power or heat while the workload ran; kernel times in these periods are "
            "inflated. At stake: interval × (1 − clock / highest busy clock) over the busy throttled samples. "
            "Check cooling, power limits (nvidia-smi -q -d PERFORMANCE) and co-located jobs.",
            "warning", "throttling", slowed_ns(thr), key=thr_key))
    if ok.sum() >= 2:
        low = ok & (clk < (1 - CLOCK_DROP) * top)
        if low.any():
            out.append(Finding(
                f"GPU {dev} SM clock dropped from {top / 1e6:.0f} MHz to {clk[low].min() / 1e6:.0f} MHz "
                f"while busy ({int(low.sum()):,} of {int(ok.sum()):,} busy samples)",
                f"More than {CLOCK_DROP:.0%} below the highest busy clock; "
                + ("throttle reasons were set at the same time." if (thr & low).any()
                   else "no throttle reason was reported (application clocks or boost behaviour)."),
                "warning", "clock-drop", slowed_ns(low), key=f"telemetry/clock-drop/gpu{dev}",
                parent=thr_key if (thr & low).any() else None))
    return out
