"""Kernels whose duration varies across steps or ranks beyond their noise.

For each hot kernel and each dimension (``step``, ``rank``) with at least two groups of at least 3 instances: a
Kruskal–Wallis H-test (as ``scipy.stats.kruskal`` computes it, :func:`kruskal_pvalue`; rank-based, no normality
assumed) of "all groups have the same duration distribution", and the spread of the group medians, (max − min) / min × 100. A kernel **varies** when
p < 0.01 and the spread exceeds 10 % — significant and large enough to matter. The slowest group is named.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._groupstats import stable_order
from gpulens.analyzers._steps import hot_rows
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns, pct_words

ALPHA, MIN_SPREAD_PCT, MIN_GROUP = 0.01, 10.0, 3

COLUMNS = {
    "name": "kernel name [text]",
    "dimension": "step or rank [text]",
    "groups": "steps or ranks compared (with at least 3 instances each) [count]",
    "min_median_ns": "fastest group's median duration [ns]",
    "max_median_ns": "slowest group's median duration [ns]",
    "median_ratio": "slowest / fastest group median (36 reads better than a spread of 3,500 %) [ratio]",
    "spread_pct": "(max − min) / min of the group medians × 100 [%]",
    "p_value": "Kruskal–Wallis p-value of 'all groups alike' [ratio]",
    "varies": "p < 0.01 and spread > 10 % [bool]",
    "slowest_group": "step number or rank of the slowest group [id]",
    "excess_ns": "Σ over groups of instances × (group median − fastest median): what the kernel would save if every "
                 "group ran at the fastest group's median [ns]",
}


def kruskal_pvalue(samples: list[np.ndarray]) -> float:
    """p-value of the Kruskal–Wallis H-test of 1-D float samples without NaN (two or more, none empty): the same
    arithmetic, operation for operation, as ``scipy.stats.kruskal(*samples).pvalue`` (SciPy 1.17, ``_stats_py``):
    average ranks of the pooled data with tie counts, H = 12 / (N (N + 1)) · Σ R_i² / n_i − 3 (N + 1), divided by
    the tie correction 1 − Σ (t³ − t) / (N³ − N), and the χ² survival function with k − 1 degrees of freedom
    (:func:`gpulens._chi_square.chi2_sf`, the closed form of ``scipy.special.chdtrc`` for whole degrees of freedom:
    equal to ~1e-14 relative, not to the last bit; importing ``scipy.stats`` cost about a second of every analysis,
    ``scipy.special`` 0.14–0.3 s). NaN when every value is identical (0 / 0) or a value is NaN (scipy propagates it)."""
    from gpulens._chi_square import chi2_sf

    n = [len(s) for s in samples]
    total = sum(n)
    alldata = np.concatenate([np.asarray(s, dtype=np.float64) for s in samples])
    if np.isnan(alldata).any():  # scipy's nan_policy="propagate"
        return float("nan")
    ranked, idx, counts = _average_ranks(alldata)
    ties_n = np.zeros(total, dtype=np.float64)
    ties_n[idx] = counts.astype(np.float64)
    ties = 1 - np.sum(ties_n ** 3 - ties_n, axis=-1) / (total ** 3 - total)
    cut = [0]
    for k in n:
        cut.append(cut[-1] + k)
    ssbn = sum(np.sum(ranked[cut[i]:cut[i + 1]], axis=-1) ** 2 / n[i] for i in range(len(samples)))
    h = 12.0 / (total * (total + 1)) * ssbn - 3 * (total + 1)
    h /= ties
    return chi2_sf(len(samples) - 1, float(h))


def _average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Average ranks (1-based, ties sharing the mean of their ordinals; float64) of the float64 values ``x`` (no
    NaN), with the position in sorted order of each distinct value's first occurrence and its count (distinct values
    ascending). Each rank is ``float(first + 1) + (float(count) − 1) / 2``, as scipy's ``rankdata`` builds it.

    Whole numbers spanning a range of at most a few times their count (durations in ns) are counted per value
    (``np.bincount``: no sort); other values are sorted (any sort will do: tied values get one average rank)."""
    total = len(x)
    lo, hi = (float(x.min()), float(x.max())) if total else (0.0, 0.0)
    if total and max(abs(lo), abs(hi)) < 2.0 ** 53 and hi - lo <= 4 * total + 65536 \
            and bool((x == np.floor(x)).all()):
        off = (x - lo).astype(np.int64)
        per_value = np.bincount(off)
        present = np.flatnonzero(per_value)
        counts = per_value[present]
        idx = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        avg = np.zeros(len(per_value), dtype=np.float64)
        avg[present] = (idx + 1).astype(np.float64) + (counts.astype(np.float64) - 1) / 2
        return avg[off], idx, counts
    j = np.argsort(x)  # numpy's default sort: vectorised, several times quicker than the stable one
    y = x[j]
    first = np.concatenate([[True], y[:-1] != y[1:]])
    idx = np.arange(total)[first]
    counts = np.diff(idx, append=np.asarray([total], dtype=idx.dtype))
    ordinal = np.arange(1, total + 1, dtype=np.float64)
    ranks = np.repeat(ordinal[first] + (counts.astype(np.float64) - 1) / 2, counts)
    ranked = np.empty(total, dtype=np.float64)
    ranked[j] = ranks
    return ranked, idx, counts


def _groups(key: np.ndarray, dur: np.ndarray) -> dict[Any, np.ndarray]:
    """Durations per key (NaN keys left out) in key order, groups of at least :data:`MIN_GROUP` only; one stable
    sort and a split (a pandas group per rank cost seconds at 10,000 ranks)."""
    ok = ~np.isnan(key)
    k, d = key[ok], dur[ok]
    if not len(k):
        return {}
    if k.min() >= 0 and k.max() < 65536 and bool((k == np.floor(k)).all()):  # step numbers, ranks: radix sort
        order = stable_order(k.astype(np.int64))
    else:
        order = np.argsort(k, kind="stable")
    k, d = k[order], d[order]
    cut = np.flatnonzero(np.diff(k)) + 1
    return {key: v for key, v in zip(k[np.r_[0, cut]].tolist(), np.split(d, cut)) if len(v) >= MIN_GROUP}


def spread_text(lo: float, hi: float) -> str:
    """The spread of two group medians as a reader takes it in: a ratio from 2× up ("slowest median 36× the fastest:
    12.30 µs vs 340.00 ns" — "3513 % between medians" read as noise), else the percentage ("+45 % between medians");
    the two medians always beside it."""
    both = f"{fmt_ns(hi)} vs {fmt_ns(lo)}"
    if not (lo > 0) or hi != hi:
        return f"slowest median {both}"
    ratio = hi / lo
    if ratio >= 2:
        r = f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.1f}"
        return f"slowest median {r}× the fastest: {both}"
    return f"+{pct_words(100 * (ratio - 1))} between medians: {both}"


class KernelVariation(Analyzer):
    """Per hot kernel, across steps and across ranks: spread of medians and a Kruskal–Wallis test."""

    name = "kernel_variation"
    order = 66

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        hot, names = hot_rows(timeline, results)
        names = sorted(set(names))
        code_all = hot["code"].to_numpy()
        cols = {"rank": hot["rank"].to_numpy(dtype="float64"),
                "step": hot["step"].to_numpy(dtype="float64", na_value=np.nan)}
        dur_all = hot["dur_ns"].to_numpy(dtype=float)
        # each kernel's rows in row order (one radix sort of the codes), kernels in order of first appearance — a
        # groupby(sort=False) of the codes without a frame of every hot row and a sub-frame per kernel
        order = stable_order(code_all) if len(code_all) else np.zeros(0, dtype=np.int64)
        cuts = np.searchsorted(code_all[order], np.arange(len(names) + 1)) if len(names) else np.zeros(1, np.int64)
        present = np.flatnonzero(cuts[1:] > cuts[:-1])
        rows = []
        for code in present[np.argsort(order[cuts[present]], kind="stable")].tolist():
            name = names[code]
            sel = order[cuts[code]:cuts[code + 1]]
            dur = dur_all[sel]
            for dim in ("step", "rank"):
                groups = _groups(cols[dim][sel], dur)
                if len(groups) < 2:
                    continue
                meds = {key: float(np.median(v)) for key, v in groups.items()}
                lo, hi = min(meds.values()), max(meds.values())
                vals = list(groups.values())
                with np.errstate(invalid="ignore", divide="ignore"):
                    p = kruskal_pvalue(vals)
                if not np.isfinite(p):  # every duration identical (H = 0/0): nothing varies
                    p = 1.0
                spread = 100 * (hi - lo) / lo if lo > 0 else np.nan
                excess = sum(len(groups[key]) * (meds[key] - lo) for key in groups)
                rows.append({"name": name, "dimension": dim, "groups": len(groups), "min_median_ns": lo,
                             "max_median_ns": hi, "median_ratio": hi / lo if lo > 0 else np.nan,
                             "spread_pct": spread, "p_value": p,
                             "varies": bool(p < ALPHA and spread > MIN_SPREAD_PCT),
                             "slowest_group": int(max(meds, key=meds.get)), "excess_ns": excess})
        if not rows:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="fewer than two steps or ranks with 3+ instances of a hot kernel")
        # a complete key (name, dimension last): rows in the same order whatever the order of the trace file
        t = pd.DataFrame(rows).sort_values(["varies", "excess_ns", "name", "dimension"],
                                           ascending=[False, False, True, True], kind="stable")
        t = t.reset_index(drop=True)[list(COLUMNS)]
        findings = [Finding(f"{_clipped(r.name)} varies across {r.dimension}s ({spread_text(r.min_median_ns, r.max_median_ns)})",
                            f"Slowest {r.dimension}: {r.slowest_group}; Kruskal–Wallis p = {r.p_value:.2g}.",
                            severity="info", category="variation", kernel=r.name,
                            action=f"Compare the slowest {r.dimension} with the others (inputs, clocks, contention).")
                    for r in t[t["varies"]].head(5).itertuples()]
        return AnalysisResult(self.name, t, COLUMNS, {"varying": int(t["varies"].sum())}, findings,
                              summary_columns={"varying": "kernel × dimension pairs that vary [count]"})


def _clipped(name: str, n: int = 80) -> str:
    """``name`` within ``n`` characters, a cut one ending in "…" (so that reports put the kernel's label in its
    place: :func:`gpulens.reports._names.label_in_text`; a bare cut showed a raw half-name)."""
    return name if len(name) <= n else name[:n - 1] + "…"

