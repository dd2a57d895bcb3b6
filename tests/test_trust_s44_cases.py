"""Variants of the shared cases (../shared/cases/README.md) that another public project could produce (session 44),
each generated here with its answer worked out by hand in the docstring from the values written (ns in nsys SQLite,
µs in Kineto files, ns in reports) — never copied from gpulens output.

* B06 in an Nsight Systems SQLite export with the launch calls recorded: a kernel at ``start 0 / end 0`` and one
  whose ``end`` precedes its ``start`` were excluded as invalid (right), but their launch calls were then said to
  have "no GPU record (the capture lost or cut off their work)" and the run verdict carried that caveat: the
  refused rows did not keep their correlation ids (Kineto's and rocprofv3's did). Now the calls are "launched GPU
  work that was refused as invalid", not lost launches.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main
from tests.case_variants import _nsys_db

US = 1000  # ns per µs


def _analyze(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out), *extra])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else {})


def _findings(src: dict) -> list[str]:
    return [f["title"] for a in src["analyses"].values() for f in a.get("findings") or []] + \
        [f["title"] for f in src["findings"]]


# -- B06 in an nsys SQLite export --------------------------------------------------------------------------------------

def _nsys(path: Path, runtime: list[tuple], kernels: list[tuple]) -> Path:
    """An nsys export (:func:`tests.case_variants._nsys_db`, one L40S): ``runtime`` = [(start, end, correlationId,
    name)], ``kernels`` = [(start, end, streamId, correlationId, name)] (ns)."""
    strings = sorted({r[3] for r in runtime} | {k[4] for k in kernels})
    sid = {s: i for i, s in enumerate(strings, 1)}
    return _nsys_db(path, strings, [(s, e, c, sid[n]) for s, e, c, n in runtime],
                    [(s, e, st, c, sid[n], sid[n]) for s, e, st, c, n in kernels], [])


T = 1_615_207_264_505_000_000  # B06's T, in ns


def test_b06_nsys_refused_kernels_launches_are_not_lost(tmp_path):
    """4 cudaLaunchKernel calls (corr 1–4, 1 µs each, before T); kernels on stream 7: k_ok1 [T, T+10 µs], k_unset
    at 0/0 (corr 2), k_backwards [T+15 µs, T+12 µs] (corr 3, end before start), k_ok2 [T+20, T+35 µs]. Valid: busy
    10 + 15 = 25 µs over the span T → T+35 µs = 35 µs (71.4 %), 2 invalid kernels; calls 2 and 3 launched work that
    was recorded and refused — 0 lost launches, and no 'no GPU record' caveat."""
    launch = "cudaLaunchKernel_v7000"
    p = _nsys(tmp_path / "b06.sqlite",
              [(T - 8 * US, T - 7 * US, 1, launch), (T - 6 * US, T - 5 * US, 2, launch),
               (T - 4 * US, T - 3 * US, 3, launch), (T - 2 * US, T - 1 * US, 4, launch)],
              [(T, T + 10 * US, 7, 1, "k_ok1"), (0, 0, 7, 2, "k_unset"), (T + 15 * US, T + 12 * US, 7, 3, "k_backwards"),
               (T + 20 * US, T + 35 * US, 7, 4, "k_ok2")])
    code, src = _analyze(p, tmp_path)
    s = src["summary"]
    assert code == 0
    assert (s["kernel_count"], s["gpu_busy_ns"], s["span_ns"]) == (2, 25 * US, 35 * US)
    assert round(s["gpu_busy_pct"], 1) == 71.4
    assert sorted(w["name"] for w in s["invalid_gpu_work"]) == ["k_backwards", "k_unset"]
    launches = src["analyses"]["launches"]["summary"]
    assert launches["launch_calls_gpu_work_refused"] == 2
    assert launches.get("launch_calls_lost") in (None, 0)
    text = " ".join(_findings(src)) + " " + (src.get("input_note") or "")
    assert "no GPU record" not in text
    assert "2 of 4 launch calls launched GPU work that was refused as invalid" in text


# -- T08 in the stdout of nsys 2021 ------------------------------------------------------------------------------------

_T08_2021 = """Using run.sqlite for SQL queries.
Running [/opt/nvidia/nsight-systems/2021.3.1/target-linux-x64/reports/cudaapisum.py run.sqlite]...

Time(%),Total Time (ns),Num Calls,Average,Minimum,Maximum,StdDev,Name
90.0,20000000,30,666666.7,1000,900000,10000.0,cudaLaunchKernel

Running [/opt/nvidia/nsight-systems/2021.3.1/target-linux-x64/reports/gpukernsum.py run.sqlite]...

Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,StdDev,Name
72.7,8000000,20,400000.0,390000,410000,5000.0,"void gemm_kernel<float, 128>(const float *, float *, int)"
27.3,3000000,10,300000.0,290000,310000,6000.0,softmax_kernel(float *, int)

Running [/opt/nvidia/nsight-systems/2021.3.1/target-linux-x64/reports/gpumemtimesum.py run.sqlite]...

Time(%),Total Time (ns),Operations,Average,Minimum,Maximum,StdDev,Operation
90.0,900000,3,300000.0,290000,310000,10000.0,[CUDA memcpy HtoD]
10.0,100000,2,50000.0,40000,60000,14142.1,[CUDA memset]
"""


def test_t08_nsys_2021_stdout_names_its_copies(tmp_path):
    """nsys 2021's report names (cudaapisum, gpukernsum, gpumemtimesum) and columns (``Average``, and the copy
    table's count under ``Operations``, not ``Count``): kernels 20 + 10 = 30 launches, 8 + 3 = 11 ms; the memory
    table's 3 copies + 2 fills (0.9 + 0.1 = 1.00 ms) are said to be left out of the kernel figures, as for nsys 2024."""
    p = tmp_path / "stats.csv"
    p.write_text(_T08_2021)
    code, src = _analyze(p, tmp_path)
    s = src["summary"]
    assert code == 0 and (s["kernel_count"], s["kernel_time_ns"]) == (30, 11_000_000)
    assert s["span_ns"] is None and s["memcpy_count"] is None
    assert any("3 copies and 2 fills" in w and "1.00 ms summed" in w for w in src["warnings"]), src["warnings"]


# -- B03: unquoted words as values (the RCCL profiler plugin's "datatype": ncclFloat32, "Stream": 0x…) ----------------

def _kernel(name: str, ts: int, dur: int, **args: object) -> str:
    a = ", ".join([f'"device": 0', f'"stream": 7', *(f'"{k}": {v}' for k, v in args.items())])
    return (f'{{"ph": "X", "cat": "kernel", "name": "{name}", "pid": 0, "tid": "stream 7", "ts": {ts}, "dur": {dur}, '
            f'"args": {{{a}}}}}')


def test_b03_unquoted_words_in_kineto_args_keep_their_event(tmp_path):
    """A collective kernel (ts 1000 µs, 40 µs) whose args hold ``"datatype": ncclFloat32`` and ``"Stream": 0x7f3a00``
    unquoted, then ``gemm`` 1050 + 10 µs. Strict: one-line refusal naming the file and saying --lenient repairs
    unquoted words. Lenient: both events kept — 2 kernels, busy 40 + 10 = 50 µs over 1000 → 1060 = 60 µs — with
    '2 unquoted values read as text'; the collective is not dropped (it was, with the whole damaged stretch)."""
    p = tmp_path / "rccl.json"
    p.write_text('{"traceEvents": [\n'
                 + _kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1000, 40, datatype="ncclFloat32",
                           Stream="0x7f3a00") + ",\n" + _kernel("gemm", 1050, 10) + "\n]}")
    code, _ = _analyze(p, tmp_path)
    assert code == 2
    code, src = _analyze(p, tmp_path, "--lenient")
    s = src["summary"]
    assert code == 0 and src["status"] == "ok"
    assert (s["kernel_count"], s["gpu_busy_ns"], s["span_ns"]) == (2, 50 * US, 60 * US)
    assert any("unquoted values read as text ×2" in w and "0 malformed events dropped" in w for w in src["warnings"])


def test_b03_unquoted_words_in_a_rocprofv3_json_are_repaired(tmp_path):
    """rocprofv3 JSON whose metadata holds ``"hostname": node01`` unquoted (one process, one MI210 kernel k_one of
    100 → 250 ns and 300 → 320 ns): strict refuses with the --lenient hint; lenient reads both dispatches (busy
    150 + 20 = 170 ns over 100 → 320 = 220 ns) and says '1 unquoted values read as text'."""
    from tests.test_rocprofv3 import _tiny_v3_json
    import gzip

    gz = tmp_path / "77_results.json.gz"
    _tiny_v3_json(gz)
    text = gzip.decompress(gz.read_bytes()).decode().replace('"hostname": "h"', '"hostname": node01')
    p = tmp_path / "77_results.json"
    p.write_text(text)
    code, _ = _analyze(p, tmp_path)
    assert code == 2
    code, src = _analyze(p, tmp_path, "--lenient")
    s = src["summary"]
    assert code == 0 and (s["kernel_count"], s["kernel_busy_ns"]) == (2, 170)
    assert any("1 unquoted values read as text" in w for w in src["warnings"]), src["warnings"]


# -- B17: every row narrower than the header, the missing field among the columns after the name -----------------------

def _csv(tmp_path: Path, name: str, head: str, rows: list[str]) -> tuple[Path, object]:
    """``head`` and ``rows`` written as ``name``, and the Timeline lenient reading collects from it."""
    from gpulens.collectors import collect

    p = tmp_path / name
    p.write_text("\n".join([head, *rows]) + "\n")
    return p, collect(p, strict=False)


_V3_KT = ("Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
          "Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,"
          "Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z")


def test_b17_rows_missing_a_middle_field_shift_no_column(tmp_path):
    """A rocprofv3 kernel_trace.csv (22 columns) whose rows lack Stream_Id (before the name) and Accum_VGPR_Count
    (after it): 20 fields. saxpy [1,000,000, 1,007,500] and scale [1,010,000, 1,012,000] ns, VGPR 32, SGPR 16,
    workgroup 256 × 1 × 1, grid 1024 × 1 × 1. Read from the left, SGPR would be 256 and the workgroup 1 × 1 × 1024
    (every column after the gap shifted by one). Lenient: the durations 7,500 and 2,000 ns (the time columns come
    before the gap), and every column after End_Timestamp unknown — no register count, workgroup or grid invented."""
    rows = [f"KERNEL_DISPATCH,1,1,100,{i},{i},{name},{i},{s},{e},0,0,32,16,256,1,1,1024,1,1"
            for i, name, s, e in ((1, '"saxpy(float, float*)"', 1_000_000, 1_007_500),
                                  (2, '"scale(float*)"', 1_010_000, 1_012_000))]
    p, tl = _csv(tmp_path, "kernel_trace.csv", _V3_KT, rows)
    assert _analyze(p, tmp_path)[0] == 2
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert list(k["dur_ns"]) == [7_500, 2_000]
    for col in ("block_x", "block_z", "grid_x", "regs_per_thread", "smem_static_bytes"):
        assert k[col].isna().all(), (col, list(k[col]))
    assert not len(tl.counters) or not tl.counters["metric"].isin(["sgpr", "accum_vgpr", "arch_vgpr"]).any()
    (w,) = [w for w in tl.meta.warnings if "realigned on the kernel-name column" in w]
    assert "SGPR_Count" in w and "Workgroup_Size_X" in w and "Grid_Size_X" in w


def test_b17_v1_rows_missing_a_field_before_the_times_are_not_read_shifted(tmp_path):
    """rocprof v1 results.csv (20 columns, times DispatchNs, BeginNs, EndNs, CompleteNs last) whose rows lack
    ``fbar``: 19 fields. Read from the left every time moves one column: k1 (Begin 2,000, End 9,500, Complete
    10,000 ns: 7,500 ns) would start at 9,500 and last 10,000 − 9,500 = 500 ns, k2 (12,000 → 14,000: 2,000 ns) would
    last 1,000 ns. Which field is missing cannot be told: the rows are dropped and counted, no duration invented."""
    head = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,vgpr,sgpr,fbar,sig,obj,DispatchNs,"
            "BeginNs,EndNs,CompleteNs")
    rows = ['0,"k1(float*, int)",0,0,0,42,42,1024,256,0,0,8,16,0x0,0x1,1000,2000,9500,10000',
            '1,"k2(float*, int)",0,0,0,42,42,1024,256,0,0,8,16,0x0,0x1,11000,12000,14000,15000']
    p, tl = _csv(tmp_path, "results.csv", head, rows)
    code, src = _analyze(p, tmp_path, "--lenient")
    assert code in (2, 5) and not src.get("top_kernels")
    assert not len(tl.of_kind("kernel"))
    assert any("2 rows dropped" in w and "not shifted" in w for w in tl.meta.warnings), tl.meta.warnings


def test_b17_v2_header_wider_than_every_row_still_read(tmp_path):
    """Control (the shared case's reading): rocprofv2's 21-column header over 19-field rows, Queue_Index and the
    counter absent: after the name Start/End come first and a field (Correlation_ID 33) follows them, in order —
    saxpy 2,007,500 − 2,000,000 = 7,500 ns, scale 2,012,000 − 2,010,000 = 2,000 ns; the columns after End_Timestamp
    (Correlation_ID, GRBM_COUNT) unknown."""
    head = ("Dispatch_ID,GPU_ID,Queue_ID,Queue_Index,PID,TID,GRD,WGR,LDS,SCR,Arch_VGPR,ACCUM_VGPR,SGPR,Wave_Size,SIG,"
            "OBJ,Kernel_Name,Start_Timestamp,End_Timestamp,Correlation_ID,GRBM_COUNT")
    rows = ['1,4,1,4242,4242,1024,256,0,0,8,0,16,64,140000000003000,1,"saxpy(float, float*) (.kd)",2000000,2007500,33',
            '2,4,1,4242,4242,2048,256,0,0,8,0,16,64,140000000004000,1,"scale(float*, int) (.kd)",2010000,2012000,34']
    _, tl = _csv(tmp_path, "results.csv", head, rows)
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert list(k["dur_ns"]) == [7_500, 2_000] and k["correlation_id"].isna().all()


# -- B12 in a JAX/XLA GPU trace (T11's dialect): a copy's size is in its memcpy_details ----------------------------

def test_b12_xla_copy_size_from_memcpy_details(tmp_path):
    """XLA GPU profiler output (no categories, ``/device:GPU:N`` processes): on GPU 0 a ``MemcpyH2D`` on
    'Stream #2(MemcpyH2D)' [1000, 1008] µs whose ``memcpy_details`` says ``size:4194304``, kernels gemm [1010, 1040]
    and loop_add_fusion [1041, 1051] on 'Stream #14(compute)', and XLA's derived 'XLA Ops' line over them (ranges,
    not work); GPU 1 gemm [1020, 1040]. Expected: 1 HtoD copy of 4,194,304 B (was: size unknown), 3 kernels
    30 + 10 + 20 = 60 µs, busy 8 + 30 + 10 + 20 = 68 µs."""
    ev = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
          {"ph": "M", "pid": 1, "tid": 14, "name": "thread_name", "args": {"name": "Stream #14(compute)"}},
          {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "Stream #2(MemcpyH2D)"}},
          {"ph": "M", "pid": 1, "tid": 1001, "name": "thread_name", "args": {"name": "XLA Ops"}},
          {"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "/device:GPU:1"}},
          {"ph": "M", "pid": 2, "tid": 15, "name": "thread_name", "args": {"name": "Stream #15(compute)"}}]
    x = [(1, 2, 1000, 8, "MemcpyH2D", {"correlation_id": "10", "memcpy_details":
                                         "kind_src:pinned kind_dst:device size:4194304 dest:0 async:1"}),
         (1, 14, 1010, 30, "gemm_kernel", {"correlation_id": "11"}), (1, 14, 1041, 10, "loop_add_fusion", {}),
         (1, 1001, 1010, 30, "dot.1", {}), (1, 1001, 1041, 10, "add_fusion", {}),
         (2, 15, 1020, 20, "gemm_kernel", {"correlation_id": "21"})]
    ev += [{"ph": "X", "pid": p, "tid": t, "ts": ts, "dur": d, "name": n, "args": a} for p, t, ts, d, n, a in x]
    p = tmp_path / "jax.trace.json"
    p.write_text(json.dumps({"displayTimeUnit": "ns", "traceEvents": ev}))
    code, src = _analyze(p, tmp_path)
    s = src["summary"]
    assert code == 0
    assert (s["memcpy_count"], s["memcpy_bytes"], s["memcpy_sizes_unknown"]) == (1, 4_194_304, 0)
    assert (s["kernel_count"], s["kernel_time_ns"], s["gpu_busy_ns"]) == (3, 60 * US, 68 * US)
