"""Truncated inputs, one rule for every format (README "Exit codes"): a truncated or malformed file is exit 2 with
one line naming the file and what is wrong, and the partial result (reports, status ``partial``) where one can be
read. Never exit 5 "no GPU work" for a cut file — its GPU events may be in the lost part — and never a different
answer for the same text as ``.json`` and ``.json.gz``.

Inputs are built inline; expected offsets and counts are computed here from the bytes written.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
import sqlite3
from contextlib import redirect_stderr, redirect_stdout

import pytest

from gpulens.cli import main
from gpulens.collectors import collect

from . import fuzzing

CASES = fuzzing.DATA / "cases"


def _run(*args):
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        try:
            code = main(list(map(str, args)))
        except SystemExit as e:  # typer's standalone mode
            code = e.code
    return code, err.getvalue(), out.getvalue()


def _trace(n_host: int = 30, n_kernels: int = 3) -> bytes:
    """A Kineto trace with its GPU events last (as Kineto writes them)."""
    evs = [{"ph": "X", "cat": "cpu_op", "name": f"aten::op{i}", "pid": 1, "tid": 1, "ts": 100 + 10 * i, "dur": 5}
           for i in range(n_host)]
    evs += [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000 + 20 * i, "dur": 10,
             "args": {"device": 0, "stream": 7}} for i in range(n_kernels)]
    return json.dumps({"traceEvents": evs}, indent=1).encode()


@pytest.mark.parametrize("gz", [False, True], ids=["json", "json.gz"])
def test_cut_before_the_gpu_events_is_exit_2_with_the_partial_report(tmp_path, gz):
    text = _trace()
    cut = text[:text.index(b'"cat": "kernel"')]  # every host event, no GPU event
    p = tmp_path / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(cut) if gz else cut)
    code, err, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(p) in lines[0] and "truncated" in lines[0] and "no GPU event" in lines[0]
    doc = json.loads((tmp_path / "r.json").read_text())  # the partial result is still written
    src = doc["sources"][0]
    assert src["truncated"] is True and src["status"] == "no_gpu_work"


@pytest.mark.parametrize("gz", [False, True], ids=["json", "json.gz"])
def test_cut_after_some_gpu_events_is_a_partial_result(tmp_path, gz):
    text = _trace()
    cut = text[:text.rindex(b'"cat": "kernel"')]  # kernels k0, k1 complete; k2 cut
    p = tmp_path / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(cut) if gz else cut)
    code, _, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert code == 0 and src["status"] == "partial" and src["summary"]["kernel_count"] == 2


@pytest.mark.parametrize("gz", [False, True], ids=["json", "json.gz"])
def test_cut_before_any_event_says_truncated_json(tmp_path, gz):
    text = b'{\n "schemaVersion": 1,\n "deviceProperties": [{"id": 0, "name": "NVIDIA H100'
    p = tmp_path / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(text) if gz else text)
    code, err, _ = _run("analyze", p, "-q", "--no-cache")
    assert code == 2
    assert err.strip() == (f"gpulens: error: {p}: truncated JSON: the text ends after {len(text):,} bytes"
                           f"{' (decompressed)' if gz else ''}, before any trace event could be read (the writer "
                           "was killed or the copy is incomplete)")


def test_truncated_sqlite_names_the_bytes_missing(tmp_path):
    src = tmp_path / "full.sqlite"
    fuzzing._nsys(src)
    data = src.read_bytes()
    # SQLite header (sqlite.org/fileformat.html): page size at offset 16 (2 bytes), page count at offset 28 (4)
    declared = int.from_bytes(data[16:18], "big") * int.from_bytes(data[28:32], "big")
    assert declared == len(data)
    for keep in (len(data) // 3, len(data) - 100):
        p = tmp_path / "cut.sqlite"
        p.write_bytes(data[:keep])
        code, err, _ = _run("analyze", p, "-q", "--no-cache")
        assert code == 2
        assert f"{p}: truncated SQLite file: {keep:,} of the {declared:,} bytes its header declares" in err


def _cut_csv(src, dst, rows_kept: int, fields_of_next: int) -> int:
    """Write the header + ``rows_kept`` rows + the first ``fields_of_next`` fields of the next row (no line end);
    return the byte offset where that cut line starts."""
    rows = list(csv.reader(open(src, newline="")))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows[:1 + rows_kept])
    head = buf.getvalue()
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(rows[1 + rows_kept][:fields_of_next])
    dst.write_text(head + buf.getvalue())
    return len(head.encode())


@pytest.mark.parametrize("src, name", [
    (CASES / "B17.v1_results.csv", "results.csv"),
    (fuzzing.DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv", "kernel_trace.csv"),
])
def test_csv_whose_last_line_is_cut(tmp_path, src, name):
    p = tmp_path / name
    at = _cut_csv(src, p, 1, 5)  # one complete row, then 5 fields of the second
    tl = collect(p)  # strict: the cut line is no error, it is the truncation
    assert len(tl.of_kind("kernel")) == 1
    assert tl.meta.truncated and tl.meta.truncated_at == {str(p): at}
    assert any("truncated: the last line" in w and "cut after 5 of" in w for w in tl.meta.warnings)
    q = tmp_path / "first" / name
    q.parent.mkdir()
    _cut_csv(src, q, 0, 5)  # the cut is in the first row: nothing GPU readable
    code, err, _ = _run("analyze", q, "-q", "--no-cache")
    assert code == 2 and "truncated" in err and err.count("\n") == 1


def test_ncu_csv_last_row_cut(tmp_path):
    src = CASES / "B20.ncu_details_15col.csv"
    text = src.read_text()
    cut = text[:text.rstrip("\n").rindex("\n") + 1] + text.rstrip("\n").rsplit("\n", 1)[1][:40]
    p = tmp_path / "details.csv"
    p.write_text(cut)
    tl = collect(p)
    assert tl.meta.truncated and list(tl.meta.truncated_at.values()) == [len(cut[:cut.rindex("\n") + 1].encode())]


def test_a_missing_final_newline_alone_is_not_a_truncation(tmp_path):
    p = tmp_path / "results.csv"
    p.write_text((CASES / "B17.v1_results.csv").read_text().rstrip("\n"))
    tl = collect(p)
    assert not tl.meta.truncated and len(tl.of_kind("kernel")) == 2


def test_diff_with_a_truncated_side(tmp_path):
    text = _trace()
    none = tmp_path / "none.json"
    none.write_bytes(text[:text.index(b'"cat": "kernel"')])
    some = tmp_path / "some.json"
    some.write_bytes(text[:text.rindex(b'"cat": "kernel"')])
    full = tmp_path / "full.json"
    full.write_bytes(text)
    code, err, _ = _run("diff", full, none, "-q")
    assert code == 2 and str(none) in err and "truncated" in err and err.count("\n") == 1
    code, _, _ = _run("diff", full, some, "-q", "--json", tmp_path / "d.json")
    warnings = json.loads((tmp_path / "d.json").read_text())["warnings"]
    assert code == 0 and any(w.startswith(f"{some}: truncated after") for w in warnings)


def test_gate_reason_for_a_truncated_run_without_gpu_events(tmp_path):
    text = _trace()
    (tmp_path / "none.json").write_bytes(text[:text.index(b'"cat": "kernel"')])
    (tmp_path / "full.json").write_bytes(text)
    _run("analyze", tmp_path / "none.json", "-q", "--no-cache", "--json", tmp_path / "rn.json")
    _run("analyze", tmp_path / "full.json", "-q", "--no-cache", "--json", tmp_path / "rf.json")
    code, err, out = _run("gate", "--baseline", tmp_path / "rf.json", tmp_path / "rn.json", "--json",
                          tmp_path / "g.json")
    assert code == 4  # docs/gate.md: no usable candidate run
    doc = json.loads((tmp_path / "g.json").read_text())
    assert "input truncated" in json.dumps(doc) and "the workload failed" not in json.dumps(doc)
    shutil.rmtree(tmp_path / "x", ignore_errors=True)
