"""Breakdown: per rank and device, where the GPU's wall time went — computation, exposed communication,
exposed memcpy/memset, idle — with overlap counted once.

Definitions (per rank × device; all ns; intervals are unions across streams):

GPU events are first repaired so that each stream is serial (an event that overruns the start of the next one on
its stream is clipped, see :func:`~gpulens.analyzers.intervals.repair_stream_overruns`).

* ``span_ns`` — first GPU event start to last GPU event end;
* ``busy_ns`` — union of all GPU events; ``kernel_busy_ns`` — union of kernel + comm events;
* ``computation_ns`` — union of compute kernels;
* ``exposed_comm_ns`` — communication time not overlapped by computation;
* ``exposed_memcpy_ns`` / ``exposed_memset_ns`` — copy / set time overlapped by neither of the above;
* ``idle_ns`` — ``span_ns − busy_ns``. So computation + exposed comm + exposed memcpy + exposed memset + idle = span.

Clock domains (:func:`gpulens.analyzers._span.clock_windows`): a GPU whose events lie on two time bases (a gap of
:data:`~gpulens.analyzers._span.CLOCK_GAP_NS` or more) has the jump left out of its span; an exposed part whose
events share no clock domain with the work that could hide them (e.g. copies on one clock, kernels on another) is
unknown (``<NA>``; summary ``None``, ``overlap_unknown`` says which), never the copies' whole time. Its idle is
measured inside each domain, but a domain's gaps may hold the GPU's work written on the other clock
(:func:`~gpulens.analyzers._span.other_clock_idle`, ``idle_other_clock_ns``): ``idle_ns`` is then an upper bound,
said so in ``idle_bound`` ("at most …, up to … of it may be GPU work on another clock"), the idle finding has no
time at stake and no verdict rests on it (docs/bottlenecks.md "Clock domains").

Run figures (summary): span, busy %, the profiled window and utilisation follow the one definition of
:mod:`gpulens.analyzers._span` — the wall span is never a sum of spans, busy % is the device-time ratio
Σ busy / Σ per-device span (never above 100 %), ``window_ns`` / ``trace_span_ns`` is the profiled window (host events
included) and ``gpu_utilization_pct`` = Σ busy / Σ window. The ``*_ns`` parts (busy, computation, idle...) are
device-time sums over the GPUs, so computation + exposed parts + idle = ``device_span_ns``.

This follows the GPU-timeline split of TraceLens / HTA ("temporal breakdown"), checked against TraceLens' own CSVs.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.analyzers import _advice
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers._span import (CLOCK_GAP_NS, CLOCK_GAP_TOPIC, CLOCK_SKEW_TOPIC, IDLE_BOUND_CLOCKS,
                                     IDLE_BOUND_UNTIMED, OVERLAP_UNKNOWN_CLOCKS, clock_domain_of, clock_windows, counter_only_reason,
                                     cross_domain_gaps, hulls_of, no_timeline_reason, other_clock_idle, run_figures,
                                     unplaced_clock_files, wall_span, warn_once)
from gpulens.analyzers.context import codes_of, context_of
from gpulens.analyzers.intervals import union_of
from gpulens.timeline import GPU_KINDS, Timeline
from gpulens.units import fmt_ns, plural, share_pct_text

COLUMNS = {
    "rank": "distributed rank",
    "device_id": "GPU index",
    "span_ns": "first GPU event start → last GPU event end [ns]",
    "busy_ns": "union of all GPU events [ns]",
    "kernel_busy_ns": "union of kernel and collective events [ns]",
    "computation_ns": "union of compute kernels [ns]",
    "comm_ns": "union of collective kernels [ns]",
    "exposed_comm_ns": "collective time not overlapped by computation [ns]",
    "exposed_memcpy_ns": "copy time overlapped by neither computation nor collectives [ns]",
    "exposed_memset_ns": "memset time overlapped by no other GPU work [ns]",
    "idle_ns": "span_ns − busy_ns [ns]",
    "busy_pct": "busy_ns / span_ns [%]",
    "computation_pct": "computation_ns / span_ns [%]",
    "idle_pct": "idle_ns / span_ns [%]",
    "exposed_comm_pct": "exposed_comm_ns / span_ns [%] (unknown when exposed_comm_ns is)",
    "exposed_memcpy_pct": "exposed_memcpy_ns / span_ns [%] (unknown when exposed_memcpy_ns is)",
    "exposed_memset_pct": "exposed_memset_ns / span_ns [%] (unknown when exposed_memset_ns is)",
    "kernel_count": "kernel + comm events [count]",
    "clock_domain_gap_ns": "gaps of a day or more between this GPU's events (two time bases), left out of span_ns "
                           "[ns]",
    "idle_other_clock_ns": "part of idle_ns that may be this GPU's work written on another clock (its events on "
                           "several time bases; 0 on one clock): idle_ns is then at most, not measured [ns]",
    "idle_untimed_ns": "part of idle_ns that GPU work of this rank recorded without a usable start or end may fill (all "
                       "of it: where that work ran is not known; 0 when none): idle_ns is then at most, busy_ns at "
                       "least [ns]",
    "window_ns": "profiled window of the rank: first → last valid event, host included [ns]",
    "utilization_pct": "busy_ns / window_ns [%]",
}
#: The idle finding (root of the idle-cause findings) is reported from this % of the device span.
IDLE_FINDING_PCT = 5.0
SUMMARY_COLUMNS = {
    "span_ns": "wall GPU span: first → last GPU event on any GPU [ns]; unknown without GPU work (no span)",
    "device_span_ns": "sum of the per-GPU spans (device-time) [ns]; unknown without GPU work",
    "busy_ns": "union of GPU events, summed over GPUs [ns]",
    "busy_pct": "Σ busy / Σ per-GPU span [%]",
    "idle_ns": "device_span_ns − busy_ns [ns]",
    "window_ns": "profiled window: first → last valid event, host included [ns]",
    "gpu_utilization_pct": "Σ busy / Σ profiled window of each GPU's rank [%]",
    "gpu_count": "GPUs with GPU work [count]",
    "span_basis": "wall, or longest rank when the ranks' clocks disagree [text]",
    "clock_skew_ns": "how far the ranks' time bases disagree (0 when they agree) [ns]",
    "span_definition": "how span and busy % are defined [text]",
    "overlap_unknown": "why an exposed part is unknown (events on different clocks); empty when none is [text]",
    "idle_other_clock_ns": "part of idle_ns that may be GPU work written on another clock of the same GPU [ns]",
    "idle_bound": "idle_ns is an upper bound: how much of it may be work on another clock or work recorded without "
                  "a time; empty when measured [text]",
    "idle_untimed_ns": "part of idle_ns that GPU work recorded without a usable start or end may fill [ns]",
    "untimed_gpu_work": "GPU events (kernels, collectives, copies, fills) recorded without a usable time: busy_ns "
                        "and busy_pct are then at least, idle_ns at most [count]",
    "part_pct": "each part of the span (computation_ns, exposed_comm_ns, exposed_memcpy_ns, exposed_memset_ns, "
                "idle_ns; not_in_parts_ns only if they ever fell short) / device_span_ns, unknown when the span is [%]",
    "busy_bound": "'at least' when busy_ns / busy_pct are lower bounds (work recorded without a time started inside "
                  "the span), 'unknown' when busy_pct has no bound (such work's start is not recorded, or outside "
                  "the span: it may lengthen the span), empty when measured [text]",
}

#: The parts of a GPU's span, in the order every reporter shows them: they add up to the span.
SPAN_PARTS = ("computation_ns", "exposed_comm_ns", "exposed_memcpy_ns", "exposed_memset_ns", "idle_ns")
def _pct_of_span(t: pd.DataFrame, col: str) -> pd.Series:
    """Each GPU row's ``col`` as a share of its span [%] (``100 · col / span_ns``; 0 for a GPU of span 0, unknown
    where ``col`` is): the per-GPU ``*_pct`` columns every reporter prints beside a GPU's parts."""
    return (100.0 * t[col] / t["span_ns"]).where(t["span_ns"] > 0, 0.0)


#: ``part_pct``'s key for what the span holds beyond :data:`SPAN_PARTS` (present only when that is ≥ 1 ns: it never
#: is by the breakdown's definition).
REST_KEY = "not_in_parts_ns"


def span_shares(parts: Mapping[str, Any], span_ns: Any, keys: tuple[str, ...] = SPAN_PARTS) -> dict[str, Any]:
    """Each part of ``parts`` named in ``keys`` as a share of ``span_ns`` [%]: ``100 · part / span``, None when the
    part is unknown (None) or the span is 0 or unknown. With the default ``keys`` and every part known, a remainder
    ``span − Σ parts`` of 1 ns or more is added under :data:`REST_KEY`. The one definition of the "share of the span"
    every reporter prints beside a part's time (HTML summary bars, console and Markdown tables)."""
    known = span_ns is not None and span_ns > 0
    out = {k: (100.0 * float(parts[k]) / float(span_ns) if known and parts.get(k) is not None else None)
           for k in keys}
    if keys == SPAN_PARTS and known and all(parts.get(k) is not None for k in keys):
        rest = float(span_ns) - sum(float(parts[k]) for k in keys)
        if abs(rest) >= 1:
            out[REST_KEY] = 100.0 * rest / float(span_ns)
    return out


#: exposed part → (its events' kinds, the kinds that can hide them, the words of the unknown sentence)
_EXPOSED = {"exposed_comm_ns": (("comm",), ("kernel",), ("collectives", "kernels")),
            "exposed_memcpy_ns": (("memcpy",), ("kernel", "comm"), ("copies", "kernels")),
            "exposed_memset_ns": (("memset",), ("kernel", "comm", "memcpy"), ("fills", "other GPU work"))}


def _overlap_unknown(gpu: pd.DataFrame, t: pd.DataFrame) -> dict[str, str]:
    """Blank (``<NA>``, in place) the exposed parts of the GPUs of ``t`` whose events lie on several clocks
    (``clock_domain_gap_ns`` > 0) where some of the part's events share no clock domain with any event that could
    hide them while such events exist on the GPU: their overlap is unknown. Returns part → unknown sentence."""
    why: dict[str, str] = {}
    rows = np.flatnonzero(t["clock_domain_gap_ns"].to_numpy() > 0)
    if not len(rows):
        return why
    kind = gpu["kind"].astype(str).to_numpy()
    for i in rows:
        r, d = t["rank"].iat[i], t["device_id"].iat[i]
        m = ((gpu["rank"] == r) & (gpu["device_id"] == d)).to_numpy()
        st = gpu["start_ns"].to_numpy("int64")[m]
        en = st + gpu["dur_ns"].to_numpy("int64")[m]
        k = kind[m]
        dom = clock_domain_of(st, clock_windows(st, en))
        for col, (own, hiders, words) in _EXPOSED.items():
            mine, hide = np.isin(k, own), np.isin(k, hiders)
            if mine.any() and hide.any() and not np.isin(dom[mine], dom[hide]).all():
                t[col] = t[col].astype("Int64")
                t.loc[t.index[i], col] = pd.NA
                why[col] = OVERLAP_UNKNOWN_CLOCKS.format(a=words[0], b=words[1])
    return why


def _other_clock(gpu: pd.DataFrame, t: pd.DataFrame) -> None:
    """``idle_other_clock_ns`` of each row of ``t`` (in place): :func:`~gpulens.analyzers._span.other_clock_idle` of
    the GPUs whose events lie on several clocks (``clock_domain_gap_ns`` > 0), 0 for the others."""
    out = np.zeros(len(t), dtype="int64")
    for i in np.flatnonzero(t["clock_domain_gap_ns"].to_numpy() > 0):
        m = ((gpu["rank"] == t["rank"].iat[i]) & (gpu["device_id"] == t["device_id"].iat[i])).to_numpy()
        st = gpu["start_ns"].to_numpy("int64")[m]
        out[i] = other_clock_idle(st, st + gpu["dur_ns"].to_numpy("int64")[m])
    t["idle_other_clock_ns"] = out


def _per_rank_note(t: pd.DataFrame, ranks: set[int]) -> str:
    """What :data:`IDLE_BOUND_UNTIMED` adds when a rank of ``ranks`` (those with such work on no recorded GPU) drove
    several GPUs (rows of ``t`` with ``idle_untimed_ns`` > 0): those refused rows record no GPU, so each GPU of the rank
    counts the bound — per rank, not per GPU; '' otherwise."""
    on = t[(t["idle_untimed_ns"].to_numpy() > 0) & t["rank"].isin(ranks).to_numpy()]
    gpus = on.groupby("rank")["device_id"].nunique()
    many = sorted(int(r) for r in gpus[gpus > 1].index)
    if not many:
        return ""
    which = f"rank {many[0]}" if len(many) == 1 else f"ranks {', '.join(map(str, many[:5]))}" + (
        " …" if len(many) > 5 else "")
    return (f" (the GPU it ran on is not recorded, and {which} drove {int(gpus[many].max())} GPUs: each of "
            f"{'its' if len(many) == 1 else 'their'} GPUs counts it — a bound per rank, not per GPU)")


def _on_gpus_note(t: pd.DataFrame, idle: int) -> str:
    """What :data:`IDLE_BOUND_UNTIMED` adds when the work without a usable time may fill the idle of some GPUs only
    (it records which it ran on): how much idle that is and which GPUs; '' when it may fill all of ``idle`` [ns]."""
    part = int(t["idle_untimed_ns"].sum())
    if part >= idle:
        return ""
    on = t[t["idle_untimed_ns"].to_numpy() > 0]
    gpus = ", ".join(f"rank {int(r)} GPU {int(d)}" for r, d in zip(on["rank"], on["device_id"]))
    return (f" — of it, only the {fmt_ns(part)} of idle of the {'GPU' if len(on) == 1 else 'GPUs'} it ran on "
            f"({gpus}); the other GPUs' idle is measured")


def _known_gpu(side: pd.DataFrame, t: pd.DataFrame) -> Any:
    """``side``'s ``device_id`` where it is a (rank, GPU) row of the breakdown ``t``, else <NA>."""
    dev = pd.array(side["device_id"], dtype="Int64") if "device_id" in side else \
        all_missing(len(side))
    have = set(zip(t["rank"].astype("int64").tolist(), t["device_id"].astype("int64").tolist()))
    ok = [not pd.isna(d) and (int(r), int(d)) in have for r, d in zip(side["rank"].tolist(), dev.tolist())]
    return pd.array(np.where(ok, dev, pd.NA), dtype="Int64")


def _untimed(timeline: Timeline, t: pd.DataFrame) -> tuple[int, str | None, set[int]]:
    """``idle_untimed_ns`` of each row of ``t`` (in place): the whole idle of the GPU that GPU work recorded without a
    usable time ran on where the events say which (a runaway event's ``device_id``), else of every GPU of its rank
    (:func:`gpulens.analyzers._unknown_time.gpu_rows_of_unknown_time`: absent, or
    refused as impossible — a negative or unreadable duration; a refused row whose source records no device
    (or one that is none of the rank's GPUs with timed work) may be on each GPU of the rank; and runaway durations with nothing to cut them at,
    :func:`gpulens.analyzers._unknown_time.runaways_without_time`, each on its own GPU), else 0. Returns (how many
    such events, the busy bound: None, "at least" when each has a recorded start inside its rank's GPU span — it then
    only adds busy time, and lengthens the span by no more than it adds — else "unknown", the ranks whose such work
    records no GPU: their bound is per rank)."""
    from gpulens.analyzers._unknown_time import gpu_rows_of_unknown_time, runaways_without_time

    side = gpu_rows_of_unknown_time(timeline)  # absent times and impossible ones (refused): neither is idle
    # the GPU a refused row records counts only where it is one of the rank's GPUs with timed work (a number of
    # another scheme, or a GPU without any timed event, says nothing): else any GPU of its rank may hold it
    side = side.assign(device_id=_known_gpu(side, t))
    away = runaways_without_time(timeline)  # events whose recorded duration is a fault with nothing to cut it at
    if away.any():
        ev = timeline.events
        side = pd.concat([side, pd.DataFrame({"rank": ev["rank"].to_numpy()[away].astype("int64"),
                                              "start_ns": pd.array(ev["start_ns"].to_numpy()[away], dtype="Int64"),
                                              "device_id": pd.array(ev["device_id"].to_numpy()[away],
                                                                    dtype="Int64")})],
                         ignore_index=True)
    t["idle_untimed_ns"] = np.zeros(len(t), dtype="int64")
    if not len(side):
        return 0, None, set()
    ranks = set(side["rank"].astype("int64").tolist())
    no_gpu = set(side.loc[side["device_id"].isna().to_numpy(), "rank"].astype("int64").tolist())
    on_gpu = set(zip(side.loc[side["device_id"].notna().to_numpy(), "rank"].astype("int64").tolist(),
                     side.loc[side["device_id"].notna().to_numpy(), "device_id"].astype("int64").tolist()))
    mine = t["rank"].isin(no_gpu).to_numpy() | np.array([(int(r), int(d)) in on_gpu for r, d in
                                                         zip(t["rank"], t["device_id"])], dtype=bool) \
        | ~t["rank"].isin(ranks).any()
    t["idle_untimed_ns"] = np.where(mine, t["idle_ns"].to_numpy(dtype="int64"), 0)
    ctx = context_of(timeline)
    g = ctx.gpu
    st = g["start_ns"].to_numpy("int64")
    en = st + ctx.effective_ns
    hull = pd.DataFrame({"rank": g["rank"].to_numpy(), "s": st, "e": en}).groupby("rank").agg(s=("s", "min"),
                                                                                              e=("e", "max"))
    start = side["start_ns"]
    # nullable int64, not float64 (256 ns steps at epoch timestamps would move work across the hull's edges)
    lo = side["rank"].map(hull["s"]).astype("Int64")
    hi = side["rank"].map(hull["e"]).astype("Int64")
    start = pd.to_numeric(start, errors="coerce")
    start = start if start.dtype.kind == "f" else start.astype("Int64")
    inside = start.notna().to_numpy() & (start >= lo).fillna(False).to_numpy(dtype=bool) \
        & (start <= hi).fillna(False).to_numpy(dtype=bool)
    return len(side), "at least" if inside.all() else "unknown", no_gpu


def _split(ev: pd.DataFrame) -> dict[str, int]:
    comp = ev[ev["kind"] == "kernel"]
    comm = ev[ev["kind"] == "comm"]
    cpy = ev[ev["kind"] == "memcpy"]
    start = int(ev["start_ns"].min())
    cross = cross_domain_gaps(ev)
    span = int((ev["start_ns"] + ev["dur_ns"]).max()) - start - sum(cross)
    u_comp = union_of(comp)
    u_comp_comm = union_of(pd.concat([comp, comm]))
    u_ccc = union_of(pd.concat([comp, comm, cpy]))
    busy = union_of(ev)
    return {
        "span_ns": span,
        "busy_ns": busy,
        "kernel_busy_ns": u_comp_comm,
        "computation_ns": u_comp,
        "comm_ns": union_of(comm),
        "exposed_comm_ns": u_comp_comm - u_comp,
        "exposed_memcpy_ns": u_ccc - u_comp_comm,
        "exposed_memset_ns": busy - u_ccc,
        "idle_ns": span - busy,
        "kernel_count": int(len(comp) + len(comm)),
        "clock_domain_gap_ns": int(sum(cross)),
    }


def _factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(values, sort=True)``, without the hash pass when every value is the same integer."""
    if len(values) and values.dtype.kind in "iu" and values.min() == values.max():
        return np.zeros(len(values), dtype=np.intp), values[:1]
    return pd.factorize(values, sort=True)


def _split_all(gpu: pd.DataFrame) -> pd.DataFrame:
    """:func:`_split` of every (rank, device_id) group at once, in (rank, device_id) order: unions per group from
    one sort of the events by (group, start) — each union is the merge of a subset of that order (a subset of a
    stable order is the subset's stable order) — so no per-GPU slice (thousands of rank files stay linear) and no
    sort per union."""
    from gpulens.analyzers.intervals import group_order, group_sum, sorted_segments

    rank, dev = gpu["rank"].to_numpy(), gpu["device_id"].to_numpy()
    rc, ru = _factorize(rank)
    dc, du = _factorize(dev)
    if (rc < 0).any() or (dc < 0).any():  # a missing key: pandas' tuple factorisation
        codes, uniq = pd.factorize(pd.MultiIndex.from_arrays([rank, dev]), sort=True)
        pairs = [(int(k[0]), int(k[1])) for k in uniq]
    else:  # (rank, device) in sorted order = (rank code, device code) in sorted order
        codes, uk = pd.factorize(rc.astype("int64") * len(du) + dc, sort=True)
        pairs = [(int(ru[k // len(du)]), int(du[k % len(du)])) for k in uk.tolist()]
    n = len(pairs)
    kind = gpu["kind"]
    cats = list(kind.cat.categories)
    kc = codes_of(kind)

    def is_(k: str) -> np.ndarray:
        return kc == cats.index(k) if k in cats else np.zeros(len(kc), dtype=bool)

    s = gpu["start_ns"].to_numpy("int64")
    e = s + gpu["dur_ns"].to_numpy("int64")
    comp, comm, cpy = is_("kernel"), is_("comm"), is_("memcpy")
    order = group_order(codes, s)
    cs, ss, es = codes.astype("int64")[order], s[order], e[order]

    seg = sorted_segments(cs, ss, es)
    busy = group_sum(seg["group"], seg["end"] - seg["start"], n)

    def union(mask: np.ndarray) -> np.ndarray:
        if mask.all():  # every GPU event (no copies or sets, say): the union of them all
            return busy
        m = mask[order]
        sub = sorted_segments(cs[m], ss[m], es[m])
        return group_sum(sub["group"], sub["end"] - sub["start"], n)

    far = seg["gap_before"] >= CLOCK_GAP_NS
    cross = group_sum(seg["group"][far], seg["gap_before"][far], n)
    heads = np.flatnonzero(seg["gap_before"] < 0)  # each group's first segment: its first start
    first = seg["start"][heads]
    last = np.maximum.reduceat(seg["end"], heads)
    span = last - first - cross
    u_comp, u_cc, u_ccc = union(comp), union(comp | comm), union(comp | comm | cpy)
    return pd.DataFrame({
        "rank": np.array([k[0] for k in pairs], dtype="int64"),
        "device_id": np.array([k[1] for k in pairs], dtype="int64"),
        "span_ns": span, "busy_ns": busy, "kernel_busy_ns": u_cc, "computation_ns": u_comp,
        "comm_ns": union(comm), "exposed_comm_ns": u_cc - u_comp, "exposed_memcpy_ns": u_ccc - u_cc,
        "exposed_memset_ns": busy - u_ccc, "idle_ns": span - busy,
        "kernel_count": np.bincount(codes[comp | comm], minlength=n).astype("int64"),
        "clock_domain_gap_ns": cross,
    })


def _every_event(ctx: Any, ev: pd.DataFrame, gpu: pd.DataFrame) -> dict[str, np.ndarray]:
    """``rank``, ``start_ns``, ``dur_ns`` of the host rows (``AnalysisContext.host_rows``: every kind but ``other``
    and the GPU kinds, less GPU-side ranges) and then the
    GPU rows (``gpu``: their effective durations) — numpy columns, no copy of the events table. The rank hulls read
    from them do not depend on the rows' order: with integer ranks the events are taken in row order, each GPU row's
    duration replaced by its effective one (one copy of the durations instead of gathering and joining three
    columns)."""
    gpos = np.flatnonzero(ctx.mask_of(*GPU_KINDS))
    if ev["rank"].dtype.kind in "iu" and ev["dur_ns"].dtype.kind in "iu" and len(gpos) == len(gpu):
        keep = ~ctx.mask_of("other") & ~ctx.gpu_side_ranges
        dur = ev["dur_ns"].to_numpy().copy()
        dur[gpos] = gpu["dur_ns"].to_numpy()
        cols = {"rank": ev["rank"].to_numpy(), "start_ns": ev["start_ns"].to_numpy(), "dur_ns": dur}
        return cols if keep.all() else {c: v[keep] for c, v in cols.items()}
    host = ctx.host_rows
    return {c: np.concatenate([ev[c].to_numpy()[host], gpu[c].to_numpy()]) for c in ("rank", "start_ns", "dur_ns")}


class Breakdown(Analyzer):
    """Temporal breakdown of GPU time per rank and device (see module docstring)."""

    name = "breakdown"
    order = 20

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        ctx = context_of(timeline)
        gpu = ctx.gpu
        if not len(gpu):  # no GPU span, but the profiled window of the host events is still a measured figure
            ev = timeline.events
            host = ~ctx.mask_of("other", *GPU_KINDS)
            window = 0
            if host.any():
                st = ev["start_ns"].to_numpy()[host].astype("int64", copy=False)
                hulls = hulls_of(ev["rank"].to_numpy()[host], st,
                                 st + ev["dur_ns"].to_numpy()[host].astype("int64", copy=False))
                window = wall_span(hulls)[0]
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  # no GPU work has no GPU span: unknown (None), never a measured "0 ns" — as
                                  # for an input whose device work is not read (report.SourceReport.summary)
                                  {"span_ns": None, "device_span_ns": None, "busy_ns": 0, "gpu_count": 0,
                                   "window_ns": int(window)},
                                  skipped_reason=counter_only_reason(timeline) or "no GPU events in the trace")
        unknown = no_timeline_reason(timeline)  # busy time unknown (not measured): the shared reason
        if unknown:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=unknown)
        gpu = gpu[["rank", "device_id", "kind", "start_ns", "dur_ns"]].assign(dur_ns=ctx.effective_ns)
        ev = timeline.events
        every = _every_event(ctx, ev, gpu)
        st = every["start_ns"].astype("int64", copy=False)
        hulls = hulls_of(every["rank"], st, st + every["dur_ns"].astype("int64", copy=False))
        windows = {r: e - s for r, (s, e) in hulls.items()}
        t = _split_all(gpu)
        t["window_ns"] = [windows[int(r)] for r in t["rank"].tolist()]
        for col, num in (("busy_pct", "busy_ns"), ("computation_pct", "computation_ns"), ("idle_pct", "idle_ns"),
                         *((p.replace("_ns", "_pct"), p) for p in SPAN_PARTS[1:4])):  # each GPU's part shares
            t[col] = _pct_of_span(t, num)
        t["utilization_pct"] = (100.0 * t["busy_ns"] / t["window_ns"]).where(t["window_ns"] > 0, 0.0)
        _other_clock(gpu, t)
        n_untimed, busy_bound, no_gpu = _untimed(timeline, t)
        t = t[list(COLUMNS)]
        unknown_overlap = _overlap_unknown(gpu, t)
        for p in unknown_overlap:  # a part blanked as unknown: its share of the span with it
            t[p.replace("_ns", "_pct")] = _pct_of_span(t, p)
        tot = {c: None if t[c].isna().any() else int(t[c].sum())
               for c in COLUMNS if c.endswith("_ns") and c not in ("span_ns", "window_ns")}
        run = run_figures(t, gpu, None, every_hulls=hulls)
        summary = {**tot, **run, "gpu_count": int(len(t)),
                   "overlap_unknown": "; ".join(unknown_overlap.values()) or None,
                   "idle_bound": IDLE_BOUND_CLOCKS.format(idle=fmt_ns(tot["idle_ns"]),
                                                          other=fmt_ns(tot["idle_other_clock_ns"]))
                   if tot["idle_other_clock_ns"] else
                   IDLE_BOUND_UNTIMED.format(idle=fmt_ns(tot["idle_ns"]), launches=plural(n_untimed, 'GPU '
                                                                                                     'launch(es)'))
                   + _per_rank_note(t, no_gpu) + _on_gpus_note(t, tot["idle_ns"]) if n_untimed else None,
                   "untimed_gpu_work": n_untimed, "busy_bound": busy_bound,
                   "idle_pct": 100.0 * tot["idle_ns"] / run["device_span_ns"] if run["device_span_ns"] else 0.0}
        summary["part_pct"] = span_shares(tot, run["device_span_ns"])  # every reporter's "share of the span"
        if tot["clock_domain_gap_ns"]:
            warn_once(timeline, CLOCK_GAP_TOPIC, f"gaps of {fmt_ns(tot['clock_domain_gap_ns'])} "
                      "between events of one GPU (a day or more: two time bases) are left out of its span, steps and "
                      "critical path; overlap between events on different clocks is unknown")
        if run["clock_skew_ns"]:
            cause = unplaced_clock_files(timeline)
            warn_once(timeline, CLOCK_SKEW_TOPIC, f"their GPU spans are {fmt_ns(run['clock_skew_ns'])} "
                      "further apart than their lengths allow" + (f" — {cause}" if cause else "")
                      + "; the run span is the longest rank's span")
        findings = []
        span = max(run["device_span_ns"], 1)
        bounded = bool(tot["idle_other_clock_ns"]) or bool(n_untimed)
        if summary["idle_pct"] >= IDLE_FINDING_PCT and bounded:
            # idle inside one clock domain that the GPU's work on another clock may fill: not measured — no time at
            # stake (nothing ranks or decides on it), the bound said in the title
            findings.append(Finding(
                f"GPU{'' if len(t) == 1 else 's'} idle at most {share_pct_text(summary['idle_pct'])} of "
                f"{'its span' if len(t) == 1 else 'their summed spans'} ({fmt_ns(tot['idle_ns'])}; "
                + (f"up to {fmt_ns(tot['idle_other_clock_ns'])} of it may be GPU work on another clock)"
                   if tot["idle_other_clock_ns"] else f"{plural(n_untimed, 'GPU launch(es)')} recorded without a "
                   "usable start or end "
                   "may fill any of it)"),
                ("This GPU's events lie on several clocks (time bases). Its idle time is measured inside each clock "
                 "domain, but the work written on the other clock ran somewhere in these gaps — where is not "
                 "recorded — so the idle is an upper bound, not a measurement, and no verdict rests on it. Record "
                 "the run again with one profiler session (one time base) to measure it." if tot["idle_other_clock_ns"]
                 else "Some GPU work was recorded without a usable start or end (the profiler lost its timestamps, or "
                 "recorded a duration far past the rest of the run with no later event to cut it at): it ran "
                 "somewhere in this span, for an unknown time, so the idle is an upper bound, not a measurement, "
                 "and no verdict rests on it."),
                severity="info", category="gpu-idle", time_at_stake_ns=None, key="idle",
                action="Profile again with every GPU activity on one clock to measure the idle time."
                if tot["idle_other_clock_ns"] else "Profile again; a run whose every GPU event has its timestamps "
                "measures the idle time."))
        elif summary["idle_pct"] >= IDLE_FINDING_PCT:
            findings.append(Finding(
                (f"GPU idle {share_pct_text(summary['idle_pct'])} of its span ({fmt_ns(tot['idle_ns'])})"
                 if len(t) == 1 else
                 f"GPUs idle {share_pct_text(summary['idle_pct'])} of their summed spans ({fmt_ns(tot['idle_ns'])} "
                 f"summed over {len(t)} GPUs)"),
                "Between its first and last GPU event the device ran nothing this share of the time: the host is "
                "not keeping it fed (CPU-bound step, synchronisations, data loading), launches are slow, or work "
                "waits on other work. The findings under this one split the idle time by cause.",
                severity="warning" if summary["idle_pct"] > 50 else "info", category="gpu-idle",
                time_at_stake_ns=tot["idle_ns"], key="idle",
                action="Look at the largest idle cause below and remove it."))
        if (tot["exposed_comm_ns"] or 0) > 0.1 * span:
            findings.append(Finding(
                f"Exposed communication: {fmt_ns(tot['exposed_comm_ns'])} not overlapped with compute"
                + ("" if len(t) == 1 else f" (summed over {len(t)} GPUs)"),
                _advice.exposed_comm_detail(_advice.uses_pytorch(timeline), _advice.trains(timeline)),
                severity="warning", category="communication-bound", time_at_stake_ns=tot["exposed_comm_ns"],
                key="exposed-comm"))
        # a large share of the span, or of the GPU's busy time: 55.5 ms of pageable host-to-device copies were 84 %
        # of an idle AlexNet run's GPU work, yet 0.4 % of its 12.9 s span, and got no finding
        busy = max(int(tot.get("busy_ns") or 0), 1)
        if (tot["exposed_memcpy_ns"] or 0) > 0.05 * span or (tot["exposed_memcpy_ns"] or 0) > COPY_BUSY_SHARE * busy:
            findings.append(Finding(
                f"Exposed memory copies: {fmt_ns(tot['exposed_memcpy_ns'])} not overlapped with kernels"
                + ("" if len(t) == 1 else f" (summed over {len(t)} GPUs)")
                + f" ({share_pct_text(100 * tot['exposed_memcpy_ns'] / busy)} of the "
                + ("GPU's busy time)" if len(t) == 1 else "GPUs' summed busy time)"),
                _advice.exposed_copy_detail(_advice.uses_pytorch(timeline), _uvm_copy_share(timeline),
                                            _advice.vendor_of(timeline, device), _pageable_copies(timeline),
                                            device.name if getattr(device, "unified_memory", False) else None),
                severity="warning", category="memcpy-bound", time_at_stake_ns=tot["exposed_memcpy_ns"],
                key="exposed-memcpy"))
        return AnalysisResult(self.name, t, COLUMNS, summary, findings, summary_columns=SUMMARY_COLUMNS)


#: Exposed copies holding more than this share of the GPU's busy time get a finding whatever their share of the span.
COPY_BUSY_SHARE = 0.25


def _pageable_copies(timeline: Timeline) -> tuple[int, int, int] | None:
    """(count, time [ns], bytes) of the copies to or from pageable host memory (Kineto names them "Memcpy DtoH
    (Device -> Pageable)"), when they hold half the copies' time or more; else None."""
    from gpulens.analyzers.bottlenecks import PAGEABLE_COPY_RE

    ev = timeline.events
    cp = ev[ev["kind"] == "memcpy"]
    if not len(cp):
        return None
    page = cp["name"].astype(str).str.contains(PAGEABLE_COPY_RE).to_numpy()
    dur = cp["dur_ns"].astype("float64").clip(lower=0).to_numpy()
    if not page.any() or dur[page].sum() < 0.5 * dur.sum():
        return None
    nbytes = cp["bytes"].astype("float64").to_numpy()[page] if "bytes" in cp else np.zeros(int(page.sum()))
    return int(page.sum()), int(dur[page].sum()), int(np.nansum(nbytes))


def _uvm_copy_share(timeline: Timeline) -> float:
    """Share of the copies' recorded time that is unified-memory page migrations (copy kind ``UVM …``, nsys
    copyKind 11–13); 0.0 when no copy is one."""
    ev = timeline.events
    cp = ev[ev["kind"] == "memcpy"]
    if not len(cp) or "copy_kind" not in cp:
        return 0.0
    dur = cp["dur_ns"].astype("float64").clip(lower=0)
    uvm = cp["copy_kind"].astype(object).astype(str).str.startswith("UVM").to_numpy()
    total = float(dur.sum())
    return float(dur[uvm].sum()) / total if total > 0 else 0.0
