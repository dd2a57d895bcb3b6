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
    bd = analyze(str(p)).sources[0].results["breakdown"].summary
    assert bd["device_span_ns"] == 500 * US
    assert bd["part_pct"]["computation_ns"] == pytest.approx(90.0)
    assert bd["part_pct"]["idle_ns"] == pytest.approx(10.0)
