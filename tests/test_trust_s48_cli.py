"""Session 48: the command line's surfaces — output paths, Ctrl-C while starting, rank selections, the gate's
1-vs-1 threshold and its baseline paths, diff's copy rows.

Each test states the rule and what a user would type; the expected texts and figures are written out here, not
read back from gpulens."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpulens.cli import main

DEMO = ["analyze", "--demo", "-q", "--no-cache"]


def _run(capsys, args):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


# --- output paths: "", "-" and "name/" decided once for every output option of every command ----------------------

@pytest.mark.parametrize("args, flag, kind", [
    (DEMO + ["--csv", ""], "--csv", "folder"),
    (DEMO + ["--parquet", ""], "--parquet", "folder"),
    (DEMO + ["--json", ""], "--json", "file"),
    (DEMO + ["--html", ""], "--html", "file"),
    (DEMO + ["--markdown", ""], "--markdown", "file"),
    (DEMO + ["--perfetto", ""], "--perfetto", "file"),
    (["diff", "a.json", "b.json", "--json", ""], "--json", "file"),
    (["gate", "c.json", "--baseline", "b.json", "--junit", ""], "--junit", "file"),
    (["profile", "--out", "", "--", "true"], "--out", "folder"),
])
def test_an_empty_output_path_is_refused_not_the_current_folder(tmp_path, monkeypatch, capsys, args, flag, kind):
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, args)
    assert code == 2
    assert err == f"gpulens: error: {flag}: an empty path; give a {kind} name\n"
    assert list(tmp_path.iterdir()) == []  # nothing spilled into the current folder


@pytest.mark.parametrize("args", [DEMO + ["--perfetto", "newd/"], DEMO + ["--json", "out/"],
                                  ["diff", "a.json", "b.json", "--html", "newd/"],
                                  ["gate", "c.json", "--baseline", "b.json", "--markdown", "newd/"]])
def test_a_report_file_named_like_a_folder_is_refused(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, args)
    flag = args[-2]
    assert code == 2
    assert err == (f"gpulens: error: {flag} {args[-1]}: names a folder (it ends in '/'); give a file name for the "
                   "report\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flag", ["--json", "--html", "--markdown", "--perfetto", "--csv"])
def test_dash_is_refused_for_every_output_and_no_file_named_dash_appears(tmp_path, monkeypatch, capsys, flag):
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, DEMO + [flag, "-"])
    assert code == 2
    assert err.startswith(f"gpulens: error: {flag}: '-' (standard output) is not supported; give a ")
    assert err.count("\n") == 1
    assert not (tmp_path / "-").exists()


def test_an_empty_input_path_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for args in (["analyze", ""], ["diff", "", "b.json"]):
        code, _, err = _run(capsys, args)
        assert (code, err) == (2, "gpulens: error: an input path is empty (give a file or folder name)\n")


def test_a_path_that_only_looks_odd_is_still_accepted(tmp_path, monkeypatch, capsys):
    # "./-" is a file named "-" (written as such on purpose); an existing folder given with its slash for --csv
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tables").mkdir()
    code, _, err = _run(capsys, DEMO + ["--json", "./-", "--csv", "tables/"])
    assert code == 0, err
    assert (tmp_path / "-").read_text().lstrip().startswith("{")
    assert (tmp_path / "tables" / "columns.csv").is_file()


# --- Ctrl-C while the command is still importing: one line, exit 130, no traceback -------------------------------

_BREAKER = '''
import os, sys
class _Finder:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["BREAK_AT"]:
            raise KeyboardInterrupt  # what Ctrl-C raises at that moment of the import
        return None
sys.meta_path.insert(0, _Finder())
'''


@pytest.mark.parametrize("break_at", ["typer", "gpulens.cli.diff"])
@pytest.mark.parametrize("how", ["script", "module"])
def test_ctrl_c_during_imports_is_the_one_line_interrupted_message(tmp_path, break_at, how):
    (tmp_path / "sitecustomize.py").write_text(_BREAKER)
    script = tmp_path / "gpulens"  # the console script as pip writes it
    script.write_text("import sys\nfrom gpulens.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    src = str(Path(__import__("gpulens").__file__).resolve().parents[1])
    env = dict(os.environ, BREAK_AT=break_at, PYTHONPATH=os.pathsep.join([str(tmp_path), src]))
    cmd = [sys.executable, str(script)] if how == "script" else [sys.executable, "-m", "gpulens"]
    r = subprocess.run(cmd + ["analyze", "--demo", "-q"], env=env, capture_output=True, text=True, timeout=60,
                       cwd=tmp_path)
    assert r.returncode == 130
    assert r.stderr == "gpulens: aborted (Ctrl-C) while starting: nothing was read or written\n"


def test_a_program_importing_the_cli_still_gets_its_keyboard_interrupt(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(_BREAKER)
    src = str(Path(__import__("gpulens").__file__).resolve().parents[1])
    env = dict(os.environ, BREAK_AT="typer", PYTHONPATH=os.pathsep.join([str(tmp_path), src]))
    r = subprocess.run([sys.executable, "-c", "import gpulens.cli"], env=env, capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert r.returncode != 130 and "KeyboardInterrupt" in r.stderr


# --- --ranks, --steps, --window: a malformed selection is one line, never "no GPU work" -------------------------

@pytest.mark.parametrize("opt, text, err", [
    ("--ranks", "3-1", "--ranks: the range '3-1' ends before it starts (write the lower rank first: 1-3)"),
    ("--ranks", "1,,2", "--ranks: cannot read an empty part in '1,,2' (expected e.g. 0-7 or 0,2,5)"),
    ("--ranks", "0,x", "--ranks: cannot read 'x' in '0,x' (expected e.g. 0-7 or 0,2,5)"),
    ("--ranks", "", "--ranks: empty (''; expected e.g. 0-7 or 0,2,5)"),
    ("--ranks", " ", "--ranks: empty (' '; expected e.g. 0-7 or 0,2,5)"),
    ("--steps", "", "--steps: empty (''; expected A:B)"),
    ("--window", "", "--window: empty (''; expected A:B)"),
])
def test_malformed_selection_is_one_clear_line(capsys, opt, text, err):
    code, _, got = _run(capsys, DEMO + [opt, text])
    assert (code, got) == (2, f"gpulens: error: {err}\n")


def test_well_formed_rank_selections_read_as_written():
    from gpulens.timeline.selection import parse_ranks

    assert parse_ranks("0-3,8") == {0, 1, 2, 3, 8}
    assert parse_ranks("2-2") == {2}
    assert parse_ranks(" 5 , 1-2") == {1, 2, 5}
