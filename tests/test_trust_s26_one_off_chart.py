"""The time breakdown draws the one-off idle gap the verdict leaves out as its own part, with the verdict's figure.

Kind: AlexNet on an A100 (HTA): the verdict reads "busy 2.3 % of the 2.89 s outside the warm-up/one-off idle gap",
while the HTML "Where the GPU time went" chart, the breakdown page's stacked bars, the console and the Markdown
breakdown showed one idle part of 12.85 s (99.5 % of the span), the 10.03 s gap in it unmarked.

Hand-made trace: 501 kernels of 10 µs on one stream, 10 µs apart, except one 5,000 µs gap after the first kernel:
span 501 × 10 + 499 × 10 + 5,000 = 15,000 µs, busy 5,010 µs, idle 9,990 µs = 5,000 µs one-off + 4,990 µs steady
(499 gaps of 10 µs); the verdict's steady span is 15,000 − 5,000 = 10,000 µs.
"""

from __future__ import annotations

import json
import re

import gpulens
from gpulens.reports import console, html, markdown
from tests.conftest import KINETO

ALEXNET = str(KINETO / "hta_alexnet_a100.json.gz")  # committed copy of ../shared/traces/kineto
ONE_OFF = "idle: one-off gaps (left out of the verdict)"


def _trace(tmp_path):
    ev, t = [], 0
    for i in range(501):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": max(t - 5, 0), "dur": 3, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": 10,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        t += 10 + (5000 if i == 0 else 10)
    p = tmp_path / "gap.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def _rendered(path):
    rep = gpulens.analyze([path])
    return rep, html.render(rep), markdown.render(rep), console.render(rep)


def test_breakdown_draws_the_one_off_gap_apart(tmp_path):
    rep, page, md, text = _rendered(_trace(tmp_path))
    # summary page table: the two parts of idle, exact ns
    assert re.search(rf"{re.escape(ONE_OFF)}</th><td class='num' data-v='5000000'", page)
    assert re.search(r"idle: steady state</th><td class='num' data-v='4990000'", page)
    # breakdown page stacked bars: a trace of its own for the one-off gap (ms axis)
    assert re.search(r'"x":\[5\.0\],"name":"' + re.escape(ONE_OFF) + '"', page)
    assert re.search(r'"x":\[4\.99\],"name":"idle: steady state"', page)
    # Markdown breakdown table and console breakdown: the same two figures
    row = next(line for line in md.splitlines() if line.startswith("| 0 | 0 | 15.00 ms"))
    assert "| 4.99 ms | 5.00 ms |" in row
    assert ONE_OFF in text and "4.99 ms" in text


def test_alexnet_chart_uses_the_verdicts_split():
    rep, page, md, _ = _rendered(ALEXNET)
    bn = rep.sources[0].results["bottlenecks"].summary
    # the verdict's steady span is the span less the one-off gap: the chart's parts are the same figures
    assert bn["idle_boundary_ns"] + bn["steady_idle_ns"] == bn["idle_ns"]
    assert bn["steady_span_ns"] == bn["device_span_ns"] - bn["idle_boundary_ns"]
    assert re.search(rf"{re.escape(ONE_OFF)}</th><td class='num' data-v='{bn['idle_boundary_ns']}'", page)
    assert "10.03 s" in md and "2.82 s" in md
