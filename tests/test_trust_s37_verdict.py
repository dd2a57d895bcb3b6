"""Conclusions that contradicted the figures beside them (session 37). Expected values come from the input (the ncu
CSV's metric rows, the trace's events read with ``json``) or from a hand calculation written here.

1. One ranking rule for stakes of different certainty: a measured lower bound ranks as it is; an upper bound resting
   on an assumed GPU's peaks is named beside the measured lower bound of the same kernel, never ranked above a
   larger measured figure (ncu H200 CSV: gemm_wmma's 603.93 µs on assumed peaks ranked above gemm_naive's measured
   88.40 µs).
"""

from __future__ import annotations

import csv

import pytest

import gpulens
from gpulens.analyzers._verdict_facts import Evidence
from gpulens.analyzers.verdict_rules import decide
from tests.conftest import DATA

NCU_H200 = DATA / "nvidia" / "h200" / "h200_kernels_details.csv"


def _ncu_metric(kernel: str, metric: str) -> float:
    """One metric of the H200 details CSV, in the unit it is written in (thousands separators stripped)."""
    for r in csv.DictReader(NCU_H200.open(newline="")):
        if r["Kernel Name"].startswith(kernel) and r["Metric Name"] == metric:
            return float(r["Metric Value"].replace(",", ""))
    raise KeyError((kernel, metric))


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

    assert "at least; up to 603.93 µs" in markdown.render(h200)
    rows = h200.sources[0].results["verdicts"].table
    note = rows.loc[rows["name"].astype(str).str.startswith("gemm_wmma"), "stake_note"].iloc[0]
    assert note.startswith("at least; up to 603.93 µs")


def test_findings_under_a_lower_bound_are_capped_at_its_upper_bound(h200):
    # ncu LaunchConfiguration on gemm_wmma: "up to 50.0 % less time" of 625.54 µs = 312.77 µs, under the 603.93 µs
    # upper bound: not cut to the 22.52 µs lower bound
    t = h200.sources[0].results["ncu_rules"].table
    row = t[(t["rule"] == "LaunchConfiguration") & t["kernel"].astype(str).str.startswith("gemm_wmma")].iloc[0]
    assert abs(int(row["time_at_stake_ns"]) - 0.5 * _ncu_metric("gemm_wmma", "Duration") * 1e3) <= 1


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
    assert "an artefact of the capture" in root.action and "an artefact of the capture" in q.detail
    assert "--window 51000us:" in root.action  # the gap ends at 51,000 µs from the trace's first event (ts 0)
    assert "cross-stream dependencies" not in root.action


def test_a_gap_while_another_gpu_works_is_not_called_an_artefact(tmp_path):
    src = _queued_gaps(tmp_path, other_gpu=True)
    assert src.results["bottlenecks"].summary["largest_gap"]["queued"]["gpu_work_elsewhere"] is True
    root = next(f for f in src.findings() if f.key == "idle")
    assert "one gap holds 50.00 ms" in root.action and "artefact" not in root.action


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
    big = src.results["bottlenecks"].summary["largest_gap"]["queued"]
    assert abs(big["dur_ns"] - (gap[1] - gap[0]) * 1000) < 1000 and big["gpu_work_elsewhere"] is False
    root = next(f for f in src.findings() if f.key == "idle")
    assert "over 550 gaps; one gap holds 463.30 ms of it" in root.action
    assert "an artefact of the capture" in root.action
