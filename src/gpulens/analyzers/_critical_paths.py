"""The critical-path walk's inputs and outputs for :mod:`gpulens.analyzers.critical_path`: the host and GPU rows
the walk reads, the windows it walks (ProfilerStep ranges, or one per rank), the per-window paths as
:class:`Segments`, and the per-(window, class) rows the analyzer sums (times, distinct events, host waits on a
busy GPU). Split from the analyzer by role: this module builds the paths; the analyzer judges them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._critical_walk import (BLOCKING, CLASSES, CODE, Thread, Walker, process_views,
                                              thread_segments)
from gpulens.analyzers._nesting import host_ties
from gpulens.analyzers._steps import step_ranges
from gpulens.analyzers._span import CLOCK_GAP_NS, clock_windows
from gpulens.analyzers.context import (category_mask, code_mask, codes_of, context_of, int_sums, sorted_positions,
                                       unique_ints)
from gpulens.analyzers.intervals import group_order, key_codes
from gpulens.timeline import Timeline
from gpulens.timeline.selection import STEP_NAME

#: Classes of GPU work on the path (``gpu_gap``: the GPU waiting on work queued before it, cross-stream or event).
#: ``queued``: a late start of work already enqueued, the GPU holding it.
GPU_CLASSES = {"kernel", "comm", "memcpy", "memset", "gpu_gap", "queued"}
#: The GPU classes that are waits, no event: GPU idle time with work queued.
GPU_WAITS = {"gpu_gap", "queued"}


#: Columns of the host (cpu_op, runtime, sync) and GPU rows the walk reads.
HOST_COLUMNS = ("event_id", "kind", "name", "rank", "pid", "tid", "start_ns", "dur_ns")
GPU_COLUMNS = ("kind", "name", "rank", "device_id", "stream_id", "start_ns")


def _prepare(timeline: Timeline) -> tuple[Walker, pd.DataFrame, dict]:
    ctx = context_of(timeline)
    ev = timeline.events
    # only the columns the walk reads: a full-width copy of every host row was the largest allocation at 1M kernels
    from gpulens.analyzers.bottlenecks import _QUEUE_OPS_RE  # GPU-queue stream operations: no host thread's time

    # the host rows less the queue operations, selected on the events (one take of the columns read)
    keep = ctx.mask_of("cpu_op", "runtime", "sync")
    sync = ctx.mask_of("sync")
    if sync.any():
        keep &= ~(sync & category_mask(ev["name"], _QUEUE_OPS_RE))
    # a step written as an operator (the legacy "Operator" format's ProfilerStep#N) is the window, not host work:
    # its self time is no op running (host_idle), as when the step is an annotation
    keep &= ~(ctx.mask_of("cpu_op") & category_mask(ev["name"], STEP_NAME))
    host = ctx.take_rows(keep, HOST_COLUMNS, keep_index=False)
    del keep, sync
    is_cpu = category_mask(host["kind"], {"cpu_op"})
    blocking = category_mask(host["kind"], {"sync"}) | (category_mask(host["name"], BLOCKING)
                                                       & category_mask(host["kind"], {"runtime"}))
    # class code of each host row (int8, as the path stores them): cpu_op, else sync for a blocking call, else runtime
    host_class = np.full(len(host), CODE["runtime"], dtype=np.int8)
    host_class[blocking] = CODE["sync"]
    host_class[is_cpu] = CODE["cpu_op"]
    del is_cpu
    gpu = ctx.gpu[list(GPU_COLUMNS)].assign(eff_ns=ctx.effective_ns.to_numpy()).reset_index(drop=True)
    g_end = (gpu["start_ns"] + gpu["eff_ns"]).to_numpy(np.int64)
    rank_ends = {}
    g_rank = gpu["rank"].to_numpy()
    if len(g_rank) and g_rank.min() == g_rank.max():  # one rank: no grouping
        o = np.argsort(g_end, kind="stable")
        rank_ends[g_rank[0]] = (g_end[o], o)
    else:
        for r, idx in gpu.groupby("rank").indices.items():
            o = idx[np.argsort(g_end[idx], kind="stable")]
            rank_ends[r] = (g_end[o], o)
    # thread of each host row: codes in sorted (rank, pid, tid) order (missing pid/tid: −1), and the keys
    kcols = [host[c].to_numpy(dtype=np.int64, na_value=-1) if host[c].hasnans else host[c].to_numpy(np.int64)
             for c in ("rank", "pid", "tid")]
    tcode, key_list = key_codes(*kcols) if len(host) else (np.zeros(0, dtype=np.int64), [])
    n_threads = len(key_list)
    keys = np.empty(n_threads + 1, dtype=object)  # thread code → (rank, pid, tid); last slot: None
    for c, key in enumerate(key_list):
        keys[c] = key
    threads: dict = {}
    h_start = host["start_ns"].to_numpy(np.int64)
    h_end = h_start + host["dur_ns"].to_numpy(np.int64)
    tg, ta, tb, who = thread_segments(tcode, h_start, h_end,
                                      ties=host_ties(host["kind"], host["name"], _external_ids(ctx, host)))
    seg_cut = np.searchsorted(tg, np.arange(n_threads + 1))
    # the blocking rows of each thread, in row order (one stable sort of those rows only)
    brows = np.flatnonzero(blocking)
    brows = brows[np.argsort(tcode[brows], kind="stable")]
    b_cut = np.searchsorted(tcode[brows], np.arange(n_threads + 1))
    lp = np.full(len(gpu), -1, dtype=np.int64)
    if len(host) and len(gpu):
        lp = _host_positions(host["event_id"].to_numpy(np.int64), ctx.links["launch_event_id"])
    # each blocking row's name as a rank among the blocking rows' sorted distinct names: a tie key that does not
    # depend on row order (only those rows: a few, where the host frame has millions)
    name_rank = np.zeros(len(host), dtype=np.int64)
    if len(brows):
        bn = host["name"].to_numpy(dtype=object)[brows]
        name_rank[brows] = np.unique(np.array([n if isinstance(n, str) else "" for n in bn], dtype=object),
                                     return_inverse=True)[1].reshape(-1)
    own = {c: (ta[seg_cut[c]:seg_cut[c + 1]], tb[seg_cut[c]:seg_cut[c + 1]], who[seg_cut[c]:seg_cut[c + 1]],
               brows[b_cut[c]:b_cut[c + 1]]) for c in range(n_threads)}
    views = process_views(own, keys, tcode[lp[lp >= 0]] if len(tcode) else np.zeros(0, np.int64), h_end)
    for c in range(n_threads):
        key = keys[c]
        s_a, s_b, s_w, b = views.get(c, own[c])
        th = Thread(s_a, s_b, s_w)
        if len(b) and key[0] in rank_ends:
            ends, pos = rank_ends[key[0]]
            k = np.searchsorted(ends, h_end[b] + 2000, side="right") - 1  # 2 µs of host/GPU clock tolerance
            ok = (k >= 0) & (ends[np.clip(k, 0, None)] > h_start[b])
            # by end; calls ending together (a cudaStreamSynchronize and the Kineto "Stream Sync" record of its
            # wait, on the stream's track) by start, the enclosing (earlier) one last so the walk takes it, then by
            # name: the file's event order must not pick the call the path names
            bb = b[ok]
            o = np.lexsort((name_rank[bb], -h_start[bb], h_end[bb]))
            th.block_end, th.block_gpu, th.block_pos = h_end[b][ok][o], pos[k[ok]][o], b[ok][o]
        threads[key] = th
    lthread = keys[np.where(lp >= 0, tcode[np.maximum(lp, 0)] if len(tcode) else 0, n_threads)]
    # previous event on the same stream: one stable sort by (stream, start)
    prev = np.full(len(gpu), -1, dtype=np.int64)
    if len(gpu):
        stream, _ = key_codes(g_rank, gpu["device_id"].to_numpy(), gpu["stream_id"].fillna(-1).to_numpy())
        o = group_order(stream, gpu["start_ns"].to_numpy())
        same = stream[o][1:] == stream[o][:-1]
        prev[o[1:][same]] = o[:-1][same]
    walker = Walker(host, host_class, threads, gpu, lp, lthread, prev, rank_ends)
    launches = tcode[lp[lp >= 0]] if len(tcode) else np.zeros(0, np.int64)  # launching thread code per launch
    return walker, gpu, {"host": host, "tcode": tcode, "keys": keys, "launch_codes": launches}


def _external_ids(ctx, host: pd.DataFrame):
    """A function of host-frame positions returning the rows' external ids (float, missing: inf), read from the
    events for those rows only — the tie key of host events with the same interval (:func:`host_ties`)."""
    ev = ctx.timeline.events
    if "external_id" not in ev.columns:
        return None
    ids = host["event_id"].to_numpy(np.int64)

    def get(rows: np.ndarray) -> np.ndarray:
        pos = ctx.positions(ids[rows])
        out = np.full(len(rows), np.inf)
        ok = pos >= 0
        out[ok] = ev["external_id"].iloc[pos[ok]].to_numpy(dtype="float64", na_value=np.inf)
        return out
    return get


def _host_positions(host_ids: np.ndarray, launch_ids: pd.Series) -> np.ndarray:
    """Position in the host frame of each GPU event's launch call (−1 none), by binary search on the ids."""
    ok = launch_ids.notna().to_numpy()
    out = np.full(len(launch_ids), -1, dtype=np.int64)
    if not ok.any() or not len(host_ids):
        return out
    want = launch_ids[ok].astype("int64").to_numpy()
    if len(host_ids) < 2 or bool((host_ids[1:] > host_ids[:-1]).all()):
        # ids in row order (collectors number events so): positions by lookup (:func:`sorted_positions`), no sort
        k = sorted_positions(host_ids, want)
        out[ok] = np.where(host_ids[k] == want, k, -1)
        return out
    order = np.argsort(host_ids, kind="stable")
    sid = host_ids[order]
    k = np.minimum(np.searchsorted(sid, want), len(sid) - 1)
    out[ok] = np.where(sid[k] == want, order[k], -1)
    return out


def _windows(timeline: Timeline, gpu: pd.DataFrame, aux: dict) -> list[tuple]:
    """(rank, step, thread, lo, hi, start_gpu) per window."""
    steps = step_ranges(timeline)
    host_steps = steps[~(steps["stream_id"].notna() | (steps["device_id"] >= 0)).to_numpy()]
    # a rank with no GPU work has no path to the GPU: its steps are left out, as the whole-trace windows below and
    # every GPU figure leave its rank out (:func:`gpulens.collectors._ranks.ranks_without_gpu_work`); summed in, a
    # host-only rank's steps made the path longer than a rank's window and host-held in a GPU-bound run
    host_steps = host_steps[host_steps["rank"].isin(pd.unique(gpu["rank"])).to_numpy(dtype=bool)]
    if len(host_steps):
        # one window per (rank, step): a step number recorded twice on a rank (nested ranges, or one per thread)
        # is one range — on a thread that launches GPU work when one does, the longest of those — so that no time
        # is walked twice and a class never holds over 100 % of the step
        launching: set = set()
        if host_steps.duplicated(["rank", "step"]).any():  # only then: the threads that launch GPU work
            ev = timeline.events
            rt = ev.loc[context_of(timeline).mask_of("runtime"), ["pid", "tid"]].astype("Int64").fillna(-1)
            launching = set(zip(rt["pid"].astype("int64").tolist(), rt["tid"].astype("int64").tolist()))
        pt = host_steps[["pid", "tid"]].astype("Int64").fillna(-1).astype("int64")
        hs = (host_steps.assign(_launches=[(a, b) in launching for a, b in zip(pt["pid"], pt["tid"])])
              .sort_values(["_launches", "dur_ns", "start_ns"], ascending=[False, False, True], kind="stable")
              .drop_duplicates(["rank", "step"]).sort_values(["rank", "start_ns"], kind="stable"))
        kf = hs[["rank", "pid", "tid"]].astype("Int64").fillna(-1).astype("int64")
        # the four columns read as lists: no itertuples over every column of the step rows
        out = [(int(r), int(st), (int(a), int(b), int(c)), int(s), int(s + d), -1)
               for r, st, s, d, a, b, c in zip(*(hs[k].tolist() for k in ("rank", "step", "start_ns", "dur_ns")),
                                              kf["rank"], kf["pid"], kf["tid"])]
        return _on_host_threads(out, aux)
    out = []
    host = aux["host"]
    g_start = gpu["start_ns"].to_numpy(np.int64)
    g_end = (gpu["start_ns"] + gpu["eff_ns"]).to_numpy(np.int64)
    h_start = host["start_ns"].to_numpy(np.int64)
    h_end = h_start + host["dur_ns"].to_numpy(np.int64)
    g_rows, h_rows = _rows_by_rank(gpu["rank"].to_numpy()), _rows_by_rank(host["rank"].to_numpy())
    none = np.zeros(0, dtype=np.int64)
    for rank in sorted(g_rows):  # rows of each rank found once (a mask per rank over all rows: ranks × rows)
        gm, hm = g_rows[rank], h_rows.get(rank, none)
        thread = None
        if len(hm):  # the rank's busiest thread: max(set(keys), key=keys.count) over its rows' thread keys
            codes = aux["tcode"][hm]
            uniq, first = unique_ints(codes, return_index=True)
            count = dict(zip(uniq.tolist(), np.bincount(codes)[uniq].tolist()))
            seen = [aux["keys"][c] for c in uniq[np.argsort(first)]]  # first-appearance order, as set(keys) built
            n_of = {aux["keys"][c]: count[c] for c in uniq.tolist()}
            thread = max(set(seen), key=n_of.__getitem__)
        lo = int(min(g_start[gm].min(), h_start[hm].min() if len(hm) else np.inf))
        h_hi = int(h_end[hm].max()) if len(hm) else -1
        gi = gm[int(np.argmax(g_end[gm]))]
        hi = max(h_hi, int(g_end[gi]))
        out.append((int(rank), None, thread, lo, hi, gi if g_end[gi] >= h_hi else -1))
    return out


def _with_launched_work(windows: list[tuple], walker: Walker, gpu: pd.DataFrame) -> tuple[list[tuple], int]:
    """Step windows that end where the GPU work launched inside them ends, when that is later than the step range's
    end (Holistic Trace Analysis' window: the GPU events whose launch call lies in the annotation's range belong to
    it, wherever they run): the walk then starts at the last of them. When the GPU runs far behind the host (a deep
    launch queue), the host range alone holds none of its step's kernels and its path is host time only — "CPU ops
    hold 61 % of the step" on a GPU busy 97 % of the time. Windows without a step (one per rank) already end at the
    rank's last GPU event; a step whose launched work ends inside its range is unchanged.

    Unlike HTA's per-annotation windows, a rank's windows never overlap: a step starts no earlier than the end of
    the rank's previous window, so that no GPU event is walked twice and the summed path is at most the traced span
    (with a deep queue step N's GPU work runs during step N+1's host range: step N+1 then starts where step N's work
    ends). A step wholly inside the previous one's window (its host range and the work it launched) adds no time of
    its own and gets no window; the second value counts those."""
    lp = walker.launch_pos
    if not len(lp) or not any(st is not None for _, st, _, _, _, _ in windows):
        return windows, 0
    g = np.flatnonzero(lp >= 0)
    if not len(g):
        return windows, 0
    t_launch = walker.h_start[lp[g]]
    g_end = walker.g_end[g]
    g_rank = gpu["rank"].to_numpy()[g]
    by_rank: dict = {}
    for r, rows in _rows_by_rank(g_rank).items():
        o = rows[np.argsort(t_launch[rows], kind="stable")]
        by_rank[r] = (t_launch[o], g[o], g_end[o])
    out, absorbed, prev_hi = [], 0, {}
    for rank, step, thread, lo, hi, g0 in windows:
        if step is not None and g0 < 0 and rank in by_rank:
            tl, gpos, ends = by_rank[rank]
            a, b = np.searchsorted(tl, lo, side="left"), np.searchsorted(tl, hi, side="right")
            if b > a:
                k = a + int(np.argmax(ends[a:b]))
                if int(ends[k]) > hi:
                    hi, g0 = int(ends[k]), int(gpos[k])
            lo = max(lo, prev_hi.get(rank, lo))  # windows in start order per rank (:func:`_windows`)
            if lo >= hi:
                absorbed += 1
                continue
            prev_hi[rank] = hi
        out.append((rank, step, thread, lo, hi, g0))
    return out, absorbed


def _on_host_threads(windows: list[tuple], aux: dict) -> list[tuple]:
    """Step windows whose range lies on a thread that runs no host event (the step recorded by another process than
    the one running the ops: HTA's triton example writes ``ProfilerStep#1`` on pid 3100453, its ops and launches on
    pid 1670242) walked on the rank's thread that launches the most GPU work (else the one with the most host
    events) instead: on a thread with no events the walk sees nothing but host idle time, the step's launches,
    kernels and synchronisations left off its path."""
    keys = aux["keys"][:-1]
    have = set(keys.tolist()) if len(keys) else set()
    if all(w[2] in have for w in windows) or not have:
        return windows
    ranks = np.array([k[0] for k in keys], dtype=np.int64)
    launches = np.bincount(aux["launch_codes"], minlength=len(keys))
    rows = np.bincount(aux["tcode"], minlength=len(keys))
    best: dict[int, tuple] = {}
    for r in np.unique(ranks).tolist():
        mine = np.flatnonzero(ranks == r)
        # most launches, then most host events, then the first thread in (rank, pid, tid) order
        pick = mine[np.lexsort((mine, -rows[mine], -launches[mine]))[0]]
        best[r] = keys[pick]
    return [(rk, st, th if th in have else best.get(rk, th), lo, hi, g0) for rk, st, th, lo, hi, g0 in windows]


def _clock_parts(gpu: pd.DataFrame, aux: dict, rank: int, lo: int, hi: int, g0: int) -> list[tuple[int, int, int]]:
    """A window [lo, hi] split at its clock jumps (:func:`gpulens.analyzers._span.clock_windows` of the rank's host
    and GPU events inside it): (lo, hi, start GPU event) per part, so a path never walks across two time bases and
    the step time leaves the jump out. A window shorter than :data:`CLOCK_GAP_NS` is one part, unchanged."""
    if hi - lo < CLOCK_GAP_NS:
        return [(lo, hi, g0)]
    host = aux["host"]
    g_rank = (gpu["rank"] == rank).to_numpy()
    h_rank = (host["rank"] == rank).to_numpy()
    gs = gpu["start_ns"].to_numpy(np.int64)
    ge = gs + gpu["eff_ns"].to_numpy(np.int64)
    hs = host["start_ns"].to_numpy(np.int64)
    he = hs + host["dur_ns"].to_numpy(np.int64)
    gm = np.flatnonzero(g_rank & (ge > lo) & (gs < hi))
    hm = np.flatnonzero(h_rank & (he > lo) & (hs < hi))
    wins = clock_windows(np.concatenate([gs[gm], hs[hm]]), np.concatenate([ge[gm], he[hm]]))
    if len(wins) < 2:
        return [(lo, hi, g0)]
    out = []
    for k, (a, b) in enumerate(wins):
        a, b = max(a, lo) if k == 0 else a, min(b, hi) if k == len(wins) - 1 else b
        gin = gm[(gs[gm] >= a) & (ge[gm] <= b)]
        h_hi = int(he[hm][(hs[hm] >= a) & (he[hm] <= b)].max()) if len(hm) and ((hs[hm] >= a) & (he[hm] <= b)).any() \
            else -1
        gi = int(gin[int(np.argmax(ge[gin]))]) if len(gin) else -1
        out.append((a, b, gi if gi >= 0 and ge[gi] >= h_hi else -1))
    return out


def _rows_by_rank(rank: np.ndarray) -> dict[int, np.ndarray]:
    """rank → its row positions (ascending), from one stable sort."""
    if not len(rank):
        return {}
    order = np.argsort(rank, kind="stable")
    r = rank[order]
    cut = np.flatnonzero(r[1:] != r[:-1]) + 1
    return {int(k): v for k, v in zip(r[np.r_[0, cut]].tolist(), np.split(order, cut))}


class Segments:
    """One window's path, earliest segment first: ``cols`` holds the arrays ``a`` (start) and ``ns`` (length)
    [ns], ``pos`` (row in the host or GPU frame, −1 for gaps), ``_cls`` (class code: position in :data:`CLASSES`)
    and ``_who`` (event name code; −1 for gaps and unnamed events); :attr:`frame` is the same as a DataFrame,
    built only when asked — a DataFrame per window cost ~3 ms each, a minute at 10,000 ranks × 2 steps."""

    __slots__ = ("cols", "_frame")

    def __init__(self, cols: dict[str, np.ndarray]):
        self.cols, self._frame = cols, None

    def __len__(self) -> int:
        return len(self.cols["a"])

    @property
    def frame(self) -> pd.DataFrame:
        """``a``, ``pos``, ``ns``, ``_cls``, ``_who`` as a DataFrame."""
        if self._frame is None:
            self._frame = pd.DataFrame(self.cols, copy=False)
        return self._frame


def paths(timeline: Timeline) -> list[tuple[int, Any, int, Segments]]:
    """(rank, step, step_ns, segments) per window, memoised (:class:`Segments`), earliest segment first. The names
    of the codes: ``context_of(timeline).memo("critical_path_names", …)`` (last slot: '')."""
    return context_of(timeline).memo("critical_paths", lambda: _paths(timeline))


def _name_codes(host: pd.DataFrame, gpu: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Name codes of the host and GPU rows in one code space, and its names (object array; '' where missing)."""
    hn, gn = host["name"], gpu["name"]
    if (isinstance(hn.dtype, pd.CategoricalDtype) and isinstance(gn.dtype, pd.CategoricalDtype)
            and hn.cat.categories.equals(gn.cat.categories)):
        names = np.asarray(hn.cat.categories.astype(object), dtype=object)
        return codes_of(hn).astype(np.int64), codes_of(gn).astype(np.int64), names
    codes, names = pd.factorize(pd.concat([hn.astype(object), gn.astype(object)], ignore_index=True))
    codes = codes.astype(np.int64)
    return codes[: len(hn)], codes[len(hn):], np.asarray(names, dtype=object)


_CLASS_NAMES = np.array(CLASSES, dtype=object)


def _paths(timeline: Timeline) -> list:
    walker, gpu, aux = _prepare(timeline)
    h_codes, g_codes, names = _name_codes(aux["host"], gpu)
    names = np.array([n if isinstance(n, str) else "" for n in names] + [""], dtype=object)  # code −1: ''
    unnamed = names == ""
    gpu_class = np.zeros(len(CLASSES) + 1, dtype=bool)  # class code → a GPU class with an event
    gpu_class[[CODE[c] for c in GPU_CLASSES - GPU_WAITS]] = True
    out = []
    windows, absorbed = _with_launched_work(_windows(timeline, gpu, aux), walker, gpu)
    context_of(timeline).memo("critical_path_absorbed", lambda: absorbed)  # steps inside the previous window
    for rank, step, thread, lo, hi, g0 in windows:
        cuts = _clock_parts(gpu, aux, rank, lo, hi, g0)
        parts = [walker.walk(thread, p_lo, p_hi, p_g0) for p_lo, p_hi, p_g0 in cuts]
        cls, a, b, pos = parts[0] if len(parts) == 1 else (np.concatenate([p[i] for p in parts]) for i in range(4))
        length = int(sum(p_hi - p_lo for p_lo, p_hi, _ in cuts))
        # name code of each segment's event: the GPU event's for GPU classes, the host event's for the others, −1
        # without an event; picked per side (a class lookup, no full-length candidates for both sides)
        is_gpu = code_mask(gpu_class, cls)
        code = np.full(len(pos), -1, dtype=np.int32 if len(names) < 2 ** 31 else np.int64)  # stored narrow
        for side, table in ((is_gpu, g_codes), (~is_gpu, h_codes)):
            rows = np.flatnonzero(side & (pos >= 0))
            if len(table) and len(rows):
                code[rows] = table[np.minimum(pos[rows], len(table) - 1)]
        code[unnamed[code]] = -1  # '' names count as unnamed, like gaps
        # narrow dtypes for the codes (millions of segments at 1M kernels); the end is a + ns
        out.append((rank, step, length, Segments({"a": a, "pos": pos, "ns": b - a,
                                                   "_cls": cls.astype(np.int8, copy=False), "_who": code})))
    context_of(timeline).memo("critical_path_names", lambda: names)  # name code → name ('' for −1: last slot)
    return out


def _class_rows(paths_: list, names: np.ndarray) -> list[tuple[int, int, int, int, str]]:
    """(window, class code, time_ns, events, top_event) for every class on every path (segments of positive
    length), windows in order and classes in order of first appearance on their path. Top event: the named event
    with the most summed time on the path, ties to the smallest name; events: distinct named events."""
    parts = [(w, df) for w, (_, _, _, df) in enumerate(paths_) if len(df)]
    if not parts:
        return []
    # segments of positive length only, in their stored dtypes (int8 classes, int32 names): at 1M kernels, int64
    # copies of every column of every segment before filtering were the critical-path analyzer's peak memory; the
    # arithmetic below is int64 all the same (each expression has an int64 operand)
    keeps = [np.asarray(df.cols["ns"]) > 0 for _, df in parts]
    ns, who, pos = (np.concatenate([np.asarray(df.cols[c])[k] for (_, df), k in zip(parts, keeps)])
                    for c in ("ns", "_who", "pos"))
    if not len(ns):
        return []
    # key = window × classes + class code, dense and small; built window by window (no int64 columns of the
    # window number and of the class of every segment)
    key = np.concatenate([_window_keys(np.asarray(df.cols["_cls"])[k], w) for (w, df), k in zip(parts, keeps)])
    del keeps
    nkey = len(paths_) * len(CLASSES)
    keys = np.flatnonzero(np.bincount(key, minlength=nkey))
    first_all = np.full(nkey, len(key), dtype=np.int64)
    np.minimum.at(first_all, key, np.arange(len(key)))
    first = first_all[keys]
    total_all = np.zeros(nkey, dtype=np.int64)
    np.add.at(total_all, key, ns)  # int64: exact whatever the window length
    total = total_all[keys]
    named = who >= 0
    top: dict[int, str] = {}
    events: dict[int, int] = {}
    if named.any():
        nk, nw, npos, nns = key[named], who[named], pos[named], ns[named]
        span = int(nw.max()) + 1
        pinv, pairs = pd.factorize(nk * span + nw)  # hash-based: no sort of every segment
        sums = np.zeros(len(pairs), dtype=np.int64)
        np.add.at(sums, pinv, nns)
        pk, pw = pairs // span, pairs % span
        codes = np.sort(pw)
        codes = codes[np.r_[True, codes[1:] != codes[:-1]]]
        by_name = np.argsort(names[codes], kind="stable")
        rank = np.empty(len(codes), dtype=np.int64)
        rank[by_name] = np.arange(len(codes))
        r = rank[np.searchsorted(codes, pw)]
        o = np.lexsort((r, -sums, pk))
        head = np.r_[True, pk[o][1:] != pk[o][:-1]]
        top = {int(k): names[int(w)] for k, w in zip(pk[o][head].tolist(), pw[o][head].tolist())}
        cnt = _distinct_events(nk, npos, nkey)
        events = {int(k): int(cnt[k]) for k in np.flatnonzero(cnt).tolist()}
    order = np.lexsort((first, keys // len(CLASSES)))  # by window, then first appearance
    return [(int(k // len(CLASSES)), int(k % len(CLASSES)), int(t), int(events.get(k, 0)), top.get(k, ""))
            for k, t in zip(keys[order].tolist(), total[order].tolist())]


def _window_keys(cls: np.ndarray, window: int) -> np.ndarray:
    """``window · len(CLASSES) + cls`` as int64 (the class codes of one window's segments, int8)."""
    key = cls.astype(np.int64)
    key += window * len(CLASSES)
    return key


def _distinct_events(key: np.ndarray, pos: np.ndarray, nkey: int) -> np.ndarray:
    """Distinct events (``pos``, −1 allowed) per key (window × class, :func:`_class_rows`): int64 counts of length
    ``nkey``.

    One bitmap with a slice per key over that key's span of event positions: a window's segments of one class are
    events of one step, a narrow range of rows, so the slices add up to a few bits per segment (a hash of every
    (key, event) pair cost ~0.25 s at 4M path segments). Where the spans would add up to far more than the segments
    (a step whose events are scattered over the rows), the hash."""
    big = np.iinfo(np.int64).max
    kmin = np.full(nkey, big, dtype=np.int64)
    kmax = np.full(nkey, -2, dtype=np.int64)
    np.minimum.at(kmin, key, pos)
    np.maximum.at(kmax, key, pos)
    width = np.where(kmax >= kmin, kmax - kmin + 1, 0)
    total = int(width.sum())
    if total > 8 * len(key) + (1 << 20):
        pspan = int(pos.max()) + 2
        up = pd.unique(key * pspan + (pos + 1)) // pspan  # distinct (key, event) pairs → their key
        return np.bincount(up, minlength=nkey)
    off = np.zeros(nkey + 1, dtype=np.int64)
    np.cumsum(width, out=off[1:])
    seen = np.zeros(total, dtype=bool)
    seen[(off[:-1] - kmin)[key] + pos] = True
    cnt = np.zeros(nkey, dtype=np.int64)
    used = np.flatnonzero(width)
    if len(used):
        cnt[used] = np.add.reduceat(seen, off[used], dtype=np.int64)
    return cnt


#: host classes of the path that are waiting, not host work: when the GPU is busy during them, the step waits on it
WAIT_CLASSES = ("host_idle", "runtime")


def _host_wait_on_busy_gpu(timeline: Timeline, ps: list, kinds: tuple[str, ...] = ()) -> dict[str, int]:
    """Per wait class (:data:`WAIT_CLASSES`), the path time during which its rank's GPUs were busy [ns]: a host
    thread idle (or stuck in a runtime call) while the GPU works is waiting on that work, whatever the walk could
    follow. Busy = the union of the rank's GPU events (every device and stream; only those of ``kinds`` when given:
    the time the host waited on copies, ``("memcpy", "memset")``). Every window at once: the ranks'
    busy segments sorted by (rank, start) and each wait segment's covered time found by one lexicographic search
    (no loop per window or rank: thousands of ranks)."""
    from gpulens.analyzers.intervals import group_segments

    ctx = context_of(timeline)
    g, eff = ctx.gpu, ctx.effective_ns.to_numpy(np.int64)
    if kinds:
        pick = g["kind"].isin(kinds).to_numpy()
        g, eff = g[pick], eff[pick]
    if not len(g) or not ps:
        return {}
    is_wait = np.zeros(len(CLASSES) + 1, dtype=bool)  # class code → a wait class
    is_wait[[CODE[c] for c in WAIT_CLASSES]] = True
    # the wait segments of each window picked before joining the windows (code_mask per segment, not np.isin;
    # no joined copy of every segment's columns: at 1M kernels half of 4M segments are waits)
    parts = []
    for rank, _, _, sg in ps:
        if len(sg):
            keep = np.flatnonzero(code_mask(is_wait, sg.cols["_cls"]))
            if len(keep):
                parts.append((rank, sg, keep))
    if not parts:
        return {}
    cls = np.concatenate([sg.cols["_cls"][keep] for _, sg, keep in parts]).astype(np.int64)
    w_rank = np.concatenate([np.full(len(keep), int(rank), dtype=np.int64) for rank, _, keep in parts])
    w_a = np.concatenate([sg.cols["a"][keep] for _, sg, keep in parts]).astype(np.int64, copy=False)
    w_b = w_a + np.concatenate([sg.cols["ns"][keep] for _, sg, keep in parts]).astype(np.int64, copy=False)
    ranks, g_code = unique_ints(g["rank"].to_numpy(np.int64), return_inverse=True)
    st = g["start_ns"].to_numpy(np.int64)
    seg = group_segments(g_code, st, st + eff)
    sg, ss, se = seg["group"], seg["start"], seg["end"]
    length = se - ss
    cum = np.concatenate(([0], np.cumsum(length)))
    first = np.searchsorted(sg, np.arange(len(ranks)), side="left")
    k = np.searchsorted(ranks, w_rank)
    known = (k < len(ranks)) & (ranks[np.minimum(k, len(ranks) - 1)] == w_rank)
    k = np.minimum(k, len(ranks) - 1)
    base = cum[first[k]]
    lo = first[k]

    def covered(t: np.ndarray) -> np.ndarray:
        i = last_segment_at_or_before(sg, ss, k, t)
        ok = known & (i >= lo)
        j = np.maximum(i, 0)
        inside = np.clip(t - ss[j], 0, length[j])
        return np.where(ok, cum[j] - base + inside, 0)

    ov = covered(w_b) - covered(w_a)
    n_of, ns_of = np.bincount(cls, minlength=len(CLASSES)), int_sums(cls, ov, len(CLASSES))  # per class code
    return {c: int(ns_of[CODE[c]]) for c in WAIT_CLASSES if n_of[CODE[c]]}


def last_segment_at_or_before(sg: np.ndarray, ss: np.ndarray, k: np.ndarray, t: np.ndarray) -> np.ndarray:
    """For each query (rank code ``k``, time ``t`` [ns]): the position of the last segment of that rank starting at
    or before ``t``, among segments sorted by (rank code ``sg``, start ``ss``) — a position below the rank's first
    segment when there is none (the caller checks it against the rank's first position).

    One rank: a binary search on the starts. Several: one lexicographic sort of the segments and the queries by
    (rank, time, segments first), with no combined integer key (ns clocks overflow it) — five arrays of segments +
    queries, which at 1M kernels were the critical path's largest, so only where ranks need it."""
    if len(sg) and sg[0] == sg[-1] and (len(k) == 0 or (k.min() == k.max() == sg[0])):
        if len(t) > max(len(ss), 1) and bool((t[1:] >= t[:-1]).all()):
            # queries in time order (a path's segments) and more of them than segments: each segment's place among
            # the queries instead (fewer binary searches), then the count of segments starting at or before each
            # query by a running sum — the same positions
            cnt = np.bincount(np.searchsorted(t, ss, side="left"), minlength=len(t) + 1)[:len(t)]
            np.cumsum(cnt, out=cnt)
            cnt -= 1
            return cnt
        return np.searchsorted(ss, t, side="right") - 1
    kg = np.concatenate((sg, k))
    kt = np.concatenate((ss, t))
    isq = np.concatenate((np.zeros(len(sg), dtype=np.int8), np.ones(len(t), dtype=np.int8)))
    order = np.lexsort((isq, kt, kg))
    seen = np.cumsum(isq[order] == 0)
    i = np.empty(len(kg), dtype=np.int64)
    i[order] = seen - 1
    return i[len(sg):]
