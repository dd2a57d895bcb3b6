"""Occupancy limits per architecture, as data: CUDA compute capabilities 3.5, 6.0, 6.1 and 7.0–12.1, AMD GCN gfx906 and CDNA
gfx908–gfx950.

Sources (see ``shared/reference/gpu-facts.md`` §2): NVIDIA ``cuda_occupancy.h`` (CUDA 12.6/13.0: register
allocation unit 256 per warp, 4 sub-partitions, shared-memory granularity 256 B on CC 7.x and 128 B on CC ≥ 8,
1 KiB reserved per block on CC ≥ 8, the carveout configurations, max regs/thread 256 in the calculator), the CUDA
programming guide's per-CC table (warps/blocks per SM); Nsight Compute device attributes in
``shared/traces/ncu`` (B200: 32 blocks, 64 warps, 233472 B smem/SM; RTX 5090: 24 blocks, 48 warps). AMD: LLVM
``AMDGPUBaseInfo.cpp`` (waves per SIMD, VGPR granule, SGPR occupancy steps, work-groups per CU), ROCm
``gpu-arch-specs`` (LDS per CU), ``AMDGPUUsage.rst`` (LDS granule). gfx906 (Vega 20) is a gfx9 part without AGPRs or
the unified register file: 10 waves per SIMD (rocminfo "Max Waves Per CU: 40" = 4 SIMDs × 10), 256 VGPRs in
granules of 4, LDS 64 KiB per CU (ROCm gpu-specs MI50/MI60 rows) — gfx908's rules with no accumulation registers.
Entries marked ``uncertain`` were inferred from a sibling architecture.
"""

from __future__ import annotations

from dataclasses import dataclass

KB = 1024


@dataclass(frozen=True)
class ArchLimits:
    """Per-SM (NVIDIA) or per-CU (AMD) resource limits that decide how many blocks can be resident.

    Attributes:
        arch: ``"sm_90"`` / ``"gfx90a"``.
        vendor: ``"nvidia"`` / ``"amd"``.
        warp_size: threads per warp / wavefront.
        max_warps_per_sm: resident warps (waves) per SM (CU).
        max_blocks_per_sm: resident blocks (work-groups) per SM; on AMD the multi-wave cap (barriers).
        max_threads_per_block: largest block.
        regs_per_sm: 32-bit registers per SM (NVIDIA) / VGPRs per SIMD lane (AMD, 512 unified or 256 + 256).
        regs_per_block: per-block register limit (NVIDIA).
        max_regs_per_thread: the calculator's per-thread cap.
        reg_alloc_unit: registers per warp are rounded up to this (NVIDIA 256) / VGPR granule (AMD 4 or 8).
        sub_partitions: SM sub-partitions (NVIDIA 4) / SIMDs per CU (AMD 4).
        smem_per_sm: shared memory (LDS) per SM (CU) [bytes], the largest carveout.
        smem_configs: supported carveouts [bytes] (NVIDIA), ascending.
        smem_per_block: default per-block limit [bytes] (48 KiB NVIDIA).
        smem_per_block_optin: opt-in per-block limit [bytes].
        smem_alloc_unit: shared-memory (LDS) allocation granularity [bytes].
        smem_reserved_per_block: driver-reserved shared memory per block [bytes] (1 KiB on CC ≥ 8).
        unified_vgpr: AMD: arch VGPRs and AGPRs share one file (gfx90a and later).
        sgprs_per_simd: AMD: SGPRs per SIMD (800 on gfx9).
        uncertain: figures inferred rather than read from a source.
    """

    arch: str
    vendor: str
    warp_size: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    max_threads_per_block: int
    regs_per_sm: int
    regs_per_block: int
    max_regs_per_thread: int
    reg_alloc_unit: int
    sub_partitions: int
    smem_per_sm: int
    smem_configs: tuple[int, ...]
    smem_per_block: int
    smem_per_block_optin: int
    smem_alloc_unit: int
    smem_reserved_per_block: int
    unified_vgpr: bool = False
    sgprs_per_simd: int = 0
    uncertain: bool = False


def _cfg(*kib: int) -> tuple[int, ...]:
    return tuple(k * KB for k in kib)


_V100_CFG = _cfg(0, 8, 16, 32, 64, 96)
_A100_CFG = _cfg(0, 8, 16, 32, 64, 100, 132, 164)
_GA10X_CFG = _cfg(0, 8, 16, 32, 64, 100)
_H100_CFG = _cfg(0, 8, 16, 32, 64, 100, 132, 164, 196, 228)


def _cuda(cc: str, warps: int, blocks: int, cfg: tuple[int, ...], optin: int, uncertain: bool = False) -> ArchLimits:
    major = int(cc.split(".")[0])
    return ArchLimits(
        arch="sm_" + cc.replace(".", ""), vendor="nvidia", warp_size=32, max_warps_per_sm=warps,
        max_blocks_per_sm=blocks, max_threads_per_block=1024, regs_per_sm=65536, regs_per_block=65536,
        max_regs_per_thread=256, reg_alloc_unit=256, sub_partitions=4, smem_per_sm=cfg[-1], smem_configs=cfg,
        smem_per_block=48 * KB, smem_per_block_optin=optin, smem_alloc_unit=256 if major == 7 else 128,
        smem_reserved_per_block=0 if major == 7 else KB, uncertain=uncertain)


#: Pascal GP100 (CC 6.0, Tesla P100): 64 warps and 32 blocks per SM, 64 K registers, a fixed 64 KiB of shared memory
#: per SM and 48 KiB per block (no carveout, no opt-in) — CUDA C++ Programming Guide, "Technical Specifications per
#: Compute Capability"; register and shared-memory allocation units of 256, warps allocated to the SM's 2 processing
#: blocks (the occupancy calculator's "warp allocation granularity" 2 for 6.0, 4 for 6.1): uncertain, from the
#: calculator's table rather than a datasheet.
_SM60 = ArchLimits(
    arch="sm_60", vendor="nvidia", warp_size=32, max_warps_per_sm=64, max_blocks_per_sm=32,
    max_threads_per_block=1024, regs_per_sm=65536, regs_per_block=65536, max_regs_per_thread=256, reg_alloc_unit=256,
    sub_partitions=2, smem_per_sm=64 * KB, smem_configs=(64 * KB,), smem_per_block=48 * KB,
    smem_per_block_optin=48 * KB, smem_alloc_unit=256, smem_reserved_per_block=0, uncertain=True)

#: Pascal GP10x (CC 6.1: GTX 10x0, TITAN Xp, Tesla P4/P40): as CC 6.0 but a fixed 96 KiB of shared memory per SM
#: (48 KiB per block) and 4 processing blocks per SM (the calculator's warp allocation granularity 4) — the same
#: programming-guide table; uncertain as CC 6.0 is.
_SM61 = ArchLimits(
    arch="sm_61", vendor="nvidia", warp_size=32, max_warps_per_sm=64, max_blocks_per_sm=32,
    max_threads_per_block=1024, regs_per_sm=65536, regs_per_block=65536, max_regs_per_thread=256, reg_alloc_unit=256,
    sub_partitions=4, smem_per_sm=96 * KB, smem_configs=(96 * KB,), smem_per_block=48 * KB,
    smem_per_block_optin=48 * KB, smem_alloc_unit=256, smem_reserved_per_block=0, uncertain=True)

#: Kepler GK110 (CC 3.5: Tesla K20/K40, GTX TITAN): 64 warps and 16 blocks per SM, 64 K registers (255 per thread),
#: 16 / 32 / 48 KiB of the SM's 64 KiB L1/shared array as shared memory, 48 KiB per block — the same programming-guide
#: table; 4 warp schedulers per SMX; uncertain as CC 6.x is.
_SM35 = ArchLimits(
    arch="sm_35", vendor="nvidia", warp_size=32, max_warps_per_sm=64, max_blocks_per_sm=16,
    max_threads_per_block=1024, regs_per_sm=65536, regs_per_block=65536, max_regs_per_thread=255, reg_alloc_unit=256,
    sub_partitions=4, smem_per_sm=48 * KB, smem_configs=_cfg(16, 32, 48), smem_per_block=48 * KB,
    smem_per_block_optin=48 * KB, smem_alloc_unit=256, smem_reserved_per_block=0, uncertain=True)

#: compute capability → limits.
CUDA_LIMITS: dict[str, ArchLimits] = {
    "3.5": _SM35,
    "6.0": _SM60,
    "6.1": _SM61,
    "7.0": _cuda("7.0", 64, 32, _V100_CFG, 96 * KB),
    "7.2": _cuda("7.2", 64, 32, _V100_CFG, 96 * KB, uncertain=True),
    "7.5": _cuda("7.5", 32, 16, _cfg(32, 64), 64 * KB),
    "8.0": _cuda("8.0", 64, 32, _A100_CFG, 163 * KB),
    "8.6": _cuda("8.6", 48, 16, _GA10X_CFG, 99 * KB),
    "8.7": _cuda("8.7", 48, 16, _A100_CFG, 163 * KB, uncertain=True),
    "8.9": _cuda("8.9", 48, 24, _GA10X_CFG, 99 * KB),
    "9.0": _cuda("9.0", 64, 32, _H100_CFG, 227 * KB),
    "10.0": _cuda("10.0", 64, 32, _H100_CFG, 227 * KB),
    "10.3": _cuda("10.3", 64, 32, _H100_CFG, 227 * KB, uncertain=True),
    "11.0": _cuda("11.0", 48, 24, _GA10X_CFG, 99 * KB, uncertain=True),
    "12.0": _cuda("12.0", 48, 24, _GA10X_CFG, 99 * KB),
    "12.1": _cuda("12.1", 48, 24, _GA10X_CFG, 99 * KB, uncertain=True),
}


def _cdna(gfx: str, waves_per_simd: int, unified: bool, granule: int, lds_kib: int, lds_unit: int) -> ArchLimits:
    return ArchLimits(
        arch=gfx, vendor="amd", warp_size=64, max_warps_per_sm=4 * waves_per_simd, max_blocks_per_sm=16,
        max_threads_per_block=1024, regs_per_sm=512 if unified else 256, regs_per_block=0,
        max_regs_per_thread=512 if unified else 256, reg_alloc_unit=granule, sub_partitions=4,
        smem_per_sm=lds_kib * KB, smem_configs=(lds_kib * KB,), smem_per_block=lds_kib * KB,
        smem_per_block_optin=lds_kib * KB, smem_alloc_unit=lds_unit, smem_reserved_per_block=0,
        unified_vgpr=unified, sgprs_per_simd=800)


#: gfx architecture → limits (GCN 5.1 Vega 20, CDNA 1–4).
AMD_LIMITS: dict[str, ArchLimits] = {
    "gfx906": _cdna("gfx906", 10, False, 4, 64, 512),
    "gfx908": _cdna("gfx908", 10, False, 4, 64, 512),
    "gfx90a": _cdna("gfx90a", 8, True, 8, 64, 512),
    "gfx942": _cdna("gfx942", 8, True, 8, 64, 512),
    "gfx950": _cdna("gfx950", 8, True, 8, 160, 1280),
}

#: What ROCm reports as "compute capability" (major.minor) for each gfx architecture (Kineto deviceProperties).
AMD_CC_TO_GFX = {"9.0": "gfx90a", "9.4": "gfx942", "9.5": "gfx950"}


def limits_for(compute_capability: str | None = None, gfx_arch: str | None = None) -> ArchLimits | None:
    """Limits for an architecture; None when it has no table (e.g. CC 6.x, RDNA gfx1100/gfx1201)."""
    if gfx_arch:
        return AMD_LIMITS.get(gfx_arch.split(":")[0].lower())
    if compute_capability:
        return CUDA_LIMITS.get(str(compute_capability))
    return None
