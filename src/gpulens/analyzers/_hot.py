"""Helpers shared by the per-kernel analyzers (roofline, occupancy): the hot kernel launches, per-event counters
and the recorded properties of the device a launch ran on."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult
from gpulens.analyzers.context import category_mask, context_of
from gpulens.timeline import Timeline


def hot_kernels(timeline: Timeline, results: Mapping[str, AnalysisResult] | None) -> pd.DataFrame:
    """Kernel launches (kind ``kernel``) of the performance-critical set, with ``time_ns`` (effective duration).

    The critical set comes from the ``hotspots`` result (``critical`` column); without one, every kernel counts.
    Collectives (``comm``) are left out: they have no roofline or occupancy question of their own.
    """
    k = context_of(timeline).kernels
    hs = (results or {}).get("hotspots")
    if hs is not None and not hs.skipped and len(hs.table) and "critical" in hs.table:
        names = set(hs.table.loc[hs.table["critical"] & (hs.table["kind"] == "kernel"), "name"].astype(str))
        k = k[category_mask(k["name"], names)]
    if not len(k):
        return k.assign(time_ns=pd.Series(dtype="int64"))
    eff = context_of(timeline).effective_ns
    return k.assign(time_ns=eff.reindex(k.index).to_numpy())


def event_counters(timeline: Timeline, event_ids: Iterable[int], metrics: Iterable[str]) -> pd.DataFrame:
    """Wide table event_id × metric of the Counters rows for ``event_ids`` (first value per pair; NaN if absent)."""
    sub = context_of(timeline).counter_rows(set(metrics), np.fromiter(event_ids, dtype="int64"))
    if not len(sub):
        return pd.DataFrame(index=pd.Index([], name="event_id"))
    sub = sub.drop_duplicates(["event_id", "metric"])
    return sub.pivot(index="event_id", columns="metric", values="value")


def device_record(timeline: Timeline, rank: int, device_id: int) -> dict[str, Any]:
    """The recorded properties of (rank, device_id) from ``meta.devices`` (falls back to the first device)."""
    devs = [d for d in timeline.meta.devices if isinstance(d, Mapping)]
    for d in devs:
        if int(d.get("rank", 0) or 0) == rank and int(d.get("device_id", 0) or 0) == device_id:
            return dict(d)
    same_rank = [d for d in devs if int(d.get("rank", 0) or 0) == rank]
    return dict((same_rank or devs or [{}])[0])


def weighted_mean(values: pd.Series, weights: pd.Series) -> float | None:
    """Mean of ``values`` weighted by ``weights``, skipping NaN values; None when nothing is left."""
    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    w = weights.to_numpy(dtype=float)
    ok = ~np.isnan(v)
    if not ok.any():
        return None
    if w[ok].sum() <= 0:
        return float(v[ok].mean())
    return float((v[ok] * w[ok]).sum() / w[ok].sum())


def short_name(name: str, width: int = 60) -> str:
    """``name`` cut to ``width`` characters with an ellipsis (for finding titles)."""
    return name if len(name) <= width else name[: width - 1] + "…"


def no_hot_kernels_reason(timeline: Timeline, results: Mapping[str, AnalysisResult] | None) -> str:
    """Why :func:`hot_kernels` is empty: no compute kernel at all, or a performance-critical set made only of
    collectives/copies (e.g. an NCCL kernel holding 94 % of kernel time) — then per-kernel roofline/occupancy
    questions do not apply to what dominates."""
    from gpulens.analyzers.context import context_of

    if not len(context_of(timeline).kernels):
        return "no compute kernels in the trace"
    hs = (results or {}).get("hotspots")
    if hs is not None and not hs.skipped and len(hs.table) and "critical" in hs.table:
        crit = hs.table[hs.table["critical"]]
        kinds = ", ".join(sorted({str(k) for k in crit["kind"]}))
        share = float(crit["share"].sum()) if "share" in crit else None
        return (f"the performance-critical set holds no compute kernel (only {kinds}"
                + (f", {100 * share:.0f} % of kernel time" if share is not None else "") + ")")
    return "no compute kernels in the trace"
