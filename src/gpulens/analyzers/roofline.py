"""Roofline: how close each hot kernel runs to the hardware's compute or memory limit.

Per kernel name of the performance-critical set: FLOPs and DRAM bytes (from counters, else from the launching op's
shapes, :mod:`gpulens.analyzers._work`), attained FLOP/s and bytes/s, arithmetic intensity, the applicable roof
(precision; tensor/matrix unit for GEMM, conv and attention, vector unit otherwise) and % of the attainable
performance min(peak FLOP/s, AI × peak bandwidth). Peaks come from the device spec; rocprof-compute's measured
peaks (the ``empirical_roofs`` side table of the rocprof-compute collector, or a ``roofline`` table read from
``roofline.csv``) override the datasheet ones. Where the spec documents an *achievable* matrix peak (what a tuned
GEMM reaches: TraceLens' max-achievable FLOPS for MI300X/MI325X, 708 of 1,307 TFLOP/s bf16; measured MAMF for
A100/H100/B200), that is the compute roof: a GEMM at 565 TFLOP/s on an MI300X is at 80 % of what the GPU achieves
(compute-bound), not below both roofs at 43 % of a datasheet peak no GEMM reaches; and its time at stake is the
time above what the roof allows at the achievable peak. ``datasheet_roof_pct`` keeps the share of the datasheet
roof. A kernel above the achievable figure but within the datasheet roof is at its roof (100 %).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers._groupstats import group_sums_many
from gpulens.analyzers._hot import hot_kernels, no_hot_kernels_reason, short_name as _short
from gpulens.analyzers._flop_coverage import lower_bound_words
from gpulens.analyzers._untimed import untimed_kernels
from gpulens.analyzers._work import cache_bytes, counter_work, shape_work, text_codes
from gpulens.analyzers._stake import assumed_premise, time_at_stake
from gpulens.analyzers._flop_models import math_precision
from gpulens.analyzers._roofline_columns import COLUMNS, roof_precision
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import first_seen_codes, recode_first_seen, text_series, unique_ints
from gpulens.analyzers._verdict_facts import LATENCY_BOUND
from gpulens.analyzers.verdict_rules import BELOW_ROOFS, ROOF_BOUND_PCT
from gpulens.devices import no_spec_reason
from gpulens.analyzers._roof_notes import below_roofs_detail, overruled_note
from gpulens.devices.clocks import at_recorded_clock
from gpulens.devices.spec import apply_measured_peaks, measured_roofs
from gpulens.analyzers._roof_clock import recorded_sm_clock_hz
from gpulens.timeline import Timeline
from gpulens.units import pct_words, plural

#: The roofline's ``bound`` for each kernel verdict that a measured speed of light can give (inverse of
#: :data:`gpulens.analyzers.verdict_rules.BOUND_TO_VERDICT` on the roofline's vocabulary).
VERDICT_TO_BOUND = {"compute-bound": "compute", "memory-bound": "memory", "latency/occupancy-bound": LATENCY_BOUND,
                    "below-roofs": BELOW_ROOFS}


def placement(bound: str | None) -> str | None:
    """Where a roofline bound places the kernel on the roofline: ``latency/occupancy`` is below both roofs (the
    verdict names why), every other bound itself."""
    return BELOW_ROOFS if bound == LATENCY_BOUND else bound
MEASURED = "measured speed of light"
#: Below this % of the attainable roof a kernel is bound by neither roof (the verdicts' threshold, one definition).
NEITHER_PCT = ROOF_BOUND_PCT


#: Attained share of the roof above which the figures, not the kernel, are wrong (0.5 % for rounding of times).
ABOVE_ROOF_PCT = 100.5


def at_most_roof(pct: Any) -> Any:
    """An attained share of a roof or peak [%] as shown: unchanged up to 100; 100 between 100 and
    :data:`ABOVE_ROOF_PCT` (the rounding of recorded times, not a kernel beating its roof — never "100.2 % of
    peak"); NaN (unknown) above it or when unknown. Works on a float or a numpy array / pandas Series."""
    x = np.asarray(pct, dtype=float)
    out = np.where(x > ABOVE_ROOF_PCT, np.nan, np.minimum(x, 100.0))
    if isinstance(pct, pd.Series):
        return pd.Series(out, index=pct.index, name=pct.name)
    return float(out) if out.ndim == 0 else out


def _above_roof(pct: float, from_counters: bool, spec_file: str | None = None) -> str | None:
    """Why a kernel's attained share of its roof is unknown when its figures exceed the roof, or None;
    ``spec_file``: the user's device spec file the peaks came from (its figures are then the ones to check)."""
    if not (pct == pct and pct > ABOVE_ROOF_PCT):
        return None
    if from_counters:
        return (f"the counters give {pct_words(pct)} of the roof: the GPU's peak figures are not this GPU's ("
                + (f"check the figures of the device spec file {spec_file} and their units: memory_bandwidth in "
                   "GB/s, FLOP/s in TFLOPS)" if spec_file else "check the identified device, or pass --device-spec)"))
    return (f"the op shapes give {pct_words(pct)} of the roof: this kernel moved less data than its op's inputs and "
            "outputs (cache reuse, broadcast or in-place operands) or did part of the op's work")


def _bandwidth_only(nbytes: float, t_ns: float, bw: float, sheet_bw: float, from_counters: bool,
                    spec_file: str | None = None) -> dict:
    """The figures of a kernel name with DRAM bytes but no FLOP figure [bytes, B/s over ``t_ns``]: bytes, attained
    bandwidth and the memory roof ``bw`` — its arithmetic intensity, ridge side and % of roofline stay unknown
    (the attainable performance depends on the AI). Above the datasheet bandwidth ``sheet_bw`` (beyond rounding) the
    bandwidth is unknown and ``roof_note`` says why, as for a placed kernel."""
    bps = nbytes / t_ns * 1e9 if t_ns > 0 else np.nan
    note = _above_roof(100.0 * bps / sheet_bw, from_counters, spec_file) if sheet_bw and bps == bps else None
    return {"bytes": nbytes, "bytes_per_s": np.nan if note else bps, "peak_bytes_per_s": bw, "roof_note": note}


def bound_of(roof_pct: float | None, ridge_side: str | None) -> str | None:
    """Roofline bound in the one vocabulary (:data:`gpulens.analyzers.verdict_rules.BOUNDS`): the ridge side's roof
    (``compute`` / ``memory``) at ≥ :data:`NEITHER_PCT` % of attainable, else ``below-roofs``; None when unknown."""
    if roof_pct is None or roof_pct != roof_pct or ridge_side is None:
        return None
    return ridge_side if roof_pct >= NEITHER_PCT else BELOW_ROOFS


class Roofline(Analyzer):
    """Roofline position of the hot kernels (see module docstring).

    Args:
        causal_attention: count attention calls that do not record ``is_causal`` as causal (halves their FLOPs
            when Nq = Nkv). A call's recorded flag (Kineto's ``Concrete Inputs``, torch 2.x with record_shapes)
            always decides; without it the default (False) counts the full score matrix.
    """

    name = "roofline"
    order = 40

    def __init__(self, causal_attention: bool = False):
        self.causal = causal_attention

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        def skip(reason: str) -> AnalysisResult:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=reason)

        if device is None:
            return skip(no_spec_reason(timeline))
        measured = timeline.tables.get("empirical_roofs", timeline.tables.get("roofline"))
        # the compute roofs at the SM clock the kernels ran at, where the profiler recorded it (devices.clocks)
        spec, clock = at_recorded_clock(apply_measured_peaks(device, measured), recorded_sm_clock_hz(timeline))
        if not spec.memory_bandwidth:
            return skip(f"device spec {spec.name} has no memory bandwidth")
        hot, counters = hot_kernels(timeline, results), None
        if not len(hot):  # dispatches profiled without timestamps stand in for the launches (analyzers._untimed)
            hot, counters = untimed_kernels(timeline, results)
            if not len(hot):
                return skip(no_hot_kernels_reason(timeline, results))
        ids = hot["event_id"].to_numpy()
        if counters is None:
            work = counter_work(timeline, ids)
            by_shape, stats = shape_work(timeline, hot, self.causal)
        else:  # no ops to take shapes from: counters only
            work = counter_work(timeline, ids, counters, pd.Series(hot["dur_ns"].to_numpy(dtype=float), index=ids))
            by_shape, stats = work.iloc[:, :0].assign(**{c: np.nan for c in work.columns}), \
                {"linked": 0, "unmodelled": []}
        # launches without FP counters take the FLOPs of their op's shapes; measured DRAM bytes are kept over the
        # shape model's (which counts each tensor once and knows no cache effects)
        missing = work["flops"].isna().to_numpy()
        if missing.all() and work["bytes"].isna().all():  # no counter figure at all: the shapes' work as it is
            work = by_shape  # (no "bytes_counted" column: no byte figure is counted)
        else:
            counted_bytes = work["bytes"].copy()
            for c in work.columns:  # column by column: a 2-D .to_numpy() of the mixed frame boxed every float
                work.loc[missing, c] = by_shape.loc[missing, c].to_numpy()
            # measured bytes whenever counted, with or without a FLOP figure: a kernel's bandwidth is known from its
            # bytes and duration alone (the ncu CSV's saxpy, 183.14 MB in 56.99 µs, read "GB/s unknown" for want of
            # FLOPs)
            work["bytes"] = counted_bytes.where(counted_bytes.notna(), work["bytes"])
            work["bytes_counted"] = counted_bytes.notna().to_numpy()
        if work["flops"].isna().all() and work["bytes"].isna().all():
            has_dims = timeline.events["input_dims"].notna().any()
            has_ops = bool((timeline.events["kind"] == "cpu_op").any())
            shapes = ("op shapes recorded without their dtypes (Kineto's 'Input type' args): the FLOP models need "
                      "each tensor's element type" if has_dims and stats.get("untyped") and not stats["unmodelled"]
                      else "no FLOP model for the hot kernels' ops" if has_dims else
                      "no op shapes (profile with record_shapes=True)" if has_ops else
                      "no framework ops to read shapes from")
            return skip("no FLOP source: the hot kernels have no FP-instruction counters (e.g. " + _advice.for_vendor(
                _advice.vendor_of(timeline, device), "ncu sm__sass_thread_inst_executed_op_*",
                "rocprof SQ_INSTS_VALU_*") + ") and " + shapes)
        # kernel names as integer codes into ``names`` (no per-launch strings to factorize); text columns as they
        # are, categoricals (the shapes') or object Series (a plain object array is re-inferred as pandas' Arrow
        # string dtype, row by row)
        gcode, names = first_seen_codes(hot["name"])
        per = pd.DataFrame({"g": gcode, "time_ns": hot["time_ns"].to_numpy(),
                            **{c: work[c].array if isinstance(work[c].dtype, pd.CategoricalDtype) else
                               pd.Series(work[c].to_numpy(), dtype=object, copy=False)
                               if work[c].dtype == object else work[c].to_numpy() for c in work.columns}})
        from_ctr = _is_text(per["source"], "counters")
        table = self._aggregate(per, spec, names, device)
        hot_time = float(per["time_ns"].sum())
        covered = float(per.loc[per["flops"].notna(), "time_ns"].sum())
        hs = (results or {}).get("hotspots")
        all_time = float(hs.summary.get("kernel_effective_ns") or 0) if hs is not None and not hs.skipped else 0.0
        all_time = all_time or hot_time
        summary = {
            "device": spec.name, "device_note": spec.note,
            # the GPU was assumed (the input names none): every placement rests on peaks that may not be its own
            "device_assumed": bool(getattr(spec, "assumed", False)),
            "uncertain_figures": spec.uncertain_figures(),
            "launches": int(len(per)), "kernels": int(len(table)),
            # durations not recorded (all 0): the share of launches with a FLOP figure instead of a share of time
            "coverage": covered / hot_time if hot_time else float(per["flops"].notna().mean()) if len(per) else 0.0,
            "coverage_basis": "time" if hot_time else "launches",
            "critical_share_of_kernel_time": hs.summary.get("critical_share") if hs is not None else None,
            "coverage_of_kernel_time": covered / all_time if all_time else None,
            # the source column's codes (no comparison of a million texts)
            "launches_from_counters": int(from_ctr.sum()),
            "launches_from_shapes": int(_is_text(per["source"], "shapes").sum()),
            # of those from counters, the ones whose FLOP count lacks counters of the formula: lower bounds (only a
            # launch from counters has counters missing)
            "launches_flops_lower_bound": int(_lacks_counters(per["flops_missing"], from_ctr).sum()),
            "launches_linked_to_ops": stats["linked"],
            "ops_without_model": stats["unmodelled"],
            "ops_without_dtypes": stats.get("untyped", {}),
            "attention_assumed_causal": self.causal,
        }
        # the compute roofs that are documented achievable peaks (reports name them in the roofline's heading)
        summary["achievable_roofs"] = sorted({str(k) for k in table["compute_roof"].dropna()
                                              if str(k).startswith("achievable.")})
        # the roofs that rocprof-compute's measured peaks replaced (memory bandwidth, vector/matrix FLOP/s keys): the
        # % of roof is of those; datasheet_roof_pct of the datasheet's (reports say which in the heading)
        used = {"memory_bandwidth"} | {str(k) for k in table["compute_roof"].dropna()}
        summary["measured_roofs"] = sorted(k for k, f in spec.figures.items() if k in used
                                           and f is not device.figures.get(k) and "measured" in str(f.source))
        # the roofs the user's device spec file gave (not the datasheet's; measured ones are said above)
        summary["spec_file_roofs"] = sorted(k for k in used if k in spec.file_figures
                                            and k not in summary["measured_roofs"])
        summary["cache_levels"] = self._cache_levels(timeline, hot, work, spec, measured) if counters is None else []
        summary["durations_from_summary"], summary["roof_clock"] = counters is not None, clock
        summary["vendor"] = _advice.vendor_of(timeline, device)  # the words of the advice (ncu or rocprof-compute)
        basis = "roofline on assumed peaks" if summary["device_assumed"] else "roofline"
        table["bound_basis"] = pd.Series(np.where(table["bound"].notna(), basis, None), index=table.index,
                                         dtype=object)
        # the share the bound rests on, beside it (settle() puts the measured speed of light's there): a row never
        # reads "below-roofs" beside the 53.5 % of a roof its counters overruled
        table["bound_pct"] = pd.to_numeric(table["roof_pct"], errors="coerce").where(table["bound"].notna())
        table["bound_unit"] = pd.Series(None, index=table.index, dtype=object)  # settle() names a cache bound
        # the unit of that share: the roofline itself here; settle() puts the measured limiting unit there
        table["bound_pct_unit"] = pd.Series(np.where(table["bound"].notna(), "roofline", None), index=table.index,
                                            dtype=object)
        return AnalysisResult(self.name, table, COLUMNS, summary,
                              self._findings(table, summary, assumed_premise(spec, "peaks")))

    @staticmethod
    def settle(result: AnalysisResult | None, name: str, verdict: str, stake_ns: int | None, sol_text: str,
               sol_pct: float | None = None, unit: str | None = None, pct_unit: str | None = None) -> None:
        """Once kernel ``name``'s verdict rests on its measured speed of light (``sol_text``: "compute 32 %, memory
        28 % of peak"), its roofline row and finding say the same — in place, one bound and one time at stake per
        kernel in every report: the row's ``bound`` becomes the verdict's (``bound_basis`` 'measured speed of
        light'), its ``bound_pct`` the limiting unit's ``sol_pct`` (% of peak; unknown when not given) and its
        ``time_at_stake_ns`` the verdict's ``stake_ns``, its ``bound_unit`` the cache a memory bound is at
        (``unit``: "L1/TEX", "L2"; None for DRAM or no memory bound), its ``bound_pct_unit`` the unit ``sol_pct``
        is of (``pct_unit``, :func:`gpulens.analyzers._stake.sol_limit`); where the roofline's own placement
        (datasheet or assumed peaks) said another bound, its finding keeps the placement and adds what the
        counters measured instead. Other verdicts (undetermined, launch, communication) leave the row."""
        if result is None or result.skipped or verdict not in VERDICT_TO_BOUND or not len(result.table):
            return
        t = result.table
        # a row without a roofline placement too (no FLOP figure: the ncu CSV's saxpy): the verdict knows its bound
        hit = np.flatnonzero((t["name"].astype(str) == name).to_numpy())
        if not len(hit):
            return
        i = t.index[hit[0]]
        model, bound = t.at[i, "bound"], VERDICT_TO_BOUND[verdict]
        t.at[i, "bound"], t.at[i, "bound_basis"] = bound, MEASURED
        t.at[i, "bound_pct"] = np.nan if sol_pct is None else float(sol_pct)
        if "bound_pct_unit" in t:
            t.at[i, "bound_pct_unit"] = pct_unit if sol_pct is not None else None
        if "bound_unit" in t:
            t.at[i, "bound_unit"] = unit if bound == "memory" else None
        t.at[i, "time_at_stake_ns"] = pd.NA if stake_ns is None else int(stake_ns)
        if "placement_note" in t and model is not None and placement(model) != placement(bound) \
                and pd.notna(t.at[i, "roof_pct"]):  # its % of roofline says another bound: the row says why
            t.at[i, "placement_note"] = overruled_note(result.summary, model, t.at[i, "roof_pct"], verdict,
                                                            sol_text)
        for f in result.findings:
            if f.key != f"roofline:{name}":
                continue
            f.time_at_stake_ns = None if stake_ns is None else int(stake_ns)
            f.premise = ""  # the measured distance: no longer the (perhaps assumed) peaks'
            if placement(model) != placement(bound):
                # the placement's own explanation ("neither roof bounds it … fuse or batch") would contradict the
                # measured bound it now details: the detail says what each measure sees
                place = "below both roofs" if model == BELOW_ROOFS else f"{model}-bound"
                f.title += f"; measured speed of light: {verdict} ({sol_text})"
                # latency-bound: no unit near its peak — never "a unit the roofline does not draw bounds it"
                # (RTX 5090 CUTLASS GEMM at SM 32 % / memory 28 %)
                why = ("no unit is near its peak: latency or occupancy bounds it" if placement(bound) == BELOW_ROOFS
                       else "a unit the roofline does not draw (a cache level or a pipe) bounds it")
                f.detail = (f"On the spec's DRAM and compute peaks the roofline places it {place}; its speed-of-light "
                            f"counters measure {sol_text}: {why}, {verdict}, and the counters decide — its "
                            "verdict's next step applies.")
                f.category = verdict

    @staticmethod
    def name_launch(result: AnalysisResult | None, name: str) -> None:
        """Once kernel ``name``'s verdict is ``launch-bound`` while its roofline row says ``below-roofs`` (a placement
        that covers latency-, occupancy- and launch-limited kernels alike), its placement finding says which — the
        launches — instead of "latency, occupancy or launch overhead", and takes the verdict's category: the
        roofline never reads "latency/occupancy-bound" under a kernel verdict "launch-bound". In place; the row, its
        shares and time at stake stay the roofline's."""
        if result is None or result.skipped or not len(result.table):
            return
        t = result.table
        if not ((t["name"].astype(str) == name).to_numpy() & (t["bound"].astype(object) == BELOW_ROOFS).to_numpy()).any():
            return
        for f in result.findings:
            if f.key == f"roofline:{name}" and f.category != "data-quality":
                f.detail = ("Neither compute nor memory bandwidth bounds it: its launches do — most run shorter than "
                            "their launch call, and the GPU waits on the next launch (its kernel verdict: "
                            "launch-bound). Fuse it with its neighbours or capture the launches in a graph.")
                f.category = "launch-bound"

    @staticmethod
    def name_latency(result: AnalysisResult | None, name: str) -> None:
        """Once kernel ``name``'s verdict is ``latency/occupancy-bound`` while its roofline row says ``below-roofs``
        (the roofline's placement; the grid, stalls or occupancy beside it say why), the row's ``bound`` takes the
        verdict's name, :data:`~gpulens.analyzers._verdict_facts.LATENCY_BOUND` — in place; one name per kernel in
        every report. Its basis, shares and time at stake stay the roofline's."""
        if result is None or result.skipped or not len(result.table):
            return
        t = result.table
        hit = np.flatnonzero((t["name"].astype(str) == name).to_numpy()
                             & (t["bound"].astype(object) == BELOW_ROOFS).to_numpy())
        if len(hit):
            t.at[t.index[hit[0]], "bound"] = LATENCY_BOUND

    @staticmethod
    def _cache_levels(timeline: Timeline, hot: pd.DataFrame, work: pd.DataFrame, spec, measured) -> list[dict]:
        """Hierarchical roofline points where L2/L1 traffic counters exist: per kernel name, bytes, bytes/s and
        arithmetic intensity at L2 and L1, with the measured L2/L1 bandwidth roofs when rocprof-compute gave them."""
        cb = cache_bytes(timeline, hot["event_id"].to_numpy())
        if cb.isna().all().all():
            return []
        roofs = measured_roofs(measured)
        df = pd.DataFrame({"name": text_series(hot["name"]), "t": hot["time_ns"].to_numpy(dtype=float),
                           "flops": work["flops"].to_numpy(dtype=float), **{c: cb[c].to_numpy() for c in cb}})
        out = []
        for name, g in df.groupby("name", sort=False):
            row: dict = {"name": name}
            for lvl in ("l2", "l1"):
                ok = g[f"{lvl}_bytes"].notna()
                if not ok.any():
                    continue
                b, t, f = g.loc[ok, f"{lvl}_bytes"].sum(), g.loc[ok, "t"].sum(), g.loc[ok, "flops"].sum(min_count=1)
                row.update({f"{lvl}_bytes": float(b), f"{lvl}_bytes_per_s": b / t * 1e9 if t else None,
                            f"{lvl}_arithmetic_intensity": float(f / b) if b and f == f else None,
                            f"{lvl}_peak_bytes_per_s": roofs.get("L2Bw" if lvl == "l2" else "L1Bw")})
            if len(row) > 1:
                out.append(row)
        return out

    @staticmethod
    def _aggregate(per: pd.DataFrame, spec, kernel_names: np.ndarray, sheet_spec=None) -> pd.DataFrame:
        """One row per kernel name (order of first appearance; then by time): sums over its launches by name code
        (numpy, no per-name DataFrame), the precision/unit with the most time among launches with FP work (ties:
        first in sorted order, missing last, as ``groupby(dropna=False).idxmax`` picks), then the roof arithmetic
        per name. ``per["g"]``: codes into ``kernel_names`` (−1 = missing name). ``spec`` holds the roofs judged
        against (measured ones applied); ``sheet_spec`` the datasheet's, for ``datasheet_roof_pct`` (``spec`` when
        None)."""
        bw = float(spec.memory_bandwidth)
        sheet_spec = spec if sheet_spec is None else sheet_spec
        sheet_bw = float(sheet_spec.memory_bandwidth or bw)
        measured = sheet_spec is not spec  # measured peaks replace datasheet ones: the two shares differ
        codes, names = recode_first_seen(per["g"].to_numpy(), kernel_names)
        keep = codes >= 0
        g = codes[keep]
        G = len(names)
        t_all = per["time_ns"].to_numpy(dtype=float)[keep]
        fl = per["flops"].to_numpy(dtype=float)[keep]
        by = per["bytes"].to_numpy(dtype=float)[keep]
        is_ctr = _is_text(per["source"], "counters")
        has = ~np.isnan(fl)
        calls = np.bincount(g, minlength=G)
        time = np.bincount(g, t_all, minlength=G)
        nf = np.bincount(g[has], minlength=G)
        tf = np.bincount(g[has], t_all[has], minlength=G)
        # as Series.sum over each name's launches with a figure (one group order for both sums)
        ff, bsum = group_sums_many(g[has], [fl[has], np.nan_to_num(by[has], nan=0.0)], G)
        hb = has & ~np.isnan(by)
        nb = np.bincount(g[hb], minlength=G)
        bb = np.where(nb > 0, bsum, np.nan)
        # names with no FLOP figure: their bytes and bandwidth over the launches with a byte figure (AI unknown)
        ob = ~np.isnan(by)
        nob = np.bincount(g[ob], minlength=G)
        tob, bob = np.bincount(g[ob], t_all[ob], minlength=G), np.bincount(g[ob], by[ob], minlength=G)
        bctr = per["bytes_counted"].to_numpy(dtype=bool)[keep] if "bytes_counted" in per else np.zeros(len(g), bool)
        ob_ctr = np.bincount(g[ob & bctr], minlength=G) > 0
        from_ctr = np.bincount(g[has & is_ctr[keep]], minlength=G) > 0
        prec = np.full(G, None, dtype=object)
        matrix = np.zeros(G, dtype=bool)
        pos = has & (fl > 0)
        if pos.any():
            # time per (name, precision, matrix) in sorted order (as a sorted groupby), on integer codes: no
            # per-launch strings in a DataFrame, the precision and matrix columns read by code and numbered as
            # pd.factorize(values, sort=True) numbers them; with a missing precision or matrix flag, pandas' own
            # groupby (its order of missing keys is its own)
            pc, pu, pv = _sorted_codes(per["precision"], keep, pos)
            mc, mu, mv = _sorted_codes(per["matrix"], keep, pos)
            if (pc < 0).any() or (mc < 0).any():
                pv, mv = pv(), mv()
                w = pd.DataFrame({"g": g[pos], "p": pv, "m": mv, "t": t_all[pos]})
                w = w.groupby(["g", "p", "m"], dropna=False, sort=True)["t"].sum().reset_index()
                w = w.iloc[np.lexsort((-w["t"].to_numpy(), w["g"].to_numpy()))].drop_duplicates("g")
                gi, pbest, mbest = w["g"].to_numpy(), w["p"].tolist(), w["m"].tolist()
            else:
                ukey, inv = unique_ints((g[pos] * len(pu) + pc) * len(mu) + mc, return_inverse=True)
                tsum = np.bincount(inv.reshape(-1), t_all[pos], minlength=len(ukey))  # integer ns: exact
                ug = ukey // (len(pu) * len(mu))
                o = np.lexsort((-tsum, ug))
                o = o[np.r_[True, ug[o][1:] != ug[o][:-1]]]  # the most time per name; ties: first in sorted order
                gi = ug[o]
                pbest = np.asarray(pu, dtype=object)[(ukey[o] // len(mu)) % len(pu)].tolist()
                mbest = np.asarray(mu, dtype=object)[ukey[o] % len(mu)].tolist()
            prec[gi] = [None if x is None or x != x else x for x in pbest]
            matrix[gi] = [bool(x) if x == x and x is not None else True for x in mbest]
        # the FLOP counters some launch of each name lacked (a lower-bound FLOP figure), first text per name
        # (only a launch from counters has counters missing: the texts of those launches only are read)
        sel = has & (_lacks_counters(per["flops_missing"], is_ctr)[keep] if "flops_missing" in per else False)
        lower = pd.Series(per["flops_missing"].to_numpy(dtype=object)[keep][sel]).groupby(g[sel]).first().to_dict() \
            if sel.any() else {}
        peaks: dict = {}
        own = spec.origin if spec.origin != "builtin" else None  # the user's spec file gave the roofs: check it
        out = []
        for i in range(G):
            row = {"name": names[i], "calls": int(calls[i]), "time_ns": int(time[i])}
            if not nf[i]:
                if nob[i]:
                    row.update(_bandwidth_only(float(bob[i]), float(tob[i]), bw, sheet_bw, bool(ob_ctr[i]), own))
                out.append(row)
                continue
            t, flops, nbytes = float(tf[i]), float(ff[i]), float(bb[i])
            if flops <= 0:  # no FP work at all (a copy kernel): no precision; the fp32 vector roof places the ridge
                prec[i], matrix[i] = None, False
            pk = (math_precision(prec[i], bool(matrix[i]), bool(from_ctr[i])), bool(matrix[i]))  # bf16 add: fp32
            if pk not in peaks:
                peak = spec.peak_flops(*pk)
                sheet_peak = sheet_spec.peak_flops(*pk) if measured else peak
                peaks[pk] = (peak, spec.achievable_flops(peak[1]) if peak else None, sheet_peak)
            peak, ach, sheet_peak = peaks[pk]
            # the datasheet (theoretical) peak — not a measured one that replaced it
            sheet = sheet_peak[0] if sheet_peak else peak[0] if peak else np.nan
            # the compute roof: the documented achievable peak of that unit where one is known (module doc)
            pf, roof = ach if ach else ((peak[0], peak[1]) if peak else (np.nan, None))
            # no FP work is 0 FLOP/s whatever the (perhaps unrecorded) duration: a known figure, not unknown
            fps = flops / t * 1e9 if t > 0 else 0.0 if flops == 0 else np.nan
            bps = nbytes / t * 1e9 if t > 0 and nbytes == nbytes else np.nan
            ai = flops / nbytes if nbytes and nbytes == nbytes else np.nan
            ridge = pf / bw
            # attained / attainable: on the memory side (AI < ridge) that is bandwidth use, B/t / peak bandwidth
            # (= F/t / (AI × bandwidth), and still defined for 0 FLOPs); on the compute side F/t / peak FLOP/s
            memory_side = ai == ai and ai < ridge
            pct = 100.0 * (bps / bw if memory_side else fps / pf) if pf == pf else np.nan
            sheet_pct = (100.0 * (bps / sheet_bw if ai == ai and ai < sheet / sheet_bw else fps / sheet)
                         if sheet == sheet else np.nan) if ach or measured else pct
            side = ("memory" if memory_side else "compute") if ai == ai else None
            note = _above_roof(sheet_pct, bool(from_ctr[i]), own)
            if note:  # no GPU runs above its roof: the figures, not the kernel, are off — attained rates unknown
                pct = sheet_pct = fps = bps = np.nan
            else:  # above the achievable figure, within the datasheet roof: at its roof (and the datasheet
                # share within its rounding allowance: at the datasheet roof)
                pct = min(pct, 100.0) if pct == pct else pct
                sheet_pct = at_most_roof(sheet_pct)
            bound = bound_of(pct, side)
            # FLOPs a lower bound (a FP counter of the formula not collected): the placement stands on the collected
            # counters and says so — the AI, FLOP/s and a compute-side share are at least these; a memory-side or
            # below-roofs placement holds only if the uncounted precisions did no work
            lb = lower_bound_words(lower[i]) if i in lower else None
            row.update(flops=flops, bytes=nbytes, flops_per_s=fps, bytes_per_s=bps, arithmetic_intensity=ai,
                       precision=prec[i], peak_flops_per_s=pf, compute_roof=roof, peak_bytes_per_s=bw,
                       ridge_point=ridge, bound=bound,
                       ridge_side=side, roof_pct=pct, datasheet_roof_pct=sheet_pct,
                       time_at_stake_ns=time_at_stake(row["time_ns"], pct, row["calls"]),
                       flops_source="counters" if from_ctr[i] else "shapes", roof_note=note, flops_lower_bound=lb)
            out.append(row)
        t = pd.DataFrame(out, columns=list(COLUMNS))
        t["precision"] = t["precision"].astype(object).where(t["precision"].notna(), None)
        t["flops_source"] = t["flops_source"].astype(object).where(t["flops_source"].notna(), None)
        t["bound"] = t["bound"].astype(object).where(t["bound"].notna(), None)
        t["ridge_side"] = t["ridge_side"].astype(object).where(t["ridge_side"].notna(), None)
        t["roof_note"] = t["roof_note"].astype(object).where(t["roof_note"].notna(), None)
        t["placement_note"] = None  # set when a measured speed of light overrules the placement (settle)
        t["flops_lower_bound"] = t["flops_lower_bound"].astype(object).where(t["flops_lower_bound"].notna(), None)
        t["compute_roof"] = t["compute_roof"].astype(object).where(t["compute_roof"].notna(), None)
        t["time_at_stake_ns"] = t["time_at_stake_ns"].astype("Int64")
        return t.sort_values(["time_ns", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)

    @staticmethod
    def _findings(t: pd.DataFrame, summary: dict, premise: str = "") -> list[Finding]:
        """The placement finding of each kernel (its distance to the roof at stake; ``premise``: the clause it rests
        on when the peaks are an assumed GPU's, :func:`gpulens.analyzers._stake.assumed_premise`) and the coverage
        note."""
        out: list[Finding] = []
        total = max(int(t["time_ns"].sum()), 1)
        # on an assumed GPU every placement says so: its peaks are a guess (speed-of-light counters decide instead)
        on = f" of an assumed {summary['device']}" if summary.get("device_assumed") else ""
        for r in t.itertuples():
            if r.roof_note:
                out.append(Finding(f"Roofline figures of {_short(r.name)} exceed its roof: % of roof unknown",
                                   r.roof_note + ".", severity="info", category="data-quality", kernel=r.name,
                                   key=f"roofline:{r.name}", parent=f"kernel:{r.name}",
                                   action="Measure this kernel's DRAM bytes and FLOPs with counters (ncu --section "
                                          "SpeedOfLight, or rocprof-compute) instead of the op-shape model."
                                   if r.flops_source == "shapes" else
                                   "Check the identified GPU and pass --device-spec FILE with its peak figures."))
                continue
            if r.roof_pct != r.roof_pct or r.roof_pct is None:
                continue
            sev = "warning" if r.time_ns > 0.1 * total and r.roof_pct < 50 else "info"
            side = f"{r.ridge_side} side of the ridge" if r.ridge_side else "ridge side unknown (no byte figure)"
            if r.bound in (None, BELOW_ROOFS):
                title = f"{_short(r.name)} runs below both roofs{on} ({pct_words(r.roof_pct)} of attainable, {side})"
                if r.flops_lower_bound:
                    title += " on a lower-bound FLOP count"
                hint = _advice.alignment_hint(r.name)
                # a library kernel picked for unaligned operands (…_align1) is held by its narrow loads, whatever
                # its grid: the alignment hint, not "small grids, short kernels"
                detail = ("Neither compute nor memory bandwidth bounds it. " + hint if hint else
                          below_roofs_detail(r.time_ns, r.calls, summary.get("vendor")))
                cat = "latency/occupancy-bound"
                if r.flops_lower_bound:
                    detail += (f" Its FLOP count is {r.flops_lower_bound}: with the uncounted work it may sit nearer "
                               "its roofs.")
            else:
                ach = str(r.compute_roof or "").startswith("achievable.")
                roof = (f"{'achievable ' if ach else ''}{roof_precision(r)} compute roof" if r.bound == "compute"
                        else "memory roof")
                sheet = (f"; {pct_words(r.datasheet_roof_pct)} of the datasheet peak" if ach and r.bound == "compute"
                         and r.datasheet_roof_pct == r.datasheet_roof_pct
                         and abs(r.datasheet_roof_pct - r.roof_pct) >= 0.5 else "")
                title = f"{_short(r.name)} at {pct_words(r.roof_pct)} of the {roof}{on} ({side}{sheet})"
                if r.flops_lower_bound and (r.bound == "memory" or r.ridge_side == "memory"):
                    title += " on a lower-bound AI"  # the uncounted FLOPs may move it right of the ridge
                detail = (f"Arithmetic intensity {r.arithmetic_intensity:.1f} FLOP/B vs ridge point "
                          f"{r.ridge_point:.0f} FLOP/B; {r.flops_per_s / 1e12:.2f} TFLOP/s, "
                          f"{r.bytes_per_s / 1e9:.0f} GB/s (FLOPs from {r.flops_source}"
                          + (f", {r.flops_lower_bound}: AI and FLOP/s at least these — the memory-side placement "
                             "holds only if the uncounted precisions did no work" if r.flops_lower_bound and
                             r.ridge_side == "memory" else f", {r.flops_lower_bound}: at least this"
                             if r.flops_lower_bound else "") + ").")
                cat = f"{r.bound}-bound"
            # the kernel's verdict (analyzer ``verdicts``) carries the same time at stake: this finding details it
            out.append(Finding(title, detail, severity=sev, category=cat, kernel=r.name,
                               time_at_stake_ns=int(r.time_at_stake_ns),
                               key=f"roofline:{r.name}", parent=f"kernel:{r.name}", premise=premise))
        out.sort(key=lambda f: -(f.time_at_stake_ns or 0))
        out = out[:8]
        cov = summary["coverage"]
        of_all = summary["coverage_of_kernel_time"]
        out.append(Finding(
            (f"FLOPs known for {pct_words(100 * cov)} of the critical kernels' time "
             f"({pct_words(100 * of_all)} of all kernel time)") if summary.get("coverage_basis") == "time" and
            of_all is not None else f"FLOPs known for {pct_words(100 * cov)} of the critical kernels' launches "
                                    "(their durations were not recorded)",
            f"{plural(summary['launches_from_counters'], 'launch(es)')} from counters"
            + (f" ({summary['launches_flops_lower_bound']} of them a lower bound: FP counters not collected)"
               if summary.get("launches_flops_lower_bound") else "") + ", "
            f"{summary['launches_from_shapes']} from "
            "op shapes; ops without a model: " + (", ".join(sorted(summary["ops_without_model"])) or "none") + ".",
            severity="info", category="coverage",
            # a note on what the roofline covers: a next step only when something is missing
            action="" if cov >= 1.0 else (
                "For the kernels without a FLOP figure, record op shapes (torch.profiler record_shapes=True, "
                "with_flops=True) or collect FLOP counters ("
                + _advice.for_vendor(summary.get("vendor"), "ncu", "rocprof-compute").replace(", or ", ", ") + ")"
                + (" — ops without a FLOP model: " + ", ".join(sorted(summary["ops_without_model"])[:5])
                   if summary["ops_without_model"] else "")
                + (" — ops whose input dtypes were not recorded (the models need them): "
                   + ", ".join(sorted(summary["ops_without_dtypes"])[:5]) if summary["ops_without_dtypes"] else "")
                + ".")))
        return out


def _is_text(values: pd.Series, text: str) -> np.ndarray:
    """Boolean numpy mask of the rows of a per-launch work column whose value is ``text``, read on its codes
    (:func:`gpulens.analyzers._work.text_codes`)."""
    codes, uniq = text_codes(values)
    hit = np.flatnonzero(np.array([isinstance(u, str) and u == text for u in uniq], dtype=bool))
    return np.isin(codes, hit) if len(hit) else np.zeros(len(codes), dtype=bool)


def _lacks_counters(flops_missing: pd.Series, from_counters: np.ndarray) -> np.ndarray:
    """Boolean numpy mask of the launches whose FLOP figure lacks counters of its formula (a non-empty
    ``flops_missing`` text, :data:`gpulens.analyzers._work.WORK_COLUMNS`): only the launches whose work came from
    counters (``from_counters``) can, so only their values are read."""
    out = np.zeros(len(flops_missing), dtype=bool)
    rows = np.flatnonzero(from_counters)
    if len(rows):
        vals = flops_missing.to_numpy(dtype=object)[rows]
        out[rows] = [isinstance(x, str) and x != "" for x in vals]
    return out


def _sorted_codes(values: pd.Series, keep: np.ndarray, pos: np.ndarray):
    """The rows ``keep``, then ``pos``, of a per-launch work column as ``pd.factorize(v, sort=True)`` gives them —
    (codes, sorted distinct values) — read on the column's codes (distinct values sorted, not every row), and a
    function returning the values themselves (object array, NaN where missing) for the rare caller that needs them."""
    codes, uniq = text_codes(values)
    c = codes[keep][pos]
    present = np.flatnonzero(np.bincount(c[c >= 0], minlength=len(uniq)))  # the codes seen (no sort of the rows)
    rank, sorted_uniq = pd.factorize(np.asarray(uniq[present], dtype=object), sort=True)
    lut = np.full(len(uniq) + 1, -1, dtype=np.int64)  # last slot: code −1 stays −1
    lut[present] = rank
    return lut[c], sorted_uniq, lambda: np.append(uniq, np.nan).astype(object)[np.where(c >= 0, c, len(uniq))]
