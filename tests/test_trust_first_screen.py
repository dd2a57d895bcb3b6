"""The first screen leads with what the evidence shows: an upper bound resting on an unverified premise (a wave-
quantization estimate for a kernel whose bound is undetermined) never outranks a determined figure, says its
premise beside its figure, and when nothing determined remains the first screen says what settles the verdict
(session 6, "trust").

Expected figures are hand calculations from the CUDA occupancy rules (CC 9.0: 64 warp slots, 32 blocks and 64 K
registers per SM) and the wave-quantization formula t × (1 − W / ⌈W⌉) (NVIDIA Deep Learning Performance Guide,
"Matrix Multiplication Background"), written in each test.
"""

from __future__ import annotations

import pytest

import gpulens
from gpulens.analyzers._occ_findings import WAVE_PREMISE
from gpulens.analyzers._tree import roots
from gpulens.analyzers.base import Finding
from gpulens.reports._answer import answer, root_findings, top_findings
from tests.conftest import shared_trace
from tests.test_stake_findings import _timeline  # one kernel's launches on a GPU with `sms`


def test_premised_upper_bound_ranks_after_a_smaller_determined_figure():
    # 30 µs of measured idle vs a 100 µs wave estimate for a kernel whose bound nobody knows, and a limiter whose gain
    # is unknown: determined first, then the premised bound, then the unknown gain — whatever the sizes
    idle = Finding("GPU idle", time_at_stake_ns=30_000, key="idle", severity="info")
    wave = Finding("Last wave of k", time_at_stake_ns=100_000, kernel="k", key="occupancy/k/waves",
                   premise=WAVE_PREMISE)
    lim = Finding("Registers limit occupancy of j", kernel="j", key="occupancy/j/limiter")
    assert [f.key for f in roots([wave, lim, idle])] == ["idle", "occupancy/k/waves", "occupancy/j/limiter"]
    assert [f.key for f in root_findings([wave, lim, idle])] == ["idle", "occupancy/k/waves", "occupancy/j/limiter"]
    assert [f.key for f in top_findings([wave, lim, idle])] == ["idle", "occupancy/k/waves"]


def test_wave_estimate_of_an_undetermined_kernel_carries_its_premise_and_the_answer_says_what_settles_it():
    # 256 threads × 32 registers on CC 9.0 → 8 blocks/SM × 132 SMs = 1056 blocks per wave; 1848 blocks = 1.75 waves,
    # 300 µs → at most 300 × (1 − 1.75 / 2) = 37.5 µs. No counters, no FLOPs: the kernel's bound is undetermined.
    src = gpulens.analyze_timeline(_timeline([(1848, 256, 32, 300_000)]))
    assert src.results["verdicts"].table.iloc[0]["verdict"] == "undetermined"
    wave = next(f for f in src.findings() if f.key == "occupancy/k/waves")
    assert wave.time_at_stake_ns == 37_500 and wave.premise == WAVE_PREMISE and wave.severity == "info"
    a = answer(src)
    assert a.findings and all(f.premise for f in a.findings)
    # nothing determined leads: the step that settles the verdict does, before the premised estimate
    assert a.first_step.startswith("1 of 1 critical kernel ") and "could not be classified" in a.first_step
    from gpulens.report import Report
    from gpulens.reports.console import render
    text = render(Report([src]))
    assert "First: 1 of 1 critical kernel " in text.replace("\n", " ")
    assert "if it is not memory-bound" in text.replace("\n", " ")


@pytest.mark.parametrize("dram_pct, stake", [
    # ncu speed of light: memory 80 % / 90 % of peak, SM 10 % → memory-bound; distance to the memory roof
    # 300 µs × (1 − 0.80) = 60 µs ≥ the wave estimate 37.5 µs (kept); 300 µs × (1 − 0.90) = 30 µs < 37.5 µs (capped)
    (80.0, 37_500), (90.0, 30_000)])
def test_a_memory_bound_verdict_settles_the_premise_and_caps_the_wave_estimate(dram_pct, stake):
    tl = _timeline([(1848, 256, 32, 300_000)], counters=[
        ("sm__throughput.avg.pct_of_peak_sustained_elapsed", 10.0),
        ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", dram_pct)])
    src = gpulens.analyze_timeline(tl)
    assert src.results["verdicts"].table.iloc[0]["verdict"] == "memory-bound"
    wave = next(f for f in src.findings() if f.key == "occupancy/k/waves")
    assert wave.premise == "" and wave.time_at_stake_ns == stake
    assert answer(src).first_step == ""


def test_a_latency_bound_verdict_keeps_the_estimate_without_premise():
    # SM 20 %, memory 15 % of peak: latency-bound (ncu's SOL rule, both under 60 %): equal-time blocks hold
    tl = _timeline([(1848, 256, 32, 300_000)], counters=[
        ("sm__throughput.avg.pct_of_peak_sustained_elapsed", 20.0),
        ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 15.0)])
    src = gpulens.analyze_timeline(tl)
    wave = next(f for f in src.findings() if f.key == "occupancy/k/waves")
    assert wave.premise == "" and wave.time_at_stake_ns == 37_500


def test_v100_first_screen_leads_with_the_undetermined_kernels_not_a_last_wave_bound():
    # HTA's V100 trace: no counters and no shapes, so every critical kernel's bound is undetermined (the kernels
    # table says so); the wave estimates are upper bounds resting on that unknown bound
    p = shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")
    src = gpulens.analyze([p]).sources[0]
    vd = src.results["verdicts"].table
    undetermined = set(vd.loc[vd["verdict"] == "undetermined", "name"])
    a = answer(src)
    assert a.first_step and "could not be classified" in a.first_step
    for f in a.findings:  # every upper bound about an undetermined kernel says so beside its figure
        if f.kernel in undetermined and f.category == "occupancy":
            assert f.premise == WAVE_PREMISE
    # a determined figure (no premise) never follows a premised one in the ranking
    r = [f for f in root_findings(src.findings()) if f.time_at_stake_ns]
    first_premised = next((i for i, f in enumerate(r) if f.premise), len(r))
    assert all(f.premise for f in r[first_premised:])


# ---- a verdict needs enough evidence --------------------------------------------------------------------------------

def _kineto(tmp_path, n, dur=10):
    """``n`` kernels of ``dur`` µs starting 14 µs apart (10 µs kernels: 4 µs gaps), each launched by a 2 µs call
    that ends 1 µs before its kernel (the work is not enqueued when the GPU goes idle and the gap is under 20 µs:
    launch overhead)."""
    import json

    ev = []
    for i in range(n):
        t = 1000 + 14 * i
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": t - 3,
                "dur": 2, "args": {"correlation": i + 1}},
               {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": dur,
                "args": {"device": 0, "stream": 7, "correlation": i + 1}}]
    p = tmp_path / f"t{n}_{dur}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_two_launch_gaps_in_a_tiny_run_make_no_launch_verdict(tmp_path):
    # 3 kernels: span 3 × 10 + 2 × 4 = 38 µs, launch idle 2 × 4 = 8 µs = 21 % ≥ the 10 % rule — but from 2 gaps and
    # under half the span: no pattern, so no "launch-bound"; s45: against 30 µs computing (79 %) it would lose even
    # if proven, so the run is gpu-bound and the basis says why the launch idle is not its secondary cause
    src = gpulens.analyze([_kineto(tmp_path, 3)]).sources[0]
    bn = src.results["bottlenecks"].summary
    assert bn["idle_launch_ns"] == 8_000 and bn["device_span_ns"] == 38_000
    assert bn["verdict"] == "undetermined" and "only 2 gaps" in bn["verdict_evidence"]
    vd = src.results["verdicts"].summary
    assert vd["run_verdict"] == "gpu-bound" and vd["secondary_cause"] is None and "only 2 gaps" in vd["basis"]
    assert answer(src).verdict == "gpu-bound"


def test_the_same_overhead_seen_in_five_gaps_is_a_named_cause(tmp_path):
    # 6 kernels: span 6 × 10 + 5 × 4 = 80 µs, launch idle 5 × 4 = 20 µs = 25 %, 5 gaps ≥ 3: launch-bound is proven —
    # but the kernels compute 60 µs (75 %), the dominant share: the run is GPU-bound, launch-bound its secondary cause
    src = gpulens.analyze([_kineto(tmp_path, 6)]).sources[0]
    bn = src.results["bottlenecks"].summary
    assert bn["idle_launch_ns"] == 20_000 and bn["device_span_ns"] == 80_000
    assert bn["verdict"] == "launch-bound" and bn["verdict_evidence"] is None
    vd = src.results["verdicts"].summary
    assert (vd["run_verdict"], vd["secondary_cause"], vd["secondary_share_pct"]) == ("gpu-bound", "launch-bound", 25.0)
    assert "secondary cause: launch-bound (25.0 % of the span)" in answer(src).sentence


def test_launch_gaps_larger_than_the_computing_are_the_verdict(tmp_path):
    # 6 kernels of 3 µs, 14 µs apart: span 6 × 3 + 5 × 11 = 73 µs, launch idle 5 × 11 = 55 µs (75.3 %) against
    # 6 × 3 = 18 µs computing (24.7 %): launch-bound, the computing share second
    src = gpulens.analyze([_kineto(tmp_path, 6, dur=3)]).sources[0]
    bn = src.results["bottlenecks"].summary
    assert bn["idle_launch_ns"] == 55_000 and bn["device_span_ns"] == 73_000 and bn["computation_ns"] == 18_000
    vd = src.results["verdicts"].summary
    assert vd["run_verdict"] == "launch-bound"
    assert vd["secondary_cause"] == "gpu-bound" and vd["secondary_share_pct"] == pytest.approx(100 * 18 / 73)
    assert "75.3 % of the GPU span, against 24.7 % computing" in vd["basis"]


def test_lashi_streams_sample_is_not_called_launch_bound():
    # Lashi's streamSimple (RTX 4090): 16 kernels on 4 streams within 76,929 ns (SOURCES.md) — 10 µs of launch gaps
    # at the start of the streams is no evidence about a workload. The run is the ~76 ms of host-only start-up before
    # the 76.9 µs GPU span (busy 63 µs, 0.1 % of the window): host-bound by the window (one rule for sliver
    # spans, docs/bottlenecks.md "Run verdict"), never launch-bound
    src = gpulens.analyze([shared_trace("nsys/lashi_rtx4090_streamSimple.sqlite")]).sources[0]
    assert src.summary["span_ns"] == 76_929
    vd = src.results["verdicts"].summary
    # s40: the verdict judges the GPU span (2 launch gaps: too little evidence); the start-up is its own figure;
    # s45: the 2 gaps (13.2 %) cost less than the computing (82.0 %): gpu-bound, never launch-bound
    assert vd["run_verdict"] == "gpu-bound" and vd["outside_span"]["before_ns"] > 50_000_000
    assert src.results["bottlenecks"].summary["verdict"] == "undetermined"  # the 2 launch gaps prove nothing


def test_host_only_window_of_a_truncated_input_says_the_cut_may_hide_gpu_work(tmp_path):
    """Fresh-user walk: a trace cut at 97 % read "the GPU is idle 34.9 % of the 4.87 ms profiled window (host-only
    time outside its span)" — but the host-only time after the GPU span may be GPU work lost with the cut. By
    construction: a 1,000 µs host op, two 20 µs kernels at its start, then a cut inside a third kernel event: the
    host-only time outside the 40 µs GPU span is ≥ 25 % of the window, and the sentence must name the cut."""
    import json

    from tests.dig_traces import KTrace

    t = KTrace()
    ext = t.op("aten::mm", 1000.0, 1000.0)
    t.launch(ext, 1001.0, [("k_a", 1010.0, 20.0), ("k_b", 1030.0, 20.0)])
    text = json.dumps({"schemaVersion": 1, "deviceProperties": [t.device], "traceEvents": t.ev})
    cut = text[: text.rindex("]")] + ', {"ph": "X", "cat": "kernel", "name": "k_c", "pid": 0, "tid": 7, "ts": 19'
    path = tmp_path / "cut.json"
    path.write_text(cut)
    rep = gpulens.analyze([path])
    s = rep.sources[0]
    assert s.timeline.meta.truncated
    head = answer(s).sentence
    assert "outside the GPU span, not judged by the verdict" in head and "GPU work after the cut may be missing" in head
