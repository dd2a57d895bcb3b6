"""The gate's decision, its CI and its note agree (session 49 new-user check, items 1–2).

A new user's gate called a +4.6 % whole-run change REGRESSED with its 95 % CI shown as [+4.2, +4.9] % beside a 5 %
threshold and the note "a change of 5.0 % or more is plausible": the decision had used a wider, one-sided 99 %
bound that no output showed. The kind of fault: a verdict that rests on an interval other than the one shown. Here
the expected intervals are computed by hand (Welch's t on the logs: means, variances, Welch–Satterthwaite df, the
t quantile), not by the gate.
"""

from __future__ import annotations

import html
import json
import math

import numpy as np
from scipy.stats import t as student_t

from gpulens.gate import GateConfig, run_gate
from gpulens.gate.baseline import Baseline
from gpulens.gate.runs import Metric, RunSet
from gpulens.reports import gate_console, gate_html, gate_markdown

ENV = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040"}
N = 6
Z = np.array([-1.5, -0.9, -0.3, 0.3, 0.9, 1.5])
Z = Z / Z.std(ddof=1)  # a fixed noise pattern of sample SD 1 (no random draw)
SD = 0.003  # SD of the logs: 0.3 % run-to-run noise


def _samples(level: float, rev: bool = False) -> list[float]:
    return list(level * np.exp(SD * (Z[::-1] if rev else Z)))


def _welch_upper(base, cand, one_sided_level: float) -> float:
    """Hand Welch bound on the ratio of geometric means: exp(d + t_q(df) · se)."""
    b, c = np.log(base), np.log(cand)
    vb, vc = b.var(ddof=1) / b.size, c.var(ddof=1) / c.size
    df = (vb + vc) ** 2 / (vb * vb / (b.size - 1) + vc * vc / (c.size - 1))
    return math.exp(c.mean() - b.mean() + student_t.ppf(one_sided_level, df) * math.sqrt(vb + vc))


def _gate(base: list[float], cand: list[float]):
    runs = [{"label": f"r{i}"} for i in range(N)]

    def metrics(v):
        return {"kernel_time_ns": Metric("kernel_time_ns", "timing", "ns", v),
                "kernel:a": Metric("kernel:a", "timing", "ns", v, share=[1.0] * N, calls=[1] * N)}

    bl = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "m", ENV, runs, metrics(base))
    return run_gate(bl, RunSet(runs, [], ENV, "m", 1, metrics(cand)), GateConfig())


def test_a_change_whose_shown_ci_stays_under_the_threshold_is_not_regressed():
    base, cand = _samples(1e6), _samples(1.0456e6, rev=True)
    up95, up99 = _welch_upper(base, cand, 0.975), _welch_upper(base, cand, 0.99)
    # the case the new user hit: the shown 95 % CI stays under +5 %, the one-sided 99 % bound reaches it
    assert up95 < 1.05 <= up99
    res = _gate(base, cand)
    for m in res.metrics:
        assert math.isclose(m.ci_high, up95, rel_tol=1e-9)
        assert m.verdict == "PASS", (m.verdict, m.reason)
        assert "significant change smaller than the 5.0 % threshold" in m.reason
    assert res.verdict == "PASS"
    # every output shows the CI's upper end below the threshold: at one decimal it would read "+5.0", as if it
    # reached the threshold, so it is shown with two ("+4.96")
    shown = f"{100 * (up95 - 1):+.2f}"
    assert f"{100 * (up95 - 1):+.1f}" == "+5.0" and shown < "+5.00"
    for text in (gate_markdown.render(res), gate_html.render(res), gate_console.render(res, width=250)):
        assert shown in text and "+5.0]" not in text


def test_a_regressed_row_always_shows_a_ci_that_reaches_the_threshold():
    base, cand = _samples(1e6), _samples(1.047e6, rev=True)
    up95 = _welch_upper(base, cand, 0.975)
    assert up95 >= 1.05
    res = _gate(base, cand)
    assert res.verdict == "REGRESSED"
    for m in res.metrics:
        assert m.verdict == "REGRESSED" and m.ci_high >= 1 + m.threshold
        assert "the CI reaches the 5.0 % threshold" in m.reason
    doc = json.loads(json.dumps(res.to_dict())) if hasattr(res, "to_dict") else None
    if doc is not None:
        for row in doc["metrics"]:
            if row["verdict"] == "REGRESSED":
                assert row["ci_high"] >= 1 + row["threshold"]


def test_regressed_implies_shown_ci_reaches_threshold_over_many_draws():
    """The invariant itself, on seeded draws around the threshold: no REGRESSED row whose CI misses it."""
    rng = np.random.default_rng(49)
    seen = set()
    for shift in np.linspace(1.03, 1.07, 25):
        base = list(1e6 * np.exp(0.004 * rng.standard_normal(N)))
        cand = list(1e6 * shift * np.exp(0.004 * rng.standard_normal(N)))
        for m in _gate(base, cand).metrics:
            seen.add(m.verdict)
            if m.verdict == "REGRESSED":
                assert m.ci_high >= 1 + m.threshold, (shift, m.ci_low, m.ci_high)
    assert {"REGRESSED", "PASS"} <= seen


def test_a_baseline_of_copied_runs_is_said_on_every_gate_output():
    """Item 2: six copies of one trace (identical timings) as the baseline: ``baseline save`` warned, the gate then
    passed with "baseline noise ±0.0 %" silently. Every gate output carries the warning, with the count of copies
    (all runs equal: N − 1 of them repeat the first)."""
    base = [1e6] * N
    cand = _samples(1.002e6)
    res = _gate(base, cand)
    text = f"{N - 1} runs of the {N} repeat another run's timings exactly"
    assert any(n.startswith("baseline: " + text) for n in res.notes), res.notes
    assert not any(n.startswith("candidate:") and "repeat another run" in n for n in res.notes)
    doc = json.loads(json.dumps(res.to_dict()))
    assert any(text in n for n in doc["notes"])
    for out in (gate_markdown.render(res), gate_html.render(res), gate_console.render(res, width=400)):
        assert text in " ".join(html.unescape(out).split())
    # distinct runs: no such note
    assert not any("repeat another run" in n for n in _gate(_samples(1e6), cand).notes)
