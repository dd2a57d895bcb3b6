"""A report asked for under a path whose folder part is an existing file gets one line naming that file (it said
only "cannot write the report (File exists)": fresh-user walk); nothing is written or replaced."""

from __future__ import annotations

import pytest

from gpulens.cli import main


@pytest.mark.parametrize("flag", ["--html", "--json", "--markdown"])
@pytest.mark.parametrize("below", ["x.out", "a/b/x.out"])
def test_a_file_where_a_folder_is_needed_is_named(tmp_path, capsys, monkeypatch, flag, below):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ro").write_text("keep me")
    assert main(["analyze", "--demo", "-q", flag, f"ro/{below}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gpulens: error: ro/{below}: cannot write the report: ro is a file, not a folder"]
    assert (tmp_path / "ro").read_text() == "keep me"
