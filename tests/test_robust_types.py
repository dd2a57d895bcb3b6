"""Readers declare the types they read (issue 17 class 1): duplicate CSV columns, SQLite values of the wrong type,
integers beyond int64, type confusion in JSON — each a partial result with a counted warning, never a crash.

Inputs are the committed seeds of tests/data, changed inline; expected values are restated from those files (with
the arithmetic in a comment) or are the result on the unchanged file when the change must not alter it.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from gpulens.collectors import collect
from gpulens.errors import TraceFormatError

from .conftest import CASES, DATA
from .fuzzing import _nsys
from .test_rocprofv3 import _tiny_v3_json


def _signature(tl) -> tuple:
    """What a reader produced: events (kind, name, start, duration), summary rows, counter values."""
    ev = tl.events
    rows = sorted(zip(ev["kind"].astype(str), ev["name"].astype(str), ev["start_ns"].tolist(), ev["dur_ns"].tolist()))
    summ = tl.tables.get("kernel_summary")
    summary = [] if summ is None else sorted(zip(summ["name"].astype(str), summ["total_ns"].tolist()))
    counters = sorted(tl.counters["value"].tolist()) if tl.counters is not None else []
    return rows, summary, counters


def _dup_column(text: str, column: str, value: str, header_line: int = 0) -> str:
    """``text`` with a second column named ``column`` appended to the header (line ``header_line``) and ``value`` in
    every row below (the ncu units row gets an empty cell); lines above the header are kept as they are."""
    lines = text.splitlines()
    out = lines[:header_line]
    rows = list(csv.reader(io.StringIO("\n".join(lines[header_line:]), newline="")))
    assert column in rows[0], rows[0]
    buf = io.StringIO()
    quoted = lines[header_line].startswith('"')  # ncu quotes every field and is recognised by it
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL if quoted else csv.QUOTE_MINIMAL)
    w.writerow(rows[0] + [column])
    for r in rows[1:]:
        w.writerow(r + (["" if r and r[0] == "" else value] if r else []))
    return "\n".join(out + [buf.getvalue()])


#: (seed file, file name, column to repeat, value in the repeat, line of the header)
CSV_READERS = [
    (DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv", "kernel_trace.csv", "End_Timestamp", "0", 0),
    (DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv", "kernel_trace.csv", "Kernel_Name", "WRONG", 0),
    (CASES / "B17.v1_results.csv", "results.csv", "EndNs", "1", 0),
    (CASES / "B17.v1_results.csv", "results.csv", "KernelName", "WRONG", 0),
    (DATA / "rocprof" / "v1_pmc_seismic_mi250x" / "results.stats.csv", "results.stats.csv", "TotalDurationNs", "7", 0),
    (DATA / "nvidia" / "codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv", "kern_sum.csv", "Total Time (ns)",
     "1", 0),
    (CASES / "B20.ncu_raw.csv", "raw.csv", "Kernel Name", "WRONG", 3),
    (CASES / "B20.ncu_details_15col.csv", "details.csv", "Metric Value", "123456", None),
]


@pytest.mark.parametrize("src, name, column, value, header", CSV_READERS,
                         ids=[f"{n}:{c}" for _, n, c, _, _ in CSV_READERS])
def test_a_repeated_csv_column_changes_nothing_and_is_named(tmp_path, src, name, column, value, header):
    # One rule for every CSV reader: the first column of a name is the one used; the repeat is named in a warning.
    # The result must equal the result of the unchanged file (a metamorphic check: no value of the repeat leaks).
    text = src.read_text(encoding="utf-8")
    if header is None:  # the ncu details page: the header is the first line starting with "ID"
        header = next(i for i, ln in enumerate(text.splitlines()) if ln.startswith('"ID"'))
    orig = tmp_path / "orig" / name
    orig.parent.mkdir()
    orig.write_text(text, encoding="utf-8")
    p = tmp_path / name
    p.write_text(_dup_column(text, column, value, header), encoding="utf-8")
    before, after = collect(orig), collect(p)
    assert _signature(after) == _signature(before)
    assert any("repeated CSV column name" in w and repr(column) in w and "first column" in w
               for w in after.meta.warnings), after.meta.warnings


def test_repeated_column_in_a_rocprof_compute_folder(tmp_path):
    d = tmp_path / "vcopy"
    shutil.copytree(DATA / "omniperf" / "vcopy_MI200", d)
    before = _signature(collect(d))
    f = d / "pmc_perf.csv"
    f.write_text(_dup_column(f.read_text(), "Kernel_Name", "WRONG"))
    tl = collect(d)
    assert _signature(tl) == before
    assert any("repeated CSV column name 'Kernel_Name'" in w for w in tl.meta.warnings), tl.meta.warnings


def test_v3_kernel_trace_first_dispatch_is_read_from_the_first_end_column(tmp_path):
    # kernel_trace.csv row 1: End 8819330200116308 − Start 8819330200067564 = 48,744 ns; the repeated End_Timestamp
    # (0) would make it negative.
    p = tmp_path / "kernel_trace.csv"
    src = DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
    p.write_text(_dup_column(src.read_text(), "End_Timestamp", "0"))
    k = collect(p).of_kind("kernel").sort_values("start_ns")
    assert int(k["dur_ns"].iloc[0]) == 48_744


def test_lone_carriage_return_in_a_csv_field_is_a_line_end_not_a_crash(tmp_path):
    # csv on text opened without newline="" raises "new-line character seen in unquoted field"; as the csv docs
    # require, the readers parse with newline="": the CR ends the row (its row is then short, and counted).
    src = DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
    lines = src.read_text().splitlines()
    lines[1] = lines[1].replace('"KERNEL_DISPATCH",1,1', '"KERNEL_DISPATCH",1\r,1', 1)
    p = tmp_path / "kernel_trace.csv"
    p.write_text("\n".join(lines) + "\n", newline="")
    with pytest.raises(TraceFormatError) as ei:
        collect(p)  # strict: the split row has the wrong width — a one-line error naming the line
    assert str(ei.value).startswith(f"{p}: line") and "\n" not in str(ei.value)
    tl = collect(p, strict=False)
    assert len(tl.of_kind("kernel")) >= len(lines) - 2


# ------------------------------------------------------------------------------------------------ nsys SQLite
def _nsys_db(tmp_path: Path, sql: str = "") -> Path:
    p = tmp_path / "r.sqlite"
    _nsys(p)  # the fuzzer's seed: 3 kernels (500, 600, 300 ns), 2 runtime calls, 1 NVTX range, 1 memcpy, 1 GPU
    if sql:
        con = sqlite3.connect(p)
        con.executescript(sql)
        con.commit()
        con.close()
    return p


def test_nsys_integer_columns_holding_text_real_blob_or_empty_drop_their_rows(tmp_path):
    # The seed's columns are declared INT, which turns '1500' into 1500 (type affinity); a new table without
    # affinity keeps each value as written. Four bad `end` values, one good row left (1000 → 1500: 500 ns).
    p = _nsys_db(tmp_path, """
        DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, shortName);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 1500, 0, 7, 10, 1), (2000, '', 0, 7, 11, 1),
            (3000, 'x', 0, 7, 12, 1), (4000, X'00ff', 0, 7, 13, 1), (5000, 5000.5, 0, 7, 14, 1);
    """)
    tl = collect(p)
    k = tl.of_kind("kernel")
    assert k["dur_ns"].tolist() == [500] and k["name"].astype(str).tolist() == ["gemm"]
    assert any("4 rows of CUPTI_ACTIVITY_KIND_KERNEL dropped" in w for w in tl.meta.warnings)


def test_nsys_nvtx_row_with_a_text_thread_id_is_dropped_and_counted(tmp_path):
    p = _nsys_db(tmp_path, """
        DROP TABLE NVTX_EVENTS;
        CREATE TABLE NVTX_EVENTS (start, end, eventType, text, textId, globalTid);
        INSERT INTO NVTX_EVENTS VALUES (800, 4000, 59, NULL, 3, 'x'), (900, 1900, 59, 'fwd', NULL, 5033164842);
    """)
    tl = collect(p)
    a = tl.of_kind("annotation")
    assert a["name"].astype(str).tolist() == ["fwd"] and a["dur_ns"].tolist() == [1000]
    assert any("1 row of NVTX_EVENTS dropped" in w for w in tl.meta.warnings)


def test_nsys_missing_names_are_counted(tmp_path):
    p = _nsys_db(tmp_path, "DELETE FROM StringIds WHERE id = 1;")  # 'gemm': the name of 2 of the 3 kernels
    tl = collect(p)
    assert len(tl.of_kind("kernel", "comm")) == 3
    assert any("2 name ids not found in StringIds" in w for w in tl.meta.warnings), tl.meta.warnings


def test_nsys_gpu_table_with_wrong_types_keeps_what_is_typed(tmp_path):
    p = _nsys_db(tmp_path, """
        DROP TABLE TARGET_INFO_GPU;
        CREATE TABLE TARGET_INFO_GPU (id, name, smCount, computeMajor, computeMinor);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 'lots', 9, 0), ('x', 'ghost', 1, 1, 1);
    """)
    devs = collect(p).meta.devices
    # the 'x' row is dropped; the kernel on device 1 keeps a device record of its own, hardware unknown
    assert [(d["device_id"], d["name"], d.get("num_sms"), d.get("compute_capability")) for d in devs] == [
        (0, "NVIDIA H100 80GB HBM3", None, "9.0"), (1, None, None, None)]


def test_nsys_corrupt_metadata_page_is_a_warning_not_the_file(tmp_path):
    # Overwrite the one page of TARGET_INFO_GPU (its root page, from sqlite_master) with garbage: the events are in
    # other pages and must still be read.
    p = _nsys_db(tmp_path)
    con = sqlite3.connect(p)
    (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'TARGET_INFO_GPU'").fetchone()
    (size,) = con.execute("PRAGMA page_size").fetchone()
    con.close()
    blob = bytearray(p.read_bytes())
    blob[(root - 1) * size:root * size] = b"\xa5" * size
    p.write_bytes(bytes(blob))
    tl = collect(p)
    assert sorted(tl.of_kind("kernel", "comm")["dur_ns"].tolist()) == [300, 500, 600]
    assert tl.meta.devices == []
    assert any("GPU list (TARGET_INFO_GPU) unreadable, skipped" in w for w in tl.meta.warnings), tl.meta.warnings


# ------------------------------------------------------------------------------------------------ AMD / ncu
def test_amd_integers_beyond_int64_or_not_finite_are_unknown(tmp_path):
    src = DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
    rows = list(csv.reader(src.open()))
    h = rows[0]
    rows[1][h.index("Grid_Size_X")] = "inf"
    rows[2][h.index("Start_Timestamp")] = str(2 ** 64)
    rows[3][h.index("Start_Timestamp")] = str(-(2 ** 63))
    rows[3][h.index("End_Timestamp")] = str(2 ** 63 - 1)
    p = tmp_path / "kernel_trace.csv"
    with p.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    tl = collect(p)
    k = tl.of_kind("kernel")
    assert len(k) == len(collect(src).of_kind("kernel")) - 2  # rows 2 and 3 are not events; row 1 is
    assert len(tl.rejected) == 2
    assert k.sort_values("start_ns")["grid_x"].isna().iloc[0]
    reasons = set(tl.rejected["reason"].astype(str))
    # row 2 starts at 2^64, beyond int64: recorded but unreadable (not "no timestamps recorded");
    # row 3 starts at -2^63: a negative timestamp, which no AMD tool writes (they are unsigned ns)
    assert reasons == {"unreadable timestamp (not a number, or beyond int64 ns)",
                       "negative timestamp (AMD timestamps are unsigned)"}


def test_ncu_launch_dimension_that_is_not_finite_is_unknown(tmp_path):
    text = (CASES / "B20.ncu_raw.csv").read_text()
    p = tmp_path / "raw.csv"
    p.write_text(text.replace('"(4096, 1, 1)"', '"inf"', 1))
    tl = collect(p)
    assert len(tl.of_kind("kernel")) == len(collect(CASES / "B20.ncu_raw.csv").of_kind("kernel"))


def _v3(tmp_path: Path, change) -> Path:
    p = tmp_path / "77_results.json.gz"
    _tiny_v3_json(p)
    doc = json.loads(gzip.decompress(p.read_bytes()))
    change(doc["rocprofiler-sdk-tool"][0])
    p.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return p


@pytest.mark.parametrize("change, warning", [
    (lambda t: t["agents"].__setitem__(1, [1, 2]), "1 agent record skipped (not a JSON object)"),
    (lambda t: t["agents"][1].__setitem__("id", 5), None),
    (lambda t: t["counters"].__setitem__(0, {"id": 3, "name": "X"}), None),
    (lambda t: t["metadata"].__setitem__("command", 5), None),
    # a timestamp beyond int64 is an unreadable timestamp (the row is not an event, counted under that reason);
    # another field beyond int64 drops the record
    (lambda t: t["buffer_records"]["kernel_dispatch"][0].__setitem__("start_timestamp", 2 ** 64 - 1),
     "is no event: unreadable timestamp (not a number, or beyond int64 ns) ×1"),
    (lambda t: t["buffer_records"]["kernel_dispatch"][0]["dispatch_info"].__setitem__("dispatch_id", 2 ** 64 - 1),
     "1 kernel dispatch record dropped: an integer beyond int64"),
])
def test_rocprofv3_json_type_confusion_is_a_partial_result(tmp_path, change, warning):
    # _tiny_v3_json: 2 dispatches of k_one (150 and 20 ns) on agent 222 (node 1). A wrong-typed agent or counter
    # costs that agent's device or counter name, never the file (before: AttributeError, exit 70).
    tl = collect(_v3(tmp_path, change))
    k = tl.of_kind("kernel")
    assert sorted(k["dur_ns"].tolist()) == ([20] if warning and ("dispatch" in warning or "timestamp" in warning)
                                            else [20, 150])
    if warning:
        assert any(warning in w for w in tl.meta.warnings), tl.meta.warnings


def test_rocprof_v1_json_events_of_the_wrong_type_are_dropped_and_counted(tmp_path):
    # The v1 seed of tests/fuzzing.py: a copy (92,212,447 ns), a kernel (3,431,611 ns), a hipMemcpy. Its args
    # become a list (was: AttributeError, exit 70) and one event becomes a number: 2 dropped, the kernel kept.
    from .fuzzing import _v1_json

    p = tmp_path / "results.json"
    _v1_json(p)
    doc = json.loads(p.read_text())
    ev = doc["traceEvents"]
    copy = next(e for e in ev if e.get("name") == "CopyHostToDevice")
    copy["args"] = [1, 2]
    ev.append(7)
    p.write_text(json.dumps(doc))
    tl = collect(p)
    assert tl.of_kind("kernel")["dur_ns"].tolist() == [3_431_611] and len(tl.of_kind("memcpy")) == 0
    assert any("2 trace events dropped" in w for w in tl.meta.warnings), tl.meta.warnings


def test_sqlite_schema_that_is_not_utf8_is_a_warning_naming_the_column(tmp_path):
    # A column name holding invalid UTF-8 (a corrupt schema page): sqlite3 raised UnicodeDecodeError on the
    # column names (must not escape as an internal error). The names are read with U+FFFD: the garbled column
    # is named in a warning and the rest of the table is read (OPS: one kernel of 3431611 ns, see _v1_db).
    from .fuzzing import _v1_db

    p = tmp_path / "results.db"
    _v1_db(p)
    blob = p.read_bytes()
    i = blob.index(b'"queue-id" INTEGER')
    p.write_bytes(blob[:i + 1] + b"\xfe\xff" + blob[i + 3:])
    tl = collect(p)
    assert tl.of_kind("kernel")["dur_ns"].tolist() == [3431611]
    assert any("not valid UTF-8" in w and "'\ufffd\ufffdeue-id'" in w for w in tl.meta.warnings), tl.meta.warnings


def test_nsys_nvtx_without_an_end_column_closes_no_range(tmp_path):
    p = _nsys_db(tmp_path, """
        DROP TABLE NVTX_EVENTS;
        CREATE TABLE NVTX_EVENTS (start INT, eventType INT, text TEXT, globalTid INT);
        INSERT INTO NVTX_EVENTS VALUES (800, 59, 'fwd', 5033164842);
    """)
    tl = collect(p)
    assert len(tl.of_kind("annotation")) == 0 and tl.rejected["reason"].astype(str).tolist() == ["range never closed"]


def test_ncu_dimension_beyond_int64_is_unknown(tmp_path):
    text = (CASES / "B20.ncu_raw.csv").read_text()
    p = tmp_path / "raw.csv"
    p.write_text(text.replace('"(256, 1, 1)"', f'"(256, 1, {2 ** 64})"', 1))
    k = collect(p).of_kind("kernel")
    assert k["block_z"].isna().sum() == 1 and len(k) == len(collect(CASES / "B20.ncu_raw.csv").of_kind("kernel"))


def test_lone_surrogate_in_a_kineto_name_is_replaced_and_the_events_kept(tmp_path):
    # "\ud800" is valid JSON syntax but no character: it must not cost the file (before: UnicodeEncodeError).
    evs = [{"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": 5,
            "args": {"device": 0, "stream": 7, "correlation": i}}
           for i, (name, ts) in enumerate([("k\ud800x", 100), ("k1", 110)])]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))  # json.dumps writes the lone surrogate as the escape \ud800
    names = sorted(collect(p).of_kind("kernel")["name"].astype(str))
    assert names == ["k1", "k\ufffdx"]  # the lone surrogate (one code point) becomes one U+FFFD


@pytest.mark.parametrize("fmt", ["rocprofv3_json", "rocprof_v1_json"])
def test_json_nested_beyond_the_recursion_limit_keeps_the_rest_with_one_warning(tmp_path, fmt):
    # a member nested past the decoders' recursion limit is replaced by null and counted in one warning line naming
    # the file; every event of the file is still read (collectors/_deep.py)
    from .fuzzing import _v1_json

    p = tmp_path / ("77_results.json" if fmt == "rocprofv3_json" else "results.json")
    if fmt == "rocprofv3_json":
        g = tmp_path / "x.json.gz"
        _tiny_v3_json(g)
        p.write_bytes(gzip.decompress(g.read_bytes()))
    else:
        _v1_json(p)
    ref = collect(p, format=fmt)
    text = p.read_text()
    i = text.rindex("}")  # a 100,000-deep array as the last member of the top-level object
    p.write_text(text[:i] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + text[i:])
    tl = collect(p, format=fmt)
    assert len(tl.events) == len(ref.events) > 0
    deep = [w for w in tl.meta.warnings if "nested deeper" in w]
    assert len(deep) == 1 and deep[0].startswith(f"{p}: 1 value") and "\n" not in deep[0]


def test_kernels_of_unknown_name_are_analyzed(tmp_path):
    # rocpd without its kernel-symbol table: the 2 kernels (4,000 and 300 ns) have no name. Analysis must not
    # raise (before: TypeError in kernel_category, exit 70 through the CLI) and keeps both kernels' time.
    from gpulens.report import Report, analyze_timeline
    from gpulens.reports.json_report import render

    from .test_rocpd import build_layout_b

    p = tmp_path / "results.db"
    build_layout_b(p)
    con = sqlite3.connect(p)
    con.execute("DROP TABLE rocpd_info_kernel_symbol")
    con.commit()
    con.close()
    tl = collect(p)
    assert sorted(tl.of_kind("kernel")["dur_ns"].tolist()) == [300, 4000]
    assert json.loads(render(Report([analyze_timeline(tl, str(p))])))
