"""The rules that turn one kernel's evidence into a verdict: class, time at stake, next steps (pure functions).

Evidence (:class:`Evidence`) is gathered by :mod:`gpulens.analyzers.verdicts` from the roofline, occupancy, stalls and
timeline results. Rules, first match wins (thresholds are parameters of :func:`decide`):

1. a collective (NCCL/RCCL kernel) → ``communication-bound``; at stake: its time not overlapped by compute.
2. most of its launches do less GPU work than the launch call costs, and launch-overhead idle precedes it
   → ``launch-bound``; at stake: that idle time — unless the kernel's roof position (rules 3–4) puts more time at
   stake than that idle (the host kept the queue fed; the roof is the larger lever). Not capped at the kernel's own
   time: the stake is GPU idle *between* kernels, which a CUDA/HIP graph or fusion removes however short the kernel
   (20 launches of a 2 µs kernel, each after 10 µs of launch gap: 200 µs at stake against 40 µs of kernel time);
   the evidence says so when the idle exceeds the kernel's time. The idle findings count those nanoseconds once
   (the verdict is their child). Only when that idle is at least :data:`LAUNCH_IDLE_MIN_SHARE` of the kernel's own
   time: 591 µs of launch idle before 3,489 launches holding 41.19 ms of kernel time, queued 17.66 ms ahead at the
   median, is a GPU kept fed — its own time is the lever, not its launches.
3. speed of light from counters (the ``speed_of_light`` analyzer: ncu / rocprof-compute compute % and DRAM/memory %
   of peak, with its ``bound``) → ``compute-bound`` / ``memory-bound`` / ``latency/occupancy-bound`` as the vendor
   figures say (a saxpy at 90 % of DRAM bandwidth is memory-bound whatever its occupancy; SM 32 % and memory 28 %
   is latency-bound, ncu's SOLBottleneck reading) — only when the counters support it
   (:func:`gpulens.analyzers.speed_of_light.bound_of`); otherwise the last rule names what is missing. The measured
   throughput decides: a roofline position that disagrees (FLOPs over a datasheet peak — on an *assumed* GPU when
   the input does not name it) is shown in the evidence, flagged, and never overrides it (an RTX 5090 CUTLASS GEMM at
   SM 32 % / memory 28 % was called compute-bound at 53.5 % of an assumed GPU's bf16 roof, and told to try FP8).
4. roofline position known (from ``roofline``, else ncu's speed-of-light memory/SM throughput % carried by
   ``stalls``): at ≥ ``roof_pct_bound`` % of its roof → ``compute-bound`` / ``memory-bound`` as the
   roofline says; below → ``latency/occupancy-bound`` when something beside it says latency or occupancy
   (:func:`latency_evidence`: a grid short of the SMs, low achieved occupancy, latency stalls, a placement from
   measured speed of light), else ``below-roofs`` — all the evidence supports, with the cause when the kernel's name
   gives one (``align1``: an unaligned GEMM shape) and the counters that would tell (a CUTLASS align1 GEMM at 12 % of
   its roof with 97 waves and achieved occupancy not counted was called occupancy-bound). On an assumed GPU the
   evidence says the peaks are that GPU's, assumed.
   Never latency-bound when the measured speed of light has a unit at ≥ 60 % of its peak that names no bound (ncu
   SM throughput alone): ``undetermined``, naming the counters that would tell. The same guard holds for rules 5–7
   (a kernel at 88 % SM throughput is not latency-bound because its occupancy is 22 %).

Time at stake of rules 3–4, and of every later rule when the kernel has a roofline or speed-of-light figure, is the
one definition of :mod:`gpulens.analyzers._stake`: time × (1 − attained / attainable), the attained share taken from
the basis that decided the verdict (rule 3: the speed of light's limiting unit, as the ``speed_of_light`` table's
time at stake; otherwise the roofline's). Rules 5–7 apply only without such a figure. An L1-led memory-bound kernel
(L1/shared memory saturated, DRAM not) has its distance to the DRAM/compute roofline at stake — on a GPU the input
names; on an *assumed* GPU, or with no FLOP count, its measured distance to the saturated L1 peak is the figure (a
lower bound, ``Verdict.stake_at_least``) and the roofline distance, when known, is only named beside it
(``Verdict.stake_upper_ns``): a measured figure ranks, an assumed GPU's peaks never put a kernel above it.
5. no roofline: a grid with fewer blocks than SMs/CUs (under :data:`FULL_GRID_SHARE` of them: a grid covering
   ~every SM is not short of blocks) → ``latency/occupancy-bound``; at stake: the occupancy
   analyzer's wave loss, Σ launches time × (1 − W / ⌈W⌉) (:func:`gpulens.analyzers._stake.wave_loss_ns`), the same
   figure its grid finding shows; without occupancy data Σ launches time × (1 − blocks / SMs) over the launches with
   fewer blocks than SMs (those SMs idle for the whole launch; one resident block per SM assumed).
6. stall counters: dominant class memory throughput → ``memory-bound``; compute pipe or scheduling →
   ``compute-bound``; memory latency, synchronization, instruction fetch → ``latency/occupancy-bound``.
   At stake: time × the dominant class's share of stall time (what removing those stalls could save at most,
   the logic of ncu's estimated speedups). Memory-latency stalls with speed-of-light counters read but memory not
   counted → ``undetermined`` (a kernel saturating bandwidth waits on memory results too), naming the counter.
7. achieved occupancy below ``low_occupancy_pct`` with a limiter → ``latency/occupancy-bound``; time at stake
   not quantified (occupancy alone does not say how much faster the kernel would run). Not when speed-of-light
   counters were read without the memory side (``sol_missing``, memory not counted): a kernel saturating memory
   can run at low occupancy too, so that is ``undetermined``, naming the missing counter (rule 8).
8. nothing → ``undetermined`` (no time at stake); the next step says what to collect.

Every time at stake of rules 3–8 is capped at ``time − launches × 2 µs``
(:func:`gpulens.analyzers._stake.floor_stake`): no launch runs in less GPU time, whatever the fix (a 1.76 µs
one-block kernel has nothing at stake, not 1.759 µs).

Next steps fit the kernel and the program (:mod:`gpulens.analyzers._advice`): split-K only for a GEMM, split-KV for
attention; tensor cores only for GEMM/attention kernels; a vendor-library kernel is not told to change its registers;
torch.compile, DDP/FSDP and torch.profiler options only when the input shows a PyTorch program — torch.profiler
options only when the input is a torch.profiler recording (``torch_trace``): an nsys or rocprof user is told what
their own tool (ncu, rocprof-compute, rocprofv3) collects.
"""

from __future__ import annotations

from dataclasses import replace

from gpulens.analyzers import _advice, _coalescing
from gpulens.analyzers._stake import SOL_BOUND_PCT, floor_cap_words, floor_capped, floor_stake, time_at_stake
from gpulens.analyzers._verdict_facts import (  # noqa: F401 (re-exported: one namespace of the rules)
    BELOW_ROOFS, BELOW_ROOFS_VERDICT, BOUNDS, BOUND_TO_VERDICT, CLASSES, THEO_KEYS, Evidence, FULL_GRID_SHARE,
    HIGH_OCCUPANCY_PCT, LAUNCH_IDLE_MIN_SHARE, ONE_OFF_LAUNCH_NS, QUEUED_LAUNCH_NS, ROOF_BOUND_PCT,
    SMALL_GRID_WAVES, TINY_LAUNCH_SHARE, Verdict, _LATENCY_STALLS, _STALL_TO_CLASS, _cache_led, _grid_short,
    _l1_led, _of_peak, _pct, _waves_words, latency_evidence, one_off_launch, slow_launch)
from gpulens.analyzers._verdict_steps import (  # noqa: F401 (re-exported: one namespace of the rules)
    STEPS, _LIMITER_STEP, _STALL_STEP, _below_roofs_steps,
    _latency_steps, steps_for, undetermined_steps)
from gpulens.analyzers._verdict_text import (  # noqa: F401 (re-exported: one namespace of the rules)
    _below_roofs_text, _evidence_text, _grids_text, _limiter_words, saturated_step)
from gpulens.timeline.names import is_graph_replay
from gpulens.units import fmt_ns, pct_words

#: The next step for a graph-level CUDA graph replay (:func:`gpulens.timeline.names.is_graph_replay`): its kernels
#: need a node-level trace before any of them can be classified (NVIDIA Nsight Systems user guide,
#: ``--cuda-graph-trace=node``).
GRAPH_NODE_STEP = ("Re-trace with nsys profile --cuda-graph-trace=node so each kernel of the graph is recorded on "
                   "its own — a whole graph replay has no per-kernel bound; then collect counters for the kernels "
                   "that matter.")


def sol_basis(unit: str, pct: float) -> str:
    """What a time at stake measured by the speed of light is the distance to, in words: "from L2 at 79.6 % of its
    peak (measured speed of light)" (``unit``: :data:`gpulens.analyzers._stake.SOL_UNIT_WORDS`; ``pct`` [%])."""
    return f"from {unit} at {pct_words(pct)} of its peak (measured speed of light)"


def one_off_words(e: Evidence) -> str:
    """"one launch holds …": the kernel's slow launch (:attr:`Evidence.slow_launch_ns`) against its other launches."""
    return (f"one launch holds {pct_words(100 * e.slow_launch_ns / e.time_ns)} of its time "
            f"({fmt_ns(e.slow_launch_ns)}, {e.slow_launch_ns / e.others_median_ns:,.0f}× the median of its other "
            f"launches with that grid, {fmt_ns(e.others_median_ns)})")


def steady_time_ns(e: Evidence) -> int | None:
    """The kernel's time [ns] with its one-off launch (:attr:`Evidence.slow_launch_ns`, :func:`slow_launch`) counted
    at the median of its other launches (``others_median_ns``): the time its steady launches would take, the time
    its class's time at stake is read over. None without a one-off launch."""
    if not e.slow_launch_ns or not e.time_ns or not e.others_median_ns:
        return None
    return max(int(e.time_ns - e.slow_launch_ns + round(e.others_median_ns)), 0)


def one_off_step(e: Evidence) -> str:
    """The first step of a kernel whose one launch holds most of its time (:func:`slow_launch`)."""
    w = one_off_words(e)
    return (w[0].upper() + w[1:] + ": a one-off cost its class does not describe — the first touch of its memory "
            "(page faults or migration), code loading or a cold cache. Run it once before the profiled region (a "
            "warm-up) and judge the steady launches; the time at stake is its class's over them (that launch "
            "counted at the others' median), as the run verdict leaves one-off idle gaps out.")


def decide(e: Evidence, roof_pct_bound: float = ROOF_BOUND_PCT, low_occupancy_pct: float = 40.0,
           vendor: str | None = None) -> Verdict:
    """Classify one kernel (rules in the module docstring); ``vendor`` ("amd" / "nvidia") picks the tools the
    next step of an undetermined kernel names. Global loads or stores that ncu's sectors-per-request counters show
    uncoalesced (:mod:`gpulens.analyzers._coalescing`) are named in the first next step, whatever the class.
    A library kernel whose name says it was picked for unaligned
    operands (``…_align1``, :func:`gpulens.analyzers._advice.alignment_hint`) gets the padding hint first (second
    for an undetermined one, after what to collect), whatever else bounds it."""
    if vendor is not None and e.vendor is None:
        e = replace(e, vendor=vendor)
    v = _decide(e, roof_pct_bound, low_occupancy_pct, vendor)
    time_ns = e.time_ns
    steady = steady_time_ns(e)
    if steady is not None and v.time_at_stake_ns is not None \
            and v.verdict not in ("launch-bound", "communication-bound", "undetermined"):
        # one launch holds most of its time, a one-off its class does not describe: the class's time at stake is
        # over the steady launches (that launch counted at the others' median), as the run verdict leaves warm-up /
        # one-off idle gaps out (MI300A OpenMP kernel: 388.15 ms at stake of a 430.65 ms first launch + 0.63 ms)
        time_ns = steady
        again = _decide(replace(e, time_ns=steady), roof_pct_bound, low_occupancy_pct, vendor)
        v.time_at_stake_ns, v.stake_upper_ns = again.time_at_stake_ns, again.stake_upper_ns
    if v.time_at_stake_ns is not None and v.verdict not in ("launch-bound", "communication-bound") and time_ns:
        # whatever the fix, each launch keeps the GPU time no kernel runs under (_stake.KERNEL_FLOOR_NS)
        v.time_at_stake_ns = min(v.time_at_stake_ns, floor_stake(time_ns, e.calls))
        if floor_capped(v.time_at_stake_ns, time_ns, e.calls):  # the floor, not the figure's basis, sets it
            v.stake_basis, v.stake_cap = "", f"capped {floor_cap_words()}"
        if v.stake_upper_ns is not None:
            v.stake_upper_ns = min(v.stake_upper_ns, floor_stake(time_ns, e.calls))
        if e.wall_ns is not None and v.time_at_stake_ns > e.wall_ns:
            # launches that overlap (concurrent streams) save at most the wall time they cover: summed device time
            # is not time the run can lose (8 concurrent clock_block launches: 85.77 ms at stake in a 10.79 ms span)
            v.time_at_stake_ns, v.stake_basis = e.wall_ns, ""
            v.stake_cap = (f"capped at the {fmt_ns(e.wall_ns)} of wall time its launches cover (they overlap: "
                           f"{fmt_ns(time_ns)} summed)")
            if v.stake_upper_ns is not None:
                v.stake_upper_ns = min(v.stake_upper_ns, e.wall_ns)
        if v.verdict in ("latency/occupancy-bound", BELOW_ROOFS_VERDICT) and v.time_at_stake_ns >= 0.8 * time_ns:
            v.evidence += (f"; {fmt_ns(v.time_at_stake_ns)} at stake is an upper bound: what running at its roof "
                           "would save, each launch keeping 2 µs — the next step recovers part of it, no single "
                           "change all of it")
    coal = _coalescing.step(e.sectors_per_request, e.name) if e.kind != "comm" else None
    if coal and coal not in v.next_steps:  # measured wasted traffic: the first thing to fix, whatever bounds it
        v.next_steps = [coal] + v.next_steps[:1]
    hint = _advice.alignment_hint(e.name, e.gemm_extents) if e.kind != "comm" and v.verdict != "launch-bound" \
        else None
    if hint and hint not in v.next_steps:  # the one alignment step: the extents-aware one replaces a generic one
        at = 1 if v.verdict == "undetermined" else 0
        rest = [s for s in v.next_steps if not s.startswith(_advice.ALIGN_LEAD)]
        v.next_steps = (rest[:at] + [hint] + rest[at:])[:2]
    if e.slow_launch_ns and e.time_ns and v.verdict != "undetermined":
        # one launch holds most of its time: what its class says of the steady launches misses that one-off
        v.next_steps = [one_off_step(e)] + v.next_steps[:1]
        v.evidence += f"; {one_off_words(e)}"
    if e.vendor == "amd":  # the grid's blocks in AMD's word: workgroups
        v.next_steps = [_advice.amd_block_words(x, "amd") for x in v.next_steps]
        v.evidence = _advice.amd_block_words(v.evidence, "amd")
    return v


def _decide(e: Evidence, roof_pct_bound: float, low_occupancy_pct: float, vendor: str | None) -> Verdict:
    t = e.time_ns
    ev = _evidence_text(e)
    if e.kind == "comm":
        return Verdict("communication-bound", e.exposed_comm_ns, ev, steps_for("communication-bound", e))
    if is_graph_replay(e.name):  # a whole graph replay, its kernels unrecorded: no kernel counter describes it
        return Verdict("undetermined", None, ev + "; this record is a whole CUDA graph replay traced at graph level "
                       "(nsys --cuda-graph-trace=graph): its kernels were not recorded one by one",
                       [GRAPH_NODE_STEP])
    sol_decides = e.sol_bound in BOUND_TO_VERDICT
    if sol_decides and e.sol_pct is not None:  # the measured speed of light decides: its distance is at stake
        stake, source = time_at_stake(t, e.sol_pct, e.calls), ""
    else:
        stake = e.roof_stake_ns if e.roof_stake_ns is not None else time_at_stake(t, e.roof_pct, e.calls)
        source = "peaks" if e.roof_source == "roofline" else ""  # else the speed of light's share: measured
    if e.short_launch_frac is not None and e.short_launch_frac >= 0.5 and t and 0 < e.launch_idle_ns \
            < LAUNCH_IDLE_MIN_SHARE * t:
        ev += (f"; launch idle before it ({fmt_ns(e.launch_idle_ns)}) is {pct_words(100 * e.launch_idle_ns / t)} of its "
               f"{fmt_ns(t)}: its launches mostly found the GPU busy, so they are not what bounds it")
    elif e.short_launch_frac is not None and e.short_launch_frac >= 0.5 and e.launch_idle_ns > 0:
        if stake is None or e.launch_idle_ns >= stake:
            if e.launch_idle_ns > t:  # not capped at the kernel's time: the idle is GPU time, not the kernel's
                ev += (f"; at stake is that idle ({fmt_ns(e.launch_idle_ns)}), more than the kernel's own "
                       f"{fmt_ns(t)}: the GPU waits on its launches longer than it runs it, and graphs or fusion "
                       "remove the wait however short the kernel")
            return Verdict("launch-bound", e.launch_idle_ns, ev, steps_for("launch-bound", e))
        # short launches, but the launch idle before them is less than what its roof position puts at stake: the
        # queue stayed fed, and the roof (or speed of light) names the larger lever
        ev += f"; launch idle before it ({fmt_ns(e.launch_idle_ns)}) is less than its roof position puts at stake"
    if sol_decides:
        v = BOUND_TO_VERDICT[e.sol_bound]
        upper, at_least, lb_upper = None, False, False
        if v == "memory-bound" and _l1_led(e) and e.roof_source == "roofline" and e.roof_stake_ns is not None \
                and stake is not None and e.roof_stake_ns > stake and e.roof_pct is not None and e.roof_assumed:
            # the same, with the roofline on an assumed GPU's peaks: the measured L1 distance is at stake (a lower
            # bound, ranked), the roofline distance shown beside it as the upper bound it is on that GPU (ncu H200
            # CSV: gemm_wmma's 603.93 µs on assumed peaks ranked above gemm_naive's measured 88.40 µs)
            upper, at_least = e.roof_stake_ns, True
            ev += (f"; at stake is at least its distance to the saturated L1/shared-memory peak, measured: cutting "
                   f"that traffic recovers up to its distance to the roofline ({pct_words(e.roof_pct)} of attainable"
                   f" on the DRAM and compute roofs of the assumed {e.roof_assumed})")
        elif v == "memory-bound" and _l1_led(e) and e.roof_source == "roofline" and e.roof_stake_ns is not None \
                and stake is not None and e.roof_stake_ns > stake and e.roof_pct is not None:
            # L1/shared memory is saturated, DRAM is not: the traffic that bounds it is re-reads a kernel keeping
            # its data in registers does without (the next step), so its distance to the busy unit's peak is not
            # what is at stake — its distance to the DRAM/compute roofline is (a naive fp32 GEMM at 98 % of L1
            # bandwidth and 8 % of the roofline: 2 % vs 92 % of its time)
            stake, source = e.roof_stake_ns, "peaks"
            ev += (f"; at stake is its distance to the roofline ({pct_words(e.roof_pct)} of attainable on the DRAM and "
                   "compute roofs), not to the saturated L1/shared-memory peak: cutting that traffic is the fix")
            if e.flops_lower_bound:  # fewer FLOPs counted than ran: the distance is the most at stake, not a measure
                lb_upper = True  # (the .ncu-rep's naive GEMM: 2.92 ms read as measured, its FLOPs a lower bound)
        elif v == "memory-bound" and _l1_led(e) and stake is not None and e.roof_stake_ns is None:
            # the same kernel with no roofline position (an ncu CSV without the FLOP counts its .ncu-rep holds): its
            # distance to the saturated L1 peak is the least that cutting that traffic recovers — the naive GEMM
            # read 88.40 µs at stake from the CSV and 2.92 ms from the report file, neither saying why
            at_least = True
            ev += ("; at stake is at least its distance to the saturated L1/shared-memory peak: cutting that traffic "
                   "recovers up to its distance to the DRAM/compute roofline, which needs its FLOP counts ("
                   + _advice.for_vendor(e.vendor, "ncu --set full", "rocprof-compute") + ")")
        if e.roof_source == "roofline" and e.roof_pct is not None and e.bound in BOUNDS \
                and BOUND_TO_VERDICT[e.bound if e.roof_pct >= roof_pct_bound else BELOW_ROOFS] != v:
            # the roofline places it elsewhere: FLOPs or bytes over datasheet (or assumed) peaks; the units'
            # measured throughput is what the kernel did — shown, never overriding (rule 3)
            ev += ("; the measured speed of light decides, not the roofline "
                   + ("(its peaks are an assumed GPU's: the input does not name it)" if e.roof_assumed else
                      "(a placement against datasheet peaks)"))
        out = Verdict(v, stake, ev, _latency_steps(e) if v == "latency/occupancy-bound" else steps_for(v, e),
                      source, upper, at_least)
        if lb_upper and stake is not None:
            # its FLOP count a lower bound (_flop_coverage.flops_lower_bound's words): attained FLOP/s at least,
            # its distance to the roofline at most
            out.stake_basis = (f"up to: its distance to the roofline, whose FLOP count is {e.flops_lower_bound} — "
                               "the most at stake, less if more FLOPs ran")
        elif stake is not None and not source and e.sol_pct is not None and e.sol_unit:
            # the measured distance: the figure names the unit it is of (ncu H200 saxpy: L2 79.6 %, where the
            # speed-of-light table shows memory 66.8 %)
            out.stake_basis = sol_basis(e.sol_unit, e.sol_pct)
        return out
    if e.roof_pct is not None:
        if e.roof_pct >= roof_pct_bound and e.bound in ("compute", "memory"):
            v = f"{e.bound}-bound"
            return Verdict(v, stake, ev, steps_for(v, e), source)
        if e.roof_source == "roofline" and e.sol_pct is not None and e.sol_pct >= SOL_BOUND_PCT:
            # measured: a unit runs at >= 60 % of its peak, so the kernel is not below both roofs whatever the
            # roofline's FLOPs over (datasheet or assumed) peaks say — and the counters name no bound (rule 3)
            what = e.sol_missing or "counters that name the busy unit"
            return Verdict("undetermined", None, ev + f"; the measured speed of light has a unit at "
                           f"{pct_words(e.sol_pct)} of its peak: not latency-bound, as the roofline's "
                           f"{pct_words(e.roof_pct)} would say; no compute/memory verdict without {what}",
                           [f"Collect {what} to classify this kernel: its speed of light alone does not."])
        if not latency_evidence(e, low_occupancy_pct):
            return Verdict(BELOW_ROOFS_VERDICT, stake, ev + _below_roofs_text(e), _below_roofs_steps(e), source)
        return Verdict("latency/occupancy-bound", stake, ev, _latency_steps(e), source)
    if e.sol_pct is not None and e.sol_pct >= SOL_BOUND_PCT:
        # rules 5-7 call a kernel latency/occupancy-bound from its grid, stalls or occupancy; a measured unit at
        # >= 60 % of its peak that names no bound (SM throughput alone) says it is not (rule 4's guard, same words)
        latency_rule = _grid_short(e) or (e.stall_class in _STALL_TO_CLASS and e.stall_pct is not None and
                                          _STALL_TO_CLASS[e.stall_class] == "latency/occupancy-bound") or (
            e.achieved_occupancy_pct is not None and e.achieved_occupancy_pct < low_occupancy_pct and e.limiter)
        if latency_rule:
            what = e.sol_missing or "counters that name the busy unit"
            return Verdict("undetermined", None, ev + f"; the measured speed of light has a unit at "
                           f"{pct_words(e.sol_pct)} of its peak: not latency-bound, as its grid, stalls or occupancy "
                           f"would say; no compute/memory verdict without {what}",
                           [f"Collect {what} to classify this kernel: its speed of light alone does not."])
    if _grid_short(e):
        stake = e.wave_loss_ns if e.wave_loss_ns is not None else int(round(t * (1 - e.mean_blocks / e.num_sms)))
        return Verdict("latency/occupancy-bound", stake, ev, _latency_steps(e), "sms")
    if e.stall_class == "memory_latency" and e.stall_pct is not None and e.sol_missing and e.memory_pct is None:
        # speed-of-light counters were read without the memory side: waits on memory results are what a kernel
        # saturating bandwidth shows too (vcopy on an MI300X: 76 % dependency waits, memory not counted — on an MI200,
        # with it counted, memory-bound at 62 % of HBM), so the stalls cannot tell latency from bandwidth
        return Verdict("undetermined", None, ev + f"; memory-latency stalls ({pct_words(e.stall_pct)}) are what "
                       "a kernel saturating memory bandwidth shows too; no compute/memory verdict without "
                       f"{e.sol_missing}",
                       [f"Collect {e.sol_missing} to classify this kernel: its stalls alone do not."])
    if e.stall_class in _STALL_TO_CLASS and e.stall_pct is not None:
        v = _STALL_TO_CLASS[e.stall_class]
        stake = int(round(t * e.stall_pct / 100))
        steps = _latency_steps(e) if v == "latency/occupancy-bound" else \
            [_advice.vendor_text(_STALL_STEP[e.stall_class], e.vendor)] + steps_for(v, e)[:1]
        if e.stall_class == "memory_latency":
            ev += "; no throughput figure: saturated bandwidth also shows as memory waits, check DRAM throughput"
        mem = e.memory_pct if e.memory_pct is not None else e.dram_pct
        if v == "memory-bound" and mem is not None and mem < SOL_BOUND_PCT:
            # throttle stalls beside a measured memory side far from its peak (ncu lg_throttle with DRAM at 33 %:
            # local-memory spills filling the load/store queue): the queue, not DRAM bandwidth, is what is full —
            # said beside the figure that would otherwise contradict "memory-bound"
            ev += (f"; the memory side measured is at {pct_words(mem)} of its peak: the memory-throughput stalls "
                   f"(top {str(e.top_stall).replace('_', ' ')}) are a full load/store or texture queue in the SM, "
                   "not DRAM bandwidth")
        return Verdict(v, stake, ev, steps)
    # the block size alone capping it low (registers / shared memory not recorded: _occ_bound) names its limit too
    capped = e.theoretical_max_pct is not None and e.theoretical_max_pct < low_occupancy_pct
    low_occ = e.achieved_occupancy_pct is not None and e.achieved_occupancy_pct < low_occupancy_pct and (
        e.limiter or capped)
    if low_occ and not (e.sol_missing and e.memory_pct is None):
        return Verdict("latency/occupancy-bound", None, ev, _latency_steps(e))
    if e.sol_missing:  # counters were read but do not support a bound: name what is missing, not a generic step —
        # also over a low achieved occupancy when memory is not counted: a streaming kernel saturates memory at 26 %
        # occupancy as well (vcopy on an MI300X; the same kernel on an MI200, memory counted, is memory-bound)
        low = (f"; its achieved occupancy ({pct_words(e.achieved_occupancy_pct)}) is low, but occupancy alone does not "
               "tell a latency-bound kernel from one saturating memory") if low_occ else ""
        return Verdict("undetermined", None, ev + f"{low}; no compute/memory verdict without {e.sol_missing}",
                       [saturated_step(e) or
                        f"Collect {e.sol_missing} to classify this kernel: its speed of light alone does not."])
    if e.shaped_op:  # shapes are recorded already: re-profiling with record_shapes would add nothing
        return Verdict("undetermined", None, ev + f"; its operator {e.shaped_op} has recorded input shapes but gpulens "
                       "has no FLOP/byte model for it",
                       undetermined_steps(vendor, False, e.collected))
    if not e.pytorch or e.torch_trace is False:  # torch.profiler options only for a torch.profiler recording
        return Verdict("undetermined", None, ev, undetermined_steps(vendor, False, e.collected))
    return Verdict("undetermined", None, ev, undetermined_steps(vendor, True, e.collected) or [_advice.vendor_text(
        STEPS["undetermined"][0], None)])
