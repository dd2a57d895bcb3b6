"""A framework op that calls itself (``aten::sum`` → ``aten::sum``) is one piece of host work: the CPU operators
table and the operator roll-up count its time once, say how many calls were nested, and take the mean over the
outer calls — so calls × mean is the time shown. Expected values are written by hand from the trace built here."""

from __future__ import annotations

import json

from gpulens.report import analyze

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _trace(path):
    ev = []
    for n, t0 in enumerate((T, T + 1000)):  # two outer aten::sum of 100 µs, each holding an inner one of 50 µs
        ev += [{"ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 1, "tid": 1, "ts": t0, "dur": 100,
                "args": {"External id": 10 + 2 * n}},
               {"ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 1, "tid": 1, "ts": t0 + 10, "dur": 50,
                "args": {"External id": 11 + 2 * n}},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t0 + 20,
                "dur": 5, "args": {"External id": 11 + 2 * n, "correlation": 100 + n}},
               {"ph": "X", "cat": "kernel", "name": "reduce_kernel", "pid": 0, "tid": 7, "ts": t0 + 30, "dur": 40,
                "args": {"External id": 11 + 2 * n, "correlation": 100 + n, "device": 0, "stream": 7}}]
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def test_a_call_nested_in_a_call_of_its_own_name_is_counted_once(tmp_path):
    res = analyze([_trace(tmp_path / "t.json")], cache=False).sources[0].results
    row = res["cpu_ops"].table.set_index("name").loc["aten::sum"]
    # by hand: 4 calls, 2 of them inside another aten::sum; 2 × 100 µs of host time; mean of the 2 outer calls
    assert (row["calls"], row["nested_calls"], row["total_ns"]) == (4, 2, 200_000)
    assert row["mean_ns"] == 100_000
    roll = res["op_rollup"].table
    r = roll[roll["op"] == "aten::sum"]
    # the roll-up's host time is the same 200 µs (not 300 µs: the inner calls are inside the outer ones), and its
    # GPU time the two 40 µs kernels once each
    assert int(r["host_time_ns"].sum()) == 200_000
    assert int(r["self_gpu_time_ns"].sum()) == 80_000 and int(r["gpu_time_ns"].sum()) == 80_000
