"""Nsight Compute's own occupancy figures (Occupancy and Launch Statistics sections) per launch, and the grid's
wave arithmetic shared by the occupancy analyzer.

ncu spells each figure two ways: the metric name (``--page raw``, ``--metrics``, ``.ncu-rep``) and the section
label (``--page details``). Both are listed here; the first present wins.

Definitions (Nsight Compute Kernel Profiling Guide, "Occupancy" and "Launch Statistics" sections):

* **theoretical occupancy** = min(block limits) × warps per block / warp slots per SM — what registers, shared
  memory, warp slots, the per-SM block cap (and, on newer ncu, barriers) allow; *not* capped by the grid;
* **achieved occupancy** = mean active warps per active cycle / warp slots (``sm__warps_active.avg.
  pct_of_peak_sustained_active``);
* **grid waves** = grid blocks / (active blocks per SM × SMs) (``launch__waves_per_multiprocessor``, ncu's "Waves Per
  SM": a count for the whole grid, not per SM). The grid's
  effect on occupancy is reported through it, separately from the theoretical figure: the last wave holds
  ``frac(waves)`` of a full wave (:func:`tail_wave_pct`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: ncu's theoretical occupancy [%].
THEORETICAL = ("sm__maximum_warps_per_active_cycle_pct", "Theoretical Occupancy")
#: ncu's achieved occupancy [%].
ACHIEVED = ("sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy")
#: Block limits per SM by resource, as gpulens names the resource.
BLOCK_LIMITS = {
    "registers": ("launch__occupancy_limit_registers", "Block Limit Registers"),
    "shared_memory": ("launch__occupancy_limit_shared_mem", "Block Limit Shared Mem"),
    "warps": ("launch__occupancy_limit_warps", "Block Limit Warps"),
    "blocks": ("launch__occupancy_limit_blocks", "Block Limit SM"),
    "barriers": ("launch__occupancy_limit_barriers", "Block Limit Barriers"),
}
#: Waves per SM as ncu computes it.
WAVES = ("launch__waves_per_multiprocessor", "Waves Per SM")
#: Shared memory the driver reserves per block [bytes].
DRIVER_SMEM = ("launch__shared_mem_per_block_driver", "Driver Shared Memory Per Block")
#: Every metric name read here (for :func:`gpulens.analyzers._hot.event_counters`).
ALL = THEORETICAL + ACHIEVED + WAVES + DRIVER_SMEM + tuple(n for v in BLOCK_LIMITS.values() for n in v)
#: Order in which tied limiters are named (structural limits first, as in :mod:`gpulens.devices.occupancy`).
ORDER = ("warps", "blocks", "barriers", "registers", "shared_memory")


def first_of(ctr: pd.DataFrame, names: tuple[str, ...], n: int) -> np.ndarray:
    """Per row of ``ctr`` (event × metric), the first of ``names`` that is present (NaN when none)."""
    out = np.full(n, np.nan)
    for m in names:
        if m in ctr:
            v = ctr[m].to_numpy(dtype=float)
            out = np.where(np.isnan(out), v, out)
    return out


def ncu_block_limits(ctr: pd.DataFrame, n: int) -> tuple[np.ndarray, np.ndarray]:
    """ncu's active blocks per SM (min over its block limits; NaN without limits) and the binding limiter(s) per
    row (object array of str), tied resources joined with ``", "`` in :data:`ORDER` (``"registers,
    shared_memory"``); ``""`` without. Vectorised: each row's set of tied limits is a bit mask, named once."""
    lim = {k: first_of(ctr, v, n) for k, v in BLOCK_LIMITS.items()}
    stack = np.vstack([lim[k] for k in ORDER]) if n else np.zeros((len(ORDER), 0))
    with np.errstate(all="ignore"):
        active = np.where(np.isnan(stack).all(axis=0), np.nan, np.nanmin(np.where(np.isnan(stack), np.inf, stack),
                                                                         axis=0))
    bits = ((stack == active) * (1 << np.arange(len(ORDER)))[:, None]).sum(axis=0) if n else np.zeros(0, int)
    table = np.array([", ".join(k for j, k in enumerate(ORDER) if m >> j & 1) for m in range(1 << len(ORDER))],
                     dtype=object)
    names = table[bits.astype("int64")]
    names[np.isnan(active)] = ""
    return active, names


def waves_per_sm(grid_blocks: np.ndarray, active_blocks: np.ndarray, num_sms: np.ndarray) -> np.ndarray:
    """Grid blocks / (active blocks per SM × SMs); NaN when any input is unknown or zero."""
    g, a, s = (np.asarray(x, dtype=float) for x in (grid_blocks, active_blocks, num_sms))
    with np.errstate(all="ignore"):
        return np.where((a > 0) & (s > 0) & (g > 0), g / (a * s), np.nan)


#: How far ncu's printed ``launch__waves_per_multiprocessor`` may lie from grid / (active blocks × SMs) and still be
#: that figure rounded: ncu's CSV prints it with 2 decimals (0.86 for 256 / 296 = 0.8649), so ±0.005 plus slack.
WAVES_PRINT_TOL = 0.0051


def exact_waves(computed: np.ndarray, ncu_waves: np.ndarray) -> np.ndarray:
    """Waves per launch: the exact grid / (active blocks per SM × SMs) ``computed`` where ncu's
    ``launch__waves_per_multiprocessor`` is that figure rounded for print (within :data:`WAVES_PRINT_TOL`), or ncu
    recorded none; ncu's figure where the two disagree beyond rounding (ncu saw the launch, the calculator may not
    know it). A B200 flash kernel of 256 blocks at 2 per SM on 148 SMs fills 86.5 % of one wave, not ncu's printed
    0.86 — its wave loss is 13.5 % of its time, not 14 %."""
    c, w = np.asarray(computed, dtype=float), np.asarray(ncu_waves, dtype=float)
    with np.errstate(all="ignore"):
        use_ncu = ~np.isnan(w) & ~(np.abs(c - w) <= WAVES_PRINT_TOL)
    return np.where(use_ncu, w, c)


def tail_wave_pct(waves: np.ndarray) -> np.ndarray:
    """How full the last wave is [%]: frac(waves) × 100, or 100 when the grid is a whole number of waves.

    A grid of 0.97 waves (128 blocks, 1 per SM, 132 SMs) has one partial wave 97 % full; 2.25 waves leave the
    third wave 25 % full, so the SMs idle for most of it.
    """
    w = np.asarray(waves, dtype=float)
    frac = w - np.floor(w)
    return np.where(np.isnan(w), np.nan, np.where(np.isclose(frac, 0.0, atol=1e-9) & (w > 0), 100.0, 100.0 * frac))


def wave_efficiency_pct(waves: np.ndarray) -> np.ndarray:
    """Mean fill of the block slots over the waves the grid needs [%]: waves / ⌈waves⌉ × 100."""
    w = np.asarray(waves, dtype=float)
    with np.errstate(all="ignore"):
        return np.where(w > 0, 100.0 * w / np.ceil(w), np.nan)
