"""A symbolic link loop where ``baseline save``, ``gate`` or ``diff`` write (tests/fuzz_s50_reports.py, kind
``store``: a store whose ``main.json`` links to itself). ``Path.resolve`` raises ``RuntimeError`` on a loop (Python <
3.13), which the CLI reported as an internal error (exit 70) — now one line naming the file, exit 2, and the link is
left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import DATA
from tests.test_trust_s49_fuzz_reports import _cli

TRACE = DATA / "kineto" / "hta_a100_simple_add_two_streams.json.gz"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("s50loop")
    rep = d / "r.json"
    assert _cli("analyze", str(TRACE), "-q", "--no-cache", "--json", str(rep))[0] == 0
    return rep


def _loop(p: Path) -> Path:
    os.symlink(p.name, p)  # relative: p -> p
    return p


def _one_error_line(code: int, text: str, path: Path, *words: str) -> None:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert code == 2, text
    assert len(lines) == 1 and lines[0].startswith("gpulens: error: ") and str(path) in lines[0], text
    assert "internal error" not in text
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_real_path_of_a_loop_is_the_link_itself(tmp_path):
    from gpulens._outputs import real_path

    a = _loop(tmp_path / "a.json")
    assert real_path(a) == tmp_path.resolve() / "a.json"  # no RuntimeError; as far as it resolves
    b = tmp_path / "b.json"
    b.write_text("{}")
    (tmp_path / "c.json").symlink_to("b.json")
    assert real_path(tmp_path / "c.json") == b.resolve()  # an ordinary link still resolves to its target


def test_save_into_a_store_whose_baseline_is_a_link_loop(report, tmp_path):
    store = tmp_path / "store"
    assert _cli("baseline", "save", str(report), "--name", "main", "--store", str(store))[0] == 0
    (saved,) = store.glob("*/main.json")
    saved.unlink()
    _loop(saved)
    for extra in ([], ["--force"]):  # --force neither: a link is never replaced by a baseline
        code, text = _cli("baseline", "save", str(report), "--name", "main", "--store", str(store), *extra)
        _one_error_line(code, text, saved, "not a gpulens baseline")
        assert saved.is_symlink() and os.readlink(saved) == "main.json"


def test_save_to_a_path_that_is_a_link_loop(report, tmp_path):
    target = _loop(tmp_path / "b.json")
    code, text = _cli("baseline", "save", str(report), "--name", str(target))
    _one_error_line(code, text, target, "not a gpulens baseline")


@pytest.mark.parametrize("command", ["gate", "diff"])
@pytest.mark.parametrize("option", ["--json", "--markdown", "--html"])
def test_gate_and_diff_output_that_is_a_link_loop(report, tmp_path, command, option):
    out = _loop(tmp_path / "out.txt")
    argv = ["gate", str(report), "--baseline", str(report)] if command == "gate" else ["diff", str(report), str(report)]
    code, text = _cli(*argv, "-q", option, str(out))
    _one_error_line(code, text, out, "symbolic link loop")
    assert out.is_symlink() and os.readlink(out) == "out.txt"
