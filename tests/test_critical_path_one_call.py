"""A critical path held by runtime calls because of one long call (a first launch loading a code object) is a
one-off stall, not launch overhead: the finding says so and does not advise graphs or fusion for it. Expected values
are written by hand from the traces built here."""

from __future__ import annotations

import json

from gpulens.report import analyze

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _trace(path, first_call_us: int, n: int = 10, call_us: int = 5):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": T,
           "dur": first_call_us + 20 * n + 100}]
    t = T + 10
    for c in range(1, n + 1):
        dur = first_call_us if c == 1 else call_us
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                   "dur": dur, "args": {"correlation": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + dur + 1, "dur": 2,
                   "args": {"correlation": c, "device": 0, "stream": 7}})
        t += dur + 10
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def _path_finding(p):
    return next(f for f in analyze([p], cache=False).sources[0].findings() if f.key == "critical_path")


def test_one_long_launch_call_is_named_as_a_one_off(tmp_path):
    f = _path_finding(_trace(tmp_path / "one.json", first_call_us=5000))
    # by hand: the first cudaLaunchKernel lasts 5,000 µs of the ~5,045 µs of runtime calls on the path
    assert "5.00 ms of it one cudaLaunchKernel call" in f.title
    assert "one-off stall" in f.action and "fuse" not in f.action.lower()
    assert f.time_at_stake_ns is not None and f.time_at_stake_ns < 100_000  # the other calls only, not the 5 ms


def test_many_equal_launch_calls_keep_the_launch_advice(tmp_path):
    f = _path_finding(_trace(tmp_path / "many.json", first_call_us=50, n=40, call_us=50))
    assert "one-off" not in f.action and "one cudaLaunchKernel call" not in f.title
