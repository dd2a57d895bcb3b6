"""With rocprof-compute's measured peaks in place of the datasheet's, ``datasheet_roof_pct`` is of the datasheet.

Kind: vcopy on an MI200 (rocprof-compute: roofline.csv HBMBw 1,388.93 GB/s; sysinfo hbm_bw 1,638.4 GB/s) read
"62 % of the memory roof" beside "memory SOL 52.7 %" with no word on the two denominators, and its
``datasheet_roof_pct`` was the measured share again (62.2 %). Expected values: the kernel's attained bandwidth over
each peak, both peaks read from the workload's own files (SOURCES.md facts).
"""

from __future__ import annotations

import pytest

import gpulens
from gpulens.reports._format import roofline_heading
from tests.conftest import SHARED

VCOPY = SHARED / "omniperf" / "vcopy_MI200"


def test_measured_and_datasheet_shares():
    if not VCOPY.exists():
        pytest.skip("shared trace omniperf/vcopy_MI200 not present")
    src = gpulens.analyze([VCOPY]).sources[0]
    rf = src.results["roofline"]
    row = rf.table.iloc[0]
    bps = float(row["bytes_per_s"])
    assert row["roof_pct"] == pytest.approx(100 * bps / 1388.9302e9, rel=1e-6)      # roofline.csv HBMBw
    assert row["datasheet_roof_pct"] == pytest.approx(100 * bps / 1638.4e9, rel=1e-6)  # sysinfo hbm_bw
    # one figure: the speed of light's memory share is the datasheet share
    sol = src.results["speed_of_light"].table.iloc[0]
    assert float(sol["memory_pct"]) == pytest.approx(float(row["datasheet_roof_pct"]), abs=0.05)
    assert "memory_bandwidth" in rf.summary["measured_roofs"]
    assert "memory, vector fp32 roofs measured (rocprof-compute roofline.csv)" in roofline_heading(rf.summary) \
        or "memory roof measured (rocprof-compute roofline.csv)" in roofline_heading(rf.summary)
