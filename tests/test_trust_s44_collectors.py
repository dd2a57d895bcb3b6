"""Collector messages and facts that were wrong or missing (session 44, the list left from earlier sessions).

Each test builds its input here and derives the expected values by hand from it:

1. One ncu report / nsys export of several processes (``ncu --target-processes all mpirun -n 2``, ``nsys profile
   mpirun``) put every process on rank 0: two ranks' kernels were one GPU's. Now one rank per GPU process, the
   mapping in a warning, each rank with its GPU's name (:mod:`gpulens.collectors._process_split`).
4. "N inputs record no rank" listed every input (40 kB at 1,000 files): the first five, then a count.
5. "1 row is not events" / "1 inputs" / "kept 1 of 1 events": the count and its noun agree (units.plural/agree).
6. A negative start in an NVIDIA input was rejected as "(AMD timestamps are unsigned)": the reason names the
   vendor whose clock the row comes from.
"""

from __future__ import annotations

import sqlite3

import pytest

from gpulens.collectors import collect
from gpulens.units import listed

# --- 1. several processes in one ncu report / nsys export ---------------------------------------------------------

_NCU_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
               '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def _ncu_row(launch: int, pid: int, device: int, dur_ns: int) -> str:
    return (f'"{launch}","{pid}","train","node1","k{launch}","1","7","(256, 1, 1)","(80, 1, 1)","{device}","9.0",'
            f'"GPU Speed Of Light Throughput","Duration","ns","{dur_ns}"\n')


def test_ncu_report_of_two_processes_gives_each_its_rank(tmp_path):
    p = tmp_path / "mpi.ncu.csv"
    # launches 0 and 2 by pid 4100 on GPU 0, launch 1 by pid 4200 on GPU 1 (mpirun -n 2, one GPU per rank)
    p.write_text(_NCU_HEADER + _ncu_row(0, 4100, 0, 1000) + _ncu_row(1, 4200, 1, 2000) + _ncu_row(2, 4100, 0, 3000))
    tl = collect(p)
    k = tl.events.sort_values("event_id")
    # sorted pids: 4100 → rank 0, 4200 → rank 1
    assert k["rank"].tolist() == [0, 1, 0]
    assert k["dur_ns"].tolist() == [1000, 2000, 3000]
    assert sorted(tl.ranks) == [0, 1]
    said = [w for w in tl.meta.warnings if "processes in one report" in w]
    assert said == [f"{p}: 2 processes in one report: one rank per process (pid 4100 → rank 0, pid 4200 → rank 1)"]
    # each rank keeps its GPU's entry (CC 9.0 recorded for both devices)
    devs = {(d["rank"], d["device_id"]) for d in tl.meta.devices}
    assert devs == {(0, 0), (1, 1)}  # GPU 1 went with pid 4200's rows: not left on rank 0 as an idle GPU


def test_ncu_report_of_one_process_stays_rank_0(tmp_path):
    p = tmp_path / "one.ncu.csv"
    p.write_text(_NCU_HEADER + _ncu_row(0, 4100, 0, 1000) + _ncu_row(1, 4100, 0, 2000))
    tl = collect(p)
    assert tl.events["rank"].tolist() == [0, 0]
    assert not [w for w in tl.meta.warnings if "processes in one" in w]


def test_two_processes_on_one_gpu_are_said_to_share_it(tmp_path):
    p = tmp_path / "shared.ncu.csv"
    p.write_text(_NCU_HEADER + _ncu_row(0, 7, 0, 1000) + _ncu_row(1, 9, 0, 2000))
    tl = collect(p)
    assert tl.events.sort_values("event_id")["rank"].tolist() == [0, 1]
    said = [w for w in tl.meta.warnings if "processes in one report" in w]
    assert len(said) == 1 and "ranks 0 and 1 ran on GPU 0" in said[0] and "share of the GPU" in said[0]


def _nsys_two_processes(path):
    """globalPid = pid << 24: 100 << 24 = 1677721600, 200 << 24 = 3355443200; globalTid = (pid << 24) + tid. pid 300
    (5033164800) only calls the runtime (a launcher): it has no GPU row."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (3, 'cudaGetDeviceCount_v3020');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, shortName INT, gridX INT, blockX INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
            (1000, 1500, 0, 7, 10, 1677721600, 1, 64, 128),
            (1100, 1400, 1, 7, 10, 3355443200, 1, 64, 128);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, nameId INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 1677721601, 10, 2), (905, 960, 3355443202, 10, 2),
            (100, 200, 5033164803, 1, 3);
    """)
    con.commit()
    con.close()
    return path


def test_nsys_export_of_two_processes_gives_each_its_rank(tmp_path):
    p = _nsys_two_processes(tmp_path / "mpi.sqlite")
    tl = collect(p)
    ev = tl.events
    k = ev[ev["kind"] == "kernel"].sort_values("start_ns")
    assert k["rank"].tolist() == [0, 1] and k["pid"].astype(int).tolist() == [100, 200]
    rt = ev[ev["kind"] == "runtime"].sort_values("start_ns")
    # pid 300's call stays rank 0 (no GPU process); pid 100's launch rank 0, pid 200's rank 1
    assert rt["pid"].astype(int).tolist() == [300, 100, 200] and rt["rank"].tolist() == [0, 0, 1]
    said = [w for w in tl.meta.warnings if "processes in one export" in w]
    assert said == [f"{p}: 2 processes in one export: one rank per process (pid 100 → rank 0, pid 200 → rank 1); "
                    "1 event of no GPU process or no recorded process stays rank 0"]
    # the same correlation id 10 in two processes links each kernel to its own process's launch
    assert set(tl.ranks) == {0, 1}


# --- 4. the list of inputs without a rank is capped ----------------------------------------------------------------

def test_listed_names_five_then_counts():
    items = [f"f{i}" for i in range(1000)]
    assert listed(items) == "f0, f1, f2, f3, f4 and 995 more"
    assert listed(items[:6]) == "f0, f1, f2, f3, f4, f5"  # one more is named, not counted
    assert listed(items[:7]) == "f0, f1, f2, f3, f4 and 2 more"


def _kineto(pid: int) -> str:
    return ('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5, '
            f'"args": {{"device": 0, "stream": 7}}}}, {{"ph": "M", "name": "process_name", "pid": {pid}, "tid": 0, '
            '"args": {"name": "python"}}]}')


def test_rankless_warning_lists_five_inputs_and_counts_the_rest(tmp_path):
    for i in range(12):
        (tmp_path / f"w{i:02d}.pt.trace.json").write_text(_kineto(100 + i))
    tl = collect(tmp_path)
    said = [w for w in tl.meta.warnings if "record no rank" in w]
    assert len(said) == 1
    # 12 inputs: the first five named, the other seven counted
    assert said[0].startswith(f"{tmp_path}: 12 inputs record no rank;") and said[0].endswith(" and 7 more")
    assert said[0].count("→ rank") == 5 and len(said[0]) < 400


# --- 5 and 6. one row, the right vendor ---------------------------------------------------------------------------

_GPU_TRACE = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
              "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n"
              "-5,100,1,1,1,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (0),1,7,kA\n"
              "1000,100,2,1,1,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (0),1,7,kB\n")


def test_negative_start_in_nsys_csv_names_nvidia_and_one_row_agrees(tmp_path):
    p = tmp_path / "gpu_trace.csv"
    p.write_text(_GPU_TRACE)
    tl = collect(p, strict=False)
    assert tl.rejected["reason"].tolist() == ["negative timestamp (NVIDIA CUPTI timestamps are unsigned)"]
    assert not any("AMD" in w for w in tl.meta.warnings)
    assert f"{p}: 1 row is no event: negative timestamp (NVIDIA CUPTI timestamps are unsigned) ×1" in \
        tl.meta.warnings


def test_negative_start_in_rocprof_csv_still_names_amd(tmp_path):
    p = tmp_path / "results.csv"
    p.write_text('Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,vgpr,sgpr,fbar,sig,obj,'
                 'DispatchNs,BeginNs,EndNs,CompleteNs\n'
                 '0,"k0",2,0,0,10,10,256,64,0,0,8,16,0,0x0,0x0,1,-5,20,21\n'
                 '1,"k1",2,0,1,10,10,256,64,0,0,8,16,0,0x0,0x0,30,40,60,61\n'
                 '2,"k2",2,0,2,10,10,256,64,0,0,8,16,0,0x0,0x0,70,80,90,91\n')
    tl = collect(p, strict=False)
    assert tl.rejected["reason"].tolist() == ["negative timestamp (AMD timestamps are unsigned)"]
    assert any("1 row is no event: negative timestamp (AMD" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("n, want", [(1, "kept 1 of 1 event"), (3, "kept 3 of 3 events")])
def test_selection_count_agrees(tmp_path, n, want):
    from gpulens.timeline.selection import Selection

    events = ", ".join('{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %d, "dur": 5, '
                       '"args": {"device": 0, "stream": 7}}' % (10 * i) for i in range(n))
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [%s]}' % events)
    tl = collect(p, select=Selection.parse(window="0:10s"))
    said = [w for w in tl.meta.warnings if "selection" in w]
    assert len(said) == 1 and said[0].endswith(want), said


# --- 2. a correlation id reused by launch calls one after another -------------------------------------------------

def _reuse_trace(path, calls, kernels):
    """Kineto runtime calls (start µs, dur µs) and kernels (name, start µs, dur µs), every one with correlation 5."""
    import json

    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": s, "dur": d,
           "args": {"correlation": 5}} for s, d in calls]
    ev += [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": s, "dur": d,
            "args": {"device": 0, "stream": 7, "correlation": 5}} for n, s, d in kernels]
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def _links(tl):
    from gpulens.analyzers.launches import link_gpu_to_launch

    ev = tl.events.set_index("event_id")
    got = link_gpu_to_launch(tl)["launch_event_id"]
    k = tl.events.loc[got.index]
    return {str(n): int(ev.loc[int(e), "start_ns"]) // 1000 for n, e in zip(k["name"], got)}


def test_reused_id_links_each_kernel_to_the_nearest_call_before_it(tmp_path):
    from gpulens.analyzers import run_all

    # calls at 0 and 100 µs, both id 5; kA at 10 µs, kB at 110 µs: kB was put behind the call at 0 µs
    tl = collect(_reuse_trace(tmp_path / "t.json", [(0, 5), (100, 5)], [("kA", 10, 50), ("kB", 110, 50)]))
    assert _links(tl) == {"kA": 0, "kB": 100}
    res = run_all(tl)
    (f,) = [f for f in res["launches"].findings if "correlation id" in f.title]
    assert f.title == "1 correlation id shared by launch calls that do not nest"
    assert "nearest preceding launch" in f.detail
    assert res["launches"].summary["launch_calls_without_gpu_work"] == 0  # was 1: the call at 100 µs
    lat = res["launch_latency"].table.set_index("name")["latency_max_ns"]
    assert lat.to_dict() == {"kA": 10_000, "kB": 10_000}  # 110 − 100 µs, not 110 − 0


def test_reused_id_nested_call_is_no_candidate_and_early_work_keeps_the_first(tmp_path):
    # id 5 on a call 0–50 µs and a call 10–20 µs inside it (one call making another: HIP's memset → array create),
    # then on a call at 200 µs. kA at 30 µs goes to the enclosing call at 0 (the inner one is no candidate), kB at
    # 210 µs to the call at 200, kC at −5 µs (before every call: a skewed clock) to the earliest call
    tl = collect(_reuse_trace(tmp_path / "t.json", [(0, 50), (10, 10), (200, 5)],
                              [("kA", 30, 5), ("kB", 210, 5), ("kC", -5, 2)]))
    got = _links(tl)
    assert got == {"kA": 0, "kB": 200, "kC": 0}


# --- 3. an agent list that holds no GPU: the GPU is unknown, and why --------------------------------------------

_CPU_ONLY = ('"Node_Id","Logical_Node_Id","Logical_Node_Type_Id","Agent_Type","Cu_Count","Wave_Front_Size","Name",'
             '"Product_Name"\n0,0,0,"CPU",64,0,"AMD EPYC","AMD EPYC"\n')
_TWO_KERNELS_ON_NODE_2 = ('"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
                          '"KERNEL_DISPATCH",2,1,1,"a(int)",100,300\n"KERNEL_DISPATCH",2,1,1,"b(int)",400,500\n')


@pytest.mark.parametrize("given", ["folder", "file"])
def test_cpu_only_agent_info_says_the_gpu_is_unknown_and_why(tmp_path, given):
    from gpulens.reports._run_text import device_text

    (tmp_path / "5_agent_info.csv").write_text(_CPU_ONLY)
    (tmp_path / "5_kernel_trace.csv").write_text(_TWO_KERNELS_ON_NODE_2)
    tl = collect(tmp_path if given == "folder" else tmp_path / "5_kernel_trace.csv")
    said = [w for w in tl.meta.warnings if "does not list as a GPU" in w]
    # both kernels ran on agent node 2; the list holds node 0, a CPU
    assert said == [f"{tmp_path / '5_kernel_trace.csv'}: 2 GPU rows (kernels, copies) ran on agent node 2, which the "
                    "trace does not list as a GPU (its agent list holds CPU agents only): the name, architecture and "
                    "CU count of that GPU are unknown, so no hardware spec (pass --device-spec)"]
    (dev,) = [d for d in tl.meta.devices if d.get("device_id") == 2]
    assert dev["name"] is None and dev["unknown_why"]
    assert device_text([dev], None).startswith("unknown (the trace's agent list does not list this GPU)")


def test_agent_info_listing_the_gpu_adds_no_note(tmp_path):
    (tmp_path / "5_agent_info.csv").write_text(_CPU_ONLY + '2,2,0,"GPU",304,64,"gfx942","AMD Instinct MI300X"\n')
    (tmp_path / "5_kernel_trace.csv").write_text(_TWO_KERNELS_ON_NODE_2)
    tl = collect(tmp_path)
    assert not [w for w in tl.meta.warnings if "does not list as a GPU" in w]
    assert [d.get("name") for d in tl.meta.devices if d.get("device_id") == 2] == ["AMD Instinct MI300X"]


# --- 7. rocprofv3 JSON copies whose operation the strings do not name ------------------------------------------------

def test_unnamed_rocprofv3_copies_are_named_and_placed_by_their_agents(tmp_path):
    import gzip
    import json

    from .test_rocprofv3 import _tiny_v3_json

    p = tmp_path / "77_results.json.gz"
    _tiny_v3_json(p)  # agents: handle 111 the CPU (node 0), handle 222 the MI210 (node 1)
    doc = json.loads(gzip.decompress(p.read_bytes()))
    t = doc["rocprofiler-sdk-tool"][0]
    t["strings"] = {}  # no operation names: the copy 111 → 222 and a copy 222 → 111 are unnamed
    t["buffer_records"]["memory_copy"].append(
        {"kind": 1, "operation": 2, "start_timestamp": 70, "end_timestamp": 90, "thread_id": 7,
         "correlation_id": {"internal": 2, "external": 0}, "dst_agent_id": {"handle": 111},
         "src_agent_id": {"handle": 222}, "bytes": 2048})
    p.write_bytes(gzip.compress(json.dumps(doc).encode()))
    tl = collect(p)
    m = tl.of_kind("memcpy").sort_values("start_ns")
    # CPU → GPU is host-to-device, GPU → CPU device-to-host; both on the GPU's node 1 (were "op_1_1"/"op_1_2", the
    # first on the CPU's node 0)
    assert m["name"].astype(str).tolist() == ["MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST"]
    assert m["copy_kind"].tolist() == ["HtoD", "DtoH"] and m["device_id"].tolist() == [1, 1]
    assert m["bytes"].tolist() == [4096, 2048]
    assert f"{p}: 2 memory copy records without an operation name in the trace's strings: named by the types of " \
           "their source and destination agents (MEMORY_COPY_HOST_TO_DEVICE …)" in tl.meta.warnings


# --- 10. a rocprof-compute verdict rests on the measured HBM peak where roofline.csv gives one (session 46) -------

def test_rocprof_compute_verdict_with_and_without_roofline_csv(tmp_path):
    import csv
    import shutil
    from pathlib import Path

    import gpulens

    data = Path(__file__).parent / "data" / "omniperf" / "vcopy_MI200"
    if not data.exists():
        pytest.skip("vcopy_MI200 fixture absent")
    with_roof, without = tmp_path / "with", tmp_path / "without"
    shutil.copytree(data, with_roof)
    shutil.copytree(data, without)
    (without / "roofline.csv").unlink()
    got = {}
    for name, folder in (("with", with_roof), ("without", without)):
        src = gpulens.analyze([folder]).sources[0]
        got[name] = (src.results["verdicts"].table.iloc[0], src.results["speed_of_light"].table.iloc[0],
                     src.timeline.meta.warnings)
    (v1, s1, w1), (v2, s2, w2) = got["with"], got["without"]
    # the HBM bandwidth over the rated peak (sysinfo.csv hbm_bw 1,638.4 GB/s): 52.7 %, the same in both; over the
    # measured peak (roofline.csv HBMBw 1,388.93 GB/s) 62.2 %, only with the file: 52.7 × 1638.4 / 1388.93
    rated = float(next(csv.DictReader(open(data / "sysinfo.csv")))["hbm_bw"])
    measured = float(next(csv.DictReader(open(data / "roofline.csv")))["HBMBw"])
    assert s1["dram_pct"] == pytest.approx(s2["dram_pct"]) and s1["dram_pct"] < 60
    assert s1["dram_measured_pct"] == pytest.approx(s1["dram_pct"] * rated / measured) and s1["dram_measured_pct"] > 60
    # with the measured peak: memory-bound, at stake the distance to it; without: the rated peak is all there is
    assert v1["verdict"] == "memory-bound" and v2["verdict"] == "latency/occupancy-bound"
    assert v1["time_at_stake_ns"] == round(v1["time_ns"] * (1 - s1["dram_measured_pct"] / 100))
    assert v2["time_at_stake_ns"] == round(v2["time_ns"] * (1 - s2["dram_pct"] / 100))
    assert "62.2 % of the measured HBM peak (1389 GB/s; rated 1638)" in v1["evidence"]
    # what is missing, said once, only where it is, with what it means for the bounds
    assert [w for w in w2 if "no roofline.csv" in w] == [
        f"{without}: no roofline.csv (rocprof-compute's measured peaks): the roofline uses the rated peaks of "
        "sysinfo.csv, and kernel bounds rest on them: the hardware reaches less, so a kernel near its measured peak "
        "may read latency-bound"]
    assert not [w for w in w1 if "no roofline.csv" in w]


# --- 9. rocprof v1's LDSBankConflict is shown where the LDS figures are ---------------------------------------------

def test_rocprof_v1_lds_bank_conflict_reaches_the_kernel_evidence(tmp_path):
    import gpulens
    from gpulens.analyzers._verdict_facts import Evidence
    from gpulens.analyzers._verdict_text import lds_words

    p = tmp_path / "results.csv"
    p.write_text("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
                 "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,LDSBankConflict\n"
                 '0,"k_lds(float*)",2,0,0,10,10,65536,256,4096,0,32,0,16,64,0x0,0x0,1000,2000,52000,52100,35.5\n'
                 '1,"k_lds(float*)",2,0,1,10,10,65536,256,4096,0,32,0,16,64,0x0,0x0,53000,54000,79000,79100,25.5\n')
    v = gpulens.analyze([p]).sources[0].results["verdicts"].table.iloc[0]
    # weighted by duration: (35.5 × 50 µs + 25.5 × 25 µs) / 75 µs = 32.17 %
    assert "LDS stalled by bank conflicts 32.2 % of GPU time (rocprof LDSBankConflict, 0 % optimal, 100 % bad)" \
        in v["evidence"]
    # beside rocprof-compute's conflicts per access when both are counted
    e = Evidence("k", "kernel", 1, 1000, lds_conflicts=0.5, lds_bank_conflict_pct=12.0)
    assert lds_words(e).endswith("; LDS stalled by bank conflicts 12.0 % of GPU time (rocprof LDSBankConflict, "
                                 "0 % optimal, 100 % bad)")


# --- 8. a MIG instance is never the whole GPU ------------------------------------------------------------------------

@pytest.mark.parametrize("name, profile, parent", [
    ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "1g.5gb", "NVIDIA A100-SXM4-40GB"),
    ("NVIDIA H100 80GB HBM3 MIG 3g.40gb", "3g.40gb", "NVIDIA H100 80GB HBM3"),
    ("NVIDIA A30 MIG 2g.12gb", "2g.12gb", "NVIDIA A30"),
])
def test_mig_instance_has_no_whole_gpu_figures_and_says_why(tmp_path, name, profile, parent):
    import json

    import gpulens
    from gpulens.devices import identify_device

    # a 1g.5gb slice of an A100 has 1 of its 7 compute slices: the whole GPU's 108 SMs and 1,555 GB/s were used
    assert identify_device({"name": name}) is None
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"deviceProperties": [{"id": 0, "name": name}], "traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
         "args": {"device": 0, "stream": 7}}]}))
    src = gpulens.analyze([p]).sources[0]
    assert src.device is None
    why = src.results["roofline"].skipped_reason
    assert f"a MIG instance ({profile}) of {parent}: it has its profile's share of the SMs and of the DRAM " \
           "bandwidth, not the whole GPU's" in why
