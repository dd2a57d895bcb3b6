"""kernel_variation's Kruskal–Wallis p-value (computed without importing scipy.stats, which cost ~1 s per run)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpulens.analyzers.variation import kruskal_pvalue


def test_textbook_example_by_hand():
    # ranks of the pooled 1..10: x gets 1,3,5,7,9 (R=25), y gets 2,4,6,8,10 (R=30); N = 10, no ties
    # H = 12 / (10 · 11) · (25²/5 + 30²/5) − 3 · 11 = 12/110 · 305 − 33 = 3/11
    # p = P(χ²₁ > 3/11) = erfc(sqrt(H / 2)) (χ² with 1 degree of freedom)
    h = 3 / 11
    p = kruskal_pvalue([np.array([1, 3, 5, 7, 9.0]), np.array([2, 4, 6, 8, 10.0])])
    assert p == pytest.approx(math.erfc(math.sqrt(h / 2)), rel=1e-12)


def test_ties_use_the_tie_correction():
    # x = 1,1,1; y = 2,2,2; z = 2,2 → the three 1s share rank 2, the five 2s share rank 6 (ranks 4..8)
    # R = 6, 18, 12; N = 8: Σ R²/n = 12 + 108 + 72 = 192; H0 = 12/72 · 192 − 27 = 5
    # tie correction 1 − ((27 − 3) + (125 − 5)) / (512 − 8) = 1 − 144/504 = 5/7 → H = 7
    # p = P(χ²₂ > 7) = exp(−7/2) (χ² with 2 degrees of freedom)
    p = kruskal_pvalue([np.array([1, 1, 1.0]), np.array([2, 2, 2.0]), np.array([2, 2.0])])
    assert p == pytest.approx(math.exp(-3.5), rel=1e-12)


def test_identical_values_give_nan():
    with np.errstate(invalid="ignore", divide="ignore"):
        assert math.isnan(kruskal_pvalue([np.full(4, 5.0), np.full(3, 5.0)]))


def test_same_figure_as_scipy():
    # the χ² tail is a closed form (gpulens._chi_square), not scipy's chdtrc: equal to 1e-12 relative, not bit for bit
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    for trial in range(200):
        samples = []
        for _ in range(int(rng.integers(2, 6))):
            m = int(rng.integers(3, 200))
            samples.append(rng.integers(0, 6, m).astype(float) if trial % 2 else rng.normal(1e4, 300, m).round())
        with np.errstate(invalid="ignore", divide="ignore"):
            assert kruskal_pvalue(samples) == pytest.approx(float(stats.kruskal(*samples).pvalue), rel=1e-12)


def test_a_nan_duration_propagates_like_scipy():
    stats = pytest.importorskip("scipy.stats")
    samples = [np.array([1.0, np.nan, 3.0]), np.array([2.0, 4.0, 6.0])]
    assert math.isnan(kruskal_pvalue(samples))
    assert math.isnan(float(stats.kruskal(*samples).pvalue))


def test_counted_and_sorted_ranks_agree_with_scipy_on_every_path():
    # whole numbers over a short range are counted per value (no sort); fractions and very wide ranges are sorted
    stats = pytest.importorskip("scipy.stats")
    from gpulens.analyzers.variation import _average_ranks

    rng = np.random.default_rng(11)
    for values in (rng.integers(1500, 1600, 3000).astype(float),  # many ties, counted
                   rng.integers(-50, 50, 400).astype(float),  # negative whole numbers, counted
                   rng.integers(0, 10 ** 9, 400).astype(float),  # range far above the count: sorted
                   rng.normal(0, 1, 400).round(1)):  # fractions: sorted
        ranked, idx, counts = _average_ranks(values)
        assert ranked.tolist() == stats.rankdata(values).tolist()
        distinct = np.unique(values, return_counts=True)
        assert counts.tolist() == distinct[1].tolist()
        assert idx.tolist() == np.concatenate([[0], np.cumsum(distinct[1])[:-1]]).tolist()
        groups = np.array_split(values, 3)
        with np.errstate(invalid="ignore", divide="ignore"):
            assert kruskal_pvalue(groups) == pytest.approx(float(stats.kruskal(*groups).pvalue), rel=1e-12)


def test_variation_groups_each_kernels_rows_as_a_groupby_does(monkeypatch):
    # kernels' rows interleaved, first seen in code order 2, 0, 1; per kernel and dimension the group medians and
    # the p-value must be those of its own rows (pandas groupby of the frame, written here as the reference)
    import pandas as pd
    stats = pytest.importorskip("scipy.stats")
    from gpulens.analyzers import variation

    rng = np.random.default_rng(4)
    n = 900
    code = rng.integers(0, 3, n)
    code[:3] = [2, 0, 1]
    hot = pd.DataFrame({"code": code, "rank": rng.integers(0, 3, n),
                        "step": pd.array(np.where(rng.random(n) < 0.1, -1, rng.integers(0, 4, n)), dtype="Int64"),
                        "dur_ns": (rng.integers(100, 200, n) * (1 + code)).astype("int64")})
    hot.loc[hot["step"] < 0, "step"] = pd.NA
    names = ["a", "b", "c"]
    monkeypatch.setattr(variation, "hot_rows", lambda tl, res: (hot, names))
    t = variation.KernelVariation().analyze(None).table
    for r in t.itertuples():
        g = hot[hot["code"] == names.index(r.name)].dropna(subset=[r.dimension])
        per = [v.to_numpy(dtype=float) for _, v in g.groupby(r.dimension)["dur_ns"] if len(v) >= 3]
        meds = [float(np.median(v)) for v in per]
        assert r.groups == len(per) and r.min_median_ns == min(meds) and r.max_median_ns == max(meds)
        assert r.p_value == pytest.approx(float(stats.kruskal(*per).pvalue), rel=1e-12)
    assert sorted(set(t["name"])) == names and len(t) == 6
