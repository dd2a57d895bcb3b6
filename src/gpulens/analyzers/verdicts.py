"""Verdicts: for each kernel in the performance-critical set, what bounds it, the time at stake, what to do next;
and one verdict for the run.

Evidence per kernel comes from earlier results when they ran — ``roofline`` (bound, roof_pct,
arithmetic_intensity), ``occupancy`` (achieved/theoretical occupancy, limiter), ``stalls`` (dominant class); without
a roofline/occupancy row, ncu's speed-of-light and occupancy percentages straight from the Counters — and
from the timeline itself (exposed collective time, launches shorter than their call and the launch-overhead idle
before the kernel, grid size vs SM/CU count). :mod:`gpulens.analyzers.verdict_rules` holds the rules.

Run verdict: the dominant measured share of the (steady) GPU span wins. The candidates are the GPU's computing time
(the breakdown's computation: union of compute kernels), named by the kernel class holding the most critical-set time
(``compute-bound``, ``memory-bound``, ``latency/occupancy-bound``...; ``gpu-bound`` when those kernels are
undetermined), and the ``bottlenecks`` overhead class — the largest idle/overhead cause (host, launch, sync or queued
idle, exposed communication, exposed memcpy) that covers at least its ``min_share`` of the span with enough evidence.
The overhead is the run verdict when its time is at least the computing time; otherwise it is named as the secondary
cause (``summary["secondary_cause"]``, its share in ``secondary_share_pct`` [%]): a run 84 % computing and 16 %
exposed copies is bound by its kernels, with memcpy-bound second — not "memcpy-bound". When the overhead wins, the
runner-up — the computing share or the next proven overhead cause, whichever is larger — is the secondary (when it
reaches ``min_share``). ``summary["ranked"]`` lists every quantified finding
of the run, largest time at stake first, roots of the findings tree only (each nanosecond once).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers._gap_codes import gap_class_mask
from gpulens.analyzers._coalescing import finding_detail, sectors_per_request, uncoalesced
from gpulens.analyzers._unknown_time import untimed_names
from gpulens.analyzers._verdict_text import graph_replay_words, proof_words, sol_text, summed_over_gpus
from gpulens.analyzers._occ_findings import (bound_by_verdict, defer_to_fusion, settle_condition,
                                             settle_wave_premise)
from gpulens.analyzers._verdict_columns import COLUMNS
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.bottlenecks import (
    RANK_CLASSES,
    class_label,
    classify_gaps,
    device_sms,
    replayed_for_counters,
    short_launches,
)
from gpulens.analyzers.context import context_of, first_seen_codes, reindex_sorted
from gpulens.analyzers._optree import gpu_op_links
from gpulens.analyzers.launches import link_gpu_to_launch
from gpulens.analyzers.stalls import kernel_percentages
from gpulens.analyzers._span import busy_unknown_reason, unread_device_work
from gpulens.analyzers._stake import CACHE_OF_UNIT, assumed_premise, floor_stake, l1_of_row, sol_attained_pct, sol_limit, upper_clause
from gpulens.analyzers.roofline import Roofline
from gpulens.analyzers._roof_notes import settle_launch_note
from gpulens.analyzers.speed_of_light import missing_for_bound
from gpulens.analyzers._tree import roots
from gpulens.analyzers._run_shares import (
    _computing_dominates,
    computing_words,
    _mostly_host_only,
    _other_causes,
    _overlapped_comm,
    _pct_of,
    _shares,
    host_holds_path, path_disagreement, run_path,
    host_setup, outside_span,
    outside_text,
    setup_text, unproven_loses,
    verdict_scope,
)
from gpulens.analyzers.stall_classes import OCCUPANCY_METRICS, SOL_METRICS
from gpulens.analyzers.verdict_rules import BOUND_TO_VERDICT, BOUNDS, GRAPH_NODE_STEP, THEO_KEYS, Evidence, decide, slow_launch
from gpulens.analyzers._verdict_order import COMM_PART, fix_first
from gpulens.timeline import Timeline
from gpulens.timeline.names import is_graph_replay
from gpulens.units import agree, fmt_ns, pct_words, plural, share_pct_text
from gpulens.analyzers._verdict_inputs import (  # noqa: F401 (re-exported)
    DRAM_SOL, LAUNCH_STAKE_NOTE, SOL_LATENCY_PCT, _family, _first_in_time, _first_source, _gemm_extents, _lookup,
    _num, _on_another_clock, _op_position, _row_by_name, _rows_by_name, _shaped_op, _share_alignment_step,
    _small_grid_loss, _sources_of_rows, _vendor, exposed_comm_by_name, launches_wall_ns, lds_bank_conflict_pcts,
    measured_hbm, sol_from_percentages, stake_note, wave_stake_note)


#: The run verdict of an input whose read part holds no GPU event, and the words every report heads its answer with
#: (one name per case: the JSON ``run_verdict`` and the console's "incomplete capture" once read ``no-gpu-work``
#: beside it for an Nsight export whose 5 launch calls had no kernel record, cases/T06).
EMPTY_RUN_WORDS = {"truncated-input": "truncated input", "incomplete-capture": "incomplete capture",
                   "device-work-not-read": "device work not read", "no-gpu-work": "no GPU work"}


def empty_run_verdict(timeline: Timeline) -> tuple[str, str]:
    """``(run verdict, basis)`` of a Timeline with no GPU event: ``truncated-input`` (the part read ends before the
    GPU events a profiler writes last), ``incomplete-capture`` (launch calls or GPU operators with no GPU record: the
    work ran, the capture lost it), ``device-work-not-read`` (device events of a backend gpulens does not read), else
    ``no-gpu-work`` (nothing ran on a GPU, or a ``--steps/--window/--ranks`` selection kept none of it: its basis
    names the selection). The one decision of which case holds: the verdicts analyzer and the reports' answer
    (:func:`gpulens.reports._answer.answer`) both read it, checked in this order."""
    meta = timeline.meta
    if meta.truncated:
        return "truncated-input", "the input is truncated and the part read holds no GPU event"
    broken = next((str(src["incomplete_capture"]) for src in meta.sources if src.get("incomplete_capture")), "")
    if broken:
        return "incomplete-capture", f"no GPU event was recorded, but the capture is incomplete: {broken}"
    unread = unread_device_work(timeline)
    if unread:
        return "device-work-not-read", f"device work recorded only in events gpulens does not read ({unread})"
    chosen = next((str(src["selection"]) for src in meta.sources if src.get("selection")), "")
    return "no-gpu-work", (f"no GPU work in the selection ({chosen})" if chosen else "no GPU work in the input")


def _undetermined_basis(by_class: pd.Series) -> str:
    """The gpu-bound run verdict's basis when no kernel class decides it. ``by_class``: the critical kernels' GPU time
    [ns] per verdict, largest first. With some kernels classified (a FLOP/byte model from recorded shapes classifies
    elementwise kernels without counters), the basis says the undetermined ones hold the most time and names the
    classified time beside it, rather than implying no kernel has a class."""
    base = "GPU busy; kernel classes undetermined without counters or a FLOP/byte model"
    times = by_class.fillna(0)
    known = times.drop("undetermined", errors="ignore")
    known = known[known > 0]
    if not len(known) or "undetermined" not in times.index:
        return base
    total = int(times.sum())
    rest = ", ".join(f"{cls} {fmt_ns(int(ns))}" for cls, ns in known.items())
    return (f"GPU busy; the critical kernels holding the most GPU time have no class ({fmt_ns(int(times['undetermined']))}"
            f" of their {fmt_ns(total)}: a class needs counters or a FLOP/byte model); classified: {rest}")


class Verdicts(Analyzer):
    """Per-kernel verdicts for the critical set and a run verdict (see module docstring)."""

    name = "verdicts"
    order = 70

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        results = results or {}
        hs = results.get("hotspots")
        if hs is None or not len(hs.table):
            # every documented access path works on an empty run: summary["run_verdict"] is always there
            none = not len(timeline.gpu_events()) and not (hs is not None and hs.summary.get("kernel_count"))
            if not none and hs is not None and not hs.summary.get("kernel_count"):
                # copies and fills only, no kernel: no kernel rows, the run verdict from the timeline alone
                t = pd.DataFrame(columns=list(COLUMNS))
                return AnalysisResult(self.name, t, COLUMNS, self._run_summary(
                    t, results, [], busy_unknown_reason(timeline) is not None), [])
            run, basis = (empty_run_verdict(timeline) if none else
                          ("undetermined", "no kernel durations to classify"))
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  {"run_verdict": run, "basis": basis, "overhead_verdict": None,
                                   "kernel_verdict": None, "kernel_time_by_verdict_ns": {}, "ranked": []},
                                  skipped_reason="no kernels (hotspots found none)" if none else
                                  "no kernel durations (counter rows without timestamps)")
        crit = hs.table[hs.table["critical"]]
        roof, occ, st, ll = (_row_by_name(results.get(n)) for n in ("roofline", "occupancy", "stalls",
                                                                    "launch_latency"))
        kern = context_of(timeline).of_kind("kernel", "comm")
        exposed = exposed_comm_by_name(timeline)
        both = link_gpu_to_launch(timeline)
        links, op_links = both["launch_event_id"], gpu_op_links(timeline)  # the one op linking (_optree)
        bn = results.get("bottlenecks")
        gaps = classify_gaps(timeline, getattr(bn, "summary", {}).get("launch_gap_ns", 20_000), links)
        if replayed_for_counters(timeline):  # gaps between replayed kernels say nothing about launches
            gaps = gaps.iloc[:0]
        if len(gaps):  # one mask and one grouping of the launch gaps for both figures
            is_launch = gap_class_mask(gaps, "launch")  # the class codes: no comparison of every gap's text
            by_next = (gaps["dur_ns"] - gaps["sync_ns"])[is_launch].groupby(gaps.loc[is_launch, "next_name"])
            launch_idle, launch_max = by_next.sum(), by_next.max()
        else:
            launch_idle = launch_max = pd.Series(dtype="int64")
        sl_all = short_launches(timeline, links).set_index("launch_event_id")
        # a launch call enqueuing several kernels (a CUDA/HIP graph replay) is no kernel's own launch: its kernels
        # have no per-kernel launch call, so no short-launch share or launch idle is theirs
        sl = sl_all["short"] & (sl_all["kernels"] <= 1)
        replayed = sl_all["kernels"] > 1
        by_name = _rows_by_name(kern)
        counter_src = _first_source(timeline.counters)
        pcts, lds = kernel_percentages(timeline, {**SOL_METRICS, **OCCUPANCY_METRICS, **DRAM_SOL}), \
            lds_bank_conflict_pcts(timeline)
        spr = sectors_per_request(timeline)
        sol = _row_by_name(results.get("speed_of_light"))
        rows, findings = [], []
        vendor = _vendor(timeline, device)
        # the roofline's peaks are an assumed GPU's (the input names none): its placement is flagged, never decisive
        assumed = str(device.name) if getattr(device, "assumed", False) else None
        comm_root = any(f.key == "exposed-comm" for f in getattr(results.get("breakdown"), "findings", []))
        # a launch-bound kernel's time at stake is launch-overhead idle: the same nanoseconds as the idle findings
        idle_keys = {f.key for n in ("breakdown", "bottlenecks") for f in getattr(results.get(n), "findings", [])}
        launch_parent = next((k for k in ("idle/launch", "idle") if k in idle_keys), None)
        # per kernel row, once: launch link, short-launch flag, grid blocks, sources (numpy; each critical kernel
        # then reads its rows' positions — no per-kernel DataFrame, which cost ~5 ms × thousands of names)
        # the kernel rows are the GPU events (no copies or sets recorded): the links as they are
        k_lid = (links if links.index.equals(kern.index) else reindex_sorted(links, kern.index)).to_numpy(
            dtype="float64", na_value=np.nan)
        has_lid = ~np.isnan(k_lid)
        k_short = np.zeros(len(kern), dtype=bool)
        k_graph = np.zeros(len(kern), dtype=bool)  # replayed by a graph launch
        if has_lid.any() and len(sl):
            got = _lookup(sl, k_lid[has_lid].astype("int64"))  # sl: by launch id, sorted (a groupby's)
            k_short[has_lid] = (got[0].astype(bool) & got[1]) if got is not None else \
                sl.reindex(k_lid[has_lid].astype("int64")).fillna(False).astype(bool).to_numpy()
            if replayed.any():  # kernels replayed by a graph launch: no launch call of their own (not linked here)
                k_graph[has_lid] = replayed.reindex(k_lid[has_lid].astype("int64")).fillna(False).astype(
                    bool).to_numpy()
                has_lid &= ~k_graph
        gx = kern["grid_x"]
        has_grid = gx.notna().to_numpy()
        # the grid's blocks in int64 (missing dimensions 1), as the nullable columns' product gives them, from numpy
        # (no filled nullable copy of each column)
        k_blocks = (gx.to_numpy(dtype="int64", na_value=1) * kern["grid_y"].to_numpy(dtype="int64", na_value=1)
                    * kern["grid_z"].to_numpy(dtype="int64", na_value=1)).astype("float64")
        k_rank, k_dev, k_start = kern["rank"].to_numpy(), kern["device_id"].to_numpy(), kern["start_ns"].to_numpy()
        src_codes, src_values = first_seen_codes(kern["source"])  # the kernels' collectors, as codes
        # launch durations as the kernel's time counts them: overrun-clipped (a runaway launch of 3.17 s read "holds
        # 24,474 % of its time" against its 12.97 ms of repaired time)
        k_dur = np.minimum(kern["dur_ns"].to_numpy(dtype="float64", na_value=np.nan),
                           context_of(timeline).effective_ns.reindex(kern.index).to_numpy(dtype="float64"))
        pytorch = _advice.uses_pytorch(timeline)
        collectors = {str(x.get("collector", "")) for x in timeline.meta.sources}
        torch_trace = all(c.startswith("kineto") for c in collectors) if collectors else None
        training, collected = _advice.trains(timeline), frozenset(map(str, pd.unique(timeline.counters["metric"])))
        triton = _advice.triton_kernels(timeline)  # Triton-generated kernels: their knobs, not per-thread code
        counter_codes, counter_values = counter_src
        k_ctr = np.full(len(kern), -1, dtype="int64")  # code of the counters' source per kernel row; −1: none
        if len(counter_codes):
            got = _lookup(counter_codes, kern["event_id"].to_numpy())  # by event id, sorted
            if got is None:
                k_ctr = counter_codes.reindex(kern["event_id"].to_numpy()).fillna(-1).to_numpy("int64")
            else:
                k_ctr[got[1]] = got[0][got[1]]
        k_start = kern["start_ns"].to_numpy(dtype="int64")
        k_ids = kern["event_id"].to_numpy()
        for h in crit.to_dict("records"):
            name = str(h["name"])
            pos = by_name(name)
            p0 = _first_in_time(pos, k_start, k_ids)
            eff = h["effective_ns"]
            e = Evidence(name, str(h["kind"]), int(h["calls"]), int(eff) if eff == eff else 0, inputs=["timeline"],
                         family=_family(timeline, name, kern.index[p0] if len(pos) else None, op_links),
                         library=_advice.is_library(name), owner=triton.get(name), pytorch=pytorch, training=training,
                         torch_trace=torch_trace, collected=collected,
                         shaped_op=_shaped_op(timeline, kern.index[p0] if len(pos) else None, op_links))
            if _advice.alignment_hint(name):  # an align1 library kernel: the GEMM sizes its ops recorded
                e.gemm_extents = _gemm_extents(timeline, kern.index[pos], op_links)
            if e.kind == "comm":
                e.exposed_comm_ns = exposed.get(name, 0)
            linked = pos[has_lid[pos]]
            e.graph_replayed = bool(len(pos)) and bool(k_graph[pos].all())
            e.wall_ns = launches_wall_ns(k_start[pos], k_dur[pos], k_rank[pos], k_dev[pos])  # overlap counted once
            if len(linked) and len(sl):
                e.short_launch_frac = float(k_short[linked].mean())
                e.launch_idle_ns = int(launch_idle.get(name, 0))
                e.launch_idle_max_ns = int(launch_max.get(name, 0))
            gpos = pos[has_grid[pos]]
            if len(gpos):
                # the grid where the time is: launches weighted by their GPU time (an MI300X kernel's 11 launches
                # averaged 7,341 blocks while its long launches had 18,937 each)
                blocks, w = k_blocks[gpos].astype("float64"), np.nan_to_num(k_dur[gpos].astype("float64"))
                e.mean_blocks = float((blocks * w).sum() / w.sum()) if w.sum() > 0 else float(blocks.mean())
                e.blocks_vary = bool(blocks.min() != blocks.max())
                e.num_sms = device_sms(timeline, device, int(k_rank[p0]), int(k_dev[p0]))
                # an assumed GPU's count (the input records none: :func:`device_sms` takes the spec's)
                e.sms_assumed = bool(assumed) and e.num_sms == getattr(device, "num_sms", None)
                e.wave_loss_ns = _small_grid_loss(k_blocks[gpos], k_dur[gpos], k_dur[pos], e.time_ns, e.num_sms)
            slow = slow_launch(k_dur[pos], k_blocks[pos]) if e.kind != "comm" else None
            if slow:
                e.slow_launch_ns, e.others_median_ns = slow
            if name in roof:
                r = roof[name]
                e.bound = r.get("bound") if r.get("bound") in BOUNDS else None
                e.ridge_side = r.get("ridge_side") if r.get("ridge_side") in ("compute", "memory") else None
                e.roof_pct, e.arithmetic_intensity = _num(r.get("roof_pct")), _num(r.get("arithmetic_intensity"))
                e.precision = r.get("precision") if isinstance(r.get("precision"), str) else None
                e.compute_roof = r.get("compute_roof") if isinstance(r.get("compute_roof"), str) else None
                e.datasheet_roof_pct = _num(r.get("datasheet_roof_pct"))
                lb = r.get("flops_lower_bound")
                e.flops_lower_bound = lb if isinstance(lb, str) and lb else None
                stake = _num(r.get("time_at_stake_ns"))
                e.roof_stake_ns = int(stake) if stake is not None else None
                e.roof_assumed = assumed
                e.inputs.append("roofline")
            if name in ll:
                e.launch_latency_p50_ns = int(ll[name]["latency_p50_ns"])
                e.launch_latency_p90_ns = int(ll[name]["latency_p90_ns"])
                e.launch_backlog_p50_ns = _num(ll[name].get("backlog_p50_ns"))
            if name in occ:
                o = occ[name]
                e.achieved_occupancy_pct = _num(o.get("achieved_occupancy_pct"))
                e.theoretical_occupancy_pct, e.theoretical_max_pct = (_num(o.get(k)) for k in THEO_KEYS)
                e.limiter = o.get("limiter") if isinstance(o.get("limiter"), str) else None
                # the whole binding set ("registers, shared_memory"), as the occupancy table's limiter column shows
                e.limiters = o.get("limiters") if isinstance(o.get("limiters"), str) and o.get("limiters") else None
                smem = _num(o.get("smem_bytes"))
                e.smem_bytes = int(smem) if smem is not None else None
                e.waves_per_sm = _num(o.get("waves_per_sm"))
                active, sizes = _num(o.get("active_blocks_per_sm")), _num(o.get("grid_sizes"))
                e.grid_sizes = int(sizes) if sizes else None
                main = _num(o.get("grid_blocks"))  # the occupancy row's grid: the configuration with the most time
                e.main_grid_blocks = int(main) if main is not None and main > 0 else None
                if sizes and sizes > 1 and active and e.mean_blocks and e.num_sms:
                    # several grid sizes: the occupancy row's waves are its main configuration's (one 1-block grid
                    # of 22 sizes read "4.8 blocks per SM … 0.00058 waves"); the verdict speaks of the mean grid
                    e.waves_per_sm = e.mean_blocks / (e.num_sms * active)
                if _num(o.get("wave_loss_ns")) is not None:  # the occupancy analyzer's figure: one definition
                    e.wave_loss_ns = int(_num(o.get("wave_loss_ns")))
                e.inputs.append("occupancy")
            if name in st:
                s = st[name]
                e.stall_class, e.stall_pct, e.top_stall = s["dominant_class"], _num(s["dominant_pct"]), s["top_reason"]
                e.inputs.append("stalls")
            p = pcts.get(name, {})
            srow = sol.get(name) or sol_from_percentages(p)
            if srow is not None:
                e.sol_bound = srow["bound"] if srow.get("bound") in BOUND_TO_VERDICT else None
                e.compute_pct = _num(srow.get("compute_pct"))
                e.memory_pct = _num(srow.get("memory_pct"))
                e.memory_pct = e.memory_pct if e.memory_pct is not None else _num(srow.get("dram_pct"))
                # the share of the measured HBM peak (roofline.csv) decides the bound when larger: shown with both
                e.memory_measured_pct, e.hbm_peaks_bps = measured_hbm(srow)  # peaks, not "memory 53 % → memory"
                # L1 over the kernel's elapsed cycles (l1_of_row): a one-block kernel's 83 % while active is 0.2 %
                e.l1_pct, e.l1_window = l1_of_row(srow)
                e.dram_pct = _num(srow.get("dram_pct"))
                e.l2_pct, e.lds_conflicts = _num(srow.get("l2_pct")), _num(srow.get("lds_conflicts_per_access"))
                e.sol_pct, e.sol_unit = sol_limit(srow)
                tensor = _num(srow.get("tensor_pct"))
                if tensor is not None and (e.compute_pct is None or tensor > e.compute_pct):
                    e.compute_pct = tensor  # the compute side is the busiest of SM throughput and the tensor pipe
                    e.compute_side = "tensor pipe"
                if srow.get("bound") == "unknown":  # the counters do not support a bound: say what is missing
                    sm_only = srow.get("vendor", "nvidia") == "nvidia" and not (tensor or 0) >= SOL_LATENCY_PCT
                    e.memory_untimed = e.memory_pct is None and _num(srow.get("dram_bytes")) is not None \
                        and _num(srow.get("memory_throughput")) is None  # bytes counted, no time to divide by
                    e.sol_missing = missing_for_bound(e.compute_pct, e.memory_pct, sm_only, srow.get("vendor"),
                                                      e.memory_untimed) or None
                elif e.roof_pct is None:
                    e.roof_pct, e.roof_source = sol_attained_pct(srow), "speed of light"
                e.inputs.append("speed_of_light" if name in sol else "counters:speed-of-light")
            e.lds_bank_conflict_pct = lds.get(name)  # rocprof v1 LDSBankConflict: shown where LDS figures are
            if e.achieved_occupancy_pct is None and p.get("achieved_occupancy_pct") is not None:
                e.achieved_occupancy_pct = _num(p.get("achieved_occupancy_pct"))
                e.theoretical_occupancy_pct = _num(p.get("theoretical_occupancy_pct"))
                e.inputs.append("counters:occupancy")
            if name in spr:
                e.sectors_per_request = spr[name]
                e.inputs.append("counters:sectors-per-request")
            v = decide(e, vendor=vendor)
            if e.sol_bound is not None and v.verdict == BOUND_TO_VERDICT.get(e.sol_bound):
                # the verdict rests on measured speed of light: the roofline row and finding say the same bound
                # and time at stake (one per kernel), whatever the (perhaps assumed) peaks placed it at
                # the cache a memory bound is at (a level the roofline does not draw): the unit its % of peak is
                # of, so the bound's level and that % are named by one rule (sol_limit)
                Roofline.settle((results or {}).get("roofline"), name, v.verdict,
                                None if eff != eff else v.time_at_stake_ns, sol_text(e), e.sol_pct,
                                CACHE_OF_UNIT.get(e.sol_unit or ""), e.sol_unit)
            if v.verdict == "latency/occupancy-bound":  # the roofline row names it as the verdict does
                Roofline.name_latency((results or {}).get("roofline"), name)
            elif v.verdict == "launch-bound":  # its placement finding names the launches, as the verdict does
                Roofline.name_launch((results or {}).get("roofline"), name)
            # a time at stake computed from an assumed GPU's peaks or SM count holds only if the GPU is that one
            premise = assumed_premise(device, v.stake_from) if v.time_at_stake_ns is not None and (
                (v.stake_from == "peaks" and e.roof_assumed) or (v.stake_from == "sms" and e.sms_assumed)) else ""
            upper = upper_clause(v.stake_upper_ns, device, v.stake_at_least, v.stake_basis)  # the lower bound ranks, the upper one is named
            if eff != eff:  # durations not recorded: the kernel's time and its time at stake are unknown, not 0
                e.time_ns, v.time_at_stake_ns, v.stake_basis, v.stake_cap = None, None, "", ""
            elif v.verdict == "latency/occupancy-bound" and e.sol_bound is not None and name in occ:
                # latency-bound by speed-of-light counters: the occupancy findings' gain is now bounded
                bound_by_verdict(results["occupancy"].findings, name, e.time_ns, e.theoretical_occupancy_pct,
                                 e.achieved_occupancy_pct, v.time_at_stake_ns, "Speed of light")
            if v.verdict == "latency/occupancy-bound" and name in occ:
                settle_condition(results["occupancy"].findings, name, pytorch, vendor)
            if name in occ:  # the bound now known: the wave estimate's premise holds, or it is capped at the roof
                settle_wave_premise(results["occupancy"].findings, name, v.verdict, v.time_at_stake_ns,
                                    hs.summary.get("kernel_effective_ns") or 0, occ[name].get("time_ns"), e.calls)
                if v.next_steps and "would not pay back the launch" in v.next_steps[0]:  # fusion (or a graph) first
                    defer_to_fusion(results["occupancy"].findings, name)
            # the roofline's words on launch cost follow the verdict's one rule (_verdict_facts.launch_cost_reason)
            settle_launch_note((results or {}).get("roofline"), name, e)
            if e.gemm_extents:  # one alignment step per kernel: the roofline and occupancy findings name the extents
                _share_alignment_step(results or {}, name, _advice.alignment_hint(name, e.gemm_extents))
            srcs = _sources_of_rows(src_codes, src_values, pos, np.nan) | _sources_of_rows(k_ctr, counter_values, pos)
            inputs = e.inputs + [f"collector:{c}" for c in sorted(srcs)]
            rows.append({"name": name, "kind": e.kind, "calls": e.calls, "time_ns": e.time_ns, "share": h["share"],
                         "verdict": v.verdict, "time_at_stake_ns": v.time_at_stake_ns,
                         # the unit or cap the figure is the distance to, named wherever the figure is shown
                         "stake_note": _advice.amd_block_words(upper or "; ".join(x for x in (
                             v.stake_basis, v.stake_cap, stake_note(v.verdict, v.time_at_stake_ns, e.time_ns, premise),
                             COMM_PART if v.verdict == "communication-bound" and comm_root else "") if x)
                         or wave_stake_note(results, name, v.time_at_stake_ns, v.verdict), vendor),
                         "evidence": v.evidence,
                         "next_steps": v.next_steps, "inputs": inputs})
            bad = uncoalesced(e.sectors_per_request, name) if e.kind != "comm" else []
            if bad:
                what = " and ".join(f"{w}s" for w, _, _ in bad)
                cond = "" if any(c for _, _, c in bad) else " (unless vector accesses)"
                findings.append(Finding(
                    f"Uncoalesced global {what}{cond} in {name if len(name) <= 60 else name[:59] + '…'}: "
                    + ", ".join(f"{w}s {x:.0f} sectors per request" for w, x, _ in bad) + " (coalesced 32-bit: 4)",
                    finding_detail(e.sectors_per_request, name), severity="warning" if any(c for _, _, c in bad)
                    else "info", category="memory-access", kernel=name, key=f"coalescing:{name}",
                    parent=None if v.verdict == "undetermined" else f"kernel:{name}", action=v.next_steps[0]))
            if v.verdict == "undetermined":
                continue
            # a measured lower bound is rated by the upper bound beside it ("at least 22.52 µs; up to 603.93 µs"):
            # the most the fix can give, as every other finding is rated by its time at stake
            weighed = max(v.time_at_stake_ns or 0, v.stake_upper_ns or 0) if upper else v.time_at_stake_ns
            # the answer first (class, the figures that prove it); the stake's basis or cap in the detail and note
            proof = _advice.amd_block_words(proof_words(e, v.verdict, vendor=vendor), vendor)
            stake_words, lb = v.stake_basis or v.stake_cap, v.stake_basis.startswith("up to")  # lower-bound FLOPs
            findings.append(Finding(
                f"{name if len(name) <= 80 else name[:79] + '…'}: {v.verdict}" + summed_over_gpus(h.get("gpus"))
                + (f" — {proof}" if proof else "") + (f"; at stake {upper or v.stake_basis}" if upper or lb else ""),
                f"{v.evidence}" + (f"; time at stake {stake_words}" if stake_words and not upper else "")
                + f". Next: {' '.join(v.next_steps)} (evidence from: "
                f"{', '.join(i.replace('_', ' ').replace(':', ' ') for i in inputs)})",
                severity="warning" if weighed and weighed > 0.05 * max(
                    hs.summary.get("kernel_effective_ns") or 0, 1) else "info",
                category=v.verdict, time_at_stake_ns=v.time_at_stake_ns, kernel=name, key=f"kernel:{name}",
                parent="exposed-comm" if v.verdict == "communication-bound" and comm_root else
                launch_parent if v.verdict == "launch-bound" else None,
                action=v.next_steps[0] if v.next_steps else "", premise=premise,
                stake_upper_ns=None if not upper or v.time_at_stake_ns is None else
                v.stake_upper_ns if v.stake_upper_ns is not None else floor_stake(e.time_ns, e.calls)))
        t = pd.DataFrame(rows, columns=list(COLUMNS))
        t["cumulative_share"] = pd.to_numeric(t["share"], errors="coerce").astype(float).cumsum(skipna=False)
        und = t[t["verdict"] == "undetermined"]
        graphs = und[[is_graph_replay(n) for n in und["name"].astype(str)]] if len(und) else und
        und = und.drop(graphs.index)
        if len(und):
            steps = und["next_steps"].iloc[0]
            # a kernel with launches without a duration has an unknown time (analyzers._unknown_time)
            und_time = ("GPU time unknown: launches without a duration"
                        if untimed_names(timeline) & set(und["name"].astype(str)) else
                        f"{fmt_ns(und['time_ns'].sum(min_count=1))} of kernel time, summed over launches")
            findings.append(Finding(
                f"{len(und)} of {plural(len(t), 'critical kernel')} ({und_time}) could not be classified",
                f"No roofline position, occupancy, stall counters or launch evidence classifies "
                f"{agree(len(und), 'it', 'them')} "
                f"({und_time}). {steps[0] if steps else ''}".strip(),
                severity="info", category="undetermined", key="undetermined", action=steps[0] if steps else ""))
        if len(graphs):
            # a whole CUDA graph replay traced at graph level is no kernel that failed to classify: its kernels were
            # not recorded one by one, and the trace option that records them is the step (T07: "1 of 1 critical
            # kernel could not be classified" for a graph replay)
            findings.append(Finding(
                graph_replay_words(graphs, len(t)),
                "Nsight Systems traced the graph as one interval per replay (--cuda-graph-trace=graph): "
                "the kernels it launched were not recorded, so no roofline, occupancy or counter describes them.",
                severity="info", category="undetermined", key="undetermined" if not len(und) else "undetermined/graph",
                action=GRAPH_NODE_STEP))
        t["time_at_stake_ns"] = t["time_at_stake_ns"].astype("Int64")
        uc = timeline.tables.get("unattached_counters")  # counters of dispatches without timestamps are counters
        summary = self._run_summary(t, results, findings, busy_unknown_reason(timeline) is not None,
                                    has_counters=bool(len(timeline.counters)) or bool(uc is not None and len(uc)))
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)

    @staticmethod
    def _run_summary(t: pd.DataFrame, results: dict, findings: list[Finding], busy_unknown: bool = False,
                     has_counters: bool = True) -> dict[str, Any]:
        bn = results.get("bottlenecks")
        gpus = int((getattr(results.get("breakdown"), "summary", None) or {}).get("gpu_count") or 1)  # shares' basis
        overhead = bn.summary.get("verdict") if bn is not None and not bn.skipped else None
        by_class = t.groupby("verdict")["time_ns"].sum().sort_values(ascending=False, kind="stable")
        kernel_class = str(by_class.index[0]) if len(by_class) else None
        unweighed = len(by_class) > 1 and not float(by_class.fillna(0).sum()) > 0
        secondary: tuple[str, float] | None = None  # (class, its share of the span [%]) — the runner-up cause
        lead: float | None = None  # the run verdict's own share of the span [%] when a timeline share decided it
        hidden: tuple[str, int] | None = None  # communication kernels mostly under computation (_overlapped_comm)
        held: tuple[float, float] | None = None  # (host, GPU) shares of the critical path when the host paces steps
        where: str | None = None  # None since s40: the verdict judges the GPU span (outside_span says the rest)
        if unweighed:  # no kernel time recorded (every kernel 0 ns): no verdict "holds the most kernel time" — the
            kernel_class = "undetermined"  # first of several classes would be an arbitrary pick, not a majority
        if busy_unknown and unweighed:
            run, basis = "undetermined", ("kernel times not recorded: the kernels' verdicts ("
                                          + ", ".join(map(str, by_class.index)) + ") cannot be weighed")
        elif busy_unknown:
            only = "counters only" if has_counters else "per-kernel totals only"  # a stats summary has no counters
            timed = float(by_class.fillna(0).sum()) > 0
            run, basis = (kernel_class, f"{only} (busy time not measured): the kernel verdict holding the most "
                                        "kernel time" if timed else
                                        f"{only} (busy time and kernel times not measured): the one verdict of the "
                                        "kernels") \
                if kernel_class and kernel_class != "undetermined" else \
                ("undetermined", "counters only: the kernels' counters do not classify them" if has_counters else
                 "per-kernel totals only: no counters or FLOP/byte figures to classify the kernels")
        elif overhead == "undetermined" and kernel_class in (None, "undetermined") and not unproven_loses(bn):
            run, basis = "undetermined", ("too little evidence for a verdict: "
                                          + str(bn.summary.get("verdict_evidence") or "too few gaps")
                                          + "; the kernels' bound is undetermined too")
        elif overhead and overhead not in ("gpu-bound", "undetermined") and not _computing_dominates(bn, overhead):
            of = "of the GPU span" if gpus <= 1 else f"of the {gpus} GPUs' summed spans"
            if bn.summary.get("steady_span_ns"):
                of = of.replace("span", "steady span", 1)  # the warm-up/one-off gaps left out, as the cause's share
            oh, comp, span = _shares(bn, overhead)
            lead = 100.0 * oh / span if oh is not None else None
            run, basis = overhead, (f"the timeline: {class_label(overhead, bn.summary)} holds the largest measured "
                                    f"share, {_pct_of(oh, span)} {of}, against {_pct_of(comp, span)} computing")
            # the runner-up: the computing share (named by its kernels' class; a communication-bound kernel class is
            # not computing) or the next proven overhead cause, whichever is larger
            runners = [(kernel_class if kernel_class not in (None, "undetermined", "communication-bound")
                        else "gpu-bound", comp, True)] + [(c, v, False) for c, v in _other_causes(bn, overhead)]
            runners = [r for r in runners if r[1] is not None and r[1] >= (bn.summary.get("min_share") or 0.1) * span]
            if runners:
                cls, ns, computing = max(runners, key=lambda x: x[1])  # stable: computing first on a tie
                secondary = (cls, 100.0 * ns / span)
                basis += (f"; secondary: {computing_words(cls, _pct_of(ns, span), of)}" if computing else
                          f"; secondary cause: {class_label(cls, bn.summary)} ({_pct_of(ns, span)})")
        elif overhead == "host-bound" and (held := host_holds_path(results)) is not None \
                and _shares(bn, overhead)[0] is not None:
            # computing holds the larger share of the span, but the host paces the steps: their critical path runs
            # through host work and launches find the GPU ready, so faster kernels shorten a step only once the host
            # keeps up — the host-caused idle is what the host can win first (_run_shares.host_holds_path)
            oh, comp, span = _shares(bn, overhead)
            whose = "the steady state's" if run_path(results)[1] else "the steps'"  # the window the shares are over
            run, basis = overhead, (f"the critical path: the host holds {share_pct_text(100 * held[0])} of "
                                    f"{whose} critical path, GPU work {share_pct_text(100 * held[1])} (counting host "
                                    "waits on busy "
                                    "GPU work), so faster kernels shorten a step only once the host keeps up; the "
                                    f"GPU waited for the host {_pct_of(oh, span)} of the span, against "
                                    f"{_pct_of(comp, span)} computing")
            if kernel_class not in (None, "undetermined", "communication-bound") and comp:
                secondary = (kernel_class, 100.0 * comp / span)
                basis += f"; secondary: {computing_words(kernel_class, _pct_of(comp, span))}"
        elif kernel_class and kernel_class != "undetermined":
            run, basis = kernel_class, "the critical kernels: the kernel verdict holding the most GPU time"
            hidden = _overlapped_comm(bn, by_class) if kernel_class == "communication-bound" else None
            if hidden is not None:  # communication kernels overlapped by computation do not bound the run
                run, exposed = hidden
                basis += (f", communication counted by its exposed time ({fmt_ns(exposed)} of "
                          f"{fmt_ns(int(by_class['communication-bound']))} of communication kernels: the rest ran "
                          "under computation)")
        elif kernel_class is None and _mostly_host_only(bn):
            # no kernel at all in a GPU span that is a sliver of the profiled window (one fill in a 131 ms window):
            # "GPU-bound" would rest on a copy or fill alone; the host-only time around it is stated on its own
            run, basis = "undetermined", ("no kernel ran in the GPU span (copies or fills only) and no idle cause "
                                          "decides it: nothing there to judge")
        else:
            run, basis = "gpu-bound", _undetermined_basis(by_class)
        if run != "undetermined" and (thin := unproven_loses(bn)) and not busy_unknown:  # named, never decisive
            basis += "; " + thin
        setup = None if busy_unknown else host_setup(bn, run)
        if setup is not None:  # the verdict names start-up as the cause of the host wait
            basis += "; " + setup_text(setup, gpus)
        outside = None if busy_unknown else outside_span(bn)
        if outside is not None:
            # the run verdict judges the GPU span (first to last GPU work); host-only time before it (start-up:
            # context creation, allocation, model load) and after it (teardown) is its own figure, never the
            # verdict (nsys streamSimple: 54.58 ms before 76.93 µs of GPU work made the run "host-bound")
            basis += "; " + outside_text(outside)
        if run != overhead and overhead and overhead not in ("gpu-bound", "undetermined") and secondary is None:
            # a proven overhead cause smaller than the computing share: named as the secondary cause
            oh, comp, span = _shares(bn, overhead)
            if oh is not None:
                secondary = (overhead, 100.0 * oh / span)
                lead = 100.0 * comp / span if comp is not None else None
                basis += (f"; computing holds the largest measured share ({_pct_of(comp, span)} of the "
                          f"{'steady ' if bn.summary.get('steady_span_ns') else ''}span), secondary cause: "
                          f"{class_label(overhead, bn.summary)} ({_pct_of(oh, span)})")
        # each nanosecond once: only the roots of the findings tree are ranked (see analyzers._tree)
        every = [f for r in results.values() for f in r.findings] + findings
        ranked = [f for f in roots(every) if f.time_at_stake_ns and f.category != "data-quality"]
        sec_key = next((k for k, c in RANK_CLASSES.items() if secondary and c == secondary[0]), None)
        sec_ns = _shares(bn, secondary[0])[0] if sec_key else None
        return {"run_verdict": run, "basis": basis, "overhead_verdict": overhead, "kernel_verdict": kernel_class,
                # two readings (a secondary cause beside the verdict): their times at stake in order and the
                # largest single finding to start with, one sentence (_verdict_order.fix_first); None otherwise
                "fix_first": fix_first(t, ranked, run, secondary, sec_ns, str(sec_key).startswith("idle_"),
                                    getattr(bn, "summary", None))
                if not busy_unknown else None,
                # where the run verdict holds when that is not the GPU span; always None now: the verdict judges the
                # GPU span, and host-only time outside it is ``outside_span`` (kept for readers of older reports)
                "verdict_where": where,
                # host-only time outside the GPU span when it holds ≥ OUTSIDE_SPAN_SHARE of the profiled window:
                # {"before_ns", "after_ns", "window_ns"} (start-up before the first GPU work, teardown after the
                # last), stated beside the verdict and never its basis; None otherwise
                "outside_span": outside,
                # a host-bound verdict whose host wait is mostly set-up calls (_run_shares.host_setup):
                # {"setup_ns", "host_ns"}, named as start-up beside the verdict; None otherwise
                "host_setup": setup,  # and for a host-bound secondary cause (the answer's detail says it)
                "secondary_host_setup": host_setup(bn, secondary[0]) if secondary else None,
                # the part of the GPU span the verdict is about when one-off/warm-up gaps holding ≥ min_share of it
                # are left out ("steady state: 12.9 % of the span"; _run_shares.verdict_scope), shown in the
                # verdict's label; None when it is about the whole span, the window (verdict_where) or no timeline
                "verdict_scope": (verdict_scope(bn, gpus) if where is None and not busy_unknown
                                  and run != "undetermined" else None),
                # why a verdict not on the host side stands beside a critical path held by host work (two
                # definitions; _run_shares.path_disagreement), shown in the answer; None when they agree
                "path_note": path_disagreement(results, run) if not busy_unknown else None,
                "secondary_cause": secondary[0] if secondary else None,
                # the host's share of the steps' critical path when it decided a host-bound verdict (else None)
                "host_path_share": held[0] if run == "host-bound" and held is not None else None,
                "secondary_share_pct": secondary[1] if secondary else None,
                # the largest measured share of the (steady) span [%] — the run verdict's overhead cause, or the
                # computing share beside a smaller overhead cause — the figure the secondary cause's share is weighed
                # against; None when no timeline share decided the verdict
                "verdict_share_pct": lead,
                # communication kernels held the most kernel time but ran mostly under computation: weighed by
                # their exposed time [ns] for the run verdict (None when not so)
                "exposed_comm_weighed_ns": hidden[1] if hidden else None,
                "kernel_time_by_verdict_ns": {str(k): int(v) for k, v in by_class.items()},
                "ranked": [{"title": f.title, "category": f.category, "time_at_stake_ns": int(f.time_at_stake_ns),
                            "kernel": f.kernel, "rank": f.rank} for f in ranked[:10]]}

