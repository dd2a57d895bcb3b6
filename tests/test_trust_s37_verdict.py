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
