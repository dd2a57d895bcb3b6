"""The gate's noise model: seeded simulations (the acceptance criteria) and hand-checked statistics."""

import math
from collections import Counter

import numpy as np
import pytest

from gpulens.gate.stats import (bootstrap_ratio_ci, compare_count, compare_timing, min_p_value,
                                relative_spread)


def simulate(shift: float, trials: int = 200, n: int = 10, noise: float = 0.02, seed: int = 2024) -> Counter:
    """Verdicts of ``trials`` comparisons of n baseline vs n candidate samples with Gaussian relative noise."""
    rng = np.random.default_rng(seed)
    out = Counter()
    for i in range(trials):
        base = 1e6 * (1 + noise * rng.standard_normal(n))
        cand = 1e6 * shift * (1 + noise * rng.standard_normal(n))
        out[compare_timing(base, cand, rng=np.random.default_rng(i)).verdict] += 1
    return out


def test_aa_pairs_with_2pct_noise_rarely_regress():
    v = simulate(1.0)
    assert sum(v.values()) == 200
    assert v["REGRESSED"] <= 2, v            # at most 1 % of 200
    assert v["PASS"] >= 180, v               # and A/A mostly says PASS, not AMBIGUOUS


def test_true_5pct_slowdown_regresses_in_95pct_of_trials():
    v = simulate(1.05)
    assert v["REGRESSED"] >= 190, v          # at least 95 % of 200


def test_true_5pct_speedup_is_improved():
    v = simulate(1 / 1.05)
    assert v["IMPROVED"] >= 190 and v["REGRESSED"] == 0, v


def test_higher_is_better_direction_flips_the_verdict():
    rng = np.random.default_rng(3)
    base = 1000 * (1 + 0.01 * rng.standard_normal(10))      # a throughput
    cand = 0.9 * 1000 * (1 + 0.01 * rng.standard_normal(10))  # 10 % lower throughput
    assert compare_timing(base, cand, direction="higher").verdict == "REGRESSED"
    assert compare_timing(base, cand, direction="lower").verdict == "IMPROVED"


def test_relative_spread_by_hand():
    # median 100; |x - 100| = 0, 2, 2, 10, 10 -> MAD 2; 1.4826 * 2 / 100
    assert relative_spread(np.array([100, 102, 98, 110, 90])) == pytest.approx(0.029652)
    assert relative_spread(np.array([5.0])) == 0.0


def test_min_p_value_is_one_over_binomial():
    assert min_p_value(5, 5) == pytest.approx(1 / 252)
    assert min_p_value(4, 4) == pytest.approx(1 / 70)
    assert min_p_value(1, 1) == 0.5


def test_fully_separated_samples_give_the_exact_minimum_p():
    base = [100, 101, 102, 103, 104]
    cand = [120, 121, 122, 123, 124]
    c = compare_timing(base, cand)
    assert c.p_value == pytest.approx(1 / 252)
    assert c.ratio == pytest.approx(122 / 102)
    assert c.verdict == "REGRESSED" and c.method == "mann-whitney+bootstrap"
    assert c.ci_low <= c.ratio <= c.ci_high


def test_threshold_widens_with_baseline_noise():
    rng = np.random.default_rng(0)
    base = 1e6 * (1 + 0.08 * rng.standard_normal(10))
    c = compare_timing(base, base * 1.0, noise_multiplier=2.0)
    assert c.threshold == pytest.approx(2 * relative_spread(base))
    assert c.threshold > 0.05


def test_a_significant_but_small_change_passes():
    rng = np.random.default_rng(1)
    base = 1e6 * (1 + 0.002 * rng.standard_normal(20))
    cand = 1.01e6 * (1 + 0.002 * rng.standard_normal(20))  # +1 %, very low noise: significant, under 5 %
    c = compare_timing(base, cand)
    assert c.p_value < 0.01 and c.verdict == "PASS"
    assert "smaller than" in c.reason


def test_noisy_candidate_is_ambiguous_not_pass():
    base = [100, 101, 99, 100, 102, 98]          # quiet baseline: threshold stays 5 %
    cand = [100, 140, 95, 130, 85, 120]          # noisy candidate: neither a change nor its absence is shown
    c = compare_timing(base, cand)
    assert c.threshold == 0.05
    assert c.p_value > 0.01 and c.ci_high > 1.05
    assert c.verdict == "AMBIGUOUS"


def test_noisy_baseline_widens_the_band_instead_of_flapping():
    base = [100, 130, 90, 120, 80, 110]           # ~15 % spread -> threshold 2 x spread
    cand = [105, 140, 95, 125, 85, 118]
    c = compare_timing(base, cand)
    assert c.threshold == pytest.approx(2 * relative_spread(np.array(base)))
    assert c.verdict == "PASS"


def test_too_few_runs_fall_back_to_the_threshold():
    c = compare_timing([1000.0], [1300.0])
    assert c.method == "threshold" and c.verdict == "REGRESSED" and c.p_value is None
    assert compare_timing([1000.0], [1030.0]).verdict == "PASS"
    assert compare_timing([1000.0, 1010, 990], [700.0, 705, 702]).verdict == "IMPROVED"


def test_bootstrap_is_seeded_and_brackets_the_ratio():
    rng = np.random.default_rng(7)
    b = 1e6 * (1 + 0.02 * rng.standard_normal(10))
    c = 1.2e6 * (1 + 0.02 * rng.standard_normal(10))
    one = bootstrap_ratio_ci(b, c, 0.95, 2000, np.random.default_rng(0))
    two = bootstrap_ratio_ci(b, c, 0.95, 2000, np.random.default_rng(0))
    assert one == two
    assert one[0] < np.median(c) / np.median(b) < one[1]
    assert 1.1 < one[0] and one[1] < 1.3


def test_zero_baseline():
    assert compare_timing([0, 0, 0], [0, 0, 0]).verdict == "PASS"
    assert compare_timing([0, 0, 0], [5, 5, 5]).verdict == "REGRESSED"


@pytest.mark.parametrize("base,cand,verdict", [
    ([16, 16, 16], [16, 16, 16], "PASS"),
    ([16, 16, 16], [17, 17, 17], "REGRESSED"),   # one extra launch is caught with zero noise
    ([16, 16, 16], [15, 15, 15], "IMPROVED"),
])
def test_counts_compare_exactly(base, cand, verdict):
    c = compare_count(base, cand)
    assert c.verdict == verdict and c.method == "exact"


def test_count_tolerance():
    assert compare_count([1000], [1009], tolerance=0.01).verdict == "PASS"
    assert compare_count([1000], [1011], tolerance=0.01).verdict == "REGRESSED"
    assert math.isclose(compare_count([1000], [1011]).ratio, 1.011)


def test_a_metric_that_drops_to_zero_is_improved():
    c = compare_timing([1000.0], [0.0])                       # a kernel that no longer runs, one run per side
    assert c.verdict == "IMPROVED" and c.ratio == 0 and "100.0 % better" in c.reason
    c = compare_timing([1000.0, 1010, 990, 1005, 995], [0.0] * 5)
    assert c.verdict == "IMPROVED"
