"""Critical path per step (Holistic Trace Analysis' definition; the walk is in :mod:`._critical_walk`): which
chain of CPU ops, launches, kernels, synchronisations and cross-stream waits decides each step's duration, the share
of the step each class of event holds on it, and what would shorten the step.

Windows: each host ``ProfilerStep#N`` range (the path ends at the range's end on its thread); without steps, one
window per rank from its first to its last event. Rows: (rank, step, class) for every class on the path; a step's
``time_ns`` sum to its duration. Bound: ``gpu`` when GPU work (kernel, comm, memcpy, memset, gpu_gap) holds at least
half of the path, else ``cpu``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._critical_walk import BLOCKING, CLASSES, Thread, Walker, leaf_segments
from gpulens.analyzers._steps import step_ranges
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers._span import busy_unknown_reason
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline

COLUMNS = {
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number (unknown when the window is the whole trace) [id]",
    "step_ns": "duration of the step (the critical path's length) [ns]",
    "class": "event class on the path: cpu_op, runtime, sync, host_idle, launch_delay, kernel, comm, memcpy, memset, "
             "gpu_gap [text]",
    "time_ns": "time of the class on the path [ns]",
    "share": "time_ns / step_ns [share]",
    "events": "distinct events of the class on the path [count]",
    "top_event": "event of the class with the most time on the path ('' for gaps) [text]",
}
GPU_CLASSES = {"kernel", "comm", "memcpy", "memset", "gpu_gap"}
#: how each event class of the path reads in a sentence (plural: "… hold N % of the step time")
CLASS_WORDS = {"cpu_op": "CPU ops", "runtime": "runtime calls", "sync": "synchronisations",
               "host_idle": "host idle gaps", "launch_delay": "launch delays", "kernel": "kernels",
               "comm": "collectives", "memcpy": "memory copies", "memset": "memory fills",
               "gpu_gap": "cross-stream waits"}

_ACTIONS = {
    "kernel": "Shorten the kernels on the critical path, starting with {top}.",
    "comm": "Overlap or shrink the collectives on the critical path ({top}).",
    "memcpy": "Remove or overlap the copies on the critical path ({top}).",
    "memset": "Remove the memsets on the critical path ({top}).",
    "cpu_op": "Cut host overhead on the critical path (CUDA graphs, torch.compile, fewer small ops; {top}).",
    "runtime": "Cut runtime-call overhead on the critical path ({top}).",
    "launch_delay": "Launch earlier or batch launches: the GPU waits for work to be enqueued.",
    "host_idle": "The host thread is idle on the critical path: look for data loading or Python outside the ops.",
    "sync": "Remove the synchronisation on the critical path ({top}).",
    "gpu_gap": "GPU events wait on other streams: reorder or split the dependency.",
}


def _prepare(timeline: Timeline) -> tuple[Walker, pd.DataFrame, dict]:
    ctx = context_of(timeline)
    host = ctx.of_kind("cpu_op", "runtime", "sync").reset_index(drop=True)
    kind = host["kind"].astype(str).to_numpy()
    blocking = (kind == "sync") | (host["name"].astype(str).str.contains(BLOCKING).to_numpy() & (kind == "runtime"))
    host_class = np.where(kind == "cpu_op", "cpu_op", np.where(blocking, "sync", "runtime")).astype(object)
    gpu = ctx.gpu.assign(eff_ns=ctx.effective_ns.to_numpy()).reset_index(drop=True)
    g_end = (gpu["start_ns"] + gpu["eff_ns"]).to_numpy(np.int64)
    rank_ends = {}
    for r, idx in gpu.groupby("rank").indices.items():
        o = idx[np.argsort(g_end[idx], kind="stable")]
        rank_ends[r] = (g_end[o], o)
    kf = host[["rank", "pid", "tid"]].astype("Int64").fillna(-1).astype("int64")
    thread_key = list(zip(*(kf[c].tolist() for c in kf.columns)))
    threads: dict = {}
    h_start = host["start_ns"].to_numpy(np.int64)
    h_end = h_start + host["dur_ns"].to_numpy(np.int64)
    for key, idx in kf.groupby(["rank", "pid", "tid"]).indices.items():
        key = tuple(int(x) for x in key)
        ss, se, who = leaf_segments(h_start[idx], h_end[idx])
        th = Thread(ss, se, np.where(who >= 0, idx[np.clip(who, 0, None)], -1))
        b = idx[blocking[idx]]
        if len(b) and key[0] in rank_ends:
            ends, pos = rank_ends[key[0]]
            k = np.searchsorted(ends, h_end[b] + 2000, side="right") - 1  # 2 µs of host/GPU clock tolerance
            ok = (k >= 0) & (ends[np.clip(k, 0, None)] > h_start[b])
            o = np.argsort(h_end[b][ok], kind="stable")
            th.block_end, th.block_gpu = h_end[b][ok][o], pos[k[ok]][o]
        threads[key] = th
    lid = ctx.links["launch_event_id"]
    lp = np.full(len(lid), -1, dtype=np.int64)
    ok = lid.notna().to_numpy()
    if ok.any():
        lp[ok] = pd.Index(host["event_id"].to_numpy()).get_indexer(lid[ok].astype("int64").to_numpy())
    lthread = [thread_key[p] if p >= 0 else None for p in lp.tolist()]
    prev = np.full(len(gpu), -1, dtype=np.int64)
    for _, idx in gpu.groupby(["rank", "device_id", gpu["stream_id"].fillna(-1)]).indices.items():
        o = idx[np.argsort(gpu["start_ns"].to_numpy()[idx], kind="stable")]
        prev[o[1:]] = o[:-1]
    walker = Walker(host, host_class, threads, gpu, lp, lthread, prev, rank_ends)
    return walker, gpu, {"host": host, "thread_key": thread_key}


def _windows(timeline: Timeline, gpu: pd.DataFrame, aux: dict) -> list[tuple]:
    """(rank, step, thread, lo, hi, start_gpu) per window."""
    steps = step_ranges(timeline)
    host_steps = steps[~(steps["stream_id"].notna() | (steps["device_id"] >= 0)).to_numpy()]
    if len(host_steps):
        hs = host_steps.sort_values(["rank", "start_ns"])
        kf = hs[["rank", "pid", "tid"]].astype("Int64").fillna(-1).astype("int64")
        return [(int(r.rank), int(r.step), (int(a), int(b), int(c)), int(r.start_ns), int(r.start_ns + r.dur_ns), -1)
                for r, a, b, c in zip(hs.itertuples(), kf["rank"], kf["pid"], kf["tid"])]
    out = []
    host = aux["host"]
    g_end = (gpu["start_ns"] + gpu["eff_ns"]).to_numpy(np.int64)
    for rank in sorted(set(gpu["rank"].tolist())):
        gm = (gpu["rank"] == rank).to_numpy()
        hm = (host["rank"] == rank).to_numpy()
        keys = [k for k, m in zip(aux["thread_key"], hm) if m]
        thread = max(set(keys), key=keys.count) if keys else None
        lo = int(min(gpu.loc[gm, "start_ns"].min(), host.loc[hm, "start_ns"].min() if hm.any() else np.inf))
        h_hi = int((host.loc[hm, "start_ns"] + host.loc[hm, "dur_ns"]).max()) if hm.any() else -1
        gi = np.flatnonzero(gm)[int(np.argmax(g_end[gm]))]
        hi = max(h_hi, int(g_end[gi]))
        out.append((int(rank), None, thread, lo, hi, gi if g_end[gi] >= h_hi else -1))
    return out


def paths(timeline: Timeline) -> list[tuple[int, Any, int, pd.DataFrame]]:
    """(rank, step, step_ns, segments) per window, memoised; segments: ``class``, ``a``, ``b`` [ns], ``ns``,
    ``pos``, ``who`` (event name, '' for gaps), earliest first."""
    return context_of(timeline).memo("critical_paths", lambda: _paths(timeline))


def _names(col: pd.Series) -> np.ndarray:
    """A categorical name column as a numpy object array (through the categories: no per-row string objects)."""
    cats = np.asarray(col.cat.categories, dtype=object)
    codes = col.cat.codes.to_numpy()
    return np.where(codes >= 0, cats[np.clip(codes, 0, None)] if len(cats) else "", "")


def _paths(timeline: Timeline) -> list:
    walker, gpu, aux = _prepare(timeline)
    host_names, gpu_names = _names(aux["host"]["name"]), _names(gpu["name"])
    out = []
    for rank, step, thread, lo, hi, g0 in _windows(timeline, gpu, aux):
        df = pd.DataFrame(walker.walk(thread, lo, hi, g0), columns=["class", "a", "b", "pos"])
        df = df.astype({"a": "int64", "b": "int64", "pos": "int64"})
        df["ns"] = df["b"] - df["a"]
        pos = df["pos"].to_numpy(dtype="int64") if len(df) else np.zeros(0, dtype="int64")  # empty walk: object dtype
        is_gpu = df["class"].isin(GPU_CLASSES - {"gpu_gap"}).to_numpy()
        safe = np.clip(pos, 0, None)
        df["who"] = np.where(pos < 0, "", np.where(is_gpu, gpu_names[np.clip(safe, 0, max(len(gpu_names) - 1, 0))]
                                                   if len(gpu_names) else "",
                                                   host_names[np.clip(safe, 0, max(len(host_names) - 1, 0))]
                                                   if len(host_names) else ""))
        out.append((rank, step, hi - lo, df))
    return out


def no_path_reason(timeline: Timeline) -> str | None:
    """Why no critical path can be walked (None when one can): no GPU events, or no workload timeline (a
    counter-collection replay or a summary; see :func:`gpulens.analyzers._span.busy_unknown_reason`)."""
    if not len(context_of(timeline).gpu):
        return "no GPU events in the trace"
    replayed = busy_unknown_reason(timeline)
    return f"no workload timeline: {replayed}" if replayed else None


class CriticalPath(Analyzer):
    """Critical path of each step and the share of each event class on it (see module docstring)."""

    name = "critical_path"
    order = 70

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        why = no_path_reason(timeline)
        if why:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=why)
        rows = []
        for rank, step, step_ns, df in paths(timeline):
            for cls, g in df[df["ns"] > 0].groupby("class", sort=False):
                named = g[g["who"] != ""]
                top = named.groupby("who")["ns"].sum().idxmax() if len(named) else ""
                rows.append({"rank": rank, "step": step, "step_ns": step_ns, "class": cls,
                             "time_ns": int(g["ns"].sum()), "events": int(named["pos"].nunique()), "top_event": top})
        if not rows:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no window with a positive duration to walk (no steps, or the "
                                                 "events have no usable times)")
        t = pd.DataFrame(rows)
        t["share"] = t["time_ns"] / t["step_ns"].where(t["step_ns"] > 0)
        t["_o"] = t["class"].map({c: i for i, c in enumerate(CLASSES)})
        t = t.sort_values(["rank", "step", "_o"], kind="stable", na_position="first").reset_index(drop=True)
        t["step"] = t["step"].astype("Int64")
        summary, findings = self._summary(t)
        # the findings tree (issue 14.6), each nanosecond once: a path held by host-side or gap time is GPU idle
        # time, so it details the breakdown's idle finding; a path held by GPU work is time the kernel verdicts
        # already rank, so it is stated (title) but not counted a second time
        if summary["top_class"] in GPU_CLASSES - {"gpu_gap"}:
            findings[0].time_at_stake_ns = None
        elif any(f.key == "idle" for f in getattr((results or {}).get("breakdown"), "findings", [])):
            findings[0].parent = "idle"
            # a child's time is part of its parent's: the path can hold host time outside the GPU span (start-up
            # before the first kernel), which is no idle GPU time to recover — at most the idle time is at stake
            idle = next(f for f in results["breakdown"].findings if f.key == "idle").time_at_stake_ns
            if idle is not None and (findings[0].time_at_stake_ns or 0) > idle:
                findings[0].time_at_stake_ns = int(idle)
        else:  # host time on the path but no idle GPU time to recover: a description, not time at stake
            findings[0].time_at_stake_ns = None
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, summary, findings,
                              summary_columns={"windows": "steps (or whole-trace windows) analysed [count]",
                                               "path_ns": "summed critical-path length [ns]",
                                               "gpu_share": "share of the path on GPU work [share]",
                                               "bound": "gpu or cpu: which side holds most of the path [text]",
                                               "top_class": "event class with the most path time [text]"})

    @staticmethod
    def _summary(t: pd.DataFrame) -> tuple[dict, list[Finding]]:
        per = t.groupby("class")["time_ns"].sum().sort_values(ascending=False)
        windows = t.drop_duplicates(["rank", "step"])
        path = float(windows["step_ns"].sum())
        gpu = float(per[per.index.isin(GPU_CLASSES)].sum())
        top = str(per.index[0])
        summary = {"windows": int(len(windows)), "path_ns": path, "gpu_share": gpu / path if path else 0.0,
                   "bound": "gpu" if path and gpu / path >= 0.5 else "cpu", "top_class": top,
                   "class_ns": {str(k): int(v) for k, v in per.items()}}
        tops = t[t["class"] == top].groupby("top_event")["time_ns"].sum()
        top_event = str(tops.idxmax()) if len(tops) and tops.idxmax() else top
        f = Finding(f"Critical path: {CLASS_WORDS.get(top, top)} hold {100 * per.iloc[0] / path:.0f} % of the step time",
                    f"Over {len(windows)} window(s) the path is {summary['bound'].upper()}-bound "
                    f"({100 * summary['gpu_share']:.0f} % on GPU work).", category="critical-path",
                    time_at_stake_ns=int(per.iloc[0]), key="critical_path",
                    action=_ACTIONS.get(top, "").format(top=top_event[:80]))
        return summary, [f]


SEGMENT_COLUMNS = {
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number (unknown for a whole-trace window) [id]",
    "order": "position on the path, earliest first [count]",
    "class": "event class (see critical_path) [text]",
    "offset_ns": "segment start from the window's start [ns]",
    "dur_ns": "segment length [ns]",
    "event": "event on the path ('' for gaps and idle time) [text]",
}
MAX_SEGMENTS = 5000


class CriticalPathSegments(Analyzer):
    """The critical path itself, segment by segment (slowest windows first, at most :data:`MAX_SEGMENTS` rows)."""

    name = "critical_path_segments"
    order = 71

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        why = no_path_reason(timeline)
        if why:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(SEGMENT_COLUMNS)), SEGMENT_COLUMNS, skipped_reason=why)
        parts, n = [], 0
        for rank, step, step_ns, df in sorted(paths(timeline), key=lambda p: -p[2]):
            d = df[df["ns"] > 0].head(MAX_SEGMENTS - n)
            parts.append(pd.DataFrame({"rank": rank, "step": step, "order": np.arange(len(d)), "class": d["class"],
                                       "offset_ns": d["a"] - (d["a"].iloc[0] if len(d) else 0),
                                       "dur_ns": d["ns"], "event": d["who"]}))
            n += len(d)
            if n >= MAX_SEGMENTS:
                break
        t = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(SEGMENT_COLUMNS))
        t["step"] = t["step"].astype("Int64")
        return AnalysisResult(self.name, t[list(SEGMENT_COLUMNS)], SEGMENT_COLUMNS,
                              {"segments": int(len(t)), "truncated": n >= MAX_SEGMENTS})
