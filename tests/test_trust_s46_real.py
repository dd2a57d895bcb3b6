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
2. nvprof's summary (its default mode) — the console report saved to a .txt/.log, ``nvprof --csv``, or that text
   saved with commas (jazzTheJackRabbit/epic-flow-cuda ``nvprof.csv``, no licence file: its layout rebuilt below) —
   was refused the same way. Kind: the most published nvprof output, a per-kernel aggregate like ``nsys stats``'
   kernel summary, turned away. Now read into the kernel summary (:mod:`gpulens.collectors.nvprof_summary`): times
   with their own units (``2.4481ms``) checked within their printed step, copies counted apart, ``time_pct`` the
   share of kernel time as for every summary, a second run's report in one log counted, not summed. The console
   layout below is that of a published CUDA 10.1 run (a tutorial's README, which is itself not claimed as input).
3. nvprof's GPU trace as console text (``--print-gpu-trace`` without ``--csv``, the form tutorials paste) was refused
   as a report "without a GPU trace". Its values have 5 significant digits (a start of ``182.96ms`` is known to
   10 µs), too coarse for a timeline; its durations are summed per kernel into the kernel summary
   (:mod:`gpulens.collectors.nvprof_trace_text`) and the advice to record the CSV is given.

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


def test_nvprof_api_trace_stays_refused(tmp_path):
    """Only the GPU trace is a timeline: the API trace (``--print-api-trace``: Start, Duration, Name, Correlation_ID)
    keeps the nvprof advice."""
    api = tmp_path / "api.csv"
    api.write_text('==1== Profiling result:\n"Start","Duration","Name","Correlation_ID"\nus,us,,\n'
                   '0.000000,2.866000,"cuDeviceGetPCIBusId",1\n')
    assert sniff(api) is None
    with pytest.raises(UnknownFormatError, match="nvprof's text report.*--print-gpu-trace"):
        collect(api)


# nvprof's console summary as published from a CUDA 10.1 run on a GTX 1660 SUPER
# (saieswar1607/PCA-Simple-warp-divergence---Implement-Sum-Reduction. README, first run; API rows shortened)
_CONSOLE = """==9061== NVPROF is profiling process 9061, command: ./a.out
./a.out starting reduction at device 0: NVIDIA GeForce GTX 1660 SUPER     with array size 16777216  grid 32768 block 512
==9061== Profiling application: ./a.out
==9061== Profiling result:
            Type  Time(%)      Time     Calls       Avg       Min       Max  Name
 GPU activities:   87.52%  52.764ms         9  5.8626ms  5.7580ms  6.3870ms  [CUDA memcpy HtoD]
                    4.06%  2.4481ms         1  2.4481ms  2.4481ms  2.4481ms  reduceNeighbored(int*, int*, unsigned int)
                    1.22%  735.63us         1  735.63us  735.63us  735.63us  reduceUnrolling2(int*, int*, unsigned int)
                    0.48%  288.46us         1  288.46us  288.46us  288.46us  void reduceCompleteUnroll<unsigned int=512>(int*, int*, unsigned int)
                    0.09%  52.608us         9  5.8450us  2.3680us  11.136us  [CUDA memcpy DtoH]
      API calls:   55.91%  128.94ms         2  64.470ms  75.385us  128.86ms  cudaMalloc
                    0.00%     370ns         1     370ns     370ns     370ns  cuDeviceGetUuid
"""


def test_nvprof_console_summary(tmp_path):
    """The console report (values with their units, 5 significant digits): kernels into the kernel summary, copies
    counted apart, API calls not read; time_pct the share of kernel time (2.4481 / 3.47239 ms), not nvprof's share
    of all GPU activity (4.06 %). A second run's report in the same log is counted, not summed."""
    p = tmp_path / "prof.txt"
    p.write_text(_CONSOLE + _CONSOLE.replace("==9061==", "==9062=="))
    tl = collect(p)
    t = tl.tables["kernel_summary"]
    assert t["name"].tolist() == ["reduceNeighbored(int*, int*, unsigned int)",
                                  "reduceUnrolling2(int*, int*, unsigned int)",
                                  "void reduceCompleteUnroll<unsigned int=512>(int*, int*, unsigned int)"]
    assert t["total_ns"].tolist() == [2_448_100, 735_630, 288_460]
    assert t["calls"].tolist() == [1, 1, 1]
    assert t["time_pct"].iloc[0] == pytest.approx(2_448_100 / 3_472_190 * 100)
    w = " ".join(tl.meta.warnings)
    assert "18 copies (2 GPU activities rows, 52.82 ms summed)" in w  # 9 + 9; 52.764 ms + 52.608 µs
    assert "1 more nvprof summary in the file" in w
    assert len(tl.events) == 0


def _summary_row(text: str, tmp_path: Path, name: str):
    p = tmp_path / name
    p.write_text(text)
    t = collect(p).tables["kernel_summary"]
    assert len(t) == 1
    return t.iloc[0]


def test_nvprof_summary_csv_and_hand_saved_csv(tmp_path):
    """``nvprof --csv`` (a units row, each statistic in its own unit) and the console text saved with commas
    (jazzTheJackRabbit/epic-flow-cuda ``nvprof.csv``: names with commas unquoted)."""
    r = _summary_row('==1== Profiling result:\n"Type","Time(%)","Time","Calls","Avg","Min","Max","Name"\n'
                     ',%,ms,,us,us,ms,\n"GPU activities",62.5,12.5,100,125.0,120.0,0.2,"k(float*)"\n'
                     '"GPU activities",37.5,7.5,2,3750.0,3000.0,4.5,"[CUDA memcpy HtoD]"\n'
                     '"API calls",90.0,300.0,5,60000.0,1.0,299.0,"cudaMalloc"\n', tmp_path, "summary.csv")
    assert (r["name"], r["calls"], r["total_ns"], r["mean_ns"], r["min_ns"], r["max_ns"]) == (
        "k(float*)", 100, 12_500_000, 125_000, 120_000, 200_000)
    r = _summary_row("Time(%),Time,Calls,Avg,Min,Max,Name\n"
                     "47.79%,542.36ms,45,12.052ms,12.007ms,12.110ms,[CUDA memcpy HtoD]\n"
                     "20.92%,237.43ms,150,1.5829ms,1.5103ms,2.1174ms,red_sor(float*, float*, float, int)\n"
                     "10.37%,117.72ms,10,11.772ms,11.752ms,11.801ms,[CUDA memcpy DtoH]", tmp_path, "nvprof.csv")
    assert (r["name"], r["calls"], r["total_ns"]) == ("red_sor(float*, float*, float, int)", 150, 237_430_000)
    assert r["mean_ns"] == 1_582_900  # 237.43 ms / 150 = 1.58287 ms, printed 1.5829ms: within the step


def test_nvprof_output_quoted_in_a_readme_is_not_a_report(tmp_path):
    """A tutorial's README quoting the console report is no input (a folder analysis must not pick it up)."""
    p = tmp_path / "README.md"
    p.write_text("# Day 3\n```\n" + _CONSOLE + "```\n")
    assert sniff(p) is None


def test_nvprof_cuda8_console_summary(tmp_path):
    """CUDA ≤ 8 prints no Type column and puts the API calls under their own ``==PID== API calls:`` banner with a
    second header (not a second run); nvprof's ``======== Warning`` lines inside the table are not rows."""
    p = tmp_path / "cuda8.log"
    p.write_text("==5== Profiling application: ./a\n==5== Profiling result:\n"
                 "======== Warning: Some profiling data are not recorded. Make sure cudaProfilerStop() is called.\n"
                 "Time(%)      Time     Calls       Avg       Min       Max  Name\n"
                 "100.00%  1.4049ms         1  1.4049ms  1.4049ms  1.4049ms  sequential(int*, int*, int)\n\n"
                 "==5== API calls:\nTime(%)      Time     Calls       Avg       Min       Max  Name\n"
                 " 90.00%  100.00ms         1  100.00ms  100.00ms  100.00ms  cudaMalloc\n")
    tl = collect(p)
    t = tl.tables["kernel_summary"]
    assert (t["name"].tolist(), t["total_ns"].tolist()) == (["sequential(int*, int*, int)"], [1_404_900])
    assert not any("more nvprof summar" in w or "dropped" in w for w in tl.meta.warnings)


# nvprof --print-gpu-trace console text as published (CUDA 9.0, GeForce GT 650M, a vectorAdd README; a second launch
# of the kernel added, the footnotes kept)
_CONSOLE_TRACE = """==30176== Profiling application: ./vectorAddGPU
==30176== Profiling result:
   Start  Duration            Grid Size      Block Size     Regs*    SSMem*    DSMem*      Size  Throughput  SrcMemType  DstMemType           Device   Context    Stream  Name
182.96ms  6.4049ms                    -               -         -         -         -  38.147MB  5.8163GB/s    Pageable      Device  GeForce GT 650M         1         7  [CUDA memcpy HtoD]
189.49ms  6.3746ms                    -               -         -         -         -  38.147MB  5.8440GB/s    Pageable      Device  GeForce GT 650M         1         7  [CUDA memcpy HtoD]
195.89ms  3.4072ms          (39063 1 1)       (256 1 1)         8        0B        0B         -           -           -           -  GeForce GT 650M         1         7  vectorAdd(float const *, float const *, float*, int) [112]
199.30ms  14.872ms                    -               -         -         -         -  38.147MB  2.5049GB/s      Device    Pageable  GeForce GT 650M         1         7  [CUDA memcpy DtoH]
215.00ms  3.4100ms          (39063 1 1)       (256 1 1)         8        0B        0B         -           -           -           -  GeForce GT 650M         1         7  vectorAdd(float const *, float const *, float*, int) [118]

Regs: Number of registers used per CUDA thread. This number includes registers used internally by the CUDA driver.
SSMem: Static shared memory allocated per CUDA block.
"""


def test_nvprof_console_gpu_trace_summed_per_kernel(tmp_path):
    """3. The console GPU trace (``--print-gpu-trace`` without ``--csv``) prints 5 significant digits: no timeline,
    but each launch's duration — summed per kernel (3.4072 + 3.4100 ms), copies counted apart (6.4049 + 6.3746 +
    14.872 ms), the footnotes not rows, and the advice to record the CSV for a timeline."""
    p = tmp_path / "trace.txt"
    p.write_text(_CONSOLE_TRACE)
    tl = collect(p)
    t = tl.tables["kernel_summary"]
    assert t["name"].tolist() == ["vectorAdd(float const *, float const *, float*, int)"]
    assert (t["calls"].iloc[0], t["total_ns"].iloc[0], t["min_ns"].iloc[0], t["max_ns"].iloc[0]) == (
        2, 6_817_200, 3_407_200, 3_410_000)
    w = " ".join(tl.meta.warnings)
    assert "3 copies (2 GPU activities rows, 27.65 ms summed)" in w and "not read" not in w
    assert "nvprof --csv --print-gpu-trace" in w and len(tl.events) == 0


@pytest.mark.parametrize("name, spec", [
    ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"), ("NVIDIA GeForce RTX 4090 D", None),
    ("NVIDIA GeForce RTX 4090 Laptop GPU", None), ("NVIDIA GeForce RTX 5090", "NVIDIA GeForce RTX 5090"),
    ("NVIDIA GeForce RTX 5090 D", None), ("NVIDIA GeForce RTX 5090 Laptop GPU", None),
    ("NVIDIA GeForce RTX 5070", "NVIDIA GeForce RTX 5070"), ("NVIDIA GeForce RTX 5070 Laptop GPU", None),
    ("NVIDIA RTX A5000", "NVIDIA RTX A5000"), ("NVIDIA RTX A5000 Laptop GPU", None),
    ("NVIDIA RTX A6000", "NVIDIA RTX A6000")])
def test_name_only_variants_get_no_other_parts_peaks(name, spec):
    """4. A record with only a name — what nsys' cuda_gpu_trace CSV and nvprof's traces give (``NAME (0)``, no SM
    count) — of a laptop or China-market variant took the desktop part's figures: "RTX 4090 Laptop GPU" (76 SMs, the
    desktop's 128) and "RTX 4090 D" (114) read as the RTX 4090, "RTX 5090 Laptop GPU" as the 5090, "RTX A5000 Laptop
    GPU" as the A5000. Kind: a spec's name pattern matching longer names of other parts. Such names now identify
    no spec (unknown; with an SM count and clock recorded, :mod:`gpulens.devices.derived` still derives figures)."""
    from gpulens.devices import identify_device

    got = identify_device({"name": name})
    assert (got.name if got else None) == spec


def test_nvprof_gpu_trace_damaged_header_and_huge_size(tmp_path):
    """Fuzzed nvprof GPU traces: a header whose "Name" is damaged is a one-line error naming the column (was
    "malformed nvprof_csv data (KeyError)"), a size beyond int64 bytes is unknown (was an OverflowError)."""
    from gpulens.errors import TraceFormatError

    p = tmp_path / "t.csv"
    p.write_text('"Start","Duration","Grid X","Device","Name"x,"Stream"\nms,ms,,,,\n1.0,0.5,1,"G (0)","k",7\n')
    with pytest.raises(TraceFormatError, match="missing required column 'Name'"):
        collect(p)
    p.write_text('"Start","Duration","Size","Device","Stream","Name"\nms,ms,GB,,,\n'
                 '1.0,0.5,1e300,"G (0)","7","[CUDA memcpy HtoD]"\n2.0,0.5,2.000000,"G (0)","7","[CUDA memcpy HtoD]"\n')
    c = collect(p).events
    assert c["bytes"].isna().tolist() == [True, False] and int(c["bytes"].iloc[1]) == 2 << 30


def test_nvprof_counter_collection_run_has_no_timeline(tmp_path):
    """5. An nvprof profile of a metrics run (stanleyshly/parallel-point-cloud-processing @ 9f081f24 ``prof.nvvp``,
    GPL-3.0, not copied: a GTX 1060 3GB, 58 kernels Σ 5,458,536 ns in a 74.55 s "span", with 7,250 METRIC rows,
    INSTRUCTION_EXECUTION, GLOBAL_ACCESS, BRANCH … from --analysis-metrics) read as a timeline: "GPU idle, cause not
    recorded — 74.54 s at stake". nvprof replays each kernel to read counters, so those gaps are the profiler's.
    Kind: a counter-collection run taken for a workload timeline. Now such a profile (a replay-only table holding
    rows) is a counter-collection run, as ncu and rocprof-compute inputs are: span and busy unknown, said why.
    Built here from the trace-mode blinkplus profile (whose METRIC table exists, empty) plus one METRIC row; without
    it the profile keeps its span."""
    import gzip
    import sqlite3

    src = DATA / "blinkplus_v100x4_nccl_output.nvvp.gz"
    trace = tmp_path / "trace.nvvp"
    trace.write_bytes(gzip.decompress(src.read_bytes()))
    metrics = tmp_path / "metrics.nvvp"
    metrics.write_bytes(trace.read_bytes())
    con = sqlite3.connect(metrics)
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_METRIC VALUES (1, 1, x'00', 1, 0)")
    con.commit()
    con.close()
    from gpulens.analyzers._span import busy_unknown_reason

    assert busy_unknown_reason(collect(trace)) is None
    tl = collect(metrics)
    assert busy_unknown_reason(tl).startswith("counter-collection run")
    assert any("nvprof counter-collection run (METRIC" in w for w in tl.meta.warnings)


def test_nvprof_gpu_trace_with_metric_columns_is_a_counter_run(tmp_path):
    """``nvprof --metrics achieved_occupancy --print-gpu-trace --csv`` adds a column per counter and replays each
    kernel: the same kind as 5., in the CSV trace — span and busy unknown, the counter column named."""
    from gpulens.analyzers._span import busy_unknown_reason

    p = tmp_path / "m.csv"
    p.write_text('"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Device","Context",'
                 '"Stream","Name","achieved_occupancy"\nms,ms,,,,,,,,,,,\n'
                 '1.0,0.5,1,1,1,32,1,1,"G (0)","1","7","k(int) [3]",0.5\n'
                 '9.0,0.5,1,1,1,32,1,1,"G (0)","1","7","k(int) [5]",0.5\n')
    tl = collect(p)
    assert len(tl.events) == 2 and busy_unknown_reason(tl).startswith("counter-collection run")
    assert any("1 counter column, e.g. 'achieved_occupancy'" in w for w in tl.meta.warnings)


def test_folder_of_nvprof_traces_says_nvprof_not_nsys(tmp_path):
    """A folder of nvprof GPU traces (each counting from its own session start) got the note "3 Nsight Systems
    exports of 3 record no capture start (the SQLite export's TARGET_INFO_SESSION_START_TIME…)": the note now names
    the files' own tool."""
    import shutil

    import gpulens

    for n in ("magus_gtx1080ti_gputrace_sobol.csv", "magus_gtx1080ti_traces_cudasdk_concurrentKernels.csv"):
        shutil.copy(DATA / n, tmp_path / n)
    tl = gpulens.collect(tmp_path)
    said = [w for w in tl.meta.warnings if "record no capture start" in w]
    assert len(said) == 1 and "2 nvprof GPU traces of 2" in said[0] and "Nsight" not in said[0]
