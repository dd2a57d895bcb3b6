"""Fifth-session fuzzing (tests/fuzz_cli.py, seed 5151): every JSON/TOML document a user hands gpulens besides
traces — a report given to ``diff``/``gate``, a baseline, a ``--device-spec`` file, a gate ``--config`` — is read
as user input: too deeply nested (Python's parsers raise RecursionError, not ValueError) or with a table of the
wrong type, it is a one-line error naming the file (exit 2), never an internal error (exit 70).

Each input is written inline: a valid report is made from tests/data/cases/B13.json, then one value is replaced.
"""

from __future__ import annotations

import json

import pytest

from gpulens.cli import main

from .conftest import CASES

DEEP = "[" * 100_000 + "]" * 100_000  # far past CPython's recursion limit (1,000) and the C parser's own limit


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "b13.json"
    assert main(["analyze", str(CASES / "B13.json"), "-q", "--no-cache", "--json", str(out)]) == 0
    return out


def _deep_report(report, tmp_path):
    text = report.read_text()
    # a field of the report gpulens never reads, nested 100,000 deep: the document is still syntactically JSON
    p = tmp_path / "deep.json"
    p.write_text(text.replace('"tool": {', '"extra": ' + DEEP + ', "tool": {', 1))
    return p


def _one_line_error(capsys, code, path) -> str:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert err.count("\n") == 0 and "internal error" not in err and "Traceback" not in err
    assert str(path) in err
    return err


def test_diff_of_a_deeply_nested_report_is_a_one_line_error(report, tmp_path, capsys):
    deep = _deep_report(report, tmp_path)
    code = main(["diff", str(report), str(deep), "-q"])
    _one_line_error(capsys, code, deep)


def test_gate_against_a_deeply_nested_baseline_file_is_a_one_line_error(report, tmp_path, capsys):
    deep = _deep_report(report, tmp_path)
    code = main(["gate", str(report), "-b", str(deep), "--store", str(tmp_path / "s"), "-q"])
    _one_line_error(capsys, code, deep)
    code = main(["gate", str(deep), "-b", str(report), "--store", str(tmp_path / "s"), "-q"])
    _one_line_error(capsys, code, deep)


def test_deeply_nested_device_spec_is_a_one_line_error(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text('{"name": "X", "peaks": ' + DEEP + "}")
    code = main(["analyze", str(CASES / "B13.json"), "-q", "--no-cache", "--device-spec", str(spec)])
    _one_line_error(capsys, code, spec)


@pytest.mark.parametrize("toml, says", [
    ("tool = 5\n", "'tool' must be a table"),
    ("[tool]\ngpulens = 1\n", "'gpulens' must be a table"),
    ("[tool.gpulens]\ngate = [1]\n", "must be a table"),
    ("gate = 3\n", "must be a table"),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", "not valid TOML"),
])
def test_gate_config_tables_of_the_wrong_type_are_one_line_errors(report, tmp_path, capsys, toml, says):
    # before: AttributeError ('int' object has no attribute 'get') / RecursionError → exit 70
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text(toml)
    code = main(["gate", str(report), "-b", str(report), "-q", "--config", str(cfg)])
    assert says in _one_line_error(capsys, code, cfg)


def test_baseline_list_skips_a_deeply_nested_file(tmp_path, capsys):
    store = tmp_path / "store"
    (store / "m").mkdir(parents=True)
    (store / "m" / "x.json").write_text(DEEP)
    assert main(["baseline", "list", "--store", str(store)]) == 0
    assert "internal error" not in capsys.readouterr().err


def test_shapes_nested_past_the_recursion_limit_are_unknown_not_a_crash():
    # Kineto "Input Dims" arrive as JSON text: a recursion error means "shape unknown", like any unreadable text
    from gpulens.analyzers._attribution import _compact
    from gpulens.analyzers.op_shapes import _tensors

    assert _tensors(DEEP, "[]") == []
    assert _compact(DEEP) == DEEP  # unreadable text is kept as written (stripped), as for any other bad text
