"""``nsys stats`` kernel summaries whose duration statistics are impossible (fuzzer): ``Max (ns)`` = ``inf`` was
shown as "inf s", ``1e30`` as "1000000000000000000000.00 s" beside a 16 ms total (max above total, min above max).
A row's Avg/Med/Min/Max/StdDev now read unknown when any is not finite or they contradict each other or the row's
Total Time (min ≤ med ≤ max, min ≤ avg ≤ max, max ≤ total), with a warning counting the rows; its Instances and
Total Time are kept. And no time, rate or size formats as "inf".

Input: the one row below, from a real ``cuda_gpu_kern_sum`` (tests/data/cases/T08's layout), one cell changed.
"""

from __future__ import annotations

import math

import pytest

from gpulens.collectors import collect
from gpulens.units import fmt_bytes, fmt_ns, fmt_si

HEAD = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
ROW = ["24.7", "16214877", "2035", "7968.0", "8000.0", "5792", "20000", "2339.3", "void gemm_kernel(float*)"]
#     total 16,214,877 ns over 2,035 instances: mean 7,968.0 ns (16214877 / 2035 = 7967.99)


def _csv(tmp_path, col, value):
    row = list(ROW)
    row[HEAD.strip().split(",").index(col)] = value
    p = tmp_path / "k.csv"
    p.write_text(HEAD + ",".join(row) + "\n")
    return collect(p)


@pytest.mark.parametrize("col, value", [("Max (ns)", "inf"), ("Max (ns)", "1e400"), ("Max (ns)", "1e30"),
                                        ("Min (ns)", "1e30"), ("Avg (ns)", "30000"), ("Med (ns)", "1")])
def test_impossible_statistics_read_unknown(tmp_path, col, value):
    tl = _csv(tmp_path, col, value)
    row = tl.tables["kernel_summary"].iloc[0]
    assert (row["calls"], row["total_ns"]) == (2035, 16_214_877)  # kept
    assert all(math.isnan(row[c]) for c in ("mean_ns", "median_ns", "min_ns", "max_ns", "stddev_ns"))
    assert any("1 kernel row with impossible duration statistics" in w for w in tl.meta.warnings)


def test_consistent_statistics_are_kept(tmp_path):
    tl = _csv(tmp_path, "Max (ns)", "20000")
    row = tl.tables["kernel_summary"].iloc[0]
    assert (row["min_ns"], row["median_ns"], row["mean_ns"], row["max_ns"]) == (5792, 8000, 7968, 20000)
    assert not any("impossible" in w for w in tl.meta.warnings)


def test_infinity_formats_as_unknown():
    for v in (math.inf, -math.inf):
        assert fmt_ns(v) == "unknown" and fmt_si(v, "FLOP/s") == "unknown" and fmt_bytes(v) == "unknown"
    assert fmt_ns(1.5e9) == "1.50 s" and fmt_si(2e12, "B/s") == "2.00 TB/s"
