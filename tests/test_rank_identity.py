"""Class 1 of issue 13: rank identity from every place a profiler or a trace-fusion tool records it.

The fused traces are built here: 4 ranks, each with one host thread launching a GEMM and an NCCL all-reduce on its
GPU. Rank 2's GEMM runs 300 µs instead of 100 µs, so it enters the all-reduce 200 µs after the others, which wait
for it: rank 2 is the straggler by construction. One test per encoding of the rank.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import gpulens
from gpulens.collectors import collect
from tests.conftest import SHARED

CASES = SHARED.parent / "cases"
T0 = 1_000_000  # µs
GEMM_US = {0: 100, 1: 100, 2: 300, 3: 100}
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def fused_events(encoding: str) -> list[dict]:
    """Events of 4 ranks in one list; the rank is told only by ``encoding``: pid / process_name / args.rank."""
    ev: list[dict] = []
    for r in range(4):
        host_pid = 5000 + r
        gpu = r % 2  # two nodes of two GPUs: rank 2 runs on its node's GPU 0
        if encoding == "pid":  # 100000000·rank + gpu for GPU events and 100000000·rank + os pid for host events
            gpu_pid, host_pid = 100_000_000 * r + gpu, 100_000_000 * r + host_pid
        elif encoding == "pid label":  # the pid itself is the text label
            gpu_pid, host_pid = f"RANK {r} - GPU {gpu}", f"RANK {r} - host {host_pid}"
        else:
            gpu_pid = gpu if encoding == "args.rank" else 10 + r
        if encoding == "process_name":
            ev.append({"ph": "M", "name": "process_name", "pid": gpu_pid, "args": {"name": f"RANK {r} - GPU {gpu}"}})
            ev.append({"ph": "M", "name": "process_name", "pid": host_pid, "args": {"name": f"RANK {r} - python"}})
        extra = {"rank": r} if encoding == "args.rank" else {}
        dev = {} if encoding in ("pid", "process_name", "pid label") else {"device": gpu}  # device only from the encoding
        g = GEMM_US[r]
        ev += [
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": host_pid, "tid": host_pid,
             "ts": T0, "dur": 5, "args": {"correlation": 1, **extra}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": host_pid, "tid": host_pid,
             "ts": T0 + 6, "dur": 5, "args": {"correlation": 2, **extra}},
            {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": gpu_pid, "tid": 7, "ts": T0 + 10, "dur": g,
             "args": {"stream": 7, "correlation": 1, **dev, **extra}},
            # everyone leaves the all-reduce together at T0 + 10 + 300 + 50
            {"ph": "X", "cat": "kernel", "name": AR, "pid": gpu_pid, "tid": 7, "ts": T0 + 10 + g,
             "dur": 300 + 50 - g, "args": {"stream": 7, "correlation": 2, **dev, **extra}},
        ]
    return ev


@pytest.mark.parametrize("encoding", ["pid", "process_name", "args.rank", "pid label"])
def test_fused_trace_has_four_ranks_and_names_the_straggler(tmp_path, encoding):
    p = tmp_path / "fused.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": fused_events(encoding)}))
    tl = collect(p)
    assert tl.ranks == [0, 1, 2, 3]
    gpu = tl.gpu_events()
    # each rank: its own GEMM length and its own GPU (r % 2), never the encoded pid
    assert {int(r): int(d) for r, d in gpu[gpu["name"] == "gemm_kernel"][["rank", "dur_ns"]].values} == \
        {r: us * 1000 for r, us in GEMM_US.items()}
    assert {(int(r), int(d)) for r, d in gpu[["rank", "device_id"]].values} == {(0, 0), (1, 1), (2, 0), (3, 1)}
    # the launch calls belong to their rank: every kernel links to a launch call
    rep = gpulens.analyze([p]).sources[0]
    links = rep.results["launches"].summary
    # 8 kernels (GEMM + all-reduce per rank); each rank's correlation ids 1, 2 are the same numbers
    assert links["kernels_unlinked"] == 0 and links["launch_calls"] == 8 and links["launch_calls_without_gpu_work"] == 0
    ranks = rep.results["ranks"].summary
    # rank 2 enters the one all-reduce last and the others wait for it; one late arrival is too few to name a
    # straggler (at least MIN_STRAGGLER_COLLECTIVES overlapping collectives since issue s25): said as such
    assert ranks["ranks"] == 4 and ranks["concurrent_collectives"] == 1 and ranks["stragglers"] == []
    rt = rep.results["ranks"].table.set_index("rank")
    assert rt["late_arrivals"].to_dict() == {0: 0, 1: 0, 2: 1, 3: 0}
    assert int(rt.loc[2, "caused_wait_ns"]) == 3 * 200_000   # ranks 0, 1, 3 each wait 200 µs for it
    assert [f.rank for f in rep.findings() if f.key == "straggler-unproven"] == [2]
    assert any("4 ranks merged" in w for w in tl.meta.warnings)


def test_record_param_comms_rank_is_the_file_rank(tmp_path):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": T0, "dur": 5,
           "args": {"Rank": 5, "External id": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": T0 + 10, "dur": 5,
           "args": {"device": 0, "stream": 7}}]
    p = tmp_path / "trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    tl = collect(p)
    assert tl.ranks == [5] and tl.meta.sources[0]["rank_source"] == "record_param_comms"


def test_distributed_info_wins_and_file_name_rank_warns(tmp_path):
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": T0, "dur": 5,
           "args": {"device": 0, "stream": 7}}]
    a = tmp_path / "rank3_trace.json"
    a.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": 1}, "traceEvents": ev}))
    assert collect(a).ranks == [1] and not collect(a).meta.warnings
    b = tmp_path / "worker_rank-3.json"
    b.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    tl = collect(b)
    assert tl.ranks == [3]
    assert any("rank 3 inferred from the file name" in w for w in tl.meta.warnings)


def test_two_rankless_files_in_a_folder_are_numbered_with_a_warning(tmp_path):
    for name, dur in (("b_host.json", 7), ("a_host.json", 5)):
        ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": T0, "dur": dur,
               "args": {"device": 0, "stream": 7}}]
        (tmp_path / name).write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    tl = collect(tmp_path)
    assert tl.ranks == [0, 1]
    k = tl.gpu_events()
    # file-name order: a_host.json (5 µs) → rank 0, b_host.json (7 µs) → rank 1
    assert {int(r): int(d) for r, d in k[["rank", "dur_ns"]].values} == {0: 5000, 1: 7000}
    assert any("2 inputs record no rank" in w for w in tl.meta.warnings)


def test_rankless_file_beside_a_ranked_one_takes_a_free_rank(tmp_path):
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": T0, "dur": 5,
           "args": {"device": 0, "stream": 7}}]
    (tmp_path / "x.json").write_text(json.dumps({"distributedInfo": {"rank": 0}, "traceEvents": ev}))
    (tmp_path / "y.json").write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    assert collect(tmp_path).ranks == [0, 1]


def write_rocpd(path: Path, pid: int, start: int, durs: list[int]) -> None:
    """A minimal rocpd database (rocprofiler-sdk rocpd_tables.sql names; views without UUID suffix)."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE rocpd_info_process (id INTEGER, guid TEXT, nid INTEGER, ppid INTEGER, pid INTEGER,
                                         start INTEGER, "end" INTEGER, command TEXT);
        CREATE TABLE rocpd_info_agent (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, type TEXT,
            absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid TEXT, name TEXT,
            model_name TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT, extdata TEXT);
        CREATE TABLE rocpd_info_kernel_symbol (id INTEGER, guid TEXT, display_name TEXT, kernel_name TEXT);
        CREATE TABLE rocpd_kernel_dispatch (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER,
            agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER,
            start INTEGER, "end" INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER,
            workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER);
        CREATE TABLE rocpd_metadata (id INTEGER, tag TEXT, value TEXT);
    """)
    con.execute("INSERT INTO rocpd_info_process VALUES (1, 'g', 1, 1, ?, 0, 0, 'app')", (pid,))
    con.execute("INSERT INTO rocpd_info_agent VALUES (1, 'g', 1, 1, 'GPU', 2, 2, 0, NULL, 'gfx942', NULL, NULL, "
                "'AMD Instinct MI300X', NULL, '{\"cu_count\": 304, \"wave_front_size\": 64}')")
    con.execute("INSERT INTO rocpd_info_kernel_symbol VALUES (1, 'g', 'k', 'k')")
    t = start
    for i, d in enumerate(durs, start=1):
        con.execute("INSERT INTO rocpd_kernel_dispatch VALUES (?, 'g', 1, 1, 1, 1, 1, ?, 1, 1, ?, ?, 256, 1, 1, "
                    "2048, 1, 1)", (i, i, t, t + d))
        t += d + 1000
    con.commit()
    con.close()


def test_folder_of_per_process_rocpd_databases_is_one_rank_per_process(tmp_path):
    # pid 7002's file sorts first by name but pid 7001 is the lower pid: ranks follow pids
    write_rocpd(tmp_path / "z_7001_results.db", 7001, 1_000_000, [10_000, 20_000])
    write_rocpd(tmp_path / "a_7002_results.db", 7002, 1_000_000, [40_000])
    tl = collect(tmp_path)
    assert tl.ranks == [0, 1]
    k = tl.gpu_events()
    assert sorted(k[k["rank"] == 0]["dur_ns"]) == [10_000, 20_000] and list(k[k["rank"] == 1]["dur_ns"]) == [40_000]
    assert any("one rank per process" in w and "pid 7001" in w for w in tl.meta.warnings)


def test_rocprofv3_csv_sets_of_two_processes_are_two_ranks(tmp_path):
    head = '"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
    (tmp_path / "311_kernel_trace.csv").write_text(head + '"KERNEL_DISPATCH",1,1,1,"k_a",1000,3000\n')
    (tmp_path / "312_kernel_trace.csv").write_text(head + '"KERNEL_DISPATCH",1,1,1,"k_b",1000,5000\n')
    tl = collect(tmp_path)
    k = tl.gpu_events()
    assert {str(n): int(r) for n, r in k[["name", "rank"]].values} == {"k_a": 0, "k_b": 1}


def test_case_t12_two_rocpd_processes():
    p = CASES / "T12.rocpd_two_procs"
    if not p.exists():
        pytest.skip("shared case T12 not present")
    rep = gpulens.analyze([p]).sources[0]
    t = rep.results["breakdown"].table.set_index("device_id")
    # README T12: GPU 2 (pid 4242) and GPU 3 (pid 4243), 2 kernels each, busy 150,000 ns, spans 250,000 / 240,000
    assert sorted(rep.summary["ranks"]) == [0, 1]
    assert t.loc[2, "busy_ns"] == 150_000 and t.loc[2, "span_ns"] == 250_000
    assert t.loc[3, "busy_ns"] == 150_000 and t.loc[3, "span_ns"] == 240_000
    assert t.loc[2, "rank"] != t.loc[3, "rank"]
    assert rep.summary["kernel_count"] == 4 and rep.summary["kernel_time_ns"] == 300_000


def test_rocprofv3_hostname_subfolder_layout(tmp_path):
    # rocprofv3's default output: <dir>/<hostname>/<pid>_results.db
    (tmp_path / "node7").mkdir()
    write_rocpd(tmp_path / "node7" / "9001_results.db", 9001, 1_000_000, [10_000])
    write_rocpd(tmp_path / "node7" / "9002_results.db", 9002, 1_000_000, [30_000])
    tl = collect(tmp_path)
    k = tl.gpu_events()
    assert {int(r): int(d) for r, d in k[["rank", "dur_ns"]].values} == {0: 10_000, 1: 30_000}
