"""Kernel groups: GPU time per (rank, kernel, launching operator, shapes) — the comparable unit of ``gpulens diff``.

Every GPU event (kernels, collectives, copies, sets) falls in exactly one group, so the groups' ``time_ns`` sum to
the run's GPU event time. The table is what ``gpulens diff`` reads back from a JSON report (analyses.kernel_groups)
to compare runs per kernel, per operator, per category and per rank without the traces.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._attribution import attribution_codes
from gpulens.analyzers._span import counter_only_reason
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import first_rows, int_sums
from gpulens.timeline import Timeline

GROUP_KEYS = ["rank", "kind", "key", "op", "shapes", "dtypes", "category"]

COLUMNS = {
    "rank": "distributed rank [id]",
    "kind": "kernel, comm, memcpy or memset [text]",
    "key": "kernel matching key (demangled, normalised name) [text]",
    "name": "one recorded name of the group's kernels [text]",
    "op": "launching framework op, '' when unlinked [text]",
    "shapes": "the op's input shapes (compact JSON), '' when not recorded [shapes]",
    "dtypes": "the op's input dtypes (compact JSON), '' when not recorded [dtypes]",
    "category": "GEMM, attention, elementwise, reduction, normalisation, communication, copy or other [text]",
    "count": "GPU events in the group [count]",
    "time_ns": "sum of effective (overrun-clipped) durations [ns]",
    "total_ns": "sum of recorded durations [ns]",
}
SUMMARY_COLUMNS = {
    "groups": "distinct (rank, kernel, op, shapes) groups [count]",
    "gpu_events": "GPU events grouped [count]",
    "time_ns": "GPU event time, effective [ns]",
    "linked_share": "share of GPU event time launched by a recorded framework op [share]",
}


#: The table's order: largest time first, then every group key — a complete key, so that groups of equal time come
#: in the same order whatever the order of the trace file.
ORDER = ["time_ns", "key", "rank", "kind", "op", "shapes", "dtypes", "category"]


def _ordered(t: pd.DataFrame) -> pd.DataFrame:
    t = t.sort_values(ORDER, ascending=[False] + [True] * (len(ORDER) - 1), kind="stable").reset_index(drop=True)
    return t[list(COLUMNS)]


def group_table(att: pd.DataFrame) -> pd.DataFrame:
    """Group an attribution table (:func:`gpu_attribution`) into :data:`COLUMNS`, largest time first."""
    if not len(att):
        return pd.DataFrame(columns=list(COLUMNS))
    g = att.groupby(GROUP_KEYS, sort=False, observed=True, dropna=False)
    t = pd.DataFrame({"name": g["name"].agg(lambda v: min(map(str, v))), "count": g.size(),
                      "time_ns": g["time_ns"].sum(),
                      "total_ns": g["dur_ns"].sum()}).reset_index()
    return _ordered(t)


def _group_codes(att: pd.DataFrame, codes: dict) -> pd.DataFrame:
    """:func:`group_table` computed on the text columns' codes (:func:`attribution_codes`): rows grouped by int
    codes in order of first appearance, texts looked up for the groups only.

    The group keys are folded into one int64 per row (mixed radix of the dense codes) and factorised once; counts
    and exact int64 sums come from ``bincount``/``add.at`` on those group numbers (a pandas groupby on seven key
    columns cost about a second per million GPU events). Float durations or keys too many to fold take the pandas
    path, with the same result."""
    rank_codes, ranks = pd.factorize(att["rank"].to_numpy())
    parts = [(rank_codes.astype(np.int64), len(ranks))] + [(codes[c][0], len(codes[c][1])) for c in GROUP_KEYS[1:]]
    time_ns, dur_ns = att["time_ns"].to_numpy(), att["dur_ns"].to_numpy()
    radix = 1
    for _, n in parts:
        radix *= max(n, 1)
    if radix >= 2 ** 62 or time_ns.dtype.kind != "i" or dur_ns.dtype.kind != "i" or (rank_codes < 0).any():
        return _group_frame(att, codes)
    key = np.zeros(len(att), dtype=np.int64)
    for c, n in parts:  # in place: no two fresh int64 arrays of every GPU event per key column
        key *= max(n, 1)
        key += c
    group, uniq = pd.factorize(key)  # groups numbered in order of first appearance, as groupby(sort=False)
    ng = len(uniq)
    first = first_rows(group)  # first row of each group, in group order
    time_sum = int_sums(group, time_ns, ng)
    dur_sum = int_sums(group, dur_ns, ng)
    t = pd.DataFrame({"rank": att["rank"].to_numpy()[first]})
    for c in GROUP_KEYS[1:]:
        t[c] = pd.Series(codes[c][1][codes[c][0][first]], dtype=object)
    t["name"] = pd.Series(_least_names(group, codes["name"], ng), dtype=object)
    t["count"] = np.bincount(group, minlength=ng).astype(np.int64)
    t["time_ns"], t["total_ns"] = time_sum, dur_sum
    return _ordered(t)


def _name_ranks(name_codes: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each row's name among the names in text order, the names in that order)."""
    codes, values = name_codes
    text = np.array([str(v) for v in values], dtype=object)
    order = np.argsort(text, kind="stable")
    rank = np.empty(len(text), dtype=np.int64)
    rank[order] = np.arange(len(text))
    return rank[codes], np.asarray(values, dtype=object)[order]


def _least_names(group: np.ndarray, name_codes: tuple, ng: int) -> np.ndarray:
    """The lowest name (text order) of each group's events: "one recorded name" that does not depend on the order
    of the trace file."""
    r, text = _name_ranks(name_codes)
    least = np.full(ng, len(text), dtype=np.int64)
    np.minimum.at(least, group, r)
    return text[least]


def _group_frame(att: pd.DataFrame, codes: dict) -> pd.DataFrame:
    """:func:`_group_codes` by a pandas groupby on the code columns."""
    nr, ntext = _name_ranks(codes["name"])
    frame = pd.DataFrame({"rank": att["rank"].to_numpy(), **{c: codes[c][0] for c in GROUP_KEYS[1:]},
                          "_name": nr, "time_ns": att["time_ns"].to_numpy(),
                          "dur_ns": att["dur_ns"].to_numpy()}, copy=False)
    g = frame.groupby(GROUP_KEYS, sort=False)
    t = pd.DataFrame({"_name": g["_name"].min(), "count": g.size(), "time_ns": g["time_ns"].sum(),
                      "total_ns": g["dur_ns"].sum()}).reset_index()
    for c in GROUP_KEYS[1:]:
        t[c] = pd.Series(codes[c][1][t[c].to_numpy()], dtype=object)
    t["name"] = pd.Series(ntext[t.pop("_name").to_numpy()], dtype=object)
    return _ordered(t)


class KernelGroups(Analyzer):
    """GPU time per (rank, kernel key, launching op, op shapes/dtypes, category)."""

    name = "kernel_groups"
    order = 12

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        att, codes = attribution_codes(timeline)
        if not len(att):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=counter_only_reason(timeline) or "no GPU events in the trace")
        t = _group_codes(att, codes)
        total = int(att["time_ns"].sum())
        op_codes, op_values = codes["op"]  # the op column's codes: one test per distinct op, not per row
        linked_t = att["time_ns"].to_numpy()[np.array([v != "" for v in op_values], dtype=bool)[op_codes]]
        linked = int(np.nansum(linked_t) if linked_t.dtype.kind == "f" else linked_t.sum())
        summary = {"groups": int(len(t)), "gpu_events": int(len(att)), "time_ns": total,
                   "linked_share": linked / total if total else 0.0}
        from gpulens.analyzers._rank_gpus import rank_gpu_sum_docs

        cols = rank_gpu_sum_docs(COLUMNS, timeline, ("count", "time_ns", "total_ns"))
        return AnalysisResult(self.name, t, cols, summary, summary_columns=SUMMARY_COLUMNS)
