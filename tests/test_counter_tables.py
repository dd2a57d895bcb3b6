"""Chart-ready stall table (guidance, top reasons) and ncu rule findings attached to their kernel (issue 15.4, 15.6)."""

from __future__ import annotations

import csv

import pytest

import gpulens
from tests.conftest import DATA, shared_trace
from tests.conftest import DATA as _DATA


def _nv(name):
    """A committed copy under tests/data/nvidia when there is one, else the developer corpus (skips if absent)."""
    p = _DATA / "nvidia" / name
    return p if p.exists() else shared_trace(f"ncu/{name}")


def test_stall_table_names_top_reasons_and_guidance():
    src = gpulens.analyze([DATA / "stalls" / "ncu_details_stalls.csv"]).sources[0]
    t = src.results["stalls"].table.set_index("name")
    row = t.loc["gather_rows(float const*, long const*, float*, int)"]
    # PC sampling over two launches: long_scoreboard 700 + 300 of 1200 stall samples = 83.3 % (the tables' digits), the only reason of the
    # memory_latency class present
    assert row["dominant_class"] == "memory_latency"
    assert row["top_reasons"] == "long_scoreboard 83.3 %"
    assert row["guidance"].startswith("Warps wait for memory results")
    assert src.results["stalls"].columns["guidance"].endswith("[text]")


def test_ncu_rule_findings_are_attached_to_their_kernel_with_the_speedup():
    path = _nv("codegandee_rtx5090_ncu-v2_kernel_0005_details.csv")
    with open(path, newline="", encoding="utf-8-sig") as f:
        rules = {r["Rule Name"]: r for r in csv.DictReader(f) if r.get("Rule Name")}
        f.seek(0)
        dur_us = next(float(r["Metric Value"]) for r in csv.DictReader(f) if r["Metric Name"] == "Duration")
    theo = rules["TheoreticalOccupancy"]
    src = gpulens.analyze([path]).sources[0]
    f = next(x for x in src.results["ncu_rules"].findings if "TheoreticalOccupancy" in x.title)
    assert f.kernel == theo["Kernel Name"] and f.key == f"ncu/TheoreticalOccupancy/{theo['Kernel Name']}"
    # ncu's estimated speedup is a cut in duration: "% less time", not "% faster" (which reads as a rate)
    assert f"up to {float(theo['Estimated Speedup']):.1f} % less time (ncu's estimate)" in f.title
    assert "faster" not in f.title and "Kernel2<cutlass" in f.title
    # ncu's estimate: 67.9 % of the 111.81 µs launch
    assert f.time_at_stake_ns == pytest.approx(float(theo["Estimated Speedup"]) / 100 * dur_us * 1e3, abs=1)
    sol = next(x for x in src.results["ncu_rules"].findings if "SOLBottleneck" in x.title)
    assert sol.action == "Look at Scheduler Statistics and Warp State Statistics for potential reasons."
