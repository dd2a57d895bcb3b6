"""Faults found by the s28 fresh fuzzing campaign (mutated real inputs run through ``gpulens analyze``), one test per
kind of fault. Each input is written here, small, with the expected figure worked out by hand beside it.

1. A collective kernel recorded twice at one start on its stream (a duplicated event): the verdict table counted it
   once in its time (overrun repair clips the copy to 0 ns) but twice in its exposed time — "22.08 µs of 11.04 µs not
   overlapped by compute", a time at stake twice the kernel's time (fuzz: hta_mi250_minitoy, duplicated events).
2. A kernel recorded with an empty name (an nsys StringIds value '', a Kineto "name": ""): the findings tree tested
   the name's truth, so the kernel's wave finding stayed a second root beside its verdict and the roots' time at
   stake passed the GPU span (T07 nsys case, StringIds emptied: 631.0 µs of stake in a 629.5 µs window). Blank
   names now read "(unnamed)" from every source, as the AMD readers already wrote them.
3. Ranks that ran no collective (a folder of unrelated files read as ranks, or independent processes): the rank
   imbalance finding put the heaviest rank's extra compute time at stake as "the others wait for the slowest in
   every collective", beside that rank's own kernel findings — the same nanoseconds twice (two rocpd files:
   269.9 µs of stake in 254.8 µs of summed spans). Without a collective no wait is seen: its gain is unknown.
4. An nsys stats kernel summary whose Min is above Total Time / Instances (no Avg column to compare with): the
   hotspot row read min 142.47 µs beside a mean of 1.72 µs (fuzz: cuda_gpu_kern_sum with its columns shuffled).
5. A rocpd agent whose ``absolute_index`` (HSA node id) is impossible (-2^63, negative): its kernels ran on "GPU
   -9223372036854775808", a device no record named. The agent's own id stands in, as for a missing node id.
6. An nsys stats summary with two rows of one name, one with impossible statistics (made unknown): the merged
   hotspot row kept the other row's max beside a mean over both — mean 7.88 µs above max 6.91 µs. Its min / max
   are unknown when any merged row's is; a blank Name reads "(unnamed)".
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import gpulens

T0 = 1_000_000  # µs
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
GEMM = "ampere_sgemm_128x64_nn"


def _kernel(name: str, ts: int, dur: int, corr: int, stream: int = 7) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": T0 + ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr, "grid": [4, 1, 1], "block": [128, 1, 1]}}


def _launch(ts: int, corr: int) -> dict:
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": T0 + ts,
            "dur": 3, "args": {"correlation": corr}}


def _write(path: Path, events: list[dict], **extra) -> Path:
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events, **extra}))
    return path


def test_duplicated_collective_is_exposed_once(tmp_path):
    # GEMM on stream 7 at [0, 50) µs; the all-reduce on stream 9 at [100, 120) µs, recorded twice (same start, same
    # stream, same correlation). No compute overlaps it: exposed = its time = 20 µs, once.
    ev = [_launch(-10, 1), _kernel(GEMM, 0, 50, 1), _launch(90, 2), _kernel(AR, 100, 20, 2, stream=9),
          _kernel(AR, 100, 20, 2, stream=9)]
    src = gpulens.analyze([_write(tmp_path / "dup.json", ev)]).sources[0]
    t = src.results["verdicts"].table.set_index("name")
    row = t.loc[AR]
    assert int(row["time_ns"]) == 20_000
    assert int(row["time_at_stake_ns"]) == 20_000  # old code: 40_000 (each copy's 20 µs exposed)


H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
        "totalGlobalMem": 85_000_000_000, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
        "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
        "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448}


def test_blank_kernel_name_is_one_kernel_in_the_findings(tmp_path):
    # two launches of a 10-block kernel named "" at [10, 60) and [110, 160) µs: GPU span 150 µs, kernel time 100 µs
    ev = []
    for i, ts in enumerate((10, 110)):
        ev.append(_launch(ts - 10, i + 1))
        k = _kernel("", ts, 50, i + 1)
        k["args"].update({"grid": [10, 1, 1], "registers per thread": 32, "shared memory": 0})
        ev.append(k)
    src = gpulens.analyze([_write(tmp_path / "blank.json", ev, deviceProperties=[H100])]).sources[0]
    assert src.results["hotspots"].table["name"].astype(str).tolist() == ["(unnamed)"]
    fs = src.findings()
    about = [f for f in fs if f.kernel is not None]
    assert about and {f.kernel for f in about} == {"(unnamed)"}
    roots = [f for f in fs if f.parent is None]
    assert sum(f.time_at_stake_ns or 0 for f in roots if f.kernel is not None) <= 100_000  # the kernel's time
    assert sum(f.time_at_stake_ns or 0 for f in roots) <= 150_000  # the span


def test_findings_about_an_empty_kernel_name_hang_under_its_verdict():
    from gpulens.analyzers._tree import arrange
    from gpulens.analyzers.base import Finding

    verdict = Finding(": latency/occupancy-bound", "", severity="warning", category="verdict",
                      time_at_stake_ns=6_000, kernel="", key="kernel:")
    waves = Finding("Grid fills 7.5 % of one wave", "", severity="warning", category="occupancy",
                    time_at_stake_ns=6_000, kernel="", key="occupancy//waves")
    out = arrange([verdict, waves])
    assert [f.parent for f in out] == [None, "kernel:"]


def _two_ranks(tmp_path: Path, comm: bool) -> Path:
    d = tmp_path / ("comm" if comm else "nocomm")
    d.mkdir()
    # rank 0: compute [0, 100) µs, rank 1: compute [0, 20) µs; with comm, an all-reduce after it on each rank
    # (rank 0 [100, 110), rank 1 [20, 110): rank 1 waits 80 µs for rank 0)
    for rank, busy in ((0, 100), (1, 20)):
        ev = [_launch(-5, 1), _kernel(GEMM, 0, busy, 1)]
        if comm:
            ev += [_launch(busy - 2, 2), _kernel(AR, busy, 110 - busy, 2, stream=9)]
        _write(d / f"rank{rank}.json", ev, distributedInfo={"rank": rank, "world_size": 2, "backend": "nccl"})
    return d


def test_rank_imbalance_without_collectives_has_no_measured_stake(tmp_path):
    src = gpulens.analyze([_two_ranks(tmp_path, comm=False)]).sources[0]
    (f,) = [f for f in src.findings() if f.key == "rank-imbalance"]
    assert f.title.startswith("Rank 0 spends 400.0 % more")  # (100 − 20) / 20
    assert f.time_at_stake_ns is None and "no collective kernel is recorded" in f.detail
    assert "wait for the slowest in every collective" not in f.detail


def test_rank_imbalance_with_collectives_keeps_its_stake(tmp_path):
    src = gpulens.analyze([_two_ranks(tmp_path, comm=True)]).sources[0]
    (f,) = [f for f in src.findings() if f.key == "rank-imbalance"]
    assert f.time_at_stake_ns == 80_000  # 100 − 20 µs of compute


def test_kern_sum_min_above_total_over_instances_is_unknown(tmp_path):
    # 100 instances in 1,000,000 ns: mean 10,000 ns, yet Min 50,000 ns (100 × 50,000 = 5 ms > 1 ms): impossible.
    # The second row is consistent: 4 instances, 40,000 ns, mean 10,000 within [9,000, 11,000].
    p = tmp_path / "cuda_gpu_kern_sum.csv"
    p.write_text("Time (%),Total Time (ns),Instances,Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                 "96.2,1000000,100,55000,50000,60000,100,bad_kernel\n"
                 "3.8,40000,4,10000,9000,11000,800,good_kernel\n")
    rep = gpulens.analyze([p]).sources[0]
    t = rep.results["hotspots"].table.set_index("name")
    assert int(t.loc["bad_kernel", "calls"]) == 100 and int(t.loc["bad_kernel", "total_ns"]) == 1_000_000
    assert pd.isna(t.loc["bad_kernel", "min_ns"]) and pd.isna(t.loc["bad_kernel", "max_ns"])
    assert float(t.loc["good_kernel", "min_ns"]) == 9_000 and float(t.loc["good_kernel", "max_ns"]) == 11_000
    assert any("impossible duration statistics" in w for w in rep.timeline.meta.warnings)


def test_rocpd_impossible_node_id_falls_back_to_the_agent_id(tmp_path):
    import shutil
    import sqlite3

    from gpulens.collectors import collect

    src = Path(__file__).parents[2] / "shared" / "cases" / "T12.rocpd_two_procs" / "4242_results.db"
    if not src.exists():
        pytest.skip("../shared/cases not present")
    db = tmp_path / "4242_results.db"
    shutil.copy(src, db)
    con = sqlite3.connect(db)
    (agents,) = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND "
                                          "name LIKE 'rocpd_info_agent%'")]
    gpus = [i for (i,) in con.execute(f'SELECT id FROM "{agents}" WHERE type = \'GPU\' ORDER BY id')]
    con.execute(f'UPDATE "{agents}" SET absolute_index = ? WHERE type = \'GPU\'', (-(2**63),))
    con.commit()
    con.close()
    tl = collect(db)
    used = set(tl.events.loc[tl.events["kind"] == "kernel", "device_id"].tolist())
    assert used and used <= set(gpus)  # the GPU agents' own ids, never -2^63
    assert used <= {d.get("device_id") for d in tl.meta.devices}


def test_kern_sum_rows_of_one_name_with_unknown_statistics(tmp_path):
    # row A: 10 launches, 100,000 ns, min 9,000, max 11,000 (mean 10,000: consistent);
    # row B (same name): 10 launches, 1,000,000 ns, Min 200,000 > Max 100: impossible → its statistics unknown.
    # Merged: 20 launches, 1,100,000 ns, mean 55,000 ns; min / max unknown (row A's 11,000 is no max of both).
    p = tmp_path / "cuda_gpu_kern_sum.csv"
    p.write_text("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                 "9.1,100000,10,10000,10000,9000,11000,500,k\n"
                 "90.9,1000000,10,100000,100000,200000,100,500,k\n"
                 "0.0,5000,1,5000,5000,5000,5000,0,\" \"\n")
    t = gpulens.analyze([p]).sources[0].results["hotspots"].table.set_index("name")
    assert int(t.loc["k", "calls"]) == 20 and int(t.loc["k", "total_ns"]) == 1_100_000
    assert float(t.loc["k", "mean_ns"]) == 55_000
    assert pd.isna(t.loc["k", "max_ns"]) and pd.isna(t.loc["k", "min_ns"])  # old code: 11,000 and 9,000
    assert int(t.loc["(unnamed)", "total_ns"]) == 5_000
