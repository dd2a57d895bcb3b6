"""Time at stake and the bound vocabulary (issue 14.2, 14.3): one figure everywhere, worked out by hand here."""

from __future__ import annotations

import pandas as pd
import pytest

import gpulens
from gpulens.analyzers.base import AnalysisResult
from gpulens.analyzers.verdict_rules import Evidence, decide
from gpulens.devices import spec_from_dict
from gpulens.reports import console, markdown
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table

#: toy GPU: fp32 vector 100 TFLOP/s, 1 TB/s → ridge point 100 FLOP/B
TOY = spec_from_dict({"name": "toy", "compute_capability": "9.0", "num_sms": 100,
                      "figures": {"memory_bandwidth": [1000, "test"], "vector.fp32": [100, "test"],
                                  "matrix.bf16": [400, "test"]}})


def _kernel_with_counters(metrics, dur_ns=1_000_000, name="naive_gemm"):
    ev = make_table(EVENT_COLUMNS, {"event_id": [0], "kind": ["kernel"], "name": [name], "start_ns": [1000],
                                    "dur_ns": [dur_ns], "rank": [0], "device_id": [0], "stream_id": [7],
                                    "source": ["t"]})
    co = make_table(COUNTER_COLUMNS, {"event_id": [0] * len(metrics), "metric": list(metrics),
                                      "value": list(metrics.values()), "unit": [""] * len(metrics),
                                      "source": ["t"] * len(metrics)})
    return Timeline(ev, co).validate()


def test_naive_gemm_stake_is_its_distance_to_the_compute_roof_in_every_place():
    # 1 ms kernel, 2 × 1.5e9 FFMA = 3 GFLOP fp32 → 3 TFLOP/s; DRAM 10 MB → AI 300 FLOP/B > ridge 100: compute side,
    # attainable = 100 TFLOP/s → 3 % of the roof → at stake 1 ms × (1 − 0.03) = 970,000 ns
    tl = _kernel_with_counters({"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1.5e9,
                                "dram__bytes_read.sum": 8e6, "dram__bytes_write.sum": 2e6})
    rep = gpulens.report.Report([gpulens.analyze_timeline(tl, device_spec=TOY)])
    src = rep.sources[0]
    roof = src.results["roofline"].table.iloc[0]
    assert roof["roof_pct"] == pytest.approx(3.0) and roof["ridge_side"] == "compute"
    assert roof["bound"] == "below-roofs"          # under 10 % of attainable
    assert roof["time_at_stake_ns"] == 970_000
    v = src.results["verdicts"].table.iloc[0]
    assert v["time_at_stake_ns"] == 970_000        # the verdict table shows the same figure
    fs = [f for f in src.findings() if f.kernel == "naive_gemm" and f.time_at_stake_ns]
    assert {f.time_at_stake_ns for f in fs} == {970_000}
    # the roofline finding details the kernel's verdict: one root, counted once
    roots = [f for f in fs if f.parent is None]
    assert len(roots) == 1 and roots[0].key == "kernel:naive_gemm"
    ranked = src.results["verdicts"].summary["ranked"]
    assert sum(1 for r in ranked if r["kernel"] == "naive_gemm") == 1
    for text in (console.render(rep), markdown.render(rep)):
        assert "?-" not in text and "970.00 µs" in text


def _sol_result(**row):
    t = pd.DataFrame([{"name": "saxpy", **row}])
    return AnalysisResult("speed_of_light", t, {c: c for c in t.columns})


def test_speed_of_light_result_is_preferred_and_gives_the_stake():
    # saxpy-like: 134 MB in 293 µs, DRAM 88 % / memory 90 % / SM 12 % of peak (bound "memory"), achieved occupancy
    # 84 %: memory-bound, at stake 293 µs × (1 − 0.90) = 29,300 ns
    tl = _kernel_with_counters({}, dur_ns=293_000, name="saxpy")
    res = gpulens.analyze_timeline(tl).results
    res["speed_of_light"] = _sol_result(compute_pct=12.0, memory_pct=90.0, dram_pct=88.0, bound="memory",
                                        evidence="dram__throughput 88 %")
    out = gpulens.analyzers.verdicts.Verdicts().analyze(tl, None, res)
    v = out.table.iloc[0]
    assert v["verdict"] == "memory-bound" and v["time_at_stake_ns"] == 29_300
    assert "speed_of_light" in v["inputs"]
    # a latency-limited kernel (both under the roofs) is latency/occupancy-bound, never "?-side"
    res["speed_of_light"] = _sol_result(compute_pct=20.0, memory_pct=15.0, dram_pct=float("nan"), bound="latency",
                                        evidence="both under 60 %")
    v = gpulens.analyzers.verdicts.Verdicts().analyze(tl, None, res).table.iloc[0]
    assert v["verdict"] == "latency/occupancy-bound" and v["time_at_stake_ns"] == round(293_000 * 0.80)


def test_evidence_always_states_the_ridge_side_and_bound_words():
    # a roofline position without a bound (no byte figure) used to print "roofline: ?-side"
    v = decide(Evidence("k", "kernel", 1, 1_000_000, bound=None, roof_pct=4.0))
    assert "?" not in v.evidence and "ridge side unknown" in v.evidence
    # below its roof with nothing saying latency or occupancy: below-roofs (s33)
    assert v.verdict == "below-roofs" and v.time_at_stake_ns == 960_000   # 1 ms × (1 − 0.04)
    v = decide(Evidence("k", "kernel", 1, 1_000_000, bound="memory", ridge_side="memory", roof_pct=80.0))
    assert v.verdict == "memory-bound" and "memory side of the ridge" in v.evidence
    assert v.time_at_stake_ns == 200_000
