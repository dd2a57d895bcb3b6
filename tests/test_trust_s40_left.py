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
    assert ("149.00 µs of host-only time before the first GPU work (start-up) (37.3 % of the 400.00 µs profiled "
            "window)") in text
    assert "149.00 µs (37.3 % of the profiled window)" in text
    assert "37.2 %" not in text
    md = " ".join(markdown.render(host_then_gpu).split())
    assert "37.3 % of the 400.00 µs profiled window" in md and "37.2 %" not in md
    page = html.render(host_then_gpu)
    assert "37.3 % of the 400.00 µs profiled window" in page and "37.2 %" not in page




# -- 2. no GPU work: no GPU span, for every input --------------------------------------------------------------

def _cpu_only_kineto(path):
    """Two CPU ops (0 → 10 µs, 20 → 30 µs), no GPU event: a 30 µs profiled window and no GPU span."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": n, "pid": 1, "tid": 1, "ts": ts, "dur": 10}
          for n, ts in (("aten::add", 0), ("aten::mul", 20))]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return path


def _cpu_only_nsys(path):
    """An nsys export with two CUDA runtime calls (1000 → 1400 ns, 5000 → 5300 ns) and no kernel table."""
    from tests.case_variants import _nsys_db

    return _nsys_db(path, ["cudaMalloc_v3020", "cudaFree_v3020"], [(1000, 1400, 1, 1), (5000, 5300, 2, 2)], None, [])


def _mtia(path):
    """An MTIA rank (HolisticTraceAnalysis' mtia_inference_trace layout, 0 → 50 µs): its device work only as 3
    mtia_ccp_events, which gpulens does not read — its span is not measured."""
    from tests.test_public_inputs4 import _mtia_trace

    return _mtia_trace(path, 3)


@pytest.mark.parametrize("make,name,window_ns,span_words", [
    (_cpu_only_kineto, "cpu.json", 30_000, "none (no GPU work recorded)"),   # 0 → 30 µs
    (_cpu_only_nsys, "cpu.sqlite", 4_300, "none (no GPU work recorded)"),   # 1000 → 5300 ns
    (_mtia, "mtia_rank_0.json", 50_000, "unknown"),                         # 0 → 50 µs
])
def test_no_gpu_work_has_no_span(tmp_path, make, name, window_ns, span_words):
    rep = gpulens.analyze([make(tmp_path / name)])
    src = rep.sources[0]
    assert src.summary["kernel_count"] == 0
    assert src.summary["span_ns"] is None and src.summary["device_span_ns"] is None
    bd = src.results["breakdown"].summary  # the analysis' own figure and the headline's are one
    assert bd["span_ns"] is None and bd["window_ns"] == window_ns
    js = json.loads(json_report.render(rep))["sources"][0]
    assert js["summary"]["span_ns"] is None and js["analyses"]["breakdown"]["summary"]["span_ns"] is None
    md = markdown.render(rep)
    assert f"| GPU span | {span_words} |" in md
    text = " ".join(console.render(rep, width=300).split())
    assert f"GPU span {span_words}" in text
    for out in (md, text, html.render(rep)):  # a span that does not exist is never shown as measured
        assert "GPU span 0 ns" not in out and "| GPU span | 0 ns |" not in out and "0 ns span" not in out


# -- 3. a stats summary says where the rows that are not kernels went --------------------------------------------

_STATS = ('"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"\n'
          '"kA",1001,87995483,87907.575425,43.77,80200,108480,3547.283930\n'
          '"kB",1000,52197887,52197.887000,25.96,48320,69880,3052.411702\n'
          '"kC",1000,51095558,51095.558000,25.41,43720,60640,3253.741764\n'
          '"kD",1000,9759423,9759.423000,4.85,7640,13080,673.670901\n'
          '"kE",1001,1001000,1000.000000,0.01,1000,1000,0.0\n'
          '"__amd_rocclr_fillBufferAligned",1,5920,5920.000000,4.671e-04,5920,5920,0.0\n')


def test_stats_note_says_the_fill_row_is_not_a_kernel(tmp_path):
    # 6 rows: kA..kE are kernels (1001 + 1000 + 1000 + 1000 + 1001 = 5,002 launches of 5 kernels); the ROCclr fill
    # (ROCm/clr blitcl.cpp's fillBufferAligned: a memset) is the 6th row, 1 call
    p = tmp_path / "77_kernel_stats.csv"
    p.write_text(_STATS)
    src = gpulens.analyze([p]).sources[0]
    assert (src.summary["kernel_count"], src.summary["unique_kernels"]) == (5002, 5)
    note = next(w for w in src.timeline.meta.warnings if "per-name summary" in str(w))
    assert ("6 rows, kernel domain: 5 kernel rows; 1 row of HIP runtime copy/fill (blit) kernels (1 call: "
            "__amd_rocclr_fillBufferAligned), counted as copies and fills, not kernels") in str(note)
    text = " ".join(console.render(gpulens.analyze([p]), width=400).split())
    assert "5,002 launches of 5 kernels" in text and "1 row of HIP runtime copy/fill (blit) kernels" in text


def test_stats_note_counts_every_kind_of_row_left_out(tmp_path):
    # 2 kernels, 2 blits (copyBuffer 3 calls + fillBufferAligned 1 call = 4 calls), 1 stream wait (2 calls),
    # 1 barrier packet row: 6 rows, 2 of them kernels
    p = tmp_path / "9_kernel_stats.csv"
    p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                 '"gemm",2,2000,1000.0,40.0\n"relu",1,500,500.0,10.0\n'
                 '"__amd_rocclr_copyBuffer",3,900,300.0,18.0\n"__amd_rocclr_fillBufferAligned",1,100,100.0,2.0\n'
                 '"__amd_rocclr_streamOpsWait",2,1000,500.0,20.0\n"<barrier packet>",1,500,500.0,10.0\n')
    src = gpulens.analyze([p]).sources[0]
    assert (src.summary["kernel_count"], src.summary["unique_kernels"]) == (3, 2)
    note = str(next(w for w in src.timeline.meta.warnings if "per-name summary" in str(w)))
    assert "(6 rows, kernel domain: 2 kernel rows; 2 rows of HIP runtime copy/fill (blit) kernels (4 calls: " in note
    assert "1 row of stream wait/write operations (2 calls: __amd_rocclr_streamOpsWait)" in note
    assert "1 row of barrier or marker packets (1 call: <barrier packet>)" in note


def test_stats_of_kernels_only_says_nothing_more(tmp_path):
    p = tmp_path / "5_kernel_stats.csv"
    p.write_text(_STATS.rsplit('"__amd', 1)[0])  # the 5 kernel rows alone
    src = gpulens.analyze([p]).sources[0]
    note = str(next(w for w in src.timeline.meta.warnings if "per-name summary" in str(w)))
    assert "(5 rows, kernel domain), not a trace" in note
