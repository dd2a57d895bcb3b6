"""Kernel launches recorded without a time are counted once in the kernel-groups table and in its summary.

Fuzzing (s29) found reports whose kernel_groups rows summed to more launches than the summary's ``gpu_events``
(rocmProfileData file + a rocprof v1 row without timestamps: 86 rows vs 85). A launch without a time was added to
every row of its kernel key (one per launching op) and never to the summary.
"""
from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main


def _trace(path: Path) -> Path:
    """Kernel ``k`` launched by op ``opA`` (10 µs) and by op ``opB`` (20 µs), both timed, and a third launch of ``k``
    recorded without ``dur`` (untimed). Expected by hand: 3 launches of ``k``, 2 timed GPU events + 1 untimed."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "opA", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {"External id": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
           "args": {"External id": 1, "correlation": 1}},
          {"ph": "X", "cat": "cpu_op", "name": "opB", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"External id": 2}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 11, "dur": 2,
           "args": {"External id": 2, "correlation": 2}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 21, "dur": 2,
           "args": {"correlation": 3}},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 10,
           "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 1}},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 40, "dur": 20,
           "args": {"device": 0, "stream": 7, "correlation": 2, "External id": 2}},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 70,
           "args": {"device": 0, "stream": 7, "correlation": 3}}]
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def test_untimed_launch_counted_once_in_kernel_groups(tmp_path):
    out = tmp_path / "r.json"
    assert main(["analyze", str(_trace(tmp_path / "t.json")), "--no-cache", "--json", str(out), "-q"]) == 0
    src = json.loads(out.read_text())["sources"][0]
    kg = src["analyses"]["kernel_groups"]
    rows = [r for r in kg["table"] if r["key"] == "k"]
    assert sum(r["count"] for r in rows) == 3  # 2 timed + 1 untimed launch, each once
    assert kg["summary"]["gpu_events"] == 3
    assert sum(r["untimed_launches"] or 0 for r in kg["table"]) >= 1
    assert src["summary"]["kernel_count"] == 3


_V1_COUNTERS = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
                "wave_size,sig,obj,GPUBusy,Wavefronts\n"
                '0,"vector_add(float*, float*, float*, int) [clone .kd]",4,0,0,29564,29564,1000000000,256,0,0,8,0,'
                "16,64,0x0,0x7faada620900,100.0,15625000.0\n")


def test_counter_only_input_beside_a_trace_adds_no_launch(tmp_path):
    """A rocprof v1 counter-mode CSV (no timestamps anywhere in it) read with a timed Kineto trace: its
    row is counters, not an untimed launch. By hand: the run's kernels are the trace's 2 (ka 2 µs, kb 1 µs), no
    untimed launch, every kernel_groups row on the trace's rank."""
    d = tmp_path / "run"
    d.mkdir()
    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
           "args": {"device": 0, "stream": 7, "correlation": i}}
          for i, (n, ts, dur) in enumerate([("ka", 1, 2), ("kb", 4, 1)], 1)]
    (d / "0_trace.json").write_text(json.dumps({"traceEvents": ev}))
    (d / "1_results.csv").write_text(_V1_COUNTERS)
    out = tmp_path / "r.json"
    assert main(["analyze", str(d), "--no-cache", "--json", str(out), "-q"]) in (0, 5)
    src = json.loads(out.read_text())["sources"][0]
    s = src["summary"]
    assert s["kernel_count"] == 2
    assert s["untimed_launches"] == 0
    assert s["kernel_time_ns"] == 2000 + 1000  # Kineto µs: 2 µs + 1 µs
    kg = src["analyses"]["kernel_groups"]
    assert sum(r["count"] for r in kg["table"]) == kg["summary"]["gpu_events"] == 2
    assert {r["rank"] for r in kg["table"]} <= set(s["ranks"])
