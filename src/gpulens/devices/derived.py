"""Peak figures derived from what a trace records of an NVIDIA GPU that no built-in spec names.

An Nsight Compute report (``device__attribute_*``: ``clock_rate`` [kHz], ``multiprocessor_count``,
``memory_clock_rate`` [kHz], ``global_memory_bus_width`` [bits], ``compute_capability_major/minor``) and an Nsight
Systems export (``TARGET_INFO_GPU``: ``clockRate``, ``smCount``, ``memoryBandwidth``, ``computeMajor/Minor``) record
the hardware facts a peak is computed from. A laptop part (its boost clock set by the maker's power limit, so no one
datasheet figure), a workstation or a newer board gpulens has no table row for would otherwise get no roofline at all.

Rules (each figure says how it was derived, and is marked uncertain):

* vector FP32 / FP64 peak = SMs × FLOP per clock per SM × the recorded clock. The FLOP per clock per SM of the
  record's compute capability is the one the built-in datasheet figures of that capability imply (their peak / (SMs
  × boost clock), the median rounded to a power of two: 256 FP32 FLOP/clk/SM on 8.6, 8.9, 9.0 and 12.0, 128 on 7.x
  and 8.0 — the CUDA Programming Guide's "Throughput of Native Arithmetic Instructions" table, 128 or 64 FP32 results
  per clock per SM, × 2 for the FMA). A capability no built-in GPU has gets no compute figure.
* DRAM bandwidth = the recorded bandwidth (nsys), else 2 × the memory clock × the bus width / 8 (double data rate:
  CUDA's ``memoryClockRate`` × ``memoryBusWidth`` formula of NVIDIA's deviceQuery / bandwidth samples; an RTX 3090's
  9,751 MHz × 384 bits gives its datasheet 936 GB/s).
* no tensor-core (matrix) peak: its rate per SM differs between data-centre and GeForce parts of one capability, so
  matrix roofs stay unknown rather than guessed.

MIG instances (a share of the parent's memory slices) and AMD records get nothing here.
"""

from __future__ import annotations

import math
from statistics import median
from typing import Any, Mapping

from gpulens.devices.spec import DeviceSpec, Figure

#: The words a derived spec's name carries after the recorded name, in every report that names the spec.
DERIVED_WORDS = "derived figures"


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) and f > 0 else None


def flop_per_clock_per_sm(cc: str, key: str, specs: tuple[DeviceSpec, ...]) -> tuple[float, list[str]] | None:
    """(FLOP per clock per SM of figure ``key`` (``vector.fp32``), the built-in parts it comes from) for compute
    capability ``cc``: the median over the built-in NVIDIA specs of that capability of peak / (SMs × clock), rounded
    to the nearest power of two (datasheet peaks are rounded: 127.5–129 for 128); None when no built-in part has it."""
    rates, parts = [], []
    for s in specs:
        clock, peak = s.figure_value("clock_mhz"), s.figure_value(key)
        if s.vendor == "nvidia" and s.compute_capability == cc and clock and peak and s.num_sms:
            rates.append(peak / (s.num_sms * clock * 1e6))
            parts.append(s.name)
    if not rates:
        return None
    return float(2 ** round(math.log2(median(rates)))), parts


def _bandwidth(rec: Mapping[str, Any]) -> tuple[float, str] | None:
    """The record's DRAM bandwidth [bytes/s] and how it was had, or None."""
    bw = _num(rec.get("memory_bandwidth_bytes_per_s"))
    if bw:
        return bw, "as recorded by the profiler"
    clk, bus = _num(rec.get("memory_clock_rate_hz")), _num(rec.get("memory_bus_width_bits"))
    if clk and bus:
        return 2 * clk * bus / 8, (f"2 × memory clock {clk / 1e6:,.0f} MHz × {bus:.0f}-bit bus / 8 "
                                   "(CUDA deviceQuery's peak-bandwidth formula)")
    return None


def derived_spec(rec: Mapping[str, Any], specs: tuple[DeviceSpec, ...]) -> DeviceSpec | None:
    """A DeviceSpec for a recorded NVIDIA GPU (a ``Timeline.meta.devices`` entry) from its own recorded compute
    capability, SM count, clock and memory interface (module docstring), or None when the record lacks the compute
    capability, SM count or clock, names a MIG instance, or its capability has no built-in part to take the FLOP per
    clock per SM from. ``specs``: the built-in specs (:data:`gpulens.devices.SPECS`).

    The spec's ``name`` is the recorded name with :data:`DERIVED_WORDS`; its ``note`` lists each figure's derivation.
    """
    from gpulens.devices import MIG_NAME, _is_amd

    name = str(rec.get("name") or "").strip()
    cc = str(rec.get("compute_capability") or "").strip()
    sms, clock = _num(rec.get("num_sms")), _num(rec.get("clock_hz"))
    if _is_amd(rec) or not cc or not sms or not clock or MIG_NAME.search(name):
        return None
    figures: dict[str, Figure] = {"clock_mhz": Figure(clock / 1e6, "as recorded by the profiler")}
    said = []
    for key in ("vector.fp32", "vector.fp64"):
        got = flop_per_clock_per_sm(cc, key, specs)
        if got is None:
            continue
        rate, parts = got
        peak = sms * rate * clock
        figures[key] = Figure(peak, f"derived: {sms:.0f} SMs × {rate:g} FLOP/clk/SM × {clock / 1e6:,.0f} MHz (the "
                                    f"FLOP/clk/SM of compute capability {cc}'s built-in parts: {', '.join(parts)})",
                              True)
        said.append(f"{key.split('.')[1].upper()} {peak / 1e12:.3g} TFLOP/s ({rate:g} FLOP/clk/SM)")
    if "vector.fp32" not in figures:
        return None  # no compute roof: the spec would carry a bandwidth only (the roofline needs both)
    bw = _bandwidth(rec)
    if bw is not None:
        figures["memory_bandwidth"] = Figure(bw[0], f"derived: {bw[1]}", True)
    l2 = _num(rec.get("l2_cache_bytes"))
    if l2:
        figures["l2"] = Figure(l2, "as recorded by the profiler")
    label = name or f"NVIDIA GPU of compute capability {cc}"
    note = (f"no built-in spec names it: {', '.join(said)} from its {sms:.0f} SMs at {clock / 1e6:,.0f} MHz as "
            f"compute capability {cc}'s built-in parts run"
            + (f"; DRAM {bw[0] / 1e9:,.1f} GB/s {'as recorded' if bw[1].startswith('as') else 'from its memory clock and bus width'}"
               if bw else "; DRAM bandwidth not recorded")
            + "; no tensor-core peak (pass --device-spec FILE for matrix roofs)")
    return DeviceSpec(name=f"{label} ({DERIVED_WORDS})", vendor="nvidia", compute_capability=cc, gfx_arch=None,
                      num_sms=int(sms), memory_bytes=int(rec["total_memory_bytes"])
                      if _num(rec.get("total_memory_bytes")) else None, figures=figures, note=note)
