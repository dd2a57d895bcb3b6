"""Op-category summary: GPU time per work category (GEMM, attention, elementwise, reduction, normalisation,
communication, copy, other — rules in :mod:`gpulens.analyzers._categories`): each GPU event counted once, so the rows add up to the
trace's GPU event time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.analyzers._span import counter_only_reason, durations_unknown
from gpulens.analyzers._attribution import attribution_codes
from gpulens.analyzers._categories import CATEGORIES
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.intervals import group_sum
from gpulens.timeline import Timeline

COLUMNS = {
    "category": "work category [text]",
    "gpu_events": "GPU events [count]",
    "gpu_time_ns": "effective GPU time [ns]",
    "share": "gpu_time_ns / all GPU event time [share]",
    "ops": "distinct launching framework ops (unknown when no GPU event is linked to one) [count]",
    "top_op": "launching op with the most time (empty when none is, or when no GPU event is linked to an op) [text]",
}


def _per_category(time_ns: np.ndarray, cat: np.ndarray, cat_values: np.ndarray, op: np.ndarray,
                  op_values: np.ndarray) -> pd.DataFrame:
    """Per work category (rows whose category is missing left out; index: the category texts, in order of first
    appearance): ``gpu_events``, ``gpu_time_ns`` [ns], ``ops`` (distinct launching ops other than '') and ``top_op``
    (the op with the most summed time, the first in text order among equals; '' when none). ``cat``/``op``: per-row
    codes into the value tables ``cat_values``/``op_values`` (equal texts share one code), as
    :func:`gpulens.analyzers._attribution.attribution_codes` gives them — a ``groupby`` of the texts, computed on
    the codes."""
    n_op, n_cat = len(op_values), len(cat_values)
    cat_ok = np.array([isinstance(v, str) for v in cat_values.tolist()], dtype=bool)
    op_ok = np.array([isinstance(v, str) and v != "" for v in op_values.tolist()], dtype=bool)
    events = np.bincount(cat, minlength=n_cat)
    time_sum = group_sum(cat, time_ns, n_cat)
    # the categories present (their order does not matter: the caller reindexes by CATEGORIES)
    c_codes = np.flatnonzero((events > 0) & cat_ok)
    linked = cat_ok[cat] & op_ok[op]
    pair = cat[linked] * n_op + op[linked]
    if n_cat * n_op <= 4 * len(pair) + 4096:  # few (category, op) pairs: dense per-pair tables
        pair_time = group_sum(pair, time_ns[linked], n_cat * n_op)
        pairs = np.flatnonzero(np.bincount(pair, minlength=n_cat * n_op))
        pair_time = pair_time[pairs]
    else:
        inv, pairs = pd.factorize(pair)
        pair_time = group_sum(inv, time_ns[linked], len(pairs))
    ops: dict[int, int] = {}
    best: dict[int, tuple] = {}
    for pk, tm in zip(pairs.tolist(), pair_time.tolist()):
        c, o = divmod(pk, n_op)
        ops[c] = ops.get(c, 0) + 1
        cand = (-tm, op_values[o])
        if c not in best or cand < best[c]:
            best[c] = cand
    idx = pd.Index([cat_values[c] for c in c_codes.tolist()])
    return pd.DataFrame({"gpu_events": events[c_codes].astype("int64"), "gpu_time_ns": time_sum[c_codes],
                         "ops": np.array([ops.get(c, 0) for c in c_codes.tolist()], dtype="int64"),
                         "top_op": [str(best[c][1]) if c in best else "" for c in c_codes.tolist()]}, index=idx)


class OpCategories(Analyzer):
    """GPU time per work category (see module docstring)."""

    name = "op_categories"
    order = 58

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        att, codes = attribution_codes(timeline)
        if not len(att):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=counter_only_reason(timeline) or "no GPU events in the trace")
        t = _per_category(att["time_ns"].to_numpy(), *codes["category"], *codes["op"])
        total = float(att["time_ns"].sum())
        t["share"] = t["gpu_time_ns"] / total if total else 0.0
        t = t.reindex([c for c in CATEGORIES if c in t.index]).reset_index(names="category")
        t = t.sort_values("gpu_time_ns", ascending=False, kind="stable").reset_index(drop=True)
        if not (t["ops"] > 0).any():
            # no GPU event linked to a framework op (an nsys, rocprof or ncu input): the op columns are not
            # recorded — null ("ops 0 · top op unknown" beside every category read as a finding), left out by the
            # compact tables
            t["ops"], t["top_op"] = all_missing(len(t)), None
        if durations_unknown(timeline):  # durations not recorded: the time per category is unknown, not 0
            t["gpu_time_ns"], t["share"], total = np.nan, np.nan, None
        summary = {"gpu_time_ns": total, "top_category": str(t.loc[0, "category"])}
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, summary,
                              summary_columns={"gpu_time_ns": "GPU event time [ns]",
                                               "top_category": "category with the most GPU time [text]"})
