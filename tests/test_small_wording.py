"""Small things a person reads: a note is not a next step, numbers never print in Python's exponent form, counts
agree with their nouns, and a truncated file is named with what was lost — each checked against values written
here by hand."""

from __future__ import annotations

import pytest

import gpulens
from gpulens.analyzers.base import Finding
from gpulens.reports._answer import NO_STEP, next_step
from gpulens.reports._format import fmt_unit
from gpulens.units import fmt_num, plural


# ---- a coverage note has no next step ------------------------------------------------------------------------------

def test_coverage_note_is_not_shown_as_a_next_step():
    note = Finding("FLOPs known for 100 % of the critical kernels' time", "0 launches from counters, 40 from op "
                   "shapes; ops without a model: none.", category="coverage")
    assert next_step(note) == NO_STEP
    # a finding whose detail is its advice keeps it (idle causes carry their step in the detail)
    idle = Finding("GPU idle waiting for the host", "Move work off the host thread.", category="host-bound")
    assert next_step(idle) == "Move work off the host thread."


def test_demo_lists_no_coverage_detail_as_a_step():
    rep = gpulens.analyze([gpulens.demo_path()] if hasattr(gpulens, "demo_path") else [_demo()])
    fs = [f for f in rep.sources[0].findings() if f.category == "coverage"]
    assert fs
    for f in fs:
        assert next_step(f) != f.detail and "launch(es) from counters" not in next_step(f)


def _demo():
    from importlib import resources

    return resources.files("gpulens") / "data" / "demo_h100_bert-small.pt.trace.json.gz"


# ---- numbers --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("v,text", [(30_000, "30,000"), (29_999.6, "30,000"), (1_234_567.8, "1,234,568"),
                                    (74.66, "74.7"), (1.0666, "1.07"), (0.061, "0.061"), (0.00058, "0.00058"),
                                    (0.0000583, "5.8e-5"), (0, "0"), (999.96, "1,000")])
def test_numbers_never_in_python_exponent_form(v, text):
    assert fmt_num(v) == text
    assert fmt_unit(v, "ratio") == text  # waves, ratios in every table
    assert "e+" not in fmt_unit(v, "FLOP/B")


def test_waves_in_finding_text():
    from gpulens.analyzers._occ_findings import waves_text

    assert waves_text(30_000.0) == "30,000" and waves_text(1.19) == "1.19" and waves_text(0.00058) == "0.00058"


# ---- counts agree with their nouns --------------------------------------------------------------------------------

def test_one_candidate_run_is_singular():
    from gpulens.gate.compare import _overall
    from gpulens.gate.result import MetricResult
    from gpulens.gate.runs import RunSet

    row = MetricResult("span_ns", "timing", "ns", "lower", "PASS", True, "within")
    one = RunSet([{"label": "r0"}], [], {}, "m", 1, {})
    verdict, reason = _overall([row], one, "")
    assert verdict == "PASS" and "(1 candidate run)" in reason and "only gating metric within its threshold" in reason
    two = RunSet([{"label": "r0"}, {"label": "r1"}], [], {}, "m", 1, {})
    assert "(2 candidate runs)" in _overall([row, row], two, "")[1]
    assert plural(1, "run") == "1 run" and plural(3, "run") == "3 runs"


# ---- a truncated file: named, with what was lost ------------------------------------------------------------------

def test_truncated_json_before_any_event_is_explained(tmp_path, capsys):
    from gpulens.cli import main

    p = tmp_path / "cut.pt.trace.json"
    text = '{"schemaVersion": 1, "traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur"'
    p.write_text(text)
    try:
        rc = main(["analyze", str(p), "--no-cache"])
    except SystemExit as ex:
        rc = ex.code
    assert rc == 2
    err = capsys.readouterr().err
    assert "Input data was truncated" not in err
    assert "cut.pt.trace.json" in err and f"ends after {len(text)} bytes" in err and "truncated" in err
    assert "nothing in it could be read" in err and "Traceback" not in err


# ---- a finding names its kernel as the report's tables do ----------------------------------------------------------

_CUTLASS = ("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>"
            "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)")


def test_finding_title_quotes_its_kernel_by_the_table_label():
    from gpulens.reports._answer import shown_title
    from gpulens.reports._names import label_in_text, short_names

    label = short_names([_CUTLASS])[0]
    assert label != _CUTLASS and "void cutlass::Kernel2" not in label
    clipped = Finding(f"{_CUTLASS[:79]}…: latency/occupancy-bound", "", kernel=_CUTLASS)  # as verdicts writes it
    assert shown_title(clipped) == f"{label}: latency/occupancy-bound"
    whole = Finding(f"Registers limit occupancy of {_CUTLASS} to 31 %", "", kernel=_CUTLASS)
    assert shown_title(whole) == f"Registers limit occupancy of {label} to 31 %"
    # clipped mid-name in the middle of the title: the clipped text must be the name's start, else left alone
    assert label_in_text(f"Grid of {_CUTLASS[:50]}… fills 12 %", _CUTLASS) == f"Grid of {label} fills 12 %"
    other = f"Grid of {_CUTLASS[:30]}XYZ… fills 12 %"
    assert label_in_text(other, _CUTLASS) == other
    assert label_in_text("GPU idle 92 % of its span", _CUTLASS) == "GPU idle 92 % of its span"


def test_demo_findings_and_tables_use_one_label_per_kernel(tmp_path):
    import re

    from tests.test_cli import run

    md = tmp_path / "demo.md"
    res = run("analyze", "--demo", "--markdown", str(md))  # the Markdown as users get it
    assert res.returncode == 0, res.stderr
    text = md.read_text()
    # the demangled "void cutlass::Kernel2<…" / "void pytorch_flash::…" never reaches a finding line
    assert not re.search(r"\*\*(warning|info|critical)\*\* .*void (cutlass|pytorch_flash)::", text)
    assert "cutlass\\_80\\_wmma\\_tensorop… 32x32 128x2: latency/occupancy-bound" in text


# ---- occupancy evidence says which figure is missing and every tied limiter -----------------------------------------

def test_occupancy_evidence_reads_without_a_missing_figure_first():
    from gpulens.analyzers.verdict_rules import Evidence, _evidence_text

    e = Evidence("k", "kernel", 10, 1_000_000, theoretical_occupancy_pct=12.5, limiter="registers",
                 limiters="registers, shared_memory")
    assert "occupancy 12.5 % theoretical (achieved not counted), limiters registers and shared memory" \
        in _evidence_text(e)
    e2 = Evidence("k", "kernel", 10, 1_000_000, achieved_occupancy_pct=22.0, theoretical_occupancy_pct=25.0,
                  limiter="registers")
    assert "occupancy 22.0 % achieved / 25.0 % theoretical, limiter registers" in _evidence_text(e2)


def test_a_single_recorded_dtype_reads_as_its_short_name():
    from gpulens.reports._op_inputs import dtypes_text

    assert dtypes_text("c10::BFloat16") == "bf16"
    assert dtypes_text("c10::Float8_e4m3fn") == "fp8 e4m3"
    assert dtypes_text("c10::SomeNewType") == "SomeNewType"
    assert dtypes_text("not a dtype") == "not a dtype"


def test_a_list_of_sentences_reads_as_sentences():
    # next steps are sentences: joined as such, never "… blocks.; Wavefronts …"; other lists keep "; "
    steps = ["Give each launch more work and balance it across blocks.", "Wavefronts wait on memory latency."]
    assert fmt_unit(steps, "text") == ("Give each launch more work and balance it across blocks. Wavefronts wait on "
                                       "memory latency.")
    assert fmt_unit(["registers", "shared memory"], "text") == "registers; shared memory"
    assert ".; " not in fmt_unit(["Fuse it (torch.compile).", "Batch the calls."], "text")


def test_kernel_pages_list_no_drawing_segment_as_a_fact(tmp_path):
    # a kernel page listed the first stream-timeline segment of the kernel: "level 0, window 0, thread id -1",
    # clock dates and an offset from another origin — drawing data, not facts about the kernel
    from tests.test_cli import run

    out = tmp_path / "d.html"
    assert run("analyze", "--demo", "--html", str(out)).returncode == 0
    html = out.read_text()
    assert 'class="kpage"' in html and "<h4>Occupancy" in html
    assert "<h4>Stream timeline" not in html and "thread id" not in html


def test_verdict_table_puts_the_next_step_beside_the_verdict():
    import pandas as pd

    from gpulens.reports._html_analyses import verdict_columns

    t = pd.DataFrame({"name": ["k"], "kind": ["kernel"], "calls": [2], "time_ns": [5], "share": [0.5],
                      "cumulative_share": [0.5], "verdict": ["memory-bound"], "time_at_stake_ns": [3],
                      "stake_note": [None], "evidence": ["e"], "next_steps": [["Do it."]]})
    cols = verdict_columns(t)
    assert cols[:7] == ["name", "time_ns", "share", "verdict", "time_at_stake_ns", "next_steps", "evidence"]
    assert "stake_note" not in cols and "kind" not in cols and "calls" in cols
    t.loc[0, "stake_note"] = "upper bound"
    assert "stake_note" in verdict_columns(t)


def test_a_run_verdict_without_kernel_times_does_not_claim_the_most_time():
    import pandas as pd

    from gpulens.analyzers.verdicts import Verdicts

    t = pd.DataFrame({"name": ["vecCopy"], "verdict": ["latency/occupancy-bound"], "time_ns": [None]})
    s = Verdicts._run_summary(t, {}, [], busy_unknown=True)
    # rocprof-compute without durations: one kernel, one verdict, 0 ns weighed — no "holding the most kernel time"
    assert s["run_verdict"] == "latency/occupancy-bound"
    assert "most kernel time" not in s["basis"] and "kernel times not measured" in s["basis"]
    t2 = pd.DataFrame({"name": ["a", "b"], "verdict": ["memory-bound", "compute-bound"], "time_ns": [5, 3]})
    assert "holding the most kernel time" in Verdicts._run_summary(t2, {}, [], busy_unknown=True)["basis"]


def test_console_compact_tables_show_the_time_they_are_ranked_by():
    # the operator roll-up and kernel groups are ranked by GPU time; their first six columns left it out, so the
    # order looked random (op, shapes, dtypes, category, calls, host time)
    from tests.test_cli import run

    out = run("analyze", "--demo", columns=200).stdout
    for title, header in (("Op rollup", "GPU time"), ("Kernel groups", "time")):
        part = out[out.index(title):]
        head = part[:part.index("┡")]
        assert header in head, head


def test_op_columns_are_not_recorded_without_framework_ops(tmp_path):
    # an nsys export links no GPU event to a framework op: "ops 0 · top op unknown" on every category said nothing
    import json

    from gpulens.report import analyze

    T = 1_700_000_000_000_000
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": T + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": 7}} for i in range(3)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    rep = analyze([p], cache=False)
    t = rep.sources[0].results["op_categories"].table
    assert t["ops"].isna().all() and t["top_op"].isna().all() and int(t["gpu_events"].sum()) == 3
    from gpulens.reports.markdown import render

    md = render(rep)
    sec = md[md.index("### Op categories"):]
    assert "top op" not in sec.split("\n\n")[1]



def test_evidence_names_the_tensor_pipe_when_it_is_the_compute_figure():
    from gpulens.analyzers.verdict_rules import Evidence, _evidence_text

    # the B200 SDPA case: no SM throughput counted, the tensor pipe at 68.4 % stood as "compute 68 % of peak"
    e = Evidence("k", "kernel", 16, 11_869_152, sol_bound=None, compute_pct=68.4, compute_side="tensor pipe",
                 sol_missing="memory")
    assert "speed of light: compute (tensor pipe) 68.4 % of peak, memory not counted" in _evidence_text(e)
    e2 = Evidence("k", "kernel", 1, 1000, sol_bound="compute", compute_pct=88.0, memory_pct=41.0)
    assert "speed of light: compute 88.0 % of peak, memory 41.0 % of peak" in _evidence_text(e2)


def test_console_shows_user_ranges_as_written_and_says_when_top_kernels_are_cut(tmp_path):
    import json

    from tests.test_cli import run

    T = 1_700_000_000_000_000
    ev = [{"ph": "X", "cat": "user_annotation", "name": "## decoder fp8 None ##", "pid": 1, "tid": 1, "ts": T,
           "dur": 100}]
    for i in range(12):  # 12 distinct kernels: the console lists the first 10 and says so
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": T + 5 * i,
                   "dur": 2, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"kernel_{i:02d}", "pid": 0, "tid": 7, "ts": T + 5 * i + 2,
                   "dur": 20 - i, "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    out = run("analyze", str(p), "--no-cache", columns=200).stdout
    ann = out[out.index("Annotations"):]
    assert "## decoder fp8 None ##" in ann[:ann.index("└")] and "‹decoder›" not in out
    # the heading may wrap at the table's width: its first two lines are the heading
    head = " ".join(line.strip() for line in out.split("Top kernels", 1)[1].splitlines()[:2])
    assert "Top kernels (" in out and "— first 10 of 12" in head
