"""Issue 21 item 5 (case B12): copies and fills per kind — count, bytes with unknown sizes counted apart (never
summed as 0), time and achieved bandwidth. Inputs written here; expected values are the events' own figures."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import gpulens
from tests.conftest import SHARED

CASES = SHARED.parent / "cases"


def ev(cat, name, ts, dur, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, **args}}


def copies(tmp_path, events):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return gpulens.analyze([p]).sources[0].results["copies"]


def test_copies_and_fills_per_kind(tmp_path):
    res = copies(tmp_path, [
        ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 100, 4, bytes=8000),
        ev("Memcpy", "Memcpy HtoD (Pageable -> Device)", 110, 6, bytes=4000),  # legacy category
        ev("kernel", "Memcpy DtoD (Device -> Device)", 120, 5),  # kernel-category copy, size not recorded
        ev("gpu_memset", "Memset (Device)", 130, 2, bytes=2048),
        ev("kernel", "gemm", 140, 50)])
    t = res.table.set_index("copy_kind")
    h = t.loc["HtoD"]
    # 2 copies, 12,000 B in 10 µs → 1.2e9 B/s
    assert (h["count"], h["bytes"], h["time_ns"], h["sizes_unknown"]) == (2, 12_000, 10_000, 0)
    assert math.isclose(h["bandwidth"], 12_000 / 10e-6)
    d = t.loc["DtoD"]
    assert d["count"] == 1 and d["bytes"] is pd.NA and math.isnan(d["bandwidth"])
    assert d["sizes_unknown"] == 1 and "sizes" not in t.columns  # the count says it; no text column repeats it
    f = t.loc["fill"]
    assert (f["count"], f["bytes"], f["time_ns"]) == (1, 2048, 2000)
    s = res.summary
    assert (s["copies"], s["copy_bytes"], s["copy_sizes_unknown"], s["copy_time_ns"]) == (3, 12_000, 1, 15_000)
    assert s["copy_sizes"] == "1 of 3 sizes unknown" and (s["fills"], s["fill_bytes"]) == (1, 2048)


def test_zero_duration_copy_has_no_bandwidth(tmp_path):
    # the copies analyzer alone (the whole analysis of a trace holding only a 0 ns copy trips critical_path)
    from gpulens.analyzers.copies import Copies
    from gpulens.collectors import collect

    p = tmp_path / "z.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": [
        ev("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 100, 0, bytes=200)]}))
    res = Copies().analyze(collect(p))
    row = res.table.iloc[0]
    assert row["bytes"] == 200 and math.isnan(row["bandwidth"])


def test_all_sizes_unknown_is_not_zero(tmp_path):
    res = copies(tmp_path, [ev("kernel", "Memcpy DtoD (Device -> Device)", 100, 3)])
    assert res.summary["copy_bytes"] is None and res.summary["copy_sizes_unknown"] == 1


def test_case_b12():
    p = CASES / "B12.json"
    if not p.exists():
        pytest.skip("shared case B12 not present")
    src = gpulens.analyze([p]).sources[0]
    s = src.results["copies"].summary
    # README B12: 3 memcpy (2 + 4 + 3 µs; 4,096 + 8,192 B + unknown), 1 memset (1 µs, 1,024 B); compute 30 µs
    assert (s["copies"], s["copy_time_ns"], s["copy_bytes"], s["copy_sizes_unknown"]) == (3, 9_000, 12_288, 1)
    assert (s["fills"], s["fill_time_ns"], s["fill_bytes"]) == (1, 1_000, 1_024)
    assert set(src.results["copies"].table["copy_kind"]) == {"HtoD", "DtoH", "DtoD", "fill"}
    assert src.summary["computation_ns"] == 30_000


def test_report_summary_never_sums_unknown_sizes_as_zero(tmp_path):
    p = tmp_path / "u.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": [
        ev("kernel", "__amd_rocclr_copyBuffer", 100, 20), ev("kernel", "__amd_rocclr_copyBufferAligned", 130, 15)]}))
    s = gpulens.analyze([p]).sources[0].summary
    assert s["memcpy_count"] == 2 and s["memcpy_bytes"] is None and s["memcpy_sizes_unknown"] == 2
