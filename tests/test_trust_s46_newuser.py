"""Faults a new user met following the README (session 46), each as its kind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gpulens
from gpulens.cli import main


def _kernels(report_json: Path) -> tuple[int, list]:
    doc = json.loads(report_json.read_text())
    src = doc["sources"]
    return sum(s["summary"]["kernel_count"] for s in src), [s.get("rank_files") for s in src]


def test_a_perfetto_export_beside_the_trace_is_not_one_more_rank(tmp_path):
    """`gpulens analyze DIR --perfetto DIR/x.json` then `gpulens analyze DIR`: the export holds the trace's events
    again; read beside it, every kernel counted twice (ranks 0, 1). Expected: the folder's figures are the trace's own,
    and the export is named as not read; alone, the export is still read."""
    d = tmp_path / "run"
    d.mkdir()
    trace = Path(gpulens.demo_trace())
    shutil.copy(trace, d / "run.pt.trace.json.gz")
    assert main(["analyze", str(trace), "-q", "--no-cache", "--json", str(tmp_path / "alone.json")]) == 0
    assert main(["analyze", str(d), "-q", "--no-cache", "--perfetto", str(d / "run.perfetto.json")]) == 0
    assert main(["analyze", str(d), "-q", "--no-cache", "--json", str(tmp_path / "dir.json")]) == 0
    alone, _ = _kernels(tmp_path / "alone.json")
    both, _ = _kernels(tmp_path / "dir.json")
    assert both == alone  # not 2 × alone
    warnings = " ".join(json.dumps(s.get("warnings")) for s in json.loads((tmp_path / "dir.json").read_text())["sources"])
    assert "run.perfetto.json: a trace exported by gpulens --perfetto" in warnings
    only = tmp_path / "only"
    only.mkdir()
    shutil.move(str(d / "run.perfetto.json"), only / "run.perfetto.json")
    assert main(["analyze", str(only), "-q", "--no-cache", "--json", str(tmp_path / "only.json")]) == 0
    assert _kernels(tmp_path / "only.json")[0] == alone


H200 = Path(__file__).resolve().parent / "data" / "nvidia" / "h200"


def _launches_in_ncu_csv(path: Path) -> int:
    """Profiled launches of an ncu CSV, counted from the file: distinct values of its "ID" column."""
    import csv

    rows = list(csv.DictReader(path.open(newline="")))
    return len({r["ID"] for r in rows if r.get("ID", "").strip().isdigit()})


def test_one_ncu_capture_in_three_layouts_is_read_once(tmp_path):
    """`ncu --export x.ncu-rep` then `--import x.ncu-rep --csv --page details` and `--page raw`: one capture in three
    files. Read as ranks 3, 4, 5 of a folder every launch counted three times and a 1-block kernel's L1 throughput
    taken from another page's definition (82.8 % beside 0.4 % memory). Expected: the launches of one file."""
    for f in ("h200_kernels.ncu-rep", "h200_kernels_details.csv", "h200_kernels_raw.csv"):
        shutil.copy(H200 / f, tmp_path / f)
    want = _launches_in_ncu_csv(H200 / "h200_kernels_raw.csv")
    assert want == 4
    assert main(["analyze", str(tmp_path), "-q", "--no-cache", "--json", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [s["summary"]["kernel_count"] for s in doc["sources"]] == [want]
    text = json.dumps(doc["sources"][0]["warnings"])
    assert "h200_kernels_details.csv is the same Nsight Compute capture as" in text
    assert "h200_kernels_raw.csv is the same Nsight Compute capture as" in text


def test_two_ncu_captures_in_one_layout_are_not_merged(tmp_path):
    """Two exports alike (the same page) of two runs are two captures, even of the same program: not read once."""
    a = (H200 / "h200_kernels_details.csv").read_text()
    (tmp_path / "run1_details.csv").write_text(a)
    (tmp_path / "run2_details.csv").write_text(a)
    assert main(["analyze", str(tmp_path), "-q", "--no-cache", "--json", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    assert "same Nsight Compute capture" not in json.dumps(doc)


def test_a_tiny_share_is_never_a_false_zero_in_any_table():
    """The console's Top kernels said "0.0 %" for a 2.89 µs kernel of 8.44 ms where Markdown said "under 0.1 %":
    one rounding rule for every share cell (units.share_pct_text)."""
    from gpulens.units import fmt_share

    assert fmt_share(2_890 / 8_440_000) == "under 0.1 %"  # 0.034 %
    assert fmt_share(0.99961) == "over 99.9 %"
    assert fmt_share(1.0) == "100.0 %"
    assert fmt_share(0.12345) == "12.3 %"
    assert fmt_share(0.00049) == "under 0.1 %" and fmt_share(0.0005) == "0.1 %"  # 0.05 % rounds half up to 0.1 %
    assert fmt_share(0.0) == "0.0 %"


def test_roofline_skipped_for_missing_dtypes_says_dtypes_not_no_model(tmp_path):
    """The demo's ops with their 'Input type' args deleted (shapes kept): the roofline said "no FLOP model for the
    hot kernels' ops" although aten::addmm, flash attention and layer_norm have models (the demo itself has FLOPs
    for all of them); what is missing is each tensor's dtype."""
    import gzip

    doc = json.loads(gzip.open(gpulens.demo_trace()).read())
    dropped = 0
    for e in doc["traceEvents"]:
        if "Input type" in (e.get("args") or {}):
            del e["args"]["Input type"]
            dropped += 1
    assert dropped > 0
    p = tmp_path / "notypes.pt.trace.json"
    p.write_text(json.dumps(doc))
    full = gpulens.analyze([gpulens.demo_trace()]).sources[0].results["roofline"]
    assert not full.skipped  # with dtypes the same ops are modelled
    r = gpulens.analyze([p]).sources[0].results["roofline"]
    assert r.skipped
    assert "without their dtypes" in r.skipped_reason and "no FLOP model" not in r.skipped_reason


def test_a_passing_gate_chart_draws_the_largest_timings_not_ties_of_zero_change():
    """Every timing unchanged (+0.0 %): the chart "with the largest change" sorted by |change %| alone, a tie, drew
    small kernels and left out the two largest (cutlass 98.72 µs, flash_fwd 37.41 µs). Expected: the largest change
    in time first, the longest timing first among equal ones — here the kernels by size."""
    import re
    from html import unescape

    from gpulens.gate import GateConfig, exit_code, run_gate
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet
    from gpulens.reports.gate_html import CHART_ROWS, render

    env = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
           "runtime": "12040", "torch": None, "collectors": ["kineto"], "tool_version": "0.1.0"}
    noise = [1.0, 1.02, 1 / 1.02, 1.0, 1.01, 1 / 1.01]
    sizes = {f"k{i:02d}": 1_000.0 * (i + 1) for i in range(3 * CHART_ROWS)}  # k00 1 µs … the last the longest

    def metrics():
        return {"kernel:" + k: Metric("kernel:" + k, "timing", "ns", [v * x for x in noise], share=[0.01] * 6,
                                      calls=[1] * 6) for k, v in sizes.items()}

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(6)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", env, runs, metrics())
    res = run_gate(base, RunSet(runs, [], env, "h100-x1", 1, metrics()), GateConfig())
    res.exit_code = exit_code(res)
    assert res.verdict == "PASS"
    fig = re.search(r'<figure class="dchart" id="chart-gate".*?</figure>', render(res), re.S).group(0)
    drawn = [unescape(m) for m in re.findall(r'<span class="pl" title="([^"]*)">', fig)]
    longest = sorted(sizes, key=lambda k: -sizes[k])
    assert drawn[:2] == ["kernel:" + longest[0], "kernel:" + longest[1]]
    assert "kernel:k00" not in drawn


def test_an_incomparable_gate_does_not_explain_a_judgement_it_did_not_make():
    """Another GPU: the verdict is INCOMPARABLE and the page said "Timings side by side, not judged" under a "how it
    decided" row explaining that "each timing was compared with its PASS band alone"."""
    from html import unescape

    from gpulens.gate import GateConfig, exit_code, run_gate
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet
    from gpulens.reports import gate_html, gate_markdown

    env = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
           "runtime": "12040", "torch": None, "collectors": ["kineto"], "tool_version": "0.1.0"}
    span = {"span_ns": Metric("span_ns", "timing", "ns", [1e6, 1.01e6])}
    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(2)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", env, runs, span)
    res = run_gate(base, RunSet(runs, [], {**env, "gpus": ["NVIDIA H200"]}, "h200-x1", 1, span), GateConfig())
    res.exit_code = exit_code(res)
    assert res.verdict == "INCOMPARABLE"
    for page in (unescape(gate_html.render(res)), gate_markdown.render(res)):
        assert "Not judged: the runs are not comparable" in page
        assert "compared with its PASS band alone" not in page and "Welch t-test" not in page


def test_diff_headline_cuts_an_op_key_between_whole_tensors():
    """The diff headline cut "aten::_flash_attention_forward [[1,141,8,64],[1,141,8,64],[…" inside a tensor's dims;
    expected: whole tensors, brackets closed, the rest counted."""
    from gpulens.reports.diff import _op_shapes_short

    key = "aten::_flash_attention_forward [[1,141,8,64],[1,141,8,64],[1,141,8,64],[],[]]"
    got = _op_shapes_short(key, 60)
    assert got == "aten::_flash_attention_forward [[1,141,8,64],[1,141,8,64], … 3 more]"
    assert _op_shapes_short("aten::addmm [[512],[141,512],[512,512]]", 60) == "aten::addmm [[512],[141,512],[512,512]]"
    long_kernel = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2, T3)"
    assert len(_op_shapes_short(long_kernel, 60)) <= 61  # no shapes: a text cell of the width
