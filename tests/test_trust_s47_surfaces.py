"""Session 47, surfaces: the commands and outputs other than ``analyze --json`` on hand-made inputs — a console
whose encoding is not Unicode, exports written over an earlier export, ``baseline list`` on a store it cannot read.
Expected values are written here from the inputs (hand calculations in the comments)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpulens.cli._console import ASCII_STAND_INS, fit_encoding

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
        fit_encoding(fh)
        fh.write("15.00 µs — 2× → ≥ 3 ✓")
    assert (tmp_path / "out.txt").read_bytes().decode("latin-1") == "15.00 µs - 2× -> >= 3 \\u2713"
    assert all(v.isascii() for v in ASCII_STAND_INS.values())
    with open(tmp_path / "u.txt", "w", encoding="utf-8") as fh:  # a Unicode stream is left as it is
        fit_encoding(fh)
        assert fh.errors == "strict"
