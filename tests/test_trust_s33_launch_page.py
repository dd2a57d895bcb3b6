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


def test_kernel_page_of_a_run_without_launch_calls_names_that_not_a_graph(tmp_path):
    """A GPU-only trace (kernels, no runtime calls: a rocprof kernel list, a Kineto trace without the CPU side) has
    no launch call for any kernel; its pages said "a kernel replayed by a graph launch has no launch call of its own"
    on runs without a single graph (new-user review, session 34: rocprof v1 gunrock, ncu B200)."""
    import json

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i % 2}", "pid": 0, "tid": 7, "ts": 1000 + 50 * i, "dur": 20,
           "args": {"device": 0, "stream": 7, "grid": [4, 1, 1], "block": [128, 1, 1]}} for i in range(20)]
    p = tmp_path / "gpu_only.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                             "traceEvents": ev}))
    rep = gpulens.analyze([p])
    res = rep.sources[0].results
    page = html.render(rep)
    assert "replayed by a graph launch" not in page  # no graph in the input (and no launch call at all)
    if "launches" in res and not res["launches"].skipped:
        assert res["launches"].summary["launch_calls"] == 0
        assert "records no launch calls" in page
