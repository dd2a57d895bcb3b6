"""Theoretical occupancy calculators: CUDA (``cuda_occupancy.h`` semantics) and AMD CDNA (LLVM rules).

Both return an :class:`Occupancy`: resident blocks (work-groups) per SM (CU) for one launch configuration, the
per-resource block limits, the limiting resource and the occupancy in % of the SM's warp (wave) slots.

CUDA (``cudaOccMaxActiveBlocksPerMultiprocessor``, CUDA 12.6/13.0 header):

* warps: ⌊max warps per SM / ⌈threads/32⌉⌋ (0 when threads > 1024);
* registers: regs per warp = roundup(regs × 32, 256); 0 when regs > 256 or the block's registers (warps rounded
  up to the 4 sub-partitions) exceed the per-block file; else ⌊(regs per SM / 4) / regs per warp⌋ × 4 / warps;
* shared memory: per block = roundup(static + dynamic + reserved (1 KiB on CC ≥ 8), granularity (256 B on 7.x,
  128 B after)); 0 above the per-block limit (48 KiB, or the opt-in maximum: a launch that ran must have opted
  in); blocks = ⌊SM carveout / per block⌋. With ``carveout="driver"`` (default) the carveout is the smallest
  supported configuration holding as many blocks as the other limits allow — what the driver picks and Nsight
  Compute reports as ``launch__occupancy_limit_shared_mem``; ``carveout="max"`` uses the largest one, like the
  calculator with the default preference. Both give the same active blocks.
* blocks: the per-CC hard cap.

GCN gfx906 and CDNA (gfx908/gfx90a/gfx942/gfx950): a work-group of w = ⌈threads/64⌉ waves spreads over 4 SIMDs;
waves per SIMD by VGPRs = ⌊file / roundup(VGPRs, granule)⌋ (unified arch + AGPR file of 512 on gfx90a+, AGPRs
starting at a 4-aligned offset; two separate 256-register files on gfx908; one of 256 and no AGPRs on gfx906), by
SGPRs the gfx9 steps (≤ 80 → 10, ≤ 88 → 9, ≤ 100 → 8, else 7) — a resource limit, not capped by the wave slots (above
them it does not bind: the slots do); work-groups per CU = ⌊4 × waves per SIMD / w⌋; multi-wave
work-groups are capped at 16 per CU (barriers); LDS: ⌊LDS per CU / roundup(LDS, granule)⌋.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpulens.devices.arch import ArchLimits

INT_MAX = 2**31 - 1
#: Tie-break order of the limiting resource: a structural limit (warp slots, block cap) is named before a
#: resource one, since relieving a resource does not help while a structural limit binds at the same count.
LIMITER_ORDER = ("warps", "blocks", "registers", "shared_memory")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _round_up(a: int, b: int) -> int:
    return _ceil_div(a, b) * b


@dataclass(frozen=True)
class Occupancy:
    """Result of an occupancy calculation for one launch configuration.

    Attributes:
        active_blocks: resident blocks (work-groups) per SM (CU); not capped by the grid.
        limits: blocks per SM allowed by each resource: ``warps``, ``registers``, ``shared_memory``, ``blocks``.
        limiter: the binding resource (the first of ``limiters``).
        limiters: every resource whose limit equals the active blocks, in :data:`LIMITER_ORDER` (ties: all). Shared
            memory counts as binding only when even the largest carveout the SM supports holds no more blocks
            (``smem_limit_max``): the driver sizes the carveout to the blocks the other limits allow, so the
            driver-carveout figure in ``limits`` (what Nsight Compute reports) always ties with the real limiter.
        smem_limit_max: blocks per SM shared memory allows at the SM's largest carveout (the CUDA Occupancy
            Calculator's figure with the default preference); equals ``limits["shared_memory"]`` on AMD.
        warps_per_block: warps (waves) per block.
        max_warps: warp (wave) slots per SM (CU).
        regs_per_block: registers allocated per block (NVIDIA; 0 on AMD).
        smem_per_block: shared memory / LDS allocated per block [bytes], granularity and reservation included.
        smem_config: shared-memory carveout used for the limit [bytes].
    """

    active_blocks: int
    limits: dict[str, int] = field(default_factory=dict)
    limiter: str = ""
    warps_per_block: int = 0
    max_warps: int = 0
    regs_per_block: int = 0
    smem_per_block: int = 0
    smem_config: int = 0
    limiters: tuple[str, ...] = ()
    smem_limit_max: int = 0

    @property
    def active_warps(self) -> int:
        """Resident warps (waves) per SM (CU)."""
        return self.active_blocks * self.warps_per_block

    @property
    def occupancy_pct(self) -> float:
        """Theoretical occupancy: active warps / warp slots × 100 (ncu ``sm__maximum_warps_per_active_cycle_pct``)."""
        return 100.0 * self.active_warps / self.max_warps if self.max_warps else 0.0

    def grid_capped(self, grid_blocks: int, num_sms: int) -> tuple[float, str]:
        """Occupancy when the grid has fewer than ``active_blocks`` blocks per SM (Kineto's estimate).

        Kineto: min(active blocks, grid / SMs) × warps per block / warp slots. Returns (pct, limiter) where
        the limiter becomes ``"grid"`` when the grid is the cap.
        """
        bps = grid_blocks / num_sms if num_sms else float(self.active_blocks)
        if bps < self.active_blocks:
            return 100.0 * bps * self.warps_per_block / self.max_warps, "grid"
        return self.occupancy_pct, self.limiter


def _pick(limits: dict[str, int], smem_max: int | None = None) -> tuple[int, tuple[str, ...]]:
    """(active blocks, every binding resource in :data:`LIMITER_ORDER`): the minimum of the limits, and the
    resources at it — shared memory judged at ``smem_max`` (its limit at the largest carveout) when given."""
    active = min(limits.values())
    judged = dict(limits, shared_memory=smem_max) if smem_max is not None else limits
    tied = tuple(k for k in LIMITER_ORDER if judged[k] == active)
    return active, tied or tuple(k for k in LIMITER_ORDER if limits[k] == active)


def cuda_occupancy(lim: ArchLimits, block_size: int, regs_per_thread: int, smem_bytes: int = 0, *,
                   smem_per_sm: int | None = None, max_threads_per_sm: int | None = None,
                   regs_per_sm: int | None = None, carveout: str = "driver", opt_in: bool = True) -> Occupancy:
    """Theoretical occupancy of a CUDA launch (see module docstring).

    Args:
        lim: limits of the compute capability (:data:`gpulens.devices.arch.CUDA_LIMITS`).
        block_size: threads per block.
        regs_per_thread: registers per thread as the launch records them.
        smem_bytes: static + dynamic shared memory per block [bytes], without the driver's reservation.
        smem_per_sm, max_threads_per_sm, regs_per_sm: recorded device properties overriding the table.
        carveout: ``"driver"`` or ``"max"`` (module docstring).
        opt_in: allow the opt-in per-block limit (False reproduces a calculator run without opt-in: blocks over
            48 KiB get 0).
    """
    warp = lim.warp_size
    max_warps = (max_threads_per_sm or lim.max_warps_per_sm * warp) // warp
    w = _ceil_div(block_size, warp)
    limits: dict[str, int] = {}
    limits["warps"] = 0 if block_size > lim.max_threads_per_block or w == 0 else max_warps // w
    limits["blocks"] = lim.max_blocks_per_sm
    rpw = _round_up(regs_per_thread * warp, lim.reg_alloc_unit)
    regs_block = rpw * w
    sp = lim.sub_partitions
    if regs_per_thread > lim.max_regs_per_thread or rpw * _round_up(w, sp) > lim.regs_per_block \
            or regs_block > lim.regs_per_block:
        limits["registers"] = 0
    elif rpw == 0:
        limits["registers"] = INT_MAX
    else:
        limits["registers"] = ((regs_per_sm or lim.regs_per_sm) // sp // rpw) * sp // w
    alloc = _round_up(smem_bytes + lim.smem_reserved_per_block, lim.smem_alloc_unit)
    per_block_max = (lim.smem_per_block_optin if opt_in else lim.smem_per_block) + lim.smem_reserved_per_block
    sm_max = smem_per_sm or lim.smem_per_sm
    configs = [c for c in lim.smem_configs if c <= sm_max] or [sm_max]
    if alloc > per_block_max or alloc > sm_max:
        limits["shared_memory"], config, smem_max = 0, sm_max, 0
    elif alloc == 0:
        limits["shared_memory"], config, smem_max = INT_MAX, 0, INT_MAX
    else:
        smem_max = sm_max // alloc
        config = sm_max
        if carveout == "driver":
            want = max(1, min(limits["warps"], limits["blocks"], limits["registers"]))
            config = next((c for c in configs if c >= want * alloc), sm_max)
        limits["shared_memory"] = config // alloc
    active, tied = _pick(limits, smem_max)
    return Occupancy(active, limits, tied[0], w, max_warps, regs_block, alloc, config, tied, smem_max)


def _sgpr_waves(sgprs: int) -> int:
    if sgprs <= 80:
        return 10
    if sgprs <= 88:
        return 9
    return 8 if sgprs <= 100 else 7


def cdna_occupancy(lim: ArchLimits, block_size: int, arch_vgprs: int, accum_vgprs: int = 0,
                   lds_bytes: int = 0, sgprs: int | None = None) -> Occupancy:
    """Theoretical occupancy of a work-group on an AMD CDNA CU (see module docstring).

    Args:
        lim: limits of the gfx architecture (:data:`gpulens.devices.arch.AMD_LIMITS`).
        block_size: work-items per work-group.
        arch_vgprs, accum_vgprs: VGPRs and AGPRs per work-item (rocprof ``arch_vgpr``/``accum_vgpr``).
        lds_bytes: LDS per work-group (group segment) [bytes].
        sgprs: SGPRs per wave when known.
    """
    simds = lim.sub_partitions
    slots = lim.max_warps_per_sm // simds  # waves per SIMD
    w = _ceil_div(block_size, lim.warp_size)
    g = lim.reg_alloc_unit
    if lim.unified_vgpr:
        total = (_round_up(arch_vgprs, 4) + accum_vgprs) if accum_vgprs else arch_vgprs
        alloc = _round_up(total, g)
        by_vgpr = lim.regs_per_sm // alloc if alloc else slots
    else:
        a, c = _round_up(arch_vgprs, g), _round_up(accum_vgprs, g)
        by_vgpr = min(lim.regs_per_sm // a if a else slots, lim.regs_per_sm // c if c else slots)
    # waves per SIMD the registers allow, not capped by the wave slots: 8 VGPRs allow 64 waves against 8 slots, so
    # the registers do not bind (capped at the slots they tied with the wave limit and were named as a limiter)
    by_regs = min(by_vgpr, _sgpr_waves(sgprs)) if sgprs else by_vgpr
    limits: dict[str, int] = {}
    ok = 0 < w and block_size <= lim.max_threads_per_block
    limits["warps"] = simds * slots // w if ok else 0
    limits["blocks"] = (min(simds * slots // w, lim.max_blocks_per_sm) if w > 1 else simds * slots) if ok else 0
    limits["registers"] = simds * by_regs // w if ok else 0
    lds = _round_up(lds_bytes, lim.smem_alloc_unit)
    limits["shared_memory"] = INT_MAX if lds == 0 else (0 if lds > lim.smem_per_sm else lim.smem_per_sm // lds)
    active, tied = _pick(limits)
    return Occupancy(active, limits, tied[0], w, lim.max_warps_per_sm, 0, lds, lim.smem_per_sm, tied,
                     limits["shared_memory"])


def kineto_estimate_pct(active_blocks, grid_blocks, num_sms, block_size, max_threads_per_sm):
    """Kineto's ``est. achieved occupancy %`` (scalars or numpy arrays), from the active blocks of an occupancy
    computed with ``opt_in=False, carveout="max"``.

    Kineto (``libkineto`` ``DeviceProperties.cpp`` / ``output_json.cpp``) computes in float32
    ``min(active blocks, grid / SMs) × threads per block / max threads per SM`` and prints
    ``(int)(0.5 + occupancy × 100)``; its calculator call uses the default 48 KiB per-block limit, so launches
    with more shared memory get 0. Reproduced bit for bit so the two can be compared.
    """
    import numpy as np

    f32 = np.float32
    bps = np.asarray(grid_blocks, dtype=f32) / np.asarray(num_sms, dtype=f32)
    blocks = np.minimum(np.asarray(active_blocks, dtype=f32), bps)
    occupancy = (blocks * np.asarray(block_size, dtype=f32) / np.asarray(max_threads_per_sm, dtype=f32)).astype(f32)
    out = np.floor(0.5 + occupancy.astype(np.float64) * 100.0).astype(np.int64)
    return int(out) if out.ndim == 0 else out


def block_size_bound(lim: ArchLimits, block_size: int, max_threads_per_sm: int | None = None) -> Occupancy | None:
    """The most theoretical occupancy a launch of ``block_size`` threads can have on ``lim``'s SM (CU) whatever its
    registers and shared memory (LDS): the calculator with none of either (NVIDIA still counts the driver's 1 KiB
    per block, reserved for every block on CC ≥ 8), so only the warp-slot and block limits bind — the CUDA C
    Programming Guide "Compute Capabilities" table (max resident warps, threads and blocks per SM) and the CUDA
    occupancy calculator; AMD: wave slots per SIMD × SIMDs per CU and the work-group cap. 1,024-thread blocks on an
    sm_86/sm_89/sm_120 SM of 1,536 threads: 1 block, 32 of 48 warps, at most 66.7 %. None when the block size cannot
    run there (no block fits) or is not positive."""
    if block_size <= 0:
        return None
    occ = cdna_occupancy(lim, block_size, 0) if lim.vendor == "amd" else \
        cuda_occupancy(lim, block_size, 0, 0, max_threads_per_sm=max_threads_per_sm)
    return occ if occ.active_blocks > 0 else None
