"""The gate's noise model: compare a metric's baseline samples with the candidate's.

Timings (:func:`compare_timing`), with ``ratio = median(candidate) / median(baseline)`` oriented so that a ratio
above 1 is *worse* (inverted for higher-is-better metrics):

* **threshold** ``T = max(configured, k · spread)``, ``spread = 1.4826 · MAD / median`` of the baseline (a robust
  relative standard deviation; 1.4826 makes the MAD consistent with σ for normal noise). The default ``k = 2``
  keeps ``T`` at the configured 5 % up to 2.5 % noise and widens it beyond, so noisy metrics do not flap.
* **significance**: one-sided Mann-Whitney U (``scipy.stats.mannwhitneyu``), p of "candidate worse" and of
  "candidate better".
* **confidence interval** of the median ratio: percentile bootstrap with a seeded ``numpy.random.Generator``
  (both sides resampled, vectorised).

Decision (two questions, as in equivalence testing): *is there a change?* (p < α and the CI excludes 1) and
*can a change of at least T be ruled out?* (the CI lies inside ``[1/(1+T), 1+T]``):

* REGRESSED: p_worse < α, CI low > 1, and CI high ≥ 1+T (a slowdown is shown and one of T is plausible);
* IMPROVED: the mirror image with p_better;
* PASS: the CI lies inside the band (any change is smaller than T), or a significant change whose whole CI lies
  under the threshold;
* AMBIGUOUS: otherwise (not enough evidence either way).

When the sample sizes cannot reach p < α at all (the exact one-sided minimum ``1 / C(n_b + n_c, n_b)``, e.g. fewer
than 5 repeats per side at α = 0.01), no test is possible and the ratio alone is compared with T
(``method = "threshold"``, like pytest-benchmark's ``--benchmark-compare-fail``).

Deterministic counts (:func:`compare_count`) compare the medians exactly (within an optional relative tolerance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

from gpulens.gate.result import AMBIGUOUS, IMPROVED, PASS, REGRESSED

MAD_TO_SIGMA = 1.4826


@dataclass
class Comparison:
    """Outcome of one metric's comparison.

    Attributes:
        verdict: PASS, IMPROVED, REGRESSED or AMBIGUOUS.
        ratio: median(candidate) / median(baseline) as measured (not oriented); None when undefined.
        ci_low, ci_high: bootstrap confidence interval of ``ratio`` (None for counts / single samples).
        p_value: one-sided Mann-Whitney p in the direction of the observed change (None when not tested).
        threshold: the relative threshold T actually used (after the spread rule).
        spread: the baseline's robust relative spread (fraction).
        method: ``"mann-whitney+bootstrap"``, ``"threshold"`` (too few samples for a test) or ``"exact"``.
        reason: one sentence explaining the verdict.
    """

    verdict: str
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    threshold: float
    spread: float
    method: str
    reason: str


def relative_spread(samples: np.ndarray) -> float:
    """Robust relative spread: ``1.4826 · median(|x − median(x)|) / median(x)`` (0 for < 2 samples or median 0)."""
    x = np.asarray(samples, dtype=float)
    med = float(np.median(x)) if x.size else 0.0
    if x.size < 2 or med == 0:
        return 0.0
    return MAD_TO_SIGMA * float(np.median(np.abs(x - med))) / abs(med)


def min_p_value(n_base: int, n_cand: int) -> float:
    """Smallest one-sided p an exact Mann-Whitney U test can give for these sample sizes: ``1 / C(n_b+n_c, n_b)``."""
    if n_base < 1 or n_cand < 1:
        return 1.0
    return 1.0 / math.comb(n_base + n_cand, n_base)


def one_sided_p(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    """One-sided Mann-Whitney U p-values ``(p(cand > base), p(cand < base))`` from one vectorised scipy call
    (exact distribution for small samples without ties, normal approximation otherwise: scipy's ``method="auto"``).
    """
    if base.size == cand.size:
        p = mannwhitneyu(np.stack([cand, base]), np.stack([base, cand]), alternative="greater", axis=1).pvalue
        return float(p[0]), float(p[1])
    return (float(mannwhitneyu(cand, base, alternative="greater").pvalue),
            float(mannwhitneyu(cand, base, alternative="less").pvalue))


def bootstrap_ratio_ci(base: np.ndarray, cand: np.ndarray, confidence: float, resamples: int,
                       rng: np.random.Generator) -> tuple[float, float]:
    """Percentile bootstrap CI of ``median(cand) / median(base)``, resampling both sides independently.

    Returns:
        (low, high); ``(nan, nan)`` when a resampled baseline median is 0 in more than half the resamples.
    """
    bm = np.median(base[rng.integers(0, base.size, (resamples, base.size))], axis=1)
    cm = np.median(cand[rng.integers(0, cand.size, (resamples, cand.size))], axis=1)
    ok = bm != 0
    if ok.sum() * 2 < resamples:
        return math.nan, math.nan
    r = cm[ok] / bm[ok]
    a = (1 - confidence) / 2
    lo, hi = np.quantile(r, [a, 1 - a])
    return float(lo), float(hi)


def compare_timing(base, cand, *, threshold: float = 0.05, noise_multiplier: float = 2.0, alpha: float = 0.01,
                   confidence: float = 0.95, resamples: int = 2000, rng: np.random.Generator | None = None,
                   direction: str = "lower") -> Comparison:
    """Compare noisy samples (module docstring has the rule).

    Args:
        base, cand: one value per run (ns or any positive unit).
        threshold: configured relative threshold (0.05 = 5 %).
        noise_multiplier: k in ``T = max(threshold, k · spread)``.
        alpha: one-sided significance level.
        confidence: bootstrap CI level.
        resamples: bootstrap resamples.
        rng: seeded generator (``numpy.random.default_rng(0)`` when None).
        direction: ``"lower"`` or ``"higher"`` is better.
    """
    b = np.asarray(base, dtype=float)
    c = np.asarray(cand, dtype=float)
    rng = rng if rng is not None else np.random.default_rng(0)
    spread = relative_spread(b)
    t = max(threshold, noise_multiplier * spread)
    mb, mc = float(np.median(b)), float(np.median(c))
    if mb == 0:
        if mc == 0:
            return Comparison(PASS, None, None, None, None, t, spread, "exact", "zero in both")
        return Comparison(REGRESSED if direction == "lower" else IMPROVED, None, None, None, None, t, spread,
                          "exact", "zero in the baseline, non-zero in the candidate")
    ratio = mc / mb
    worse = ratio if direction == "lower" else (1 / ratio if ratio else math.inf)
    if min_p_value(b.size, c.size) > alpha:
        if worse >= 1 + t:
            v, why = REGRESSED, f"{_pct(worse)} worse, over the {_pct1(t)} threshold"
        elif worse <= 1 / (1 + t):
            v, why = IMPROVED, f"{_down(worse)} better, over the {_pct1(t)} threshold"
        else:
            v, why = PASS, f"within the {_pct1(t)} threshold"
        return Comparison(v, ratio, None, None, None, t, spread, "threshold",
                          f"{why} (no test: {b.size} vs {c.size} runs cannot reach p < {alpha:g}; record ≥ 5 "
                          "repeats per side)")
    lo, hi = bootstrap_ratio_ci(b, c, confidence, resamples, rng)
    p_gt, p_lt = one_sided_p(b, c)
    if direction == "lower":
        p_worse, p_better, w_lo, w_hi = p_gt, p_lt, lo, hi
    else:
        p_worse, p_better = p_lt, p_gt
        w_lo, w_hi = (1 / hi if hi else math.inf), (1 / lo if lo else math.inf)
    p = p_worse if worse >= 1 else p_better
    if math.isnan(lo):
        return Comparison(AMBIGUOUS, ratio, None, None, p, t, spread, "mann-whitney+bootstrap",
                          "baseline is mostly zero: no ratio interval")
    band = f"±{_pct1(t)}"
    if p_worse < alpha and w_lo > 1 and w_hi >= 1 + t:
        v, why = REGRESSED, f"{_pct(worse)} worse (p = {p_worse:.2g}); a change beyond {band} is plausible"
    elif p_better < alpha and w_hi < 1 and w_lo <= 1 / (1 + t):
        v, why = IMPROVED, f"{_down(worse)} better (p = {p_better:.2g})"
    elif w_hi < 1 + t and w_lo > 1 / (1 + t):
        sig = (p_worse < alpha and w_lo > 1) or (p_better < alpha and w_hi < 1)
        v, why = PASS, ("a significant change smaller than " if sig else "any change is within ") + band
    else:
        v, why = AMBIGUOUS, f"not enough evidence either way (p = {p:.2g}, CI reaches beyond {band})"
    return Comparison(v, ratio, lo, hi, p, t, spread, "mann-whitney+bootstrap", why)


def compare_count(base, cand, *, tolerance: float = 0.0, direction: str = "lower") -> Comparison:
    """Compare deterministic counts (launches, bytes, FLOPs): the medians must match within ``tolerance``.

    A count that rose (for lower-is-better) beyond the tolerance is REGRESSED, one that fell is IMPROVED.
    """
    mb = float(np.median(np.asarray(base, dtype=float)))
    mc = float(np.median(np.asarray(cand, dtype=float)))
    ratio = mc / mb if mb else None
    diff = mc - mb
    if abs(diff) <= tolerance * abs(mb) or diff == 0:
        return Comparison(PASS, ratio, None, None, None, tolerance, 0.0, "exact",
                          "unchanged" if diff == 0 else f"changed by {diff:+g}, within tolerance")
    worse = (diff > 0) == (direction == "lower")
    return Comparison(REGRESSED if worse else IMPROVED, ratio, None, None, None, tolerance, 0.0, "exact",
                      f"{_fmt_count(mb)} → {_fmt_count(mc)} ({diff:+,.0f})")


def _fmt_count(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.3g}"


def _pct(r: float) -> str:
    return f"{(r - 1) * 100:.1f} %"


def _down(r: float) -> str:
    return f"{(1 - r) * 100:.1f} %"


def _pct1(t: float) -> str:
    return f"{t * 100:.1f} %"
