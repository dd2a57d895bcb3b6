"""Conclusions that contradicted the numbers beside them (session 36). Each expected value is worked out here from
the input itself (the ncu CSV's metric rows, the Kineto trace's events read with ``json``) or by hand.

1. Findings ranked by the time at stake: a stake resting only on the assumed GPU's figures (an ncu CSV names no
   GPU) ranks by its size, with its premise shown; a severity never reorders time in the headline.
2. The roofline table's two percentages say what each is (the bound's share of peak, the share of the roofline).
3. A gap whose work was already queued and that a blocking call spans is the host's wait on it (counted, the call
   named), never "warm-up".
4. The critical path calls a late start after the launch call returned ``queued``, as the idle split does.
5. A grid sized to the GPU (a persistent kernel) is not told to launch more blocks.
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

import gpulens
from gpulens.analyzers._verdict_facts import Evidence, persistent_grid
from gpulens.analyzers.verdict_rules import decide
from tests.conftest import DATA, KINETO

NCU_H200 = DATA / "nvidia" / "h200" / "h200_kernels_details.csv"
SGL = KINETO / "tracelens_mi300x_sglang_qwen3_decode.json.gz"


def _ncu_metric(kernel: str, metric: str) -> float:
    """One metric of the H200 details CSV, in the unit it is written in (thousands separators stripped)."""
    for r in csv.DictReader(NCU_H200.open(newline="")):
        if r["Kernel Name"].startswith(kernel) and r["Metric Name"] == metric:
            return float(r["Metric Value"].replace(",", ""))
    raise KeyError((kernel, metric))


@pytest.fixture(scope="module")
def h200():
    return gpulens.analyze([NCU_H200])


# ---- 1. ranking by the time at stake ------------------------------------------------------------------------------

def test_headline_ranks_by_stake_and_marks_the_assumed_gpu(h200):
    from gpulens.reports._answer import answer

    src = h200.sources[0]
    top = answer(src).findings
    stakes = [f.time_at_stake_ns for f in top]
    assert stakes == sorted(stakes, reverse=True), stakes  # before: 88.40 µs, 11.62 µs, 20 ns; 603.93 µs left out
    # gemm_naive's is measured: Duration 3.18 ms × (1 − Memory Throughput 97.22 %) = 88,404 ns; it leads since
    # session 37 (a measured lower bound ranks; gemm_wmma's 603.93 µs on the assumed H200's peaks is named beside its
    # own measured lower bound, tests/test_trust_s37_verdict.py)
    naive = _ncu_metric("gemm_naive", "Duration") * 1e6 * (1 - _ncu_metric("gemm_naive", "Memory Throughput") / 100)
    assert top[0].kernel.startswith("gemm_naive") and abs(top[0].time_at_stake_ns - naive) <= 1
    assert top[1].kernel.startswith("gemm_wmma") and "assumed NVIDIA H200" in top[1].title
    assert all(not f.kernel.startswith("tiny") for f in top)  # 20 ns is not among the three largest
    ranked = src.results["verdicts"].summary["ranked"]
    assert [r["time_at_stake_ns"] for r in ranked] == sorted((r["time_at_stake_ns"] for r in ranked), reverse=True)


def test_console_headline_shows_the_premise(h200):
    import io

    from rich.console import Console

    from gpulens.reports.console import print_report

    buf = io.StringIO()
    print_report(h200, Console(file=buf, width=400, color_system=None))
    lines = buf.getvalue().splitlines()
    second = next(ln for ln in lines if ln.lstrip().startswith("2."))
    assert "gemm_wmma" in second and "if the GPU is the assumed NVIDIA H200" in second


def test_a_conditional_premise_still_ranks_after_measured_figures():
    from gpulens.analyzers._tree import rank_key
    from gpulens.analyzers.base import Finding

    measured = Finding("a", "", time_at_stake_ns=100)
    on_assumed_gpu = Finding("b", "", time_at_stake_ns=1000, premise="if the GPU is the assumed NVIDIA H200 SXM (…)")
    wave = Finding("c", "", time_at_stake_ns=5000, premise="if it is not memory-bound (its bound is undetermined)")
    both = Finding("d", "", time_at_stake_ns=9000, premise="if it is not memory-bound (its bound is undetermined); "
                                                            "and if the GPU is the assumed NVIDIA H200 SXM (…)")
    order = [f.title for f in sorted([wave, measured, both, on_assumed_gpu], key=rank_key)]
    assert order == ["b", "a", "d", "c"]


# ---- 2. the two percentages of the roofline table ---------------------------------------------------------------

def test_bound_share_and_roof_share_are_named_apart(h200):
    from gpulens.reports import markdown
    from gpulens.reports._format import column_label
    from gpulens.reports.html import render

    src = h200.sources[0]
    rf = src.results["roofline"]
    row = rf.table[rf.table["name"].str.startswith("gemm_wmma")].iloc[0]
    # the bound rests on the measured speed of light: its share is the CSV's Memory Throughput (96.40 %), while the
    # roofline share is attained work against the DRAM/compute roofline — another quantity, 3.5 % here
    assert abs(float(row["bound_pct"]) - _ncu_metric("gemm_wmma", "Memory Throughput")) < 0.01
    assert float(row["roof_pct"]) < 10
    bound_label = column_label("bound_pct", rf.columns["bound_pct"])
    roof_label = column_label("roof_pct", rf.columns["roof_pct"])
    assert bound_label.startswith("bound's % of peak") and roof_label.startswith("% of roofline")
    md = markdown.render(h200)
    assert bound_label in md and roof_label in md and "Two shares:" in md
    assert "Two shares:" in render(h200)
    assert "DRAM and compute roofs only" in rf.columns["roof_pct"]  # the JSON's column doc says it too


def test_no_legend_where_the_two_shares_agree():
    import pandas as pd

    from gpulens.reports._format import bound_pct_legend

    same = pd.DataFrame({"bound_pct": [42.0, None], "roof_pct": [42.0, 7.0], "bound_basis": ["roofline", None]})
    assert bound_pct_legend(same) == ""
    differ = same.assign(bound_pct=[96.4, None])
    assert bound_pct_legend(differ).startswith("Two shares:")


# ---- 3. and 4. a blocking call over queued work; late starts on the critical path ---------------------------------

def _sglang_facts():
    """From the trace: the kernels that end the long gap (start ≥ 463 ms), their launch calls' returns, and the
    hipMemcpyWithStream call spanning the gap (µs, relative to the first event)."""
    ev = [e for e in json.load(gzip.open(SGL))["traceEvents"] if e.get("ph") == "X"]
    t0 = min(e["ts"] for e in ev)
    calls = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime" and "correlation" in e["args"]}
    gpu = sorted((e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")), key=lambda e: e["ts"])
    gap_start = gpu[0]["ts"] + gpu[0]["dur"] - t0
    gap_end = gpu[1]["ts"] - t0
    late = [(e["ts"] - t0, calls[e["args"]["correlation"]]) for e in gpu
            if e.get("cat") == "kernel" and gap_end <= e["ts"] - t0 < gap_end + 30]
    copy = next(e for e in ev if e["name"] == "hipMemcpyWithStream")
    return gap_start, gap_end, late, copy, t0


@pytest.fixture(scope="module")
def sglang():
    return gpulens.analyze([SGL]).sources[0]


def test_sglang_gap_is_the_hosts_wait_on_queued_work_not_warm_up(sglang):
    gap_start, gap_end, late, copy, t0 = _sglang_facts()
    # the 4 kernels that end the gap were launched and their calls returned long before they started
    assert len(late) == 4 and all(c["ts"] + c["dur"] - t0 < 400 for _, c in late)
    assert all(start - (c["ts"] + c["dur"] - t0) > 463_000 for start, c in late)
    # the host sat in hipMemcpyWithStream over the gap: from 361.7 µs for 463,063.75 µs
    assert copy["ts"] - t0 < gap_start + 300 and copy["ts"] + copy["dur"] - t0 > gap_end
    src = sglang
    bn = src.results["bottlenecks"].summary
    # s38: the queued work waited on nothing the trace records (no GPU event inside the gap, on any stream or
    # device): a dependency outside the capture, at its start — left out of the verdict as the capture's edge, its
    # note saying the work was queued and the host blocked in the copy (s36 counted it as the run's dependency)
    (gap,) = bn["boundary_gaps"]
    assert abs(gap["dur_ns"] - (gap_end - gap_start) * 1000) < 1_000_000 and gap["cause"] == "queued"
    assert src.results["verdicts"].summary["run_verdict"] == "gpu-bound"
    note = next(f for f in src.findings() if f.key == "idle/boundary")
    assert "the host was blocked in hipMemcpyWithStream" in note.detail and "hipStreamWaitEvent" in note.detail
    assert "the work after it was already queued" in note.detail


def test_sglang_critical_path_names_the_late_start_as_the_idle_split_does(sglang):
    gap_start, gap_end, late, copy, t0 = _sglang_facts()
    src = sglang
    cp = src.results["critical_path"].summary
    # the path reaches the first of the late kernels through its launch call: the call's own time is launch_delay,
    # the rest — its start less its call's return, over 463 ms — is queued (before: 463 ms of "launch_delay", a host
    # cause, and the blocking copy "runtime" work)
    first_start, first_call = min(late, key=lambda x: x[0])
    queue_us = first_start - (first_call["ts"] + first_call["dur"] - t0)
    assert cp["top_class"] == "queued"
    assert abs(cp["class_ns"]["queued"] - queue_us * 1000) < 0.001 * queue_us * 1000
    assert cp["class_ns"]["launch_delay"] < 100_000
    assert cp["bound"] == "gpu"  # the GPU held the work: not "host work 97.9 % of the path"


def _queued_trace(tmp_path, call_dur_us: float, start_after_return_us: float) -> Path:
    """Three kernels, each launched by a cudaLaunchKernel of ``call_dur_us`` and starting ``start_after_return_us``
    after the call returned; nothing else runs."""
    ev = []
    for i in range(3):
        b = 1000.0 * i
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": b,
                   "dur": call_dur_us, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                   "ts": b + call_dur_us + start_after_return_us, "dur": 100.0,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    p = tmp_path / "q.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_path_split_at_the_launch_return(tmp_path):
    # a start 500 µs after a 10 µs call returned: the last kernel's wait on the path is 10 µs launch_delay and
    # 500 µs queued; the idle split calls the same gaps queued
    src = gpulens.analyze([_queued_trace(tmp_path, 10.0, 500.0)]).sources[0]
    cls = src.results["critical_path"].summary["class_ns"]
    assert cls.get("queued") == 500_000 and cls.get("launch_delay") == 10_000
    assert src.results["bottlenecks"].summary["idle_queued_ns"] > 0
    # a normal start (5 µs after the return, under the idle split's 20 µs launch threshold) stays launch_delay
    src = gpulens.analyze([_queued_trace(tmp_path, 10.0, 5.0)]).sources[0]
    cls = src.results["critical_path"].summary["class_ns"]
    assert "queued" not in cls and cls.get("launch_delay") == 15_000


# ---- 5. a grid sized to the GPU ----------------------------------------------------------------------------------

def test_persistent_grid_rule_by_hand():
    assert persistent_grid(132, 132, 0.5) == 1  # one block on each of 132 SMs, two fit: sized to the GPU
    assert persistent_grid(264, 132, 0.5) is None  # 2 per SM may be a problem size: the grid-fill rule speaks
    assert persistent_grid(264, 132, 0.5, "gemm_persistent") == 2  # the name says so
    assert persistent_grid(100, 132, 0.38) is None  # under the SM count: too few blocks, not a persistent grid
    assert persistent_grid(200, 132, 0.76, "fmha_persistent_kernel") == 2  # 200 / 132 = 1.5, rounded
    assert persistent_grid(132, 132, 1.0) is None  # a full wave: nothing to say


def _latency_evidence(blocks: int, waves: float, name: str) -> Evidence:
    # measured speed of light under 60 % on every unit: latency/occupancy-bound by ncu's SOLBottleneck reading
    return Evidence(name=name, kind="kernel", calls=10, time_ns=5_000_000, mean_blocks=blocks, main_grid_blocks=blocks,
                    num_sms=148, waves_per_sm=waves, theoretical_occupancy_pct=25.0, achieved_occupancy_pct=20.0,
                    limiter="registers", vendor="nvidia", family="attention", library=True, sol_bound="latency",
                    compute_pct=30.0, memory_pct=35.0, sol_pct=35.0, roof_source="speed of light")


def test_persistent_kernel_is_not_told_to_launch_more_blocks():
    # B200: 148 SMs; 148 blocks of an FMHA kernel, 4 fit per SM: 148 / (4 × 148) = 0.25 waves, by design
    v = decide(_latency_evidence(148, 0.25, "fmha_kernel_sm100"))
    assert v.verdict == "latency/occupancy-bound"
    steps = " ".join(v.next_steps)
    assert "sized to the GPU" in steps and "148 blocks = 1 per SM on its 148 SMs" in steps
    assert "of the 4 each can hold" in steps and "more blocks would add no work per SM, only resident warps" in steps
    assert "What they wait on decides the next step" in steps  # no per-block limit binds 1 of 4 blocks
    assert "Give the launch more blocks" not in steps and "too few blocks" not in steps
    # a grid of 100 blocks on the same GPU is short of the SMs: the "more blocks" advice stands
    steps = " ".join(decide(_latency_evidence(100, 100 / 592, "fmha_kernel_sm100")).next_steps)
    assert "sized to the GPU" not in steps and "blocks" in steps


def test_persistent_kernel_has_no_wave_finding(tmp_path):
    # H100 (132 SMs), 256 threads × 128 registers = 32,768 registers per block of 65,536 per SM: 2 blocks per SM;
    # a grid of 132 blocks is 0.5 waves — sized to the GPU, no "empty block slots" estimate or "more blocks" step
    def trace(grid: int) -> Path:
        ev = []
        for i in range(5):
            t = 1000.0 + 520.0 * i
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                       "dur": 5.0, "args": {"correlation": i + 1}})
            ev.append({"ph": "X", "cat": "kernel", "name": "void attn_persistent_kernel(Params)", "pid": 0, "tid": 7,
                       "ts": t + 10.0, "dur": 500.0,
                       "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [grid, 1, 1],
                                "block": [256, 1, 1], "registers per thread": 128, "shared memory": 0}})
        p = tmp_path / f"g{grid}.json"
        p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [
            {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
             "regsPerMultiprocessor": 65536, "maxThreadsPerMultiProcessor": 2048}], "traceEvents": ev}))
        return p

    src = gpulens.analyze([trace(132)]).sources[0]
    occ = src.results["occupancy"].table.iloc[0]
    assert int(occ["active_blocks_per_sm"]) == 2 and abs(float(occ["waves_per_sm"]) - 0.5) < 1e-9
    assert not [f for f in src.findings() if (f.key or "").endswith("/waves")]
    # 100 blocks (not a multiple of the SMs): the wave finding stays
    src = gpulens.analyze([trace(100)]).sources[0]
    assert [f for f in src.findings() if (f.key or "").endswith("/waves")]


# ---- 6. several GPUs: device-time sums are said to be sums, shares use summed spans ------------------------------

MULTI = KINETO / "multirank"


def _rank_spans_ns() -> list[float]:
    """Each rank file's GPU span (first → last GPU event), read with ``json`` [ns]."""
    spans = []
    for p in sorted(MULTI.glob("*.json.gz")):
        ev = [e for e in json.load(gzip.open(p))["traceEvents"] if e.get("ph") == "X"
              and str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset")]
        spans.append(1000 * (max(e["ts"] + e.get("dur", 0) for e in ev) - min(e["ts"] for e in ev)))
    return spans


def test_multi_gpu_shares_name_their_summed_denominator():
    from gpulens.reports._format import summary_items
    from gpulens.reports._html_pages import breakdown_page
    from gpulens.units import fmt_ns

    spans = _rank_spans_ns()
    assert len(spans) == 2 and sum(spans) > max(spans) * 1.9  # two ~1.23 s spans: 2.45 s of device time
    src = gpulens.analyze([MULTI], only=["breakdown", "ranks"]).sources[0]
    page = breakdown_page(src, 10)[0].takeaway
    # before: "Over 2 GPUs, 46.0 % of the span was busy", beside a 1.23 s wall span
    assert f"of their summed spans ({fmt_ns(sum(spans))}) was busy" in page
    exposed = next(f for f in src.findings() if f.key == "exposed-comm")
    per_gpu = src.results["breakdown"].table["exposed_comm_ns"].astype(int).tolist()
    assert exposed.time_at_stake_ns == sum(per_gpu) and "(summed over 2 GPUs)" in exposed.title
    from gpulens.reports._run_text import kernel_time_text
    assert "busy (union per GPU, summed over the GPUs)" in kernel_time_text(src.summary)
    # per-rank shares in a summary read as percentages, never a bare "0: 32.4"
    items = dict(summary_items(src.results["ranks"].summary))
    comm = src.results["ranks"].summary["comm_pct"]
    text = items["communication (of its rank's span)"]
    assert all(f"{r}: {float(v):.1f} %" in text for r, v in comm.items())


def test_a_child_showing_its_parents_figure_never_raises_it():
    from gpulens.analyzers import AnalysisResult, Finding
    from gpulens.analyzers._tree import cap_children

    # a 20 ns verdict ("info": under 5 % of the kernel time) and an ncu rule about the same kernel rated "warning" by
    # ncu's own estimate, shown capped at the verdict's 20 ns: one figure, the verdict's rating
    verdict = Finding("tiny: latency/occupancy-bound", "", "info", "latency/occupancy-bound", 20, kernel="tiny",
                      key="kernel:tiny")
    rule = Finding("ncu LaunchConfiguration on tiny", "", "warning", "ncu-rule", 20, kernel="tiny", key="ncu/L/tiny")
    other = Finding("ncu rule with its own smaller figure", "", "warning", "ncu-rule", 10, kernel="tiny")
    cap_children({"a": AnalysisResult(analyzer="a", findings=[verdict, rule])})
    assert verdict.severity == "info" and rule.severity == "info"
    cap_children({"a": AnalysisResult(analyzer="a", findings=[verdict, other])})
    assert verdict.severity == "warning"  # a distinct estimate below it still raises it (parent ≥ child)


def test_ncu_severities_follow_the_stakes(h200):
    # gemm_naive 88.40 µs and saxpy 11.62 µs and tiny 20 ns are all under 5 % of the 3.86 ms of kernel time (Σ
    # Duration of the CSV's 4 kernels): "info"; gemm_wmma's 603.93 µs is over it: "warning"
    total = sum(_ncu_metric(k, "Duration") * (1000 if k == "gemm_naive" else 1) for k in
                ("saxpy", "gemm_naive", "gemm_wmma", "tiny")) * 1000  # µs (ms for gemm_naive) → ns
    assert abs(total - 3_864_550) < 10
    sev = {f.kernel.split("(")[0]: f.severity for f in h200.sources[0].findings() if (f.key or "").startswith("kernel:")}
    assert sev == {"gemm_wmma": "warning", "gemm_naive": "info", "saxpy": "info", "tiny": "info"}
