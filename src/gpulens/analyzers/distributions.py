"""Duration distributions and outliers of the hot kernels: percentiles per kernel, and the slowest instances with
their step and rank (HTA/TraceLens users look for these first when a mean hides a long tail).

Durations are effective (overrun-clipped) ns. Percentiles are numpy's linear interpolation (``np.percentile``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._groupstats import stable_order
from gpulens.analyzers._span import TRACE_OFFSET_DOC, counter_only_reason, durations_unknown, trace_offsets
from gpulens.analyzers._steps import hot_rows
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.intervals import group_order
from gpulens.timeline import GPU_KINDS, Timeline
from gpulens.units import agree, fmt_count, plural

COLUMNS = {
    "name": "kernel name [text]",
    "calls": "instances [count]",
    "total_ns": "summed effective duration [ns]",
    "mean_ns": "mean duration [ns]",
    "p50_ns": "median duration [ns]",
    "p90_ns": "90th percentile [ns]",
    "p99_ns": "99th percentile [ns]",
    "max_ns": "longest instance [ns]",
    "cv": "coefficient of variation: standard deviation / mean [ratio]",
    "tail_ratio": "max / median [ratio]",
}
OUTLIER_COLUMNS = {
    "name": "kernel name [text]",
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number of the instance: the step whose window contains its launch call (any thread of "
            "the process), else its framework op, else its start on a GPU-side step range; unknown when none does "
            "(no steps recorded, or work outside them) [id]",
    "stream_id": "GPU stream [id]",
    "trace_offset_ns": TRACE_OFFSET_DOC,
    "dur_ns": "effective duration [ns]",
    # what the ratio compares against, beside it: the median of the launches with the same grid, not the kernel's
    # p50 over every grid (gunrock MI300X: an 18.64 µs outlier, 2.17× its grid's 8.60 µs, below the kernel's p50 of
    # 20.17 µs read as a contradiction)
    "grid_median_ns": "median duration of the kernel's other launches with the same grid as this one (this launch "
                      "left out: with two launches, the other one): what vs_median compares against (not the "
                      "kernel's p50 over all its grids) [ns]",
    "vs_median": "duration / the median of the kernel's other launches with the same grid (grid_median_ns) [ratio]",
    "start_ns": "start on the Timeline clock [ns]",
}


def _hot_frame(timeline: Timeline, results) -> tuple[pd.DataFrame, list[str]]:
    """Rows of the hot kernels (:func:`gpulens.analyzers._steps.hot_rows`: names as codes) and the sorted names."""
    df, names = hot_rows(timeline, results)
    return df, sorted(set(names))


#: Why duration statistics are skipped for inputs whose kernel durations were lost.
UNKNOWN_DURATIONS = "the kernels' durations were not recorded (timestamps without their digits): no distribution"

class KernelDistributions(Analyzer):
    """p50/p90/p99/max, CV and tail ratio per hot kernel."""

    name = "kernel_distributions"
    order = 62

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        df, names = _hot_frame(timeline, results)
        if not len(df) or durations_unknown(timeline):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=UNKNOWN_DURATIONS if len(df) else
                                  counter_only_reason(timeline) or "no kernels in the trace")
        rows = []
        code = df["code"].to_numpy()
        dur = df["dur_ns"].to_numpy(dtype=float)
        order = stable_order(code)  # each kernel's rows in Timeline order
        cuts = np.searchsorted(code[order], np.arange(len(names) + 1))
        # the codes present and their first rows (each group's first row in the stable order), by first appearance
        uniq = np.flatnonzero(cuts[1:] > cuts[:-1])
        first = order[cuts[uniq]]
        for c in uniq[np.argsort(first)].tolist():  # kernels in order of first appearance
            name = names[c]
            # sorted: float sums (mean, std) then do not depend on the order of the trace file in the last bit
            d = np.sort(dur[order[cuts[c]:cuts[c + 1]]])
            p50, p90, p99 = np.percentile(d, [50, 90, 99])
            mean = d.mean()
            rows.append({"name": name, "calls": len(d), "total_ns": d.sum(), "mean_ns": mean, "p50_ns": p50,
                         "p90_ns": p90, "p99_ns": p99, "max_ns": d.max(), "cv": d.std() / mean if mean else np.nan,
                         "tail_ratio": d.max() / p50 if p50 else np.nan})
        t = pd.DataFrame(rows).sort_values(["total_ns", "name"], ascending=[False, True],
                                           kind="stable").reset_index(drop=True)
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, {"kernels": int(len(t))},
                              summary_columns={"kernels": "hot kernels described [count]"})


def others_median(df: pd.DataFrame, keys: list[str], col: str = "dur_ns") -> np.ndarray:
    """Per row of ``df``: the median of ``col`` over the *other* rows of its ``keys`` group (leave-one-out), NaN for
    a row alone in its group or where the values are unknown; aligned with ``df``'s rows.

    Against the median of the whole group a launch is judged partly against itself: with two launches the median
    is their mean, so the slower can never reach 2× it (MI300A OpenMP offload: a 430.65 ms first launch beside a
    0.63 ms second read "2× the median" of 215.64 ms, a duration no launch had). Leaving the row out compares it with
    the launches it is not; in a large group it is the group's median (one value out moves the middle by at most
    one place). Units: those of ``col`` (ns)."""
    v = df[col].to_numpy(dtype="float64", na_value=np.nan)
    out = np.full(len(v), np.nan)
    known = np.flatnonzero(~np.isnan(v))  # an unknown value is no launch to compare with (as pandas' median skips it)
    if not len(known):
        return out
    g = df.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()[known]
    groups = int(g.max()) + 1
    if groups <= SELECT_GROUPS and not np.signbit(v[known]).any():
        out[known] = _others_median_selected(g, v[known], groups)
        return out
    order = group_order(g, v[known])  # by group, then by value (np.lexsort's permutation, quicker)
    gs, vs = g[order], v[known][order]
    start = np.r_[0, np.flatnonzero(np.diff(gs)) + 1]
    size = np.diff(np.r_[start, len(gs)])
    first, n = np.repeat(start, size), np.repeat(size, size)
    i = np.arange(len(gs)) - first  # the row's place in its sorted group
    m = n - 1  # the others

    def at(k):  # the k-th smallest of the others: skips the row's own place (clipped where there is no other)
        return vs[np.minimum(first + k + (k >= i), len(vs) - 1)]

    med = np.where(m >= 1, (at(np.maximum(m - 1, 0) // 2) + at(m // 2)) / 2, np.nan)
    out[known[order]] = med
    return out


#: Up to this many groups, :func:`others_median` selects each group's few middle values (``np.partition``, one
#: group at a time) instead of sorting every row by (group, value): a Python step per group.
SELECT_GROUPS = 2048


def _others_median_selected(g: np.ndarray, v: np.ndarray, groups: int) -> np.ndarray:
    """:func:`others_median`'s leave-one-out medians from each group's middle order statistics, without a sort.

    In a group of ``n`` values sorted stably (ties in row order) with ``m = n − 1`` others, the row at place ``i``
    has the median ``(at(lo) + at(hi)) / 2``, ``lo = (m − 1) // 2``, ``hi = m // 2``, where ``at(k)`` is the
    ``k``-th smallest value, or the ``k + 1``-th when ``k ≥ i`` (the row itself skipped). So only the values of
    ranks ``lo … hi + 1`` are read (``np.partition``): a row above the ``hi``-th value has ``i > hi`` (median of
    ranks ``lo``, ``hi``), one below the ``lo``-th has ``i < lo`` (ranks ``lo + 1``, ``hi + 1``); a row equal to
    one of those middle values takes its place ``i`` = the values below it + its rank among the equal rows in row
    order — the place the stable sort gives it. The same values added and halved as the sorted route does: the
    same floats. ``g``: dense group codes 0…groups−1 of the rows, ``v``: their values (no NaN, no −0.0)."""
    out = np.full(len(v), np.nan)
    order = stable_order(g)  # each group's rows, in row order
    cuts = np.searchsorted(g[order], np.arange(groups + 1))
    for j in range(groups):
        rows = order[cuts[j]:cuts[j + 1]]
        n = len(rows)
        if n < 2:  # no other launch: NaN
            continue
        x = v[rows]
        m = n - 1
        lo, hi = (m - 1) // 2, m // 2
        ks = sorted({lo, lo + 1, hi, hi + 1})
        part = np.partition(x, ks)
        s_lo, s_lo1, s_hi, s_hi1 = part[lo], part[lo + 1], part[hi], part[hi + 1]
        med = np.empty(n)
        above, below = x > s_hi, x < s_lo
        med[above] = (s_lo + s_hi) / 2
        med[below] = (s_lo1 + s_hi1) / 2
        mid = ~(above | below)
        for val in np.unique(x[mid]):  # the middle values themselves (at most two): by place
            eq = np.flatnonzero(x == val)
            i = int(np.count_nonzero(x < val)) + np.arange(len(eq))
            med[eq] = (np.where(lo >= i, s_lo1, s_lo) + np.where(hi >= i, s_hi1, s_hi)) / 2
        out[rows] = med
    return out


def _unlistable(timeline: Timeline, df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(untimed, unplaced) per row of the hot rows ``df`` (:func:`gpulens.analyzers._steps.hot_rows`): the launch has
    no recorded duration (:func:`gpulens.analyzers._unknown_time.untimed_mask`), or its start is no workload time
    (:func:`gpulens.analyzers._span.synthetic_start_mask`); untimed launches are unplaced too."""
    from gpulens.analyzers._span import synthetic_start_mask
    from gpulens.analyzers._unknown_time import untimed_mask
    from gpulens.analyzers.context import context_of

    if not len(df) or "pos" not in df:  # rows not from hot_rows (no Timeline position): nothing to tell apart
        none = np.zeros(len(df), dtype=bool)
        return none, none.copy()
    # the GPU events' rows are those of the GPU kinds, in Timeline order (context.gpu): their positions from the
    # kind mask, not a hash look-up of every GPU event's label among all the Timeline's
    rows = np.flatnonzero(context_of(timeline).mask_of(*GPU_KINDS))[df["pos"].to_numpy()]
    untimed = untimed_mask(timeline)[rows]
    return untimed, untimed | synthetic_start_mask(timeline)[rows]


def _none_reason(ratio: float, untimed: np.ndarray, unplaced: np.ndarray) -> str:
    """Why no outlier is listed: no launch reaches ``ratio`` × its others' median, or the launches that could be
    listed have no duration or no workload start (counted)."""
    if unplaced.all():
        return ("no outlier listing: the launches' starts are not the workload's (a counter-collection replay lays "
                "them end to end)" + (f", {fmt_count(int(untimed.sum()))} without a recorded duration" if untimed.any() else ""))
    left = (f" ({plural(int(unplaced.sum()), 'launch(es)')} without a recorded duration or a workload start {agree(int(unplaced.sum()), 'is', 'are')} not listed)"
            if unplaced.any() else "")
    return (f"no outliers: every instance of the hot kernels lasts less than {ratio:g}× the median duration of its "
            f"kernel's other launches with the same grid{left}")


#: An instance is an outlier when it lasts at least this multiple of its kernel's median duration: below it the
#: "slowest instances" of a steady kernel (a replayed ncu kernel at 1.00× its median) are ordinary jitter.
OUTLIER_VS_MEDIAN = 1.5


class KernelOutliers(Analyzer):
    """The slowest instances of each hot kernel (``per_kernel`` of them) that last at least
    :data:`OUTLIER_VS_MEDIAN` × the median duration of that kernel's other launches with the same grid
    (:func:`others_median`; a kernel called once with a grid has no outlier), with step, rank and stream. No such
    instance: the analysis is skipped, saying so."""

    name = "kernel_outliers"
    order = 63

    def __init__(self, per_kernel: int = 3, vs_median: float = OUTLIER_VS_MEDIAN):
        self.per_kernel = per_kernel
        self.vs_median = vs_median

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        df, names = _hot_frame(timeline, results)
        if not len(df) or durations_unknown(timeline):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(OUTLIER_COLUMNS)), OUTLIER_COLUMNS,
                                  skipped_reason=UNKNOWN_DURATIONS if len(df) else
                                  counter_only_reason(timeline) or "no kernels in the trace")
        names = np.array(names, dtype=object)
        # against the median of the same kernel launched with the same grid: one name can cover several problem
        # sizes (the H200 workload's 4096³ GEMM, 178 µs, was an "outlier" of its 2048³ side-stream GEMMs, 25 µs)
        keys = ["code", "grid"] if "grid" in df else ["code"]
        # a launch without a recorded duration (its 0 ns is a placeholder) is no launch to compare with, and one
        # without a workload start (an ncu replay's launches laid end to end) has no "when" to list: neither is
        # listed (the ncu launch without a duration read as an outlier starting at a synthetic 0 ns)
        untimed, unplaced = _unlistable(timeline, df)
        med = others_median(df.assign(dur_ns=df["dur_ns"].astype("float64").where(~untimed)), keys)
        with np.errstate(invalid="ignore", divide="ignore"):
            vs = df["dur_ns"].to_numpy(dtype="float64", na_value=np.nan) / np.where(med > 0, med, np.nan)
        sel = np.flatnonzero((vs >= self.vs_median) & ~unplaced)  # NaN (no positive median) never
        df = df.iloc[sel].assign(vs_median=vs[sel], grid_median_ns=med[sel])  # the outliers' rows only, with the ratio
        if not len(df):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(OUTLIER_COLUMNS)), OUTLIER_COLUMNS,
                                  {"instances": 0, "worst_vs_median": None},
                                  skipped_reason=_none_reason(self.vs_median, untimed, unplaced))
        df = df.sort_values(["code", "dur_ns", "start_ns"], ascending=[True, False, True], kind="stable")
        t = df.groupby("code", sort=False).head(self.per_kernel)
        t = t.sort_values(["vs_median", "dur_ns", "start_ns"], ascending=[False, False, True],
                          kind="stable").reset_index(drop=True)
        t["name"] = pd.Series(names[t["code"].to_numpy()], dtype=object)
        t["step"] = t["step"].astype("Int64")
        t["trace_offset_ns"] = trace_offsets(timeline, t["rank"].to_numpy(), t["start_ns"].to_numpy("int64"))
        summary = {"instances": int(len(t)), "worst_vs_median": float(t["vs_median"].max())
                   if t["vs_median"].notna().any() else None, "without_step": int(t["step"].isna().sum())}
        return AnalysisResult(self.name, t[list(OUTLIER_COLUMNS)], OUTLIER_COLUMNS, summary,
                              summary_columns={"instances": "slow instances listed [count]",
                                               "worst_vs_median": "largest duration / median [ratio]",
                                               "without_step": "listed instances with no step: the trace records "
                                                               "no steps, or neither their launch call nor their "
                                                               "op lies in a step window (launched outside the "
                                                               "steps, or no launch record and no External id) "
                                                               "[count]"})
