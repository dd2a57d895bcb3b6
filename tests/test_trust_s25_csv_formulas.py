"""Exported CSV tables never hand a spreadsheet a formula from trace text.

Kind: a kernel named ``=cmd|' /C calc'!A0`` was written raw into hotspots.csv, where a spreadsheet runs it (OWASP
"CSV Injection"); B03's README asks for names escaped again when rendered into HTML or CSV.
"""

from __future__ import annotations

import csv
import json

import gpulens
from gpulens.export import export_tables


def test_formula_names_are_quoted_and_plain_ones_kept(tmp_path):
    names = ["=cmd|' /C calc'!A0", "@SUM(1+1)", "+1", "gemm_kernel"]
    ev = []
    for i, n in enumerate(names):
        ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": 100 * i, "dur": 10 + i,
                   "args": {"device": 0, "stream": 7}})
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    rep = gpulens.analyze([p])
    export_tables(rep, tmp_path / "out", "csv", inputs=[p])
    rows = list(csv.DictReader(open(tmp_path / "out" / "hotspots.csv", encoding="utf-8")))
    got = {r["name"] for r in rows}
    assert got == {"'=cmd|' /C calc'!A0", "'@SUM(1+1)", "'+1", "gemm_kernel"}
    # numbers stay numbers: the calls column is not prefixed
    assert all(r["calls"] == "1" for r in rows)
