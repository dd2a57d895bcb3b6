"""How a figure reads in a sentence: the one set of formatters shared by analyzers (finding and warning text) and
reporters (tables, headlines), so that "1.23 ms" is written the same way everywhere.

Analyzers must not import :mod:`gpulens.reports`; this module sits below both (it imports nothing of gpulens), and
:mod:`gpulens.reports._format` re-exports these functions rather than duplicating them.

==========  ==========================================================
function    shown as
==========  ==========================================================
fmt_ns      time with an SI prefix: ``812 ns``, ``1.23 µs``, ``5.00 ms``, ``2.31 s``
fmt_si      decimal SI prefixes: ``12.74 TFLOP/s``, ``3.35 TB/s``
fmt_bytes   ``512 B``, ``1.50 MB`` (decimal, as vendors quote memory traffic)
fmt_pct     a 0–100 figure: ``12.3 %``
fmt_share   a 0–1 fraction: ``12.3 %``
fmt_count   thousands separators: ``1,234``
fmt_num     a plain number to 3 significant digits, never in exponent form above 1e-4: ``30,000``, ``1.07``,
            ``0.00058``; below that ``5.8e-5``
==========  ==========================================================

A missing value (None, pandas NA/NaT, NaN) reads :data:`MISSING` (``unknown``), never ``None`` or ``nan``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

#: What a missing value reads.
MISSING = "unknown"


def is_missing(v: Any) -> bool:
    """True for None, pandas NA/NaT and float NaN (numpy floats included)."""
    if isinstance(v, float):  # the common cases first (float, numpy float64), without the ABC check below
        return v != v
    if type(v) is int or type(v) is bool:
        return False
    if v is None or type(v).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return math.isnan(float(v))
    return False


def _num(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and type(v).__name__ != "bool_"


def fmt_ns(ns: Any) -> str:
    """Human time with an SI prefix: 812 → ``'812 ns'``, 1234 → ``'1.23 µs'``, 5e6 → ``'5.00 ms'``; an hour or more
    in hours (7.2e12 → ``'2.00 h'``) and a day or more in days (8.8e15 → ``'101.90 days'``: "8804374.25 s" reads as
    nothing); missing or infinite → ``'unknown'``."""
    if type(ns) is not float or ns != ns:  # a plain float (most calls) skips the checks below
        if is_missing(ns):
            return MISSING
        if not _num(ns):
            return str(ns)
    ns = float(ns)
    if math.isinf(ns):  # no time is infinite: an impossible value reads unknown, never "inf s"
        return MISSING
    for unit, div in ((" days", 86_400e9), (" h", 3_600e9)):
        if abs(ns) >= div:
            return f"{ns / div:.2f}{unit}"
    a = abs(ns)
    for unit, div, below in _NS_UNITS:
        # a value the next smaller unit would print as 1000 (999,999.99 ns: "1000.00 µs") reads in this one; only a
        # value within 0.1 % of the unit can round up so (the text is made for those alone: most calls skip it)
        if a >= div or (a * 1e3 >= 999.0 * div and abs(float(f"{ns * 1e3 / div:.{below}f}")) >= 1000):
            return f"{ns / div:.2f} {unit}"
    return f"{ns:.0f} ns"


#: (unit, ns in one, decimals of the next smaller unit's text) for :func:`fmt_ns`, largest first.
_NS_UNITS = (("s", 1e9, 2), ("ms", 1e6, 2), ("µs", 1e3, 0))


def fmt_si(v: Any, unit: str) -> str:
    """``1.274e13, "FLOP/s"`` → ``"12.74 TFLOP/s"`` (decimal SI prefixes, as datasheets quote peaks)."""
    if is_missing(v):
        return MISSING
    v = float(v)
    if math.isinf(v):  # no rate or size is infinite
        return MISSING
    for prefix, div in (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= div:
            return f"{v / div:.2f} {prefix}{unit}"
    return f"{fmt_num(v)} {unit}"


def fmt_bytes(b: Any) -> str:
    """Bytes with decimal SI prefixes: 512 → ``'512 B'``, 1.5e6 → ``'1.50 MB'``."""
    if is_missing(b):
        return MISSING
    b = float(b)
    if math.isinf(b):
        return MISSING
    return fmt_si(b, "B") if abs(b) >= 1000 else f"{b:.0f} B"


def fmt_pct(p: Any, digits: int = 1) -> str:
    """A 0–100 figure: 12.34 → ``'12.3 %'``."""
    return MISSING if is_missing(p) else f"{float(p):.{digits}f} %"


def share_pct_text(pct: Any) -> str:
    """A 0–100 share of a whole as ``"71.4 %"`` — one decimal, halves rounded up (:func:`_half_up`: 0.25 → "0.3 %",
    as :func:`pct_words` reads it) — never rounded to a false extreme: ``"over 99.9 %"`` for 99.95 ≤ pct < 100 and
    ``"under 0.1 %"`` for 0 < pct < 0.05 (11 µs of GPU work in a 34 ms window is not "idle 100.0 %", 30 µs of work in
    a 58 ms span is not "busy 0.0 %"). The one rounding rule of every percentage in a table cell."""
    if is_missing(pct):
        return MISSING
    p = float(pct)
    if math.isinf(p):
        return MISSING
    if 99.95 <= p < 100.0:
        return "over 99.9 %"
    if 0.0 < p < 0.05:
        return "under 0.1 %"
    return f"{_half_up(p, 1)} %"


def signed_pct_text(pct: Any) -> str:
    """A signed percentage (a change, a row's part of a change) as ``"+12.3 %"`` / ``"-4.0 %"``; one that rounds to
    zero keeps its sign, :func:`share_pct_text`'s rule in a table cell's width: ``"-<0.1 %"`` for -0.05 < pct < 0, never
    ``"-0.0 %"`` (a Memset 19 µs faster in a 64 ms change); exactly 0 (or -0.0) is ``"+0.0 %"``; missing/inf:
    ``MISSING``."""
    if is_missing(pct) or math.isinf(float(pct)):
        return MISSING
    p = float(pct)
    if p == 0.0:
        return "+0.0 %"
    if abs(p) < 0.05:
        return f"{'+' if p > 0 else '-'}<0.1 %"  # "-under 0.1 %" widened the diff's "of Δ" column past 1280 px
    return f"{p:+.1f} %"


def pct_words(pct: Any) -> str:
    """A 0–100 figure in a sentence (a finding's title, a verdict's evidence) exactly as the tables show it
    (:func:`share_pct_text`: one decimal, halves up, ``"46.0 %"``, ``"12.5 %"``, ``"0.4 %"``), never rounded to a
    false 0 % or 100 % (``"under 0.1 %"``, ``"over 99.9 %"``). One rule for prose and tables: a title "CPU ops hold
    3 %" beside a table cell "3.0 %" (s48 review) read as two figures, as whole percent from 10 % on read an
    occupancy of 12.5 % "13 %" beside "12.5 %" before. Every sentence in the analyzers formats a percentage with
    this function."""
    return share_pct_text(pct)


def _half_up(p: float, digits: int) -> str:
    """``p`` with ``digits`` decimals, halves rounded away from zero (62.5 → "63", 0.25 → "0.3"); the float's
    shortest repr decides, so 62.4999999 stays "62"."""
    from decimal import ROUND_HALF_UP, Context, Decimal

    d = Decimal(repr(p))
    # enough digits for the whole part: the default context's 28 raised InvalidOperation on a figure of 1e300 (a
    # percentage against a peak of 1e-300 in a user's spec) — an internal error instead of the report; a context
    # of its own only then (making one per call tripled the cost of every percentage cell)
    need = d.adjusted() + digits + 2
    ctx = Context(prec=need) if need > 28 else None
    return str(d.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=ctx))


def fixed_half_up(v: float, digits: int) -> str:
    """``v`` with ``digits`` decimals, halves rounded away from zero (31.25 → "31.3", where ``f"{31.25:.1f}"``
    gives "31.2"): the one rounding rule of a figure with fixed decimals in a table cell; "inf"/"nan" as Python
    prints them."""
    v = float(v)
    return f"{v:.{digits}f}" if math.isinf(v) or math.isnan(v) else _half_up(v, digits)


def fmt_share(s: Any, digits: int = 1) -> str:
    """A 0–1 fraction as a percentage, halves rounded up (:func:`fixed_half_up`): 0.1234 → ``'12.3 %'``; with one
    decimal never rounded to a false 0 % or 100 % (:func:`share_pct_text`: 2.89 µs of 8.44 ms is "under 0.1 %", as
    the Markdown and HTML tables say, not "0.0 %")."""
    if is_missing(s):
        return MISSING
    return share_pct_text(100 * float(s)) if digits == 1 else f"{fixed_half_up(100 * float(s), digits)} %"


def fmt_count(n: Any) -> str:
    """A count with thousands separators: 1234 → ``'1,234'`` (non-integers keep 2 decimals)."""
    if is_missing(n):
        return MISSING
    f = float(n)
    if math.isinf(f):  # no count is infinite (int(inf) raised OverflowError: an internal error, not a report)
        return MISSING
    return f"{int(round(f)):,}" if f.is_integer() or abs(f) >= 100 else f"{f:,.2f}"


def fmt_num(v: Any, digits: int = 3) -> str:
    """A plain number (a ratio, waves, FLOP/B…) as a person reads it: ``digits`` significant digits, thousands
    separators from 1,000 on and never Python's exponent form there (30,000 waves read ``30,000``, not ``3e+04``);
    below 1e-4 a short mantissa and exponent (``5.8e-5``)."""
    if is_missing(v):
        return MISSING
    f = float(v)
    if f == 0 or not math.isfinite(f):
        return "0" if f == 0 else str(f)
    a = abs(f)
    if a < 1e-4:
        m, e = f"{f:.{max(digits - 2, 1)}e}".split("e")
        return f"{m}e{int(e)}"
    if a >= 10 ** digits:
        return f"{f:,.0f}"
    dp = max(digits - 1 - math.floor(math.log10(a)), 0)
    out = f"{f:,.{dp}f}"
    return out.rstrip("0").rstrip(".") if "." in out else out


def plural(n: Any, word: str, words: str | None = None) -> str:
    """A count and its noun, agreeing: ``plural(1, 'kernel')`` → ``'1 kernel'``, ``plural(3, 'kernel')`` →
    ``'3 kernels'``; ``words`` when the plural is not ``word + 's'``. ``word`` may mark its plural ending the way
    a form does, ``'graph launch(es)'`` or ``'GPU activity record(s)'``: the marker is dropped for one and spelled
    out otherwise (``'2 graph launches'``), so no report reads "1 launch(es)". The count is written by
    :func:`fmt_count` (thousands separators); a missing count reads ``unknown`` with the plural noun."""
    for mark, ending in (("(es)", "es"), ("(s)", "s")):
        if mark in word:
            head, _, tail = word.rpartition(mark)
            return f"{fmt_count(n)} {head}{'' if _is_one(n) else ending}{tail}"
    return f"{fmt_count(n)} {word if _is_one(n) else (words or word + 's')}"


def agree(n: Any, one: str, many: str) -> str:
    """The verb form that agrees with a count ``n``: ``one`` for exactly one, else ``many`` (``agree(1, 'has',
    'have')`` → ``'has'``), so a count sentence reads "1 launch call has no GPU record", "3 launch calls have…"."""
    return one if _is_one(n) else many


def listed(items: list[str], first: int = 5) -> str:
    """``items`` joined by commas, the first ``first`` named and the rest counted (``"a, b, c, d, e and 995
    more"``), so a warning about 1,000 inputs stays one readable line (listing all of them made one of 40 kB).
    One item past ``first`` is named rather than counted ("and 1 more" is no shorter)."""
    if len(items) <= first + 1:
        return ", ".join(items)
    return ", ".join(items[:first]) + f" and {fmt_count(len(items) - first)} more"


def _is_one(n: Any) -> bool:
    """Whether ``n`` is exactly one (takes the singular noun); False for missing counts."""
    try:
        return not is_missing(n) and float(n) == 1.0
    except (TypeError, ValueError):
        return False


def fmt_capacity(v: float) -> str:
    """A memory or cache capacity [bytes] in binary units: ``85018279936`` → ``79.18 GiB``, ``65536`` → ``64 KiB``
    (whole numbers without decimals)."""
    for unit, d in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(v) >= d:
            q = v / d
            return f"{q:.0f} {unit}" if float(q).is_integer() else f"{q:.2f} {unit}"
    return f"{v:.0f} B"


__all__ = ["MISSING", "fmt_bytes", "fmt_capacity", "fmt_count", "fmt_ns", "fmt_num", "fmt_pct", "fmt_share",
           "fmt_si", "is_missing", "plural", "agree"]


def rank_ranges(ranks: Any) -> str:
    """Ranks as runs of consecutive numbers: ``0–1999`` for 2,000 ranks, ``0–3, 8, 10–11`` (one line whatever the
    rank count; a list of every rank filled 110 console lines at 2,000 ranks)."""
    rs = sorted({int(r) for r in ranks})
    runs: list[str] = []
    i = 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        runs.append(str(rs[i]) if i == j else f"{rs[i]}, {rs[j]}" if j == i + 1 else f"{rs[i]}–{rs[j]}")
        i = j + 1
    return ", ".join(runs)


def id_range(ids: Any, what: str = "correlation") -> str:
    """`` (correlation 102)`` or `` (correlation 100–104)``: the lowest and highest of ``ids`` (numbers; None, NA
    and NaN skipped), one id alone when they are equal; ``""`` when there is none."""
    vals = []
    for v in ids:
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            vals.append(int(f))
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    return f" ({what} {lo})" if lo == hi else f" ({what} {lo}–{hi})"
