"""Host-only time outside the GPU span when one host event lies on another clock (a timestamp days away): the
profiled window leaves the clock-domain gap out (51 µs here), but the host-only part before the GPU work was
measured across it — "Host-only time outside the GPU span: 1600000000.00 s (3137254901960792.0 % of the profiled
window)" (fuzzer; also on mutated real traces). The parts are now measured on the events' own clock with the gaps
of at least a day (``CLOCK_GAP_NS``) left out, so before + GPU span + after is the window.

Hand-made trace (µs): cpu_op aten::empty 1–2; then, 1.6e15 µs later (50 years: another clock), a launch call at
T = 1.6e15 (4 µs) and kernels at T+5 (20 µs) and T+30 (20 µs).
"""

from __future__ import annotations

import json

from gpulens.analyzers import run_all
from gpulens.analyzers._window_findings import host_only_window
from gpulens.collectors import collect

T = 1_600_000_000_000_000


def _trace(tmp_path):
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": T, "dur": 4,
           "args": {"correlation": 1, "External id": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": T + 5, "dur": 20,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm_b", "pid": 0, "tid": 7, "ts": T + 30, "dur": 20,
           "args": {"device": 0, "stream": 7, "correlation": 2}},
          {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "ts": 1, "dur": 1, "pid": 100, "tid": 100}]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_host_only_parts_leave_a_clock_gap_out(tmp_path):
    tl = collect(_trace(tmp_path))
    figures, worst = host_only_window(tl)
    # window: the cpu_op's 1 µs + T..T+50 µs = 51 µs; before the GPU work: the cpu_op's 1 µs and T..T+5 µs = 6 µs
    # (gemm_a starts 1 µs after its launch call returned: under 20 µs, no time with the GPU holding enqueued work)
    assert figures == {"window_ns": 51_000, "host_only_before_ns": 6_000, "host_only_after_ns": 0,
                       "gpu_pending_before_ns": 0}
    assert worst[0] == 6_000 and worst[4] == "before"
    gpu_span = 45_000  # T+5 .. T+50
    assert figures["host_only_before_ns"] + gpu_span + figures["host_only_after_ns"] == figures["window_ns"]


def test_no_figure_over_the_window_reaches_a_finding(tmp_path):
    res = run_all(collect(_trace(tmp_path)))
    for r in res.values():
        for f in r.findings:
            assert f.time_at_stake_ns is None or f.time_at_stake_ns <= 51_000, (f.title, f.time_at_stake_ns)
            if "profiled window" in f.title:
                pct = float(f.title.split("(")[1].split(" %")[0])
                assert pct <= 100, f.title
