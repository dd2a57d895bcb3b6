"""Many runs a side (tests/fuzz_s50_reports.py, kind ``runs``, 1000 runs): the gate's "enough runs for a test" rule,
``1 / C(n_b + n_c, n_b)``, divided a float by a binomial past any float (C(1200, 600) ≈ 10³⁵⁹) and stopped with an
internal error (exit 70). A nightly baseline of several hundred runs is realistic; the rule now divides exactly."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import DATA
from tests.test_trust_s49_fuzz_reports import _cli

TRACE = DATA / "kineto" / "hta_a100_simple_add_two_streams.json.gz"
TIME_KEYS = ("span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_effective_ns", "kernel_time_ns")


def test_min_p_value_of_hundreds_of_runs():
    from gpulens.gate.stats import min_p_value

    # exact: 1 / C(60, 30), from the rational, and the log-gamma form of the binomial
    exact = float(Fraction(1, math.comb(60, 30)))
    assert min_p_value(30, 30) == pytest.approx(exact, rel=1e-12)
    assert min_p_value(30, 30) == pytest.approx(math.exp(2 * math.lgamma(31) - math.lgamma(61)), rel=1e-9)
    assert math.comb(1200, 600) > 2 ** 1024  # past the largest float: the old division overflowed here
    assert min_p_value(600, 600) == 0.0 and min_p_value(1000, 1) == pytest.approx(1 / 1001)
    assert min_p_value(0, 1000) == 1.0


def test_compare_timing_of_a_thousand_runs_a_side():
    from gpulens.gate.stats import compare_timing

    rng = random.Random(50)
    base = [1e6 * math.exp(rng.gauss(0, 0.02)) for _ in range(1000)]
    cand = [1.1e6 * math.exp(rng.gauss(0, 0.02)) for _ in range(1000)]
    c = compare_timing(base, cand)
    gm = math.exp(sum(map(math.log, cand)) / 1000 - sum(map(math.log, base)) / 1000)  # ratio of geometric means
    assert c.ratio == pytest.approx(gm, rel=1e-9) and 1.09 < c.ratio < 1.11
    assert c.verdict == "REGRESSED" and c.method != "threshold"
    same = compare_timing(base, base)
    assert same.verdict == "PASS" and same.ratio == pytest.approx(1.0)


def _report(tmp: Path, n: int, factor: float, seed: int) -> Path:
    """The trace's report with its one source repeated ``n`` times, each run's times × ``factor`` × 2 % noise."""
    rep = tmp / "seed.json"
    if not rep.exists():
        assert _cli("analyze", str(TRACE), "-q", "--no-cache", "--json", str(rep))[0] == 0
    doc = json.loads(rep.read_text())
    s0 = doc["sources"][0]
    rows = [{k: r[k] for k in ("name", "kind", "calls", "total_ns", "effective_ns", "share")}
            for r in s0["analyses"]["hotspots"]["table"][:3]]
    rng = random.Random(seed)
    runs = []
    for _ in range(n):
        f = factor * math.exp(rng.gauss(0, 0.02))
        src = {k: s0[k] for k in ("label", "status", "collectors", "devices")}
        src["summary"] = {k: (round(v * f) if k in TIME_KEYS and isinstance(v, int) else v)
                          for k, v in s0["summary"].items()}
        src["analyses"] = {"hotspots": {"table": [dict(r, total_ns=round(r["total_ns"] * f),
                                                       effective_ns=round(r["effective_ns"] * f)) for r in rows]}}
        runs.append(src)
    out = tmp / f"runs_{n}_{factor}_{seed}.json"
    out.write_text(json.dumps(dict(doc, sources=runs)))
    return out


def test_gate_of_six_hundred_runs_a_side(tmp_path):
    base = _report(tmp_path, 600, 1.0, 1)
    same = _report(tmp_path, 600, 1.0, 2)
    slow = _report(tmp_path, 600, 1.2, 3)
    code, text = _cli("gate", str(same), "--baseline", str(base), "-q", "--json", str(tmp_path / "g.json"))
    assert code == 0, text
    doc = json.loads((tmp_path / "g.json").read_text())
    assert doc["verdict"] == "PASS"
    span = next(m for m in doc["metrics"] if m["metric"] == "span_ns")
    assert span["base_n"] == 600 and span["cand_n"] == 600 and span["method"] != "threshold"
    code, text = _cli("gate", str(slow), "--baseline", str(base), "-q", "--json", str(tmp_path / "g.json"))
    assert code == 1, text
    span = next(m for m in json.loads((tmp_path / "g.json").read_text())["metrics"] if m["metric"] == "span_ns")
    assert span["verdict"] == "REGRESSED" and 1.18 < span["ratio"] < 1.22
