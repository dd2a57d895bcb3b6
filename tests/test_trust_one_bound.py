"""One bound and one time at stake per kernel in every report (session 10, "trust"): on the RTX 5090 ncu CSVs the
verdict follows the measured speed of light (CUTLASS GEMM kernel_0005: latency/occupancy-bound, 75.92 µs at stake)
while the roofline row on the *assumed* GPU's peaks still said "compute" with 52 µs at stake. The row now carries
the verdict's bound and stake, says what the bound rests on, and its finding adds what the counters measured.

Expected values come from each CSV's own columns (tests.test_ncu_sol_verdict.sol_of / expected: ncu's
SOLBottleneck reading and the limiting unit's distance to its peak), not from gpulens."""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.reports import console, json_report, markdown
from tests.test_ncu_sol_verdict import FILES, NV, expected, sol_of

#: the roofline's word for each speed-of-light verdict (neither roof: below both)
ROOF_WORD = {"latency/occupancy-bound": "latency/occupancy", "memory-bound": "memory", "compute-bound": "compute"}


@pytest.mark.parametrize("fname", FILES)
def test_roofline_row_says_the_measured_bound_and_stake(fname):
    verdict, stake = expected(sol_of(NV / fname))
    src = gpulens.analyze([NV / fname]).sources[0]
    roof = src.results["roofline"]
    if roof.skipped:  # no FLOP counters in this CSV: no roofline row to contradict the verdict
        return
    row = roof.table.iloc[0]
    assert row["bound"] == ROOF_WORD[verdict] and row["bound_basis"] == "measured speed of light"
    assert int(row["time_at_stake_ns"]) == stake
    for f in roof.findings:
        if f.key == f"roofline:{row['name']}":
            assert f.time_at_stake_ns == stake


def test_cutlass_gemm_roofline_agrees_in_every_report(tmp_path):
    # kernel_0005: SM 32.10 %, memory 27.74 % (both below 60 %): latency/occupancy-bound, 111.81 µs × (1 − 0.321)
    # = 75.92 µs at stake; on the assumed RTX 5090's bf16 roof it sits at 53.5 % ("compute" before)
    fname = "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"
    verdict, stake = expected(sol_of(NV / fname))
    assert (verdict, stake) == ("latency/occupancy-bound", 75_919)
    rep = gpulens.analyze([NV / fname])
    src = rep.sources[0]
    f = next(x for x in src.results["roofline"].findings if (x.key or "").startswith("roofline:"))
    assert "assumed" in f.title and "measured speed of light: latency/occupancy-bound" in f.title
    assert f.category == verdict
    doc = json.loads(json_report.render(rep))
    rows = doc["sources"][0]["analyses"]["roofline"]["table"]
    assert [r["bound"] for r in rows] == ["latency/occupancy"] and rows[0]["time_at_stake_ns"] == stake
    md = markdown.render(rep)
    roof_md = md[md.index("### Roofline"):].split("\n\n")[1]
    assert "latency/occupancy" in roof_md and "measured speed of light" in roof_md
    # the bound cell is the verdict's (the "compute" beside 32.1 % names the unit of that share, session 41)
    head, _, row = (ln.split(" | ") for ln in roof_md.splitlines()[:3])
    assert row[head.index("bound")] == "latency/occupancy" and row[head.index("unit of that % (its peak)")] == "compute"
    text = console.render(rep, width=200)
    line = next(ln for ln in text.splitlines() if "cutlass" in ln and "counters" in ln)
    assert "latency/occupancy" in line and "compute " not in line.replace("measured", "")
