"""One definition per figure, leftovers (s39):

1. the kernel-verdict rows: console, Markdown and HTML show the same rows in the same order (the findings': largest
   time at stake first, since s46; the verdicts table's GPU-time order before), as many as the medium's limit
   (console: ``--top``), and say "top N of M" when rows are cut;
2. ``gpulens gate``'s three GPU-time metrics say what each counts (only GPU busy time holds copies);
3. a runaway LAST event of a stream (shared case B07's fault with no next kernel to clip it at) is cut at the end
   of the rest of the run, and warned with the recorded and kept durations.

Every expected value is worked out by hand from what the test writes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
from rich.console import Console

from gpulens.analyzers import AnalysisResult

# --- 1. verdict rows ---------------------------------------------------------------------------------------------

#: three critical kernels, most GPU time first (the verdicts table's order); the third has more time at stake
#: (900 µs) than the second (500 µs)
_VERDICTS = pd.DataFrame({
    "name": ["gemm_big_kernel", "softmax_mid_kernel", "copy_small_kernel"],
    "kind": ["kernel"] * 3,
    "time_ns": [5_000_000, 3_000_000, 1_000_000],
    "verdict": ["compute-bound", "memory-bound", "memory-bound"],
    "time_at_stake_ns": [1_000_000, 500_000, 900_000],
    "next_steps": [["step gemm"], ["step softmax"], ["step copy"]],
    "cumulative_share": [0.5, 0.8, 0.9],
})


def _source() -> SimpleNamespace:
    vd = AnalysisResult("verdicts", _VERDICTS.copy(), {"time_ns": "GPU time [ns]", "time_at_stake_ns": "at stake [ns]"},
                        {})
    return SimpleNamespace(results={"verdicts": vd}, label="t", timeline=None)


def _order(text: str) -> list[str]:
    """The kernels named in ``text``, in the order they first appear."""
    hits = sorted((text.index(n), n) for n in _VERDICTS["name"] if n in text)
    return [n for _, n in hits]


def test_console_verdict_rows_follow_top_and_say_what_was_cut():
    from gpulens.reports.console_verdicts import verdict_renderables

    console = Console(record=True, width=400)
    for r in verdict_renderables(_source(), top=2):
        console.print(r)
    text = " ".join(console.export_text().split())  # the title wraps over lines
    # --top 2: the two largest times at stake (1 ms, 900 µs; the 500 µs one left out); before s46 the first two by
    # GPU time, which hid copy_small_kernel's 900 µs below softmax_mid_kernel's 500 µs
    assert _order(text.split("┡", 1)[1]) == ["gemm_big_kernel", "copy_small_kernel"]  # the table's rows
    assert "top 2 of 3 critical kernels" in text and "largest time at stake first" in text


def test_console_top_zero_shows_no_verdict_rows_but_says_so():
    from gpulens.reports.console_verdicts import verdict_renderables

    console = Console(record=True, width=400)
    for r in verdict_renderables(_source(), top=0):
        console.print(r)
    text = console.export_text()
    assert _order(text) == [] and "3 critical kernels not shown (--top 0)" in text


def test_markdown_and_html_verdict_rows_are_the_consoles():
    from gpulens.reports._html_analyses import _verdict_panel
    from gpulens.reports.markdown import _verdict_section

    s = _source()
    md = " ".join(_verdict_section(s, s.results["verdicts"], 2).replace("\\_", "_").split())  # escapes undone
    assert _order(md[md.index("|---"):md.index("_Shown")]) == ["gemm_big_kernel", "copy_small_kernel"]
    assert "top 2 of 3 critical kernels" in md
    panel = _verdict_panel(s, s.results["verdicts"], 2)
    html = panel.table
    # the rows shown: the list before the cut's note and the folded table of every column
    listed = html[:html.index("Shown: the top")]
    assert _order(listed) == ["gemm_big_kernel", "copy_small_kernel"]
    assert "top 2 of 3 critical kernels" in html


# --- 2. gate labels ----------------------------------------------------------------------------------------------

def test_gate_busy_labels_say_what_each_counts():
    from gpulens.reports.gate_fmt import metric_label

    gpu = metric_label(SimpleNamespace(metric="gpu_busy_ns"))
    kern = metric_label(SimpleNamespace(metric="kernel_busy_ns"))
    summed = metric_label(SimpleNamespace(metric="kernel_time_ns"))
    # "GPU busy time 29.55 ms, improved" beside "kernel busy time 1.06 ms, regressed" read as one quantity: the
    # copies are only in the first — each label now says so (and none is clipped at the 60-character table width)
    assert "copies" in gpu and "union" in gpu and not gpu.endswith("…")
    assert "copies" not in kern and "only" in kern and "union" in kern
    assert "summed" in summed and "only" in summed
    docs = (Path(__file__).resolve().parents[1] / "docs" / "gate.md").read_text()
    for label in (gpu, kern, summed):  # docs/gate.md names each metric as the table does
        assert label in docs


# --- 3. a runaway last event of a stream -------------------------------------------------------------------------

def _trace(tmp_path: Path, kernels: list[tuple[str, int, int, int]], host_dur: int = 200) -> Path:
    """A Kineto trace: one CPU op at 50 µs lasting ``host_dur`` µs, one launch call per kernel (60, 70, … µs,
    5 µs each), and ``kernels`` as (name, stream, ts, dur) in µs on device 0."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "train_step", "pid": 1, "tid": 1, "ts": 50, "dur": host_dur}]
    for i, (n, stream, ts, dur) in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": 60 + 10 * i, "dur": 5, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": stream, "correlation": i + 1}})
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def _analyze(p: Path):
    from gpulens.report import analyze

    return analyze(p, only=["breakdown", "hotspots"]).sources[0]


def test_runaway_last_kernel_of_a_stream_is_cut_at_the_end_of_the_run(tmp_path):
    # stream 7: gemm_a 100–130, gemm_b 140–160, elementwise_c 170 + 3 s (last on its stream: nothing to clip it at);
    # stream 8: softmax_d 200–220; host: train_step 50–250 µs. Every other event ends by 250 µs; the rest of the
    # run lasts 250 − 50 = 200 µs; elementwise_c ends 3,000,170 − 250 = 2,999,920 µs past it (> 1000 × 200 µs).
    s = _analyze(_trace(tmp_path, [("gemm_a", 7, 100, 30), ("gemm_b", 7, 140, 20),
                                   ("elementwise_c", 7, 170, 3_000_000), ("softmax_d", 8, 200, 20)]))
    bd = s.results["breakdown"].summary
    hs = s.results["hotspots"]
    # kept: elementwise_c 170 → 250 µs = 80 µs. GPU span 100 → 250 = 150 µs; busy = 30 + 20 + 80 (softmax_d
    # 200–220 lies inside elementwise_c's 170–250) = 130 µs; profiled window 50 → 250 = 200 µs. Before: 3.00 s each.
    assert bd["span_ns"] == 150_000
    assert bd["busy_ns"] == 130_000
    assert bd["window_ns"] == 200_000
    assert hs.summary["kernel_effective_ns"] == (30 + 20 + 80 + 20) * 1000
    assert hs.summary["kernel_time_ns"] == (30 + 20 + 3_000_000 + 20) * 1000  # the recorded sum kept
    eff = dict(zip(hs.table["name"], hs.table["effective_ns"]))
    assert eff["elementwise_c"] == 80_000 and hs.table["name"].iloc[0] == "elementwise_c"
    f = [f for f in hs.findings if f.key == "runaways"]
    assert len(f) == 1 and f[0].severity == "warning"
    assert "recorded 3.00 s, kept 80.00 µs" in f[0].detail and "200.00 µs after the rank's first event" in f[0].detail
    # it is not called an overrun of a next event on its stream (it has none)
    assert not [x for x in hs.findings if x.key == "overruns"]
    assert [o["past_run_end"] for o in hs.summary["overruns"]] == [True]


def test_long_last_kernel_within_an_order_of_magnitude_is_kept(tmp_path):
    # the same run with elementwise_c lasting 1,500 µs: it ends at 1,670 µs, 1,420 µs past the rest (250 µs),
    # under 1000 × 200 µs — a long kernel, not a recording fault: nothing cut, span 100 → 1,670 µs
    s = _analyze(_trace(tmp_path, [("gemm_a", 7, 100, 30), ("gemm_b", 7, 140, 20),
                                   ("elementwise_c", 7, 170, 1_500), ("softmax_d", 8, 200, 20)]))
    assert s.results["breakdown"].summary["span_ns"] == 1_570_000
    assert not [f for f in s.results["hotspots"].findings if f.key == "runaways"]


def test_host_recording_that_covers_the_kernel_keeps_it(tmp_path):
    # the host's train_step lasts to 3,000,200 µs (a synchronize): the 3 s kernel ends inside the run — kept whole
    s = _analyze(_trace(tmp_path, [("gemm_a", 7, 100, 30), ("elementwise_c", 7, 170, 3_000_000)],
                        host_dur=3_000_150))
    assert s.results["breakdown"].summary["span_ns"] == 3_000_170_000 - 100_000


def test_repair_without_host_events_and_lone_kernels():
    from gpulens.analyzers.intervals import repair_stream_overruns

    # GPU-only: a 10 µs kernel then, on another stream, one of 1 s starting within it: 1 s − 10 µs past the rest,
    # which lasts 10 µs → cut at 10 µs (kept 5 µs); a lone kernel (no other work to bound it) is never cut
    gpu = pd.DataFrame({"rank": [0, 0], "device_id": [0, 0], "stream_id": [1, 2], "kind": ["kernel", "kernel"],
                        "start_ns": [0, 5_000], "dur_ns": [10_000, 1_000_000_000]})
    rep = repair_stream_overruns(gpu)
    assert rep["effective_ns"].tolist() == [10_000, 5_000] and rep["runaway"].tolist() == [False, True]
    lone = repair_stream_overruns(gpu.iloc[[1]], {"rank": [0], "start_ns": [0], "dur_ns": [1_000]})
    assert lone["effective_ns"].tolist() == [1_000_000_000]


def test_b07_case_unchanged():
    # shared case B07 (committed copy; README: busy 110 µs over span 100–220 µs, gemm_a kept 40 µs, elementwise_c
    # 30 µs after the stream clip): the runaway rule finds nothing there (softmax_d follows elementwise_c)
    from tests.conftest import CASES

    s = _analyze(CASES / "B07.json")
    assert s.results["breakdown"].summary["busy_ns"] == 110_000
    assert s.results["breakdown"].summary["span_ns"] == 120_000
    assert s.results["hotspots"].summary["runaway_events"] == 0
    assert re.search(r"2 GPU events overrun", " ".join(f.title for f in s.results["hotspots"].findings))
