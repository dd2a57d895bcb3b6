"""Header-only and header-cut CSVs, and rocprofv3 JSON cut mid-file (eighth session).

Three classes:

* a header-only file of any CSV format is recognised as that format with no rows: exit 5 "no GPU work" naming the
  file and the format it was read as (a rocprof v1 counter CSV ``Index,KernelName,<counters>`` was "not a
  recognised trace format");
* a CSV cut inside its header line (no line end, the last name cut: an open quote, a strict prefix of a known
  column, a name no profiler writes last, an open bracket) is truncated (exit 2), not an empty run (exit 5); a last
  row whose field count still matches but whose end time lost digits (below its start) is cut too;
* a rocprofv3 JSON cut mid-file gives every complete record before the cut, marked partial with a warning naming
  the byte offset, as the Kineto JSON path does (was exit 2 with no result).

Inputs are built inline; expected counts and offsets are computed here from the bytes written.
"""

from __future__ import annotations

import gzip
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from gpulens.cli import main
from gpulens.collectors import collect, sniff

from .test_rocprofv3 import _tiny_v3_json

V1_FIXED = "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj"
V3_HEADER = ('"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp",'
             '"End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X","Workgroup_Size_Y",'
             '"Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
NCU_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
              '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def _run(*args):
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        try:
            code = main(list(map(str, args)))
        except SystemExit as e:
            code = e.code
    return code, err.getvalue(), out.getvalue()


@pytest.mark.parametrize("name, header, fmt", [
    ("counters.csv", "Index,KernelName,SQ_WAVES,GRBM_GUI_ACTIVE", "rocprof_v1"),  # counter-only v1 run
    ("results.csv", V1_FIXED + ",DispatchNs,BeginNs,EndNs,CompleteNs", "rocprof_v1"),
    ("pmc.csv", V1_FIXED + ",SQ_WAVES,GRBM_COUNT", "rocprof_v1"),
    ("kernel_trace.csv", V3_HEADER, "rocprofv3_csv"),
    ("details.csv", NCU_HEADER, "ncu_csv"),
])
def test_header_only_is_that_format_with_no_work(tmp_path, name, header, fmt):
    p = tmp_path / name
    p.write_text(header + "\n")
    assert sniff(p).name == fmt
    code, err, out = _run("analyze", p, "--no-cache")
    assert code == 5, (err, out)
    line = " ".join(out.split())  # the console may wrap
    from gpulens.collectors._format_words import FORMAT_WORDS

    assert "No GPU work" in line and str(p) in line and f"read as {FORMAT_WORDS[fmt]}" in line


@pytest.mark.parametrize("name, text", [
    ("a.csv", "Index,KernelName,gpu-id,queue-id,queue-i"),  # strict prefix of a known column
    ("b.csv", "Index,KernelName,gpu-id,queue-id"),  # a column v1 always writes more after
    ("c.csv", V1_FIXED + ",SQ_WAVES,GRBM_GUI_ACT"),  # prefix of a known counter
    ("d.csv", V1_FIXED + ",TCC_HIT[0],TCC_HIT[1"),  # an instance counter cut before its ]
    ("e.csv", V1_FIXED + ","),  # cut right after a separator
    ("f.csv", V1_FIXED + ",TCC_EA_WRREQ[0],TCC_EA_RDREQ[0],TCC_E"),  # prefix of a name earlier in the header
    ("kernel_trace.csv", V3_HEADER[:V3_HEADER.index("Start_Timestamp") + 5]),  # inside a quoted name
    ("details.csv", NCU_HEADER[:NCU_HEADER.index("Metric Unit") + 3]),
])
def test_header_cut_is_truncated_exit_2(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)  # no line end: the writer stopped inside its header line
    code, err, _ = _run("analyze", p, "-q", "--no-cache")
    assert code == 2, err
    assert str(p) in err and "truncated" in err


def test_complete_header_without_line_end_is_an_empty_run(tmp_path):
    # ends on a column a header may end with (End_Timestamp closes a rocprofv3 copy trace; a counter may be last):
    # nothing tells it from a complete header, so it is the empty run it looks like, not a guessed cut
    for text in (V3_HEADER, V1_FIXED + ",SQ_WAVES"):
        p = tmp_path / "k.csv"
        p.write_text(text)
        code, err, _ = _run("analyze", p, "-q", "--no-cache")
        assert code == 5, (text, err)


def test_last_row_with_end_time_that_lost_digits_is_cut(tmp_path):
    head = V1_FIXED + ",DispatchNs,BeginNs,EndNs,CompleteNs\n"
    row = lambda i, b, e: f'{i},"k{i}(int)",0,0,{i},1,1,256,256,0,0,8,0,16,64,0,0,{b - 10},{b},{e},{e + 7}'  # noqa: E731
    full = head + row(0, 1000, 1500) + "\n" + row(1, 2000, 2600)
    p = tmp_path / "r.csv"
    p.write_text(full[:-2])  # CompleteNs 2607 → "26": every field still there, the value below BeginNs 2000
    tl = collect(p)
    k = tl.gpu_events()
    assert list(k["name"].astype(str)) == ["k0(int)"]  # the cut row is not kept, k0 is
    assert tl.meta.truncated_at == {str(p): len((head + row(0, 1000, 1500) + "\n").encode())}
    p.write_text(full)  # the same without the cut: no final newline alone is no truncation
    assert len(collect(p).gpu_events()) == 2 and not collect(p).meta.truncated_at


def _v3_bytes(tmp_path) -> bytes:
    _tiny_v3_json(tmp_path / "x.json.gz")
    return gzip.decompress((tmp_path / "x.json.gz").read_bytes())


def test_rocprofv3_json_cut_inside_the_second_dispatch_keeps_the_first(tmp_path):
    data = _v3_bytes(tmp_path)
    second = data.index(b'"start_timestamp": 300')
    p = tmp_path / "77_results.json"
    p.write_bytes(data[:second + 30])  # inside the second kernel dispatch record
    tl = collect(p)
    k = tl.gpu_events()
    k = k[k["kind"] == "kernel"]
    assert list(k["dur_ns"]) == [150]  # 250 - 100, the first record (the second is not invented)
    assert str(k["name"].iloc[0]) == "k_one(float*)"
    # kept up to the end of the first record: the "}" just before ", {" that opens the second one
    first_end = data.rindex(b"}", 0, data.rindex(b"{", 0, second)) + 1
    assert tl.meta.truncated_at == {str(p): first_end}
    assert any("truncated" in w and f"{first_end:,}" in w for w in tl.meta.warnings)
    code, err, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0, err
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "partial"


@pytest.mark.parametrize("gz", [False, True])
def test_rocprofv3_json_cut_before_any_dispatch_is_exit_2(tmp_path, gz):
    data = _v3_bytes(tmp_path)
    cut = data[:data.index(b'"kernel_dispatch"') + 25]
    p = tmp_path / ("77_results.json.gz" if gz else "77_results.json")
    p.write_bytes(gzip.compress(cut) if gz else cut)
    code, err, _ = _run("analyze", p, "-q", "--no-cache")
    assert code == 2 and str(p) in err and "truncated" in err
    p.write_bytes(data[:40])  # inside the metadata: nothing complete at all
    code, err, _ = _run("analyze", p, "-q", "--no-cache")
    assert code == 2 and "truncated" in err


@pytest.mark.parametrize("sep, delim", [(",", ","), (";", ";")])
def test_excel_sep_line_before_the_header(tmp_path, sep, delim):
    # Excel's "sep=X" hint line: the rows under it are read with that delimiter (was "not a recognised trace format")
    head = V1_FIXED + ",DispatchNs,BeginNs,EndNs,CompleteNs"
    rows = ['0,"gemm(int, int)",0,0,0,1,1,256,256,0,0,8,0,16,64,0,0,90,100,350,360',
            '1,"axpy(float)",0,0,1,1,1,256,256,0,0,8,0,16,64,0,0,390,400,450,460']
    if delim == ";":  # re-delimit outside the quoted names
        rows = [r.replace(",", ";").replace('"gemm(int; int)"', '"gemm(int, int)"') for r in rows]
        head = head.replace(",", ";")
    p = tmp_path / "results.csv"
    p.write_text(f"sep={sep}\r\n" + head + "\r\n" + "\r\n".join(rows) + "\r\n")
    k = collect(p).gpu_events().sort_values("start_ns")
    assert list(k["name"].astype(str)) == ["gemm(int, int)", "axpy(float)"]
    assert list(k["dur_ns"]) == [350 - 100, 450 - 400]  # EndNs - BeginNs of each row


@pytest.mark.parametrize("delim, encoding", [(";", "utf-8"), ("\t", "utf-16")], ids=["semicolon", "excel-unicode-text"])
def test_spreadsheet_resaved_csv_without_sep_line(tmp_path, delim, encoding):
    # a rocprof v1 CSV saved again by a spreadsheet: ';' (locales whose list separator is ';') or Excel's "Unicode
    # text" (UTF-16, tab-separated), quoted names keeping their commas; was "not a recognised trace format"
    import csv as _csv

    rows = [V1_FIXED.split(",") + ["DispatchNs", "BeginNs", "EndNs", "CompleteNs"],
            ["0", "gemm(int, int)", *"0 0 0 1 1 256 256 0 0 8 0 16 64 0 0 90 100 350 360".split()],
            ["1", "axpy(float)", *"0 0 1 1 1 256 256 0 0 8 0 16 64 0 0 390 400 450 460".split()]]
    buf = io.StringIO()
    _csv.writer(buf, delimiter=delim, lineterminator="\r\n").writerows(rows)
    p = tmp_path / "results.csv"
    p.write_bytes(buf.getvalue().encode(encoding))
    k = collect(p).gpu_events().sort_values("start_ns")
    assert list(k["name"].astype(str)) == ["gemm(int, int)", "axpy(float)"]
    assert list(k["dur_ns"]) == [350 - 100, 450 - 400]


def test_rocprof_v1_results_json_cut_keeps_every_complete_event(tmp_path):
    # rocprof v1 --hip-trace results.json: events first, then the agent description; a cut anywhere after the
    # first complete event keeps the events written in full (was "not readable JSON", exit 2)
    def ev(pid, name, b, e):
        return {"ph": "X", "name": name, "pid": pid, "tid": 0, "ts": b // 1000, "dur": (e - b) // 1000,
                "args": {"BeginNs": str(b), "EndNs": str(e), "DurationNs": str(e - b), "dev-id": "0",
                         "queue-id": "0", "Name": name}}
    doc = {"traceEvents": [{"ph": "M", "pid": 6, "name": "process_name", "args": {"name": "GPU0"}},
                           ev(6, "k_a", 1_000_000, 1_040_000), ev(6, "k_b", 1_050_000, 1_060_000)],
           "otherData": {f"Agent0.key{i}": "x" * 20 for i in range(40)}}
    text = json.dumps(doc).encode()
    p = tmp_path / "results.json"
    p.write_bytes(text[: text.index(b"Agent0.key20")])  # inside the agent description
    tl = collect(p)
    k = tl.gpu_events().sort_values("start_ns")
    assert list(k["name"].astype(str)) == ["k_a", "k_b"] and list(k["dur_ns"]) == [40_000, 10_000]
    assert tl.meta.truncated_at  # partial: marked, with the offset where the lost part starts
    p.write_bytes(text[: text.index(b'"k_b"') + 3])  # inside the second event: only k_a
    assert list(collect(p).gpu_events()["name"].astype(str)) == ["k_a"]


def test_roctracer_and_results_txt_cut_mid_line_are_partial(tmp_path):
    # the line-record text formats follow the one truncation rule: a last line with no line end that is not a whole
    # record is left out and the result marked partial (was counted as a malformed line, result not partial)
    ops = (b"1000:1200 2:0 CopyHostToDevice:4:894\n"
           b"5000:9000 2:0 void kern<float, 4>(int, float*):8:894\n")
    p = tmp_path / "894_hcc_ops_trace.txt"
    p.write_bytes(ops[:-12])  # inside the second record's name
    tl = collect(p)
    assert list(tl.gpu_events()["name"].astype(str)) == ["CopyHostToDevice"]
    assert tl.meta.truncated_at == {str(p): ops.index(b"5000:")}  # the lost part starts at the cut line
    rec = ('dispatch[0], gpu-id(1), queue-id(0), pid(4242), tid(4242), grd(1024), wgr(256), '
           'kernel-name("k_a"), time(1000,2000,5000,5100)\n  SQ_WAVES (16)\n'
           'dispatch[1], gpu-id(1), queue-id(0), pid(4242), tid(4242), grd(1024), wgr(256), '
           'kernel-name("k_b"), time(5200,6000,6500,6600)\n')
    q = tmp_path / "4242_results.txt"
    q.write_text(rec[: rec.index("time(5200") + 12])  # inside k_b's time(...)
    tl = collect(q)
    k = tl.gpu_events()
    assert list(k["name"].astype(str)) == ["k_a"] and list(k["dur_ns"]) == [5000 - 2000]  # time(b, start, end, c)
    assert tl.meta.truncated_at == {str(q): rec.index("dispatch[1]")}
    q.write_text(rec[:60])  # inside the first record: nothing complete
    code, err, _ = _run("analyze", q, "-q", "--no-cache")
    assert code == 2 and "truncated" in err
