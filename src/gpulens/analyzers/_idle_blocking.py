"""The blocking runtime calls behind GPU idle time: which synchronisations and synchronous copies held the host while
the GPU sat idle (the ``sync`` part of the idle gaps), or waited on work the GPU already held (the ``queued`` gaps),
and the stream waits enqueued in those gaps — named in the ``bottlenecks`` findings
(:mod:`gpulens.analyzers._idle_findings`). Nothing is measured here but which host calls overlap the given gaps.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._gap_codes import GAP_CLASSES, gap_class_codes, gap_class_mask
from gpulens.analyzers.context import category_mask, context_of, strings, text_series
from gpulens.timeline import Timeline
from gpulens.units import agree, fmt_ns, plural


def blocking_calls_in_idle(timeline: Timeline, gaps: pd.DataFrame, calls: pd.DataFrame, n: int = 3,
                           max_gaps: int = 200, cls: str | None = None) -> list[dict[str, Any]]:
    """The blocking calls (``calls``: :func:`gpulens.analyzers.bottlenecks.sync_calls`) that held the host while the
    GPU sat idle: per call name, ``overlap_ns`` (its time inside the ``sync`` part of the gaps), ``calls`` (count),
    ``copy`` (a synchronous copy rather than a synchronisation) and ``op`` (the innermost CPU operator around its
    longest call, None when none is recorded). The ``n`` largest; the ``max_gaps`` gaps with the most sync time.
    With ``cls`` (``"queued"``): the calls inside the gaps of that class instead, their time inside the whole gap —
    the host waiting on work the GPU already held (its ``sync`` part is 0 by definition)."""
    from gpulens.analyzers._gap_host_calls import _union_ns
    from gpulens.analyzers.bottlenecks import BLOCKING_COPY_RE

    part = "dur_ns" if cls else "sync_ns"
    g = gaps[gap_class_mask(gaps, cls) if cls else (gaps["sync_ns"].to_numpy() > 0)] if len(gaps) else gaps
    if not len(g) or not len(calls):
        return []
    g = g.nlargest(max_gaps, part)
    c_rank = calls["rank"].to_numpy()
    c_s = calls["start_ns"].to_numpy("int64")
    c_e = c_s + calls["dur_ns"].to_numpy("int64")
    names = text_series(calls["name"]).to_numpy(dtype=object)
    per: dict[str, dict[str, Any]] = {}
    for r, s, d, sync in zip(g["rank"].tolist(), g["start_ns"].tolist(), g["dur_ns"].tolist(), g[part].tolist()):
        lo, hi = np.maximum(c_s, s), np.minimum(c_e, s + d)
        in_gap: dict[str, list] = {}
        for i in np.flatnonzero((c_rank == r) & (hi > lo)):
            x = per.setdefault(str(names[i]), {"overlap_ns": 0, "ids": set(), "best": (0, i)})
            x["ids"].add(int(i))
            x["best"] = max(x["best"], (int(hi[i] - lo[i]), int(i)))
            in_gap.setdefault(str(names[i]), []).append((r, int(lo[i]), int(hi[i])))
        for name, parts in in_gap.items():
            # calls on two threads at once hold the host once, and no more than the gap's sync part
            per[name]["overlap_ns"] += min(_union_ns(parts), int(sync))
    top = sorted(per.items(), key=lambda kv: -kv[1]["overlap_ns"])[:n]
    ops = context_of(timeline).of_kind("cpu_op")
    out = []
    for name, x in top:
        i = x["best"][1]
        op = None
        if len(ops):
            o_s = ops["start_ns"].to_numpy("int64")
            o_e = o_s + ops["dur_ns"].to_numpy("int64")
            inside = (ops["rank"].to_numpy() == c_rank[i]) & (o_s <= c_s[i]) & (o_e >= c_e[i])
            if "tid" in ops and "tid" in calls:
                inside &= (ops["tid"].to_numpy() == calls["tid"].to_numpy()[i])
            if inside.any():
                j = np.flatnonzero(inside)
                op = str(text_series(ops["name"].iloc[[j[np.argmin((o_e - o_s)[j])]]]).iloc[0])
        out.append({"name": name, "overlap_ns": x["overlap_ns"], "calls": len(x["ids"]),
                    "copy": bool(BLOCKING_COPY_RE.match(name)), "op": op, "longest_ns": x["best"][0]})
    return out


def longest_text(row: dict[str, Any]) -> str:
    """The clause naming one call that holds most of a row's ``overlap_ns`` over its ``calls`` (``longest_ns``:
    that call's time inside the gaps [ns]): ``" (one call: 732.66 ms)"``; "" under 3 calls or when no call holds at
    least :data:`ONE_GAP_SHARE` of it."""
    n, total, big = int(row.get("calls") or 0), int(row.get("overlap_ns") or 0), int(row.get("longest_ns") or 0)
    if n < 3 or not total or big < ONE_GAP_SHARE * total:
        return ""
    return f" (one call: {fmt_ns(big)})"


def blocking_text(rows: list[dict[str, Any]]) -> str:
    """``"hipMemcpyWithStream (a synchronous copy, inside aten::copy_) 463.02 ms in 1 call"`` for the largest
    blocking calls of :func:`blocking_calls_in_idle`."""
    parts = []
    for r in rows:
        what = "a synchronous copy" if r["copy"] else "a synchronisation"
        inside = f", inside {r['op']}" if r.get("op") else ""
        parts.append(f"{r['name']} ({what}{inside}) {fmt_ns(r['overlap_ns'])} in {r['calls']:,} "
                     f"call{'s' if r['calls'] != 1 else ''}{longest_text(r)}")
    return "; ".join(parts)


#: Runtime calls that enqueue a wait on the GPU queue (an event or a value another stream or process sets): a gap
#: whose work waited behind one is a dependency, named in the queued finding.
STREAM_WAIT_RE = re.compile(r"StreamWait(?:Event|Value)|WaitExternalSemaphore", re.IGNORECASE)


def queued_wait_text(blocking: list[dict[str, Any]], waits: list[dict[str, Any]]) -> str:
    """What the queued idle gaps show of their dependency, "" when nothing: the blocking calls in which the host
    waited on the queued work (``blocking``: :func:`blocking_calls_in_idle` with ``cls="queued"``) and the stream
    waits enqueued in those gaps (``waits``: :func:`host_calls_in_gaps` rows matching :data:`STREAM_WAIT_RE`)."""
    from gpulens.analyzers._idle_findings import _calls_text

    parts = []
    if blocking:
        parts.append(f"the host waited on this queued work in {blocking_text(blocking)}")
    if waits:
        parts.append(f"stream waits enqueued in these gaps: {_calls_text(waits)}")
    return "; ".join(parts)


#: From this share of a cause's idle time held by one gap, every "X over N gaps" figure names that gap: a sum over
#: 550 gaps of which one holds 463.30 of 463.58 ms reads as 550 waits, not one.
ONE_GAP_SHARE = 0.5


def largest_gaps(timeline: Timeline, gaps: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per idle cause (``gaps``: :func:`gpulens.analyzers.bottlenecks.classify_gaps`): its largest gap — the cause's
    part of it, ``dur_ns`` [ns] (``dur − sync`` for host / launch / queued / unattributed / boundary, the sync part for
    ``sync``), ``rank``, ``device_id``, ``offset_ns`` (its start after the first GPU event of its device [ns]),
    ``next_name`` (the GPU work that ended it), ``gpu_work_elsewhere`` (whether any GPU work the trace records,
    on any device, ran during it), ``gap_ns`` (the whole gap [ns]) and ``first_gap`` (its device's first gap).
    Causes with no such gap are left out."""
    if not len(gaps):
        return {}
    gpu = context_of(timeline).gpu
    g_rank, g_dev = gpu["rank"].to_numpy(), gpu["device_id"].to_numpy()
    g_start = gpu["start_ns"].to_numpy("int64")
    g_end = g_start + gpu["dur_ns"].fillna(0).to_numpy("int64")
    dur, sync = gaps["dur_ns"].to_numpy("int64"), gaps["sync_ns"].to_numpy("int64")
    # the class codes stored beside the texts (a comparison of a million str objects cost ~30 ms per cause)
    code = gap_class_codes(gaps)
    gap_rank, gap_dev, gap_start = gaps["rank"].to_numpy(), gaps["device_id"].to_numpy(), \
        gaps["start_ns"].to_numpy("int64")
    per_device: dict[tuple[int, int], tuple[int | None, int]] = {}

    def device_firsts(r: int, d: int) -> tuple[int | None, int]:
        """(start of the device's first GPU event or None without one, start of its first gap) [ns], for the few
        devices holding a cause's largest gap only (no groupby of every GPU event)."""
        if (r, d) not in per_device:
            on = (g_rank == r) & (g_dev == d)
            first = int(g_start[on].min()) if on.any() else None
            per_device[(r, d)] = (first, int(gap_start[(gap_rank == r) & (gap_dev == d)].min()))
        return per_device[(r, d)]

    out: dict[str, dict[str, Any]] = {}
    for c in ("host", "launch", "queued", "unattributed", "boundary", "sync"):
        part = sync if c == "sync" else np.where(code == GAP_CLASSES.index(c), dur - sync, 0)
        if not len(part) or part.max() <= 0:
            continue
        i = int(np.argmax(part))
        row = gaps.iloc[i]
        r, d, s = int(row["rank"]), int(row["device_id"]), int(row["start_ns"])
        e = s + int(row["dur_ns"])
        busy = bool(((g_start < e) & (g_end > s)).any())  # a gap of one device: any work is another's
        first_event, first_gap = device_firsts(r, d)
        out[c] = {"dur_ns": int(part[i]), "gap_ns": e - s, "rank": r, "device_id": d,
                  "offset_ns": s - (s if first_event is None else first_event), "next_name": str(row["next_name"]),
                  "gpu_work_elsewhere": busy,
                  "first_gap": bool(s <= first_gap)}
        if c == "queued":
            loads = _module_loads_before_first_launch(timeline, r, s, e, str(row["next_name"]))
            if loads:
                out[c]["module_loading"] = loads
            from gpulens.analyzers._lost_work import lost_in_gap

            lost = lost_in_gap(timeline, r, s, e)
            if lost:
                out[c]["lost_launches"] = lost
    return out


#: Host calls that load a kernel's code: CUDA driver module / library loading (cuModuleLoad*, cuLibraryLoad*, and
#: the look-ups of a lazily loaded function), HIP's module API. With CUDA lazy loading (CUDA_MODULE_LOADING=LAZY,
#: the default since CUDA 12.2) the first launch of a kernel loads its code: the launch call itself runs long.
MODULE_LOAD_RE = re.compile(r"^(?:cu|hip)(?:Module(?:Load|GetFunction)|Library(?:Load|GetKernel|GetModule)|"
                            r"KernelGetFunction)", re.ASCII)


def _module_loads_before_first_launch(timeline: Timeline, rank: int, s: int, e: int, name: str) -> list[str]:
    """The module-loading host calls (:data:`MODULE_LOAD_RE`, or a launch call of
    :data:`gpulens.analyzers._idle_findings.LOADING_LAUNCH_NS` or more) of ``rank`` that ran during the gap
    ``[s, e)`` or the gap's length before it, when the GPU work ending the gap (``name``) is that kernel's first on
    the rank: the gap is the kernel's code being loaded (lazy loading), a one-off start-up cost — their names, the
    longest first; [] otherwise."""
    from gpulens.analyzers._idle_findings import LOADING_LAUNCH_NS
    from gpulens.analyzers.launches import LAUNCH_RE

    ctx = context_of(timeline)
    gpu = ctx.gpu
    names = gpu["name"]
    if isinstance(names.dtype, pd.CategoricalDtype):  # the name's category code: no string per GPU event
        same = category_mask(names, (name,))
    else:
        same = text_series(names).to_numpy(dtype=object) == name
    same &= gpu["rank"].to_numpy() == rank
    if not same.any() or int(gpu["start_ns"].to_numpy("int64")[same].min()) < e:
        return []  # not the kernel's first run: no loading
    rt = ctx.of_kind("runtime")
    if not len(rt):
        return []
    st = rt["start_ns"].to_numpy("int64")
    en = st + rt["dur_ns"].to_numpy("int64")
    near = np.flatnonzero((rt["rank"].to_numpy() == rank) & (st < e) & (en > s - (e - s)))
    names = dict(zip(near.tolist(), strings(rt["name"].iloc[near]).tolist()))  # the calls near the gap only
    loads = [(int(en[i] - st[i]), str(names[i])) for i in near.tolist()
             if MODULE_LOAD_RE.match(str(names[i]))
             or (LAUNCH_RE.search(str(names[i])) and en[i] - st[i] >= LOADING_LAUNCH_NS)]
    return [n for _, n in sorted(loads, reverse=True)]


def one_gap_text(big: dict[str, Any] | None, total_ns: int, n: int) -> str:
    """The clause naming a cause's largest gap (``big``: a :func:`largest_gaps` row) after "``total_ns`` over ``n``
    gaps", when it holds at least :data:`ONE_GAP_SHARE` of that time: ``"; one gap holds 463.30 ms of it, 85 µs
    after the first GPU event"``; "" otherwise, and under 3 gaps (of two, one always holds half)."""
    if not big or n < 3 or not total_ns or big["dur_ns"] < ONE_GAP_SHARE * total_ns:
        return ""
    return f"; one gap holds {fmt_ns(big['dur_ns'])} of it, {fmt_ns(big['offset_ns'])} after the first GPU event"


def unrecorded_wait_text(big: dict[str, Any] | None, share_ns: int) -> str:
    """What a queued gap holding most of the queued idle (``big``: :func:`largest_gaps`' ``queued`` row, at least
    :data:`ONE_GAP_SHARE` of ``share_ns``) shows when no GPU work the trace records ran during it, on any stream or
    device: the work the queued launches waited for is not in the trace — a dependency outside the capture (work
    enqueued before it began, another process's, or work the profiler did not record), not a dependency between the
    traced streams. "" otherwise."""
    if not big or big["dur_ns"] < ONE_GAP_SHARE * max(share_ns, 1):
        return ""
    if big.get("lost_launches"):  # enqueued work with no GPU record: most likely what ran in the gap
        n = sum(big["lost_launches"].values())
        calls = ", ".join(f"{k} ×{v}" for k, v in sorted(big["lost_launches"].items()))
        return (f"{plural(n, 'launch call')} with no GPU record ({calls}) {agree(n, 'was', 'were')} issued before "
                f"the {fmt_ns(big['dur_ns'])} gap ended: their work (a graph's kernels the profiler did not record, "
                "most often) most likely ran in it — the GPU was not idle for certain, and the trace shows no "
                "dependency to fix; profile again so that work is recorded (graph kernels traced) before acting on "
                "this gap")
    if big.get("gpu_work_elsewhere", True):
        return ""
    if big.get("module_loading"):  # the first launch of the kernel loading its code: no dependency at all
        calls = list(dict.fromkeys(big["module_loading"]))
        return (f"the {fmt_ns(big['dur_ns'])} gap ends at the first run of {big['next_name'][:80]}, after the host "
                f"loaded its code ({', '.join(calls[:3])}): the GPU waited for the kernel's module to be loaded "
                "(CUDA lazy loading, the default since CUDA 12.2; HIP loads code objects at the first launch too) "
                "— a one-off start-up cost, not a dependency between streams and not steady-state idle; launch "
                "each kernel once before profiling, or set CUDA_MODULE_LOADING=EAGER")
    return (f"no GPU work the trace records ran during the {fmt_ns(big['dur_ns'])} gap, on any stream or device: "
            "what the queued work waited for is not in the trace (work enqueued before the capture began, another "
            "process's, or work the profiler did not record) — a dependency outside the capture, not one between "
            "the traced streams")
