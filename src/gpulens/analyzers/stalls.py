"""Stalls: per kernel, why its warps/wavefronts were not issuing, grouped into stall classes (from counters).

Input: the Timeline's Counters rows whose metric :func:`~gpulens.analyzers.stall_classes.parse_metric`
recognises — ncu warp-state metrics (``smsp__pcsamp_warps_issue_stalled_*``,
``smsp__average_warps_issue_stalled_*_per_issue_active.ratio``, ``smsp__warp_issue_stalled_*_per_warp_active.pct``,
``smsp__average_warp_latency_issue_stalled_*``) and AMD wavefront cycles (``SQ_WAVE_CYCLES``, ``SQ_WAIT_ANY``,
``SQ_WAIT_INST_ANY``, ``SQ_ACTIVE_INST_ANY``) or rocprofiler-sdk PC-sampling reasons — joined to kernel events by
``event_id`` and aggregated per kernel name.

Aggregation over a kernel's launches: counts and cycles are summed; ratios, percentages and latencies are averaged
weighted by each launch's duration. Shares are computed within one metric family per kernel (the most direct one
present: PC sampling, then per-issue, per-warp, latency), never across families.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers._span import durations_unknown
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import category_mask, named_counter_rows, strings
from gpulens.analyzers.stall_classes import (
    AMD_TOTAL,
    OCCUPANCY_METRICS,
    SOL_METRICS,
    STALL_CLASSES,
    StallMetric,
    parse_metric,
    shares,
)
from gpulens.timeline import Timeline
from gpulens.units import pct_words, plural

_FAMILY_RANK = {"pcsamp": 0, "wave_cycles": 1, "per_issue": 1, "per_warp": 2, "latency": 3}
_SUMMED = {"pcsamp", "wave_cycles"}

COLUMNS = {
    "name": "kernel name",
    "calls": "launches with stall counters",
    "time_ns": "summed duration of those launches [ns]",
    "vendor": "nvidia or amd",
    "metric_family": "counter family the shares come from (pcsamp, per_issue, per_warp, latency, wave_cycles)",
    **{f"{c}_pct": f"share of stall time in class {c} [%]" for c in STALL_CLASSES},
    "dominant_class": "stall class with the largest share (a STALL_CLASSES code: memory_latency, compute_pipe, …; "
                      "reports show it in words) [code]",
    "dominant_pct": "its share of stall time [%]",
    "top_reason": "single stall reason with the largest share, as the tool names it",
    "top_reason_pct": "its share of stall time [%]",
    "issue_pct": "issue (selected/active) cycles / all sampled cycles [%], when the family records them",
    "reasons": "JSON-able dict reason → share of stall time [%]",
    "top_reasons": "up to three largest reasons within the dominant class, 'reason share%' [text]",
    "guidance": "one sentence on what to do about the dominant class [text]",
    "memory_sol_pct": "memory throughput, % of peak (ncu speed of light), duration-weighted; unknown when absent",
    "compute_sol_pct": "SM throughput, % of peak (ncu speed of light), duration-weighted; unknown when absent",
}
_SOL_NAMES = {m for names in SOL_METRICS.values() for m in names}
#: One sentence of guidance per dominant stall class (meanings from Nsight Compute's Kernel Profiling Guide
#: warp-state descriptions and rocprof-compute's pipeline-metrics page); ``{warps}``… are the vendor's words
#: (:func:`gpulens.analyzers._advice.vendor_text`).
GUIDANCE = {
    "memory_latency": "{Warps} wait for memory results: keep more loads in flight (independent loads per thread, "
                      "prefetch, {async_copy}) or raise occupancy.",
    "memory_throughput": "A memory queue is full: issue fewer, wider accesses and avoid spills to {lmem}.",
    "compute_pipe": "An arithmetic pipe is the limit: move math to {tensor} or cut dependent ALU chains.",
    "synchronization": "{Warps} wait at barriers: use fewer barriers and balance work between the {warps} of a "
                       "block.",
    "instruction_fetch": "Instruction fetch stalls: shrink the hot loop's code (less unrolling) and avoid divergence.",
    "scheduling": "{Warps} are ready but lose arbitration: cut the instruction count (vectorise, hoist index math).",
    "other": "No single stall class dominates: look at the top reasons in the profiler's {warp}-state section.",
}


def _stall_counters(timeline: Timeline) -> pd.DataFrame:
    """Counter rows that are stall metrics, with parsed vendor/family/reason and the kernel name and duration."""
    co = timeline.counters
    if not len(co):
        return pd.DataFrame()
    metrics = pd.unique(strings(co["metric"]).astype(str)) if not isinstance(co["metric"].dtype, pd.CategoricalDtype) \
        else [str(c) for c in co["metric"].cat.categories]  # parsed once per distinct metric name
    parsed = {m: parse_metric(m) for m in metrics}
    keep = {m for m, p in parsed.items() if p is not None}
    extra = category_mask(co["metric"], {AMD_TOTAL} | _SOL_NAMES)
    rows = co[category_mask(co["metric"], keep) | extra]
    rows = rows[rows["event_id"] >= 0]
    if not len(rows) or not rows["metric"].astype(str).isin(keep).any():
        return pd.DataFrame()
    ev = timeline.events.set_index("event_id")[["name", "dur_ns"]]
    rows = rows.join(ev, on="event_id", how="inner")
    rows = rows.assign(metric=rows["metric"].astype(str), name=rows["name"].astype(str))
    return rows.assign(parsed=rows["metric"].map(lambda m: parsed.get(m)))


def _aggregate(g: pd.DataFrame, family: str) -> dict[str, float]:
    """Per metric: sum for counts/cycles, duration-weighted mean for ratios."""
    out = {}
    for metric, m in g.groupby("metric", sort=False):
        v = m["value"].to_numpy(float)
        if family in _SUMMED:
            out[metric] = float(np.nansum(v))
        else:
            w = m["dur_ns"].to_numpy(float)
            w = w if w.sum() > 0 else np.ones_like(v)
            ok = ~np.isnan(v)
            out[metric] = float((v[ok] * w[ok]).sum() / w[ok].sum()) if ok.any() else float("nan")
    return out


def _no_breakdown_reason(rows: pd.DataFrame) -> str:
    """Why stall counters gave no kernel a breakdown: every value zero, or the reasons collected all belong to one
    stall class (a share among them is 100 % by construction)."""
    stall = rows[rows["parsed"].notna()]
    nonzero = stall[pd.to_numeric(stall["value"], errors="coerce").fillna(0) != 0]
    if not len(nonzero):
        return "stall counters present but all zero"
    reasons = sorted({p.reason for p in stall["parsed"]})
    classes = sorted({p.stall_class for p in stall["parsed"]} - {"issue"}) or ["issue"]
    return (f"only the stall {'reason' if len(reasons) == 1 else 'reasons'} {', '.join(reasons)} {'was' if len(reasons) == 1 else 'were'} collected, all "
            f"of the {', '.join(classes)} class: "
            "a share of stall time needs the other reasons too (ncu --section WarpStateStats, or every "
            "smsp__average_warp_latency_issue_stalled_* / smsp__pcsamp_warps_issue_stalled_* metric)")


def kernel_stalls(name: str, g: pd.DataFrame) -> dict[str, Any] | None:
    """One table row for the counter rows ``g`` of kernel ``name`` (None when no stall family is present)."""
    stall = g[g["parsed"].notna()]
    if not len(stall):
        return None
    fams = {p.family: p.vendor for p in stall["parsed"]}
    family = min(fams, key=lambda f: _FAMILY_RANK[f])
    sel = stall[stall["parsed"].map(lambda p: p.family == family)]
    agg = _aggregate(sel, family)
    parsed: dict[str, StallMetric] = {m: parse_metric(m) for m in agg}  # type: ignore[misc]
    values = {parsed[m].reason: v for m, v in agg.items() if not np.isnan(v)}
    if "lds_issue_wait" in values and "issue_wait" in values:  # SQ_WAIT_INST_LDS is part of SQ_WAIT_INST_ANY
        values["issue_wait"] = max(values["issue_wait"] - values["lds_issue_wait"], 0.0)
    family_of = {parsed[m].reason: parsed[m] for m in agg}
    total = None
    if family == "wave_cycles":
        tot = g[(g["metric"] == AMD_TOTAL) & g["event_id"].isin(sel["event_id"])]
        total = float(tot["value"].sum()) if len(tot) else None
    if total is None and len({family_of[r].stall_class for r in values if r in family_of} - {"issue"}) < 2:
        # shares among the collected reasons only: one stall class collected (e.g. dispatch_stall alone) is 100 % of
        # itself whatever the warps did — no breakdown (the caller names what was collected)
        return None
    reason_share, class_share, issue = shares(values, family_of, total)
    if not class_share:
        return None
    dom = max(STALL_CLASSES, key=lambda c: class_share[c])
    top = next(iter(reason_share))
    launches = sel["event_id"].unique()
    durs = g.drop_duplicates("event_id").set_index("event_id")["dur_ns"]
    return {
        "name": name, "calls": int(len(launches)), "time_ns": int(durs.reindex(launches).sum()),
        "vendor": fams[family], "metric_family": family,
        **{f"{c}_pct": 100.0 * class_share[c] for c in STALL_CLASSES},
        "dominant_class": dom, "dominant_pct": 100.0 * class_share[dom],
        "top_reason": top, "top_reason_pct": 100.0 * reason_share[top],
        "issue_pct": None if issue is None else 100.0 * issue,
        "reasons": {r: round(100.0 * f, 3) for r, f in reason_share.items()},
        "top_reasons": ", ".join([f"{r} {pct_words(100.0 * f)}" for r, f in reason_share.items()
                                  if r in family_of and family_of[r].stall_class == dom and f > 0][:3]),
        "guidance": _advice.vendor_text(GUIDANCE.get(dom, ""), fams[family]),  # the counters' vendor's words
        **{col: _sol(g, names) for col, names in SOL_METRICS.items()},
    }


def kernel_percentages(timeline: Timeline, spec: dict[str, tuple[str, ...]] | None = None) -> dict[str, dict]:
    """Per kernel name, duration-weighted ncu percentages (speed of light and occupancy by default).

    Args:
        spec: output key → metric names in priority order (default :data:`SOL_METRICS` + :data:`OCCUPANCY_METRICS`).

    Returns:
        name → {key: percentage or None}; only kernels with at least one of the metrics appear.
    """
    spec = spec or {**SOL_METRICS, **OCCUPANCY_METRICS}
    rows = named_counter_rows(timeline, {m for names in spec.values() for m in names})
    if not len(rows):
        return {}
    out = {}
    for name, g in rows.groupby("name", sort=False):
        vals = {k: _sol(g, names) for k, names in spec.items()}
        if any(v is not None for v in vals.values()):
            out[name] = vals
    return out


def _sol(g: pd.DataFrame, names: tuple[str, ...]) -> float | None:
    """Duration-weighted percentage from the first of ``names`` present in unit % (None when absent)."""
    for n in names:
        m = g[(g["metric"] == n) & g["value"].notna()]
        if "." not in n:  # a details-page display name: only its percentage form (it also exists in bytes/s)
            m = m[m["unit"].astype(str).isin(["%", "pct"])]
        if len(m):
            w = m["dur_ns"].to_numpy(float)
            v = m["value"].to_numpy(float)
            return float((v * w).sum() / w.sum()) if w.sum() > 0 else float(v.mean())
    return None


class Stalls(Analyzer):
    """Stall classes per kernel from warp-state / wavefront counters (see module docstring)."""

    name = "stalls"
    order = 60

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        rows_in = _stall_counters(timeline)
        empty = pd.DataFrame(columns=list(COLUMNS))
        if not len(rows_in):
            return AnalysisResult(self.name, empty, COLUMNS, {"kernels": 0}, skipped_reason=(
                "no stall counters (collect " + _advice.for_vendor(
                    _advice.vendor_of(timeline, device),
                    "ncu --section WarpStateStats / --metrics smsp__pcsamp_warps_issue_stalled_*",
                    "rocprof-compute / rocprofv3 --pmc SQ_WAVE_CYCLES SQ_WAIT_ANY SQ_WAIT_INST_ANY "
                    "SQ_ACTIVE_INST_ANY") + ")"))
        rows = [r for name, g in rows_in.groupby("name", sort=False) if (r := kernel_stalls(name, g))]
        if not rows:
            return AnalysisResult(self.name, empty, COLUMNS, {"kernels": 0},
                                  skipped_reason=_no_breakdown_reason(rows_in))
        t = pd.DataFrame(rows).sort_values(["time_ns", "name"], ascending=[False, True], kind="stable")
        t = t[list(COLUMNS)].reset_index(drop=True)
        tot = float(t["time_ns"].sum())
        weighted = {c: float((t[f"{c}_pct"] * t["time_ns"]).sum() / tot) if tot else float(t[f"{c}_pct"].mean())
                    for c in STALL_CLASSES}
        if durations_unknown(timeline):  # durations not recorded: the kernels' time is unknown, not 0
            t["time_ns"] = np.nan
        findings = []
        for r in t.head(5).itertuples():
            findings.append(Finding(
                f"{r.name}: {pct_words(r.dominant_pct)} of stalls are {r.dominant_class.replace('_', ' ')}",
                f"Top reason {str(r.top_reason).replace('_', ' ')} ({pct_words(r.top_reason_pct)} of stall time, "
                f"{r.vendor} {str(r.metric_family).replace('_', ' ')} counters over {plural(r.calls, 'launch(es)')}).",
                severity="info", category=f"stall-{r.dominant_class}", kernel=r.name))
        summary = {"kernels": int(len(t)), "vendors": sorted(set(t["vendor"])),
                   "time_weighted_class_pct": weighted,
                   "dominant_class": max(weighted, key=weighted.get)}
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)
