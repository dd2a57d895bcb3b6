"""Time at stake of a kernel: the one definition every finding, table and report shows.

``time at stake = time − max(time × attained / attainable, launches × KERNEL_FLOOR_NS)``: the GPU time the kernel
would save if it ran at the roof that bounds it (roofline model, Williams et al. 2009; attainable = min(peak FLOP/s,
AI × peak bandwidth)) — bounded twice, so a kernel far below its roof is not promised its whole time:

* the roof is the *achievable* one where the device spec documents it (what a tuned GEMM reaches: TraceLens'
  max-achievable FLOPS for MI300X/MI325X, measured MAMF for A100/H100/B200; :meth:`DeviceSpec.achievable_flops`),
  so the stake is the time above what the roof allows at the achievable peak, not at a datasheet peak no kernel
  reaches;
* no launch runs in less than :data:`KERNEL_FLOOR_NS` of GPU time, however little work it does (torchao's roofline
  model: 2 µs, measured as the GPU time of a one-element Triton kernel on an H100), so ``n`` launches keep at
  least ``n × 2 µs`` (a kernel of 1,000 launches of 3 µs each at 1 % of its roof has 1 ms at stake, not 2.97 ms).

The attained share comes from, in order:

1. the ``roofline`` analyzer's ``roof_pct`` (attained FLOP/s, or bandwidth use on the memory side, over the
   attainable performance at the kernel's arithmetic intensity);
2. with counters and no roofline row, the ``speed_of_light`` analyzer (Nsight Compute / rocprof-compute): the
   largest of compute %, memory % and DRAM % of peak — the unit closest to its roof, as the vendors'
   speed-of-light sections read (an L2-bound kernel at 94 % memory throughput has little left to gain even at
   10 % of DRAM bandwidth).

A kernel verdict that rests on the measured speed of light (:mod:`gpulens.analyzers.verdict_rules`, rule 3) takes
its attained share from there even when a roofline row exists: the figure at stake is the distance of the basis that
decided, and a roofline on an assumed GPU's peaks is no measurement.

A kernel with neither has no roofline figure (``None``): other rules (exposed communication, launch overhead) state
their own quantity and say so.

Occupancy findings use two further estimates (:func:`wave_loss_ns`, :func:`occupancy_gain_bound_ns`), each an upper
bound on what fixing that one thing could recover, never the kernel's whole time:

* **wave quantization** (grid fill and tail): a launch of ``W`` waves (grid blocks / (resident blocks per SM × SMs))
  runs ``⌈W⌉`` waves of blocks, the last one ``W − ⌊W⌋`` full; with every block taking the same time the SMs idle
  for ``(⌈W⌉ − W) / ⌈W⌉`` of the launch, so at most ``t × (1 − W / ⌈W⌉)`` is recoverable (a grid filling ``f < 1``
  of one wave: ``(1 − f) × t``). Summed per launch, so launches of one kernel with different grids are each counted
  with their own ``W``. Source: NVIDIA Deep Learning Performance Guide, "Matrix Multiplication Background"
  (wave quantization); Nsight Compute Launch Statistics ("Waves Per SM", the tail-effect rule).
* **occupancy** (a register / shared-memory limiter, achieved below theoretical): more resident warps only speed up
  a kernel bound by latency (Little's law: throughput = warps in flight / latency). Without evidence that the kernel
  is latency-bound the gain is unknown (``None``); with it (the roofline, or speed-of-light counters in the verdict,
  put it below both roofs) the gain is at
  most ``t × (1 − occupancy / possible occupancy)`` (throughput proportional to resident warps) and at most the
  kernel's distance to its roof (:func:`time_at_stake`).
"""

from __future__ import annotations

import math
import re
from typing import Any

from gpulens.units import fmt_ns


#: Speed-of-light share of peak from which a unit bounds the kernel (Nsight Compute's SOL rule: below 60 % on both
#: compute and memory "typically indicates latency issues").
SOL_BOUND_PCT = 60.0


def _pct(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


#: The least GPU time one kernel launch takes whatever its work [ns]: torchao's ``KERNEL_LAUNCH_OVERHEAD_SEC`` (2 µs,
#: "run a triton kernel with a single element read/write on an H100 and measure GPU time from the trace",
#: pytorch/ao torchao/testing/training/roofline_utils.py; shared/reference/gpu-facts.md §1.2, AO).
KERNEL_FLOOR_NS = 2_000


def time_at_stake(time_ns: float, attained_pct: float | None, calls: int | None = None) -> int | None:
    """``time_ns − max(time_ns × attained_pct / 100, calls × KERNEL_FLOOR_NS)`` rounded to ns and never below 0
    (attained share clipped to [0, 100] %; without ``calls`` no floor); None when the attained share is unknown."""
    p = _pct(attained_pct)
    if p is None:
        return None
    t = float(time_ns)
    keep = max(t * min(max(p, 0.0), 100.0) / 100.0, float(calls or 0) * KERNEL_FLOOR_NS)
    return int(round(max(t - keep, 0.0)))


#: How every premise of :func:`assumed_premise` begins: a figure resting only on the identification of the GPU.
ASSUMED_GPU_HEAD = "if the GPU is the assumed "


def assumed_premise(device: Any, what: str = "peaks") -> str:
    """The premise of a time at stake computed from an *assumed* GPU's figures (the input names no GPU, so
    :func:`gpulens.devices.identify_device` assumed one: :attr:`DeviceSpec.assumed`): the figure holds only if the
    GPU is that one. ``what``: ``"peaks"`` (a roofline distance on its peak FLOP/s and bandwidth) or ``"sms"`` (waves
    on its SM/CU count). "" when the GPU was read from the input (the figure needs no premise)."""
    if device is None or not getattr(device, "assumed", False):
        return ""
    if what == "sms":
        n = getattr(device, "num_sms", None)
        unit = "CUs" if getattr(device, "vendor", "") == "amd" else "SMs"
        if getattr(device, "sms_inferred", False):  # the count was inferred from the trace, the name from the count
            from gpulens.devices.spec import SMS_INFERRED_FROM

            return f"{ASSUMED_GPU_HEAD}{device.name} ({n}{SMS_INFERRED_FROM}; the input records no GPU name)"
        return (f"{ASSUMED_GPU_HEAD}{device.name} ({n} {unit}; the input records no GPU name or "
                f"{unit[:-1]} count)")
    return f"{ASSUMED_GPU_HEAD}{device.name} (the input does not name it; the figure rests on its peaks)"


def upper_clause(upper_ns: int | None, device: Any, at_least: bool = True, basis: str = "") -> str:
    """The clause shown after a time at stake that is a measured lower bound (``at_least``: an L1-led memory-bound
    kernel's distance to its saturated L1/shared-memory peak, :attr:`Verdict.stake_at_least
    <gpulens.analyzers._verdict_facts.Verdict>`), naming its upper bound ``upper_ns`` [ns] — its distance to the
    roofline, resting on an assumed GPU's peaks — or saying it is unknown (no FLOP count): ``"at least its distance
    to the L1 peak (at 96.4 % of it, measured speed of light); up to 603.93 µs, its distance to the roofline, if the GPU is the assumed NVIDIA H200 SXM (…)"``. "" when the figure is
    not a lower bound.

    The ranking rule this serves (one for every report, :func:`gpulens.analyzers._tree.rank_key`): a finding ranks
    by the figure the input determines — a measured figure or a lower bound as it is, its upper bound only named
    beside it; an estimate resting only on an assumed GPU's figures by itself when nothing measured stands beside
    it; an upper bound resting on a premise about the kernel after all of those.

    ``basis``: what the lower bound is the distance to (:attr:`Verdict.stake_basis
    <gpulens.analyzers._verdict_facts.Verdict>`, "from memory at 97.2 % of its peak (measured speed of light)"),
    named after "at least"."""
    if not at_least:
        return ""
    # "at least, from L1 at 97.2 % of its peak (…)" read garbled: the figure is the distance to that unit's peak
    m = re.match(r"^from (.+) at (.+?) of its peak \((.+)\)$", basis or "")
    least = (f"at least its distance to the {m[1]} peak (at {m[2]} of it, {m[3]})" if m
             else f"at least its distance {basis}" if basis else "at least")
    if upper_ns is None or upper_ns != upper_ns:
        return f"{least}; up to its distance to the roofline, unknown without its FLOP count"
    name = getattr(device, "name", None) or "identified GPU"
    return (f"{least}; up to {fmt_ns(upper_ns)}, its distance to the roofline, {ASSUMED_GPU_HEAD}{name} "
            "(the input does not name it; that figure rests on its peaks)")


def premise_beside(title: str, premise: str) -> str:
    """``premise`` as shown after ``title``: an :func:`assumed_premise` whose GPU the title already names as assumed
    ("46.3 % of its roofline on an assumed NVIDIA A100 40GB SXM") says the assumption once — "if the GPU is that
    one (…)" — not the GPU's name a second time. Other premises unchanged."""
    m = re.match(rf"^{re.escape(ASSUMED_GPU_HEAD)}(.+?)( \(.*\))$", premise or "")
    if m and f"assumed {m[1]}" in (title or ""):
        return f"if the GPU is that one{m[2]}"
    return premise or ""


def only_assumed_gpu(premise: str) -> bool:
    """True when every part of ``premise`` (parts joined by :func:`gpulens.analyzers._occ_findings.join_premises`)
    is an :func:`assumed_premise`: the figure is measured time against the identified GPU's figures — the best
    estimate the input allows, not an upper bound that holds only if the kernel's bound is what was assumed."""
    parts = [p for p in str(premise or "").split("; and ") if p]
    return bool(parts) and all(p.startswith(ASSUMED_GPU_HEAD) for p in parts)


def floor_stake(time_ns: float, calls: int | None) -> int:
    """The most any fix can save of a kernel of ``calls`` launches taking ``time_ns`` in all:
    ``max(time − calls × KERNEL_FLOOR_NS, 0)`` [ns] (every launch keeps the floor)."""
    return int(round(max(float(time_ns) - float(calls or 0) * KERNEL_FLOOR_NS, 0.0)))


#: Why the launch floor caps a time at stake, in a GPU engineer's words (:func:`floor_cap_words`).
FLOOR_WHY = "even an empty kernel takes that much GPU time"


def floor_cap_words(whose: str = "its", stake_ns: float | None = None) -> str:
    """The launch floor as the cap of a time at stake (:func:`floor_capped`), after "capped": what the cap is and
    why — "at its time less 2.00 µs for each launch: even an empty kernel takes that much GPU time" (the launch count
    is the calls column beside it: one wording for every kernel, so a report's stake notes of floor-capped kernels
    are one note, not one per launch count). It read "at its time less 2.00 µs per launch", which left the reader
    to guess why. ``whose``: the owner of the
    time ("the kernel's" where "its" would name another thing); ``stake_ns``: the capped figure, named before the
    reason ("… 17 launches (64.72 µs): even …")."""
    at = f" ({fmt_ns(stake_ns)})" if stake_ns is not None else ""
    return f"at {whose} time less {fmt_ns(KERNEL_FLOOR_NS)} for each launch{at}: {FLOOR_WHY}"


def floor_capped(stake_ns: Any, time_ns: Any, calls: int | None) -> bool:
    """True when a time at stake ``stake_ns`` [ns] is the launch floor's (:func:`floor_stake` of ``time_ns`` and
    ``calls``): that cap, not the figure it was computed from, sets it — the text must name the floor
    (:func:`floor_cap_words`), not "its distance to the roof" (the demo's CUTLASS GEMM: 98.72 µs − 17 × 2 µs =
    64.72 µs, read as its distance to the roof). False when either figure is unknown."""
    try:
        st, t = float(stake_ns), float(time_ns)
    except (TypeError, ValueError):
        return False
    return st == st and t == t and t > 0 and st >= floor_stake(t, calls)


def wave_loss_ns(time_ns: Any, waves: Any) -> float:
    """Σ over launches of ``time × (1 − W / ⌈W⌉)`` [ns]: the time a launch of ``W`` waves idles SMs in partly
    filled waves (module doc). Launches with an unknown or non-positive ``W`` add 0; NaN when none is known."""
    import numpy as np

    t = np.asarray(time_ns, dtype=float)
    w = np.asarray(waves, dtype=float)
    ok = (w > 0) & ~np.isnan(w) & ~np.isnan(t)
    if not ok.any():
        return float("nan")
    return float((t[ok] * (1.0 - w[ok] / np.ceil(w[ok]))).sum())


def wave_loss_per_launch(time_ns: Any, waves: Any) -> Any:
    """Per launch ``time × (1 − W / ⌈W⌉)`` [ns] (NaN where ``W`` is unknown or not positive), as :func:`wave_loss_ns`
    sums it."""
    import numpy as np

    t = np.asarray(time_ns, dtype=float)
    w = np.asarray(waves, dtype=float)
    with np.errstate(all="ignore"):
        return np.where((w > 0) & ~np.isnan(w), t * (1.0 - w / np.ceil(w)), np.nan)


def occupancy_gain_bound_ns(time_ns: float, occupancy_pct: float | None, possible_pct: float | None,
                            roof_stake_ns: float | None) -> int | None:
    """Upper bound [ns] on what raising occupancy from ``occupancy_pct`` to ``possible_pct`` could recover, for a
    kernel shown to be latency-bound (``roof_stake_ns``: its distance to the roof, :func:`time_at_stake`):
    ``min(t × (1 − occupancy / possible), roof stake)``. None when the kernel is not shown to be latency-bound
    (``roof_stake_ns`` None) or a figure is missing: the gain is then unknown."""
    occ, pos, roof = _pct(occupancy_pct), _pct(possible_pct), _pct(roof_stake_ns)
    if roof is None or occ is None or pos is None or pos <= 0:
        return None
    share = max(0.0, 1.0 - min(occ, pos) / pos)
    return int(round(min(float(time_ns) * share, roof)))


#: How the L1 figure that decides a bound (``l1_run_pct``) is windowed, in the words a person reads beside it —
#: one definition for the verdict steps and evidence (ncu's own L1/TEX Cache Throughput is of the SMs' active cycles:
#: 99.74 % for the H200 gemm_wmma whose L1 was 96.4 % of peak over its elapsed cycles).
L1_ELAPSED_WORDS = "over its elapsed cycles"
#: The window of ncu's own ``l1_pct`` when no elapsed figure can be derived from it.
L1_ACTIVE_WORDS = "while its SMs were active"


def l1_of_row(row: Any) -> tuple[float | None, str]:
    """(the L1/TEX % of peak a ``speed_of_light`` row's bound rests on, its window in words): ``l1_run_pct`` over the
    kernel's elapsed cycles (:data:`L1_ELAPSED_WORDS`) when known, else ncu's own ``l1_pct`` of the SMs' active
    cycles (:data:`L1_ACTIVE_WORDS`); (None, "") when neither is counted. The one choice the bound, the time at
    stake and the verdict's words make."""
    for col, words in (("l1_run_pct", L1_ELAPSED_WORDS), ("l1_pct", L1_ACTIVE_WORDS)):
        v = _pct(row.get(col)) if row is not None else None
        if v is not None:
            if col == "l1_pct" and row.get("vendor") == "amd":
                words = L1_ELAPSED_WORDS  # rocprof-compute's vL1D % is over the kernel's duration
            return v, words
    return None, ""


#: The name of each speed-of-light unit whose % of peak can limit a kernel (the ``speed_of_light`` table's words,
#: ``FIG_WORDS``): the unit a measured time at stake is the distance to — "memory" is the profiler's own memory
#: throughput (ncu: its busiest memory unit), the others one unit each.
SOL_UNIT_WORDS = {"compute_pct": "compute", "tensor_pct": "tensor pipe", "memory_pct": "memory", "dram_pct": "DRAM",
                  "dram_measured_pct": "DRAM (measured peak)", "l1": "L1", "l2_pct": "L2"}


def sol_limit(row: dict[str, Any] | None) -> tuple[float | None, str | None]:
    """(attained share of the roof [%], the unit it is of) from a ``speed_of_light`` row: the largest of compute %,
    tensor pipe %, memory %, DRAM %, DRAM % of the measured HBM peak (rocprof-compute roofline.csv), L1 % over the
    run and L2 % — the limiting unit, as
    the ``speed_of_light`` table's own time at stake reads it; its name from :data:`SOL_UNIT_WORDS` (a tie goes to
    the first in that order; the profiler's memory throughput named by its level, :func:`memory_level`). The ncu
    H200 saxpy: memory 66.83, DRAM 66.83, L2 79.61 → (79.61, "L2"); gemm_naive: memory 97.22, L1 97.15 → (97.22,
    "L1").
    With one side not counted, only a known side at ≥ :data:`SOL_BOUND_PCT` % counts (the kernel is at least that
    close to a roof); a low figure alone does not say how far the other roof is ((None, None))."""
    if not row:
        return None, None
    # L1 over the kernel's elapsed cycles (l1_of_row), as the table's bound reads it
    got = {k: (l1_of_row(row)[0] if k == "l1" else _pct(row.get(k))) for k in SOL_UNIT_WORDS}
    got = {k: v for k, v in got.items() if v is not None}
    has_comp = any(k in got for k in ("compute_pct", "tensor_pct"))
    has_mem = any(k not in ("compute_pct", "tensor_pct") for k in got)
    if not got or ((not has_comp or not has_mem) and max(got.values()) < SOL_BOUND_PCT):
        return None, None
    k = max(got, key=lambda x: got[x])  # the first of equal maxima, in SOL_UNIT_WORDS' order
    return got[k], memory_level(k, got)


#: How close (percentage points) one memory level's own % of peak must be to the profiler's memory throughput for
#: that throughput to be named as that level's: the L1 figure over elapsed cycles and ncu's own differ by rounding and
#: by the cycles they count (H200 gemm_naive: memory 97.22, L1 97.15).
LEVEL_MATCH_POINTS = 1.0


def memory_level(key: str, got: dict[str, float]) -> str:
    """The name of the limiting unit ``key`` (a :data:`SOL_UNIT_WORDS` key) of a row whose figures are ``got``
    (key → % of peak): the profiler's memory throughput (``memory_pct``: ncu's Memory Throughput is the busiest of
    its memory units) is named by the level it is — the busiest of DRAM, L1 and L2 when that one is within
    :data:`LEVEL_MATCH_POINTS` of it — so the bound's level and its % of peak are named by one rule (the H200
    ncu CSV's gemm_naive read "memory (L1)" beside "97.2 (memory)"); "memory" when no level matches."""
    if key != "memory_pct":
        return SOL_UNIT_WORDS[key]
    levels = [(got[k], k) for k in ("dram_pct", "l1", "l2_pct") if k in got]
    if levels:
        top, k = max(levels)
        if abs(got[key] - top) <= LEVEL_MATCH_POINTS:
            return SOL_UNIT_WORDS[k]
    return SOL_UNIT_WORDS[key]


#: The cache a memory bound rests on, by the unit its % of peak is of (:func:`sol_limit`): the roofline table's
#: ``bound_unit`` (None for DRAM: the level the roofline draws).
CACHE_OF_UNIT = {"L1": "L1/TEX", "L2": "L2"}


def sol_attained_pct(row: dict[str, Any] | None) -> float | None:
    """Attained share of the roof [%] from a ``speed_of_light`` row: the limiting unit's (:func:`sol_limit`)."""
    return sol_limit(row)[0]


def attained_pct(roof_row: dict[str, Any] | None, sol_row: dict[str, Any] | None) -> tuple[float | None, str]:
    """(attained share of the roof [%], where it came from: ``"roofline"``, ``"speed of light"`` or ``""``)."""
    p = _pct((roof_row or {}).get("roof_pct"))
    if p is not None:
        return p, "roofline"
    p = sol_attained_pct(sol_row)
    return (p, "speed of light") if p is not None else (None, "")
