"""Regressions of the session-46 fuzzing campaign (tests/fuzz_s46.py: semantic mutations that keep an input valid
but change its meaning, compared with the seed's own report): one fast test per fault kind.

1. Impossible share: the one-off launch rule (``one launch holds X % of its time``) divided a launch's *recorded*
   duration by the kernel's *overrun-clipped* time. One kernel of the MI300X replay trace (tests/data) given 100× the
   run's length (3.17 s, clipped to 2.74 ms by the next kernel on its stream) read "one launch holds 24473.9 % of its
   time (3.17 s …)". The verdict's per-launch figures now use the clipped durations, as the kernel's time does.
2. Files dropped unnamed: a folder claimed by a folder collector (rocprofv3 CSV, rocprof v1, rocprof-compute) listed
   the other formats' files beside it only by the suffixes .json/.gz/.sqlite/.db — an Nsight Compute CSV, an nsys
   stats CSV, a .ncu-rep beside a rocprofv3 kernel_trace.csv was read by nobody and named nowhere (fuzz: a folder of
   a Kineto trace, a rocprofv3 kernel_trace.csv and an ncu details CSV reported the Kineto kernels only). Files of
   those names are now listed when they sniff as an NVIDIA format: read when they hold the more GPU work, named in
   the warning otherwise (an AMD folder's own CSVs stay its own records).
3. False "truncated": a per-kernel summary (nsys stats ``Time (%)``, rocprof ``*.stats.csv`` ``Percentage``) with one
   row whose Total Time disagrees with its share (clock ×1000 in one row of the RTX 5090 kern_sum of tests/data) was
   called cut ("rows hold 24.9 % at most of the kernel time …: rows are missing after byte 28,035", a partial
   result) though every row was there: one row's bound decided. When the shares (each at its printed rounding) can
   reach 100 %, two rows must now agree that rows are missing; the row itself is flagged as impossible statistics.
4. Kernels lost to a shared correlation id: a Kineto kernel record without launch geometry whose correlation id
   belongs to a copy call becomes a copy (the B12 rule) — also when the id is shared by several calls (every
   correlation id of the MI250 trace set to one value: its 14 kernels became copies and the report said "incomplete
   capture: 14 launch calls have no GPU record"). An id of several runtime calls now names no launcher.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import gpulens
from gpulens.collectors._shares import missing_share

DATA = Path(__file__).resolve().parent / "data"


# --- 1. a one-off launch's share is of the clipped durations --------------------------------------------------------
def test_one_off_launch_share_uses_clipped_durations(tmp_path):
    doc = json.loads((DATA / "kineto" / "hpctrain_mi300x_tracelens_replay.json").read_text())
    ks = sorted((e for e in doc["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    name = "miopenSp3AsmConv_v30_3_1_gfx9_fp16_dot2_edc_f2x3_stride1"
    (long,) = [e for e in ks if e["name"] == name and e["args"]["External id"] == 12]
    long["dur"] = 3173641.30859375  # µs: 100× the run
    after = [e for e in ks if e["ts"] > long["ts"] and e["args"]["stream"] == long["args"]["stream"]
             and e["pid"] == long["pid"]]
    clipped_us = after[0]["ts"] - long["ts"]  # the next kernel on its stream starts 2.74 ms later
    others = sorted(e["dur"] for e in ks if e["name"] == name and e is not long)  # no grid recorded: one grid
    # by hand: the clipped launch is 2,741.3 µs, 8.8× the 311.2 µs median of its other 14 launches — under the
    # one-off rule's 10× (a one-off launch lasts >= 10× the median of the others): no longer a one-off
    med = (others[6] + others[7]) / 2  # 14 others: (302.088 + 320.395) / 2
    assert len(others) == 14 and 8 < clipped_us / med < 10
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    src = gpulens.analyze(p).sources[0]
    texts = [t for f in src.findings() for t in (f.title, f.detail or "")]
    held = [m for t in texts for m in re.findall(r"one launch holds ([\d.]+) %", t, re.I | re.A)]
    assert held == []  # was ['24473.9'] (the recorded 3.17 s against the clipped total)
    assert src.summary["kernel_count"] == 29


# --- 2. a folder's NVIDIA CSV beside a rocprofv3 CSV run is read or named -----------------------------------------
_V3_HEAD = '"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",' \
           '"Start_Timestamp","End_Timestamp"'
_NCU = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
        '"Device","CC","gpu__time_duration.sum"\n"","","","","","","","","","","","usecond"\n')


def _mixed(tmp_path: Path, ncu_us: list[float]) -> Path:
    d = tmp_path / f"run{len(ncu_us)}"
    d.mkdir()
    # one rocprofv3 kernel of 10 µs (10,000 ns between its timestamps)
    (d / "kernel_trace.csv").write_text(_V3_HEAD + '\n"KERNEL_DISPATCH",1,1,9,1,1,"amd_k",1,5000000,5010000\n')
    (d / "ncu_details.csv").write_text(_NCU + "".join(
        f'"{i}","42","demo","host","nv_k","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","{u}"\n'
        for i, u in enumerate(ncu_us)))
    return d


def test_folder_ncu_csv_with_more_work_is_read(tmp_path):
    # the ncu CSV's 2 launches of 1 ms hold more GPU work than the rocprofv3 kernel's 10 µs: read, the other named
    src = gpulens.analyze(_mixed(tmp_path, [1000.0, 1000.0])).sources[0]
    assert src.summary["kernel_count"] == 2 and src.summary["kernel_time_ns"] == 2_000_000
    assert any("not read (rocprofv3_csv_dir; pass them as an input of their own): kernel_trace.csv" in w
               for w in src.timeline.meta.warnings)


def test_folder_ncu_csv_with_less_work_is_named(tmp_path):
    # 1 µs of ncu launches against 10 µs: the rocprofv3 run is kept and the ncu file named (it was silently dropped)
    src = gpulens.analyze(_mixed(tmp_path, [1.0])).sources[0]
    assert src.summary["kernel_count"] == 1 and src.summary["kernel_time_ns"] == 10_000
    assert any("other trace files in the folder are not read (pass them as inputs of their own): "
               "ncu_details.csv (ncu_csv)" in w for w in src.timeline.meta.warnings)


# --- 3. one row's inconsistent share does not make a whole table "truncated" ---------------------------------------
def test_missing_share_needs_two_rows_when_the_shares_are_whole():
    # 60.0 % + 40.0 % (each up to +0.1): every row may be there. Row 1's 600,000 ns over 60.1 % bounds the whole at
    # 998,336 ns > the 600,400 read — row 1 alone; row 2 bounds it at 100 · 400 / 40.1 = 997.5 ns: not missing
    assert missing_share(["60.0", "40.0"], [600_000, 400]) is None
    # shares of 60.0 + 30.0 (at most 90.2 %): rows are missing, the largest bound stands: 1 − 900 / (60,000 / 60.1)
    got = missing_share(["60.0", "30.0"], [600, 300])
    assert abs(got - (1 - 900 / (100 * 600 / 60.1))) < 1e-12
    # one row of 60.0 %: as before
    assert abs(missing_share(["60.0"], [600]) - (1 - 600 / (100 * 600 / 60.1))) < 1e-12


def test_nsys_stats_row_of_another_clock_is_not_a_cut_table(tmp_path):
    head = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    # row 1's Total Time is 1000× its 2 × 300 ns (the shares 60/40 are of 600 and 400 ns)
    p = tmp_path / "x_cuda_gpu_kern_sum.csv"
    p.write_text(head + "60.0,600000,2,300.0,300.0,290,310,14.1,gemm_a\n40.0,400,2,200.0,200.0,190,210,14.1,gemm_b\n")
    src = gpulens.analyze(p).sources[0]
    assert src.status == "ok" and src.summary["kernel_count"] == 4
    ws = src.timeline.meta.warnings
    assert not any("truncated" in w for w in ws)
    assert any("1 kernel row with impossible duration statistics" in w for w in ws)


# --- 4. a correlation id of several calls does not turn kernels into copies ----------------------------------------
def _b12(tmp_path: Path, calls: list[str]) -> dict:
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": c, "pid": 1, "tid": 1, "ts": 10 + 10 * i, "dur": 2,
           "args": {"correlation": 7}} for i, c in enumerate(calls)]
    ev.append({"ph": "X", "cat": "kernel", "name": "my_blit_op", "pid": 0, "tid": 7, "ts": 100, "dur": 5,
               "args": {"correlation": 7, "device": 0, "stream": 7}})  # no grid, no block
    p = tmp_path / f"t{len(calls)}.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    tl = gpulens.collect(p)
    return tl.events[tl.events["device_id"] >= 0]["kind"].astype(str).value_counts().to_dict()


def test_copy_call_of_a_unique_id_still_makes_a_copy(tmp_path):
    assert _b12(tmp_path, ["cudaMemcpyAsync"]) == {"memcpy": 1}


def test_shared_correlation_id_names_no_launcher(tmp_path):
    # correlation 7 is a copy call's and a launch call's: which one enqueued the record is unknown — a kernel stays
    assert _b12(tmp_path, ["cudaMemcpyAsync", "cudaLaunchKernel"]) == {"kernel": 1}
