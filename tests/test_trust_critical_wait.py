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
    # kernel [25, 1025]: the host's idle [50, 1100] overlaps it for [50, 1025] = 975 µs (92.9 % of the 1,050 µs
    # idle); the launch call [10, 20] ran while the GPU was idle (0 µs). 975 / 1100 ≥ 0.5: the path is GPU-bound
    cp = gpulens.analyze([_trace(tmp_path, 1000)]).sources[0].results["critical_path"]
    assert cp.summary["host_wait_gpu_busy_ns"] == 975_000
    assert cp.summary["bound"] == "gpu"
    f = cp.findings[0]
    assert "GPU busy during 92.9 % of them" in f.title and "GPU-bound" in f.action
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


def _sync_trace(tmp_path, block_us):
    # kernels k0 [0, 100], k1 [100 + g, 200 + g] with a synchronous hipMemcpy on the host covering the gap
    # [100, 100 + g]: the host is blocked while the GPU runs nothing; k1 is launched after the call returns
    g = block_us
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": -20, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "k0", "pid": 0, "tid": 7, "ts": 0, "dur": 100,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 1, "tid": 1, "ts": 95, "dur": g + 3},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 98 + g, "dur": 1,
           "args": {"correlation": 2}},
          {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100 + g, "dur": 100,
           "args": {"device": 0, "stream": 7, "correlation": 2}}]
    p = tmp_path / f"s{block_us}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_a_blocking_call_holding_an_idle_gpu_for_milliseconds_says_its_cause_is_not_in_the_trace(tmp_path):
    # the copy blocks the host for [95, 5098] µs while the GPU is idle [100, 5100]: ≥ 1 ms of GPU-idle time inside
    # one call is no queue draining (that leaves µs) — what it waited for is not in the trace
    src = gpulens.analyze([_sync_trace(tmp_path, 5000)]).sources[0]
    idle = next(f for f in src.findings() if f.key == "idle")
    assert src.results["bottlenecks"].summary["idle_sync_ns"] >= 4_990_000
    assert "while the GPU ran nothing" in idle.action and "does not show" in idle.action


def test_a_short_blocking_call_keeps_the_remove_the_sync_advice(tmp_path):
    # 50 µs blocked (< 1 ms): an ordinary synchronisation to remove or defer
    # (idle [100, 150] inside the call [95, 148]: 48 µs of sync idle, the rest launch overhead)
    src = gpulens.analyze([_sync_trace(tmp_path, 50)]).sources[0]
    assert src.results["bottlenecks"].summary["idle_sync_ns"] == 48_000
    idle = next(f for f in src.findings() if f.key == "idle")
    assert "mostly in cudaMemcpy (48.00 µs): remove synchronisations" in idle.action
    assert "ran nothing" not in idle.action


def test_another_ranks_busy_gpu_does_not_excuse_a_ranks_idle_host(tmp_path):
    # rank 0: the 100 µs kernel (its host idle [50, 1100] overlaps its own GPU for 75 µs); rank 1: the 1,000 µs kernel
    # (975 µs). Each rank's waits are measured against its own GPU only: 75 + 975 = 1,050 µs in all
    d = tmp_path / "ranks"
    d.mkdir()
    for rank, k in ((0, 100), (1, 1000)):
        p = _trace(tmp_path, k)
        doc = json.loads(p.read_text())
        doc["distributedInfo"] = {"rank": rank, "world_size": 2}
        for e in doc["traceEvents"]:
            e["pid"] = e["pid"] + 10 * rank if e["cat"] != "kernel" else e["pid"]
        (d / f"rank{rank}.json").write_text(json.dumps(doc))
    cp = gpulens.analyze([d]).sources[0].results["critical_path"]
    assert cp.summary["windows"] == 2
    assert cp.summary["host_wait_gpu_busy_ns"] == 75_000 + 975_000
