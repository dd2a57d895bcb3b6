"""The exact-figures check the held-back real-corpus tests share (tests/test_trust_s32_real_corpus.py, s33).

:func:`assert_exact_figures` runs ``gpulens analyze --json`` on one real input and asserts the figures a test
computed from the raw file by hand (plain ``json``/``gzip``/``csv``, never from gpulens): kernel count, unique
kernels, Σ kernel time (ns), GPU span (ns) and launches per stream; plus the report invariants
(:func:`tests.report_invariants.violations`) and a busy time within the span.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main
from tests.report_invariants import violations


def assert_exact_figures(tmp_path: Path, path: Path, facts: dict) -> dict:
    """Analyze ``path`` and assert ``facts``: ``kernels``, ``unique``, ``kernel_ns`` and ``span_ns`` (ns) against
    the first source's summary, ``launches`` ({stream id: launches}) against the queue-length table (an input
    without launch records has no table: ``{}``). Returns the report (a dict) for further checks."""
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert violations(report) == []
    src = report["sources"][0]
    s = src["summary"]
    assert (s["kernel_count"], s["unique_kernels"], s["kernel_time_ns"], s["span_ns"]) == (
        facts["kernels"], facts["unique"], facts["kernel_ns"], facts["span_ns"])
    queues = (src["analyses"].get("queue_length") or {}).get("table") or []
    assert {int(r["stream_id"]): int(r["launches"]) for r in queues} == facts["launches"]
    assert 0 < s["gpu_busy_pct"] <= 100 and s["gpu_busy_ns"] <= s["span_ns"]
    return report


def assert_geforce_ada_peaks(spec, sms: int, clock_hz: float) -> None:
    """Assert the compute peaks of a GeForce Ada (CC 8.9) ``spec`` from its SM count and boost clock, by the Ada
    SM's per-clock rates (128 FP32 lanes × 2 FLOP; GeForce tensor rates with FP32 accumulate: TF32 256, FP16/BF16
    512, FP8 1024, INT8 2048 per SM per clock; FP64 1/64 of FP32), each within 1 % (FP64 2 %)."""
    def close(a, b, rel=0.01):
        return a is not None and abs(a - b) <= rel * b

    fp32 = sms * 128 * 2 * clock_hz
    assert close(spec.figure_value("vector.fp32"), fp32)
    assert close(spec.figure_value("matrix.tf32"), sms * 256 * clock_hz)
    for p in ("bf16", "fp16"):
        assert close(spec.figure_value(f"matrix.{p}"), sms * 512 * clock_hz)
    assert close(spec.figure_value("matrix.fp8"), sms * 1024 * clock_hz)
    assert close(spec.figure_value("matrix.int8"), sms * 2048 * clock_hz)
    assert close(spec.figure_value("vector.fp64"), fp32 / 64, rel=0.02)
