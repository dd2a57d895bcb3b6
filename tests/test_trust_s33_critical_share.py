"""The performance-critical set's share of kernel time reads the same in the key figures as in the verdict sentence
and the tables: the rocprof v1 aiter gfx950 run showed "2 kernels cover 91 % of kernel time" beside "90.5 %" — one
figure, two roundings. Expected: the two hottest kernels' summed durations over all kernels', from the CSV itself."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import gpulens
from gpulens.reports import markdown

RUN = Path(__file__).parent / "data" / "rocprof" / "v1_aiter_gfx950"


def test_critical_share_one_reading():
    per = defaultdict(int)
    with open(RUN / "results.csv", newline="") as f:
        for r in csv.DictReader(f):
            per[r["KernelName"]] += int(r["EndNs"]) - int(r["BeginNs"])
    top2 = sorted(per.values(), reverse=True)[:2]
    share = 100 * sum(top2) / sum(per.values())
    want = f"{share:.1f} %"
    assert want == "90.5 %"  # the hand figure this test is about (one decimal, not rounded to 91)
    rep = gpulens.analyze([RUN])
    hs = rep.sources[0].results["hotspots"].summary
    assert hs["critical_count"] == 2
    md = markdown.render(rep)
    assert f"2 kernels cover {want} of kernel time" in md
    assert "cover 91 % of kernel time" not in md
