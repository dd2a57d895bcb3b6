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
time at stake; otherwise the roofline's). Rules 5–7 apply only without such a figure.
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

from dataclasses import dataclass, field, replace

from gpulens.analyzers import _advice, _coalescing
from gpulens.analyzers._stake import SOL_BOUND_PCT, floor_stake, time_at_stake
from gpulens.units import fmt_ns, pct_words

#: Kernel verdicts, the one vocabulary of every report.
CLASSES = ("compute-bound", "memory-bound", "latency/occupancy-bound", "below-roofs", "launch-bound",
           "communication-bound", "undetermined")
#: Rule 4b: the verdict of a kernel the roofline places below both roofs when nothing beside it says latency or
#: occupancy (:func:`latency_evidence`): "below both roofs" is all the evidence supports — a CUTLASS align1 GEMM at
#: 12 % of its roof with 97 waves and achieved occupancy not counted is held by its narrow loads, not by occupancy.
BELOW_ROOFS_VERDICT = "below-roofs"
#: Roofline bounds, the one vocabulary of every report: a roof, or below both (latency-, occupancy- or
#: launch-limited). The side of the ridge point is stated beside it (``ridge_side``: compute | memory).
BELOW_ROOFS = "below-roofs"
#: At or above this % of its attainable roof a kernel is bound by that roof (``compute`` / ``memory``); below it the
#: roofline calls it ``below-roofs`` and the verdict latency/occupancy- or launch-bound — one threshold for both, so
#: the roofline table never says "memory" beside a "latency/occupancy-bound" verdict.
ROOF_BOUND_PCT = 50.0
#: Rule 2: launch-overhead idle before a kernel's launches below this share of its own GPU time does not make it
#: launch-bound (the share under which the run verdict calls a cause negligible, bottlenecks' ``min_share``).
LAUNCH_IDLE_MIN_SHARE = 0.1
BOUNDS = ("compute", "memory", BELOW_ROOFS)
#: bound (roofline or speed of light) → kernel verdict
BOUND_TO_VERDICT = {"compute": "compute-bound", "memory": "memory-bound", BELOW_ROOFS: "latency/occupancy-bound",
                    "latency": "latency/occupancy-bound"}


@dataclass
class Evidence:
    """What is known about one kernel (None = not measured). Times in ns, percentages 0–100."""

    name: str
    kind: str
    calls: int
    time_ns: int
    exposed_comm_ns: int | None = None
    short_launch_frac: float | None = None
    launch_idle_ns: int = 0
    #: the longest single launch gap of those (GPU idle before one launch of it, synchronisation left out) [ns]
    launch_idle_max_ns: int = 0
    launch_latency_p50_ns: int | None = None
    launch_latency_p90_ns: int | None = None
    bound: str | None = None
    roof_pct: float | None = None
    arithmetic_intensity: float | None = None
    roof_source: str = "roofline"
    ridge_side: str | None = None
    roof_stake_ns: int | None = None
    datasheet_roof_pct: float | None = None
    #: the name of the GPU whose peaks the roofline used when that GPU was assumed, not read from the input
    roof_assumed: str | None = None
    #: whether the SM/CU count the grid is measured against (``num_sms``) is an assumed GPU's, not recorded
    sms_assumed: bool = False
    sol_bound: str | None = None
    #: attained share of the roof by the speed of light [%] (:func:`gpulens.analyzers._stake.sol_attained_pct`)
    sol_pct: float | None = None
    compute_pct: float | None = None
    memory_pct: float | None = None
    memory_measured_pct: float | None = None
    #: the memory side's units [% of peak] (ncu SpeedOfLight L1/TEX and DRAM throughput): which one is busy
    l1_pct: float | None = None
    l2_pct: float | None = None
    dram_pct: float | None = None
    mean_blocks: float | None = None  # blocks per launch, the launches weighted by their GPU time
    blocks_vary: bool = False  # the launches' grids differ (mean_blocks is then a time-weighted mean)
    num_sms: int | None = None
    achieved_occupancy_pct: float | None = None
    theoretical_occupancy_pct: float | None = None
    limiter: str | None = None
    #: every block limit tied at the binding value ("registers, shared_memory"; the occupancy table's ``limiters``):
    #: the evidence text names them all, the advice follows :attr:`limiter` (the first)
    limiters: str | None = None
    #: which unit :attr:`compute_pct` is when not the SM/CU throughput ("tensor pipe": ncu's tensor-pipe
    #: utilisation, busier than the SM figure or the only compute figure)
    compute_side: str | None = None
    waves_per_sm: float | None = None
    #: distinct grid sizes among its launches (> 1: :attr:`waves_per_sm` is the mean grid's, where the occupancy
    #: table's waves are its main configuration's)
    grid_sizes: int | None = None
    #: blocks of the grid with the most time (the occupancy table's ``grid_blocks``): named beside the time-weighted
    #: mean when the grids differ, so the evidence and the occupancy row say which figure each is
    main_grid_blocks: int | None = None
    sol_missing: str | None = None
    stall_class: str | None = None
    stall_pct: float | None = None
    top_stall: str | None = None
    wave_loss_ns: int | None = None
    family: str = "other"
    library: bool = False
    #: who generated its code when the trace shows it (:func:`gpulens.analyzers._advice.triton_kernels`:
    #: ``triton`` / ``aotriton``), None otherwise
    owner: str | None = None
    pytorch: bool = False
    torch_trace: bool | None = None
    training: bool | None = None
    #: the framework op that launched it when that op's input shapes are recorded (no FLOP model for it, then)
    shaped_op: str | None = None
    #: (M, N, K) of the GEMM ops that launched it, from recorded shapes (``_flop_models.gemm_extents``; empty when
    #: unknown): an align1 kernel's hint names the extents to pad
    gemm_extents: tuple = ()
    precision: str | None = None
    #: ``amd`` / ``nvidia`` (:func:`gpulens.analyzers._advice.vendor_of`): the words its steps use (SM or CU…)
    vendor: str | None = None
    compute_roof: str | None = None
    sectors_per_request: dict[str, float] | None = None
    #: every launch of it was replayed by a CUDA/HIP graph launch: it has no launch call of its own, so no short-launch
    #: share or launch idle (the evidence says so instead)
    graph_replayed: bool = False
    inputs: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    """The decision for one kernel."""

    verdict: str
    time_at_stake_ns: int | None
    evidence: str
    next_steps: list[str]
    #: which of the GPU's own figures the time at stake was computed from, when it was not measured: ``"peaks"``
    #: (a distance to the roofline's peak FLOP/s and bandwidth), ``"sms"`` (waves on its SM/CU count), or "" — on
    #: an assumed GPU (:attr:`Evidence.roof_assumed`, :attr:`Evidence.sms_assumed`) the figure then carries a
    #: premise (:func:`gpulens.analyzers._stake.assumed_premise`)
    stake_from: str = ""


_STALL_TO_CLASS = {"memory_throughput": "memory-bound", "compute_pipe": "compute-bound",
                   "scheduling": "compute-bound", "memory_latency": "latency/occupancy-bound",
                   "synchronization": "latency/occupancy-bound", "instruction_fetch": "latency/occupancy-bound"}

STEPS = {
    "communication-bound": ["Overlap it with compute: start it during backward (DDP gradient bucketing, FSDP "
                            "prefetch, async_op=True with a later wait).",
                            "Shrink it: reduce in BF16 or compress gradients, use fewer and larger buckets."],
    "launch-bound": ["Fuse it with its neighbours (torch.compile, a fused kernel) so one launch does more work.",
                     "Capture the step in a {graph} so one launch replays all its kernels."],
    "compute-bound": ["Use {tensor} at a lower precision (TF32, BF16, FP8) where accuracy allows.",
                      "Cut the FLOPs: avoid recomputation, pick a cheaper algorithm or shape."],
    "memory-bound": ["Fuse it with the producer or consumer so the data crosses DRAM once (torch.compile).",
                     "Move fewer bytes: narrower dtypes (BF16/FP8), vectorised and coalesced 128-bit accesses."],
    "undetermined": ["Collect counters for these kernels ({full_counters}) or FLOP/byte figures "
                     "(torch.profiler with record_shapes and with_flops) to classify them."],
}
_LIMITER_STEP = {
    "registers": "Registers per thread limit occupancy: cap them with {reg_cap} and check for spills.",
    "shared_memory": "{Smem} per block limits occupancy: use smaller tiles or fewer pipeline stages.",
    "warps": "The block size limits resident {warps}: use 128–256 threads per block.",
    "blocks": "The blocks-per-{sm} limit caps occupancy: use larger blocks with more work each.",
    "grid": "The grid has too few blocks to fill the GPU: split-K, smaller tiles, or batch problems per launch.",
}
_STALL_STEP = {
    "memory_latency": "{Warps} wait on memory latency: keep more bytes in flight (independent loads per thread, "
                      "prefetching, {async_copy}).",
    "synchronization": "{Warps} wait at barriers: fewer {barrier}, balance work between {warps}.",
    "instruction_fetch": "Instruction-fetch stalls: shrink code (less unrolling, fewer template variants) and "
                         "avoid divergent branches.",
    "memory_throughput": "Memory queues are full: fewer, wider accesses; avoid register spills to {lmem}.",
    "compute_pipe": "An arithmetic pipe is saturated: move math to {tensor} or a less-busy pipe.",
    "scheduling": "The schedulers issue every cycle: cut the instruction count (vectorise, hoist index math).",
}


def _cache_led(e: Evidence) -> str | None:
    """``"L1"`` / ``"L2"`` when the memory side is that cache's, not DRAM's: the busier of L1 and L2 at least 20
    points above DRAM, DRAM below :data:`SOL_BOUND_PCT` (ncu's memory throughput is the busiest of L1, L2 and DRAM;
    rocprof-compute's speed of light has the same three). None otherwise. An elementwise kernel reading what its
    producer just wrote has L2 at 94 % and L1 at 40 %: its traffic is L2's, and L1 advice (register tiling, shared-
    memory bank conflicts) does not apply."""
    if e.dram_pct is None or e.dram_pct >= SOL_BOUND_PCT:
        return None
    caches = [(x, unit) for x, unit in ((e.l2_pct, "L2"), (e.l1_pct, "L1")) if x is not None]
    if not caches:
        return None
    top, unit = max(caches, key=lambda c: c[0])  # a tie goes to L2: the unit a re-read from L1 does not reach
    return unit if top >= e.dram_pct + 20 else None


def _l1_led(e: Evidence) -> bool:
    """The memory side is L1/shared memory's (:func:`_cache_led`)."""
    return _cache_led(e) == "L1"


#: A launch gap this long is not launch overhead (a launch call costs microseconds): one slow call, e.g. the first
#: use of a kernel loading its code object or a lazily loaded module [ns].
ONE_OFF_LAUNCH_NS = 1_000_000


def one_off_launch(e: Evidence) -> bool:
    """Whether most of the kernel's launch idle is one gap of at least :data:`ONE_OFF_LAUNCH_NS`: a one-off slow
    launch call that fusion or graphs would not remove (they cut per-launch overhead)."""
    return e.launch_idle_max_ns >= ONE_OFF_LAUNCH_NS and 2 * e.launch_idle_max_ns >= e.launch_idle_ns > 0


def steps_for(verdict: str, e: Evidence) -> list[str]:
    """The next steps of a verdict, gated on what is known of the kernel and the program (module doc)."""
    if verdict == "launch-bound":
        fuse = _advice.fuse_step(e.pytorch, e.family, e.name, e.owner, e.vendor)
        steps = [fuse[0].upper() + fuse[1:] + " so one launch does more work.",
                 f"Capture the step in {_advice.graphs(e.pytorch, e.vendor)} so one launch replays all its kernels."]
        if one_off_launch(e):
            # "fuse it" presumes many launches each paying a few µs; one multi-ms call is a one-off cost
            steps.insert(0, f"{fmt_ns(e.launch_idle_max_ns)} of its {fmt_ns(e.launch_idle_ns)} launch idle is the GPU "
                            "waiting on one slow launch call (a first use loading its code, or a lazily loaded "
                            "module), not per-launch overhead: run it once before the profiled region (a warm-up "
                            "iteration) — fusing or graphs would not remove that call.")
        return steps
    if verdict == "memory-bound" and _l1_led(e):
        # the busy memory unit is L1/shared memory, not DRAM: fusion, larger batches and narrower DRAM bytes
        # do not relieve it
        return [f"Its busiest memory unit is L1/shared memory ({pct_words(e.l1_pct)} of peak; "
                f"DRAM {pct_words(e.dram_pct)}): "
                "cut L1 and shared-memory traffic — more outputs per thread kept in registers (register tiling), "
                "wider 128-bit shared-memory loads, no bank conflicts.",
                _advice.for_vendor(e.vendor, "Check ncu's Memory Workload Analysis (shared-memory wavefronts per "
                                   "request, L1 hit rate) for the instructions that load it.",
                                   "Check rocprof-compute's LDS and vL1D sections (bank conflicts, hit rate) for the "
                                   "instructions that load it.")]
    if verdict == "memory-bound" and _cache_led(e) == "L2":
        # the bytes come from L2, not DRAM (a producer's output still in L2): the kernel's own traffic through L2 is
        # what bounds it, and removing the round trip (fusion) or moving fewer, wider requests relieves it
        others = "; ".join(f"{w} {pct_words(x)}" for x, w in ((e.l1_pct, "L1"), (e.dram_pct, "DRAM")) if x is not None)
        how = "torch.compile" if e.pytorch else "one fused kernel"
        return [f"Its busiest memory unit is L2 ({pct_words(e.l2_pct)} of peak; {others}): its data comes from L2, not "
                f"DRAM — fuse it with the producer or consumer so the values stay in registers ({how}), and move "
                "the bytes in fewer, wider (128-bit) requests.",
                _advice.for_vendor(e.vendor, "Check ncu's Memory Workload Analysis (L2 hit rate, L1↔L2 and L2↔DRAM "
                                   "bytes) for the instructions that load it.",
                                   "Check rocprof-compute's L2 cache (TCC) section (hit rate, requests per "
                                   "channel) for the instructions that load it.")]
    if verdict == "memory-bound" and e.family in ("gemm", "attention"):
        # a matrix product is not fused away with its producer: its bytes per FLOP fall with more rows per call
        what = "each key/value byte serves more queries" if e.family == "attention" else \
            "each weight byte serves more rows"
        return [f"Raise its arithmetic intensity: more rows per call (larger batch, several small problems in one "
                f"batched or grouped call) so {what}.", _advice.bytes_step(e.precision, e.name)]
    if verdict == "memory-bound":
        how = "torch.compile" if e.pytorch else "one fused kernel"
        return [f"Fuse it with the producer or consumer so the data crosses DRAM once ({how}).",
                _advice.bytes_step(e.precision, e.name)]
    if verdict == "compute-bound" and e.family not in ("gemm", "attention"):
        return ["Cut the arithmetic per element: cheaper math (fast intrinsics, fewer divisions and transcendentals), "
                "hoisted index math, vectorised instructions.", STEPS["compute-bound"][1]]
    if verdict == "compute-bound":
        prec = _advice.precision_step(e.precision, e.compute_roof, e.pytorch, e.vendor)
        return ([prec] if prec else []) + [STEPS["compute-bound"][1]]
    if verdict == "communication-bound" and e.pytorch and _advice.comm_steps(e.training, e.name):
        return _advice.comm_steps(e.training, e.name)
    if verdict == "communication-bound" and not e.pytorch:
        return ["Overlap it with compute: issue it on its own stream while independent compute runs, and wait for "
                "it only where its result is needed.",
                "Shrink it: reduce in a narrower type (BF16) or compress, send fewer and larger messages."]
    return [_advice.vendor_text(x, e.vendor) for x in STEPS[verdict]]


def _of_peak(x: float | None) -> str:
    return "not counted" if x is None else f"{pct_words(x)} of peak"


def _pct(x: float | None) -> str:
    return "not counted" if x is None else pct_words(x)


#: Below this many waves (grid blocks / resident-block capacity of the GPU) the grid, not the per-block resource
#: limiter, caps the parallelism in flight: relaxing registers or shared memory would not raise achieved occupancy.
SMALL_GRID_WAVES = 0.5
#: A grid with at least this share of one block per SM/CU already covers (almost) every SM: it is never told to add
#: blocks or to "fill the GPU" (296 blocks on an MI300X's 304 CUs leave 2.6 % idle), and rule 5 does not call it
#: latency-bound for its grid. The partly-filled-wave estimate still counts the few idle SMs.
FULL_GRID_SHARE = 0.9
#: At or above this achieved occupancy [%] (or at 100 % theoretical with achieved unknown) raising occupancy is not
#: advice: ncu's guidance treats occupancy as a lever only while warps are too few to hide latency.
HIGH_OCCUPANCY_PCT = 80.0


def _grid_short(e: Evidence) -> bool:
    """Whether the kernel's grid leaves SMs/CUs without a block: fewer blocks than :data:`FULL_GRID_SHARE` × SMs,
    and, when the occupancy analyzer gives its waves, under that share of one wave too."""
    if e.mean_blocks is None or not e.num_sms or e.mean_blocks >= FULL_GRID_SHARE * e.num_sms:
        return False
    return e.waves_per_sm is None or e.waves_per_sm < FULL_GRID_SHARE


#: At or above this share of launches shorter than their launch call, a latency-bound kernel is told fusion first:
#: each launch does less GPU work than the launch costs, so more blocks per launch (a larger batch) is not the first
#: lever — a BERT layer norm of 141 rows on 132 SMs, every launch shorter than its call, was told "more rows".
TINY_LAUNCH_SHARE = 0.5
#: Launches waiting this long (p50, call start → kernel start) sat in a deep GPU queue: the launch calls (µs) did not
#: keep the GPU waiting, so short launches are no reason to fuse (GPT-2 on an H200: a copy kernel queued 3.43 ms).
QUEUED_LAUNCH_NS = 50_000


def _waves_words(e: Evidence) -> str:
    """``"0.18 waves"``, and when the launches have several grid sizes ``"0.18 waves of its mean grid; its 5 grid
    sizes vary"``: the verdict speaks of the mean grid over its launches, the occupancy table of its main
    configuration, and a reader seeing both figures is told which is which."""
    from gpulens.analyzers._occ_findings import waves_text

    text = f"{waves_text(e.waves_per_sm)} waves"
    if e.grid_sizes and e.grid_sizes > 1:
        text += f" of its mean grid; its {e.grid_sizes} grid sizes vary"
    return text


_LATENCY_STALLS = ("memory_latency", "synchronization", "instruction_fetch")


def latency_evidence(e: Evidence, low_occupancy_pct: float = 40.0) -> bool:
    """Whether something beside a below-roofs placement says latency or occupancy holds the kernel: a grid short of
    the SMs/CUs or under :data:`SMALL_GRID_WAVES` waves, achieved occupancy under ``low_occupancy_pct`` [%], latency-
    class stalls dominating, or measured speed of light with its busiest unit under 60 % of peak (a placement from
    it, ``roof_source`` not the roofline, or ``sol_pct``: ncu's SOLBottleneck reads that as latency). Theoretical
    occupancy alone is not such evidence (a tensor-core GEMM runs at full speed at 12 % theoretical), nor are launches
    shorter than their call (rule 2)."""
    return bool(_grid_short(e) or (e.waves_per_sm is not None and e.waves_per_sm < SMALL_GRID_WAVES)
                or (e.achieved_occupancy_pct is not None and e.achieved_occupancy_pct < low_occupancy_pct)
                or (e.stall_class in _LATENCY_STALLS and e.stall_pct is not None)
                or e.roof_source != "roofline" or (e.sol_pct is not None and e.sol_pct < SOL_BOUND_PCT))


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
    cause = ("below both roofs, the cause its name gives: " + hint.removeprefix("Its name says ").split(":")[0]
             + " — an unaligned GEMM shape made the library pick a kernel with narrow loads" if hint else
             "below both roofs: neither compute nor memory bandwidth bounds it, and no figure here names the cause")
    return f"; {cause}; not shown to be latency or occupancy ({', '.join(seen)})"


def _below_roofs_steps(e: Evidence) -> list[str]:
    """Next steps of a below-roofs kernel: the latency steps where they rest on what is known (a library kernel, code
    not the user's), the register/shared-memory limiter advice only as a condition, and what to measure. None for a
    kernel whose name gives the cause (``align1``): :func:`decide` puts the padding step, the one that fits it."""
    if _advice.alignment_hint(e.name):
        return []
    steps = [x for x in _latency_steps(e, proven=False)
             if not x.startswith(("Raise parallelism in flight", "Registers per thread", "The block size limits",
                                  "The blocks-per-"))]
    collect = _advice.for_vendor(e.vendor, "Measure why it runs below both roofs: ncu --set full on this kernel "
                                 "(warp stalls, achieved occupancy, memory throughput).",
                                 "Measure why it runs below both roofs: rocprof-compute profile on this kernel "
                                 "(wavefront stalls, achieved occupancy, memory throughput).")
    return (steps + [collect])[:2]


def _latency_steps(e: Evidence, proven: bool = True) -> list[str]:
    def w(key: str) -> str:  # the vendor's word (SM or CU, warps or wavefronts)
        return _advice.vendor_word(e.vendor, key)

    steps = []
    queued = e.launch_latency_p50_ns is not None and e.launch_latency_p50_ns >= QUEUED_LAUNCH_NS
    if e.short_launch_frac is not None and e.short_launch_frac >= TINY_LAUNCH_SHARE and not queued:
        short = f"{pct_words(100 * e.short_launch_frac)} of its launches run shorter than their launch call: "
        if e.family in ("gemm", "attention"):  # a matmul is batched (grouped GEMM) or replayed, not fused away
            steps.append(short + "batch several of these calls into one (a batched or grouped GEMM) or capture "
                         f"them in {_advice.graphs(e.pytorch, e.vendor)}, so the launch cost is paid once.")
        else:
            steps.append(short + _advice.fuse_step(e.pytorch, e.family, e.name, e.owner, e.vendor) + " so one launch does "
                         "more work — more blocks per launch alone would not pay back the launch.")
    base = len(steps)  # the fallbacks below add a step when nothing after the fusion step was said
    small_grid = e.waves_per_sm is not None and e.waves_per_sm < SMALL_GRID_WAVES
    full_theory = e.theoretical_occupancy_pct is not None and e.theoretical_occupancy_pct >= 99.5
    grid_step = _advice.more_blocks(e.family, e.library, e.name, e.owner).replace("Give the launch more blocks: ",
                                                                 "The grid has too few blocks to fill the GPU: ")
    if small_grid:
        from gpulens.analyzers._occ_findings import fill_text, waves_text

        if e.mean_blocks is not None and e.num_sms and e.mean_blocks >= FULL_GRID_SHARE * e.num_sms:
            # a block on every SM already: the SMs hold few of the blocks they could — not "too few to fill the GPU"
            more = _advice.more_blocks(e.family, e.library, e.name, e.owner).replace(
                "Give the launch more blocks: ", "").replace(" so its grid fills the GPU",
                                                             f" so each {w('sm')} holds more of them")
            steps.append(f"The grid puts about {e.mean_blocks / e.num_sms:.1f} block(s) on each {w('sm')}, "
                         f"{fill_text(e.waves_per_sm)} of the blocks they can hold at once "
                         f"({_waves_words(e)}), so each {w('sm')} has few {w('warps')} to hide "
                         "latency with: "
                         + more[0].lower() + more[1:])
        else:
            steps.append(f"The grid fills only {fill_text(e.waves_per_sm)} of the GPU's resident-block capacity "
                         f"({_waves_words(e)}): " + grid_step[0].lower() + grid_step[1:])
    elif e.limiter in _LIMITER_STEP and (e.achieved_occupancy_pct is None or e.achieved_occupancy_pct < 60) \
            and not full_theory:  # at 100 % theoretical the "limiter" limits nothing: relaxing it cannot help
        steps.append(_advice.limiter(e.limiter, e.name, e.pytorch, latency_bound=proven, hint=e.owner,
                                     vendor=e.vendor)
                     if e.library or _advice.code_owner(e.name, e.owner) != "user"
                     else _advice.vendor_text(_LIMITER_STEP[e.limiter], e.vendor))
    elif full_theory and e.achieved_occupancy_pct is not None and e.achieved_occupancy_pct < 60:
        steps.append(f"Achieved occupancy is {pct_words(e.achieved_occupancy_pct)} of a theoretical 100 %: no "
                     "per-block "
                     "resource limits it, so waves finish unevenly or each launch is too short to fill the GPU — "
                     "give each launch more work and balance it across blocks.")
    if not small_grid and _grid_short(e) and "grid" not in (e.limiter or ""):
        steps.append(grid_step)
    theo = e.theoretical_occupancy_pct
    if not e.limiter and theo is not None and theo < 50:
        steps.append(f"Theoretical occupancy is only {pct_words(theo)}: find its limiter (registers, shared memory, "
                     "block "
                     f"size) in {w('occ_section')} and relax it.")
    if e.stall_class in _STALL_STEP:
        steps.append(_advice.vendor_text(_STALL_STEP[e.stall_class], e.vendor))
    ach = e.achieved_occupancy_pct
    occ_high = full_theory and (ach is None or ach >= HIGH_OCCUPANCY_PCT) or (ach is not None
                                                                             and ach >= HIGH_OCCUPANCY_PCT)
    full_grid = e.mean_blocks is not None and bool(e.num_sms) and e.mean_blocks >= FULL_GRID_SHARE * e.num_sms
    owned = not e.library and _advice.code_owner(e.name, e.owner) in ("pytorch", "inductor", "nvfuser", "triton",
                                                                        "aotriton")
    if len(steps) == base and e.library and full_grid and e.mean_blocks < 2 * e.num_sms:
        # a block on every SM/CU already, about one each: more blocks is not the lever, more blocks *per SM* is
        reach = (f"gives every {w('sm')} a block ({e.mean_blocks:.0f} on {e.num_sms})"
                 if round(e.mean_blocks) >= e.num_sms else f"gives {e.mean_blocks:.0f} of the {e.num_sms} {w('sms')} "
                 "a block")
        steps.append(f"Its grid already {reach}, about one each, too few to hide latency: let the library pick a "
                     f"smaller-tile algorithm (several blocks per {w('sm')}) or give it a problem shape it tiles well.")
    elif len(steps) == base and e.library:  # the library owns the kernel's code: the user owns the problem it is given
        steps.append("Give the library kernel more parallel work per call (larger batch, several problems in one "
                     "call) or a problem shape it tiles well, or let it pick another algorithm.")
    elif len(steps) == base and occ_high and owned:
        occ = (f"{pct_words(ach)} achieved" if ach is not None
               else f"{pct_words(e.theoretical_occupancy_pct)} theoretical")
        step = _advice.owned_kernel_step(e.name, e.family, e.owner)
        steps.append(f"Occupancy is not its limit ({occ}), and its code is not yours to change: "
                     + step[0].lower() + step[1:])
    elif len(steps) == base and owned:
        # its code is generated or built into PyTorch: the per-thread code changes below are not the user's to make
        steps.append(_advice.owned_kernel_step(e.name, e.family, e.owner))
    elif len(steps) == base and occ_high:  # occupancy cannot rise (or is already high): more warps is not the lever
        occ = (f"{pct_words(ach)} achieved" if ach is not None
               else f"{pct_words(e.theoretical_occupancy_pct)} theoretical")
        rows = (f", several short rows per {w('warp')} or block (a {w('warp')}-per-row variant)"
                if e.family == "normalisation" else "")
        steps.append(f"Occupancy is not its limit ({occ}): keep more bytes in flight per {w('warp')} instead — "
                     "vectorised "
                     f"128-bit loads, several independent loads per thread{rows} — and shorten dependent chains "
                     "(fewer dependent loads and serial reductions).")
    elif len(steps) == base and e.theoretical_occupancy_pct is None and ach is None:
        steps.append("Raise parallelism in flight: more independent work per thread (vectorised loads, several "
                     f"elements per thread); measure occupancy ({w('counters')}) before trying to raise it.")
    elif len(steps) == base:
        steps.append("Raise parallelism in flight: more independent work per thread and higher occupancy.")
    return steps[:2]


def _limiter_words(limiter: str | None, vendor: str | None) -> str:
    """An occupancy limiter code in the vendor's words (AMD: wavefronts, LDS), "not known" without one."""
    if not limiter:
        return "not known"
    words = {"warps": _advice.vendor_word(vendor, "warps"), "shared_memory": _advice.vendor_word(vendor, "smem")} \
        if vendor == "amd" else {}
    return ", ".join(words.get(p, p).replace("_", " ") for p in str(limiter).split(", "))


def _evidence_text(e: Evidence) -> str:
    parts = []
    if e.sol_bound is not None or e.sol_missing:
        measured = (f" ({pct_words(e.memory_measured_pct)} of the measured HBM peak)"
                    if e.memory_measured_pct is not None
                    and (e.memory_pct is None or e.memory_measured_pct >= e.memory_pct + 0.5) else "")
        # a cache busier than the memory figure is what made the memory side (speed_of_light's max): name it
        cache = max(((x, w) for x, w in ((e.l1_pct, "L1/TEX"), (e.l2_pct, "L2")) if x is not None), default=None)
        if cache is not None and (e.memory_pct is None or cache[0] >= e.memory_pct + 0.5):
            # L1 is the whole run's figure (speed_of_light l1_run_pct), below ncu's % of the cycles it was active
            measured += f" ({cache[1]} {pct_words(cache[0])} of peak{' over the run' if cache[1] == 'L1/TEX' else ''})"
        comp = f"compute ({e.compute_side})" if e.compute_side else "compute"
        parts.append(f"speed of light: {comp} {_of_peak(e.compute_pct)}, memory {_of_peak(e.memory_pct)}{measured} "
                     "→ "
                     f"{BOUND_TO_VERDICT.get(e.sol_bound, e.sol_bound) if e.sol_bound else 'no bound'}")
        # the metric each figure came from is the speed_of_light table's evidence, said there once
    if (e.bound is not None or e.roof_pct is not None) and not (e.sol_bound and e.roof_source == "speed of light"):
        ai = "" if e.arithmetic_intensity is None else f", AI {e.arithmetic_intensity:.2f} FLOP/B"
        side = f"{e.ridge_side} side of the ridge" if e.ridge_side else "ridge side unknown"
        of = "of attainable"
        if (e.compute_roof or "").startswith("achievable.") and e.datasheet_roof_pct is not None \
                and e.roof_pct is not None and e.roof_source == "roofline" \
                and abs(e.roof_pct - e.datasheet_roof_pct) >= 0.5:  # the memory side's share is the same
            of = (f"of attainable at the achievable {e.compute_roof.rsplit('.', 1)[-1]} peak "
                  f"({_pct(e.datasheet_roof_pct)} of the datasheet peak)")
        src = (f"{e.roof_source} on an assumed {e.roof_assumed} (peaks assumed, not this GPU's for certain)"
               if e.roof_assumed and e.roof_source == "roofline" else e.roof_source)
        parts.append(f"{src}: {e.bound or 'bound unknown'}, {side}, {_pct(e.roof_pct)} {of}{ai}")
    if e.achieved_occupancy_pct is not None or e.limiter:
        counted = [f"{_pct(x)} {w}" for x, w in ((e.achieved_occupancy_pct, "achieved"),
                                                  (e.theoretical_occupancy_pct, "theoretical")) if x is not None]
        missing = " and ".join(w for x, w in ((e.achieved_occupancy_pct, "achieved"),
                                              (e.theoretical_occupancy_pct, "theoretical")) if x is None)
        lims = _limiter_words(e.limiters or e.limiter, e.vendor)
        parts.append(f"occupancy {' / '.join(counted) or 'unknown'}{f' ({missing} not counted)' if counted and missing else ''}, "
                     f"{'limiters' if ', ' in lims else 'limiter'} {lims.replace(', ', ' and ')}")
    if e.stall_class:
        parts.append(f"stalls: {_pct(e.stall_pct)} {e.stall_class.replace('_', ' ')} "
                     f"(top {str(e.top_stall).replace('_', ' ')})")
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


#: What to collect for an undetermined kernel, per vendor (None: vendor unknown).
UNDETERMINED_STEPS = {
    "amd": ["Collect counters for these kernels (rocprof-compute profile, or rocprofv3 --pmc SQ_WAVES "
            "SQ_INSTS_VALU SQ_WAVE_CYCLES SQ_WAIT_INST_ANY) or FLOP/byte figures (torch.profiler with record_shapes "
            "and with_flops) to classify them."],
    "nvidia": ["Collect counters for these kernels (ncu --set full) or FLOP/byte figures (torch.profiler with "
               "record_shapes and with_flops) to classify them."],
}
#: The same without PyTorch: no torch.profiler option to name.
UNDETERMINED_STEPS_NO_TORCH = {
    "amd": ["Collect counters for these kernels (rocprof-compute profile, or rocprofv3 --pmc SQ_WAVES "
            "SQ_INSTS_VALU SQ_WAVE_CYCLES SQ_WAIT_INST_ANY) to classify them."],
    "nvidia": ["Collect counters for these kernels (ncu --set full) to classify them."],
    "": ["Collect hardware counters for these kernels (ncu --set full on NVIDIA, rocprof-compute on AMD) to classify "
         "them."],
}


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
    if v.time_at_stake_ns is not None and v.verdict not in ("launch-bound", "communication-bound") and e.time_ns:
        # whatever the fix, each launch keeps the GPU time no kernel runs under (_stake.KERNEL_FLOOR_NS)
        v.time_at_stake_ns = min(v.time_at_stake_ns, floor_stake(e.time_ns, e.calls))
        if v.verdict in ("latency/occupancy-bound", BELOW_ROOFS_VERDICT) and v.time_at_stake_ns >= 0.8 * e.time_ns:
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
    if e.vendor == "amd":  # the grid's blocks in AMD's word: workgroups
        v.next_steps = [_advice.amd_block_words(x, "amd") for x in v.next_steps]
        v.evidence = _advice.amd_block_words(v.evidence, "amd")
    return v


def _decide(e: Evidence, roof_pct_bound: float, low_occupancy_pct: float, vendor: str | None) -> Verdict:
    t = e.time_ns
    ev = _evidence_text(e)
    if e.kind == "comm":
        return Verdict("communication-bound", e.exposed_comm_ns, ev, steps_for("communication-bound", e))
    sol_decides = e.sol_bound in BOUND_TO_VERDICT
    if sol_decides and e.sol_pct is not None:  # the measured speed of light decides: its distance is at stake
        stake, source = time_at_stake(t, e.sol_pct, e.calls), ""
    else:
        stake = e.roof_stake_ns if e.roof_stake_ns is not None else time_at_stake(t, e.roof_pct, e.calls)
        source = "peaks" if e.roof_source == "roofline" else ""  # else the speed of light's share: measured
    if e.short_launch_frac is not None and e.short_launch_frac >= 0.5 and t and 0 < e.launch_idle_ns \
            < LAUNCH_IDLE_MIN_SHARE * t:
        ev += (f"; launch idle before it ({fmt_ns(e.launch_idle_ns)}) is {100 * e.launch_idle_ns / t:.1f} % of its "
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
        if v == "memory-bound" and _l1_led(e) and e.roof_source == "roofline" and e.roof_stake_ns is not None \
                and stake is not None and e.roof_stake_ns > stake and e.roof_pct is not None:
            # L1/shared memory is saturated, DRAM is not: the traffic that bounds it is re-reads a kernel keeping
            # its data in registers does without (the next step), so its distance to the busy unit's peak is not
            # what is at stake — its distance to the DRAM/compute roofline is (a naive fp32 GEMM at 98 % of L1
            # bandwidth and 8 % of the roofline: 2 % vs 92 % of its time)
            stake, source = e.roof_stake_ns, "peaks"
            ev += (f"; at stake is its distance to the roofline ({pct_words(e.roof_pct)} of attainable on the DRAM and "
                   "compute roofs), not to the saturated L1/shared-memory peak: cutting that traffic is the fix")
        if e.roof_source == "roofline" and e.roof_pct is not None and e.bound in BOUNDS \
                and BOUND_TO_VERDICT[e.bound if e.roof_pct >= roof_pct_bound else BELOW_ROOFS] != v:
            # the roofline places it elsewhere: FLOPs or bytes over datasheet (or assumed) peaks; the units'
            # measured throughput is what the kernel did — shown, never overriding (rule 3)
            ev += ("; the measured speed of light decides, not the roofline "
                   + ("(its peaks are an assumed GPU's: the input does not name it)" if e.roof_assumed else
                      "(a placement against datasheet peaks)"))
        return Verdict(v, stake, ev, _latency_steps(e) if v == "latency/occupancy-bound" else steps_for(v, e),
                       source)
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
        return Verdict(v, stake, ev, steps)
    low_occ = e.achieved_occupancy_pct is not None and e.achieved_occupancy_pct < low_occupancy_pct and e.limiter
    if low_occ and not (e.sol_missing and e.memory_pct is None):
        return Verdict("latency/occupancy-bound", None, ev, _latency_steps(e))
    if e.sol_missing:  # counters were read but do not support a bound: name what is missing, not a generic step —
        # also over a low achieved occupancy when memory is not counted: a streaming kernel saturates memory at 26 %
        # occupancy as well (vcopy on an MI300X; the same kernel on an MI200, memory counted, is memory-bound)
        low = (f"; its achieved occupancy ({pct_words(e.achieved_occupancy_pct)}) is low, but occupancy alone does not "
               "tell a latency-bound kernel from one saturating memory") if low_occ else ""
        return Verdict("undetermined", None, ev + f"{low}; no compute/memory verdict without {e.sol_missing}",
                       [f"Collect {e.sol_missing} to classify this kernel: its speed of light alone does not."])
    if e.shaped_op:  # shapes are recorded already: re-profiling with record_shapes would add nothing
        return Verdict("undetermined", None, ev + f"; its operator {e.shaped_op} has recorded input shapes but gpulens "
                       "has no FLOP/byte model for it",
                       UNDETERMINED_STEPS_NO_TORCH.get(vendor or "", UNDETERMINED_STEPS_NO_TORCH[""]))
    if not e.pytorch or e.torch_trace is False:  # torch.profiler options only for a torch.profiler recording
        return Verdict("undetermined", None, ev, UNDETERMINED_STEPS_NO_TORCH.get(vendor or "",
                                                                              UNDETERMINED_STEPS_NO_TORCH[""]))
    return Verdict("undetermined", None, ev, UNDETERMINED_STEPS.get(vendor or "", [_advice.vendor_text(
        STEPS["undetermined"][0], None)]))
