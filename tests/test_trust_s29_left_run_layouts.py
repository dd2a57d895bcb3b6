"""A folder holding one rocprofv3 run in several layouts (``--output-format csv json rocpd``: ``77_kernel_trace.csv``,
``77_results.json``, ``77_results.db``) is read once, and the warning names the file read and the one skipped.

Expected counts are the files' own rows: the CSV holds 2 dispatches (150 ns and 20 ns); the JSON of
tests/test_rocprofv3.py the same 2 (start 100/300, end 250/320) plus one copy; the rocpd database of
tests/test_rocpd.py 2 dispatches (4000 ns and 300 ns). Reading two layouts doubled the kernels or dropped one file
without a word.
"""

from __future__ import annotations

import gzip
import shutil

import pytest

from gpulens.collectors import collect
from tests.test_rocpd import build_layout_b
from tests.test_rocprofv3 import _tiny_v3_json

_CSV = ('"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
        '"KERNEL_DISPATCH",1,5,1,"k_one(float*)",100,250\n"KERNEL_DISPATCH",1,5,1,"k_one(float*)",300,320\n')


def _json(path):
    gz = path.with_name(path.name + ".gz")
    _tiny_v3_json(gz)
    with gzip.open(gz, "rb") as fh, open(path, "wb") as out:
        shutil.copyfileobj(fh, out)
    gz.unlink()


@pytest.mark.parametrize("sub", ["", "hostname"])
def test_csv_and_json_of_one_run_read_once_and_the_json_named(tmp_path, sub):
    d = tmp_path / sub if sub else tmp_path
    d.mkdir(exist_ok=True)
    (d / "77_kernel_trace.csv").write_text(_CSV)
    _json(d / "77_results.json")
    tl = collect(tmp_path)
    k = tl.of_kind("kernel")
    assert sorted(k["dur_ns"].tolist()) == [20, 150]  # the CSV's two dispatches, once
    said = [w for w in tl.meta.warnings if "77_results.json" in w]
    assert len(said) == 1 and "77_kernel_trace.csv" in said[0] and "twice" in said[0]


def test_json_and_rocpd_of_one_run_read_once(tmp_path):
    _json(tmp_path / "77_results.json")
    build_layout_b(tmp_path / "77_results.db")
    tl = collect(tmp_path)
    k = tl.of_kind("kernel")
    assert sorted(k["dur_ns"].tolist()) == [300, 4000]  # the rocpd database's two dispatches; the JSON skipped
    said = [w for w in tl.meta.warnings if "77_results.json" in w]
    assert len(said) == 1 and "77_results.db" in said[0]


def test_two_processes_of_different_prefixes_are_both_read(tmp_path):
    """Different prefixes are different processes (or runs): both read, as before."""
    _json(tmp_path / "77_results.json")
    build_layout_b(tmp_path / "78_results.db")
    tl = collect(tmp_path)
    assert sorted(tl.of_kind("kernel")["dur_ns"].tolist()) == [20, 150, 300, 4000]
    assert not any("twice" in w for w in tl.meta.warnings)


def test_a_compressed_copy_of_the_same_json_is_read_once(tmp_path):
    """77_results.json and 77_results.json.gz (the same records) were read as two ranks of pid 77: 4 kernels."""
    _json(tmp_path / "77_results.json")
    _tiny_v3_json(tmp_path / "77_results.json.gz")
    tl = collect(tmp_path)
    assert sorted(tl.of_kind("kernel")["dur_ns"].tolist()) == [20, 150]
    said = [w for w in tl.meta.warnings if "another copy" in w]
    assert len(said) == 1 and "77_results.json" in said[0]
