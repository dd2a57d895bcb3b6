"""Session-41 fuzzing (tests/fuzz_s41.py): one regression per fault kind, expected values counted from the inputs
built here (rows of the CSV, records of the text, events of the JSON), never from gpulens's output.

* a rocprofv3 CSV folder holding a link back to itself (``run/again -> run``) or a link to its kernel trace read
  the same kernels as a second process: every kernel counted twice;
* a 0-byte file of one process beside another's (rocprofv3 CSV, rocprof v1 text) refused the whole folder; now the
  other process is read and the run is marked partial (as a rank directory with an empty rank file);
* a gzip-compressed rocprof v1 text trace (``894_hcc_ops_trace.txt.gz``) was "not a recognised trace format";
* a rocprofv3 file name holding a newline was "no rocprofv3 CSV file in this folder";
* rocprof v1 ``results.json`` writing ``traceEvents`` twice read the last array only ([] → "no GPU work");
* a JSON report (or baseline) gzipped or saved with a UTF-8 BOM and CRLF line ends: ``diff`` said "a gpulens JSON
  report, not a trace" (then advised ``gpulens diff``), ``gate --baseline`` "not a readable baseline".
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
V3 = DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"


@pytest.fixture(scope="module")
def b13_report(tmp_path_factory) -> Path:
    """The JSON report of tests/data/cases/B13.json (made once for the report tests)."""
    from gpulens.cli import main

    rep = tmp_path_factory.mktemp("report") / "r.json"
    assert main(["analyze", str(DATA / "cases" / "B13.json"), "-q", "--no-cache", "--json", str(rep)]) == 0
    return rep


def _v3_rows() -> int:
    with V3.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return sum(1 for r in rows if r["Kind"] == "KERNEL_DISPATCH")


def _kernels(tl) -> int:
    return int((tl.events["kind"] == "kernel").sum())


def test_v3_folder_linking_back_to_itself_reads_each_kernel_once(tmp_path):
    from gpulens.collectors import collect

    want = _v3_rows()
    assert want == 7
    d = tmp_path / "run"
    d.mkdir()
    shutil.copyfile(V3, d / "kernel_trace.csv")
    os.symlink(d, d / "again")  # a folder link back to the run
    os.symlink(d / "kernel_trace.csv", d / "copy_kernel_trace.csv")  # a file link: another "process" prefix
    tl = collect(d)
    assert _kernels(tl) == want  # was 21: three processes holding the same 7 kernels
    w = [x for x in tl.meta.warnings if "link to a trace already read" in x or "links to a trace" in x]
    assert len(w) == 1 and "again/" in w[0] and "copy_kernel_trace.csv (= kernel_trace.csv)" in w[0], w
    assert w[0].startswith(f"{d}: 2 files are links")


@pytest.mark.parametrize("fmt", ["rocprofv3_csv", "rocprof_v1_text"])
def test_an_empty_process_file_beside_another_gives_the_other_marked_partial(tmp_path, fmt):
    from gpulens.collectors import collect
    from tests.test_rocprof_v1_text import OPS

    d = tmp_path / "run"
    d.mkdir()
    if fmt == "rocprofv3_csv":
        shutil.copyfile(V3, d / "12_kernel_trace.csv")
        empty = d / "13_kernel_trace.csv"
        want = _v3_rows()
    else:
        (d / "894_hcc_ops_trace.txt").write_text(OPS)
        empty = d / "895_hcc_ops_trace.txt"
        # kernel records of the text: ``begin:end dev:queue name:corr`` whose name is no copy, fill or barrier
        want = sum(1 for ln in OPS.splitlines() if ln[:1].isdigit() and
                   not any(w in ln for w in ("Copy", "Fill", "Barrier")))
    empty.write_bytes(b"")
    tl = collect(d)  # strict: was "…/13_kernel_trace.csv: file is empty" for the whole folder
    assert _kernels(tl) == want
    assert tl.meta.unread == {str(empty): "file is empty"}
    assert tl.meta.rank_files == 2
    assert f"{d}: 1 of 2 rank files could not be read: {empty.name}: file is empty" in tl.meta.warnings[0]


def test_v3_file_name_with_a_newline_is_read(tmp_path):
    from gpulens.collectors import collect

    d = tmp_path / "run"
    d.mkdir()
    shutil.copyfile(V3, d / "x\ny_kernel_trace.csv")
    tl = collect(d)  # was "no rocprofv3 CSV file in this folder"
    assert _kernels(tl) == _v3_rows()


@pytest.mark.parametrize("packing", ["gzip", "gzip_two_members", "gzip_api_too"])
def test_gzip_compressed_rocprof_v1_text_trace_is_read(tmp_path, packing):
    from gpulens.collectors import collect, sniff
    from tests.test_rocprof_v1_text import API, OPS

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "894_hcc_ops_trace.txt").write_text(OPS)
    (plain / "894_hip_api_trace.txt").write_text(API)
    d = tmp_path / "packed"
    d.mkdir()
    half = len(OPS) // 2
    ops = (gzip.compress(OPS[:half].encode()) + gzip.compress(OPS[half:].encode())
           if packing == "gzip_two_members" else gzip.compress(OPS.encode()))
    (d / "894_hcc_ops_trace.txt.gz").write_bytes(ops)
    if packing == "gzip_api_too":
        (d / "894_hip_api_trace.txt.gz").write_bytes(gzip.compress(API.encode()))
    else:
        (d / "894_hip_api_trace.txt").write_text(API)
    f = d / "894_hcc_ops_trace.txt.gz"
    assert sniff(f) is not None and sniff(f).name == "rocprof_v1_text"  # was None: "not a recognised trace format"
    got, want = collect(f).events, collect(plain / "894_hcc_ops_trace.txt").events
    cols = ["kind", "name", "start_ns", "dur_ns", "device_id", "grid_x", "block_x"]
    assert got[cols].astype(str).values.tolist() == want[cols].astype(str).values.tolist()
    # the API calls of the text: a line per call
    assert int((got["kind"] == "runtime").sum()) == sum(1 for ln in API.splitlines() if ln[:1].isdigit())


@pytest.mark.parametrize("where", ["second_empty", "first_empty"])
def test_rocprof_v1_json_with_traceevents_written_twice_reads_the_longest(tmp_path, where):
    from gpulens.collectors import collect
    from tests.fuzzing import _v1_json

    src = tmp_path / "seed.json"
    _v1_json(src)
    events = json.loads(src.read_text())["traceEvents"]
    body = json.dumps(events)
    p = tmp_path / "results.json"
    p.write_text('{"traceEvents": ' + body + ', "traceEvents": []}' if where == "second_empty"
                 else '{"traceEvents": [], "traceEvents": ' + body + "}")
    tl = collect(p)  # second_empty was 0 kernels: "No GPU work found"
    gpu_tracks = {e["pid"] for e in events if e.get("ph") == "M" and e["args"]["name"].startswith("GPU")}
    want = [e["name"] for e in events if e.get("ph") == "X" and str(e["pid"]) in {str(x) for x in gpu_tracks}]
    assert sorted(tl.events.loc[tl.events["kind"] == "kernel", "name"]) == sorted(want) and len(want) == 1
    n = len(events)
    held = f"{n:,}, 0" if where == "second_empty" else f"0, {n:,}"
    assert any("'traceEvents' is written 2 times" in w and f"events per key in file order: {held}" in w
               for w in tl.meta.warnings), tl.meta.warnings


@pytest.mark.parametrize("how", ["bom_crlf", "gzip", "gzip_trailing"])
def test_report_saved_with_a_bom_or_gzipped_is_the_report_for_diff_and_gate(tmp_path, how, capsys, b13_report):
    from gpulens.cli import main
    from gpulens.gate.baseline import load_baseline
    from gpulens.gate.runs import load_report

    rep = b13_report
    text = rep.read_text()
    if how == "bom_crlf":
        other = tmp_path / "r_bom.json"
        other.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    else:
        other = tmp_path / "r.json.gz"
        other.write_bytes(gzip.compress(text.encode()) + (b"junk" if how == "gzip_trailing" else b""))
    assert load_report(other) == json.loads(text)  # the same document
    assert len(load_baseline(other).runs) == len(load_baseline(rep).runs) == 1  # was "not a readable baseline"
    capsys.readouterr()
    assert main(["diff", str(other), str(rep)]) == 0  # was 2: "a gpulens JSON report, not a trace"
    assert main(["gate", str(rep), "--baseline", str(other)]) == 0
    out = capsys.readouterr()
    assert "not a trace" not in out.err and "not a readable" not in out.err


@pytest.mark.parametrize("where", ["second_empty", "first_empty"])
def test_report_writing_sources_twice_is_refused_in_one_line_naming_the_key(tmp_path, where, capsys, b13_report):
    from gpulens.cli import main

    rep = b13_report
    text = rep.read_text()
    bad = tmp_path / "merged.json"
    bad.write_text(text.rstrip().rstrip("}") + ', "sources": []}' if where == "second_empty"
                   else text.replace('"sources"', '"sources": [], "sources"', 1))
    for args in (["diff", str(bad), str(rep)], ["gate", str(bad), "--baseline", str(rep)],
                 ["gate", str(rep), "--baseline", str(bad)]):
        capsys.readouterr()
        code = main(args)  # second_empty was 0 (diff) / 4 "candidate 0 runs" (gate): a report of no run
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1, (args, code, err)
        assert str(bad) in err[0] and "the top-level key 'sources' is written 2 times" in err[0], err
