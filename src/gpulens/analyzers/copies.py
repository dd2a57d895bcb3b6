"""Copies and fills: per rank and copy kind (HtoD, DtoH, DtoD, PtoP, …) and for memory sets — count, bytes, time
and achieved bandwidth.

Sizes the source did not record stay unknown: ``bytes`` sums the known sizes only, ``sizes_unknown`` counts the
others (the summary's ``copy_sizes`` / ``fill_sizes`` say "n of m sizes unknown"), and ``bytes`` is <NA> when no
size is known — never 0. Achieved bandwidth = known bytes / time of those same events, over events of non-zero
duration (a 0 ns copy has no bandwidth); <NA> when there is no such event, and <NA> above :data:`MAX_BANDWIDTH` (no
memory or link moves that much: a size or a duration the source got wrong, never a figure shown). Times are
overrun-clipped durations (as every analyzer). Copies whose direction is not recorded are of kind ``unknown``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._span import counter_only_reason
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.timeline import Timeline

#: Bytes per second no copy or fill reaches, 100 TB/s: over 10x the fastest GPU memory (B200 HBM3e, 8 TB/s per the
#: NVIDIA datasheet) and 50x an NVLink 5 GPU's 1.8 TB/s. A higher figure comes from a wrong size or duration.
MAX_BANDWIDTH = 1e14

COLUMNS = {
    "rank": "distributed rank [id]",
    "operation": "copy or fill (memset) [text]",
    "copy_kind": "direction of the copy (HtoD, DtoH, DtoD, PtoP, …; unknown when not recorded; fill for sets) [text]",
    "count": "events [count]",
    "bytes": "summed size of the events whose size is recorded; unknown when none is [bytes]",
    "sizes_unknown": "events whose size is not recorded [count]",
    "time_ns": "summed GPU time [ns]",
    "bandwidth": "known bytes / time of those events (non-zero durations only) [B/s]",
}
SUMMARY = {
    "copies": "memory copies [count]",
    "copy_bytes": "summed recorded size of the copies [bytes]",
    "copy_sizes_unknown": "copies of unknown size [count]",
    "copy_sizes": "how many copy sizes are unknown, as text [text]",
    "copy_time_ns": "GPU time in copies [ns]",
    "fills": "memory sets [count]",
    "fill_bytes": "summed recorded size of the sets [bytes]",
    "fill_sizes_unknown": "sets of unknown size [count]",
    "fill_sizes": "how many set sizes are unknown, as text [text]",
    "fill_time_ns": "GPU time in sets [ns]",
}


def _sizes_text(unknown: int, total: int) -> str:
    return "all sizes known" if not unknown else f"{unknown:,} of {total:,} sizes unknown"


def _bytes_total(total: float) -> int | None:
    """A sum of byte counts as an int, or None (unknown) when it is beyond int64: each size was a valid int64, but
    sizes of 2^62 bytes add up past 2^63 — no copy moves exabytes, and the sum is no figure to show."""
    return int(total) if np.isfinite(total) and abs(total) < 2.0**63 else None


class Copies(Analyzer):
    """Copies and fills per kind (see module docstring); skipped when the trace has neither."""

    name = "copies"
    order = 34

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        from gpulens.analyzers.context import context_of

        ctx = context_of(timeline)
        gpu = ctx.gpu
        mask = gpu["kind"].isin(["memcpy", "memset"]).to_numpy()
        if not mask.any():
            # a per-kernel summary or a counter replay (nsys stats, ncu, rocprof counters) records no copy: their
            # absence there is unknown, not "no copies" (T08's memory-operation table is not read as GPU events)
            why = counter_only_reason(timeline)
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=("copies and fills unknown: the input is a per-kernel summary or "
                                                  "a counter replay, which records kernels only" if why
                                                  else "no memory copies or sets in the trace"),
                                  summary_columns=SUMMARY)
        g = gpu[mask]
        fill = (g["kind"] == "memset").to_numpy()
        ck = g["copy_kind"].astype(object).where(g["copy_kind"].notna(), "unknown").to_numpy()
        d = pd.DataFrame({"rank": g["rank"].to_numpy(), "operation": np.where(fill, "fill", "copy"),
                          "copy_kind": np.where(fill, "fill", ck), "time": ctx.effective_ns[mask].to_numpy(),
                          "bytes": g["bytes"].to_numpy(dtype="float64", na_value=np.nan)})
        d["known"] = ~np.isnan(d["bytes"])
        d["bw_bytes"] = np.where(d["known"] & (d["time"] > 0), d["bytes"], 0.0)
        d["bw_time"] = np.where(d["known"] & (d["time"] > 0), d["time"], 0)
        t = d.groupby(["rank", "operation", "copy_kind"], sort=True).agg(
            count=("time", "size"), known=("known", "sum"), bytes=("bytes", "sum"), time_ns=("time", "sum"),
            bw_bytes=("bw_bytes", "sum"), bw_time=("bw_time", "sum")).reset_index()
        t["sizes_unknown"] = (t["count"] - t["known"]).astype("int64")
        t["bytes"] = pd.array([_bytes_total(b) if k else pd.NA for b, k in zip(t["bytes"], t["known"])],
                              dtype="Int64")
        # the table's count beside sizes_unknown says it (a text column "3153 of 3153 sizes unknown" repeated them)
        bw = np.where(t["bw_time"] > 0, t["bw_bytes"] * 1e9 / t["bw_time"].clip(lower=1), np.nan)
        t["bandwidth"] = np.where(bw <= MAX_BANDWIDTH, bw, np.nan)
        t = t.sort_values(["rank", "operation", "time_ns"], ascending=[True, True, False], kind="stable")
        table = t[list(COLUMNS)].reset_index(drop=True)
        summary: dict[str, Any] = {}
        for op, key in (("copy", "copy"), ("fill", "fill")):
            part = d[d["operation"] == op]
            n_known = int(part["known"].sum())
            summary[f"{key}s" if key == "fill" else "copies"] = int(len(part))
            summary[f"{key}_bytes"] = _bytes_total(part["bytes"].sum()) if n_known else None
            summary[f"{key}_sizes_unknown"] = int(len(part) - n_known)
            summary[f"{key}_sizes"] = _sizes_text(int(len(part) - n_known), int(len(part)))
            summary[f"{key}_time_ns"] = int(part["time"].sum())
        return AnalysisResult(self.name, table, COLUMNS, summary, summary_columns=SUMMARY)
