"""What the kernel verdict rules (:mod:`gpulens.analyzers.verdict_rules`) know and decide with: the verdict
and bound vocabularies, the thresholds, :class:`Evidence` (what is known about one kernel) and :class:`Verdict`
(the decision), and the predicates on evidence the rules, their next steps and their evidence text share (a grid
short of the SMs/CUs, an L1- or L2-led memory side, a one-off slow launch, latency evidence). Re-exported by
:mod:`~gpulens.analyzers.verdict_rules`."""

from __future__ import annotations

import numpy as np

from dataclasses import dataclass, field

from gpulens.analyzers._stake import SOL_BOUND_PCT
from gpulens.units import pct_words


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
#: The roofline's bound for a kernel below both roofs whose verdict is ``latency/occupancy-bound`` (its grid, stalls,
#: occupancy or speed-of-light counters say why): the verdict's own name, so one kernel never reads "below-roofs" in
#: the roofline table beside "latency/occupancy-bound" in its verdict.
LATENCY_BOUND = "latency/occupancy"


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
                    "latency": "latency/occupancy-bound", LATENCY_BOUND: "latency/occupancy-bound"}


@dataclass
class Evidence:
    """What is known about one kernel (None = not measured). Times in ns, percentages 0–100."""

    name: str
    kind: str
    calls: int
    time_ns: int
    #: the wall time its launches cover [ns]: per GPU the union of their intervals, summed over GPUs; below
    #: ``time_ns`` when launches of it overlap (concurrent streams: 8 × 10.7 ms of clock_block in 10.8 ms) — no
    #: time at stake exceeds it (:func:`gpulens.analyzers.verdict_rules.decide`); None when not computed
    wall_ns: int | None = None
    exposed_comm_ns: int | None = None
    short_launch_frac: float | None = None
    launch_idle_ns: int = 0
    #: the longest single launch gap of those (GPU idle before one launch of it, synchronisation left out) [ns]
    launch_idle_max_ns: int = 0
    launch_latency_p50_ns: int | None = None
    launch_latency_p90_ns: int | None = None
    #: median wait of its launches behind earlier GPU work (the GPU busy inside the queue delay) [ns]
    launch_backlog_p50_ns: float | None = None
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
    #: the unit ``sol_pct`` is of ("L2", "memory", "compute", …: :func:`gpulens.analyzers._stake.sol_limit`)
    sol_unit: str | None = None
    compute_pct: float | None = None
    memory_pct: float | None = None
    #: the memory side is unknown only for want of a duration: DRAM bytes counted, no throughput (no start/end)
    memory_untimed: bool = False
    memory_measured_pct: float | None = None
    #: (the measured HBM peak, the rated one) [B/s] that ``memory_measured_pct`` and ``memory_pct`` are shares of
    hbm_peaks_bps: tuple[float, float] | None = None
    #: the memory side's units [% of peak] (ncu SpeedOfLight L1/TEX and DRAM throughput): which one is busy
    l1_pct: float | None = None
    #: the window of l1_pct in words (_stake.l1_of_row: "over its elapsed cycles" or ncu's active-cycle window)
    l1_window: str = ""
    l2_pct: float | None = None
    #: AMD LDS bank conflicts [conflict cycles per access] (speed_of_light ``lds_conflicts_per_access``,
    #: rocprof-compute's "LDS Bank Conflicts/Access"); None without LDS accesses or the counters
    lds_conflicts: float | None = None
    #: AMD LDS stalled by bank conflicts [% of GPU time] (rocprof v1 derived ``LDSBankConflict``, "the percentage of
    #: GPUTime LDS is stalled by bank conflicts", 0 % optimal … 100 % bad: ROCm/rocprofiler ``test/tool/metrics.xml``)
    lds_bank_conflict_pct: float | None = None
    dram_pct: float | None = None
    #: the roofline's FLOP count is a lower bound: the counters not collected, in words (roofline flops_lower_bound)
    flops_lower_bound: str | None = None
    mean_blocks: float | None = None  # blocks per launch, the launches weighted by their GPU time
    blocks_vary: bool = False  # the launches' grids differ (mean_blocks is then a time-weighted mean)
    num_sms: int | None = None
    achieved_occupancy_pct: float | None = None
    theoretical_occupancy_pct: float | None = None
    #: the block size's upper bound on it where it is unknown (registers / shared memory not recorded;
    #: :mod:`gpulens.analyzers._occ_bound`) [%]
    theoretical_max_pct: float | None = None
    limiter: str | None = None
    #: every block limit tied at the binding value ("registers, shared_memory"; the occupancy table's ``limiters``):
    #: the evidence text names them all, the advice follows :attr:`limiter` (the first)
    limiters: str | None = None
    #: static + dynamic shared memory (LDS) per block of its main configuration (the occupancy row's ``smem_bytes``)
    #: [bytes]; 0: the kernel stages nothing in shared memory
    smem_bytes: int | None = None
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
    #: the counter names the input holds: "collect X" advice never names one of them (``undetermined_steps``)
    collected: frozenset = frozenset()
    compute_roof: str | None = None
    sectors_per_request: dict[str, float] | None = None
    #: every launch of it was replayed by a CUDA/HIP graph launch: it has no launch call of its own, so no short-launch
    #: share or launch idle (the evidence says so instead)
    graph_replayed: bool = False
    #: its longest launch [ns] when that one launch holds most of its time and lasts at least
    #: :data:`ONE_OFF_LAUNCH_RATIO` × the median of its other launches with the same grid (``others_median_ns``):
    #: a one-off (first touch of its memory, code loading, a cold cache) its class does not describe; else None
    slow_launch_ns: int | None = None
    others_median_ns: float | None = None
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
    #: an upper bound beside a measured lower bound ``time_at_stake_ns``, resting on an assumed GPU's peaks: an
    #: L1-led memory-bound kernel's distance to the roofline (:func:`gpulens.analyzers._stake.upper_clause`); None
    #: when the stake is one figure. Rankings and totals use ``time_at_stake_ns``, the figure the counters measured.
    stake_upper_ns: int | None = None
    #: ``time_at_stake_ns`` is a lower bound (the distance to a saturated L1/shared-memory peak), with or without a
    #: known upper bound ``stake_upper_ns``
    stake_at_least: bool = False
    #: what ``time_at_stake_ns`` is the distance to, in words, when the verdict's class does not say it: the
    #: measured limiting unit ("from L2 at 79.6 % of its peak (measured speed of light)"); "" otherwise. Shown beside
    #: the figure wherever it is (the verdict's stake note, its finding's detail)
    stake_basis: str = ""
    #: the launch floor when it capped ``time_at_stake_ns`` ("capped at its time less 2.00 µs for each of its 17
    #: launches: even an empty kernel takes that much GPU time"; then no ``stake_basis``): named in the verdict's
    #: stake note and finding detail; "" otherwise
    stake_cap: str = ""


_STALL_TO_CLASS = {"memory_throughput": "memory-bound", "compute_pipe": "compute-bound",
                   "scheduling": "compute-bound", "memory_latency": "latency/occupancy-bound",
                   "synchronization": "latency/occupancy-bound", "instruction_fetch": "latency/occupancy-bound"}


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


def advice_level(e: Evidence) -> str | None:
    """The cache level (``"L1"`` / ``"L2"``) a memory-bound kernel's next steps are about: the one its bound names —
    the measured speed of light's limiting unit (``sol_unit``, :func:`gpulens.analyzers._stake.sol_limit`, the unit
    its time at stake is "from") when the speed of light decides a memory bound —, else :func:`_cache_led`'s; None
    for DRAM / unknown. One level for the bound and its advice: the ncu H200 saxpy read "from L2 at 79.6 % of its
    peak" beside advice about DRAM (L2 79.6 %, DRAM 66.8 %: not cache-led by :func:`_cache_led`'s 20-point rule)."""
    if e.sol_bound == "memory" and e.sol_pct is not None and e.sol_unit in ("L1", "L2"):
        return e.sol_unit
    return _cache_led(e)


def _l1_led(e: Evidence) -> bool:
    """The memory side is L1/shared memory's (:func:`_cache_led`)."""
    return _cache_led(e) == "L1"


#: A launch gap this long is not launch overhead (a launch call costs microseconds): one slow call, e.g. the first
#: use of a kernel loading its code object or a lazily loaded module [ns].
ONE_OFF_LAUNCH_NS = 1_000_000


#: One launch lasting at least this multiple of the median of the kernel's other launches with the same grid, and
#: holding most of its time, is a one-off (the MI300A OpenMP kernel: 430.65 ms, then 0.63 ms for the same grid).
ONE_OFF_LAUNCH_RATIO = 10.0


def slow_launch(dur: np.ndarray, blocks: np.ndarray) -> tuple[int, float] | None:
    """(duration [ns], the median of the others [ns]) of a kernel's longest launch when it holds at least half of
    the kernel's time and lasts :data:`ONE_OFF_LAUNCH_RATIO` × the median of its other launches with the same grid
    (``blocks`` per launch) or more; None otherwise, or where a duration is unknown (NaN)."""
    if len(dur) < 2 or np.isnan(dur).any():
        return None
    i = int(np.argmax(dur))
    same = np.flatnonzero(blocks == blocks[i])
    rest = dur[same[same != i]]
    if not len(rest):
        return None
    med = float(np.median(rest))
    if med <= 0 or dur[i] < ONE_OFF_LAUNCH_RATIO * med or 2 * dur[i] < dur.sum():
        return None
    return int(dur[i]), med


def one_off_launch(e: Evidence) -> bool:
    """Whether most of the kernel's launch idle is one gap of at least :data:`ONE_OFF_LAUNCH_NS`: a one-off slow
    launch call that fusion or graphs would not remove (they cut per-launch overhead)."""
    return e.launch_idle_max_ns >= ONE_OFF_LAUNCH_NS and 2 * e.launch_idle_max_ns >= e.launch_idle_ns > 0


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


def persistent_grid(blocks: float | None, num_sms: float | None, waves: float | None, name: str = "") -> int | None:
    """Blocks per SM/CU of a grid sized to the GPU rather than to the problem — a persistent kernel, whose blocks
    loop over the work (a tile scheduler) until it runs out — else None. Such a grid is under one wave by design:
    each SM gets its share of the work whatever the block count, so partly filled waves lose nothing and "more
    blocks" adds no work per SM, only resident warps. Sized to the GPU, under one wave (``waves`` < 1): exactly one
    block per SM/CU (``blocks`` == ``num_sms``, the unmistakable sign), or a kernel whose ``name`` says "persistent"
    with a block on every SM/CU (its blocks per SM, rounded). A whole multiple of several blocks per SM is left to
    the grid-fill rule: it may as well be a problem size (the MI300A OpenMP 912 = 4 × 228 workgroups are told each
    CU holds few of the workgroups it could)."""
    if blocks is None or not num_sms or waves is None or waves != waves or waves >= 1 or blocks < num_sms:
        return None
    if int(round(blocks)) == int(num_sms):
        return 1
    return max(int(round(blocks / num_sms)), 1) if "persistent" in str(name).lower() else None


#: At or above this share of launches shorter than their launch call, a latency-bound kernel is told fusion first:
#: each launch does less GPU work than the launch costs, so more blocks per launch (a larger batch) is not the first
#: lever — a BERT layer norm of 141 rows on 132 SMs, every launch shorter than its call, was told "more rows".
TINY_LAUNCH_SHARE = 0.5


#: Launches waiting this long behind earlier GPU work (p50 of the GPU's busy time between the launch call's return
#: and the kernel's start, ``launch_latency`` ``backlog_p50_ns``) sat in a deep GPU queue: the launch calls (µs) did
#: not keep the GPU waiting, so short launches are no reason to fuse (GPT-2 on an H200: a copy kernel queued
#: 3.43 ms). A wait with the GPU idle is no queue (session 49).
QUEUED_LAUNCH_NS = 50_000


def launch_cost_reason(time_ns: float | None, calls: int | None, short_frac: float | None = None,
                       idle_ns: float | None = 0, backlog_p50_ns: float | None = None) -> str:
    """Whether launch cost bounds a kernel — the one rule its next steps, its evidence and its roofline note follow —
    as ``"floor"``, ``"host"`` or ``""`` (it does not):

    * ``"floor"``: its launches last at most twice the GPU time any launch takes (``time_ns`` ≤ 2 × ``calls`` ×
      :data:`~gpulens.analyzers._stake.KERNEL_FLOOR_NS`): the fixed cost is half its GPU time or more, so fusing or
      batching saves GPU time whatever the host does;
    * ``"host"``: at least :data:`TINY_LAUNCH_SHARE` of its launches run shorter than their launch call
      (``short_frac``), they did not queue behind earlier work (``backlog_p50_ns`` under :data:`QUEUED_LAUNCH_NS`),
      and the GPU sat idle waiting on them: ``idle_ns`` (launch-overhead idle before its launches) at least
      :data:`LAUNCH_IDLE_MIN_SHARE` of its time — the host paced it.

    Launches shorter than their call alone are not enough: with no idle before them (the BERT demo's 6.13 µs CUTLASS
    GEMM, 0 ns of launch idle) the host kept ahead, and batching or CUDA graphs would save nothing here (its steps
    then lead with the grid/occupancy step and say graphs pay only while the host paces the run)."""
    from gpulens.analyzers._stake import KERNEL_FLOOR_NS

    if time_ns is None or time_ns != time_ns or not calls:
        return ""
    if time_ns <= 2 * calls * KERNEL_FLOOR_NS:
        return "floor"
    queued = backlog_p50_ns is not None and backlog_p50_ns == backlog_p50_ns and backlog_p50_ns >= QUEUED_LAUNCH_NS
    if short_frac is not None and short_frac >= TINY_LAUNCH_SHARE and not queued and time_ns > 0 \
            and (idle_ns or 0) >= LAUNCH_IDLE_MIN_SHARE * time_ns:
        return "host"
    return ""


def launch_reason_of(e: Evidence) -> str:
    """:func:`launch_cost_reason` of a kernel's evidence."""
    return launch_cost_reason(e.time_ns, e.calls, e.short_launch_frac, e.launch_idle_ns, e.launch_backlog_p50_ns)


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


#: the occupancy row's theoretical figure and its block-size bound, read together
THEO_KEYS = ("theoretical_occupancy_pct", "theoretical_max_pct")


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
