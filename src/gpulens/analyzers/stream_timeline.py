"""Stream timeline: a size-bounded, multi-resolution picture of when each GPU stream and CPU thread was busy.

Feeds the HTML timeline page. Big traces hold millions of events; a report must not carry them all, yet zooming
into a window should show the individual kernels there. So the table holds several **levels** of detail:

* level 0 covers the whole run (the first event of any lane → the last one) with ``bins`` time bins of ``bin_ns``
  per lane; level *l* cuts it into ``8**l`` equal **windows**, each again with ``bins`` bins per lane (8× finer
  bins: an event's bin at level l is ``(start − origin) · 8**l // bin_ns``, so windows nest exactly);
* in each level, the events of one lane that *start* in the same bin are merged into one **segment** (first start →
  last end, the summed busy time, the event count, and the name and kind of the longest event in it); a segment of
  one event is that event, exactly;
* a window is refined (its 8 children at the next level are added) only while it still merges events and the
  ``max_segments`` budget allows; windows that are cheapest to refine go first, and a level that cannot refine
  every window takes at most 60 % of the remaining budget, so some windows reach single events. When every event fits the budget,
  level 0 holds each event as it is (``bin_ns`` 0) and there is no other level.

GPU events are drawn with their effective duration (an event that overruns the start of the next one on its
stream is clipped there, :func:`~gpulens.analyzers.intervals.repair_stream_overruns`), as every other analyzer
counts them.

Lanes: one per GPU stream (``device_id`` ≥ 0; ``stream_id`` −1 when not recorded) and one per host thread that ran
framework ops, runtime calls or syncs (``device_id`` −1, ``thread_id`` set). GPU events of one event carry the link
to their launch: the launch call's start (``launch_offset_ns``), thread and name, and the framework op that issued
it (from the shared launch↔kernel links).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._groupstats import stable_order
from gpulens.analyzers._span import CLOCK_GAP_NS, clock_domain_of, clock_windows, counter_only_reason
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import codes_of, context_of, strings
from gpulens.analyzers.intervals import key_codes
from gpulens.timeline import Timeline
from gpulens.timeline.schema import GPU_KINDS

#: Host event kinds drawn on CPU thread lanes.
HOST_KINDS = ("cpu_op", "runtime", "sync")
#: Windows of level l+1 per window of level l.
BRANCH = 8
#: Share of the remaining segment budget one level may use when it cannot refine every window.
LEVEL_SHARE = 0.6

COLUMNS = {
    "level": "detail level: 0 = the whole run, level l = 8^l windows with the same bins per lane each [id]",
    "window": "window index within its level (time order from the run's first event) [id]",
    "rank": "distributed rank [id]",
    "device_id": "GPU index; -1 for a host (CPU) thread lane [id]",
    "stream_id": "CUDA stream / HIP queue (-1 when not recorded or on a host lane) [id]",
    "thread_id": "host thread id of a CPU lane (-1 on GPU lanes) [id]",
    "start_ns": "segment start (first event start) on the Timeline's clock [ns]",
    "end_ns": "segment end (last event end; a GPU event overrunning the next one on its stream ends at that start) "
              "on the Timeline's clock [ns]",
    "offset_ns": "segment start − the run's first event start (the timeline's origin), clock jumps left out [ns]",
    "busy_ns": "sum of the durations of the events merged into the segment (GPU events clipped at the next start on "
               "their stream) [ns]",
    "events": "number of events merged into the segment [count]",
    "kind": "kind of the longest event in the segment (kernel, comm, memcpy, memset, cpu_op, runtime, sync) [text]",
    "name": "name of the longest event in the segment [text]",
    "launch_offset_ns": "single GPU event: start of the runtime call that launched it − the origin [ns]",
    "launch_thread": "single GPU event: host thread id of that launch call [id]",
    "launch_name": "single GPU event: name of the launch call (cudaLaunchKernel, hipLaunchKernel, …) [text]",
    "op_name": "single GPU event: the framework op that issued the launch [text]",
}


def _clipped(timeline: Timeline) -> dict[str, int]:
    """``clipped_events`` / ``clipped_ns``: the GPU events drawn shorter than recorded because they overran the
    next event on their stream (:func:`~gpulens.analyzers.intervals.repair_stream_overruns`), and the time cut."""
    over = context_of(timeline).overruns["overrun_ns"].to_numpy("int64")
    return {"clipped_events": int((over > 0).sum()), "clipped_ns": int(over[over > 0].sum())}


class _Lanes:
    """GPU and host events of the stream timeline: per row (GPU events first, then host events on CPU threads) its
    lane code (lanes numbered in sorted (rank, device_id, stream_id, thread_id) order), start and duration [ns].

    The lane keys, the event's row in ``timeline.events`` and its GPU-event position are derived for the output rows
    only: the per-row arrays are three, not a frame of eight columns over every GPU and host event.
    """

    def __init__(self, timeline: Timeline):
        ctx = context_of(timeline)
        ev = timeline.events
        gpu = ctx.gpu
        self.gpos = np.flatnonzero(ctx.mask_of(*GPU_KINDS))  # rows in timeline.events
        hpos = np.flatnonzero(ctx.mask_of(*HOST_KINDS))
        self.hpos = hpos[ev["device_id"].to_numpy()[hpos] < 0]
        self.ng, self.nh = len(gpu), len(self.hpos)
        parts, key_sets, starts, durs = [], [], [], []
        if self.ng:
            n = self.ng
            code, keys = key_codes(gpu["rank"].to_numpy("int64"), gpu["device_id"].to_numpy("int64"),
                                     gpu["stream_id"].fillna(-1).to_numpy("int64"), np.full(n, -1, "int64"))
            parts.append(code)
            key_sets.append(keys)
            starts.append(gpu["start_ns"].to_numpy("int64"))
            # drawn as the other reports count it: an event running past the start of the next one on its stream
            # ends there (B07: a 3 s recorded kernel 30 µs before the next is not drawn 3 s long)
            durs.append(ctx.effective_ns.to_numpy("int64"))
        if self.nh:
            n = self.nh

            def col(c: str) -> np.ndarray:  # the host rows' values (missing → −1): gathered first, then filled
                s = ev[c]
                if isinstance(s.dtype, np.dtype) and s.dtype.kind in "iu":  # numpy ints: nothing missing
                    return s.to_numpy()[self.hpos].astype("int64", copy=False)
                if isinstance(s.array, pd.arrays.IntegerArray):  # nullable ints: no filled copy of every row
                    return s.array.take(self.hpos).to_numpy("int64", na_value=-1)
                return (s.to_numpy("int64", na_value=-1) if s.hasnans else s.to_numpy("int64"))[self.hpos]

            code, keys = key_codes(col("rank"), np.full(n, -1, "int64"), np.full(n, -1, "int64"), col("tid"))
            parts.append(code)
            key_sets.append(keys)
            starts.append(col("start_ns"))
            durs.append(col("dur_ns"))
        # one code space: the union of the GPU and host lane keys, sorted (equal keys share a lane)
        self.keys = sorted(set().union(*key_sets)) if key_sets else []
        where = {k: i for i, k in enumerate(self.keys)}
        self.lane = np.concatenate([np.array([where[k] for k in ks], dtype=np.int64)[c]
                                    for c, ks in zip(parts, key_sets)]) if parts else np.zeros(0, np.int64)
        self.start = np.concatenate(starts) if starts else np.zeros(0, np.int64)
        self.dur = np.maximum(np.concatenate(durs), 0) if durs else np.zeros(0, np.int64)

    def __len__(self) -> int:
        return self.ng + self.nh

    def name_rank(self, timeline: Timeline) -> np.ndarray:
        """Per row, the rank of its event's name among the names in text order (a tie key that does not depend on
        the order of the trace file)."""
        names = timeline.events["name"]
        if not isinstance(names.dtype, pd.CategoricalDtype):
            return pd.factorize(np.asarray(names.astype(str), dtype=object)[self.event_pos(np.arange(len(self)))],
                                sort=True)[0].astype(np.int64)
        cats = np.asarray(names.cat.categories.astype(str), dtype=object)
        rank = np.empty(len(cats) + 1, dtype=np.int64)
        rank[np.argsort(cats, kind="stable")] = np.arange(len(cats))
        rank[-1] = len(cats)  # a missing name: last
        codes = codes_of(names)  # every row's event: the GPU rows', then the host rows' (no position array)
        return np.concatenate((rank[codes[self.gpos]], rank[codes[self.hpos]]))

    def key_columns(self, rows: np.ndarray) -> np.ndarray:
        """(rank, device_id, stream_id, thread_id) of ``rows``: an int64 array of shape (len(rows), 4)."""
        return np.array(self.keys, dtype=np.int64).reshape(-1, 4)[self.lane[rows]]

    def gpu_pos(self, rows: np.ndarray) -> np.ndarray:
        """Position of ``rows`` among the GPU events (``context_of(timeline).gpu``); −1 for host rows."""
        return np.where(rows < self.ng, rows, -1)

    def event_pos(self, rows: np.ndarray) -> np.ndarray:
        """Row of ``rows`` in ``timeline.events``."""
        g = rows < self.ng
        out = np.empty(len(rows), dtype=np.int64)
        out[g] = self.gpos[rows[g]]
        out[~g] = self.hpos[rows[~g] - self.ng]
        return out


def _bin_of(start: np.ndarray, t0: int, bin0: int, level: int) -> np.ndarray:
    """Bin of each event's start at ``level``: ``(start − t0) · 8**level // bin0`` in integers, so that the bins (and
    windows) of level l+1 nest exactly in those of level l."""
    return ((start - t0) * BRANCH ** level) // bin0


def _lane_order(start: np.ndarray, lane: np.ndarray) -> np.ndarray | None:
    """The rows grouped by lane (a stable radix sort of the lane codes) when each lane's starts are then in order —
    traces list a stream's or a thread's events in time order — else None. In that order every level's (lane, bin)
    keys are sorted as they stand, so :func:`_segments` sorts nothing; equal keys keep their row order, as the
    stable sort it replaces keeps them."""
    if len(start) < 2:
        return None
    perm = stable_order(lane)
    ps, lp = start[perm], lane[perm]
    return perm if bool(((ps[1:] >= ps[:-1]) | (lp[1:] != lp[:-1])).all()) else None


def _in_windows(window: np.ndarray, refine: np.ndarray) -> np.ndarray:
    """``np.isin(window, refine)`` for non-negative window numbers: a lookup table over the windows when they span
    at most a few times as many numbers as there are rows (no sort of every row), else ``np.isin``."""
    if not len(window):
        return np.zeros(0, dtype=bool)
    top = int(window.max())
    if int(window.min()) < 0 or top >= 4 * len(window) + 1024:
        return np.isin(window, refine)
    table = np.zeros(top + 1, dtype=bool)
    table[refine[(refine >= 0) & (refine <= top)]] = True
    return table[window]


def _segment_arrays(start: np.ndarray, dur: np.ndarray, lane: np.ndarray, b: np.ndarray,
                    nrank: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Events merged per (lane, bin ``b``), in (lane, bin) order: ``row`` (the segment's longest event: the earliest
    of them, then the lowest name rank ``nrank`` — never the order of the trace file), ``start_ns``, ``end_ns``,
    ``busy_ns``, ``events``, ``lane``, ``bin``, ``longest``."""
    key = lane.astype("int64") * (int(b.max()) + 1) + b
    order = None  # None: already in (lane, bin) order (see _pyramid), the rows as they stand
    k, starts = key, start
    if len(key) >= 2 and not bool((key[1:] >= key[:-1]).all()):
        order = np.argsort(key, kind="stable")  # events come nearly time-sorted per lane: a stable sort is quick
        k = key[order]
        dur = dur[order]
        starts = start[order]
        b = b[order]
        if nrank is not None:
            nrank = nrank[order]
        lane = lane[order]
    idx = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    counts = np.diff(np.r_[idx, len(k)])
    longest = np.maximum.reduceat(dur, idx)
    cand = np.flatnonzero(dur == np.repeat(longest, counts))  # rows holding their segment's longest duration
    grp = np.searchsorted(idx, cand, side="right") - 1
    if len(cand) > len(idx):  # some segment has several: the earliest, then the lowest name rank
        o = np.lexsort((nrank[cand] if nrank is not None else cand, starts[cand], grp))
        cand, grp = cand[o], grp[o]
    first = cand[np.r_[True, grp[1:] != grp[:-1]]]  # the first of them per segment
    return {"row": first if order is None else order[first], "start_ns": np.minimum.reduceat(starts, idx),
            "end_ns": np.maximum.reduceat(starts + dur, idx), "busy_ns": np.add.reduceat(dur, idx),
            "events": counts.astype("int64"), "lane": lane[idx], "bin": b[idx], "longest": longest}


def _coarser(seg: dict[str, np.ndarray], steps: int) -> dict[str, np.ndarray]:
    """The segments ``steps`` levels up, merged from ``seg`` (:func:`_segment_arrays` of a finer level): a level's
    bins nest exactly in those of the level above (``bin // 8**steps``), so each coarse segment is the merge of the
    fine segments of its lane and bin — the same figures as merging its events, its longest event being that of the
    earliest fine segment (bins in time order) holding the longest duration."""
    cb = seg["bin"] // BRANCH ** steps
    lane = seg["lane"]
    new = np.r_[True, (lane[1:] != lane[:-1]) | (cb[1:] != cb[:-1])]  # fine segments are in (lane, bin) order
    idx = np.flatnonzero(new)
    counts = np.diff(np.r_[idx, len(cb)])
    longest = np.maximum.reduceat(seg["longest"], idx)
    holds = seg["longest"] == np.repeat(longest, counts)
    at = np.minimum.reduceat(np.where(holds, np.arange(len(cb)), len(cb)), idx)
    row = seg["row"][at]
    return {"row": row, "start_ns": np.minimum.reduceat(seg["start_ns"], idx),
            "end_ns": np.maximum.reduceat(seg["end_ns"], idx), "busy_ns": np.add.reduceat(seg["busy_ns"], idx),
            "events": np.add.reduceat(seg["events"], idx), "lane": lane[idx], "bin": cb[idx], "longest": longest}


def _frame(seg: dict[str, np.ndarray], bins: int) -> pd.DataFrame:
    """The segment table of a level: row, start_ns, end_ns, busy_ns, events and window (bin // bins)."""
    return pd.DataFrame({"row": seg["row"], "start_ns": seg["start_ns"], "end_ns": seg["end_ns"],
                         "busy_ns": seg["busy_ns"], "events": seg["events"],
                         "window": (seg["bin"] // bins).astype("int64")})


def _segments(start: np.ndarray, dur: np.ndarray, lane: np.ndarray, b: np.ndarray, bins: int,
              nrank: np.ndarray | None = None) -> pd.DataFrame:
    """Events merged per (lane, bin ``b``), with their window (bin // bins) and their longest event (``row``)."""
    return _frame(_segment_arrays(start, dur, lane, b, nrank), bins)


def _fine_level(n_events: int, n_lanes: int, bins: int, deepest: int) -> int:
    """The level whose segments :func:`StreamTimeline._pyramid` computes from the events once, deriving the coarser
    levels from them (:func:`_coarser`): the deepest one (at most ``deepest``) with at most a quarter as many possible
    segments (lanes × bins × 8**level) as events; 0 when even level 1 has more (every level from the events)."""
    level = 0
    while level < deepest and 4 * n_lanes * bins * BRANCH ** (level + 1) <= n_events:
        level += 1
    return level


class StreamTimeline(Analyzer):
    """Per-lane busy segments at several levels of detail, bounded in size (see module docstring).

    Args:
        max_segments: total segments over all levels (default 20000); every event is kept as it is up to this
            many events.
        bins: time bins per lane and window (default 400; fewer when there are many lanes, at least ``min_bins``).
        min_bins: fewest bins per lane and window (default 10).
    """

    name = "stream_timeline"
    order = 80

    def __init__(self, max_segments: int = 20000, bins: int = 400, min_bins: int = 10):
        self.max_segments = max_segments
        self.bins = bins
        self.min_bins = min_bins

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        df = _Lanes(timeline)
        if not df.ng:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  {"event_count": 0, "segment_count": 0, "decimated": False, "bin_ns": 0},
                                  skipped_reason=counter_only_reason(timeline) or "no GPU events in the trace")
        keys = ["rank", "device_id", "stream_id", "thread_id"]
        lane = df.lane
        n_lanes = int(lane.max()) + 1
        start, dur = df.start, df.dur
        t0 = int(start.min())
        t_end = int((start + dur).max())
        # clock jumps (events of one run on two time bases, _span.clock_windows) are left out of the drawn extent:
        # each clock domain is drawn right after the one before it, on its own clock
        wins = clock_windows(start, start + dur) if t_end - t0 >= CLOCK_GAP_NS else []
        shift = np.zeros(max(len(wins), 1), dtype="int64")
        for k in range(1, len(wins)):
            shift[k] = shift[k - 1] + wins[k][0] - wins[k - 1][1]
        if len(wins) > 1:
            start = start - shift[clock_domain_of(start, wins)]
        bases = [(int(w[0] - shift[k]), 0) for k, w in enumerate(wins)]  # each domain's first start, drawn
        t1 = int((start + dur).max())
        span = max(t1 - t0, 1)
        if len(df) <= self.max_segments:
            parts = [pd.DataFrame({"row": np.arange(len(df)), "start_ns": start, "end_ns": start + dur,
                                   "busy_ns": dur, "events": np.ones(len(df), "int64"),
                                   "window": np.zeros(len(df), "int64"), "level": 0})]
            bin0, levels, bins = 0, 1, 0
        else:
            bins = int(min(self.bins, max(self.min_bins, self.max_segments // (4 * n_lanes))))
            parts, bin0, levels = self._pyramid(start, dur, lane, t0, span, bins, df.name_rank(timeline))
        seg = pd.concat(parts, ignore_index=True)
        rows = seg["row"].to_numpy()
        out = pd.DataFrame({"level": seg["level"].to_numpy("int64"), "window": seg["window"].to_numpy("int64")})
        kc = df.key_columns(rows)
        for j, c in enumerate(keys):
            out[c] = kc[:, j]
        drawn_start, drawn_end = seg["start_ns"].to_numpy("int64"), seg["end_ns"].to_numpy("int64")
        out["start_ns"] = drawn_start + (shift[clock_domain_of(drawn_start, bases)] if len(wins) > 1 else 0)
        out["end_ns"] = drawn_end + (shift[clock_domain_of(np.maximum(drawn_end - 1, drawn_start), bases)]
                                     if len(wins) > 1 else 0)
        out["offset_ns"] = drawn_start - t0
        out["busy_ns"] = seg["busy_ns"].to_numpy("int64")
        out["events"] = seg["events"].to_numpy("int64")
        pos = df.event_pos(rows)  # the two columns read taken, not every column of the picked rows
        # object Series, not bare arrays: pandas would re-infer a bare object array as Arrow strings, row by row
        out["kind"] = pd.Series(strings(timeline.events["kind"].iloc[pos]), index=out.index, dtype=object)
        out["name"] = pd.Series(strings(timeline.events["name"].iloc[pos]), index=out.index, dtype=object)
        self._launches(timeline, df.gpu_pos(rows), out, t0, wins, shift)
        # a complete key: events or segments of one lane with the same start (a call and one it makes) in the same
        # order whatever the order of the trace file — longer first, then by name
        out = out.sort_values(["level", "rank", "device_id", "stream_id", "thread_id", "start_ns", "end_ns", "name"],
                              ascending=[True, True, True, True, True, True, False, True],
                              kind="stable").reset_index(drop=True)
        gpu_rows = out["device_id"].to_numpy() >= 0
        summary = {"event_count": int(df.ng), "host_event_count": int(df.nh),
                   "segment_count": int(len(out)), "track_count": int(out.loc[gpu_rows, keys].drop_duplicates().shape[0]),
                   "thread_count": int(out.loc[~gpu_rows, keys].drop_duplicates().shape[0]),
                   "decimated": bool(bin0), "bin_ns": int(bin0), "levels": int(levels), "branch": BRANCH,
                   "bins": int(bins),
                   "start_ns": t0, "end_ns": t_end, "extent_ns": span if t1 > t0 else 0,
                   "clock_jump_ns": int(shift[-1]), **_clipped(timeline)}
        return AnalysisResult(self.name, out, COLUMNS, summary, summary_columns={
            "event_count": "GPU events [count]", "host_event_count": "host events on CPU thread lanes [count]",
            "segment_count": "segments over all levels [count]", "track_count": "GPU stream lanes [count]",
            "thread_count": "CPU thread lanes [count]", "bin_ns": "bin width of level 0 (0: every event kept) [ns]",
            "levels": "detail levels [count]", "bins": "bins per lane and window [count]",
            "extent_ns": "drawn extent: end_ns − start_ns less the clock jumps (clock_jump_ns) [ns]",
            "clock_jump_ns": "gaps of a day or more between the lanes' events (two time bases), left out of the "
                             "drawn extent and of offset_ns [ns]",
            "clipped_events": "GPU events that ran past the start of the next one on their stream, drawn ending "
                              "there [count]",
            "clipped_ns": "recorded time of those events beyond that start, not drawn [ns]"})

    def _pyramid(self, start: np.ndarray, dur: np.ndarray, lane: np.ndarray, t0: int, span: int,
                 bins: int, nrank: np.ndarray | None = None) -> tuple[list[pd.DataFrame], int, int]:
        budget = self.max_segments
        bin0 = max(1, -(-span // bins))
        perm = _lane_order(start, lane)  # rows grouped by lane, each lane's starts in order (None: not so)
        if nrank is None:
            nrank = np.zeros(len(start), dtype=np.int64)
        if perm is not None:
            start, dur, lane, nrank = start[perm], dur[perm], lane[perm], nrank[perm]
        # the deepest level: bins of at least 1/8 ns, and (start − t0) · 8**level within int64
        deepest = min(int(np.log(max(bin0, 1)) / np.log(BRANCH)) + 1, int(np.log(9e18 / span) / np.log(BRANCH)))
        # levels 0..fine from one pass over the events (the fine level's segments, merged upwards) instead of one
        # pass per level; a window refined at level l nests in one refined at level l−1, so a level's segments in
        # the refined windows are exactly those its refined events make
        fine = _fine_level(len(start), int(lane.max()) + 1 if len(lane) else 0, bins, deepest)
        derived: dict[int, dict[str, np.ndarray]] = {}
        if fine:
            b_fine = _bin_of(start, t0, bin0, fine)
            derived[fine] = _segment_arrays(start, dur, lane, b_fine, nrank)
            for lv in range(fine - 1, -1, -1):
                derived[lv] = _coarser(derived[fine], fine - lv)
            seg = _frame(derived[0], bins).assign(level=0)
        else:
            b = _bin_of(start, t0, bin0, 0)
            seg = _segments(start, dur, lane, b, bins, nrank).assign(level=0)
        if perm is not None:
            seg["row"] = perm[seg["row"].to_numpy()]
        parts, budget = [seg], budget - len(seg)
        refine = np.unique(seg.loc[seg["events"] > 1, "window"].to_numpy())  # level-l windows still merging
        level = 0
        # the events of the windows refined at the level before (None: every event) and their bins at that level
        # (``b``); a window to refine at level l nests in one refined at level l−1, so its events are among those
        cur: np.ndarray | None = None
        s_cur, d_cur, l_cur, n_cur = start, dur, lane, nrank
        while len(refine) and budget > 0 and level < deepest:
            level += 1
            if level in derived:  # the level's segments in the windows to refine (parent window: bin // 8 // bins)
                d = derived[level]
                seg = _frame(d, bins)
                seg = seg[_in_windows(d["bin"] // BRANCH // bins, refine)].reset_index(drop=True)
                if not len(seg):
                    break
                if level == fine:  # deeper levels go on from the events, with their bins at this level
                    b = b_fine
            else:
                keep = _in_windows(b // bins, refine)  # events in windows to refine
                if not keep.all():  # else the same events as the level before: no copies
                    cur = np.flatnonzero(keep) if cur is None else cur[keep]
                    s_cur, d_cur, l_cur, n_cur = start[cur], dur[cur], lane[cur], nrank[cur]
                if not len(s_cur):
                    break
                b = _bin_of(s_cur, t0, bin0, level)
                seg = _segments(s_cur, d_cur, l_cur, b, bins, n_cur)
                if cur is not None:
                    seg["row"] = cur[seg["row"].to_numpy()]
            if perm is not None:
                seg["row"] = perm[seg["row"].to_numpy()]
            seg["parent"] = seg["window"] // BRANCH
            cost = seg.groupby("parent").size().sort_values(kind="stable")  # cheapest parents first
            # a level may take 60 % of what is left (all of it when it fits), so finer levels reach single events
            allow = budget if int(cost.sum()) <= budget else int(budget * LEVEL_SHARE)
            take = cost.index[np.cumsum(cost.to_numpy()) <= allow]
            if not len(take):
                level -= 1
                break
            seg = seg[seg["parent"].isin(take)].drop(columns="parent").assign(level=level)
            parts.append(seg)
            budget -= len(seg)
            refine = np.unique(seg.loc[seg["events"] > 1, "window"].to_numpy())
        return parts, bin0, level + 1

    @staticmethod
    def _launches(timeline: Timeline, gp: np.ndarray, out: pd.DataFrame, t0: int, wins: list | None = None,
                  shift: np.ndarray | None = None) -> None:
        """Launch call (start, thread, name) and issuing op of each single-event GPU segment; NaN/empty elsewhere.
        ``wins``/``shift``: the clock domains and how far each is drawn earlier (clock jumps left out)."""
        n = len(out)
        out["launch_offset_ns"] = np.full(n, np.nan)
        out["launch_thread"] = np.full(n, -1, "int64")
        out["launch_name"] = np.full(n, "", object)
        out["op_name"] = np.full(n, "", object)
        single = (gp >= 0) & (out["events"].to_numpy() == 1)
        if not single.any():
            return
        ctx = context_of(timeline)
        try:
            links = ctx.links
        except Exception:  # no launch records (counter-only inputs): nothing to link
            return
        li = links["launch_event_id"].to_numpy("float64", na_value=np.nan)[gp[single]]
        from gpulens.analyzers._optree import gpu_op_links

        oi = gpu_op_links(timeline).to_numpy("float64", na_value=np.nan)[gp[single]]
        sel = np.flatnonzero(single)
        has = ~np.isnan(li)
        if has.any():
            ids = li[has].astype("int64")
            ls = ctx.event_values("start_ns", ids).astype("int64")
            if wins and len(wins) > 1:
                ls = ls - shift[clock_domain_of(ls, wins)]
            # subtracted in integers first: epoch ns (~1.7e18) exceed a double's 2^53, where its step is 256 ns
            out.loc[sel[has], "launch_offset_ns"] = (ls - t0).astype("float64")
            out.loc[sel[has], "launch_thread"] = np.nan_to_num(
                ctx.event_values("tid", ids).astype("float64"), nan=-1).astype("int64")
            out.loc[sel[has], "launch_name"] = ctx.event_values("name", ids)
        has = ~np.isnan(oi)
        if has.any():
            out.loc[sel[has], "op_name"] = ctx.event_values("name", oi[has].astype("int64"))
