"""Launch latency and queue delay (issue 14.10) and the clock-skew check (issue 14.9), on a hand-made trace.

Values are worked out from the event times written here; percentiles use linear interpolation (numpy's default):
p90 of three sorted values [a, b, c] is b + 0.8 × (c − b).
"""

from __future__ import annotations

import json

import pytest

import gpulens

T0 = 1000  # µs


def _trace(tmp_path, pairs):
    """pairs: (call start µs, call dur µs, kernel start µs, kernel dur µs, name)."""
    ev = []
    for i, (cs, cd, ks, kd, name) in enumerate(pairs, start=1):  # ids from 1: 0 is Kineto's "no link"
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9,
                   "ts": T0 + cs, "dur": cd, "args": {"correlation": i}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": T0 + ks, "dur": kd,
                   "args": {"device": 0, "stream": 7, "correlation": i}})
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_launch_latency_distribution_and_clock_skew(tmp_path):
    p = _trace(tmp_path, [(0, 5, 8, 2, "a"),        # latency 8, queue 3
                          (100, 5, 103, 2, "a"),    # starts while the call runs: latency 3, queue 0
                          (200, 5, 250, 2, "b"),    # latency 50, queue 45
                          (300, 5, 299, 2, "b")])   # starts 1 µs before its call: clock skew, left out
    src = gpulens.analyze([p]).sources[0]
    r = src.results["launch_latency"]
    s = r.summary
    assert s["launches"] == 3 and s["clock_skew_events"] == 1 and s["clock_skew_max_ns"] == 1_000
    assert s["latency_p50_ns"] == 8_000 and s["latency_max_ns"] == 50_000
    assert s["latency_p90_ns"] == pytest.approx(8_000 + 0.8 * 42_000)
    assert s["queue_p50_ns"] == 3_000 and s["queue_max_ns"] == 45_000
    t = r.table.set_index("name")
    assert t.loc["a", "launches"] == 2 and t.loc["a", "latency_p50_ns"] == 5_500   # median of 8 and 3 µs
    assert t.loc["b", "launches"] == 1 and t.loc["b", "queue_max_ns"] == 45_000
    warned = [w for w in src.timeline.meta.warnings if "clocks disagree" in w]
    assert len(warned) == 1 and "1.00 µs" in warned[0]  # 1,000 ns, written by gpulens.units.fmt_ns
