"""A directory mixing trace formats (issue 17 class 4, nothing lost silently): a folder claimed by a folder format
(rocprofv3 CSV output) that also holds a Kineto trace and an nsys export reads the folder and names the other trace
files in a warning (an error with ``require_all`` / ``--strict``) — they were dropped without a word before.
"""

from __future__ import annotations

import shutil

import pytest

from gpulens.collectors import collect
from gpulens.errors import TraceFormatError

from .conftest import CASES, DATA
from .fuzzing import _nsys


def _mixed(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    shutil.copy(DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv", d / "kernel_trace.csv")
    shutil.copy(CASES / "B13.json", d / "rank0.pt.trace.json")
    _nsys(d / "rank1.sqlite")
    return d


def test_folder_format_names_the_trace_files_it_does_not_read(tmp_path):
    d = _mixed(tmp_path)
    tl = collect(d)
    # the CSV folder is read: kernel_trace.csv holds 8 lines, a header and 7 kernel dispatches
    assert len(tl.of_kind("kernel")) == 7
    w = [x for x in tl.meta.warnings if "not read" in x]
    assert len(w) == 1 and "rank0.pt.trace.json (kineto)" in w[0] and "rank1.sqlite (nsys_sqlite)" in w[0], w


def test_folder_format_with_other_trace_files_is_an_error_when_all_are_required(tmp_path):
    d = _mixed(tmp_path)
    with pytest.raises(TraceFormatError) as ei:
        collect(d, require_all=True)
    assert str(ei.value).startswith(f"{d}: ") and "rank0.pt.trace.json (kineto)" in str(ei.value)
    assert "\n" not in str(ei.value)


def test_folder_format_alone_has_no_such_warning(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    shutil.copy(DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv", d / "kernel_trace.csv")
    assert not any("not read" in x for x in collect(d).meta.warnings)


def test_directory_of_unusable_files_says_why_for_each(tmp_path):
    """A rank folder whose files are all unusable (here: two empty downloads — Git LFS pointers or a failed copy
    look like this — and a text note) names each file and its reason, not only "no trace file"."""
    d = tmp_path / "ranks"
    d.mkdir()
    (d / "rank0.json.gz").write_bytes(b"")
    (d / "rank1.json.gz").write_bytes(b"")
    (d / "notes.txt").write_text("not a trace\n")
    with pytest.raises(TraceFormatError) as ei:
        collect(d)
    msg = str(ei.value)
    assert "3 files" in msg
    assert "rank0.json.gz, rank1.json.gz (file is empty)" in msg  # files with the same reason named together
    assert "notes.txt (not a recognised trace format)" in msg
