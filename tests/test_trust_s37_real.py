"""Real profiler outputs (session 37, "held-back real traces"): wrong conclusions on real files.

1. A slow host step was reported as time lost while the GPU never waited for it. TraceLens' event-replay capture of
   an MI300X convolution backward (amd/HPCTrainingExamples @ 82661816ee5b931484a0723d11e9adddc009ea6e,
   ``MLExamples/TraceLens/event_replay_wd/replay_trace.json``, MIT; copied as
   ``tests/data/kineto/hpctrain_mi300x_tracelens_replay.json``): the host ran its 10 ``ProfilerStep#N`` ranges in
   1.4 ms and then waited 29 ms in ``hipDeviceSynchronize`` for the 29 kernels it had queued; its first step took
   567 µs against a median of 92 µs, and gpulens ranked "1 of 10 steps took over 1.5× the median step time" third
   among the run's findings with 474.73 µs at stake — though every host step ended before the GPU's first kernel
   began. Kind: host wall time claimed as GPU time lost. Now a slow step's time at stake is its excess over the
   median capped by the GPU idle time of its rank inside the step (within the rank's GPU span); a slow step the GPU
   never waited for is an info finding with nothing at stake.
2. rocprofv2's ``<pid>_results.txt`` was not read at all ("not a recognised trace format"), though the collector for
   rocprof ``results.txt`` said rocprofv2 wrote rocprof v1's ``dispatch[N], …`` records. Its default ``cli`` plugin
   writes ``Dispatch_ID(N), GPU_ID(…), …, Kernel_Name("…"), Begin_Timestamp(…), End_Timestamp(…), Correlation_ID(…)``
   with the counters as further ``NAME(value)`` pairs on the same line (ROCm/rocprofiler ``plugin/cli/cli.cpp``; the
   records below are those of ROCm/rocprofiler @ 7fa8139944668a80e94f45e97eda959e33474297
   ``tests-v2/featuretests/profiler/apps/goldentraces/{hip,mpi}_vectoradd_golden_traces.txt``, MIT). Kind: a
   vendor's record form documented wrongly and never read. Now both record forms are read, the older key spellings
   (``LDS``, ``Scratch_Size``, ``Accumulative_VGPR``) and the current ones alike.
3. An FP8 CUTLASS 3 GEMM's alignment advice gave the FP16 figure. SuperBench's Nsight Compute log of cuBLASLt on a
   CC 10.0 GPU (microsoft/superbenchmark @ 700d6501f110ed17a7016f1b9f2e453926f7b7a1, ``tests/data/cublaslt_ncu.log``,
   MIT; copied as ``tests/data/nvidia/superbench_sm100_cublaslt_fp8_ncu.log``) profiles
   ``cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_…_align4…``: A and B are FP8 (1 byte), so align4 is
   4 bytes and a 16-byte vectorised load needs dimensions that are multiples of 16 elements; gpulens said "a multiple
   of 8 elements (16 bytes)" — it took the element size from the first type word anywhere in the name (the ``f16`` of
   the epilogue's C and D), and an ``e4m3`` GEMM with a ``bf16`` output and ``align8`` (8 bytes) got no hint at all.
   Kind: the operand type of a procedural kernel name read from the wrong field. Now the type right after ``gemm_``
   (CUTLASS 3's A operand) sets the element size.
4. An Nsight Systems export with CUDA tracing on and not one CUDA call recorded was "nothing ran on a GPU".
   ZhangXin8069/qcu @ 5b03f810156dc9f9c379db4a909b73514333394c ``report1.sqlite`` (nsys 2023.3.3, an RTX 4060 Laptop
   GPU, the capture of ``mpirun -n 1 python ./test.mpi.dslash.qcu-np1.py``, a lattice-QCD GPU kernel test;
   licence GPL-3.0, so not copied): ``META_DATA_CAPTURE`` says ``PROCESS_0:COLLECT_CUDA_TRACE`` true, yet the export
   has no CUPTI or CUDA table at all and no diagnostic. A process that used CUDA leaves at least its runtime calls,
   so the file cannot tell whether the GPU ran anything: the ranks mpirun started were not traced. Kind: absence of
   records read as absence of work. Now that export says the GPU side is unknown and how to profile it; an export
   whose traced process made CUDA calls but launched nothing keeps "no GPU work".
5. A 2020 Nsight Compute CSV's speed-of-light labels were not read. Techercise/AMD-Instruction-Roofline-using-
   rocProf-Metrics @ 0ec59e0aca5f91e79ab99ce13ac84ac28c3e6c4a ``TWEAC_simulations/v100_tweac_cc_output.csv`` (PIConGPU
   ``ComputeCurrent`` on a V100, 5 launches, the 12-column layout with a ``Kernel Time`` date and no launch columns;
   no licence shown, so the test writes the same shape with two of its launches) prints the GPU Speed Of Light
   section as ``SOL DRAM``, ``SOL L1/TEX Cache`` and ``SOL L2 Cache``: none was read, so the kernel was
   "memory-bound" on ``Memory [%]`` alone (68.9 %) and told to "fuse it … so the data crosses DRAM once" while DRAM ran
   at 4.6 % of peak and L1/TEX at 71.5 %. Kind: a vendor's label of one release unread. Now those labels are the
   DRAM, L1 and L2 figures (one list of names for the speed-of-light table and the verdicts).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import gpulens
from gpulens.analyzers._advice import alignment_hint
from gpulens.analyzers.steps import gpu_idle_in
from gpulens.cli import main
from gpulens.collectors import collect

DATA = Path(__file__).parent / "data"
REPLAY = DATA / "kineto" / "hpctrain_mi300x_tracelens_replay.json"


def _step_finding(path):
    src = gpulens.analyze([path]).sources[0]
    found = [f for f in src.results["steps"].findings if f.category == "step-time"]
    assert len(found) == 1
    return src, found[0]


def test_real_replay_slow_host_step_costs_no_gpu_time():
    doc = json.loads(REPLAY.read_text())
    ev = doc["traceEvents"]
    host = sorted((e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")),
                  key=lambda e: e["ts"])
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    # the trace itself: 10 host steps, the first 566.991 µs, the median (10 values: mean of the 5th and 6th sorted)
    durs = sorted(e["dur"] for e in host)
    assert len(host) == 10 and host[0]["name"] == "ProfilerStep#15" and host[0]["dur"] == 566.991
    median_us = (durs[4] + durs[5]) / 2  # (90.515 + 94.009) / 2 = 92.262 µs
    assert abs(median_us - 92.262) < 1e-9 and host[0]["dur"] > 1.5 * median_us
    # every host step ended before the GPU's first kernel started: the GPU never waited for a host step
    last_host_end = max(e["ts"] + e["dur"] for e in host)
    first_kernel = min(e["ts"] for e in kernels)
    assert last_host_end < first_kernel  # 1336862478141.557 < 1336862478449.394

    src, f = _step_finding(REPLAY)
    table = src.results["steps"].table
    assert int(table["dur_ns"].iloc[0]) == 566_991 and src.results["steps"].summary["median_step_ns"] == 92_262
    # before: severity "warning", 474,729 ns at stake (566,991 − 92,262); the GPU lost none of it
    assert f.time_at_stake_ns == 0 and f.severity == "info"
    assert "never waited" in f.detail


def _trace(tmp_path, kernels, steps):
    """A Kineto trace: host ``ProfilerStep#N`` ranges ``(ts, dur)`` µs and kernels ``(ts, dur)`` µs on one GPU."""
    ev = [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 100, "tid": 100, "ts": ts,
           "dur": dur} for i, (ts, dur) in enumerate(steps)]
    for i, (ts, dur) in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                   "ts": ts - 5, "dur": 2, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_slow_step_with_gpu_idle_keeps_its_stake(tmp_path):
    # steps 0, 1, 3: 100 µs; step 2: 500 µs (median 100 µs, excess 400 µs). One 10 µs kernel at the end of each step:
    # during step 2 (1200 → 1700 µs) the GPU is idle except for its kernel at 1680–1690 µs → idle 490 µs ≥ excess
    steps = [(1000, 100), (1100, 100), (1200, 500), (1700, 100)]
    kernels = [(1080, 10), (1180, 10), (1680, 10), (1780, 10)]
    _, f = _step_finding(_trace(tmp_path, kernels, steps))
    assert f.severity == "warning" and f.time_at_stake_ns == 400_000  # min(400 µs excess, 490 µs idle)


def test_slow_step_partly_hidden_by_queued_work(tmp_path):
    # the same steps; a 350 µs kernel queued by step 1 runs 1190 → 1540 µs, across most of step 2: the GPU idles in
    # step 2 only 1540 → 1680 and 1690 → 1700 µs = 150 µs, so at most 150 µs of the 400 µs excess cost GPU time
    steps = [(1000, 100), (1100, 100), (1200, 500), (1700, 100)]
    kernels = [(1080, 10), (1190, 350), (1680, 10), (1780, 10)]
    _, f = _step_finding(_trace(tmp_path, kernels, steps))
    assert f.severity == "warning" and f.time_at_stake_ns == 150_000


def test_slow_step_fully_hidden_by_queued_work(tmp_path):
    # a 600 µs kernel queued before step 2 runs 1150 → 1750 µs, across all of step 2 (1200 → 1700): no idle in it
    steps = [(1000, 100), (1100, 100), (1200, 500), (1700, 100)]
    kernels = [(1080, 10), (1150, 600), (1780, 10)]
    _, f = _step_finding(_trace(tmp_path, kernels, steps))
    assert f.severity == "info" and f.time_at_stake_ns == 0


def test_gpu_idle_in_windows(tmp_path):
    # kernels 1080–1090, 1180–1190, 1680–1690, 1780–1790 µs: GPU span 1080 → 1790 µs
    steps = [(1000, 100), (1100, 100), (1200, 500), (1700, 100)]
    tl = collect(_trace(tmp_path, [(1080, 10), (1180, 10), (1680, 10), (1780, 10)], steps))
    t0 = int(tl.events.loc[tl.events["kind"] == "kernel", "start_ns"].min()) - 1_080_000  # the clock's 0 µs
    us = 1000
    win = np.array([[1000, 1100], [1085, 1185], [1795, 1900], [1000, 1900]]) * us + t0
    got = gpu_idle_in(tl, np.zeros(4, dtype="int64"), win[:, 0], win[:, 1])
    # [1000, 1100): inside the span from 1080: 20 µs, 10 busy → 10; [1085, 1185): 100 µs, busy 5 + 5 → 90;
    # [1795, 1900): after the span → 0; whole: span 710 µs − 40 µs busy = 670
    assert got.tolist() == [10 * us, 90 * us, 0, 670 * us]
    # a window two days before the GPU's work shares no clock with it: unknown (NaN), no cap on the step's stake
    day = 86_400 * 10**9
    far = gpu_idle_in(tl, np.zeros(1, dtype="int64"), win[:1, 0] - 2 * day, win[:1, 1] - 2 * day)
    assert np.isnan(far).all()
    # a rank with no GPU event (a CPU-only run): no GPU to wait, the slow step's wall time is not capped
    assert np.isnan(gpu_idle_in(tl, np.array([5]), win[:1, 0], win[:1, 1])).all()


def test_cpu_only_slow_step_keeps_its_stake(tmp_path):
    # no kernel at all: steps 100, 100, 500, 100 µs → the slow step's 400 µs over the median stays at stake
    steps = [(1000, 100), (1100, 100), (1200, 500), (1700, 100)]
    _, f = _step_finding(_trace(tmp_path, [], steps))
    assert f.severity == "warning" and f.time_at_stake_ns == 400_000


# ROCm/rocprofiler tests-v2 golden records (module doc, item 2), one line each as the cli plugin writes them
V2_VECTORADD = ('Dispatch_ID(1), GPU_ID(4), Queue_ID(1), Process_ID(2185273), Thread_ID(2185273), Grid_Size(1048576), '
                'Workgroup_Size(256), LDS(0), Scratch_Size(0), Arch_VGPR(8), Accumulative_VGPR(0), SGPR(16), '
                'Wave_Size(64), Kernel_Name("vectoradd_float"), Begin_Timestamp(140169881587808), '
                'End_Timestamp(140174279043296), Correlation_ID(0), GRBM_COUNT(40539.000000)')
V2_MPI_ADD = [('Dispatch_ID(1), GPU_ID(5), Queue_ID(1), Process_ID(2185441), Thread_ID(2185441), Grid_Size(1048576), '
               'Workgroup_Size(256), LDS(0), Scratch_Size(0), Arch_VGPR(12), Accumulative_VGPR(4), SGPR(32), '
               'Wave_Size(64), Kernel_Name("add"), Begin_Timestamp(139857691152944), End_Timestamp(139857835223272), '
               'Correlation_ID(0), GRBM_COUNT(499551.000000)'),
              ('Dispatch_ID(1), GPU_ID(4), Queue_ID(1), Process_ID(2185436), Thread_ID(2185436), Grid_Size(1048576), '
               'Workgroup_Size(256), LDS(0), Scratch_Size(0), Arch_VGPR(12), Accumulative_VGPR(4), SGPR(32), '
               'Wave_Size(64), Kernel_Name("add"), Begin_Timestamp(140429257347632), End_Timestamp(140429483317480), '
               'Correlation_ID(0), GRBM_COUNT(499406.000000)')]


def test_rocprofv2_cli_results_txt_is_read(tmp_path):
    p = tmp_path / "2185273_results.txt"
    p.write_text(V2_VECTORADD + "\n")
    tl = collect(p)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 1
    row = k.iloc[0]
    assert row["name"] == "vectoradd_float"
    assert int(row["start_ns"]) == 140169881587808
    assert int(row["dur_ns"]) == 140174279043296 - 140169881587808  # 4,397,455,488 ns
    assert (int(row["device_id"]), int(row["stream_id"]), int(row["pid"])) == (4, 1, 2185273)
    # Grid_Size is in work-items: 1,048,576 / 256 per workgroup = 4,096 workgroups
    assert int(row["block_x"]) == 256 and int(row["grid_x"]) == 1_048_576 // 256
    c = tl.counters
    assert float(c.loc[c["metric"] == "GRBM_COUNT", "value"].iloc[0]) == 40539.0
    assert float(c.loc[c["metric"] == "arch_vgpr", "value"].iloc[0]) == 8.0
    assert not tl.meta.warnings


def test_rocprofv2_cli_two_dispatches_current_key_spellings(tmp_path):
    # the current cli.cpp spells LDS_Per_Workgroup, Scratch_Per_Workitem, Accum_VGPR; the values are the mpi records'
    lines = [ln.replace("LDS(", "LDS_Per_Workgroup(").replace("Scratch_Size(", "Scratch_Per_Workitem(")
             .replace("Accumulative_VGPR(", "Accum_VGPR(") for ln in V2_MPI_ADD]
    p = tmp_path / "7_results.txt"
    p.write_text("\n".join(lines) + "\n")
    src = gpulens.analyze([p]).sources[0]
    hs = src.results["hotspots"].summary
    assert hs["kernel_count"] == 2
    # Σ End − Begin of the two records
    assert hs["kernel_time_ns"] == (139857835223272 - 139857691152944) + (140429483317480 - 140429257347632)
    k = src.timeline.events[src.timeline.events["kind"] == "kernel"]
    assert sorted(int(d) for d in k["device_id"]) == [4, 5]
    # Arch_VGPR 12 + Accum_VGPR 4 registers per work-item
    assert set(int(r) for r in k["regs_per_thread"]) == {16}


SB_NCU = DATA / "nvidia" / "superbench_sm100_cublaslt_fp8_ncu.log"


def test_real_fp8_cutlass_alignment_advice_counts_fp8_elements(tmp_path):
    text = SB_NCU.read_text()
    name = ("cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm_bias_f16_"
            "relu_aux_scalemax")
    assert f'"{name}"' in text and '"10.0"' in text  # the kernel and its compute capability, as ncu wrote them
    tl = collect(SB_NCU)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 1 and int(k["dur_ns"].iloc[0]) == 406_240  # "Duration","ns","406240"
    js = tmp_path / "r.json"
    assert main(["analyze", str(SB_NCU), "--json", str(js), "-q", "--no-cache"]) in (0, 1)
    out = js.read_text()
    # FP8 operands: 16 bytes / 1 byte = 16 elements (before: "8 elements", the FP16 figure)
    assert "multiple of 16 elements (16 bytes)" in out
    assert "multiple of 8 elements" not in out


def test_alignment_element_size_is_the_operand_type():
    fp8_out_bf16 = "cutlass3x_sm100_tensorop_gemm_e4m3_e4m3_f32_bf16_bf16_256x128x128_1x1x1_0_tnn_align8"
    # 8 FP8 elements = 8 bytes < 16: narrow loads (before: read as bf16, 8 × 2 = 16 bytes, no hint)
    assert "multiple of 16 elements (16 bytes)" in alignment_hint(fp8_out_bf16)
    assert alignment_hint(fp8_out_bf16.replace("align8", "align16")) is None  # 16 × 1 byte = 16 bytes
    f16 = "cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_f16_f16_128x128x64_1x1x1_0_tnn_align4"
    assert "multiple of 8 elements (16 bytes)" in alignment_hint(f16)  # 16 / 2 bytes
    assert alignment_hint(f16.replace("align4", "align8")) is None  # 8 × 2 = 16 bytes
    tf32 = "cutlass3x_sm90_tensorop_s64x128x8tf32gemm_tf32_tf32_f32_f32_f32_128x128x32_1x1x1_0_tnn_align2"
    assert "multiple of 4 elements (16 bytes)" in alignment_hint(tf32)  # 16 / 4 bytes


def _nsys_export(tmp_path, runtime: bool):
    """The tables of qcu's export (module doc, item 4): StringIds, TARGET_INFO_GPU, META_DATA_EXPORT and the capture
    record with CUDA tracing on; with ``runtime`` a CUDA runtime table holding one non-launch call."""
    import sqlite3

    p = tmp_path / "report1.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO StringIds VALUES (1, 'cudaGetDeviceProperties_v12000');
        CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, smCount INTEGER, computeMajor INTEGER,
                                      computeMinor INTEGER);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA GeForce RTX 4060 Laptop GPU', 24, 8, 9);
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2023.3.3.42');
        CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);
        INSERT INTO META_DATA_CAPTURE VALUES ('CAPTURE_EVENT_TYPE', 'Cuda'), ('PROCESS_0:COMMAND', 'mpirun'),
            ('PROCESS_0:COLLECT_NVTX_TRACE', 'true'), ('PROCESS_0:COLLECT_CUDA_TRACE', 'true');
    """)
    if runtime:
        con.executescript("""
            CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,
                globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 5000, 1, 7, 1, 1, 0, NULL);
        """)
    con.commit()
    con.close()
    return p


def test_nsys_cuda_traced_but_no_cuda_call_is_not_nothing_ran(tmp_path):
    p = _nsys_export(tmp_path, runtime=False)
    note = collect(p).meta.sources[0]["incomplete_capture"]
    assert note and "not one CUDA call" in note and "PROCESS_0:COLLECT_CUDA_TRACE true" in note
    md = tmp_path / "o.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--markdown", str(md)]) == 5  # still no GPU work: exit 5
    verdict = next(line for line in md.read_text().splitlines() if "**Verdict:**" in line)
    assert "nothing ran on a GPU" not in verdict and "not one CUDA call" in verdict


def test_nsys_traced_process_with_cuda_calls_but_no_launch_keeps_no_gpu_work(tmp_path):
    # the injection reached the process (one runtime call recorded) and it launched nothing: no GPU work
    assert collect(_nsys_export(tmp_path, runtime=True)).meta.sources[0]["incomplete_capture"] is None


_NCU2020_HEAD = ("ID,Process ID,Process Name,Host Name,Kernel Name,Kernel Time,Context,Stream,Section Name,"
                 "Metric Name,Metric Unit,Metric Value\n")
#: two launches of the real file (module doc, item 5): Duration ns, SOL DRAM, SOL L1/TEX Cache, SOL L2 Cache,
#: Memory [%], SM [%], Elapsed Cycles, SM Active Cycles
_NCU2020_LAUNCHES = [(11382720, 5.45, 66.52, 2.2, 64.05, 47.47, 14918396, 14361390.12),
                     (13800032, 4.47, 73.7, 1.8, 71.07, 46.34, 18127049, 17477144.01)]


def test_ncu_2020_sol_labels_are_read(tmp_path):
    lines = [_NCU2020_HEAD]
    for i, (dur, dram, l1, l2, mem, sm, el, act) in enumerate(_NCU2020_LAUNCHES):
        pre = (f"{i},21935,picongpu,127.0.0.1,ComputeCurrent,2020-Oct-23 13:41:{16 + 11 * i},1,{18 - 3 * i},"
               "GPU Speed Of Light,")
        for name, unit, v in (("DRAM Frequency", "cycle/second", 876247505),
                              ("SM Frequency", "cycle/second", 1310398086),
                              ("Elapsed Cycles", "cycle", el), ("Memory [%]", "%", mem), ("SOL DRAM", "%", dram),
                              ("Duration", "nsecond", dur), ("SOL L1/TEX Cache", "%", l1), ("SOL L2 Cache", "%", l2),
                              ("SM Active Cycles", "cycle", act), ("SM [%]", "%", sm)):
            lines.append(f"{pre}{name},{unit},{v}\n")
    p = tmp_path / "v100_cc_output.csv"
    p.write_text("".join(lines))
    src = gpulens.analyze([p]).sources[0]
    row = src.results["speed_of_light"].table.iloc[0]
    d = [x[0] for x in _NCU2020_LAUNCHES]

    def weighted(col):  # launches weighted by their duration
        return sum(x[0] * x[col] for x in _NCU2020_LAUNCHES) / sum(d)

    assert int(row["time_ns"]) == 11382720 + 13800032
    assert abs(row["dram_pct"] - weighted(1)) < 1e-9  # (5.45·11382720 + 4.47·13800032) / 25182752 = 4.913 %
    assert abs(row["l1_pct"] - weighted(2)) < 1e-9
    assert abs(row["l2_pct"] - weighted(3)) < 1e-9
    js = tmp_path / "r.json"
    assert main(["analyze", str(p), "--json", str(js), "-q", "--no-cache"]) in (0, 1)
    out = js.read_text()
    # the memory bound is L1's, not DRAM's: no "crosses DRAM once" advice (before: the only advice given)
    assert "L1/shared memory" in out and "crosses DRAM once" not in out
