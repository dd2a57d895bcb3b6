"""Session 47, wave 2 (w2verdict): labels, roofs and orders that misled a reader. One test per kind; each expected
value is derived here from the trace, a datasheet or a hand calculation.

1. a 16-bit non-matrix kernel (the demo's bf16 LayerNorm) was judged on the *vector fp32* roof although the
   datasheets print a non-tensor FP16/BF16 peak (NVIDIA Hopper whitepaper Table 3: H100 SXM 133.8 TFLOPS = 2 × FP32;
   A100: FP16 78, BF16 39 against FP32 19.5);
2. a run status code ("no_gpu_work") printed raw where a person reads it;
3. the console's operator tables cut "aten::mm" to "mm" (the kernel-name shortener) where HTML shows "aten::mm";
4. full theoretical occupancy read "100.0 % · none";
5. gate tables: the CI and p columns all "—" when no test ran, pushing the note out of view;
6. a lost-graph-work trace's "First:" step was "collect counters" while the step every figure rests on (record the
   lost GPU work) was only under the findings.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gpulens.report import analyze

DEMO = Path(__file__).parents[1] / "src" / "gpulens" / "data" / "demo_h100_bert-small.pt.trace.json.gz"
CASES = Path(__file__).parents[1].parent / "shared" / "cases"


def test_16bit_vector_peaks_are_the_datasheets_and_pytorch_16bit_elementwise_work_is_judged_at_fp32():
    from gpulens.devices import get_spec
    from gpulens.reports._html_roofline import roof_label

    h100, a100 = get_spec("H100 SXM"), get_spec("A100 80GB SXM")
    fp32 = h100.figure_value("vector.fp32")
    # Hopper runs non-tensor FP16 and BF16 at twice its FP32 rate (whitepaper Table 3: 133.8 vs 66.9 TFLOPS)
    for p in ("bf16", "fp16"):
        assert h100.peak_flops(p, matrix=False) == (pytest.approx(2 * fp32, rel=1e-3), f"vector.{p}")
    # the A100: FP16 at four times FP32 (78 vs 19.5), BF16 at twice (39)
    a32 = a100.figure_value("vector.fp32")
    assert a100.peak_flops("fp16", matrix=False)[0] == pytest.approx(4 * a32)
    assert a100.peak_flops("bf16", matrix=False)[0] == pytest.approx(2 * a32)
    # the demo's LayerNorm: its op's tensors are bf16 (read off the trace), computed in fp32 by PyTorch (opmath:
    # aten/src/ATen/OpMathType.h; its kernel's name says <c10::BFloat16, float>): the fp32 vector roof, named so
    # (s48; s47 had put it on the packed-bf16 vector peak, twice as high, which the kernel never issues)
    with gzip.open(DEMO, "rt") as fh:
        ev = json.load(fh)["traceEvents"]
    ln = next(e for e in ev if e.get("name") == "aten::native_layer_norm")
    assert "c10::BFloat16" in ln["args"]["Input type"]
    rep = analyze([str(DEMO)])
    t = rep.sources[0].results["roofline"].table.set_index("name")
    row = t[t.index.str.contains("layer_norm")].iloc[0]
    assert "c10::BFloat16, float>" in row.name
    assert (row["precision"], row["compute_roof"]) == ("bf16", "vector.fp32")
    assert row["peak_flops_per_s"] == pytest.approx(fp32, rel=1e-3)
    assert roof_label(row["compute_roof"], "nvidia").startswith("vector fp32")
    # a GPU without a 16-bit vector figure (L4) falls back to FP32's, and the roof's name says fp32
    assert get_spec("L4").peak_flops("bf16", matrix=False)[1] == "vector.fp32"


def test_a_status_code_reads_as_words_where_a_person_reads_it(tmp_path):
    from gpulens.reports import console, html, markdown
    from gpulens.reports.json_report import to_dict

    p = tmp_path / "cpu_only.json"  # one CPU op, no GPU event: nothing ran on a GPU
    p.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                                              "ts": 10.0, "dur": 5.0}]}))
    rep = analyze([str(p)])
    assert rep.sources[0].status == "no_gpu_work"
    assert to_dict(rep)["sources"][0]["status"] == "no_gpu_work"  # the JSON keeps the code
    text = console.render(rep, width=160)
    assert "no GPU work" in text and "no_gpu_work" not in text
    md = markdown.render(rep)
    assert "| status | no GPU work" in md and "no_gpu_work" not in md
    page = html.render(rep)
    page = page.decode() if isinstance(page, bytes) else page
    assert "<td>no GPU work" in page and ">no_gpu_work<" not in page


def test_operator_names_read_as_recorded_in_the_console():
    from gpulens.reports import console

    with gzip.open(DEMO, "rt") as fh:
        ev = json.load(fh)["traceEvents"]
    ops = {e["name"] for e in ev if e.get("cat") == "cpu_op"}
    assert "aten::linear" in ops  # the trace records the namespace
    rep = analyze([str(DEMO)])
    text = console.render(rep, width=200)
    block = text.split("CPU operators", 1)[1].split("└", 1)[0]
    assert "│ aten::linear " in block and "│ linear " not in block
    grp = text.split("Kernel groups", 1)[1].split("└", 1)[0]
    assert "aten::addmm" in grp  # an operator column too; its kernel column stays short
    assert "cutlass_80_wmma_tensorop… 32x32 128x2" in grp


def test_full_occupancy_reads_no_limiter_in_every_report():
    from gpulens.reports._values import NO_LIMITER_TEXT, limiter_text

    # the analyzer's code for "nothing limits it" (analyzers.occupancy.NO_LIMITER) in words, NVIDIA and AMD alike
    from gpulens.analyzers.occupancy import NO_LIMITER

    assert limiter_text(NO_LIMITER) == limiter_text(NO_LIMITER, "amd") == NO_LIMITER_TEXT == "no limiter"
    assert limiter_text("registers, shared_memory") == "registers + shared memory"  # a real limiter unchanged


def _threshold_only_gate():
    """Two runs a side (too few for a test: every row decided by the PASS band alone)."""
    from gpulens.gate import GateConfig, run_gate
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet

    env = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
           "runtime": "12040", "torch": None, "collectors": ["kineto"], "tool_version": "0.1.0"}

    def metrics(f):
        return {"span_ns": Metric("span_ns", "timing", "ns", [1e6 * f, 1.01e6 * f]),
                "kernel:k": Metric("kernel:k", "timing", "ns", [1e4 * f, 1.01e4 * f], share=[1.0] * 2,
                                   calls=[4] * 2)}

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(2)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", env, runs, metrics(1.0))
    return run_gate(base, RunSet(runs, [], env, "h100-x1", 1, metrics(1.3)), GateConfig())


def test_gate_tables_leave_out_columns_empty_in_every_row():
    import re

    from gpulens.reports import gate_console, gate_html, gate_markdown
    from gpulens.reports.gate_fmt import ci_label

    res = _threshold_only_gate()
    assert res.metrics and all(m.method == "threshold" and m.p_value is None for m in res.metrics)
    ci = ci_label(res)
    page = gate_html.render(res)
    heads = re.findall(r'<th scope="col">([^<]*)</th>', page.split('id="metrics"', 1)[1])
    assert ci not in heads and "p (run)" not in heads and heads[-1] == "note" and "change" in heads
    assert "No CI or p column: no test ran" in page
    md = gate_markdown.render(res)
    header = next(line for line in md.splitlines() if line.startswith("| ") and "metric" in line)
    assert ci not in header and "p (run)" not in header and header.rstrip(" |").endswith("note")
    assert "No CI or p column" in md
    text = gate_console.render(res, width=200)
    assert ci not in text and "p (run)" not in text


def test_the_premise_of_every_figure_is_the_first_step(tmp_path):
    from gpulens.reports import console

    from tests.test_trust_s46_w2cases import _graph_trace

    p = tmp_path / "graphs.json"  # two cudaGraphLaunch calls whose graph kernels were not recorded
    p.write_text(json.dumps(_graph_trace(32)))
    text = console.render(analyze([str(p)]), width=400)
    first = next(line for line in text.splitlines() if line.lstrip().startswith("First:"))
    assert "2 of 4 launch calls have no GPU record" in first and "Collect counters" not in first
    # its step fits its cause: records lost mid-trace (later work was recorded), not a capture cut off at its end
    assert "Profile again so their GPU work is recorded" in first and "GPU drains" not in first
