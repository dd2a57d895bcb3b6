"""Regressions of the session-43 fuzzing campaign (tests/fuzz_s43.py): one seeded, fast test per fault kind.

1. Time: a JSON trace of 10^6 nested arrays spent ~8 s of CPU in the depth scan (one Python step per bracket) before
   the one-line refusal; a run of brackets is now one step.
2. ``--device-spec`` with unit strings: the error now names the unit the figure is written in; a YAML spec (not
   JSON) is refused saying JSON/TOML, not "Expecting value: line 1 column 1".
3. nsys export whose ``TARGET_INFO_GPU`` lacks the ``id`` column (another nsys layout): the GPU (an H200) was
   silently unknown; now a warning counts the rows not read. A kernel table without ``start`` / ``end`` (another
   layout) was said without a count; now "its 19 rows are not read".
4. Time: a CSV header of 10^5 columns (rocprofv3 / rocprof v1 counters, ncu raw metrics) took minutes with
   ``--lenient`` (a DataFrame column per counter); a header over 65,536 columns is now refused in one line. ncu's raw
   page built one DataFrame per metric column (~10 ms each: a few thousand columns of ``--set full``); now stacked
   once — every value still read, in base units.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.collectors._deep import DEPTH_LIMIT, flatten_deep
from gpulens.errors import TraceFormatError

DATA = Path(__file__).resolve().parent / "data"
NSYS_H200 = DATA / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"


# --- 1. deep nesting: one step per run of brackets ------------------------------------------------------------------
def test_runs_of_brackets_with_whitespace_flatten_at_the_right_offsets():
    # limit 2: the top-level object is level 1, "a"'s array level 2, the arrays inside it open level 3 (replaced)
    doc = '{"a": [ [\n [1], "x]"],\t[ {"b": 2} ] ], "c": "[[["}'
    got, n = flatten_deep(doc, limit=2)
    # by hand: [\n [1], "x]"] spans offsets 8..20 (13 chars) and [ {"b": 2} ] spans 23..34 (12 chars)
    assert doc[8:21] == '[\n [1], "x]"]' and doc[23:35] == '[ {"b": 2} ]'
    want = doc[:8] + "null" + " " * 9 + doc[21:23] + "null" + " " * 8 + doc[35:]
    assert n == 2 and got == want and len(got) == len(doc)
    assert json.loads(got) == {"a": [None, None], "c": "[[["}
    # bytes give the same answer
    assert flatten_deep(doc.encode(), limit=2) == (want.encode(), 2)


def test_a_million_nested_arrays_are_flattened_in_one_pass():
    n = 1_000_000
    head = '{"traceEvents": '
    doc = (head + "[" * n + "]" * n + "}").encode()
    t0 = time.process_time()
    got, count = flatten_deep(doc)
    spent = time.process_time() - t0
    # the value opening at level DEPTH_LIMIT + 1 is the DEPTH_LIMIT-th "[" (the object is level 1); it closes at the
    # matching "]", the one that leaves DEPTH_LIMIT - 1 arrays open: offset len(head) + 2n - (DEPTH_LIMIT - 1)
    start = len(head) + DEPTH_LIMIT - 1
    end = len(head) + 2 * n - (DEPTH_LIMIT - 1)
    assert count == 1
    assert got[:start] == doc[:start] and got[start:start + 4] == b"null"
    assert got[start + 4:end] == b" " * (end - start - 4) and got[end:] == doc[end:]
    assert spent < 1.0, f"{spent:.2f} s of CPU to flatten 10^6 nested arrays (one step per bracket: 2.2 s here; now 0.09 s)"


def test_a_million_nested_arrays_trace_is_refused_in_one_line(tmp_path, capsys):
    p = tmp_path / "deep.json"
    p.write_text('{"traceEvents": ' + "[" * 1_000_000 + "]" * 1_000_000 + "}")
    t0 = time.process_time()
    assert main(["analyze", str(p), "-q", "--no-cache"]) == 2
    assert time.process_time() - t0 < 10.0
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln]
    assert len(err) == 1 and err[0].startswith(f"gpulens: error: {p}") and "no usable event" in err[0]


# --- 2. --device-spec with unit strings, YAML ------------------------------------------------------------------------
_SPEC = {"name": "Test GPU", "compute_capability": "9.0", "num_sms": 132}


@pytest.mark.parametrize("key, text, unit", [("memory_bandwidth", "3.35 TB/s", "GB/s"),
                                              ("matrix.bf16", "989 TFLOPS", "TFLOPS"),
                                              ("clock_mhz", "1.98 GHz", "MHz"), ("l2", "50 MB", "MiB")])
def test_spec_figure_with_a_unit_string_names_the_unit_expected(tmp_path, capsys, key, text, unit):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(dict(_SPEC, figures={key: text})))
    assert main(["analyze", str(DATA / "cases" / "B13.json"), "-q", "--no-cache", "--device-spec", str(spec)]) == 2
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln]
    assert len(err) == 1 and str(spec) in err[0] and repr(text) in err[0]
    assert f"a plain number in {unit}" in err[0]


def test_yaml_spec_is_refused_saying_json_or_toml(tmp_path):
    from gpulens.devices.spec import load_spec

    y = tmp_path / "h100.yaml"
    y.write_text("name: X\ncompute_capability: '9.0'\nnum_sms: 132\nfigures:\n  memory_bandwidth: 3350\n")
    with pytest.raises(TraceFormatError) as exc:
        load_spec(y)
    assert "not YAML" in str(exc.value) and "JSON or TOML" in str(exc.value) and "Expecting value" not in str(exc.value)
    # JSON is YAML: a .yaml file holding JSON is read (3350 GB/s = 3.35e12 B/s)
    y.write_text(json.dumps(dict(_SPEC, figures={"memory_bandwidth": 3350})))
    assert load_spec(y).figures["memory_bandwidth"].value == 3350 * 1e9


# --- 3. nsys: a GPU table that gives no device -----------------------------------------------------------------------
def _drop_column(p: Path, table: str, column: str, count: str) -> int:
    """Drop ``table.column`` in the SQLite file ``p`` (another profiler version's layout); returns the row count of
    the table ``count`` read with SQL first (the independent figure the tests compare with)."""
    if sqlite3.sqlite_version_info < (3, 35):
        pytest.skip("ALTER TABLE DROP COLUMN needs SQLite 3.35")
    con = sqlite3.connect(p)
    n = con.execute(f'SELECT COUNT(*) FROM "{count}"').fetchone()[0]
    con.execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
    con.commit()
    con.close()
    return n


def test_nsys_gpu_table_without_id_column_is_said(tmp_path):
    p = tmp_path / "report1.sqlite"
    shutil.copyfile(NSYS_H200, p)
    con = sqlite3.connect(p)
    name = con.execute("SELECT name FROM TARGET_INFO_GPU").fetchone()[0]
    kernels = con.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    con.close()
    rows = _drop_column(p, "TARGET_INFO_GPU", "id", "TARGET_INFO_GPU")
    assert (rows, name, kernels) == (1, "NVIDIA H200", 19)
    full, cut = collect(NSYS_H200), collect(p)
    assert [d["name"] for d in full.meta.devices] == ["NVIDIA H200"] and not cut.meta.devices
    assert int((cut.events["kind"] == "kernel").sum()) == kernels
    said = [w for w in cut.meta.warnings if "TARGET_INFO_GPU" in w]
    assert len(said) == 1 and "holds 1 row but no id column" in said[0] and str(p) in said[0]
    assert not any("TARGET_INFO_GPU" in w for w in full.meta.warnings)


# --- 4. wide CSV headers: refused in one line; ncu's raw page of many metric columns read whole -----------------------
_V3_HEAD = '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"'
_NCU_HEAD = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",' \
            '"Device","CC"'


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("which", ["rocprofv3", "ncu_raw"])
def test_csv_header_of_100k_columns_is_refused_in_one_line(tmp_path, capsys, which, lenient):
    n = 100_000  # extra columns; --lenient once built a DataFrame column per counter: minutes
    if which == "rocprofv3":
        p = tmp_path / "1_kernel_trace.csv"
        p.write_text(_V3_HEAD + "," + ",".join(f"c{j}" for j in range(n)) + "\n"
                     + '"KERNEL_DISPATCH",1,1,1,"k",100,200' + ",1" * n + "\n")
        cols = 7 + n
    else:
        p = tmp_path / "raw.csv"
        p.write_text(_NCU_HEAD + "," + ",".join(f'"m{j}"' for j in range(n)) + "\n" + '""' + ',""' * 10
                     + ',"byte"' * n + "\n" + '"0","1","a","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0"'
                     + ',"1"' * n + "\n")
        cols = 11 + n
    t0 = time.process_time()
    assert main(["analyze", str(p), "-q", "--no-cache"] + (["--lenient"] if lenient else [])) == 2
    assert time.process_time() - t0 < 20.0
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln]
    assert len(err) == 1 and str(p) in err[0] and f"CSV header has {cols:,} columns" in err[0]


def test_ncu_raw_page_of_many_metric_columns_reads_every_value(tmp_path):
    from gpulens.collectors.ncu_csv import NcuCsvCollector

    n, launches = 300, 3
    # metric m<j> of launch <i> holds j * 10 + i Kbyte: (j * 10 + i) * 1000 bytes (ncu's decimal prefixes)
    lines = [_NCU_HEAD + "," + ",".join(f'"m{j}"' for j in range(n)), '""' + ',""' * 10 + ',"Kbyte"' * n]
    for i in range(launches):
        lines.append(f'"{i}","1","a","h","k{i}","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0",'
                     + ",".join(f'"{j * 10 + i:,}"' for j in range(n)))
    p = tmp_path / "raw.csv"
    p.write_text("\n".join(lines) + "\n")
    t0 = time.process_time()
    tl = NcuCsvCollector().collect(p)
    assert time.process_time() - t0 < 10.0
    c = tl.counters[tl.counters["metric"].astype(str).str.fullmatch(r"m\d+")]
    assert len(c) == n * launches
    names = dict(zip(tl.events["event_id"], tl.events["name"].astype(str)))
    got = {(int(m[1:]), int(names[e][1:])): v for e, m, v in zip(c["event_id"], c["metric"].astype(str), c["value"])}
    assert got == {(j, i): (j * 10 + i) * 1000.0 for j in range(n) for i in range(launches)}
    assert set(c["unit"].astype(str)) == {"bytes"}


@pytest.mark.parametrize("column", ["start", "end"])
def test_nsys_kernel_table_without_a_timing_column_counts_its_rows(tmp_path, column):
    """nsys layouts differ by version: a kernel table without ``start`` / ``end`` is not read, and the warning says
    how many kernels that is (19 in the real H200 export, counted here with SQL)."""
    p = tmp_path / "report1.sqlite"
    shutil.copyfile(NSYS_H200, p)
    n = _drop_column(p, "CUPTI_ACTIVITY_KIND_KERNEL", column, "CUPTI_ACTIVITY_KIND_KERNEL")
    tl = collect(p)
    assert n == 19 and int((tl.events["kind"] == "kernel").sum()) == 0
    said = [w for w in tl.meta.warnings if "CUPTI_ACTIVITY_KIND_KERNEL has no" in w]
    assert said == [f"{p}: CUPTI_ACTIVITY_KIND_KERNEL has no {column} column: its 19 rows are not read"]


def test_nvprof_kernel_table_without_start_is_said_not_called_empty(tmp_path):
    """nvprof's kernels live in CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: a layout without its ``start`` column was
    said to be an *empty* kernel table with nsys advice; now its one row (the T4 vectorAdd profile of
    tests/test_trust_s41_real.py, counted with SQL) is said not read, and why."""
    from tests.test_trust_s41_real import nvprof_db

    p = tmp_path / "app.nvvp"
    nvprof_db(p)
    n = _drop_column(p, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "start", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL")
    tl = collect(p)
    assert n == 1 and int((tl.events["kind"] == "kernel").sum()) == 0
    w = tl.meta.warnings
    assert f"{p}: CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL has no start column: its 1 row is not read" in w
    capture = [x for x in w if "incomplete capture" in x]
    assert len(capture) == 1 and "table is not read (no start/end column)" in capture[0]
    assert "empty" not in capture[0] and "nsys profile" not in capture[0]


def test_nvprof_device_table_without_id_column_is_said(tmp_path):
    """The same fault in nvprof's layout: CUPTI_ACTIVITY_KIND_DEVICE (a Tesla T4 in the test profile) without
    ``id`` gave no device and no word."""
    from tests.test_trust_s41_real import nvprof_db

    p = tmp_path / "app.nvvp"
    nvprof_db(p)
    assert [d["name"] for d in collect(p).meta.devices] == ["Tesla T4"]
    rows = _drop_column(p, "CUPTI_ACTIVITY_KIND_DEVICE", "id", "CUPTI_ACTIVITY_KIND_DEVICE")
    tl = collect(p)
    assert rows == 1 and not tl.meta.devices
    said = [w for w in tl.meta.warnings if "CUPTI_ACTIVITY_KIND_DEVICE" in w]
    assert len(said) == 1 and "holds 1 row but no id column" in said[0]
