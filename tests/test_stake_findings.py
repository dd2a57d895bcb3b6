"""Time at stake of findings is an estimate of what the fix could recover, never a kernel's whole time; several
findings about one kernel never add up to more than it; advice fits the kernel and the program (session 4, "stake").

Every expected figure is worked out by hand in the comments, from the CUDA occupancy rules (CC 9.0: 64 warp slots,
32 blocks, 64 K registers per SM, 256-register allocation granule per warp) and the wave-quantization formula
t × (1 − W / ⌈W⌉) (NVIDIA Deep Learning Performance Guide, "Matrix Multiplication Background": wave quantization).
"""

from __future__ import annotations

import json
import math
import re

import pytest

import gpulens
from gpulens.analyzers import _advice
from gpulens.analyzers._tree import arrange, roots
from gpulens.analyzers.base import Finding
from gpulens.analyzers.verdict_rules import Evidence, decide
from gpulens.devices import spec_from_dict
from gpulens.reports._answer import top_findings
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, TimelineMeta, make_table
from tests.conftest import shared_trace


def _timeline(launches, name="k", cc="9.0", sms=132, counters=(), collector="test"):
    """One kernel, one row per (grid blocks, block threads, registers, duration ns) launch, on a GPU with ``sms``."""
    n = len(launches)
    ev = make_table(EVENT_COLUMNS, {
        "event_id": list(range(n)), "kind": ["kernel"] * n, "name": [name] * n,
        "start_ns": [1000 + 1_000_000 * i for i in range(n)], "dur_ns": [d for *_, d in launches],
        "rank": [0] * n, "device_id": [0] * n, "stream_id": [7] * n,
        "grid_x": [g for g, *_ in launches], "grid_y": [1] * n, "grid_z": [1] * n,
        "block_x": [b for _, b, *_ in launches], "block_y": [1] * n, "block_z": [1] * n,
        "regs_per_thread": [r for _, _, r, _ in launches], "smem_dynamic_bytes": [0] * n, "source": ["test"] * n})
    co = make_table(COUNTER_COLUMNS, {"event_id": [0] * len(counters), "metric": [m for m, _ in counters],
                                      "value": [v for _, v in counters], "unit": [""] * len(counters),
                                      "source": ["test"] * len(counters)})
    meta = TimelineMeta(sources=[{"path": "x", "collector": collector, "rank": 0}],
                        devices=[{"rank": 0, "device_id": 0, "name": None, "compute_capability": cc, "num_sms": sms}])
    return Timeline(ev, co, meta=meta).validate()


def test_wave_loss_is_summed_per_launch_and_the_table_shows_the_dominant_grid():
    # 256 threads × 32 registers on CC 9.0: registers allow ⌊65536 / (8 warps × 32 × 32)⌋ = 8 blocks, warps ⌊64/8⌋ = 8
    # → 8 resident blocks/SM × 132 SMs = 1056 blocks per wave.
    #   launch A: 528 blocks = 0.5 waves, 100 µs → loses 100 × (1 − 0.5/1)  = 50 µs
    #   launch B: 1848 blocks = 1.75 waves, 300 µs → loses 300 × (1 − 1.75/2) = 37.5 µs
    # at stake 87.5 µs of 400 µs (21.9 %); the old figure was the kernel's whole 400 µs. The main configuration is B
    # (300 of 400 µs): 1.75 waves, last wave 75 % full — not the launch-time-weighted mean 1.4375 waves of two grids.
    tl = _timeline([(528, 256, 32, 100_000), (1848, 256, 32, 300_000)])
    occ = gpulens.analyze_timeline(tl).results["occupancy"]
    row = occ.table.iloc[0]
    assert row["active_blocks_per_sm"] == 8 and row["grid_blocks"] == 1848
    assert row["waves_per_sm"] == pytest.approx(1.75) and row["tail_wave_pct"] == pytest.approx(75.0)
    assert row["grid_sizes"] == 2 and row["config_time_share"] == pytest.approx(0.75)
    assert row["wave_loss_ns"] == 87_500
    waves = [f for f in occ.findings if f.key == "occupancy/k/waves"]
    assert len(waves) == 1 and waves[0].time_at_stake_ns == 87_500
    assert "Last wave of k in its main grid is 75.0 % full (1.75 waves)" in waves[0].title
    # 87.5 / 400 = 21.9 %, over both launches — not the main grid's own 1 − 1.75/2 = 12.5 %: the title says which
    assert "up to 21.9 % of its time, over all its 2 grid sizes, at stake" in waves[0].title


def test_grid_below_one_wave_recovers_at_most_the_empty_share():
    # 660 blocks of 256 threads (8 resident/SM, 132 SMs → 1056 per wave): f = 660/1056 = 0.625 of one wave, 200 µs
    # → at most (1 − 0.625) × 200 µs = 75 µs, not the kernel's 200 µs
    tl = _timeline([(660, 256, 32, 200_000)])
    occ = gpulens.analyze_timeline(tl).results["occupancy"]
    f = next(f for f in occ.findings if f.key == "occupancy/k/waves")
    assert f.time_at_stake_ns == 75_000 and f.title.startswith("Grid of k fills 62.5 % of one wave")
    assert "up to 37.5 %" in f.title


def test_register_limiter_has_unknown_gain_and_ranks_below_estimates():
    # 128 threads × 255 registers on CC 9.0: roundup(255 × 32, 256) = 8192 registers/warp → 8 warps → 2 blocks/SM,
    # theoretical 8/64 = 12.5 %, limiter registers. 264 blocks = 2 × 132 = exactly 1.00 wave: no wave loss.
    # No roofline or counter says the kernel is latency-bound: the gain of more warps is unknown (None).
    tl = _timeline([(264, 128, 255, 500_000)])
    src = gpulens.analyze_timeline(tl)
    occ = src.results["occupancy"]
    assert occ.table.iloc[0]["theoretical_occupancy_pct"] == pytest.approx(12.5)
    assert occ.table.iloc[0]["wave_loss_ns"] == 0
    lim = next(f for f in occ.findings if f.key == "occupancy/k/limiter")
    assert lim.time_at_stake_ns is None and "unknown" in lim.detail
    # never on the first screen (which shows findings with a time at stake only), never counted in a total
    assert lim not in top_findings(src.findings())
    assert all(f.key != "occupancy/k/limiter" for f in top_findings(src.findings()))


TOY = spec_from_dict({"name": "toy", "compute_capability": "9.0", "num_sms": 100,
                      "figures": {"memory_bandwidth": [1000, "test"], "vector.fp32": [100, "test"],
                                  "matrix.bf16": [400, "test"]}})


def test_limiter_of_a_latency_bound_kernel_is_bounded_and_within_its_verdict():
    # toy GPU (100 SMs, fp32 100 TFLOP/s, 1 TB/s). 1 ms kernel, 2 × 1.5e9 FFMA = 3 GFLOP → 3 TFLOP/s, 10 MB DRAM → AI
    # 300 FLOP/B: compute side, 3 % of the roof → below both roofs, roofline stake 1 ms × 0.97 = 970 µs.
    # Launch: 128 threads × 255 registers → 2 blocks/SM, theoretical 12.5 %; 200 blocks = 2 × 100 = 1 wave.
    # Bounded gain of occupancy 12.5 % → 100 %: min(1 ms × (1 − 12.5/100), 970 µs) = 875 µs.
    tl = _timeline([(200, 128, 255, 1_000_000)], name="naive_gemm", sms=100, counters=[
        ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1.5e9), ("dram__bytes_read.sum", 8e6),
        ("dram__bytes_write.sum", 2e6)])
    src = gpulens.analyze_timeline(tl, device_spec=TOY)
    assert src.results["roofline"].table.iloc[0]["time_at_stake_ns"] == 970_000
    lim = next(f for f in src.results["occupancy"].findings if f.key == "occupancy/naive_gemm/limiter")
    assert lim.time_at_stake_ns == 875_000
    fs = [f for f in src.findings() if f.kernel == "naive_gemm"]
    top = [f for f in fs if f.parent is None]
    assert len(top) == 1 and top[0].key == "kernel:naive_gemm" and top[0].time_at_stake_ns == 970_000
    assert all((f.time_at_stake_ns or 0) <= 970_000 for f in fs)


def test_findings_about_one_kernel_count_once_and_never_above_their_parent():
    # three estimates about kernel "k" with no verdict finding: 600, 700 and unknown → one root (700), the others
    # detail it: the kernel counts 700 in totals, not 1,300
    fs = [Finding("a", kernel="k", time_at_stake_ns=600, key="a"), Finding("b", kernel="k", time_at_stake_ns=700),
          Finding("c", kernel="k", key="c"), Finding("idle", time_at_stake_ns=50, key="idle")]
    r = roots(fs)
    assert [f.title for f in r] == ["b", "idle"] and sum(f.time_at_stake_ns for f in r) == 750
    tree = arrange(fs)
    assert {f.title: f.parent for f in tree}["a"] == "kernel-findings:k"
    # a child whose estimate exceeds its parent's is shown with the parent's figure (its time is part of it)
    tree = arrange([Finding("verdict", kernel="k", time_at_stake_ns=100, key="kernel:k"),
                    Finding("waves", kernel="k", time_at_stake_ns=300, key="w")])
    assert [(f.title, f.time_at_stake_ns) for f in tree] == [("verdict", 100), ("waves", 100)]


def test_verdict_of_a_small_grid_uses_the_same_wave_loss_as_the_occupancy_finding():
    # 66 blocks of 256 threads on 132 SMs (8 resident/SM → 1056 per wave): W = 66/1056 = 0.0625, 80 µs
    # → verdict latency/occupancy-bound (fewer blocks than SMs), at stake 80 × (1 − 0.0625) = 75 µs, the same
    # figure as the grid finding (previously 80 × (1 − 66/132) = 40 µs in the verdict and 80 µs in the finding)
    tl = _timeline([(66, 256, 32, 80_000)], name="vectorized_layer_norm_kernel")
    src = gpulens.analyze_timeline(tl)
    v = src.results["verdicts"].table.iloc[0]
    assert v["verdict"] == "latency/occupancy-bound" and v["time_at_stake_ns"] == 75_000
    grid = next(f for f in src.results["occupancy"].findings if f.key.endswith("/waves"))
    assert grid.time_at_stake_ns == 75_000
    # a layer norm is not a GEMM: no split-K / split-KV advice anywhere
    text = json.dumps([[f.action, f.detail] for f in src.findings()] + list(v["next_steps"]))
    assert "split-K" not in text and "split-KV" not in text


@pytest.mark.parametrize("name, fam", [
    ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
     "cutlass::bfloat16_t>>(Flash_fwd_params)", "attention"),
    ("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float)", "normalisation"),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float)",
     "normalisation"),
    ("volta_sgemm_64x64_nt", "gemm"), ("sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc", "gemm"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)", "elementwise"),
])
def test_grid_advice_fits_the_kernel_family(name, fam):
    # split-K splits the K dimension of a matrix product; split-KV the key/value sequence of attention. Neither
    # exists for a normalisation or elementwise kernel.
    assert _advice.family(name) == fam
    for lib in (False, True):
        step = _advice.more_blocks(fam, lib)
        assert bool(re.search(r"split-K\b", step)) == (fam == "gemm") and ("split-KV" in step) == (fam == "attention")
    v = decide(Evidence(name, "kernel", 3, 100_000, mean_blocks=10, num_sms=132, family=fam,
                        library=_advice.is_library(name)))
    assert v.verdict == "latency/occupancy-bound"
    joined = " ".join(v.next_steps)
    assert bool(re.search(r"split-K\b", joined)) == (fam == "gemm")


def _launch_bound_trace(tmp_path):
    # a 6 µs launch call every 8 µs, each 5 µs kernel starting 1 µs after its call returns: launch-bound
    t0 = 1000
    ev = []
    for i in range(100):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9,
                   "ts": t0 + 8 * i, "dur": 6, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "tiny_add", "pid": 0, "tid": 7, "ts": t0 + 8 * i + 7,
                   "dur": 5, "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [1024, 1, 1],
                                      "block": [256, 1, 1]}})
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def _all_advice(src) -> str:
    vd = src.results["verdicts"].table
    return json.dumps([[f.title, f.detail, f.action] for f in src.findings()]
                      + [list(x) for x in vd["next_steps"]])


def test_torch_compile_is_advised_only_when_the_input_shows_pytorch(tmp_path):
    tl = gpulens.collect(_launch_bound_trace(tmp_path))
    torch_src = gpulens.analyze_timeline(tl)
    assert torch_src.results["verdicts"].summary["run_verdict"] == "launch-bound"
    assert "torch.compile" in _all_advice(torch_src)          # a PyTorch profiler (Kineto) trace
    # the same events as a plain CUDA program's nsys export: no PyTorch anywhere in the input
    tl.meta.sources = [{**s, "collector": "nsys_sqlite"} for s in tl.meta.sources]
    plain = gpulens.analyze_timeline(tl)
    assert plain.results["verdicts"].summary["run_verdict"] == "launch-bound"
    text = _all_advice(plain)
    for word in ("torch.compile", "torch.profiler", "DataLoader", "pin_memory", ".item()", "FSDP"):
        assert word not in text, word
    # nsys is NVIDIA's: graphs in its words, no HIP (vendor wording, session 10)
    assert "CUDA graphs" in text and "HIP" not in text


def test_pytorch_is_recognised_from_the_program_not_the_profiler():
    # an nsys export of a PyTorch program: its kernels are at::native ones
    tl = _timeline([(264, 128, 32, 1000)], name="void at::native::vectorized_elementwise_kernel<4>(int)",
                   collector="nsys_sqlite")
    assert _advice.uses_pytorch(tl)
    assert not _advice.uses_pytorch(_timeline([(264, 128, 32, 1000)], name="saxpy", collector="nsys_sqlite"))


def test_wave_loss_is_capped_at_the_distance_to_the_roof():
    # toy GPU (100 SMs, 1 TB/s): 1 ms kernel moving 9e8 DRAM bytes = 0.9 TB/s = 90 % of the memory roof (2e6 FLOP:
    # memory side) → no fix can save more than 1 ms × (1 − 0.90) = 100 µs. Its grid: 256 threads × 32 registers →
    # 8 blocks/SM → 800 per wave; 400 blocks = 0.5 waves → the wave model alone says 500 µs: capped at 100 µs.
    tl = _timeline([(400, 256, 32, 1_000_000)], name="stream_copy", sms=100, counters=[
        ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1e6), ("dram__bytes_read.sum", 4.5e8),
        ("dram__bytes_write.sum", 4.5e8)])
    src = gpulens.analyze_timeline(tl, device_spec=TOY)
    roof = src.results["roofline"].table.iloc[0]
    assert roof["bound"] == "memory" and roof["time_at_stake_ns"] == 100_000
    occ = src.results["occupancy"]
    assert occ.table.iloc[0]["wave_loss_ns"] == 500_000
    f = next(f for f in occ.findings if f.key == "occupancy/stream_copy/waves")
    assert f.time_at_stake_ns == 100_000 and "Capped" in f.detail
    assert all((g.time_at_stake_ns or 0) <= 100_000 for g in src.findings() if g.kernel == "stream_copy")


def test_launch_bound_kernel_is_counted_once_with_the_idle_time(tmp_path):
    # kernel i runs [8i+7, 8i+12) µs, kernel i+1 starts at 8i+15 after its call [8i+8, 8i+14): 99 gaps of 3 µs of
    # launch-overhead idle = 297 µs. The kernel's launch-bound verdict puts those same 297 µs at stake: it details the
    # idle finding, so the roots count 297 µs once (before: 594 µs, the idle root and the verdict root).
    src = gpulens.analyze([_launch_bound_trace(tmp_path)]).sources[0]
    v = next(f for f in src.findings() if f.key == "kernel:tiny_add")
    assert v.time_at_stake_ns == 297_000 and v.parent in ("idle", "idle/launch")
    r = roots(src.findings())
    assert sum(f.time_at_stake_ns or 0 for f in r if f.category != "data-quality") == 297_000


def _kernel_time(src, name):
    hs = src.results["hotspots"].table
    return float(hs.loc[hs["name"] == name, "effective_ns"].sum())


def test_v100_batch_norm_wave_loss_from_the_trace_file():
    # HTA's V100 trace (ns resolution): cudnn::bn_bw_1C11_kernel_new<..., 128, ...> runs 55 launches of 512 threads,
    # 40 registers, 400 B shared memory, grids of 64, 128 and 256 blocks. CC 7.0: 40 × 32 = 1280 registers/warp →
    # ⌊65536 / 1280⌋ = 51 warps → 48 (4-warp granule) → ⌊48 / 16 warps per block⌋ = 3 blocks/SM; 80 SMs → 240 blocks
    # per wave. Wave loss = Σ dur × (1 − W/⌈W⌉), W = grid / 240, read here from the file itself.
    import gzip

    path = shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")
    raw = json.load(gzip.open(path))
    ev = [e for e in raw["traceEvents"] if e.get("cat") == "kernel"
          and "bn_bw_1C11_kernel_new<float, float, float2, 128" in e.get("name", "")]
    assert {tuple(e["args"]["grid"]) for e in ev} == {(64, 1, 1), (128, 1, 1), (256, 1, 1)}
    assert {(e["args"]["block"][0], e["args"]["registers per thread"]) for e in ev} == {(512, 40)}
    loss = sum(round(e["dur"] * 1000) * (1 - (e["args"]["grid"][0] / 240) / math.ceil(e["args"]["grid"][0] / 240))
               for e in ev)
    src = gpulens.analyze([path]).sources[0]
    occ = src.results["occupancy"].table
    row = occ[occ["name"] == ev[0]["name"]].iloc[0]
    assert row["active_blocks_per_sm"] == 3 and row["grid_sizes"] == 3
    assert row["wave_loss_ns"] == pytest.approx(loss, rel=1e-3)
    by_grid = {}
    for e in ev:
        by_grid[e["args"]["grid"][0]] = by_grid.get(e["args"]["grid"][0], 0) + e["dur"]
    main = max(by_grid, key=by_grid.get)
    assert row["grid_blocks"] == main and row["waves_per_sm"] == pytest.approx(main / 240)
    # no finding puts a kernel's whole time at stake any more, and the registers limiter is not quantified
    for f in src.findings():
        if f.category == "occupancy" and f.time_at_stake_ns:
            assert f.time_at_stake_ns < _kernel_time(src, f.kernel)
    lim = [f for f in src.findings() if f.key and f.key.endswith("/limiter")]
    assert lim and all(f.time_at_stake_ns is None for f in lim)   # no roofline here: nothing says latency-bound


@pytest.mark.parametrize("rel", ["kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz",
                                 "kineto/tracelens_h100_bert-small.json.gz",
                                 "kineto/tracelens_mi300x_bert-small.json.gz",
                                 "nsys/fuser_h200_nsys2024.6_report1.sqlite",
                                 "nsys/memfusion_rtx3090_report1.sqlite",
                                 "ncu/codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"])
def test_real_traces_count_each_kernel_once_and_children_within_parents(rel):
    src = gpulens.analyze([shared_trace(rel)]).sources[0]
    fs = src.findings()
    by_key = {f.key: f for f in fs if f.key}
    per_kernel: dict[str, int] = {}
    for f in fs:
        p = by_key.get(f.parent)
        if p is not None and p.time_at_stake_ns is not None:
            assert (f.time_at_stake_ns or 0) <= p.time_at_stake_ns, (f.title, p.title)
        if f.parent is None and f.kernel and f.time_at_stake_ns:
            per_kernel[f.kernel] = per_kernel.get(f.kernel, 0) + f.time_at_stake_ns
    for name, stake in per_kernel.items():
        t = _kernel_time(src, name)
        assert t != t or stake <= t + 1, (name, stake, t)         # never more than the kernel's own time


def test_kernel_family_falls_back_on_the_launching_op(tmp_path):
    # a kernel whose name says nothing ("Kernel2") launched by aten::mm is a GEMM: its small-grid advice names split-K
    t0 = 1000
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 9, "ts": t0, "dur": 50,
           "args": {"External id": 7}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": t0 + 10, "dur": 5,
           "args": {"correlation": 1, "External id": 7}},
          {"ph": "X", "cat": "kernel", "name": "Kernel2", "pid": 0, "tid": 7, "ts": t0 + 20, "dur": 400,
           "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 7, "grid": [8, 1, 1],
                    "block": [128, 1, 1]}}]
    p = tmp_path / "mm.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
        "traceEvents": ev}))
    v = gpulens.analyze([p]).sources[0].results["verdicts"].table.iloc[0]
    assert v["verdict"] == "latency/occupancy-bound"             # 8 blocks on 132 SMs
    assert any(re.search(r"split-K\b", s) for s in v["next_steps"]), v["next_steps"]


def test_straggler_waits_are_counted_inside_the_exposed_communication():
    # HTA's two-rank sample: the others' waits for rank 1 happen inside their collectives, i.e. inside the exposed
    # communication already at stake: the straggler finding details it instead of adding its time a second time
    src = gpulens.analyze([shared_trace("kineto/multirank_hta_trace_filter")]).sources[0]
    by_key = {f.key: f for f in src.findings() if f.key}
    assert "exposed-comm" in by_key and "straggler" in by_key
    assert by_key["straggler"].parent == "exposed-comm"
    assert by_key["straggler"].time_at_stake_ns <= by_key["exposed-comm"].time_at_stake_ns
    assert all(f.key != "straggler" for f in roots(src.findings()))


def test_limiter_of_a_kernel_latency_bound_by_speed_of_light_is_bounded():
    # ncu speed of light: SM 20 %, memory 15 % of peak → both under 60 %: latency-bound, at stake
    # 1 ms × (1 − 20/100) = 800 µs. The launch (128 threads × 255 registers, CC 9.0) allows 2 blocks/SM → 12.5 %
    # theoretical; 264 blocks = 1 wave. Bound of the register limiter: min(1 ms × (1 − 0.125), 800 µs) = 800 µs.
    tl = _timeline([(264, 128, 255, 1_000_000)], counters=[
        ("sm__throughput.avg.pct_of_peak_sustained_elapsed", 20.0),
        ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 15.0)])
    src = gpulens.analyze_timeline(tl)
    v = src.results["verdicts"].table.iloc[0]
    assert v["verdict"] == "latency/occupancy-bound" and v["time_at_stake_ns"] == 800_000
    lim = next(f for f in src.findings() if f.key == "occupancy/k/limiter")
    assert lim.time_at_stake_ns == 800_000 and "Speed of light puts it below both roofs" in lim.detail


def test_main_grid_below_one_wave_names_what_its_loss_covers():
    # two launches under one wave (1056 blocks per wave, see above): 300 blocks 100 µs loses 100 × (1 − 300/1056)
    # = 71.59 µs; 660 blocks 200 µs (the main grid: 200 of 300 µs) loses 200 × (1 − 0.625) = 75 µs → 146.59 µs of
    # 300 µs = 48.9 %, while 1 − 0.625 = 37.5 % is the main grid's own share: the title names which figure is which
    tl = _timeline([(300, 256, 32, 100_000), (660, 256, 32, 200_000)])
    occ = gpulens.analyze_timeline(tl).results["occupancy"]
    f = next(f for f in occ.findings if f.key == "occupancy/k/waves")
    assert f.time_at_stake_ns == pytest.approx(75_000 + 100_000 * (1 - 300 / 1056), abs=1)
    assert f.title.startswith("Main grid of k fills 62.5 % of one wave: up to 48.9 % of its time, over all its 2 grid "
                              "sizes, at stake from empty block slots"), f.title
