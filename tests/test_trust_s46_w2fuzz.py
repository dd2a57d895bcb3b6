"""Inputs that contradict themselves are said to, never passed silently (faults s46's fuzzing left alone).

1. A recorded duration beside start and end (rocprof v1 ``DurationNs`` beside ``EndNs − BeginNs``: results.csv,
   results.db, results.json) that disagrees with them: the time comes from Begin/End, and a warning now counts the
   rows, names the column used and the unit slip when every such row is off by ×1000.
2. Correlation ids reused by several launch calls one after another: the launches finding now counts the calls and
   the GPU-event links that cannot hold (two events behind one call while another call of the id launched none).
3. ``Time (%)`` (nsys stats) / ``Percentage`` (rocprof stats) shares above 100 %, negative, or adding up beyond
   100 %: flagged as impossible statistics, read as unknown, and not used to call the table cut.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import gpulens
from gpulens.collectors._dur_check import span_disagreement
from gpulens.collectors._shares import impossible_shares

_V1_HEAD = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,"
            "sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,DurationNs\n")


def _v1_row(i: int, begin: int, end: int, dur: int) -> str:
    fixed = f'{i},"k{i}.kd",2,0,{i},7,7,256,256,0,0,16,0,32,64,"0x0","0x1"'
    return f"{fixed},{begin - 100},{begin},{end},{end + 50},{dur}\n"


# --- 1. DurationNs that contradicts EndNs − BeginNs --------------------------------------------------------------
def test_rocprof_v1_csv_duration_times_1000_is_named(tmp_path):
    # rows 1 and 2 write DurationNs 1000× their EndNs − BeginNs (5,000 and 2,000 ns); row 3 agrees
    p = tmp_path / "results.csv"
    p.write_text(_V1_HEAD + _v1_row(0, 1_000_000, 1_005_000, 5_000_000) + _v1_row(1, 1_010_000, 1_012_000, 2_000_000)
                 + _v1_row(2, 1_020_000, 1_021_000, 1_000))
    tl = gpulens.collect(p)
    k = tl.events[tl.events["kind"] == "kernel"].sort_values("start_ns")
    assert k["dur_ns"].tolist() == [5_000, 2_000, 1_000]  # from Begin/End
    ws = [w for w in tl.meta.warnings if "DurationNs" in w]
    assert len(ws) == 1
    assert "2 of 3 rows record a DurationNs that disagrees with EndNs − BeginNs" in ws[0]
    assert "DurationNs 5,000,000 beside EndNs − BeginNs = 5,000 ns" in ws[0] and "×1,000" in ws[0]
    assert "taken from EndNs − BeginNs, DurationNs is not used" in ws[0]


def test_duration_off_by_more_than_rounding_but_no_unit_slip():
    # 1,000 ns span recorded as 1,050 (off by 50 ns); 2,000 recorded as 2,001 (1 ns: rounding, not counted)
    w = span_disagreement(Path("x.csv"), [0, 10_000], [1_000, 12_000], [1_050, 2_001], "DurationNs",
                          "EndNs − BeginNs")
    assert w is not None and "1 of 2 rows records a DurationNs" in w and "DurationNs 1,050 beside" in w
    assert "another unit" not in w
    assert span_disagreement(Path("x.csv"), [0], [1_000], [1_001], "DurationNs", "EndNs − BeginNs") is None
    # a duration not recorded (n/a) is no disagreement
    assert span_disagreement(Path("x.csv"), [0], [1_000], [None], "DurationNs", "EndNs − BeginNs") is None


def test_agreeing_duration_column_says_nothing(tmp_path):
    p = tmp_path / "results.csv"
    p.write_text(_V1_HEAD + _v1_row(0, 1_000_000, 1_005_000, 5_000) + _v1_row(1, 1_010_000, 1_012_000, 2_000))
    assert not [w for w in gpulens.collect(p).meta.warnings if "DurationNs" in w]


def test_rocprof_v1_json_duration_disagreement(tmp_path):
    ev = [{"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "GPU2"}}]
    for i, (b, e, d) in enumerate([(1_000, 4_000, "3000"), (5_000, 6_000, "1000000")]):  # 2nd: ×1000 of 1,000 ns
        ev.append({"ph": "X", "name": f"k{i}", "pid": 2, "tid": 0, "ts": str(b / 1000), "dur": str((e - b) / 1000),
                   "args": {"BeginNs": str(b), "EndNs": str(e), "DurationNs": d, "dev-id": 2, "queue-id": 0}})
    p = tmp_path / "results.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    tl = gpulens.collect(p)
    assert sorted(tl.events[tl.events["device_id"] >= 0]["dur_ns"].tolist()) == [1_000, 3_000]
    ws = [w for w in tl.meta.warnings if "DurationNs" in w]
    assert len(ws) == 1 and "1 of 2 events records a DurationNs" in ws[0] and "event 2: DurationNs 1,000,000" in ws[0]


# --- 2. correlation ids reused across launch calls -----------------------------------------------------------------
def _launches(tmp_path: Path, ev: list) -> tuple[dict, list]:
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    res = gpulens.analyze(p).sources[0].results
    for r in res.values():
        if "launch_calls" in r.summary:
            # a call of a reused id is never called a launch that lost its work: its id's work is recorded
            assert not [f for f in r.findings if "no GPU record" in f.title]
            return r.summary, [f for f in r.findings if "correlation id" in f.title]
    raise AssertionError("no launches result")


def _call(ts: int) -> dict:
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts, "dur": 2,
            "args": {"correlation": 7}}


def _kernel(name: str, ts: int) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": 5,
            "args": {"correlation": 7, "device": 0, "stream": 7, "grid": [1, 1, 1], "block": [32, 1, 1]}}


def test_reused_ids_queue_backlog_links_are_not_trusted(tmp_path):
    # three calls at 10, 20, 30 µs, all correlation 7; their kernels run at 100, 110, 120 µs (the queue ran behind):
    # each kernel's nearest preceding call is the one at 30 µs — 3 events behind one call, 2 calls with none
    summary, fs = _launches(tmp_path, [_call(10), _call(20), _call(30),
                                       _kernel("a", 100), _kernel("b", 110), _kernel("c", 120)])
    assert summary["correlation_ids_shared"] == 1 and summary["launch_calls_sharing_ids"] == 3
    assert summary["gpu_links_doubtful"] == 3
    assert len(fs) == 1 and "here 3 calls" in fs[0].detail
    assert "3 GPU event links cannot be trusted" in fs[0].detail
    assert "2 other calls of the same id (e.g. 7)" in fs[0].detail
    assert summary["launch_calls_without_gpu_work"] == 0  # their work is behind the call at 30 µs, not lost


def test_reused_ids_one_kernel_per_call_are_counted_not_doubted(tmp_path):
    # call, kernel, call, kernel ... each kernel right after its own call: every link holds
    ev = [e for i in range(4) for e in (_call(100 * i), _kernel(f"k{i}", 100 * i + 10))]
    summary, fs = _launches(tmp_path, ev)
    assert summary["launch_calls_sharing_ids"] == 4 and summary["gpu_links_doubtful"] == 0
    assert len(fs) == 1 and "here 4 calls" in fs[0].detail and "cannot be trusted" not in fs[0].detail


# --- 3. impossible shares of a per-kernel summary -------------------------------------------------------------------
_NSYS = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"


def _nsys(tmp_path: Path, a: str, b: str) -> list[str]:
    p = tmp_path / "x_cuda_gpu_kern_sum.csv"
    p.write_text(_NSYS + f"{a},600,2,300.0,300.0,290,310,14.1,gemm_a\n{b},400,2,200.0,200.0,190,210,14.1,gemm_b\n")
    src = gpulens.analyze(p).sources[0]
    assert src.status == "ok" and src.summary["kernel_count"] == 4  # calls and totals kept
    return src.timeline.meta.warnings


def test_nsys_share_above_100_is_impossible(tmp_path):
    ws = _nsys(tmp_path, "160.0", "40.0")
    assert any("1 row with an impossible Time (%) share" in w and "'gemm_a' at 160.0 %" in w for w in ws)
    assert not any("truncated" in w for w in ws)


def test_nsys_negative_share_is_impossible(tmp_path):
    assert any("impossible Time (%) share" in w and "-5.0 %" in w for w in _nsys(tmp_path, "-5.0", "40.0"))


def test_nsys_shares_summing_past_100(tmp_path):
    # 90.0 + 60.0: at least 89.9 + 59.9 = 149.8 % after a 0.1 rounding each
    ws = _nsys(tmp_path, "90.0", "60.0")
    assert any("shares add up to more than 100 % (149.8 % at least" in w for w in ws)


def test_whole_shares_are_quiet(tmp_path):
    assert not any("impossible" in w and "share" in w for w in _nsys(tmp_path, "60.0", "40.0"))
    # 97 rows of 1.0 % printed rounded (true 1.0309 %): sum 97.0, within rounding of 100 — possible
    assert impossible_shares("x", "Time (%)", ["1.0"] * 97, ["k"] * 97) == (None, [False] * 97)
    # 100.04 printed to 0.1 → 100.0; "100.1" with unit 0.1 may stand for 100.0: possible; 100.2 is not
    assert impossible_shares("x", "Time (%)", ["100.1"], ["k"])[0] is None
    assert impossible_shares("x", "Time (%)", ["100.2"], ["k"])[1] == [True]


def test_rocprof_stats_percentage_above_100(tmp_path):
    p = tmp_path / "results.stats.csv"
    p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                 '"k_a",2,600,300,250.0\n"k_b",2,400,200,40.0\n')
    tl = gpulens.collect(p)
    st = tl.tables["rocprof_stats"]
    assert st["Calls"].tolist() == [2, 2] and st["TotalDurationNs"].tolist() == [600, 400]
    assert st["Percentage"].isna().tolist() == [True, False]
    assert any("impossible Percentage share" in w and "'k_a' at 250.0 %" in w for w in tl.meta.warnings)


def test_rocprofv3_reused_ids_are_not_lost_launches(tmp_path):
    # rocprofv3 CSV pair, every Correlation_Id 7: three hipLaunchKernel calls (0–2, 10–12, 20–22 µs), their
    # kernels at 100, 110, 120 µs: all three land behind the call at 20 µs, the other two calls hold none
    api = ['"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"']
    kern = ['"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
            '"Correlation_Id","Start_Timestamp","End_Timestamp","Workgroup_Size_X","Grid_Size_X"']
    for i in range(3):
        api.append(f'"HIP_RUNTIME_API_EXT","hipLaunchKernel","5","5","7","{10_000 * i}","{10_000 * i + 2_000}"')
        kern.append(f'"KERNEL_DISPATCH","1","2","2","5","{i + 1}","1","k{i}","7","{100_000 + 10_000 * i}",'
                    f'"{105_000 + 10_000 * i}","64","64"')
    d = tmp_path / "run"
    d.mkdir()
    (d / "r_hip_api_trace.csv").write_text("\n".join(api) + "\n")
    (d / "r_kernel_trace.csv").write_text("\n".join(kern) + "\n")
    for r in gpulens.analyze(d).sources[0].results.values():
        if "launch_calls" in r.summary:
            assert r.summary["launch_calls_sharing_ids"] == 3 and r.summary["gpu_links_doubtful"] == 3
            assert not [f for f in r.findings if "no GPU record" in f.title]
            return
    raise AssertionError("no launches result")


def test_rocprof_v1_db_duration_disagreement(tmp_path):
    # the KERN table of results.db holds results.csv's columns: row 2's DurationNs 2,000,000 is ×1000 its 2,000 ns
    cols = _V1_HEAD.strip().split(",")
    rows = [next(csv.reader([r.strip()])) for r in
            (_v1_row(0, 1_000_000, 1_005_000, 5_000), _v1_row(1, 1_010_000, 1_012_000, 2_000_000))]
    p = tmp_path / "results.db"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE KERN (" + ", ".join(f'"{c}"' for c in cols) + ")")
    con.executemany(f"INSERT INTO KERN VALUES ({', '.join('?' * len(cols))})", rows)
    con.commit()
    con.close()
    tl = gpulens.collect(p)
    assert sorted(tl.events[tl.events["kind"] == "kernel"]["dur_ns"].tolist()) == [2_000, 5_000]
    ws = [w for w in tl.meta.warnings if "DurationNs" in w]
    assert len(ws) == 1 and "1 of 2 rows records a DurationNs" in ws[0] and "row 2: DurationNs 2,000,000" in ws[0]
