"""Occupancy: how many warps (waves) each hot kernel can keep resident per SM (CU), what limits it, and how the
grid fills the GPU.

Vendor definitions (Nsight Compute Kernel Profiling Guide "Occupancy"; CUDA occupancy calculator; rocprof-compute
"Wavefront occupancy"):

* **theoretical occupancy** — resident warps the launch configuration allows (registers, shared memory / LDS, warp
  slots, block cap) / warp slots, **not capped by the grid**. ncu's own figure (Occupancy section or
  ``sm__maximum_warps_per_active_cycle_pct``) is used directly when the file has it; otherwise gpulens's calculator
  (:mod:`gpulens.devices.occupancy`) computes it. When both exist they are compared and disagreements (> 0.5
  percentage points) are reported.
* **limiter** — the resource whose block limit binds (registers, shared_memory, warps, blocks, barriers); ties are
  all named in ``limiters``.
* **grid effect**, separately: grid waves = grid blocks / (active blocks per SM (CU) × SMs (CUs)) and the fill of the last wave
  (:mod:`gpulens.analyzers._occ_ncu`).
* **achieved occupancy** — from counters (ncu ``Achieved Occupancy``; AMD ``SQ_ACCUM_PREV_HIRES`` /
  ``GRBM_GUI_ACTIVE`` / (CUs × wave slots), rocprof-compute's wave-occupancy formula; without those, rocprofv3's
  derived ``OccupancyPercent``, :data:`AMD_OCCUPANCY_PCT`).

Aggregated per kernel name over the performance-critical set, weighted by time.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice, _occ_bound, _occ_findings
from gpulens.analyzers import _occ_ncu as N
from gpulens.analyzers import _sol_amd
from gpulens.analyzers._groupstats import group_sums_many
from gpulens.analyzers._occ_launches import Launches
from gpulens.analyzers._stake import assumed_premise, wave_loss_per_launch
from gpulens.analyzers._hot import device_record, event_counters, hot_kernels, no_hot_kernels_reason, weighted_mean
from gpulens.analyzers._untimed import untimed_kernels
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import first_seen_codes, int_sums, recode_first_seen, sorted_codes, unique_ints
from gpulens.devices import limits_of_record, main_device, no_spec_reason
from gpulens.devices.occupancy import Occupancy, cdna_occupancy, cuda_occupancy, kineto_estimate_pct
from gpulens.timeline import Timeline
from gpulens.timeline.percent import IMPOSSIBLE_DOC, IMPOSSIBLE_KEY, above_max
from gpulens.units import agree, plural

COLUMNS = {
    "name": "kernel name as recorded [text]",
    "calls": "launches of the kernel with occupancy data [count]",
    "time_ns": "summed effective duration of those launches [ns]",
    "block_size": "threads per block of the launch configuration with the most time [count]",
    "regs_per_thread": "registers (VGPRs on AMD) per thread of that configuration [count]",
    "smem_bytes": "static + dynamic shared memory (LDS) per block of that configuration [bytes]",
    "grid_blocks": "blocks (work-groups) in the grid of that configuration [count]",
    "active_blocks_per_sm": "resident blocks per SM (CU) the configuration allows (not capped by the grid) [count]",
    "theoretical_occupancy_pct": "resident warps / warp slots allowed by registers, shared memory, warps and block "
                                 "limits (vendor definition, not grid-capped), time-weighted [%]",
    _occ_bound.COLUMN: _occ_bound.DOC,
    "achieved_occupancy_pct": "measured active warps / warp slots from counters, time-weighted [%]",
    "limiter": "registers | shared_memory | warps | blocks | barriers: the binding block limit; none when theoretical "
               "occupancy is full (nothing limits it) [text]",
    "limiters": "every block limit tied at the binding value; none when theoretical occupancy is full [text]",
    "waves_per_sm": "grid waves: grid blocks / (blocks resident per SM at once × SMs) — per CU × CUs on AMD, "
                    "workgroups for blocks — of that configuration (its grid with the most time): how many times the "
                    "grid fills every SM (CU) with resident blocks, a count for the whole GPU, not per SM (ncu's "
                    "launch__waves_per_multiprocessor, 'Waves Per SM'; on AMD not wavefronts) [ratio]",
    "tail_wave_pct": "fill of the last wave of that configuration: frac(waves) × 100, 100 for a whole number of "
                     "waves [%]",
    "grid_sizes": "distinct grid sizes among the kernel's launches (> 1: waves and tail differ per launch; the "
                  "figures above are the dominant configuration's) [count]",
    "config_time_share": "share of the kernel's time in that configuration (block, registers, shared memory and "
                         "grid) [share]",
    "wave_loss_ns": "Σ over launches of time × (1 − W / ⌈W⌉): at most this much is lost to partly filled waves "
                    "(grid fill and tail, W = that launch's waves) [ns]",
    "occupancy_source": "ncu (its Occupancy section), calculator (gpulens), ncu+calculator (both, compared), or "
                        "counters (achieved occupancy measured, theoretical unknown) "
                        "[text]",
    "calculator_theoretical_pct": "gpulens's calculator figure when it could run, for comparison with ncu's [%]",
}
SUMMARY_COLUMNS = {
    "durations_from_summary": "the launches were profiled without timestamps: each counts its kernel's mean "
                              "duration from the run's per-kernel summary [bool]",
    "theoretical_missing": "the launch-configuration fields the input lacks, so theoretical occupancy is unknown "
                           "for some launches (empty: computed for all) [text]",
    "vendor": "amd | nvidia (empty: unknown): the words the occupancy table uses (blocks per CU or per SM) [text]",
    "time_weighted_theoretical_pct": "theoretical occupancy over the hot kernels, time-weighted [%]",
    "time_weighted_achieved_pct": "achieved occupancy over the hot kernels, time-weighted [%]",
    IMPOSSIBLE_KEY: IMPOSSIBLE_DOC,
    "calculator_disagreements": "launches where gpulens's calculator and ncu's theoretical occupancy differ by more "
                                "than 0.5 percentage points [count]",
}

#: Counters that measure achieved occupancy directly [%].
ACHIEVED_PCT = N.ACHIEVED
#: rocprof-compute wavefront occupancy: SQ_ACCUM_PREV_HIRES *of the SQ_LEVEL_WAVES pass* / (GRBM_GUI_ACTIVE / XCDs)
#: (:func:`gpulens.analyzers._sol_amd.wave_occupancy_pct`); the bare accumulator may belong to another pass.
AMD_WAVES = (_sol_amd.LEVEL_WAVES_ACCUM, _sol_amd.LEVEL_WAVES_GRBM, "GRBM_GUI_ACTIVE")
AMD_RESOURCES = ("arch_vgpr", "accum_vgpr", "sgpr")
#: rocprofv3's derived counter "GPU Occupancy as % of maximum" (rocprofiler-sdk counter_defs.yaml, OccupancyPercent:
#: gfx90a/gfx94x 400·ΣSQ_WAVE_CYCLES / max GRBM_GUI_ACTIVE / CU_NUM / 32 — quad-cycle wave counts over the wave slots,
#: 32 per CU; gfx10/11 100·… / 32): achieved occupancy [%], read when the raw SQ_LEVEL_WAVES pass is absent.
AMD_OCCUPANCY_PCT = "OccupancyPercent"
_WORD = {"registers": "Registers", "shared_memory": "Shared memory", "warps": "Warp slots", "blocks": "The block cap",
         "barriers": "Barriers"}
DISAGREE_PP = 0.5


def _config_key(columns: list, n: int) -> np.ndarray:
    """Configuration number of each of ``n`` launches: the distinct rows of ``columns`` (arrays; NaN equal to NaN),
    numbered in order of first appearance (int64).

    Each column is coded (integers in their sorted order by a presence table, :func:`~gpulens.analyzers.context.
    sorted_codes`; others by ``pd.factorize``), the codes folded into one int64 per launch and that factorised once
    — the numbering a factorisation after each column gives (both number the distinct rows by first appearance), one
    hash pass instead of two per column. Codes too many to fold are re-factorised column by column."""
    key = np.zeros(n, dtype="int64")
    radix = 1
    for col in columns:
        col = np.asarray(col)
        if col.dtype.kind in "iu":
            c, u = sorted_codes(col)
        else:
            c, u = pd.factorize(col, use_na_sentinel=False)
        m = max(len(u), 1)
        if radix * m >= 2 ** 62:  # fold no further: renumber what is folded so far, densely
            key, uk = pd.factorize(key)
            radix = max(len(uk), 1)
        key = key * m + c
        radix *= m
    return pd.factorize(key)[0].astype("int64", copy=False)


def _config_time(g: np.ndarray, b: np.ndarray, r: np.ndarray, m: np.ndarray, t: np.ndarray) -> pd.DataFrame:
    """Summed launch time ``t`` per (name code ``g``, block size ``b``, registers ``r``, shared memory ``m``),
    sorted by those keys: ``pd.DataFrame({...}).groupby(["g", "b", "r", "m"], sort=True)["t"].sum().reset_index()``.

    Integer keys and whole-number times whose sums stay exact in float64 (below 2**53: every summation order gives
    the same sums) are grouped on one packed int64 code per launch, sorted distinct codes only
    (:func:`~gpulens.analyzers.context.unique_ints`) and ``np.bincount`` sums; anything else by pandas."""
    keys = (g, b, r, m)
    tf = np.asarray(t, dtype=float)
    fast = all(np.asarray(k).dtype.kind in "iu" for k in keys) and len(tf) > 0 and not np.isnan(tf).any() \
        and bool((tf == np.round(tf)).all()) and float(np.abs(tf).sum()) < 2.0 ** 53
    if fast:
        parts = [sorted_codes(k) for k in keys]  # dense codes in sorted value order (pd.factorize(sort=True))
        radix = 1.0
        for _, u in parts:
            radix *= max(len(u), 1)
        fast = radix < 2.0 ** 62
    if not fast:
        f = pd.DataFrame({"g": g, "b": b, "r": r, "m": m, "t": t})
        return f.groupby(["g", "b", "r", "m"], sort=True)["t"].sum().reset_index()
    packed = np.zeros(len(tf), dtype=np.int64)
    for c, u in parts:
        packed = packed * max(len(u), 1) + c
    uniq, inv = unique_ints(packed, return_inverse=True)
    if np.asarray(t).dtype.kind in "iu":
        sums = int_sums(inv, np.asarray(t), len(uniq))  # int64, as the groupby sums integers
    else:
        sums = np.bincount(inv, weights=tf, minlength=len(uniq))
    out = {}
    rest = uniq
    for name, (_, u) in reversed(list(zip(("g", "b", "r", "m"), parts))):
        n = max(len(u), 1)
        out[name] = np.asarray(u)[rest % n]
        rest = rest // n
    return pd.DataFrame({"g": out["g"], "b": out["b"], "r": out["r"], "m": out["m"], "t": sums})


#: Theoretical occupancy [%] at which no block limit limits anything: every warp slot can be filled (the
#: calculator's 100 %, within rounding of a time-weighted mean).
FULL_THEORETICAL_PCT = 99.5
#: The limiter cell of a kernel whose theoretical occupancy is full.
NO_LIMITER = "none"


def limiter_columns(lims: Sequence[str], theo: Sequence[float | None]) -> dict[str, list[str]]:
    """The ``limiter`` / ``limiters`` columns from each kernel's tied block limits ``lims`` (``"warps, registers"``)
    and its theoretical occupancy ``theo`` [%]: at :data:`FULL_THEORETICAL_PCT` or more the resource whose block
    limit binds first limits nothing (every warp slot is filled; ncu H200 gemm_naive: 256 threads × 32 registers,
    8 blocks × 8 warps = 64 of 64 warps, "warps + registers" tied) — :data:`NO_LIMITER`. A grid cap is kept: it is
    no theoretical limit."""
    out = [NO_LIMITER if o is not None and o >= FULL_THEORETICAL_PCT and str(s) and "grid" not in str(s) else str(s)
           for s, o in zip(lims, theo)]
    return {"limiter": [s.split(", ")[0] for s in out], "limiters": out}


class OccupancyAnalyzer(Analyzer):
    """Theoretical and achieved occupancy of the hot kernels, their limiter and the grid's waves (module doc)."""

    name = "occupancy"
    order = 45

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        def skip(reason: str) -> AnalysisResult:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=reason)

        rec0 = main_device(timeline) or {}
        lim = device.limits if device is not None else limits_of_record(rec0)
        spec_sms = device.num_sms if device is not None else 0
        # without occupancy rules a measured figure (ncu's theoretical or achieved, rocprofv3's OccupancyPercent)
        # still stands: only the calculator needs the device
        measures = N.THEORETICAL + ACHIEVED_PCT + (AMD_OCCUPANCY_PCT,)
        untimed = timeline.tables.get("unattached_counters")  # dispatches profiled without timestamps
        if lim is None and not timeline.counters["metric"].isin(measures).any() and not (
                untimed is not None and "metric" in untimed and untimed["metric"].isin(measures).any()):
            return skip(no_spec_reason(timeline, need_arch=True) if device is None else
                        f"no occupancy rules for architecture {device.arch}")
        hot, counters = hot_kernels(timeline, results), None
        if not len(hot):  # dispatches profiled without timestamps stand in for the launches (analyzers._untimed)
            hot, counters = untimed_kernels(timeline, results)
            if not len(hot):
                return skip(no_hot_kernels_reason(timeline, results))
        ids = hot["event_id"].to_numpy()
        ctr = event_counters(timeline, ids, N.ALL + AMD_WAVES + AMD_RESOURCES +
                             ("kineto.est_achieved_occupancy_pct", AMD_OCCUPANCY_PCT), counters)
        if not ctr.index.equals(pd.Index(ids)):  # every hot launch counted, in order (Kineto's estimates): as is
            ctr = ctr.reindex(ids)
        n = len(hot)
        ncu_theo = N.first_of(ctr, N.THEORETICAL, n)
        has_ncu = ~np.isnan(ncu_theo)
        bs = (hot["block_x"] * hot["block_y"].fillna(1) * hot["block_z"].fillna(1)).astype("Float64") \
            .to_numpy(dtype=float, na_value=np.nan)
        regs = hot["regs_per_thread"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        calc_ok = (bs > 0) & ~np.isnan(regs) & (lim is not None)
        # a launch with measured achieved occupancy is shown even when its theoretical figure cannot be computed
        measured = ~np.isnan(self._achieved(timeline, ctr, hot["rank"].to_numpy(), hot["device_id"].to_numpy())[0])
        keep = calc_ok | has_ncu | measured
        if not keep.any():
            return skip("no launch data: " + self._missing(timeline, hot, bs, regs, device))
        unknown = ~(calc_ok | has_ncu)  # hot launches whose theoretical occupancy cannot be computed
        theo_missing = None if not unknown.any() else self._missing(
            timeline, hot[unknown], bs[unknown], regs[unknown], device, theoretical=True)
        st, dy = (hot[c].astype("Float64") for c in ("smem_static_bytes", "smem_dynamic_bytes"))
        smem = (st.fillna(0) + dy.fillna(0)).where(st.notna() | dy.notna() | pd.Series(calc_ok, index=st.index), -1) \
            .to_numpy(dtype=float, na_value=-1)
        del st, dy
        cols = {"rank": hot["rank"].to_numpy(), "device_id": hot["device_id"].to_numpy(),
                "block_size": np.where(np.isnan(bs), -1, bs).astype("int64"),
                "regs_per_thread": np.where(np.isnan(regs), -1, regs).astype("int64"),
                "smem_bytes": smem.astype("int64"), "calc_ok": calc_ok}
        del smem  # bs and regs stay: a launch that fits no SM (CU) below is described from them
        for m in AMD_RESOURCES:
            cols[m] = ctr[m].to_numpy(dtype=float) if m in ctr else None
        # every calculator figure once per distinct launch configuration, a row number per launch (_occ_launches)
        key, cfg = self._calculate(timeline, lim, cols, spec_sms)
        ach, impossible = self._achieved(timeline, ctr, cols["rank"], cols["device_id"])
        del cols
        # a configuration the rules let no block of onto one SM (CU) did not run there as recorded: the record or
        # the (assumed) device is wrong, so its theoretical occupancy is unknown, not 0 % (_calculate)
        nofit = calc_ok & ~cfg["calc_ok"].to_numpy(dtype=bool)[key]
        if nofit.any():
            calc_ok = calc_ok & ~nofit
            keep = calc_ok | has_ncu | measured
            if not keep.any():
                return skip(self._nofit_reason(int(nofit.sum()), device, lim))
            unknown = ~(calc_ok | has_ncu)
            theo_missing = "; ".join(x for x in (
                None if not (unknown & ~nofit).any() else self._missing(
                    timeline, hot[unknown & ~nofit], bs[unknown & ~nofit], regs[unknown & ~nofit], device,
                    theoretical=True),
                None if not (unknown & nofit).any() else self._nofit_reason(int((unknown & nofit).sum()), device,
                                                                             lim)) if x)
        # kernel names as integer codes into ``names`` (no per-launch strings: factorizing those cost ~0.3 s at 1M)
        gcode, names = first_seen_codes(hot["name"])
        grid = (hot["grid_x"] * hot["grid_y"].fillna(1) * hot["grid_z"].fillna(1)).astype("Float64") \
            .to_numpy(dtype=float, na_value=np.nan)
        ncu_active = ncu_lims = None
        if any(m in ctr for v in N.BLOCK_LIMITS.values() for m in v):
            ncu_active, ncu_lims = N.ncu_block_limits(ctr, n)
        per = Launches(key, cfg, gcode, hot["time_ns"].to_numpy(dtype=float), grid, grid, ach, has_ncu,
                       ncu_theo if has_ncu.any() else None, ncu_active, ncu_lims)
        del gcode, grid, ach, ncu_theo, ncu_active, ncu_lims
        ncu_waves = N.first_of(ctr, N.WAVES, n)
        # waves against an assumed GPU's SM count (none recorded, no ncu waves): their estimates rest on that GPU
        sms_premise = assumed_premise(device, "sms") if not rec0.get("num_sms") and np.isnan(
            np.asarray(ncu_waves, dtype=float)).all() else ""
        waves = N.waves_per_sm(per.grid, per.active(), per.of_cfg("nsms"))
        per.waves = N.exact_waves(waves, ncu_waves)
        del ncu_waves, waves
        est = ctr["kineto.est_achieved_occupancy_pct"].to_numpy(dtype=float) \
            if "kineto.est_achieved_occupancy_pct" in ctr else None
        del ctr
        if not keep.all():
            k = np.flatnonzero(keep)
            per = per.take(k)
            est = None if est is None else est[k]
        dis = per.disagreements(names, DISAGREE_PP)
        kin_cmp, kin_ok, kin_optin = self._kineto(est, per, lim)
        table = self._aggregate(per, names)
        _occ_bound.add_bound(table, lim, rec0)  # registers / shared memory unknown: the block size still bounds it
        summary = {
            "device": device.name if device is not None else f"{rec0.get('name') or 'unidentified GPU'} (no spec; "
                      f"{lim.arch if lim is not None else 'no'} rules)",
            "arch": lim.arch if lim is not None else None, "launches": int(n),
            "vendor": _advice.vendor_of(timeline, device),
            "launches_with_launch_data": int(keep.sum()), "kernels": int(len(table)),
            "time_weighted_theoretical_pct": weighted_mean(pd.Series(per.theo()), pd.Series(per.t)),
            "time_weighted_achieved_pct": weighted_mean(pd.Series(per.ach), pd.Series(per.t)),
            "calculator_disagreements": int(len(dis)),
            "kineto_estimates_compared": kin_cmp, "kineto_estimates_reproduced": kin_ok,
            "kineto_zero_due_to_optin_smem": kin_optin,
            "theoretical_missing": theo_missing, "durations_from_summary": counters is not None,
            IMPOSSIBLE_KEY: impossible,
        }
        roof = results.get("roofline") if results else None
        roof_rows = {} if roof is None or roof.skipped or not len(roof.table) else {
            str(x["name"]): x for x in roof.table.drop_duplicates("name").to_dict("records")}
        found = _occ_findings.findings(table, kin_optin, dis, _WORD, roof_rows, _advice.uses_pytorch(timeline),
                                       _advice.triton_kernels(timeline), summary["vendor"], sms_premise)
        if theo_missing:
            hint = "name the GPU for the occupancy rules (--device-spec NAME)." if lim is None else \
                self._collect_hint(timeline, device)
            # of every hot launch: those without the data are left out of the table, so they are counted here
            found.append(Finding(f"Theoretical occupancy unknown for {int(unknown.sum())} of "
                                 f"{plural(len(unknown), 'hot launch(es)')}: "
                                 f"{theo_missing}" + (" for them" if not unknown.all() else "")
                                 + _occ_bound.bounded_note(table, summary["vendor"]),
                                 "Achieved occupancy is shown where measured. " + hint[0].upper() + hint[1:],
                                 severity="info", category="data-quality", key="occupancy/theoretical-missing"))
        return AnalysisResult(self.name, table, COLUMNS, summary, found, summary_columns=SUMMARY_COLUMNS)

    @staticmethod
    def _missing(timeline: Timeline, hot: pd.DataFrame, bs: np.ndarray, regs: np.ndarray, device: Any,
                 theoretical: bool = False) -> str:
        """Which launch-configuration fields the input lacks for the hot kernels, named as the input's own tool
        names them (ncu: ``launch__block_size`` / ``launch__registers_per_thread`` / ``launch__shared_mem_per_block_*``
        metrics or the ``Block Size`` column; rocprof: ``wgr``/``arch_vgpr``/``lds``; Kineto: the kernel event's
        ``block`` / ``registers per thread`` / ``shared memory`` args), with the hint to collect them in that tool.
        ``theoretical``: the reason theoretical occupancy is unknown (achieved occupancy is measured)."""
        names = {str(x.get("collector", "")) for x in timeline.meta.sources}
        ncu = bool(names) and all(n.startswith("ncu") for n in names)
        missing = []
        if not (bs > 0).any():
            missing.append("block size (launch__block_size / the Block Size column)" if ncu else "block size")
        if np.isnan(regs).all():
            missing.append("registers per thread (launch__registers_per_thread)" if ncu else "registers per thread")
        if hot["smem_static_bytes"].isna().all() and hot["smem_dynamic_bytes"].isna().all():
            missing.append("shared memory per block (launch__shared_mem_per_block_static / _dynamic)" if ncu else
                           f"{_advice.vendor_word(_advice.vendor_of(timeline, device), 'smem')} per block")
        what = (", ".join(missing[:-1]) + " or " + missing[-1] if len(missing) > 1 else missing[0] if missing else
                "launch configuration the occupancy rules accept")
        if theoretical:
            if not missing and device is None and limits_of_record(main_device(timeline) or {}) is None:
                return no_spec_reason(timeline, need_arch=True)  # recorded configuration, but no rules to apply
            return _advice.amd_block_words(f"the file records no {what}", _advice.vendor_of(timeline, device))
        if ncu:
            return (f"the file records neither ncu's Occupancy section (sm__maximum_warps_per_active_cycle_pct), "
                    f"nor achieved occupancy (sm__warps_active.avg.pct_of_peak_sustained_active), nor {what} for "
                    f"the hot kernels; " + OccupancyAnalyzer._collect_hint(timeline, device))
        # the collector knows its file cannot hold registers (a rocprofv3 kernel trace of the layout without them):
        # "collect a kernel trace" would ask for the file the user already has
        unrecorded = "; ".join(dict.fromkeys(str(x["launch_fields_unrecorded"]) for x in timeline.meta.sources
                                             if x.get("launch_fields_unrecorded")))
        hint = (unrecorded + "." if unrecorded and np.isnan(regs).all() else
                OccupancyAnalyzer._collect_hint(timeline, device, block_missing=not (bs > 0).any()))
        return _advice.amd_block_words(f"the trace records no {what} for the hot kernels; " + hint,
                                       _advice.vendor_of(timeline, device))

    @staticmethod
    def _nofit_reason(n: int, device: Any, lim) -> str:
        """Why ``n`` launches have no theoretical occupancy: their recorded block size, registers per thread
        (VGPRs) or shared memory (LDS) per block leave room for no block on one SM (CU) under the architecture's
        rules — a launch that ran had at least one resident, so the record or the (assumed) device is wrong."""
        where = device.name if device is not None else (lim.arch if lim is not None else "this GPU")
        return (f"{plural(n, 'launch(es)')} {agree(n, 'records', 'record')} a configuration (block size, registers per thread or shared memory "
                f"per block) that leaves room for no block on one SM (CU) of {where} under its rules, yet {agree(n, 'it', 'they')} ran: "
                "the record or the device is wrong")

    @staticmethod
    def _collect_hint(timeline: Timeline, device: Any, block_missing: bool = False) -> str:
        """How to record the launch configuration with the input's own tool (ncu, rocprof, torch.profiler).
        ``block_missing``: the hot kernels lack a block size too — on ROCm the PyTorch profiler writes a HIP kernel's
        grid and block (not its registers or LDS) when it was launched directly, none for one replayed from a HIP
        graph (a vLLM / SGLang decode trace's graph-replayed kernels beside directly launched ones with both)."""
        names = {str(x.get("collector", "")) for x in timeline.meta.sources}
        vendor = _advice.vendor_of(timeline, device)
        if names and all(n.startswith("ncu") for n in names):
            return ("collect ncu --section LaunchStats --section Occupancy (or --metrics launch__registers_per_thread,"
                    "launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic).")
        if names and all(n.startswith("kineto") for n in names):
            hip = ("the PyTorch profiler records no registers or LDS for HIP kernels"
                   + (", and a block size only for kernels launched directly, not replayed from a HIP graph"
                      if block_missing else ""))
            return (_advice.for_vendor(vendor, "the PyTorch profiler records them for CUDA kernels only", hip)
                    + "; "
                    + _advice.for_vendor(vendor, "profile with ncu --section LaunchStats --section Occupancy",
                                         "profile with rocprofv3 --kernel-trace (or rocprof), which records them")
                    + ".")
        return _advice.for_vendor(vendor, "collect ncu --section LaunchStats --section Occupancy",
                                  "collect rocprofv3 --kernel-trace (block size, VGPRs and LDS per dispatch)") + "."

    def _calculate(self, timeline: Timeline, lim, cols: dict, spec_sms: int) -> tuple[np.ndarray, pd.DataFrame]:
        """(configuration row per launch, one row per distinct launch configuration in order of first appearance):
        the configuration columns of ``cols`` (None = NaN for every launch) and the calculator's figures (NaN where
        it cannot run): calc_theo, calc_active, calc_limiter, nsms, kin_active (Kineto's variant), max_threads."""
        keys = ["rank", "device_id", "block_size", "regs_per_thread", "smem_bytes", "calc_ok", *AMD_RESOURCES]
        # one row per distinct launch configuration, in order of first appearance (NaN resources compare equal)
        key = _config_key([cols[k] for k in keys if cols[k] is not None], len(cols["rank"]))
        _, first = unique_ints(key, return_index=True)
        cfg = pd.DataFrame({k: (np.full(len(first), np.nan) if cols[k] is None else cols[k][first]) for k in keys})
        recs: dict = {}
        done: dict = {}  # the same configuration on GPUs with the same record (10,000 ranks of one GPU): once
        res = []
        for c in cfg.itertuples(index=False):
            dk = (int(c.rank), int(c.device_id))
            if dk not in recs:
                rec = device_record(timeline, *dk)
                recs[dk] = (rec, repr(sorted((k, v) for k, v in rec.items() if k != "rank")))
            rec, sig = recs[dk]
            same = (sig, *[None if isinstance(v, float) and v != v else v for v in tuple(c)[2:]])
            if same in done:
                res.append(done[same])
                continue
            nsms = int(rec.get("num_sms") or spec_sms or 0) or np.nan
            maxt = int(rec.get("max_threads_per_sm") or (lim.max_warps_per_sm * lim.warp_size if lim else 0))
            if not c.calc_ok:
                res.append(done.setdefault(same, (np.nan, np.nan, "", nsms, np.nan, maxt, np.nan)))
                continue
            occ = self._occ(lim, rec, int(c.block_size), int(c.regs_per_thread), int(c.smem_bytes), c)
            if occ.active_blocks <= 0:  # no block fits one SM (CU): the launch could not have run as recorded
                res.append(done.setdefault(same, (np.nan, np.nan, "", nsms, np.nan, maxt, np.nan)))
                continue
            kin = self._occ(lim, rec, int(c.block_size), int(c.regs_per_thread), int(c.smem_bytes), c, kineto=True) \
                if lim.vendor == "nvidia" else occ
            tied = ", ".join(k for k in N.ORDER if k in occ.limiters)  # ties: all (smem at the largest carveout)
            res.append(done.setdefault(same, (occ.occupancy_pct, occ.active_blocks, tied, nsms, kin.active_blocks,
                                              maxt, occ.smem_limit_max)))
        table = pd.DataFrame(res, columns=["calc_theo", "calc_active", "calc_limiter", "nsms", "kin_active",
                                           "max_threads", "calc_smem_max"])
        # configurations the calculator rejects (no block fits) count as without launch data from here on
        cfg["calc_ok"] = cfg["calc_ok"].astype(bool) & ~(table["calc_active"].isna().to_numpy() if len(table)
                                                         else np.zeros(0, dtype=bool))
        if len(table):
            table["calc_limiter"] = table["calc_limiter"].astype(object)
        return key, pd.concat([cfg, table], axis=1)

    @staticmethod
    def _kineto(est: np.ndarray | None, per: Launches, lim) -> tuple[int, int, int]:
        """(compared, reproduced, zero-by-opt-in) of Kineto's own occupancy estimates against gpulens's rerun."""
        if est is None or lim is None or lim.vendor != "nvidia":
            return 0, 0, 0
        nsms = per.of_cfg("nsms")
        kin_active = per.of_cfg("kin_active")
        with np.errstate(all="ignore"):
            bps = per.grid / nsms
        c = ~np.isnan(est) & ~np.isnan(bps.astype(float)) & ~np.isnan(kin_active.astype(float))
        del bps
        rows = np.flatnonzero(c)
        kin = kineto_estimate_pct(kin_active[rows], per.grid[rows], nsms[rows], per.of_cfg("block_size", rows),
                                  per.of_cfg("max_threads", rows))
        optin = (kin_active[rows] == 0) & (per.of_cfg("calc_active", rows) > 0)
        return int(c.sum()), int((kin == est[rows].astype("int64")).sum()), int(optin.sum())

    @staticmethod
    def _occ(lim, rec: dict, block: int, regs: int, smem: int, c, kineto: bool = False) -> Occupancy:
        if lim.vendor == "amd":
            arch, acc, sg = c.arch_vgpr, c.accum_vgpr, c.sgpr
            a, cc = (int(arch), int(0 if pd.isna(acc) else acc)) if not pd.isna(arch) else (regs, 0)
            return cdna_occupancy(lim, block, a, cc, smem, None if pd.isna(sg) else int(sg))
        return cuda_occupancy(lim, block, regs, smem, smem_per_sm=rec.get("smem_per_sm_bytes"),
                              max_threads_per_sm=rec.get("max_threads_per_sm"), regs_per_sm=rec.get("regs_per_sm"),
                              carveout="max" if kineto else "driver", opt_in=not kineto)

    @staticmethod
    def _achieved(timeline: Timeline, ctr: pd.DataFrame, rank: np.ndarray,
                  device_id: np.ndarray) -> tuple[np.ndarray, int]:
        """Achieved occupancy per launch [%] from counters: ncu's where recorded, else rocprof-compute's wave
        occupancy of the launch's device, else rocprofv3's derived ``OccupancyPercent`` (:data:`AMD_OCCUPANCY_PCT`);
        NaN without; and how many launches' figures were above 100 % (inconsistent counters, e.g. a
        ``GRBM_GUI_ACTIVE`` a tenth of the accumulator's cycles gave 320 %): unknown (NaN) as every profiler
        percentage above 100 is (:func:`gpulens.timeline.percent.above_max`)."""
        out = N.first_of(ctr, ACHIEVED_PCT, len(ctr))
        if AMD_WAVES[0] in ctr:
            amd = np.full(len(ctr), np.nan)
            pair = pd.MultiIndex.from_arrays([rank, device_id])
            codes, uniq = pd.factorize(pair)
            for j, (r, dev) in enumerate(uniq):
                i = np.flatnonzero(codes == j)
                amd[i] = _sol_amd.wave_occupancy_pct(ctr.iloc[i], device_record(timeline, int(r), int(dev)))
            out = np.where(np.isnan(out), amd, out)
        if AMD_OCCUPANCY_PCT in ctr:
            derived = pd.to_numeric(ctr[AMD_OCCUPANCY_PCT], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            out = np.where(np.isnan(out), derived, out)
        over = above_max(np.asarray(out, dtype=float))
        return (np.where(over, np.nan, out), int(over.sum())) if over.any() else (out, 0)

    @staticmethod
    def _aggregate(per: Launches, kernel_names: np.ndarray) -> pd.DataFrame:
        """One row per kernel name (order of first appearance, then by time, largest first), vectorised over the
        names: the launch configuration with the most summed time (ties: the smallest block, registers, shared
        memory) and within it the grid with the most time (ties: the smallest), that configuration's longest launch's
        grid/active blocks/waves/tail/source, its limiter set with the most time (ties: first by name), the per-launch
        wave loss summed (:func:`gpulens.analyzers._stake.wave_loss_ns`), and time-weighted means of the per-launch
        occupancy figures. ``per.g``: codes into ``kernel_names`` (−1 = missing name)."""
        codes, names = recode_first_seen(per.g, kernel_names)
        ok = codes >= 0
        if not ok.any():
            return pd.DataFrame(columns=list(COLUMNS))
        p = per if ok.all() else per.take(np.flatnonzero(ok))
        g = codes if ok.all() else codes[ok]
        del codes, ok
        G = len(names)
        t = p.t
        b, r, m = (p.of_cfg(c) for c in ("block_size", "regs_per_thread", "smem_bytes"))
        pos = np.arange(len(p))
        # dominant configuration per name: most summed time, ties to the smallest (block, regs, smem)
        cfg = _config_time(g, b, r, m, t)
        cfg = cfg.iloc[np.lexsort((-cfg["t"].to_numpy(), cfg["g"].to_numpy()))].drop_duplicates("g")
        cb, cr, cm = (np.zeros(G, dtype="int64") for _ in range(3))
        gi = cfg["g"].to_numpy()
        cb[gi], cr[gi], cm[gi] = cfg["b"].to_numpy(), cfg["r"].to_numpy(), cfg["m"].to_numpy()
        d = np.flatnonzero((b == cb[g]) & (r == cr[g]) & (m == cm[g]))
        del b, r, m
        # within it, the grid with the most summed time (ties: the smallest grid): the waves and tail shown are that
        # one launch configuration's, never a mean over launches of different grids
        grid = p.grid
        gq = np.where(np.isnan(grid), -1.0, grid)
        qc, qu = pd.factorize(gq, sort=True)  # grid sizes as integer codes: (name, grid) pairs as one int64 key
        nq = max(len(qu), 1)
        ukey, inv = unique_ints(g[d].astype("int64") * nq + qc[d], return_inverse=True)
        tsum_k = np.bincount(inv.reshape(-1), np.nan_to_num(t[d]), minlength=len(ukey))
        ug, uq = ukey // nq, ukey % nq
        o = np.lexsort((-tsum_k, ug))  # per name: most time first, ties to the smaller grid (keys sorted by grid)
        o = o[np.r_[True, ug[o][1:] != ug[o][:-1]]]
        cq = np.full(G, -1.0)
        cq[ug[o]] = np.asarray(qu, dtype=float)[uq[o]]
        cfg_t = np.zeros(G)
        cfg_t[ug[o]] = tsum_k[o]
        dg = d[gq[d] == cq[g[d]]]
        top = dg[np.lexsort((pos[dg], -t[dg], g[dg]))]  # longest launch of the dominant configuration, first kept
        top = top[np.r_[True, g[top][1:] != g[top][:-1]]]
        ti = np.zeros(G, dtype="int64")
        ti[g[top]] = top
        # limiter set with the most time per name (ties: first by name; a missing set left out, as a groupby
        # does), on integer codes of the distinct sets: no per-launch strings in a DataFrame
        lc, lu = p.limiters()  # codes into the sorted distinct sets: the same order as factorizing those in d
        lc = lc[d]
        okl = lc >= 0
        lims = np.full(G, "", dtype=object)
        if okl.any():
            ukey, inv = unique_ints(g[d][okl] * len(lu) + lc[okl], return_inverse=True)
            tsum = np.bincount(inv.reshape(-1), np.nan_to_num(t[d][okl]), minlength=len(ukey))
            ug, ul = ukey // len(lu), ukey % len(lu)
            o = np.lexsort((-tsum, ug))
            o = o[np.r_[True, ug[o][1:] != ug[o][:-1]]]
            lims[ug[o]] = np.asarray(lu, dtype=object)[ul[o]]

        def wmean(v: np.ndarray) -> list:
            k = ~np.isnan(v)
            n = np.bincount(g[k], minlength=G)
            # numpy's own per-group sums, as weighted_mean computes them (one group order for the three)
            gk, tk, vk = (g, t, v) if k.all() else (g[k], t[k], v[k])
            sw, swv, sv = group_sums_many(gk, [tk, vk * tk, vk], G)
            with np.errstate(all="ignore"):
                val = np.where(sw > 0, swv / sw, sv / np.maximum(n, 1))
            return [None if c == 0 else float(x) for c, x in zip(n.tolist(), val.tolist())]

        def num(x: np.ndarray) -> list:
            x = np.asarray(x, dtype=float)
            return [None if v != v or v < 0 else int(v) for v in x.tolist()]

        tsum = np.bincount(g, t, minlength=G)
        waves = p.waves
        loss = wave_loss_per_launch(t, waves)
        known = ~np.isnan(loss)
        loss_sum = np.bincount(g[known], loss[known], minlength=G)
        loss_n = np.bincount(g[known], minlength=G)
        known_q = ~np.isnan(grid)
        pairs = unique_ints(g[known_q].astype("int64") * nq + qc[known_q])
        grids = np.bincount(pairs // nq, minlength=G)
        w_top = waves[ti]
        with np.errstate(all="ignore"):
            share = np.where(tsum > 0, cfg_t / tsum, np.nan)
        table = {
            "name": list(names), "calls": np.bincount(g, minlength=G).tolist(),
            "time_ns": [int(x) for x in tsum.tolist()],
            "block_size": num(cb), "regs_per_thread": num(cr), "smem_bytes": num(cm),
            "grid_blocks": num(grid[ti]), "active_blocks_per_sm": num(p.active(ti)),
            "theoretical_occupancy_pct": (theo := wmean(p.theo())), "achieved_occupancy_pct": wmean(p.ach),
            **limiter_columns(lims, theo),
            "waves_per_sm": [None if v != v else float(v) for v in w_top.tolist()],
            "tail_wave_pct": [None if v != v else float(v) for v in N.tail_wave_pct(w_top).tolist()],
            "grid_sizes": [int(x) for x in grids.tolist()],
            "config_time_share": [None if v != v else float(v) for v in share.tolist()],
            "wave_loss_ns": [None if c == 0 else int(round(x)) for c, x in zip(loss_n.tolist(), loss_sum.tolist())],
            "occupancy_source": [str(s) for s in p.source(ti)],
            "calculator_theoretical_pct": wmean(p.of_cfg("calc_theo").astype(float)),
        }
        t = pd.DataFrame({c: pd.Series(v) if c != "name" else v for c, v in table.items()}, columns=list(COLUMNS))
        return t.sort_values(["time_ns", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)
