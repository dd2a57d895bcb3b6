"""Compute roofs at the SM clock a measurement ran at, where the input records it.

A datasheet's FLOP/s peaks are SM count × FLOP per clock per SM × the *boost* clock. A GPU whose clock was locked or
held lower while it was profiled (ncu locks it to the base clock by default, ``--clock-control base``) could never
reach those peaks in that run: its attainable compute roof is the peak × recorded clock / datasheet clock. Nsight
Compute records the clock per kernel ("SM Frequency" in its GPU Speed Of Light section,
``sm__cycles_elapsed.avg.per_second``); the RTX 5090 CUTLASS GEMM of the corpus ran at 2.00 GHz against the
whitepaper's 2.407 GHz boost, so its bf16 roof there is 209.5 × 2.00 / 2.407 = 174.1 TFLOP/s, not 209.5.

Memory roofs are not scaled: ncu's "DRAM Frequency" is a command clock whose data-rate factor differs per memory
generation (GDDR6X/GDDR7 signalling, HBM's double data rate), so it does not convert to bytes/s without that factor.
"""

from __future__ import annotations

from dataclasses import replace

from gpulens.devices.spec import DeviceSpec, Figure

#: a recorded clock within this share of the datasheet's leaves the roofs as they are (rounding of "2.41 GHz")
CLOCK_TOLERANCE = 0.01
#: the figures that scale with the SM clock: the datasheet's FLOP/s peaks (SMs × FLOP/clk/SM × its boost clock). Not
#: the achievable ones (``achievable.*``, measured matmul FLOP/s such as MAMF): a measurement already runs at the
#: clock the GPU sustains under that load, which is not the datasheet's boost clock either
_COMPUTE_PREFIXES = ("vector.", "matrix.")


def at_recorded_clock(spec: DeviceSpec, clock_hz: float | None) -> tuple[DeviceSpec, str | None]:
    """(``spec`` with its FLOP/s peaks scaled to ``clock_hz``, the words naming the clock the roofs use) — the spec
    unchanged and None when no clock was recorded, the spec has no ``clock_mhz`` or the two agree within
    :data:`CLOCK_TOLERANCE`. Each scaled figure's source says so."""
    sheet = spec.figure_value("clock_mhz")
    if not clock_hz or clock_hz != clock_hz or not sheet or abs(clock_hz / (sheet * 1e6) - 1) <= CLOCK_TOLERANCE:
        return spec, None
    f = clock_hz / (sheet * 1e6)
    ghz, sheet_ghz = clock_hz / 1e9, sheet / 1e3
    figs = {k: (Figure(v.value * f, f"{v.source} × {ghz:.2f} / {sheet_ghz:.3g} GHz (recorded SM clock)",
                       v.uncertain) if k.startswith(_COMPUTE_PREFIXES) else v) for k, v in spec.figures.items()}
    words = (f"compute roofs at the {ghz:.2f} GHz SM clock the profiler recorded, not the datasheet's "
             f"{sheet_ghz:.3g} GHz; memory roof as rated")
    return replace(spec, figures=figs, note=(spec.note + "; " if spec.note else "") + words), words
