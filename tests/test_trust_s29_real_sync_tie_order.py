"""The critical path names the same blocking call whatever the order of the trace's events.

Kineto writes a ``cudaStreamSynchronize`` runtime call on the host thread and a ``cuda_sync`` "Stream Sync" record
of the same wait on the stream's track (pid 0, tid 7), both ending at the same microsecond (HTA's AlexNet A100
trace: 943621 + 11 µs and 943623 + 9 µs). Which of the two the walk took as "the blocking call" followed the rows'
order in the file: test_event_order's shuffled copy of that trace named "Stream Sync" where the original named
"cudaStreamSynchronize". Ties are broken by the calls themselves: the enclosing (earlier-starting) call.

Hand-made Kineto trace, written in both orders; times in µs in the events.
"""

from __future__ import annotations

import json

import pytest

from gpulens.analyzers import run_all
from gpulens.collectors import collect

EVENTS = [
    {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
     "args": {"correlation": 1, "External id": 1}},
    {"ph": "X", "cat": "kernel", "name": "reduce", "pid": 0, "tid": 7, "ts": 5, "dur": 50,
     "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 1}},
    # the host waits 10–60 µs for the kernel (ends 55); the stream's record of the same wait: 12–60 µs
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 10, "dur": 50,
     "args": {"correlation": 2, "External id": 2}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 12, "dur": 48,
     "args": {"correlation": 2, "External id": 2, "cuda_sync_kind": "Stream Sync", "stream": 7, "device": 0}},
]


def _sync_events(tmp_path, events, name):
    p = tmp_path / name
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    t = run_all(collect(p, cache=False))["critical_path"].table
    return t[t["class"] == "sync"][["time_ns", "top_event"]].to_dict("records")


@pytest.mark.parametrize("order", ["as written", "reversed"])
def test_the_sync_segment_names_the_enclosing_call(tmp_path, order):
    ev = EVENTS if order == "as written" else EVENTS[::-1]
    rows = _sync_events(tmp_path, ev, "t.pt.trace.json")
    # the wait after the kernel's end (55 µs) until the call returns (60 µs), named by the call
    assert rows == [{"time_ns": 5_000, "top_event": "cudaStreamSynchronize"}]
