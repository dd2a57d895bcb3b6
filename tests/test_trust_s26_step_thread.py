"""A ``ProfilerStep#N`` range recorded on a thread that runs no host event (HTA's triton example writes
``ProfilerStep#1`` on pid 3100453; its ops, launch and synchronisation run on pid 1670242) was walked on that empty
thread: the whole 13.34 s step was host idle, the 1.34 ms of CPU ops, the launch call and the synchronisation left
off the path. Such a step is walked on the rank's thread that launches the most GPU work now.

Expected values by hand from the trace built here (µs in the events, ns in the results).
"""

from __future__ import annotations

import gzip
import json

from gpulens.analyzers import run_all
from gpulens.collectors import collect
from tests.conftest import DATA


def _x(pid, tid, cat, name, ts, dur, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def test_step_on_an_empty_thread_is_walked_on_the_launching_thread(tmp_path):
    ev = [_x(9, 9, "user_annotation", "ProfilerStep#1", 1000, 200),     # the step: 1000–1200 µs, another process
          _x(1, 1, "cpu_op", "aten::mul", 1010, 40, **{"External id": 1}),
          _x(1, 1, "cuda_runtime", "cudaLaunchKernel", 1020, 10, correlation=1, **{"External id": 1}),
          _x(0, 7, "kernel", "mul_kernel", 1040, 60, device=0, stream=7, correlation=1),
          _x(1, 1, "cuda_runtime", "cudaDeviceSynchronize", 1060, 45)]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    t = run_all(collect(p))["critical_path"].table
    # walked back from 1200: idle after the sync 1105–1200 (95), the sync waits on the kernel 1100–1105 (5), the
    # kernel 1040–1100 (60), launched at 1020 (launch delay 20), the op's self time 1010–1020 (10), idle 1000–1010
    # (10): 95 + 5 + 60 + 20 + 10 + 10 = 200 µs, the step
    assert t["step_ns"].unique().tolist() == [200_000]
    assert dict(zip(t["class"], t["time_ns"])) == {"host_idle": 105_000, "sync": 5_000, "kernel": 60_000,
                                                   "launch_delay": 20_000, "cpu_op": 10_000}


def test_triton_example_path_holds_its_ops():
    path = DATA / "kineto" / "hta_a100_triton_example.json.gz"
    raw = json.load(gzip.open(path))["traceEvents"]
    step = next(e for e in raw if e.get("name") == "ProfilerStep#1")
    ops = [e for e in raw if e.get("cat") == "cpu_op"]
    assert {e["pid"] for e in ops} != {step["pid"]}  # the trace's own premise: the step is on another process
    t = run_all(collect(path))["critical_path"].table
    per = dict(zip(t["class"], t["time_ns"]))
    assert int(t["time_ns"].sum()) == int(t["step_ns"].iloc[0])
    # on the launching thread (the trace's events): "TorchDynamo Cache Lookup" 35.591 µs, "Torch-Compiled Region:
    # 0/0" 1352.964 µs holding the triton op (95.812 µs) that holds cuLaunchKernel 47.768 µs; cudaDeviceSynchronize
    # 16.846 µs. The kernel ended before the synchronisation started (no wait on it): op self time 35.591 +
    # 1352.964 − 47.768 = 1340.787 µs, the launch call 47.768 µs, the synchronisation 16.846 µs
    assert per["cpu_op"] == 1_340_787 and per["runtime"] == 47_768 and per["sync"] == 16_846
    assert per["host_idle"] == int(t["step_ns"].iloc[0]) - 1_340_787 - 47_768 - 16_846
