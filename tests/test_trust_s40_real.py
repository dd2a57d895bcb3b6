"""Real profiler outputs (session 40, "held-back real traces"): new public files read against facts from the files.

1. A rocprofv3 CSV of a file set given alone lost the GPU that the set records. rocprofv3 writes
   ``<pid>_agent_info.csv`` beside every ``<pid>_kernel_trace.csv`` (rocprofiler-sdk docs: "all tracing and counter
   collection options generate an additional agent_info.csv file prefixed with the process ID"). The MI300A Jacobi
   example of amd/HPCTrainingExamples (``Rocprofv3/OpenMP/README.md``, MIT; ROCm 6.2, ``rocprofv3 --kernel-trace``)
   prints both files: 4 CPU and 4 GPU agents (``gfx942``, "AMD Instinct MI300A", 228 CUs) and 9 dispatches on
   ``Agent_Id`` 4. Analysed as a folder, gpulens named the GPU; given ``<pid>_kernel_trace.csv`` alone — as rocprof
   v1's ``results.csv`` is read with its ``results.sysinfo.txt`` — it said "device not recorded" and skipped
   occupancy and roofline because "its architecture is not recorded". Kind: a fact of the same run's file set read
   in one entry point and not the other. Now any file of the set given alone is read with the
   ``<prefix>agent_info.csv`` beside it (same folder, same prefix), with a warning naming it.
2. Exact figures of small real Kineto traces from facebookresearch/HolisticTraceAnalysis @
   f4d0062c382f42bd8a74838bcdad1916c7d5d2da (MIT), copied to tests/data/kineto (see PROVENANCE.md): a sampled
   rank with copies and memsets on two streams whose launch calls are mostly outside the capture, a 2021
   legacy-schema (``Kernel``/``Runtime``) inference rank, a trace without ``deviceProperties``, a one-stream CUDA
   event sync, the trace beside an execution trace, and a CUPTI range-profiler capture (kernel timing off).
   Expected values are computed here with ``json``/``gzip``/``decimal`` from the files.
3. A rocprofv3 ``--stats`` ``kernel_stats.csv``, rows as amd/HPCTrainingExamples prints them
   (``Rocprofv3/OpenMP/README.md``, MIT). (rocpd2csv's ``Guid`` kernel trace of ``Rocprofv3/rocpd/README.md`` was
   checked too and reads right; tests/test_trust_s38_real.py holds its test.)
4. nsys' console output (``nsys profile --stats=true`` / ``nsys stats`` in the default ``--format column``, saved to a
   file) was refused — "not a recognised trace format" — though it holds the same kernel summary as the CSV form
   gpulens reads (ayush-os/nsight-systems-deep-dive README, nsys 2024 on an A100: ``vectorAdd`` 1,010 instances,
   1,831,281 ns). Kind: a tool's default output form of a report gpulens reads in another form. Now each table's dash
   rule gives its columns and the table is read as the CSV report is, line for line (byte offsets of a cut capture
   stay those of the file); the 2020–21 layout (``CUDA Kernel Statistics:``, ``Time(%)``, ``Average``) too.
5. ``rocpd summary`` console output (ROCm 7: amd/HPCTrainingExamples ``Rocprofv3/rocpd/README.md``, MIT, MI300A) was
   refused as well; its ``KERNELS_SUMMARY:`` table holds the per-kernel calls and total ns that a rocprofv3
   ``kernel_stats.csv`` holds. Same kind as 4. Now that table is read as a stats summary (no events).
"""

from __future__ import annotations

import collections
import csv
import gzip
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from gpulens.cli import main
from tests.real_figures import assert_exact_figures

KINETO = Path(__file__).parent / "data" / "kineto"

# --- 1. rocprofv3 agent_info.csv beside a file given alone -----------------------------------------------------------

# amd/HPCTrainingExamples Rocprofv3/OpenMP/README.md: ``cat *_agent_info.csv`` (the 4 GPU rows and one CPU row of its
# 8) and ``head *_kernel_trace.csv`` (all 9 rows it prints), unchanged.
AGENT_HEADER = ('"Node_Id","Logical_Node_Id","Agent_Type","Cpu_Cores_Count","Simd_Count","Cpu_Core_Id_Base",'
                '"Simd_Id_Base","Max_Waves_Per_Simd","Lds_Size_In_Kb","Gds_Size_In_Kb","Num_Gws","Wave_Front_Size",'
                '"Num_Xcc","Cu_Count","Array_Count","Num_Shader_Banks","Simd_Arrays_Per_Engine","Cu_Per_Simd_Array",'
                '"Simd_Per_Cu","Max_Slots_Scratch_Cu","Gfx_Target_Version","Vendor_Id","Device_Id","Location_Id",'
                '"Domain","Drm_Render_Minor","Num_Sdma_Engines","Num_Sdma_Xgmi_Engines","Num_Sdma_Queues_Per_Engine",'
                '"Num_Cp_Queues","Max_Engine_Clk_Ccompute","Max_Engine_Clk_Fcompute","Sdma_Fw_Version","Fw_Version",'
                '"Capability","Cu_Per_Engine","Max_Waves_Per_Cu","Family_Id","Workgroup_Max_Size","Grid_Max_Size",'
                '"Local_Mem_Size","Hive_Id","Gpu_Id","Workgroup_Max_Dim_X","Workgroup_Max_Dim_Y",'
                '"Workgroup_Max_Dim_Z","Grid_Max_Dim_X","Grid_Max_Dim_Y","Grid_Max_Dim_Z","Name","Vendor_Name",'
                '"Product_Name","Model_Name"')
AGENT_CPU = ('0,0,"CPU",48,0,0,0,0,0,0,0,0,1,48,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3700,0,0,0,0,0,0,25,0,0,0,'
             '1763021218530103933,0,0,0,0,0,0,0,"AMD Instinct MI300A Accelerator","CPU",'
             '"AMD Instinct MI300A Accelerator",""')
AGENT_GPU = ('{n},{n},"GPU",0,912,0,{simd},8,64,0,64,64,6,228,24,24,1,10,4,32,90402,4098,29856,256,{dom},{drm},2,10,8,'
             '24,3700,2100,19,150,1013424768,9,32,141,1024,4294967295,0,1763021218530103933,{gpu},1024,1024,1024,'
             '4294967295,4294967295,4294967295,"gfx942","AMD","AMD Instinct MI300A","ip discovery"')
AGENT_INFO = "\n".join([AGENT_HEADER, AGENT_CPU] + [
    AGENT_GPU.format(n=n, simd=simd, dom=dom, drm=drm, gpu=gpu) for n, simd, dom, drm, gpu in (
        (4, 2147487744, 0, 128, 53730), (5, 2147487784, 1, 136, 17599), (6, 2147487824, 2, 144, 47963),
        (7, 2147487864, 3, 152, 11782))]) + "\n"
KTRACE = """\
"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp",\
"Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X",\
"Grid_Size_Y","Grid_Size_Z"
"KERNEL_DISPATCH",4,1,2,"__omp_offloading_32_2f3c6__QMnorm_modPnorm_l26",1,5329321973213203,5329321973322123,0,4360,256,1,1,233472,1,1
"KERNEL_DISPATCH",4,1,4,"__omp_offloading_32_2f3c3__QMlaplacian_modPlaplacian_l23",2,5329321976381800,5329321976429320,0,0,256,1,1,233472,1,1
"KERNEL_DISPATCH",4,1,1,"__omp_offloading_32_2f3c0__QMboundary_modPboundary_conditions_l24",3,5329321979189038,5329321979199278,0,0,256,1,1,4096,1,1
"KERNEL_DISPATCH",4,1,3,"__omp_offloading_32_2f3c7__QMupdate_modPupdate_l23",4,5329321985289126,5329321985337166,0,0,256,1,1,233472,1,1
"KERNEL_DISPATCH",4,1,2,"__omp_offloading_32_2f3c6__QMnorm_modPnorm_l26",5,5329321987888094,5329321987980254,0,4360,256,1,1,233472,1,1
"KERNEL_DISPATCH",4,1,4,"__omp_offloading_32_2f3c3__QMlaplacian_modPlaplacian_l23",6,5329321990242479,5329321990289479,0,0,256,1,1,233472,1,1
"KERNEL_DISPATCH",4,1,1,"__omp_offloading_32_2f3c0__QMboundary_modPboundary_conditions_l24",7,5329321992966432,5329321992976272,0,0,256,1,1,4096,1,1
"KERNEL_DISPATCH",4,1,3,"__omp_offloading_32_2f3c7__QMupdate_modPupdate_l23",8,5329321997343879,5329321997389119,0,0,256,1,1,233472,1,1
"KERNEL_DISPATCH",4,1,2,"__omp_offloading_32_2f3c6__QMnorm_modPnorm_l26",9,5329321999929225,5329322000021345,0,4360,256,1,1,233472,1,1
"""


def _analyze(tmp_path: Path, target: Path, name: str = "o.json", rc: int = 0) -> dict:
    """``gpulens analyze --json`` of ``target``; its exit status must be ``rc``; returns the first source."""
    out = tmp_path / name
    assert main(["analyze", "-q", "--no-cache", str(target), "--json", str(out)]) == rc
    return json.loads(out.read_text())["sources"][0]


def _ktrace_facts() -> dict:
    """Kernel count, Σ(End − Start) and span (ns) of KTRACE, read with csv (hand check: the 9 durations sum to
    108,920 + 47,520 + 10,240 + 48,040 + 92,160 + 47,000 + 9,840 + 45,240 + 92,120 = 501,080 ns)."""
    rows = list(csv.DictReader(io.StringIO(KTRACE)))
    start = [int(r["Start_Timestamp"]) for r in rows]
    end = [int(r["End_Timestamp"]) for r in rows]
    return {"kernels": len(rows), "kernel_ns": sum(e - s for s, e in zip(start, end)),
            "span_ns": max(end) - min(start), "agents": {r["Agent_Id"] for r in rows}}


def test_rocprofv3_kernel_trace_alone_reads_agent_info_beside_it(tmp_path):
    run = tmp_path / "jacobi"
    run.mkdir()
    (run / "3091_agent_info.csv").write_text(AGENT_INFO)
    (run / "3091_kernel_trace.csv").write_text(KTRACE)
    facts = _ktrace_facts()
    assert facts["kernel_ns"] == 501_080 and facts["agents"] == {"4"}
    alone = _analyze(tmp_path, run / "3091_kernel_trace.csv", "alone.json")
    folder = _analyze(tmp_path, run, "folder.json")
    for src in (alone, folder):
        s = src["summary"]
        assert (s["kernel_count"], s["kernel_time_ns"], s["span_ns"]) == (
            facts["kernels"], facts["kernel_ns"], facts["span_ns"])
        gpu = [d for d in src["devices"] if d.get("device_id") == 4]
        assert gpu and gpu[0]["name"] == "AMD Instinct MI300A" and gpu[0]["gfx_arch"] == "gfx942"
        assert gpu[0]["num_sms"] == 228  # Cu_Count of Node_Id 4
        assert "not recorded" not in src["device_text"]
    # the same run's file, given alone or in its folder: the same devices (the 4 GPU agents; CPU agents are no GPU)
    assert sorted(d["device_id"] for d in alone["devices"]) == sorted(d["device_id"] for d in folder["devices"]) \
        == [4, 5, 6, 7]
    assert any("3091_agent_info.csv beside it" in w for w in alone["warnings"])
    # the occupancy skip now names the real gap (no register columns in this layout), not an unknown architecture
    occ = json.dumps(alone["analyses"].get("occupancy"))
    assert "architecture is not recorded" not in occ


def test_agent_info_of_another_prefix_or_folder_is_not_read(tmp_path):
    """Only the file set's own agent_info: another process's (other prefix) or another folder's is not this run."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "3091_kernel_trace.csv").write_text(KTRACE)
    (tmp_path / "a" / "4242_agent_info.csv").write_text(AGENT_INFO)
    (tmp_path / "3091_agent_info.csv").write_text(AGENT_INFO)
    src = _analyze(tmp_path, tmp_path / "a" / "3091_kernel_trace.csv")
    assert src["devices"] == [] or all(d.get("name") != "AMD Instinct MI300A" for d in src["devices"])
    assert not any("agent_info.csv beside it" in w for w in src["warnings"])


def test_unreadable_agent_info_beside_is_a_warning_not_a_failure(tmp_path):
    (tmp_path / "3091_kernel_trace.csv").write_text(KTRACE)
    (tmp_path / "3091_agent_info.csv").write_text(AGENT_HEADER + "\n")  # header only: no agent
    src = _analyze(tmp_path, tmp_path / "3091_kernel_trace.csv")
    assert src["summary"]["kernel_count"] == 9
    assert any("3091_agent_info.csv: not read beside 3091_kernel_trace.csv" in w for w in src["warnings"])


# --- 2. exact figures of small real Kineto traces ---------------------------------------------------------------------

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
LAUNCH_CATS = {"cuda_runtime", "runtime", "cuda_driver"}


def kineto_facts(path: Path) -> dict:
    """Figures of a Kineto trace read with json (timestamps as Decimal µs, so ns are exact): kernel events
    (``cat`` "kernel", any case), distinct names, Σ dur, the span of all GPU events (kernels, copies, memsets), and
    per stream the GPU events whose correlation id a launch call (runtime/driver event) carries."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    ev = [e for e in json.loads(raw, parse_float=Decimal)["traceEvents"] if e.get("ph") == "X"]
    cat = [str(e.get("cat", "")).lower() for e in ev]
    kernels = [e for e, c in zip(ev, cat) if c == "kernel"]
    gpu = [e for e, c in zip(ev, cat) if c in GPU_CATS]
    launched = {e["args"]["correlation"] for e, c in zip(ev, cat) if c in LAUNCH_CATS and "correlation" in
                e.get("args", {})}
    ns = lambda us: int(Decimal(us) * 1000)  # noqa: E731
    return {"kernels": len(kernels), "unique": len({e["name"] for e in kernels}),
            "kernel_ns": sum(ns(e["dur"]) for e in kernels),
            "span_ns": max(ns(e["ts"]) + ns(e["dur"]) for e in gpu) - min(ns(e["ts"]) for e in gpu),
            "launches": dict(collections.Counter(int(e["args"]["stream"]) for e in gpu
                                                 if e["args"].get("correlation") in launched))}


@pytest.mark.parametrize("name, hand", [
    # hand: the figures read off the file by eye, to check kineto_facts itself
    ("hta_trace_compare_base.json.gz", {"kernels": 6, "kernel_ns": 432_000, "launches": {7: 2}}),
    ("hta_inference_rank_1_legacy.json.gz", {"kernels": 4, "kernel_ns": 30_000, "launches": {7: 4}}),
    ("hta_call_stack_backward_thread.json", {"kernels": 1, "kernel_ns": 45_000, "launches": {7: 1}}),
    ("hta_a100_event_sync_one_stream.json.gz", {"kernels": 4, "kernel_ns": 49_000, "launches": {7: 5}}),
    ("hta_a100_simple_add_et_companion.json.gz", {"kernels": 4, "kernel_ns": 16_000, "launches": {7: 4}}),
])
def test_hta_kineto_exact_figures(tmp_path, name, hand):
    facts = kineto_facts(KINETO / name)
    assert {k: facts[k] for k in hand} == hand
    assert_exact_figures(tmp_path, KINETO / name, facts)


def test_hta_sampled_rank_copies_and_memsets(tmp_path):
    """The sampled rank: 6 copies (two 3,895,296-byte HtoD on stream 16, a 1,802,240-byte DtoD, three 4-byte HtoD)
    and 6 memsets; the copy bytes and the per-direction split come from the file's args."""
    path = KINETO / "hta_trace_compare_base.json.gz"
    ev = [e for e in json.loads(gzip.decompress(path.read_bytes()))["traceEvents"] if e.get("ph") == "X"]
    copies = [e for e in ev if e.get("cat") == "gpu_memcpy"]
    assert sum(e["args"]["bytes"] for e in copies) == 2 * 3_895_296 + 1_802_240 + 3 * 4
    src = _analyze(tmp_path, path)
    s = src["summary"]
    assert (s["memcpy_count"], s["memcpy_bytes"]) == (len(copies), sum(e["args"]["bytes"] for e in copies))
    assert src["devices"] == [] and "not recorded" in src["device_text"]  # no deviceProperties in the file


def test_hta_cupti_range_profiler_capture_is_incomplete_not_idle(tmp_path):
    """Kernel timing off (CUPTI range profiler): 77 cudaLaunchKernel, 77 cuda_profiler_range events, no kernel."""
    path = KINETO / "hta_a100_cupti_range_profiler.json.gz"
    ev = [e for e in json.loads(gzip.decompress(path.read_bytes()))["traceEvents"] if e.get("ph") == "X"]
    launches = sum(1 for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaLaunchKernel")
    ranges = sum(1 for e in ev if e.get("cat") == "cuda_profiler_range")
    assert (launches, ranges) == (77, 77) and not any(e.get("cat") == "kernel" for e in ev)
    src = _analyze(tmp_path, path, rc=5)  # 5: no GPU work recorded (the CLI's exit status for it)
    assert src["summary"]["kernel_count"] == 0
    assert src["summary"]["verdict"] == "incomplete-capture"
    assert any(f"{launches} launch calls" in w and "range-profiler" in w for w in src["warnings"])


# --- 3. rocprofv3 kernel_stats.csv --------------------------------------------------------------------------------

# amd/HPCTrainingExamples Rocprofv3/OpenMP/README.md, ``rocprofv3 --stats --kernel-trace``: XXXXX_kernel_stats.csv
KSTATS = """\
"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
"__omp_offloading_32_2f3c6__QMnorm_modPnorm_l26",1001,87995483,87907.575425,43.77,80200,108480,3547.283930
"__omp_offloading_32_2f3c7__QMupdate_modPupdate_l23",1000,52197887,52197.887000,25.96,48320,69880,3052.411702
"__omp_offloading_32_2f3c3__QMlaplacian_modPlaplacian_l23",1000,51095558,51095.558000,25.41,43720,60640,3253.741764
"__omp_offloading_32_2f3c0__QMboundary_modPboundary_conditions_l24",1000,9759423,9759.423000,4.85,7640,13080,673.670901
"""


def test_rocprofv3_kernel_stats_totals(tmp_path):
    p = tmp_path / "3091_kernel_stats.csv"
    p.write_text(KSTATS)
    rows = list(csv.DictReader(io.StringIO(KSTATS)))
    calls, total = sum(int(r["Calls"]) for r in rows), sum(int(r["TotalDurationNs"]) for r in rows)
    assert (calls, total) == (4001, 87_995_483 + 52_197_887 + 51_095_558 + 9_759_423)
    src = _analyze(tmp_path, p)
    s = src["summary"]
    assert (s["kernel_count"], s["unique_kernels"], s["kernel_time_ns"]) == (calls, len(rows), total)
    assert s["span_ns"] is None and s["gpu_busy_ns"] is None  # a summary has no timeline: unknown, never 0


# --- 4. nsys stats console output (--format column) -------------------------------------------------------------------

# ayush-os/nsight-systems-deep-dive README (no licence shown: these lines only, not the file), nsys 2024 on an A100:
# ``nsys profile -t cuda,nvtx,osrt --stats=true`` printed to the terminal — an NVTX, a CUDA API and the kernel table,
# unchanged (trailing blanks included: nsys pads every column to its rule).
NSYS_CONSOLE = """\
Generating '/tmp/nsys-report-2ee6.qdstrm'
[1/8] [========================100%] vector_add_profile_v3.nsys-rep
[2/8] [========================100%] vector_add_profile_v3.sqlite
[3/8] Executing 'nvtx_sum' stats report

 Time (%)  Total Time (ns)  Instances   Avg (ns)     Med (ns)    Min (ns)   Max (ns)   StdDev (ns)   Style      Range    
 --------  ---------------  ---------  -----------  -----------  ---------  ---------  -----------  -------  ------------
     95.0        3,481,709          1  3,481,709.0  3,481,709.0  3,481,709  3,481,709          0.0  PushPop  Profile_Loop
      5.0          182,472          1    182,472.0    182,472.0    182,472    182,472          0.0  PushPop  Warmup      

[5/8] Executing 'cuda_api_sum' stats report

 Time (%)  Total Time (ns)  Num Calls    Avg (ns)    Med (ns)  Min (ns)   Max (ns)    StdDev (ns)            Name         
 --------  ---------------  ---------  ------------  --------  --------  -----------  ------------  ----------------------
     96.9      106,912,410          3  35,637,470.0   6,584.0     4,697  106,901,129  61,716,139.1  cudaMalloc            
      2.9        3,201,638      1,010       3,169.9   2,922.0         0      138,218       5,124.5  cudaLaunchKernel      

[6/8] Executing 'cuda_gpu_kern_sum' stats report

 Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)                          Name                         
 --------  ---------------  ---------  --------  --------  --------  --------  -----------  -----------------------------------------------------
    100.0        1,831,281      1,010   1,813.1   1,823.0     1,791     4,705         93.3  vectorAdd(const float *, const float *, float *, int)

[7/8] Executing 'cuda_gpu_mem_time_sum' stats report

 Time (%)  Total Time (ns)  Count  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)      Operation     
 --------  ---------------  -----  --------  --------  --------  --------  -----------  ------------------
     51.0            2,432      2   1,216.0   1,216.0     1,024     1,408        271.5  [CUDA memcpy HtoD]
     49.0            2,336      1   2,336.0   2,336.0     2,336     2,336          0.0  [CUDA memcpy DtoH]

"""


def test_nsys_console_kernel_summary_is_read(tmp_path):
    p = tmp_path / "nsys_stats.txt"
    p.write_text(NSYS_CONSOLE)
    src = _analyze(tmp_path, p)
    s = src["summary"]
    # the kernel table's one row, read by eye: 1,010 instances, 1,831,281 ns (not the API table's 1,010 launch calls)
    assert (s["kernel_count"], s["unique_kernels"], s["kernel_time_ns"]) == (1010, 1, 1_831_281)
    top = src["top_kernels"][0]
    assert top["name"] == "vectorAdd(const float *, const float *, float *, int)"
    assert abs(top["mean_ns"] - 1_831_281 / 1010) < 0.01  # 1,813.149… (the table prints 1,813.1)
    assert s["span_ns"] is None and s["gpu_busy_ns"] is None  # a summary: no timeline


# The nsys 2020–21 console layout (``CUDA Kernel Statistics:`` banner, ``Time(%)`` / ``Average`` / ``Minimum`` /
# ``Maximum``, no unit on the bare times, numbers without separators), its API and memory tables beside it; written
# here with invented values: 2 × 1.5 s + 4 × 0.5 s = 5 s.
NSYS_CONSOLE_2021 = """\
CUDA API Statistics:

 Time(%)  Total Time (ns)  Num Calls    Average      Minimum     Maximum            Name         
 -------  ---------------  ---------  ------------  ----------  ----------  ---------------------
    88.5       2298324729          1  2298324729.0  2298324729  2298324729  cudaDeviceSynchronize
    11.5        272427936          3    90809312.0       20844   272333765  cudaMallocManaged    



CUDA Kernel Statistics:

 Time(%)  Total Time (ns)  Instances    Average      Minimum     Maximum                       Name                    
 -------  ---------------  ---------  ------------  ----------  ----------  -------------------------------------------
    60.0       3000000000          2  1500000000.0  1000000000  2000000000  addVectorsInto(float*, float*, float*, int)
    40.0       2000000000          4   500000000.0   400000000   600000000  initWith(float, float*, int)               



CUDA Memory Operation Statistics (by time):

 Time(%)  Total Time (ns)  Operations  Average  Minimum  Maximum              Operation            
 -------  ---------------  ----------  -------  -------  -------  ---------------------------------
   100.0         68477200        2304  29721.0     1855   182046  [CUDA Unified Memory memcpy HtoD]
"""


def test_nsys_2021_console_layout(tmp_path):
    p = tmp_path / "profiling_output.log"
    p.write_text(NSYS_CONSOLE_2021)
    src = _analyze(tmp_path, p)
    s = src["summary"]
    assert (s["kernel_count"], s["unique_kernels"], s["kernel_time_ns"]) == (2 + 4, 2, 3_000_000_000 + 2_000_000_000)
    by_name = {k["name"]: k for k in src["top_kernels"]}
    assert by_name["initWith(float, float*, int)"]["calls"] == 4  # the padded name is read without its blanks
    assert not any("unit" in w for w in src["warnings"])  # the old report's own form: ns by its documentation


def test_nsys_console_cut_inside_the_kernel_row(tmp_path):
    """A console capture cut inside its only kernel row (no line end): no kernel is invented from the cut row, and
    the byte offset named is the row's start in the file as written."""
    cut_at = NSYS_CONSOLE.index("    100.0        1,831,281")
    p = tmp_path / "nsys_stats.txt"
    p.write_text(NSYS_CONSOLE[:cut_at + 40])
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) != 0
    assert not out.exists() or json.loads(out.read_text())["sources"][0]["summary"]["kernel_count"] == 0
    from gpulens.collectors.nsys_stats import NsysStatsCollector

    tl = NsysStatsCollector().collect(p)
    assert len(tl.tables["kernel_summary"]) == 0
    assert any(f"byte {len(NSYS_CONSOLE[:cut_at].encode()):,}" in w for w in tl.meta.warnings)


# --- 5. rocpd summary console output ----------------------------------------------------------------------------------

# amd/HPCTrainingExamples Rocprofv3/rocpd/README.md (MIT), ``rocpd summary -i …`` over three MPI Jacobi runs on an
# MI300A (1, 2 and 4 GPUs): its KERNELS_SUMMARY table and the first row of KERNELS_SUMMARY_BY_RANK, unchanged.
ROCPD_SUMMARY = """\
KERNELS_SUMMARY:
                                                                                      Name  Calls  DURATION (nsec)  AVERAGE (nsec)  PERCENT (INC)  MIN (nsec)  MAX (nsec)      STD_DEV
                                  NormKernel1(int, double, double, double const*, double*)   3003       1163863212   387566.837163      53.158347      350681    44723133 1.053328e+06
JacobiIterationKernel(int, double, double, double const*, double const*, double*, double*)   3000        558300618   186100.206000      25.499851      164360    49084273 8.931972e+05
               LocalLaplacianKernel(int, int, int, double, double, double const*, double*)   3000        430398154   143466.051333      19.658027      138040      927873 1.451155e+04
 HaloLaplacianKernel(int, int, int, double, double, double const*, double const*, double*)   3000         25618372     8539.457333       1.170095        7560       14160 5.868638e+02
                                                  NormKernel2(int, double const*, double*)   3003          7978572     2656.867133       0.364414         920       69000 1.264590e+03
                                                                   __amd_rocclr_copyBuffer   3003          3256244     1084.330336       0.148726         560        5680 4.841719e+02
                                                            __amd_rocclr_fillBufferAligned      3            11840     3946.666667       0.000541        3320        4960 8.857389e+02

KERNELS_SUMMARY_BY_RANK:
 ProcessID        Hostname                                                                                       Name  Calls  DURATION (nsec)  AVERAGE (nsec)  PERCENT (INC)  MIN (nsec)  MAX (nsec)      STD_DEV
    718729 ppac-pl1-s24-26                                   NormKernel1(int, double, double, double const*, double*)   1001        355961654   355606.047952      52.060841      350681      456680 4.282216e+03
"""


def test_rocpd_summary_console_kernels(tmp_path):
    p = tmp_path / "rocpd_summary.txt"
    p.write_text(ROCPD_SUMMARY)
    section = ROCPD_SUMMARY.split("\n\n")[0].splitlines()[2:]
    rows = [ln.rsplit(None, 7) for ln in section]
    kernels = [r for r in rows if not r[0].strip().startswith("__amd_rocclr_")]  # HIP blit copy/fill kernels apart
    calls = sum(int(r[1]) for r in kernels)
    total = sum(int(r[2]) for r in kernels)
    assert (len(rows), calls, total) == (7, 3003 + 3 * 3000 + 3003, 2_186_158_928)
    src = _analyze(tmp_path, p)
    s = src["summary"]
    assert (s["kernel_count"], s["unique_kernels"], s["kernel_time_ns"]) == (calls, len(kernels), total)
    top = src["top_kernels"][0]
    assert (top["name"], top["calls"], top["total_ns"]) == (
        "NormKernel1(int, double, double, double const*, double*)", 3003, 1_163_863_212)
    assert s["span_ns"] is None
    # the BY_RANK section is not read: its host name appears nowhere in the report
    assert "ppac-pl1" not in (tmp_path / "o.json").read_text()


def test_rocpd_summary_cut_short_says_so(tmp_path):
    """The table without its last five rows: their PERCENT (INC) shares (about 21.3 %) are missing; the note names
    the file's own last byte, not that of the CSV it is rewritten into."""
    lines = ROCPD_SUMMARY.splitlines(keepends=True)
    text = "".join(lines[:4])
    p = tmp_path / "rocpd_summary.txt"
    p.write_text(text)
    from gpulens.collectors.rocpd_summary import RocpdSummary

    tl = RocpdSummary().collect(p)
    assert len(tl.tables["rocprof_stats"]) == 2
    assert any("truncated" in w and f"after byte {len(text.encode()):,}" in w for w in tl.meta.warnings)
