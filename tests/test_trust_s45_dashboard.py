"""The dashboard answers "which kernels, why, what to do" on its first screen (session 45).

Faults fixed, each checked against figures derived by hand from inputs written in the test:

- the gate page's chart drew the whole-run timings first and every row on one scale, so the regressed kernel — the
  cause its headline names first — came last and as the thinnest bars (a kernel of 2 % of the run: bars 2 % of the
  track). The chart now leads with the kernels, then the whole-run timings, each group on its own scale.
- the Timeline tab drew a bar merging several events (one time bin of a large run) as a solid block from the first
  start to the last end: 590 memsets busy 2.90 ms on one stream of rocprofv3 MI350X looked like 1.5 s of memsets.
  A merged bar is now as thick as its busy share of its span (the page's script, run with node).
"""

from __future__ import annotations

import re
from html import unescape

import pytest

GATE_ENV = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
            "runtime": "12040", "torch": None, "collectors": ["kineto"], "tool_version": "0.1.0"}
#: run samples (factors): symmetric in log around 1, so their geometric mean is exactly 1
NOISE = [1.0, 1.02, 1 / 1.02, 1.0, 1.01, 1 / 1.01]
SMALL = "flash_fwd_kernel"


@pytest.fixture(scope="module")
def gate_page():
    """Baseline and candidate of 6 runs: the span 1 ms → 1.1 ms, a 20 µs kernel ``SMALL`` (2 % of the span)
    1.5× slower (20 → 30 µs), and a 600 µs kernel unchanged (the same samples)."""
    from gpulens.gate import GateConfig, exit_code, run_gate
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet
    from gpulens.reports.gate_html import render

    def metrics(span_f, small_f):
        return {"span_ns": Metric("span_ns", "timing", "ns", [1e6 * span_f * x for x in NOISE]),
                "kernel:" + SMALL: Metric("kernel:" + SMALL, "timing", "ns", [2e4 * small_f * x for x in NOISE],
                                          share=[0.03] * 6, calls=[4] * 6),
                "kernel:big_gemm": Metric("kernel:big_gemm", "timing", "ns", [6e5 * x for x in NOISE],
                                          share=[0.9] * 6, calls=[4] * 6)}

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(6)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", GATE_ENV, runs, metrics(1.0, 1.0))
    res = run_gate(base, RunSet(runs, [], GATE_ENV, "h100-x1", 1, metrics(1.1, 1.5)), GateConfig())
    res.exit_code = exit_code(res)
    return res, render(res)


def _chart_rows(page):
    fig = re.search(r'<figure class="dchart" id="chart-gate".*?</figure>', page, re.S).group(0)
    heads = [unescape(h) for h in re.findall(r'<span class="dgroup">([^<]*)</span>', fig)]
    rows = re.findall(r'<span class="pl" title="([^"]*)">[^<]*</span><span class="pt"[^>]*><span class="pb b" '
                      r'style="width:([0-9.]+)%[^"]*"></span><span class="pb c" style="width:([0-9.]+)%', fig)
    return fig, heads, [(unescape(m), float(b), float(c)) for m, b, c in rows]


def test_gate_chart_leads_with_the_regressed_kernel_on_its_own_scale(gate_page):
    res, page = gate_page
    assert res.verdict == "REGRESSED"
    # the table keeps the one documented order (whole-run timings lead their verdict group) ...
    assert [m.metric for m in res.metrics if m.verdict == "REGRESSED"] == ["span_ns", "kernel:" + SMALL]
    fig, heads, rows = _chart_rows(page)
    # ... the chart leads with the cause: the kernel group, then the whole run
    assert heads == ["kernels", "whole run"] and fig.index("kernels") < fig.index("whole run")
    assert [r[0] for r in rows] == ["kernel:" + SMALL, "span_ns"]
    # own scale per group: the kernel's candidate (30 µs) is its group's full track, its baseline 20/30 of it;
    # on the run's scale (1.1 ms) it would have been 30/1100 = 2.7 %
    (_, kb, kc), (_, sb, sc) = rows
    assert kc == pytest.approx(100.0) and kb == pytest.approx(100 * 20 / 30, abs=0.01)
    assert sc == pytest.approx(100.0) and sb == pytest.approx(100 / 1.1, abs=0.01)
    assert "one scale per group (kernels; whole run)" in unescape(fig)
    assert "big_gemm" not in fig  # it passed


def test_gate_chart_of_kernels_only_has_no_group_headings():
    """A chart with one group (only kernels did not pass) draws no heading and says 'on one scale'."""
    from gpulens.gate import GateConfig, exit_code, run_gate
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet
    from gpulens.reports.gate_html import render

    def metrics(f):
        return {"kernel:" + SMALL: Metric("kernel:" + SMALL, "timing", "ns", [2e5 * f * x for x in NOISE],
                                          share=[0.5] * 6, calls=[4] * 6),
                "kernel:other": Metric("kernel:other", "timing", "ns", [2e5 * x for x in NOISE],
                                       share=[0.5] * 6, calls=[4] * 6)}

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(6)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", GATE_ENV, runs, metrics(1.0))
    res = run_gate(base, RunSet(runs, [], GATE_ENV, "h100-x1", 1, metrics(1.3)), GateConfig())
    res.exit_code = exit_code(res)
    fig, heads, rows = _chart_rows(render(res))
    assert heads == [] and [r[0] for r in rows] == ["kernel:" + SMALL]
    assert "on one scale" in unescape(fig)


def test_gate_chart_of_incomparable_runs_does_not_say_the_timings_decided():
    """Other GPU model: the verdict is INCOMPARABLE whatever the timings; the chart (still drawn: the figures side by
    side) was titled "The timings that decide the verdict", and its caption did not say what ≠ means."""
    from gpulens.gate import GateConfig, exit_code, run_gate
    from gpulens.gate.baseline import Baseline
    from gpulens.gate.runs import Metric, RunSet
    from gpulens.reports.gate_html import render

    def metrics(f):
        return {"span_ns": Metric("span_ns", "timing", "ns", [1e6 * f * x for x in NOISE])}

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(6)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", GATE_ENV, runs, metrics(1.0))
    other = {**GATE_ENV, "gpus": ["NVIDIA H200"]}
    res = run_gate(base, RunSet(runs, [], other, "h200-x1", 1, metrics(1.3)), GateConfig())
    res.exit_code = exit_code(res)
    assert res.verdict == "INCOMPARABLE"
    fig, heads, rows = _chart_rows(render(res))
    assert "decide the verdict" not in fig and "not judged: the runs are not comparable" in fig
    assert "≠ not judged (not comparable)" in unescape(fig) and [r[0] for r in rows] == ["span_ns"]


# --- the timeline's merged bars -------------------------------------------------------------------------------------

NODE_HARNESS = r"""
const fs = require('fs');
const [jsPath, payloadPath] = process.argv.slice(2);
global.window = global;
const payload = fs.readFileSync(payloadPath, 'utf8');
window.gpulensInflate = () => Promise.resolve(payload);
global.document = {getElementById: () => ({textContent: JSON.stringify({data: [], layout: {}})})};
const div = {getAttribute: (k) => k, closest: () => ({querySelector: () => null}), on: () => {}, layout: {}};
const P = {react: (d, traces) => { console.log(JSON.stringify(traces.slice(1))); return Promise.resolve(); },
           relayout: () => Promise.resolve()};
eval(fs.readFileSync(jsPath, 'utf8'));
window.gpulensTimeline(div, P, {});
"""


def _chrome(path, kernels):
    """A minimal Chrome-trace (Kineto-style) file of kernels ``(name, stream, start µs, dur µs)`` on GPU 0."""
    import json

    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": f"stream {s}", "ts": ts, "dur": d,
           "args": {"device": 0, "stream": s}} for n, s, ts, d in kernels]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return path


def test_timeline_draws_a_merged_bar_as_thick_as_its_busy_share(tmp_path):
    """v3_json_mi350x: 590 memsets (2.90 ms busy) on stream 19 were drawn, merged per 37.81 ms bin, as solid bars
    spanning ~1.5 s — a stream that looked busy with memsets for 1.5 s. A merged bar spans first start → last end;
    its thickness is now 0.8 (a lane's full bar) × its busy share of that span, at least 15 % of it."""
    import json
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node (to run the page's script) is not installed")
    import gpulens
    from gpulens.analyzers.stream_timeline import StreamTimeline
    from gpulens.reports._html_timeline import TIMELINE_JS, _payload

    # µs; two time bins of 700 µs (extent 0 → 1400 µs): stream 7's first bin merges 3 kernels busy 30 µs over
    # 0 → 100 µs (share 0.3), its second bin holds one 400 µs kernel; stream 9's first bin merges 2 kernels busy
    # 2 µs over 0 → 601 µs (share 0.0033: drawn at the 15 % floor)
    trace = _chrome(tmp_path / "t.json", [("a", 7, 0, 10), ("a", 7, 50, 10), ("a", 7, 90, 10), ("big", 7, 1000, 400),
                                          ("b", 9, 0, 1), ("b", 9, 600, 1)])
    r = StreamTimeline(max_segments=4, bins=2, min_bins=2).analyze(gpulens.collect(trace))
    assert r.summary["decimated"]
    payload, _ = _payload(r.table, r.summary, 100)
    (tmp_path / "payload.json").write_text(json.dumps(payload))
    (tmp_path / "timeline.js").write_text(TIMELINE_JS)
    (tmp_path / "harness.js").write_text(NODE_HARNESS)
    out = subprocess.run([node, str(tmp_path / "harness.js"), str(tmp_path / "timeline.js"),
                          str(tmp_path / "payload.json")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    traces = json.loads(out.stdout.splitlines()[0])
    bars = {(y, round(x * 1000)): w for tr in traces for y, x, w in zip(tr["y"], tr["x"], tr["width"])}
    s7, s9 = "rank 0 · GPU 0 · stream 7", "rank 0 · GPU 0 · stream 9"
    # (lane, drawn length µs) → thickness: 0.8 × 30/100; 0.8 (one event); 0.8 × 0.15 (2/601 under the floor)
    assert bars == {(s7, 100): pytest.approx(0.8 * 0.3), (s7, 400): pytest.approx(0.8),
                    (s9, 601): pytest.approx(0.8 * 0.15)}


def test_timeline_caption_of_a_run_with_no_finer_level_points_to_perfetto(tmp_path):
    """8 ranks × 25,000 kernels: only the whole-run level fits the budget. The caption read "finer levels for 0 zoom
    steps where they fit … Zoom (drag) to see single kernels", which zooming there cannot do."""
    from types import SimpleNamespace

    import gpulens
    from gpulens.analyzers.stream_timeline import StreamTimeline
    from gpulens.reports._html_timeline import timeline_page

    trace = _chrome(tmp_path / "t.json", [("a", 7, 0, 10), ("a", 7, 50, 10), ("a", 7, 90, 10), ("big", 7, 1000, 400)])
    tl = gpulens.collect(trace)
    coarse = StreamTimeline(max_segments=2, bins=2, min_bins=2).analyze(tl)
    assert coarse.summary["decimated"] and set(coarse.table["level"]) == {0}
    take = timeline_page(SimpleNamespace(results={"stream_timeline": coarse}), 50, 100)[0].takeaway
    assert "0 zoom steps" not in take and "no finer level within the report's size budget" in take
    assert "Zoom (drag) to see single kernels" not in take and "--perfetto" in take
    # every event fits: each drawn on its own, and zooming does show single kernels
    fine = StreamTimeline().analyze(tl)
    take = timeline_page(SimpleNamespace(results={"stream_timeline": fine}), 50, 100)[0].takeaway
    assert "each event drawn on its own" in take and "Zoom (drag) to see single kernels" in take


def test_stacked_chart_with_one_part_left_keeps_its_legend_and_colour():
    """8 ranks whose idle is all 'queued' (host, launch and sync idle 0 ns): the "Why the GPU was idle" chart drew
    one trace, which plotly shows without a legend — blue bars, no cause named — and in blue, the colour "idle: host"
    has on other reports (colours went by position among the parts left, not among the parts)."""
    import pandas as pd

    from gpulens.reports._html_analyses import _stacked
    from gpulens.reports._html_parts import OKABE_ITO

    parts = [("idle_host_ns", "idle: host"), ("idle_launch_ns", "idle: launch"), ("idle_sync_ns", "idle: sync"),
             ("idle_queued_ns", "idle: queued")]
    t = pd.DataFrame({"idle_host_ns": [0, 0], "idle_launch_ns": [0, 0], "idle_sync_ns": [0, 0],
                      "idle_queued_ns": [24_890_000, 25_030_000]})
    fig = _stacked(t, ["rank 0 · GPU 0", "rank 1 · GPU 0"], parts, 1e6, "idle time [ms]", "ms")
    assert [d["name"] for d in fig["data"]] == ["idle: queued"] and fig["layout"]["showlegend"] is True
    assert fig["data"][0]["marker"]["color"] == OKABE_ITO[3]
    both = _stacked(t.assign(idle_host_ns=[1, 1]), ["a", "b"], parts, 1e6, "idle time [ms]", "ms")
    assert [d["marker"]["color"] for d in both["data"]] == [OKABE_ITO[0], OKABE_ITO[3]]


def test_hot_kernels_caption_without_durations_words_the_set_as_key_figures_do():
    """omniperf vcopy MI300X (a counter run: 3 vecCopy dispatches, no usable start/end): the Hot kernels caption
    read "1 of 1 kernel covers unknown of the unknown of kernel time"; it now words the set as the Key figures row
    does ("1 kernel, ranked by calls: durations not recorded"). A timed run keeps its share (MI200: 100 %)."""
    from pathlib import Path

    import gpulens
    from gpulens.reports import _html_pages as P

    data = Path(__file__).parent / "data" / "omniperf"
    s = gpulens.analyze([data / "vcopy_MI300X_A1"]).sources[0]
    take = P.kernels_page(s, 50)[0].takeaway
    assert "unknown of the unknown" not in take
    assert take == "Of 1 kernel, the performance-critical set: 1 kernel, ranked by calls: durations not recorded."
    timed = gpulens.analyze([data / "vcopy_MI200"]).sources[0]
    assert P.kernels_page(timed, 50)[0].takeaway.startswith("1 of 1 kernel covers 100.0 % of the ")


def test_roofline_caption_says_why_each_left_out_kernel_is_not_plotted():
    """A hot kernel is plotted when its arithmetic intensity and attained FLOP/s are above 0. The caption counted
    every other one "without a FLOP/byte figure": omniperf vecCopy (0 FLOP/B and 0 FLOP/s in the table beside it),
    H200 GPT-2's two copy kernels. Now per reason."""
    from pathlib import Path

    import numpy as np
    import pandas as pd

    import gpulens
    from gpulens.reports._html_roofline import _left_out, roofline_page

    t = pd.DataFrame({"arithmetic_intensity": [100.0, 0.0, np.nan, 2.0, 0.0],
                      "flops_per_s": [1e12, 0.0, np.nan, np.nan, 0.0]})
    assert _left_out(t, t.iloc[:1]) == ("2 with 0 FLOPs (data movement only: no point on the log axes), 1 without "
                                        "a FLOP/byte figure, 1 without an attained FLOP/s (no duration)")
    s = gpulens.analyze([Path(__file__).parent / "data" / "omniperf" / "vcopy_MI300X_A1"]).sources[0]
    take = roofline_page(s, 50)[0].takeaway
    assert "0 of 1 hot kernel plotted" in take and "without a FLOP/byte figure" not in take
    assert take.endswith("Only in the table: 1 with 0 FLOPs (data movement only: no point on the log axes).")


# --- one rounding rule for a percentage -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_page():
    """The HTML report of the shipped H100 demo trace."""
    import gpulens
    from gpulens.reports import html

    return html.render(gpulens.analyze([gpulens.demo_trace()]))


def test_kernel_page_bars_round_a_percentage_as_its_table_does(demo_page):
    """The demo's cutlass_80_wmma_tensorop 32x32 128x2 kernel: 128-thread blocks, 5 blocks/SM on an H100 (64 warps
    per SM) → 5 × 4 warps / 64 = 31.25 % theoretical occupancy. Its kernel page's occupancy bar read "31.2 %"
    (``f"{31.25:.1f}"``, halves to even) beside "31.3 %" in its table and its verdict's evidence (halves up)."""
    from gpulens.reports._html_kernel import _bars

    assert "31.3 %" in _bars([("theoretical", 31.25)]) and "31.2 %" not in _bars([("theoretical", 31.25)])
    page = re.search(r'<section class="kpage" id="kp-0-0".*?</section>', demo_page, re.S).group(0)
    assert "cutlass_80_wmma_tensorop" in page
    bar = re.search(r'<span>theoretical</span><span class="bar">.*?<span class="num">([^<]*)</span>', page, re.S)
    assert bar and unescape(bar.group(1)) == "31.3 %"
    assert "31.2 %" not in unescape(page) and unescape(page).count("31.3 %") >= 2


# --- the multi-rank caption -----------------------------------------------------------------------------------------

def test_hidden_communication_caption_reads_per_rank_or_as_one_figure():
    """8 ranks of the benchmark run hid no communication: the caption listed "rank 0 0.0 %, rank 1 0.0 %, … rank 7
    0.0 %" (a rank id and a percentage run together, eight times). Now one figure when all print alike, "rank r: x"
    up to 8 ranks, the range with its ranks beyond."""
    import pandas as pd

    from gpulens.reports._html_pages import _hidden_text

    same = _hidden_text(pd.DataFrame({"rank": range(8), "overlap_pct": [0.0] * 8}))
    assert same.endswith(": 0.0 % on every rank.") and "rank 0" not in same
    two = _hidden_text(pd.DataFrame({"rank": [0, 1], "overlap_pct": [14.95, 19.9]}))
    assert two.endswith(": rank 0: 15.0 %, rank 1: 19.9 %.")  # 14.95 → 15.0: halves up, as every table cell
    many = _hidden_text(pd.DataFrame({"rank": range(16), "overlap_pct": [5.0 + r for r in range(16)]}))
    assert many.endswith(": from 5.0 % (rank 0) to 20.0 % (rank 15).")



def test_summary_answers_first_kernels_with_bound_stake_and_step_before_any_chart(demo_page):
    """The demo's Summary tab, in order: the answer banner, the kernels that matter (each with its bound, time at
    stake and next step), then "Where the GPU time went" (the first chart), Key figures, Findings. The #1 kernel and
    its GPU time come from the trace file itself (sum of its kernel events' durations)."""
    import gzip
    import json
    from collections import defaultdict

    import gpulens

    page = demo_page[demo_page.index('id="page-summary"'):demo_page.index('id="page-breakdown"')]
    marks = ['class="answer', 'class="akernels"', "Where the GPU time went", '<div class="chart', "Key figures",
             "Findings"]
    at = [page.find(m) for m in marks]
    assert -1 not in at and at == sorted(at), dict(zip(marks, at))
    table = page[at[1]:page.index("</table>", at[1])]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    assert len(rows) == 5
    for row in rows:  # every kernel that matters has a bound, a time at stake and a next step
        assert re.search(r'<span class="bound [^"]*"', row) and 'class="num tstake"' in row
        assert re.search(r'<td class="step"[^>]*>[^<\s]', row)
    events = json.loads(gzip.open(gpulens.demo_trace()).read())["traceEvents"]
    total = defaultdict(float)
    for e in events:
        if e.get("cat") == "kernel":
            total[e["name"]] += e["dur"]
    top, us = max(total.items(), key=lambda kv: kv[1])
    assert "cutlass_80_wmma_tensorop" in top and re.search(r"cutlass_80_wmma_tensorop", rows[0])
    assert f"{us:.2f} µs" in unescape(rows[0])  # 98.72 µs


def test_timeline_shading_is_no_event_kinds_colour():
    """The windows where single events are embedded were shaded in memset's green (#009E73 at 10 %): on rocprofv3
    MI350X the shaded region held stream 19's memsets. The shading's colour is now none of the kinds'."""
    from gpulens.reports._html_parts import KIND_COLOURS
    from gpulens.reports._html_timeline import HOST_COLOURS, TIMELINE_JS

    shade = re.search(r"fillcolor:'rgba\((\d+),(\d+),(\d+),[0-9.]+\)'", TIMELINE_JS)
    rgb = tuple(int(x) for x in shade.groups())
    kinds = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in [*KIND_COLOURS.values(), *HOST_COLOURS.values()]}
    assert rgb not in kinds and "(shaded yellow)" in TIMELINE_JS and rgb == (240, 228, 66)


def test_diff_chart_names_the_kernels_of_a_row_matched_through_its_operator(tmp_path):
    """H100 vs MI300X bert-small: the kernel rows matched across vendors are labelled by operator and shapes; the
    chart's hover held only that key, so which kernels the bars were (flash_fwd_kernel → attn_fwd) was only in the
    tables below. It now names both sides' kernels, as the kernels table's "kernels" column does."""
    from pathlib import Path

    from gpulens.cli import main

    data = Path(__file__).parent / "data" / "kineto"
    page_path = tmp_path / "diff.html"
    try:
        main(["diff", "-q", str(data / "tracelens_h100_bert-small.json.gz"),
              str(data / "tracelens_mi300x_bert-small.json.gz"), "--html", str(page_path)])
    except SystemExit as e:
        assert e.code in (0, None)
    page = page_path.read_text(encoding="utf-8")
    fig = re.search(r'<figure class="dchart" id="chart-kernels".*?</figure>', page, re.S).group(0)
    titles = [unescape(t) for t in re.findall(r'<span class="pl" title="([^"]*)"', fig)]
    flash = [t for t in titles if t.startswith("aten::_flash_attention_forward")]
    assert flash and flash[0].endswith("\nkernels: flash_fwd_kernel → attn_fwd")
    # a row matched by name keeps its kernel's name alone
    assert any(t.startswith("void at::native::") and "\nkernels:" not in t for t in titles)
