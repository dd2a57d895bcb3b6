"""Counter-derived figures against the vendor's own formulas (rocprof-compute analysis configs, Nsight Compute).

The fault kind: on a multi-XCD AMD GPU (MI300X: 8 XCDs) the profiler sums ``GRBM_GUI_ACTIVE`` over the XCDs, and
rocprof-compute divides it by the XCD count before every per-CU figure (``$GRBM_GUI_ACTIVE_PER_XCD =
GRBM_GUI_ACTIVE / $num_xcd``, ROCm/rocprofiler-compute ``src/utils/parser.py``; "VALU Utilization" = 100 ·
SQ_ACTIVE_INST_VALU / ($GRBM_GUI_ACTIVE_PER_XCD · $cu_per_gpu), ``analysis_configs/gfx90a/0200_system-speed-of-
light.yaml``). gpulens divided by the recorded XCD count only, and a rocprof v1 or rocprofv3 CSV records none, so
on an MI300X the VALU / MFMA utilisation, wavefront occupancy and elapsed cycles came out 8× too small (a kernel at
50 % VALU utilisation read 6.25 %). The XCD count is now the recorded one, else derived from the architecture and
the CU count (CDNA3: 38 CUs per XCD; CDNA4: 32), else unknown — never 1 on a multi-XCD part.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import gpulens
from gpulens.analyzers import _sol_amd

#: A minimal ``rocminfo`` dump (the ``results.sysinfo.txt`` rocprof v1 writes beside results.csv): one MI300X
#: agent, fields as rocminfo prints them (an MI300X dump: Name gfx942, Compute Unit 304, Max Waves Per CU 32).
SYSINFO = """\
=====================
HSA Agents
=====================
*******
Agent 1
*******
  Name:                    AMD EPYC 9654 96-Core Processor
  Marketing Name:          AMD EPYC 9654 96-Core Processor
  Vendor Name:             CPU
  Device Type:             CPU
  Compute Unit:            192
*******
Agent 2
*******
  Name:                    gfx942
  Uuid:                    GPU-0000000000000001
  Marketing Name:          AMD Instinct MI300X
  Vendor Name:             AMD
  Device Type:             GPU
  Chip ID:                 29857(0x74a1)
  Max Clock Freq. (MHz):   2100
  Compute Unit:            {cus}
  SIMDs per CU:            4
  Wavefront Size:          64(0x40)
  Max Waves Per CU:        32(0x20)
"""

HEADER = ('"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr",'
          '"accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs",'
          '"GRBM_GUI_ACTIVE","SQ_ACTIVE_INST_VALU","SQ_VALU_MFMA_BUSY_CYCLES","SQ_WAVES"')


def _run(tmp_path: Path, cus: int, grbm: int, valu: int, mfma: int, table: bool = False):
    (tmp_path / "results.sysinfo.txt").write_text(SYSINFO.format(cus=cus))
    row = (f'0,"gemm_kernel.kd",2,0,0,100,100,1048576,256,0,0,64,0,32,64,"0x0","0x7f",'
           f"1000000,1010000,1110000,1120000,{grbm},{valu},{mfma},16384")
    (tmp_path / "results.csv").write_text(HEADER + "\n" + row + "\n")
    rep = gpulens.analyze([tmp_path / "results.csv"])
    t = rep.sources[0].results["speed_of_light"].table
    return t if table else t.iloc[0]


def test_mi300x_valu_and_mfma_utilisation_per_xcd(tmp_path):
    # A 100 µs dispatch (EndNs − BeginNs) at 2.1 GHz: 210,000 cycles on each of the 8 XCDs, so the profiler's sum
    # GRBM_GUI_ACTIVE = 8 × 210,000 = 1,680,000. SQ_ACTIVE_INST_VALU = 31,920,000 and SQ_VALU_MFMA_BUSY_CYCLES =
    # 102,144,000. By rocprof-compute's formulas (G = GRBM_GUI_ACTIVE / num_xcd = 210,000; cu_per_gpu = 304):
    #   VALU Utilization = 100 · 31,920,000 / (210,000 · 304)      = 100 · 31,920,000 / 63,840,000  = 50.0 %
    #   MFMA Utilization = 100 · 102,144,000 / (210,000 · 304 · 4) = 100 · 102,144,000 / 255,360,000 = 40.0 %
    # (before: G = 1,680,000, so 6.25 % and 5.0 %)
    row = _run(tmp_path, cus=304, grbm=1_680_000, valu=31_920_000, mfma=102_144_000)
    assert float(row["tensor_pct"]) == pytest.approx(40.0, abs=1e-9)
    assert float(row["compute_pct"]) == pytest.approx(50.0, abs=1e-9)  # max(VALU, MFMA)
    assert float(row["elapsed_cycles"]) == pytest.approx(210_000, abs=1e-6)


def test_partition_and_unknown_xcd_counts(tmp_path):
    # A CPX compute partition of an MI300X is one XCD of 38 CUs: GRBM_GUI_ACTIVE is that XCD's alone. 100 µs at
    # 2.1 GHz = 210,000 cycles; SQ_ACTIVE_INST_VALU = 3,990,000 → 100 · 3,990,000 / (210,000 · 38) = 50.0 %.
    row = _run(tmp_path, cus=38, grbm=210_000, valu=3_990_000, mfma=0)
    assert float(row["compute_pct"]) == pytest.approx(50.0, abs=1e-9)


def test_xcd_count_rules():
    # recorded count wins (rocprof-compute sysinfo num_xcd; rocprofv3 agent num_xcc)
    assert _sol_amd.xcd_count({"num_xcc": 8, "gfx_arch": "gfx942", "num_sms": 304}) == 8
    # CDNA3 white paper: MI300X 8 XCDs × 38 CUs = 304, MI300A 6 × 38 = 228; CDNA4: MI355X 8 × 32 = 256
    assert _sol_amd.xcd_count({"gfx_arch": "gfx942:sramecc+:xnack-", "num_sms": 304}) == 8
    assert _sol_amd.xcd_count({"gfx_arch": "gfx942", "num_sms": 228}) == 6
    assert _sol_amd.xcd_count({"gfx_arch": "gfx950", "num_sms": 256}) == 8
    # single-XCD CDNA2 (an MI250X GCD, 110 CUs; rocprof-compute's sysinfo for MI200 writes num_xcd 1)
    assert _sol_amd.xcd_count({"gfx_arch": "gfx90a", "num_sms": 110}) == 1
    # a gfx942 CU count that is no whole number of 38-CU XCDs, or no architecture at all: unknown, not 1
    assert math.isnan(_sol_amd.xcd_count({"gfx_arch": "gfx942", "num_sms": 80}))
    assert math.isnan(_sol_amd.xcd_count({"gfx_arch": "gfx942"}))
    assert math.isnan(_sol_amd.xcd_count({"num_sms": 304}))


def test_unknown_xcd_count_gives_unknown_utilisation(tmp_path):
    # 80 CUs on gfx942 is no whole number of 38-CU XCDs: the per-XCD cycles, and so VALU utilisation, are unknown
    # (one XCD would read 100 · 8,400,000 / (840,000 · 80) = 12.5 %, four 50 %: which is right is not known here)
    t = _run(tmp_path, cus=80, grbm=840_000, valu=8_400_000, mfma=0, table=True)
    assert not len(t) or all(v is None or math.isnan(float(v)) for v in t["compute_pct"])


def test_mi300_fp8_mfma_operations_are_counted(tmp_path):
    # rocprofv3 on gfx942 lists SQ_INSTS_VALU_MFMA_MOPS_F8 beside F16/BF16/F32/F64/I8 (and XF32); like the others it
    # counts MFMA operations in units of 512 (rocprof-compute "MFMA FLOPs (<type>)" = 512 · SQ_INSTS_VALU_MFMA_MOPS_
    # <type> / duration). An FP8 GEMM dispatch: MOPS_F8 = 1,000,000 → 512,000,000 FLOP; SQ_INSTS_VALU_ADD_F32 =
    # 10,000 → 64 · 10,000 = 640,000 FLOP ("VALU FLOPs": 64 lanes per instruction). Total 512,640,000 FLOP over
    # EndNs − BeginNs = 100,000 ns → 5.1264 TFLOP/s, its largest part FP8 (before: the FP8 counter was not read,
    # 640,000 FLOP → 6.4 GFLOP/s at fp32).
    (tmp_path / "results.sysinfo.txt").write_text(SYSINFO.format(cus=304))
    head = HEADER.replace('"GRBM_GUI_ACTIVE","SQ_ACTIVE_INST_VALU","SQ_VALU_MFMA_BUSY_CYCLES","SQ_WAVES"',
                          '"SQ_INSTS_VALU_MFMA_MOPS_F8","SQ_INSTS_VALU_ADD_F32","FETCH_SIZE","WRITE_SIZE"')
    row = ('0,"fp8_gemm_kernel.kd",2,0,0,100,100,1048576,256,0,0,64,0,32,64,"0x0","0x7f",'
           "1000000,1010000,1110000,1120000,1000000,10000,4096,1024")
    (tmp_path / "results.csv").write_text(head + "\n" + row + "\n")
    rep = gpulens.analyze([tmp_path / "results.csv"])
    t = rep.sources[0].results["roofline"].table
    r = t.iloc[0]
    assert float(r["flops"]) == pytest.approx(512_640_000, rel=1e-12)
    assert float(r["flops_per_s"]) == pytest.approx(512_640_000 / 100_000e-9, rel=1e-9)
    assert r["precision"] == "fp8"
    # bytes: rocprof's FETCH_SIZE / WRITE_SIZE are KiB: (4,096 + 1,024) · 1,024 = 5,242,880 B → 97.78 FLOP/B
    assert float(r["arithmetic_intensity"]) == pytest.approx(512_640_000 / 5_242_880, rel=1e-9)


NCU_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
            '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def _ncu_roofline_row(path: Path, metrics: list[tuple[str, str, str]]):
    """The roofline row of an ``ncu --csv --metrics …`` output (long layout, one launch) written to ``path`` with
    ``metrics`` (name, unit, value) and a 200 µs duration."""
    lead = ('"0","4242","python3","127.0.0.1","sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64",'
            '"1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Command line profiler metrics"')
    rows = [f'{lead},"{m}","{u}","{v}"' for m, u, v in metrics]
    path.write_text(NCU_HEAD + "\n" + f'{lead},"gpu__time_duration.sum","usecond","200.00"\n' + "\n".join(rows) + "\n")
    return gpulens.analyze([path]).sources[0].results["roofline"].table.iloc[0]


def test_ncu_tensor_total_and_its_sparsity_parts_counted_once(tmp_path):
    # Nsight Compute lists sm__ops_path_tensor_src_bf16_dst_fp32 ("# of math ops executed in Tensor path with source
    # BF16 and destination FP32") and the same split into _sparsity_off and _sparsity_on: total = off + on. A
    # 4096³ bf16 GEMM: 2 · 4096³ = 137,438,953,472 FLOP, all dense (off = total, on = 0). Over 200 µs that is
    # 137,438,953,472 / 200e-6 = 687.19 TFLOP/s (before: the total and its part were added, 274.9 GFLOP,
    # 1,374 TFLOP/s — above the H100/H200 dense bf16 peak of 989 TFLOP/s).
    r = _ncu_roofline_row(tmp_path / "gemm.csv", [
        ("dram__bytes_read.sum", "Mbyte", "100.66"),
        ("dram__bytes_write.sum", "Mbyte", "33.55"),
        ("sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "137,438,953,472"),
        ("sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum", "", "137,438,953,472"),
        ("sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_on.sum", "", "0"),
    ])
    assert float(r["flops"]) == pytest.approx(137_438_953_472, rel=1e-12)
    assert float(r["flops_per_s"]) == pytest.approx(137_438_953_472 / 200e-6, rel=1e-9)
    assert r["precision"] == "bf16"
    # DRAM bytes: Mbyte is 10⁶ bytes in ncu: 100.66e6 + 33.55e6 = 134.21e6 → 1,024.06 FLOP/B
    assert float(r["arithmetic_intensity"]) == pytest.approx(137_438_953_472 / 134.21e6, rel=1e-9)


def test_ncu_tensor_parts_without_a_total_are_summed(tmp_path):
    # Hopper's fp8 tensor counts come only split (H200 raw page: sm__ops_path_tensor_src_fp8_sparsity_off.sum and
    # _sparsity_on.sum, no total): both are summed. 1,000,000,000 dense + 500,000,000 sparse = 1.5e9 FLOP.
    r = _ncu_roofline_row(tmp_path / "fp8.csv", [
        ("sm__ops_path_tensor_src_fp8_sparsity_off.sum", "", "1,000,000,000"),
        ("sm__ops_path_tensor_src_fp8_sparsity_on.sum", "", "500,000,000")])
    assert float(r["flops"]) == pytest.approx(1.5e9, rel=1e-12)
    assert r["precision"] == "fp8"
    assert float(r["flops_per_s"]) == pytest.approx(1.5e9 / 200e-6, rel=1e-9)  # 7.5 TFLOP/s
