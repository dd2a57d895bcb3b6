"""A step's critical-path window reaches the end of the GPU work launched in it (Holistic Trace Analysis'
definition: the kernels whose launch call lies in the ProfilerStep range belong to the step), and a rank's windows
never overlap. With a deep launch queue the host's ProfilerStep ranges end long before their kernels run: walked
over the host range alone, TraceLens' MI300 ResNet activation-checkpoint trace said "CPU ops hold 61 % of the step"
on a GPU busy 97 % of the time.

Hand-made Kineto traces; times in µs in the events, ns in the results.
"""

from __future__ import annotations

import json

from gpulens.analyzers import run_all
from gpulens.collectors import collect


def _launch(ts, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": ts, "dur": 2,
            "args": {"correlation": corr, "External id": corr}}


def _kernel(ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": f"gemm_{corr}", "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


def _step(n, ts, dur):
    return {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 100, "tid": 100, "ts": ts,
            "dur": dur}


def _run(tmp_path, ev):
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return run_all(collect(p))["critical_path"]


def test_deep_queue_steps_end_where_their_kernels_end(tmp_path):
    # three 20 µs host steps (1000–1060 µs) launch five 30 µs kernels that run back to back from 1010 to 1160 µs:
    # step 1 launches k1 (1010–1040) and k2 (1040–1070), step 2 k3 (1070–1100) and k4 (1100–1130), step 3 k5
    # (1130–1160)
    ev = [_step(1, 1000, 20), _step(2, 1020, 20), _step(3, 1040, 20),
          _launch(1002, 1), _launch(1006, 2), _launch(1022, 3), _launch(1026, 4), _launch(1042, 5)]
    ev += [_kernel(1010 + 30 * i, 30, i + 1) for i in range(5)]
    r = _run(tmp_path, ev)
    t = r.table
    steps = dict(t.groupby("step")["step_ns"].first())
    # step 1: from its start (1000) to k2's end (1070); step 2 from there to k4's end (1130); step 3 to 1160
    assert steps == {1: 70_000, 2: 60_000, 3: 30_000}
    assert r.summary["path_ns"] == 160_000  # the traced span 1000–1160 µs, each nanosecond once
    per_step = t.groupby("step")["time_ns"].sum()
    assert (per_step == t.groupby("step")["step_ns"].first()).all()  # the classes tile each step
    kernel = t[t["class"] == "kernel"].set_index("step")["time_ns"]
    # steps 2 and 3 are their kernels alone; step 1 is 10 µs of host before k1, then k1 and k2 (60 µs)
    assert kernel.to_dict() == {1: 60_000, 2: 60_000, 3: 30_000}
    assert r.summary["bound"] == "gpu"
    assert r.summary["steps_absorbed"] == 0


def test_step_inside_the_previous_steps_window_has_no_path(tmp_path):
    # step 1 (1000–1010 µs) launches one 100 µs kernel (1005–1105); step 2 (1020–1030) launches nothing and lies
    # wholly in step 1's window (1000–1105): it has no time of its own; step 3 (1110–1120) launches a 5 µs kernel
    # at 1112–1117
    ev = [_step(1, 1000, 10), _step(2, 1020, 10), _step(3, 1110, 10),
          _launch(1002, 1), _kernel(1005, 100, 1), _launch(1111, 2), _kernel(1112, 5, 2)]
    r = _run(tmp_path, ev)
    steps = dict(r.table.groupby("step")["step_ns"].first())
    assert steps == {1: 105_000, 3: 10_000}  # step 3 keeps its host range: its kernel ends inside it
    assert r.summary["steps_absorbed"] == 1 and r.summary["windows"] == 2
    assert "1 step ran wholly within the previous step's window" in r.findings[0].detail
