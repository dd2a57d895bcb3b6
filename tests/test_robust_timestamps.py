"""A recorded timestamp that cannot be read (text, 1e400, 2^64, a list) is its own counted reason in every
collector: never "no timestamps recorded" (nothing was recorded) nor "negative duration" (end before start), and never
the whole file (rocprofv3 JSON refused the file for one such value before).

Each input is a committed seed with one start (or end) cell replaced; the expected count is that one row, the expected
events the seed's events less that row (counted from the seed file itself by the test).
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
import sqlite3

import pytest

from gpulens.collectors import collect

from . import fuzzing
from .test_rocprofv3 import _tiny_v3_json

AMD = "unreadable timestamp (not a number, or beyond int64 ns)"
KINETO = "unreadable ts or dur (not a number, or beyond int64 ns)"


def _csv(src, dst, column, value, row=1):
    rows = list(csv.reader(open(src, newline="")))
    rows[row][[h.lower() for h in rows[0]].index(column)] = value
    with open(dst, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return dst


def _sql(build, dst, stmt):
    build(dst)
    con = sqlite3.connect(dst)
    con.execute(stmt)
    con.commit()
    con.close()
    return dst


def _kineto(dst, field, value):
    doc = json.loads((fuzzing.DATA / "cases" / "B13.json").read_text())
    next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")[field] = value
    dst.write_text(json.dumps(doc))
    return dst


def _v3_json(dst, value):
    _tiny_v3_json(dst)
    doc = json.loads(gzip.decompress(dst.read_bytes()))
    doc["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][0]["start_timestamp"] = value
    dst.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return dst


def _rocpd_a(dst, value):
    from .test_rocpd import build_layout_a

    build_layout_a(dst)
    con = sqlite3.connect(dst)
    (ts,) = con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_timestamp%'").fetchone()
    con.execute(f"UPDATE {ts} SET value=? WHERE id=1", (value,))  # the start of the first kernel dispatch
    con.commit()
    con.close()
    return dst


V1 = fuzzing.DATA / "cases" / "B17.v1_results.csv"
V3 = fuzzing.DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
MAKERS = {
    "rocprof_v1_csv_start": lambda d, v: _csv(V1, d / "results.csv", "beginns", v),
    "rocprof_v1_csv_end": lambda d, v: _csv(V1, d / "results.csv", "endns", v),
    "rocprofv3_csv_start": lambda d, v: _csv(V3, d / "kernel_trace.csv", "start_timestamp", v),
    "rocprofv3_csv_end": lambda d, v: _csv(V3, d / "kernel_trace.csv", "end_timestamp", v, row=2),
    "rocprofv3_json": lambda d, v: _v3_json(d / "77_results.json.gz", v),
    "rocprof_v1_db": lambda d, v: _sql(fuzzing._v1_db, d / "v1results.db", f"UPDATE OPS SET BeginNs='{v}'"),
    "rocpd_inline": lambda d, v: _sql(__import__("tests.test_rocpd", fromlist=["x"]).build_layout_b,
                                      d / "results.db", f"UPDATE rocpd_kernel_dispatch SET start='{v}' WHERE id=1"),
    "rocpd_timestamp_table": lambda d, v: _rocpd_a(d / "results.db", v),
    "kineto_ts": lambda d, v: _kineto(d / "k.json", "ts", v),
    "kineto_dur": lambda d, v: _kineto(d / "k.json", "dur", v),
}


def _seed_events(name, tmp_path):
    """Events of the unmodified seed (the same maker with the original value restored: a fresh copy)."""
    d = tmp_path / "seed"
    d.mkdir()
    if name.startswith("rocprof_v1_csv"):
        return len(collect(V1).events)
    if name.startswith("rocprofv3_csv"):
        return len(collect(V3).events)
    if name == "rocprofv3_json":
        _tiny_v3_json(d / "77_results.json.gz")
        return len(collect(d / "77_results.json.gz").events)
    if name == "rocprof_v1_db":
        fuzzing._v1_db(d / "v1results.db")
        return len(collect(d / "v1results.db").events)
    if name.startswith("rocpd"):
        from .test_rocpd import build_layout_a, build_layout_b

        (build_layout_b if name == "rocpd_inline" else build_layout_a)(d / "results.db")
        return len(collect(d / "results.db").events)
    return len(collect(fuzzing.DATA / "cases" / "B13.json").events)


@pytest.mark.parametrize("value", ["abc", "1e400", str(2 ** 64), "list"])
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_unreadable_timestamp_is_its_own_counted_reason(tmp_path, name, value):
    json_doc = name.startswith(("kineto", "rocprofv3_json"))
    if value == "list":  # a JSON list where a number belongs (text formats cannot hold one)
        if not json_doc:
            pytest.skip("a CSV/SQLite cell cannot hold a list")
        value = [1]
    elif json_doc and value != "abc":
        value = 2 ** 64 if value == str(2 ** 64) else 10 ** 400  # JSON numbers (json.dumps writes 10**400 exactly)
    p = MAKERS[name](tmp_path, value)
    tl = collect(p)
    reason = KINETO if name.startswith("kineto") else AMD
    assert list(tl.rejected["reason"].astype(str)) == [reason]
    assert len(tl.events) == _seed_events(name, tmp_path) - 1
    # the dropped-rows warning counts it under that reason (×1), nothing under "negative duration"/"no timestamps"
    assert any(f"{reason} ×1" in w for w in tl.meta.warnings), tl.meta.warnings
    assert not any("negative duration" in w or "no timestamps recorded" in w or "missing ts" in w
                   for w in tl.meta.warnings)


def test_null_or_empty_timestamp_is_not_recorded_not_unreadable(tmp_path):
    # an empty CSV cell / JSON null records nothing: "no timestamps recorded", as before
    tl = collect(_csv(V3, tmp_path / "kernel_trace.csv", "start_timestamp", ""))
    assert list(tl.rejected["reason"].astype(str)) == ["no timestamps recorded"]
    d = tmp_path / "j"
    d.mkdir()
    tl = collect(_v3_json(d / "77_results.json.gz", None))
    assert list(tl.rejected["reason"].astype(str)) == ["no timestamps recorded"]
