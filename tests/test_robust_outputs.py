"""Baselines and outputs stay where they belong (issue 17 class 7)."""

from __future__ import annotations

import json
import os

import pytest

from gpulens.cli import main

from .conftest import CASES, DATA

SCRIPT = DATA / "profile" / "train_script.py"


@pytest.fixture()
def report_json(tmp_path):
    p = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", str(CASES / "B13.json"), "--json", str(p)]) == 0
    return p


@pytest.mark.parametrize("label", ["../../x", "a/b", "..", "x\\y", "bad\nname"])
def test_profile_label_with_path_separators_is_refused(tmp_path, capsys, label):
    out = tmp_path / "deep" / "out"
    assert main(["profile", "--out", str(out), "--label", label, str(SCRIPT)]) == 2
    err = capsys.readouterr().err
    assert "--label" in err and "not usable as a file name" in err and err.count("\n") == 1
    assert not (tmp_path / "x.pt.trace.json.gz").exists() and not list(tmp_path.glob("*.report.*"))


def test_profile_out_pointing_at_a_file_is_gpulens_own_error(tmp_path, capsys):
    f = tmp_path / "not_a_folder"
    f.write_text("x")
    assert main(["profile", "--out", str(f), str(SCRIPT)]) == 2  # not 4 ("the workload failed")
    err = capsys.readouterr().err
    assert err == f"gpulens: error: --out {f}: is a file, not a folder\n"


def test_history_symlink_is_never_followed(tmp_path, report_json, capsys):
    store = tmp_path / "store"
    store.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.symlink(victim, store / "history.jsonl")
    code = main(["baseline", "save", str(report_json), "--name", "main", "--store", str(store)])
    assert victim.read_text() == "precious\n"
    assert code == 2 and "a symlink is never followed" in capsys.readouterr().err


def test_force_overwrites_only_gpulens_baselines(tmp_path, report_json, capsys):
    other = tmp_path / "package.json"
    other.write_text('{"name": "not a baseline"}')
    assert main(["baseline", "save", str(report_json), "--name", str(other), "--force"]) == 2
    assert "is not a gpulens baseline" in capsys.readouterr().err
    assert json.loads(other.read_text()) == {"name": "not a baseline"}
    target = tmp_path / "b.json"
    assert main(["baseline", "save", str(report_json), "--name", str(target)]) == 0
    assert main(["baseline", "save", str(report_json), "--name", str(target)]) == 2  # exists, no --force
    assert main(["baseline", "save", str(report_json), "--name", str(target), "--force"]) == 0
    assert "gpulens_baseline" in json.loads(target.read_text())


def test_store_pointing_at_a_file_is_one_line(tmp_path, report_json, capsys):
    f = tmp_path / "store_file"
    f.write_text("")
    assert main(["baseline", "save", str(report_json), "--name", "main", "--store", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(f) in err and "Traceback" not in err


NASTY = "gemm @alice @org/team #1234 https://evil.example/x www.evil.example $x^2$ \u202eevil\u202c"


def _assert_inert(text: str) -> None:
    import re

    assert "\u202e" not in text and "\u202c" not in text
    assert not re.search(r"[@#][\w-]", text)  # every @ and # is followed by an empty HTML comment (or nothing)
    assert not re.search(r"(?i)\bhttps?://|\bwww\.", text)  # no autolink
    assert "evil.example" in text  # the text is still there, readable
    assert "$x^2$" not in text and "\\$x^2\\$" in text


def test_markdown_helpers_neutralise_mentions_refs_urls_math_bidi():
    from gpulens.reports._md_safe import BREAK, neutralise
    from gpulens.reports.gate_markdown import md_escape
    from gpulens.reports.markdown import md_text

    assert neutralise("@bob #7 https://a.b") == f"@{BREAK}bob #{BREAK}7 https{BREAK}://a.b"
    assert neutralise("a\u202eb\u2066c") == "abc" and neutralise("$5") == "\\$5"
    for f in (md_text, md_escape):
        _assert_inert(f(NASTY) if f is md_escape else f(NASTY, 500))


def test_markdown_report_of_a_trace_with_a_nasty_kernel_name(tmp_path):
    evs = [{"ph": "X", "cat": "kernel", "name": NASTY, "pid": 0, "tid": 7, "ts": 100, "dur": 50,
            "args": {"device": 0, "stream": 7, "correlation": 1}},
           {"ph": "X", "cat": "kernel", "name": "plain", "pid": 0, "tid": 7, "ts": 200, "dur": 10,
            "args": {"device": 0, "stream": 7, "correlation": 2}}]
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"traceEvents": evs}))
    md = tmp_path / "s.md"
    assert main(["analyze", "-q", "--no-cache", str(trace), "--markdown", str(md)]) == 0
    text = md.read_text(encoding="utf-8")
    assert "gemm" in text
    line = next(ln for ln in text.splitlines() if "gemm" in ln)
    _assert_inert(line)
