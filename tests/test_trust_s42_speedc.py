"""Session 42 speed work on fixed costs (issue 16): the command line's values coerced without pydantic.

The reference for every coerced value is typer's own coercion (its pydantic ``TypeAdapter`` per parameter), run
side by side with gpulens's light one on the same value: same Python value and type, or the same refusal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])

typer_coercion = pytest.importorskip("typer._coercion")


def _every_param():
    """(command path, click parameter, context) for every parameter of every gpulens command, ``--help`` included."""
    import typer.main
    from typer._click import Context

    from gpulens.cli import app

    out = []

    def walk(cmd, path):
        ctx = Context(cmd, info_name=path[-1] if path else "gpulens")
        for p in cmd.get_params(ctx):
            out.append((" ".join(path), p, ctx))
        for name in getattr(cmd, "commands", {}):
            walk(cmd.get_command(ctx, name), path + [name])

    walk(typer.main.get_command(app), [])
    return out


def _samples(leaf, tmp_path):
    f = tmp_path / "trace.json"
    f.write_text("{}")
    common = ["", " ", "abc", "-", None]
    if leaf is int:
        return common + ["0", "12", "-3", "007", "+4", " 5", "5 ", "1_000", "12.0", "1e3", "0x10", "٣",
                         "99999999999999999999", "10000", "10001", 10, 0, -1, True, 3.0]
    if leaf is float:
        return common + ["1", "1.5", "-0.25", "1e3", "nan", "inf", ".5", "5.", "1_0", "0100.50", 100.0, 3, False]
    if leaf is bool:
        return common + [True, False, "true", "no", 1]
    if leaf is str:
        return common + ["--json", "ünïcødé", " a b ", "x\x00y", b"bytes", 5]
    return common + ["rel/path", "/nonexistent/x.json", str(f), str(tmp_path), "a\x00b", "~", Path("p"), 5, b"b"]


def _outcome(runtime, value, param, ctx):
    try:
        got = runtime._coerce_value(value, param=param, ctx=ctx)
    except Exception as exc:  # noqa: BLE001 - the refusal itself is compared
        return ("refused", type(exc).__name__, str(getattr(exc, "message", exc)))
    if isinstance(got, list):
        return ("list", [(type(v), repr(v)) for v in got])
    return ("value", type(got), repr(got))  # repr: a NaN equals itself


def test_every_parameter_coerces_as_typers_own_pydantic_coercion(tmp_path):
    from gpulens.cli._coerce import _Light

    checked = 0
    kinds = set()
    for where, p, ctx in _every_param():
        light = p._runtime_param if isinstance(p._runtime_param, _Light) else None
        if light is None:
            continue
        reference = typer_coercion.build_runtime_param(p.type_descriptor)
        kinds.add((light.many, light.leaf))
        for v in _samples(light.leaf, tmp_path):
            values = [v, (v,), [v, v], ()] if light.many else [v]
            for value in values:
                want = _outcome(reference, value, p, ctx)
                assert _outcome(light, value, p, ctx) == want, (where, p.name, value)
                checked += 1
    # the command line's kinds are all there: lists of paths and texts, paths, texts, ints, floats, bools
    from pathlib import Path as P
    assert {(True, P), (True, str), (False, P), (False, str), (False, int), (False, float), (False, bool)} <= kinds
    assert checked > 500


def test_bounds_of_an_option_are_typers_refusal(tmp_path, capsys):
    # gpulens diff --top takes 1..10000 (cli/diff.py): 0 and 10001 are refused in typer's words; 1 and 10000 pass
    # the option check (the command then stops at the missing baseline file, a different message)
    from gpulens.cli import main

    base = str(tmp_path / "b.json")
    for top, refusal in (("0", "greater than or equal to 1"), ("10001", "less than or equal to 10000"),
                         ("1", None), ("10000", None)):
        assert main(["diff", base, base, "--top", top]) == 2
        err = capsys.readouterr().err
        if refusal:
            assert "Invalid value for '--top'" in err and refusal in err, err
        else:
            assert "Invalid value" not in err and "b.json" in err, err


def test_a_command_imports_no_pydantic(tmp_path):
    """A child process (nothing imported before): parsing `gpulens analyze`'s options (every kind: paths, a list
    of paths, an int, texts, flags) and `--help` imports no pydantic module."""
    code = ("import sys\nfrom gpulens.cli import main\n"
            f"rc = main(['analyze', {str(tmp_path / 'missing.json')!r}, '-q', '--no-cache', '--top', '7',"
            f" '--json', {str(tmp_path / 'o.json')!r}, '--steps', '1-2', '--format', 'kineto'])\n"
            "rc2 = main(['analyze', '--help'])\n"
            "print(rc, rc2, sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": _PKG_ROOT})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[-2] == "2 0 []"
