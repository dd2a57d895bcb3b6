"""Ranks: compare the ranks of a multi-rank run — communication share per rank and stragglers.

Per rank: ``span_ns`` (first → last GPU event on any of its GPUs, never a sum); summed over its GPUs: ``comm_ns``
(union of collective kernels), ``exposed_comm_ns`` (not overlapped by compute), their shares of the rank's
device-time, and ``computation_ns``, taken from the ``breakdown`` analyzer.

Stragglers. Collectives are matched across ranks by name and occurrence order (the k-th ``ncclKernel_AllReduce…``
of every rank is one collective). In a collective every rank waits until the last one arrives, so for instance i
with start times ``s_r`` and durations ``d_r``:

* ``wait_r = clip(max_r s_r − s_r, 0, d_r)`` — time rank r sat in the collective before the last rank arrived
  (assumes comparable clocks across ranks, as Kineto's wall-clock timestamps are on one cluster);
* the rank with the latest start *caused* the others' waits: ``caused_wait_ns += Σ_{r' ≠ last} wait_r'``;
* ``excess_comm_ns = Σ_i (d_r − min_r d_r)`` — a clock-free cross-check: the late rank has the shortest collectives.

The straggler is the rank that caused the most waiting, named when it caused at least half of all waiting time.
Its lateness comes from compute that ends late (compare ``computation_ns``), data loading, or a slow GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.breakdown import Breakdown
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns

COLUMNS = {
    "rank": "distributed rank",
    "span_ns": "the rank's GPU span: first → last GPU event on any of its GPUs (never a sum) [ns]",
    "computation_ns": "union of compute kernels [ns]",
    "comm_ns": "union of collective kernels [ns]",
    "exposed_comm_ns": "collective time not overlapped by compute [ns]",
    "comm_pct": "comm_ns / Σ span of the rank's GPUs [%]",
    "exposed_comm_pct": "exposed_comm_ns / Σ span of the rank's GPUs [%]",
    "overlap_pct": "share of the collective time hidden behind compute: (comm_ns − exposed_comm_ns) / comm_ns; "
                   "unknown without collectives [%]",
    "matched_collectives": "collectives matched on every rank",
    "late_arrivals": "matched collectives this rank entered last",
    "collective_wait_ns": "time spent in collectives waiting for the last rank to arrive [ns]",
    "caused_wait_ns": "other ranks' waiting in collectives this rank entered last [ns]",
    "excess_comm_ns": "Σ over matched collectives of (own duration − shortest rank's duration) [ns]",
    "straggler": "this rank is named the straggler",
}


def match_collectives(timeline: Timeline) -> pd.DataFrame:
    """Collectives present on every rank, matched by (name, occurrence index).

    Returns:
        long table ``name``, ``occurrence``, ``rank``, ``start_ns``, ``dur_ns``, ``wait_ns``, ``last`` (this rank
        started last), ``excess_ns`` — one row per rank and matched collective.
    """
    c = timeline.of_kind("comm")
    cols = ["name", "occurrence", "rank", "start_ns", "dur_ns", "wait_ns", "last", "excess_ns"]
    ranks = sorted(int(r) for r in c["rank"].unique()) if len(c) else []
    if len(ranks) < 2:
        return pd.DataFrame(columns=cols)
    c = c.sort_values(["rank", "start_ns"], kind="stable").assign(name=c["name"].astype(str))
    c = c.assign(occurrence=c.groupby(["rank", "name"]).cumcount())
    key = ["name", "occurrence"]
    full = c.groupby(key)["rank"].transform("nunique") == len(ranks)
    c = c[full][key + ["rank", "start_ns", "dur_ns"]].copy()
    if not len(c):
        return pd.DataFrame(columns=cols)
    g = c.groupby(key)
    last_start = g["start_ns"].transform("max")
    c["wait_ns"] = np.minimum(np.clip(last_start - c["start_ns"], 0, None), c["dur_ns"])
    # exactly one "last" rank per collective (lowest rank on ties)
    c["last"] = False
    c.loc[c.sort_values("rank").assign(ls=last_start).query("start_ns == ls").groupby(key).head(1).index, "last"] = True
    c["excess_ns"] = c["dur_ns"] - g["dur_ns"].transform("min")
    return c[cols].reset_index(drop=True)


class Ranks(Analyzer):
    """Per-rank communication share and straggler comparison (see module docstring); skipped for one rank."""

    name = "ranks"
    order = 56

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        results = results or {}
        bd = results.get("breakdown") or Breakdown().analyze(timeline, device)
        if bd.skipped or bd.table["rank"].nunique() < 2:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="fewer than two ranks with GPU work")
        t = bd.table.groupby("rank", as_index=False)[["span_ns", "computation_ns", "comm_ns",
                                                      "exposed_comm_ns"]].sum()
        # a GPU whose collectives and kernels lie on different clocks has an unknown exposed part (breakdown:
        # <NA>): so has its rank's sum, never the sum of the others
        blind = bd.table.loc[bd.table["exposed_comm_ns"].isna(), "rank"].unique()
        if len(blind):
            t["exposed_comm_ns"] = t["exposed_comm_ns"].astype("Float64").mask(t["rank"].isin(blind))
        dev_span = t["span_ns"].clip(lower=1)  # device-time of the rank: the share below can never pass 100 %
        t["span_ns"] = t["rank"].map(bd.summary["rank_span_ns"]).astype("int64")
        t["comm_pct"] = 100.0 * t["comm_ns"] / dev_span
        t["exposed_comm_pct"] = 100.0 * t["exposed_comm_ns"] / dev_span
        comm = t["comm_ns"].astype("float64")
        t["overlap_pct"] = (100.0 * (comm - t["exposed_comm_ns"]) / comm).where(comm > 0)
        m = match_collectives(timeline)
        caused = {}
        if len(m):
            others = m.groupby(["name", "occurrence"])["wait_ns"].transform("sum") - m["wait_ns"]
            caused = others[m["last"]].groupby(m.loc[m["last"], "rank"]).sum().to_dict()
        per = m.groupby("rank").agg(matched_collectives=("wait_ns", "size"), late_arrivals=("last", "sum"),
                                    collective_wait_ns=("wait_ns", "sum"), excess_comm_ns=("excess_ns", "sum"))
        t = t.join(per, on="rank")
        t["caused_wait_ns"] = t["rank"].map(caused).fillna(0)
        for col in ("matched_collectives", "late_arrivals", "collective_wait_ns", "caused_wait_ns", "excess_comm_ns"):
            t[col] = t[col].fillna(0).astype("int64")
        total_wait = int(t["collective_wait_ns"].sum())
        top = t.loc[t["caused_wait_ns"].idxmax()]
        named = total_wait > 0 and top["caused_wait_ns"] >= 0.5 * total_wait
        t["straggler"] = (t["rank"] == top["rank"]) & named
        t = t[list(COLUMNS)].reset_index(drop=True)
        summary = {"ranks": int(len(t)), "matched_collectives": int(len(m) // len(t)) if len(m) else 0,
                   "total_collective_wait_ns": total_wait,
                   "stragglers": [int(r) for r in t.loc[t["straggler"], "rank"]],
                   "comm_pct": {int(r): float(v) for r, v in zip(t["rank"], t["comm_pct"])},
                   "exposed_comm_pct": {int(r): None if pd.isna(v) else float(v)
                                        for r, v in zip(t["rank"], t["exposed_comm_pct"])}}
        findings = []
        if named:
            r = int(top["rank"])
            mean = float(t["computation_ns"].mean())
            if float(top["computation_ns"]) > 1.05 * mean:  # more GPU work than the others: the work is uneven
                why = ("Balance the work across ranks (sharding, embedding table placement, uneven batches) or "
                       "look for a slow GPU on that rank.")
            else:  # no more GPU work than the others: it starts its collectives late for a reason off the GPU
                why = ("Its GPU computation is no larger than the others', so the GPU work does not make it late: "
                       "look at what its host does before each collective (data loading, Python, CPU ops, "
                       "synchronisations, late launches) and for a slow host or interconnect on that rank.")
            findings.append(Finding(
                f"Rank {r} is the straggler: others waited {fmt_ns(int(top['caused_wait_ns']))} for it in "
                "collectives",
                f"Rank {r} entered {int(top['late_arrivals'])} of {summary['matched_collectives']} matched "
                f"collectives last (computation {fmt_ns(int(top['computation_ns']))} vs a mean of "
                f"{fmt_ns(mean)}). {why}",
                severity="warning", category="communication-bound", rank=r,
                time_at_stake_ns=int(top["caused_wait_ns"]), key="straggler",
                # the others' waits run inside their collectives: part of the exposed communication, counted once
                parent="exposed-comm"))
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)
