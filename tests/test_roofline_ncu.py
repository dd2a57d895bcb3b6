"""Roofline and occupancy through the real NVIDIA collectors (ncu CSV, nsys SQLite), checked against the files."""

import pytest

import gpulens
from gpulens.devices import get_spec
from gpulens.devices.arch import CUDA_LIMITS
from gpulens.devices.occupancy import cuda_occupancy
from tests.conftest import DATA, shared_trace

NV = DATA / "nvidia"


def _roofline(path, spec):
    return gpulens.analyze_timeline(gpulens.collect(path), device_spec=spec).results["roofline"]


def test_ncu_tensor_counters_give_a_compute_bound_gemm():
    # kernel_0005 details: sm__ops_path_tensor_src_bf16_dst_fp32.sum 12,532,580,352; dram__bytes_read.sum 17.50 Mbyte,
    # write 0; gpu__time_duration.sum 111.81 us; ncu's Memory Workload Analysis prints 156.55 Gbyte/s
    r = _roofline(NV / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv", get_spec("RTX 5090"))
    row = r.table.iloc[0]
    assert row["flops_source"] == "counters" and row["precision"] == "bf16"
    assert row["flops"] == 12_532_580_352 and row["bytes"] == 17.5e6 and row["time_ns"] == 111_810
    assert row["bytes_per_s"] == pytest.approx(156.55e9, rel=1e-3)
    assert row["flops_per_s"] == pytest.approx(12_532_580_352 / 111.81e-6)
    # AI = 716 FLOP/B, far right of the RTX 5090 BF16 ridge (209.5 TFLOP/s at the 2.407 GHz boost, scaled to the
    # 2.00 GHz "SM Frequency" ncu recorded: 174.1 TFLOP/s / 1792 GB/s = 97): the compute side, at 64.4 % of the bf16
    # roof at that clock (53.5 % of the boost-clock datasheet roof) — a placement; the kernel's measured speed of light
    # (SM 32.10 %, memory 27.74 %: both under ncu's 60 % SOLBottleneck line) decides its bound: latency-bound
    assert row["arithmetic_intensity"] == pytest.approx(12_532_580_352 / 17.5e6)
    roof = 209.5 * 2.00 / 2.407
    assert row["ridge_side"] == "compute" and row["roof_pct"] == pytest.approx(100 * 112.09 / roof, rel=1e-3)
    assert row["datasheet_roof_pct"] == pytest.approx(100 * 112.09 / 209.5, rel=1e-3)
    assert r.summary["roof_clock"] == ("compute roofs at the 2.00 GHz SM clock the profiler recorded, not the "
                                       "datasheet's 2.41 GHz; memory roof as rated")
    assert row["bound"] == "latency/occupancy" and row["bound_basis"] == "measured speed of light"


def test_ncu_flash_decode_is_memory_side():
    # kernel_0013: 335,544,320 tensor FLOPs, 4.74 Mbyte in 10.34 us; ncu prints 458.30 Gbyte/s
    row = _roofline(NV / "codegandee_rtx5090_ncu-v2_kernel_0013_details.csv", get_spec("RTX 5090")).table.iloc[0]
    assert row["bytes_per_s"] == pytest.approx(458.30e9, rel=1e-3)
    # AI 70.8 < ridge 117: memory side; 458.3 GB/s is 25.6 % of 1792 GB/s, under the 50 % bound threshold
    assert row["ridge_side"] == "memory" and row["bound"] == "latency/occupancy"
    assert row["roof_pct"] == pytest.approx(100 * (335_544_320 / 10.34e-6) / (70.79 * 1792e9), rel=1e-3)


def test_ncu_elementwise_without_fp_counters_has_no_flop_figure():
    r = _roofline(NV / "codegandee_rtx5090_ncu-v2_kernel_0010_details.csv", get_spec("RTX 5090"))
    row = r.table.iloc[0]
    # tensor ops 0 and flop_count_sp n/a: FLOPs unknown, not 0 — so AI, side and % of roofline are unknown
    assert row["flops"] != row["flops"] and row["arithmetic_intensity"] != row["arithmetic_intensity"]
    assert row["roof_pct"] != row["roof_pct"] and row["ridge_side"] is None
    # but its bandwidth is known from bytes and duration alone (session 41): dram__bytes_read.sum 17.23 Mbyte +
    # dram__bytes_write.sum 1.28 Kbyte in gpu__time_duration.sum 94.91 us; ncu's Memory Workload Analysis: 181.55 GB/s
    assert row["bytes"] == pytest.approx(17.23e6 + 1.28e3)
    assert row["bytes_per_s"] == pytest.approx(181.55e9, rel=1e-3)
    assert any(f.title.startswith("FLOPs known for 0.0 %") for f in r.findings)


def test_occupancy_through_the_ncu_collector_b200():
    path = shared_trace("ncu/meinie_b200_raw_torch_sdpa_flash__gqa_bf16_b32_ctx8k_p64.ncu.csv")
    tl = gpulens.collect(path)
    c = tl.counters
    lim = CUDA_LIMITS["10.0"]
    for r in tl.events.itertuples():
        mine = cuda_occupancy(lim, int(r.block_x * r.block_y * r.block_z), int(r.regs_per_thread),
                              int(r.smem_static_bytes) + int(r.smem_dynamic_bytes))
        got = dict(zip(c.loc[c["event_id"] == r.event_id, "metric"], c.loc[c["event_id"] == r.event_id, "value"]))
        for res, metric in (("registers", "registers"), ("shared_memory", "shared_mem"), ("warps", "warps"),
                            ("blocks", "blocks")):
            assert mine.limits[res] == got[f"launch__occupancy_limit_{metric}"]
        assert mine.occupancy_pct == pytest.approx(got["sm__maximum_warps_per_active_cycle_pct"])
    occ = gpulens.analyze([path]).sources[0].results["occupancy"]
    row = occ.table.iloc[0]
    # issue 14.1's example: 16 launches, 256 blocks of 128 threads on 148 SMs, registers allow 2 blocks/SM →
    # theoretical 2 × 4 warps / 64 = 12.5 % (ncu's own figure, not grid-capped), limiter registers; the grid is
    # 256 / (2 × 148) = 0.865 waves, its only wave 86.5 % full
    ev0 = tl.events.iloc[0]
    got0 = dict(zip(c.loc[c["event_id"] == ev0.event_id, "metric"], c.loc[c["event_id"] == ev0.event_id, "value"]))
    assert got0["sm__maximum_warps_per_active_cycle_pct"] == 12.5
    assert row["calls"] == 16 and row["active_blocks_per_sm"] == 2 and row["limiter"] == "registers"
    assert row["theoretical_occupancy_pct"] == pytest.approx(12.5) and row["occupancy_source"] == "ncu+calculator"
    assert row["calculator_theoretical_pct"] == pytest.approx(12.5) and occ.summary["calculator_disagreements"] == 0
    assert row["waves_per_sm"] == pytest.approx(got0["launch__waves_per_multiprocessor"], abs=0.01)
    assert row["waves_per_sm"] == pytest.approx(256 / (2 * 148), abs=0.01)
    assert row["tail_wave_pct"] == pytest.approx(100 * 256 / (2 * 148), abs=1)


@pytest.mark.parametrize("rel, cc", [("fuser_h200_nsys2024.6_report1.sqlite", "9.0"),
                                     ("lashi_rtx4090_streamSimple.sqlite", "8.9"),
                                     ("memfusion_rtx3090_report1.sqlite", "8.6")])
def test_arch_table_matches_nsys_target_info(rel, cc):
    path = NV / rel if (NV / rel).exists() else shared_trace(f"nsys/{rel}")
    d = gpulens.collect(path).meta.devices[0]
    lim = CUDA_LIMITS[cc]
    assert d["compute_capability"] == cc
    assert (d["max_warps_per_sm"], d["max_blocks_per_sm"]) == (lim.max_warps_per_sm, lim.max_blocks_per_sm)
    assert (d["smem_per_sm_bytes"], d["smem_per_block_optin_bytes"]) == (lim.smem_per_sm, lim.smem_per_block_optin)
    assert d["regs_per_sm"] == lim.regs_per_sm and d["regs_per_block"] == lim.regs_per_block


def test_occupancy_runs_on_architecture_rules_when_the_gpu_has_no_spec(monkeypatch):
    # a CC 8.6 GPU without a built-in spec (the RTX 3090 of this file has one since session 7: the table is emptied
    # of it here, and no figures are derived from its record: gpulens.devices.derived), occupancy still runs on the
    # sm_86 rules, roofline skips
    import gpulens.devices as devices
    import gpulens.devices.derived as derived

    monkeypatch.setattr(devices, "SPECS", tuple(s for s in devices.SPECS if "3090" not in s.name))
    monkeypatch.setattr(derived, "derived_spec", lambda rec, specs: None)
    src = gpulens.analyze([shared_trace("nsys/memfusion_rtx3090_report1.sqlite")]).sources[0]
    occ = src.results["occupancy"]
    assert not occ.skipped and occ.summary["arch"] == "sm_86" and "no spec" in occ.summary["device"]
    assert src.results["roofline"].skipped and "no device spec" in src.results["roofline"].skipped_reason


def test_rtx3090_nsys_export_identified():
    # session 7 added the RTX 3090 spec (GA102 whitepaper): the same file now names it, occupancy on sm_86
    src = gpulens.analyze([shared_trace("nsys/memfusion_rtx3090_report1.sqlite")]).sources[0]
    occ = src.results["occupancy"]
    assert not occ.skipped and occ.summary["arch"] == "sm_86" and occ.summary["device"] == "NVIDIA GeForce RTX 3090"
