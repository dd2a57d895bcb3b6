"""Real profiler outputs (session 45, "held-back real traces"): new public files read against facts from the files.

1. An Nsight Compute report of a CUDA tutorial (DarrenLu666888/CUDATutorial @
   59ad960eb22054dc6a54d575d031ff1b03b1dba8 ``profile.ncu-rep``, no licence file: not copied) records an
   "NVIDIA GeForce RTX 3050 Laptop GPU" with its device attributes (``clock_rate`` 1,500,000 kHz,
   ``multiprocessor_count`` 16, ``memory_clock_rate`` 6,001,000 kHz, ``global_memory_bus_width`` 128, compute
   capability 8.6, read with NVIDIA's ncu_report). The report said "no hardware spec identified: no roofline peaks;
   pass --device-spec". Kind: an NVIDIA GPU no built-in spec names (a laptop part, whose boost clock is the maker's
   choice, so no one datasheet figure; a workstation or newer board) although the profiler recorded what its peaks
   follow from. Now its vector FP32/FP64 peaks come from its recorded SMs and clock at the FLOP per clock per SM its
   compute capability's built-in parts have, its DRAM bandwidth from the recorded bandwidth (nsys) or memory clock ×
   bus width (ncu), no tensor-core peak; the spec's name says "derived figures" in every report
   (:mod:`gpulens.devices.derived`). The same derivation applied to the records of GPUs that do have built-in specs
   (RTX 4090 and H200 .ncu-rep, H200 / RTX 4090 / RTX 3090 nsys exports of the corpus) gives their datasheet figures
   within 1 %. Other real records it now reads: an RTX 4070 Ti SUPER .ncu-rep (trevorgloe/GPUAcceleratedNetworkSim @
   eb293292 ``profile.ncu-rep``: 66 SMs at 2,640 MHz → 44.6 TFLOP/s FP32, 672.1 GB/s — its datasheet's 672 GB/s), a
   laptop GTX 1650 nsys export (Faraz-Nasir/CUDA---Recap @ 8eb23667 ``report1.sqlite``: 16 SMs at 1,560 MHz → 3.19
   TFLOP/s, the recorded 128.03 GB/s; the desktop GTX 1650 has 14 SMs: a table row by name would have been wrong)
   and an RTX 4060 Laptop nsys export (rchops/cuda-learning @ 534a6ed4 ``report1.sqlite``: 24 SMs at 1,890 MHz,
   256.03 GB/s; no kernel table: "incomplete capture", rightly). None of these files has a licence file: not copied.
2. The GTX 1650 export lists Windows' "Microsoft Basic Render Driver" in ``TARGET_INFO_GPU`` (smCount 0,
   compute capability 0.0); the report said "also recorded, no GPU work on it: Microsoft Basic Render Driver".
   Kind: a display adapter CUDA cannot run on, taken for an idle GPU. Such a row (0 SMs, no compute capability) is
   no device now (:func:`gpulens.collectors._nsys_devices._devices`).

Also checked this session and found right (kernel count, Σ kernel time, span, busy, copies, device; facts computed
with json / gzip / sqlite3 / ncu_report, and against TraceLens' own ``gpu_timeline.csv`` where the repository has
one): AMD-AGI/TraceLens @ 171dd74721ca1ec45709e5805b68ae1f65e27811 (MIT) ``tests/traces/inference/``
``sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz`` (MI300X; 527 kernels, computation 492.77 ms, memcpy
37.97 µs, span 987.29 ms = TraceLens' 492.769 / 0.0380 / 987.289 ms; roofline of the 128x256x32 GEMM 456.92 TFLOP/s
= 2·15360·4096·24576 FLOP × 36 / 243.64 ms), ``xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz`` (201.15 ms /
0.200 ms / 226.60 ms = TraceLens), ``xdit_sd_3.5/profile_trace_rank_0.json.gz`` (712.01 ms / 0.474 ms / 1.17 s =
TraceLens' 712.014 / 0.4738 / 1171.63 ms), ``xdit_flux.1/capture_traces/capture_trace_rank_0.json.gz`` (2,540
kernels, 64.02 ms) and ``vllm_decode_full/graph_execution.json.gz`` (gfx942 without a name: MI300X from 304 CUs);
facebookresearch/HolisticTraceAnalysis @ f4d0062c (MIT) ``critical_path/cuda_event_sync{,_multi_stream}/
event_sync_trace.json.gz`` (span 19.51 ms, one-off gap 18.81 ms, 53.8 % busy outside it, by hand) and
``trace_file_list/inference_rank_1.json.gz``; HGLiu1998/batched_gemm @ 2f96e49c ``ck_bmm/37ca13315e70/
28_results.db`` (a rocprofv3 rocpd database of an ATT run, MI300X: 150 ck_tile BatchedGemmKernel dispatches Σ
2,580,371 ns, span 15,719,660 ns, 128 arch + 384 accumulation VGPRs = 512, LDS 64 KiB: 12.5 % occupancy, grid 0.842
waves = 256 work-groups / 304 CUs); bwd29/self-join-MiSTIC @ 656dd47b ``ilpProf.ncu-rep``,
``profileMSDNEW.out.ncu-rep``, ``profileTINYK1.out.ncu-rep``, ``profileBIGCROSS3.out.ncu-rep`` (A100 PCIe; durations,
registers, theoretical/achieved occupancy, waves and SOL shares as ncu_report reads them; ncu's negative
``lts__t_sectors_srcunit_tex_op_red_lookup_hit.sum`` dropped and counted); AlpriElse/cs599k @ 776764c8 .ncu-rep files
(H100 PCIe, A100 SXM4 40GB, and a "GH200 480GB" whose 2.62 GHz DRAM clock picks the 96 GB HBM3 variant);
igouProto/CSC746CUDALab @ 55ce2215 ``report1.sqlite`` / ``report5.sqlite`` (A100 SXM4 / PCIe: one 1-block kernel of
25,786,230,349 ns; 3,072 idle gaps ending in unified-memory page migrations). 
3. HTA's ``memory_analysis/memory_timeline.raw.gz`` (torch.profiler's raw memory timeline) and batched_gemm's
   ``ck_bmm/stats_ui_output_agent_5600_dispatch_1.csv`` (rocprofv3's thread-trace decoder statistics) were refused as
   "not a recognised trace format", which reads as a broken file. Kind: a real profiler output that holds no GPU
   timeline. Both are now named, with the file of the same run to analyse instead (:mod:`gpulens.collectors._hints`).
4. TraceLens' agent-eval traces (``agent_evals/Analysis/analysis_tests/unit_tests_standalone.tar.gz``: MI300X,
   ``rocprofiler-sdk_version`` 1.0, HIP 70125424 = ROCm 7.1) write each kernel's grid and block as launched (equal to
   the hipLaunchKernel arguments beside them: 16384 workgroups of 256). gpulens swapped every record of a
   rocprofiler-sdk-backend trace (ROCm 7.0's convention, the aorta MI350X trace): "10 kernel records with grid and
   workgroup sizes in swapped places", then "impossible launch configuration values treated as unknown (block ×20)",
   and the verdict "latency/occupancy-bound: the grid has too few workgroups to fill the GPU" for a 16384-workgroup
   add (now: below both roofs, 36.1 % of the roofline). Kind: a backend convention that changed between versions,
   assumed from the version key alone. A record whose "grid" cannot be a workgroup size (> 1024 threads) while its
   block fits is as launched; a trace with such records and none with an impossible block keeps its records as
   written (:mod:`gpulens.collectors._kineto_grid`). Left alone: a ROCm 7.1 trace whose every grid and block fit a
   workgroup still reads as swapped (nothing in the records tells the conventions apart).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gpulens
from gpulens.devices import SPECS, get_spec
from gpulens.devices.derived import DERIVED_WORDS, derived_spec
from gpulens.reports import console, html, json_report, markdown

# The RTX 3050 Laptop report's device attributes (module doc) on a raw-page export (``ncu --csv --page raw``): a
# header, a units row (ncu leaves the device attributes' unit empty: CUDA's kHz), one launch of a SAXPY-like kernel
# moving 30.72 MB in 200 µs with 2,560,000 FFMA thread instructions.
_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
         '"Device","CC","device__attribute_display_name","device__attribute_clock_rate",'
         '"device__attribute_multiprocessor_count","device__attribute_memory_clock_rate",'
         '"device__attribute_global_memory_bus_width","device__attribute_l2_cache_size","dram__bytes_read.sum",'
         '"dram__bytes_write.sum","gpu__time_duration.sum","launch__grid_size","launch__block_size",'
         '"launch__registers_per_thread","sm__sass_thread_inst_executed_op_ffma_pred_on.sum"')
_ROW = ('"0","5151","filter","host","saxpy_k(float*, float const*, float, int)","1","7","(256, 1, 1)",'
        '"(10000, 1, 1)","0","8.6","NVIDIA GeForce RTX 3050 Laptop GPU","{clock}","16","{mclock}","128","1572864",'
        '"20480000","10240000","200000","10000","256","16","2560000"')


def _raw_csv(tmp_path: Path, khz_unit: str = "", clock: str = "1500000", mclock: str = "6001000") -> Path:
    units = ',"","","","","","","","","","","","",' + f'"{khz_unit}","","{khz_unit}","","","byte","byte","nsecond",' \
            '"","","register/thread","inst"'
    p = tmp_path / "rtx3050_laptop_raw.csv"
    p.write_text("==PROF== Connected to process 5151 (/home/u/filter)\n" + _HEAD + "\n" + units.lstrip(",")
                 + "\n" + _ROW.format(clock=clock, mclock=mclock) + "\n")
    return p


# By hand: 16 SMs × 128 FP32 lanes = 2,048 CUDA cores × 2 FLOP (FMA) × 1.5 GHz; 2 × 6.001 GHz × 128 bits / 8;
# FP64 at 1/64 of FP32 (compute capability 8.6: 2 FP64 results per clock per SM, CUDA Programming Guide).
FP32 = 2048 * 2 * 1.5e9
FP64 = FP32 / 64
BW = 2 * 6.001e9 * 128 / 8


@pytest.mark.parametrize("unit,clock,mclock", [("", "1500000", "6001000"), ("Khz", "1500000", "6001000"),
                                               ("Mhz", "1500", "6001")])
def test_an_unlisted_nvidia_gpu_gets_the_figures_its_record_implies(tmp_path, unit, clock, mclock):
    rep = gpulens.analyze([_raw_csv(tmp_path, unit, clock, mclock)])
    src = rep.sources[0]
    spec = src.device
    assert spec is not None and spec.name == f"NVIDIA GeForce RTX 3050 Laptop GPU ({DERIVED_WORDS})"
    assert spec.figure_value("vector.fp32") == pytest.approx(FP32)  # 6.144 TFLOP/s
    assert spec.figure_value("vector.fp64") == pytest.approx(FP64)
    assert spec.memory_bandwidth == pytest.approx(BW)  # 192.032 GB/s
    assert spec.figure_value("l2") == 1572864
    assert not any(k.startswith("matrix.") for k in spec.figures)  # no tensor-core peak is guessed
    assert all(f.uncertain for k, f in spec.figures.items() if k.startswith("vector.") or k == "memory_bandwidth")
    # the roofline is placed on them: 30.72 MB in 200 µs = 153.6 GB/s, 80.0 % of 192.032 GB/s; FLOP 2 × 2.56 M
    row = rep.sources[0].results["roofline"].table.iloc[0]
    assert row["peak_bytes_per_s"] == pytest.approx(BW) and row["peak_flops_per_s"] == pytest.approx(FP32)
    assert row["roof_pct"] == pytest.approx(100 * 153.6e9 / BW) and row["bound"] == "memory"
    assert row["flops"] == pytest.approx(5.12e6)
    doc = json.loads(json_report.render(rep))["sources"][0]
    assert doc["device_spec"] == spec.name and doc["device_spec_assumed"] is False
    for text in (doc["device_text"], console.render(rep, width=400), markdown.render(rep), html.render(rep)):
        assert "RTX 3050 Laptop GPU (derived figures)" in " ".join(text.split())
        assert "no hardware spec identified" not in text


# Recorded device attributes of GPUs with built-in specs (values as the corpus files record them: the RTX 4090 and
# H200 .ncu-rep files, the H200 / RTX 3090 nsys exports) and those GPUs' datasheet figures (NVIDIA's product pages:
# RTX 4090 82.6 TFLOPS FP32, 1,008 GB/s; H200 SXM 67 TFLOPS FP32, 34 TFLOPS FP64, 4.8 TB/s; RTX 3090 35.6 TFLOPS
# FP32, 936 GB/s).
RECORDED = [
    ({"name": "GPU A", "compute_capability": "8.9", "num_sms": 128, "clock_hz": 2.52e9,
      "memory_clock_rate_hz": 10.501e9, "memory_bus_width_bits": 384}, 82.6e12, None, 1008e9),
    ({"name": "GPU B", "compute_capability": "9.0", "num_sms": 132, "clock_hz": 1.98e9,
      "memory_clock_rate_hz": 3.201e9, "memory_bus_width_bits": 6016}, 67e12, 34e12, 4.8e12),
    ({"name": "GPU C", "compute_capability": "8.6", "num_sms": 82, "clock_hz": 1.695e9,
      "memory_bandwidth_bytes_per_s": 936096000000}, 35.6e12, None, 936e9),
]


@pytest.mark.parametrize("rec,fp32,fp64,bw", RECORDED)
def test_derived_figures_of_known_gpus_match_their_datasheets(rec, fp32, fp64, bw):
    spec = derived_spec(rec, SPECS)
    assert spec.figure_value("vector.fp32") == pytest.approx(fp32, rel=0.01)
    if fp64:
        assert spec.figure_value("vector.fp64") == pytest.approx(fp64, rel=0.02)
    assert spec.memory_bandwidth == pytest.approx(bw, rel=0.01)
    assert not any(k.startswith("matrix.") for k in spec.figures)


@pytest.mark.parametrize("rec", [
    {"name": "AMD Instinct MI300X", "gfx_arch": "gfx942", "num_sms": 304, "clock_hz": 2.1e9},  # AMD: not here
    {"name": "NVIDIA A100-SXM4-40GB MIG 1g.5gb", "compute_capability": "8.0", "num_sms": 14, "clock_hz": 1.41e9},
    {"name": "NVIDIA Jetson AGX Orin", "compute_capability": "8.7", "num_sms": 16, "clock_hz": 1.3e9},  # no 8.7 part
    {"name": "Synthetic GPU", "compute_capability": "8.6", "num_sms": 20},  # no clock (a Kineto deviceProperties)
])
def test_no_figures_are_derived_without_what_they_rest_on(rec):
    assert derived_spec(rec, SPECS) is None


def test_a_built_in_gpu_is_still_its_built_in_spec(tmp_path):
    p = _raw_csv(tmp_path)
    p.write_text(p.read_text().replace("NVIDIA GeForce RTX 3050 Laptop GPU", "NVIDIA GeForce RTX 3070")
                 .replace('"16","6001000"', '"46","7001000"'))
    spec = gpulens.analyze([p]).sources[0].device
    assert spec.name == get_spec("NVIDIA GeForce RTX 3070").name


def _nsys_export(tmp_path: Path) -> Path:
    """An nsys export as Faraz-Nasir/CUDA---Recap's ``report1.sqlite`` records its GPU (module doc): a laptop GTX 1650
    (TU117, 16 SMs, 1,560 MHz, 128,032,000,000 B/s, compute capability 7.5) beside Windows' software renderer, one
    kernel of 9,932,539 ns."""
    import sqlite3

    p = tmp_path / "report1.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO StringIds VALUES (1, 'matrixMul');
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
        CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, busLocation TEXT, smCount INTEGER, clockRate INTEGER,
            memoryBandwidth INTEGER, computeMajor INTEGER, computeMinor INTEGER, chipName TEXT);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA GeForce GTX 1650', '0000:01:00.0', 16, 1560000000,
            128032000000, 7, 5, 'TU117'), (1, 'Microsoft Basic Render Driver', '', 0, 0, 0, 0, 0, '');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, "end" INTEGER NOT NULL, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
            shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,
            blockZ INTEGER);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1492732414, 1502664953, 0, 1, 7, 5, 1, 1, 1, 64, 64, 1, 16,
            16, 1);
    """)
    con.commit()
    con.close()
    return p


def test_an_nsys_export_of_an_unlisted_gpu_uses_its_recorded_clock_and_bandwidth(tmp_path):
    src = gpulens.analyze([_nsys_export(tmp_path)]).sources[0]
    spec = src.device
    assert spec.name == f"NVIDIA GeForce GTX 1650 ({DERIVED_WORDS})"
    # by hand: the laptop GTX 1650's 1,024 CUDA cores (16 SMs × 64) × 2 FLOP × 1.56 GHz; FP64 at 1/32 of FP32
    assert spec.figure_value("vector.fp32") == pytest.approx(1024 * 2 * 1.56e9)
    assert spec.figure_value("vector.fp64") == pytest.approx(1024 * 2 * 1.56e9 / 32)
    assert spec.memory_bandwidth == 128032000000  # as recorded
    assert src.results["hotspots"].table["total_ns"].sum() == 1502664953 - 1492732414
    # Windows' software adapter (0 SMs, compute capability 0.0) is no GPU of the run: not "recorded, no GPU work"
    from gpulens.reports._run_text import run_device_text

    assert [d["name"] for d in src.timeline.meta.devices] == ["NVIDIA GeForce GTX 1650"]
    assert "Basic Render Driver" not in run_device_text(src)


# --- 3. profiler outputs that are no trace, named (module doc: batched_gemm's ATT table, HTA's memory timeline) ------

@pytest.mark.parametrize("name,text,gz,said,rc", [
    # the first lines of batched_gemm's stats_ui_output_agent_5600_dispatch_1.csv
    ("stats_ui_output_agent_5600_dispatch_1.csv",
     '"CodeObj","Vaddr","Instruction","Hitcount","Latency","Stall","Idle","Source"\n'
     '1,18432,"; __amd_rocclr_fillBufferAligned",0,0,0,0,""\n'
     '1,18432,"s_load_dwordx2 s[2:3], s[0:1], 0x0",0,0,0,0,""\n', False, "thread-trace (ATT) instruction table",
     5),  # GPU work gpulens does not read as kernels: README's exit 5, as a rocprofv3 PC-sampling JSON
    # the head of HTA's memory_timeline.raw.gz: [timestamp, action, bytes, category] rows
    ("memory_timeline.raw.gz", "[[-1, 1, 37888, 7], [-1, 1, 512, 7], [1712195495505583, 2, 512, 7]]", True,
     "PyTorch memory timeline", 2),  # no GPU work record at all: an input error
])
def test_a_profiler_output_that_is_no_trace_is_named_in_one_line(tmp_path, capsys, name, text, gz, said, rc):
    import gzip

    from gpulens.cli import main

    p = tmp_path / name
    p.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    assert main(["analyze", str(p), "-q", "--no-cache"]) == rc
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert str(p) in err and said in err and "analyse the" in err


# --- 4. a ROCm 7.1 Kineto trace (rocprofiler-sdk backend) whose grids are written as launched -------------------------

def _sdk_trace(tmp_path: Path, grid: list, block: list, extra: list | None = None) -> Path:
    """The layout of TraceLens' ``agent_evals/.../elem_01_add_poor_bw.json`` (AMD-AGI/TraceLens @ 171dd747, MIT; an
    MI300X trace written with ``rocprofiler-sdk_version`` 1.0, HIP 70125424): each kernel's ``grid``/``block`` equal
    its hipLaunchKernel's (16384 workgroups of 256), where ROCm 7.0's traces of that backend (ROCm/aorta) swap them."""
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}}]
    for i, (g, b) in enumerate([(grid, block), *(extra or [])]):
        t = 1000 + 500 * i
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 9, "tid": 9, "ts": t, "dur": 5,
                "args": {"External id": i + 1, "correlation": i + 1, "grid": g, "block": b}},
               {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 1, "ts": t + 10, "dur": 400,
                "args": {"External id": i + 1, "device": 0, "stream": 1, "correlation": i + 1,
                         "kind": "<unknown>", "grid": g, "block": b}}]
    doc = {"schemaVersion": 1, "rocprofiler-sdk_version": 1.0, "hip_runtime_version": 70125424,
           "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4,
                                 "numSms": 304, "warpSize": 64, "gcnArchName": "gfx942:sramecc+:xnack-"}],
           "traceEvents": ev}
    p = tmp_path / "sdk.json"
    p.write_text(json.dumps(doc))
    return p


def test_a_rocprofiler_sdk_trace_written_as_launched_keeps_its_grid(tmp_path):
    from gpulens.collectors import collect

    tl = collect(_sdk_trace(tmp_path, [16384, 1, 1], [256, 1, 1], extra=[([64, 1, 1], [256, 1, 1])]))
    k = tl.of_kind("kernel").sort_values("start_ns")
    # as launched: 16384 workgroups of 256 (a "workgroup size" of 16384 threads cannot be); the trace's other,
    # ambiguous record (64 and 256 both fit a workgroup) follows the trace's convention, not the swap
    assert k["grid_x"].tolist() == [16384, 64] and k["block_x"].tolist() == [256, 256]
    assert not any("swapped" in w or "impossible launch" in w for w in tl.meta.warnings)


def test_a_rocprofiler_sdk_trace_with_swapped_records_is_still_swapped_back(tmp_path):
    from gpulens.collectors import collect

    # ROCm 7.0's convention (ROCm/aorta MI350X trace): grid = workgroup size 256, block = 524288 work-items
    tl = collect(_sdk_trace(tmp_path, [256, 1, 1], [524288, 1, 1], extra=[([64, 1, 1], [256, 1, 1])]))
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert k["grid_x"].tolist() == [524288 // 256, 256 // 64] and k["block_x"].tolist() == [256, 64]
    assert any("2 kernel records with grid and workgroup sizes in swapped places" in w for w in tl.meta.warnings)


def test_an_unrecorded_launch_configuration_is_not_said_swapped(tmp_path):
    from gpulens.collectors import collect

    # TraceLens' sdpa_01_long_seq_low_eff.json: attn_fwd records with grid [0,0,0] and block [0,0,0]
    tl = collect(_sdk_trace(tmp_path, [0, 0, 0], [0, 0, 0]))
    assert not any("swapped" in w for w in tl.meta.warnings)
    assert tl.of_kind("kernel")["grid_x"].isna().all()  # unknown, as the impossible-launch check says
