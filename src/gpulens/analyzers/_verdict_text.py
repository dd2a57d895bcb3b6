"""The evidence text of a kernel verdict (:mod:`gpulens.analyzers.verdict_rules`): the figures a verdict rests
on, in words — roof position, speed of light, grid and waves, occupancy and limiter, launches, stalls — and the
below-both-roofs wording. Re-exported by :mod:`~gpulens.analyzers.verdict_rules`."""

from __future__ import annotations

from gpulens.analyzers import _advice, _coalescing
from gpulens.analyzers._occ_bound import not_recorded
from gpulens.analyzers._stake import SOL_BOUND_PCT, SOL_UNIT_WORDS
from gpulens.analyzers._verdict_facts import BOUND_TO_VERDICT, Evidence, SMALL_GRID_WAVES, _grid_short, _of_peak, _pct
from gpulens.units import fmt_ns, pct_words


def summed_over_gpus(gpus: object) -> str:
    """``" (Σ over 4 GPUs)"`` after a kernel verdict's title when the kernel ran on several GPUs (hotspots
    ``gpus``): the time at stake shown beside it is then device time summed over them, which may exceed the run's
    wall span (ncclAllReduce on a V100×4: 468 ms ≈ 4 × 117 ms) — the words of the tables' "(Σ over GPUs)"
    headers (:func:`gpulens.reports._run_text.gpu_sum_label`), short for the first screen; "" otherwise."""
    if not isinstance(gpus, (int, float)) or gpus != gpus or gpus <= 1:
        return ""
    return f" (Σ over {int(gpus)} GPUs)"


def _state(pct: float) -> str:
    """"saturated" at ≥ :data:`~gpulens.analyzers.speed_of_light.SATURATED_PCT` % of peak (Nsight Compute's
    SOLBottleneck rule, 80 %), else "busy": a unit between :data:`SOL_BOUND_PCT` (60 %, below which ncu suspects
    latency) and 80 % is not "saturated" to a kernel engineer (a tensor pipe at 68.4 %)."""
    from gpulens.analyzers.speed_of_light import SATURATED_PCT

    return "saturated" if pct >= SATURATED_PCT else "busy"


def saturated_words(e: Evidence) -> str | None:
    """What a measured speed of light says when a unit runs at ≥ :data:`SOL_BOUND_PCT` % of its peak but names no
    compute/memory bound (ncu's SM throughput alone: its arithmetic and load/store pipes are not told apart — a naive
    fp32 GEMM at 97.3 % SM throughput, 1.3 % DRAM): "the SM runs at 97.3 % of its peak (measured): saturated, not
    latency-bound"; between 60 and 80 % "busy (≥ 60 %), not latency-bound" (:func:`_state`); None otherwise (a
    bound named, no figure, or a figure below the threshold)."""
    if e.sol_bound is not None or e.sol_pct is None or e.sol_pct < SOL_BOUND_PCT:
        return None
    unit = "the SM" if e.sol_unit in (None, "compute") else f"its {e.sol_unit}"
    state = _state(e.sol_pct)
    if state == "busy":
        state = f"busy (≥ {SOL_BOUND_PCT:g} %, below which ncu suspects latency)"
    return f"{unit} runs at {pct_words(e.sol_pct)} of its peak (measured): {state}, not latency-bound"


def saturated_step(e: Evidence) -> str | None:
    """The next step of an undetermined kernel whose measured unit is saturated (:func:`saturated_words`): the
    saturation first — the answer a reader needs — then the counters that would tell which pipe; None otherwise."""
    words = saturated_words(e)
    if words is None or not e.sol_missing:
        return None
    return f"{words[0].upper()}{words[1:]}; collect {e.sol_missing}."


def _no_bound_words(e: Evidence) -> str:
    """The speed-of-light evidence's conclusion when it names no bound: 'no bound', or the saturated unit."""
    if saturated_words(e) is None:
        return "no bound"
    return (f"no bound named, but {'the SM' if e.sol_unit in (None, 'compute') else e.sol_unit} is "
            f"{_state(e.sol_pct)}")


def _below_roofs_text(e: Evidence) -> str:
    """The evidence's last words for a below-roofs verdict: the cause when the kernel's name gives one (``align1``),
    and what rules latency/occupancy out or leaves it unmeasured."""
    seen = []
    if e.waves_per_sm is not None:
        from gpulens.analyzers._occ_findings import waves_text

        seen.append(f"its grid fills the GPU ({waves_text(e.waves_per_sm)} waves)")
    elif e.mean_blocks is not None and e.num_sms:
        seen.append(f"its grid covers every {_advice.vendor_word(e.vendor, 'sm')}")
    seen.append("achieved occupancy " + ("not counted" if e.achieved_occupancy_pct is None else
                                         f"{pct_words(e.achieved_occupancy_pct)}"))
    if e.stall_class is None:
        seen.append("no stall counters")
    hint = _advice.alignment_hint(e.name)
    cause = ("below both roofs, the cause its full name gives: align"
             + hint.removeprefix(_advice.ALIGN_LEAD).split(":")[0]
             + " — an unaligned GEMM shape made the library pick a kernel with narrow loads" if hint else
             "below both roofs: neither compute nor memory bandwidth bounds it, and no figure here names the cause")
    return f"; {cause}; not shown to be latency or occupancy ({', '.join(seen)})"


def _limiter_words(limiter: str | None, vendor: str | None) -> str:
    """An occupancy limiter code in the vendor's words (AMD: wavefronts, LDS), "not known" without one."""
    if not limiter:
        return "not known"
    words = {"warps": _advice.vendor_word(vendor, "warps"), "shared_memory": _advice.vendor_word(vendor, "smem")} \
        if vendor == "amd" else {}
    return ", ".join(words.get(p, p).replace("_", " ") for p in str(limiter).split(", "))


#: rocprof-compute's peak of its "LDS Bank Conflicts/Access" (the panel's ``peak: 32``: a 32-way conflict).
LDS_CONFLICTS_PEAK = 32


def lds_conflicts_text(v: float) -> str:
    """An AMD kernel's LDS bank conflicts in words with their unit: "LDS bank conflicts 0.25 conflict cycles per
    access (rocprof-compute LDS Bank Conflicts/Access, 0 = none, peak 32)". ``v`` is SQ_LDS_BANK_CONFLICT /
    (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT), the cycles the LDS spent on bank conflicts per conflict-free access
    cycle (rocprof-compute ``0200_system-speed-of-light.yaml``, unit "Conflicts/access")."""
    return (f"LDS bank conflicts {v:.3g} conflict cycles per access (rocprof-compute LDS Bank Conflicts/Access, "
            f"0 = none, peak {LDS_CONFLICTS_PEAK})")


def lds_bank_conflict_text(v: float) -> str:
    """"LDS stalled by bank conflicts 35.5 % of GPU time (rocprof LDSBankConflict, 0 % optimal, 100 % bad)" — the
    rocprof v1 derived metric, a share of time, not rocprof-compute's conflict cycles per access."""
    return f"LDS stalled by bank conflicts {pct_words(v)} of GPU time (rocprof LDSBankConflict, 0 % optimal, 100 % bad)"


def lds_words(e: Evidence) -> str:
    """The measured LDS bank-conflict figures of ``e``, joined ("" when none was counted)."""
    return "; ".join(([lds_conflicts_text(e.lds_conflicts)] if e.lds_conflicts is not None else [])
                     + ([lds_bank_conflict_text(e.lds_bank_conflict_pct)]
                        if e.lds_bank_conflict_pct is not None else []))


def measured_peak_words(e: Evidence) -> str:
    """"62.2 % of the measured HBM peak (1389 GB/s; rated 1638)": a kernel's HBM bandwidth as a share of the peak
    rocprof-compute's empirical roofline measured on this GPU (roofline.csv HBMBw), the peak the memory bound is
    judged against, with the rated one beside it; the peaks left out when unknown."""
    peaks = (f" ({e.hbm_peaks_bps[0] / 1e9:.0f} GB/s; rated {e.hbm_peaks_bps[1] / 1e9:.0f})"
             if e.hbm_peaks_bps else "")
    return f"{pct_words(e.memory_measured_pct)} of the measured HBM peak{peaks}"


def _evidence_text(e: Evidence) -> str:
    parts = []
    if e.sol_bound is not None or e.sol_missing:
        measured = (f", {measured_peak_words(e)}" if e.memory_measured_pct is not None
                    and (e.memory_pct is None or e.memory_measured_pct >= e.memory_pct + 0.5) else "")
        # a cache busier than the memory figure is what made the memory side (speed_of_light's max): name it
        cache = max(((x, w) for x, w in ((e.l1_pct, "L1/TEX"), (e.l2_pct, "L2")) if x is not None), default=None)
        if cache is not None and (e.memory_pct is None or cache[0] >= e.memory_pct + 0.5):
            # L1 is over the kernel's elapsed cycles (_stake.l1_of_row), below ncu's % of the cycles it was active;
            # its window is named (ncu's own L1/TEX Cache Throughput reads the larger figure)
            win = f" {e.l1_window}" if cache[1] == "L1/TEX" and e.l1_window else ""
            measured += f" ({cache[1]} {pct_words(cache[0])} of peak{win})"
        comp = f"compute ({e.compute_side})" if e.compute_side else "compute"
        mem = "throughput unknown (DRAM traffic counted, no duration recorded)" \
            if e.memory_pct is None and e.memory_untimed else _of_peak(e.memory_pct)
        parts.append(f"speed of light: {comp} {_of_peak(e.compute_pct)}, memory {mem}{measured} "
                     "→ "
                     f"{BOUND_TO_VERDICT.get(e.sol_bound, e.sol_bound) if e.sol_bound else _no_bound_words(e)}")
        # the metric each figure came from is the speed_of_light table's evidence, said there once
    if (e.bound is not None or e.roof_pct is not None) and not (e.sol_bound and e.roof_source == "speed of light"):
        ai = "" if e.arithmetic_intensity is None else f", AI {e.arithmetic_intensity:.2f} FLOP/B"
        if e.flops_lower_bound:  # a FP counter not collected: the AI (and a compute-side share) at least this
            ai = (ai.replace(", AI ", ", AI at least ") + f", its FLOP count {e.flops_lower_bound}")
        side = f"{e.ridge_side} side of the ridge" if e.ridge_side else "ridge side unknown"
        of = "of attainable"
        if (e.compute_roof or "").startswith("achievable.") and e.datasheet_roof_pct is not None \
                and e.roof_pct is not None and e.roof_source == "roofline" \
                and abs(e.roof_pct - e.datasheet_roof_pct) >= 0.5:  # the memory side's share is the same
            of = (f"of attainable at the achievable {e.compute_roof.rsplit('.', 1)[-1]} peak "
                  f"({_pct(e.datasheet_roof_pct)} of the datasheet peak)")
        src = (f"{e.roof_source} on an assumed {e.roof_assumed} (peaks assumed, not this GPU's for certain)"
               if e.roof_assumed and e.roof_source == "roofline" else e.roof_source)
        # the roofline's placement in the words its own finding uses: "below-roofs" is a row's name only until the
        # verdict names why (the row then reads "latency/occupancy", :meth:`Roofline.name_latency`), so the evidence
        # never says "roofline: below-roofs" beside a roofline row that says "latency/occupancy" (the demo's GEMMs)
        where = "below both roofs" if e.bound == "below-roofs" else e.bound or "bound unknown"
        parts.append(f"{src}: {where}, {side}, {_pct(e.roof_pct)} {of}{ai}")
    if e.achieved_occupancy_pct is not None or e.limiter:
        counted = [f"{_pct(x)} {w}" for x, w in ((e.achieved_occupancy_pct, "achieved"),
                                                  (e.theoretical_occupancy_pct, "theoretical")) if x is not None]
        if e.theoretical_occupancy_pct is None and e.theoretical_max_pct is not None:  # its block size bounds it
            counted.append(f"at most {_pct(e.theoretical_max_pct)} theoretical (its block size alone: "
                           f"{not_recorded(e.vendor)})")
        missing = " and ".join(w for x, w in ((e.achieved_occupancy_pct, "achieved"),
                                              (e.theoretical_occupancy_pct or e.theoretical_max_pct, "theoretical"))
                               if x is None)
        lims = _limiter_words(e.limiters or e.limiter, e.vendor)
        parts.append(f"occupancy {' / '.join(counted) or 'unknown'}{f' ({missing} not counted)' if counted and missing else ''}, "
                     f"{'limiters' if ', ' in lims else 'limiter'} {lims.replace(', ', ' and ')}")
    if e.stall_class:
        parts.append(f"stalls: {_pct(e.stall_pct)} {e.stall_class.replace('_', ' ')} "
                     f"(top {str(e.top_stall).replace('_', ' ')})")
    if lds_words(e):  # measured LDS use: judged beside the stalls and the LDS advice
        parts.append(lds_words(e))
    coal = _coalescing.evidence_text(e.sectors_per_request, e.name)
    if coal:
        parts.append(coal)
    if e.mean_blocks is not None and e.num_sms:
        parts.append(f"{e.mean_blocks:.0f} block{'' if f'{e.mean_blocks:.0f}' == '1' else 's'} on {e.num_sms} "
                     f"{_advice.vendor_word(e.vendor, 'sms')}"
                     + (f" (time-weighted mean of {_grids_text(e)}" + (
                         f"; the grid with the most time has {e.main_grid_blocks}" if e.main_grid_blocks else "")
                        + ")" if e.blocks_vary else ""))
        if e.waves_per_sm is not None and e.waves_per_sm < SMALL_GRID_WAVES and not _grid_short(e):
            # a block on every SM, yet under half the blocks they hold at once: the figure a latency/occupancy
            # class rests on (latency_evidence), shown beside it
            from gpulens.analyzers._occ_findings import waves_text

            parts[-1] += f", {waves_text(e.waves_per_sm)} waves"
    if e.graph_replayed:
        parts.append("replayed by a graph launch: no launch call of its own, no per-kernel launch figures")
    elif e.short_launch_frac or e.launch_idle_ns:
        parts.append(f"{pct_words(100 * (e.short_launch_frac or 0))} of launches shorter than the launch call; "
                     f"{fmt_ns(e.launch_idle_ns)} of launch idle before it")
        if e.launch_latency_p50_ns is not None:
            parts.append(f"launch latency (start − call start) p50 {fmt_ns(e.launch_latency_p50_ns)}, "
                         f"p90 {fmt_ns(e.launch_latency_p90_ns)}")
    if e.exposed_comm_ns is not None:
        parts.append(f"{fmt_ns(e.exposed_comm_ns)} of {fmt_ns(e.time_ns)} not overlapped by compute")
    elif e.kind == "comm":  # verdicts.exposed_comm_by_name: a launch on another clock than its GPU's kernels
        from gpulens.analyzers._span import OVERLAP_UNKNOWN_CLOCKS

        parts.append("overlap with compute " + OVERLAP_UNKNOWN_CLOCKS.format(a="collectives", b="kernels"))
    return "; ".join(parts) or "timeline only: no roofline, occupancy or stall data"


def _grids_text(e: Evidence) -> str:
    """The launches a time-weighted mean grid is over, in words: "its 8 grid sizes" (the occupancy table's count)
    or "its launches' grids" when the count is unknown."""
    return f"its {e.grid_sizes} grid sizes" if e.grid_sizes and e.grid_sizes > 1 else "its launches' grids"


def _latency_figure(e: Evidence, low_occupancy_pct: float = 40.0, vendor: str | None = None) -> str:
    """The one figure beside a low roofline share that says latency or occupancy holds the kernel (the first that
    :func:`gpulens.analyzers._verdict_facts.latency_evidence` accepts): a short grid, few waves, a low achieved
    occupancy, latency-class stalls or a low measured speed of light; "" when none is known."""
    from gpulens.analyzers._occ_findings import waves_text
    from gpulens.analyzers._verdict_facts import _LATENCY_STALLS

    if _grid_short(e):
        return (f"{e.mean_blocks:.0f} {'block' if f'{e.mean_blocks:.0f}' == '1' else 'blocks'} on {e.num_sms} "
                f"{_advice.vendor_word(e.vendor or vendor, 'sms')}")
    if e.waves_per_sm is not None and e.waves_per_sm < SMALL_GRID_WAVES:
        return f"{waves_text(e.waves_per_sm)} waves"
    if e.achieved_occupancy_pct is not None and e.achieved_occupancy_pct < low_occupancy_pct:
        return f"achieved occupancy {pct_words(e.achieved_occupancy_pct)}"
    if e.stall_class in _LATENCY_STALLS and e.stall_pct is not None:
        return f"{pct_words(e.stall_pct)} of stalls on {e.stall_class.replace('_', ' ')}"
    return ""


def proof_words(e: Evidence, verdict: str, low_occupancy_pct: float = 40.0, vendor: str | None = None) -> str:
    """The one or two figures that prove a kernel's ``verdict``, for its finding's title after the class — the
    answer first, the rest of the evidence (:func:`_evidence_text`) in the detail: "compute 32.1 %, memory 27.7 %
    of peak (measured)" (the speed of light decided), "4.2 % of its roofline, 80 blocks on 132 SMs", "71.3 % of its
    memory roof", "5 of 6 launches shorter than their launch call, 31.20 µs of launch gaps before them". "" for an
    undetermined kernel (its evidence says what is missing). ``vendor``: its words (SMs or CUs)."""
    if verdict == "communication-bound":
        return (f"{fmt_ns(e.exposed_comm_ns)} of its {fmt_ns(e.time_ns)} not overlapped by compute"
                if e.exposed_comm_ns is not None and e.time_ns is not None else "")
    if verdict == "launch-bound":
        return (f"{pct_words(100 * (e.short_launch_frac or 0))} of its launches shorter than their launch call, "
                f"{fmt_ns(e.launch_idle_ns)} of GPU idle waiting on them")
    if verdict == "undetermined":
        return ""
    if e.sol_bound is not None and BOUND_TO_VERDICT.get(e.sol_bound) == verdict:  # measured speed of light decided
        comp = f"compute ({e.compute_side})" if e.compute_side else "compute"
        figs = [f"{w} {pct_words(x)}" for w, x in ((comp, e.compute_pct), ("memory", e.memory_pct)) if x is not None]
        if e.sol_unit == SOL_UNIT_WORDS["dram_measured_pct"] and e.memory_measured_pct is not None \
                and verdict == "memory-bound":  # judged against the measured HBM peak: that one first, both peaks
            rest = [f for f in figs if not f.startswith("memory ")]
            return measured_peak_words(e) + (f", {rest[0]} of peak" if rest else "")
        if e.sol_unit and e.sol_pct is not None and e.sol_unit not in ("compute", "memory", "tensor pipe") \
                and verdict == "memory-bound":  # a cache or DRAM figure is what bounds it: that one first
            figs = [f"{e.sol_unit} {_pct(e.sol_pct)}"] + figs[:1]
        return ", ".join(figs) + " of peak (measured)" if figs else "measured speed of light"
    if e.roof_pct is not None:
        where = "" if e.roof_source == "roofline" else " (measured speed of light)"
        assumed = f" on an assumed {e.roof_assumed}" if e.roof_assumed and e.roof_source == "roofline" else ""
        if verdict in ("compute-bound", "memory-bound"):
            return f"{pct_words(e.roof_pct)} of its {verdict.split('-')[0]} roof{assumed}{where}"
        head = f"{pct_words(e.roof_pct)} of its roofline{assumed}{where}"
        fig = _latency_figure(e, low_occupancy_pct, vendor) if verdict == "latency/occupancy-bound" else ""
        return f"{head}, {fig}" if fig else head
    if verdict == "latency/occupancy-bound" and _grid_short(e):
        return _latency_figure(e, low_occupancy_pct, vendor)
    if e.stall_class and e.stall_pct is not None:
        mem = e.memory_pct if e.memory_pct is not None else e.dram_pct
        queue = (f" (a full SM queue: memory side {pct_words(mem)} of peak)" if verdict == "memory-bound"
                 and mem is not None and mem < 60.0 else "")  # verdict_rules' stall rule, SOL_BOUND_PCT
        return f"{pct_words(e.stall_pct)} of stalls on {e.stall_class.replace('_', ' ')}{queue}"
    if e.achieved_occupancy_pct is not None:
        return f"achieved occupancy {pct_words(e.achieved_occupancy_pct)}"
    return ""


def sol_text(e: Evidence) -> str:
    """A kernel's measured speed of light in words: "compute 32 %, memory 28 % of peak" (the sides measured)."""
    parts = [f"{side} {pct_words(pct)}" for side, pct in (("compute", e.compute_pct), ("memory", e.memory_pct))
             if pct is not None]
    return (", ".join(parts) + " of peak") if parts else "its speed-of-light counters"


def graph_replay_words(graphs: "pd.DataFrame", rows: int) -> str:
    """The title of the finding on whole CUDA graph replays among the verdict table's ``rows`` critical rows
    (``graphs``: their verdict rows, columns ``name``, ``calls``, ``time_ns``, ``share``). The figures are the
    table's own, named as the table names them: the rows' GPU time summed over their replays (its ``time``
    column) and their share of all kernel time (its ``share`` column: hotspots' ``share``, whose denominator is
    the kernel time of the run, graph replays included) — "600.00 µs summed over 2 replays, 98.4 % of kernel time"
    for T07 (600 of 610 µs). Never "of GPU time": kernel time summed over launches (and GPUs) is not the GPU's wall
    time (the breakdown's computation), as the undetermined finding says since s47."""
    import pandas as pd

    n = len(graphs)
    t = fmt_ns(graphs["time_ns"].sum(min_count=1))
    calls = pd.to_numeric(graphs["calls"], errors="coerce").sum(min_count=1)
    share = pd.to_numeric(graphs["share"], errors="coerce").sum(min_count=1)
    figures = ((f"{t} in 1 replay" if calls == 1 else f"{t} summed over {int(calls):,} replays") if calls == calls
               else t) \
        + (f", {pct_words(100 * float(share))} of kernel time" if share == share else "")
    what = (f"{str(graphs['name'].iloc[0])[:80]} ({figures}) is a whole CUDA graph replay, not one kernel" if n == 1
            else f"{n} of the {rows} critical kernel rows ({figures}) are whole CUDA graph replays, not kernels")
    return what + ": the kernels inside were not traced one by one, so none has a bound"
