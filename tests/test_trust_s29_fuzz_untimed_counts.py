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
