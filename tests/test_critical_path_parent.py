"""A critical path held by start-up host time (a 50 ms cudaMalloc before the first kernel) details the finding on
host-only time outside the GPU span, not GPU idle inside it: that idle is 60 µs, the path's host time 50 ms."""

from __future__ import annotations

import json

import gpulens

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _trace(path, setup_us: int):
    """``setup_us`` of cudaMalloc, then 4 launches 120 µs apart, each kernel 100 µs starting 10 µs after its call."""
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 1, "tid": 1, "ts": T, "dur": setup_us,
           "args": {"correlation": 1}}]
    t = T + setup_us + 10
    for i in range(4):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                   "dur": 5, "args": {"correlation": 10 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 10, "dur": 100,
                   "args": {"device": 0, "stream": 7, "correlation": 10 + i}})
        t += 120
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def _findings(path):
    return {f.key: f for f in gpulens.analyze([path]).sources[0].findings()}


def test_start_up_path_details_host_only_time(tmp_path):
    f = _findings(_trace(tmp_path / "t.json", 50_000))
    # by hand: window T → last kernel end (T + 50,010 + 360 + 10 + 100 µs); GPU span from T + 50,020 µs: the
    # 50,020 µs before it is host-only; GPU idle inside the span: 3 gaps × 20 µs = 60 µs
    host, cp = f["window/host-only"], f["critical_path"]
    assert host.time_at_stake_ns == 50_020_000 and f["idle"].time_at_stake_ns == 60_000
    assert cp.parent == "window/host-only"
    assert 50_000_000 <= cp.time_at_stake_ns <= host.time_at_stake_ns


def test_launch_overhead_without_short_launches_is_not_said_as_zero_of_n(tmp_path):
    # the same 4 launches: each kernel (100 µs) longer than its 5 µs call, so none is a short launch; the 20 µs gaps
    # between kernels are the host's next launch reaching the GPU
    f = _findings(_trace(tmp_path / "t.json", 50_000))["idle/launch"]
    assert "0 of 4" not in f.detail and "every kernel did more work than its launch call cost" in f.detail
