"""Stall reasons → stall classes, for NVIDIA warp-state metrics and AMD wavefront cycle counters (data + parsing).

A *reason* is what the hardware reports (``long_scoreboard``, AMD ``Dependency Wait``); a *class* groups reasons
that call for the same fix. The grouping follows the meanings in Nsight Compute's Kernel Profiling Guide
(warp-state descriptions) and rocprofiler-compute's pipeline-metrics page; it is stated in docs/analyzers.md.

Classes (``STALL_CLASSES``):

* ``memory_latency`` — waiting for the result of a memory access (global/local/texture via L1TEX, shared
  memory / MIO via short scoreboard, constant-cache misses; AMD dependency wait, PC-sampling ``WAITCNT``);
* ``memory_throughput`` — a memory-side queue is full (MIO, LG, TEX throttles; store drain; AMD issue wait on LDS
  instructions, ``SQ_WAIT_INST_LDS``);
* ``compute_pipe`` — an arithmetic pipe is busy or a fixed-latency ALU dependency (math-pipe throttle, ``wait``;
  AMD issue wait other than LDS — pipe back-pressure, which also includes lost arbitration —, PC-sampling
  ``ALU_DEPENDENCY``/``ARBITER_WIN_EX_STALL``);
* ``synchronization`` — barrier, memory barrier, sleeping (AMD ``BARRIER_WAIT``, ``SLEEP_WAIT``);
* ``instruction_fetch`` — no instruction fetched yet, branch target resolution;
* ``scheduling`` — eligible but another warp issued, dispatcher held it (AMD ``ARBITER_NOT_WIN``);
* ``other`` — ``misc`` and any reason not listed here.

``selected`` (NVIDIA) and AMD *active* cycles are issue cycles, not stalls: they are reported as the issue share
and excluded from stall shares.
"""

from __future__ import annotations

import re
from typing import NamedTuple

STALL_CLASSES: tuple[str, ...] = (
    "memory_latency", "memory_throughput", "compute_pipe", "synchronization", "instruction_fetch", "scheduling",
    "other",
)

#: NVIDIA warp-state reason (ncu metric spelling) → class. Includes pre-Volta (nvprof-era) spellings.
NVIDIA_REASON_CLASS: dict[str, str] = {
    "long_scoreboard": "memory_latency",
    "short_scoreboard": "memory_latency",
    "imc_miss": "memory_latency",
    "memory_dependency": "memory_latency",
    "constant_memory_dependency": "memory_latency",
    "mio_throttle": "memory_throughput",
    "lg_throttle": "memory_throughput",
    "tex_throttle": "memory_throughput",
    "drain": "memory_throughput",
    "memory_throttle": "memory_throughput",
    "texture": "memory_throughput",
    "math_pipe_throttle": "compute_pipe",
    "wait": "compute_pipe",
    "execution_dependency": "compute_pipe",
    "pipe_busy": "compute_pipe",
    "tensor_throttle": "compute_pipe",
    "barrier": "synchronization",
    "membar": "synchronization",
    "sleeping": "synchronization",
    "sync": "synchronization",
    "branch_resolving": "instruction_fetch",
    "no_instruction": "instruction_fetch",
    "no_instructions": "instruction_fetch",
    "inst_fetch": "instruction_fetch",
    "not_selected": "scheduling",
    "dispatch_stall": "scheduling",
    "misc": "other",
    "other": "other",
}
#: Reasons that are issue cycles, not stalls.
ISSUE_REASONS = frozenset({"selected"})

#: AMD rocprof counters (quad-cycle units; ratios cancel the ×4) → reason. ``SQ_WAVE_CYCLES`` is the total.
AMD_COUNTER_REASON: dict[str, str] = {
    "SQ_WAIT_ANY": "dependency_wait",
    "SQ_WAIT_INST_ANY": "issue_wait",
    "SQ_ACTIVE_INST_ANY": "active",
    "SQ_WAIT_INST_LDS": "lds_issue_wait",  # part of SQ_WAIT_INST_ANY: split out of issue_wait when present
}
AMD_REASON_CLASS: dict[str, str] = {
    "dependency_wait": "memory_latency",
    "issue_wait": "compute_pipe",
    "lds_issue_wait": "memory_throughput",
    # rocprofiler-sdk PC sampling (CDNA3/CDNA4) not-issued reasons
    "waitcnt": "memory_latency",
    "alu_dependency": "compute_pipe",
    "arbiter_win_ex_stall": "compute_pipe",
    "barrier_wait": "synchronization",
    "sleep_wait": "synchronization",
    "no_instruction_available": "instruction_fetch",
    "arbiter_not_win": "scheduling",
    "internal_instruction": "other",
    "other_wait": "other",
}
AMD_ISSUE_REASONS = frozenset({"active"})

# Metric families, most direct first: a kernel's shares come from the first family it has.
_NV_FAMILIES: tuple[tuple[str, re.Pattern], ...] = (
    ("pcsamp", re.compile(r"^smsp__pcsamp_warps_issue_stalled_(?P<r>[a-z_]+?)(?:\.\w+)?$")),
    ("per_issue", re.compile(r"^smsp__average_warps?_issue_stalled_(?P<r>[a-z_]+?)_per_issue_active(?:\.\w+)?$")),
    ("per_warp", re.compile(r"^smsp__warps?_issue_stalled_(?P<r>[a-z_]+?)_per_warp_active(?:\.\w+)?$")),
    ("latency", re.compile(r"^smsp__average_warp_latency_issue_stalled_(?P<r>[a-z_]+?)(?:\.\w+)?$")),
)
_AMD_PCS = re.compile(r"(?:^|[._:\s])(?P<r>NO_INSTRUCTION_AVAILABLE|ALU_DEPENDENCY|WAITCNT|INTERNAL_INSTRUCTION|"
                      r"BARRIER_WAIT|ARBITER_NOT_WIN|ARBITER_WIN_EX_STALL|OTHER_WAIT|SLEEP_WAIT)$", re.IGNORECASE)
AMD_TOTAL = "SQ_WAVE_CYCLES"

#: Speed-of-light percentages (ncu raw metric names, and the details-page names when the unit is %; the 2019–2022
#: labels as in :mod:`gpulens.analyzers._sol_nvidia`).
SOL_METRICS: dict[str, tuple[str, ...]] = {
    "memory_sol_pct": ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory Throughput",
                       "Memory [%]", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput",
                       "SOL FB", "SOL DRAM"),
    "compute_sol_pct": ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput",
                        "Compute (SM) [%]", "SM [%]"),
}
#: Occupancy percentages as ncu records them (raw metric names and details-page names).
OCCUPANCY_METRICS: dict[str, tuple[str, ...]] = {
    "achieved_occupancy_pct": ("sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy"),
    "theoretical_occupancy_pct": ("sm__maximum_warps_per_active_cycle_pct", "Theoretical Occupancy"),
}


class StallMetric(NamedTuple):
    """A counter recognised as a stall-reason measurement.

    Attributes:
        vendor: ``"nvidia"`` or ``"amd"``.
        family: metric family (``pcsamp``, ``per_issue``, ``per_warp``, ``latency``; AMD ``wave_cycles``,
            ``pcsamp``); shares are only ever computed within one family.
        reason: the reason as the tool names it, lower-case (``long_scoreboard``, ``dependency_wait``).
        stall_class: one of :data:`STALL_CLASSES`, or ``"issue"`` for issue cycles.
    """

    vendor: str
    family: str
    reason: str
    stall_class: str


def parse_metric(metric: str) -> StallMetric | None:
    """Recognise a counter name as a stall-reason metric; None for anything else.

    NVIDIA: the four ncu families (PC-sampling counts, per-issue ratios, per-warp-active %, average latency);
    ``_not_issued`` PC-sampling variants are ignored (the plain counts already include them). AMD: the wavefront
    cycle counters of :data:`AMD_COUNTER_REASON` and rocprofiler-sdk PC-sampling reason names.
    """
    if metric.endswith("_not_issued") or "_not_issued." in metric:
        return None
    for family, rx in _NV_FAMILIES:
        m = rx.match(metric)
        if m:
            r = m.group("r")
            cls = "issue" if r in ISSUE_REASONS else NVIDIA_REASON_CLASS.get(r, "other")
            return StallMetric("nvidia", family, r, cls)
    if metric in AMD_COUNTER_REASON:
        r = AMD_COUNTER_REASON[metric]
        return StallMetric("amd", "wave_cycles", r, "issue" if r in AMD_ISSUE_REASONS else AMD_REASON_CLASS[r])
    m = _AMD_PCS.search(metric)
    if m:
        r = m.group("r").lower()
        return StallMetric("amd", "pcsamp", r, AMD_REASON_CLASS[r])
    return None


def shares(values: dict[str, float], family_of: dict[str, StallMetric], total: float | None = None
           ) -> tuple[dict[str, float], dict[str, float], float | None]:
    """Reason and class shares of stall time for one kernel within one metric family.

    Args:
        values: reason → summed value (counts, cycles per issue, %, or latency: anything proportional to the
            stall cycles of that reason).
        family_of: reason → its :class:`StallMetric` (for the class).
        total: all cycles the values are part of (AMD ``SQ_WAVE_CYCLES``), when known.

    Returns:
        (reason → fraction of stall time, class → fraction of stall time, issue fraction or None). Fractions of
        stall time exclude issue cycles and sum to 1 (empty dicts when no stall was recorded). The issue fraction
        is issue cycles / all cycles when the family records issue cycles. For AMD wave cycles, cycles in neither
        dependency wait, issue wait nor active count as ``other``.
    """
    stall = {r: max(float(v), 0.0) for r, v in values.items() if family_of[r].stall_class != "issue"}
    issue = sum(max(float(v), 0.0) for r, v in values.items() if family_of[r].stall_class == "issue")
    issue_frac = None
    if total is not None and total > 0:
        rest = total - issue - sum(stall.values())
        if rest > 0:
            stall["unaccounted"] = rest
        issue_frac = issue / total if any(family_of[r].stall_class == "issue" for r in values) else None
    elif any(family_of[r].stall_class == "issue" for r in values):
        denom = issue + sum(stall.values())
        issue_frac = issue / denom if denom > 0 else None
    s = sum(stall.values())
    if s <= 0:
        return {}, {}, issue_frac
    reason_share = {r: v / s for r, v in sorted(stall.items(), key=lambda kv: -kv[1])}
    class_share = dict.fromkeys(STALL_CLASSES, 0.0)
    for r, f in reason_share.items():
        class_share[family_of[r].stall_class if r in family_of else "other"] += f
    return reason_share, class_share, issue_frac
