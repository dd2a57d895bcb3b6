"""The run-level acceptance of issue 20, measured by the simulation in benchmarks/gate_power.py at a small trial
count (fixed seed): with 10 vs 10 runs and 2 % lognormal noise, an unchanged run (A/A) is REGRESSED in ≤ 2 % of
trials and AMBIGUOUS in ≤ 2 %, and a 5 % slowdown of a kernel holding ≥ 20 % of GPU time is caught (run verdict
REGRESSED, and the kernel's own row REGRESSED) in ≥ 90 % of trials. Thresholds are the issue's; the full-count
figures are in docs/gate.md."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "gate_power.py"
TRIALS = 150


@pytest.fixture(scope="module")
def power():
    spec = importlib.util.spec_from_file_location("gate_power", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("model", ["kernel", "run"])
def test_aa_run_level_false_alarm_and_ambiguity(power, model):
    r = power.simulate("A/A", model, TRIALS, 10, 0.02, seed=11)
    v = r["verdicts"]
    assert sum(v.values()) == TRIALS
    assert v["REGRESSED"] <= 0.02 * TRIALS, v
    assert v["AMBIGUOUS"] <= 0.02 * TRIALS, v


@pytest.mark.parametrize("model", ["kernel", "run"])
def test_5pct_slowdown_of_a_20pct_kernel_is_detected(power, model):
    r = power.simulate("20 % kernel +5 %", model, TRIALS, 10, 0.02, seed=12)
    assert r["verdicts"]["REGRESSED"] >= 0.9 * TRIALS, r
    assert r["row_regressed"] >= 0.9 * TRIALS, r


def test_uniform_3pct_speedup_is_not_mostly_ambiguous(power):
    # issue 20: "a uniform 3 % speed-up is reported AMBIGUOUS in about half the trials"; IMPROVED must now outrank
    # an ambiguous small metric, and the speed-up is never a regression.
    r = power.simulate("all −3 %", "kernel", 100, 10, 0.02, seed=13)
    v = r["verdicts"]
    assert v["REGRESSED"] == 0 and v["AMBIGUOUS"] <= 15, v


def test_an_extra_launch_is_always_caught(power):
    r = power.simulate("extra launch", "kernel", 20, 10, 0.02, seed=14)
    assert r["verdicts"]["REGRESSED"] == 20
