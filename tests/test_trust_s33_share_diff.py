"""`gpulens diff`: each table's "of Δ" divides by the Σ|Δ| of its own rows, and every output says which (s33 review:
BERT H100 → MI300X, flash attention read +51.4 % in the kernel table and +58.8 % in the operator table with one
header "of Δ"). A hand trace where the two denominators differ, derived by hand:

aten::mm launches kernel A (base 100 µs → candidate 110 µs) and kernel B (50 → 40 µs); aten::add launches C (30 → 36).
Kernel rows: +10, −10, +6 → Σ|Δ| = 26 µs, C's part 6/26 = +23.1 %. Operator rows: aten::mm 0, aten::add +6 →
Σ|Δ| = 6 µs, aten::add's part 6/6 = +100.0 %.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpulens.diff import diff
from tests.dig_traces import KTrace


def _run(path: Path, a_us: float, b_us: float, c_us: float) -> Path:
    t = KTrace()
    mm = t.op("aten::mm", 100, 20, [[64, 128], [128, 256]], ["float", "float"])
    t.launch(mm, 101, [("kernel_a", 130, a_us)])
    t.launch(mm, 105, [("kernel_b", 300, b_us)])
    add = t.op("aten::add", 130, 10, [[64, 256], [64, 256]], ["float", "float"])
    t.launch(add, 131, [("kernel_c", 400, c_us)])
    return t.write(path)


def test_each_of_delta_names_the_rows_it_divides(tmp_path):
    from gpulens.reports.diff import render_console, render_html, render_json, render_markdown

    r = diff(_run(tmp_path / "b.json", 100, 50, 30), _run(tmp_path / "c.json", 110, 40, 36))
    by = r.summary["gross_delta_ns_by_table"]
    assert by["kernels"] == pytest.approx(26_000) and by["operators"] == pytest.approx(6_000)
    k = r.tables["kernels"].set_index("kernel")
    assert k.loc["kernel_c", "contribution"] == pytest.approx(6 / 26)
    o = r.tables["operators"].set_index("op")
    assert o.loc["aten::add", "contribution"] == pytest.approx(1.0)
    # the JSON column docs name each table's denominator
    js = json.loads(render_json(r))
    assert "over the kernel rows" in js["columns"]["kernels"]["contribution"]
    assert "over the operator rows" in js["columns"]["operators"]["contribution"]
    assert js["summary"]["gross_delta_ns_by_table"]["operators"] == 6_000
    # HTML and Markdown headers: never one bare "of Δ" over two denominators
    page = render_html(r)
    ths = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<thead><tr>(.*?)</tr></thead>", page)]
    heads = [h for row in re.findall(r"<thead><tr>(.*?)</tr></thead>", page) for h in
             re.findall(r"<th\b[^>]*>(.*?)</th>", row)]
    assert ths and "of Δ (kernel rows)" in heads and "of Δ (operator rows)" in heads and "of Δ" not in heads
    md = render_markdown(r)
    assert "of Δ (kernel rows)" in md and "| of Δ |" not in md
    # the facts line gives every table's Σ|Δ| (console, Markdown, HTML alike)
    for text in (render_console(r, width=400), md, page):
        assert "kernel rows 26.00 µs" in text and "operator rows 6.00 µs" in text
