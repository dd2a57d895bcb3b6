"""Hierarchical roofline from counters: per kernel, one point per memory level (DRAM/HBM, L2, L1/vL1D,
shared/LDS) — the same FLOPs over that level's bytes — against that level's bandwidth roof, as Nsight Compute's
hierarchical roofline chart and rocprof-compute's empirical roofline draw them.

Roofs: *measured* ones where the input has them (rocprof-compute ``roofline.csv``: HBMBw, L2Bw, L1Bw, LDSBw and the
FLOP roofs), else the device spec's DRAM bandwidth and peak FLOP/s (datasheet); a level without a known roof keeps
its point with roof "unknown". FLOPs and bytes come from :mod:`gpulens.analyzers._hier_metrics`.

Per point: arithmetic intensity = FLOPs / bytes of the level; attainable = min(peak FLOP/s, AI × level bandwidth);
``pct_of_attainable`` = achieved FLOP/s / attainable; ``side`` = memory when AI is left of that level's ridge
(peak / bandwidth), else compute.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers import _hier_metrics as H
from gpulens.analyzers._flop_coverage import lower_bound_words
from gpulens.analyzers._hot import device_record, hot_kernels, no_hot_kernels_reason
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of, text_series
from gpulens.analyzers.roofline import ABOVE_ROOF_PCT, at_most_roof
from gpulens.timeline import Timeline
from gpulens.units import plural

COLUMNS = {
    "name": "kernel name as recorded [text]",
    "level": "memory level: dram (HBM), l2, l1 (vL1D), shared (LDS) [text]",
    "calls": "launches with both a FLOP count and this level's bytes [count]",
    "time_ns": "summed duration of those launches [ns]",
    "flops": "floating-point operations of those launches [FLOP]",
    "bytes": "bytes moved at this level by those launches [bytes]",
    "arithmetic_intensity": "FLOPs / bytes at this level [FLOP/B]",
    "achieved_flops": "FLOPs / time [FLOP/s]",
    "achieved_bandwidth": "bytes / time at this level [B/s]",
    "roof_bandwidth": "this level's bandwidth roof [B/s]",
    "peak_flops": "compute roof used [FLOP/s]",
    "roof_source": "measured (roofline.csv) or spec (datasheet), per roof [text]",
    "attainable_flops": "min(peak, AI × level bandwidth) [FLOP/s]",
    "pct_of_attainable": "achieved / attainable [%]",
    "side": "memory (AI left of the level's ridge) or compute [text]",
    "flops_lower_bound": "the FLOP counters of the vendor's formula not collected: "
                         "flops, AI, achieved FLOP/s and a compute-side % of attainable are lower bounds over the "
                         "collected ones, and a memory side holds only if the uncounted precisions did no work; empty "
                         "when all were [note]",
}
_MEASURED_BW = {"dram": "HBMBw", "l2": "L2Bw", "l1": "L1Bw", "shared": "LDSBw"}
_MEASURED_FLOPS = ("MFMABF16Flops", "MFMAF16Flops", "MFMAF32Flops", "MFMAF64Flops", "FP32Flops", "FP64Flops")


def not_placed_text(unplaced: dict[str, str]) -> str:
    """The kernels whose per-level bytes were counted but that have no point (``unplaced``: name → why, "FLOP count
    unknown" or "0 FLOP counted"), in words: "2 kernels with per-level bytes have no point (arithmetic intensity
    unknown): gemm_naive(…) (FLOP count unknown), saxpy(…) (FLOP count unknown)" — up to 3 named."""
    named = ", ".join(f"{n} ({why})" for n, why in list(unplaced.items())[:3]) + (
        f" and {len(unplaced) - 3} more" if len(unplaced) > 3 else "")
    return (f"{plural(len(unplaced), 'kernel')} with per-level bytes {'has' if len(unplaced) == 1 else 'have'} no "
            f"point (arithmetic intensity unknown): {named}")


def _pct_of_attainable(achieved: float, attainable: float) -> float:
    """achieved / attainable × 100 [%] (at most 100: :func:`~gpulens.analyzers.roofline.at_most_roof`); NaN when
    unknown or above the roof (beyond
    :data:`~gpulens.analyzers.roofline.ABOVE_ROOF_PCT`: the figures, not the kernel, are off — no GPU beats its
    roof)."""
    if not (attainable and attainable == attainable and achieved == achieved):
        return np.nan
    return at_most_roof(100 * achieved / attainable)


class HierarchicalRoofline(Analyzer):
    """Per-kernel, per-level roofline points from counters (module doc)."""

    name = "hierarchical_roofline"
    order = 46

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        def skip(reason: str) -> AnalysisResult:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=reason)

        # every kernel counts (hot_kernels without results): the first kernel row names the device, read from the
        # events; the kernel rows' columns are gathered only once counters the analysis reads are known to be there
        # (a Kineto trace has none: no copy of a million kernel rows to skip)
        is_kernel = context_of(timeline).mask_of("kernel")
        if not is_kernel.any():
            return skip(no_hot_kernels_reason(timeline, results))
        first = int(np.argmax(is_kernel))
        ev = timeline.events
        rec = device_record(timeline, int(ev["rank"].iat[first]), int(ev["device_id"].iat[first]))
        is_amd = (device is not None and device.vendor == "amd") or bool(rec.get("gfx_arch"))

        def no_counters() -> AnalysisResult:
            return skip("no FLOP and per-level byte counters (" + _advice.for_vendor(
                "amd" if is_amd else _advice.vendor_of(timeline, device),
                "ncu: --section SpeedOfLight_HierarchicalRooflineChart or the sm__sass_thread_inst_executed_op_* "
                "and dram/lts/l1tex byte metrics", "rocprof-compute: a full profile") + ")")

        if not H.wanted_metrics(timeline.counters):  # none of the metrics read: every figure would be NaN
            return no_counters()
        k = hot_kernels(timeline, None)
        ids = k["event_id"].to_numpy()
        dur = pd.Series(timeline.events["dur_ns"].to_numpy(dtype=float), index=timeline.events["event_id"].to_numpy())
        m = H.amd(timeline.counters, ids, rec) if is_amd else H.nvidia(timeline.counters, ids, dur)
        per = m.reset_index(drop=True).assign(name=text_series(k["name"]),  # object Series: no str-dtype inference
                                              time_ns=k["dur_ns"].to_numpy(dtype=float))
        if per["flops"].isna().all() or per[[f"bytes_{lv}" for lv in H.LEVELS]].isna().all().all():
            return no_counters()
        roofs = self._roofs(timeline, device, rec)
        rows = []
        unplaced: dict[str, str] = {}  # kernel → why its per-level bytes have no point (no FLOPs to place them)
        for name, g0 in per.groupby("name", sort=False):
            if g0[[f"bytes_{lv}" for lv in H.LEVELS]].notna().any().any():
                gaps = [x for x in g0.get("flops_missing", pd.Series(dtype=object)) if isinstance(x, str) and x]
                zero = not float(g0["flops"].fillna(0).sum()) > 0
                unplaced[str(name)] = ("FLOP count unknown" if g0["flops"].isna().all() or (zero and gaps) else
                                       "0 FLOP counted" if zero else "")
            g0 = g0[g0["flops"].notna()]  # a launch without a FLOP count is unknown work, not 0 FLOP
            miss = [x for x in g0["flops_missing"] if isinstance(x, str) and x] if "flops_missing" in g0 else []
            lower = lower_bound_words(miss[0]) if miss else None
            for lv in H.LEVELS:
                g = g0[g0[f"bytes_{lv}"].notna()]  # the launches with both figures: one set for FLOPs, bytes, time
                flops, t = float(g["flops"].sum()), float(g["time_ns"].sum())
                if not len(g) or flops <= 0:
                    continue
                tensor = float(np.nansum(g["tensor_flops"]))
                peak, peak_src = roofs["peak_tensor"] if tensor > 0.5 * flops else roofs["peak_vector"]
                by = float(g[f"bytes_{lv}"].sum())
                bw, bw_src = roofs.get(lv, (np.nan, "unknown"))
                ai = flops / by if by > 0 else np.nan
                att = min(peak, ai * bw) if not (np.isnan(peak) or np.isnan(bw) or np.isnan(ai)) else np.nan
                ach = flops / (t * 1e-9) if t > 0 else np.nan
                ridge = peak / bw if bw and not np.isnan(bw) else np.nan
                rows.append({"name": name, "level": lv, "calls": int(len(g)), "time_ns": int(t), "flops": flops,
                             "bytes": by, "arithmetic_intensity": ai, "achieved_flops": ach,
                             "achieved_bandwidth": by / (t * 1e-9) if t > 0 else np.nan, "roof_bandwidth": bw,
                             "peak_flops": peak, "roof_source": f"bandwidth {bw_src}, compute {peak_src}",
                             "attainable_flops": att, "pct_of_attainable": _pct_of_attainable(ach, att),
                             "_above": bool(att and att == att and ach == ach and 100 * ach / att > ABOVE_ROOF_PCT),
                             "side": "unknown" if np.isnan(ridge) or np.isnan(ai) else
                             ("memory" if ai < ridge else "compute"), "flops_lower_bound": lower})
        if not rows:
            return skip("no kernel with both FLOPs and per-level bytes")
        t = pd.DataFrame(rows, columns=list(COLUMNS))
        above = sum(1 for r in rows if r.get("_above"))
        summary = {"kernels": int(t["name"].nunique()), "points": int(len(t)), "points_above_roof": above}
        unplaced = {n: why for n, why in unplaced.items() if why}
        if unplaced:  # counted cache/DRAM bytes without a point: said, never a kernel silently missing (ncu H200 CSV:
            # gemm_naive and saxpy, L1/L2/DRAM bytes counted, no FLOP counters)
            summary["not_placed_note"] = not_placed_text(unplaced)
        if above:
            summary["above_roof_note"] = (f"{plural(above, 'point(s)')} above their roof: the counters or the GPU's "
                                          f"peak figures "
                                          "are off (check the identified device, or pass --device-spec); their % of "
                                          "attainable is unknown")
        return AnalysisResult(self.name, t, COLUMNS, summary, summary_columns={
            "points_above_roof": "points whose achieved FLOP/s exceed their roof (% of attainable unknown) [count]",
            **({"above_roof_note": "why some % of attainable is unknown [note]"} if above else {}),
            **({"not_placed_note": "kernels with per-level bytes but no point: their FLOPs are unknown (not "
                                   "counted) or 0 [note]"} if unplaced else {})})

    @staticmethod
    def _roofs(timeline: Timeline, device: Any, rec: dict) -> dict:
        out: dict[str, tuple[float, str]] = {"peak_tensor": (np.nan, "unknown"), "peak_vector": (np.nan, "unknown")}
        if device is not None:
            if device.memory_bandwidth:
                assumed = " (an assumed GPU: the input does not name it)" if " assumed from " in str(
                    getattr(device, "note", "") or "") else ""
                out["dram"] = (device.memory_bandwidth, f"spec {device.name}{assumed}")
            for key, prec, mat in (("peak_tensor", "bf16", True), ("peak_vector", "fp32", False)):
                p = device.peak_flops(prec, matrix=mat)
                if p:
                    out[key] = (p[0], f"spec {p[1]}")
        meas = timeline.tables.get("empirical_roofs")
        if meas is not None and len(meas):
            dev = int(rec.get("device_id", 0) or 0)
            m = meas[meas["device"] == dev] if (meas["device"] == dev).any() else meas[meas["device"] == meas[
                "device"].min()]
            val = dict(zip(m["roof"], m["value"]))
            for lv, roof in _MEASURED_BW.items():
                if val.get(roof) == val.get(roof):
                    out[lv] = (float(val[roof]), f"measured {roof}")
            mfma = [val[r] for r in _MEASURED_FLOPS[:4] if r in val]
            if mfma:
                out["peak_tensor"] = (float(max(mfma)), "measured MFMA")
            if "FP32Flops" in val:
                out["peak_vector"] = (float(val["FP32Flops"]), "measured FP32Flops")
        return out
