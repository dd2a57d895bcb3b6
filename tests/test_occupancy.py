"""Occupancy: CUDA calculator against Kineto's own estimates and Nsight Compute, CDNA rules by hand, the analyzer."""

import csv

import pytest

import gpulens
from gpulens.devices import identify
from gpulens.devices.arch import AMD_LIMITS, CUDA_LIMITS
from gpulens.devices.occupancy import cdna_occupancy, cuda_occupancy, kineto_estimate_pct
from tests.conftest import DATA, KINETO, shared_trace


def _kineto_launches(tl):
    """(event row, Kineto's est. achieved occupancy %) for every kernel carrying the launch fields."""
    c = tl.counters
    est = c[c["metric"] == "kineto.est_achieved_occupancy_pct"].set_index("event_id")["value"]
    ev = tl.events.set_index("event_id").loc[est.index]
    return [(r, int(est[i])) for i, r in ev.iterrows()]


def _check_kineto_trace(path):
    tl = gpulens.collect(path)
    spec = identify(tl)
    rec = tl.meta.devices[0] if tl.meta.devices else {}
    lim = CUDA_LIMITS[spec.compute_capability]
    nsms = rec.get("num_sms", spec.num_sms)
    launches = _kineto_launches(tl)
    assert launches
    over48 = 0
    for r, est in launches:
        block = int(r.block_x * r.block_y * r.block_z)
        grid = int(r.grid_x * r.grid_y * r.grid_z)
        kin = cuda_occupancy(lim, block, int(r.regs_per_thread), int(r.smem_static_bytes),
                             smem_per_sm=rec.get("smem_per_sm_bytes"), carveout="max", opt_in=False)
        mine = kineto_estimate_pct(kin.active_blocks, grid, nsms, block, rec.get("max_threads_per_sm", 2048))
        assert mine == est, r["name"]
        real = cuda_occupancy(lim, block, int(r.regs_per_thread), int(r.smem_static_bytes),
                              smem_per_sm=rec.get("smem_per_sm_bytes"))
        if int(r.smem_static_bytes) + lim.smem_reserved_per_block <= 48 * 1024 + lim.smem_reserved_per_block:
            # within the default per-block limit the opt-in setting changes nothing: same theoretical value
            pct, _ = real.grid_capped(grid, nsms)
            assert abs(pct - est) <= 0.5 + 1e-6
        else:
            over48 += 1  # Kineto: 0 % (no opt-in in its calculator call); the launch did run, so > 0
            assert est == 0 and real.active_blocks > 0
    return len(launches), over48


# n = kernels with Kineto's launch fields; over = those with more than 49152 B (48 KiB) of shared memory
@pytest.mark.parametrize("trace, n, over", [
    ("hta_alexnet_a100.json.gz", 79, 6), ("hta_a100_triton_example.json.gz", 1, 0),
    ("tracelens_h100_bert-small.json.gz", 60, 9),
    ("multirank/sampled_rank-0.json.gz", 1144, 290), ("multirank/sampled_rank-1.json.gz", 1094, 290),
])
def test_theoretical_occupancy_reproduces_kineto_estimate(trace, n, over):
    assert _check_kineto_trace(KINETO / trace) == (n, over)


def test_theoretical_occupancy_reproduces_kineto_estimate_v100_corpus():
    # 4,350 kernels, Kineto printed values computed in float32 (e.g. 288 blocks / 80 SMs = 3.5999999 → 22 %, not 23)
    assert _check_kineto_trace(shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz"))[0] == 4350


def test_cuda_hand_computed_register_limit():
    # H100, 256 threads (8 warps), 64 regs: 64·32 = 2048 regs/warp; 65536/4 = 16384 per sub-partition → 8 warps;
    # 4 × 8 = 32 warps per SM → 32 / 8 = 4 blocks → 32 of 64 warps = 50 %, registers bound
    o = cuda_occupancy(CUDA_LIMITS["9.0"], 256, 64, 0)
    assert o.limits["registers"] == 4 and o.active_blocks == 4 and o.limiter == "registers"
    assert o.occupancy_pct == 50.0
    # 65 regs: roundup(65·32, 256) = 2304; ⌊16384/2304⌋ = 7 warps/sub-partition → ⌊28/8⌋ = 3 blocks → 37.5 %
    assert cuda_occupancy(CUDA_LIMITS["9.0"], 256, 65, 0).occupancy_pct == 37.5
    # 1024 threads × 255 regs: roundup(8160, 256) = 8192 regs/warp × 32 warps > 65536 per block → cannot launch
    assert cuda_occupancy(CUDA_LIMITS["9.0"], 1024, 255, 0).active_blocks == 0


def test_cuda_hand_computed_shared_memory_granularity_and_reservation():
    # A100: 48 KiB static + 1 KiB reserved = 50176 B (a multiple of 128) → ⌊167936 / 50176⌋ = 3 blocks
    o = cuda_occupancy(CUDA_LIMITS["8.0"], 128, 32, 48 * 1024, carveout="max")
    assert o.smem_per_block == 50176 and o.limits["shared_memory"] == 3 and o.limiter == "shared_memory"
    # V100: no reservation, 256 B granule: 8200 B → 8448 B → ⌊98304 / 8448⌋ = 11 blocks
    assert cuda_occupancy(CUDA_LIMITS["7.0"], 128, 32, 8200, carveout="max").limits["shared_memory"] == 11
    # RTX 5090 (CC 12.0): 100 KiB per SM; 99 KiB opt-in + 1 KiB = 102400 → 1 block; 99 KiB + 1 B does not fit
    assert cuda_occupancy(CUDA_LIMITS["12.0"], 128, 32, 99 * 1024).active_blocks == 1
    assert cuda_occupancy(CUDA_LIMITS["12.0"], 128, 32, 99 * 1024 + 1).active_blocks == 0


def _ncu_raw_rows(path):
    lines = [ln for ln in open(path, encoding="utf-8") if ln.startswith('"')]
    rows = list(csv.reader(lines))
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[2:]]  # rows[1] is the units row


def test_matches_ncu_launch_occupancy_limits_b200():
    rows = _ncu_raw_rows(shared_trace("ncu/meinie_b200_raw_torch_sdpa_flash__gqa_bf16_b32_ctx8k_p64.ncu.csv"))
    assert len(rows) == 16
    lim = CUDA_LIMITS["10.0"]
    for r in rows:
        smem = int(r["launch__shared_mem_per_block_static"]) + int(r["launch__shared_mem_per_block_dynamic"])
        o = cuda_occupancy(lim, int(r["launch__block_size"]), int(r["launch__registers_per_thread"]), smem,
                           smem_per_sm=int(r["device__attribute_max_shared_memory_per_multiprocessor"]))
        assert o.limits["registers"] == int(r["launch__occupancy_limit_registers"])
        assert o.limits["shared_memory"] == int(r["launch__occupancy_limit_shared_mem"])
        assert o.limits["warps"] == int(r["launch__occupancy_limit_warps"])
        assert o.limits["blocks"] == int(r["launch__occupancy_limit_blocks"])
        assert o.smem_per_block == int(r["launch__shared_mem_per_block_allocated"])
        assert o.smem_config == int(r["launch__shared_mem_config_size"])
        assert o.occupancy_pct == pytest.approx(float(r["sm__maximum_warps_per_active_cycle_pct"]))
        assert o.active_warps == pytest.approx(float(r["sm__maximum_warps_avg_per_active_cycle"]))


@pytest.mark.parametrize("name, block, limit_sm, limit_warps, theo", [
    ("codegandee_rtx5090_ncu-v2_kernel_0005_details.csv", 256, 24, 6, 16.67),
    ("codegandee_rtx5090_ncu-v2_kernel_0010_details.csv", 128, 24, 12, 100.0),
])
def test_warp_and_block_limits_match_ncu_rtx5090(name, block, limit_sm, limit_warps, theo):
    path = DATA / "nvidia" / name
    vals = {r["Metric Name"]: r["Metric Value"] for r in csv.DictReader(
        ln for ln in open(path, encoding="utf-8") if ln.startswith('"'))}
    assert int(vals["Block Limit SM"]) == limit_sm and int(vals["Block Limit Warps"]) == limit_warps
    o = cuda_occupancy(CUDA_LIMITS["12.0"], block, 16, 0)  # registers/smem not in the file: only these two limits
    assert (o.limits["blocks"], o.limits["warps"]) == (limit_sm, limit_warps)
    # theoretical = min(limits) × warps/block / 48: ncu's own Block Limit values give its Theoretical Occupancy
    lims = [int(vals[k]) for k in ("Block Limit SM", "Block Limit Registers", "Block Limit Shared Mem",
                                   "Block Limit Warps")]
    assert float(vals["Theoretical Occupancy"]) == pytest.approx(theo)
    assert 100 * min(lims) * (block // 32) / CUDA_LIMITS["12.0"].max_warps_per_sm == pytest.approx(theo, abs=0.01)


def test_cdna_kernel_with_128_vgprs_and_64k_lds():
    # gfx90a, 256 work-items = 4 waves of 64. VGPRs: ⌊512 / roundup(128, 8)⌋ = 4 waves per SIMD → 4 SIMDs × 4 = 16
    # waves per CU → 16 / 4 = 4 work-groups. LDS: 64 KiB per CU / 64 KiB = 1 work-group. Slots: 4 × 8 / 4 = 8,
    # barrier cap 16. Active = min(8, 8... , 4, 1) = 1 → 4 waves of 32 slots = 12.5 %, limited by LDS.
    o = cdna_occupancy(AMD_LIMITS["gfx90a"], 256, 128, 0, 64 * 1024)
    assert o.limits == {"warps": 8, "blocks": 8, "registers": 4, "shared_memory": 1}
    assert o.active_blocks == 1 and o.limiter == "shared_memory" and o.occupancy_pct == 12.5
    # gfx950 has 160 KiB LDS and a 1280 B granule: roundup(65536, 1280) = 66560 → ⌊163840 / 66560⌋ = 2 work-groups
    # → 8 waves of 32 = 25 %
    o = cdna_occupancy(AMD_LIMITS["gfx950"], 256, 128, 0, 64 * 1024)
    assert o.limits["shared_memory"] == 2 and o.occupancy_pct == 25.0
    # gfx908: separate 256-entry VGPR file: ⌊256/128⌋ = 2 waves/SIMD → 8 waves/CU → 2 work-groups; LDS → 1;
    # 4 waves of 40 slots = 10 %
    o = cdna_occupancy(AMD_LIMITS["gfx908"], 256, 128, 0, 64 * 1024)
    assert o.limits["registers"] == 2 and o.occupancy_pct == 10.0
    # without LDS the VGPRs bind: 4 work-groups × 4 waves = 16 of 32 = 50 %
    o = cdna_occupancy(AMD_LIMITS["gfx942"], 256, 128)
    assert o.limiter == "registers" and o.occupancy_pct == 50.0
    # unified file: 96 arch + 64 AGPRs = 160 → ⌊512/160⌋ = 3 waves/SIMD → ⌊12/4⌋ = 3 work-groups = 37.5 %
    assert cdna_occupancy(AMD_LIMITS["gfx90a"], 256, 96, 64).occupancy_pct == 37.5
    # SGPRs: 96 → 8 waves (gfx9 steps), 104 → 7: ⌊4·7/1⌋ = 28 single-wave groups of 32 slots
    assert cdna_occupancy(AMD_LIMITS["gfx90a"], 64, 16, sgprs=104).active_blocks == 28


def test_occupancy_analyzer_on_h100_bert():
    src = gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"]).sources[0]
    r = src.results["occupancy"]
    assert list(r.table.columns)[:5] == ["name", "calls", "time_ns", "block_size", "regs_per_thread"]
    assert r.summary["kineto_estimates_compared"] == r.summary["kineto_estimates_reproduced"] == 40
    flash = r.table[r.table["name"].str.contains("flash_fwd_kernel")].iloc[0]
    # the file: 4 launches, grid [2, 1, 8], block 128, 255 regs, 49152 B smem: registers allow
    # ⌊16384 / 8192⌋·4 / 4 = 2 blocks → theoretical 2 × 4 / 64 = 12.5 % (vendor definition: not grid-capped);
    # the grid's 16 blocks on 132 SMs are 16 / (2 × 132) = 0.0606 waves (Kineto's 0.76 % folds that in)
    assert (flash["calls"], flash["block_size"], flash["regs_per_thread"]) == (4, 128, 255)
    assert flash["limiter"] == "registers" and flash["active_blocks_per_sm"] == 2
    assert flash["theoretical_occupancy_pct"] == pytest.approx(12.5)
    assert flash["waves_per_sm"] == pytest.approx(16 / (2 * 132)) and flash["grid_blocks"] == 16
    assert flash["occupancy_source"] == "calculator"
    assert flash["achieved_occupancy_pct"] is None


@pytest.mark.parametrize("trace, reason", [
    ("tracelens_mi300x_bert-small.json.gz", "no launch data"),
    ("hta_cpu_only_rank34.pt.trace.json.gz", "no device spec"),
])
def test_occupancy_skips_with_reason(trace, reason):
    r = gpulens.analyze([KINETO / trace]).sources[0].results["occupancy"]
    assert r.skipped and reason in r.skipped_reason and list(r.table.columns)[0] == "name"


def test_occupancy_analyzer_amd_uses_rocprof_register_counters():
    from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, TimelineMeta, make_table

    # one MI300X dispatch: 256 work-items, 96 arch VGPRs + 32 AGPRs (regs_per_thread = 128), 64 KiB LDS,
    # grid 304 × 8 work-groups. Unified file: roundup(96, 4) + 32 = 128 → 4 waves/SIMD → 4 work-groups; LDS → 1
    ev = make_table(EVENT_COLUMNS, {"event_id": [0], "kind": ["kernel"], "name": ["gemm"], "start_ns": [10],
                                    "dur_ns": [5000], "rank": [0], "device_id": [2], "stream_id": [0],
                                    "grid_x": [304 * 8], "grid_y": [1], "grid_z": [1], "block_x": [256],
                                    "block_y": [1], "block_z": [1], "regs_per_thread": [128],
                                    "smem_static_bytes": [65536], "source": ["rocprof"]})
    co = make_table(COUNTER_COLUMNS, {"event_id": [0, 0, 0], "metric": ["arch_vgpr", "accum_vgpr", "sgpr"],
                                      "value": [96.0, 32.0, 96.0], "unit": ["", "", ""], "source": ["rocprof"] * 3})
    meta = TimelineMeta(devices=[{"rank": 0, "device_id": 2, "name": "AMD Instinct MI300X", "gfx_arch": "gfx942",
                                  "num_sms": 304, "warp_size": 64}])
    r = gpulens.analyze_timeline(Timeline(ev, co, meta=meta).validate()).results["occupancy"]
    row = r.table.iloc[0]
    assert (row["block_size"], row["regs_per_thread"], row["smem_bytes"]) == (256, 128, 65536)
    assert row["active_blocks_per_sm"] == 1 and row["limiter"] == "shared_memory"
    assert row["theoretical_occupancy_pct"] == 12.5
    # an MI300X (gfx942): its shared memory is LDS, in the finding as in the occupancy table's column
    assert r.findings[0].title.startswith("LDS limits occupancy of gemm to 12.5 %")  # the table's digits (s35)  # singular subject
    assert "65,536 B LDS/workgroup leaves room for 1 workgroup per CU" in r.findings[0].detail
    assert "shared memory" not in (r.findings[0].title + r.findings[0].detail + r.findings[0].action).lower()


def test_achieved_occupancy_from_ncu_counter_is_time_weighted():
    from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, TimelineMeta, make_table

    # two launches of one kernel on an H100 (132 SMs): 256 threads, 32 regs, no smem → 8 blocks × 8 warps = 100 %;
    # ncu measured 20 % on the 3 µs launch and 50 % on the 1 µs one → (20·3 + 50·1) / 4 = 27.5 %
    n = 2
    ev = make_table(EVENT_COLUMNS, {"event_id": [0, 1], "kind": ["kernel"] * n, "name": ["k"] * n,
                                    "start_ns": [0, 10_000], "dur_ns": [3000, 1000], "rank": [0] * n,
                                    "device_id": [0] * n, "stream_id": [1] * n, "grid_x": [10_000] * n,
                                    "grid_y": [1] * n, "grid_z": [1] * n, "block_x": [256] * n, "block_y": [1] * n,
                                    "block_z": [1] * n, "regs_per_thread": [32] * n, "source": ["ncu"] * n})
    metric = "sm__warps_active.avg.pct_of_peak_sustained_active"
    co = make_table(COUNTER_COLUMNS, {"event_id": [0, 1], "metric": [metric] * n, "value": [20.0, 50.0],
                                      "unit": ["%"] * n, "source": ["ncu"] * n})
    meta = TimelineMeta(devices=[{"rank": 0, "device_id": 0, "name": "NVIDIA H100 80GB HBM3",
                                  "compute_capability": "9.0", "num_sms": 132}])
    r = gpulens.analyze_timeline(Timeline(ev, co, meta=meta).validate()).results["occupancy"]
    row = r.table.iloc[0]
    # warps and registers both allow 8 blocks, but at 100 % theoretical neither limits anything: no limiter
    assert row["theoretical_occupancy_pct"] == 100.0 and row["limiter"] == "none"
    assert row["achieved_occupancy_pct"] == pytest.approx(27.5)
    assert any("achieves 27.5 % occupancy of a possible 100.0 %" in f.title for f in r.findings)
