"""An ncu rule's time at stake is one figure in its table row and its finding: ncu's estimate, capped at what the
kernel can give (its time less 2 µs per launch, and its verdict's time at stake, whose child the finding is).

The rules table showed 75.92 µs for IssueSlotUtilization (67.9 % of the 111.81 µs RTX 5090 GEMM) while the same rule's
finding, capped under its kernel's verdict, showed 51.99 µs. Expected values here come from the CSV's own columns
(Duration, Estimated Speedup, the SOL percentages), read with the csv module.
"""

from __future__ import annotations

import csv

import pandas as pd
import pytest

import gpulens
from gpulens.analyzers.ncu_rules import NcuRules
from gpulens.collectors import collect
from tests.conftest import DATA

NV = DATA / "nvidia"
GEMM = NV / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"
FLOOR_NS = 2_000  # each launch keeps 2 µs whatever the fix (gpulens.analyzers._stake.KERNEL_FLOOR_NS)


def rows_of(path) -> tuple[list[str], list[dict]]:
    with open(path, newline="") as fh:
        r = csv.DictReader(line for line in fh if line.startswith('"'))
        return list(r.fieldnames), list(r)


def write_variant(src, dst, edit) -> list[dict]:
    """Copy a details CSV with ``edit(row)`` applied to every row (the same quoting as ncu); returns the rows."""
    fields, rows = rows_of(src)
    for r in rows:
        edit(r)
    with open(dst, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, quoting=csv.QUOTE_ALL)
        w.writeheader()
        w.writerows(rows)
    return rows


def duration_ns(rows) -> int:
    r = next(r for r in rows if r["Section Name"] == "GPU Speed Of Light Throughput" and r["Metric Name"] == "Duration")
    assert r["Metric Unit"] == "us"
    return round(float(r["Metric Value"]) * 1000)


def speedup(rows, rule) -> float:
    return float(next(r for r in rows if r["Rule Name"] == rule)["Estimated Speedup"])


def same_figure_in_table_and_findings(src) -> dict[str, int]:
    """Every rule row with a figure: the finding keyed ``ncu/<rule>/<kernel>`` shows the same time at stake after
    the findings tree is arranged (children capped under their parent). Returns rule → figure."""
    t = src.results["ncu_rules"].table
    shown = {f.key: f.time_at_stake_ns for f in src.findings()}
    out = {}
    for row in t.itertuples():
        key = f"ncu/{row.rule}/{row.kernel}"
        if key in shown and not pd.isna(row.time_at_stake_ns):
            assert shown[key] == int(row.time_at_stake_ns), (row.rule, shown[key], row.time_at_stake_ns)
            out[row.rule] = int(row.time_at_stake_ns)
    return out


def test_real_gemm_table_and_finding_agree():
    _, rows = rows_of(GEMM)
    src = gpulens.analyze([GEMM]).sources[0]
    got = same_figure_in_table_and_findings(src)
    # TheoreticalOccupancy's global 67.9 % of 111.81 µs, below the verdict's 111.81 × (1 − 0.321): no cap
    assert got["TheoreticalOccupancy"] == round(duration_ns(rows) * speedup(rows, "TheoreticalOccupancy") / 100)
    # IssueSlotUtilization's 67.9 % is typed "local" in the CSV: no time at stake from it
    local = next(r for r in rows if r["Rule Name"] == "IssueSlotUtilization")
    assert local["Estimated Speedup Type"] == "local" and "IssueSlotUtilization" not in got


def test_a_rule_is_capped_at_its_kernels_verdict(tmp_path):
    """The GEMM with Memory Throughput 85 % (SOL): memory-bound, 111.81 µs × 0.15 = 16.77 µs at stake; ncu's 67.9 %
    (75.92 µs, TheoreticalOccupancy's global estimate) is more than the kernel has at stake, so both the table and the
    finding show 16.77 µs, with a note."""
    def edit(r):
        if r["Section Name"] == "GPU Speed Of Light Throughput" and r["Metric Name"] == "Memory Throughput":
            r["Metric Value"] = "85.00"

    p = tmp_path / "gemm_mem85.csv"
    rows = write_variant(GEMM, p, edit)
    src = gpulens.analyze([p]).sources[0]
    verdict = src.results["verdicts"].table.iloc[0]
    dur = duration_ns(rows)
    assert verdict["verdict"] == "memory-bound" and verdict["time_at_stake_ns"] == round(dur * (1 - 0.85))
    got = same_figure_in_table_and_findings(src)
    assert dur * speedup(rows, "TheoreticalOccupancy") / 100 > verdict["time_at_stake_ns"]
    assert got["TheoreticalOccupancy"] == verdict["time_at_stake_ns"]
    note = src.results["ncu_rules"].table.set_index("rule").loc["TheoreticalOccupancy", "stake_note"]
    assert "memory-bound verdict" in note


def test_a_rule_never_exceeds_its_kernels_time(tmp_path):
    """A 100 % estimate on the 10.34 µs flash kernel: at most its time less 2 µs (8.34 µs), also without verdicts."""
    fname = NV / "codegandee_rtx5090_ncu-v2_kernel_0013_details.csv"

    def edit(r):
        if r["Rule Name"]:
            r["Rule Type"], r["Estimated Speedup Type"], r["Estimated Speedup"] = "OPT", "global", "100"

    p = tmp_path / "flash_full.csv"
    rows = write_variant(fname, p, edit)
    assert any(r["Rule Name"] for r in rows)
    dur = duration_ns(rows)
    t = NcuRules().analyze(collect(p)).table
    assert (t["time_at_stake_ns"] == dur - FLOOR_NS).all()
    assert t["stake_note"].str.contains("less 2.00 µs").all()
    assert t["stake_note"].str.contains("even an empty kernel takes that much GPU time").all()
    src = gpulens.analyze([p]).sources[0]
    got = same_figure_in_table_and_findings(src)
    assert got and all(v <= dur - FLOOR_NS for v in got.values())


@pytest.mark.parametrize("fname", ["codegandee_rtx5090_ncu-v2_kernel_0010_details.csv",
                                   "codegandee_rtx5090_ncu-v2_kernel_0013_details.csv"])
def test_every_real_rule_figure_matches_its_finding(fname):
    same_figure_in_table_and_findings(gpulens.analyze([NV / fname]).sources[0])
