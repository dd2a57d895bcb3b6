"""The critical path never blames the host for time it spent waiting on a busy GPU (session 6, "trust"): HTA's
V100 trace read "host idle gaps hold 67 % of the step time — look for data loading" and "CPU-bound" in a run 98 %
GPU-busy with a 1,023-deep launch queue (the main thread waits on the autograd thread, which the trace does not
link). Host waits (idle, runtime calls) during which the rank's GPU is busy count as GPU-bound time.

The trace below is hand-made (Kineto JSON, µs); expected values are worked out in the comments."""

from __future__ import annotations

import json

import gpulens
from tests.conftest import shared_trace


def _trace(tmp_path, kernel_us):
    # one step [0, 1100] on thread 1: aten::mm [0, 50] launching (cudaLaunchKernel [10, 20]) a kernel [25, 25 + k];
    # then nothing on the host until the step ends
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1100},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 10,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 25, "dur": kernel_us,
           "args": {"device": 0, "stream": 7, "correlation": 1}}]
    p = tmp_path / f"t{kernel_us}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_host_idle_while_the_gpu_works_is_gpu_bound_time(tmp_path):
    # kernel [25, 1025]: the host's idle [50, 1100] overlaps it for [50, 1025] = 975 µs (93 % of the 1,050 µs
    # idle); the launch call [10, 20] ran while the GPU was idle (0 µs). 975 / 1100 ≥ 0.5: the path is GPU-bound
    cp = gpulens.analyze([_trace(tmp_path, 1000)]).sources[0].results["critical_path"]
    assert cp.summary["host_wait_gpu_busy_ns"] == 975_000
    assert cp.summary["bound"] == "gpu"
    f = cp.findings[0]
    assert "GPU busy during 93 % of them" in f.title and "GPU-bound" in f.action
    assert f.time_at_stake_ns is None  # the GPU time is the kernels' to rank, not host time to cut


def test_host_idle_while_the_gpu_is_idle_stays_host_time(tmp_path):
    # kernel [25, 125]: the idle [50, 1100] overlaps it for only 75 µs (7 %): the host really is what holds the step
    cp = gpulens.analyze([_trace(tmp_path, 100)]).sources[0].results["critical_path"]
    assert cp.summary["host_wait_gpu_busy_ns"] == 75_000
    assert cp.summary["bound"] == "cpu" and "GPU busy during" not in cp.findings[0].title


def test_v100_critical_path_agrees_with_the_gpu_bound_verdict():
    src = gpulens.analyze([shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")]).sources[0]
    assert src.results["verdicts"].summary["run_verdict"] == "gpu-bound"
    assert src.results["critical_path"].summary["bound"] == "gpu"
