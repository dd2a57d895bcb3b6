"""Conclusions that must agree with the numbers beside them (fifth session, "verdict" fault classes).

1. A long idle gap with a known host-side cause — a blocking call (synchronisation, synchronous copy) covering it —
   is counted in the verdict, not left out as warm-up; a leading gap before the first kernel stays warm-up; two or
   more long gaps between kernels recur and are counted.
2. Host-only time of the profiled window outside the GPU span gets a finding with its time.
3. The per-GPU idle table's figure is called ``overhead``, never a second "verdict".
4. Advice whose premise the evidence contradicts (raise occupancy at 100 % occupancy; a circular "if it is shown
   latency-bound" beside a latency-bound verdict; an align1 library GEMM not told to pad).

Every trace is hand-made here (Kineto JSON, times in µs); expected values are worked out in the comments.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import gpulens
from gpulens.analyzers.bottlenecks import BLOCKING_RE, boundary_mask
from gpulens.analyzers.verdict_rules import Evidence, decide
from tests.advice_premises import premise_violations

T0 = 1000  # µs


def _write(tmp_path, events, name="t.json"):
    p = tmp_path / name
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "AMD Instinct MI300X", "numSms": 304, "computeMajor": 9, "computeMinor": 4}],
        "traceEvents": events}))
    return p


def _call(name, ts, dur, corr=None, cat="cuda_runtime"):
    args = {"correlation": corr} if corr is not None else {}
    return {"ph": "X", "cat": cat, "name": name, "pid": 9, "tid": 9, "ts": T0 + ts, "dur": dur, "args": args}


def _kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": T0 + ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


def _steady(start, n, corr0):
    """``n`` kernels of 10 µs every 11 µs from ``start``, each launched 8 µs before it (the call ends 6 µs before the
    kernel, so each 1 µs gap between them has its work already enqueued: class queued)."""
    ev = []
    for i in range(n):
        t = start + 11 * i
        ev += [_call("hipLaunchKernel", t - 8, 2, corr0 + i), _kernel("k", t, 10, corr0 + i)]
    return ev


# ---- 1. the boundary rule ----------------------------------------------------------------------------------------

def test_blocking_copy_inside_the_run_is_counted_not_warmup(tmp_path):
    """As the TraceLens sglang decode trace: a kernel, then a 100 ms gap during which the host sits in
    hipMemcpyWithStream (inside aten::copy_), then 20 steady kernels. Before: the gap was a 'leading warm-up gap'
    left out of the verdict, which read gpu-bound. The gap has a kernel before it, so it is no warm-up, and a blocking
    copy covers it: it is sync idle and the verdict is sync-bound.

    By hand: kernel 0 at 0–10; the copy call 20 → 100,010 (100 ms − 10 µs), the next kernel (launched at 100,012)
    at 100,020, so the gap is 10 → 100,020 = 100,010 µs, of which the call covers 20 → 100,010 = 99,990 µs (sync);
    the rest, 20 µs, is host (the launch came after the gap began). Span: the 20th steady kernel starts at
    100,031 + 11 × 18 = 100,229 and ends at 100,239 µs."""
    ev = [_call("hipLaunchKernel", -8, 2, 1), _kernel("k0", 0, 10, 1),
          _call("aten::copy_", 15, 99_997, cat="cpu_op"), _call("hipMemcpyWithStream", 20, 99_990),
          _call("hipLaunchKernel", 100_012, 2, 2), _kernel("k", 100_020, 10, 2)]
    ev += _steady(100_031, 19, 10)
    s = gpulens.analyze([_write(tmp_path, ev)]).sources[0]
    bn = s.results["bottlenecks"].summary
    assert bn["idle_boundary_ns"] == 0 and bn["boundary_gaps"] == []
    assert bn["idle_sync_ns"] == 99_990_000
    assert bn["device_span_ns"] == 100_239_000 and bn["idle_host_ns"] == 20_000
    assert s.results["verdicts"].summary["run_verdict"] == "sync-bound"
    top = bn["blocking_calls"][0]
    assert (top["name"], top["overlap_ns"], top["calls"], top["copy"], top["op"]) == \
        ("hipMemcpyWithStream", 99_990_000, 1, True, "aten::copy_")
    idle = next(f for f in s.findings() if f.key == "idle")
    assert "hipMemcpyWithStream inside aten::copy_" in idle.action


def test_leading_gap_before_the_first_kernel_stays_warmup(tmp_path):
    """A copy at 0, then 100 ms of host work (a cpu_op) before the first kernel, then 20 steady kernels: warm-up
    (no kernel has run yet), left out of the verdict as before. Gap = 10 → 100,020 µs = 100,010 µs."""
    ev = [_call("hipMemcpyAsync", -5, 3, 1),
          {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": T0, "dur": 10,
           "args": {"device": 0, "stream": 7, "correlation": 1, "bytes": 1 << 20}},
          _call("aten::to", 12, 99_990, cat="cpu_op")]
    ev += [_call("hipLaunchKernel", 100_012, 2, 2), _kernel("k", 100_020, 10, 2)] + _steady(100_031, 19, 10)
    bn = gpulens.analyze([_write(tmp_path, ev)]).sources[0].results["bottlenecks"].summary
    assert bn["idle_boundary_ns"] == 100_010_000
    assert bn["boundary_gaps"][0]["position"] == "leading"


def test_long_gaps_that_recur_between_kernels_are_counted(tmp_path):
    """Three steps of 20 kernels, each followed by 30 ms of host work before the next step's first launch: each
    30 ms gap is ≥ 10 × the 1 µs median and 1/3 ≥ 25 % of the idle, so the old rule marked all three 'one-off' and
    the verdict read gpu-bound. They recur between kernels: counted, host-bound.
    By hand: step k's kernels at S_k + 11 i (i < 20), S_0 = 0, S_{k+1} = S_k + 219 + 30,000; the two 30 ms gaps
    between steps = 2 × 30,000 µs of host idle (the launches come 8 µs before each kernel, after the gap began)."""
    ev, s0 = [], 0
    for k in range(3):
        ev += _steady(s0, 20, 100 * k)
        s0 += 219 + 30_000
    bn = gpulens.analyze([_write(tmp_path, ev)]).sources[0].results["bottlenecks"].summary
    assert bn["idle_boundary_ns"] == 0
    # each 30,000 µs gap ends with a kernel launched after it began: host; the 3 × 19 gaps of 1 µs are queued
    assert bn["idle_host_ns"] == 2 * 30_000_000 and bn["idle_queued_ns"] == 3 * 19 * 1000
    assert bn["verdict"] == "host-bound"


def test_boundary_mask_rule_by_hand():
    """Gaps [2, 2, 1000, 2] µs between kernels spanning 0..2000: the 1000 gap is ≥ 10 × median(2) and ≥ 25 % of
    1006 — a candidate. Inner (kernels on both sides): left out when nothing blocks, counted when a blocking call
    covers ≥ half (500 of 1000), stays out at 499; before the first kernel it stays out even when blocked."""
    dur = np.array([2, 2, 1000, 2])
    gs = np.array([10, 22, 34, 1044])
    ge = gs + dur
    assert boundary_mask(dur, gs, ge, np.zeros(4), 0, 2000).tolist() == [False, False, True, False]
    assert boundary_mask(dur, gs, ge, np.array([0, 0, 500, 0]), 0, 2000).tolist() == [False] * 4
    assert boundary_mask(dur, gs, ge, np.array([0, 0, 499, 0]), 0, 2000)[2]
    # first kernel starts at 1034 (only copies before): the gap 34 → 1034 is leading warm-up even if blocked
    assert boundary_mask(dur, gs, ge, np.array([0, 0, 1000, 0]), 1034, 2000)[2]
    # two candidates between kernels recur: neither is a one-off
    dur2 = np.array([2, 1000, 2, 1000, 2, 2])
    gs2 = np.cumsum([10, 12, 1012, 14, 1014, 12])
    assert not boundary_mask(dur2, gs2, gs2 + dur2, np.zeros(6), 0, 10_000).any()


def test_blocking_calls_are_syncs_and_synchronous_copies_only():
    """CUDA Runtime API 'API synchronization behavior': cudaMemcpy (and 2D, ToSymbol) block the host; the Async
    variants do not; cudaFree and launches are not synchronisations."""
    blocking = ["cudaMemcpy", "cudaMemcpy2D", "cudaMemcpyToSymbol", "hipMemcpyWithStream", "hipMemcpyDtoH",
                "cuMemcpyDtoH_v2", "cudaStreamSynchronize", "hipDeviceSynchronize", "cudaEventSynchronize"]
    not_blocking = ["cudaMemcpyAsync", "hipMemcpyAsync", "cuMemcpyDtoHAsync_v2", "cudaMemcpy2DAsync", "cudaFree",
                    "cudaLaunchKernel", "hipStreamWaitEvent", "cudaMemsetAsync"]
    assert all(BLOCKING_RE.match(n) for n in blocking)
    assert not any(BLOCKING_RE.match(n) for n in not_blocking)


# ---- 2. host-only time outside the GPU span -----------------------------------------------------------------------

def test_host_only_tail_of_the_window_is_a_finding(tmp_path):
    """As the nsys RTX 3090 report: 5 kernels at 0, 11, …, 44 (GPU span 0 → 54 µs), the first launched at −8 µs,
    then 9 cuModuleUnload calls of 100 µs from 60 µs (the last ends at 960). Window = −8 → 960 = 968 µs; outside the
    GPU span: 8 µs before + 906 µs after = 914 µs = 94.4 %; the calls cover 900 µs of the tail."""
    ev = _steady(0, 5, 1) + [_call("cuModuleUnload", 60 + 100 * i, 100) for i in range(9)]
    s = gpulens.analyze([_write(tmp_path, ev)]).sources[0]
    bn = s.results["bottlenecks"].summary
    assert bn["host_only_before_ns"] == 8_000 and bn["host_only_after_ns"] == 906_000 and bn["window_ns"] == 968_000
    f = next(f for f in s.findings() if f.key == "window/host-only")
    assert f.time_at_stake_ns == 914_000 and f.severity == "warning"
    assert "cuModuleUnload 900.00 µs in 9 calls" in f.detail and "teardown" in f.detail
    assert f.title.startswith(f"Host-only time outside the GPU span: 914.00 µs ({100 * 914 / 968:.1f} % of the "
                              "profiled window)")
    from gpulens.reports._answer import answer

    assert "profiled window" in answer(s).sentence


def test_host_only_window_of_a_cut_file_is_not_told_to_stop_the_profiler(tmp_path):
    """The same events from a file that ended early (Timeline.meta.truncated, set by the collectors' cut-file
    recovery): GPU work after the cut may be missing, so the 914 µs are not time at stake and the next step is to get
    the whole trace, not to move the profiler's stop (the fresh-user walk: a cut H100 BERT trace was told 'Stop the
    profiler when the GPU work ends')."""
    ev = _steady(0, 5, 1) + [_call("cuModuleUnload", 60 + 100 * i, 100) for i in range(9)]
    tl = gpulens.collect(_write(tmp_path, ev))
    tl.meta.truncated = True
    f = next(f for f in gpulens.analyze_timeline(tl).findings() if f.key == "window/host-only")
    assert f.time_at_stake_ns is None and f.severity == "info" and "the file is cut" in f.title
    assert "complete trace" in f.action and "Stop the profiler" not in f.action


# ---- 3. one name per figure ---------------------------------------------------------------------------------------

def test_idle_table_names_its_figure_overhead_not_verdict(tmp_path):
    """20 back-to-back kernels (1 µs gaps, 19 µs idle of 219 µs, under 10 %): no overhead reaches 10 %, so the per-GPU
    figure is 'none' — never a 'gpu-bound' verdict column beside the run verdict."""
    s = gpulens.analyze([_write(tmp_path, _steady(0, 20, 1))]).sources[0]
    t = s.results["bottlenecks"].table
    assert "verdict" not in t.columns and t["overhead"].tolist() == ["none"]
    from gpulens.report import Report
    from gpulens.reports.markdown import render

    md = render(Report([s]))
    section = md.split("### Where the idle time went")[1].split("###")[0]
    assert "overhead" in section and "verdict" not in section


# ---- 4. advice premises -------------------------------------------------------------------------------------------

def _ev(**kw):
    base = dict(name="k", kind="kernel", calls=10, time_ns=1_000_000)
    base.update(kw)
    return Evidence(**base)


def test_full_occupancy_softmax_is_not_told_to_raise_occupancy():
    """timesformer H100: cunn_SoftMaxForward at 20 % of its memory roof, 100 % theoretical occupancy (limiter warps)
    was told 'Raise parallelism in flight: … and higher occupancy' — impossible at 100 %."""
    e = _ev(name="void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16>(…)",
            bound="below-roofs", roof_pct=20.0, ridge_side="memory", theoretical_occupancy_pct=100.0,
            limiter="warps", mean_blocks=301152, num_sms=132, family="normalisation", pytorch=True)
    v = decide(e)
    assert v.verdict == "below-roofs"  # below its roof, nothing says latency or occupancy (301,152 blocks)
    assert not any("higher occupancy" in s or "raise occupancy" in s.lower() for s in v.next_steps)
    assert "Occupancy is not its limit (100.0 % theoretical)" in v.next_steps[0]
    assert premise_violations(v.verdict, v.next_steps, e) == []


@pytest.mark.parametrize("name, elems", [
    ("void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1>(…)", 8),  # 16 B / 2 B
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1>(…)", 4),  # TF32 from FP32: 16 B / 4 B
])
def test_align1_library_gemm_is_told_to_pad_not_a_circular_condition(name, elems):
    """owlv2 H100: a CUTLASS align1 GEMM at 24 % of its roof, register-limited at 12 %, was told 'if it is shown
    latency-bound, try another algorithm' beside its latency-bound verdict. align1 = operands not known to be
    16-byte aligned: padding K/N/leading dimensions to 16 bytes lets an aligned kernel be picked."""
    e = _ev(name=name, bound="below-roofs", roof_pct=24.0, ridge_side="memory", theoretical_occupancy_pct=12.0,
            limiter="registers", mean_blocks=15744, num_sms=132, family="gemm", library=True, pytorch=True)
    v = decide(e)
    assert f"a multiple of {elems} elements (16 bytes)" in v.next_steps[0]
    assert not any("if it is shown latency-bound" in s for s in v.next_steps)
    assert premise_violations(v.verdict, v.next_steps, e) == []


def test_premise_checker_flags_each_false_premise():
    """The checker (tests/advice_premises.py) on hand-made verdicts whose advice contradicts their own numbers."""
    hi = _ev(theoretical_occupancy_pct=100.0, achieved_occupancy_pct=92.0)
    assert premise_violations("latency/occupancy-bound", ["Raise … and higher occupancy."], hi) == ["occupancy-high"]
    low_roof = _ev(bound="memory", roof_pct=30.0)
    assert premise_violations("memory-bound", ["Move fewer bytes."], low_roof) == ["memory-bound-low-roof"]
    long_k = _ev(time_ns=10 * 500_000)  # 10 calls of 500 µs each: far longer than any launch call
    assert premise_violations("launch-bound", ["Fuse it."], long_k) == ["launch-bound-long-kernel"]
    norm = _ev(family="normalisation")
    assert premise_violations("latency/occupancy-bound", ["Use split-K."], norm) == ["split-k-not-gemm"]
    lib = _ev(library=True, name="cutlass_x")
    assert premise_violations("latency/occupancy-bound", ["if it is shown latency-bound, try …"], lib) == \
        ["circular-condition"]
    assert premise_violations("latency/occupancy-bound", ["Cut registers per thread if it is latency-bound."],
                              _ev()) == ["circular-condition"]
    assert premise_violations("latency/occupancy-bound", ["Use __launch_bounds__ to cap registers."], lib) == \
        ["library-registers"]
    # 2,000 blocks on 132 SMs but 0.5 waves (8 resident per SM): "too few blocks" is true — no violation; at 1.2 waves
    # it is false
    half = _ev(mean_blocks=2000, num_sms=132, waves_per_sm=0.5)
    assert premise_violations("latency/occupancy-bound", ["The grid has too few blocks to fill the GPU."], half) == []
    whole = _ev(mean_blocks=2000, num_sms=132, waves_per_sm=1.2)
    assert premise_violations("latency/occupancy-bound", ["The grid has too few blocks to fill the GPU."], whole) == \
        ["more-blocks-full-grid"]


def test_limiter_finding_loses_its_condition_once_the_verdict_is_latency_bound():
    """A limiter finding's next step is conditional ("… if it is (shown) latency-bound") while nothing shows the
    kernel latency-bound; once its verdict does, the condition is dropped (beside the verdict it was circular)."""
    from gpulens.analyzers import _advice
    from gpulens.analyzers._occ_findings import settle_condition
    from gpulens.analyzers.base import Finding

    lib = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(…)"
    fs = [Finding("t", "d", kernel=lib, key=f"occupancy/{lib}/limiter", action=_advice.limiter("registers", lib)),
          Finding("t", "d", kernel="k", key="occupancy/k/limiter", action=_advice.limiter("shared_memory", "k"))]
    assert all("latency-bound" in f.action for f in fs)  # the premise is open before the verdict
    settle_condition(fs, lib)
    settle_condition(fs, "k")
    assert not any("latency-bound" in f.action for f in fs)
    assert fs[1].action == "Use less shared memory per block (smaller tiles, fewer pipeline stages)."


def _real(*candidates: str):
    from pathlib import Path

    for c in candidates:
        if Path(c).exists():
            return Path(c)
    pytest.skip(f"real trace absent: {candidates[0]}")


@pytest.mark.parametrize("rel", [
    "/tmp/extra/AMD-AGI__tests_traces_h100_google_owlv2-large-patch14-ensemble__1016001.json.gz",
    "/tmp/extra/AMD-AGI__tests_traces_h100_facebook_timesformer-base-finetuned-k400__1016002.json.gz",
    "/work/shared/traces/ncu/codegandee_rtx5090_ncu-v2_kernel_0005_details.csv",
    "/work/shared/traces/nsys/fuser_h200_nsys2024.6_report1.sqlite",
])
def test_real_traces_give_no_advice_with_a_false_premise(rel):
    """The traces where the walk found advice contradicting its numbers (softmax at 100 % occupancy told to raise
    it, CUTLASS align1 and nvjet GEMMs given circular conditions): the checker finds nothing now."""
    from tests.advice_premises import check_findings, check_source

    s = gpulens.analyze([_real(rel)], strict=False).sources[0]
    assert check_source(s) + check_findings(s) == []


def test_real_sglang_decode_gap_is_named_and_counted():
    """TraceLens sglang Qwen3-8B decode: the 463 ms GPU-idle gap inside the only step is the host blocked in
    hipMemcpyWithStream (463.02 ms in the file: ts 361.7 µs, dur 463,063.8 µs, overlapping the 463,295 µs gap)."""
    p = _real("/tmp/extra/AMD-AGI__tests_traces_inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz")
    s = gpulens.analyze([p], strict=False).sources[0]
    bn = s.results["bottlenecks"].summary
    assert bn["boundary_gaps"] == [] and s.results["verdicts"].summary["run_verdict"] == "sync-bound"
    assert bn["blocking_calls"][0]["name"] == "hipMemcpyWithStream"
    assert bn["idle_sync_ns"] > 0.97 * bn["device_span_ns"]


def test_real_nsys_teardown_window_is_reported():
    """nsys RTX 3090 report: GPU span 6.46 ms of a 533.93 ms window; 527 ms after the last kernel are host-only
    (cuModuleUnload calls)."""
    p = _real("/work/shared/traces/nsys/memfusion_rtx3090_report1.sqlite")
    s = gpulens.analyze([p], strict=False).sources[0]
    f = next(f for f in s.findings() if f.key == "window/host-only")
    # one rank: the host-only time is exactly window − GPU span (533.93 − 6.46 ms ≈ 527.47 ms)
    assert f.time_at_stake_ns == s.summary["window_ns"] - s.summary["span_ns"]
    assert 527_000_000 < f.time_at_stake_ns < 528_000_000 and "cuModuleUnload" in f.detail


def test_launch_bound_needs_more_launch_idle_than_the_roof_puts_at_stake():
    """tb_plugin's resnet50 sample (V100): an elementwise add at 87 % of the memory roof, 3,090 launches of 12.9 µs,
    most shorter than their launch call but only 10 µs of launch idle before them — the host kept the queue fed.
    Roof stake by hand: 39.81 ms × (1 − 0.87) = 5.1753 ms > 10 µs → memory-bound; with 6 ms of launch idle instead
    (> 5.1753 ms) the launches are the larger lever → launch-bound, 6 ms at stake."""
    base = dict(name="vectorized_elementwise_kernel", kind="kernel", calls=3090, time_ns=39_810_000,
                short_launch_frac=0.9, bound="memory", roof_pct=87.0)
    v = decide(Evidence(**base, launch_idle_ns=10_000))
    assert v.verdict == "memory-bound" and v.time_at_stake_ns == round(39_810_000 * 0.13)
    v = decide(Evidence(**base, launch_idle_ns=6_000_000))
    assert v.verdict == "launch-bound" and v.time_at_stake_ns == 6_000_000
    # no roof position: the launch rule stands on its own, when the launch idle is not negligible beside the
    # kernel's own time (session 25: 10 µs against 39.81 ms = 0.03 % is a fed queue, not launch-bound)
    v = decide(Evidence(**{**base, "bound": None, "roof_pct": None}, launch_idle_ns=10_000))
    assert v.verdict != "launch-bound" and "under 0.1 % of its 39.81 ms" in v.evidence  # 0.025 %, never "0.0 %"
    v = decide(Evidence(**{**base, "bound": None, "roof_pct": None}, launch_idle_ns=6_000_000))
    assert v.verdict == "launch-bound" and v.time_at_stake_ns == 6_000_000  # 6 / 39.81 = 15 % ≥ 10 %


@pytest.mark.parametrize("name,fam,uses", [
    ("void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, true>(Flash_fwd_params)", "attention",
     "split-KV"),
    ("volta_scudnn_128x64_stridedB_splitK_xregs_large_nn_v1", "gemm", "split-K"),
])
def test_a_kernel_that_already_splits_is_not_told_to_adopt_the_split(name, fam, uses):
    """ncu RTX 5090 (CodeGandee): flash_fwd_splitkv_kernel was told '…or a split-KV (FlashDecoding) attention
    kernel': it is one. The name says which split it already uses; the advice raises its split count instead."""
    from gpulens.analyzers import _advice

    for library in (False, True):
        text = _advice.more_blocks(fam, library, name)
        assert f"already splits" in text and f"({uses})" in text
        assert "FlashDecoding" not in text and "pick a split-K" not in text
    v = decide(Evidence(name, "kernel", 10, 100_000, mean_blocks=40, num_sms=170, family=fam, library=True))
    assert v.verdict == "latency/occupancy-bound" and "already splits" in " ".join(v.next_steps)
    # a kernel without the split in its name keeps the split advice of its family
    plain = "flash_fwd_kernel" if fam == "attention" else "volta_sgemm_128x64_nn"
    assert "already" not in _advice.more_blocks(fam, True, plain)


def test_cpu_op_total_counts_a_call_nested_in_the_same_op_once(tmp_path):
    """TraceLens sglang decode: aten::copy_ (463.09 ms) nested in aten::copy_ (463.07 ms... its parent) was summed
    to 926 ms in a 474 ms window. By hand: outer copy_ 100–600 µs with a nested copy_ 150–550 µs on the same thread
    = 500 µs, plus a second copy_ 700–710 µs = 510 µs over 3 calls; on another thread a copy_ 120–220 µs adds 100 µs
    (different threads run at the same time: both count)."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": {}}
          for tid, ts, dur in [(1, 100, 500), (1, 150, 400), (1, 700, 10), (2, 120, 100)]]
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 160, "dur": 20, "args": {}})
    p = tmp_path / "nested.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    t = gpulens.analyze([p], only=["cpu_ops"]).sources[0].results["cpu_ops"].table.set_index("name")
    assert t.loc["aten::copy_", "calls"] == 4 and t.loc["aten::copy_", "total_ns"] == (500 + 10 + 100) * 1000
    assert t.loc["aten::add", "total_ns"] == 20_000


@pytest.mark.parametrize("sizes", [1, 2])
def test_waves_of_a_kernel_with_several_grid_sizes_say_which_grid(sizes):
    """Kind: a kernel launched with several grid sizes had two "waves" figures on one screen — the occupancy
    table's (its main configuration's grid: 33 blocks of a 132-SM × 16-block GPU, 0.016 waves) and the verdict's
    advice (the mean grid over its launches: 49.5 blocks → 49.5 / 2112 = 0.0234 waves, three significant digits as
    the table's) — with nothing saying which is which. The advice names the mean grid whenever the grid sizes vary; with one size both are the same."""
    waves = 49.5 / (132 * 16)
    e = _ev(name="my_kernel", bound="below-roofs", roof_pct=5.0, ridge_side="memory", theoretical_occupancy_pct=50.0,
            limiter="registers", mean_blocks=49.5, num_sms=132, waves_per_sm=waves, grid_sizes=sizes)
    v = decide(e)
    assert v.verdict == "latency/occupancy-bound"
    text = " ".join(v.next_steps)
    assert "(0.0234 waves" in text
    assert ("0.0234 waves of its mean grid; its 2 grid sizes vary" in text) == (sizes == 2)


@pytest.mark.parametrize("extents, want, absent", [
    # bf16: 16 B = 8 elements; GPT-2's vocabulary 50257 is the odd extent, padded up to the next multiple of 8
    (((8192, 50257, 768), (50257, 768, 8192)), ["M×N×K 8192×50257×768, 50257×768×8192", "pad 50257 to 50264"],
     ".contiguous()"),
    # every extent a multiple of 8: the sizes are not the cause, a stride or start address is
    (((4096, 4096, 4096),), ["are all a multiple of 8 elements", ".contiguous()"], "pad "),
])
def test_align1_hint_names_the_extents_to_pad(extents, want, absent):
    name = "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>(…)"
    e = _ev(name=name, bound="below-roofs", roof_pct=12.0, ridge_side="compute", theoretical_occupancy_pct=12.5,
            limiter="registers", library=True, pytorch=True, family="gemm", gemm_extents=extents)
    v = decide(e)
    assert all(w in v.next_steps[0] for w in want) and absent not in v.next_steps[0]
    # one alignment step: the generic one the register limiter gives is replaced, not kept beside it
    assert sum(s.startswith("Its full name says align") for s in v.next_steps) == 1


def test_gemm_extents_of_recorded_ops():
    from gpulens.analyzers._flop_models import gemm_extents

    bf = '"c10::BFloat16"'
    # linear: x[8, 1024, 768] · W[50257, 768]ᵀ → M = 8·1024, N = 50257, K = 768
    assert gemm_extents("aten::linear", "[[8, 1024, 768], [50257, 768], []]", f"[{bf}, {bf}, \"\"]") == \
        (8192, 50257, 768)
    assert gemm_extents("aten::mm", "[[50257, 8192], [8192, 768]]", f"[{bf}, {bf}]") == (50257, 768, 8192)
    assert gemm_extents("aten::bmm", "[[12, 64, 32], [12, 32, 80]]", f"[{bf}, {bf}]") == (64, 80, 32)
    assert gemm_extents("aten::mm", "[[4, 3], [5, 6]]", f"[{bf}, {bf}]") is None  # inner dimensions disagree
    assert gemm_extents("aten::add", "[[4, 4], [4, 4]]", f"[{bf}, {bf}]") is None
    assert gemm_extents("aten::mm", "not json", f"[{bf}]") is None
