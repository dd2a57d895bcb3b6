"""Ninth session (probes beside tests/fuzz_s9.py): GPU events that all last 0 ns.

A trace whose every kernel, copy and fill has ``dur 0`` (Kineto's never-recorded placeholder on every event, or
durations below the clock's resolution: ``dur 0.0003`` µs rounds to 0 ns) spans no GPU time. It used to be reported
as "GPU span 0 ns, busy 0.0 %", "2 kernels cover 0 % of kernel time" and a **gpu-bound** verdict — 0 / 0 shown as
figures. Busy %, span, idle and kernel times are now unknown with the reason, the kernels ranked by calls, and no
verdict is drawn from them. A trace with 1 ns kernels (the clock's resolution) keeps its figures.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.reports import console


def _trace(tmp_path, kernels):
    evs = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7}} for n, ts, dur in kernels]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    return gpulens.analyze([p]).sources[0]


@pytest.mark.parametrize("kernels", [
    [("k1", 0, 0), ("k2", 0, 0)],                              # every timestamp a placeholder
    [("k1", 1000.0004, 0.0003), ("k2", 1000.0005, 0.0001)],    # 0.3 ns and 0.1 ns: 0 ns at ns resolution
    [("k1", 1000, 0), ("k2", 1005, 0)],                        # zero-length kernels at two instants
], ids=["placeholders", "sub_ns", "two_instants"])
def test_gpu_events_of_zero_length_have_unknown_time_figures(tmp_path, kernels):
    src = _trace(tmp_path, kernels)
    sm = src.summary
    assert sm["kernel_count"] == 2
    for k in ("span_ns", "gpu_busy_ns", "gpu_busy_pct", "kernel_time_ns", "idle_ns", "gpu_utilization_pct"):
        assert sm[k] is None, k
    assert "every kernel lasts 0 ns" in sm["busy_unknown_reason"]
    assert sm["verdict"] not in ("gpu-bound", "host-bound")
    text = console.render(gpulens.report.Report([src]))
    assert "busy 0.0 %" not in text and "cover 0 % of kernel time" not in text


def test_one_ns_kernels_keep_their_figures(tmp_path):
    # k1 [1000.000, 1000.001] µs and k2 [1000.002, 1000.003] µs: 1 ns each, span 3 ns, busy 2 ns = 66.7 %
    src = _trace(tmp_path, [("k1", 1000.000, 0.001), ("k2", 1000.002, 0.001)])
    sm = src.summary
    assert sm["busy_unknown_reason"] is None
    assert sm["kernel_time_ns"] == 2 and sm["gpu_busy_ns"] == 2 and sm["span_ns"] == 3
    assert sm["gpu_busy_pct"] == pytest.approx(200 / 3)


def test_zero_length_kernels_beside_timed_copies_have_unknown_kernel_figures(tmp_path):
    # k_gemm and ncclKernel_AllReduce last 0 ns; a 2 µs HtoD copy is timed. Busy = 2 µs of copies alone would make
    # a 0-ns GEMM and a 0-ns collective look like idle GPU; "the kernel verdict holding the most kernel time" out of
    # 0 ns + 0 ns was the first class listed (communication-bound). Kernel figures are unknown, no verdict is drawn.
    evs = [{"ph": "X", "cat": "kernel", "name": "k_gemm", "pid": 0, "tid": 7, "ts": 1000, "dur": 0,
            "args": {"device": 0, "stream": 7}},
           {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 9,
            "ts": 1003, "dur": 0, "args": {"device": 0, "stream": 9}},
           {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 8,
            "ts": 1001, "dur": 2, "args": {"device": 0, "stream": 8, "bytes": 4096}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    src = gpulens.analyze([p]).sources[0]
    sm = src.summary
    assert sm["kernel_count"] == 2 and sm["memcpy_count"] == 1 and sm["memcpy_bytes"] == 4096
    assert sm["kernel_time_ns"] is None and sm["gpu_busy_pct"] is None and sm["span_ns"] is None
    assert "every kernel lasts 0 ns" in sm["busy_unknown_reason"]
    vd = src.results["verdicts"].summary
    assert vd["run_verdict"] == "undetermined" and "cannot be weighed" in vd["basis"]
