"""A kernel's grid is given under two definitions, each labelled: its verdict evidence gives the time-weighted mean
grid over its launches, the occupancy row the grid of its configuration with the most time. On the gunrock MI300X
kernel page "27260 blocks on 304 CUs (grids differ: mean weighted by launch time)" stood beside "grid blocks 18,937"
with nothing saying why they differ. The evidence now says what the mean is over and names the grid with the most
time; the occupancy column reads "grid blocks (grid with the most time)" in every report.

Expected values are hand calculations on the trace below.
"""

from __future__ import annotations

import gpulens
from gpulens.reports import html, markdown
from tests.test_trust_s25_grid_weighted import _trace as grid_trace


def _trace(tmp_path):
    # (blocks, µs): ten 1-block launches of 2 µs, one 1,000-block launch of 1,000 µs, one 3,000-block of 600 µs
    return grid_trace(tmp_path, [(1, 2)] * 10 + [(1000, 1000), (3000, 600)])


def test_mean_grid_and_main_grid_are_each_labelled(tmp_path):
    rep = gpulens.analyze([_trace(tmp_path)])
    src = rep.sources[0]
    # weighted mean: (10 × 1 × 2 + 1,000 × 1,000 + 3,000 × 600) / (10 × 2 + 1,000 + 600) = 2,800,020 / 1,620
    mean = (10 * 1 * 2 + 1000 * 1000 + 3000 * 600) / (10 * 2 + 1000 + 600)
    assert f"{mean:.0f}" == "1728"
    occ = next(r for r in src.results["occupancy"].table.to_dict("records") if r["name"] == "my_kernel")
    assert occ["grid_blocks"] == 1000 and occ["grid_sizes"] == 3  # the 1,000 µs grid holds the most time
    row = next(r for r in src.results["verdicts"].table.to_dict("records") if r["name"] == "my_kernel")
    assert ("1728 blocks on 108 SMs (time-weighted mean of its 3 grid sizes; the grid with the most time has 1000)"
            in row["evidence"]), row["evidence"]
    page = html.render(rep)
    assert "grid blocks (grid with the most time)" in page
    assert ">grid blocks<" not in page  # the occupancy column is never the bare, undefined "grid blocks"
    md = markdown.render(rep)
    if "grid blocks" in md:
        assert "grid blocks (grid with the most time)" in md
