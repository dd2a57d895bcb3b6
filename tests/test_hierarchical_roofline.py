"""Hierarchical roofline from counters (issue 15.3): per kernel, DRAM / L2 / L1 / shared points with their roofs.
Expected values are worked out by hand from the inputs written in each test."""

from __future__ import annotations

import pytest

import gpulens

RAW = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
       '"Device","CC","device__attribute_display_name","gpu__time_duration.sum",'
       '"sm__sass_thread_inst_executed_op_ffma_pred_on.sum","sm__sass_thread_inst_executed_op_fadd_pred_on.sum",'
       '"dram__bytes.sum","lts__t_bytes.sum","l1tex__t_bytes.sum"\n'
       '"","","","","","","","","","","","","usecond","inst","inst","Gbyte","Gbyte","Gbyte"\n'
       '"0","1","app","h","sgemm_naive","1","7","(16, 16, 1)","(256, 256, 1)","0","9.0","NVIDIA H100 80GB HBM3",'
       '"1,000","2,000,000,000","1,000,000,000","2","10","40"\n')


def test_nvidia_points_per_level(tmp_path):
    p = tmp_path / "raw.csv"
    p.write_text(RAW)
    src = gpulens.analyze([p]).sources[0]
    t = src.results["hierarchical_roofline"].table.set_index("level")
    # FLOPs = 2 × 2e9 FFMA + 1e9 FADD = 5e9 over 1 ms = 5 TFLOP/s
    flops = 2 * 2e9 + 1e9
    assert set(t.index) == {"dram", "l2", "l1"}
    assert t.loc["dram", "flops"] == flops and t.loc["dram", "bytes"] == 2e9
    assert t.loc["dram", "arithmetic_intensity"] == pytest.approx(flops / 2e9)       # 2.5 FLOP/B
    assert t.loc["l2", "arithmetic_intensity"] == pytest.approx(flops / 10e9)        # 0.5
    assert t.loc["l1", "arithmetic_intensity"] == pytest.approx(flops / 40e9)        # 0.125
    assert t.loc["dram", "achieved_flops"] == pytest.approx(flops / 1e-3)
    # DRAM roof = the spec's bandwidth; no FP32 kernel uses tensor cores here → vector fp32 peak; AI 2.5 is left of
    # the ridge (peak / bandwidth), so memory side; attainable = AI × bandwidth
    bw, peak = src.device.memory_bandwidth, src.device.peak_flops("fp32", matrix=False)[0]
    assert t.loc["dram", "roof_bandwidth"] == bw and t.loc["dram", "peak_flops"] == peak
    assert t.loc["dram", "side"] == ("memory" if 2.5 < peak / bw else "compute")
    assert t.loc["dram", "attainable_flops"] == pytest.approx(min(peak, 2.5 * bw))
    # no measured L2 roof and none in the spec: the point is drawn, its roof unknown
    assert t.loc["l2", "roof_bandwidth"] != t.loc["l2", "roof_bandwidth"] and t.loc["l2", "side"] == "unknown"


def test_amd_points_use_measured_roofs(tmp_path):
    d = tmp_path / "w"
    d.mkdir()
    (d / "sysinfo.csv").write_text("gpu_model,gpu_arch,cu_per_gpu,wave_size,max_waves_per_cu,max_sclk,hbm_bw,num_xcd,"
                                   "total_l2_chan,lds_banks_per_cu\nMI200,gfx90a,104,64,32,1700,1638.4,1,32,32\n")
    (d / "roofline.csv").write_text("device,HBMBw,L2Bw,L1Bw,LDSBw,FP32Flops,MFMAF32Flops\n"
                                    "0,1400.0,5000.0,9000.0,17000.0,21000.0,41000.0\n")
    # one dispatch of 10 µs: 1,000 FP32 FMA + 500 ADD instructions → 64·(500 + 2·1000) = 160,000 FLOPs;
    # HBM bytes (gfx90a): 64 × 100 read requests + 64 × 50 64-byte writes = 9,600 B; L2 = 128 × 300 = 38,400 B
    (d / "pmc_perf.csv").write_text(
        "Dispatch_ID,GPU_ID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,"
        "wave_size,Kernel_Name,Start_Timestamp,End_Timestamp,GRBM_GUI_ACTIVE,SQ_INSTS_VALU_FMA_F32,"
        "SQ_INSTS_VALU_ADD_F32,TCC_EA_RDREQ_sum,TCC_EA_RDREQ_32B_sum,TCC_EA_WRREQ_sum,TCC_EA_WRREQ_64B_sum,"
        "TCC_REQ_sum\n"
        '0,0,65536,256,0,0,32,0,16,64,"k(float*)",1000000,1010000,17000,1000,500,100,0,50,50,300\n')
    src = gpulens.analyze([d]).sources[0]
    t = src.results["hierarchical_roofline"].table.set_index("level")
    assert t.loc["dram", "flops"] == 160_000 and t.loc["dram", "bytes"] == 9_600
    assert t.loc["l2", "bytes"] == 38_400
    # measured HBMBw 1400 GB/s and FP32Flops 21000 GFLOP/s (roofline.csv): ridge 15 FLOP/B, AI 16.67 → compute side
    assert t.loc["dram", "roof_bandwidth"] == 1400e9 and t.loc["dram", "peak_flops"] == 21000e9
    assert "measured HBMBw" in t.loc["dram", "roof_source"]
    assert t.loc["dram", "side"] == "compute"
    assert t.loc["l2", "roof_bandwidth"] == 5000e9 and t.loc["l2", "side"] == "memory"  # AI 4.17 < ridge 4.2


def test_no_counters_skips_without_gathering_the_kernel_rows():
    # a Kineto-like timeline (no counters): skipped saying which counters to collect, and the kernel rows' columns
    # (hot_kernels of every kernel, a copy of a million rows at scale) are never gathered for it
    from gpulens.analyzers.context import context_of
    from gpulens.analyzers.hierarchical_roofline import HierarchicalRoofline
    from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

    n = 50
    tl = Timeline(make_table(EVENT_COLUMNS, {
        "kind": ["runtime"] + ["kernel"] * n, "name": ["cudaLaunchKernel"] + [f"k{i % 3}" for i in range(n)],
        "start_ns": list(range(0, 1000 * (n + 1), 1000)), "dur_ns": [500] * (n + 1),
        "stream_id": [None] + [7] * n, "event_id": list(range(n + 1)), "rank": [0] * (n + 1),
        "device_id": [-1] + [1] * n, "source": ["t"] * (n + 1)})).validate()
    res = HierarchicalRoofline().analyze(tl)
    assert res.skipped and res.skipped_reason.startswith("no FLOP and per-level byte counters (")
    assert not any(str(k).startswith("hot_kernels") for k in context_of(tl).__dict__.get("_memo", {}))
    empty = Timeline(make_table(EVENT_COLUMNS, {"kind": ["runtime"], "name": ["x"], "start_ns": [0], "dur_ns": [1],
                                                "event_id": [0], "rank": [0], "device_id": [-1],
                                                "source": ["t"]})).validate()
    from gpulens.analyzers._hot import no_hot_kernels_reason

    assert HierarchicalRoofline().analyze(empty).skipped_reason == no_hot_kernels_reason(empty, None)  # no kernel
