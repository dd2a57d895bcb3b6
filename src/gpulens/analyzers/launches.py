"""Launch linking: which runtime call enqueued each piece of GPU work, and which cpu_op caused it.

GPU events link to host runtime calls by ``(rank, correlation_id)`` — one-to-many, since a CUDA/HIP graph launch
enqueues many kernels under one correlation id — and to framework ops by ``(rank, external_id)``. Launch APIs are
recognised vendor-neutrally (CUDA runtime/driver, HIP, graph launches), never by a CUDA-only list.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._reused_ids import reuse_detail, reuse_summary
from gpulens.analyzers._span import counter_only_reason
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.timeline import Timeline
from gpulens.timeline.names import GRAPH_LAUNCH_RE, LAUNCH_API_RE
from gpulens.units import agree, id_range, plural

#: Launch calls by name (:data:`gpulens.timeline.names.LAUNCH_API_RE`); a call of another name is a launch too when a
#: kernel carries its correlation id (:func:`launch_calls`): a vendor's launch API not listed (PrivateUse1, MTIA).
LAUNCH_RE = LAUNCH_API_RE
GRAPH_RE = GRAPH_LAUNCH_RE

COLUMNS = {
    "launch_name": "runtime/driver launch API",
    "calls": "number of calls",
    "gpu_events": "GPU events enqueued by these calls (linked by correlation id; unknown when none of the calls "
                  "carries one: unknown, not zero)",
    "calls_without_gpu_work": "calls whose correlation id matches no GPU event (calls with no correlation id and no "
                              "linked GPU event are not counted: unknown when no call of the name can be checked)",
    "mean_call_ns": "mean duration of the call on the host [ns]",
    "median_call_ns": "median duration of the call on the host (one slow call moves the mean, not this) [ns]",
}

#: The one row of a trace with GPU events and no launch call (a device-only capture): said, not an empty table.
NO_LAUNCH_ROW = "(no launch call in the trace)"


def link_gpu_to_launch(timeline: Timeline) -> pd.DataFrame:
    """For every GPU event, the event_id of its launching runtime call and of the cpu_op behind it.

    Returns:
        DataFrame indexed like the Timeline's GPU events with ``launch_event_id`` and ``op_event_id``
        (nullable Int64; <NA> when unlinked).
    """
    from gpulens.analyzers.context import context_of

    return context_of(timeline).links


def _pair_keys(rank: pd.Series, other: pd.Series) -> np.ndarray | None:
    """One int64 key per (rank, id) row (rank in the top 16 bits), or None when a value does not fit."""
    r = rank.to_numpy(dtype="int64")
    o = other.to_numpy(dtype="int64")
    if len(r) and (r.min() < 0 or r.max() >= 1 << 15 or o.min() < 0 or o.max() >= 1 << 47):
        return None
    return (r << 47) | o


def shared_correlation_ids(calls: pd.DataFrame) -> int:
    """How many (rank, correlation id) pairs are carried by two launch calls (``calls``: rank, correlation_id,
    start_ns, dur_ns) one after the other — not one call inside another (a HIP call making another under its id is
    expected, :func:`_link_gpu_to_launch`)."""
    c = calls[["rank", "correlation_id", "start_ns", "dur_ns"]].dropna()
    if len(c) < 2:
        return 0
    rank, corr, start, dur = (c[k].to_numpy("int64") for k in ("rank", "correlation_id", "start_ns", "dur_ns"))
    # by (rank, correlation id, start): np.lexsort is stable (ties keep their order), as a stable sort_values —
    # on int64 arrays, without pandas' per-column factorizing of the nullable columns (≈ 0.2 s at 1M calls)
    o = np.lexsort((start, corr, rank))
    rank, corr, start, dur = rank[o], corr[o], start[o], dur[o]
    same = (rank[1:] == rank[:-1]) & (corr[1:] == corr[:-1])
    if not same.any():
        return 0
    after = start[1:] >= (start + dur)[:-1]  # the next call starts once this one has ended
    rk = rank[1:][same & after]
    co = corr[1:][same & after]
    return len(set(zip(rk.tolist(), co.tolist())))


def _link_gpu_to_launch(timeline: Timeline, gpu: pd.DataFrame) -> pd.DataFrame:
    """The computation behind :func:`link_gpu_to_launch` (called once per Timeline by the analysis context).

    Each (rank, id) pair is packed into one int64 and looked up in a hash index; pairs that do not fit 16 + 47 bits
    fall back to a MultiIndex lookup. Where several calls (or ops) share a pair — a ``hipMemsetAsync`` and the
    ``hipArray3DCreate`` it makes inside, under one correlation id — the enclosing one wins, whatever the order of
    the trace file: earliest start, then longest duration, then lowest name, then lowest event_id
    (:func:`_enclosing_first`).
    """
    from gpulens.analyzers.context import context_of

    ev = timeline.events
    ctx = context_of(timeline)
    kind = ctx.kind_codes
    cats = list(ev["kind"].cat.categories)

    def table(kind_name: str, col: str) -> pd.DataFrame:
        # the id column of that kind's rows only (its values and mask taken by position), not a conversion of the
        # whole column of every event
        rows = np.flatnonzero(kind == cats.index(kind_name)) if kind_name in cats else np.zeros(0, dtype=np.int64)
        ids = ev[col].array.take(rows)
        has = ~np.asarray(ids.isna(), dtype=bool)
        rows = rows[has]
        t = pd.DataFrame({"rank": ev["rank"].to_numpy()[rows], col: ids.to_numpy(dtype="int64", na_value=0)[has],
                          "event_id": ev["event_id"].to_numpy()[rows]})
        dup = _repeated_pairs(t, col)
        if kind_name == "runtime" and dup.any():  # the calls of repeated ids, for relink_reused_ids
            r = rows[dup]
            st = ev["start_ns"].to_numpy()[r].astype("int64")
            repeated.append(pd.DataFrame({"rank": t["rank"].to_numpy()[dup], "corr": t[col].to_numpy()[dup],
                                          "start": st, "end": st + ev["dur_ns"].to_numpy()[r].astype("int64"),
                                          "event_id": t["event_id"].to_numpy()[dup]}))
        return _enclosing_first(t, col, rows, ev, dup)

    def lookup(src: pd.DataFrame, col: str) -> pd.array:
        ids = gpu[col].array
        ok = ~np.asarray(ids.isna(), dtype=bool)
        out = np.zeros(len(gpu), dtype="int64")
        found = np.zeros(len(gpu), dtype=bool)
        if ok.any() and len(src):
            # the GPU events' (rank, id) pairs as int64 arrays: no label-based selection of a two-column frame
            sub = pd.DataFrame({"rank": gpu["rank"].to_numpy(dtype="int64")[ok],
                                col: ids.to_numpy(dtype="int64", na_value=0)[ok]})
            a, b = _pair_keys(src["rank"], src[col]), _pair_keys(sub["rank"], sub[col])
            if a is not None and b is not None:
                first = ~pd.Index(a).duplicated(keep="first")
                idx = pd.Index(a[first])
                pos = idx.get_indexer(b)
                hit = pos >= 0
                vals = np.zeros(len(b), dtype="int64")
                vals[hit] = src["event_id"].to_numpy()[first][pos[hit]]
            else:
                d = src.drop_duplicates(["rank", col])
                ser = pd.Series(d["event_id"].to_numpy(), index=pd.MultiIndex.from_frame(d[["rank", col]]))
                got = ser.reindex(pd.MultiIndex.from_frame(sub)).to_numpy(dtype="float64")
                hit = ~np.isnan(got)
                vals = np.where(hit, got, 0).astype("int64")
            where = np.flatnonzero(ok)
            out[where] = vals
            found[where] = hit
        return pd.arrays.IntegerArray(out, ~found)

    repeated: list[pd.DataFrame] = []
    launch = lookup(table("runtime", "correlation_id"), "correlation_id")
    if repeated:  # one id on calls one after another: each GPU event to the nearest call before it
        launch = _relinked(repeated[0], gpu, launch)
    op = _drop_foreign_ops(ctx, ev, launch, lookup(table("cpu_op", "external_id"), "external_id"))
    return pd.DataFrame({"launch_event_id": launch, "op_event_id": op}, index=gpu.index)


#: Slack [ns] on "the op encloses its launch call": µs-rounded Kineto timestamps may put a call's start a fraction
#: of a µs before the op that made it.
ENCLOSE_SLACK_NS = 1_000


def _drop_foreign_ops(ctx: Any, ev: pd.DataFrame, launch: pd.arrays.IntegerArray,
                      op: pd.arrays.IntegerArray) -> pd.arrays.IntegerArray:
    """``op`` (the cpu_op each GPU event's external id names) without the links to an op that does not enclose the
    event's launch call (± :data:`ENCLOSE_SLACK_NS`). Kineto's external id names the op running when the launch call
    was made, so that op's interval holds the call's start; an op that does not is another op that happens to carry
    the number — older Kineto wrote the correlation id as the GPU event's external id (HTA's AlexNet A100 trace: 15
    of 16 host-to-device copies named start-up ops with ids 1–218, ``aten::empty_strided`` among them). Such an event
    is left to the op tree's fallback, the op enclosing its launch call. Events without a launch call keep the link
    (nothing to check it against)."""
    both = ~(np.asarray(launch.isna()) | np.asarray(op.isna()))
    if not both.any():
        return op
    lp = ctx.positions(launch.to_numpy(dtype="int64", na_value=0)[both])
    op_ids = np.asarray(op.to_numpy(dtype="int64", na_value=0))
    opp = ctx.positions(op_ids[both])
    ok = (lp >= 0) & (opp >= 0)
    start = ev["start_ns"].to_numpy("int64")  # the Timeline's int64 columns: no copy
    call, lo = start[lp[ok]], start[opp[ok]]
    hi = lo + ev["dur_ns"].to_numpy("int64")[opp[ok]]
    foreign = (call < lo - ENCLOSE_SLACK_NS) | (call > hi + ENCLOSE_SLACK_NS)
    if not foreign.any():
        return op
    mask = np.asarray(op.isna()).copy()
    where = np.flatnonzero(both)[np.flatnonzero(ok)[foreign]]
    mask[where] = True
    return pd.arrays.IntegerArray(op_ids, mask)


def _relinked(calls: pd.DataFrame, gpu: pd.DataFrame, launch: pd.arrays.IntegerArray) -> pd.arrays.IntegerArray:
    """``launch`` with the GPU events of reused correlation ids relinked (:func:`._reused_ids.relink_reused_ids`)."""
    from gpulens.analyzers._reused_ids import relink_reused_ids

    ids = gpu["correlation_id"].array
    g = pd.DataFrame({"rank": gpu["rank"].to_numpy(dtype="int64"), "corr": ids.to_numpy(dtype="int64", na_value=-1),
                      "start": gpu["start_ns"].to_numpy(dtype="int64")})
    had = launch.to_numpy(dtype="int64", na_value=-1)
    out = relink_reused_ids(calls, g, had)
    if out is had:
        return launch
    return pd.arrays.IntegerArray(out, out < 0)


def _repeated_pairs(t: pd.DataFrame, col: str) -> np.ndarray:
    """Per row of ``t`` (rank, ``col``): whether another row holds the same (rank, id) pair."""
    if len(t) < 2:
        return np.zeros(len(t), dtype=bool)
    key = _pair_keys(t["rank"], t[col])
    return np.asarray(pd.Index(key).duplicated(keep=False) if key is not None
                      else t.duplicated(["rank", col], keep=False).to_numpy(), dtype=bool)


def _enclosing_first(t: pd.DataFrame, col: str, rows: np.ndarray, ev: pd.DataFrame,
                     dup: np.ndarray | None = None) -> pd.DataFrame:
    """``t`` (rank, ``col``, event_id of some event rows ``rows``) reordered so that, within each (rank, id) pair
    shared by several rows, the enclosing call comes first — earliest start, then longest duration, then lowest
    name, then lowest event_id — so the lookup's "first row of a pair wins" does not depend on the order of the
    trace file. Rows whose pair is unique keep their place (no sort at all when no pair repeats)."""
    if len(t) < 2:
        return t
    if dup is None:
        dup = _repeated_pairs(t, col)
    if not dup.any():
        return t
    d = np.flatnonzero(dup)
    r = rows[d]
    start = ev["start_ns"].to_numpy()[r].astype("int64")
    dur = ev["dur_ns"].to_numpy()[r].astype("int64")
    names = pd.factorize(np.asarray(ev["name"].iloc[r].astype(str), dtype=object), sort=True)[0]
    order = np.lexsort((t["event_id"].to_numpy()[d], names, -dur, start,
                        t[col].to_numpy()[d], t["rank"].to_numpy()[d]))
    pos = np.arange(len(t))
    pos[d] = d[order]  # the repeated pairs' rows, sorted among the positions they held
    return t.iloc[pos].reset_index(drop=True)


#: Stream capture: launches between these calls on one host thread are recorded into a CUDA/HIP graph, not run
#: (CUDA Runtime API: cudaStreamBeginCapture / cudaStreamBeginCaptureToGraph / cudaStreamEndCapture, and the driver's
#: cuStreamBeginCapture*; HIP: hipStreamBeginCapture / hipStreamEndCapture)
CAPTURE_BEGIN_RE = re.compile(r"^(cuda|cu|hip)StreamBeginCapture")
CAPTURE_END_RE = re.compile(r"^(cuda|cu|hip)StreamEndCapture")


def captured_calls(timeline: Timeline, calls: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Which of ``calls`` (rows of the events table) start inside a stream-capture window of their host thread —
    from the start of a ``…StreamBeginCapture…`` call to the end of the next ``…StreamEndCapture`` of the same
    (rank, pid, tid); a capture never ended in the trace runs to the end of the trace — and the number of windows.
    Such launches are recorded into a graph: they run (and get GPU records) only when the graph is launched."""
    from gpulens.analyzers.context import category_mask, context_of

    ctx = context_of(timeline)
    rows = np.flatnonzero(ctx.mask_of("runtime"))  # the runtime calls' rows: their names read, no row copy
    inside = np.zeros(len(calls), dtype=bool)
    if not len(rows) or not len(calls):
        return inside, 0
    names = timeline.events["name"].iloc[rows]
    begin = category_mask(names, CAPTURE_BEGIN_RE)
    if not begin.any():
        return inside, 0
    end = category_mask(names, CAPTURE_END_RE)
    marks = timeline.events.iloc[rows[begin | end]]
    is_begin = np.asarray(begin[begin | end])
    keys = ["rank", "pid", "tid"]
    start = marks["start_ns"].to_numpy(dtype="int64")
    stop = start + marks["dur_ns"].to_numpy(dtype="int64")
    windows = 0
    def thread_of(df: pd.DataFrame) -> np.ndarray:  # (rank, pid, tid) per row; an unknown id is its own value
        return np.stack([df[c].to_numpy(dtype="float64", na_value=np.nan) for c in keys], axis=1)

    call_key, mark_key = thread_of(calls), thread_of(marks)
    call_start = calls["start_ns"].to_numpy(dtype="int64")
    for k in np.unique(mark_key[is_begin], axis=0):
        mine = np.flatnonzero((mark_key == k).all(axis=1))
        mine = mine[np.argsort(start[mine], kind="stable")]
        open_at = None
        spans = []
        for i in mine:
            if is_begin[i] and open_at is None:
                open_at = start[i]
            elif not is_begin[i] and open_at is not None:
                spans.append((open_at, stop[i]))
                open_at = None
        if open_at is not None:
            spans.append((open_at, np.iinfo(np.int64).max))
        windows += len(spans)
        same = (call_key == k).all(axis=1)
        for a, b in spans:
            inside |= same & (call_start >= a) & (call_start <= b)
    return inside, windows


def launch_calls(timeline: Timeline) -> pd.DataFrame:
    """The runtime/driver calls that launch GPU work: those named like a launch (:data:`LAUNCH_RE`) and those whose
    correlation id a kernel (or collective kernel) carries, whatever their name, with the other calls of such a name
    (one that ran no kernel in the window included) — vendor-neutral, as the B11 case
    of ../shared/cases asks (a launch table of CUDA names only misses HIP, XPU and PrivateUse1 launches). A copy or
    fill call (``cudaMemcpyAsync``, ``hipMemsetAsync``) links copies and fills, not kernels, and is not a launch.

    Returns:
        The rows of the Timeline's ``runtime`` events that are launch calls (the events table's columns).
    """
    from gpulens.analyzers.context import context_of

    return context_of(timeline).of_kind("runtime")[launch_call_mask(timeline)]


def launch_call_mask(timeline: Timeline) -> np.ndarray:
    """Boolean numpy mask over ``context_of(timeline).of_kind("runtime")`` of the launch calls
    (:func:`launch_calls`), computed once per analysis context (memo ``"launch_call_mask"``): its readers need the
    count or the ranks of the calls, not a full-width copy of a million rows each."""
    from gpulens.analyzers.context import category_mask, context_of, text_series

    ctx = context_of(timeline)

    def compute() -> np.ndarray:
        ev = timeline.events
        rows = np.flatnonzero(ctx.mask_of("runtime"))  # of_kind("runtime")'s rows, in order: its two columns read
        rt_name = ev["name"].iloc[rows]
        named = category_mask(rt_name, LAUNCH_RE)
        if not named.all() and len(ctx.gpu):
            links = ctx.links["launch_event_id"]
            kern = ctx.gpu["kind"].isin(("kernel", "comm")).to_numpy() & links.notna().to_numpy()
            if kern.any():
                linking = ev["event_id"].iloc[rows].isin(links[kern].astype("int64").unique()).to_numpy()
                names = set(text_series(rt_name[linking & ~named]))  # calls of that name without a kernel
                if names:
                    named = named | category_mask(rt_name, names)
        return named

    return ctx.memo("launch_call_mask", compute)


def _calls_matching(rows: pd.DataFrame | None, calls: pd.DataFrame) -> np.ndarray:
    """Per launch call (rows of ``calls``: ``rank``, ``correlation_id``): whether ``rows`` (``rank``,
    ``correlation_id``; None or empty for none) holds its rank and correlation id."""
    out = np.zeros(len(calls), dtype=bool)
    if rows is None or not len(rows) or not len(calls):
        return out
    keys = pd.MultiIndex.from_arrays([rows["rank"].to_numpy(dtype="int64"),
                                      rows["correlation_id"].to_numpy(dtype="int64")])
    has = calls["correlation_id"].notna().to_numpy()
    if has.any():
        sub = calls[has]
        mine = pd.MultiIndex.from_arrays([sub["rank"].to_numpy(dtype="int64"),
                                          sub["correlation_id"].to_numpy(dtype="int64")])
        out[has] = mine.isin(keys)
    return out


def refused_work_calls(timeline: Timeline, calls: pd.DataFrame) -> np.ndarray:
    """Per launch call (rows of ``calls``: ``rank``, ``correlation_id``): its correlation id is that of a GPU row
    the collector refused (``timeline.rejected`` of kind kernel, comm, memcpy or memset, same rank) — work that was
    launched and recorded, then excluded as invalid."""
    rej = timeline.rejected
    if rej is None or not len(rej) or "correlation_id" not in rej or not len(calls):
        return np.zeros(len(calls), dtype=bool)
    gpu = rej[rej["kind"].astype(str).isin(("kernel", "comm", "memcpy", "memset")) & rej["correlation_id"].notna()]
    return _calls_matching(gpu, calls)


def selection_cut_calls(timeline: Timeline, calls: pd.DataFrame) -> np.ndarray:
    """Per launch call (rows of ``calls``): its GPU work was recorded but lies outside a ``--window`` selection that
    kept the call itself (the side table ``selection_cut_work`` that :meth:`Selection.apply
    <gpulens.timeline.selection.Selection.apply>` leaves: ``rank``, ``correlation_id``) — the selection's cut, not
    work the capture lost."""
    return _calls_matching((timeline.tables or {}).get("selection_cut_work"), calls)


def lost_launches(calls: pd.DataFrame, empty: np.ndarray, gpu_per_call: np.ndarray) -> dict | None:
    """The launch calls whose correlation id matches no GPU event, outside any stream capture (``empty``) — work that
    was launched but whose GPU record the capture lost — or None when there are none.

    Args:
        calls: launch-call rows of the events table (``start_ns``, ``correlation_id``).
        empty: per call, it carries a correlation id, was not captured into a graph, and matched no GPU event.
        gpu_per_call: per call, the GPU events linked to it.

    Returns:
        ``calls`` (count), ``ids`` (" (correlation A–B)" or ""), ``where`` (", all after the last launch whose
        kernel was recorded" when every lost call follows every linked one, else ""), ``cause`` (a sentence),
        ``step`` (what to do about it, for that cause: the finding's action).
    """
    if not empty.any():
        return None
    start = calls["start_ns"].to_numpy(dtype="int64")
    ids = id_range(calls["correlation_id"].to_numpy(dtype="float64", na_value=np.nan)[empty])
    linked = gpu_per_call > 0
    tail = bool(linked.any()) and start[empty].min() > start[linked].max()
    if tail:
        where, cause = (", all after the last launch whose GPU work was recorded",
                        "the capture stopped before their kernels ran (or before their records were flushed).")
        step = ("Profile a window that ends after the GPU drains (a final torch.cuda.synchronize() inside the "
                "profiled region, or a longer nsys / rocprof capture).")
    elif not linked.any():
        where, cause = "", "no GPU work of these calls was recorded (device activity tracing off or lost)."
        step = ("Profile again with device activity tracing on (torch.profiler's ProfilerActivity.CUDA, nsys "
                "--trace cuda, rocprofv3 --kernel-trace) so their GPU work is recorded.")
    else:
        where, cause = "", ("the profiler lost their GPU records (activity buffers dropped, or the records were "
                            "filtered out of this export).")
        step = ("Profile again so their GPU work is recorded (a shorter window or fewer steps per trace: activity "
                "buffers overflow on long captures; an export that keeps every GPU record).")
    return {"calls": int(empty.sum()), "ids": ids, "where": where, "cause": cause, "step": step}


#: Columns of the launch calls that :class:`Launches` reads (with :func:`captured_calls`).
_LAUNCH_COLUMNS = ("event_id", "name", "start_ns", "dur_ns", "rank", "pid", "tid", "correlation_id")


class Launches(Analyzer):
    """Launch accounting: calls per launch API, GPU events linked/unlinked, graph launches (one-to-many), and launch
    calls made during stream capture (summary ``launch_calls_captured`` in ``graph_captures`` capture windows, counts:
    recorded into a CUDA/HIP graph, not run — :func:`captured_calls`)."""

    name = "launches"
    order = 30

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        from gpulens.analyzers._span import replayed_for_counters
        from gpulens.analyzers.context import category_mask, context_of, first_seen_codes

        ev = timeline.events
        gpu = context_of(timeline).gpu
        # the launch calls' columns read here and by captured_calls: no full-width copy of a million runtime rows
        rows = np.flatnonzero(context_of(timeline).mask_of("runtime"))[launch_call_mask(timeline)]
        rt = ev[[c for c in _LAUNCH_COLUMNS if c in ev]].iloc[rows]
        if not len(gpu) and not len(rt):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=counter_only_reason(timeline)
                                  or "no GPU events and no launch calls in the trace")
        from gpulens.analyzers._optree import gpu_op_links as _gpu_op_links

        links = link_gpu_to_launch(timeline)
        linked = links["launch_event_id"].notna()
        # GPU events per launch call: a count per event row position (bincount), read at the calls' rows — no hash
        # table of a million launch ids (value_counts + reindex)
        ctx = context_of(timeline)
        lpos = ctx.positions(links["launch_event_id"].to_numpy(dtype="int64", na_value=-1)[linked.to_numpy()])
        per_row = np.bincount(lpos[lpos >= 0], minlength=len(ev))
        rpos = ctx.positions(rt["event_id"].to_numpy())
        gpu_per_call = np.where(rpos >= 0, per_row[np.maximum(rpos, 0)], 0).astype("int64")
        # a call can be checked only if it carries a correlation id (or is linked anyway): rocprof v1's --hip-trace
        # JSON records every hipLaunchKernel without one, and "8 of 8 calls without GPU work" would be false
        known = rt["correlation_id"].notna().to_numpy() | (gpu_per_call > 0)
        # a call whose GPU work the collector refused (negative duration, no timestamp…: timeline.rejected, same
        # rank and correlation id) launched work that was recorded, then excluded: not a lost launch
        refused = refused_work_calls(timeline, rt) & (gpu_per_call == 0)
        # a call whose GPU work a --window selection left out (it ran after the window's end): the user's cut, not
        # work the capture lost (counted in summary ``launch_calls_work_outside_selection``)
        cut = selection_cut_calls(timeline, rt) & (gpu_per_call == 0) & ~refused
        # a call of a reused correlation id left without work while another call of that id holds several events:
        # its work is recorded, behind the other call (one link of the id cannot be trusted), not lost
        shared = shared_correlation_ids(rt)
        reuse = reuse_summary(rt, gpu_per_call) if shared else None
        ambiguous = rt["event_id"].isin(reuse["idle_event_ids"]).to_numpy() if reuse else np.zeros(len(rt), bool)
        # per launch name in text order (a groupby of the names, sort=True), grouped by the name's rank among the
        # distinct names (float, NaN for a missing name: dropped as groupby drops it) — no hash of a million strings
        codes, uniq = first_seen_codes(rt["name"])
        by_text = np.argsort(np.asarray([str(u) for u in uniq], dtype=object), kind="stable")
        rank_of = np.empty(len(uniq), dtype="float64")
        rank_of[by_text] = np.arange(len(uniq))
        t = pd.DataFrame({"launch_name": np.where(codes >= 0, rank_of[np.maximum(codes, 0)] if len(uniq) else 0.0,
                                                  np.nan), "gpu": gpu_per_call,
                          "dur": rt["dur_ns"].to_numpy(), "known": known,
                          "empty": known & (gpu_per_call == 0) & ~refused & ~cut & ~ambiguous})
        g = t.groupby("launch_name", sort=True)
        any_known = g["known"].any()
        table = pd.DataFrame({"calls": g.size(),
                              "gpu_events": g["gpu"].sum().astype("Int64").where(any_known),
                              "calls_without_gpu_work": g["empty"].sum().astype("Int64").where(any_known),
                              "mean_call_ns": g["dur"].mean(), "median_call_ns": g["dur"].median()})
        table.index = pd.Index([uniq[by_text[int(r)]] for r in table.index.tolist()], name="launch_name")
        table = table.reset_index()
        table = table.sort_values(["calls", "launch_name"], ascending=[False, True], kind="stable").reset_index(drop=True)
        if not len(rt):
            table = pd.DataFrame({"launch_name": [NO_LAUNCH_ROW], "calls": [0], "gpu_events": pd.array([None], "Int64"),
                                  "calls_without_gpu_work": pd.array([None], "Int64"), "mean_call_ns": [np.nan],
                                  "median_call_ns": [np.nan]})
        is_graph = pd.Series(category_mask(rt["name"], GRAPH_RE))
        kernels = gpu["kind"].isin(("kernel", "comm"))
        unlinked_k = int((kernels & ~linked).sum())
        has_corr = bool(ev["correlation_id"].notna().any())
        summary = {
            "launch_calls": int(len(rt)),
            "graph_launches": int(is_graph.sum()),
            "gpu_events_from_graphs": int(t.loc[is_graph, "gpu"].sum()),
            "kernels": int(kernels.sum()),
            "kernels_linked": int((kernels & linked).sum()),
            "kernels_unlinked": unlinked_k,
            # the one op linking (external id, else the op enclosing the launch call), as kernel groups and the roll-up
            "gpu_events_linked_to_ops": int(_gpu_op_links(timeline).notna().sum()),
            # calls that carry a correlation id matching no GPU event; None when no call carries one (unknown)
            "launch_calls_without_gpu_work": int(t["empty"].sum()) if t["known"].any() else None,
        }
        captured, windows = captured_calls(timeline, rt)
        # launches recorded into a graph during stream capture: no GPU record, and none expected (not lost work)
        summary["graph_captures"] = windows
        summary["launch_calls_captured"] = int(captured.sum())
        summary["launch_calls_gpu_work_refused"] = int(refused.sum())
        summary["launch_calls_work_outside_selection"] = int(cut.sum())
        findings = []
        # a counter-collection replay (ncu, rocprof-compute, rocprof pmc) launches the kernels itself: that its
        # kernels match no runtime call says nothing about the workload's launches; nor does a kernel-only trace
        # (rocprofv3 --kernel-trace, a rocpd database without HIP API regions): with no launch call recorded at
        # all, every kernel is "unlinked" and the finding would only restate that the host side was not traced
        if unlinked_k and has_corr and len(rt) and not replayed_for_counters(timeline):
            findings.append(Finding(
                f"{plural(unlinked_k, 'kernel(s)')} not linked to a launch call",
                "Their correlation id matches no runtime call in the trace (the call fell outside the profiling "
                "window, or the profiler did not record it). They still count toward GPU time.",
                severity="info", category="data-quality"))
        if shared:
            summary["correlation_ids_shared"] = shared
            summary["launch_calls_sharing_ids"] = reuse["calls"] if reuse else None
            summary["gpu_links_doubtful"] = reuse["doubtful"] if reuse else None
            findings.append(Finding(
                f"{plural(shared, 'correlation id(s)')} shared by launch calls that do not nest",
                reuse_detail(shared, reuse), severity="warning", category="data-quality"))
        lost = lost_launches(rt, t["empty"].to_numpy() & ~captured, gpu_per_call)
        if lost is not None and not replayed_for_counters(timeline):
            summary["launch_calls_lost"] = lost["calls"]
            findings.append(Finding(
                f"{lost['calls']} of {plural(len(rt), 'launch call(s)')} {agree(lost['calls'], 'has', 'have')} no GPU record{lost['where']}",
                f"Their correlation ids{lost['ids']} match no kernel, copy or fill in the trace: {lost['cause']} The "
                "GPU time, busy share and verdict cover only the work that was recorded.", severity="warning",
                category="data-quality", action=lost["step"]))
        if summary["launch_calls_gpu_work_refused"]:
            findings.append(Finding(
                f"{summary['launch_calls_gpu_work_refused']} of {plural(len(rt), 'launch call(s)')} launched GPU work "
                "that was refused as invalid",
                "Their correlation ids match GPU records the reader excluded (see the invalid-event warning: a "
                "negative duration, a missing or zero timestamp): the work ran but its time is unknown. They are not "
                "lost launches.", severity="info", category="data-quality"))
        if summary["launch_calls_captured"]:
            n, m = summary["launch_calls_captured"], summary["launch_calls"]
            findings.append(Finding(
                f"{n} of {plural(m, 'launch call(s)')} {agree(n, 'was', 'were')} captured into a CUDA/HIP graph, not run",
                f"They were made inside {plural(windows, 'stream capture(s)')} (cudaStreamBeginCapture … cudaStreamEndCapture, "
                "or HIP's): a captured launch is recorded into a graph and runs only when the graph is launched, so "
                "it has no GPU record here and the host time around it is capture, not a GPU waiting for work. "
                "Profile the graph replays (cudaGraphLaunch / hipGraphLaunch) for the work's GPU time.",
                severity="info", category="data-quality"))
        if summary["graph_launches"]:
            findings.append(Finding(
                f"{plural(summary['graph_launches'], 'graph launch(es)')} enqueued {summary['gpu_events_from_graphs']} "
                f"GPU events",
                "Graph replays launch many kernels per call; per-kernel CPU attribution is not possible for them, "
                "launch overhead is counted once per graph launch.", category="launch"))
        return AnalysisResult(self.name, table, COLUMNS, summary, findings)
