"""The gate's noise model: seeded simulations (the acceptance criteria) and hand-checked statistics."""

import math
from collections import Counter

import numpy as np
import pytest

from gpulens.gate.stats import (compare_count, compare_timing, family_weights, holm_adjust, min_p_value,
                                relative_spread, repeats_needed, timing_test)


def simulate(shift: float, trials: int = 200, n: int = 10, noise: float = 0.02, seed: int = 2024) -> Counter:
    """Verdicts of ``trials`` comparisons of n baseline vs n candidate samples with Gaussian relative noise."""
    rng = np.random.default_rng(seed)
    out = Counter()
    for i in range(trials):
        base = 1e6 * (1 + noise * rng.standard_normal(n))
        cand = 1e6 * shift * (1 + noise * rng.standard_normal(n))
        out[compare_timing(base, cand).verdict] += 1
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


def test_fully_separated_samples_welch_on_logs_by_hand():
    base = [100, 101, 102, 103, 104]
    cand = [120, 121, 122, 123, 124]
    c = compare_timing(base, cand)
    lb, lc = np.log(base), np.log(cand)
    # ratio of geometric means, by hand
    assert c.ratio == pytest.approx(math.exp(lc.mean() - lb.mean()))
    # Welch's t by hand: t = d / sqrt(vb/nb + vc/nc); df by Welch–Satterthwaite; one-sided p = t.sf(t, df)
    from scipy.stats import t as student_t
    vb, vc = lb.var(ddof=1) / 5, lc.var(ddof=1) / 5
    t = (lc.mean() - lb.mean()) / math.sqrt(vb + vc)
    df = (vb + vc) ** 2 / (vb ** 2 / 4 + vc ** 2 / 4)
    assert c.p_value == pytest.approx(student_t.sf(t, df), rel=1e-6)
    half = student_t.ppf(0.975, df) * math.sqrt(vb + vc)
    assert c.ci_low == pytest.approx(math.exp(lc.mean() - lb.mean() - half))
    assert c.ci_high == pytest.approx(math.exp(lc.mean() - lb.mean() + half))
    assert c.verdict == "REGRESSED" and c.method == "welch-log-t+holm"


def test_threshold_widens_with_baseline_noise():
    rng = np.random.default_rng(0)
    base = 1e6 * (1 + 0.08 * rng.standard_normal(10))
    c = compare_timing(base, base * 1.0, noise_multiplier=2.0)
    # the PASS band widens with the noise; the regression threshold stays the configured 5 %
    assert c.band == pytest.approx(2 * relative_spread(base))
    assert c.band > 0.05 and c.threshold == 0.05


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
    assert c.band == pytest.approx(2 * relative_spread(np.array(base)))
    assert c.verdict == "PASS"


def test_too_few_runs_fall_back_to_the_threshold():
    c = compare_timing([1000.0], [1300.0])
    assert c.method == "threshold" and c.verdict == "REGRESSED" and c.p_value is None
    assert compare_timing([1000.0], [1030.0]).verdict == "PASS"
    assert compare_timing([1000.0, 1010, 990], [700.0, 705, 702]).verdict == "IMPROVED"


def test_holm_adjust_by_hand():
    # Holm (equal weights), m = 3: sorted p 0.01, 0.02, 0.04 -> 3·0.01, 2·0.02, max(0.04, 1·0.04) = 0.03, 0.04, 0.04
    assert holm_adjust([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    # weighted: w = (0.5, 0.25, 0.25); order by p/w: 0.01/0.5=0.02 (a), 0.02/0.25=0.08 (c), 0.03/0.25=0.12 (b)
    # a: 0.01·1/0.5 = 0.02; c: 0.02·0.5/0.25 = 0.04; b: 0.03·0.25/0.25 = 0.03 -> running max 0.04
    assert holm_adjust([0.01, 0.03, 0.02], [0.5, 0.25, 0.25]) == pytest.approx([0.02, 0.04, 0.04])
    assert holm_adjust([]).size == 0


def test_family_weights_spend_alpha_where_the_time_is():
    w = family_weights([True, True, False, False], [0.6, 0.2, 0.0, 0.0])
    # kernels share 3/4 in proportion 0.6 : 0.2; the two whole-run metrics 1/8 each
    assert w == pytest.approx([0.5625, 0.1875, 0.125, 0.125])
    assert family_weights([True, True], [0.3, 0.1]) == pytest.approx([0.75, 0.25])
    assert family_weights([False, False], [0, 0]) == pytest.approx([0.5, 0.5])


def test_repeats_needed_matches_the_normal_approximation():
    # sd of the logs 2 % on each side, T = 5 %, level 0.01, power 0.95, the baseline's 10 runs kept as saved:
    # normal approximation 0.02·√(1/10 + 1/n) ≤ log 1.05 / (z_.99 + z_.95) = 0.04879 / 3.971 → 1/n ≤ 0.2774,
    # n ≥ 3.6: 4 candidate runs; the t distribution needs a little more: 4–8, so 1–5 more than 3 runs.
    rng = np.random.default_rng(5)
    b = 1e6 * np.exp(0.02 * rng.standard_normal(3))
    c = 1e6 * np.exp(0.02 * rng.standard_normal(3))
    t = timing_test(np.r_[b, b, b], np.r_[c, c, c])  # 9 runs: enough for a test
    t.sd_log = t.sd_base_log = t.sd_cand_log = 0.02
    t.n_base, t.n_cand = 10, 3
    assert 1 <= repeats_needed(t, 0.01) <= 5
    t.sd_log = t.sd_base_log = t.sd_cand_log = 0.5  # 50 % noise: no candidate count helps against 10 baseline runs
    assert repeats_needed(t, 0.01, limit=100) is None


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
