"""A roofline row whose bound rests on the measured speed of light shows the share it rests on beside it
(``bound_pct``): the ncu RTX 5090 CUTLASS GEMM (kernel_0005) read "below-roofs | measured speed of light | 53.5 %" —
below both roofs at 53.5 %, over the roofline's own 50 % line — because the % shown was the roofline's placement on
an assumed GPU's bf16 peak, which the counters overrule. The speed of light calls a kernel latency-bound when every
unit is under 60 % of its peak (ncu's SOLBottleneck rule, gpulens.analyzers._stake.SOL_BOUND_PCT); its limiting unit
here is SM throughput, 32.10 % — the figure the verdict's time at stake uses too.

Expected figures are read from the CSV with the csv module; the shared file is skipped when absent.
"""

from __future__ import annotations

import csv
import math

import pytest

from gpulens import analyze
from gpulens.reports import markdown
from tests.conftest import SHARED

K5 = SHARED / "ncu" / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"


def _sol_units(path) -> dict[str, float]:
    rows = list(csv.DictReader(open(path, newline="")))
    return {r["Metric Name"]: float(r["Metric Value"].replace(",", "")) for r in rows
            if r["Section Name"] == "GPU Speed Of Light Throughput" and r["Metric Unit"] == "%"}


@pytest.mark.skipif(not K5.exists(), reason="developer corpus not present")
def test_measured_bound_shows_the_share_it_rests_on():
    units = _sol_units(K5)  # SM 32.10, memory 27.74, DRAM 8.87, L1 16.74, L2 27.74
    limiting = max(units.values())
    assert limiting == units["Compute (SM) Throughput"] == 32.10
    s = analyze([K5]).sources[0]
    t = s.results["roofline"].table
    assert len(t) == 1
    row = t.iloc[0]
    assert row["bound"] == "latency/occupancy" and row["bound_basis"] == "measured speed of light"
    assert math.isclose(float(row["bound_pct"]), limiting, abs_tol=0.01)
    assert float(row["bound_pct"]) < 60.0  # below-roofs by the speed of light's line
    # the time at stake rests on the same share: 111.81 µs × (1 − 0.321)
    duration_ns = 111.81e3
    assert abs(int(row["time_at_stake_ns"]) - duration_ns * (1 - limiting / 100)) < 10
    md = markdown.render(analyze([K5]))
    line = next(ln for ln in md.splitlines() if "| latency/occupancy |" in ln and "measured speed of light" in ln)
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[cells.index("measured speed of light") + 1] == "32.1 %"
    assert "bound's % of peak" in md


def test_roofline_basis_bound_pct_is_roof_pct():
    """Without counters the bound rests on the roofline: bound_pct is roof_pct on every row with a bound, and a
    below-roofs row is under the roofline's 50 % line (TraceLens H100 BERT-small, in tests/data)."""
    from tests.conftest import KINETO

    tab = analyze([KINETO / "tracelens_h100_bert-small.json.gz"]).sources[0].results["roofline"].table
    has = tab["bound"].notna()
    assert has.any() and set(tab.loc[has, "bound_basis"]) <= {"roofline", "roofline on assumed peaks"}
    assert (tab.loc[has, "bound_pct"].astype(float) == tab.loc[has, "roof_pct"].astype(float)).all()
    below = tab[tab["bound"].isin(["below-roofs", "latency/occupancy"])]
    assert (below["bound_pct"].astype(float) < 50.0).all()
