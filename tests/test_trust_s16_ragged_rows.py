"""Lenient reading of profiler CSV rows of the wrong width: each row is read right or dropped with the warning that
counts it — never shifted into other columns (``collectors/_csvrows.read_ragged``, docs/architecture.md).

Variants are built from the real stats files of the corpus (rocprof v1 ``results.stats.csv`` / ``hip_stats`` /
``copy_stats``, rocprofv3 ``hip_api_stats.csv``, nsys ``cuda_gpu_kern_sum``) and trace CSVs: an extra trailing field
(text or a number), a missing field (last, or after the name), text in a numeric column, a comma inside a quoted or
an unquoted kernel name. The expected rows are the files' own rows read with the csv module.
"""

from __future__ import annotations

import csv
import math

import pytest

from gpulens.collectors import collect
from gpulens.errors import TraceFormatError
from tests.conftest import SHARED

ROC = SHARED / "rocprof"
STATS = [ROC / "v1_pmc_seismic_mi250x" / "results.stats.csv", ROC / "v1_hip_programming_mi300a" / "results.stats.csv",
         ROC / "v1_hip_programming_mi300a" / "results.copy_stats.csv",
         ROC / "v1_hip_programming_mi300a" / "results.hip_stats.csv", ROC / "v3_csv_sdk_docs" / "hip_api_stats.csv",
         ROC / "v1_gunrock_mi300x" / "results.stats.csv"]
KERN_SUM = SHARED / "nsys" / "codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv"
pytestmark = pytest.mark.skipif(not ROC.is_dir(), reason="developer corpus (../shared/traces) not present")


def _rows(path):
    with open(path, newline="") as fh:
        r = [x for x in csv.reader(fh) if x]
    return r[0], r[1:]


def _line(fields, name_at):
    return ",".join(f'"{f}"' if i == name_at else f for i, f in enumerate(fields))


def _variants(fields, name_at, num_at):
    """line text → (what the row must read as: None = dropped, else (name, calls-or-instances, total))."""
    f = list(fields)
    short = [x for i, x in enumerate(f) if i != num_at]
    bad = list(f)
    bad[num_at] = "abc"
    comma = list(f)
    comma[name_at] = "foo(int, float)"
    return {
        "extra text": (_line(f, name_at) + ',"extra"', None),
        "extra number": (_line(f, name_at) + ",999", None),
        "text in a numeric column, and an extra field": (_line(bad, name_at) + ',"extra"', None),
        "a missing count": (_line(short, name_at if name_at < num_at else name_at - 1), None),
        "text in a numeric column": (_line(bad, name_at), None),
        "quoted name with a comma": (_line(comma, name_at), "foo(int, float)"),
        "unquoted name with a comma": (",".join(comma), "foo(int, float)"),
    }


def _stats(tl):
    t = tl.tables["rocprof_stats"]
    return {(str(n), int(c), int(d)) for n, c, d in zip(t["Name"], t["Calls"], t["TotalDurationNs"])}


@pytest.mark.parametrize("path", STATS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rocprof_stats_rows_are_read_right_or_dropped_and_counted(tmp_path, path):
    header, rows = _rows(path)
    want = {(r[0], int(r[1]), int(r[2])) for r in rows[1:]}  # the untouched rows, as the file holds them
    first = rows[0]
    for what, (line, name) in _variants(first, 0, 1).items():
        p = tmp_path / path.name
        p.write_text(_line(header, -1).replace('"', "") + "\n" + line + "\n"
                     + "\n".join(_line(r, 0) for r in rows[1:]) + "\n")
        got = _stats(collect(p, strict=False))
        if name is None:  # dropped, and counted in a warning
            assert got == want, what
            warns = " ".join(collect(p, strict=False).meta.warnings)
            assert "1 row dropped" in warns or "1 summary row dropped" in warns, what
        else:
            assert got == want | {(name, int(first[1]), int(first[2]))}, what


@pytest.mark.parametrize("path", STATS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_stats_row_missing_its_last_column_is_read_when_calls_times_average_is_total(tmp_path, path):
    header, rows = _rows(path)
    first = rows[0]
    p = tmp_path / path.name
    p.write_text(",".join(header) + "\n" + _line(first[:-1], 0) + "\n" + "\n".join(_line(r, 0) for r in rows[1:])
                 + "\n")
    calls, total, avg = int(first[1]), int(first[2]), float(first[3])
    assert abs(total - calls * avg) <= calls  # the file's own row agrees (rocprof rounds the average)
    t = collect(p, strict=False).tables["rocprof_stats"]
    row = t[t["Name"] == first[0]].iloc[0]
    assert (int(row["Calls"]), int(row["TotalDurationNs"])) == (calls, total)
    assert math.isnan(float(row[header[-1]]))  # the missing last column is unknown, not another column's value
    with pytest.raises(TraceFormatError, match="refusing to shift columns"):
        collect(p)  # strict: one line naming the file


def test_a_row_missing_a_field_whose_figures_disagree_is_dropped(tmp_path):
    # "k",3000,1500,10.0 read from the left would be 3000 calls of 1500 ns in total: 3000 × 10 ≠ 1500 → dropped
    p = tmp_path / "results.stats.csv"
    p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"good",1,1000,1000,10.0\n'
                 '"k",3000,1500,10.0\n')
    tl = collect(p, strict=False)
    assert _stats(tl) == {("good", 1, 1000)}
    assert any("1 row dropped" in w for w in tl.meta.warnings)


@pytest.mark.skipif(not KERN_SUM.exists(), reason="developer corpus not present")
def test_nsys_kern_sum_rows_are_read_right_or_skipped_and_counted(tmp_path):
    header, rows = _rows(KERN_SUM)
    name_at = len(header) - 1
    want = {(r[-1], int(float(r[2])), int(float(r[1]))) for r in rows[1:]}
    for what, (line, name) in _variants(rows[0], name_at, 2).items():
        p = tmp_path / KERN_SUM.name
        p.write_text(",".join(header) + "\n" + line + "\n" + "\n".join(_line(r, name_at) for r in rows[1:]) + "\n")
        tl = collect(p, strict=False)
        t = tl.tables["kernel_summary"]
        got = {(n, int(c), int(d)) for n, c, d in zip(t["name"], t["calls"], t["total_ns"])}
        if name is None:
            assert got == want, what
            assert any("1 row with a wrong field count skipped" in w or "1 kernel row dropped" in w
                       for w in tl.meta.warnings), what
        else:
            assert got == want | {(name, int(rows[0][2]), int(rows[0][1]))}, what


@pytest.mark.parametrize("rel, name_col", [("v3_csv_sdk_docs/kernel_trace.csv", "Kernel_Name"),
                                           ("v1_gunrock_mi300x/results.csv", "KernelName")])
def test_trace_rows_with_an_extra_or_missing_field_are_dropped_never_shifted(tmp_path, rel, name_col):
    header, rows = _rows(ROC / rel)
    name_at = header.index(name_col)
    start = next(i for i, h in enumerate(header) if h in ("Start_Timestamp", "BeginNs"))
    want = sorted(int(r[start]) for r in rows[1:])
    first = rows[0]
    quoted = [i for i, h in enumerate(header) if h in ("Kind", name_col)]

    def line(fs):
        return ",".join(f'"{x}"' if i in quoted else x for i, x in enumerate(fs))

    for what, text in {"extra text": line(first) + ',"extra"', "extra number": line(first) + ",999",
                       "missing last": line(first[:-1]),
                       "missing after the name": line(first[:name_at + 1] + first[name_at + 2:])}.items():
        d = tmp_path / what.replace(" ", "_")
        d.mkdir()
        p = d / (ROC / rel).name
        p.write_text(",".join(header) + "\n" + text + "\n" + "\n".join(line(r) for r in rows[1:]) + "\n")
        tl = collect(p, strict=False)
        assert sorted(tl.events["start_ns"].astype("int64").tolist()) == want, what
        assert any("1 row dropped" in w for w in tl.meta.warnings), what
