"""One percent formatter for sentences, halves rounded up (s33 review: rocprof v1 gunrock MI300X — merge_path_kernel's
LDS-limited theoretical occupancy is 62.5 % in the occupancy table and read "62 %" in its verdict's evidence, Python's
round-half-to-even; 37.5 % read "38 %", the other way).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpulens.units import pct_words

SRC = Path(__file__).parents[1] / "src" / "gpulens"


@pytest.mark.parametrize("pct, text", [(62.5, "62.5 %"), (37.5, "37.5 %"), (12.5, "12.5 %"), (87.5, "87.5 %"),
                                       (0.25, "0.3 %"), (99.55, "99.6 %"), (62.4999, "62.5 %"), (46.3, "46.3 %"),
                                       (62.45, "62.5 %"), (46.04, "46.0 %")])
def test_halves_round_up(pct, text):
    assert pct_words(pct) == text


def test_no_sentence_in_the_analyzers_rounds_a_percentage_half_to_even():
    """The occupancy, critical-path, roofline, stall and coverage sentences format a percentage with pct_words."""
    files = ["_occ_findings.py", "critical_path.py", "roofline.py", "stalls.py", "_hot.py", "variation.py",
             "bottlenecks.py", "_window_findings.py", "verdicts.py"]
    left = [f"{f}: {line.strip()}" for f in files for line in (SRC / "analyzers" / f).read_text().splitlines()
            if re.search(r"\{[^{}]+:\.0f\} %", line) and "FULL_GRID_SHARE" not in line]
    assert not left


def test_gunrock_lds_occupancy_reads_alike_in_table_and_evidence():
    """The gunrock trace's merge_path_kernel: 256-work-item workgroups with 11.50 KiB of LDS each; 5 of a CU's 64 KiB
    fit, 5 × 4 wavefronts = 20 of the 32 wavefront slots: 62.5 %. The evidence reads it as the table does (s35)."""
    from gpulens.report import analyze

    d = Path(__file__).parent / "data" / "rocprof" / "v1_gunrock_mi300x"
    if not d.exists():
        pytest.skip("gunrock trace absent")
    src = analyze([d]).sources[0]
    occ = src.results["occupancy"].table
    row = occ[occ["name"].str.contains("merge_path")].iloc[0]
    assert row["theoretical_occupancy_pct"] == pytest.approx(100 * 20 / 32) and row["limiter"] == "shared_memory"
    vd = src.results["verdicts"].table
    ev = vd[vd["name"] == row["name"]].iloc[0]["evidence"]
    assert "occupancy 62.5 % theoretical" in ev and "63 %" not in ev and "62 %" not in ev
