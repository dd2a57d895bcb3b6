"""Real profiler outputs (session 46, "held-back real traces"): new public files read against facts from the files.

1. nvprof's GPU trace as CSV (``nvprof --csv --print-gpu-trace --log-file FILE``), the timeline format of CUDA 5–11
   profiling scripts: leimingyu/magus @ b9153ef6ab81f876310e7618dd241cdfeee35a19 (MIT) commits 400+ of them (CUDA
   SDK 8.0 samples on a GeForce GTX 1080 Ti, 2017–18). gpulens refused every one as "nvprof's text report, which
   gpulens does not read". Kind: a whole profiler output format, with kernels, copies, memsets, launch
   configuration, registers, shared memory and copy sizes in it, turned away. Now read
   (:mod:`gpulens.collectors.nvprof_csv`): the units row under the header scales each file's columns (times ``ms``/
   ``us``/…, sizes ``B``/``KB``/``MB`` in binary multiples — a 320×320 float matrix copy prints ``400.000000`` KB),
   the correlation id nvprof appends to kernel names (``… [1073]``) is taken off the name, later nvprof columns
   (``SrcMemType``, ``Correlation_ID``) are mapped by name, unified-memory records are left out and counted.
   The expected values below are sums written out from the files' rows.

Also checked this session and found right: an OpenMP-offload nsys export on a Tesla T4 (RajaATAli/SC23 tutorial,
already in the s41 list), CO18326/uvmTorch @ f8b0987b ``report1.sqlite`` (nsys 2025.3.2, an RTX A5000 capture with no
CUDA events: "incomplete capture"), Ayanokoji-li/cuckoo_hash @ 32cff8d0 ``report1.sqlite`` (GTX 1660 SUPER: 61
``d_insert_arr`` kernels Σ 1,341,742,681 ns, 188 copies of 335,545,357 B; derived peaks 5.03 TFLOP/s FP32 from 22
SMs × 1,785 MHz × 128), IkerCanut/fire_spread @ 8c67db29 ``report1.sqlite`` (RTX 4060 Laptop, nsys 2025.3.1: 91
kernels Σ 1,092,678 ns), Meghakoranga/cupqc-openssl-core @ bc71f913 (nsys 2025.3.2, no CUDA events), pytorch/kineto @
00a807b7 ``docs/traces/{before,after}_fix_trace.json`` (Kineto of 2026 with CUDA 13.0 and the per-kernel
``occupancy`` record; "NVIDIA H100" without clock or variant: no spec, said so) and JeremyMorlier/GPUModel
``trace.json`` (A100-SXM4-80GB, 5 GEMMs Σ 78,588,479 ns). None of those repositories has a licence file except
kineto's: not copied.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulens.collectors import collect, sniff
from gpulens.errors import UnknownFormatError

DATA = Path(__file__).parent / "data" / "nvidia"


def _kernels(tl):
    ev = tl.events
    return ev[ev["kind"].astype(str) == "kernel"]


def _copies(tl):
    ev = tl.events
    return ev[ev["kind"].astype(str) == "memcpy"]


def test_nvprof_gpu_trace_concurrent_kernels_real():
    """CUDA SDK concurrentKernels: 8 ``clock_block`` kernels on streams 13–20 at once, then ``sum`` and an 8-byte
    copy on stream 21 (units row ``ms,ms,…,B,B,B,MB/s``)."""
    tl = collect(DATA / "magus_gtx1080ti_traces_cudasdk_concurrentKernels.csv")
    k = _kernels(tl)
    assert len(k) == 9
    # 10.733177 + 3 × 10.732953 + 10.732921 + 10.732922 + 2 × 10.732889 + 0.002304 ms
    assert int(k["dur_ns"].sum()) == 85_865_961
    assert sorted(k["stream_id"].astype(int)) == list(range(13, 22))
    s = k[k["name"].astype(str) == "sum(long*, int)"].iloc[0]  # "[1231]" taken off the name
    assert (int(s["correlation_id"]), int(s["block_x"]), int(s["regs_per_thread"]),
            int(s["smem_static_bytes"])) == (1231, 32, 8, 256)
    c = _copies(tl)
    assert len(c) == 1 and int(c["bytes"].iloc[0]) == 8
    ev = tl.events
    # first Start 598.807267 ms → last end 609.598720 + 0.001120 ms
    assert int((ev["start_ns"] + ev["dur_ns"]).max() - ev["start_ns"].min()) == 10_792_573
    assert [d["name"] for d in tl.meta.devices] == ["GeForce GTX 1080 Ti"]


def test_nvprof_gpu_trace_megabyte_sizes_and_scientific_notation_real():
    """SobolQRNG: sizes in MB (binary: 0.012207 MB = 12,800 B, 38.146973 MB = 40,000,000 B), a duration written
    ``2.048000e-03`` ms."""
    tl = collect(DATA / "magus_gtx1080ti_gputrace_sobol.csv")
    c = _copies(tl).sort_values("start_ns")
    assert c["bytes"].astype(int).tolist() == [12_800, 40_000_000]
    assert c["dur_ns"].astype(int).tolist() == [2_048, 95_660_029]
    k = _kernels(tl).iloc[0]
    assert str(k["name"]) == "sobolGPU_kernel(unsigned int, unsigned int, unsigned int*, float*)"
    assert (int(k["grid_x"]), int(k["grid_y"]), int(k["block_x"]), int(k["dur_ns"])) == (128, 100, 64, 102_402)


def test_nvprof_gpu_trace_kilobyte_units_real():
    """matrixMul: 301 launches of a 20×10 grid of 32×32 blocks, 27 registers, 8 KB (8,192 B) static shared memory;
    copies 400 + 800 + 800 KB."""
    tl = collect(DATA / "magus_gtx1080ti_matrixMul_trace.csv")
    k = _kernels(tl)
    assert len(k) == 301 and set(k["name"].astype(str)) == {
        "void matrixMulCUDA<int=32>(float*, float*, float*, int, int)"}
    assert set(k["smem_static_bytes"].astype(int)) == {8192} and set(k["regs_per_thread"].astype(int)) == {27}
    assert int(_copies(tl)["bytes"].sum()) == 2_000 * 1024


_LATER = """==7== NVPROF is profiling process 7, command: ./app
==7== Profiling application: ./app
==7== Profiling result:
"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput","SrcMemType","DstMemType","Device","Context","Stream","Name","Correlation_ID"
us,us,,,,,,,,KB,KB,KB,GB/s,,,,,,,
100.000000,1.500000,,,,,,,,,,1.003906,0.507097,"Device",,"Tesla V100-SXM2-16GB (1)","1","7","[CUDA memset]",272
110.000000,4.000000,,,,,,,,,,4.000000,0.953674,"Pinned","Device","Tesla V100-SXM2-16GB (1)","1","14","[CUDA memcpy HtoD]",316
120.000000,10.250000,128,1,1,256,1,1,32,0.000000,2.000000,,,,,"Tesla V100-SXM2-16GB (1)","1","14","k(float*) [5]",320
130.000000,3.000000,,,,,,,,,,64.000000,,,,"Tesla V100-SXM2-16GB (1)",,,"[Unified Memory Memcpy HtoD]",
"""


def test_nvprof_gpu_trace_later_columns(tmp_path):
    """The later layout (SrcMemType/DstMemType/Correlation_ID, ``-u us``): the Correlation_ID column is the id
    (a kernel name ending in ``[5]`` keeps it), dynamic shared memory in KB, unified-memory rows left out and
    counted, the device index from ``(1)``."""
    p = tmp_path / "trace.csv"
    p.write_text(_LATER)
    tl = collect(p)
    k = _kernels(tl).iloc[0]
    assert str(k["name"]) == "k(float*) [5]" and int(k["correlation_id"]) == 320
    assert (int(k["start_ns"]), int(k["dur_ns"]), int(k["smem_dynamic_bytes"])) == (120_000, 10_250, 2048)
    assert int(k["device_id"]) == 1 and int(k["grid_x"]) == 128
    assert int(_copies(tl)["bytes"].iloc[0]) == 4096
    ev = tl.events
    assert len(ev) == 3  # memset, copy, kernel: the unified-memory record is not an event
    assert any("1 unified-memory record" in w for w in tl.meta.warnings)
    assert tl.meta.devices == [{"rank": 0, "device_id": 1, "name": "Tesla V100-SXM2-16GB"}]


def test_nvprof_api_trace_and_summary_stay_refused(tmp_path):
    """Only the GPU trace is a timeline: the API trace (``--print-api-trace``: Start, Duration, Name,
    Correlation_ID) and the summary (``Type``, ``Time(%)``…) keep the nvprof advice."""
    api = tmp_path / "api.csv"
    api.write_text('==1== Profiling result:\n"Start","Duration","Name","Correlation_ID"\nus,us,,\n'
                   '0.000000,2.866000,"cuDeviceGetPCIBusId",1\n')
    summary = tmp_path / "summary.csv"
    summary.write_text('==1== Profiling result:\n"Type","Time(%)","Time","Calls","Avg","Min","Max","Name"\n'
                       ',%,ms,,ms,ms,ms,\n"GPU activities",100.0,1.0,1,1.0,1.0,1.0,"k(float*)"\n')
    for p in (api, summary):
        assert sniff(p) is None
        with pytest.raises(UnknownFormatError, match="nvprof's text report.*--print-gpu-trace"):
            collect(p)
