"""Ranks: compare the ranks of a multi-rank run — communication share per rank and stragglers.

Per rank: ``span_ns`` (first → last GPU event on any of its GPUs, never a sum); ``comm_ns`` (union of collective
kernels), ``exposed_comm_ns`` (not overlapped by compute) and ``computation_ns`` (union of compute kernels), each a
union over ALL the rank's GPUs in wall time (a moment when any of its GPUs computes counts once: a rank driving two
GPUs never shows more compute than its span), and the shares of ``comm_ns`` / ``exposed_comm_ns`` in the rank's
span. A rank of one GPU takes its figures from the ``breakdown`` analyzer (its span there leaves out gaps between
two clock domains); a rank of several GPUs has them computed here from the same GPU events, by the same union.

Stragglers. Collectives are matched across ranks by name and occurrence order (the k-th ``ncclKernel_AllReduce…``
of every rank is taken for one collective). In a collective every rank waits until the last one arrives, so the
kernels of one exchange run at the same time on all its ranks: each ends only after the last rank has entered.
A matched group whose kernels do not all overlap (``max_r s_r ≥ min_r (s_r + d_r)``: one rank's kernel ended before
another's began) is therefore not one exchange — sampled traces that kept different instances, a collective missing
on a rank so that the order pairs different calls, or clocks apart — and says nothing about who waited for whom: it
is counted (``concurrent`` False in :func:`match_collectives`, ``non_concurrent_collectives`` in the summary, a
finding) and left out of every figure below. For each *concurrent* matched collective i with start times ``s_r`` and
durations ``d_r``:

* ``wait_r = clip(max_r s_r − s_r, 0, d_r)`` — time rank r sat in the collective before the last rank arrived
  (assumes comparable clocks across ranks, as Kineto's wall-clock timestamps are on one cluster);
* the rank with the latest start *caused* the others' waits: ``caused_wait_ns += Σ_{r' ≠ last} wait_r'``;
* ``excess_comm_ns = Σ_i (d_r − min_r d_r)`` — a clock-free cross-check: the late rank has the shortest collectives.

The straggler is the rank that caused the most waiting, named when it caused at least half of all waiting time and
the waits rest on at least :data:`MIN_STRAGGLER_COLLECTIVES` concurrent matched collectives (one late arrival is one
event, not a rank that holds the others up). Its lateness comes from compute that ends late (compare
``computation_ns``), data loading, or a slow GPU.

Ranks read vs the run's ranks. A Kineto trace records ``distributedInfo.world_size``; when it exceeds the ranks read
(a 2-file sample of a 128-rank job) the summary and a finding say "N of M ranks", and a straggler is one among the
ranks read only: a rank not in the trace may have arrived later still, so the others' waits are measured against the
ranks read, not attributed to the whole job.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.breakdown import Breakdown
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns, plural

COLUMNS = {
    "rank": "distributed rank",
    "span_ns": "the rank's GPU span: first → last GPU event on any of its GPUs (never a sum) [ns]",
    "computation_ns": "union of compute kernels over all the rank's GPUs (wall time) [ns]",
    "comm_ns": "union of collective kernels over all the rank's GPUs (wall time) [ns]",
    "exposed_comm_ns": "collective time not overlapped by compute on any of the rank's GPUs [ns]",
    "comm_pct": "comm_ns / the rank's GPU span [%]",
    "exposed_comm_pct": "exposed_comm_ns / the rank's GPU span [%]",
    "overlap_pct": "share of the collective time hidden behind compute: (comm_ns − exposed_comm_ns) / comm_ns; "
                   "unknown without collectives [%]",
    "matched_collectives": "collectives matched on every rank by name and order [count]",
    "concurrent_collectives": "matched collectives whose kernels overlap on every rank (one exchange): the only "
                              "ones the waits below are measured on [count]",
    "late_arrivals": "concurrent matched collectives this rank entered last [count]",
    "collective_wait_ns": "time spent in concurrent collectives waiting for the last rank to arrive; unknown "
                          "without a concurrent matched collective [ns]",
    "caused_wait_ns": "other ranks' waiting in concurrent collectives this rank entered last; unknown without a "
                      "concurrent matched collective [ns]",
    "excess_comm_ns": "Σ over concurrent matched collectives of (own duration − shortest rank's duration); unknown "
                      "without one [ns]",
    "straggler": "this rank is named the straggler (among the ranks read) [bool]",
}
#: fewest concurrent matched collectives a straggler is named on (module docstring)
MIN_STRAGGLER_COLLECTIVES = 3


def world_size(timeline: Timeline) -> int | None:
    """The run's number of ranks as its inputs record it (Kineto ``distributedInfo.world_size``; the largest when
    inputs differ), None when no input records one, or when more ranks were read than it (files of another run, or
    a rank beyond the world size: the collector's warning names the file; "3 ranks" beside a world of 2 would be two
    figures of one quantity that disagree)."""
    sizes = []
    for src in timeline.meta.sources:
        dist = src.get("distributed") if isinstance(src, dict) else None
        v = dist.get("world_size") if isinstance(dist, dict) else None
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0:
            sizes.append(int(v))
        elif isinstance(v, str) and v.strip().isascii() and v.strip().isdigit() and int(v) > 0:
            sizes.append(int(v))
    if not sizes:
        return None
    ev = timeline.events
    read = int(ev["rank"].nunique()) if len(ev) and "rank" in ev.columns else 0
    return max(sizes) if read <= max(sizes) else None


def ranks_text(n_read: int, world: int | None) -> str:
    """``"2 of 128 ranks"`` when the recorded world size exceeds the ranks read, else ``"2 ranks"``."""
    return f"{n_read:,} of {world:,} ranks" if world is not None and world > n_read else f"{n_read:,} ranks"


def match_collectives(timeline: Timeline) -> pd.DataFrame:
    """Collectives present on every rank, matched by (name, occurrence index), and whether each is one exchange.

    Returns:
        long table ``name``, ``occurrence``, ``rank``, ``start_ns``, ``dur_ns``, ``concurrent`` (the group's kernels
        overlap on every rank: ``max start < min end``), ``wait_ns``, ``last`` (this rank started last),
        ``excess_ns`` — one row per rank and matched collective. ``wait_ns`` and ``excess_ns`` are <NA> and ``last``
        False in a group that is not concurrent (not one exchange: no wait is measured there).
    """
    c = timeline.of_kind("comm")
    cols = ["name", "occurrence", "rank", "start_ns", "dur_ns", "concurrent", "wait_ns", "last", "excess_ns"]
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
    end = c["start_ns"] + c["dur_ns"]
    c["concurrent"] = (last_start < end.groupby([c["name"], c["occurrence"]]).transform("min")).to_numpy()
    conc = c["concurrent"].to_numpy()
    wait = np.minimum(np.clip(last_start - c["start_ns"], 0, None), c["dur_ns"])
    c["wait_ns"] = pd.array(np.where(conc, wait, 0), dtype="Int64")
    c.loc[~conc, "wait_ns"] = pd.NA
    # exactly one "last" rank per concurrent collective (lowest rank on ties)
    c["last"] = False
    lead = c.sort_values("rank").assign(ls=last_start).query("start_ns == ls and concurrent").groupby(key).head(1)
    c.loc[lead.index, "last"] = True
    excess = c["dur_ns"] - g["dur_ns"].transform("min")
    c["excess_ns"] = pd.array(np.where(conc, excess, 0), dtype="Int64")
    c.loc[~conc, "excess_ns"] = pd.NA
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
        dev_span = t["span_ns"].clip(lower=1)  # one GPU: its span (clock-domain gaps left out)
        t["span_ns"] = t["rank"].map(bd.summary["rank_span_ns"]).astype("int64")
        multi = bd.table.groupby("rank")["device_id"].nunique()
        multi = multi[multi > 1].index
        if len(multi):  # a rank driving several GPUs: unions over all of them, shares of its wall span
            u = wall_unions(timeline, multi)
            at = t["rank"].isin(multi).to_numpy()
            for col in ("computation_ns", "comm_ns", "exposed_comm_ns"):
                t[col] = t[col].astype("int64")
                t.loc[at, col] = t.loc[at, "rank"].map(u[col]).to_numpy(dtype="int64")
            dev_span = dev_span.where(~at, t["span_ns"].clip(lower=1))
        # a GPU whose collectives and kernels lie on different clocks has an unknown exposed part (breakdown:
        # <NA>): so has its rank's figure, never the sum of the others
        blind = bd.table.loc[bd.table["exposed_comm_ns"].isna(), "rank"].unique()
        if len(blind):
            t["exposed_comm_ns"] = t["exposed_comm_ns"].astype("Float64").mask(t["rank"].isin(blind))
        t["comm_pct"] = 100.0 * t["comm_ns"] / dev_span
        t["exposed_comm_pct"] = 100.0 * t["exposed_comm_ns"] / dev_span
        comm = t["comm_ns"].astype("float64")
        t["overlap_pct"] = (100.0 * (comm - t["exposed_comm_ns"]) / comm).where(comm > 0)
        m = match_collectives(timeline)
        n_ranks = int(len(t))
        matched = int(len(m) // n_ranks) if len(m) else 0
        mc = m[m["concurrent"].astype(bool)] if len(m) else m
        concurrent = int(len(mc) // n_ranks) if len(mc) else 0
        caused = {}
        if len(mc):
            w = mc["wait_ns"].astype("int64")
            others = w.groupby([mc["name"], mc["occurrence"]]).transform("sum") - w
            caused = others[mc["last"]].groupby(mc.loc[mc["last"], "rank"]).sum().to_dict()
        t = t.join(m.groupby("rank").size().rename("matched_collectives"), on="rank")
        if len(mc):
            per = mc.assign(w=mc["wait_ns"].astype("int64"), x=mc["excess_ns"].astype("int64")).groupby("rank").agg(
                concurrent_collectives=("w", "size"), late_arrivals=("last", "sum"), collective_wait_ns=("w", "sum"),
                excess_comm_ns=("x", "sum"))
            t = t.join(per, on="rank")
        for col in ("matched_collectives", "concurrent_collectives", "late_arrivals"):
            t[col] = (t[col] if col in t else pd.Series(0, index=t.index)).fillna(0).astype("int64")
        # waits are measured on concurrent collectives only: without one they are unknown, never 0
        measured = t["concurrent_collectives"] > 0
        for col, values in (("collective_wait_ns", t.get("collective_wait_ns")), ("caused_wait_ns",
                                                                                 t["rank"].map(caused).fillna(0)),
                            ("excess_comm_ns", t.get("excess_comm_ns"))):
            v = pd.Series(0, index=t.index) if values is None else values.fillna(0)
            t[col] = pd.array(v.astype("int64"), dtype="Int64")
            t.loc[~measured, col] = pd.NA
        total_wait = int(t["collective_wait_ns"].fillna(0).sum())
        top = t.loc[t["caused_wait_ns"].fillna(0).astype("int64").idxmax()]
        top_caused = int(top["caused_wait_ns"]) if pd.notna(top["caused_wait_ns"]) else 0
        leads = total_wait > 0 and top_caused >= 0.5 * total_wait
        named = leads and concurrent >= MIN_STRAGGLER_COLLECTIVES
        t["straggler"] = (t["rank"] == top["rank"]) & named
        t = t[list(COLUMNS)].reset_index(drop=True)
        world = world_size(timeline)
        partial = world is not None and world > n_ranks
        read = [int(r) for r in t["rank"]]
        summary = {"ranks": n_ranks, "world_size": world, "ranks_text": ranks_text(n_ranks, world),
                   "matched_collectives": matched, "concurrent_collectives": concurrent,
                   "non_concurrent_collectives": matched - concurrent,
                   "total_collective_wait_ns": total_wait if concurrent else None,
                   "stragglers": [int(r) for r in t.loc[t["straggler"], "rank"]],
                   "comm_pct": {int(r): float(v) for r, v in zip(t["rank"], t["comm_pct"])},
                   "exposed_comm_pct": {int(r): None if pd.isna(v) else float(v)
                                        for r, v in zip(t["rank"], t["exposed_comm_pct"])}}
        findings = []
        if partial:
            findings.append(Finding(
                f"The trace holds {ranks_text(n_ranks, world)}: the rank comparison covers only these",
                f"The inputs record a world size of {world:,} but hold ranks {', '.join(map(str, read))}. "
                "Communication shares, waits in collectives, the straggler and the compute imbalance are measured "
                "among these ranks only; a rank not read may be slower than all of them. Profile every rank (or a "
                "wider sample) to compare the whole job.",
                severity="info", category="data-quality", key="ranks-partial"))
        if matched > concurrent:
            findings.append(Finding(
                f"{matched - concurrent:,} of {matched:,} matched collectives do not overlap across ranks: not used as "
                "wait evidence",
                "The kernels of one collective run at the same time on its ranks (each waits for its peers), but "
                f"in {matched - concurrent} of the {matched} collectives matched by name and order one rank's kernel "
                "ended before another's began: they are not one exchange (sampled traces, a different instance of "
                "the collective, or clocks apart) and cannot tell who waited for whom. Waits and stragglers rest on "
                f"the {concurrent} that overlap"
                + ("." if concurrent >= MIN_STRAGGLER_COLLECTIVES else
                   f", fewer than the {MIN_STRAGGLER_COLLECTIVES} a straggler is named on."),
                severity="info", category="data-quality", key="collectives-not-concurrent"))
        if leads and not named:
            findings.append(Finding(
                f"Rank {int(top['rank'])} entered {int(top['late_arrivals'])} of "
                f"{plural(concurrent, 'overlapping collective(s)')} last: too few to name a straggler",
                f"A straggler is named on at least {MIN_STRAGGLER_COLLECTIVES} overlapping matched collectives; "
                f"{concurrent} overlap{'s' if concurrent == 1 else ''} here, and a single late arrival can be a "
                "one-off delay rather than a rank that holds the others up.",
                severity="info", category="communication-bound", rank=int(top["rank"]), key="straggler-unproven"))
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
            left_out = (f"; {matched - concurrent} more matched by name and order do not overlap across ranks and "
                        "are left out" if matched > concurrent else "")
            if partial:
                who = "the other rank" if n_ranks == 2 else "the others"
                title = (f"Rank {r} is the straggler of the {ranks_text(n_ranks, world)} read: {who} waited "
                         f"{fmt_ns(top_caused)} in collectives before it arrived")
                scope = (f" The waits are measured among ranks {', '.join(map(str, read))} only: the "
                         f"{world - n_ranks:,} ranks not read may have arrived later still.")
            else:
                title = f"Rank {r} is the straggler: others waited {fmt_ns(top_caused)} for it in collectives"
                scope = ""
            findings.append(Finding(
                title,
                f"Rank {r} entered {int(top['late_arrivals']):,} of {concurrent:,} overlapping matched collectives last"
                f"{left_out} (computation {fmt_ns(int(top['computation_ns']))} vs a mean of {fmt_ns(mean)})."
                f"{scope} {why}",
                severity="warning", category="communication-bound", rank=r,
                time_at_stake_ns=exposed_part(top_caused, t, r), key="straggler",
                # the others' waits run inside their collectives: part of the exposed communication, counted once
                parent="exposed-comm"))
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)


def wall_unions(timeline: Timeline, ranks: Any) -> pd.DataFrame:
    """``computation_ns``, ``comm_ns``, ``exposed_comm_ns`` of each rank in ``ranks`` as unions over all its GPUs in
    wall time (indexed by rank): the per-GPU unions of :func:`gpulens.analyzers.breakdown._split_all`, its GPUs
    taken for one. Used for ranks of several GPUs, whose per-GPU figures summed would be device time and could
    exceed the rank's span."""
    from gpulens.analyzers.breakdown import _split_all
    from gpulens.analyzers.context import context_of

    ctx = context_of(timeline)
    gpu = ctx.gpu[["rank", "device_id", "kind", "start_ns", "dur_ns"]].assign(dur_ns=ctx.effective_ns)
    gpu = gpu[gpu["rank"].isin(ranks).to_numpy()].assign(device_id=0)
    return _split_all(gpu).set_index("rank")


def exposed_part(waited_ns: int, t: pd.DataFrame, straggler: int) -> int:
    """The straggler finding's time at stake [ns]: the others' waits for it (``waited_ns``), no more than the other
    ranks' waits that can be exposed — per rank the smaller of its ``collective_wait_ns`` and its
    ``exposed_comm_ns`` (the finding is part of the exposed communication: a wait run under compute costs nothing,
    so a part never exceeds its whole); unknown exposed figures do not cap."""
    o = t[t["rank"] != straggler]
    w = pd.to_numeric(o["collective_wait_ns"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    e = pd.to_numeric(o["exposed_comm_ns"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    if not len(o) or np.isnan(w).any() or np.isnan(e).any():
        return int(waited_ns)
    return int(min(waited_ns, float(np.minimum(w, e).sum())))
