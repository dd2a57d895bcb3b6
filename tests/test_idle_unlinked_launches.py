"""Idle gaps that no launch call explains, in a trace that does record launch calls: the advice is to record the
threads/processes the trace missed, never "record the host side too" (it was recorded). Seen on
jimw567/rocprof-unified-viewer's rocprofv3 decode_* folder (HIP API trace kept every 20th call): 106.24 ms "with no
cause the trace shows … record the host side too (rocprofv3 --runtime-trace …)" beside a HIP API trace."""

from __future__ import annotations

import json

import pandas as pd

import gpulens


def _trace(path, with_calls: bool) -> None:
    # 6 rounds: a launch call (5 µs) → its kernel 8 µs later (50 µs) → 400 µs idle → a kernel whose launch call is
    # not in the trace (50 µs) → 18 µs → the next round. Unattributed idle = 6 × 400 µs; launch-overhead idle
    # = 5 × 18 µs (the gaps before a linked kernel, the first round's excepted).
    ev, t = [], 0
    for i in range(6):
        if with_calls:
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                       "dur": 5, "args": {"correlation": 100 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "linked_k", "pid": 0, "tid": 7, "ts": t + 8, "dur": 50,
                   "args": {"device": 0, "stream": 7, "correlation": 100 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "orphan_k", "pid": 0, "tid": 7, "ts": t + 458, "dur": 50,
                   "args": {"device": 0, "stream": 7, "correlation": 900 + i}})
        t += 518
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))


def test_unexplained_gaps_with_launch_calls_recorded(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _trace(p, with_calls=True)
    s = gpulens.analyze([p]).sources[0]
    bn = s.results["bottlenecks"].summary
    assert (bn["launch_calls"], bn["idle_unattributed_ns"], bn["idle_launch_ns"]) == (6, 6 * 400_000, 5 * 18_000)
    f = {x.key: x for x in s.findings()}
    texts = f["idle"].action + " " + f["idle/unattributed"].detail
    assert "their launch calls are missing although the trace links 6 other launches" in f["idle"].action
    assert "made by a thread or process it did not record" in f["idle/unattributed"].detail
    assert "record the host side too" not in texts.lower() and "GPU-only trace" not in texts


def test_unexplained_gaps_of_a_gpu_only_trace_still_ask_for_the_host_side(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _trace(p, with_calls=False)
    s = gpulens.analyze([p]).sources[0]
    assert s.results["bottlenecks"].summary["launch_calls"] == 0
    f = {x.key: x for x in s.findings()}
    assert "record the host side too" in f["idle/unattributed"].detail.lower()
    assert "GPU-only trace" in f["idle/unattributed"].detail


def _rocprof_v1_trace(path, calls: int) -> None:
    # rocprof v1 ``--hip-trace`` JSON (results.json: "CPU HIP API" and "GPU0" processes, times as strings, no
    # correlation id anywhere), as dalg24/kokkos's Kokkos HIP run: 6 kernels of 50 µs, 400 µs apart, each after a
    # hipLaunchKernel of 5 µs on the host when ``calls``. Unattributed idle = 5 × 400 µs (nothing links a call to
    # its kernel).
    ev = [{}, {"args": {"name": "CPU HIP API"}, "ph": "M", "pid": 2, "name": "process_name", "sort_index": 0},
          {"args": {"name": "GPU0"}, "ph": "M", "pid": 6, "name": "process_name", "sort_index": 1}]
    t0 = 84118793000000
    for i in range(6):
        b = t0 + i * 450_000
        if calls:
            ev.append({"ph": "X", "name": "hipLaunchKernel", "pid": "2", "tid": "216796", "ts": str(b // 1000 - 8),
                       "dur": "5", "args": {"BeginNs": str(b - 8000), "EndNs": str(b - 3000), "pid": "2",
                                            "tid": "216796", "Name": "hipLaunchKernel",
                                            "args": "( kernel(k) stream(1))", "Data": "", "DurationNs": "5000"}})
        ev.append({"ph": "X", "name": "k", "pid": "6", "tid": "1", "ts": str(b // 1000), "dur": "50",
                   "args": {"BeginNs": str(b), "EndNs": str(b + 50_000), "dev-id": "0", "queue-id": "0", "Name": "k",
                            "pid": "6", "tid": "1", "proc-id": "216796", "Data": "", "DurationNs": "50000"}})
    path.write_text(json.dumps({"traceEvents": ev}))


def test_unexplained_gaps_with_launch_calls_but_no_correlation_ids(tmp_path):
    """The host side was recorded (rocprof --hip-trace) but the format carries no correlation ids: the advice is a
    profiler that writes them, not "record the host side too" with the tool that was used — dalg24/kokkos
    results.json (Kokkos on HIP): "11.35 ms with no cause the trace shows … record the host side too (rocprof
    --hip-trace, …)" beside 104 HIP API calls."""
    p = tmp_path / "results.json"
    _rocprof_v1_trace(p, calls=True)
    s = gpulens.analyze([p]).sources[0]
    bn = s.results["bottlenecks"].summary
    assert (bn["launch_calls"], bn["launch_calls_recorded"], bn["idle_unattributed_ns"]) == (0, 6, 5 * 400_000)
    f = {x.key: x for x in s.findings()}
    texts = f["idle"].action + " " + f["idle/unattributed"].detail
    assert "records 6 launch calls but no correlation id ties any of them" in f["idle/unattributed"].detail
    assert "records 6 launch calls" in f["idle"].action
    assert "record the host side too" not in texts.lower() and "GPU-only trace" not in texts
    cp = f["critical_path"].action
    assert "records 6 launch calls" in cp and "GPU-only trace" not in cp and "record the host side" not in cp


def test_rocprof_v1_gpu_only_trace_still_asks_for_the_host_side(tmp_path):
    p = tmp_path / "results.json"
    _rocprof_v1_trace(p, calls=False)
    s = gpulens.analyze([p]).sources[0]
    assert s.results["bottlenecks"].summary["launch_calls_recorded"] == 0
    f = {x.key: x for x in s.findings()}
    assert "record the host side too" in f["idle/unattributed"].detail.lower()


def test_launch_calls_without_correlation_ids_have_unknown_gpu_work(tmp_path):
    """A call with no correlation id cannot be checked against the GPU work: dalg24/kokkos results.json showed
    "hipLaunchKernel 8 calls, 0 GPU events, 8 calls without GPU work" for 8 calls that launched the 8 kernels."""
    p = tmp_path / "results.json"
    _rocprof_v1_trace(p, calls=True)
    r = gpulens.analyze([p]).sources[0].results["launches"]
    assert r.summary["launch_calls"] == 6 and r.summary["launch_calls_without_gpu_work"] is None
    row = r.table.set_index("launch_name").loc["hipLaunchKernel"]
    assert row["calls"] == 6 and row["gpu_events"] is pd.NA and row["calls_without_gpu_work"] is pd.NA
    # with correlation ids the figures stay counts: the Kineto trace's 6 calls each launch 1 kernel
    q = tmp_path / "t.pt.trace.json"
    _trace(q, with_calls=True)
    r = gpulens.analyze([q]).sources[0].results["launches"]
    row = r.table.set_index("launch_name").loc["cudaLaunchKernel"]
    assert (row["gpu_events"], row["calls_without_gpu_work"], r.summary["launch_calls_without_gpu_work"]) == (6, 0, 0)
