"""Fault classes found on real profiler outputs of public projects not in the shared corpus (/tmp/extra3, fetched
by the inputs helper; tests on those files skip when absent). Each class also has a small inline reproduction.

Sources of the real files (local testing only, not redistributed):
* RajaATAli/SC23_Programming-Your-GPU-with-OpenMP_Tutorial @ 736710d6 : report1.sqlite (nsys 2023.3.1.92 export of a
  run that made no CUDA call: no CUPTI table at all).
* HGLiu1998/batched_gemm (history, blob 480c2223 results.db / f6dbae63 results.json): rocprof v1 --hip-trace of a
  331 s batched_matrix_multiplication on MI300X whose COPY records lag their hipMemcpy calls.
* frasertajima/WeatherBench2 @ a3a5db25 : report1.nsys-rep (nsys 2025.5 binary report).
* facebookresearch/param (MIT) : et_replay/tests/inputs/linear_et.json.gz (PyTorch execution trace).
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors import collect, sniff
from gpulens.errors import UnknownFormatError

EXTRA3 = Path("/tmp/extra3")


def extra3(rel: str) -> Path:
    p = EXTRA3 / rel
    if not p.exists():
        pytest.skip(f"{rel} not fetched (/tmp/extra3)")
    return p


# --- class 1: an Nsight Systems export with no CUDA table is a valid export with no GPU work, not "unknown format"


def _nsys_without_cuda(path: Path) -> Path:
    """The tables nsys 2023.3 writes for a process that made no CUDA call (names as in the SC23 report1.sqlite)."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2023.3.1.92'),
                                            ('EXPORT_SCHEMA_VERSION', '3.4.0');
        CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
        CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
        INSERT INTO PROCESSES VALUES (282199416897536, 43180, './heat_map');
    """)
    con.commit()
    con.close()
    return path


def test_nsys_export_without_cuda_tables_is_no_gpu_work(tmp_path, capsys):
    p = _nsys_without_cuda(tmp_path / "report1.sqlite")
    assert sniff(p).name == "nsys_sqlite"
    assert len(collect(p).gpu_events()) == 0
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 5  # EXIT_NO_GPU_WORK, not 2 (unknown format)
    assert "No GPU work" in capsys.readouterr().err


def test_sqlite_that_is_not_nsys_still_refused(tmp_path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE StringIds (id INTEGER, value TEXT)")  # StringIds alone is not an nsys marker
    con.commit()
    con.close()
    assert sniff(p) is None


def test_real_sc23_nsys_export_without_cuda_tables():
    p = extra3("sc23omp_report1.sqlite")
    con = sqlite3.connect(p)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    con.close()
    assert not any(t.startswith("CUPTI_ACTIVITY_KIND") for t in tables)  # the premise, read from the file
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 5


# --- class 2: a known profiler file gpulens does not read is named, with the command that converts it


def test_nsys_rep_named_with_export_command(tmp_path):
    p = tmp_path / "report1.nsys-rep"
    p.write_bytes(b"NVIDIA Tegra Profiler Report 2025\x00\x01binary")  # the magic of nsys 2021+ reports
    with pytest.raises(UnknownFormatError, match=r"nsys export --type sqlite -o report1\.sqlite report1\.nsys-rep"):
        collect(p)


def test_execution_trace_named_not_kineto(tmp_path):
    p = tmp_path / "linear_et.json.gz"
    doc = {"schema": "1.0.1", "pid": 1, "time": "2023-07-12 12:47:27", "start_ts": 1,
           "nodes": [{"name": "[pytorch|profiler|execution_graph|thread]", "id": 2}], "finish_ts": 2}
    p.write_bytes(gzip.compress(json.dumps(doc).encode()))
    with pytest.raises(UnknownFormatError, match="execution trace"):
        collect(p)


@pytest.mark.parametrize("kind", ["tar.gz", "tar", "zip"])
def test_archive_named_with_how_to_extract(tmp_path, kind):
    """A folder of rank traces shipped as an archive (facebookresearch/param's dlrm_kineto.tar.gz): say so."""
    import tarfile
    import zipfile

    member = tmp_path / "worker0.pt.trace.json"
    member.write_text('{"traceEvents": []}')
    p = tmp_path / f"traces.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(p, "w") as z:
            z.write(member, member.name)
        how = "unzip traces.zip"
    else:
        with tarfile.open(p, "w:gz" if kind == "tar.gz" else "w") as t:
            t.add(member, member.name)
        how = f"tar xf traces.{kind}"
    with pytest.raises(UnknownFormatError, match=re.escape(how)):
        collect(p)


def test_real_nsys_rep_and_execution_trace():
    rep = extra3("weatherbench_report1.nsys-rep")
    with pytest.raises(UnknownFormatError, match="nsys export"):
        collect(rep)
    et = extra3("param__linear_et.json.gz")
    with pytest.raises(UnknownFormatError, match="execution trace"):
        collect(et)


# --- class 3: rocprof v1 copy records carry queue-id 0 (not the kernels' queue) and may lag their hipMemcpy call;
# on the kernel's stream they made the overrun repair cut a 331 s kernel to 6.9 ms (GPU busy 0.0 %, "sync-bound")

_V1_JSON = {"traceEvents": [
    {},
    {"args": {"name": "COPY"}, "ph": "M", "pid": 1, "name": "process_name"},
    {"args": {"name": "GPU0"}, "ph": "M", "pid": 6, "name": "process_name"},
    # the HGLiu1998 MI300X timestamps: kernel 3497798443427445 → 3498130077612123, copies 4 and 5 inside it
    {"ph": "X", "name": "CopyHostToDevice", "pid": 1, "tid": 0, "ts": "3497798450324", "dur": "196",
     "args": {"BeginNs": "3497798450324472", "EndNs": "3497798450521004", "dev-id": "2", "queue-id": "0",
              "stream-id": "0", "DurationNs": "196532"}},
    {"ph": "X", "name": "CopyHostToDevice", "pid": 1, "tid": 0, "ts": "3497798450900", "dur": "752",
     "args": {"BeginNs": "3497798450900599", "EndNs": "3497798451652611", "dev-id": "2", "queue-id": "0",
              "stream-id": "0", "DurationNs": "752012"}},
    {"ph": "X", "name": "batched_matrix_multiplication", "pid": 6, "tid": 1, "ts": "3497798443427",
     "dur": "331634184", "args": {"BeginNs": "3497798443427445", "EndNs": "3498130077612123", "dev-id": "2",
                                  "queue-id": "0", "stream-id": "1",
                                  "DurationNs": "331634184678"}},
]}
KERNEL_NS = 3498130077612123 - 3497798443427445  # EndNs − BeginNs of the kernel record = 331,634,184,678 ns


def _summary(tmp_path, src: Path) -> dict:
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", str(src), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]["summary"]


def test_rocprof_v1_copy_inside_kernel_does_not_clip_it(tmp_path):
    p = tmp_path / "results.json"
    p.write_text(json.dumps(_V1_JSON))
    s = _summary(tmp_path, p)
    assert s["kernel_time_ns"] == KERNEL_NS
    assert s["kernel_busy_ns"] == KERNEL_NS  # the union of the one kernel is the kernel (it was 6,897,027 ns)


def test_real_rocprof_v1_db_and_json_kernel_busy(tmp_path):
    for name in ("results.db", "results.json"):
        p = extra3(f"hgliu/v1/{name}")
        s = _summary(tmp_path, p)
        assert s["kernel_count"] == 1 and s["kernel_time_ns"] == 331_634_184_678  # results.stats.csv TotalDurationNs
        assert s["kernel_busy_ns"] == 331_634_184_678
        assert s["gpu_busy_pct"] > 99  # the kernel spans 331.63 s of the 331.66 s GPU span


# --- class 4: `gate -b TRACE`: a trace path given as the baseline was looked up as a saved baseline's *name*, found
# nothing and the gate passed (exit 0, NO_BASELINE) whatever the candidate did


def test_gate_trace_path_as_baseline_is_analysed(tmp_path):
    from tests.synth import write_kineto

    base, slow = tmp_path / "base.pt.trace.json", tmp_path / "slow.pt.trace.json"
    write_kineto(base, 200, 4, name_len=20, dur_ns=2000, device="NVIDIA H100 80GB HBM3")
    write_kineto(slow, 200, 4, name_len=20, dur_ns=4000, device="NVIDIA H100 80GB HBM3")  # every kernel 2× longer
    out = tmp_path / "g.json"
    assert main(["gate", "-q", str(slow), "-b", str(base), "--json", str(out)]) == 1  # REGRESSED, not "no baseline"
    assert json.loads(out.read_text())["verdict"] == "REGRESSED"
    assert main(["gate", "-q", str(base), "-b", str(base)]) == 0


def test_gate_real_omniperf_folders_as_baseline():
    b1, b2 = extra3("hgliu/omni_bmm1"), extra3("hgliu/omni_bmm2")
    # pmc_kernel_top.csv Sum(ns): 4,358,035 (bmm1) → 5,622,314 (bmm2) for the one GEMM kernel: +29 %, over 5 %
    assert main(["gate", "-q", str(b2), "-b", str(b1)]) == 1


# --- class 5: GPUs of the public traces with no built-in spec (no roofline, "could not be classified"): Tesla T4
# (SC23 OpenMP nsys exports, kernelforge Kineto), RTX 2080 Ti (param Kineto), RTX A5000 (uvmTorch nsys), A40
# (cutlass_benchmark nsys). Expected peaks from the hardware itself: FP32 = CUDA cores × 2 FLOP × boost clock, FP16
# tensor (FP32 accumulate) = SMs × 1024 FLOP/clk × boost clock, halved on GeForce parts.


@pytest.mark.parametrize("rec,spec,fp32,fp16", [
    ({"name": "Tesla T4", "num_sms": 40, "compute_capability": "7.5"}, "NVIDIA T4",
     2560 * 2 * 1.59e9, 40 * 1024 * 1.59e9),
    ({"name": "NVIDIA GeForce RTX 2080 Ti", "num_sms": 68, "compute_capability": "7.5"}, "NVIDIA GeForce RTX 2080 Ti",
     4352 * 2 * 1.545e9, 68 * 1024 * 1.545e9 / 2),
    ({"name": "NVIDIA A40", "num_sms": 84, "compute_capability": "8.6"}, "NVIDIA A40",
     10752 * 2 * 1.74e9, 84 * 1024 * 1.74e9),
    ({"name": "NVIDIA GeForce RTX 3090", "num_sms": 82, "compute_capability": "8.6"}, "NVIDIA GeForce RTX 3090",
     10496 * 2 * 1.695e9, 82 * 1024 * 1.695e9 / 2),
    ({"name": "NVIDIA RTX A5000", "num_sms": 64, "compute_capability": "8.6"}, "NVIDIA RTX A5000",
     8192 * 2 * 1.695e9, 64 * 1024 * 1.695e9),
])
def test_common_gpus_of_public_traces_identified(rec, spec, fp32, fp16):
    from gpulens.devices import identify_device

    s = identify_device(rec)
    assert s is not None and s.name == spec
    assert s.peak_flops("fp32", matrix=False)[0] == pytest.approx(fp32, rel=0.01)
    assert s.peak_flops("fp16")[0] == pytest.approx(fp16, rel=0.01)


@pytest.mark.parametrize("name,sms", [("NVIDIA A10G", 80), ("NVIDIA GeForce RTX 3090 Ti", 84),
                                      ("NVIDIA A100-PCIE-40GB", 108)])
def test_near_names_not_taken_for_the_new_specs(name, sms):
    from gpulens.devices import identify_device

    s = identify_device({"name": name, "num_sms": sms})
    assert s is None or s.name not in {"NVIDIA A10", "NVIDIA GeForce RTX 3090"}


# --- class 6: a pre-Kineto torch.autograd.profiler Chrome trace (PyTorch ≤ 1.7) was refused as "unknown producer
# output"; it is named, with why its GPU times are not kernels and how to record a Kineto trace. The events below
# follow torch/autograd/profiler.py (1.7) export_chrome_trace: X events of pid "CPU functions" and, for each
# kernel of an op, s/f flow events (cat cpu_to_cuda) and an X event of pid "CUDA functions" (tid = device).


def test_legacy_autograd_profiler_trace_named(tmp_path):
    events = [
        {"name": "aten::conv2d", "ph": "X", "ts": 10.5, "dur": 120.0, "tid": 1, "pid": "CPU functions", "args": {}},
        {"name": "aten::conv2d", "ph": "s", "ts": 10.5, "tid": 1, "pid": "CPU functions", "id": 0,
         "cat": "cpu_to_cuda", "args": {}},
        {"name": "aten::conv2d", "ph": "f", "ts": 15.0, "tid": 0, "pid": "CUDA functions", "id": 0,
         "cat": "cpu_to_cuda", "args": {}},
        {"name": "aten::conv2d", "ph": "X", "ts": 15.0, "dur": 300.0, "tid": 0, "pid": "CUDA functions", "args": {}},
    ]
    p = tmp_path / "trace.json"
    p.write_text(json.dumps(events))
    from gpulens.errors import TraceFormatError

    with pytest.raises(TraceFormatError, match=r"legacy torch\.autograd\.profiler trace .*torch\.profiler\.profile"):
        collect(p)
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 2  # a one-line input error, not 70


# --- class 7: rocprofv3's memory_allocation_trace.csv / scratch_memory_trace.csv (rows as in ROCm/rocprofiler-sdk
# source/docs/data, MIT) were "not a recognised trace format"; they are valid outputs with no GPU work

_SCRATCH = '''"Kind","Operation","Agent_Id","Queue_Id","Thread_Id","Alloc_Flags","Start_Timestamp","End_Timestamp","Allocation_Size"
"SCRATCH_MEMORY","SCRATCH_MEMORY_ALLOC","Agent 1",1,5007,1,932256089068634,932256089388582,173015040
"SCRATCH_MEMORY","SCRATCH_MEMORY_FREE","Agent 1",1,5007,1,932256090345618,932256090348789,0
'''
_ALLOC = '''"Kind","Operation","Agent_Id","Allocation_Size","Address","Correlation_Id","Start_Timestamp","End_Timestamp"
"MEMORY_ALLOCATION","MEMORY_ALLOCATION_ALLOCATE","Agent 0",1024,"0x00007ffb26354000",1,816098791282238,816098791339655
"MEMORY_ALLOCATION","MEMORY_ALLOCATION_FREE","",0,"0x00007ffb26354000",7,816098791533678,816098791678768
'''
_KT = '''"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"
"KERNEL_DISPATCH","Agent 4",1,2,123,1,11,"addition_kernel",1,1143263119836160,1143263119848360,0,0,64,1,1,1024,1024,1
"KERNEL_DISPATCH","Agent 4",1,2,123,4,12,"divide_kernel",4,1143263119866920,1143263119878960,0,0,64,1,1,1024,1024,1
'''


@pytest.mark.parametrize("name,text", [("1_scratch_memory_trace.csv", _SCRATCH),
                                       ("1_memory_allocation_trace.csv", _ALLOC)])
def test_rocprofv3_allocation_traces_are_no_gpu_work(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    tl = collect(p)
    assert len(tl.gpu_events()) == 0 and len(tl.of_kind("other")) == 2  # the two allocator rows, kept as host events
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 5


def test_rocprofv3_folder_with_allocation_trace(tmp_path):
    (tmp_path / "77_kernel_trace.csv").write_text(_KT)
    (tmp_path / "77_memory_allocation_trace.csv").write_text(_ALLOC)
    tl = collect(tmp_path)
    k = tl.of_kind("kernel")
    # (1143263119848360 − 1143263119836160) + (1143263119878960 − 1143263119866920) = 12,200 + 12,040 ns
    assert len(k) == 2 and int(k["dur_ns"].sum()) == 24_240
    assert len(tl.of_kind("other")) == 2


# --- class 8: gate, a kernel renamed into one no work category pairs it with (the real pair: rocpd traces of
# HGLiu1998/batched_gemm, batched_matrix_multiplication_matrix_core_64x64x4 → …128x128x16, category "other"): the
# vanished kernel was compared as 0 ns in every candidate run, a gating "−100 %, IMPROVED", so a pure rename at the
# same speed made the whole run IMPROVED


def test_gate_rename_into_uncategorised_kernel_is_not_a_saving(tmp_path):
    from tests.gate_traces import GEMM, make_trace

    def report(name, seeds, **kw):
        traces = [make_trace(tmp_path / f"{name}{s}.json", seed=s, **kw) for s in seeds]
        out = tmp_path / f"{name}.report.json"
        assert main(["analyze", "-q", "--no-cache", *map(str, traces), "--json", str(out)]) == 0
        return out

    base = report("base", range(3))
    cand = report("cand", range(10, 13), rename={GEMM: "my_custom_kernel_v2"})  # same durations, new name
    out = tmp_path / "gate.json"
    main(["gate", "-q", str(cand), "-b", str(base), "--json", str(out)])
    doc = json.loads(out.read_text())
    rows = {m["metric"]: m for m in doc["metrics"]}
    old = rows[f"kernel:{GEMM}"]
    assert old["verdict"] != "IMPROVED" and old["gating"] is False
    assert doc["verdict"] != "IMPROVED"  # same kernel time (the generator's GEMM 400 µs per step either way)


# --- class 9: a kernel-only trace (rocprofv3 --kernel-trace; the real one: a rocpd database of an RDNA4 R9700 in
# JoursBleu/llama.cpp with 0 HIP API regions) got "5535 kernel(s) not linked to a launch call — the call fell
# outside the profiling window, or the profiler did not record it": with no launch call recorded at all this only
# restates that the host side was not traced (the idle finding already says to record it)


def test_kernel_only_trace_has_no_unlinked_launch_finding(tmp_path):
    import gpulens

    p = tmp_path / "1_kernel_trace.csv"
    p.write_text(_KT)
    s = gpulens.analyze([p]).sources[0]
    assert s.results["launches"].summary["kernels_unlinked"] == 2  # still counted in the summary
    assert not [f for f in s.findings() if "not linked to a launch" in f.title]


def test_unlinked_kernels_still_reported_when_launches_were_traced(tmp_path):
    import gpulens

    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "k_linked", "pid": 0, "tid": 7, "ts": 10, "dur": 20,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "k_orphan", "pid": 0, "tid": 7, "ts": 40, "dur": 20,
           "args": {"device": 0, "stream": 7, "correlation": 99}}]  # correlation 99: no runtime call has it
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    s = gpulens.analyze([p]).sources[0]
    assert s.results["launches"].summary["kernels_unlinked"] == 1
    assert [f for f in s.findings() if f.title.startswith("1 kernel not linked to a launch call")]


# --- class 10: an ncu CSV without any duration metric (the rows below are Nsight Compute 2020 output pasted in a
# public rodinia measurement README: section "GPU Speed Of Light", old metric names, no Duration): the kernel showed
# "0 ns summed", "0.0 %" of kernel time and "(0 ns of GPU time)"; it is unknown


_NCU_2020 = '''"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"
"0","21524","cfd_000","127.0.0.1","cuda_compute_step_factor","2020-Apr-07 17:01:05","1","7","GPU Speed Of Light","Memory Frequency","cycle/second","772656250"
"0","21524","cfd_000","127.0.0.1","cuda_compute_step_factor","2020-Apr-07 17:01:05","1","7","GPU Speed Of Light","SOL FB","%","39.60"
"0","21524","cfd_000","127.0.0.1","cuda_compute_step_factor","2020-Apr-07 17:01:05","1","7","GPU Speed Of Light","Elapsed Cycles","cycle","11733"
'''


def test_ncu_csv_without_duration_is_unknown_time(tmp_path):
    p = tmp_path / "nsight_cfd.csv"
    p.write_text(_NCU_2020)
    s = _summary(tmp_path, p)
    assert s["kernel_count"] == 1
    assert s["kernel_time_ns"] is None  # no duration metric in the file: unknown, not 0
    md = tmp_path / "r.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--markdown", str(md)]) == 0
    text = md.read_text()
    assert "0 ns summed" not in text and "(0 ns of GPU time)" not in text


# --- class 11: a rocprofv3 API trace alone (hip_api_trace.csv, or a `rocpd convert` CSV: rows as in ROCm/
# rocprofiler-sdk source/docs/data/rocpd-to-csv.csv) with hipLaunchKernel calls said "No GPU work found"; like an
# nsys export with launches and no kernel table, it is an incomplete capture and the message says where the kernels are


def test_rocprofv3_api_only_csv_with_launches_is_incomplete_capture(tmp_path, capsys):
    p = tmp_path / "rocpd-to-csv.csv"
    p.write_text('"Guid","Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp",'
                 '"End_Timestamp"\n'
                 '"0000ddb5","HIP_RUNTIME_API_EXT","hipMalloc",137,137,4,3719662301007843,3719662301139564\n'
                 '"0000ddb5","HIP_RUNTIME_API_EXT","hipLaunchKernel",137,137,10,3719662416752501,3719662417325443\n')
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 5
    err = capsys.readouterr().err
    assert "incomplete" in err and "hipLaunchKernel ×1" in err and "--kernel-trace" in err


def test_gate_baseline_trace_without_gpu_work_says_so(tmp_path, capsys):
    from tests.synth import write_kineto

    cand = tmp_path / "cand.pt.trace.json"
    write_kineto(cand, 20, 2, name_len=20, device="NVIDIA H100 80GB HBM3")
    base = _nsys_without_cuda(tmp_path / "base.sqlite")  # a valid export with no CUDA activity
    assert main(["gate", "-q", str(cand), "-b", str(base)]) == 2
    err = capsys.readouterr().err
    assert "baseline trace" in err and "no GPU work" in err and "refusing to save" not in err


# --- nvprof's console report saved to a file (sankarmanoj/thrust2D opencv/non_shared/affine.profile: "==10241== NVPROF
# is profiling process …", "Metric result:", per-kernel metric rows on a GTX 1070): was "not a recognised trace
# format"; it is named, with the tools that replace nvprof


@pytest.mark.parametrize("first", ["==10241== NVPROF is profiling process 10241, command: ./affine.o 512",
                                   "==4242== Profiling application: ./app\n==4242== Profiling result:"])
def test_nvprof_text_report_named(tmp_path, first):
    p = tmp_path / "affine.profile"
    p.write_text(first + "\n==10241== Metric result:\nInvocations  Metric Name  Metric Description  Min  Max  Avg\n"
                 'Device "GeForce GTX 1070 (0)"\n    Kernel: k(int)\n          1  achieved_occupancy  Achieved '
                 "Occupancy  0.927922  0.927922  0.927922\n")
    with pytest.raises(UnknownFormatError, match=r"nvprof's text report .*nsys profile.*ncu --csv"):
        collect(p)


# --- a rocprofv3 PC-sampling CSV (ROCm/rocprofiler-sdk source/docs/data/pc_sampling_host_trap.csv: Sample_Timestamp,
# Exec_Mask, Dispatch_Id, Instruction, Instruction_Comment, Correlation_Id): was "not a recognised trace format"


def test_rocprofv3_pc_sampling_csv_named(tmp_path):
    p = tmp_path / "1234_pc_sampling_host_trap.csv"
    p.write_text('"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"\n'
                 '3464444413017201,65535,1,"s_endpgm","",1\n3464444413018481,65535,1,"s_waitcnt vmcnt(0)","",1\n')
    with pytest.raises(UnknownFormatError, match=r"rocprofv3 PC-sampling CSV .*kernel_trace\.csv"):
        collect(p)


# --- ncu's console log of a run whose results went to a report (lukas-ruettgers/dphpc-gemm ncu.log: ==PROF== lines,
# the program's own output, "==PROF== Report: …/ncu_analysis.ncu-rep"): was "not a recognised trace format"


def test_ncu_console_log_names_its_report(tmp_path):
    p = tmp_path / "ncu.log"
    p.write_text('==PROF== Connected to process 289892 (/home/u/gemm)\n==PROF== Profiling "Kernel" - 0: 0%....50%....'
                 "100% - 39 passes\nKernel: TB=128x256x32 Time=2947.39 ms\n==PROF== Disconnected from process 289892\n"
                 "==PROF== Report: /home/u/dphpc/ncu_analysis.ncu-rep\n")
    with pytest.raises(UnknownFormatError, match=r"ncu wrote them to /home/u/dphpc/ncu_analysis\.ncu-rep"):
        collect(p)
