"""Step and hot-set helpers shared by the distribution, variation and critical-path analyzers.

* The **step** of a GPU event is N of the ``ProfilerStep#N`` range that contains its launching runtime call on the
  same host thread, else — kernels launched from another thread of the process, such as the autograd (backward)
  thread, while PyTorch annotates steps on the main thread only — the host range of the same (rank, pid) whose time
  window contains the launch. GPU events without a launch record (a trace whose runtime events were cut off) take
  the step whose window contains their framework op (External id), else a GPU-side ``ProfilerStep#N`` range
  containing their start on the same stream track. <NA> when none exists.
* The **hot kernels** are the names of the hotspots performance-critical set when that result is present, else the
  ``limit`` names with the most effective time.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from gpulens.analyzers._optree import _sweep
from gpulens.analyzers.context import category_mask, codes_of, context_of
from gpulens.timeline import Timeline
from gpulens.timeline.selection import STEP_NAME

_STEP = STEP_NAME


def step_ranges(timeline: Timeline) -> pd.DataFrame:
    """ProfilerStep#N rows with an int ``step`` column (host and GPU-side alike): annotations, and the cpu_ops of
    the legacy (``"cat": "Operator"``) format, which writes its steps as operators — the rows the steps analyzer
    reads (:mod:`gpulens.analyzers.steps`). Memoised on the analysis context (the step owners, the gap classes and
    the critical path's windows read it; each selection scanned every event's kind and name). Do not mutate."""
    return context_of(timeline).memo("step_ranges", lambda: _step_ranges(timeline))


def _step_ranges(timeline: Timeline) -> pd.DataFrame:
    ctx = context_of(timeline)
    ev = timeline.events
    ann = ev[ctx.mask_of("annotation", "cpu_op") & category_mask(ev["name"], _STEP)]  # named like a step only
    names = ann["name"].astype(str)
    m = names.str.extract(_STEP, expand=False)
    sel = ann[m.notna().to_numpy()]
    return sel.assign(step=m[m.notna()].astype("int64").to_numpy())


def rows_at(events: pd.DataFrame, columns: list[str], pos: np.ndarray) -> pd.DataFrame:
    """``events[columns].iloc[pos].reset_index(drop=True)`` (same dtypes), gathered column by column: no
    intermediate frame of those columns over every event row."""
    return pd.DataFrame({c: events[c].array.take(pos) for c in columns})


def gpu_steps(timeline: Timeline) -> pd.Series:
    """Step number of every GPU event (Int64, indexed like ``context_of(timeline).gpu``); memoised."""
    ctx = context_of(timeline)
    return ctx.memo("gpu_steps", lambda: _gpu_steps(timeline))


def _owner(ranges: pd.DataFrame, leaves: pd.DataFrame) -> np.ndarray:
    return range_owners(ranges, leaves)[2]


#: :func:`range_owners` probes the ranges' start and end times instead of sweeping every leaf when the leaves
#: outnumber the probes this many times and the ranges lie on at most :data:`PROBE_MAX_THREADS` host threads.
PROBE_MIN_RATIO = 8
PROBE_MAX_THREADS = 64

_THREAD_COLS = ("rank", "pid", "tid")


def _thread_key(df: pd.DataFrame) -> np.ndarray:
    """(rank, pid, tid) of each row as an int64 array of shape (n, 3), missing values −1 (as
    :func:`gpulens.analyzers._nesting.thread_codes` keys them)."""
    out = np.empty((len(df), 3), dtype=np.int64)
    for j, c in enumerate(_THREAD_COLS):
        col = df[c]
        if pd.api.types.is_integer_dtype(col.dtype):
            out[:, j] = col.to_numpy(dtype=np.int64, na_value=-1)
        else:
            out[:, j] = col.astype("Int64").fillna(-1).to_numpy(dtype=np.int64)
    return out


def range_owners(ranges: pd.DataFrame, leaves: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nesting of host ``ranges`` (columns rank, pid, tid, start_ns, dur_ns [ns]) and the innermost range owning
    each of ``leaves`` (rank, pid, tid, start_ns; instants): (parent position of each range within ``ranges``, −1
    none; its depth; owner position of each leaf, −1 none) — what :func:`gpulens.analyzers._optree._sweep` gives on
    the ranges followed by the leaves with ``dur_ns`` 0, only ranges parents.

    Leaves never enter the sweep's stack, and the stack a leaf meets changes only at a range's start or end on its
    thread. So when the leaves far outnumber the ranges (a million launch calls, a few step or NVTX ranges), the
    sweep runs on the ranges plus one zero-length probe at each range's start and end (same visit keys as a leaf
    at that time), and each leaf takes the owner of the last probe of its thread at or before its start (one sorted
    search per thread) instead of sorting and sweeping every leaf. Otherwise the leaves are swept with the ranges.
    """
    nr, nl = len(ranges), len(leaves)
    rcols = ranges[["rank", "pid", "tid", "start_ns", "dur_ns"]]
    if nr and nl >= PROBE_MIN_RATIO * 2 * nr:
        rkey = _thread_key(rcols)
        threads, tcode = np.unique(rkey, axis=0, return_inverse=True)
        tcode = tcode.reshape(-1)
        if len(threads) <= PROBE_MAX_THREADS:
            rs = rcols["start_ns"].to_numpy(np.int64)
            probe_t = np.concatenate([rs, rs + rcols["dur_ns"].to_numpy(np.int64)])
            probes = pd.DataFrame({c: np.tile(rkey[:, j], 2) for j, c in enumerate(_THREAD_COLS)})
            probes["start_ns"] = probe_t
            probes["dur_ns"] = 0
            host = pd.concat([rcols.reset_index(drop=True), probes], ignore_index=True)
            parent, depth = _sweep(host, np.r_[np.ones(nr, bool), np.zeros(2 * nr, bool)])
            probe_owner, probe_code = parent[nr:], np.tile(tcode, 2)
            owner = np.full(nl, -1, dtype=np.int64)
            lkey = _thread_key(leaves)
            ls = leaves["start_ns"].to_numpy(np.int64)
            for k, (r, p, t) in enumerate(threads.tolist()):
                on = np.flatnonzero((lkey[:, 0] == r) & (lkey[:, 1] == p) & (lkey[:, 2] == t))
                if not len(on):
                    continue
                mine = np.flatnonzero(probe_code == k)
                mine = mine[np.argsort(probe_t[mine], kind="stable")]
                i = np.searchsorted(probe_t[mine], ls[on], side="right") - 1
                owner[on] = np.where(i >= 0, probe_owner[mine[np.maximum(i, 0)]], -1)
            return parent[:nr], depth[:nr], owner
    host = pd.concat([rcols, leaves[["rank", "pid", "tid", "start_ns"]].assign(dur_ns=0)])
    parent, depth = _sweep(host, np.r_[np.ones(nr, bool), np.zeros(nl, bool)])
    return parent[:nr], depth[:nr], parent[nr:]


def _process_window(ranges: pd.DataFrame, leaves: pd.DataFrame) -> np.ndarray:
    """Step of each of ``leaves`` (rank, pid, start_ns) from the ``ranges`` (host ProfilerStep rows) of the same
    (rank, pid) whose [start, end) contains its start: the latest-starting range at or before it (steps of one
    process follow one another); −1 when none contains it. One sorted search per process."""
    out = np.full(len(leaves), -1, dtype=np.int64)
    if not len(leaves) or not len(ranges):
        return out
    proc = lambda df: pd.MultiIndex.from_arrays([df["rank"].astype(str).to_numpy(), df["pid"].astype(str).to_numpy()])
    codes, _ = pd.factorize(proc(ranges).append(proc(leaves)))
    rcode, lcode = codes[: len(ranges)], codes[len(ranges):]
    rs = ranges["start_ns"].to_numpy(np.int64)
    rend = rs + ranges["dur_ns"].to_numpy(np.int64)
    rstep = ranges["step"].to_numpy(np.int64)
    ls = leaves["start_ns"].to_numpy(np.int64)
    for c in np.unique(lcode):
        sel_r = np.flatnonzero(rcode == c)
        if not len(sel_r):
            continue
        sel_r = sel_r[np.argsort(rs[sel_r], kind="stable")]
        sel_l = np.flatnonzero(lcode == c)
        i = np.searchsorted(rs[sel_r], ls[sel_l], side="right") - 1
        at = sel_r[np.clip(i, 0, None)]
        ok = (i >= 0) & (ls[sel_l] < rend[at])
        out[sel_l[ok]] = rstep[at[ok]]
    return out


def _gpu_steps(timeline: Timeline) -> pd.Series:
    ctx = context_of(timeline)
    gpu = ctx.gpu
    out = pd.Series(pd.arrays.IntegerArray(np.zeros(len(gpu), dtype=np.int64), np.ones(len(gpu), dtype=bool)),
                    index=gpu.index)  # all <NA>, without a list of a million pd.NA
    steps = step_ranges(timeline)
    if not len(steps) or not len(gpu):
        return out
    gside = (steps["stream_id"].notna() | (steps["device_id"] >= 0)).to_numpy()
    host, dev = steps[~gside], steps[gside]
    launch = ctx.links["launch_event_id"]
    has = launch.notna().to_numpy()
    step = np.full(len(gpu), -1, dtype=np.int64)  # −1: no step yet
    if len(host) and has.any():
        ids = launch[has].astype("int64").to_numpy()
        pos = ctx.positions(ids)
        if (pos < 0).any():  # an id not in the events table: the label lookup raises, as it always did
            timeline.events.set_index("event_id").loc[ids]
        rt = rows_at(timeline.events, ["rank", "pid", "tid", "start_ns"], pos)
        own = _owner(host.reset_index(drop=True), rt)
        vals = np.where(own >= 0, host["step"].to_numpy()[np.clip(own, 0, None)], -1)
        if (vals < 0).any():  # launched from another thread (autograd): the process's step window
            miss = vals < 0
            vals[miss] = _process_window(host, rt[miss])
        step[np.flatnonzero(has)] = vals
    op_ids = ctx.links["op_event_id"]
    lost = (step < 0) & op_ids.notna().to_numpy()
    if len(host) and lost.any():  # no launch record (cut off), but an External id names its op: the op's window
        pos = ctx.positions(op_ids[lost].astype("int64").to_numpy())
        ok = pos >= 0
        ops = rows_at(timeline.events, ["rank", "pid", "tid", "start_ns"], pos[ok])
        step[np.flatnonzero(lost)[ok]] = _process_window(host, ops)
    if len(dev):
        miss = step < 0
        if miss.any():
            own = _owner(dev.reset_index(drop=True), rows_at(gpu, ["rank", "pid", "tid", "start_ns"],
                                                             np.flatnonzero(miss)))
            vals = np.where(own >= 0, dev["step"].to_numpy()[np.clip(own, 0, None)], -1)
            step[np.flatnonzero(miss)] = vals
    if (step >= 0).any():
        out = pd.Series(pd.array(np.where(step >= 0, step, 0), dtype="Int64"), index=gpu.index)
        out[step < 0] = pd.NA
    return out


def hot_rows(timeline: Timeline, results: dict | None) -> tuple[pd.DataFrame, list[str]]:
    """Kernel and comm rows of the hot kernels (memoised per hot set), in Timeline order, and the hot names.

    Columns: ``code`` (position of the row's name in the sorted hot names: grouping or sorting by it is grouping or
    sorting by name), ``rank``, ``stream_id``, ``start_ns``, ``dur_ns`` (effective [ns]), ``step`` (Int64),
    ``grid`` (the launch's grid as one int64 key: equal grids, equal keys), ``pos`` (the row's position in the
    analysis context's ``gpu`` frame).
    """
    names = hot_names(timeline, results)
    return context_of(timeline).memo(("hot_rows", tuple(names)), lambda: (_hot_rows(timeline, names), names))


def _hot_rows(timeline: Timeline, names: list[str]) -> pd.DataFrame:
    ctx = context_of(timeline)
    gpu = ctx.gpu
    order = sorted(set(names))
    rank_of = {n: i for i, n in enumerate(order)}
    col = gpu["name"]
    if isinstance(col.dtype, pd.CategoricalDtype):
        lut = np.array([rank_of.get(str(c), -1) for c in col.cat.categories] + [-1], dtype=np.int64)
        codes = codes_of(col)
        code = lut[np.where(codes < 0, len(lut) - 1, codes)]
    else:
        code = np.array([rank_of.get(str(v), -1) if isinstance(v, str) else -1 for v in col], dtype=np.int64)
    sel = np.flatnonzero((code >= 0) & category_mask(gpu["kind"], {"kernel", "comm"}))
    steps = gpu_steps(timeline)
    # the launch's grid as one number (a hash: equal grids, equal keys), so one name's launches of different problem
    # sizes (cuBLAS's 4096³ and 2048³ GEMMs under one kernel name) can be told apart; −1 parts for an unknown grid
    grid = np.zeros(len(sel), dtype=np.int64)
    for c, mul in (("grid_x", 1_000_003), ("grid_y", 1_009), ("grid_z", 1)):
        if c in gpu:
            g = gpu[c].to_numpy(dtype="float64", na_value=-1.0)[sel]
            grid = grid * mul + np.where(np.isfinite(g), g, -1).astype(np.int64)
    return pd.DataFrame({"code": code[sel], "rank": gpu["rank"].to_numpy()[sel],
                         "stream_id": gpu["stream_id"].array[sel].to_numpy(), "start_ns": gpu["start_ns"].to_numpy()[sel],
                         "dur_ns": ctx.effective_ns.to_numpy()[sel], "step": steps.array[sel], "grid": grid,
                         "pos": sel},
                        copy=False)


def hot_names(timeline: Timeline, results: dict | None, limit: int = 20) -> list[str]:
    """Names of the hot kernels (see module docstring), at most ``limit``."""
    hs = (results or {}).get("hotspots")
    if hs is not None and not hs.skipped and len(hs.table) and "critical" in hs.table:
        crit = hs.table[hs.table["critical"].astype(bool)]
        if len(crit):
            return [str(n) for n in crit["name"].head(limit)]
    ctx = context_of(timeline)
    k = ctx.of_kind("kernel", "comm")
    if not len(k):
        return []
    eff = ctx.effective_ns.loc[k.index]
    by = eff.groupby(k["name"].astype(str).to_numpy()).sum().sort_values(ascending=False, kind="stable")
    return [str(n) for n in by.index[:limit]]
