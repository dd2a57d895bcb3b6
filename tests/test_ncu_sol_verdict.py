"""A kernel's verdict follows ncu's measured speed of light, never a roofline on assumed peaks; an assumed or unknown
GPU is said so in every report.

The RTX 5090 ncu details CSVs name no GPU (``Device`` is the ordinal 0, ``CC`` 12.0): the RTX 5090 is *assumed*. Its
CUTLASS GEMM (kernel_0005) measured Compute (SM) Throughput 32.10 % and Memory Throughput 27.74 % — ncu's own
SOLBottleneck rule: below 60 % on both, latency issues — yet the roofline on the assumed GPU's bf16 peak (53.5 %)
made it "compute-bound" and told it to try FP8. Expected values are computed here from each CSV's own columns
(csv module, the lines starting with a quote), not from gpulens.
"""

from __future__ import annotations

import csv
import json

import pytest

import gpulens
from gpulens.analyzers.verdict_rules import Evidence, decide
from gpulens.reports import console, html, json_report, markdown
from tests.conftest import DATA
from tests.synth import write_kineto

NV = DATA / "nvidia"
FILES = ["codegandee_rtx5090_ncu-v2_kernel_0005_details.csv", "codegandee_rtx5090_ncu-v2_kernel_0010_details.csv",
         "codegandee_rtx5090_ncu-v2_kernel_0013_details.csv"]
#: ncu SOLBottleneck: "below 60.0% of peak typically indicate latency issues"
LATENCY_BELOW = 60.0
#: every launch keeps 2 µs of GPU time whatever the fix (gpulens.analyzers._stake.KERNEL_FLOOR_NS, torchao)
FLOOR_NS = 2_000


def sol_of(path) -> dict:
    """The SOL section's figures of a one-launch details CSV, read with the csv module: Duration [ns], and the
    Compute (SM), Memory and DRAM throughput [%] as ncu printed them."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(line for line in fh if line.startswith('"')))
    sol = {r["Metric Name"]: r for r in rows if r["Section Name"] == "GPU Speed Of Light Throughput"}
    dur = sol["Duration"]
    assert dur["Metric Unit"] == "us"
    return {"dur_ns": round(float(dur["Metric Value"]) * 1000), "device": rows[0]["Device"],
            **{k: float(sol[m]["Metric Value"]) for k, m in (("sm", "Compute (SM) Throughput"),
                                                           ("mem", "Memory Throughput"),
                                                           ("dram", "DRAM Throughput"))}}


def expected(f: dict) -> tuple[str, int]:
    """(verdict, time at stake [ns]) as ncu's speed of light reads: both sides below 60 % → latency; the memory
    side at or above the compute side and high → memory-bound. At stake: the limiting unit's distance to its peak,
    duration × (1 − max % / 100), each launch keeping 2 µs."""
    top = max(f["sm"], f["mem"], f["dram"])
    if top < LATENCY_BELOW:
        verdict = "latency/occupancy-bound"
    else:
        assert max(f["mem"], f["dram"]) >= f["sm"], "an SM-throughput-high kernel needs pipe counters: not here"
        verdict = "memory-bound"
    stake = min(f["dur_ns"] * (1 - top / 100), f["dur_ns"] - FLOOR_NS)
    return verdict, round(stake)


@pytest.mark.parametrize("fname", FILES)
def test_verdict_follows_the_measured_speed_of_light(fname):
    f = sol_of(NV / fname)
    assert f["device"] == "0"  # the ordinal: no GPU name in the file
    rep = gpulens.analyze([NV / fname])
    src = rep.sources[0]
    verdict, stake = expected(f)
    row = src.results["verdicts"].table.iloc[0]
    assert row["verdict"] == verdict
    assert row["time_at_stake_ns"] == pytest.approx(stake, abs=1)
    # the run verdict (the kernel class holding the most kernel time) says the same
    assert src.results["verdicts"].summary["run_verdict"] == verdict
    # the speed-of-light table's own time at stake is the same figure: one definition
    sol = src.results["speed_of_light"].table.iloc[0]
    assert sol["time_at_stake_ns"] == pytest.approx(stake, abs=1)


def test_cutlass_gemm_is_latency_bound_and_its_assumed_roofline_is_flagged():
    """kernel_0005: 32.10 % SM / 27.74 % memory; 111.81 µs × (1 − 0.321) = 75.92 µs at stake — the FP8 advice and
    the 52 µs of the assumed roof (53.5 %) are gone; the roofline placement stays in the evidence, flagged."""
    rep = gpulens.analyze([NV / FILES[0]])
    src = rep.sources[0]
    row = src.results["verdicts"].table.iloc[0]
    assert row["verdict"] == "latency/occupancy-bound"
    assert row["time_at_stake_ns"] == round(111_810 * (1 - 0.3210))
    assert "assumed NVIDIA GeForce RTX 5090" in row["evidence"]
    assert "the measured speed of light decides" in row["evidence"]
    assert not any("FP8" in step for step in row["next_steps"])  # the compute-bound precision advice is gone
    roof = src.results["roofline"]
    assert roof.summary["device_assumed"] is True
    assert all("assumed" in fi.title for fi in roof.findings if fi.key and fi.key.startswith("roofline:"))
    # the verdict finding (root) carries the same figure as the table
    top = next(fi for fi in src.findings() if fi.key == f"kernel:{row['name']}")
    assert top.time_at_stake_ns == row["time_at_stake_ns"] and "latency" in top.title


@pytest.mark.parametrize("assumed", ["NVIDIA GeForce RTX 5090", None])
def test_a_roofline_never_overrides_the_measured_speed_of_light(assumed):
    """Rule 3: measured SOL decides whether the GPU was assumed or named; the roofline's disagreeing placement is
    shown and the stake is the SOL distance: 100 µs × (1 − 0.32) = 68 µs, not the roof's 100 × (1 − 0.535)."""
    e = Evidence("gemm", "kernel", 1, 100_000, family="gemm", library=True, sol_bound="latency", compute_pct=32.0,
                 memory_pct=28.0, sol_pct=32.0, roof_pct=53.5, bound="compute", ridge_side="compute",
                 precision="bf16", compute_roof="matrix.bf16", roof_stake_ns=46_500, roof_assumed=assumed)
    v = decide(e)
    assert v.verdict == "latency/occupancy-bound" and v.time_at_stake_ns == 68_000
    assert "the measured speed of light decides" in v.evidence
    assert ("assumed" in v.evidence) == (assumed is not None)
    # a high measured memory side names the bound, whatever the roofline says (below both roofs here)
    e2 = Evidence("copy", "kernel", 1, 100_000, sol_bound="memory", compute_pct=12.0, memory_pct=94.0, sol_pct=94.0,
                  roof_pct=30.0, bound="below-roofs", ridge_side="memory", roof_assumed=assumed)
    v2 = decide(e2)
    assert v2.verdict == "memory-bound" and v2.time_at_stake_ns == 6_000


def test_a_busy_unit_is_never_latency_bound_by_a_roofline():
    """SM throughput 85 % (any SM unit: no bound of its own without pipe counters) beside a roofline at 30 % of an
    assumed GPU's roof: the roofline would say latency-bound; a unit at 85 % of its peak says it is not."""
    e = Evidence("k", "kernel", 1, 100_000, sol_bound=None, compute_pct=85.0, memory_pct=20.0, sol_pct=85.0,
                 sol_missing="FLOP or pipe counters", roof_pct=30.0, bound="below-roofs", ridge_side="compute",
                 roof_assumed="NVIDIA GeForce RTX 5090")
    v = decide(e)
    assert v.verdict == "undetermined" and v.time_at_stake_ns is None
    assert "85.0 % of its peak" in v.evidence and "FLOP or pipe counters" in v.next_steps[0]
    e.sol_pct, e.compute_pct = 40.0, 40.0  # no unit busy: the roofline's reading stands
    assert decide(e).verdict == "latency/occupancy-bound"


def test_an_assumed_gpu_is_said_so_in_every_report(tmp_path):
    rep = gpulens.analyze([NV / FILES[0]])
    doc = json.loads(json_report.render(rep))["sources"][0]
    assert doc["device_spec"] == "NVIDIA GeForce RTX 5090" and doc["device_spec_assumed"] is True
    assert "an assumed NVIDIA GeForce RTX 5090" in doc["device_text"]
    # the other GPU of compute capability 12.0 is named as an alternative, not as a memory "variant"
    assert "also possible: NVIDIA GeForce RTX 5070" in doc["device_text"] and "variant" not in doc["device_text"]
    for text in (console.render(rep, width=400), markdown.render(rep), html.render(rep)):
        assert "assumed NVIDIA GeForce RTX 5090" in text


def test_an_unknown_gpu_is_said_so_in_every_report(tmp_path):
    write_kineto(tmp_path / "t.json", 20, 2, name_len=20, device="Synthetic GPU")
    rep = gpulens.analyze([tmp_path / "t.json"])
    doc = json.loads(json_report.render(rep))["sources"][0]
    assert doc["device_spec"] is None and doc["device_spec_assumed"] is False
    assert "no hardware spec identified" in doc["device_text"]
    for text in (console.render(rep, width=400), markdown.render(rep), html.render(rep)):
        assert "no hardware spec identified" in text
