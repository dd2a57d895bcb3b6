"""s29 fuzzing: tests/report_invariants.py claimed wall span ≤ Σ per-GPU spans, false for GPUs busy one after the
other (GPU A 0–10 µs, GPU B 20–30 µs: wall span 30 µs, spans 10 + 10 µs). The check is now the true bound: each
GPU's span and each rank's span lie within the wall span."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gpulens.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from report_invariants import violations  # noqa: E402
from test_trust_s29_fuzz_devices import _v3  # noqa: E402


def test_two_gpus_one_after_the_other_keep_the_invariants(tmp_path):
    p, out = tmp_path / "two_results.json", tmp_path / "r.json"
    p.write_text(json.dumps(_v3([11, 12])))  # 10 µs on each GPU, 20 µs apart
    try:
        main(["analyze", str(p), "-q", "--no-cache", "--json", str(out)])
    except SystemExit:
        pass
    rep = json.loads(out.read_text())
    s = rep["sources"][0]["summary"]
    assert (s["span_ns"], s["device_span_ns"]) == (30_000, 20_000)  # hand calculation: wall 30 µs, 10 + 10 µs
    assert violations(rep) == []


def test_a_gpu_span_beyond_the_wall_span_is_caught():
    src = {"summary": {"span_ns": 100, "device_span_ns": 300, "rank_span_ns": {"0": 150}, "ranks": [0]},
           "analyses": {"breakdown": {"table": [{"rank": 0, "device_id": 0, "span_ns": 200}]}}}
    v = violations({"sources": [src]})
    assert any("GPU 0's span > the wall span" in x for x in v)
    assert any("rank 0's span > the wall span" in x for x in v)
