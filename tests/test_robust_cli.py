"""Robustness of the command line (issue 17): internal errors have their own exit code and one line, malformed
inputs of every kind give a one-line gpulens error (exit 2) or a flagged partial result, special files are refused.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.errors import EXIT_INTERNAL, EXIT_USAGE

from .conftest import CASES, SHARED

F_CASES = SHARED.parent / "cases" / "F"


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    return subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_internal_error_is_exit_70_one_line_and_debug_shows_traceback(monkeypatch, capsys):
    # A bug inside a collector (an AttributeError is never a property of the input) must not look like a
    # regression (exit 1) nor print a traceback: exit 70 (BSD EX_SOFTWARE) and one line naming the file.
    from gpulens.collectors.kineto import KinetoCollector

    def broken(self, path, strict=True, select=None):
        raise AttributeError("'NoneType' object has no attribute 'x'")

    monkeypatch.setattr(KinetoCollector, "collect", broken)
    trace = str(CASES / "B13.json")
    assert EXIT_INTERNAL == 70
    assert main(["analyze", "-q", "--no-cache", trace]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"internal error while reading {trace}" in err and "--debug" in err and "please report it" in err
    assert main(["analyze", "-q", "--no-cache", "--debug", trace]) == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "AttributeError" in err


def test_parse_error_inside_a_reader_names_the_file(monkeypatch, capsys):
    # A ValueError raised while parsing is about the file's content: exit 2, one line, the file named.
    from gpulens.collectors.kineto import KinetoCollector

    def bad(self, path, strict=True, select=None):
        raise ValueError("could not convert string to float: 'x'")

    monkeypatch.setattr(KinetoCollector, "collect", bad)
    trace = str(CASES / "B13.json")
    assert main(["analyze", "-q", "--no-cache", trace]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"gpulens: error: {trace}: malformed kineto data (ValueError") and err.count("\n") == 1


def test_permission_error_is_one_line(monkeypatch, capsys, tmp_path):
    # Running as root, chmod cannot make a file unreadable: make reading raise what the OS would raise.
    p = tmp_path / "t.json"
    p.write_text((CASES / "B13.json").read_text())

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", str(p))

    monkeypatch.setattr("gpulens.collectors._stream.Path.open", denied)
    monkeypatch.setattr("gpulens.collectors._io.Path.open", denied)
    assert main(["analyze", "-q", "--no-cache", str(p)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err == f"gpulens: error: {p}: cannot read file (Permission denied)\n"


def test_special_files_are_refused_before_reading(tmp_path, capsys):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # reading a FIFO with no writer blocks forever: it must be refused, not opened
    assert main(["analyze", "-q", "--no-cache", str(fifo)]) == EXIT_USAGE
    assert "named pipe" in capsys.readouterr().err
    assert main(["analyze", "-q", "--no-cache", "/dev/zero"]) == EXIT_USAGE  # endless: refused as a device
    assert "is a device" in capsys.readouterr().err
    sock_path = tmp_path / "s.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock_path))
    try:
        assert main(["analyze", "-q", "--no-cache", str(sock_path)]) == EXIT_USAGE
        assert "socket" in capsys.readouterr().err
    finally:
        s.close()


def _f_cases() -> list[Path]:
    if not F_CASES.is_dir():
        return []
    return sorted(p for p in F_CASES.iterdir() if p.name.startswith("F"))


@pytest.mark.parametrize("path", _f_cases(), ids=lambda p: p.name)
def test_fuzz_reproducers_give_their_readme_outcome(path, tmp_path):
    # ../shared/cases/F/README.md: a one-line error naming the file, exit 2, no traceback, no hang — or a partial
    # result with a warning counting what was dropped. Run as a subprocess so that a hang is caught by the timeout.
    if path.name.startswith("F34"):  # a baseline: read by `gpulens gate`, whose --json must not write NaN
        cand = tmp_path / "c.json"
        assert _cli("analyze", "-q", "--no-cache", str(CASES / "B13.json"), "--json", str(cand)).returncode == 0
        r = _cli("gate", "--baseline", str(path), str(cand), "--json", str(tmp_path / "g.json"))
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert str(path) in r.stderr and "no samples" in r.stderr
        return
    r = _cli("analyze", "--no-cache", "-q", str(path), timeout=120)  # a hang, not a slow shared machine
    assert "Traceback" not in r.stderr + r.stdout
    if path.name.startswith(("F04", "F07", "F15", "F19")):  # usable: read it (F04: tid unknown; F15: TEXT ids cast)
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gpulens: error: {path}: ")


def test_f27_negative_summary_rows_are_rejected_not_reported(tmp_path):
    # nsys stats rows with negative Total Time / Instances are impossible: dropped and counted; if nothing is
    # left the file is an error. One good row (2 launches, 3,000 ns) next to a bad one keeps the good one only.
    p = tmp_path / "kern_sum.csv"
    p.write_text("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                 "50.0,-4611686018427387904,-3,1,1,1,1,0,bad\n"
                 "50.0,3000,2,1500,1500,1000,2000,707,good\n")
    from gpulens.collectors import collect

    tl = collect(p)
    t = tl.tables["kernel_summary"]
    assert t["name"].tolist() == ["good"] and int(t["total_ns"].sum()) == 3000 and int(t["calls"].sum()) == 2
    assert any("1 kernel row dropped" in w for w in tl.meta.warnings)
