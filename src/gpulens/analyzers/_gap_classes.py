"""The idle-gap classification of the bottlenecks analyzer: the blocking-call patterns, :func:`classify_gaps` (each gap
between busy segments as queued, launch, host, sync, boundary or unattributed — the classes are defined in
:mod:`gpulens.analyzers.bottlenecks`' docstring), the warm-up/one-off boundary rule (:func:`boundary_mask`) and the
kernels shorter than their launch call (:func:`short_launches`). Every name is re-exported by
:mod:`gpulens.analyzers.bottlenecks`.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._gap_codes import CODE_COLUMN, GAP_CLASSES, gap_class_mask
from gpulens.analyzers._idle_findings import before_steady_state
from gpulens.analyzers._span import CLOCK_GAP_NS
from gpulens.analyzers.context import category_mask, codes_of, context_of, reindex_sorted, unique_ints
from gpulens.analyzers.intervals import merge
from gpulens.analyzers.launches import launch_call_mask
from gpulens.timeline import Timeline


#: The gap-class codes of :data:`GAP_CLASSES` that the classification assigns.
_HOST, _LAUNCH, _QUEUED, _UNATTRIBUTED, _BOUNDARY = (GAP_CLASSES.index(c) for c in
                                                     ("host", "launch", "queued", "unattributed", "boundary"))


#: A gap up to this long before a launched kernel is launch overhead; a kernel starting more than this after its
#: launch call returned started late (``queued``) — the one threshold of the idle split and the critical path.
LAUNCH_GAP_NS = 20_000


SYNC_RE = re.compile(r"^(?:cuda|hip|cu)(?:Device|Stream|Event|Ctx)?Synchroni[sz]e")


#: Synchronous copies: the call returns only once the copy — and the stream's work before it — is done (CUDA Runtime
#: API "API synchronization behavior": cudaMemcpy, cudaMemcpy2D/3D, ToSymbol/FromSymbol; driver cuMemcpy*/_v2
#: without ``Async``; HIP's hipMemcpy, hipMemcpyWithStream, hipMemcpyDtoH/HtoD/DtoD).
BLOCKING_COPY_RE = re.compile(r"^(?:(?:cuda|hip)Memcpy(?:2D|3D)?(?:WithStream|ToSymbol|FromSymbol|Peer)?"
                              r"|(?:cu|hip)Memcpy(?:DtoH|HtoD|DtoD|AtoH|HtoA|2D|3D)?)(?:_v[0-9]+)?$")


def _queue_ops_re() -> re.Pattern:
    """The kind rules' ``sync`` name patterns (:mod:`gpulens.collectors._work_rules`, the one rule): stream wait/write
    operations that run on a GPU queue, so an idle gap beside them is GPU-side waiting, never a host sync."""
    from gpulens.collectors._work_rules import KERNEL_NAME_RULES

    return re.compile("|".join(f"(?:{r.pattern})" for r in KERNEL_NAME_RULES if r.kind == "sync") or "(?!)",
                      re.IGNORECASE)


_QUEUE_OPS_RE = _queue_ops_re()


#: Blocking host calls: synchronisations and synchronous copies (the ``sync`` gap class).
BLOCKING_RE = re.compile(f"{SYNC_RE.pattern}|{BLOCKING_COPY_RE.pattern}")


#: A boundary candidate covered by blocking calls for at least this share of its length has a known host-side
#: cause: it is counted (class ``sync``), not left out as a one-off.
BLOCKING_COVER_SHARE = 0.5


#: A gap is a warm-up / boundary / one-off gap (class ``boundary``, left out of the steady-state verdict) when the
#: device has at least BOUNDARY_MIN_GAPS gaps, the gap is ≥ BOUNDARY_FACTOR × the median of its device's other gaps
#: and it alone is ≥ BOUNDARY_IDLE_SHARE of the device's idle time (or of the idle those gaps leave, standing alone:
#: :func:`boundary_passes`).
BOUNDARY_FACTOR = 10.0


BOUNDARY_IDLE_SHARE = 0.25


BOUNDARY_MIN_GAPS = 3


#: A gap is left out of the verdict only when it holds at least this share of the device's span: leaving out a gap
#: of g ns changes a busy share B/S to B/(S-g), a rise of at most g/(S-g) — under one percentage point below this
#: share, less than the verdict's classes can turn on. A 3.28 µs gap of a 10.74 ms MI300X decode span (0.03 %)
#: was "left out" and offered as a --window cut.
BOUNDARY_SPAN_SHARE = 0.01


#: A copy to or from pageable host memory, as Kineto names it ("Memcpy DtoH (Device -> Pageable)").
PAGEABLE_COPY_RE = re.compile(r"\bPageable\b")


#: The asynchronous copy calls: with pageable host memory they "might be synchronous with respect to host" (CUDA
#: Runtime API, "API synchronization behavior"); on an H200 a 16 MiB device→pageable cudaMemcpyAsync held the
#: host 10.2 ms around its 8.1 ms copy, the GPU idle for the last 1.1 ms of it.
ASYNC_COPY_RE = re.compile(r"^(?:cuda|hip)Memcpy(?:2D|3D)?(?:Peer)?Async(?:_v[0-9]+)?$|^cuMemcpy\w*Async(?:_v[0-9]+)?$")


def sync_calls(timeline: Timeline) -> pd.DataFrame:
    """Blocking host intervals: runtime calls matching :data:`BLOCKING_RE` (``*Synchronize`` and synchronous
    copies), asynchronous copy calls whose copy moves pageable host memory (:data:`ASYNC_COPY_RE`: the host stays
    inside them while the data is staged) and ``sync``-kind events (but a record of a blocking call listed here:
    the same wait, once)."""
    # the blocking rows taken from the events by one mask per kind (names tested once per category): no full-width
    # frame of every runtime call (a million rows at 1M kernels) to keep the few synchronisations of
    ctx = context_of(timeline)
    ev = timeline.events
    rt = ev[ctx.mask_of("runtime") & category_mask(ev["name"], BLOCKING_RE)]
    # a GPU-queue stream operation (HIP __amd_rocclr_streamOpsWait…) is the GPU waiting, not the host
    sy = ev[ctx.mask_of("sync") & ~category_mask(ev["name"], _QUEUE_OPS_RE)]
    if len(sy) and len(rt):  # CUPTI's record of a blocking call that is itself here (same rank and correlation
        # id: Kineto's "Stream Sync" of a cudaStreamSynchronize) is the same wait: the call, named by its API, stays
        pair = ["rank", "correlation_id"]
        twice = pd.MultiIndex.from_frame(sy[pair].astype("Int64")).isin(
            pd.MultiIndex.from_frame(rt[pair].dropna().astype("Int64")))
        sy = sy[~(twice & sy["correlation_id"].notna().to_numpy())]
    parts = [rt, sy]
    pageable = ev[ctx.mask_of("memcpy") & category_mask(ev["name"], PAGEABLE_COPY_RE)]
    if len(pageable):  # the async calls that enqueued them (same rank and correlation id)
        calls = ev[ctx.mask_of("runtime") & category_mask(ev["name"], ASYNC_COPY_RE)]
        key = pageable[["rank", "correlation_id"]].dropna().drop_duplicates()
        parts.append(calls.merge(key, on=["rank", "correlation_id"], how="inner")
                     if len(key) and len(calls) else calls.iloc[0:0])
    return pd.concat(parts)


def covered_until(t: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """For each time in ``t``: length of the disjoint sorted segments (s, e) lying before it (ns)."""
    t = np.asarray(t, dtype="int64")
    if not s.size:
        return np.zeros(t.size, dtype="int64")
    cum = np.concatenate([[0], np.cumsum(e - s)])
    i = np.searchsorted(s, t, side="right") - 1
    inside = np.where(i >= 0, np.clip(t - s[np.maximum(i, 0)], 0, (e - s)[np.maximum(i, 0)]), 0)
    return np.where(i >= 0, cum[np.maximum(i, 0)] + inside, 0)


def classify_gaps(timeline: Timeline, launch_gap_ns: int = LAUNCH_GAP_NS, links: pd.Series | None = None) -> pd.DataFrame:
    """Every idle gap between busy segments of each GPU, attributed (see module docstring).

    ``links`` (optional): ``link_gpu_to_launch(timeline)["launch_event_id"]`` when the caller already has it.

    Returns:
        one row per gap: ``rank``, ``device_id``, ``start_ns``, ``dur_ns``, ``next_event_id`` (the GPU event that
        ends the gap), ``next_name``, ``cls`` (one of ``GAP_CLASSES`` minus ``sync``), ``sync_ns`` (part of the
        gap inside a host sync call before the launch call of the GPU event ending the gap returned; the rest,
        ``dur_ns − sync_ns``, belongs to ``cls``), ``base_cls`` (the class
        the gap has from its launch alone, before the boundary rule: what a ``boundary`` gap was waiting on),
        ``cls_code`` (int8: the position of ``cls`` in ``GAP_CLASSES``, what :func:`gap_class_mask` reads).
    """
    ctx = context_of(timeline)
    if links is None or links.equals(ctx.links["launch_event_id"]):  # the shared links: computed once per Timeline
        return ctx.memo(f"classify_gaps:{launch_gap_ns}",
                        lambda: _classify_gaps(timeline, launch_gap_ns, ctx.links["launch_event_id"])).copy(deep=False)
    return _classify_gaps(timeline, launch_gap_ns, links)


def _classify_gaps(timeline: Timeline, launch_gap_ns: int, links: pd.Series) -> pd.DataFrame:
    ctx = context_of(timeline)
    gpu = ctx.gpu
    cols = ["rank", "device_id", "start_ns", "dur_ns", "next_event_id", "next_name", "cls", "sync_ns", "base_cls",
            CODE_COLUMN]
    if not len(gpu):
        return pd.DataFrame(columns=cols)
    syncs = sync_calls(timeline)
    # ranks of the launch calls: the runtime rows' rank column by position (launch_call_mask is over those rows)
    # (the distinct ranks first: a set built from a million launch calls' ranks cost ~0.08 s at 1M kernels)
    lr = timeline.events["rank"].to_numpy()[ctx.mask_of("runtime")][launch_call_mask(timeline)]
    if lr.dtype.kind in "iu" and len(lr) and lr.min() == lr.max():
        launch_ranks = {int(lr[0])}  # one rank (a single trace file): no sort of a million ranks (~0.02 s)
    else:
        launch_ranks = set((np.unique(lr) if lr.dtype.kind in "iu" else lr).tolist())
    sy_rank = syncs["rank"].to_numpy()
    sy_start = syncs["start_ns"].to_numpy("int64")
    sy_end = sy_start + syncs["dur_ns"].to_numpy("int64")
    sy_rows = pd.Series(np.arange(len(syncs))).groupby(sy_rank, sort=False).indices if len(syncs) else {}
    none = np.zeros(0, dtype="int64")
    # every column as a numpy array sorted once by (rank, device, start) — stable, as groupby + sort_values — so
    # that the loop over GPUs below does numpy slicing only (thousands of rank files: no per-GPU DataFrame)
    rank_a, dev_a = gpu["rank"].to_numpy(), gpu["device_id"].to_numpy()
    st_a = gpu["start_ns"].to_numpy("int64")
    order = np.lexsort((st_a, dev_a, rank_a))
    rank_a, dev_a, st_a = rank_a[order], dev_a[order], st_a[order]
    dur_a = ctx.effective_ns.to_numpy("int64")[order]
    eid_a = gpu["event_id"].to_numpy()[order]
    name_a = codes_of(gpu["name"])[order]
    kern_a = category_mask(gpu["kind"], {"kernel", "comm"})[order]  # copies/fills do not start the steady state
    first_step = _first_step_start(timeline)
    step_spans = _step_spans(timeline)
    lid = reindex_sorted(links, gpu.index)
    known_a = lid.notna().to_numpy()[order]
    lk_a = lid.fillna(-1).astype("int64").to_numpy()[order]
    l_start_a, l_end_i, l_ok_a = _launch_times(ctx, lk_a)
    cut = np.flatnonzero((rank_a[1:] != rank_a[:-1]) | (dev_a[1:] != dev_a[:-1])) + 1
    # every GPU's busy time merged (all ranks and devices): a gap during which none of it ran waited on nothing the
    # trace records (one GPU: its own gaps are idle by definition, so nothing to merge)
    if len(cut):
        o = np.argsort(st_a, kind="stable")
        all_s, all_e = merge(st_a[o], st_a[o] + dur_a[o])
    else:
        all_s = all_e = none
    bounds = zip(np.concatenate(([0], cut)).tolist(), np.concatenate((cut, [len(order)])).tolist())
    out: dict[str, list] = {c: [] for c in cols}
    for a, b in bounds:
        rank, dev = rank_a[a], dev_a[a]
        st = st_a[a:b]
        s, e = merge(st, st + dur_a[a:b])
        if s.size < 2:
            continue
        rows = sy_rows.get(rank, none)  # the rank's sync calls, grouped once (no mask over all ranks' calls)
        ss, se = merge(sy_start[rows], sy_end[rows])
        gs, ge = e[:-1], s[1:]
        # a gap of a day or more joins two time bases (breakdown warns of it and leaves it out of the span): not idle
        same_clock = (ge - gs) < CLOCK_GAP_NS
        gs, ge = gs[same_clock], ge[same_clock]
        dur = ge - gs
        nxt = a + np.searchsorted(st, ge, side="left")
        known = known_a[nxt]
        l_start, l_end, l_ok = l_start_a[nxt], l_end_i[nxt], l_ok_a[nxt]
        # without any launch call recorded on the rank a short gap says nothing about launches
        short = (dur <= launch_gap_ns) & (rank in launch_ranks)
        # class codes (positions in GAP_CLASSES; texts once at the end, not a string array per GPU)
        # a gap between the kernels of one graph replay: an earlier GPU event of the same launch call already ran
        # on this device, so that call had submitted the replay — the wait is device-side (queued), however long
        # the call itself runs (hipGraphLaunch returns after 1.57 ms while its 544 kernels run for 9.9 ms)
        lk_seg = lk_a[a:b]
        uniq, first = np.unique(lk_seg, return_index=True)
        replay = known & (first[np.searchsorted(uniq, lk_seg[nxt - a])] < nxt - a)
        # the launch call returned inside the gap: from then on the GPU held the work and did not start it (a late
        # start — queue delay — not the host); a blocking call after that point waits on this submitted work
        # (nvc OpenMP on a T4: each kernel started 4.4 ms after its cuLaunchKernel returned, the host already in
        # cuStreamSynchronize), so only the blocked time before it is the host's sync
        enq_at = np.where(known & l_ok & ~replay & (l_end > gs) & (l_end < ge), l_end, ge)
        late = ge - enq_at  # queue delay inside the gap [ns] (0 unless the call returned inside it)
        cls = np.select([~known & short, ~known, (l_ok & (l_end <= gs)) | replay,
                         (late > launch_gap_ns) & (late > enq_at - gs), (l_ok & (l_start < gs)) | short],
                        [_LAUNCH, _UNATTRIBUTED, _QUEUED, _QUEUED, _LAUNCH], _HOST).astype(np.int8)
        base_cls = cls
        sync = covered_until(enq_at, ss, se) - covered_until(gs, ss, se)
        # the host's blocked time over the whole gap: a blocking call spanning a gap whose work was already queued
        # (the launch returned before the GPU started it) is the host waiting on that queued work — a known wait,
        # counted, never a warm-up (SGLang MI300X decode: 4 kernels queued behind hipStreamWaitEvent started
        # 463 ms after their launches returned, the host blocked in hipMemcpyWithStream for all of it)
        blocked = covered_until(ge, ss, se) - covered_until(gs, ss, se)
        kst = st[kern_a[a:b]]
        if kst.size:
            k_first, k_last = int(kst[0]), int((st + dur_a[a:b])[kern_a[a:b]].max())
        else:  # no kernel on the device: every gap is between copies
            k_first, k_last = int(ge.max()) + 1, int(gs.min()) - 1
        queued = base_cls == _QUEUED
        # queued work that waited on no GPU work the trace records (nothing ran on any GPU during the gap): its
        # dependency lies outside the capture
        outside = queued & ((covered_until(ge, all_s, all_e) - covered_until(gs, all_s, all_e)) == 0)
        cls = np.where(boundary_mask(dur, gs, ge, np.where(queued, blocked, sync), k_first, k_last,
                                     first_step.get(rank), step_spans.get(rank), (int(s[0]), int(e[-1])),
                                     queued & ~outside),
                       _BOUNDARY, cls).astype(np.int8)
        sync = np.where((cls == _QUEUED) | (cls == _BOUNDARY), 0, sync)
        for c, v in (("rank", np.full(len(gs), int(rank), dtype="int64")),
                     ("device_id", np.full(len(gs), int(dev), dtype="int64")), ("start_ns", gs), ("dur_ns", dur),
                     ("next_event_id", eid_a[nxt]), ("next_name", name_a[nxt]), ("cls", cls), ("sync_ns", sync),
                     ("base_cls", base_cls), (CODE_COLUMN, cls)):
            out[c].append(v)
    if not out["rank"]:
        return pd.DataFrame(columns=cols)
    names = np.append(np.asarray(gpu["name"].cat.categories.astype(object), dtype=object), np.nan)
    # one column at a time, each GPU's pieces dropped once joined (at 1M gaps the pieces and the joined columns
    # side by side, then a consolidating copy into the frame, were the analysis's peak memory)
    df = {c: np.concatenate(out.pop(c)) for c in cols}
    df["next_name"] = pd.Series(names[df["next_name"]], dtype=object, copy=False)
    # object columns of the class texts: a numpy str array became a pandas str column row by row (~0.5 s per
    # million gaps each); the values and every comparison, group and pivot on them are the same
    texts = np.array(GAP_CLASSES, dtype=object)
    df["cls"] = pd.Series(texts[df["cls"]], dtype=object, copy=False)
    df["base_cls"] = pd.Series(texts[df["base_cls"]], dtype=object, copy=False)
    return pd.DataFrame(df, columns=cols, copy=False)


def _launch_times(ctx: Any, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start and end of the launch calls ``ids`` (event ids; −1 or an absent id: unknown) exactly in int64 [ns] (0
    where unknown), and whether each is known. Never float64: it steps by 256 ns at epoch-ns timestamps (a Kineto
    trace with ``baseTimeNanoseconds``, rocprofv3, an Nsight Systems export moved to the epoch), so a launch call
    that returned a few ns before its kernel's predecessor ended was read as returning after it (launch overhead
    instead of queued work) — a verdict that changed with the clock's origin. The calls' rows are looked up once and
    each column gathered once (~0.05 s saved at 1M gaps)."""
    ev = ctx.timeline.events
    pos = ctx.positions(ids)
    p0 = np.maximum(pos, 0)
    ok = pos >= 0
    st_c, du_c = ev["start_ns"], ev["dur_ns"]
    if not len(ev):
        zero = np.zeros(len(ids), dtype="int64")
        return zero, zero, np.zeros(len(ids), dtype=bool)
    if st_c.hasnans or du_c.hasnans:  # missing values: unknown, as an absent call
        ok = ok & st_c.notna().to_numpy()[p0] & du_c.notna().to_numpy()[p0]
    st_i = st_c.to_numpy(dtype="int64", na_value=0)[p0]
    en_i = st_i + du_c.to_numpy(dtype="int64", na_value=0)[p0]
    return np.where(ok, st_i, 0), np.where(ok, en_i, 0), ok


def _first_step_start(timeline: Timeline) -> dict[Any, int]:
    """Per rank, the start of its first ``ProfilerStep#N`` mark [ns] (ranks without one are absent): the first of
    its :func:`_step_spans`."""
    return {k: int(v[0][0]) for k, v in _step_spans(timeline).items() if len(v[0])}


def _step_spans(timeline: Timeline) -> dict[Any, tuple[np.ndarray, np.ndarray]]:
    """Per rank, its ``ProfilerStep#N`` ranges as (starts, ends) sorted by start [ns] (ranks without one absent)."""
    from gpulens.analyzers._steps import step_ranges

    def compute() -> dict[Any, tuple[np.ndarray, np.ndarray]]:
        st = step_ranges(timeline)
        out = {}
        for rank, g in st.groupby("rank") if len(st) else ():
            s = g["start_ns"].to_numpy("int64")
            o = np.argsort(s, kind="stable")
            out[rank] = (s[o], (s + g["dur_ns"].to_numpy("int64"))[o])
        return out

    return context_of(timeline).memo("step_spans", compute)


def one_off_gaps(timeline: Timeline) -> pd.DataFrame:
    """The rows of :func:`classify_gaps` (default threshold, the shared links) whose class is ``boundary``: the
    warm-up / boundary / one-off gaps the verdict leaves out (index kept). Selected on the stored class codes
    (:func:`gap_class_mask`), not on a comparison of every gap's class text."""
    gaps = classify_gaps(timeline)
    return gaps[gap_class_mask(gaps, "boundary")]


def boundary_mask(dur: np.ndarray, gs: np.ndarray, ge: np.ndarray, blocked: np.ndarray, first_kernel: int,
                  last_kernel_end: int, first_step: int | None = None,
                  steps: tuple[np.ndarray, np.ndarray] | None = None,
                  span: tuple[int, int] | None = None, queued: np.ndarray | None = None) -> np.ndarray:
    """The gaps of one device (time order) left out of the verdict as warm-up / tail / one-off (module docstring).

    Args:
        dur, gs, ge: gap durations, starts and ends [ns].
        blocked: per gap, the time the host spent in blocking calls (:data:`BLOCKING_RE`) during it [ns].
        first_kernel: start of the device's first kernel [ns]; last_kernel_end: end of its last kernel [ns].
        first_step: start of the rank's first ``ProfilerStep`` mark [ns], None without one.
        steps: the rank's ``ProfilerStep`` ranges, (starts, ends) sorted by start [ns]; None without any.
        span: the device's first GPU event start and last end [ns]; with it, a blocking interval after set-up work
            only (under :data:`gpulens.analyzers._idle_findings.LEADING_WORK_SHARE` of the busy time before it) is
            leading too, not a counted wait.
        queued: per gap, whether the GPU event ending it was already submitted (its launch call returned before or
            inside the gap: class ``queued``) behind GPU work the trace records; None: none was. A blocked gap whose
            work was queued behind recorded work is the host's wait on that work (a dependency: an event, another
            stream), not set-up: it is never leading by the set-up rule. A queued gap during which no GPU work ran
            anywhere in the trace is not passed as queued (the caller's ``outside``): what it waited for lies
            outside the capture (work enqueued before it began, another process's), so at the capture's start it
            is set-up like any other — SGLang MI300X decode: one 463.30 ms gap, 4.25 µs after the first GPU event
            with no GPU work on any stream or device, made the whole run "dependency-bound" while the 10.45 ms
            after it is 93.5 % busy; it is now reported as a one-off gap and the verdict is the steady state's.

    A size outlier (:func:`boundary_gaps`) is warm-up when it lies before the first kernel (and before the first
    step mark), tail when it lies after the last kernel; between kernels it is a one-off only when it is the only such outlier
    of the rule's first pass (or stands alone, a later pass's: :func:`boundary_passes`), blocking calls cover less than :data:`BLOCKING_COVER_SHARE` of it, and it does not lie inside a
    ``ProfilerStep`` range — a pause within a step is the iteration's own time (the forward→backward hand-over of
    a training step), which the profiled steps are there to measure, not a stall around them. With ``span``, a gap
    under :data:`BOUNDARY_SPAN_SHARE` of it is never left out.
    """
    first, later = boundary_passes(dur)
    out = first | later
    if span is not None:  # a gap too small to move the busy share is not worth leaving out
        out &= np.asarray(dur) >= BOUNDARY_SPAN_SHARE * (span[1] - span[0])
    if not out.any():
        return out
    leading = (ge <= first_kernel) & (True if first_step is None else gs < first_step)
    trailing = gs >= last_kernel_end
    edge = leading | trailing
    inner = out & ~edge
    covered = np.asarray(blocked) >= BLOCKING_COVER_SHARE * dur
    if span is not None:  # a blocking interval after set-up work only is warm-up, as a gap before the first kernel
        setup = covered & before_steady_state(gs, dur, *span) & (True if first_step is None else gs < first_step)
        if queued is not None:
            setup &= ~np.asarray(queued, dtype=bool)
        edge, inner = edge | setup, inner & ~setup
    known = inner & covered  # the host waited on the GPU: counted
    # several long gaps between kernels: a pattern (once per step), not a one-off — of the first pass (a later one
    # stands alone by its rule: boundary_passes)
    recurring = first & ((inner & first).sum() >= 2)
    in_step = np.zeros(len(gs), dtype=bool)
    if steps is not None and len(steps[0]):
        k = np.searchsorted(steps[0], gs, side="right") - 1
        in_step = (k >= 0) & (np.asarray(ge) <= steps[1][np.clip(k, 0, None)])
    return out & (edge | ~(known | recurring | in_step))


def boundary_gaps(dur: np.ndarray) -> np.ndarray:
    """Boolean mask of the gaps (durations in time order, one device) that are warm-up / boundary / one-off gaps
    (rule at :data:`BOUNDARY_FACTOR`): :func:`boundary_passes`, both passes."""
    first, later = boundary_passes(dur)
    return first | later


def boundary_passes(dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two passes of the boundary rule over one device's gaps (durations in time order) [ns]:

    * first: longest first (ties: earlier first), each gap at least :data:`BOUNDARY_FACTOR` × the median of the
      other gaps and at least :data:`BOUNDARY_IDLE_SHARE` of all idle, until one fails;
    * later: then, of the idle those leave, the longest gap left while it holds that share of what is left, is that
      factor × the median of the gaps not left out, and stands alone — the next longest gap under 1/factor of it
      (a gap of a like size beside it makes a pattern, not a one-off). A warm-up gap holding most of the idle hid a
      one-off gap holding 69 % of the rest behind its 15 % of the whole (session 41).

    Only gaps holding a share of the idle can pass, so only the longest few are ordered (no sort of a million gaps
    for the few at the top) — all of them when every one of those passes. Returns (first, later) masks."""
    dur = np.asarray(dur, dtype="int64")
    total = int(dur.sum())
    if dur.size < BOUNDARY_MIN_GAPS or total <= 0:
        return np.zeros(dur.size, dtype=bool), np.zeros(dur.size, dtype=bool)
    top = min(dur.size, 17)
    head = np.argpartition(-dur, top - 1)[:top] if top < dur.size else np.arange(dur.size)
    first, later, spent = _passes(dur, head[np.lexsort((head, -dur[head]))], total)
    if spent and top < dur.size:  # every gap of the head passed but its last: judge them all in order
        first, later, _ = _passes(dur, np.lexsort((np.arange(dur.size), -dur)), total)
    return first, later


def _passes(dur: np.ndarray, order: np.ndarray, total: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """:func:`boundary_passes` over the gaps in ``order`` (longest first); also whether the rule reached the last
    gap of ``order`` (then a longer ``order`` may let more pass)."""
    first, later = np.zeros(dur.size, dtype=bool), np.zeros(dur.size, dtype=bool)
    n = 0
    for i in order:  # first pass: shares of all idle, the median of every other gap
        if not (dur[i] >= BOUNDARY_FACTOR * max(float(np.median(np.delete(dur, i))), 1.0)
                and dur[i] >= BOUNDARY_IDLE_SHARE * total):
            break
        first[i] = True
        n += 1
    if not n or n >= len(order) - 1:
        return first, later, n >= len(order) - 1
    left = total - int(dur[first].sum())
    for j in range(n, len(order) - 1):  # later passes: shares of what is left, each standing alone
        i = order[j]
        rest = ~(first | later)
        rest[i] = False
        if not (rest.any() and dur[i] >= BOUNDARY_FACTOR * max(float(np.median(dur[rest])), 1.0)
                and dur[i] >= BOUNDARY_IDLE_SHARE * left and dur[i] >= BOUNDARY_FACTOR * int(dur[order[j + 1]])):
            return first, later, False
        later[i] = True
        left -= int(dur[i])
    return first, later, True


def short_launches(timeline: Timeline, links: pd.Series | None = None) -> pd.DataFrame:
    """Per launch call with linked kernels: GPU time of its kernels vs the call's own duration.

    ``links`` (optional): as for :func:`classify_gaps`.

    Returns:
        rows ``launch_event_id``, ``rank``, ``device_id``, ``kernels`` (count; > 1 for graph launches),
        ``gpu_ns`` (sum of the kernels' durations), ``call_ns``, ``short`` (gpu_ns < call_ns).
    """
    ctx = context_of(timeline)
    if links is None or links.equals(ctx.links["launch_event_id"]):  # the shared links: computed once per Timeline
        return ctx.memo("short_launches", lambda: _short_launches(timeline, ctx.links["launch_event_id"])
                        ).copy(deep=False)
    return _short_launches(timeline, links)


def _kernel_columns(timeline: Timeline) -> pd.DataFrame:
    """The kernel rows' columns read here (Timeline index kept): no full-width copy of every kernel row; memoised
    (short launches and the per-GPU rows both read it). Do not mutate."""
    ctx = context_of(timeline)
    return ctx.memo("kernel_columns", lambda: ctx.take_rows(
        ctx.mask_of("kernel"), ["rank", "device_id", "dur_ns", "grid_x", "grid_y", "grid_z"]))


def _short_launches(timeline: Timeline, links: pd.Series) -> pd.DataFrame:
    k = _kernel_columns(timeline)
    lid = reindex_sorted(links, k.index)
    k = k.assign(launch_event_id=lid)[lid.notna().to_numpy()]
    if not len(k):
        return pd.DataFrame(columns=["launch_event_id", "rank", "device_id", "kernels", "gpu_ns", "call_ns", "short"])
    if all(k[c].dtype.kind in "iu" for c in ("rank", "device_id", "dur_ns")):
        # plain integer columns (no missing values): the groupby below on integer codes — the first row of each
        # launch call in row order, counts and exact int64 sums (a pandas groupby-agg cost ~0.1 s at 1M kernels)
        ids = k["launch_event_id"].to_numpy("int64")
        uniq, first, inv = unique_ints(ids, return_index=True, return_inverse=True)
        gpu_ns = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(gpu_ns, inv, k["dur_ns"].to_numpy("int64"))
        g = pd.DataFrame({"rank": k["rank"].to_numpy()[first], "device_id": k["device_id"].to_numpy()[first],
                          "kernels": np.bincount(inv, minlength=len(uniq)).astype(np.int64),
                          "gpu_ns": gpu_ns.astype(k["dur_ns"].dtype, copy=False)},
                         index=pd.Index(pd.array(uniq, dtype="Int64"), name="launch_event_id"))
    else:
        g = k.groupby("launch_event_id", observed=True).agg(rank=("rank", "first"), device_id=("device_id", "first"),
                                                            kernels=("dur_ns", "size"), gpu_ns=("dur_ns", "sum"))
    g["call_ns"] = context_of(timeline).event_values("dur_ns", g.index.astype("int64").to_numpy())
    g["short"] = g["gpu_ns"] < g["call_ns"]
    return g.reset_index()
