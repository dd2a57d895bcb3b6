"""A kernel page never says the report has no per-kernel launch analysis when it has one: the SGLang MI300X decode
replays its kernels from a HIP graph, so they have no launch call of their own and no row in the launch tables — the
console prints a launch-latency table all the same. The page says the kernel has no row there, and why one would not."""

from __future__ import annotations

from pathlib import Path

import gpulens
from gpulens.reports import html

SGL = Path(__file__).parent / "data" / "kineto" / "tracelens_mi300x_sglang_qwen3_decode.json.gz"


def test_graph_replayed_kernel_page_names_the_missing_row_not_a_missing_analysis():
    rep = gpulens.analyze([SGL])
    res = rep.sources[0].results
    ran = [n for n in ("launches", "launch_latency") if n in res and not res[n].skipped]
    assert ran  # the launch analyses ran on this trace (hipGraphLaunch and other runtime calls are recorded)
    page = html.render(rep)
    assert "no per-kernel launch analysis in this report" not in page
    assert "this kernel has no row in the launch analysis" in page
