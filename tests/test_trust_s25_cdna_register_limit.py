"""AMD CDNA occupancy: the registers are a limiter only when they allow fewer waves than the wave slots.

Kind: the waves per SIMD the VGPRs allow were capped at the 8 wave slots before the block limits were compared, so a
kernel with 8 VGPRs (512 / 8 = 64 waves per SIMD) read "limiter: wavefronts + blocks + registers" at 100 %
theoretical (rocprofiler-compute vcopy on MI200 and MI300X). Expected limits are hand calculations from the CDNA
rules in gpulens.devices.occupancy's docstring (gfx90a: 4 SIMDs, 8 wave slots per SIMD, 512-VGPR unified file,
granule 8, 64-wide waves).
"""

from __future__ import annotations

from gpulens.devices.arch import AMD_LIMITS
from gpulens.devices.occupancy import cdna_occupancy


def test_few_vgprs_do_not_tie_as_a_limiter():
    # 256 work-items = 4 waves; slots 4 × 8 = 32 waves → 8 work-groups; VGPRs: 512 // 8 = 64 waves per SIMD →
    # 4 × 64 // 4 = 64 work-groups: far above 8, registers do not bind
    occ = cdna_occupancy(AMD_LIMITS["gfx90a"], 256, 8)
    assert occ.limits["registers"] == 64 and occ.limits["warps"] == 8
    assert "registers" not in occ.limiters and occ.occupancy_pct == 100.0


def test_many_vgprs_limit():
    # 128 VGPRs: 512 // 128 = 4 waves per SIMD → 4 × 4 // 4 = 4 work-groups < 8: registers bind, 16 of 32 waves
    occ = cdna_occupancy(AMD_LIMITS["gfx90a"], 256, 128)
    assert occ.limits["registers"] == 4 and occ.limiters == ("registers",) and occ.occupancy_pct == 50.0


def test_vgprs_exactly_at_the_slots_tie():
    # 64 VGPRs: 512 // 64 = 8 waves per SIMD = the 8 slots → 8 work-groups, tied with the wave limit
    occ = cdna_occupancy(AMD_LIMITS["gfx90a"], 256, 64)
    assert occ.limits["registers"] == 8 and "registers" in occ.limiters
