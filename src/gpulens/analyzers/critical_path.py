"""Critical path per step (Holistic Trace Analysis' definition; the walk is in :mod:`._critical_walk`): which
chain of CPU ops, launches, kernels, synchronisations and cross-stream waits decides each step's duration, the share
of the step each class of event holds on it, and what would shorten the step.

Windows: each host ``ProfilerStep#N`` range (the path ends at the range's end on its thread — on the rank's thread
that launches the most GPU work when the range's own thread runs no host event); without steps, one window per rank
from its first to its last event. Rows: (rank, step, class) for every class on the path; a step's
``time_ns`` sum to its duration. Bound: ``gpu`` when GPU work (kernel, comm, memcpy, memset, gpu_gap) holds at least
half of the path — counting the path's host waits (idle, runtime calls) during which the rank's GPU was busy: the
host waited on that GPU work through a dependency the trace does not record (another host thread, a full launch
queue) — else ``cpu``.

Host threads: in a process whose GPU work is launched from several threads (PyTorch's backward pass runs on the
autograd engine's thread while the main thread waits in ``backward()``), the walk on one launching thread reads the
others' events where it has none (:func:`gpulens.analyzers._critical_walk.process_views`): a launch on any thread is
host work feeding the GPU, so ``host_idle`` is time when no launching thread of the process ran an event.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._critical_bound import CAUSES, WORDS, recoverable_ns
from gpulens.analyzers._critical_walk import (BLOCKING, CLASSES, CODE, Thread, Walker, process_views,
                                              thread_segments)
from gpulens.analyzers._nesting import host_ties
from gpulens.analyzers._steps import step_ranges
from gpulens.analyzers._tree import note_capped
from gpulens.analyzers import _advice
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers._span import CLOCK_GAP_NS, clock_windows, counter_only_reason, no_timeline_reason
from gpulens.analyzers.context import (category_mask, code_mask, context_of, int_sums, sorted_positions,
                                       unique_ints)
from gpulens.analyzers.intervals import group_order, key_codes
from gpulens.timeline import Timeline
from gpulens.timeline.selection import STEP_NAME
from gpulens.units import fmt_ns

COLUMNS = {
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number (unknown when the window is the whole trace) [id]",
    "step_ns": "duration of the step (the critical path's length) [ns]",
    "class": "event class on the path: cpu_op, runtime, sync, host_idle, launch_delay, kernel, comm, memcpy, memset, "
             "gpu_gap, unattributed (a GPU wait whose launch call is not in the trace) [text]",
    "time_ns": "time of the class on the path [ns]",
    "share": "time_ns / step_ns [share]",
    "events": "distinct events of the class on the path [count]",
    "top_event": "event of the class with the most time on the path ('' for gaps) [text]",
}
#: The same columns for a trace without ProfilerStep ranges: each rank's one window is its traced window, not a step
#: (reports label the columns by these docs: "window time", "share of window").
WINDOW_COLUMNS = {**COLUMNS, "step_ns": "duration of the traced window (no ProfilerStep recorded; the critical "
                                        "path's length) [ns]",
                  "share": "time_ns / step_ns: share of the traced window [share]"}
GPU_CLASSES = {"kernel", "comm", "memcpy", "memset", "gpu_gap"}
#: how each event class of the path reads in a sentence (plural: "… hold N % of the step time")
CLASS_WORDS = {"cpu_op": "CPU ops", "runtime": "runtime calls", "sync": "synchronisations",
               "host_idle": "host idle gaps", "launch_delay": "launch delays", "kernel": "kernels",
               "comm": "collectives", "memcpy": "memory copies", "memset": "memory fills",
               "gpu_gap": "cross-stream waits", "unattributed": "GPU waits with no cause the trace shows"}

_ACTIONS = {
    "kernel": "Shorten the kernels on the critical path, starting with {top}.",
    "comm": "Overlap or shrink the collectives on the critical path ({top}).",
    "memcpy": "Remove or overlap the copies on the critical path ({top}).",
    "memset": "Remove the memsets on the critical path ({top}).",
    "cpu_op": "Cut host overhead on the critical path ({graphs}, torch.compile, fewer small ops), starting "
              "with the op holding most of it, {top}.",
    "runtime": "Cut runtime-call overhead on the critical path ({top}).",
    "launch_delay": "Launch earlier or batch launches: the GPU waits for work to be enqueued.",
    "host_idle": "No host thread that launches GPU work runs an op on the critical path: look for data loading or "
                 "Python outside the ops.",
    "sync": "Remove the synchronisation on the critical path ({top}).",
    "gpu_gap": "GPU events wait on other streams: reorder or split the dependency.",
    "unattributed": "No launch call is linked to the GPU work after these waits (GPU-only trace, or calls outside the "
                    "profiling window): {record}.",
}
#: The host-idle step when the trace records no framework op (an nsys export, NVTX ranges at most): "data loading
#: or Python outside the ops" names ops the trace does not have.
NO_OPS_HOST_IDLE = ("No host thread that launches GPU work runs a recorded event on the critical path, and this "
                    "trace records no framework ops (torch.profiler's cpu_op events): look for host work outside the "
                    "recorded ranges, or record the ops (torch.profiler, or nsys --pytorch=autograd-nvtx) to see "
                    "what the host did between the launches.")


def _unlinked_launch_calls(timeline: Timeline) -> int:
    """Launch calls the trace records when it links none of them to GPU work (no correlation ids: rocprof v1's
    ``--hip-trace`` JSON), else 0 — the advice for unexplained waits then names a profiler that writes the ids
    rather than "record the host side" (:func:`gpulens.analyzers._advice.idle_text`)."""
    from gpulens.analyzers.launches import launch_calls

    if context_of(timeline).links["launch_event_id"].notna().any():
        return 0
    return int(len(launch_calls(timeline)))


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
            o = np.argsort(h_end[b][ok], kind="stable")
            th.block_end, th.block_gpu = h_end[b][ok][o], pos[k[ok]][o]
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
        out = [(int(r.rank), int(r.step), (int(a), int(b), int(c)), int(r.start_ns), int(r.start_ns + r.dur_ns), -1)
               for r, a, b, c in zip(hs.itertuples(), kf["rank"], kf["pid"], kf["tid"])]
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
        return hn.cat.codes.to_numpy().astype(np.int64), gn.cat.codes.to_numpy().astype(np.int64), names
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
    gpu_class[[CODE[c] for c in GPU_CLASSES - {"gpu_gap"}]] = True
    out = []
    for rank, step, thread, lo, hi, g0 in _windows(timeline, gpu, aux):
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


def _host_wait_on_busy_gpu(timeline: Timeline, ps: list) -> dict[str, int]:
    """Per wait class (:data:`WAIT_CLASSES`), the path time during which its rank's GPUs were busy [ns]: a host
    thread idle (or stuck in a runtime call) while the GPU works is waiting on that work, whatever the walk could
    follow. Busy = the union of the rank's GPU events (every device and stream). Every window at once: the ranks'
    busy segments sorted by (rank, start) and each wait segment's covered time found by one lexicographic search
    (no loop per window or rank: thousands of ranks)."""
    from gpulens.analyzers.intervals import group_segments

    ctx = context_of(timeline)
    g = ctx.gpu
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
    seg = group_segments(g_code, st, st + ctx.effective_ns.to_numpy(np.int64))
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


def no_path_reason(timeline: Timeline) -> str | None:
    """Why no critical path can be walked (None when one can): no GPU events, or no workload timeline (a
    counter-collection replay or a summary; see :func:`gpulens.analyzers._span.busy_unknown_reason`)."""
    if not len(context_of(timeline).gpu):
        return counter_only_reason(timeline) or "no GPU events in the trace"
    return no_timeline_reason(timeline)


class CriticalPath(Analyzer):
    """Critical path of each step and the share of each event class on it (see module docstring)."""

    name = "critical_path"
    order = 70

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        why = no_path_reason(timeline)
        if why:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=why)
        rows = []
        ps = paths(timeline)
        names = context_of(timeline).memo("critical_path_names", lambda: np.array([""], dtype=object))
        for w, c, time_ns, events, top in _class_rows(ps, names):
            rank, step, step_ns, _ = ps[w]
            rows.append({"rank": rank, "step": step, "step_ns": step_ns, "class": CLASSES[c],
                         "time_ns": time_ns, "events": events, "top_event": top})
        if not rows:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no window with a positive duration to walk (no steps, or the "
                                                 "events have no usable times)")
        t = pd.DataFrame(rows)
        t["share"] = t["time_ns"] / t["step_ns"].where(t["step_ns"] > 0)
        t["_o"] = t["class"].map({c: i for i, c in enumerate(CLASSES)})
        t = t.sort_values(["rank", "step", "_o"], kind="stable", na_position="first").reset_index(drop=True)
        t["step"] = t["step"].astype("Int64")
        summary, findings = self._summary(t, _advice.uses_pytorch(timeline), _host_wait_on_busy_gpu(timeline, ps),
                                          _advice.host_trace(timeline, device), _advice.vendor_of(timeline, device),
                                          _unlinked_launch_calls(timeline),
                                          bool(context_of(timeline).mask_of("cpu_op").any()),
                                          lambda: _longest_runtime_segment(ps, names), _cut_steps(timeline, ps))
        # the findings tree (issue 14.6), each nanosecond once: a path held by host-side or gap time is GPU idle
        # time, so it details the breakdown's idle finding; a path held by GPU work is time the kernel verdicts
        # already rank, so it is stated (title) but not counted a second time
        if summary["top_class"] in GPU_CLASSES - {"gpu_gap"} or findings[0].time_at_stake_ns is None:
            findings[0].time_at_stake_ns = None  # GPU work (or host waits on it): the kernel verdicts rank it
        elif (outside := _host_outside_span(timeline)) > _idle_of(results) \
                and (findings[0].time_at_stake_ns or 0) > _idle_of(results):
            # the path's host time lies mostly before the first / after the last GPU event (start-up: stream and
            # context creation, data loading): it details the host-only-time finding of the profiled window, not GPU
            # idle time inside the span — at most that outside time is at stake
            findings[0].parent = "window/host-only"
            if (findings[0].time_at_stake_ns or 0) > outside:
                note_capped(findings[0], int(findings[0].time_at_stake_ns), int(outside),
                            "host-only time outside the GPU span")
        elif any(f.key == "idle" for f in getattr((results or {}).get("breakdown"), "findings", [])):
            findings[0].parent = "idle"
            # a child's time is part of its parent's: the path can hold host time outside the GPU span (start-up
            # before the first kernel), which is no idle GPU time to recover — at most the idle time is at stake
            # (the breakdown's idle time itself, not its finding's figure: ``bottlenecks`` narrows that to the
            # recoverable idle, and whether it ran first depends on the process split — the findings tree caps this
            # child at its parent's figure when it is shown)
            idle = results["breakdown"].summary.get("idle_ns")
            if results["breakdown"].summary.get("idle_bound"):  # the idle is at most, not measured (clock domains)
                findings[0].time_at_stake_ns = None
            else:
                # and at most the idle of the causes this class can remove, rank by rank (:mod:`._critical_bound`):
                # CPU ops cannot recover the GPU's waits on work already queued
                stake = int(findings[0].time_at_stake_ns or 0)
                cause = recoverable_ns(timeline, t, summary["top_class"])
                if cause is not None and cause < stake and (idle is None or cause <= idle):
                    note_capped(findings[0], stake, cause, WORDS[CAUSES[summary["top_class"]]])
                elif idle is not None and stake > idle:
                    note_capped(findings[0], stake, int(idle), "idle GPU time, the time that can be recovered")
        else:  # host time on the path but no idle GPU time to recover: a description, not time at stake
            findings[0].time_at_stake_ns = None
        cols = COLUMNS if t["step"].notna().any() else WINDOW_COLUMNS
        return AnalysisResult(self.name, t[list(COLUMNS)], cols, summary, findings,
                              summary_columns={"windows": "steps (or whole-trace windows) analysed [count]",
                                               "path_ns": "summed critical-path length [ns]",
                                               "gpu_share": "share of the path on GPU work [share]",
                                               "bound": "gpu or cpu: which side holds most of the path [text]",
                                               "top_class": "event class with the most path time [text]"})

    @staticmethod
    def _summary(t: pd.DataFrame, pytorch: bool = True, waited: dict[str, int] | None = None,
                 tool: str | None = None, vendor: str | None = None,
                 unlinked: int = 0, ops: bool = True,
                 longest: Any = None, cut: int = 0) -> tuple[dict, list[Finding]]:
        per = t.groupby("class")["time_ns"].sum().sort_values(ascending=False)
        windows = t.drop_duplicates(["rank", "step"])
        path = float(windows["step_ns"].sum())
        gpu = float(per[per.index.isin(GPU_CLASSES)].sum())
        top = str(per.index[0])
        waited = waited or {}
        on_gpu = float(sum(waited.values()))  # host waits (idle, runtime calls) while the rank's GPU was busy
        unknown = float(per.get("unattributed", 0))
        host = path - gpu - on_gpu - unknown
        bound = ("gpu" if path and (gpu + on_gpu) / path >= 0.5 else
                 "cpu" if not unknown or (path and host / path >= 0.5) else "unknown")
        summary = {"windows": int(len(windows)), "path_ns": path, "gpu_share": gpu / path if path else 0.0,
                   "host_wait_gpu_busy_ns": int(on_gpu), "unattributed_share": unknown / path if path else 0.0,
                   "bound": bound, "top_class": top,
                   "class_ns": {str(k): int(v) for k, v in per.items()}}
        tops = t[t["class"] == top].groupby("top_event")["time_ns"].sum()
        top_event = str(tops.idxmax()) if len(tops) and tops.idxmax() else top
        ranks = int(windows["rank"].nunique()) if "rank" in windows else 1
        stepped = bool(windows["step"].notna().any())  # whole-trace windows: no step to speak of
        # what the windows are: steps (some cut at a --window end: then the kept part of them), or whole traces
        whole = ("traced time" if not stepped else "step time" if not cut else
                 f"time the selection keeps of the steps, {cut} of {len(windows)} cut at the --window end")
        over = (f" ({fmt_ns(per.iloc[0])} of {fmt_ns(path)}, summed over {ranks} ranks' "
                f"{'steps' if stepped else 'traces'})" if ranks > 1 else "")
        title = (f"Critical path: {CLASS_WORDS.get(top, top)} hold {100 * per.iloc[0] / path:.0f} % of the "
                 f"{whole}{over}")
        said = (f"the path is {bound.upper()}-bound" if bound != "unknown" else
                "what bounds the path is unknown")
        detail = (f"Over {len(windows)} window(s) {said} "
                  f"({100 * summary['gpu_share']:.0f} % on GPU work"
                  + (f", {100 * on_gpu / path:.0f} % host waits while the GPU was busy" if on_gpu else "")
                  + (f", {100 * unknown / path:.0f} % GPU waits with no cause the trace shows" if unknown else "")
                  + ").")
        record = _advice.idle_text(_advice.IDLE_ACTIONS, pytorch, "unattributed", tool, vendor=vendor,
                                   recorded=unlinked)
        act_text = _ACTIONS.get(top, "")
        if top == "unattributed" and unlinked:  # the calls were recorded, without the ids that link them
            act_text = "No launch call is linked to the GPU work after these waits: {record}."
        if top == "host_idle" and not ops:  # nothing says what the host did: no framework op was recorded at all
            act_text = NO_OPS_HOST_IDLE
        action = ((None if act_text is NO_OPS_HOST_IDLE else _advice.host_path_action(top, pytorch, vendor))
                  or act_text).format(top=top_event[:80], record=record, graphs=_advice.vendor_word(vendor, "graphs"))
        if top in ("runtime", "sync") and top_event != top:  # what the call is decides the step: a wait is no overhead
            what, act = _advice.runtime_path_action(top_event[:80], pytorch, vendor)
            if top == "runtime" or what != "runtime-call overhead":  # a sync event of no known call keeps its step
                action = act
                title += f" (largest: {top_event[:80]}, {what.split(':')[0].split(' (')[0]})"
        one_off = 0
        from gpulens.analyzers.launches import LAUNCH_RE

        # ``longest``: a callable giving the longest runtime segment (read only when runtime calls hold the path)
        longest = longest() if top == "runtime" and callable(longest) else None
        if longest is not None and longest[0] >= ONE_CALL_SHARE * float(per.iloc[0]) and LAUNCH_RE.match(longest[1]):
            # one call holds most of it (an MI250 trace's single 6.54 ms first hipLaunchKernel): a one-off stall,
            # not per-call overhead that graphs or fusion would remove — the idle finding leaves the same gap out
            one_off = int(longest[0])
            title = (f"Critical path: {CLASS_WORDS.get(top, top)} hold {100 * per.iloc[0] / path:.0f} % of the "
                     f"{whole}{over}, {fmt_ns(one_off)} of it one "
                     f"{longest[1][:80]} call")
            action = (f"One {longest[1][:80]} call of {fmt_ns(one_off)} holds most of it: a one-off stall (a first "
                      "launch loading the kernel's code object, a lazy initialisation), not per-call overhead that "
                      f"{_advice.vendor_word(vendor, 'graphs')} or fusion would remove — warm up before profiling "
                      "and profile the steady state.")
        busy_share = waited.get(top, 0) / float(per.iloc[0]) if per.iloc[0] else 0.0
        if top in WAIT_CLASSES and busy_share >= 0.5:
            # the host waited while the GPU worked: the walk found no recorded dependency to follow (a full launch
            # queue, a thread that launches nothing — the launching threads are already read), so this time is GPU
            # work, not host time to cut
            title += f", the GPU busy during {100 * busy_share:.0f} % of them"
            detail += (" The host waited while the GPU was busy: the step waits on GPU work through a dependency "
                       "the trace does not record (a full launch queue, or a thread that launches no GPU work — "
                       "every thread that launches is read), so the host is not what holds the step.")
            action = ("Treat these steps as GPU-bound: shorten the kernels that run during the host's waits (the "
                      "kernel verdicts say how); cutting host work would not shorten them.")
        stake = None if top in WAIT_CLASSES and busy_share >= 0.5 else int(per.iloc[0]) - one_off  # the one-off
        # call is a profiling-window cost, left out as the idle finding leaves its gap out; GPU time: the kernels'
        f = Finding(title, detail, category="critical-path", time_at_stake_ns=stake, key="critical_path",
                    action=action)
        return summary, [f]


def _cut_steps(timeline: Timeline, ps: list) -> int:
    """Step windows a ``--window`` selection cut at its end (the Steps table's ``clipped``,
    :func:`gpulens.analyzers.steps._clipped_by_window`): their path is the kept part of the step, not the step."""
    from gpulens.analyzers.steps import _clipped_by_window

    rows = [(rank, int(sg.cols["a"][0]), int(sg.cols["a"][-1] + sg.cols["ns"][-1]))
            for rank, step, _, sg in ps if step is not None and len(sg)]
    if not rows:
        return 0
    t = pd.DataFrame(rows, columns=["rank", "start_ns", "end_ns"])
    return int(_clipped_by_window(timeline, t.assign(dur_ns=t["end_ns"] - t["start_ns"])).sum())


#: A runtime call holding at least this share of the runtime time on the critical path is a one-off stall.
ONE_CALL_SHARE = 0.5


def _longest_runtime_segment(ps: list, names: np.ndarray) -> tuple[int, str] | None:
    """The longest single runtime-call segment on any critical path: (its length [ns], the call's name), None when
    the paths hold none."""
    code = CLASSES.index("runtime")
    best: tuple[int, str] | None = None
    for _rank, _step, _step_ns, seg in ps:
        df = seg.frame
        rt = df[(df["_cls"].to_numpy() == code) & (df["ns"].to_numpy() > 0)]
        if len(rt):
            i = int(np.argmax(rt["ns"].to_numpy()))
            ns = int(rt["ns"].iloc[i])
            if best is None or ns > best[0]:
                best = (ns, str(names[int(rt["_who"].iloc[i])]))
    return best


def _idle_of(results: Any) -> int:
    """The breakdown's idle GPU time inside the GPU span [ns] (0 when unknown)."""
    bd = (results or {}).get("breakdown")
    v = bd.summary.get("idle_ns") if bd is not None and not bd.skipped else None
    return int(v) if v is not None and v == v else 0


def _host_outside_span(timeline: Timeline) -> int:
    """Host-only time of the profiled windows outside the GPU spans [ns], summed over ranks: the figures of the
    "Host-only time outside the GPU span" finding (:func:`gpulens.analyzers._window_findings.host_only_window`)."""
    from gpulens.analyzers._window_findings import host_only_window

    out, _ = host_only_window(timeline)
    return int(out.get("host_only_before_ns", 0) + out.get("host_only_after_ns", 0))


SEGMENT_COLUMNS = {
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number (unknown for a whole-trace window) [id]",
    "order": "position on the path, earliest first [count]",
    "class": "event class (see critical_path) [text]",
    "offset_ns": "segment start from the window's start, clock jumps left out (the summed length of the segments "
                 "before it) [ns]",
    "dur_ns": "segment length [ns]",
    "event": "event on the path ('' for gaps and idle time: shown as none) [note]",
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
        ps = paths(timeline)
        names = context_of(timeline).memo("critical_path_names", lambda: np.array([""], dtype=object))
        for rank, step, step_ns, seg in sorted(ps, key=lambda p: -p[2]):
            df = seg.frame
            d = df[df["ns"] > 0].head(MAX_SEGMENTS - n)
            parts.append(pd.DataFrame({"rank": rank, "step": step, "order": np.arange(len(d)),
                                       "class": pd.Series(_CLASS_NAMES[d["_cls"].to_numpy()], index=d.index,
                                                          dtype=object),
                                       "offset_ns": d["ns"].cumsum() - d["ns"],
                                       "dur_ns": d["ns"],
                                       "event": pd.Series(names[d["_who"].to_numpy()], index=d.index, dtype=object)}))
            n += len(d)
            if n >= MAX_SEGMENTS:
                break
        t = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(SEGMENT_COLUMNS))
        t["step"] = t["step"].astype("Int64")
        return AnalysisResult(self.name, t[list(SEGMENT_COLUMNS)], SEGMENT_COLUMNS,
                              {"segments": int(len(t)), "truncated": n >= MAX_SEGMENTS})
