"""Exact, bounded parsing of numbers read from profiler files.

Every collector that turns recorded text (``"1712195495505583.123"``, ``"8.1097E+14"``) into an integer goes through
:func:`exact_int`, so the declared range is checked once: the result is an int64 or ``None`` (unknown). It never
builds a huge integer: ``171e4000400`` (a mutated timestamp) would otherwise make Python compute a 4-million-digit
number, which takes minutes.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

import pandas as pd

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
_MAX_EXPONENT = 25  # |value| < 10^25 before the range check: ample for int64 (< 9.3e18) after scaling by 10^±6
#: Text profilers write in a field they have no value for (rocprof v1 ``n/a`` in ``BeginNs``/``EndNs`` of a
#: dispatch whose completion signal was never read, ncu ``n/a``, spreadsheet ``-``): compared lower-cased. ``nan`` is
#: one too: it is how Python's ``csv``/``str`` (and the JSON literal ``NaN`` of ``json.dumps``) write a float NaN —
#: pandas' and numpy's missing value — so a ``nan`` time reads as the ``NaN`` float does, in every collector: not
#: recorded (a GPU row kept as an untimed launch, counted in a warning), never a time.
NOT_RECORDED_MARKERS = frozenset({"", "n/a", "na", "-", "--", "null", "none", "nan"})


def not_recorded(value: Any) -> bool:
    """Whether a field records nothing: None, NA, NaN floats, empty/white-space text, or a "no value" marker of
    :data:`NOT_RECORDED_MARKERS` (``n/a``, ``N/A``, ``-``, ``null``, ``nan``; surrounding quotes allowed). Text
    ``nan`` is the float NaN written out (Python's csv module, ``str``), so it reads as NaN does; ``inf`` is no such
    marker: a time no clock can hold (unreadable)."""
    if value is None or value is pd.NA:
        return True
    if isinstance(value, float):
        return value != value
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return isinstance(value, str) and value.strip().strip('"').strip().lower() in NOT_RECORDED_MARKERS


def exact_int(value: Any, scale: int = 0) -> int | None:
    """``value`` × 10^``scale`` as an exact int64 (half-even rounding of any fraction), or None.

    Args:
        value: an int, a float, a Decimal or numeric text (decimal or scientific notation, surrounding spaces and
            quotes allowed).
        scale: power of ten to multiply by (3 for µs → ns).

    Returns:
        None for empty/non-numeric text (digits of other scripts included: ``"١٢٣"``, full-width ``"１２３"``),
        NaN/infinite values, exponents beyond ±25, and results outside int64.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int) and not scale:
        return value if INT64_MIN <= value <= INT64_MAX else None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str) and not value.isascii():  # Decimal reads "١٢٣" / full-width "１２３" as 123: no file
        return None  # writes its numbers in those digits, so such a field is damage (unreadable), never a time
    try:
        d = value if isinstance(value, Decimal) else Decimal(str(value).strip().strip('"'))
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite() or (d and abs(d.adjusted()) > _MAX_EXPONENT):
        return None
    n = int(d.scaleb(scale).to_integral_value())
    return n if INT64_MIN <= n <= INT64_MAX else None


#: A run of ASCII digits that no digit of any script touches, for patterns that read a number out of text: ``[0-9]``
#: reads no other script's digits (``int()`` would: ``"٣"`` is 3), and the guards (``\d`` in a str pattern matches
#: every script's decimal digits, U+0660–U+0669, U+FF10–U+FF19…) keep the ASCII part of a mixed run (``"1٣"``,
#: ``"٣7"``) from being read as a number. The pattern must not take ``re.ASCII`` (the guards would then see ASCII
#: digits only).
DIGITS = r"(?<!\d)[0-9]+(?!\d)"

#: a label's trailing integer ("stream 7", "Agent 1"; "stream ٣7" has none)
TRAILING_INT = re.compile(rf"(-?{DIGITS})\s*$")
#: a number followed by its label in parentheses: PaddlePaddle's profiler writes host thread ids so in its Chrome
#: trace (``"tid": "11(C++)"``, ``"12(Python)"``): the number is the thread
LEADING_INT_LABEL = re.compile(rf"^(-?{DIGITS})\s*\([^()]*\)$")


def id_of_text(text: str) -> int | None:
    """An id written as text (Kineto ``args``, rocprofv3 ``Agent_Id``): the whole text as a number when it is one
    (``"7"``, ``" 7 "``, ``"1e3"`` = 1000, ``"0x10"`` = 16; a fraction, ``"nan"`` or ``"inf"`` is none), else a
    label's trailing number (``"stream 7"``, ``"cuda:3"``, ``"Agent 1"``), or a number with its label in parentheses
    after it (Paddle's thread ``"11(C++)"``). Read by its last digits, ``"1e3"`` was id
    3, ``"7.5"`` id 5 and ``"0x10"`` id 10. Digits of other scripts (``"١"``, full-width ``"１"``), which ``int``
    reads, are no id. No int64 bound here: the caller's."""
    t = text.strip()
    if t.isascii():  # int() and float() read Arabic-Indic or full-width digits: no profiler writes ids so
        try:
            return int(t)
        except ValueError:
            pass
        try:
            return int_of_float(float(t))
        except ValueError:
            pass
    if t[:2].lower() == "0x" or t[:3].lower() == "-0x":
        try:
            return int(t, 16)
        except ValueError:
            return None
    m = TRAILING_INT.search(t) or LEADING_INT_LABEL.match(t)
    return int(m.group(1)) if m else None


def int_of_float(v: float) -> int | None:
    """A float id or count as an int when it is a whole number below 2^63 in magnitude (``7.0``); None for a
    fraction (``5e-324`` was read as id 0, ``7.9`` as 7), ``nan`` or ``inf``."""
    return int(v) if abs(v) < 2.0 ** 63 and v.is_integer() else None  # nan and inf fail the test too
