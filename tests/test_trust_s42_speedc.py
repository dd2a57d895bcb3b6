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


# --- the χ² tail in closed form (kernel_variation's Kruskal–Wallis p-value without importing scipy.special) ---

def test_chi_square_tail_by_hand():
    # k = 2: Q = e^(−x/2); k = 1: Q = erfc(√(x/2)); k = 3: Q = erfc(√(x/2)) + √(2x/π) e^(−x/2);
    # k = 4: Q = e^(−x/2) (1 + x/2) — Abramowitz & Stegun 26.4.4–26.4.5 written out
    import math

    from gpulens._chi_square import chi2_sf

    for x in (0.001, 0.5, 3.0, 10.0, 80.0):
        assert chi2_sf(2, x) == pytest.approx(math.exp(-x / 2), rel=1e-15)
        assert chi2_sf(1, x) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-15)
        assert chi2_sf(3, x) == pytest.approx(math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi)
                                              * math.exp(-x / 2), rel=1e-14)
        assert chi2_sf(4, x) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-14)
    # textbook table value: the 5 % critical value of χ² with 10 degrees of freedom is 18.307
    assert chi2_sf(10, 18.307) == pytest.approx(0.05, abs=1e-5)
    assert chi2_sf(3, 0.0) == 1.0 and chi2_sf(3, math.inf) == 0.0
    assert math.isnan(chi2_sf(3, math.nan)) and math.isnan(chi2_sf(3, -1.0))
    with pytest.raises(ValueError):
        chi2_sf(0, 1.0)


def test_chi_square_tail_equals_scipy_over_a_grid():
    import math

    import numpy as np

    special = pytest.importorskip("scipy.special")
    from gpulens._chi_square import chi2_sf

    worst = {}
    for df in list(range(1, 102)) + [255, 999, 4999, 9999]:
        sd = math.sqrt(2 * df)
        xs = [1e-300, 1e-9, 0.01, 0.5, 1.0, 7.0, 1500.0, 5000.0]
        xs += np.linspace(max(df - 6 * sd, 0.0), df + 40 * sd, 60).tolist()
        for x in xs:
            want = float(special.chdtrc(float(df), x))
            got = chi2_sf(df, x)
            if want < 1e-300:  # below the normal range: both underflow to (nearly) nothing
                assert got < 1e-290
                continue
            band = "df<=101" if df <= 101 else "large"
            worst[band] = max(worst.get(band, 0.0), abs(got - want) / want)
    assert worst["df<=101"] < 5e-13 and worst["large"] < 2e-11, worst
    for x in (-1.0, math.nan, math.inf, 0.0):  # the edges as scipy has them
        a, b = chi2_sf(5, x), float(special.chdtrc(5.0, x))
        assert (a == b) or (math.isnan(a) and math.isnan(b))


def test_an_analysis_imports_no_scipy(tmp_path):
    """A child process analysing a 4-step trace whose kernel runs twice as long in step 3 (a Kruskal–Wallis test
    runs: kernel_variation has a step row with a p-value) imports no scipy module; the p-value is scipy's."""
    from tests.dig_traces import KTrace

    t = KTrace()
    gpu, per_step = 10_000.0, []
    for s in range(1, 5):
        t.annotation(f"ProfilerStep#{s}", s * 1000.0, 900)
        durs = [(10.0 + j) * (2 if s == 3 else 1) for j in range(8)]
        per_step.append([d * 1000 for d in durs])
        for j, d in enumerate(durs):
            e = t.op("aten::mm", s * 1000.0 + 10 + 100 * j, 50)
            t.launch(e, s * 1000.0 + 20 + 100 * j, [("k", gpu, d)])
            gpu += 100
    path = t.write(tmp_path / "steps.json")
    code = ("import sys\nfrom gpulens.report import analyze\n"
            f"v = analyze([{str(path)!r}], cache=False).sources[0].results['kernel_variation'].table\n"
            "row = v[v['dimension'] == 'step'].iloc[0]\n"
            "print(repr(float(row['p_value'])), sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": _PKG_ROOT})
    assert out.returncode == 0, out.stderr
    p, mods = out.stdout.strip().split(" ", 1)
    assert mods == "[]"
    stats = pytest.importorskip("scipy.stats")
    assert float(p) == pytest.approx(float(stats.kruskal(*per_step).pvalue), rel=1e-12)


# --- HTML tables: a cell worked out once per distinct value of its column ---

def test_a_table_cell_is_never_shared_by_values_that_only_compare_equal():
    # True == 1 == 1.0 and -0.0 == 0.0 in Python: each must still read as itself ("yes", "1", sort keys "1.0" vs
    # "-0.0"); two NaN read as unknown; a repeated text shows the same cell each time
    import re

    import pandas as pd

    from gpulens.reports._html_parts import table_html
    from gpulens.units import MISSING

    df = pd.DataFrame({"v": pd.Series([True, 1, 1.0, -0.0, 0.0, float("nan"), float("nan"), "x", "x", 1],
                                      dtype=object)})
    html = table_html(df, ["v"], docs={"v": "a value [count]"})
    cells = re.findall(r"<td[^>]*>[^<]*</td>", html.split("<tbody>")[1])
    assert len(cells) == 10
    assert cells[0] == '<td data-v="1" class="num">yes</td>'  # a bool: yes, sort key 1
    assert cells[1] == cells[9] and ">1<" in cells[1] and 'data-v="1.0"' in cells[1]
    assert 'data-v="-0.0"' in cells[3] and 'data-v="0.0"' in cells[4]
    assert cells[5] == cells[6] == f"<td>{MISSING}</td>"
    assert cells[7] == cells[8] == "<td>x</td>"
