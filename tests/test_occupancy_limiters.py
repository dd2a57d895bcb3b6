"""The occupancy limiter is the true one: the minimum of the warp, register, shared-memory and block-count limits,
every tied resource reported, with shared memory judged against the SM's largest carveout (the driver sizes the
carveout to the blocks the other limits allow, so its figure ties with them by construction).

Hand calculations with the CUDA Occupancy Calculator rules for CC 9.0 (H100/H200; shared/reference/gpu-facts.md
§2): 64 warps/SM, 32 blocks/SM, 65,536 registers/SM in 4 sub-partitions, allocation 256 registers per warp,
228 KB (233,472 B) shared memory per SM, at most 227 KB per block, 1 KB (1,024 B) reserved per block, 128 B
granularity.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulens.devices.arch import CUDA_LIMITS
from gpulens.devices.occupancy import cuda_occupancy

H100 = CUDA_LIMITS["9.0"]


def _hand(threads: int, regs: int, smem: int) -> tuple[int, tuple[str, ...]]:
    """(active blocks, tied limiters) by the calculator's rules, smem at the full 228 KB carveout."""
    w = -(-threads // 32)
    warps = 64 // w
    per_warp = -(-regs * 32 // 256) * 256
    by_regs = (65_536 // 4 // per_warp) * 4 // w
    alloc = -(-(smem + 1_024) // 128) * 128
    by_smem = 233_472 // alloc
    limits = {"warps": warps, "blocks": 32, "registers": by_regs, "shared_memory": by_smem}
    active = min(limits.values())
    return active, tuple(k for k in ("warps", "blocks", "registers", "shared_memory") if limits[k] == active)


@pytest.mark.parametrize("threads,regs,smem,expected", [
    # nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT on an H200 (fuser_h200_nsys2024.6): 12 warps; 168 regs → 5,376 per
    # warp → ⌊16,384 / 5,376⌋ = 3 warps per sub-partition → 12 / 12 = 1 block; smem 213,180 + 1,024 → 214,272 B →
    # ⌊233,472 / 214,272⌋ = 1 block: both bind
    (384, 168, 213_180, (1, ("registers", "shared_memory"))),
    # nvfuser_none_f0_c0_r0_g0 (same trace): 156 regs → 5,120 per warp → 1 block; smem 115,840 B → 2 blocks at the
    # full carveout: registers alone (the driver's 132 KB carveout, holding 1 block, does not make smem a limiter)
    (384, 156, 114_816, (1, ("registers",))),
    # 128 threads, 22 regs, no smem: 16 blocks by warps; the 1 KB reservation allows 228 → warps alone
    (128, 22, 0, (16, ("warps",))),
    # 128 threads, 32 regs, 100,000 B: 101,120 B per block → 2 blocks; warps and registers allow 16 → smem alone
    (128, 32, 100_000, (2, ("shared_memory",))),
])
def test_limiter_is_the_minimum_with_every_tie(threads, regs, smem, expected):
    assert _hand(threads, regs, smem) == expected
    o = cuda_occupancy(H100, threads, regs, smem)
    assert (o.active_blocks, o.limiters) == expected
    assert o.limiter == expected[1][0]


def test_fuser_trace_names_both_limits_of_the_nvjet_kernel():
    """End to end on the nsys H200 trace: the occupancy table's limiters and the finding name both resources for
    the nvjet GEMM, registers alone for the nvFuser kernel; the console shows the tie."""
    import gpulens
    from gpulens.reports import console

    path = Path("/work/shared/traces/nsys/fuser_h200_nsys2024.6_report1.sqlite")
    if not path.exists():
        pytest.skip("shared trace not available")
    rep = gpulens.analyze([path])
    s = rep.sources[0]
    t = s.results["occupancy"].table.set_index("name")
    nvjet = next(n for n in t.index if n.startswith("nvjet"))
    nvf = next(n for n in t.index if "nvfuser" in n)
    assert t.loc[nvjet, "limiters"] == "registers, shared_memory"
    assert t.loc[nvf, "limiters"] == "registers"
    f = next(f for f in s.findings() if f.kernel == nvjet and (f.key or "").endswith("/limiter"))
    assert f.title.startswith("Registers and shared memory limit occupancy")
    assert "213,180 B shared memory/block" in f.detail
    row = next(ln for ln in console.render(rep, width=200).splitlines() if ln.startswith("│ nvjet") and "%" not in ln
               and "registers" in ln)
    assert "registers + shared memory" in row
