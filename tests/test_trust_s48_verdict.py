"""Verdicts and reports say one thing, in words a person reads (s48 review of the real traces' reports):

1. critical-path tables showed internal codes (``cpu_op``, ``host_idle``, "held by cpu") and bare "none" cells in
   every reporter, beside findings that name the same classes in words ("host idle gaps hold 52.2 %");
2. a finding's title said "60 %" beside the table's "60.0 %" (``units.pct_words`` dropped the ".0");
3. the CUDA-graph finding called kernel time summed over replays "of GPU time", a figure no table beside it shows;
4. fp16/bf16 elementwise ops modelled from their shapes were put on the packed-16-bit vector roof, which PyTorch's
   kernels never reach: ATen computes them in fp32 (aten/src/ATen/OpMathType.h, ``opmath_type<BFloat16> = float``).

Hand-made Kineto traces; every expected figure is worked out here from the events (µs in the events, ns in results).
"""

from __future__ import annotations

import json
import re

import pytest

import gpulens
from gpulens.report import Report


def _path_trace(tmp_path):
    # step 1000–1100 µs (100 µs); cudaLaunchKernel 1002–1004 launches a 60 µs kernel running 1005–1065;
    # cudaDeviceSynchronize 1010–1070 returns 5 µs after the kernel ends. No host event at 1000–1002 and 1070–1100:
    # host idle 2 + 30 = 32 µs of the 100 µs step (32.0 %); the kernel 60 µs (60.0 %). One builder of that trace:
    # session 29's sync-event test's.
    from tests.test_trust_s29_verdict_sync_events import _trace

    return gpulens.analyze([_trace(tmp_path)])


def _html_text(page: str) -> str:
    """The text a person reads on the page: no scripts (the data behind the charts), no styles, no tags."""
    import html as h

    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", h.unescape(re.sub(r"<[^>]+>", " ", page)))


#: a critical-path code in a table cell: Markdown (escaped underscores), console (box rules), HTML
_CODE = r"(?:cpu_op|host_idle|launch_delay|gpu_gap|cpu|gpu)"
CELLS = {"md": re.compile(r"\| " + _CODE.replace("_", r"\\_") + r" \|"), "console": re.compile(r"│ " + _CODE + r" +│"),
         "html": re.compile(r"<td[^>]*>" + _CODE + r"</td>")}


def test_critical_path_classes_read_as_words_in_every_reporter_and_as_codes_in_the_json(tmp_path):
    from gpulens.reports import console, html, markdown
    from gpulens.reports.json_report import to_dict

    rep = _path_trace(tmp_path)
    t = rep.sources[0].results["critical_path"].table
    idle = t[t["class"] == "host_idle"].iloc[0]
    assert idle["time_ns"] == 32_000 and idle["share"] == pytest.approx(0.32)  # programs keep the code
    md = markdown.render(rep)
    table = md.split("### Critical path")[1].split("\n\n")[1]
    # the row: class in words, 32.00 µs, 32.0 % of the step, 0 events, and no event to name: "—", never "none"
    row = next(ln for ln in table.splitlines() if "| host idle gaps |" in ln)
    assert [c.strip() for c in row.strip("|").split("|")][-5:] == ["host idle gaps", "32.00 µs", "32.0 %", "0", "—"]
    text, page = console.render(rep, width=300), html.render(rep)
    for kind, out in (("md", md), ("console", text), ("html", page)):
        assert not CELLS[kind].search(out), (kind, CELLS[kind].search(out).group(0))
        assert "host idle gaps" in out
    words = _html_text(page)
    # the summary's bound and top class, in words ("held by gpu", "top class kernel" before): the kernel's 60 µs
    # hold 60 % of the path (≥ 50 %: held by the GPU), the host's 2 + 1 + 5 + 32 µs the other 40 %
    assert "critical path held by GPU top class kernels" in words and "held by gpu" not in words
    js = json.dumps(to_dict(rep))
    assert '"host_idle"' in js  # the JSON keeps the code a program reads


def test_a_share_in_a_title_reads_as_the_table_beside_it(tmp_path):
    from gpulens.reports import markdown
    from gpulens.units import pct_words, share_pct_text

    # whole percentages keep their decimal in a sentence as in a cell (3 % beside 3.0 % read as two figures)
    for pct, text in ((3.0, "3.0 %"), (60.0, "60.0 %"), (12.5, "12.5 %"), (0.02, "under 0.1 %"), (100.0, "100.0 %")):
        assert pct_words(pct) == share_pct_text(pct) == text
    rep = _path_trace(tmp_path)
    cp = rep.sources[0].results["critical_path"]
    # the kernel: 60 of the 100 µs step (hand-made above)
    assert cp.findings[0].title.startswith("Critical path: kernels hold 60.0 % of the step time")
    md = markdown.render(rep)
    assert re.search(r"\| kernels \| 60\.00 µs \| 60\.0 % \|", md)
    assert "kernels hold 60.0 % of the step time" in md


def test_the_graph_replay_finding_names_the_tables_figures(tmp_path):
    # Nsight Systems' graph-level tracing as in shared case T07: 2 replays of "CUDA graph 5", 300 µs each, and two
    # kernels of 5 µs: kernel time 610 µs, the graph 600 µs of it = 98.36… % → "98.4 %"
    ev, corr = [], 0
    for ts, name, dur in ((100, "CUDA graph 5", 300), (420, "embedding_lookup_kernel", 5), (430, "CUDA graph 5", 300),
                          (740, "sampler_topk_kernel", 5)):
        corr += 1
        api = "cudaGraphLaunch" if name.startswith("CUDA graph") else "cudaLaunchKernel"
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 1, "tid": 1, "ts": ts - 8, "dur": 4,
                "args": {"correlation": corr}},
               {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                "args": {"device": 0, "stream": 7, "correlation": corr}}]
    p = tmp_path / "graphs.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    src = gpulens.analyze([p]).sources[0]
    v = src.results["verdicts"].table.set_index("name").loc["CUDA graph 5"]
    assert v["time_ns"] == 600_000 and v["share"] == pytest.approx(600 / 610)
    f = next(f for f in src.results["verdicts"].findings if "CUDA graph replay" in f.title)
    assert f.title.startswith("CUDA graph 5 (600.00 µs summed over 2 replays, 98.4 % of kernel time) is a whole CUDA "
                              "graph replay, not one kernel")
    assert "of GPU time" not in f.title


def _bf16_trace(tmp_path):
    from tests.gate_traces import H100

    # an H100 SXM; aten::add of two bf16 4096×4096 tensors → a 10 µs kernel; aten::mm of bf16 1024×1024 by 1024×1024
    # → a 20 µs kernel
    ops = (("aten::add", [[4096, 4096], [4096, 4096], []], ["c10::BFloat16", "c10::BFloat16", "Scalar"],
            "void at::native::vectorized_elementwise_kernel<4, add_bf16>", 10),
           ("aten::mm", [[1024, 1024], [1024, 1024]], ["c10::BFloat16", "c10::BFloat16"],
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 20))
    ev, t = [], 0
    for i, (op, dims, types, kernel, dur) in enumerate(ops, 1):
        ev += [{"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t, "dur": 8,
                "args": {"External id": i, "Input Dims": dims, "Input type": types}},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1,
                "dur": 5, "args": {"correlation": i, "External id": i}},
               {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": t + 7, "dur": dur,
                "args": {"device": 0, "stream": 7, "correlation": i, "External id": i,
                         "grid": [4096, 1, 1], "block": [128, 1, 1]}}]
        t += 40
    p = tmp_path / "bf16.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": ev}))
    return gpulens.analyze([p]).sources[0]


def test_pytorch_bf16_elementwise_work_is_judged_on_the_fp32_vector_roof(tmp_path):
    from gpulens.analyzers._flop_models import math_precision

    src = _bf16_trace(tmp_path)
    t = src.results["roofline"].table.set_index("name")
    add = t.loc["void at::native::vectorized_elementwise_kernel<4, add_bf16>"]
    # numel(out) = 4096² FLOPs, bytes 3 × 4096² × 2 B; its data is bf16, its math fp32 (ATen opmath): the H100
    # SXM's FP32 vector peak, 66.9 TFLOP/s (Hopper whitepaper Table 3), not the 133.8 of packed BF16
    assert add["flops"] == 4096 * 4096 and add["bytes"] == 3 * 4096 * 4096 * 2
    assert add["precision"] == "bf16" and add["compute_roof"] == "vector.fp32"
    assert add["peak_flops_per_s"] == pytest.approx(66.9e12)
    # the GEMM stays on the tensor cores at bf16 (2·1024³ FLOPs)
    mm = t.loc["sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"]
    assert mm["flops"] == 2 * 1024 ** 3 and str(mm["compute_roof"]).endswith("matrix.bf16")
    # counted FP16/BF16 instructions are work the hardware did at that precision: their own roof
    assert math_precision("bf16", False, from_counters=True) == "bf16"
    assert math_precision("fp16", True) == "fp16" and math_precision(None, False) == "fp32"


def test_the_overhead_column_names_its_threshold_in_every_reporter(tmp_path):
    from gpulens.reports import console, html, markdown

    # bottlenecks names a rank's largest idle cause only from 10 % of its steady span (min_share 0.10), else
    # "none": "overhead: none" read as no overhead at all where the console said "overhead ≥ 10 %: none"
    rep = _path_trace(tmp_path)
    assert rep.sources[0].results["bottlenecks"].table["overhead"].notna().all()
    label = "overhead ≥ 10 % of the span"
    assert f"| {label} |" in markdown.render(rep)
    assert label in " ".join(console.render(rep, width=300).split())
    assert label in _html_text(html.render(rep))


def test_a_stall_class_code_reads_as_words_in_a_table_cell():
    from gpulens.analyzers.base import declared_unit
    from gpulens.analyzers.stalls import COLUMNS
    from gpulens.reports._format import fmt_value

    # the stalls table keeps the class code (memory_latency) for programs; a cell shows it as words
    doc = COLUMNS["dominant_class"]
    assert declared_unit(doc) == "code"
    assert fmt_value("memory_latency", "dominant_class", doc) == "memory latency"
    assert fmt_value("host_idle", "class", "[code]") == "host idle gaps"
