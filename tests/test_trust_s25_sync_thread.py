"""Kineto ``cuda_sync`` records sit on the host thread of the runtime call they record, not on a phantom thread.

Kind: Kineto writes CUPTI's synchronization records on the GPU's process with the stream as the thread id
(``pid`` 0, ``tid`` 7). Read as written, the HTML timeline drew a lane "CPU thread 7" that never existed and the
blocking-call table could not name the op that waited. The record's correlation id names the runtime call
(``cudaStreamSynchronize``) on the real thread — the expected thread below is that call's, read off the trace.
"""

from __future__ import annotations

import json

import gpulens
from gpulens.collectors import collect

HOST_PID, HOST_TID = 4242, 4243


def _trace(tmp_path):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": HOST_PID, "tid": HOST_TID, "ts": 95,
           "dur": 60, "args": {"External id": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": HOST_PID, "tid": HOST_TID,
           "ts": 96, "dur": 3, "args": {"correlation": 1, "External id": 1}},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100, "dur": 40,
           "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": HOST_PID, "tid": HOST_TID,
           "ts": 100, "dur": 45, "args": {"correlation": 2, "External id": 1}},
          # CUPTI's record of that call, as Kineto writes it: GPU process, stream as the thread
          {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 101, "dur": 43,
           "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 2, "device": 0}},
          # a record whose call was not captured keeps what it was written with
          {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": -1, "ts": 150, "dur": 5,
           "args": {"cuda_sync_kind": "Context Sync", "correlation": 99, "device": 0}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": HOST_PID, "tid": HOST_TID,
           "ts": 160, "dur": 3, "args": {"correlation": 3}},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 165, "dur": 40,
           "args": {"device": 0, "stream": 7, "correlation": 3}}]
    p = tmp_path / "sync.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_sync_record_takes_the_thread_of_its_runtime_call(tmp_path):
    ev = collect(_trace(tmp_path)).events
    sync = ev[ev["kind"] == "sync"].set_index("name")
    assert (int(sync.loc["Stream Sync", "pid"]), int(sync.loc["Stream Sync", "tid"])) == (HOST_PID, HOST_TID)
    assert (int(sync.loc["Context Sync", "pid"]), int(sync.loc["Context Sync", "tid"])) == (0, -1)


def test_timeline_has_no_phantom_cpu_thread(tmp_path):
    src = gpulens.analyze([_trace(tmp_path)]).sources[0]
    st = src.results["stream_timeline"].table
    host = st[st["device_id"] < 0]
    # lanes: the host thread that ran the ops and calls, and the unmatched record's own (tid -1: not recorded);
    # never a thread "7"
    assert set(host["thread_id"].astype(int)) == {HOST_TID, -1}


def test_one_wait_is_one_blocking_call(tmp_path):
    # the Stream Sync record and its cudaStreamSynchronize are one wait: listed once, under the API's name, with
    # the op it ran in (aten::copy_, 95–155 µs, holds the call at 100–145 µs); the unmatched Context Sync stays
    calls = gpulens.analyze([_trace(tmp_path)]).sources[0].results["bottlenecks"].summary["blocking_calls"]
    assert sorted(c["name"] for c in calls) == ["Context Sync", "cudaStreamSynchronize"]
    assert next(c for c in calls if c["name"] == "cudaStreamSynchronize")["op"] == "aten::copy_"
