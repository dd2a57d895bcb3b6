"""Fast paths of the value formatters every human report uses (session 45, issue 16 targets 1 and 3: rendering time
of ``--html --markdown``): a plain number or a ``str`` skips the checks for other kinds of value, and HTML escaping is
memoised. What they return must be exactly what the general path returns — checked here against that path (a
subclass of the same type takes it) and against hand-written figures — and ``benchmarks/corpus_identical.py
--all-outputs`` must find a changed rendering."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gpulens.reports._html_parts import _sort_key, esc
from gpulens.reports._md_safe import visible
from gpulens.reports._values import fmt_unit
from gpulens.units import fmt_ns, is_missing

UNITS = ["ns", "%", "share", "bytes", "KiB", "capacity", "FLOP", "FLOP/s", "B/s", "FLOP/B", "count", "ratio", "id",
         "version", "timestamp", "Hz", "text", "note", "shapes", "dtypes", "waves", "", "x"]
VALUES = [0.0, -0.0, 1.0, 812.0, 1234.5, 999_999.99, 5e6, 7.2e12, 3.3e15, 1e300, -17.25, 0.5, 0.99995, 1e-7,
          float("nan"), float("inf"), -float("inf")]


class _F(float):
    """A float the fast path does not recognise (its type is not ``float``): formatted by the general path."""


class _I(int):
    """An int the fast path does not recognise."""


class _S(str):
    """A str the fast path does not recognise."""


@pytest.mark.parametrize("unit", UNITS)
def test_plain_numbers_read_as_the_general_path_reads_them(unit):
    for x in VALUES:
        want = fmt_unit(_F(x), unit)
        for v in (x, np.float64(x)):
            assert fmt_unit(v, unit) == want, (v, unit)
        if x == x and abs(x) < 3e38:
            v32 = np.float32(x)  # an id or version that is no whole number is written as the value itself writes
            want32 = str(v32) if unit in ("id", "version") and not float(v32).is_integer() else \
                fmt_unit(_F(float(v32)), unit)
            assert fmt_unit(v32, unit) == want32, (x, unit)
    for n in (0, 1, 7, 999, 1000, 123_456_789, -42, 2**62):
        want = fmt_unit(_I(n), unit)
        for v in (n, np.int64(n)):
            assert fmt_unit(v, unit) == want, (v, unit)
        if abs(n) < 2**31:
            assert fmt_unit(np.int32(n), unit) == want, (n, unit)


@pytest.mark.parametrize("unit", UNITS)
def test_text_reads_as_the_general_path_reads_it(unit):
    for s in ("", "  ", "None", "nan", "NaN", "null", "<NA>", " padded ", "x" * 1500, "[[1, 2], [3]]", "float16"):
        assert fmt_unit(s, unit) == fmt_unit(_S(s), unit), (s, unit)


def test_hand_written_figures():
    # 1234.5 ns = 1.2345 µs → 2 decimals; NaN is unknown, in a note column "—" (no remark applies)
    assert fmt_unit(np.float64(1234.5), "ns") == fmt_unit(1234.5, "ns") == "1.23 µs"
    assert fmt_unit(np.float64("nan"), "note") == "—" and fmt_unit(float("nan"), "ns") == "unknown"
    assert fmt_unit(np.int64(1234), "count") == "1,234" and fmt_unit(np.int64(7), "id") == "7"
    assert fmt_unit(" nan ", "text") == "unknown" and fmt_unit("", "note") == "—"
    assert fmt_unit(True, "text") == "yes"  # a bool is no number here (its own branch)
    # impossible figures read unknown, never an internal error (both raised OverflowError before session 45)
    assert fmt_unit(float("inf"), "count") == fmt_unit(np.float64("-inf"), "count") == "unknown"
    assert fmt_unit(1e300, "timestamp") == fmt_unit(float("inf"), "timestamp") == "unknown"
    assert fmt_unit(1.7e18, "timestamp") == "2023-11-14 22:13:20.000 UTC"  # 1.7e9 s after 1970-01-01
    assert fmt_ns(999_999.99) == "1.00 ms"  # 1000.00 µs would be the next smaller unit's reading
    assert fmt_ns(float("inf")) == fmt_ns(float("nan")) == "unknown"
    assert is_missing(np.float32("nan")) and is_missing(np.float64("nan")) and not is_missing(0) \
        and not is_missing(False) and not is_missing(np.int64(3))


def test_sort_keys_of_plain_numbers():
    for x in VALUES:
        assert _sort_key(x) == _sort_key(np.float64(x)) == _sort_key(_F(x)) == ("" if x != x else repr(float(x)))
    assert _sort_key(np.int64(12)) == _sort_key(12) == "12.0" and _sort_key(True) == "1"


def test_html_escaping_memoised_equals_the_rule():
    for s in ['a<b>&"c\'', "\x1b[31mred", "\u202eevil", "plain", 3.5, None]:
        want = html.escape(visible("" if s is None else str(s), bidi=True), quote=True)
        assert esc(s) == esc(s) == want
    assert esc("\x01") == "\\u0001"


def test_corpus_check_compares_every_rendering(tmp_path, monkeypatch):
    """``corpus_identical.py run --all-outputs`` writes the console summary, HTML and Markdown of each input with
    the creation time masked; ``compare`` finds two runs identical, and a changed rendering different."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import corpus_identical as ci
    finally:
        sys.path.pop(0)
    trace = next(p for p in sorted((Path(__file__).parent / "data" / "kineto").iterdir())
                 if p.suffix == ".json" and p.stat().st_size < 2_000_000)
    a, b = tmp_path / "a", tmp_path / "b"
    ci.run(a, [trace], all_outputs=True)
    ci.run(b, [trace], all_outputs=True)
    rec = json.loads((a / "index.json").read_text())[0]
    assert rec["rc"] in (0, 1) and sorted(Path(n).suffix for n in rec["renderings"]) == [".html", ".md", ".txt"]
    for n in rec["renderings"]:
        text = (a / n).read_text()
        assert str(a) not in text and not ci.STAMP.search(text), n  # masked: the two runs can be equal
    assert ci.compare(a, b) == 0
    html_file = b / next(n for n in rec["renderings"] if n.endswith(".html"))
    html_file.write_text(html_file.read_text().replace("</body>", "<p>changed</p></body>"))
    assert ci.compare(a, b) == 1
