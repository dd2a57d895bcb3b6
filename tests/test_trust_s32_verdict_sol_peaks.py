"""Each speed-of-light figure says which peak it is a share of. On rocprof-compute vcopy MI200 the Speed-of-light
table read "memory SOL 52.7 %" beside "dram measured % 62.2 %" and the roofline's "62.2 % of roof": the first is of
the rated HBM peak (sysinfo.csv hbm_bw 1,638.4 GB/s), the others of the measured peak (roofline.csv HBMBw
1,388.93 GB/s). The columns now read "… SOL (% of rated peak)" and "DRAM SOL (% of measured peak)" in every report.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import gpulens
from gpulens.reports import console, html, markdown

DATA = Path(__file__).parent / "data" / "omniperf" / "vcopy_MI200"


def test_sol_columns_name_their_peak():
    if not DATA.exists():
        pytest.skip("vcopy_MI200 fixture absent")
    rated = float(next(csv.DictReader(open(DATA / "sysinfo.csv")))["hbm_bw"])  # GB/s
    measured = float(next(csv.DictReader(open(DATA / "roofline.csv")))["HBMBw"])  # GB/s, device 0
    rep = gpulens.analyze([DATA])
    row = rep.sources[0].results["speed_of_light"].table.iloc[0]
    # the two DRAM figures are one bandwidth over two peaks: their ratio is the peaks' ratio
    assert abs(float(row["dram_pct"]) / float(row["dram_measured_pct"]) - measured / rated) < 1e-6
    assert f"{float(row['dram_pct']):.1f}" == "52.7" and f"{float(row['dram_measured_pct']):.1f}" == "62.2"
    page, md = html.render(rep), markdown.render(rep)
    for text in (page, md):
        assert "memory SOL (% of rated peak)" in text and "DRAM SOL (% of rated peak)" in text
        assert "DRAM SOL (% of measured peak)" in text
        assert "dram measured %" not in text
    con = console.render(rep, width=400)  # narrow columns wrap their headers: the peak's name is there
    assert "of rated peak)" in con  # (the console shows the compute and memory figures only)
