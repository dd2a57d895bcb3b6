"""A kernel whose one launch holds most of its time is told so first, not only what its class says of it. The
MI300A OpenMP-offload workload (amd/HPCTrainingExamples, rocprof-compute) ran a kernel twice with one grid:
430.65 ms, then 0.63 ms — the first touch of its memory on the APU. Its verdict (latency/occupancy-bound, 430.53 ms
at stake) advised more workgroups per launch, which would not touch that one-off launch.

Synthetic ncu details CSVs written here (two replayed launches of one kernel, same grid; measured speed of light
5 % / 10 %: a latency class). Expected figures by hand from the durations written in the test.
"""

from __future__ import annotations

import csv

import gpulens

HDR = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size", "Grid Size",
       "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value"]


def _ncu_csv(path, durs_us):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(HDR)
        for i, d in enumerate(durs_us):
            for m in [("GPU Speed Of Light Throughput", "Duration", "us", f"{d:.2f}"),
                      ("GPU Speed Of Light Throughput", "Compute (SM) Throughput", "%", "5.00"),
                      ("GPU Speed Of Light Throughput", "Memory Throughput", "%", "10.00"),
                      ("GPU Speed Of Light Throughput", "DRAM Throughput", "%", "10.00"),
                      ("Launch Statistics", "# SMs", "SM", "132")]:
                w.writerow([str(i), "1", "app", "127.0.0.1", "init_field(double*, int)", "1", "7", "(256, 1, 1)",
                            "(4096, 1, 1)", "0", "9.0", *m])
    return path


def _row(tmp_path, durs):
    src = gpulens.analyze([_ncu_csv(tmp_path / "k.csv", durs)]).sources[0]
    return src.results["verdicts"].table.iloc[0]


def test_one_slow_launch_is_named_first(tmp_path):
    slow, fast = 430_650.0, 629.0  # µs
    row = _row(tmp_path, [slow, fast])
    assert row["verdict"] == "latency/occupancy-bound"
    first = row["next_steps"][0]
    share = 100 * slow / (slow + fast)  # 99.85 %
    assert first.startswith(f"One launch holds {share:.1f} % of its time")
    assert f"{slow / fast:,.0f}× the median of its other launches" in first  # 685×
    assert "one-off" in first and "warm-up" in first
    assert f"{slow / fast:,.0f}×" in row["evidence"]


def test_steady_launches_get_no_one_off_step(tmp_path):
    """100 and 120 µs: the slower is 1.2× the other — no one-off."""
    row = _row(tmp_path, [100.0, 120.0])
    assert not any("One launch holds" in s for s in row["next_steps"])
    assert "one launch holds" not in row["evidence"]


def test_a_slow_launch_holding_under_half_the_time_is_no_one_off(tmp_path):
    """One 200 µs launch among thirty of 10 µs: 20× the others' median, but 200 / 500 = 40 % of the time."""
    row = _row(tmp_path, [200.0] + [10.0] * 30)
    assert not any("One launch holds" in s for s in row["next_steps"])
