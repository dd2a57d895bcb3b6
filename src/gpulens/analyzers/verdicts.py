"""Verdicts: for each kernel in the performance-critical set, what bounds it, the time at stake, what to do next;
and one verdict for the run.

Evidence per kernel comes from earlier results when they ran — ``roofline`` (bound, roof_pct,
arithmetic_intensity), ``occupancy`` (achieved/theoretical occupancy, limiter), ``stalls`` (dominant class); without
a roofline/occupancy row, ncu's speed-of-light and occupancy percentages straight from the Counters — and
from the timeline itself (exposed collective time, launches shorter than their call and the launch-overhead idle
before the kernel, grid size vs SM/CU count). :mod:`gpulens.analyzers.verdict_rules` holds the rules.

Run verdict: the ``bottlenecks`` class when an overhead (host, launch, sync, exposed communication or memcpy) covers
at least its ``min_share`` of the GPU span; otherwise the kernel class holding the most critical-set time
(``gpu-bound`` when those kernels are undetermined). ``summary["ranked"]`` lists every quantified finding of the run,
largest time at stake first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.bottlenecks import (
    classify_gaps,
    covered_until,
    device_sms,
    replayed_for_counters,
    short_launches,
)
from gpulens.analyzers.intervals import merge
from gpulens.analyzers.launches import link_gpu_to_launch
from gpulens.analyzers.stalls import kernel_percentages
from gpulens.analyzers.verdict_rules import Evidence, decide
from gpulens.timeline import Timeline

COLUMNS = {
    "name": "kernel name",
    "kind": "kernel or comm",
    "calls": "launches",
    "time_ns": "effective GPU time (hotspots) [ns]",
    "share": "share of all kernel time [share]",
    "verdict": "compute-bound, memory-bound, latency/occupancy-bound, launch-bound, communication-bound, undetermined",
    "time_at_stake_ns": "GPU time the fix could save at most (see verdict_rules) [ns]; null when not quantifiable",
    "evidence": "the figures the verdict rests on",
    "next_steps": "one or two concrete next steps",
    "inputs": "analyses and collectors the verdict used",
}


def exposed_comm_by_name(timeline: Timeline) -> dict[str, int]:
    """Per collective name: its time not overlapped by compute kernels on the same rank and device [ns]."""
    ev = timeline.of_kind("kernel", "comm")
    out: dict[str, int] = {}
    for _, g in ev.groupby(["rank", "device_id"], observed=True):
        comp = g[g["kind"] == "kernel"]
        s, e = merge(comp["start_ns"].to_numpy("int64"), (comp["start_ns"] + comp["dur_ns"]).to_numpy("int64"))
        c = g[g["kind"] == "comm"]
        if not len(c):
            continue
        cs = c["start_ns"].to_numpy("int64")
        ce = cs + c["dur_ns"].to_numpy("int64")
        exposed = (ce - cs) - (covered_until(ce, s, e) - covered_until(cs, s, e))
        for n, x in pd.Series(exposed, index=c["name"].astype(str).to_numpy()).groupby(level=0).sum().items():
            out[n] = out.get(n, 0) + int(x)
    return out


def _row_by_name(result: Any) -> dict[str, dict]:
    if result is None or result.skipped or not len(result.table) or "name" not in result.table:
        return {}
    t = result.table
    if "time_ns" in t:
        t = t.sort_values("time_ns", ascending=False, kind="stable")
    return {str(r["name"]): r for r in t.drop_duplicates("name").to_dict("records")}


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if np.isnan(f) else f


class Verdicts(Analyzer):
    """Per-kernel verdicts for the critical set and a run verdict (see module docstring)."""

    name = "verdicts"
    order = 70

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        results = results or {}
        hs = results.get("hotspots")
        if hs is None or not len(hs.table):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no kernels (hotspots found none)")
        crit = hs.table[hs.table["critical"]]
        roof, occ, st = (_row_by_name(results.get(n)) for n in ("roofline", "occupancy", "stalls"))
        kern = timeline.of_kind("kernel", "comm").assign(name=lambda d: d["name"].astype(str))
        exposed = exposed_comm_by_name(timeline)
        links = link_gpu_to_launch(timeline)["launch_event_id"]
        bn = results.get("bottlenecks")
        gaps = classify_gaps(timeline, getattr(bn, "summary", {}).get("launch_gap_ns", 20_000), links)
        if replayed_for_counters(timeline):  # gaps between replayed kernels say nothing about launches
            gaps = gaps.iloc[:0]
        launch_idle = (gaps["dur_ns"] - gaps["sync_ns"])[gaps["cls"] == "launch"].groupby(
            gaps.loc[gaps["cls"] == "launch", "next_name"]).sum() if len(gaps) else pd.Series(dtype="int64")
        sl = short_launches(timeline, links).set_index("launch_event_id")["short"]
        co = timeline.counters
        counter_src = co.assign(s=co["source"].astype(str)).groupby("event_id")["s"].first()
        pcts = kernel_percentages(timeline)
        per = _per_name(kern, links, sl, counter_src)  # grouped once: the loop below is O(critical kernels)
        rows, findings = [], []
        for h in crit.to_dict("records"):
            name = str(h["name"])
            g = per.get(name, {})
            e = Evidence(name, str(h["kind"]), int(h["calls"]), int(h["effective_ns"]), inputs=["timeline"])
            if e.kind == "comm":
                e.exposed_comm_ns = exposed.get(name, 0)
            if g.get("linked") and len(sl):
                e.short_launch_frac = float(g["short_frac"])
                e.launch_idle_ns = int(launch_idle.get(name, 0))
            if g.get("mean_blocks") is not None:
                e.mean_blocks = float(g["mean_blocks"])
                e.num_sms = device_sms(timeline, device, int(g["rank"]), int(g["device_id"]))
            if name in roof:
                r = roof[name]
                e.bound = r.get("bound") if r.get("bound") in ("compute", "memory") else None
                e.roof_pct, e.arithmetic_intensity = _num(r.get("roof_pct")), _num(r.get("arithmetic_intensity"))
                e.inputs.append("roofline")
            if name in occ:
                o = occ[name]
                e.achieved_occupancy_pct = _num(o.get("achieved_occupancy_pct"))
                e.theoretical_occupancy_pct = _num(o.get("theoretical_occupancy_pct"))
                e.limiter = o.get("limiter") if isinstance(o.get("limiter"), str) else None
                e.inputs.append("occupancy")
            if name in st:
                s = st[name]
                e.stall_class, e.stall_pct, e.top_stall = s["dominant_class"], _num(s["dominant_pct"]), s["top_reason"]
                e.inputs.append("stalls")
            p = pcts.get(name, {})
            mem, comp = _num(p.get("memory_sol_pct")), _num(p.get("compute_sol_pct"))
            if e.roof_pct is None and (mem is not None or comp is not None):
                e.bound = "memory" if (mem or 0) >= (comp or 0) else "compute"
                e.roof_pct, e.roof_source = max(mem or 0, comp or 0), "ncu speed of light"
                e.inputs.append("counters:speed-of-light")
            if e.achieved_occupancy_pct is None and p.get("achieved_occupancy_pct") is not None:
                e.achieved_occupancy_pct = _num(p.get("achieved_occupancy_pct"))
                e.theoretical_occupancy_pct = _num(p.get("theoretical_occupancy_pct"))
                e.inputs.append("counters:occupancy")
            v = decide(e)
            srcs = g.get("sources", set())
            inputs = e.inputs + [f"collector:{c}" for c in sorted(srcs)]
            rows.append({"name": name, "kind": e.kind, "calls": e.calls, "time_ns": e.time_ns, "share": h["share"],
                         "verdict": v.verdict, "time_at_stake_ns": v.time_at_stake_ns, "evidence": v.evidence,
                         "next_steps": v.next_steps, "inputs": inputs})
            if v.verdict == "undetermined":
                continue
            findings.append(Finding(
                f"{name if len(name) <= 80 else name[:79] + '…'}: {v.verdict}",
                f"{v.evidence}. Next: {' '.join(v.next_steps)} (from {', '.join(inputs)})",
                severity="warning" if v.time_at_stake_ns and v.time_at_stake_ns > 0.05 * max(
                    hs.summary.get("kernel_effective_ns", 0), 1) else "info",
                category=v.verdict, time_at_stake_ns=v.time_at_stake_ns, kernel=name))
        t = pd.DataFrame(rows, columns=list(COLUMNS))
        und = t[t["verdict"] == "undetermined"]
        if len(und):
            findings.append(Finding(
                f"{len(und)} of {len(t)} critical kernels could not be classified",
                f"No roofline position, occupancy, stall counters or launch evidence for them "
                f"({int(und['time_ns'].sum())} ns of GPU time). {und['next_steps'].iloc[0][0]}",
                severity="info", category="undetermined"))
        t["time_at_stake_ns"] = t["time_at_stake_ns"].astype("Int64")
        summary = self._run_summary(t, results, findings)
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)

    @staticmethod
    def _run_summary(t: pd.DataFrame, results: dict, findings: list[Finding]) -> dict[str, Any]:
        bn = results.get("bottlenecks")
        overhead = bn.summary.get("verdict") if bn is not None and not bn.skipped else None
        by_class = t.groupby("verdict")["time_ns"].sum().sort_values(ascending=False, kind="stable")
        kernel_class = str(by_class.index[0]) if len(by_class) else None
        if overhead and overhead != "gpu-bound":
            run, basis = overhead, "timeline: largest overhead class ≥ min_share of GPU span"
        elif kernel_class and kernel_class != "undetermined":
            run, basis = kernel_class, "critical kernels: class holding the most GPU time"
        else:
            run, basis = "gpu-bound", "GPU busy; kernel classes undetermined without counters or a FLOP/byte model"
        # breakdown's idle and exposed-comm findings are split finer by bottlenecks and the kernel verdicts
        split = {"gpu-idle"} if bn is not None else set()
        if (t["verdict"] == "communication-bound").any():
            split.add("communication-bound")
        every = [f for n, r in results.items() for f in r.findings if not (n == "breakdown" and f.category in split)]
        every += findings
        ranked = sorted((f for f in every if f.time_at_stake_ns and f.category != "data-quality"),
                        key=lambda f: -f.time_at_stake_ns)
        return {"run_verdict": run, "basis": basis, "overhead_verdict": overhead, "kernel_verdict": kernel_class,
                "kernel_time_by_verdict_ns": {str(k): int(v) for k, v in by_class.items()},
                "ranked": [{"title": f.title, "category": f.category, "time_at_stake_ns": int(f.time_at_stake_ns),
                            "kernel": f.kernel, "rank": f.rank} for f in ranked[:10]]}


def _per_name(kern: pd.DataFrame, links: pd.Series, short: pd.Series, counter_src: pd.Series) -> dict[str, dict]:
    """Per kernel name, computed with one grouping of all kernel rows (not one mask per name): ``linked`` (some
    launch is known), ``short_frac`` (share of linked launches that are short), ``mean_blocks`` (mean grid size
    over launches that record one; None when none does), ``rank``/``device_id`` of its first launch with a grid,
    ``sources`` (collectors of its events and of their counters)."""
    if not len(kern):
        return {}
    lid = links.reindex(kern.index)
    has = lid.notna().to_numpy()
    sf = pd.Series(np.nan, index=kern.index)
    if len(short) and has.any():
        sf[has] = short.reindex(lid[has].astype("int64").to_numpy()).fillna(False).astype(bool).astype(float).to_numpy()
    gx = kern["grid_x"]
    blocks = (gx.fillna(1) * kern["grid_y"].fillna(1) * kern["grid_z"].fillna(1)).astype(float).where(gx.notna())
    df = pd.DataFrame({"name": kern["name"].to_numpy(), "linked": has, "sf": sf.to_numpy(),
                       "blocks": blocks.to_numpy(), "rank": kern["rank"].to_numpy(),
                       "device_id": kern["device_id"].to_numpy()})
    grp = df.groupby("name", sort=False)
    agg = pd.DataFrame({"linked": grp["linked"].any(), "short_frac": grp["sf"].mean(),
                        "mean_blocks": grp["blocks"].mean()})
    first = df.drop_duplicates("name").set_index("name")[["rank", "device_id"]]
    agg = agg.join(first)
    src = pd.concat([pd.DataFrame({"name": kern["name"].to_numpy(), "s": kern["source"].astype(str).to_numpy()}),
                     pd.DataFrame({"name": kern["name"].to_numpy(),
                                   "s": counter_src.reindex(kern["event_id"].to_numpy()).to_numpy()}).dropna()])
    sources = src.drop_duplicates().groupby("name", sort=False)["s"].agg(set)
    out = agg.to_dict("index")
    for name, r in out.items():
        r["mean_blocks"] = None if pd.isna(r["mean_blocks"]) else r["mean_blocks"]
        r["sources"] = sources.get(name, set())
    return out
