"""No GPU work: busy % is no figure in any report (session 10, "trust"). A CPU-only trace showed "GPU busy: none
(no GPU work recorded)" in Markdown while its JSON said ``gpu_busy_pct: 0.0`` and its Markdown span "unknown" beside
the console's "none": a share of a span that does not exist is neither 0 nor unknown. Hand-made Kineto JSON: two CPU
ops, no GPU event."""

from __future__ import annotations

import json

import gpulens
from gpulens.reports import console, json_report, markdown


def test_cpu_only_trace_says_none_everywhere(tmp_path):
    ev = [{"ph": "X", "cat": "cpu_op", "name": n, "pid": 1, "tid": 1, "ts": ts, "dur": 10}
          for n, ts in (("aten::add", 0), ("aten::mul", 20))]
    p = tmp_path / "cpu.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    rep = gpulens.analyze([p])
    sm = rep.sources[0].summary
    assert sm["kernel_count"] == 0 and sm["span_ns"] is None  # no GPU work: no span (s40: never 0)
    assert sm["gpu_busy_pct"] is None and sm["gpu_utilization_pct"] is None
    js = json.loads(json_report.render(rep))["sources"][0]["summary"]
    assert js["gpu_busy_pct"] is None
    md = markdown.render(rep)
    assert "| GPU span | none (no GPU work recorded) |" in md and "| GPU busy | none (no GPU work recorded) |" in md
    text = console.render(rep, width=200)
    assert "none (no GPU work recorded)" in text and "0.0 %" not in text
