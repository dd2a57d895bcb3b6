"""The gate's noise model: compare a metric's baseline samples with the candidate's, with run-level error control.

Timings, per metric (:func:`timing_test`), on the logarithms of the samples (run-to-run noise of GPU timings is
multiplicative, so a change is a ratio):

* **estimate** ``ratio = exp(mean(log c) − mean(log b))``, the ratio of geometric means, and its **confidence
  interval** from Welch's t-test on the logs (``scipy.stats.ttest_ind(equal_var=False)``, ``confidence_interval``);
* **one-sided p-values** of "candidate worse" and "candidate better" from the same test;
* **threshold** ``T``, the configured relative threshold (5 %): the change that matters;
* **band** ``max(T, k · spread)``, ``spread = 1.4826 · MAD / median`` of the baseline (a robust relative standard
  deviation): the PASS band, widened for noisy metrics so that they do not flap to AMBIGUOUS (false REGRESSED
  verdicts are held down by the run-level test, so noise no longer raises the bar for a regression).

Run-level error control (:func:`holm_adjust`): the p-values of all gating timing metrics of a run form one family,
adjusted with the *weighted* Holm step-down procedure (Holm 1979, "A simple sequentially rejective multiple test
procedure", Scand. J. Statist. 6:65–70, weighted form) so that the probability that *any* metric of an unchanged
run is called REGRESSED stays ≤ α, whatever the correlation between metrics. Weights spend α where the time is:
kernels share 3/4 of it in proportion to their share of kernel time, the whole-run metrics share the other 1/4
(:func:`family_weights`). A kernel holding 20 % of GPU time is tested at about 0.15 · α whatever the kernel count.

Decision (:func:`decide`), with ``q`` the adjusted p-value and ratios oriented so that above 1 is worse:

* REGRESSED: ``q_worse < α`` **and** the estimate ≥ 1 + T/2 **and** the upper end of the CI the outputs show
  (``confidence``, 95 % by default) ≥ 1 + T — significant at run level, at least half the threshold, and a change of
  the full threshold is not excluded by that CI (a precisely measured change smaller than T, its whole CI under
  1 + T, is PASS: a +4.6 % change with CI [+4.2, +4.9] % against a 5 % threshold once read REGRESSED beside a note
  "a change of 5.0 % or more is plausible", from a wider one-sided 99 % bound no output showed);
* IMPROVED: the mirror image;
* PASS: otherwise, when the equivalence test passes: the two one-sided tests (TOST) reject a change of ±band at
  level ``1 − confidence`` each, i.e. the ``1 − 2(1 − confidence)`` CI (90 % by default) lies inside
  ``(1/(1+band), 1+band)``;
* AMBIGUOUS: neither; :func:`repeats_needed` says how many more candidate runs would detect a change of T.

When a side has fewer than 5 runs (the exact test bound ``1 / C(n_b + n_c, n_b)`` of the earlier Mann-Whitney
gate exceeds α = 0.01), no test is trusted and the ratio of medians alone is compared with T
(``method = "threshold"``, with T widened to the band as the decision threshold). A baseline of **one run** measures
no noise at all: its band is ``max(T, k · UNMEASURED_NOISE)`` (:data:`UNMEASURED_NOISE`, 10 %: 2 × 10 % = 20 %), and a
change over T but inside that band is AMBIGUOUS — one run each side cannot tell it from run-to-run noise — never
REGRESSED (a 1-vs-1 gate at 5 % failed on noise alone). Non-positive samples (a kernel that vanished) are tested on
the raw values.

Deterministic counts (:func:`compare_count`) compare the medians exactly (within an optional relative tolerance).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import nct, t as student_t, ttest_ind

from gpulens.gate.result import AMBIGUOUS, IMPROVED, PASS, REGRESSED

MAD_TO_SIGMA = 1.4826
#: Run-to-run noise assumed for a timing whose baseline is one run (nothing measured; fraction). GPU timings of
#: unchanged code vary by more than 10 % between CI runs (NVIDIA/warp#1142: false positives above 10 %; power
#: throttling costs up to 15 % on B200, flashinfer-ai/flashinfer#2899 — /work/shared/reference/gate-and-dashboard.md);
#: with the default noise multiplier 2 the band is 20 %, PyTorch HUD's latency limit (ratio ≤ 1.20, test-infra#7684).
UNMEASURED_NOISE = 0.10
#: Fraction of α given to the kernels (in proportion to their share); the rest goes to the whole-run metrics.
KERNEL_ALPHA_FRACTION = 0.75
#: Power used by :func:`repeats_needed`.
TARGET_POWER = 0.95
METHOD = "welch-log-t+holm"


@dataclass
class Comparison:
    """Outcome of one metric's comparison.

    Attributes:
        verdict: PASS, IMPROVED, REGRESSED or AMBIGUOUS.
        ratio: the estimated ratio candidate / baseline (ratio of geometric means; of medians for
            ``method = "threshold"``; of medians for counts); None when undefined.
        ci_low, ci_high: confidence interval of ``ratio`` at the configured confidence (None when not tested).
        p_value: one-sided p in the direction of the observed change, before adjustment (None when not tested).
        threshold: the configured relative threshold T (the change that matters) [fraction]; with
            ``method = "threshold"`` the decision uses :attr:`band` (T widened by the baseline noise).
        spread: the baseline's robust relative spread (fraction).
        method: ``"welch-log-t+holm"``, ``"threshold"`` (too few samples for a test) or ``"exact"``.
        reason: one sentence explaining the verdict.
        p_adjusted: Holm-adjusted p in the direction of the observed change (None when not tested).
        repeats_needed: for AMBIGUOUS, runs to add per side to detect a change of T with 95 % power.
        band: half-width of the PASS band, ``max(T, k · spread)`` (None for counts).
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
    p_adjusted: float | None = None
    repeats_needed: int | None = None
    band: float | None = None


@dataclass
class TimingTest:
    """What the data say about one timing metric before the run-level adjustment (see :func:`timing_test`).

    Attributes:
        ratio, ci_low, ci_high: estimate and CI at ``confidence`` (oriented as measured, not by direction).
        eq_low, eq_high: the TOST interval (``1 − 2(1 − confidence)`` CI) used for the PASS band.
        p_worse, p_better: one-sided p-values of "candidate worse" / "candidate better" (direction applied).
        sd_log: pooled standard deviation of the log samples (for the power estimate).
        n_base, n_cand: sample sizes.
        threshold, spread, direction, band: as in :class:`Comparison`.
        diff, se, df: the Welch estimate of the difference (of the logs, or of the values relative to the baseline
            mean for ``welch-raw``), its standard error and degrees of freedom (for bounds at other levels).
        method: ``welch-log-t+holm`` or ``welch-raw-t+holm`` (non-positive samples).
        noise_multiplier: k of the band (named in the reason when the band is wider than T).
        sd_base_log, sd_cand_log: each side's own SD of the logs (NaN: unknown, :attr:`sd_log` stands for both), for
            :func:`repeats_needed` — a quiet baseline and a noisy candidate need candidate runs, not baseline ones.
    """

    ratio: float
    ci_low: float
    ci_high: float
    eq_low: float
    eq_high: float
    p_worse: float
    p_better: float
    sd_log: float
    n_base: int
    n_cand: int
    threshold: float
    spread: float
    direction: str
    method: str = METHOD
    band: float = 0.0
    diff: float = 0.0
    se: float = 0.0
    df: float = math.inf
    noise_multiplier: float = 2.0
    sd_base_log: float = math.nan
    sd_cand_log: float = math.nan


def limit_text(threshold: float, band: float, spread: float, noise_multiplier: float) -> str:
    """The limit a timing was held to, named with its parts as every gate report's columns name them
    (``threshold``, ``baseline noise``, ``PASS band``): ``"the 5.0 % threshold"`` when the band is the configured
    threshold T; ``"the 14.8 % PASS band — 2 × baseline noise 7.4 %, wider than the 5.0 % threshold"`` when the baseline's noise
    widened it (``band = max(T, k · spread)``, module docstring), band and noise with the decimals
    :func:`noise_band_texts` gives them so that k × the noise shown is the band shown ("8.90 % … 2 × 4.45 %", never
    "8.9 % … 2 × 4.4 %"). Fractions in, percent out."""
    if band > threshold and spread > 0:
        noise, wide = noise_band_texts(band, spread, threshold)
        return (f"the {wide} PASS band — {noise_multiplier:g} × baseline noise {noise}, wider than the "
                f"{_pct1(threshold)} threshold")
    return f"the {_pct1(threshold)} threshold"


def unmeasured_limit_text(threshold: float, band: float, noise_multiplier: float) -> str:
    """:func:`limit_text` for a baseline of one run, whose noise is assumed (:data:`UNMEASURED_NOISE`), not
    measured: ``"the 20.0 % PASS band — 2 × run-to-run noise assumed 10.0 % (one baseline run measures none),
    wider than the 5.0 % threshold"``; the threshold alone when it is the larger."""
    if band > threshold:
        return (f"the {_pct1(band)} PASS band — {noise_multiplier:g} × run-to-run noise assumed "
                f"{_pct1(UNMEASURED_NOISE)} (one baseline run measures none), wider than the {_pct1(threshold)} "
                "threshold")
    return f"the {_pct1(threshold)} threshold"


def noise_band_texts(band: float | None, spread: float | None, threshold: float | None) -> tuple[str, str]:
    """The baseline noise and the PASS band as percentages that add up (``"4.45 %"``, ``"8.90 %"``; ``""`` for a
    missing figure). Where the noise widened the band (``band = k · spread`` > T), the band shown is k × the noise
    shown, with the fewest decimals (1 to 3) at which that is also the band rounded — a band of 8.8956 % from a
    noise of 4.4478 % read "8.9 % — 2 × 4.4 %"; now "8.90 % — 2 × 4.45 %" — else 2 decimals, the band derived from
    the noise shown (within 0.01 percentage point of the band). One decimal otherwise. Halves round up
    (:func:`gpulens.units.fixed_half_up`)."""
    from gpulens.units import fixed_half_up

    def pct(v: float | None, d: int = 1) -> str:
        return "" if v is None else f"{fixed_half_up(100 * v, d)} %"

    if band is None or not spread or band <= (threshold or 0) or not math.isfinite(band / spread):
        return pct(spread), pct(band)
    k = round(band / spread, 6)
    for d in (1, 2, 3):
        shown = float(fixed_half_up(100 * spread, d))
        if fixed_half_up(k * shown, d) == fixed_half_up(100 * band, d):
            return f"{fixed_half_up(100 * spread, d)} %", f"{fixed_half_up(k * shown, d)} %"
    shown = float(fixed_half_up(100 * spread, 2))
    return f"{fixed_half_up(100 * spread, 2)} %", f"{fixed_half_up(k * shown, 2)} %"


def relative_spread(samples: np.ndarray) -> float:
    """Robust relative spread: ``1.4826 · median(|x − median(x)|) / median(x)`` (0 for < 2 samples or median 0)."""
    x = np.asarray(samples, dtype=float)
    med = float(np.median(x)) if x.size else 0.0
    if x.size < 2 or med == 0:
        return 0.0
    return MAD_TO_SIGMA * float(np.median(np.abs(x - med))) / abs(med)


def min_p_value(n_base: int, n_cand: int) -> float:
    """Smallest one-sided p an exact Mann-Whitney U test can give for these sample sizes: ``1 / C(n_b+n_c, n_b)``.

    Used as the "enough runs for a test" rule: below 5 runs per side it exceeds α = 0.01. Integer true division: the
    binomial of 1000 runs a side (≈ 10⁶⁰⁰) is past any float, and ``1.0 / C`` raised ``OverflowError``; ``1 / C`` is
    computed exactly and rounds to 0.0."""
    if n_base < 1 or n_cand < 1:
        return 1.0
    return 1 / math.comb(n_base + n_cand, n_base)


def _welch_many(b: np.ndarray, c: np.ndarray, confidence: float):
    """Two-sided Welch tests of mean(c) − mean(b) row by row (2-D arrays, one scipy call): the differences, the CI at
    ``confidence``, the CI at the TOST level ``1 − 2(1 − confidence)``, and the one-sided p of "c greater" and of
    "c less". Rows without any noise (every sample equal on both sides) get the exact difference and p 0 or 1."""
    d = c.mean(axis=1) - b.mean(axis=1)
    exact = (np.ptp(b, axis=1) == 0) & (np.ptp(c, axis=1) == 0)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's "precision loss" on nearly equal samples
        res = ttest_ind(c, b, equal_var=False, axis=1)
        ci = res.confidence_interval(confidence)
        eq = res.confidence_interval(max(1 - 2 * (1 - confidence), 0.5))
    stat, p2 = np.asarray(res.statistic, dtype=float), np.asarray(res.pvalue, dtype=float)
    p_gt = np.where(stat > 0, p2 / 2, 1 - p2 / 2)
    lo, hi = np.asarray(ci.low, dtype=float), np.asarray(ci.high, dtype=float)
    elo, ehi = np.asarray(eq.low, dtype=float), np.asarray(eq.high, dtype=float)
    lo, hi, elo, ehi = (np.where(exact, d, a) for a in (lo, hi, elo, ehi))
    p_lt = np.where(exact, np.where(d < 0, 0.0, 1.0), 1 - p_gt)
    p_gt = np.where(exact, np.where(d > 0, 0.0, 1.0), p_gt)
    bad = np.isnan(stat) & ~exact
    lo, elo = np.where(bad, -np.inf, lo), np.where(bad, -np.inf, elo)
    hi, ehi = np.where(bad, np.inf, hi), np.where(bad, np.inf, ehi)
    p_gt, p_lt = np.where(bad, 1.0, p_gt), np.where(bad, 1.0, p_lt)
    se = np.sqrt(b.var(axis=1, ddof=1) / b.shape[1] + c.var(axis=1, ddof=1) / c.shape[1])
    return d, lo, hi, elo, ehi, p_gt, p_lt, se, np.asarray(res.df, dtype=float)


def timing_test(base, cand, *, threshold: float = 0.05, noise_multiplier: float = 2.0, confidence: float = 0.95,
                direction: str = "lower") -> TimingTest | Comparison:
    """Test one timing metric (module docstring). Returns a final :class:`Comparison` when no test applies (zero
    baseline, or too few runs: ``method = "threshold"``), else a :class:`TimingTest` for :func:`decide`."""
    return timing_tests([(base, cand)], [threshold], [noise_multiplier], [direction], confidence)[0]


def timing_tests(pairs, thresholds, noise_multipliers, directions, confidence: float = 0.95) -> list:
    """:func:`timing_test` for many metrics at once: metrics with the same run counts share one vectorised
    ``scipy.stats.ttest_ind`` call. ``pairs``: ``[(base samples, candidate samples)]``; the other arguments are
    parallel lists. Returns a list of :class:`TimingTest` or final :class:`Comparison`."""
    out: list = [None] * len(pairs)
    groups: dict[tuple, list[int]] = {}
    prepared = []
    for i, ((base, cand), thr, k, dirn) in enumerate(zip(pairs, thresholds, noise_multipliers, directions)):
        b, c = np.asarray(base, dtype=float), np.asarray(cand, dtype=float)
        spread = relative_spread(b)
        t = max(thr, k * spread)  # the PASS band; with no test (too few runs) also the decision threshold
        mb, mc = float(np.median(b)), float(np.median(c))
        prepared.append((b, c, t, spread, dirn))
        if mb == 0 or not math.isfinite(mc / mb):  # a baseline of 5e-324 ns: the ratio overflows as from zero
            why = "zero in the baseline" if mb == 0 else f"the baseline's {mb:.3g} is too small to compare with"
            out[i] = Comparison(PASS, None, None, None, None, t, spread, "exact", "zero in both") if mc == 0 else \
                Comparison(REGRESSED if dirn == "lower" else IMPROVED, None, None, None, None, t, spread, "exact",
                           f"{why}, non-zero in the candidate")
        elif min_p_value(b.size, c.size) > 0.01 or min(b.size, c.size) < 2:
            # too few runs for a test; also one run on a side however many the other has (100 baseline runs vs
            # one candidate): one sample has no variance, Welch's t is undefined there
            if b.size < 2:  # one baseline run: no noise measured, assume UNMEASURED_NOISE
                t = max(thr, k * UNMEASURED_NOISE)
            out[i] = _threshold_only(mb, mc, float(thr), t, spread, dirn, b.size, c.size, float(k))
        else:
            groups.setdefault((b.size, c.size, bool((b > 0).all() and (c > 0).all())), []).append(i)
    for (_, _, positive), idx in groups.items():
        if positive:
            B = np.log(np.stack([prepared[i][0] for i in idx]))
            C = np.log(np.stack([prepared[i][1] for i in idx]))
            back, method = np.exp, METHOD
        else:  # a kernel that vanished from some runs: test the raw values, relative to the baseline's mean
            m = np.array([prepared[i][0].mean() or np.median(prepared[i][0]) for i in idx])[:, None]
            B = np.stack([prepared[i][0] for i in idx]) / m
            C = np.stack([prepared[i][1] for i in idx]) / m
            back, method = (lambda x: 1 + x), "welch-raw-t+holm"
        d, lo, hi, elo, ehi, p_gt, p_lt, se, df = _welch_many(B, C, confidence)
        sdb, sdc = np.sqrt(B.var(axis=1, ddof=1)), np.sqrt(C.var(axis=1, ddof=1))
        sd = np.sqrt((sdb ** 2 + sdc ** 2) / 2)
        for j, i in enumerate(idx):
            b, c, t, spread, dirn = prepared[i]
            pw, pb = (p_gt[j], p_lt[j]) if dirn == "lower" else (p_lt[j], p_gt[j])
            out[i] = TimingTest(float(back(d[j])), float(back(lo[j])), float(back(hi[j])), float(back(elo[j])),
                                float(back(ehi[j])), float(pw), float(pb), float(sd[j]), b.size, c.size,
                                float(thresholds[i]), spread, dirn, method, t, float(d[j]), float(se[j]),
                                float(df[j]) if np.isfinite(df[j]) else math.inf, float(noise_multipliers[i]),
                                float(sdb[j]), float(sdc[j]))
    return out


def _threshold_only(mb: float, mc: float, thr: float, t: float, spread: float, direction: str, nb: int, nc: int,
                    k: float) -> Comparison:
    """Too few runs for a test: the ratio of medians against the band ``t = max(thr, k · spread)`` (one baseline
    run: ``max(thr, k · UNMEASURED_NOISE)``); the result keeps the configured ``thr`` as its threshold and ``t`` as
    its band, and the reason names both. With one baseline run a change between ``thr`` and ``t`` is AMBIGUOUS."""
    ratio = mc / mb
    worse = ratio if direction == "lower" else (1 / ratio if ratio else math.inf)
    unmeasured = nb < 2
    limit = unmeasured_limit_text(thr, t, k) if unmeasured else limit_text(thr, t, spread, k)
    if worse >= 1 + t:
        v, why = REGRESSED, f"{_pct(worse)} worse, over {limit}"
    elif worse <= 1 / (1 + t):
        v, why = IMPROVED, f"{_down(worse)} better, over {limit}"
    elif unmeasured and (worse >= 1 + thr or worse <= 1 / (1 + thr)):
        change = f"{_pct(worse)} worse" if worse > 1 else f"{_down(worse)} better"
        v, why = AMBIGUOUS, (f"{change}: over the {_pct1(thr)} threshold but within {limit}, which one baseline run "
                             "cannot tell from run-to-run noise")
    else:
        v, why = PASS, f"within {limit}"
    return Comparison(v, ratio, None, None, None, thr, spread, "threshold", band=t, reason=
                      f"{why} (no test: {nb} vs {nc} runs are too few; record ≥ 5 repeats per side)")


def _oriented(x: float, direction: str) -> float:
    return x if direction == "lower" else (1 / x if x > 0 else math.inf)


def decide(test: TimingTest, q_worse: float, q_better: float, alpha: float, level: float | None = None) -> Comparison:
    """The verdict of one tested metric from its (Holm-adjusted) one-sided p-values (module docstring rule).

    ``level``: the metric's own share of α in the family (``weight · α``), for the power estimate of an AMBIGUOUS
    verdict (default α)."""
    t, dirn, wide = test.threshold, test.direction, max(test.band, test.threshold)
    worse = _oriented(test.ratio, dirn)
    # "a change of T is not excluded": the CI the outputs show (:attr:`TimingTest.ci_low`/``ci_high``) reaches it —
    # never a wider interval than the one shown, so that a REGRESSED row's CI always reaches its threshold
    lo, hi = sorted((_oriented(test.ci_low, dirn), _oriented(test.ci_high, dirn)))
    e_lo, e_hi = sorted((_oriented(test.eq_low, dirn), _oriented(test.eq_high, dirn)))
    half, band = 1 + t / 2, limit_text(t, wide, test.spread, test.noise_multiplier)
    q = q_worse if worse >= 1 else q_better
    p = test.p_worse if worse >= 1 else test.p_better
    extra: dict = {}
    if q_worse < alpha and worse >= half and hi >= 1 + t:
        v, why = REGRESSED, f"{_pct(worse)} worse (adjusted p = {q_worse:.2g}); the CI reaches the {_pct1(t)} " \
                            "threshold"
    elif q_better < alpha and worse <= 1 / half and lo <= 1 / (1 + t):
        v, why = IMPROVED, f"{_down(worse)} better (adjusted p = {q_better:.2g})"
    elif e_hi < 1 + wide and e_lo > 1 / (1 + wide):
        sig = (q_worse < alpha and worse > 1) or (q_better < alpha and worse < 1)
        v, why = PASS, ("a significant change smaller than " if sig else "any change is within ") + band
    else:
        n = repeats_needed(test, level if level else alpha)
        extra["repeats_needed"] = n
        more = (f"; {n} more candidate runs would detect a {_pct1(t)} change" if n is not None
                else f"; the baseline's {test.n_base} runs are too few to detect a {_pct1(t)} change: save it again "
                     "with more runs" if baseline_limits(test, level if level else alpha)
                else "; too noisy for more repeats to help: reduce the noise")
        change = f"+{_pct(worse)} worse" if worse >= 1 else f"{_down(worse)} better"
        v, why = AMBIGUOUS, f"not enough evidence either way ({change}, adjusted p = {q:.2g}, CI reaches beyond " \
                            f"{band}){more}"
    return Comparison(v, test.ratio, test.ci_low, test.ci_high, p, t, test.spread, test.method, why,
                      p_adjusted=q, band=wide, **extra)


def _side_sds(test: TimingTest) -> tuple[float, float]:
    """(baseline, candidate) SD of the logs; the pooled :attr:`TimingTest.sd_log` for a side not recorded."""
    sb, sc = test.sd_base_log, test.sd_cand_log
    return (sb if sb == sb else test.sd_log), (sc if sc == sc else test.sd_log)


def repeats_needed(test: TimingTest, level: float, power: float = TARGET_POWER, limit: int = 1000) -> int | None:
    """Candidate runs to add — the baseline's ``n_b`` runs stay as saved: a gate re-runs the candidate, not the
    stored baseline — so that a one-sided Welch test at ``level`` detects a change of the threshold T with
    probability ``power``, for each side's own noise (SD of the logs ``s_b``, ``s_c``). Power from the noncentral t
    distribution (``scipy.stats.nct``) with ``n_c`` candidate runs: standard error ``se = √(s_b²/n_b + s_c²/n_c)``,
    noncentrality ``log(1+T) / se``, Welch–Satterthwaite df. None when more than ``limit`` candidate runs would be
    needed (also when the baseline's own runs are too few for any candidate count: :func:`baseline_limits`); 0 when
    the current runs already suffice (the data were just unlucky)."""
    sb, sc = _side_sds(test)
    eff, nb, n0 = math.log1p(test.threshold), max(test.n_base, 1), test.n_cand
    if not (sb > 0 or sc > 0):
        return 0
    if baseline_limits(test, level, power):
        return None
    vb = sb * sb / nb
    for n in range(max(n0, 2), limit + 1):
        vc = sc * sc / n
        den = (vb * vb / (nb - 1) if nb > 1 else 0.0) + vc * vc / (n - 1)
        df = (vb + vc) ** 2 / den if den > 0 else math.inf
        if nct.sf(student_t.isf(level, df), df, eff / math.sqrt(vb + vc)) >= power:
            return n - n0
    return None


def baseline_limits(test: TimingTest, level: float, power: float = TARGET_POWER) -> bool:
    """True when no number of candidate runs can detect a change of T against the baseline's ``n_b`` runs: even with
    the candidate's mean known exactly (the limit of :func:`repeats_needed` as ``n_c`` grows: se ``s_b/√n_b``, Welch
    df ``n_b − 1``) the power stays under ``power`` — the baseline must be saved again with more runs. One baseline
    run (no noise of its own measured) always limits."""
    sb, _ = _side_sds(test)
    nb = test.n_base
    if nb < 2:
        return True
    if not sb > 0:
        return False
    return float(nct.sf(student_t.isf(level, nb - 1), nb - 1, math.log1p(test.threshold) * math.sqrt(nb) / sb)) < power


def holm_adjust(p_values, weights=None) -> np.ndarray:
    """Weighted Holm step-down adjusted p-values (Holm 1979; weights w_i > 0, normalised to sum 1).

    Order hypotheses by ``p_i / w_i``; the adjusted p of the j-th is
    ``max_{k ≤ j} min(1, p_(k) · Σ_{l ≥ k} w_(l) / w_(k))``. Rejecting ``adjusted p < α`` controls the family-wise
    error rate at α under any dependence. Equal weights give the ordinary Holm procedure
    (``statsmodels.stats.multitest.multipletests(method="holm")``), which has no weighted form."""
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return p
    w = np.ones_like(p) if weights is None else np.asarray(weights, dtype=float)
    w = w / w.sum()
    order = np.argsort(p / w, kind="stable")
    ps, ws = p[order], w[order]
    remaining = np.cumsum(ws[::-1])[::-1]
    adj = np.minimum(1.0, np.maximum.accumulate(ps * remaining / ws))
    out = np.empty_like(adj)
    out[order] = adj
    return out


def family_weights(is_kernel, shares) -> np.ndarray:
    """Holm weights of a run's gating timing metrics: kernels share :data:`KERNEL_ALPHA_FRACTION` of α in
    proportion to their share of kernel time (floor 1e-6), whole-run metrics share the rest equally; a group
    that is absent leaves its part to the other."""
    k = np.asarray(is_kernel, dtype=bool)
    s = np.maximum(np.nan_to_num(np.asarray(shares, dtype=float)), 1e-6)
    w = np.zeros(k.size)
    fk = KERNEL_ALPHA_FRACTION if (~k).any() else 1.0
    if k.any():
        w[k] = fk * s[k] / s[k].sum()
    if (~k).any():
        w[~k] = (1 - fk if k.any() else 1.0) / (~k).sum()
    return w


def compare_timing(base, cand, *, threshold: float = 0.05, noise_multiplier: float = 2.0, alpha: float = 0.01,
                   confidence: float = 0.95, direction: str = "lower", **_ignored) -> Comparison:
    """Compare one timing metric on its own (a family of one: no adjustment). The gate adjusts across the run's
    metrics instead (:func:`gpulens.gate.compare.run_gate`).

    Args:
        base, cand: one value per run (ns or any positive unit).
        threshold: configured relative threshold (0.05 = 5 %).
        noise_multiplier: k in ``T = max(threshold, k · spread)``.
        alpha: one-sided significance level.
        confidence: CI level (the PASS band uses the TOST interval, ``1 − 2(1 − confidence)``).
        direction: ``"lower"`` or ``"higher"`` is better.
    """
    test = timing_test(base, cand, threshold=threshold, noise_multiplier=noise_multiplier, confidence=confidence,
                       direction=direction)
    if isinstance(test, Comparison):
        return test
    return decide(test, test.p_worse, test.p_better, alpha)


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
