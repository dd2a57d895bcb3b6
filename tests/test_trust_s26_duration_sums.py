"""No summed kernel time wraps int64: implausible durations are dropped and counted before any sum.

Kind: numpy/pandas int64 sums wrap silently past 2^63 − 1 ns. Two ``nsys stats`` rows of 5e18 ns showed
"-8446744073.71 s summed" and a share of −59 %; 1,200 rocprofv3 kernels of 100 days each (each under the 104-day
per-event bound) gave "-8078744073.71 s summed"; two ncu launches of 5e9 s failed the whole file. Expected values
are hand calculations written here: 2^62 ns (the bound on all durations together) holds 2^62 // (100 days in ns) =
533 such kernels; a mean launch beyond 2^53 ns (104 days) is no measurement.
"""

from __future__ import annotations

import csv

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.errors import TraceFormatError

DAY_NS = 86_400 * 10**9
HEADER = ["Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name", "Correlation_Id",
          "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size", "Workgroup_Size_X",
          "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]


def _v3_kernels(path, n: int, dur_ns: int):
    t0 = 8_819_330_200_067_564
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for i in range(n):
            w.writerow(["KERNEL_DISPATCH", 1, 1, 69, i + 1, 16, "addition_kernel", 1000 + i, t0 + i * 1000,
                        t0 + i * 1000 + dur_ns, 0, 0, 64, 1, 1, 1024, 1, 1])
    return path


def test_many_100_day_kernels_keep_what_int64_can_sum(tmp_path):
    n, dur = 1_200, 100 * DAY_NS
    assert n * dur > 2**63  # the naive sum wraps
    kept = 2**62 // dur  # 533, by hand: the longest are left out until the rest fit in 2^62 ns
    tl = collect(_v3_kernels(tmp_path / "kernel_trace.csv", n, dur))
    assert len(tl.events) == kept
    assert sum(int(d) for d in tl.events["dur_ns"]) <= 2**62
    assert any(f"{n - kept:,} event{'s' if n - kept != 1 else ''} with an impossible time excluded" in w for w in tl.meta.warnings)
    summ = gpulens.analyze([tmp_path / "kernel_trace.csv"]).sources[0].summary
    # the 533 kept kernels share one queue, 1 µs apart: each is clipped at the next start, and the last one (it
    # starts where the rest of the run ends, 532 µs in, and runs 100 days) is a runaway left no time (session 40's
    # rule): its duration is unknown, so the summed kernel time is unknown, never a wrapped or a guessed figure; the
    # timed kernels' sum is 532 × 100 days exactly
    assert summ["kernel_time_ns"] is None
    assert summ["timed_kernel_time_ns"] == (kept - 1) * dur > 0
    assert summ["span_ns"] == (kept - 1) * 1_000


def test_ordinary_kernels_are_all_kept(tmp_path):
    tl = collect(_v3_kernels(tmp_path / "kernel_trace.csv", 50, 5_000))
    assert len(tl.events) == 50 and not any("impossible time" in w for w in tl.meta.warnings)


NSYS = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"


def test_nsys_stats_rows_beyond_what_int64_sums_are_dropped(tmp_path):
    p = tmp_path / "kern_sum.csv"
    # k_a, k_b: 1,000 launches of 5e15 ns (58 days, under 104) each, 5e18 ns a row: each row alone is past 2^62
    big = "50.0,5000000000000000000,1000,5e15,5e15,5e15,5e15,0.0"
    p.write_text(NSYS + f"{big},k_a\n{big},k_b\n0.0,1000,1,1000,1000,1000,1000,0.0,k_c\n")
    src = gpulens.analyze([p]).sources[0]
    assert src.summary["kernel_time_ns"] == 1_000 and src.summary["kernel_count"] == 1
    assert any("2 kernel rows dropped: an implausible Total Time" in w for w in src.timeline.meta.warnings)


def test_nsys_stats_row_of_one_158_year_launch_is_no_measurement(tmp_path):
    p = tmp_path / "kern_sum.csv"
    row = "50.0,5000000000000000000,1,5e18,5e18,5e18,5e18,0.0"  # one launch of 5e18 ns > 2^53 ns
    p.write_text(NSYS + f"{row},k_a\n{row},k_b\n")
    with pytest.raises(TraceFormatError, match="implausible Total Time"):
        collect(p)


def test_rocprof_stats_rows_beyond_what_int64_sums_are_dropped(tmp_path):
    p = tmp_path / "results.stats.csv"
    p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                 '"k_a",1,5000000000000000000,5000000000000000000,50.0\n'
                 '"k_b",1,5000000000000000000,5000000000000000000,50.0\n"k_c",2,3000,1500,0.0\n')
    src = gpulens.analyze([p]).sources[0]
    assert src.summary["kernel_time_ns"] == 3_000 and src.summary["kernel_count"] == 2
    assert any("2 summary rows dropped: an implausible TotalDurationNs" in w for w in src.timeline.meta.warnings)


def test_ncu_launches_of_158_years_are_unknown_not_a_failed_file(tmp_path):
    lines = ['"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name",'
             '"Metric Name","Metric Unit","Metric Value"']
    for i, (name, v) in enumerate((("k_a", "5000000000"), ("k_b", "5000000000"), ("k_c", "3"))):
        lines.append(f'"{i}","1","app","h","{name}","1","7","GPU Speed Of Light Throughput","Duration","second",'
                     f'"{v}"')
    p = tmp_path / "ncu.csv"
    p.write_text("\n".join(lines) + "\n")
    tl = collect(p)  # 5e18 ns each: beyond 2^53 ns, unknown; k_c's 3 s kept
    assert tl.events["dur_ns"].tolist() == [0, 0, 3 * 10**9]
    assert any("2 launches without a usable" in w for w in tl.meta.warnings)
