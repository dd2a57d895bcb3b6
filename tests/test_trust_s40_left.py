"""One definition per figure — leftovers of session 40.

1. The share of the profiled window that is host-only time outside the GPU span was computed twice: by the verdict
   line's renderer (reports._answer: ``100 * edges / window``, rounded half up) and by the host-only finding
   (``f"{share:.1f}"``, rounded half to even on the binary value). 149 µs of a 400 µs window is 37.25 %: the verdict
   read "37.3 %" and the finding beside it "37.2 %". The figure is now the bottlenecks summary's
   ``host_only_outside_pct`` and every report quotes it.
2. A run without GPU work has no GPU span: ``span_ns`` is unknown (None) for every input — it was 0 for a CPU-only
   Kineto trace and None for an MTIA trace whose device work is not read.
3. A rocprofv3 ``kernel_stats.csv`` whose ``__amd_rocclr_fillBufferAligned`` row is a fill (copy/fill domain) read
   "5,002 launches of 5 kernels" beside "a per-name summary (6 rows…)" with nothing saying where the 6th row went.

Every trace here is written by the test; the expected figures are worked out by hand from what it writes.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.reports import console, html, json_report, markdown
from tests.dig_traces import KTrace


# -- 1. host-only share of the profiled window: one figure ------------------------------------------------------

def _host_then_gpu(path):
    """A host op 0 → 149 µs with no GPU work under it, then one kernel 149 → 400 µs (launched at 141 µs, returning
    at 145 µs: 4 µs before the kernel starts, far under the 20 µs that would count as work already enqueued).
    Window 0 → 400 µs; host-only time outside the GPU span 149 µs = 37.25 % of it — "37.3 %" rounded half up."""
    t = KTrace()
    t.op("aten::to", 0, 149)
    t.launch(t.op("aten::mm", 140, 8), 141, [("gemm_kernel", 149, 251)])
    return t.write(path)


@pytest.fixture(scope="module")
def host_then_gpu(tmp_path_factory):
    return gpulens.analyze([_host_then_gpu(tmp_path_factory.mktemp("w") / "w.json")])


def test_host_only_share_is_one_summary_figure(host_then_gpu):
    sm = host_then_gpu.sources[0].results["bottlenecks"].summary
    assert (sm["window_ns"], sm["host_only_before_ns"], sm["host_only_after_ns"]) == (400_000, 149_000, 0)
    assert sm["host_only_outside_pct"] == pytest.approx(100 * 149 / 400)  # 37.25
    js = json.loads(json_report.render(host_then_gpu))["sources"][0]["analyses"]["bottlenecks"]["summary"]
    assert js["host_only_outside_pct"] == pytest.approx(37.25)


def test_verdict_and_finding_quote_the_same_share(host_then_gpu):
    # 37.25 % rounds half up to 37.3 % (units.share_pct_text, the rule of every share); the finding read 37.2 %
    text = " ".join(console.render(host_then_gpu, width=240).split())
    assert "but 37.3 % of the 400.00 µs profiled window is host-only time outside that span" in text
    assert "149.00 µs (37.3 % of the profiled window)" in text
    assert "37.2 %" not in text
    md = " ".join(markdown.render(host_then_gpu).split())
    assert "37.3 % of the 400.00 µs profiled window" in md and "37.2 %" not in md
    page = html.render(host_then_gpu)
    assert "37.3 % of the 400.00 µs profiled window" in page and "37.2 %" not in page

