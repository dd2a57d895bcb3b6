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

from gpulens.analyzers.context import context_of, text_series
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns


def blocking_calls_in_idle(timeline: Timeline, gaps: pd.DataFrame, calls: pd.DataFrame, n: int = 3,
                           max_gaps: int = 200, cls: str | None = None) -> list[dict[str, Any]]:
    """The blocking calls (``calls``: :func:`gpulens.analyzers.bottlenecks.sync_calls`) that held the host while the
    GPU sat idle: per call name, ``overlap_ns`` (its time inside the ``sync`` part of the gaps), ``calls`` (count),
    ``copy`` (a synchronous copy rather than a synchronisation) and ``op`` (the innermost CPU operator around its
    longest call, None when none is recorded). The ``n`` largest; the ``max_gaps`` gaps with the most sync time.
    With ``cls`` (``"queued"``): the calls inside the gaps of that class instead, their time inside the whole gap —
    the host waiting on work the GPU already held (its ``sync`` part is 0 by definition)."""
    from gpulens.analyzers._idle_findings import _union_ns
    from gpulens.analyzers.bottlenecks import BLOCKING_COPY_RE

    part = "dur_ns" if cls else "sync_ns"
    g = gaps[(gaps["cls"].to_numpy() == cls) if cls else (gaps["sync_ns"].to_numpy() > 0)] if len(gaps) else gaps
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
                    "copy": bool(BLOCKING_COPY_RE.match(name)), "op": op})
    return out


def blocking_text(rows: list[dict[str, Any]]) -> str:
    """``"hipMemcpyWithStream (a synchronous copy, inside aten::copy_) 463.02 ms in 1 call"`` for the largest
    blocking calls of :func:`blocking_calls_in_idle`."""
    parts = []
    for r in rows:
        what = "a synchronous copy" if r["copy"] else "a synchronisation"
        inside = f", inside {r['op']}" if r.get("op") else ""
        parts.append(f"{r['name']} ({what}{inside}) {fmt_ns(r['overlap_ns'])} in {r['calls']:,} "
                     f"call{'s' if r['calls'] != 1 else ''}")
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
