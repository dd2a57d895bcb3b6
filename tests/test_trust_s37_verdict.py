"""Conclusions that contradicted the figures beside them (session 37). Expected values come from the input (the ncu
CSV's metric rows, the trace's events read with ``json``) or from a hand calculation written here.

1. One ranking rule for stakes of different certainty: a measured lower bound ranks as it is; an upper bound resting
   on an assumed GPU's peaks is named beside the measured lower bound of the same kernel, never ranked above a
   larger measured figure (ncu H200 CSV: gemm_wmma's 603.93 µs on assumed peaks ranked above gemm_naive's measured
   88.40 µs).
"""

from __future__ import annotations

import pytest

import gpulens
from gpulens.analyzers._verdict_facts import Evidence
from gpulens.analyzers.verdict_rules import decide
from tests.test_trust_s36_verdict import NCU_H200, _ncu_metric  # one reader of the CSV's metric rows


@pytest.fixture(scope="module")
def h200():
    return gpulens.analyze([NCU_H200])


# ---- 1. one ranking rule ------------------------------------------------------------------------------------------

def test_l1_led_kernel_on_assumed_peaks_ranks_by_its_measured_distance():
    # by hand: 1 ms, L1 at 96 % (DRAM 1 %): 40 µs measured to the saturated L1 peak; the roofline on an assumed GPU
    # puts it at 4 % of attainable: 960 µs — a range, the lower end measured
    e = Evidence("k", "kernel", calls=1, time_ns=1_000_000, sol_bound="memory", sol_pct=96.0, memory_pct=96.0,
                 compute_pct=10.0, l1_pct=96.0, dram_pct=1.0, bound="compute", roof_pct=4.0, roof_stake_ns=960_000,
                 roof_source="roofline", roof_assumed="NVIDIA H200 SXM")
    v = decide(e)
    assert v.verdict == "memory-bound"
    assert v.time_at_stake_ns == 40_000 and v.stake_upper_ns == 960_000 and v.stake_at_least
    # the same kernel on a GPU the input names: the roofline distance is the figure (session 35's rule stands)
    named = decide(Evidence(**{**e.__dict__, "roof_assumed": None}))
    assert named.time_at_stake_ns == 960_000 and named.stake_upper_ns is None


def test_ncu_h200_ranking_follows_the_measured_figures(h200):
    from gpulens.reports._answer import answer

    top = answer(h200.sources[0]).findings
    # gemm_naive: Duration 3.18 ms × (1 − Memory Throughput 97.22 %); gemm_wmma: 625.54 µs × (1 − 96.40 %), the
    # larger of its Compute (SM) 17.01 %, Memory 96.40 % and DRAM 0.64 % Throughput
    naive = _ncu_metric("gemm_naive", "Duration") * 1e6 * (1 - _ncu_metric("gemm_naive", "Memory Throughput") / 100)
    wmma_t = _ncu_metric("gemm_wmma", "Duration") * 1e3
    wmma = wmma_t * (1 - max(_ncu_metric("gemm_wmma", m) for m in (
        "Memory Throughput", "Compute (SM) Throughput", "DRAM Throughput")) / 100)
    assert [f.kernel.split("(")[0] for f in top[:2]] == ["gemm_naive", "gemm_wmma"]
    assert abs(top[0].time_at_stake_ns - naive) <= 1 and abs(top[1].time_at_stake_ns - wmma) <= 1
    # the upper bound: its 2·2048³ bf16 tensor FLOPs (sm__ops_path_tensor_src_bf16_dst_fp32.sum) at the H200's
    # achievable 795 TFLOP/s take 21.61 µs of its 625.54 µs: 603.93 µs
    flops = _ncu_metric("gemm_wmma", "sm__ops_path_tensor_src_bf16_dst_fp32.sum")
    assert flops == 2 * 2048 ** 3
    upper = wmma_t - flops / 795e12 * 1e9
    assert abs(top[1].stake_upper_ns - upper) <= 2
    assert "up to 603.93 µs" in top[1].title and "assumed NVIDIA H200 SXM" in top[1].title
    assert top[0].title.endswith("unknown without its FLOP count")  # no FLOP counter for the fp32 GEMM


def test_every_report_shows_the_range(h200):
    from gpulens.reports import markdown

    # the lower bound names the unit it is the distance to (session 41): ncu's Memory Throughput, 96.40 %, which is
    # L1's (96.39 % over elapsed cycles; s42: named by its level, as the roofline's bound column names it)
    least = "at least its distance to the L1 peak (at 96.4 % of it, measured speed of light); up to 603.93 µs"
    assert least in markdown.render(h200)
    rows = h200.sources[0].results["verdicts"].table
    note = rows.loc[rows["name"].astype(str).str.startswith("gemm_wmma"), "stake_note"].iloc[0]
    assert note.startswith(least)


def test_findings_under_a_lower_bound_are_capped_at_its_upper_bound(h200):
    # ncu LaunchConfiguration on gemm_wmma: 50.0 % of 625.54 µs = 312.77 µs is under the 603.93 µs upper bound, so
    # the verdict's lower bound does not cut it; s38: that 50 % is the time its partial wave *runs* (ncu's tail-effect
    # text), and what the partial wave's empty block slots lose is the figure at stake — 2048 blocks of 256 threads,
    # 8 blocks per SM (64 warps / 8 warps per block) × 132 SMs = 1056 per wave: W = 1.939, 625.54 µs × (1 − W / 2)
    t = h200.sources[0].results["ncu_rules"].table
    row = t[(t["rule"] == "LaunchConfiguration") & t["kernel"].astype(str).str.startswith("gemm_wmma")].iloc[0]
    dur = _ncu_metric("gemm_wmma", "Duration") * 1e3
    assert abs(int(row["time_at_stake_ns"]) - dur * (1 - (2048 / 1056) / 2)) <= 1


# ---- 2. a sum that hides its one big part ------------------------------------------------------------------------

def _queued_gaps(tmp_path, other_gpu: bool):
    """Six kernels on one stream, all launched in the first 12 µs (their calls returned before any gap began: every
    gap is work already queued) at 100, 300, 500, 700, 900 and 51,000 µs, 100 µs each: gaps of 4 × 100 µs and one
    of 50 ms (900 µs after the first kernel's start), the host in a synchronous cudaMemcpy across it.
    ``other_gpu``: a kernel of another device runs inside the 50 ms gap."""
    import json

    ev = []
    for i, s in enumerate((100, 300, 500, 700, 900, 51_000)):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2.0 * i,
                   "dur": 1.0, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": float(s), "dur": 100.0,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 1, "tid": 1, "ts": 20.0,
               "dur": 51_090.0, "args": {"correlation": 99}})
    ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7,
               "ts": 51_100.0, "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": 99}})
    if other_gpu:
        ev.append({"ph": "X", "cat": "kernel", "name": "elsewhere", "pid": 1, "tid": 8, "ts": 20_000.0, "dur": 100.0,
                   "args": {"device": 1, "stream": 8}})
    p = tmp_path / f"queued_{other_gpu}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return gpulens.analyze([p]).sources[0]


def test_one_gap_holding_most_of_a_cause_is_named(tmp_path):
    src = _queued_gaps(tmp_path, other_gpu=False)
    bn = src.results["bottlenecks"].summary
    # by hand: 4 × 100 µs + 50 ms = 50.40 ms queued over 5 gaps; the largest 50 ms, 900 µs after the first event
    assert bn["idle_queued_ns"] == 50_400_000 and bn["gaps_queued"] == 5
    big = bn["largest_gap"]["queued"]
    assert big["dur_ns"] == 50_000_000 and big["offset_ns"] == 900_000 and big["next_name"] == "k5"
    q = next(f for f in src.findings() if f.key == "idle/queued")
    assert "over 5 gaps; one gap holds 50.00 ms of it, 900.00 µs after the first GPU event" in q.title
    root = next(f for f in src.findings() if f.key == "idle")
    assert "over 5 gaps; one gap holds 50.00 ms" in root.action
    # nothing recorded ran anywhere during it: the wait is on work outside the trace, said so, with the window
    assert "a dependency outside the capture" in root.action and "a dependency outside the capture" in q.detail
    assert "--window 51000us:" in root.action  # the gap ends at 51,000 µs from the trace's first event (ts 0)
    assert "cross-stream dependencies" not in root.action


def test_a_gap_while_another_gpu_works_is_not_called_a_wait_outside_the_capture(tmp_path):
    src = _queued_gaps(tmp_path, other_gpu=True)
    assert src.results["bottlenecks"].summary["largest_gap"]["queued"]["gpu_work_elsewhere"] is True
    root = next(f for f in src.findings() if f.key == "idle")
    assert "one gap holds 50.00 ms" in root.action and "outside the capture" not in root.action


def test_sglang_names_its_one_gap_and_what_ran_during_it():
    import gzip
    import json

    from tests.conftest import KINETO

    path = KINETO / "tracelens_mi300x_sglang_qwen3_decode.json.gz"
    ev = [e for e in json.load(gzip.open(path))["traceEvents"] if e.get("ph") == "X"]
    gpu = sorted((e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")), key=lambda e: e["ts"])
    # the largest gap between GPU events, read from the trace (µs): 463.30 ms, and no GPU event inside it
    end, gap = gpu[0]["ts"] + gpu[0]["dur"], (0.0, 0.0)
    for e in gpu[1:]:
        if e["ts"] - end > gap[1] - gap[0]:
            gap = (end, e["ts"])
        end = max(end, e["ts"] + e["dur"])
    assert 463_290 < gap[1] - gap[0] < 463_300
    src = gpulens.analyze([path]).sources[0]
    # s38: that gap is the capture's edge (left out of the verdict); its note says what ran during it: nothing
    (big,) = src.results["bottlenecks"].summary["boundary_gaps"]
    assert abs(big["dur_ns"] - (gap[1] - gap[0]) * 1000) < 1000 and big["gpu_work_elsewhere"] is False
    note = next(f for f in src.findings() if f.key == "idle/boundary")
    assert "no GPU work the trace records ran during the 463.30 ms gap" in note.detail
    assert "a dependency outside the capture" in note.detail


# ---- 3. the gate and the diff between two different workloads -----------------------------------------------------

GATE_ENV = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
            "runtime": "12040", "torch": None, "collectors": ["kineto"], "tool_version": "0.1.0"}


def _gate_sides(base_kernels: dict[str, float], cand_kernels: dict[str, float], n: int = 5):
    """A baseline and a candidate of ``n`` identical runs each: kernel name → time [ns], plus a memcpy byte count
    that differs (an exact-count metric, as two programs' copies do)."""
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet

    def metrics(kernels, nbytes):
        tot = sum(kernels.values())
        out = {"memcpy_bytes": Metric("memcpy_bytes", "count", "bytes", [float(nbytes)] * n)}
        for k, t in kernels.items():
            out["kernel:" + k] = Metric("kernel:" + k, "timing", "ns", [t * (1 + 0.001 * i) for i in range(n)],
                                        share=[t / tot] * n, calls=[1] * n)
        return out

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(n)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", GATE_ENV, runs,
                    metrics(base_kernels, 768))
    cand = RunSet(runs, [], GATE_ENV, "h100-x1", 1, metrics(cand_kernels, 1))
    return base, cand


def test_overlap_by_hand():
    from gpulens.gate.workload import kernel_overlap

    # base 100 µs: gemm 60 + softmax 30 + add 10; cand 200 µs: attn 150 + rope 40 + add 10 — in common only add:
    # base 10 %, cand 5 % of the time (the overlap: 5 %), 1 of 3 names: under one half on both counts
    ov = kernel_overlap({"gemm": 60e3, "softmax": 30e3, "add": 10e3}, {"attn": 150e3, "rope": 40e3, "add": 10e3})
    assert ov["common"] == 1 and abs(ov["base_share"] - 0.1) < 1e-12 and abs(ov["cand_share"] - 0.05) < 1e-12
    assert abs(ov["overlap"] - 0.05) < 1e-12 and ov["name_share"] == pytest.approx(1 / 3)
    assert ov["same_workload"] is False
    assert kernel_overlap({"a": 1.0}, {}) is None  # nothing to judge by


def test_gate_between_two_workloads_says_so_once_at_the_top():
    from gpulens.gate import GateConfig, run_gate
    from gpulens.gate.result import INCOMPARABLE, exit_code
    from gpulens.reports import gate_console, gate_markdown

    base, cand = _gate_sides({"gpt2_gemm": 6e5, "gpt2_softmax": 4e5}, {"decode_attn": 5e5, "decode_gemm": 5e5})
    res = run_gate(base, cand, GateConfig())
    assert res.verdict == INCOMPARABLE and res.workload["overlap"] == 0
    assert res.reason.startswith("not comparable: the runs are not the same workload: 0 % of the baseline's")
    # the byte count and the vanished kernels are no longer called REGRESSED / AMBIGUOUS: no row gates
    assert {m.verdict for m in res.metrics} == {INCOMPARABLE}
    assert exit_code(res) == 0 and exit_code(res, require_baseline=True) == 3  # the documented codes
    text = gate_console.render(res, width=200)
    assert text.count("not the same workload") == 1
    assert gate_markdown.render(res).count("not the same workload") == 1
    # the same gate, allowed: compared, with the overlap said in a note
    res = run_gate(base, cand, GateConfig(), allow_other_workload=True)
    assert res.verdict != INCOMPARABLE and res.notes[0].startswith("allowed: the runs are not the same workload")


def test_gate_of_one_workload_with_a_renamed_kernel_is_compared():
    from gpulens.gate import GateConfig, run_gate
    from gpulens.gate.result import INCOMPARABLE

    # one GEMM renamed (a new tile): 30 % of the time; 70 % stays in kernels both run — the same workload
    base, cand = _gate_sides({"gemm_128x128": 3e5, "softmax": 4e5, "layernorm": 3e5},
                             {"gemm_256x128": 3e5, "softmax": 4e5, "layernorm": 3e5})
    res = run_gate(base, cand, GateConfig())
    assert res.workload["overlap"] == pytest.approx(0.7) and res.verdict != INCOMPARABLE
    assert not any("workload" in m for m in res.mismatches + res.notes)


def test_diff_of_two_workloads_warns_first(tmp_path):
    import json

    from gpulens.diff import compare, load_side

    def trace(name, kernels):
        ev = [{"ph": "X", "cat": "kernel", "name": k, "pid": 0, "tid": 7, "ts": 100.0 * i, "dur": 50.0,
               "args": {"device": 0, "stream": 7}} for i, k in enumerate(kernels)]
        p = tmp_path / name
        p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
        return p

    r = compare(load_side(trace("a.json", ["gpt2_gemm", "gpt2_softmax", "gelu"])),
                load_side(trace("b.json", ["decode_attn", "decode_gemm", "rope", "gelu"])))
    # by hand: in common gelu, 50 of the base's 150 µs and 50 of the candidate's 200 µs, 1 of 3 names: 25 % overlap
    assert r.summary["workload"]["overlap"] == pytest.approx(0.25)
    assert r.warnings[0].startswith("the runs are not the same workload: 33.3 % of the base's kernel time and "
                                    "25.0 % of the candidate's")


# ---- 4. one word for one thing in the diff; the cpu_ops mean says what it is the mean of --------------------------

def test_diff_rows_by_category_say_they_hold_the_unmatched_events_only(tmp_path):
    import json

    from gpulens.diff import compare, load_side

    def trace(name, kernels):
        ev = [{"ph": "X", "cat": "kernel", "name": k, "pid": 0, "tid": 7, "ts": 100.0 * i, "dur": d,
               "args": {"device": 0, "stream": 7}} for i, (k, d) in enumerate(kernels)]
        p = tmp_path / name
        p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
        return p

    # by hand: the GEMM "sgemm_main" runs on both sides (10 → 12 µs, matched by name); "gemm_tile_a" (20 µs) becomes
    # "gemm_tile_b" (25 µs): left unmatched by name, paired by work category: that row is +5 µs, the categories
    # table's GEMM row +7 µs (both GEMMs) — two figures, two labels
    r = compare(load_side(trace("a.json", [("sgemm_main", 10.0), ("gemm_tile_a", 20.0)])),
                load_side(trace("b.json", [("sgemm_main", 12.0), ("gemm_tile_b", 25.0)])))
    k = r.tables["kernels"].set_index("kernel")
    assert k.loc["unmatched GEMM kernels (by category)", "match"] == "category"
    assert k.loc["unmatched GEMM kernels (by category)", "delta_ns"] == 5_000
    cat = r.tables["categories"].set_index("category")
    assert cat.loc["GEMM", "delta_ns"] == 7_000
    assert r.summary["matched_by_category"] == 1
    assert not any("class" in str(x) for x in r.tables["kernels"]["match"])


def test_cpu_ops_mean_is_labelled_per_outer_call(tmp_path):
    import json

    from gpulens.reports import markdown

    # aten::linear 100 µs holding a nested aten::linear 40 µs (a recursive call), then one more of 60 µs: 3 calls,
    # 1 nested; recorded time of the outer calls 160 µs → the mean per outer call is 80 µs, not 200 / 3 µs
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0.0, "dur": 100.0},
          {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10.0, "dur": 40.0},
          {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 200.0, "dur": 60.0},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 300.0, "dur": 5.0,
           "args": {"device": 0, "stream": 7}}]
    p = tmp_path / "ops.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    rep = gpulens.analyze([p])
    t = rep.sources[0].results["cpu_ops"].table.set_index("name")
    assert t.loc["aten::linear", "calls"] == 3 and t.loc["aten::linear", "mean_ns"] == 80_000
    assert "mean per outer call" in markdown.render(rep)


def test_a_renamed_kernel_holding_most_of_the_time_is_still_the_same_workload():
    from gpulens.gate.workload import kernel_overlap

    # by hand: the GEMM (80 % of the time) renamed, 3 of 4 names kept: 20 % of the time in common, 75 % of the
    # names — one program changed, not two programs
    ov = kernel_overlap({"gemm_a": 80.0, "x": 10.0, "y": 5.0, "z": 5.0}, {"gemm_b": 80.0, "x": 10.0, "y": 5.0, "z": 5.0})
    assert ov["overlap"] == pytest.approx(0.2) and ov["name_share"] == 0.75 and ov["same_workload"]


def test_calls_over_many_name_the_one_that_holds_most():
    from gpulens.analyzers._idle_blocking import blocking_text
    from gpulens.analyzers._idle_findings import _calls_text

    # by hand: 16 calls with 734.88 ms in the gaps, one of them 732.66 ms (99.7 %): named; 19 calls, the longest
    # 0.5 s of 1.94 s (26 %): not; 2 calls: one always holds half, not named
    rows = [{"name": "cudaStreamCreateWithFlags", "overlap_ns": 734_880_000, "calls": 16, "longest_ns": 732_660_000},
            {"name": "cudaMalloc", "overlap_ns": 1_940_000_000, "calls": 19, "longest_ns": 500_000_000},
            {"name": "cudaFree", "overlap_ns": 3_000_000, "calls": 2, "longest_ns": 2_900_000}]
    assert _calls_text(rows) == ("cudaStreamCreateWithFlags 734.88 ms in 16 calls (one call: 732.66 ms), "
                                 "cudaMalloc 1.94 s in 19 calls, cudaFree 3.00 ms in 2 calls")
    sync = [{"name": "cudaDeviceSynchronize", "overlap_ns": 10_000_000, "calls": 5, "longest_ns": 9_000_000,
             "copy": False, "op": None}]
    assert blocking_text(sync) == "cudaDeviceSynchronize (a synchronisation) 10.00 ms in 5 calls (one call: 9.00 ms)"
