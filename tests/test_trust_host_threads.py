"""The critical path reads every host thread that launches GPU work (session 10, "trust"): PyTorch runs the backward
pass on the autograd engine's thread while the main thread waits in ``backward()`` with no event, so a walk of the
main thread alone read HTA's sampled rank-0 trace as "host idle gaps hold 55 % of the step time" — time in which
the autograd thread ran 0.6 s of backward ops and launches.

The traces below are hand-made (Kineto JSON, µs); each expected figure is worked out in the comments."""

from __future__ import annotations

import json

import gpulens
from tests.conftest import shared_trace


def _write(tmp_path, name, ev):
    p = tmp_path / name
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def _op(name, tid, ts, dur, cat="cpu_op", **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": args}


def _kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


def _class_ns(path):
    cp = gpulens.analyze([path]).sources[0].results["critical_path"]
    return cp, cp.summary["class_ns"]


def test_the_autograd_threads_ops_are_host_work_not_host_idle(tmp_path):
    # step [0, 1000] on the main thread (tid 1): aten::linear [0, 100] launches k1 (cudaLaunchKernel [10, 20]), then
    # nothing until aten::zero_ [900, 1000]. The autograd thread (tid 2) runs MmBackward0 [150, 850], which launches
    # k2 (cudaLaunchKernel [800, 810]). No blocking call: the path is host time from 0 to 1000 —
    #   cpu_op: [0, 10] + [20, 100] + [150, 800] + [810, 850] + [900, 1000] = 10 + 80 + 650 + 40 + 100 = 880
    #   runtime: [10, 20] + [800, 810] = 20;   host_idle (no launching thread runs): [100, 150] + [850, 900] = 100
    # (the main thread alone: host_idle [100, 900] = 800, cpu_op 190, runtime 10)
    ev = [_op("ProfilerStep#1", 1, 0, 1000, cat="user_annotation"),
          _op("aten::linear", 1, 0, 100), _op("cudaLaunchKernel", 1, 10, 10, cat="cuda_runtime", correlation=1),
          _kernel("k1", 30, 100, 1),
          _op("autograd::engine::evaluate_function: MmBackward0", 2, 150, 700),
          _op("cudaLaunchKernel", 2, 800, 10, cat="cuda_runtime", correlation=2), _kernel("k2", 820, 80, 2),
          _op("aten::zero_", 1, 900, 100)]
    cp, ns = _class_ns(_write(tmp_path, "bwd.json", ev))
    assert ns == {"cpu_op": 880_000, "runtime": 20_000, "host_idle": 100_000}
    # host idle while the GPU ran: [100, 130] (k1) + [850, 900] (k2) = 80 µs
    assert cp.summary["host_wait_gpu_busy_ns"] == 80_000
    # s39: led by the host share the headline gives — (880 + 20 + 100 − 80) / 1000 = 92 % —, CPU ops its largest part
    assert cp.findings[0].title.startswith("Critical path: host work holds 92.0 % of the step time (920.00 µs of "
                                           "1.00 ms")
    assert cp.findings[0].title.endswith("CPU ops hold 88.0 % of the step time (880.00 µs), the largest part")


def test_a_blocking_call_on_the_autograd_thread_is_followed_to_the_gpu(tmp_path):
    # main: aten::linear [0, 100] launches k1 [30, 600] (cudaLaunchKernel [10, 20]); aten::zero_ [700, 1000].
    # autograd thread: MmBackward0 [150, 700] holding cudaStreamSynchronize [200, 610], which waits for k1, and
    # cudaLaunchKernel [660, 665] (k2 [670, 680]). Walk back from 1000: host [610, 1000] = MmBackward0 [610, 660] +
    # [665, 700] and aten::zero_ [700, 1000] (cpu_op 50 + 35 + 300), the launch [660, 665] (runtime 5); the sync ends
    # at 610 → k1, which ended at 600 (sync 10); k1 [30, 600] (kernel 570); its launch at 10 (launch_delay [10, 30] =
    # 20); host [0, 10] aten::linear (cpu_op 10). Sum: 395 + 5 + 10 + 570 + 20 = 1000
    ev = [_op("ProfilerStep#1", 1, 0, 1000, cat="user_annotation"),
          _op("aten::linear", 1, 0, 100), _op("cudaLaunchKernel", 1, 10, 10, cat="cuda_runtime", correlation=1),
          _kernel("k1", 30, 570, 1),
          _op("autograd::engine::evaluate_function: MmBackward0", 2, 150, 550),
          _op("cudaStreamSynchronize", 2, 200, 410, cat="cuda_runtime"),
          _op("cudaLaunchKernel", 2, 660, 5, cat="cuda_runtime", correlation=2), _kernel("k2", 670, 10, 2),
          _op("aten::zero_", 1, 700, 300)]
    cp, ns = _class_ns(_write(tmp_path, "sync.json", ev))
    assert ns == {"cpu_op": 395_000, "runtime": 5_000, "sync": 10_000, "kernel": 570_000, "launch_delay": 20_000}
    assert cp.summary["bound"] == "gpu"


def test_hta_sampled_rank0_backward_is_host_work():
    # rank 0 of HTA's sampled trace: the main thread (tid 4037) has no event in [1008.3, 1252.9] ms from the trace's
    # start while the autograd thread (tid 23695) runs MeanBackward0 … from 1009.8 ms: at least 200 ms of it is
    # host work, so host idle falls below the 672 ms (55 %) the main thread alone gave and CPU ops lead
    cp = gpulens.analyze([shared_trace("kineto/multirank_hta_trace_filter/sampled_rank-0.json.gz")]
                         ).sources[0].results["critical_path"]
    ns = cp.summary["class_ns"]
    assert ns["host_idle"] < 672_227_000 - 50_000_000 and ns["cpu_op"] > ns["host_idle"]
    assert cp.summary["top_class"] == "cpu_op"


def test_another_process_is_not_this_ones_host_work(tmp_path):
    # the first trace with the backward thread moved to another process (pid 2): its ops do not feed this process's
    # launches, so the main thread's silence [100, 900] stays host idle: 800 µs (cpu_op [0,10]+[20,100]+[900,1000]
    # = 190, runtime [10, 20] = 10)
    ev = [_op("ProfilerStep#1", 1, 0, 1000, cat="user_annotation"),
          _op("aten::linear", 1, 0, 100), _op("cudaLaunchKernel", 1, 10, 10, cat="cuda_runtime", correlation=1),
          _kernel("k1", 30, 100, 1),
          {**_op("autograd::engine::evaluate_function: MmBackward0", 2, 150, 700), "pid": 2},
          {**_op("cudaLaunchKernel", 2, 800, 10, cat="cuda_runtime", correlation=2), "pid": 2},
          _kernel("k2", 820, 80, 2), _op("aten::zero_", 1, 900, 100)]
    _, ns = _class_ns(_write(tmp_path, "two_procs.json", ev))
    assert ns == {"cpu_op": 190_000, "runtime": 10_000, "host_idle": 800_000}
