"""NVTX: GPU time per NVTX range — the breakdown Nsight Systems users ask for first.

The GPU work of a range is the work *launched* inside it: a GPU event belongs to every NVTX range that contains
the start of its launching runtime call (linked by correlation id, :attr:`AnalysisContext.links`), so nested ranges
count their children's work too (inclusive, like ``nsys stats --report nvtx_gpu_proj_sum``). Push/pop ranges
(``nvtxRangePush``/``Pop``) are matched on their own thread; start/end ranges (``nvtxRangeStart``/``End``, which may
end on another thread) on any thread of their process. Ranges come from ``tables["nvtx_ranges"]`` (written by the
Nsight Systems collector), so other annotations (Kineto ``record_function``) are not counted here.

Columns per (range name, thread): see :data:`COLUMNS`. ``gpu_ns`` sums the durations of the GPU events
(overrun-clipped, as everywhere); ``gpu_projected_ns`` sums, over the instances of the range, last GPU end − first
GPU start of their work (the range projected onto the GPU, idle gaps included).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.timeline import Timeline

COLUMNS = {
    "name": "NVTX range name [text]",
    "thread": "rank/pid/tid of the thread that opened the range [text]",
    "range_type": "push/pop (per thread) or start/end (per process) [text]",
    "depth": "nesting level of its shallowest instance, 0 = outermost [count]",
    "instances": "times the range was opened [count]",
    "range_ns": "summed wall time of the instances on the CPU [ns]",
    "launches": "launch calls inside the instances [count]",
    "gpu_events": "GPU events launched inside the instances [count]",
    "gpu_ns": "summed GPU time of the work launched inside (nested ranges included) [ns]",
    "gpu_projected_ns": "Σ over instances of last GPU end − first GPU start of that work [ns]",
    "gpu_share": "GPU time launched inside at least one instance of the range / GPU time of all GPU events "
                 "(each event once, even when instances nest or repeat) [share]",
}
SUMMARY = {
    "ranges": "NVTX range instances [count]",
    "range_names": "distinct NVTX range names [count]",
    "gpu_ns_in_ranges": "GPU time launched inside at least one NVTX range [ns]",
    "gpu_ns": "GPU time of all GPU events [ns]",
    "coverage": "gpu_ns_in_ranges / gpu_ns [share]",
}


def _depths(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Nesting depth of intervals sorted by (start, −end) on one thread (a stack of open ends)."""
    depth = np.zeros(len(starts), dtype=np.int64)
    stack: list[int] = []
    for i, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        while stack and stack[-1] < s:
            stack.pop()
        depth[i] = len(stack)
        stack.append(e)
    return depth


class Nvtx(Analyzer):
    """GPU time per NVTX range (see module docstring); skipped without NVTX ranges."""

    name = "nvtx"
    order = 36

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        from gpulens.analyzers.context import context_of

        types = timeline.tables.get("nvtx_ranges")
        empty = pd.DataFrame(columns=list(COLUMNS))
        if types is None or not len(types):
            from gpulens.analyzers._advice import vendor_of

            amd = vendor_of(timeline, device) == "amd"
            # NVTX annotates NVIDIA runs (Nsight Systems); an AMD run's markers are ROCTX, which this analysis does
            # not read: it does not apply there (left out of the "Not analysed" lists, as ncu rules on AMD)
            why = ("ROCTX ranges of an AMD run are not read by this analysis (it reads NVIDIA's NVTX ranges)"
                   if amd else "no NVTX ranges in the input (Nsight Systems export with nvtx tracing)")
            return AnalysisResult(self.name, empty, COLUMNS, skipped_reason=why, summary_columns=SUMMARY,
                                  applies=not amd)
        ev = timeline.events
        rng = ev.loc[ev["event_id"].isin(types["event_id"])].merge(types, on="event_id", how="left")
        ctx = context_of(timeline)
        gpu = ctx.gpu
        launch = ctx.links["launch_event_id"]
        g = pd.DataFrame({"launch": launch.to_numpy(), "dur": ctx.effective_ns.to_numpy(),
                          "start": gpu["start_ns"].to_numpy(), "end": (gpu["start_ns"] + ctx.effective_ns).to_numpy()})
        total_gpu = int(g["dur"].sum())
        g = g[g["launch"].notna()]
        per = g.groupby("launch").agg(n=("dur", "size"), dur=("dur", "sum"), first=("start", "min"),
                                      last=("end", "max"))
        calls = ev.set_index("event_id").loc[per.index.astype("int64"), ["rank", "pid", "tid", "start_ns"]]
        per = per.assign(rank=calls["rank"].to_numpy(), pid=calls["pid"].to_numpy(), tid=calls["tid"].to_numpy(),
                         t=calls["start_ns"].to_numpy())
        rows, covered = [], np.zeros(len(per), dtype=bool)
        union: dict[tuple[str, str, str], int] = {}
        per = per.reset_index(drop=True)
        for key_cols, rtype in ((["rank", "pid", "tid"], "push/pop"), (["rank", "pid"], "start/end")):
            sub = rng[rng["range_type"] == rtype]
            if not len(sub):
                continue
            launches_by = {k: v.sort_values("t") for k, v in per.groupby(key_cols, dropna=False)}
            for key, rs in sub.groupby(key_cols, dropna=False):
                rs = rs.sort_values(["start_ns", "dur_ns"], ascending=[True, False], kind="stable")
                st, en = rs["start_ns"].to_numpy(), (rs["start_ns"] + rs["dur_ns"]).to_numpy()
                depth = _depths(st, en)
                lk = launches_by.get(key)
                if lk is None:
                    lk = per.iloc[:0]
                t = lk["t"].to_numpy()
                lo, hi = np.searchsorted(t, st, "left"), np.searchsorted(t, en, "right")
                cn = np.concatenate([[0], np.cumsum(lk["n"].to_numpy())])
                cd = np.concatenate([[0], np.cumsum(lk["dur"].to_numpy())])
                first, last = lk["first"].to_numpy(), lk["last"].to_numpy()
                proj = np.array([last[a:b].max() - first[a:b].min() if b > a else 0 for a, b in zip(lo, hi)],
                                dtype=np.int64)
                idx = lk.index.to_numpy()
                for a, b in zip(lo, hi):
                    covered[idx[a:b]] = True
                thread = "/".join(str(x) for x in (key if isinstance(key, tuple) else (key,)))
                names, durs = rs["name"].astype(str).to_numpy(), lk["dur"].to_numpy()
                for nm in np.unique(names):  # per name, each GPU event once (nested or repeated instances)
                    mask = np.zeros(len(lk), dtype=bool)
                    sel = names == nm
                    for a, b in zip(lo[sel], hi[sel]):
                        mask[a:b] = True
                    union[(nm, thread, rtype)] = int(durs[mask].sum())
                rows.append(pd.DataFrame({"name": rs["name"].astype(str).to_numpy(), "thread": thread,
                                          "range_type": rtype, "depth": depth, "range_ns": rs["dur_ns"].to_numpy(),
                                          "launches": hi - lo, "gpu_events": cn[hi] - cn[lo],
                                          "gpu_ns": cd[hi] - cd[lo], "gpu_projected_ns": proj}))
        inst = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=list(COLUMNS))
        table = inst.groupby(["name", "thread", "range_type"], as_index=False, sort=False).agg(
            depth=("depth", "min"), instances=("range_ns", "size"), range_ns=("range_ns", "sum"),
            launches=("launches", "sum"), gpu_events=("gpu_events", "sum"), gpu_ns=("gpu_ns", "sum"),
            gpu_projected_ns=("gpu_projected_ns", "sum")) if len(inst) else empty
        if len(table):
            once = np.array([union.get((n, t, r), 0) for n, t, r in zip(table["name"], table["thread"],
                                                                        table["range_type"])], dtype=np.float64)
            table["gpu_share"] = once / total_gpu if total_gpu else np.nan
            table = table.sort_values(["gpu_ns", "range_ns"], ascending=False, kind="stable").reset_index(drop=True)
            table = table[list(COLUMNS)]
        in_ranges = int(per.loc[covered, "dur"].sum()) if len(per) else 0
        summary = {"ranges": int(len(inst)), "range_names": int(inst["name"].nunique()) if len(inst) else 0,
                   "gpu_ns_in_ranges": in_ranges, "gpu_ns": total_gpu,
                   "coverage": in_ranges / total_gpu if total_gpu else None}
        return AnalysisResult(self.name, table, COLUMNS, summary, summary_columns=SUMMARY)
