"""A kernel whose roofline bound comes from ncu's measured speed of light (its SM and memory throughputs), not
from its place against the roofs, is said so beside the chart's "below both roofs" count: the RTX 5090 GEMM sits at
53.5 % of its compute roof yet reads below-roofs, because ncu measured 32.1 % SM and 27.7 % memory throughput."""

from __future__ import annotations

import html as _html

import gpulens
from gpulens.reports import html
from tests.conftest import shared_trace


def test_measured_bound_is_said_beside_the_count():
    rep = gpulens.analyze([shared_trace("ncu/codegandee_rtx5090_ncu-v2_kernel_0005_details.csv")])
    t = rep.sources[0].results["roofline"].table
    measured = int((t["bound_basis"] == "measured speed of light").sum())
    assert measured == 1 and t["roof_pct"].iloc[0] > 50 and t["bound"].iloc[0] == "latency/occupancy"  # s40: the verdict's name
    page = _html.unescape(html.render(rep))
    assert ("(1 below both roofs; the bound of 1 from its measured speed of light (SM and memory throughput), "
            "not from its place against the roofs)") in page
