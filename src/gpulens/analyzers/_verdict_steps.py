"""Next steps of a kernel verdict (:mod:`gpulens.analyzers.verdict_rules`): the per-verdict, per-limiter and
per-stall step templates and :func:`steps_for`, gated on what is known of the kernel and the program (a library
kernel is not told to change its registers; PyTorch advice only for a PyTorch program). Re-exported by
:mod:`~gpulens.analyzers.verdict_rules`."""

from __future__ import annotations

from gpulens.analyzers import _advice
from gpulens.analyzers._verdict_facts import (
    Evidence, FULL_GRID_SHARE, HIGH_OCCUPANCY_PCT, LAUNCH_IDLE_MIN_SHARE, QUEUED_LAUNCH_NS, SMALL_GRID_WAVES, TINY_LAUNCH_SHARE,
    _cache_led, _grid_short, _waves_words, advice_level, launch_reason_of, one_off_launch, persistent_grid)
from gpulens.analyzers._stake import KERNEL_FLOOR_NS
from gpulens.analyzers._verdict_text import lds_words
from gpulens.analyzers.occupancy import FULL_THEORETICAL_PCT
from gpulens.units import fmt_ns, pct_words


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
    "undetermined": ["Collect counters ({full_counters}) or FLOP/byte figures (torch.profiler with record_shapes "
                     "and with_flops) — without them the bound cannot be classified."],
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
    level = advice_level(e) if verdict == "memory-bound" else None  # the cache its bound names, if any
    if level and e.dram_pct is not None and not _cache_led(e):
        return _streaming_steps(e, level)
    if level == "L1" and e.smem_bytes == 0:
        # no shared memory at all: the L1 traffic is its global loads, each element fetched again by every thread
        # that needs it (a naive GEMM) — bank conflicts and shared-memory load width do not apply
        lib = (f" — or call the library's kernel ({_advice.for_vendor(e.vendor, 'cuBLAS', 'hipBLAS/rocBLAS')}, "
               "torch.matmul)" if e.family == "gemm" else "")
        return [f"Its busiest memory unit is L1 ({_l1_words(e)}; DRAM {pct_words(e.dram_pct)}) and "
                "it uses no shared memory: the L1 traffic is its global loads, the same elements fetched again by "
                "every thread that needs them — stage the tiles a block reuses in shared memory (shared-memory and "
                f"register tiling), so each element is loaded from global memory once per block{lib}.",
                _advice.for_vendor(e.vendor, "Check ncu's Memory Workload Analysis (L1 hit rate, global load "
                                   "sectors per request) for the instructions that load it.",
                                   "Check rocprof-compute's vL1D section (hit rate, requests) for the instructions "
                                   "that load it.")]
    if level == "L1":
        # the busy memory unit is L1/shared memory, not DRAM: fusion, larger batches and narrower DRAM bytes
        # do not relieve it
        return [f"Its busiest memory unit is L1/shared memory ({_l1_words(e)}; "
                f"DRAM {pct_words(e.dram_pct)}): "
                "cut L1 and shared-memory traffic — more outputs per thread kept in registers (register tiling), "
                "wider 128-bit shared-memory loads, no bank conflicts.",
                _advice.for_vendor(e.vendor, "Check ncu's Memory Workload Analysis (shared-memory wavefronts per "
                                   "request, L1 hit rate) for the instructions that load it.",
                                   "Check rocprof-compute's LDS and vL1D sections (bank conflicts, hit rate) for the "
                                   "instructions that load it" + (f" (measured: {lds_words(e)})"
                                                                  if lds_words(e) else "") + ".")]
    if level == "L2":
        # the bytes come from L2, not DRAM (a producer's output still in L2): the kernel's own traffic through L2 is
        # what bounds it, and removing the round trip (fusion) or moving fewer, wider requests relieves it
        # L1 with its window (_l1_words: over the kernel's elapsed cycles, below ncu's L1/TEX figure over the cycles
        # it was active), as the L1-led step and the evidence give it — never a bare "L1 40 %"
        others = "; ".join(f"{w} {x}" for x, w in ((_l1_words(e) if e.l1_pct is not None else None, "L1"),
                                                    (pct_words(e.dram_pct) if e.dram_pct is not None else None, "DRAM"))
                           if x is not None)
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
        step = _intensity_words(e)
        return [step[0].upper() + step[1:], _advice.bytes_step(e.precision, e.name)]
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


def _intensity_words(e: Evidence) -> str:
    """The step of a memory-bound matrix product (GEMM or attention), lower-case: "raise its arithmetic intensity:
    more rows per call … so each weight byte serves more rows." — its bytes per FLOP fall with more rows per call."""
    what = "each key/value byte serves more queries" if e.family == "attention" else "each weight byte serves more rows"
    return ("raise its arithmetic intensity: more rows per call (larger batch, several small problems in one batched "
            f"or grouped call) so {what}.")


def _streaming_steps(e: Evidence, level: str) -> list[str]:
    """Next steps of a memory-bound kernel whose bound names a cache (``level``, :func:`advice_level`) while DRAM is
    close behind it (not cache-led by :func:`_cache_led`: DRAM at ≥ 60 % of its peak or within 20 points): its bytes
    stream from DRAM through that cache, so the advice names the cache the bound names and the DRAM traffic both
    carry — fewer bytes through both (fusion; a matrix product: more rows per call), then narrower, wider accesses.
    The ncu H200 saxpy: L2 79.6 %, DRAM 66.8 %, L1 18.9 %."""
    unit = f"{_l1_words(e)}" if level == "L1" else f"{pct_words(e.l2_pct)} of peak"
    head = (f"Its busiest memory unit is {level} ({unit}; DRAM {pct_words(e.dram_pct)}, close behind): its bytes "
            f"stream from DRAM through {level}, so both carry them — ")
    if e.family in ("gemm", "attention"):
        first = head + _intensity_words(e)
    else:
        first = (f"{head}fuse it with the producer or consumer so the data crosses DRAM and {level} once "
                 f"({'torch.compile' if e.pytorch else 'one fused kernel'}).")
    return [first, _advice.bytes_step(e.precision, e.name)]


def _l1_words(e: Evidence) -> str:
    """The L1 figure with its window: "96.4 % of peak over its elapsed cycles" (_stake.l1_of_row's words)."""
    return f"{pct_words(e.l1_pct)} of peak" + (f" {e.l1_window}" if e.l1_window else "")


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


def _grid_fill_step(e: Evidence, grid_step: str) -> str:
    """The step for a grid under one wave (``e.waves_per_sm`` < 1): with a block on (almost) every SM/CU already,
    each SM/CU holds few of the blocks it could, else the grid is too small to fill the GPU; ``grid_step`` is the
    family's "more blocks" advice."""
    from gpulens.analyzers._occ_findings import fill_text

    def w(key: str) -> str:  # the vendor's word (SM or CU, warps or wavefronts)
        return _advice.vendor_word(e.vendor, key)

    blocks = e.main_grid_blocks if e.main_grid_blocks is not None else e.mean_blocks
    k = persistent_grid(blocks, e.num_sms, e.waves_per_sm, e.name)
    if k is not None:
        # a grid sized to the GPU (a persistent kernel's tile scheduler): its low block count is by design, never
        # "launch more blocks" (a B200 FMHA kernel of 148 blocks was told so); under one wave it runs fewer blocks
        # per SM than fit, by its own choice: no per-block limit (registers, shared memory) binds it, so the step
        # is what its warps wait on
        cap = f"{blocks / (e.waves_per_sm * e.num_sms):.0f}" if e.waves_per_sm else "more"
        return (f"Its grid is sized to the GPU ({int(round(blocks)):,} {w('blocks')} = {k} per {w('sm')} on its "
                f"{e.num_sms:,} {w('sms')}, of the {cap} each can hold at once): a persistent kernel loops over "
                f"its work inside each {w('block')}, so more {w('blocks')} would add no work per {w('sm')}, only "
                f"resident {w('warps')} — which help only if its {w('warps')} stall on latency. What they wait on "
                f"decides the next step (measure their stalls: {w('full_counters')}).")
    if e.mean_blocks is not None and e.num_sms and e.mean_blocks >= FULL_GRID_SHARE * e.num_sms:
        # a block on every SM already: the SMs hold few of the blocks they could — not "too few to fill the GPU"
        more = _advice.more_blocks(e.family, e.library, e.name, e.owner).replace(
            "Give the launch more blocks: ", "").replace(" so its grid fills the GPU",
                                                         f" so each {w('sm')} holds more of them")
        per_sm = f"{e.mean_blocks / e.num_sms:.1f}"
        return (f"The grid puts about {per_sm} {'block' if per_sm == '1.0' else 'blocks'} on each {w('sm')}, "
                f"{fill_text(e.waves_per_sm)} of the blocks they can hold at once "
                f"({_waves_words(e)}), so each {w('sm')} has few {w('warps')} to hide "
                "latency with: " + more[0].lower() + more[1:])
    return (f"The grid fills only {fill_text(e.waves_per_sm)} of the GPU's resident-block capacity "
            f"({_waves_words(e)}): " + grid_step[0].lower() + grid_step[1:])


def _latency_steps(e: Evidence, proven: bool = True) -> list[str]:
    def w(key: str) -> str:  # the vendor's word (SM or CU, warps or wavefronts)
        return _advice.vendor_word(e.vendor, key)

    steps = []
    queued = e.launch_backlog_p50_ns is not None and e.launch_backlog_p50_ns >= QUEUED_LAUNCH_NS
    short_calls = e.short_launch_frac is not None and e.short_launch_frac >= TINY_LAUNCH_SHARE and not queued
    reason = launch_reason_of(e)  # the one rule: does launch cost bound it (GPU floor, or the host pacing it)?
    if short_calls and reason:
        short = f"{pct_words(100 * e.short_launch_frac)} of its launches run shorter than their launch call: "
        if e.family in ("gemm", "attention"):  # a matmul is batched (grouped GEMM) or replayed, not fused away
            steps.append(short + "batch several of these calls into one (a batched or grouped GEMM) or capture "
                         f"them in {_advice.graphs(e.pytorch, e.vendor)}, so the launch cost is paid once.")
        else:
            steps.append(short + _advice.fuse_step(e.pytorch, e.family, e.name, e.owner, e.vendor) + " so one launch does "
                         "more work — more blocks per launch alone would not pay back the launch.")
    base = len(steps)  # the fallbacks below add a step when nothing after the fusion step was said
    small_grid = e.waves_per_sm is not None and e.waves_per_sm < SMALL_GRID_WAVES
    full_theory = e.theoretical_occupancy_pct is not None and e.theoretical_occupancy_pct >= FULL_THEORETICAL_PCT
    grid_step = _advice.more_blocks(e.family, e.library, e.name, e.owner).replace("Give the launch more blocks: ",
                                                                 "The grid has too few blocks to fill the GPU: ")
    if small_grid:
        steps.append(_grid_fill_step(e, grid_step))
    elif e.limiter in _LIMITER_STEP and (e.achieved_occupancy_pct is None or e.achieved_occupancy_pct < 60) \
            and not full_theory:  # at 100 % theoretical the "limiter" limits nothing: relaxing it cannot help
        steps.append(_advice.limiter(e.limiter, e.name, e.pytorch, latency_bound=proven, hint=e.owner,
                                     vendor=e.vendor)
                     if e.library or _advice.code_owner(e.name, e.owner) != "user"
                     else _advice.vendor_text(_LIMITER_STEP[e.limiter], e.vendor))
    elif full_theory and e.achieved_occupancy_pct is not None and e.achieved_occupancy_pct < 60 \
            and e.waves_per_sm is not None and e.waves_per_sm < 1:
        # under one wave the grid leaves block slots empty for the whole kernel: that, not uneven blocks, caps the
        # achieved occupancy (MI300A OpenMP offload: 912 workgroups, 0.5 waves, 50 % achieved of 100 %)
        steps.append(_grid_fill_step(e, grid_step))
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
    if short_calls and not reason:
        # short launches, yet the GPU never waited on them and each lasts well over the fixed launch cost: the
        # grid/occupancy step leads, and batching or graphs is said to pay only while the host paces the run
        steps = steps[:1] + [paced_only_step(e)]
    return steps[:2]


def paced_only_step(e: Evidence) -> str:
    """The step of a kernel whose launches run shorter than their launch call while launch cost does not bound it
    (:func:`~gpulens.analyzers._verdict_facts.launch_cost_reason` is ``""``): batching or graphs pays only while
    the host paces the run, which its launch idle says it did not."""
    batch = ("batching these calls (a batched or grouped GEMM)" if e.family in ("gemm", "attention")
             else "fusing these launches")
    waited = (f"waited on them only {fmt_ns(e.launch_idle_ns)} (launch idle before it, under "
              f"{pct_words(100 * LAUNCH_IDLE_MIN_SHARE)} of its time)" if e.launch_idle_ns else
              "never waited on them (0 ns of launch idle before it)")
    return (f"{pct_words(100 * e.short_launch_frac)} of its launches run shorter than their launch call, yet the GPU "
            f"{waited} and each lasts {fmt_ns(e.time_ns / e.calls)} on average, over twice the "
            f"{fmt_ns(KERNEL_FLOOR_NS)} any launch takes: {batch} or capturing them in "
            f"{_advice.graphs(e.pytorch, e.vendor)} pays only while the host paces the run (the GPU idle before "
            "these launches), not here.")


#: The rocprofv3 counters that classify an AMD kernel's bound (instruction mix, wave cycles, waits; rocprof-compute's
#: own profile collects them and more).
AMD_CLASSIFY_PMC = ("SQ_WAVES", "SQ_INSTS_VALU", "SQ_WAVE_CYCLES", "SQ_WAIT_INST_ANY")
_NO_BOUND = " — without them the bound cannot be classified."


def amd_collect(collected=frozenset()) -> str:
    """The rocprofv3 command naming the classifying counters (:data:`AMD_CLASSIFY_PMC`) the input lacks; those it
    has (``collected``: the counter names of the input) are said collected, never asked for again (a counter file
    with SQ_WAVES alone was told "collect SQ_WAVES …")."""
    have = [c for c in AMD_CLASSIFY_PMC if c in collected]
    want = [c for c in AMD_CLASSIFY_PMC if c not in collected] or list(AMD_CLASSIFY_PMC[1:])
    one = len(have) == 1
    return f"rocprofv3 --pmc {' '.join(want)}" + (
        f"; {', '.join(have)}, collected already, {'does' if one else 'do'} not classify a kernel alone" if have else "")


def undetermined_steps(vendor: str | None, torch_options: bool, collected=frozenset()) -> list[str]:
    """What to collect for an undetermined kernel, per vendor (None: vendor unknown): counters (and, for a
    torch.profiler recording, FLOP/byte figures), naming only the AMD counters the input lacks (:func:`amd_collect`)."""
    flop = " or FLOP/byte figures (torch.profiler with record_shapes and with_flops)" if torch_options else ""
    if vendor == "amd":
        return [f"Collect counters (rocprof-compute profile, or {amd_collect(collected)}){flop}{_NO_BOUND}"]
    if vendor == "nvidia":
        return [f"Collect counters (ncu --set full){flop}{_NO_BOUND}"]
    return ["Collect hardware counters (ncu --set full on NVIDIA, rocprof-compute on AMD)" + _NO_BOUND] \
        if not torch_options else None
