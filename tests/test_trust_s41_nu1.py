"""Session 41, a new user's findings on the roofline and verdict figures (kinds of fault, each checked by hand):

* a figure known from bytes and duration was hidden without a FLOP figure: the ncu H200 CSV's saxpy (183.14 MB in
  56.99 µs: 3.21 TB/s, ncu's own Memory Throughput) read "GB/s unknown"; a run with no FLOP counter at all lost its
  whole roofline table;
* the roofline row of a kernel the verdict classified from its measured speed of light read "unknown" in its bound
  columns when the roofline had no placement of its own;
* a time at stake measured against one unit's peak did not name that unit (saxpy: 11.62 µs from L2 at 79.6 %, while
  the reports show memory 66.8 %), and one capped by the launch floor did not say so;
* the wave finding named "its distance to the roof" as its cap when the launch floor set it (the demo's CUTLASS GEMM:
  98.72 µs − 17 × 2 µs = 64.72 µs);
* a memory bound at a cache level read plain "memory" in the roofline table while the verdict names L1;
* a fourth distinct stake note reused the third's mark.

Expected values come from the CSV (read with the csv module) and the formulas written here.
"""

from __future__ import annotations

import csv
from types import SimpleNamespace

import pytest

import gpulens
from tests.conftest import DATA, shared_trace

H200_CSV = DATA / "nvidia" / "h200" / "h200_kernels_details.csv"


def _metric(kernel: str, name: str, section: str = "") -> float:
    """One metric of the H200 details CSV (the first of that name, or the one of ``section``), in its own unit (the
    Metric Value column, thousands separators dropped)."""
    with open(H200_CSV, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["Kernel Name"].startswith(kernel + "(") and r["Metric Name"] == name \
                    and r["Section Name"].startswith(section):
                return float(r["Metric Value"].replace(",", ""))
    raise KeyError((kernel, name))


@pytest.fixture(scope="module")
def h200():
    return gpulens.analyze([H200_CSV])


def _row(table, kernel):
    return table[table["name"].astype(str).str.startswith(kernel + "(")].iloc[0]


def test_bandwidth_is_shown_without_a_flop_figure(h200):
    rf = h200.sources[0].results["roofline"].table
    sx = _row(rf, "saxpy")
    nbytes = (_metric("saxpy", "dram__bytes_read.sum") + _metric("saxpy", "dram__bytes_write.sum")) * 1e6  # Mbyte
    dur_s = _metric("saxpy", "Duration") * 1e-6                                                            # us
    assert nbytes == pytest.approx(183.14e6)
    assert sx["bytes"] == pytest.approx(nbytes)
    assert sx["bytes_per_s"] == pytest.approx(nbytes / dur_s, rel=1e-6)                  # 3.2136 TB/s
    # ncu's own figures of the same run: Memory Throughput 3.21 Tbyte/s, DRAM Throughput 66.83 % of 4.8 TB/s
    assert _metric("saxpy", "Memory Throughput", "Memory Workload Analysis") == 3.21                      # Tbyte/s
    assert sx["bytes_per_s"] == pytest.approx(3.21e12, rel=0.005)
    # (ncu's % is over its elapsed cycles, a window a little longer than the duration: 66.83 beside 66.95)
    assert 100 * sx["bytes_per_s"] / 4.8e12 == pytest.approx(_metric("saxpy", "DRAM Throughput"), abs=0.2)
    # no FLOP figure: AI, side and % of roofline stay unknown (never guessed)
    assert sx["flops"] != sx["flops"] and sx["arithmetic_intensity"] != sx["arithmetic_intensity"]
    assert sx["roof_pct"] != sx["roof_pct"] and sx["ridge_side"] is None
    # gemm_naive too: (33.60 + 12.87) MB in 3.18 ms
    gn = _row(rf, "gemm_naive")
    assert gn["bytes_per_s"] == pytest.approx((33.60e6 + 12.87e6) / 3.18e-3, rel=1e-6)


def test_the_verdicts_measured_bound_fills_a_row_without_a_placement(h200):
    rf = h200.sources[0].results["roofline"].table
    sx = _row(rf, "saxpy")
    l2 = _metric("saxpy", "L2 Cache Throughput")                      # 79.61 %, the busiest unit
    assert l2 > _metric("saxpy", "Memory Throughput") and l2 > _metric("saxpy", "Compute (SM) Throughput")
    assert sx["bound"] == "memory" and sx["bound_basis"] == "measured speed of light"
    assert sx["bound_pct"] == pytest.approx(l2) and sx["bound_pct_unit"] == "L2"
    # its time at stake is the verdict's: 56.99 µs × (1 − 0.7961)
    assert sx["time_at_stake_ns"] == round(56_990 * (1 - l2 / 100))
    v = _row(h200.sources[0].results["verdicts"].table, "saxpy")
    assert v["time_at_stake_ns"] == sx["time_at_stake_ns"] == 11_620


def test_a_measured_stake_names_its_unit_everywhere(h200):
    from gpulens.reports import console, markdown

    words = "from L2 at 79.6 % of its peak (measured speed of light)"
    v = _row(h200.sources[0].results["verdicts"].table, "saxpy")
    assert v["stake_note"] == words
    f = next(f for f in h200.sources[0].findings() if f.key == "kernel:" + v["name"])
    # s45: the title proves the class (the measured figures), the stake's unit is said in the detail and note
    assert f.title.endswith("memory-bound — L2 79.6 %, compute 35.3 % of peak (measured)")
    assert f"time at stake {words}" in f.detail and f.time_at_stake_ns == 11_620
    md = markdown.render(h200)
    assert words in md
    text = " ".join(console.render(h200, width=250).split())
    assert "79.6 (L2)" in text and words in text
    # the lower bound of an L1-led kernel names its unit too: ncu's Memory Throughput 97.22 % for gemm_naive
    gn = _row(h200.sources[0].results["verdicts"].table, "gemm_naive")
    # (s42: named by the level it is, L1 over elapsed cycles 97.15 % — within a point — as the bound column names it)
    assert gn["stake_note"].startswith("at least its distance to the L1 peak (at 97.2 % of it, measured speed of light); up to")
    assert gn["time_at_stake_ns"] == round(3_180_000 * (1 - _metric("gemm_naive", "Memory Throughput") / 100))


def test_a_floor_capped_stake_says_so(h200):
    # tiny: 2.02 µs, one launch, memory 0.4 %: 2.02 × (1 − 0.004) = 2.01 µs exceeds 2.02 − 2.00 = 0.02 µs
    v = _row(h200.sources[0].results["verdicts"].table, "tiny")
    assert v["time_at_stake_ns"] == 2_020 - 2_000
    f = next(f for f in h200.sources[0].findings() if f.key == "kernel:" + v["name"])
    assert f.title.endswith("latency/occupancy-bound — compute 0.0 %, memory 0.4 % of peak (measured)")
    # s45: the cap in words (what it is and why) in the stake note and the detail, not the title
    cap = "capped at its time less 2.00 µs for each launch: even an empty kernel takes that much GPU time"
    assert v["stake_note"] == cap and f"time at stake {cap}" in f.detail
    # not "from memory at 0.4 % of its peak": the floor, not that unit, set the figure
    assert not isinstance(v["stake_note"], str) or "0.4 %" not in v["stake_note"]


def test_sol_limit_names_the_busiest_unit():
    from gpulens.analyzers._stake import sol_attained_pct, sol_limit

    row = {"compute_pct": 35.33, "memory_pct": 66.83, "dram_pct": 66.83, "l1_run_pct": 18.92, "l2_pct": 79.61}
    assert sol_limit(row) == (79.61, "L2") and sol_attained_pct(row) == 79.61
    # a tie goes to the first, the profiler's memory throughput, named by the level it is (s42: DRAM 66.83 is it)
    assert sol_limit({**row, "l2_pct": 10.0}) == (66.83, "DRAM")
    assert sol_limit({"compute_pct": 97.0, "tensor_pct": 12.0, "dram_pct": 3.0}) == (97.0, "compute")
    assert sol_limit({"tensor_pct": 88.0, "dram_pct": 3.0}) == (88.0, "tensor pipe")
    # one side not counted and the other low: how far the other roof is, is unknown
    assert sol_limit({"compute_pct": 30.0}) == (None, None)


def test_wave_cap_names_the_launch_floor_when_it_set_the_figure():
    from gpulens.analyzers._occ_findings import _wave_stake

    # the demo's CUTLASS GEMM: 17 launches, 98.718 µs, 87.9 % of it with slots empty; its roofline stake is itself
    # floored at 98,718 − 17 × 2,000 = 64,718 ns — the floor, not the roof, is the cap
    r = SimpleNamespace(time_ns=98_718, calls=17)
    loss = 0.879 * 98_718
    stake, caps = _wave_stake(loss, r, 64_718)
    assert stake == 98_718 - 17 * 2_000
    assert len(caps) == 1 and "less 2.00 µs for each launch" in caps[0] and "roof" not in caps[0]
    # a roof distance under the floor is the cap named
    stake, caps = _wave_stake(loss, r, 50_000)
    assert stake == 50_000 and len(caps) == 1 and "distance to the roof" in caps[0]


def test_settled_wave_cap_names_the_floor():
    from gpulens.analyzers._occ_findings import WAVE_PREMISE, settle_wave_premise
    from gpulens.analyzers.base import Finding

    f = Finding("Grid of k fills 12.1 % of one wave: up to 87.9 % of its time at stake from empty block slots", "d",
                time_at_stake_ns=86_773, kernel="k", key="occupancy/k/waves", premise=WAVE_PREMISE)
    # memory-bound with its verdict's stake at the floor: 98,718 − 17 × 2,000
    settle_wave_premise([f], "k", "memory-bound", 64_718, 1e6, 98_718, 17)
    assert f.time_at_stake_ns == 64_718
    assert ("Capped at its time less 2.00 µs for each launch (64.72 µs): even an empty kernel takes that much GPU "
            "time.") in f.detail and "memory roof" not in f.detail


def test_bandwidth_above_the_datasheet_is_unknown():
    from gpulens.analyzers.roofline import _bandwidth_only

    # 10 GB in 1 ms = 10 TB/s on a 4.8 TB/s GPU: impossible, the figure is unknown and a note says why
    got = _bandwidth_only(10e9, 1e6, 4.8e12, 4.8e12, True)
    assert got["bytes_per_s"] != got["bytes_per_s"] and "208.3 %" in got["roof_note"]
    got = _bandwidth_only(1e9, 1e6, 4.8e12, 4.8e12, True)
    assert got["bytes_per_s"] == pytest.approx(1e12) and got["roof_note"] is None


def test_a_cache_bound_names_its_level_in_every_table(h200):
    from gpulens.reports import markdown
    from gpulens.reports._format import bound_words

    assert bound_words("memory", "L1/TEX") == "memory (L1)" and bound_words("memory", None) == "memory"
    assert bound_words("compute", "L1/TEX") == "compute"
    rf = h200.sources[0].results["roofline"].table
    # gemm_naive: L1/TEX 97.81 % (active), DRAM 0.30 %: its memory bound is L1's, as its verdict's step says
    assert _metric("gemm_naive", "DRAM Throughput") < 1 and _row(rf, "gemm_naive")["bound_unit"] == "L1/TEX"
    md = markdown.render(h200)
    line = next(x for x in md.splitlines() if x.startswith("| gemm\\_naive |") and "speed of light" in x)
    assert "| memory (L1) |" in line
    # the analysis result keeps its vocabulary (the chart's shapes, the JSON): "memory"
    assert _row(rf, "gemm_naive")["bound"] == "memory"


def test_every_distinct_stake_note_gets_its_own_mark():
    from gpulens.reports._format import stake_notes

    rows = [{"stake_note": n} for n in ("a", "b", "c", "d", "e", "a", None)]
    marks = stake_notes(rows)
    assert len({marks[i][0] for i in range(5)}) == 5 and marks[5][0] == marks[0][0] and 6 not in marks


def test_a_run_without_flop_counters_keeps_its_bandwidth():
    path = shared_trace("ncu/olajide_rtx5070_metrics_gemm_naive.csv")
    rf = gpulens.analyze([path]).sources[0].results["roofline"]
    # dram__bytes_op_read.sum 54,207,744 B + dram__bytes_op_write.sum 26,601,216 B in gpu__time_duration 9,589,248 ns
    assert not rf.skipped
    row = rf.table.iloc[0]
    assert row["bytes_per_s"] == pytest.approx((54_207_744 + 26_601_216) / 9_589_248e-9, rel=1e-6)
    assert row["flops"] != row["flops"]
