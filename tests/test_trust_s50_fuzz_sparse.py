"""Session-50 fuzzing (tests/fuzz_s50.py, ``sparse``): a sparse file that is one hole (``truncate -s 4G``: space
reserved and never written) was read whole into memory before being called "holds only NUL bytes" — 50 s and 4 GiB
for 4 GiB — and as a rank file of a folder it was "not a recognised trace format". One ``lseek(SEEK_DATA)`` now
tells it without reading it.

The expected size in each message is the size the test gives the file.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tracemalloc
from pathlib import Path

import pytest

from gpulens._inputs import hole_only
from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.errors import TraceFormatError

SIZE = 256 << 20


def _sparse(path, size=SIZE):
    with open(path, "wb") as fh:
        fh.truncate(size)
    if hole_only(path) != size:
        pytest.skip("this file system does not report holes (lseek SEEK_DATA)")
    return path


def test_a_file_of_one_hole_is_refused_without_reading_it(tmp_path):
    p = _sparse(tmp_path / "trace.pt.trace.json")
    tracemalloc.start()
    try:
        with pytest.raises(TraceFormatError) as err:
            collect(p, cache=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"holds only NUL bytes ({SIZE:,} zero bytes" in str(err.value)
    assert peak < 16 << 20  # the 256 MiB of zeros were never read into memory


def test_command_line_error_is_one_line(tmp_path, capsys):
    p = _sparse(tmp_path / "report.sqlite")
    assert main(["analyze", str(p), "-q", "--no-cache"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("gpulens: error:") and "report.sqlite" in err
    assert f"({SIZE:,} zero bytes" in err


def test_hole_rank_file_of_a_folder_is_named_as_such(tmp_path, capsys):
    ev = [{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100, "dur": 50,
           "args": {"device": 0, "stream": 7, "correlation": 1}}]
    (tmp_path / "rank0.json").write_text(json.dumps({"traceEvents": ev}))
    _sparse(tmp_path / "rank1.json", 8 << 20)
    assert main(["analyze", str(tmp_path), "-q", "--no-cache"]) == 0  # partial: rank 0 read
    err = capsys.readouterr().err
    assert f"rank1.json: holds only NUL bytes ({8 << 20:,} zero bytes" in err, err


def test_a_file_with_data_is_not_a_hole(tmp_path):
    p = tmp_path / "t.json"
    with open(p, "wb") as fh:
        fh.write(b"{}")
        fh.truncate(4 << 20)  # data, then a hole: not one hole
    assert hole_only(p) is None
    small = tmp_path / "s.json"
    small.write_bytes(bytes(1000))  # under 1 MiB: read as before
    assert hole_only(small) is None
    assert os.path.getsize(p) == 4 << 20


# ---------------------------------------------------------------------------------------------------- NUL tails
# A text trace whose writer died after reserving space ends in NUL padding. A short tail gave a partial result with
# every row read; a tail of 64 MiB or more became one CSV field past the csv module's limit and failed the whole
# file ("malformed rocprofv3_csv data (Error: field larger than field limit)", 2 GB of memory for 256 MiB). Now any
# tail is cut to 4 KiB at the read (a tail that is a hole is not even read): one outcome whatever its size.

V3 = Path(__file__).parent / "data" / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"


def _rows() -> int:
    with open(V3, newline="") as fh:
        return sum(1 for _ in csv.DictReader(fh))  # the committed file's kernel dispatches, one per row


@pytest.mark.parametrize("tail,written", [(4096, True), (80 << 20, False), (66 << 20, True)])
def test_nul_tail_of_any_size_reads_every_row(tmp_path, tail, written):
    p = tmp_path / "kernel_trace.csv"
    shutil.copyfile(V3, p)
    with open(p, "ab") as fh:
        if written:
            fh.write(bytes(tail))  # zeros written out
        else:
            fh.truncate(os.path.getsize(V3) + tail)  # a hole
    tl = collect(p, cache=False, strict=False)
    assert int((tl.events["kind"] == "kernel").sum()) == _rows()
    assert tl.meta.truncated  # said: the file stops where the padding starts
    assert os.path.getsize(p) == os.path.getsize(V3) + tail  # the input left as it was
