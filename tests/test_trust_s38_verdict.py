"""Session 38: conclusions that contradicted the figures beside them. One test (or two) per kind of fault; every
expected value is derived by hand from the trace or the CSV, never copied from gpulens's output.

1. Two readings of a run (verdict + secondary cause) with no order of work: the times at stake, largest first.
2. ncu's tail-effect estimate (the time a partial wave runs) shown as the time at stake beside gpulens's wave loss
   (what its empty block slots lose).
3. A kernel whose verdict is L1-bound drawn on a chart with no L1 roof, the chart saying nothing.
4. The console leaving out what the HTML and Markdown show (undetermined critical kernels; an outlier's others'
   median and ratio).
5. A gap at the capture's start whose queued work waited on nothing the trace records, deciding the run verdict.
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

import gpulens
from gpulens.units import fmt_ns
from tests.conftest import DATA

GPT2 = DATA / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
NCU = DATA / "nvidia" / "h200" / "h200_kernels_details.csv"


@pytest.fixture(scope="module")
def gpt2():
    if not GPT2.exists():
        pytest.skip("GPT-2 H200 trace absent")
    return gpulens.analyze([GPT2]).sources[0]


@pytest.fixture(scope="module")
def ncu():
    return gpulens.analyze([NCU]).sources[0]


def _ncu_value(kernel: str, metric: str) -> str:
    with open(NCU, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["Kernel Name"].startswith(kernel) and r["Metric Name"] == metric:
                return r["Metric Value"]
    raise KeyError(metric)


# ---- 1. the order of work beside two readings ----------------------------------------------------------------------

def _gpu_idle_ns(path: Path) -> int:
    """GPU span less the union of its kernels, copies and fills, from the trace's events (µs → ns)."""
    ev = [e for e in json.load(gzip.open(path))["traceEvents"] if e.get("ph") == "X"
          and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    iv = sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in ev)
    busy, (s, e) = 0.0, iv[0]
    for a, b in iv[1:]:
        if a > e:
            busy, s, e = busy + e - s, a, b
        else:
            e = max(e, b)
    busy += e - s
    span = max(b for _, b in iv) - iv[0][0]
    return int(round((span - busy) * 1000))


def test_gpt2_says_which_to_fix_first_with_the_times_in_order(gpt2):
    from gpulens.reports._answer import answer
    from gpulens.reports.console import render
    from gpulens.reports.markdown import render as render_markdown

    a = answer(gpt2)
    idle = _gpu_idle_ns(GPT2)  # 225.55 ms span less the events' union: 55.16 ms (the breakdown's idle row)
    assert fmt_ns(idle) == "55.16 ms"
    assert a.fix_first, "two readings (below-roofs, host-bound secondary) and no order of work"
    assert f"{fmt_ns(idle)} of GPU idle" in a.fix_first
    # the figures are in descending order: the first ms figure named is the largest
    import re

    figures = [float(x) for x in re.findall(r"([\d.]+) ms (?:in the|of GPU idle)", a.fix_first)]
    assert len(figures) == 2 and figures == sorted(figures, reverse=True)
    # the single finding to start with is the top finding the answer lists first
    assert a.fix_first.endswith(f"start with the largest single finding: GPU idle 24.5 % of its span ({fmt_ns(idle)}).")
    assert abs(a.findings[0].time_at_stake_ns - idle) < 100  # the trace's µs floats, to the ns
    # every reporter shows it, under one label
    assert f"At stake, largest first: {a.fix_first}" in " ".join(render(_report(gpt2), width=400).split())
    assert f"**At stake, largest first:** {a.fix_first}" in render_markdown(_report(gpt2))


def _report(src):
    from gpulens.report import Report

    return Report([src])


def test_critical_path_share_names_its_time_and_path(gpt2):
    cp = gpt2.results["critical_path"]
    t = cp.table
    cpu = int(t[t["class"] == "cpu_op"]["time_ns"].sum())
    path = int(t.drop_duplicates(["rank", "step"])["step_ns"].sum())  # the 3 steps: 226.13 ms
    assert fmt_ns(path) == "226.13 ms"
    title = cp.findings[0].title
    # s39: led by the host's share (the headline's one figure), the CPU ops named as its largest part
    assert f"of the step time (" in title and f" of {fmt_ns(path)}, summed over 3 steps, less its waits" in title
    assert title.endswith(f"CPU ops hold {100 * cpu / path:.1f} % of the step time ({fmt_ns(cpu)}), the largest "
                          "part")
    # the answer's critical-path line is over the same path: one denominator for the two host shares
    assert f"of the {fmt_ns(path)} path summed over 3 steps" in gpt2.results["verdicts"].summary["path_note"]


def test_one_reading_gives_no_order_line():
    """A run whose every figure at stake is one reading's (no secondary cause) gets no extra line."""
    from gpulens.analyzers._verdict_order import fix_first
    import pandas as pd

    t = pd.DataFrame({"verdict": ["memory-bound"], "time_at_stake_ns": [5_000]})
    assert fix_first(t, [], "memory-bound", None, None) is None
    assert fix_first(t, [object()], "memory-bound", ("memory-bound", 90.0), None) is None


# ---- 2. ncu's partial wave beside the wave loss --------------------------------------------------------------------

def test_ncu_tail_effect_is_told_apart_from_the_wave_loss(ncu):
    dur_ns = float(_ncu_value("gemm_wmma", "Duration")) * 1000  # 625.54 µs
    blocks_per_sm = int(_ncu_value("gemm_wmma", "Block Limit Warps"))  # 8 (64 warps / 8 warps per 256-thread block)
    waves = 2048 / (blocks_per_sm * 132)  # grid 2048 blocks, 132 SMs: 1.939
    loss = dur_ns * (1 - waves / 2)  # the last wave 93.9 % full: 64 of 1,056 slots idle for half the time
    assert abs(loss - 18_956) < 1
    t = ncu.results["ncu_rules"].table
    row = t[(t["rule"] == "LaunchConfiguration") & t["kernel"].astype(str).str.startswith("gemm_wmma")].iloc[0]
    assert abs(int(row["time_at_stake_ns"]) - loss) <= 1
    assert "partial wave runs" in row["stake_note"] and fmt_ns(0.5 * dur_ns) in row["stake_note"]
    f = next(f for f in ncu.findings() if f.key and f.key.startswith("ncu/LaunchConfiguration/gemm_wmma"))
    assert "a partial wave running up to 50.0 % of its time (ncu's tail-effect estimate" in f.title
    assert f"its empty block slots lose {fmt_ns(loss)} ({waves:.2f} waves" in f.title
    assert f.severity == "info"  # 18.96 of 625.54 µs: 3 %, under the 10 % a warning needs
    # the other LaunchConfiguration message (a 1-block grid on 132 SMs) is not a tail effect: ncu's figure stays
    tiny = next(f for f in ncu.findings() if f.key and f.key.startswith("ncu/LaunchConfiguration/tiny"))
    assert "partial wave" not in tiny.title and "less time (ncu's estimate)" in tiny.title


# ---- 3. the roofline chart and a cache-bound verdict ---------------------------------------------------------------

def test_l1_bound_kernel_is_named_on_the_roofline_chart(ncu, tmp_path):
    # the CSV: L1/TEX 99.74 %, L2 32.06 %, DRAM 0.64 % of peak for gemm_wmma — L1 the busiest, 20+ points above DRAM
    l1, l2, dram = (float(_ncu_value("gemm_wmma", m)) for m in
                    ("L1/TEX Cache Throughput", "L2 Cache Throughput", "DRAM Throughput"))
    assert l1 > l2 and l1 >= dram + 20
    rf = ncu.results["roofline"].table
    row = rf[rf["name"].astype(str).str.startswith("gemm_wmma")].iloc[0]
    assert row["bound"] == "memory" and row["bound_unit"] == "L1/TEX"
    # the device spec has no L1 bandwidth: the chart draws no L1 line and says so beside the point
    assert not any(k.startswith("l1") for k in (getattr(ncu.device, "figures", None) or {}))
    from gpulens.reports.html import render as render_html

    html = render_html(_report(ncu))
    assert "gemm_wmma is memory-bound on L1/TEX" in html and "a level this chart does not draw" in html


# ---- 4. the console shows what the other reporters show ------------------------------------------------------------

def test_console_lists_undetermined_critical_kernels(gpt2):
    from gpulens.reports.console import render

    vd = gpt2.results["verdicts"].table
    und = vd[vd["verdict"] == "undetermined"]
    # multi_tensor_apply and CatArrayBatchedCopy (no counters, no FLOP model; cunn_SoftMaxBackward was one of them
    # until session 40 modelled softmax backward) — outside the console's top 10 rows, so the count line says them
    assert len(und)
    text = " ".join(render(_report(gpt2), width=400).split())
    assert f"{len(und)} of {len(vd)} critical kernels (" in text and "could not be classified: " in text


def _outlier_trace(tmp_path: Path) -> Path:
    """Six launches of one kernel, same grid: five of 10 µs and one of 80 µs (µs)."""
    ev = []
    for i, d in enumerate((10, 10, 10, 80, 10, 10)):
        t = 1000 + 200 * i
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t, "dur": 5,
                "args": {"correlation": i + 1}},
               {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 10, "dur": d,
                "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [64, 1, 1], "block": [128, 1, 1]}}]
    p = tmp_path / "outlier.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_console_outlier_row_keeps_what_it_is_compared_with(tmp_path):
    from gpulens.reports.console import render

    src = gpulens.analyze([_outlier_trace(tmp_path)]).sources[0]
    out = src.results["kernel_outliers"].table
    assert len(out) == 1 and int(out["dur_ns"].iloc[0]) == 80_000
    text = " ".join(render(_report(src), width=250).split())
    block = text[text.index("Kernel outliers"):]
    # the others' median of the 80 µs launch: the five other launches, all 10 µs; the ratio 80 / 10 = 8
    assert "others' median" in block and "vs median" in block
    assert "80.00 µs │ 10.00 µs │ 8 │" in block


# ---- 5. a gap at the capture's start that waited on nothing the trace records --------------------------------------

def _edge_trace(tmp_path: Path, other_gpu: bool) -> Path:
    """(µs) One 4 µs kernel at 5 (launched at 0), then twenty 100 µs kernels launched at 10–29 (each call 0.5 µs,
    all returned by 29.5: the work is queued) that start at 100 009 + 110 i, while the host sits in a synchronous
    cudaMemcpy from 12 to 100 005. ``other_gpu``: device 1 runs a 100 µs kernel at 50 000, inside the gap."""
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 2,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "first", "pid": 0, "tid": 7, "ts": 5, "dur": 4,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 1, "tid": 1, "ts": 30, "dur": 99_975,
           "args": {"correlation": 999}}]
    for i in range(20):
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10 + i,
                "dur": 0.5, "args": {"correlation": 10 + i}},
               {"ph": "X", "cat": "kernel", "name": "step", "pid": 0, "tid": 7, "ts": 100_009 + 110 * i, "dur": 100,
                "args": {"device": 0, "stream": 7, "correlation": 10 + i}}]
    if other_gpu:
        ev.append({"ph": "X", "cat": "kernel", "name": "elsewhere", "pid": 0, "tid": 8, "ts": 50_000, "dur": 100,
                   "args": {"device": 1, "stream": 8}})
    p = tmp_path / f"edge_{other_gpu}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_capture_edge_wait_on_nothing_recorded_is_left_out_of_the_verdict(tmp_path):
    src = gpulens.analyze([_edge_trace(tmp_path, other_gpu=False)]).sources[0]
    bn = src.results["bottlenecks"].summary
    # the gap 9 → 100 009 µs: 100 000 µs; the span 5 → 100 009 + 110·19 + 100 = 102 199 µs; the steady state the
    # span less the gap: 2 194 µs, of which the twenty kernels' 2 000 µs and the first's 4 µs are busy
    (gap,) = bn["boundary_gaps"]
    assert gap["dur_ns"] == 100_000_000 and gap["cause"] == "queued" and gap["gpu_work_elsewhere"] is False
    assert bn["steady_span_ns"] == 2_194_000
    assert src.results["verdicts"].summary["run_verdict"] != "dependency-bound"
    from gpulens.reports._answer import answer

    sentence = answer(src).sentence
    assert "outside the 100.00 ms warm-up/one-off idle gap the verdict leaves out" in sentence
    note = next(f for f in src.findings() if f.key == "idle/boundary")
    assert "the work after it was already queued" in note.detail and "outside the capture" in note.detail


def test_wait_on_work_another_gpu_ran_stays_counted(tmp_path):
    src = gpulens.analyze([_edge_trace(tmp_path, other_gpu=True)]).sources[0]
    bn = src.results["bottlenecks"].summary
    # device 1 ran during the gap: the queued work may have waited on it — a dependency the trace records, counted
    assert not [g for g in bn["boundary_gaps"] if g["device_id"] == 0]
    assert bn["idle_queued_ns"] >= 100_000_000
