"""Fifth-session variants of the shared cases (tests/fuzz_variants.py): a change of form that keeps the content
keeps the answer.

* a small file gzipped in several members (a stream written in pieces, B02's class) is recognised by its content
  even when the first member ends before the header line does (the sniffer read only the first member);
* an Nsight Compute CSV whose columns were reordered by another tool (``"ID"`` no longer first) is still an ncu CSV
  and gives the same kernels and durations (B20's class: "map columns by name");
* an ``.ncu-rep`` without the optional reader names the file in its one-line error.

Expected values come from the case files themselves (restated in the README of ../shared/cases, B05/B20).
"""

from __future__ import annotations

import csv
import gzip
import io

import pytest

from gpulens.collectors import collect
from gpulens.errors import DependencyError

from .conftest import CASES


def _members(data: bytes, n: int) -> bytes:
    step = -(-len(data) // n)
    return b"".join(gzip.compress(data[i:i + step]) for i in range(0, len(data), step))


def test_a_small_csv_split_across_gzip_members_is_recognised(tmp_path):
    # B05b: a rocprofv3 kernel_trace.csv with its header only; three members cut the header line in three pieces
    data = (CASES / "B05b.kernel_trace.csv").read_bytes()
    p = tmp_path / "kernel_trace.csv.gz"
    p.write_bytes(_members(data, 3))
    assert gzip.decompress(p.read_bytes()) == data
    tl = collect(p)
    assert tl.meta.sources[0]["collector"] == "rocprofv3_csv"
    assert len(tl.gpu_events()) == 0  # header only: no kernel (B05 expected value)


def test_a_kineto_trace_in_many_tiny_gzip_members_loads_whole(tmp_path):
    # B13 (4 kernels, README) in members of ~40 bytes: the sniffer must see '{"traceEvents"' across members
    data = (CASES / "B13.json").read_bytes()
    p = tmp_path / "t.json"
    p.write_bytes(_members(data, max(2, len(data) // 40)))
    tl = collect(p)
    assert tl.meta.sources[0]["collector"] == "kineto"
    assert (tl.events["kind"].astype(str) == "kernel").sum() == 4


@pytest.mark.parametrize("name", ["B20.ncu_details_15col.csv", "B20.ncu_raw.csv"])
def test_ncu_csv_with_reordered_columns_reads_the_same(tmp_path, name):
    text = (CASES / name).read_text(encoding="utf-8")
    lines = text.splitlines()
    h = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[h:]))))
    perm = list(reversed(range(len(rows[0]))))  # "ID" becomes the last column
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for r in rows:
        w.writerow([r[i] if i < len(r) else "" for i in perm])
    p = tmp_path / name
    p.write_text("\n".join(lines[:h]) + ("\n" if h else "") + buf.getvalue(), encoding="utf-8")
    tl = collect(p)
    k = tl.events[tl.events["kind"].astype(str) == "kernel"]
    got = dict(zip(k["name"].astype(str).str.split("(").str[0], k["dur_ns"].tolist()))
    # README B20: gemm_kernel 1,234.56 µs, reduce_sum 2,050 µs (from 2.05 ms)
    assert got == {"gemm_kernel": 1_234_560, "reduce_sum": 2_050_000}


def test_ncu_rep_without_the_reader_names_the_file(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ncu_report", None)  # `import ncu_report` raises ImportError, installed or not
    p = tmp_path / "r.ncu-rep"
    p.write_bytes(b"NVR\x00" + bytes(64))
    with pytest.raises(DependencyError) as ei:
        collect(p)
    assert str(ei.value).startswith(str(p)) and "gpulens[ncu]" in str(ei.value)
