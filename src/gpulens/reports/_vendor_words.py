"""Column headers in the vendor's words (SMs and warps for NVIDIA, CUs, wavefronts and LDS for AMD, both when the
vendor is unknown) and the vendor a recorded device belongs to — re-exported by :mod:`gpulens.reports._format`."""

from __future__ import annotations

import re
from typing import Any, Mapping

#: Headers that name a vendor's unit: (NVIDIA, AMD, vendor unknown) — :func:`vendor_label`. The one place that maps a
#: launch/occupancy concept to each vendor's word: NVIDIA's CUDA C++ Programming Guide says thread, block, warp, SM,
#: registers, shared memory; AMD's HIP Programming Guide and CDNA ISA say work-item, workgroup, wavefront, CU, VGPRs
#: (vector registers, one per work-item: rocprof's ``arch_vgpr`` + ``accum_vgpr``), LDS (local data share).
VENDOR_LABELS: dict[str, tuple[str, str, str]] = {
    "num_sms": ("SMs", "CUs", "SMs / CUs"),
    # the speed of light's issue figure as each profiler names it: ncu's "Issue Slots Busy"
    # (sm__inst_issued.avg.pct_of_peak_sustained_active); rocprof-compute's "IPC" (SQ_INSTS / SQ_BUSY_CU_CYCLES),
    # shown as a % of its peak of 5 instructions per cycle (analyzers._sol_amd)
    "issue_slot_pct": ("issue slots busy", "IPC (% of 5/cycle)", "issue slots busy (AMD: IPC % of 5/cycle)"),
    "warp_size": ("warp size", "wavefront size", "warp (wavefront) size"),
    "block_size": ("block size", "workgroup size", "block (workgroup) size"),
    "regs_per_thread": ("registers / thread", "VGPRs / work-item", "registers / thread (VGPRs / work-item)"),
    "active_blocks_per_sm": ("blocks / SM", "workgroups / CU", "blocks / SM or CU"),
    "grid_blocks": ("grid blocks", "grid workgroups", "grid blocks (workgroups)"),
    # grid blocks / (blocks resident per SM × SMs): how many times the whole grid fills the GPU — grid waves, not a
    # count per SM (ncu's "Waves Per SM" is this same ratio); on AMD "waves" alone reads as wavefronts and "per CU" as
    # a count per CU, so every vendor reads "grid waves" (the column doc gives the formula)
    "waves_per_sm": ("grid waves", "grid waves", "grid waves"),
    "tail_wave_pct": ("tail wave %", "tail grid wave %", "tail (grid) wave %"),
    "wave_loss_ns": ("wave loss", "grid wave loss", "(grid) wave loss"),
    "smem_bytes": ("shared memory / block", "LDS / workgroup", "shared memory (LDS) / block"),
    "max_threads_per_sm": ("max threads / SM", "max work-items / CU", "max threads / SM or CU"),
    "max_threads_per_block": ("max threads / block", "max work-items / workgroup",
                              "max threads / block (work-items / workgroup)"),
    "regs_per_block": ("registers / block", "registers / workgroup", "registers / block (workgroup)"),
    "max_warps_per_sm": ("max warps / SM", "max wavefronts / CU", "max warps / SM (wavefronts / CU)"),
    "max_blocks_per_sm": ("max blocks / SM", "max workgroups / CU", "max blocks / SM or CU"),
    "regs_per_sm": ("registers / SM", "registers / CU", "registers / SM or CU"),
    "smem_per_sm_bytes": ("shared memory / SM", "LDS / CU", "shared memory (LDS) / SM or CU"),
    "smem_per_block_bytes": ("shared memory / block", "LDS / workgroup", "shared memory (LDS) / block"),
    "smem_per_block_optin_bytes": ("shared memory / block, opt-in", "LDS / workgroup, opt-in",
                                   "shared memory (LDS) / block, opt-in"),
}
_AMD_NAME = re.compile(r"\bAMD\b|Instinct|Radeon|\bMI[0-9]{3}", re.I)
_NVIDIA_NAME = re.compile(r"NVIDIA|GeForce|Tesla|Quadro|\bRTX\b", re.I)


#: The console's narrow headers that name a vendor's unit: (NVIDIA, AMD, vendor unknown).
VENDOR_SHORT_LABELS: dict[str, tuple[str, str, str]] = {
    "block_size": ("block", "WG size", "block"),  # WG: workgroup (AMD's abbreviation, e.g. rocprof-compute)
    "regs_per_thread": ("regs", "VGPRs", "regs"),
    "active_blocks_per_sm": ("blk/SM", "WG/CU", "blk/SM·CU"),
    "smem_bytes": ("smem KiB", "LDS KiB", "smem/LDS KiB"),  # values: :func:`kib_text` (binary, as GPU docs give it)
    "waves_per_sm": ("waves", "grid waves", "waves"),
}


def vendor_short_label(column: str, vendor: str | None) -> str:
    """``column``'s narrow console header in ``vendor``'s words (:data:`VENDOR_SHORT_LABELS`): an AMD occupancy
    table says ``LDS KiB`` and ``grid waves`` (a wavefront is a "wave" on AMD), an NVIDIA one ``smem KiB`` and
    ``waves``."""
    words = VENDOR_SHORT_LABELS[column]
    return words[0] if vendor == "nvidia" else words[1] if vendor == "amd" else words[2]


def vendor_label(column: str, vendor: str | None, default: str = "", doc: str = "") -> str:
    """``column``'s header in ``vendor``'s words (:data:`VENDOR_LABELS`: SMs for NVIDIA, CUs for AMD, both when
    unknown); ``default`` (else :func:`column_label`) for a column that names no vendor's unit."""
    words = VENDOR_LABELS.get(column)
    if words is None:
        from gpulens.reports._format import column_label

        return default or column_label(column)
    label = words[0] if vendor == "nvidia" else words[1] if vendor == "amd" else words[2]
    if column == "grid_blocks" and "that configuration" in (doc or ""):
        # the occupancy row's grid is its configuration with the most time, not the time-weighted mean grid of a
        # kernel's verdict evidence (gunrock MI300X: 18,937 beside a mean of 27,260): ``doc`` says which
        label += " (grid with the most time)"
    return label


def record_vendor(rec: Mapping[str, Any]) -> str | None:
    """``"amd"`` / ``"nvidia"`` of a recorded device (an AMD ``gfx`` architecture; else the vendor its name says —
    a ROCm Kineto trace records HIP's "compute capability" 9.4 for an "AMD Instinct MI300X"; else a CUDA compute
    capability), None when the record says neither."""
    if rec.get("gfx_arch"):
        return "amd"
    name = str(rec.get("name") or "")
    if _AMD_NAME.search(name):
        return "amd"
    if _NVIDIA_NAME.search(name):
        return "nvidia"
    return "nvidia" if rec.get("compute_capability") else None


def vendor_headers(columns: Any, vendor: str | None, docs: Mapping[str, str] | None = None) -> dict[str, str]:
    """Headers of the ``columns`` that name a vendor's unit (:data:`VENDOR_LABELS`) in ``vendor``'s words — the
    ``headers`` argument of the HTML and Markdown tables; other columns keep their usual label. ``docs`` (the
    result's column docs) qualify a header whose meaning its doc narrows (:func:`vendor_label`)."""
    docs = docs or {}
    return {c: vendor_label(c, vendor, doc=str(docs.get(c) or "")) for c in columns if c in VENDOR_LABELS}


def source_vendor(source: Any) -> str | None:
    """``"amd"`` / ``"nvidia"`` of one input of a report (its device spec, recorded devices, collectors or runtime
    calls: :func:`gpulens.analyzers._advice_vendor.vendor_of`); None when unknown."""
    from gpulens.analyzers._advice_vendor import vendor_of

    tl = getattr(source, "timeline", None)
    return vendor_of(tl, getattr(source, "device", None)) if tl is not None else None
