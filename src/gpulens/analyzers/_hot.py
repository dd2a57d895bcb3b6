"""Helpers shared by the per-kernel analyzers (roofline, occupancy): the hot kernel launches, per-event counters
and the recorded properties of the device a launch ran on."""

from __future__ import annotations

import math

from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult
from gpulens.analyzers.context import category_mask, codes_of, context_of, isin_ints, reindex_sorted, unique_ints
from gpulens.timeline import Timeline
from gpulens.units import agree, pct_words, plural


#: The event columns of :func:`hot_kernels`' rows: what the per-kernel analyzers read (identity, time, placement and
#: launch configuration). The other columns (pid/tid, correlation and external ids, shapes...) are left out: at 1M
#: kernels the full-width frame was the largest single allocation of the roofline and occupancy analyzers.
HOT_COLUMNS: tuple[str, ...] = (
    "event_id", "name", "start_ns", "dur_ns", "rank", "device_id", "stream_id",
    "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
    "regs_per_thread", "smem_static_bytes", "smem_dynamic_bytes",
)


def hot_kernels(timeline: Timeline, results: Mapping[str, AnalysisResult] | None) -> pd.DataFrame:
    """Kernel launches (kind ``kernel``) of the performance-critical set: the :data:`HOT_COLUMNS` of their event
    rows (the Timeline's index kept) and ``time_ns`` (effective duration [ns]).

    The critical set comes from the ``hotspots`` result (``critical`` column); without one, every kernel counts.
    Collectives (``comm``) are left out: they have no roofline or occupancy question of their own. Computed once
    per analysis context and hotspots table (roofline, occupancy and hierarchical roofline share it): do not
    mutate.
    """
    hs = (results or {}).get("hotspots")
    use = hs is not None and not hs.skipped and len(hs.table) and "critical" in hs.table
    ctx = context_of(timeline)
    return ctx.memo(f"hot_kernels:{id(hs.table) if use else None}", lambda: _hot_kernels(ctx, hs if use else None))


def _hot_kernels(ctx: Any, hs: AnalysisResult | None) -> pd.DataFrame:
    # the hot rows taken from the events in one step (not a copy of the kernel rows, then a copy of those): at 1M
    # kernels the full-width kernel frame was a fifth of the analyzers' peak memory
    ev = ctx.timeline.events
    keep = ctx.mask_of("kernel")
    if hs is not None:
        t = hs.table
        names = set(t.loc[t["critical"].to_numpy(dtype=bool) & (t["kind"] == "kernel").to_numpy(dtype=bool),
                          "name"].astype(str))
        keep &= category_mask(ev["name"], names)
    k = ctx.take_rows(keep, HOT_COLUMNS)  # only the columns read: one copy of those, not of the full row width
    if not len(k):
        return k.assign(time_ns=pd.Series(dtype="int64"))
    eff = ctx.effective_ns
    return k.assign(time_ns=reindex_sorted(eff, k.index).to_numpy())


def event_counters(timeline: Timeline, event_ids: Iterable[int], metrics: Iterable[str],
                   counters: pd.DataFrame | None = None) -> pd.DataFrame:
    """Wide table event_id × metric of the Counters rows for ``event_ids`` (first value per pair; NaN if absent).

    ``counters``: the Counters-shaped rows to read instead of ``timeline.counters`` (the untimed dispatches' of
    :func:`gpulens.analyzers._untimed.untimed_kernels`, keyed by their ``dispatch_seq``).

    Index: the event ids that have at least one of ``metrics`` (sorted, named ``event_id``); columns: the metric
    names present (sorted, named ``metric``); values float64 in each metric's base unit. Built from category codes
    and numpy (no per-row strings): what ``counter_rows(...).drop_duplicates().pivot(...)`` gives.
    """
    c = timeline.counters if counters is None else counters
    ids = np.asarray(event_ids if isinstance(event_ids, np.ndarray) else np.fromiter(event_ids, dtype="int64"),
                     dtype="int64")
    keep = category_mask(c["metric"], set(metrics))
    if keep.any() and len(ids):
        eid = c["event_id"].to_numpy()
        keep = isin_ints(eid, ids, where=keep)  # ids in order: a position lookup, not np.isin's sorts
    if not keep.any():
        return pd.DataFrame(index=pd.Index([], name="event_id"))
    rows = np.flatnonzero(keep)
    eid = c["event_id"].to_numpy()[rows]
    met = c["metric"]
    codes = codes_of(met)[rows].astype("int64")
    used, mcol = unique_ints(codes, return_inverse=True)
    names = np.asarray(met.cat.categories.astype(object), dtype=object)[used]
    order = np.argsort(names, kind="stable")  # pivot sorts the metric columns by name
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    mcol = rank[mcol]
    uid, erow = unique_ints(eid, return_inverse=True)
    flat = erow * len(names) + mcol
    _, first = unique_ints(flat, return_index=True)  # first value per (event, metric), as drop_duplicates keeps
    out = np.full(len(uid) * len(names), np.nan)
    out[flat[first]] = c["value"].to_numpy(dtype="float64")[rows][first]
    return pd.DataFrame(out.reshape(len(uid), len(names)), index=pd.Index(uid, name="event_id"),
                        columns=pd.Index(list(names[order]), dtype=object, name="metric"))


def device_record(timeline: Timeline, rank: int, device_id: int) -> dict[str, Any]:
    """The recorded properties of (rank, device_id) from ``meta.devices`` (the first record of that pair; else the
    rank's first device; else the first device).

    The records are indexed once per Timeline: a scan of every record per call was quadratic in the rank count
    (2,000 ranks: 25 s in occupancy alone)."""
    from gpulens.analyzers.context import context_of

    exact, by_rank, first = context_of(timeline).memo("device_records", lambda: _device_index(timeline))
    d = exact.get((rank, device_id)) or by_rank.get(rank) or first
    return dict(d)


def _device_index(timeline: Timeline) -> tuple[dict, dict, dict]:
    """((rank, device_id) → first record, rank → first record, first record) of ``meta.devices``."""
    exact: dict = {}
    by_rank: dict = {}
    devs = [d for d in timeline.meta.devices if isinstance(d, Mapping)]
    for d in devs:
        r = int(d.get("rank", 0) or 0)
        exact.setdefault((r, int(d.get("device_id", 0) or 0)), d)
        by_rank.setdefault(r, d)
    return exact, by_rank, (devs[0] if devs else {})


def weighted_mean(values: pd.Series, weights: pd.Series) -> float | None:
    """Mean of ``values`` weighted by ``weights``, skipping NaN values; None when nothing is left. The sums are
    exact (``math.fsum``), so the figure does not depend on the order of the rows (the trace file's) in its last
    bit."""
    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    w = weights.to_numpy(dtype=float)
    ok = ~np.isnan(v)
    if not ok.any():
        return None
    den = exact_sum(w[ok])
    if den <= 0:
        return float(exact_sum(v[ok]) / int(ok.sum()))
    return float(exact_sum(v[ok] * w[ok]) / den)


def exact_sum(values: np.ndarray) -> float:
    """``math.fsum(values)`` of a float64 array — the correctly rounded exact sum, the same float — by an int64 sum
    when every value is a whole number and the sum cannot overflow (durations in ns as floats: ~20× quicker than
    ``fsum`` at a million values; ``float`` of the exact integer sum rounds as ``fsum`` does, half to even), other
    finite values of a large array by :func:`_exact_float_sum`; small arrays and the rest go to ``math.fsum``."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) >= 4096 and np.isfinite(x).all():
        big = float(np.abs(x).max())
        if big * len(x) < 2.0 ** 62 and bool((x == np.trunc(x)).all()):
            return float(int(x.astype(np.int64).sum()))
        if big < 2.0 ** 990 and len(x) < 2 ** 26:
            s = _exact_float_sum(x)
            if s is not None:
                return s
    return math.fsum(x)


def _exact_float_sum(x: np.ndarray) -> float | None:
    """``math.fsum(x)`` of finite float64 values (fewer than 2^26, each below 2^990), vectorised: each value is
    ``M · 2^(e − 53)`` with ``M`` a 53-bit integer (``np.frexp``); the ``M`` of each exponent are summed exactly as
    two 26/27-bit halves (float64 sums that stay below 2^53), the per-exponent sums shifted together as one Python
    integer, and that scaled by a power of two with Python's correctly rounded integer division (round half to
    even, as ``fsum`` rounds). About twice as quick as ``fsum`` on a million values. None when every value is 0
    (``fsum`` decides the zero's sign)."""
    m, e = np.frexp(x)
    big = (m * 2.0 ** 53).astype(np.int64)  # exact: a double's significand is 53 bits
    nz = big != 0
    if not nz.any():
        return None
    big, e = big[nz], e[nz]
    e0 = int(e.min())
    d = (e - e0).astype(np.intp)
    hi = np.bincount(d, weights=(big >> 26).astype(np.float64))  # |hi| < 2^27: sums of < 2^26 of them < 2^53
    lo = np.bincount(d, weights=(big & ((1 << 26) - 1)).astype(np.float64))
    total = 0
    for k in np.flatnonzero((hi != 0) | (lo != 0)).tolist():
        total += ((int(hi[k]) << 26) + int(lo[k])) << k
    shift = e0 - 53
    return float(total << shift) if shift >= 0 else total / (1 << -shift)


def short_name(name: str, width: int = 60) -> str:
    """``name`` cut to ``width`` characters with an ellipsis (for finding titles)."""
    return name if len(name) <= width else name[: width - 1] + "…"


def untimed_reason(timeline: Timeline, results: Mapping[str, AnalysisResult] | None) -> str | None:
    """Why a Timeline without kernel events still has no launch to analyse when its kernels are known otherwise —
    from a per-kernel summary (``results.stats.csv``, nsys / rocprofv3 stats: calls and total time) or from counter
    rows without timestamps (:mod:`gpulens.analyzers._untimed`): "no kernel launch recorded as an event: the input's
    1,012 kernel launches are known only from …"; None when no kernel is known at all."""
    hs = (results or {}).get("hotspots")
    n = int((hs.summary.get("kernel_count") or 0) if hs is not None else 0)
    uc = timeline.tables.get("unattached_counters")
    counted = uc is not None and len(uc) > 0
    summary = bool(hs is not None and hs.summary.get("from_summary")) or any(
        t in timeline.tables and len(timeline.tables[t]) for t in ("kernel_summary", "rocprof_stats"))
    if not (summary or counted):  # its kernels are events (all collectives, say): not a question of timing
        return None
    what = " and ".join(w for w, on in (("a per-kernel summary (calls and total time)", summary),
                                         ("counter rows without timestamps", counted)) if on)
    return (f"no kernel launch recorded as an event: the input's {plural(n, 'kernel launch(es)')} {agree(n, 'is', 'are')} known only from "
            if n else "no kernel launch recorded as an event: the kernels are known only from ") + what


def no_hot_kernels_reason(timeline: Timeline, results: Mapping[str, AnalysisResult] | None) -> str:
    """Why :func:`hot_kernels` is empty: no compute kernel at all; kernels known only from a per-kernel summary or
    counter rows without timestamps (:func:`untimed_reason` — never "no compute kernels" beside a report that lists
    their launches); or a performance-critical set made only of collectives/copies (e.g. an NCCL kernel holding
    94 % of kernel time) — then per-kernel roofline/occupancy questions do not apply to what dominates."""
    from gpulens.analyzers.context import context_of

    if not context_of(timeline).mask_of("kernel").any():  # a mask: no kernel frame built just to count it
        return untimed_reason(timeline, results) or "no compute kernels in the trace"
    hs = (results or {}).get("hotspots")
    if hs is not None and not hs.skipped and len(hs.table) and "critical" in hs.table:
        crit = hs.table[hs.table["critical"]]
        kinds = ", ".join(sorted({str(k) for k in crit["kind"]}))
        share = float(crit["share"].sum()) if "share" in crit else None
        return (f"the performance-critical set holds no compute kernel (only {kinds}"
                + (f", {pct_words(100 * share)} of kernel time" if share is not None else "") + ")")
    return "no compute kernels in the trace"
