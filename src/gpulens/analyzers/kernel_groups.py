"""Kernel groups: GPU time per (rank, kernel, launching operator, shapes) — the comparable unit of ``gpulens diff``.

Every GPU event (kernels, collectives, copies, sets) falls in exactly one group, so the groups' ``time_ns`` sum to
the run's GPU event time. The table is what ``gpulens diff`` reads back from a JSON report (analyses.kernel_groups)
to compare runs per kernel, per operator, per category and per rank without the traces.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from gpulens.analyzers._attribution import attribution_codes
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.timeline import Timeline

GROUP_KEYS = ["rank", "kind", "key", "op", "shapes", "dtypes", "category"]

COLUMNS = {
    "rank": "distributed rank [id]",
    "kind": "kernel, comm, memcpy or memset [text]",
    "key": "kernel matching key (demangled, normalised name) [text]",
    "name": "one recorded name of the group's kernels [text]",
    "op": "launching framework op, '' when unlinked [text]",
    "shapes": "the op's input shapes (compact JSON), '' when not recorded [text]",
    "dtypes": "the op's input dtypes (compact JSON), '' when not recorded [text]",
    "category": "GEMM, attention, elementwise, normalisation, communication, copy or other [text]",
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


def group_table(att: pd.DataFrame) -> pd.DataFrame:
    """Group an attribution table (:func:`gpu_attribution`) into :data:`COLUMNS`, largest time first."""
    if not len(att):
        return pd.DataFrame(columns=list(COLUMNS))
    g = att.groupby(GROUP_KEYS, sort=False, observed=True, dropna=False)
    t = pd.DataFrame({"name": g["name"].first(), "count": g.size(), "time_ns": g["time_ns"].sum(),
                      "total_ns": g["dur_ns"].sum()}).reset_index()
    t = t.sort_values(["time_ns", "key"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return t[list(COLUMNS)]


def _group_codes(att: pd.DataFrame, codes: dict) -> pd.DataFrame:
    """:func:`group_table` computed on the text columns' codes (:func:`attribution_codes`): rows grouped by int
    codes in order of first appearance, texts looked up for the groups only."""
    frame = pd.DataFrame({"rank": att["rank"].to_numpy(), **{c: codes[c][0] for c in GROUP_KEYS[1:]},
                          "_name": codes["name"][0], "time_ns": att["time_ns"].to_numpy(),
                          "dur_ns": att["dur_ns"].to_numpy()})
    g = frame.groupby(GROUP_KEYS, sort=False)
    t = pd.DataFrame({"_name": g["_name"].first(), "count": g.size(), "time_ns": g["time_ns"].sum(),
                      "total_ns": g["dur_ns"].sum()}).reset_index()
    for c in GROUP_KEYS[1:]:
        t[c] = pd.Series(codes[c][1][t[c].to_numpy()], dtype=object)
    t["name"] = pd.Series(codes["name"][1][t.pop("_name").to_numpy()], dtype=object)
    t = t.sort_values(["time_ns", "key"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return t[list(COLUMNS)]


class KernelGroups(Analyzer):
    """GPU time per (rank, kernel key, launching op, op shapes/dtypes, category)."""

    name = "kernel_groups"
    order = 12

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        att, codes = attribution_codes(timeline)
        if not len(att):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no GPU events in the trace")
        t = _group_codes(att, codes)
        total = int(att["time_ns"].sum())
        linked = int(att.loc[att["op"] != "", "time_ns"].sum())
        summary = {"groups": int(len(t)), "gpu_events": int(len(att)), "time_ns": total,
                   "linked_share": linked / total if total else 0.0}
        return AnalysisResult(self.name, t, COLUMNS, summary, summary_columns=SUMMARY_COLUMNS)
