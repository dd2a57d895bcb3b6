"""The dashboard gives the answer first, with one definition per figure (session 39).

Faults fixed, each checked here against figures derived by hand from the synthetic traces written in the test:

- the HTML timeline drew a kernel recorded past the start of the next kernel on its stream at its recorded length
  (shared case B07: a 3 s "kernel" in a 120 µs run) while every other figure clips it there: the stream timeline now
  draws the effective (overrun-clipped) duration every analyzer counts, and its caption says how many were clipped.
- the Summary's "Where the GPU time went" computed each part's share in the renderer (``100 * v / den``); the
  shares are now the analyzers' (breakdown ``part_pct``, bottlenecks ``idle_split_pct``), read by the HTML and the
  console alike.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from html import unescape

import pytest

US = 1000  # ns per µs


def _chrome(path, kernels, device=0):
    """A minimal Chrome-trace (Kineto-style) file of kernels ``(name, stream, start µs, dur µs)``."""
    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": device, "tid": f"stream {s}", "ts": ts, "dur": d,
           "args": {"device": device, "stream": s}} for n, s, ts, d in kernels]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return path


#: shared case B07's stream 7 (cases/README.md): gemm_a 100+50, gemm_b 140+20, elementwise_c 170+3,000,000 µs,
#: softmax_d 200+20 — two events overrun the next one's start (gemm_a by 10 µs, elementwise_c by 2,999,970 µs)
B07 = [("gemm_a", 7, 100, 50), ("gemm_b", 7, 140, 20), ("elementwise_c", 7, 170, 3_000_000), ("softmax_d", 7, 200, 20)]


@pytest.fixture(scope="module")
def b07(tmp_path_factory):
    from gpulens.report import analyze
    from gpulens.reports.html import render

    rep = analyze(str(_chrome(tmp_path_factory.mktemp("s39b07") / "b07.json", B07)))
    return rep, render(rep)


def _timeline_payload(page: str) -> dict:
    m = re.search(r'<script type="application/octet-stream" id="([^"]+)-data">([^<]+)</script>', page)
    assert m, "no embedded timeline"
    return json.loads(gzip.decompress(base64.b64decode(m.group(2))))


def test_timeline_draws_an_overrunning_kernel_clipped_at_the_next_start(b07):
    _, page = b07
    d = _timeline_payload(page)
    drawn = {d["names"][n]: (off, dur) for n, off, dur in zip(d["name"], d["off"], d["dur"])}
    # by hand, clipping each kernel at the next start on stream 7 (origin 100 µs):
    # gemm_a 100 → min(150, 140) = 40 µs; gemm_b 140 → 160 = 20 µs; elementwise_c 170 → min(3,000,170, 200) = 30 µs;
    # softmax_d 200 → 220 = 20 µs (the last one, nothing after it)
    assert drawn == {"gemm_a": (0, 40 * US), "gemm_b": (40 * US, 20 * US), "elementwise_c": (70 * US, 30 * US),
                     "softmax_d": (100 * US, 20 * US)}
    assert d["span"] == 120 * US  # 100 µs → 220 µs, not 100 µs → 3,000,170 µs
    text = unescape(page)
    # the caption says so: 2 events clipped, 10 + 2,999,970 µs = 2,999,980 µs ≈ 3.00 s in all
    assert "over 120.00 µs" in text
    assert "2 GPU events recorded past the start of the next one on their stream (3.00 s in all) are drawn clipped" \
        in text


def test_timeline_extent_agrees_with_the_gpu_span_of_every_report(b07):
    rep, _ = b07
    s = rep.sources[0]
    # one definition of a GPU event's time: the timeline's extent is the breakdown's GPU span (220 − 100 µs)
    assert s.results["stream_timeline"].summary["extent_ns"] == s.results["breakdown"].summary["span_ns"] == 120 * US


def _where_rows(page: str) -> dict[str, tuple[str, str]]:
    """"Where the GPU time went" data table: part → (time text, share text)."""
    m = re.search(r"<h3>Where the GPU time went</h3>.*?<tbody>(.*?)</tbody>", page, re.S)
    assert m, "no 'Where the GPU time went' panel"
    return {unescape(a): (unescape(b), unescape(c)) for a, b, c in re.findall(
        r"<tr[^>]*><th scope='row'>([^<]*)</th><td class='num'[^>]*>([^<]*)</td><td class='num'>([^<]*)</td></tr>",
        m.group(1))}


def test_where_the_time_went_shares_are_the_breakdown_figures(b07):
    rep, page = b07
    bd = rep.sources[0].results["breakdown"].summary
    # by hand: busy = union of the clipped kernels = 40 + 20 + 30 + 20 = 110 µs of the 120 µs span; idle 10 µs
    # (160 → 170 µs); computation 110 / 120 = 91.67 %, idle 10 / 120 = 8.33 %
    assert bd["part_pct"]["computation_ns"] == pytest.approx(100 * 110 / 120)
    assert bd["part_pct"]["idle_ns"] == pytest.approx(100 * 10 / 120)
    assert bd["part_pct"]["exposed_comm_ns"] == 0.0
    assert "not_in_parts_ns" not in bd["part_pct"]  # the parts add up to the span
    rows = _where_rows(page)
    assert rows["computation"] == ("110.00 µs", "91.7 %")
    assert rows["idle"] == ("10.00 µs", "8.3 %")
    assert rows["= GPU span"] == ("120.00 µs", "100.0 %")


def test_where_the_time_went_reads_the_share_from_the_results_not_the_renderer(b07):
    """The renderer computes no share: a figure put in the analysis results is the one the page prints."""
    import copy

    from gpulens.reports.html import render

    rep, _ = b07
    rep2 = copy.deepcopy(rep)
    bd = rep2.sources[0].results["breakdown"]
    bd.summary["part_pct"] = {**bd.summary["part_pct"], "computation_ns": 12.34}
    rows = _where_rows(render(rep2))
    assert rows["computation"] == ("110.00 µs", "12.3 %")  # not 110 / 120 recomputed


def test_console_breakdown_prints_the_same_shares(b07):
    from rich.console import Console

    from gpulens.reports.console import breakdown_renderable

    rep, _ = b07
    s = rep.sources[0]
    con = Console(width=100, record=True)
    con.print(breakdown_renderable(s.results["breakdown"], bn=s.results.get("bottlenecks")))
    out = con.export_text()
    assert re.search(r"computation\s+│\s+110\.00 µs\s+│\s+91\.7 %", out)
    assert re.search(r"idle\s+│\s+10\.00 µs\s+│\s+8\.3 %", out)


def test_part_shares_of_several_gpus_are_of_their_summed_spans(tmp_path):
    """Two GPUs: GPU 0 runs 0–100 µs and 150–200 µs (span 200 µs, idle 50 µs); GPU 1 runs 0–300 µs (span 300 µs,
    idle 0). Summed spans 500 µs; computation 50 + 100 + 300 = 450 µs = 90 %, idle 50 µs = 10 %."""
    from gpulens.report import analyze

    p0 = _chrome(tmp_path / "g0.json", [("k0", 7, 0, 100), ("k1", 7, 150, 50)], device=0)
    p1 = _chrome(tmp_path / "g1.json", [("k2", 7, 0, 300)], device=1)
    text = json.loads(p0.read_text())
    text["traceEvents"] += json.loads(p1.read_text())["traceEvents"]
    p = tmp_path / "two.json"
    p.write_text(json.dumps(text))
    from gpulens.reports.html import render

    rep = analyze(str(p))
    bd = rep.sources[0].results["breakdown"].summary
    assert bd["device_span_ns"] == 500 * US
    assert bd["part_pct"]["computation_ns"] == pytest.approx(90.0)
    assert bd["part_pct"]["idle_ns"] == pytest.approx(10.0)
    page = render(rep)
    rows = _where_rows(page)
    assert rows["computation"] == ("450.00 µs", "90.0 %") and rows["idle"] == ("50.00 µs", "10.0 %")
    assert rows["= summed GPU spans"] == ("500.00 µs", "100.0 %")
    # the Time breakdown tab names the same denominator (the analysis's summed spans, not a sum redone here)
    assert "was busy and 10.0 % idle" in unescape(page) and "90.0 % of their summed spans (500.00 µs)" in unescape(page)


# ---- gpulens gate --html -----------------------------------------------------------------------------------------

GATE_ENV = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
            "runtime": "12040", "torch": None, "collectors": ["kineto"], "tool_version": "0.1.0"}
#: baseline step samples [ms]: symmetric in log around 1 ms, so their geometric mean is exactly 1 ms
BASE_MS = [1.0, 1.02, 1 / 1.02, 1.0, 1.01, 1 / 1.01]
SLOW = "void gemm_kernel<<b>bold</b>>"  # a name that must be escaped


def gate_result(slow: str = SLOW, factor: float = 1.3):
    """Baseline and candidate of 6 runs: the span and the kernel ``slow`` ``factor``× slower in the candidate, a
    second kernel unchanged (the same samples). Returns the gate result with its exit code set."""
    from gpulens.gate import GateConfig, exit_code, run_gate
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet

    def metrics(f):
        return {"span_ns": Metric("span_ns", "timing", "ns", [1e6 * f * x for x in BASE_MS]),
                "kernel:" + slow: Metric("kernel:" + slow, "timing", "ns", [6e5 * f * x for x in BASE_MS],
                                         share=[0.6] * 6, calls=[4] * 6),
                "kernel:steady_kernel": Metric("kernel:steady_kernel", "timing", "ns", [4e5 * x for x in BASE_MS],
                                               share=[0.4] * 6, calls=[4] * 6),
                "kernel_count": Metric("kernel_count", "count", "", [8.0] * 6)}

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(6)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", GATE_ENV, runs, metrics(1.0))
    res = run_gate(base, RunSet(runs, [], GATE_ENV, "h100-x1", 1, metrics(factor)), GateConfig())
    res.exit_code = exit_code(res)
    return res


@pytest.fixture(scope="module")
def gate_page():
    """:func:`gate_result` (``SLOW`` 1.3× slower) and its HTML page."""
    from gpulens.reports.gate_html import render

    res = gate_result()
    return res, render(res)


def test_gate_page_opens_with_the_verdict_and_the_exit_code(gate_page):
    res, page = gate_page
    assert res.verdict == "REGRESSED"
    m = re.search(r'<span class="verdict REGRESSED">([^<]*)</span> <span class="exit">([^<]*)</span>', page)
    assert m and m.group(1) == "▲ REGRESSED" and m.group(2) == "exit code 1: the job fails: a regression"
    assert page.index('class="verdict') < page.index('id="chart-gate"') < page.index('id="metrics"')
    assert "<title>gpulens gate: REGRESSED</title>" in page


def test_gate_chart_draws_the_timings_that_regressed_with_their_figures(gate_page):
    _, page = gate_page
    fig = re.search(r'<figure class="dchart" id="chart-gate".*?</figure>', page, re.S).group(0)
    rows = [unescape(t) for t in re.findall(r'<span class="px">([^<]*)</span>', fig)]
    # geometric means by hand: baseline 1 ms (samples symmetric in log), candidate 1.3 × 1 ms = 1.30 ms, +30.0 %;
    # the kernel: 0.6 ms → 0.78 ms. The unchanged kernel passed: not drawn.
    assert len(rows) == 2
    assert any(r.startswith("1.00 ms → 1.30 ms · ▲ REGRESSED +30.0 %") for r in rows)
    assert any(r.startswith("600.00 µs → 780.00 µs · ▲ REGRESSED +30.0 %") for r in rows)
    assert "steady_kernel" not in fig
    assert all(r.endswith("band ±5.0 %") for r in rows)


def test_gate_table_states_threshold_noise_and_band(gate_page):
    import numpy as np

    _, page = gate_page
    table = re.search(r'<section id="metrics">.*?</section>', page, re.S).group(0)
    span = re.search(r'<tr class="gating-REGRESSED"><td class="v">▲ REGRESSED</td><td title="span_ns">GPU span</td>'
                     r'(.*?)</tr>', table).group(1)
    cells = [unescape(c) for c in re.findall(r'<td class="n">([^<]*)</td>', span)]
    # baseline noise = 1.4826 · MAD / median of the baseline samples (docs/gate.md), by hand with numpy
    x = np.array(BASE_MS)
    noise = 1.4826 * np.median(np.abs(x - np.median(x))) / np.median(x)
    assert f"{100 * noise:.1f}" == "1.5"
    # baseline, candidate, change, CI, p, threshold, noise, band (max(5 %, 2 × 1.5 %) = 5 %)
    assert cells[0] == "1.00 ms" and cells[1] == "1.30 ms" and cells[2] == "+30.0 %"
    assert cells[5:] == ["±5.0 %", "±1.5 %", "±5.0 %"]
    assert "how it decided" in page and "PASS band = max(threshold, 2.0 × baseline noise)" in unescape(page)


def test_gate_page_is_self_contained_and_escapes_names(gate_page):
    _, page = gate_page
    assert "<script" not in page and "http" not in page  # no script, no network
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page


def test_gate_markdown_and_html_state_the_same_method(gate_page):
    from gpulens.reports.gate_fmt import method_text
    from gpulens.reports.gate_markdown import render as md

    res, page = gate_page
    assert method_text(res) in md(res) and method_text(res) in unescape(page)
    # the configuration's figures in it: α 0.01, threshold 5 %, 1 % kernel floor (GateConfig defaults)
    assert "α = 0.01" in method_text(res) and "the 5 % threshold" in method_text(res)


def test_a_time_just_under_a_unit_reads_in_that_unit():
    """A geometric mean of 999,999.99 ns printed "1000.00 µs" beside "1.30 ms": rounded to its 2 decimals it is
    1.00 ms, and a value that the smaller unit would print as 1000 reads in the larger one."""
    from gpulens.units import fmt_ns

    assert fmt_ns(999_999.99) == "1.00 ms"
    assert fmt_ns(999_999_999.9) == "1.00 s"
    assert fmt_ns(999.6) == "1.00 µs"
    assert fmt_ns(999_994) == "999.99 µs"  # prints below 1000 in µs: stays in µs
    assert fmt_ns(999.4) == "999 ns"
    assert fmt_ns(-999_999.99) == "-1.00 ms"


def test_gate_cli_writes_the_html_page_and_never_over_a_trace(tmp_path):
    """``gpulens gate --html``: 2 base runs, 2 runs with the GEMM 1.3× slower (tests.gate_traces); the page is
    written with the verdict the JSON states, and a trace given as the --html path is refused (exit 2), unchanged."""
    from gpulens.cli import main
    from tests.gate_traces import make_trace

    def report(name, seeds, **kw):
        traces = [make_trace(tmp_path / f"{name}{s}.json", seed=s, steps=2, **kw) for s in seeds]
        out = tmp_path / f"{name}.report.json"
        assert main(["analyze", "-q", "--no-cache", *map(str, traces), "--json", str(out)]) == 0
        return out

    base, cand = report("base", (1, 2)), report("slow", (11, 12), gemm_scale=1.3)
    page, js = tmp_path / "gate.html", tmp_path / "gate.json"
    code = main(["gate", "-q", "--baseline", str(base), str(cand), "--html", str(page), "--json", str(js)])
    verdict = json.loads(js.read_text())["verdict"]
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and f"<title>gpulens gate: {verdict}</title>" in text
    assert f"exit code {code}" in text
    trace = tmp_path / "base1.json"
    before = trace.read_bytes()
    assert main(["gate", "-q", "--baseline", str(base), str(cand), "--html", str(trace)]) == 2
    assert trace.read_bytes() == before
    both = tmp_path / "both.out"  # one file for two reports: refused before anything is written
    assert main(["gate", "-q", "--baseline", str(base), str(cand), "--html", str(both), "--markdown", str(both)]) == 2
    assert not both.exists()


def test_where_the_time_went_split_idle_shares_are_the_bottlenecks_figures(tmp_path):
    """One stream: k0 at 100 µs, then a 1,000 µs one-off gap, then 4 kernels 10 µs apart (each 10 µs). Span 100 →
    1,180 µs = 1,080 µs; busy 5 × 10 = 50 µs (4.6 %); idle 1,030 µs = the one-off gap 1,000 µs (92.6 %, ≥ 10 × the
    other gaps' 10 µs) + 3 × 10 µs of steady idle (2.8 %)."""
    from gpulens.report import analyze
    from gpulens.reports.html import render

    p = _chrome(tmp_path / "split.json", [("k0", 7, 100, 10), ("k1", 7, 1110, 10), ("k2", 7, 1130, 10),
                                          ("k3", 7, 1150, 10), ("k4", 7, 1170, 10)])
    rep = analyze(str(p))
    bn = rep.sources[0].results["bottlenecks"].summary
    assert bn["idle_split_pct"]["idle_boundary_ns"] == pytest.approx(100 * 1000 / 1080)
    assert bn["idle_split_pct"]["steady_idle_ns"] == pytest.approx(100 * 30 / 1080)
    rows = _where_rows(render(rep))
    assert rows["computation"] == ("50.00 µs", "4.6 %")
    assert rows["idle: steady state"] == ("30.00 µs", "2.8 %")
    assert rows["idle: one-off gaps (left out of the verdict)"] == ("1.00 ms", "92.6 %")
    assert rows["= GPU span"] == ("1.08 ms", "100.0 %")
