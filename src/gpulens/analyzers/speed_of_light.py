"""Speed of light per kernel: how close each profiled kernel came to the compute and memory peaks, from the
profiler's own counters — Nsight Compute (:mod:`gpulens.analyzers._sol_nvidia`) or rocprofiler-compute
(:mod:`gpulens.analyzers._sol_amd`) — in one table for both vendors.

Bound (thresholds and sources in docs/bottlenecks.md):

* **latency** when neither side reaches :data:`LATENCY_BELOW_PCT` (60 %) of its peak — Nsight Compute's
  SOLBottleneck rule: "Achieved compute throughput and/or memory bandwidth below 60.0% of peak typically indicate
  latency issues";
* otherwise **memory** when the memory side (max of memory %, DRAM %, and DRAM % of the *measured* HBM peak when
  rocprof-compute's roofline.csv gives one — the bandwidth a kernel can actually reach) is at least the compute side (max of compute
  %, tensor/MFMA %), else **compute** — the unit closest to its peak limits the kernel (ncu's SOL breakdown, and
  rocprof-compute's Speed-of-Light panel read the same way).

``time_at_stake_ns`` = time × (1 − max(compute side, memory side) / 100): the share of the kernel's time the
limiting unit was *not* at its peak (the roofline stake with attained / attainable = the SOL fraction), each launch
keeping the 2 µs no kernel runs under (:func:`gpulens.analyzers._stake.time_at_stake`); unknown when the bound is
(one side not counted: the limiting unit is not known, nor its distance to its peak).

Contract (COORDINATION.md): the verdicts analyzer reads ``results["speed_of_light"]`` and prefers it, per kernel,
over the timeline-only rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers import _sol_amd, _sol_nvidia
from gpulens.analyzers._hot import HOT_COLUMNS, device_record, event_counters, no_hot_kernels_reason, weighted_mean
from gpulens.analyzers._untimed import MEAN_DURATION, untimed_kernels
from gpulens.timeline.percent import IMPOSSIBLE_DOC, IMPOSSIBLE_KEY, unknown_above_100
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers._stake import SOL_BOUND_PCT, l1_of_row, time_at_stake
from gpulens.analyzers.context import category_mask, context_of, reindex_sorted, text_series
from gpulens.timeline import Timeline

#: Below this % of peak on both sides a kernel is latency-bound (ncu SOLBottleneck rule): the one speed-of-light
#: threshold, :data:`gpulens.analyzers._stake.SOL_BOUND_PCT`, which the verdicts apply too.
LATENCY_BELOW_PCT = SOL_BOUND_PCT

COLUMNS = {
    "name": "kernel name as recorded [text]",
    "vendor": "nvidia (Nsight Compute metrics) or amd (rocprof-compute counters) [text]",
    "calls": "profiled launches; each figure of a kernel below is the mean of its launches' figures weighted by "
             "their durations (rocprof-compute's panels print the plain mean over dispatches, AVG: the two differ "
             "when the dispatches' durations do) [count]",
    "time_ns": "summed duration of those launches [ns]",
    "compute_pct": "compute throughput: NVIDIA SM throughput; AMD max(VALU, MFMA) utilisation, % of peak [%]",
    "memory_pct": "memory throughput: NVIDIA ncu Memory Throughput; AMD max(HBM, vL1D, L2 bandwidth), % of peak [%]",
    "dram_pct": "DRAM/HBM bandwidth, % of peak [%]",
    "dram_measured_pct": "DRAM/HBM bandwidth, % of the measured peak (rocprof-compute roofline.csv HBMBw) [%]",
    "l1_pct": "L1/TEX (vL1D) throughput, % of peak as the profiler gives it — NVIDIA: of the cycles its SMs were "
              "active (ncu L1/TEX Cache Throughput, l1tex__throughput.avg.pct_of_peak_sustained_active); AMD: over "
              "the kernel's duration (rocprof-compute vL1D) [%]",
    "l1_run_pct": "L1/TEX throughput, % of peak over the kernel's elapsed cycles (the window of ncu's Memory "
                  "Throughput and DRAM %) — NVIDIA: l1_pct × SM Active Cycles / Elapsed Cycles, unknown when either "
                  "is not counted; AMD: l1_pct, already over the duration [%]",
    "l2_pct": "L2 throughput, % of peak [%]",
    "l1_hit_pct": "L1/TEX (vL1D) hit rate [%]",
    "l2_hit_pct": "L2 hit rate [%]",
    "lds_conflicts_per_access": "AMD LDS bank conflicts: cycles the LDS spent on bank conflicts per conflict-free LDS "
                                "access cycle, SQ_LDS_BANK_CONFLICT / (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT) "
                                "(rocprof-compute's LDS Bank Conflicts/Access, peak 32); unknown without LDS "
                                "accesses or the counters [conflict cycles/access]",
    "achieved_occupancy_pct": "achieved occupancy (AMD: wavefront occupancy) [%]",
    "tensor_pct": "tensor-core / MFMA pipe utilisation [%]",
    "issue_slot_pct": "issue slots used (AMD: IPC of 5) [%]",
    "elapsed_cycles": "elapsed cycles per launch (AMD: GRBM_GUI_ACTIVE per XCD) [count]",
    "dram_bytes": "DRAM/HBM bytes moved per launch, reads + writes; unknown when a direction was not collected "
                  "[bytes]",
    "dram_read_bytes": "DRAM bytes read per launch (NVIDIA dram__bytes_read.sum) [bytes]",
    "memory_throughput": "DRAM/HBM bytes per second [B/s]",
    "grid_blocks": "blocks (work-groups) per launch [count]",
    "bound": "compute | memory | latency (module doc); unknown when a side is not counted and the other is low "
             "[text]",
    "time_at_stake_ns": "time − max(time × SOL of the limiting side, launches × 2 µs); unknown when the bound is "
                        "[ns]",
    "evidence": "the metrics each figure came from [text]",
}
#: how each figure is named in the ``evidence`` text a person reads
FIG_WORDS = {"compute_pct": "compute", "memory_pct": "memory", "dram_pct": "DRAM", "dram_measured_pct":
             "DRAM (measured peak)", "l1_pct": "L1", "l2_pct": "L2", "l1_hit_pct": "L1 hit rate", "l2_hit_pct":
             "L2 hit rate", "lds_conflicts_per_access": "LDS bank conflicts", "achieved_occupancy_pct": "achieved occupancy", "tensor_pct": "tensor pipe",
             "issue_slot_pct": "issue slots", "elapsed_cycles": "elapsed cycles", "sm_active_cycles": "SM active cycles",
             "dram_bytes": "DRAM bytes",
             "dram_read_bytes": "DRAM bytes read",
             "memory_throughput": "memory throughput"}
_FIGS = ["compute_pct", "memory_pct", "dram_pct", "dram_measured_pct", "l1_pct", "l2_pct", "l1_hit_pct", "l2_hit_pct",
         "lds_conflicts_per_access", "achieved_occupancy_pct", "tensor_pct", "issue_slot_pct", "elapsed_cycles", "dram_bytes", "dram_read_bytes",
         "memory_throughput"]


#: Every counter a speed-of-light figure reads (:mod:`._sol_nvidia`, :mod:`._sol_amd`).
_SOL_NAMES = frozenset({m for opts in _sol_nvidia.METRICS.values() for m, _ in opts}
                       | {m for parts in _sol_nvidia.DRAM_PARTS for m in parts} | set(_sol_amd.COUNTERS))

#: At or above this % of peak a unit is saturated whatever the other side does: Nsight Compute's SOLBottleneck rule
#: ("greater than 80.0% of the available compute or memory performance of the device"). Below it, a bound needs
#: both sides counted (the side not counted may be the busier one).
SATURATED_PCT = 80.0


def bound_of(compute: float | None, memory: float | None, compute_is_sm: bool = False) -> str:
    """``compute`` / ``memory`` / ``latency`` for the compute side and memory side % of peak (None/NaN = not
    counted); ``unknown`` when the counters do not support a bound:

    * a side is not counted and the counted one is below :data:`SATURATED_PCT` (the uncounted side may be the busy
      one) — below :data:`LATENCY_BELOW_PCT` on the counted side alone, latency cannot be told either;
    * the compute side wins but is NVIDIA's SM throughput alone (``compute_is_sm``): the busiest SM unit, which may
      be the load/store or texture pipe as well as an arithmetic one — no FLOP or pipe counter says it is compute.
    """
    known = [x is not None and x == x for x in (compute, memory)]
    c, m = (float(x) if k else 0.0 for x, k in zip((compute, memory), known))
    if max(c, m) < LATENCY_BELOW_PCT:
        return "latency" if all(known) else "unknown"
    if not all(known) and max(c, m) < SATURATED_PCT:
        return "unknown"
    if m >= c:
        return "memory"
    return "unknown" if compute_is_sm else "compute"


#: What an untimed kernel's memory side lacks (:func:`missing_for_bound` ``memory_untimed``): its DRAM traffic is
#: counted, but a throughput is bytes over time and its dispatches have no usable duration (rocprof-compute on an
#: MI300X wrote ``timestamps.csv`` in scientific notation: start == end) — no memory counter would add it.
UNTIMED_MEMORY_MISSING = ("the dispatches' durations (their DRAM traffic is counted, but its throughput is bytes over "
                          "time and this input records no usable start and end: profile again with the timestamps "
                          "kept as integers)")


def missing_for_bound(compute: float | None, memory: float | None, compute_is_sm: bool = False,
                      vendor: str | None = None, memory_untimed: bool = False) -> str:
    """What a kernel's speed of light lacks to be called compute- or memory-bound, in words ("" when nothing), in
    the counters of ``vendor``'s tool (``"nvidia"``: ncu, ``"amd"``: rocprof; both when unknown). ``memory_untimed``:
    the memory side is unknown because the kernel has no duration while its DRAM bytes are counted — the duration
    is then what is missing (:data:`UNTIMED_MEMORY_MISSING`), not a memory counter."""
    known = [x is not None and x == x for x in (compute, memory)]
    out = []
    if not known[1] and memory_untimed:
        out.append(UNTIMED_MEMORY_MISSING)
    elif not known[1]:
        out.append("a memory throughput counter (" + _advice.for_vendor(
            vendor, "ncu gpu__compute_memory_throughput / dram__throughput", "rocprof-compute HBM bandwidth") + ")")
    if not known[0] or compute_is_sm:
        out.append("FLOP or pipe counters, which tell arithmetic from load/store work (" + _advice.for_vendor(
            vendor, "ncu sm__sass_thread_inst_executed_op_* or sm__inst_executed_pipe_*",
            "rocprof SQ_INSTS_VALU_*") + ")")
    return " and ".join(out)


def _l1_of_run(r: dict) -> float:
    """An aggregated row's L1/TEX % of peak over the kernel's elapsed cycles: NVIDIA's ``l1tex__throughput`` is a %
    of the cycles the SMs were active, so it is scaled by the SMs' active share of the elapsed cycles
    (``sm__cycles_active.avg`` / ``gpc__cycles_elapsed.max``, Nsight Compute's SM Active Cycles and Elapsed Cycles —
    the H200 gemm_wmma: 99.74 % × 1,088,299.39 / 1,126,071 = 96.39 %, ncu's Memory Throughput 96.40 % being the
    busiest unit's elapsed figure); NaN (unknown) when either is not counted. AMD's vL1D figure is already over the
    kernel's duration: as recorded."""
    l1, act, el = r["l1_pct"], r.get("sm_active_cycles"), r["elapsed_cycles"]
    if r["vendor"] != "nvidia":
        return l1
    if not (act is not None and act == act and el == el and el and el > 0):
        return float("nan")
    return l1 * min(act / el, 1.0)


class SpeedOfLightAnalyzer(Analyzer):
    """Per-kernel speed of light from ncu / rocprof-compute counters (module doc)."""

    name = "speed_of_light"
    order = 45

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        def skip(reason: str) -> AnalysisResult:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=reason)

        no_counters = ("no speed-of-light counters (collect " + _advice.for_vendor(
            _advice.vendor_of(timeline, device), "ncu --section SpeedOfLight", "a rocprof-compute workload") + ")")
        counters = timeline.counters
        untimed = not context_of(timeline).mask_of("kernel").any()
        if untimed:  # dispatches profiled without timestamps stand in for the launches (analyzers._untimed)
            k, counters = untimed_kernels(timeline, results, critical_only=False)
            if not len(k):
                return skip(no_hot_kernels_reason(timeline, results))
            k = k[np.isin(k["event_id"].to_numpy(),
                          counters["event_id"].to_numpy()[category_mask(counters["metric"], _SOL_NAMES)])]
        else:
            k = self._counted_kernels(timeline)
        if not len(k):
            return skip(no_counters)
        ids = k["event_id"].to_numpy()
        nv, nv_src = _sol_nvidia.launch_figures(counters, ids)
        nv = nv.rename(columns={"memory_throughput_bps": "memory_throughput"})
        nv_src = nv_src.rename(columns={"memory_throughput_bps": "memory_throughput"})
        dur = k["dur_ns"].to_numpy(dtype=float)
        per = pd.DataFrame({"name": text_series(k["name"]), "time_ns": k["time_ns"].to_numpy(dtype=float),
                            "grid_blocks": (k["grid_x"] * k["grid_y"].fillna(1) * k["grid_z"].fillna(1))
                            .astype("Float64").to_numpy(dtype=float, na_value=np.nan)})
        for f in _FIGS + ["sm_active_cycles"]:
            per[f] = nv[f].to_numpy(dtype=float) if f in nv else np.nan
        per["vendor"] = "nvidia"
        per["dram_assumed"] = False
        ev = self._nv_evidence_all(nv_src, len(per))
        # NVIDIA DRAM % from bytes / duration / the spec's bandwidth when ncu gave no DRAM % itself
        bw = device.memory_bandwidth if device is not None and device.vendor == "nvidia" else None
        if bw:
            with np.errstate(all="ignore"):
                by_bytes = np.where(dur > 0, per["dram_bytes"].to_numpy() / (dur * 1e-9), np.nan)
            thr = per["memory_throughput"].to_numpy()
            rate = np.where(np.isnan(thr), by_bytes, thr)
            use = per["dram_pct"].isna().to_numpy() & ~np.isnan(rate)
            per.loc[use, "dram_pct"] = 100 * rate[use] / bw
            per.loc[use, "dram_assumed"] = "assumed" in (device.note or "")
            per.loc[use & np.isnan(thr), "memory_throughput"] = by_bytes[use & np.isnan(thr)]
            who = f"{bw / 1e9:.0f} GB/s of the {'ASSUMED ' if 'assumed' in (device.note or '') else ''}{device.name}"
            for i in np.flatnonzero(use):
                what = nv_src.iloc[i]["memory_throughput"] or f"({nv_src.iloc[i]['dram_bytes']}) / duration"
                ev[i] += f"; DRAM derived: {what} / {who}"
        amd = self._amd(timeline, k, ids, dur, counters, device)
        if amd is not None:
            is_amd = amd["compute_pct"].notna().to_numpy() | amd["dram_pct"].notna().to_numpy() | \
                amd["achieved_occupancy_pct"].notna().to_numpy() | amd["dram_bytes"].notna().to_numpy()
            for f in _FIGS:
                col = "memory_throughput_bps" if f == "memory_throughput" else f
                if col in amd:
                    per.loc[is_amd, f] = amd[col].to_numpy(dtype=float)[is_amd]
            per.loc[is_amd, "vendor"] = "amd"
            per.loc[is_amd, "dram_assumed"] = amd["dram_assumed"].to_numpy(dtype=bool)[is_amd]
            hbm = self._measured_hbm(timeline)
            if hbm:
                per.loc[is_amd, "dram_measured_pct"] = 100 * per.loc[is_amd, "memory_throughput"] / hbm
            src, bw_of = amd["dram_source"].to_numpy(dtype=object), amd["bandwidth_source"].to_numpy(dtype=object)
            for i in np.flatnonzero(is_amd):
                ev[i] = "; ".join(f"{FIG_WORDS.get(f, f)}: {self._amd_evidence(f, t, src[i], bw_of[i])}"
                                  for f, t in _sol_amd.EVIDENCE.items() if not np.isnan(per.at[i, f]))
                if hbm and not np.isnan(per.at[i, "dram_measured_pct"]):
                    ev[i] += f"; DRAM (measured peak): HBM bytes / duration ÷ measured HBMBw {hbm / 1e9:.1f} GB/s"
                if src[i] == "fetch_write" and np.isnan(per.at[i, "dram_pct"]):
                    ev[i] += ("; " if ev[i] else "") + "DRAM bytes: 1,024 × (FETCH_SIZE + WRITE_SIZE) [KiB] (no " \
                                                       "DRAM %: the duration or the HBM peak is unknown)"
                if untimed and ev[i]:
                    ev[i] += f"; duration: {MEAN_DURATION}"
        per["evidence"] = ev
        have = per[_FIGS].notna().any(axis=1)
        per = per[have.to_numpy()].reset_index(drop=True)
        if not len(per):
            return skip(no_counters)
        table = self._aggregate(per)
        impossible = unknown_above_100(table)
        summary = {"kernels": int(len(table)), "launches": int(len(per)),
                   IMPOSSIBLE_KEY: impossible, "durations_from_summary": untimed,
                   "bound_counts": {b: int((table["bound"] == b).sum())
                                    for b in ("compute", "memory", "latency", "unknown")},
                   "latency_threshold_pct": LATENCY_BELOW_PCT}
        return AnalysisResult(self.name, table, COLUMNS, summary, summary_columns={
            "kernels": "kernels with speed-of-light counters [count]",
            "durations_from_summary": "the launches were profiled without timestamps: each counts its kernel's mean "
                                      "duration from the run's per-kernel summary [bool]",
            IMPOSSIBLE_KEY: IMPOSSIBLE_DOC,
            "latency_threshold_pct": "below this % of peak on both sides a kernel is latency-bound [%]"})

    @staticmethod
    def _counted_kernels(timeline: Timeline) -> pd.DataFrame:
        """The kernel launches that have at least one speed-of-light counter (a metric :mod:`._sol_nvidia` or
        :mod:`._sol_amd` reads), as :func:`~gpulens.analyzers._hot.hot_kernels` rows (every kernel, Timeline
        order).

        Every figure of a launch comes from its own counters (both modules compute row by row), and launches without
        a figure are dropped before aggregating, so leaving the others out changes nothing but the memory: a 1M-kernel
        trace without ncu/rocprof-compute counters built 1M-row figure, source and evidence frames to drop them all.
        """
        ctx = context_of(timeline)
        c = timeline.counters
        with_sol = np.unique(c["event_id"].to_numpy()[category_mask(c["metric"], _SOL_NAMES)])
        ev = timeline.events
        keep = ctx.mask_of("kernel") & np.isin(ev["event_id"].to_numpy(), with_sol)
        k = ev.loc[keep, list(HOT_COLUMNS)]
        return k.assign(time_ns=reindex_sorted(ctx.effective_ns, k.index).to_numpy())

    @staticmethod
    def _measured_hbm(timeline: Timeline) -> float | None:
        """rocprof-compute's measured HBM bandwidth [bytes/s] (roofline.csv, device 0 as the roofline analyzer
        takes it), or None."""
        from gpulens.devices.spec import measured_roofs

        t = timeline.tables.get("empirical_roofs")
        v = measured_roofs(t, 0).get("HBMBw") if t is not None and len(t) else None
        return float(v) if v else None

    @staticmethod
    def _nv_evidence_all(src: pd.DataFrame, n: int) -> list[str]:
        """:meth:`_nv_evidence` of every row of ``src`` without a per-row ``iloc`` (column arrays zipped; each
        distinct row's text built once)."""
        if not len(src.columns):
            return [""] * n
        cols = list(src.columns)
        arrays = [src[c].to_numpy(dtype=object) for c in cols]
        if all(pd.api.types.infer_dtype(a, skipna=False) in ("string", "empty") for a in arrays):
            # all texts (the usual case): rows grouped by their column codes, each distinct row's text built once
            # and taken back to every row — no Python loop over the launches
            key = np.zeros(len(src), dtype=np.int64)
            for a in arrays:
                c, u = pd.factorize(a)
                key, _ = pd.factorize(key * max(len(u), 1) + c)
            first = pd.Series(key).drop_duplicates().index.to_numpy()
            texts = np.array(["; ".join(f"{FIG_WORDS.get(f, f)}: {m}" for f, m in zip(cols, (a[i] for a in arrays))
                                        if m) for i in first.tolist()] + [""], dtype=object)[:-1]
            return texts[key].tolist()
        memo: dict = {}
        out = []
        for vals in zip(*(src[c].to_numpy(dtype=object) for c in cols)):
            try:
                text = memo.get(vals)
            except TypeError:  # an unhashable cell
                text = None
            if text is None:
                text = "; ".join(f"{FIG_WORDS.get(f, f)}: {m}" for f, m in zip(cols, vals) if m)
                try:
                    memo[vals] = text
                except TypeError:
                    pass
            out.append(text)
        return out

    @staticmethod
    def _nv_evidence(src: pd.Series) -> str:
        return "; ".join(f"{FIG_WORDS.get(f, f)}: {m}" for f, m in src.items() if m)

    @staticmethod
    def _amd_evidence(fig: str, text: str, dram_source: str, bandwidth: str) -> str:
        """The evidence of one AMD figure: :data:`_sol_amd.EVIDENCE`'s, the DRAM % told from its byte counters
        (``dram_source``) and bandwidth (``bandwidth``: the spec that gave it, "" for sysinfo's ``hbm_bw``)."""
        if fig == "dram_pct" and dram_source == "fetch_write":
            text = _sol_amd.DRAM_FROM_SIZES
        if fig == "dram_pct" and bandwidth:
            text = text.replace("sysinfo hbm_bw", bandwidth).replace("peak HBM bandwidth", bandwidth)
        return text

    @staticmethod
    def _amd(timeline: Timeline, k: pd.DataFrame, ids: np.ndarray, dur: np.ndarray, counters: pd.DataFrame,
             device: Any = None) -> pd.DataFrame | None:
        """:func:`_sol_amd.dispatch_figures` per launch of ``k`` (its counters in ``counters``), on each launch's
        device record; a record without an HBM peak (rocprof v1 has no sysinfo.csv), CU count or clock takes the
        AMD device spec's. Plus ``dram_assumed`` (the HBM peak is an assumed GPU's: shown, never deciding) and
        ``bandwidth_source`` (the spec the HBM peak came from, "" when the record had it). None without
        rocprof-compute's ``GRBM_GUI_ACTIVE`` or rocprof's ``FETCH_SIZE`` + ``WRITE_SIZE``."""
        ctr = event_counters(timeline, ids, _sol_amd.COUNTERS, counters)
        if not len(ctr.columns) or not ("GRBM_GUI_ACTIVE" in ctr or {"FETCH_SIZE", "WRITE_SIZE"} <= set(ctr.columns)):
            return None
        ctr = ctr.reindex(ids)
        c = counters[category_mask(counters["metric"], ("FETCH_SIZE", "WRITE_SIZE"))]
        units = dict(zip(c["metric"].astype(str), c["unit"].astype(str)))
        spec = device if device is not None and getattr(device, "vendor", None) == "amd" else None
        assumed = bool(spec is not None and (getattr(spec, "assumed", False) or "assumed" in (spec.note or "")))
        parts = []
        for (rank, dev), g in k.assign(_i=np.arange(len(k))).groupby(["rank", "device_id"], sort=False):
            rec = dict(device_record(timeline, int(rank), int(dev)))
            from_spec = ""
            if spec is not None:
                if not rec.get("hbm_bandwidth_bytes_per_s") and spec.memory_bandwidth:
                    rec["hbm_bandwidth_bytes_per_s"] = spec.memory_bandwidth
                    from_spec = (f"{'the ASSUMED ' if assumed else ''}{spec.name}'s peak "
                                 f"{spec.memory_bandwidth / 1e9:.0f} GB/s")
                for key, val in (("num_sms", spec.num_sms), ("max_clock_mhz", spec.figure_value("clock_mhz")),
                                 ("gfx_arch", spec.gfx_arch)):
                    if not rec.get(key) and val:
                        rec[key] = val
            fig = _sol_amd.dispatch_figures(ctr.iloc[g["_i"].to_numpy()], dur[g["_i"].to_numpy()], rec, units)
            fig["dram_assumed"] = bool(from_spec) and assumed
            if bool(from_spec) and assumed:  # an assumed GPU's HBM peak is shown, never the memory side's figure
                fig["memory_pct"] = np.fmax(fig["l1_pct"], fig["l2_pct"])
            fig["bandwidth_source"] = from_spec
            parts.append(fig.set_axis(g["_i"].to_numpy()))
        return pd.concat(parts).sort_index()

    @staticmethod
    def _aggregate(per: pd.DataFrame) -> pd.DataFrame:
        rows = []
        for name, g in per.groupby("name", sort=False):
            r: dict[str, Any] = {"name": name, "vendor": g["vendor"].iloc[0], "calls": int(len(g)),
                                 "time_ns": int(g["time_ns"].sum())}
            for f in _FIGS + ["grid_blocks", "sm_active_cycles"]:
                v = weighted_mean(g[f], g["time_ns"])
                r[f] = float("nan") if v is None else v
            comp = np.nanmax([r["compute_pct"], r["tensor_pct"], -1.0])
            # a DRAM % derived against an ASSUMED GPU's bandwidth is shown but does not decide the bound
            dram_ok = not bool(g["dram_assumed"].any())
            # the memory side is its busiest unit: ncu's Memory Throughput is the busiest of DRAM, L2 and L1 in
            # current releases, but older ones print it beside an L1/TEX Cache Throughput far above it (a T4
            # sgemm: memory 49 %, L1/TEX 98 %), so L1 and L2 count as themselves (AMD: _sol_amd's max already)
            # — L1/TEX over the kernel's elapsed cycles: ncu's figure is of the cycles its SMs were active (…pct_of_
            # peak_sustained_active), 83 % for a one-block kernel whose 132 SMs were active 0.25 % of the run on
            # average; ncu's own figure when the cycle counts are not collected (l1_of_row, as the stake reads it)
            r["l1_run_pct"] = _l1_of_run(r)
            l1 = l1_of_row(r)[0]
            # the share of the HBM peak this GPU was MEASURED to reach (rocprof-compute roofline.csv) counts, as
            # rocprof-compute judges against its empirical roofline: a plain copy at 62.2 % of the measured 1,389
            # GB/s is memory-bound though at 52.7 % of the rated 1,638 (vcopy MI200); without the file the rated
            # peak is all there is (the collector warns that bounds then rest on it)
            mem = np.nanmax([r["memory_pct"], r["dram_pct"] if dram_ok else np.nan, r["dram_measured_pct"],
                             np.nan if l1 is None else l1, r["l2_pct"], -1.0])
            # NVIDIA's compute_pct is SM throughput (any SM unit); a tensor-pipe or AMD VALU/MFMA figure is arithmetic
            sm_only = r["vendor"] == "nvidia" and not r["tensor_pct"] >= LATENCY_BELOW_PCT
            r["bound"] = bound_of(comp if comp >= 0 else None, mem if mem >= 0 else None, sm_only)
            top = max(comp, mem)
            if r["time_ns"] <= 0:  # durations unknown (rocprof-compute timestamps without their digits)
                r["time_ns"] = None
            # the one definition (_stake.time_at_stake): the limiting unit's distance to its peak, each launch
            # keeping the 2 µs no kernel runs under
            # — unknown when the bound is: with one side not counted the limiting unit, and so its distance to its
            # peak, is unknown (a 68 % tensor pipe beside an uncounted memory side put 32 % of the time at stake)
            r["time_at_stake_ns"] = time_at_stake(r["time_ns"], min(top, 100.0), r.get("calls")) \
                if top >= 0 and r["time_ns"] is not None and r["bound"] != "unknown" else None
            r["evidence"] = g["evidence"].iloc[int(np.argmax(g["time_ns"].to_numpy()))]
            rows.append(r)
        t = pd.DataFrame(rows, columns=list(COLUMNS))
        return t.sort_values(["time_ns", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)


