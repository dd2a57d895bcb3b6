"""Session-50 fuzzing (tests/fuzz_s50.py, ``sparse``): a sparse file that is one hole (``truncate -s 4G``: space
reserved and never written) was read whole into memory before being called "holds only NUL bytes" — 50 s and 4 GiB
for 4 GiB — and as a rank file of a folder it was "not a recognised trace format". One ``lseek(SEEK_DATA)`` now
tells it without reading it.

The expected size in each message is the size the test gives the file.
"""

from __future__ import annotations

import json
import os
import tracemalloc

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
