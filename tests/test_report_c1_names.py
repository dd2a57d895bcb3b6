"""A kernel name holding DEL or a C1 control character (U+007F–U+009F: valid UTF-8, valid raw inside a JSON string)
must leave every written report valid: the JSON report parses and gives the name back exactly as the trace holds
it. (Making such characters "visible" as ``\\x85`` after encoding put an invalid escape into the JSON file.)"""

from __future__ import annotations

import json

from gpulens.cli import main

NAMES = ["fused_add\u0085norm_kernel", "gemm\u009b31m_kernel", "relu\u007f_kernel"]


def _trace(path):
    events = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": "stream 7", "ts": 10 + 20 * i, "dur": 5 + i,
               "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i, n in enumerate(NAMES)]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}), encoding="utf-8")


def test_c1_characters_in_names_keep_the_json_report_valid(tmp_path):
    trace = tmp_path / "c1.json"
    _trace(trace)
    out, md, html = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.html"
    code = main(["analyze", str(trace), "-q", "--no-cache", "--json", str(out), "--markdown", str(md),
                 "--html", str(html)])
    assert code == 0
    doc = json.loads(out.read_text(encoding="utf-8"))  # strict JSON: no ``\x85`` escape
    names = {k["name"] for k in doc["sources"][0]["top_kernels"]}
    assert names == set(NAMES)
    # the three kernels' time, 5 + 6 + 7 µs, from the trace above
    assert doc["sources"][0]["summary"]["kernel_time_ns"] == 18_000
    assert md.read_text(encoding="utf-8") and html.read_text(encoding="utf-8")
