"""A new user's walk (session 41): figures shown without a basis, a measured-looking 0 that was never measured, and
words that read as nothing. Each expected value is worked out by hand in the test."""

import gzip
import json

import pandas as pd

import gpulens
from gpulens.cli import main
from gpulens.units import fmt_ns
from tests.gate_traces import make_trace


def _report(d, name, seeds, **kw):
    traces = [make_trace(d / f"{name}{s}.json", seed=s, **kw) for s in seeds]
    out = d / f"{name}.report.json"
    assert main(["analyze", "-q", *map(str, traces), "--json", str(out)]) == 0
    return out


def test_one_baseline_run_has_no_noise_figure_and_the_method_says_no_test_ran(tmp_path, capsys):
    """Kind: a baseline of one run showed its run-to-run noise as "±0.0 %" (a measured 0) and the gate's "how it
    decided" sentence described a Welch t-test that no row ran. With one run there is no spread to measure: the
    noise is unknown (JSON null, shown "—"), and the sentence says the threshold alone decided (1 vs 1 runs)."""
    base, slow = _report(tmp_path, "base", [0]), _report(tmp_path, "slow", [1], gemm_scale=1.3)
    assert main(["baseline", "save", "--store", str(tmp_path), "--name", "main", str(base)]) == 0
    out, md = tmp_path / "gate.json", tmp_path / "gate.md"
    main(["gate", "--store", str(tmp_path), "--baseline", "main", str(slow), "--json", str(out), "--markdown", str(md)])
    doc = json.loads(out.read_text())
    timings = [m for m in doc["metrics"] if m["kind"] == "timing"]
    assert timings and all(m["base_spread"] is None for m in timings)
    foot = " ".join(md.read_text().split())
    assert "No statistical test ran (1 vs 1 runs" in foot and "Welch t-test" not in foot
    assert "±0.0 %" not in md.read_text()


def test_two_baseline_runs_measure_the_noise_and_keep_the_test_sentence(tmp_path):
    """With 2 baseline runs the spread is measured: 1.4826 · MAD / median; for two values a < b, the median is
    (a + b) / 2 and MAD = (b − a) / 2, so spread = 1.4826 · (b − a) / (a + b). The span of each baseline run is read
    back from the baseline file's samples."""
    base = _report(tmp_path, "base", [0, 1])
    assert main(["baseline", "save", "--store", str(tmp_path), "--name", "main", str(base)]) == 0
    saved = json.loads(next(tmp_path.rglob("main.json")).read_text())
    a, b = sorted(saved["metrics"]["span_ns"]["samples"])
    out = tmp_path / "gate.json"
    main(["gate", "--store", str(tmp_path), "--baseline", "main", str(base), "--json", str(out)])
    row = next(m for m in json.loads(out.read_text())["metrics"] if m["metric"] == "span_ns")
    assert abs(row["base_spread"] - 1.4826 * (b - a) / (a + b)) < 1e-9


def _cpu_only(path):
    """A Kineto trace of a CPU-only run: 2 ProfilerSteps of 3 aten ops each, no GPU event (times in µs)."""
    ev = []
    for k, t0 in enumerate((0, 1000)):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k + 1}", "pid": 1, "tid": 1,
                   "ts": t0, "dur": 900})
        for j, op in enumerate(("aten::mm", "aten::relu", "aten::sum")):
            ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t0 + 10 + 200 * j,
                       "dur": 150})
    with gzip.open(path, "wt") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
    return path


def test_a_run_without_kernels_shows_its_cpu_ops_on_the_first_page(tmp_path):
    """Kind: the HTML of a CPU-only run said "performance-critical set: 0 kernels, ranked by calls: durations not
    recorded" (there is no kernel to rank; durations were recorded) and its first page held only "0 findings" while
    the console listed the CPU operators. Now: "none: no kernel in the trace", the CPU op count (6 = 2 steps × 3
    ops written above) and the steps and CPU operators tables on the Summary page."""
    p = _cpu_only(tmp_path / "cpu.pt.trace.json.gz")
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--html", str(html), "--markdown", str(md)]) in (0, 5)
    page = html.read_text()
    summary = page[page.index('id="summary"'):page.index('id="breakdown"')] if 'id="breakdown"' in page else page
    text = " ".join(summary.split())
    assert "none: no kernel in the trace" in text and "durations not recorded" not in text
    assert "CPU ops</th><td>6</td>" in text.replace(' scope="row"', "")
    assert "aten::mm" in text and "CPU operators" in text and "Steps" in text
    assert "| performance-critical set | none: no kernel in the trace |" in md.read_text()
    # no GPU recorded, none used: no advice to pass a spec for it (the final new user's walk)
    assert "| device | none recorded (no GPU work) |" in md.read_text() and "--device-spec" not in text


def test_durations_of_an_hour_or_a_day_read_in_hours_and_days():
    """Kind: "gaps of 8804374.25 s" (rocprofv3's SDK docs CSV: two time bases) reads as nothing; by hand
    8,804,374.25 s / 86,400 s = 101.90 days, 7,200 s = 2.00 h; below an hour seconds stay."""
    assert fmt_ns(8_804_374.25e9) == "101.90 days"
    assert fmt_ns(7_200e9) == "2.00 h"
    assert fmt_ns(3_599e9) == "3599.00 s"


def test_ranks_compared_says_what_its_shares_are_of(tmp_path):
    """Kind: the console's "Ranks compared" table titled its columns "comm %" / "exposed comm %" without a basis
    (the analyzer divides by the rank's GPU span; HTML/JSON say so). Two ranks, each with one 100 µs kernel and one
    300 µs NCCL kernel after it on another stream: span 400 µs, comm 300 / 400 = 75.0 %."""
    from gpulens.reports.console import render

    for r in (0, 1):
        ev = [{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 0, "dur": 100,
               "args": {"device": 0, "stream": 7}},
              {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 13,
               "ts": 100, "dur": 300, "args": {"device": 0, "stream": 13}}]
        p = tmp_path / f"rank{r}.json"
        p.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": r, "world_size": 2},
                                 "traceEvents": ev}))
    rep = gpulens.analyze([tmp_path])
    rk = rep.sources[0].results["ranks"]
    assert list(rk.table["comm_pct"]) == [75.0, 75.0]
    text = render(rep, width=200)
    table = text[text.index("Ranks compared"):text.index("Kernel verdicts")]
    # the header wraps in its column: "comm (% of" / "rank's span)"
    assert "comm (% of" in table and "rank's span)" in table and table.count("75.0 %") == 4


def test_input_note_counts_the_other_warnings_plainly():
    """Kind: "(the other: 1 under Warnings)" read as if "the other" were a thing; now "(1 more under Warnings)"."""
    from types import SimpleNamespace

    from gpulens.reports import _warnings

    s = SimpleNamespace()
    orig = _warnings.input_warnings
    try:
        _warnings.input_warnings = lambda _s: ([], ["a.csv: first", "b.csv: second"])
        assert _warnings.input_note(s).endswith("a.csv: first (1 more under Warnings)")
        _warnings.input_warnings = lambda _s: (["finding one"], ["a.csv: first", "b.csv: second"])
        assert _warnings.input_note(s).endswith("finding one (2 more under Warnings)")
        _warnings.input_warnings = lambda _s: (["f1", "f2"], ["a.csv: first"])
        assert _warnings.input_note(s).endswith("f1 (2 more: 1 under Findings and 1 under Warnings)")
    finally:
        _warnings.input_warnings = orig


def test_copies_table_does_not_repeat_its_count_as_text():
    """Kind: the Copies table showed "3,153 │ 3153 of 3153 sizes unknown" (rocprofv3 MI350X): the count of unknown
    sizes twice, once without thousands separators. The table keeps the count; the summary's text has separators."""
    from gpulens.analyzers.copies import COLUMNS, _sizes_text

    assert "sizes" not in COLUMNS and "sizes_unknown" in COLUMNS
    assert _sizes_text(3153, 3153) == "3,153 of 3,153 sizes unknown"


def test_a_report_echoes_as_a_few_lines():
    """Kind: ``print(report)`` dumped 156,683 characters (every table and column document). Now one line per
    input: its label, status and kernel launches (the demo trace's kernel events, counted from the file below)."""
    from gpulens.cli.analyze import demo_trace_path

    path = demo_trace_path()
    with gzip.open(path, "rt") if str(path).endswith(".gz") else open(path) as f:
        launches = sum(1 for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X")
    rep = gpulens.analyze([path])
    text = repr(rep)
    assert len(text) < 600 and text.count("\n") == len(rep.sources)
    assert f"{launches:,} kernel launches" in text and ": ok," in text
    t = rep.sources[0].results["hotspots"].table
    n = len(rep.sources[0].results["hotspots"].findings)
    assert repr(rep.sources[0].results["hotspots"]) == (
        f"AnalysisResult('hotspots': {len(t):,} rows × {len(t.columns)} columns, {n} finding{'s' if n != 1 else ''})")
    assert isinstance(t, pd.DataFrame)


def test_per_rank_kernel_time_is_the_kernel_tables_time_in_a_folder_of_runaways(tmp_path):
    """Kind (fuzzing, s41): a folder of two copies of shared case B07 (one kernel recorded as a runaway) gave the
    summary's kernel_time_ns 6,000,180,000 ns — the recorded durations, 2 × 3,000,090 µs — beside the per-rank
    kernel times of the per-kernel tables (overruns clipped). Both are kept, each labelled: the per-rank sums equal
    the summary's kernel_effective_ns (what the per-kernel tables sum), and the recorded sum stays the plain sum."""
    from tests.conftest import CASES

    b07 = CASES / "B07.json"  # the shared case, copied into tests/data/cases
    raw = sum(e["dur"] for e in json.loads(b07.read_text())["traceEvents"]
              if e.get("cat") == "kernel" and e.get("ph") == "X")
    for r in (0, 1):
        doc = json.loads(b07.read_text())
        doc["distributedInfo"] = {"rank": r, "world_size": 2}
        (tmp_path / f"rank{r}.json").write_text(json.dumps(doc))
    src = gpulens.analyze([tmp_path]).sources[0]
    sm = src.summary
    assert sm["kernel_time_ns"] == 2 * raw * 1000
    by_rank = src.results["rank_kernels"].summary["kernel_time_ns_by_rank"]
    assert sum(by_rank.values()) == sm["kernel_effective_ns"] < sm["kernel_time_ns"]
