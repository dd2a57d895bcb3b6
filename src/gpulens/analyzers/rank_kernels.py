"""Rank comparison: kernel time per rank, the imbalance between ranks, and the top kernels' time on each rank.

Only meaningful for multi-rank inputs; skipped (with the reason) when fewer than two ranks ran GPU kernels.

Definitions (kernel = ``kernel`` or ``comm`` events; durations after clipping overruns of the next event on their
stream, :attr:`~gpulens.analyzers.context.AnalysisContext.effective_ns`, the time the hot-kernel table, the
breakdown and the verdicts count: one runaway recorded duration would otherwise make its rank look seconds slower):

* ``kernel_time_ns`` per rank — sum of its kernels' clipped durations;
* ``imbalance_pct`` — (max − min) / mean of the ranks' kernel time × 100;
* ``compute_time_ns_by_rank`` — the same sum over compute kernels only (kind ``kernel``): a collective's duration
  includes its wait for the last rank to arrive, so the rank that waits longest has the most *kernel* time while
  it has the least work; the imbalance finding compares compute time, as ``(max − min) / min`` ("% more than the
  lightest rank"), and names no rank when fewer than two ranks ran compute kernels; its time at stake, the
  heaviest minus the lightest rank's compute time, is the others' wait inside collectives (a part of the exposed
  communication), unknown when the ranks ran no collective kernel;
* ``compute_heaviest_rank``, ``compute_lightest_rank``, ``compute_more_pct`` — that comparison's figures (the
  finding's), for every report to state beside ``imbalance_pct`` (None when the lightest rank ran no compute);
* the table — for the ``top`` kernel names by summed time over all ranks, one row per (rank, name):
  ``calls``, ``time_ns`` and ``share`` of that rank's kernel time.

A rank holding a kernel launch whose duration is unknown (a runaway with nothing to cut it at, a launch recorded
without a time: :mod:`gpulens.analyzers._unknown_time`) has an unknown kernel time (and compute time, when the launch
is a compute kernel): its sum is None, never the sum of its other kernels, and every comparison that includes it —
``imbalance_pct`` and the slowest / fastest rank, the compute comparison and its finding — is unknown too;
``untimed_ranks`` lists those ranks.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from gpulens.analyzers._span import counter_only_reason
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import context_of, reindex_sorted, text_series
from gpulens.analyzers.hotspots import KERNEL_KINDS
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns, plural

COLUMNS = {
    "rank": "distributed rank",
    "name": "kernel name (one of the top kernels over all ranks)",
    "calls": "launches of this kernel on this rank",
    "time_ns": "summed duration of this kernel on this rank, overruns of the next event on its stream clipped [ns]",
    "share": "time_ns / the rank's total kernel time [fraction 0..1]",
}


class RankKernels(Analyzer):
    """Per-rank kernel time and the top kernels per rank (see module docstring).

    Args:
        top: number of kernel names compared across ranks (default 15).
        imbalance_warn_pct: imbalance above which a finding is raised (default 10 %).
    """

    name = "rank_kernels"
    order = 30

    def __init__(self, top: int = 15, imbalance_warn_pct: float = 10.0):
        self.top = top
        self.imbalance_warn_pct = imbalance_warn_pct

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        k = timeline.of_kind(*KERNEL_KINDS)
        ranks = sorted(int(r) for r in k["rank"].unique()) if len(k) else []
        if len(ranks) < 2:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, {"ranks": ranks},
                                  skipped_reason=(None if ranks else counter_only_reason(timeline))
                                  or f"{plural(len(ranks), 'rank(s)')} with GPU kernels: nothing to compare")
        df = pd.DataFrame({"rank": k["rank"].to_numpy("int64"), "name": text_series(k["name"]),
                           "dur": reindex_sorted(context_of(timeline).effective_ns, k.index).to_numpy("int64")})
        per_rank = df.groupby("rank")["dur"].sum()
        untimed_any, untimed_compute = _untimed_ranks(timeline, k)
        top = df.groupby("name")["dur"].sum().sort_values(ascending=False, kind="stable").head(self.top).index
        sel = df[df["name"].isin(top)]
        g = sel.groupby(["rank", "name"], sort=False)
        t = pd.DataFrame({"calls": g.size(), "time_ns": g["dur"].sum()}).reset_index()
        full = pd.MultiIndex.from_product([ranks, list(top)], names=["rank", "name"])
        t = t.set_index(["rank", "name"]).reindex(full, fill_value=0).reset_index()
        t["share"] = t["time_ns"] / t["rank"].map(per_rank)
        t = t[list(COLUMNS)]
        mean = float(per_rank.mean())
        imb = 100.0 * float(per_rank.max() - per_rank.min()) / mean if mean else 0.0
        summary = {"ranks": ranks, "kernel_time_ns_by_rank": {str(r): None if r in untimed_any else int(v)
                                                              for r, v in per_rank.items()},
                   "imbalance_pct": imb, "slowest_rank": int(per_rank.idxmax()),
                   "fastest_rank": int(per_rank.idxmin()), "untimed_ranks": sorted(untimed_any)}
        if untimed_any:  # a rank's sum lacks a launch of unknown duration: no comparison holds
            summary.update(imbalance_pct=None, slowest_rank=None, fastest_rank=None)
        comp = df[(k["kind"] == "kernel").to_numpy()].groupby("rank")["dur"].sum().reindex(ranks, fill_value=0)
        summary["compute_time_ns_by_rank"] = {str(r): None if r in untimed_compute else int(v)
                                              for r, v in comp.items()}
        findings = []
        if untimed_compute:
            summary.update(compute_heaviest_rank=None, compute_lightest_rank=None, compute_more_pct=None)
            return AnalysisResult(self.name, t, COLUMNS, summary, findings)
        heavy, light = int(comp.idxmax()), int(comp.idxmin())
        more = 100.0 * float(comp.max() - comp.min()) / float(comp.min()) if comp.min() > 0 else None
        summary.update(compute_heaviest_rank=heavy, compute_lightest_rank=light, compute_more_pct=more)
        if more is not None and 100.0 * float(comp.max() - comp.min()) / float(comp.mean()) > self.imbalance_warn_pct:
            # the lighter ranks' wait for the heaviest happens inside collectives (the exposed communication holds
            # it); with no collective recorded no rank is seen waiting, and the heaviest rank's extra time is its
            # own kernels' time, which their findings already count: the gain is unknown
            waits = bool((k["kind"] == "comm").any())
            diff = int(comp.max() - comp.min())
            stake = _imbalance_stake(diff, light, timeline, device, results) if waits else None
            findings.append(Finding(
                f"Rank {heavy} spends {more:.1f} % more compute-kernel time than the lightest rank ({light})",
                f"Compute kernels: {fmt_ns(int(comp.max()))} on rank {heavy} vs {fmt_ns(int(comp.min()))} on rank "
                f"{light} (collectives left out: their time includes waiting for the other ranks). Work is "
                "unevenly spread across ranks; " + ("the others wait for the slowest in every collective. " if waits
                                                   else "no collective kernel is recorded, so no rank is seen waiting "
                                                        "for another and the time this costs is unknown. ") +
                "Compare the per-rank kernel table for the kernels that differ.",
                severity="warning", category="imbalance",
                time_at_stake_ns=stake, rank=heavy, key="rank-imbalance",
                # the other ranks wait for the slowest inside their collectives: part of the exposed communication
                parent="exposed-comm"))
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)


def _imbalance_stake(diff_ns: int, light: int, timeline: Timeline, device: Any, results: Any) -> int:
    """The time at stake of the rank-imbalance finding [ns]: the compute-time difference of the heaviest and the
    lightest rank — the time the lightest rank waits for the heaviest —, no more than the lightest rank's exposed
    communication (``breakdown``: Σ ``exposed_comm_ns`` of its rows). The finding is part of the exposed communication
    (its parent): the wait lies inside the lightest rank's collectives, and only their exposed part costs the run
    time, so a part never exceeds its whole on that rank (before s46 the cap was its span less its computation, idle
    included: a wait larger than the rank's exposed communication could be claimed; a 2.8 µs rank of a fuzzed input
    "waiting" 43.9 µs was the case that cap was for, and this one holds it too)."""
    from gpulens.analyzers.breakdown import Breakdown

    bd = (results or {}).get("breakdown") or Breakdown().analyze(timeline, device)
    if bd.skipped or not len(bd.table):
        return diff_ns
    rows = bd.table[bd.table["rank"] == light]
    exposed = pd.to_numeric(rows["exposed_comm_ns"], errors="coerce")
    if not len(rows) or exposed.isna().any():
        return diff_ns
    return int(min(diff_ns, max(0.0, float(exposed.sum()))))


def _untimed_ranks(timeline: Timeline, k: pd.DataFrame) -> tuple[set[int], set[int]]:
    """(ranks with a kernel or collective launch of unknown duration, ranks with a compute-kernel one): the events
    :func:`gpulens.analyzers._unknown_time.untimed_mask` marks among ``k`` and the launches recorded without a time
    that are no events (:func:`gpulens.analyzers._unknown_time.dispatches_without_events`)."""
    from gpulens.analyzers._unknown_time import dispatches_without_events, untimed_mask

    mask = pd.Series(untimed_mask(timeline), index=timeline.events.index).reindex(k.index, fill_value=False)
    mine = k[mask.to_numpy(dtype=bool)]
    side = dispatches_without_events(timeline)
    ranks = {int(r) for r in mine["rank"]} | {int(r) for r in side["rank"]}
    compute = {int(r) for r in mine.loc[(mine["kind"] == "kernel").to_numpy(), "rank"]} | \
        {int(r) for r in side.loc[(side["kind"] == "kernel").to_numpy(), "rank"]}
    return ranks, compute
