"""One definition of a GPU wait's cause in the critical path and the idle breakdown (session 10, "trust"): on
GPU-only traces (no launch calls) the path called the gaps between kernels "cross-stream waits" while the idle
breakdown, on the same gaps, said "no cause the trace shows". Without the launch call nothing shows what a GPU
event waited for: both now say so (``unattributed``).

Hand-made Kineto JSON (µs); the expected figures are worked out in the comments."""

from __future__ import annotations

import json

import gpulens
from tests.conftest import shared_trace


def _kernel(name, stream, ts, dur, corr=None):
    args = {"device": 0, "stream": stream}
    if corr is not None:
        args["correlation"] = corr
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur, "args": args}


def test_gpu_only_waits_are_unattributed_in_the_path_and_the_idle_breakdown(tmp_path):
    # k1 stream 7 [0, 100], k2 stream 8 [150, 250], k3 stream 7 [300, 400]; no host events. Walk back from k3: its
    # stream predecessor k1 ends at 100, k2 (other stream) at 250 → wait [250, 300]; k2 ← k1 (ends 100): wait
    # [100, 150]. kernels 3 × 100 = 300 µs; waits 50 + 50 = 100 µs — the GPU's two idle gaps, which the breakdown
    # also finds with no launch call to explain them
    ev = [_kernel("k1", 7, 0, 100), _kernel("k2", 8, 150, 100), _kernel("k3", 7, 300, 100)]
    p = tmp_path / "gpu_only.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    src = gpulens.analyze([p]).sources[0]
    cp, bn = src.results["critical_path"], src.results["bottlenecks"]
    assert cp.summary["class_ns"] == {"kernel": 300_000, "unattributed": 100_000}
    assert bn.summary["idle_unattributed_ns"] == 100_000 == cp.summary["class_ns"]["unattributed"]
    # 300 of 400 µs on kernels: GPU-bound; the waits are named as unexplained, not as cross-stream dependencies
    assert cp.summary["bound"] == "gpu" and "cross-stream" not in cp.findings[0].detail
    assert "25.0 % GPU waits with no cause the trace shows" in cp.findings[0].detail


def test_a_linked_cross_stream_wait_stays_a_dependency(tmp_path):
    # the same GPU events, each launched (cudaLaunchKernel at 0, 1, 2 µs: long before): k3 was queued and waited for
    # k2 on the other stream — a recorded dependency (gpu_gap), as the breakdown's "work already queued"
    ev = [_kernel("k1", 7, 0, 100, 1), _kernel("k2", 8, 150, 100, 2), _kernel("k3", 7, 300, 100, 3)]
    ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": -10 + i,
            "dur": 1, "args": {"correlation": i + 1}} for i in range(3)]
    p = tmp_path / "linked.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    src = gpulens.analyze([p]).sources[0]
    ns = src.results["critical_path"].summary["class_ns"]
    assert ns.get("gpu_gap") == 100_000 and "unattributed" not in ns
    assert src.results["bottlenecks"].summary["idle_queued_ns"] == 100_000


def test_mostly_unexplained_path_has_an_unknown_bound():
    # rocprofv3's documented example output: kernels and copies only, GPU idle 63 % of its span with no launch call
    src = gpulens.analyze([shared_trace("rocprof/v3_csv_sdk_docs")]).sources[0]
    cp, bn = src.results["critical_path"], src.results["bottlenecks"]
    assert cp.summary["bound"] == "unknown" and "gpu_gap" not in cp.summary["class_ns"]
    assert bn.summary["idle_unattributed_ns"] > 0 and cp.summary["top_class"] == "unattributed"
