"""The critical path of a time window, as a chain of binding dependencies (after Holistic Trace Analysis'
critical-path analysis: CPU ops, kernel launches, kernels, synchronisations and cross-stream dependencies form a
graph whose edges are durations and waits; the critical path is its longest path).

In an event graph whose edge weights are the elapsed times between connected events, the longest path from the
window's start to its end is the chain in which every event waited for its **latest** predecessor (the binding
one). It is found by walking back from the window's end:

* **host, at time t** on a thread: host time runs back to the end of the latest *blocking* call on that thread
  (a synchronisation — ``*Synchronize``, a synchronous ``cudaMemcpy``/``hipMemcpy``, or a call of kind ``sync`` —
  that started while GPU work was still running). Host time is split among the innermost host events covering it:
  ``cpu_op`` (op self time), ``runtime`` (runtime calls), ``sync`` and ``host_idle`` (no host event).
  At the blocking call's end the path jumps to the GPU event it waited for (the latest-ending GPU event of the rank
  before the call's end); the time from that event's end to the call's end is ``sync``, that call's own time
  (its event: the class table names it).
* **GPU event g**: its duration is ``kernel`` / ``comm`` / ``memcpy`` / ``memset``. Its start waited for the latest
  of: its launch call's start (the gap is ``launch_delay`` up to the call's return, then — when g started over
  :data:`~gpulens.analyzers._gap_classes.LAUNCH_GAP_NS` after that return — ``queued``: a late start of work
  already enqueued, as the idle split names it; the path continues on the launching thread), the end of
  the previous event on its stream (``gpu_gap``; the path continues there), or — only when both are earlier — the
  latest end of an event on another stream of the rank before g's start (a cross-stream dependency, ``gpu_gap``).
  When g's launch call is not in the trace (a GPU-only trace, or a call outside the profiling window) nothing shows
  what g waited for: the path still continues at the latest of those predecessors, but the wait is
  ``unattributed`` — the same definition as the idle breakdown's "no cause the trace shows"
  (:mod:`gpulens.analyzers.bottlenecks`) — and the time before a first GPU event with no launch is too.

Every step of the walk moves back in time, so the path's segments tile the window: their sum is the window's length.
Cost: O(host events) to prepare each thread's innermost-event segments and O(GPU events) to decide, vectorised,
what every GPU event waited for (:meth:`Walker._hops`); the walk then reads a few array items per event on the
path (a chain of 1M queued kernels is one loop of plain integer reads, its segments built as arrays).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gpulens.analyzers._critical_chain import follow, follower
from gpulens.analyzers._gap_classes import BLOCKING_COPY_RE, LAUNCH_GAP_NS
from gpulens.analyzers._nesting import _TooDeep, leaf_tiles, nest_clipped, visit_order
from gpulens.analyzers.context import codes_of

#: Blocking host calls: synchronisations, the synchronous copies of the idle split (one definition:
#: :data:`gpulens.analyzers._gap_classes.BLOCKING_COPY_RE` — hipMemcpyWithStream was runtime work here and a
#: host sync there) and synchronous memsets.
BLOCKING = re.compile(rf"Synchronize|{BLOCKING_COPY_RE.pattern}|^(?:cuda|hip)Memset$")
GPU_CLASS = {"kernel": "kernel", "comm": "comm", "memcpy": "memcpy", "memset": "memset"}
CLASSES = ("cpu_op", "runtime", "sync", "host_idle", "launch_delay", "kernel", "comm", "memcpy", "memset",
           "gpu_gap", "unattributed", "queued")
#: Class name → its code (position in :data:`CLASSES`); the walk records codes.
CODE = {c: i for i, c in enumerate(CLASSES)}


@dataclass
class Thread:
    """Innermost-event segments of one host thread and its blocking calls."""

    seg_start: np.ndarray
    seg_end: np.ndarray
    seg_event: np.ndarray  # position in the host frame, −1 = idle
    block_end: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    block_gpu: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # GPU position waited for
    #: host-frame position of each blocking call: the ``sync`` wait after the GPU event it waited for is that call's
    #: time (its event, not an unnamed gap); −1 where unknown
    block_pos: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def leaf_segments(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tile one thread's time with the innermost event covering it (−1 between top-level events).

    ``start``/``end`` of the thread's events; nested by containment (a child running past its parent is cut at the
    parent's end).
    """
    order = np.lexsort((-(end - start), start))
    s_out: list[int] = []
    e_out: list[int] = []
    who: list[int] = []
    stack: list[tuple[int, int]] = []  # (end, position)
    cur = int(start[order[0]]) if len(order) else 0

    starts, ends = start.tolist(), end.tolist()
    for i in order.tolist():
        s = starts[i]
        while stack and stack[-1][0] <= s:
            te, tp = stack.pop()
            if te > cur:
                s_out.append(cur)
                e_out.append(te)
                who.append(tp)
                cur = te
        if s > cur:
            s_out.append(cur)
            e_out.append(s)
            who.append(stack[-1][1] if stack else -1)
            cur = s
        e = ends[i] if not stack else min(ends[i], stack[-1][0])
        stack.append((e, i))
    while stack:
        te, tp = stack.pop()
        if te > cur:
            s_out.append(cur)
            e_out.append(te)
            who.append(tp)
            cur = te
    return np.array(s_out, np.int64), np.array(e_out, np.int64), np.array(who, np.int64)


def thread_segments(group: np.ndarray, start: np.ndarray, end: np.ndarray, ties=None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`leaf_segments` of every thread at once, vectorised (:mod:`gpulens.analyzers._nesting`).

    Args:
        group: thread code of each host event; start, end: its interval [ns]; ties: tie keys of events with the
            same interval (:func:`gpulens.analyzers._nesting.host_ties`), so they nest the same way whatever the
            order of the trace file.
    Returns:
        (thread code, segment start, segment end, innermost event's row or −1), sorted by thread then time.
    """
    order = visit_order(group, start, None, end=end, ties=ties)  # durations of tied starts only
    try:
        # one thread (the usual case): its code as a read-only view, not a taken copy of every row's code
        one = not len(group) or bool(group.min() == group.max())
        g = np.broadcast_to(group[0], len(group)) if one and len(group) else group[order]
        s, e = start[order], end[order]
        parent, cend = nest_clipped(g, s, e)
        del e  # held no longer than needed: the tiles below are the 1M-kernel analysis's largest arrays
        tg, ta, tb, m = leaf_tiles(g, s, cend, parent)
        del g, s, cend, parent
        idle = m < 0
        np.maximum(m, 0, out=m)
        who = order[m]
        del m
        who[idle] = -1
        return tg, ta, tb, who
    except _TooDeep:  # pathological chains of partly overlapping events: the Python sweep, thread by thread
        parts = []
        for code in np.unique(group):
            idx = np.flatnonzero(group == code)
            ss, se, who = leaf_segments(start[idx], end[idx])
            parts.append((np.full(len(ss), code), ss, se, np.where(who >= 0, idx[np.maximum(who, 0)], -1)))
        return tuple(np.concatenate(x) for x in zip(*parts))  # type: ignore[return-value]


def process_views(own: dict, keys: np.ndarray, launch_codes: np.ndarray, h_end: np.ndarray) -> dict:
    """The host as the walk sees it from each launching thread of a process with several: the thread's own
    innermost-event segments, its idle time filled by the other launching threads of the same (rank, pid), busiest
    first (PyTorch runs the backward pass on the autograd engine's thread while the main thread waits in
    ``backward()`` with no event: a launch on any thread is host work feeding the GPU, so the main thread's silence
    then is no host idle time). The other threads' blocking calls that end while the thread itself is idle join its
    own (they hold the host there).

    Args:
        own: thread code → (segment starts, ends [ns], innermost host row or −1, blocking host rows).
        keys: thread code → (rank, pid, tid); launch_codes: thread code of each GPU event's launch call;
        h_end: end of each host row [ns].
    Returns:
        thread code → the same four arrays for every launching thread of a process with two or more of them.
    """
    if not len(launch_codes):
        return {}
    codes, n_launch = np.unique(launch_codes, return_counts=True)
    by_proc: dict = {}
    for c, n in sorted(zip(codes.tolist(), n_launch.tolist()), key=lambda x: -x[1]):
        by_proc.setdefault(tuple(keys[c][:2]), []).append(c)
    out = {}
    for group in by_proc.values():
        if len(group) < 2:
            continue
        for c in group:
            s_a, s_b, s_w, b = own[c]
            for o in group:
                if o == c:
                    continue
                o_a, o_b, o_w, o_blk = own[o]
                e = h_end[o_blk]
                o_blk = o_blk[~_active_at(s_a, s_b, s_w, e - 1)]  # its blocking calls ending in this one's idle time
                s_a, s_b, s_w = _fill_idle(s_a, s_b, s_w, o_a, o_b, o_w)
                b = np.concatenate([b, o_blk])
            out[c] = (s_a, s_b, s_w, np.sort(b, kind="stable"))
    return out


def _active_at(a: np.ndarray, b: np.ndarray, w: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Whether a thread's segments (starts ``a``, ends ``b``, event ``w``; −1 = idle) hold an event at times t."""
    i = np.searchsorted(a, t, side="right") - 1
    j = np.maximum(i, 0)
    return (i >= 0) & (t < b[j]) & (w[j] >= 0) if len(a) else np.zeros(len(t), dtype=bool)


def _fill_idle(a: np.ndarray, b: np.ndarray, w: np.ndarray, oa: np.ndarray, ob: np.ndarray, ow: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One thread's segments with its idle time (−1 segments and time outside them) taken by another thread's events
    where that one has any: the elementary intervals of both tilings, the first thread's event where it has one,
    else the other's, else −1; neighbours with the same event merged. Sorted segments that tile, with no hole, the
    time from the earlier first segment to the later last one [ns]: time between the two tilings (one thread's last
    event ends before the other's first starts — the main thread's ``backward()`` call cut off by a ``--window``
    that starts inside it) is idle on both, −1, as the walk's :meth:`Walker._host` reads a slice of segments as
    the whole of its time."""
    if not len(oa):
        return a, b, w
    if not len(a):
        return oa, ob, ow
    x = np.unique(np.concatenate([a, b, oa, ob]))
    lo, hi = x[:-1], x[1:]
    mine, other = _event_at(a, b, w, lo), _event_at(oa, ob, ow, lo)
    ev = np.maximum(np.where(mine >= 0, mine, other), -1)  # −2 (outside both tilings): idle, −1
    if not len(lo):
        return a, b, w
    head = np.r_[True, (ev[1:] != ev[:-1]) | (lo[1:] != hi[:-1])]
    cut = np.flatnonzero(head)
    ends = np.r_[cut[1:], len(lo)] - 1
    return lo[cut], hi[ends], ev[cut]


def _event_at(a: np.ndarray, b: np.ndarray, w: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The event of the segment holding each time t (−1 an idle segment, −2 outside every segment)."""
    if not len(a):
        return np.full(len(t), -2, dtype=np.int64)
    i = np.searchsorted(a, t, side="right") - 1
    j = np.maximum(i, 0)
    return np.where((i >= 0) & (t < b[j]), w[j], -2)


_BLOCK = object()  # marks a vectorised block of segments in the walk's output (latest first)
_HOP, _TO_HOST, _STOP = 0, 1, 2  # what a GPU event waited for (:meth:`Walker._hops`)


class Walker:
    """Walks back one window (see module docstring); collects (class, ns, event position or −1) segments."""

    def __init__(self, host: pd.DataFrame, host_class: np.ndarray, threads: dict, gpu: pd.DataFrame,
                 gpu_launch_pos: np.ndarray, gpu_launch_thread: np.ndarray, gpu_prev: np.ndarray,
                 rank_ends: dict):
        self.host, self.host_class, self.threads = host, host_class, threads
        self.g_start = gpu["start_ns"].to_numpy(np.int64)
        self.g_end = self.g_start + gpu["eff_ns"].to_numpy(np.int64)
        kinds = [str(c) for c in gpu["kind"].cat.categories] if isinstance(gpu["kind"].dtype, pd.CategoricalDtype) \
            else None
        if kinds is not None:
            lut = np.array([CODE[GPU_CLASS.get(k, "kernel")] for k in kinds] + [CODE["kernel"]], dtype=np.int64)
            kc = codes_of(gpu["kind"])
            self.g_class = lut[np.where(kc < 0, len(kinds), kc)].astype(np.int8)
        else:
            self.g_class = np.array([CODE[GPU_CLASS.get(str(k), "kernel")] for k in gpu["kind"]], dtype=np.int8)
        self.g_stream = gpu["stream_id"].fillna(-1).astype("int64").to_numpy()
        self.g_rank = gpu["rank"].to_numpy()
        self.h_start = host["start_ns"].to_numpy(np.int64)
        # launch calls' returns (a host frame without durations: every call returns at its start)
        self.h_end = self.h_start + host["dur_ns"].to_numpy(np.int64) if "dur_ns" in host else self.h_start
        self.launch_pos, self.launch_thread, self.prev = gpu_launch_pos, gpu_launch_thread, gpu_prev
        self.rank_ends = rank_ends  # rank → (ends sorted, positions)
        self._hop_table: tuple | None = None
        self._buffers: tuple | None = None  # visit stamps, chain buffers and loop of :meth:`_gpu_chain`
        self._walks = 0

    def _hops(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What each GPU event g waited for, decided once for every event (vectorised; it depends on g alone):
        (kind: :data:`_HOP` to another GPU event, :data:`_TO_HOST` to its launch call, :data:`_STOP` nothing
        recorded; the GPU event hopped to (−1 otherwise); the time the path resumes at [ns] (the lowest int64 for
        :data:`_STOP`: the gap then runs from the window's start); the class code of the gap before g's start).
        The rules are the module docstring's: the latest of its launch call's start and the end of the previous event
        on its stream binds, and only when both are earlier, the latest end of an event on another stream of the
        rank before g's start (:meth:`_cross_all`)."""
        if self._hop_table is not None:
            return self._hop_table
        s, lp, p = self.g_start, self.launch_pos, self.prev
        none = np.int64(-1)
        t_launch = self.h_start[np.maximum(lp, 0)] if len(self.h_start) else np.zeros(len(lp), np.int64)
        t_launch = np.where(lp >= 0, t_launch, none)
        t_prev = np.where(p >= 0, self.g_end[np.maximum(p, 0)], none)
        best = np.maximum(t_launch, t_prev)
        x = self._cross_all(best)
        via_x = x >= 0
        via_prev = ~via_x & (p >= 0) & (t_prev >= t_launch)
        to_host = ~via_x & ~via_prev & (lp >= 0)
        kind = np.full(len(s), _STOP, dtype=np.int8)
        kind[via_x | via_prev] = _HOP
        kind[to_host] = _TO_HOST
        target = np.where(via_x, x, np.where(via_prev, p, -1))
        resume = np.full(len(s), np.iinfo(np.int64).min, dtype=np.int64)
        resume[via_x] = np.minimum(self.g_end[x[via_x]], s[via_x])
        resume[via_prev] = np.minimum(t_prev[via_prev], s[via_prev])
        resume[to_host] = np.minimum(t_launch[to_host], s[to_host])
        # no launch call: what g waited for is not recorded
        gap = np.where(lp >= 0, CODE["gpu_gap"], CODE["unattributed"]).astype(np.int8)
        gap[to_host] = CODE["launch_delay"]
        self._hop_table = (kind, target, resume, gap)
        return self._hop_table

    def _cross_all(self, after: np.ndarray) -> np.ndarray:
        """For every GPU event g: the latest-ending GPU event of g's rank on another stream ending in
        (after[g], start(g)], or −1 (−1 too where after[g] ≥ start(g)). Per rank, on the events sorted by end: the
        latest one ending by start(g) is the answer when its stream differs from g's, else the last event before
        that one's run of same-stream events."""
        x = np.full(len(self.g_start), -1, dtype=np.int64)
        for ends, pos in self.rank_ends.values():
            if not len(pos):
                continue
            st = self.g_stream[pos]
            i = np.arange(len(pos))
            run_start = np.maximum.accumulate(np.where(np.r_[True, st[1:] != st[:-1]], i, 0))
            k = np.searchsorted(ends, self.g_start[pos], side="right") - 1
            kk = np.maximum(k, 0)
            cand = np.where(st[kk] != st, kk, run_start[kk] - 1)  # st: the streams of pos, g's own
            cand = np.where(k >= 0, cand, -1)
            c = np.maximum(cand, 0)
            a = after[pos]
            ok = (cand >= 0) & (ends[c] > a) & (a < self.g_start[pos])
            x[pos] = np.where(ok, pos[c], -1)
        return x

    def _host(self, thread, a: int, b: int, out: list) -> None:
        """Segments of host time [a, b) on ``thread``, latest first: innermost host event, or idle between them.
        The thread's segments tile its time from its first to its last event, so a slice plus two clipped ends is
        the whole answer (appended as one vectorised block)."""
        th = self.threads.get(thread)
        if b <= a:
            return
        if th is None:
            out.append((CODE["host_idle"], a, b, -1))
            return
        i0 = int(np.searchsorted(th.seg_end, a, side="right"))
        i1 = int(np.searchsorted(th.seg_start, b, side="left"))
        if i1 <= i0:
            out.append((CODE["host_idle"], a, b, -1))
            return
        lo = np.maximum(th.seg_start[i0:i1], a)
        hi = np.minimum(th.seg_end[i0:i1], b)
        w = th.seg_event[i0:i1]
        if hi[-1] < b:
            out.append((CODE["host_idle"], int(hi[-1]), b, -1))
        cls = np.where(w >= 0, self.host_class[np.clip(w, 0, None)], CODE["host_idle"])
        out.append((_BLOCK, cls[::-1], lo[::-1], hi[::-1], w[::-1]))
        if lo[0] > a:
            out.append((CODE["host_idle"], a, int(lo[0]), -1))

    def walk(self, thread, lo: int, hi: int, start_gpu: int = -1
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The path of window [lo, hi) as segments, earliest first: arrays of class code (:data:`CODE`), start, end
        [ns] and position (the host-frame position for host classes, the GPU-frame position for GPU classes, −1 for
        gaps). They tile the window."""
        out: list = []
        t, where, g = hi, "host", start_gpu
        if g >= 0:
            where, t = "gpu", min(int(self.g_end[g]), hi)
            if t < hi:
                out.append((CODE["host_idle"], t, hi, -1))
        self._walks += 1  # the GPU events this walk visits are stamped with its id (:func:`._critical_chain.follow`)
        walk_id = self._walks

        def gap(cls: str, a: int, b: int) -> None:
            a = max(a, lo)
            if b > a:
                out.append((CODE[cls], a, b, -1))

        while t > lo:
            if where == "host":
                th = self.threads.get(thread)
                b, bg, bp = lo, -1, -1
                if th is not None and len(th.block_end):
                    k = int(np.searchsorted(th.block_end, t, side="right")) - 1
                    if k >= 0 and th.block_end[k] > lo:
                        b, bg = int(th.block_end[k]), int(th.block_gpu[k])
                        bp = int(th.block_pos[k]) if len(th.block_pos) > k else -1
                self._host(thread, b, t, out)
                if bg < 0:
                    break
                ge = min(int(self.g_end[bg]), b)
                if b > max(ge, lo):  # the blocking call's wait: its own event (a sync row with 0 events read wrong)
                    out.append((CODE["sync"], max(ge, lo), b, bp))
                where, g, t = "gpu", bg, ge
                continue
            g, t, where, thread, done = self._gpu_chain(g, t, lo, walk_id, out, thread)
            if done:
                break
        out.reverse()
        return self._flatten(out)

    def _gpu_chain(self, g: int, t: int, lo: int, walk_id: int, out: list, thread) -> tuple:
        """Walk back from GPU event g (its segment ending at t) through the GPU events it waited for, while each
        waited for another GPU event (:meth:`_hops`): one tight loop over the chain, its segments and gaps appended
        to ``out`` as one vectorised block, latest first. Returns (g, t, where, thread, done): where the walk goes on
        (on the host at g's launch call) or done (the window's start reached, nothing recorded before g, or a
        zero-length cycle in an inconsistent trace)."""
        kind, target, resume, gap_cls = self._hops()
        start = self.g_start
        if self._buffers is None:
            n_gpu = len(start)
            self._buffers = (np.zeros(n_gpu, np.int32), np.empty(n_gpu, np.int64), np.empty(n_gpu, np.int64),
                             follower(n_gpu))
        stamp, chain_buf, ends_buf, follow_ = self._buffers
        args = (g, t, lo, kind, target, resume, start, stamp, walk_id, chain_buf, ends_buf)
        try:
            n, g, t, cycle = follow_(*args)
        except Exception:  # noqa: BLE001  (numba failing to compile: the plain loop reads the same)
            if follow_ is follow:
                raise
            self._buffers = (stamp, chain_buf, ends_buf, follow)
            n, g, t, cycle = follow(*args)
        g, t = int(g), int(t)
        if not n:  # the first event already walked
            if t > lo:
                out.append((CODE["host_idle"], lo, t, -1))
            return g, t, "gpu", thread, True
        c = chain_buf[:n].copy()
        last = int(c[-1])
        reached = not cycle and start.item(last) <= lo  # the last segment starts the window: no gap before it
        n = len(c)
        # the boundaries latest first — each event's segment end, its start, the next one's end… — as a running
        # minimum: a blocking call enters the chain at its own end, which may lie before the GPU event it waited for
        # even starts (host and GPU clocks up to the 2 µs tolerance apart: a legacy Kineto cudaMemcpy returning at
        # 696 µs, its copy running 697–698 µs); that event and what it waited for are clipped to the call's end, so
        # the segments still tile the window with no negative length (the copy's −1 µs had left Σ classes 1 µs
        # above the path)
        bounds = np.empty(2 * n + 1, dtype=np.int64)
        bounds[0:2 * n:2], bounds[1:2 * n:2], bounds[2 * n] = ends_buf[:n], start[c], resume.item(last)
        np.minimum.accumulate(bounds, out=bounds)
        ends, s_c = bounds[0:2 * n:2], bounds[1:2 * n:2]
        cls = np.empty(2 * n, dtype=np.int8)
        a = np.empty(2 * n, dtype=np.int64)
        b = np.empty(2 * n, dtype=np.int64)
        w = np.full(2 * n, -1, dtype=np.int64)
        gap_start = bounds[2:2 * n + 1:2]  # each gap runs from the next (earlier) event's end, the last one's resume
        cls[0::2], b[0::2], w[0::2] = self.g_class[c], np.maximum(ends, lo), c
        a[0::2] = np.minimum(np.maximum(s_c, lo), b[0::2])
        cls[1::2], a[1::2], b[1::2] = gap_cls[c], np.maximum(gap_start, lo), s_c
        keep = np.ones(2 * n, dtype=bool)
        keep[1::2] = b[1::2] > a[1::2]
        if reached:
            keep[-1] = False
        elif kind.item(last) == _TO_HOST and keep[-1]:
            cls, a, b, w, keep = self._split_late_start(last, cls, a, b, w, keep)
        out.append((_BLOCK, cls[keep], a[keep], b[keep], w[keep]))
        t_next = int(bounds[2 * n])  # where the path goes on: the last event's resume, clipped as above
        if cycle:
            t = min(t, t_next)
            if t > lo:
                out.append((CODE["host_idle"], lo, t, -1))
            return g, t, "gpu", thread, True
        if reached or t <= lo:
            return g, t, "gpu", thread, True
        k = kind.item(last)
        if k == _TO_HOST:
            return last, t_next, "host", self.launch_thread[last], False
        return last, t, "gpu", thread, True  # _STOP: the gap back to the window's start is unattributed


    def _split_late_start(self, g: int, cls, a, b, w, keep) -> tuple:
        """The chain's last gap — from g's launch call's start to g's start — split at the call's return: the
        call's time and a normal start after it are ``launch_delay``; a start over
        :data:`~gpulens.analyzers._gap_classes.LAUNCH_GAP_NS` after the return is ``queued`` from the return on,
        the idle split's name and cause for the same time (the GPU held the work and did not start it)."""
        lo, hi = int(a[-1]), int(b[-1])
        ret = min(max(int(self.h_end.item(self.launch_pos.item(g))), lo), hi)
        if hi - ret <= LAUNCH_GAP_NS:
            return cls, a, b, w, keep
        # latest first: the queued part [ret, hi], then the launch part [lo, ret] (dropped when empty)
        cls = np.concatenate([cls[:-1], np.array([CODE["queued"], cls[-1]], dtype=np.int8)])
        a = np.concatenate([a[:-1], [ret, lo]])
        b = np.concatenate([b[:-1], [hi, ret]])
        w = np.concatenate([w[:-1], [-1, -1]])
        keep = np.concatenate([keep, [ret > lo]])
        return cls, a, b, w, keep

    @staticmethod
    def _flatten(out: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Segments as arrays (class code (int8), start, end, position (int64)), the vectorised host blocks reversed
        back to earliest first."""
        parts: list = []
        run: list = []

        def flush() -> None:
            if run:
                parts.append(tuple(np.array(x, dtype=np.int64) for x in zip(*run)))
                run.clear()

        for item in out:
            if item[0] is _BLOCK:
                flush()
                _, cls, lo, hi, w = item
                parts.append((cls[::-1], lo[::-1], hi[::-1], w[::-1]))
            else:
                run.append(item)
        flush()
        if not parts:
            z = np.zeros(0, dtype=np.int64)
            return z.astype(np.int8), z, z, z
        # class codes as int8 (eleven classes): a quarter of an int64 column of millions of segments
        return tuple(np.concatenate([np.asarray(p[k], dtype=np.int8 if k == 0 else np.int64) for p in parts])
                     for k in range(4))
