"""Time at stake of a kernel: the one definition every finding, table and report shows.

``time at stake = time × (1 − attained / attainable)``: the GPU time the kernel would save if it ran at the roof
that bounds it (roofline model, Williams et al. 2009; attainable = min(peak FLOP/s, AI × peak bandwidth)). The
attained share comes from, in order:

1. the ``roofline`` analyzer's ``roof_pct`` (attained FLOP/s, or bandwidth use on the memory side, over the
   attainable performance at the kernel's arithmetic intensity);
2. with counters and no roofline row, the ``speed_of_light`` analyzer (Nsight Compute / rocprof-compute): the
   largest of compute %, memory % and DRAM % of peak — the unit closest to its roof, as the vendors'
   speed-of-light sections read (an L2-bound kernel at 94 % memory throughput has little left to gain even at
   10 % of DRAM bandwidth).

A kernel with neither has no roofline figure (``None``): other rules (exposed communication, launch overhead) state
their own quantity and say so.
"""

from __future__ import annotations

import math
from typing import Any


#: Speed-of-light share of peak from which a unit bounds the kernel (Nsight Compute's SOL rule: below 60 % on both
#: compute and memory "typically indicates latency issues").
SOL_BOUND_PCT = 60.0


def _pct(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def time_at_stake(time_ns: float, attained_pct: float | None) -> int | None:
    """``time_ns × (1 − attained_pct / 100)`` rounded to ns, attained share clipped to [0, 100] %; None when the
    attained share is unknown."""
    p = _pct(attained_pct)
    if p is None:
        return None
    return int(round(float(time_ns) * (1.0 - min(max(p, 0.0), 100.0) / 100.0)))


def sol_attained_pct(row: dict[str, Any] | None) -> float | None:
    """Attained share of the roof [%] from a ``speed_of_light`` row: max(compute %, memory %, DRAM %). With one side
    not counted, only a known side at ≥ :data:`SOL_BOUND_PCT` % counts (the kernel is at least that close to a
    roof); a low figure alone does not say how far the other roof is (None)."""
    if not row:
        return None
    comp = _pct(row.get("compute_pct"))
    mem = [v for v in (_pct(row.get(k)) for k in ("memory_pct", "dram_pct")) if v is not None]
    vals = ([comp] if comp is not None else []) + mem
    if not vals or ((comp is None or not mem) and max(vals) < SOL_BOUND_PCT):
        return None
    return max(vals)


def attained_pct(roof_row: dict[str, Any] | None, sol_row: dict[str, Any] | None) -> tuple[float | None, str]:
    """(attained share of the roof [%], where it came from: ``"roofline"``, ``"speed of light"`` or ``""``)."""
    p = _pct((roof_row or {}).get("roof_pct"))
    if p is not None:
        return p, "roofline"
    p = sol_attained_pct(sol_row)
    return (p, "speed of light") if p is not None else (None, "")
