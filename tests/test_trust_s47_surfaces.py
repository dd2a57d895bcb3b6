"""Session 47, surfaces: the commands and outputs other than ``analyze --json`` on hand-made inputs — a console
whose encoding is not Unicode, exports written over an earlier export, ``baseline list`` on a store it cannot read.
Expected values are written here from the inputs (hand calculations in the comments)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpulens
from gpulens.cli._console import ASCII_SPELLINGS, encodable_streams
from gpulens.export import export_tables

DATA = Path(__file__).parent / "data"
B13 = DATA / "cases" / "B13.json"  # 4 kernels on one stream: 15 + 25 + 20 + 5 µs = 65 µs summed


def _gpulens(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """``python -m gpulens ARGS`` as a user's shell runs it (the console run's own streams), ``env`` added."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]),
            "GPULENS_CACHE_DIR": str(cwd / "cache"), **env}
    full.pop("GPULENS_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "gpulens", *args], cwd=cwd, env=full, capture_output=True,
                          timeout=300)


# ------------------------------------------------------------------------ a console that cannot write Unicode
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_non_unicode_console_gets_the_whole_summary_not_exit_70(tmp_path, encoding):
    """``PYTHONIOENCODING=ascii`` (or a Latin-1 locale): the summary's µ, —, → made the command end with
    ``UnicodeEncodeError`` (exit 70, nothing printed). Now every line is written, a figure keeps its unit."""
    r = _gpulens(["analyze", str(B13)], tmp_path, PYTHONIOENCODING=encoding)
    assert r.returncode == 0, r.stderr.decode(encoding, "replace")
    out = r.stdout.decode(encoding)  # the bytes are all of that encoding
    assert b"internal error" not in r.stderr
    unit = "µs" if encoding == "latin-1" else "us"  # Latin-1 holds µ (0xB5); ASCII gets the stand-in
    assert f"65.00 {unit} summed" in out  # 15 + 25 + 20 + 5 µs
    assert "Verdict:" in out


def test_stand_ins_are_used_only_where_the_encoding_cannot_hold_the_character(tmp_path):
    """The stand-in replaces what the stream cannot encode, and nothing else: Latin-1 keeps µ and ×, gets '-' for
    the dash and '->' for the arrow; a character with no stand-in becomes a visible escape, never '?'."""
    with open(tmp_path / "out.txt", "w", encoding="latin-1") as fh:
        encodable_streams(fh)
        fh.write("15.00 µs — 2× → ≥ 3 ✓ 核")
    assert (tmp_path / "out.txt").read_bytes().decode("latin-1") == "15.00 µs - 2× -> >= 3 ok \\u6838"
    assert all(v.isascii() for v in ASCII_SPELLINGS.values())
    with open(tmp_path / "u.txt", "w", encoding="utf-8") as fh:  # a Unicode stream is left as it is
        encodable_streams(fh)
        assert fh.errors == "strict"


# ------------------------------------------------------------------------------------------ table exports
def _two_kernel_trace(path: Path, name: str, dur_us: int) -> Path:
    """A trace of two kernels ``name`` lasting ``dur_us`` µs each on one stream (hotspots: one row, 2 calls)."""
    ev = [{"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 100 * i, "dur": dur_us,
           "args": {"device": 0, "stream": 7}} for i in range(2)]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return path


def test_an_export_over_an_earlier_one_leaves_none_of_its_tables(tmp_path):
    """One input exported to a folder, then two to the same folder: the first run's ``hotspots.csv`` (kernel
    ``old_k``) stayed at the top of the folder beside ``0_a.json/`` and ``1_b.json/`` as if it were a result of the
    second run; and back again, the subfolders stayed. A file of the user's in the folder is kept."""
    a = _two_kernel_trace(tmp_path / "a.json", "old_k", 10)
    b = _two_kernel_trace(tmp_path / "b.json", "new_k", 30)
    out = tmp_path / "out"
    export_tables(gpulens.analyze([a]), out, "csv", inputs=[a])
    assert [r["name"] for r in csv.DictReader(open(out / "hotspots.csv"))] == ["old_k"]
    (out / "notes.txt").write_text("mine")
    export_tables(gpulens.analyze([a, b]), out, "csv", inputs=[a, b])
    assert sorted(p.name for p in out.iterdir()) == ["0_a.json", "1_b.json", "notes.txt"]
    rows = list(csv.DictReader(open(out / "1_b.json" / "hotspots.csv")))
    assert [(r["name"], r["calls"], r["total_ns"]) for r in rows] == [("new_k", "2", "60000")]  # 2 × 30 µs
    export_tables(gpulens.analyze([b]), out, "csv", inputs=[b])
    assert not (out / "0_a.json").exists() and not (out / "1_b.json").exists()
    assert [r["name"] for r in csv.DictReader(open(out / "hotspots.csv"))] == ["new_k"]
    assert (out / "notes.txt").read_text() == "mine"


def test_an_interrupted_export_leaves_no_part_of_itself(tmp_path, monkeypatch):
    """Ctrl-C while the tables are written: the files written so far are removed — a folder holding some of the
    tables (and none of the earlier export's) is not left looking like a whole export."""
    import gpulens.export as export

    a = _two_kernel_trace(tmp_path / "a.json", "k", 10)
    rep = gpulens.analyze([a])
    out = tmp_path / "out"
    export_tables(rep, out, "csv", inputs=[a])
    (out / "notes.txt").write_text("mine")
    real, calls = export.write_atomic, []

    def interrupted(path, data):
        calls.append(path)
        if len(calls) == 5:
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(export, "write_atomic", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_tables(rep, out, "csv", inputs=[a])
    assert len(calls) == 5
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_a_tables_folder_that_is_a_file_is_refused_before_the_analysis(tmp_path):
    """``--csv a.json`` where a.json is a file: refused in one line before the summary is printed (was: the whole
    summary, then an error)."""
    a = _two_kernel_trace(tmp_path / "a.json", "k", 10)
    (tmp_path / "t.txt").write_text("x")
    r = _gpulens(["analyze", str(a), "--parquet", "t.txt"], tmp_path)
    assert r.returncode == 2
    assert r.stdout == b""
    assert r.stderr.decode() == "gpulens: error: t.txt: is a file, not a folder; give --parquet a folder for the tables\n"
    assert (tmp_path / "t.txt").read_text() == "x"


# ------------------------------------------------------------------------------------------ baseline list
def test_baseline_list_names_a_store_it_cannot_list_and_the_files_it_skips(tmp_path, capsys):
    """``baseline list``: a store that is a file was listed as an empty table (``save`` refuses it); a store that
    does not exist too (a typo looked like "no baselines"); a cut baseline file was left out without a word."""
    from gpulens.cli import main

    (tmp_path / "f.json").write_text("{}")
    assert main(["baseline", "list", "--store", str(tmp_path / "f.json")]) == 2
    assert capsys.readouterr().err == f"gpulens: error: {tmp_path / 'f.json'}: the baseline store is a file, not a folder\n"

    assert main(["baseline", "list", "--store", str(tmp_path / "nope")]) == 0
    out = capsys.readouterr().out
    assert "No baseline store at" in out and "the folder does not exist" in out

    store = tmp_path / "store" / "gpu-x"
    store.mkdir(parents=True)
    good = {"gpulens_baseline": 1, "name": "main", "machine_key": "gpu-x", "runs": [{}, {}], "created": "2026-01-02"}
    (store / "main.json").write_text(json.dumps(good))
    (store / "cut.json").write_text(json.dumps(good)[:40])
    assert main(["baseline", "list", "--store", str(tmp_path / "store")]) == 0
    got = capsys.readouterr()
    assert "main" in got.out and "gpu-x" in got.out and "2026-01-02" in got.out
    assert "cut" not in got.out
    assert got.err == (f"gpulens: warning: 1 file of {tmp_path / 'store'} not listed: not a readable gpulens "
                       "baseline (damaged, cut or another JSON file): gpu-x/cut.json\n")


# ------------------------------------------------------------------------------------------ library calls
def test_analyze_of_no_path_is_an_error_not_an_empty_report():
    """``gpulens.analyze([])`` returned a Report of no source, which every reporter shows as a run without GPU
    work; the command line already refuses it ("no input")."""
    from gpulens.errors import GpulensError

    with pytest.raises(GpulensError, match="^no input: give one or more trace files or directories$"):
        gpulens.analyze([])


# ------------------------------------------------------------------------------------------ Ctrl-C
@pytest.mark.parametrize("command", ["analyze", "diff"])
def test_ctrl_c_says_it_was_aborted_and_leaves_no_report(tmp_path, monkeypatch, capsys, command):
    """Ctrl-C during an analysis: typer turns KeyboardInterrupt into a silent exit 130 — the user saw the command
    end with no word, and could not tell an interrupted run from a finished one in a CI log."""
    import gpulens.report
    from gpulens.cli import ABORTED, main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(gpulens.report, "analyze", interrupted)
    monkeypatch.setattr("gpulens.diff.sides.analyze", interrupted, raising=False)
    out = tmp_path / "r.json"
    args = ["analyze", str(B13), "--no-cache"] if command == "analyze" else ["diff", str(B13), str(B13)]
    assert main([*args, "--json", str(out)]) == 130
    assert capsys.readouterr().err == ABORTED
    assert ABORTED.startswith("gpulens: aborted (Ctrl-C)") and ABORTED.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------------------ cache clear
def test_cache_clear_removes_its_entries_and_no_folder_of_the_users(tmp_path, monkeypatch, capsys):
    """``GPULENS_CACHE_DIR`` may name a user's folder: ``cache clear`` deleted, whole, any subfolder holding a file
    named ``gpulens-cache.json`` (here with the user's ``meta.json`` beside it). Only folders named as an entry
    (``<trace>-<32 hex key>``) whose mark records that key are entries; a real entry is still removed."""
    from gpulens.cli import main

    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    user = tmp_path / "c" / "notes"
    user.mkdir(parents=True)
    (user / "gpulens-cache.json").write_text("{}")
    (user / "meta.json").write_text("mine")
    lookalike = tmp_path / "c" / ("x-" + "0" * 32)  # an entry's name, a mark of another key
    lookalike.mkdir()
    (lookalike / "gpulens-cache.json").write_text(json.dumps({"key": "1" * 32}))
    a = _two_kernel_trace(tmp_path / "a.json", "k", 10)
    gpulens.analyze([a], cache=True)  # writes one Timeline entry and one results entry
    assert main(["cache", "clear"]) == 0
    assert "removed 2 cache entries" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["notes", "x-" + "0" * 32]
    assert (user / "meta.json").read_text() == "mine"


# ------------------------------------------------------------------------------------------ profile
def test_profile_of_a_folder_says_it_is_a_folder(tmp_path, capsys):
    """``gpulens profile somedir``: "no such script" for a folder that exists sent the user looking for a typo."""
    from gpulens.cli import main

    (tmp_path / "work").mkdir()
    assert main(["profile", "-q", "-o", str(tmp_path / "out"), str(tmp_path / "work")]) == 2
    assert capsys.readouterr().err == f"gpulens: error: {tmp_path / 'work'}: is a folder, not a Python script\n"
    assert not (tmp_path / "out").exists()


def test_gate_with_a_store_that_is_a_file_fails_instead_of_passing_with_no_baseline(tmp_path, capsys):
    """``gpulens gate r.json -b main --store r.json`` (the store named by mistake): the gate found "no baseline"
    there and exited 0 — a CI job passed without comparing anything. Now exit 2, as ``baseline save`` and
    ``list`` refuse that store."""
    from gpulens.cli import main

    a = _two_kernel_trace(tmp_path / "a.json", "k", 10)
    report = tmp_path / "r.json"
    assert main(["analyze", str(a), "-q", "--no-cache", "--json", str(report)]) == 0
    capsys.readouterr()
    assert main(["gate", str(report), "-b", "main", "--store", str(report), "-q"]) == 2
    assert capsys.readouterr().err == f"gpulens: error: {report}: the baseline store is a file, not a folder\n"
