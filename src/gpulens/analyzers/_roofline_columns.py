"""The roofline result's table columns: name → ``"meaning [unit]"`` (:class:`gpulens.analyzers.roofline.Roofline`;
reporters format every cell from the declared unit)."""

from gpulens.analyzers._verdict_facts import LATENCY_BOUND
from gpulens.analyzers.verdict_rules import ROOF_BOUND_PCT

COLUMNS = {
    "name": "kernel name as recorded",
    "calls": "launches",
    "time_ns": "summed effective duration [ns]",
    "flops": "floating-point operations of the launches with a figure [FLOP]",
    "bytes": "DRAM/HBM bytes moved by those launches [bytes] (from shapes: inputs + outputs once)",
    "flops_per_s": "flops / time of the launches with a figure [FLOP/s]",
    "bytes_per_s": "bytes / time of the launches with a figure [B/s]",
    "arithmetic_intensity": "flops / bytes [FLOP/B]",
    "precision": "fp64 | fp32 | tf32 | bf16 | fp16 | fp8 | int8 (of the most work; the data's type); unknown "
                 "without FP work",
    "peak_flops_per_s": "compute roof for the precision the work computes in and its unit (matrix for "
                        "GEMM/conv/attention): the documented achievable peak where the device spec has one, else the "
                        "datasheet peak [FLOP/s]",
    "compute_roof": "the device figure that roof is: matrix.<precision> (tensor cores / MFMA) or vector.<precision> "
                    "(CUDA cores / SIMD; a 16-bit precision without its own vector figure falls back to vector.fp32; "
                    "fp16/bf16/fp8 elementwise, reduction and norm ops modelled from their shapes compute in fp32 in "
                    "PyTorch: vector.fp32, _flop_models.math_precision); "
                    "achievable.matrix.<precision> when the device spec documents what a tuned GEMM reaches "
                    "(TraceLens max-achievable FLOPS, measured MAMF) [text]",
    "peak_bytes_per_s": "memory roof: peak DRAM/HBM bandwidth [B/s]",
    "ridge_point": "peak_flops_per_s / peak_bytes_per_s [FLOP/B]",
    "bound": f"compute | memory (at ≥ {ROOF_BOUND_PCT:g} % of the roof on that side of the ridge) | below-roofs "
             f"(under {ROOF_BOUND_PCT:g} %: latency-, occupancy- or launch-limited) | {LATENCY_BOUND} (below both "
             "roofs, and the kernel's verdict is latency/occupancy-bound: its grid, stalls, occupancy or "
             "speed-of-light counters say why — the verdict's name); missing without a FLOP figure",
    "ridge_side": "compute | memory: the side of the ridge point the kernel's arithmetic intensity lies on",
    "roof_pct": "attained FLOP/s / min(peak FLOP/s, AI × peak bandwidth) × 100 [%] (= bandwidth use on the memory "
                "side, also for kernels without FP work; the DRAM and compute roofs only — a cache level's or a pipe's peak "
                "is bound_pct's on a speed-of-light basis, a different share)",
    "datasheet_roof_pct": "attained / the attainable performance under the datasheet (theoretical) peaks × 100 [%]; "
                          "equals roof_pct unless the compute roof is a documented achievable peak or measured "
                          "peaks (rocprof-compute roofline.csv) replace the datasheet's",
    "flops_source": "counters | shapes (missing without a FLOP figure); counters: NVIDIA SASS FP-instruction counts "
                    "(sm[sp]__sass_thread_inst_executed_op_*: add + mul + 2 × fma) plus tensor-core operations, "
                    "nvprof-style flop_count_* only for a launch without SASS counts (both count the same FLOPs: "
                    "never summed); AMD 64 × VALU FP instructions + 512 × MFMA_MOPS",
    "time_at_stake_ns": "time − max(time × roof_pct / 100, calls × 2 µs): what running at its (achievable) roof "
                        "would save, each launch keeping the 2 µs no kernel runs under [ns]",
    "roof_note": "why roof_pct is unknown although the figures exist: they put the kernel above its roof [note]",
    "placement_note": "why roof_pct places the kernel elsewhere than its bound says: its measured speed of light "
                      "overrules the roofline's placement on datasheet (or an assumed GPU's) peaks — the two figures "
                      "said side by side (an RTX 5090 CUTLASS GEMM at 53.5 % of an assumed GPU's bf16 roof, ncu "
                      "measuring compute 32.1 % and memory 27.7 % of this GPU's peaks: latency/occupancy-bound); empty "
                      "when the roofline's placement agrees [note]",
    "flops_lower_bound": "the FLOP counters of the vendor's formula that were not collected for some of its launches: "
                         "flops, FLOP/s, AI and a compute-side roof_pct are then lower bounds over the collected ones "
                         "(a missing counter is unknown, not 0 FLOP), and a memory-side or below-roofs placement holds "
                         "only if the uncounted precisions did no work; empty when every FLOP counter was collected or "
                         "the FLOPs come from shapes [note]",
    "bound_basis": "what bound rests on: 'roofline' (the device spec's peaks), 'roofline on assumed peaks' (the "
                   "GPU was not identified: its peaks are a guess), or 'measured speed of light' (the kernel's SOL "
                   "counters, which decide its verdict: then bound and time_at_stake_ns are the verdict's, one per "
                   "kernel) [text]",
    "bound_pct": "the attained share of peak that bound rests on [%]: roof_pct on a roofline basis; on the "
                 "measured speed of light, its limiting unit's % of peak (the largest of its compute, memory, DRAM, "
                 "L1 and L2 figures; latency/occupancy-bound, i.e. below-roofs, when under 60 % as ncu's SOLBottleneck "
                 "reads it) — roof_pct then stays the roofline's placement on the spec's peaks, which the counters "
                 "overrule",
    "bound_pct_unit": "the unit whose % of peak bound_pct is on a measured speed-of-light basis (the limiting "
                      "unit: compute, tensor pipe, DRAM, L1, L2, or memory — the profiler's "
                      "memory throughput, ncu's busiest memory unit, where no level's own figure matches it —; the verdict's time at stake is its "
                      "distance to that unit's peak); 'roofline' on a roofline basis (bound_pct is roof_pct); empty "
                      "without a bound [text]",
    "bound_unit": "the unit a measured memory bound is at when it is a cache, not DRAM: 'L1/TEX' or 'L2' (the "
                  "unit bound_pct_unit names: one rule for the bound's level and its % of peak) — a level the "
                  "roofline's DRAM roof and its DRAM arithmetic intensity do not show; empty otherwise [text]",
}


def roof_precision(r) -> str:
    """The precision of a roofline row's compute roof as a title names it ("the fp32 compute roof"): the one its
    ``compute_roof`` key holds (``vector.fp32`` for a bf16 add: PyTorch computes it in fp32; ``matrix.bf16``), else
    the row's ``precision``."""
    key = str(getattr(r, "compute_roof", None) or "")
    return key.rsplit(".", 1)[-1] if "." in key else str(getattr(r, "precision", None) or "fp32")
