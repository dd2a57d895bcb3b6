"""Annotation breakdown: where in the model the GPU time goes, per user range — PyTorch ``record_function`` /
``user_annotation`` and ``ProfilerStep#N`` ranges, GPU-side ``gpu_user_annotation`` ranges, NVTX ranges (nsys),
roctx ranges (rocprof) — nested, per rank.

Attribution (as Holistic Trace Analysis does for host ranges):

* a **host** range owns the GPU events whose launching runtime call starts inside it on the same thread
  (rank, pid, tid); a ``ProfilerStep#N`` range, the whole process's iteration, also owns the launch calls of the
  rank's other threads that start inside it and no range of their own thread holds (the autograd engine's
  backward kernels), as the Steps table counts them; GPU work without a recorded launch call cannot be placed in
  host ranges;
* a **GPU-side** range (recorded on a GPU stream) owns the GPU events that start inside it on the same stream track.

Ranges nest by containment on their thread/track (:func:`gpulens.analyzers._optree._sweep`); ``gpu_time_ns`` is
inclusive of nested ranges, ``self_gpu_time_ns`` is not. ``path`` names the enclosing ranges (``outer / inner``).
Rows: (rank, side, path); a name repeated in a loop (``layer``) is one row with ``calls`` instances; the most GPU
time first (:data:`ORDER`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._attribution import gpu_attribution
from gpulens.analyzers._steps import range_owners, rows_at
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline

COLUMNS = {
    "rank": "distributed rank [id]",
    "side": "host (a CPU-thread range) or gpu (a range recorded on a GPU stream) [text]",
    "annotation": "range name [text]",
    "gpu_time_ns": "GPU time of the events attributed to the instances and their nested ranges [ns]",
    "host_time_ns": "summed duration of the instances on their CPU thread; unknown for a GPU-side range (side gpu: "
                    "its duration is GPU-stream time, not the host's) [ns]",
    "path": "enclosing ranges, outermost first, joined by ' / ' [text]",
    "calls": "instances of the range [count]",
    "depth": "nesting depth (0 = outermost) [count]",
    "self_gpu_time_ns": "GPU time attributed to the instances outside nested ranges [ns]",
    "gpu_events": "GPU events attributed, nested ranges included [count]",
    "share": "gpu_time_ns / the rank's GPU event time [share]",
}
#: The table's order, one definition for every reporter: the most GPU time first (the README's "GPU time per
#: record_function / NVTX / roctx range"), then the most host time (ranges with no GPU work: where the host spent
#: its time), then rank, side and path for a stable order. GPU and host time lead the columns after the name, so a
#: compact table (console, Markdown) shows both (a new user's console showed neither GPU time nor the order by it).
ORDER = (["gpu_time_ns", "host_time_ns", "rank", "side", "path"], [False, False, True, True, True])
SUMMARY_COLUMNS = {
    "annotations": "range instances [count]",
    "rows": "distinct (rank, side, path) rows [count]",
    "covered_share": "share of GPU time inside some outermost range [share]",
}


def _owners(ann: pd.DataFrame, leaves: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(parent position within ann, depth) of each range and the innermost owning range of each leaf (−1 none)."""
    return range_owners(ann, leaves)


#: a path of up to this many ranges is written in full; a deeper one keeps its first and last
#: :data:`PATH_ENDS` names around "… N more …" (the rows stay apart: they are grouped by the whole chain)
PATH_FULL = 12
PATH_ENDS = 4


def _by_depth(depth: np.ndarray) -> list[np.ndarray]:
    """Positions of the ranges at each depth (index = depth), each in input order: one sort, not one scan per
    depth (a chain of thousands of nested or staircase ranges has thousands of depths)."""
    order = np.argsort(depth, kind="stable")
    cuts = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2 if len(depth) else 1))
    return [order[cuts[d]:cuts[d + 1]] for d in range(len(cuts) - 1)]


def _paths(names: np.ndarray, parent: np.ndarray, levels: list[np.ndarray]) -> tuple[np.ndarray, list[str]]:
    """(path code of each range, label of each code). A code stands for the whole chain of enclosing names, given
    level by level as (parent's code, own name): linear in the ranges whatever their depth. The label joins the
    names with ' / ' up to :data:`PATH_FULL` ranges; a deeper chain shows its first and last :data:`PATH_ENDS`
    names and how many were left out, so no label grows with the depth (a chain of n ranges written in full
    holds n²/2 names)."""
    code = np.full(len(names), -1, dtype=np.int64)
    key: dict[tuple[int, str], int] = {}
    up: list[int] = []      # parent code of each code
    name: list[str] = []    # own name of each code
    head: list[str] = []    # the first PATH_ENDS names of the chain, joined
    size: list[int] = []    # ranges in the chain
    for rows in levels:
        for i in rows.tolist():
            pc = int(code[parent[i]]) if parent[i] >= 0 else -1
            k = (pc, str(names[i]))
            c = key.get(k)
            if c is None:
                c = key[k] = len(up)
                up.append(pc)
                name.append(k[1])
                n = size[pc] + 1 if pc >= 0 else 1
                size.append(n)
                head.append(k[1] if pc < 0 else head[pc] + " / " + k[1] if n <= PATH_ENDS else head[pc])
            code[i] = c
    labels = []
    for c in range(len(up)):
        tail, j = [], c
        while j >= 0 and len(tail) < (PATH_FULL if size[c] <= PATH_FULL else PATH_ENDS):
            tail.append(name[j])
            j = up[j]
        tail.reverse()
        if size[c] <= PATH_FULL:
            labels.append(" / ".join(tail))
        else:
            labels.append(f"{head[c]} / … {size[c] - 2 * PATH_ENDS} more … / " + " / ".join(tail))
    return code, labels


def _step_owners(a: pd.DataFrame, depth: np.ndarray, leaves: pd.DataFrame, owner: np.ndarray) -> None:
    """Give each leaf (launch call) that no range of its own thread owns (``owner`` −1, updated in place) to the
    outermost ``ProfilerStep#N`` range of its rank whose interval holds its start: a step is the whole process's
    iteration (``prof.step()``), so the kernels the autograd engine launches from its own thread during the step
    belong to it — as the Steps table counts them — where a user range belongs to its thread alone (HTA)."""
    from gpulens.analyzers._steps import _STEP  # the one definition of a step range's name

    is_step = (depth == 0) & a["name"].astype(str).str.match(_STEP).to_numpy(dtype=bool)
    free = owner < 0
    if not is_step.any() or not free.any():
        return
    steps = np.flatnonzero(is_step)
    s_rank = a["rank"].to_numpy()[steps]
    s_start = a["start_ns"].to_numpy("int64")[steps]
    s_end = s_start + a["dur_ns"].to_numpy("int64")[steps]
    l_rank = leaves["rank"].to_numpy()
    l_start = leaves["start_ns"].to_numpy("int64")
    for r in pd.unique(s_rank):
        mine = s_rank == r
        order = np.argsort(s_start[mine], kind="stable")
        idx, st, en = steps[mine][order], s_start[mine][order], s_end[mine][order]
        cand = np.flatnonzero(free & (l_rank == r))
        k = np.searchsorted(st, l_start[cand], side="right") - 1
        ok = (k >= 0) & (l_start[cand] < en[np.clip(k, 0, None)])
        owner[cand[ok]] = idx[k[ok]]


class Annotations(Analyzer):
    """GPU time per user annotation, nested, per rank (see module docstring)."""

    name = "annotations"
    order = 60

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        ctx = context_of(timeline)
        ann = ctx.of_kind("annotation")
        att = gpu_attribution(timeline)
        if not len(ann) or not len(att):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no annotation ranges" if not len(ann) else "no GPU events")
        gpu_side = ctx.gpu_side_ranges[ctx.mask_of("annotation")]  # ann's rows, in order
        ev = timeline.events
        launch = ctx.links["launch_event_id"]
        has = launch.notna().to_numpy()
        ids = launch[has].astype("int64").to_numpy()
        pos = ctx.positions(ids)  # rows by position: no event_id index over the whole events table
        if (pos < 0).any():  # an id not in the events table: the label lookup raises, as it always did
            ev.set_index("event_id").loc[ids]
        cols = ["rank", "pid", "tid", "start_ns"]
        parts = []
        # each side's leaves (the launch calls / the GPU events) gathered only when that side has ranges
        for side, rows, leaves, leaf_time in (
                ("host", ~gpu_side, lambda: rows_at(ev, cols, pos), lambda: att["time_ns"].to_numpy()[has]),
                ("gpu", gpu_side, lambda: rows_at(ctx.gpu, cols, np.arange(len(ctx.gpu))),
                 lambda: att["time_ns"].to_numpy())):
            a = ann[rows]
            if len(a):
                parts.append(self._side(side, a, leaves(), leaf_time()))
        t = pd.concat(parts, ignore_index=True)
        # a GPU-side range has no host time: its duration is GPU-stream time, never shown as the host's (unknown)
        t["host_time_ns"] = t["host_time_ns"].astype(float).where(t["side"].astype(str) == "host")
        per_rank = att.groupby("rank")["time_ns"].sum()
        t["share"] = t["gpu_time_ns"] / t["rank"].map(per_rank).where(lambda s: s > 0)
        t["share"] = t["share"].fillna(0.0)
        t = t.sort_values(ORDER[0], ascending=ORDER[1], kind="stable").reset_index(drop=True)
        top = t[t["depth"] == 0]
        total = float(att["time_ns"].sum())
        summary = {"annotations": int(len(ann)), "rows": int(len(t)),
                   "covered_share": min(1.0, float(top.groupby("side")["gpu_time_ns"].sum().max()) / total)
                   if total and len(top) else 0.0}
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, summary, summary_columns=SUMMARY_COLUMNS)

    @staticmethod
    def _side(side: str, a: pd.DataFrame, leaves: pd.DataFrame, leaf_time: np.ndarray) -> pd.DataFrame:
        parent, depth, owner = _owners(a, leaves)
        if side == "host":
            _step_owners(a, depth, leaves, owner)
        n = len(a)
        self_t = np.bincount(owner[owner >= 0], weights=leaf_time[owner >= 0], minlength=n).astype(float)
        self_n = np.bincount(owner[owner >= 0], minlength=n).astype(float)
        inc_t, inc_n = self_t.copy(), self_n.copy()
        levels = _by_depth(depth)
        for rows in reversed(levels[1:]):  # deepest first: a parent sums its children once they are whole
            rows = rows[parent[rows] >= 0]
            np.add.at(inc_t, parent[rows], inc_t[rows])
            np.add.at(inc_n, parent[rows], inc_n[rows])
        names = a["name"].astype(str).to_numpy()
        code, labels = _paths(names, parent, levels)
        df = pd.DataFrame({"rank": a["rank"].to_numpy(), "side": side, "annotation": names,
                           "path_code": code, "depth": depth, "host_time_ns": a["dur_ns"].to_numpy(),
                           "gpu_time_ns": inc_t, "self_gpu_time_ns": self_t, "gpu_events": inc_n})
        g = df.groupby(["rank", "side", "path_code"], sort=False)
        out = pd.DataFrame({"annotation": g["annotation"].first(), "depth": g["depth"].first(), "calls": g.size(),
                            "host_time_ns": g["host_time_ns"].sum(), "gpu_time_ns": g["gpu_time_ns"].sum(),
                            "self_gpu_time_ns": g["self_gpu_time_ns"].sum(),
                            "gpu_events": g["gpu_events"].sum().astype("int64")}).reset_index()
        out.insert(2, "path", np.asarray(labels, dtype=object)[out.pop("path_code").to_numpy()])
        return out
