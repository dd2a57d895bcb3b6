"""Nsight Compute values and units → numbers in base units.

ncu prints every metric with a unit chosen per row (``usecond`` for one kernel, ``msecond`` for the next; ``byte``,
``Kbyte``, ``Mbyte``; ``Gbyte/second``; ``cycle/nsecond``; ``%``), values with thousands separators
(``"1,234.56"``) and ``n/a`` for metrics that do not apply. This module turns one (value, unit) pair into a float in
a base unit:

======================  ==============  ==========================================================
ncu unit                base unit       factor
======================  ==============  ==========================================================
nsecond/ns, usecond/us,  ``ns``          1, 1e3, 1e6, 1e9 (every spelling of :mod:`._time_units`:
msecond/ms, second/s                     ``usec``, ``msec``…)
byte, Kbyte, Mbyte,      ``bytes``       1, 1e3, 1e6, 1e9, 1e12 (decimal prefixes, see below)
Gbyte, Tbyte
hz, Khz, Mhz, Ghz        ``Hz``          1, 1e3, 1e6, 1e9
cycle                    ``cycles``      1
X/<time>                 ``<base X>/s``  numerator factor ÷ the time unit in seconds (``Gbyte/second`` →
                                         ``bytes/s`` ×1e9; ``cycle/nsecond`` → ``cycles/s`` ×1e9)
X/<other>                ``<base X>/…``  numerator factor (``Kbyte/block`` → ``bytes/block`` ×1e3)
%, anything else         unchanged       1 (``register/thread``, ``warp``, ``block``, ``inst``, ``sector``…)
======================  ==============  ==========================================================

**Kbyte/Mbyte/Gbyte are powers of 1000.** Evidence from the real files: in
``codegandee_rtx5090_ncu-v2_kernel_0005_details.csv`` ncu reports ``dram__bytes_read.sum`` = 17.50 Mbyte, no DRAM
writes, Duration 111.81 us and Memory Workload Analysis "Memory Throughput" (DRAM bytes per second) 156.55 Gbyte/s.
156.55e9 B/s × 111.81e-6 s = 17.50e6 B, i.e. consistent with decimal prefixes on both units; with binary prefixes
the product would be 17.92 Mi, not 17.50. The same check holds for the other two CodeGandee files (tested in
``tests/test_ncu_csv.py``). NVIDIA's documentation found through search does not state the base explicitly;
``ncu --print-units base`` avoids the question at collection time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
import re

from gpulens.collectors._time_units import ns_factor

#: The unit of every value of an ncu CSV that prints none: a details page without its ``Metric Unit`` column, a raw
#: page without its units row (ncu writes both; a hand-made or cut file lacks them). ``Duration`` 1,234.56 is then
#: not 1,234.56 ns (it may be µs or ms): a duration so marked is unknown, other values keep this unit (never bytes).
UNIT_NOT_RECORDED = "unit not recorded"
_PREFIX = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_SCALED = re.compile(r"^([KkMGT]?)(byte|hz|Hz)$")
_BASE_NAME = {"byte": "bytes", "hz": "Hz", "Hz": "Hz"}
_NA = {"", "n/a", "N/A", "nan", "NaN", "-", "--"}


def _numerator(u: str) -> tuple[float, str]:
    """(factor, base unit) of a unit without ``/``."""
    f = ns_factor(u)
    if f is not None:
        return f, "ns"
    m = _SCALED.match(u)
    if m:
        return _PREFIX[m.group(1)], _BASE_NAME[m.group(2)]
    if u == "cycle":
        return 1.0, "cycles"
    return 1.0, u


def convert_unit(unit: str | None) -> tuple[float, str]:
    """Factor and base unit for an ncu unit string (see the module table).

    Args:
        unit: the unit as ncu prints it (``"usecond"``, ``"Gbyte/second"``, ``"%"``, ``""``).

    Returns:
        (factor, base_unit): ``value_in_base = value × factor``.
    """
    u = (unit or "").strip()
    if not u:
        return 1.0, ""
    if "/" in u:
        num, den = u.split("/", 1)
        f, base = _numerator(num.strip())
        den = den.strip()
        per = ns_factor(den)
        if per is not None:
            return f / (per / 1e9), f"{base}/s"
        return f, f"{base}/{den}"
    return _numerator(u)


#: values only a decimal-comma locale prints (``96,32``, ``0,4700``, ``56.344.784``, ``55.313.213,62``) — and only a
#: decimal-point one (``96.32``, ``56,344,784``, ``55,313,213.62``); ``1,234`` and ``1.234`` are either
_COMMA_ONLY = re.compile(r"[-+]?(?:[0-9]+,(?:[0-9]{1,2}|[0-9]{4,})|[0-9]{1,3}(?:\.[0-9]{3}){2,}"
                         r"|[0-9]{1,3}(?:\.[0-9]{3})+,[0-9]+)", re.ASCII)
_POINT_ONLY = re.compile(r"[-+]?(?:[0-9]+\.(?:[0-9]{1,2}|[0-9]{4,})|[0-9]{1,3}(?:,[0-9]{3}){2,}"
                         r"|[0-9]{1,3}(?:,[0-9]{3})+\.[0-9]+)", re.ASCII)
_COMMA_NUMBER = re.compile(r"[-+]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+)(?:,[0-9]+)?", re.ASCII)


def decimal_comma(values: Iterable[str]) -> str | None:
    """Whether ncu printed ``values`` (one report's metric values) in a locale with a decimal comma (de_DE, fr_FR…:
    ``96,32`` for 96.32, ``56.344.784`` for 56,344,784): the first value that can only be read so, or None when none
    can or some value can only be read the usual way (a report with both kinds is read the usual way)."""
    comma = None
    for v in values:
        t = v.strip()
        if _POINT_ONLY.fullmatch(t):
            return None
        if comma is None and _COMMA_ONLY.fullmatch(t):
            comma = t
    return comma


def decimal_comma_note(path: object, example: str) -> str:
    """The warning for a report read with a decimal comma (:func:`decimal_comma` gave ``example``)."""
    return (f"{path}: metric values written with a decimal comma and '.' between thousands (ncu run in a locale such "
            f"as de_DE): read so, e.g. '{example}' = {parse_number(example, True)!r}")


def parse_number(text: str | None, comma: bool = False) -> float | None:
    """A number as ncu prints it: thousands separators stripped, ``n/a`` and non-numbers → None.

    Commas are removed only when the text is otherwise a plain decimal number (``"1,234.56"`` → 1234.56), so
    free text such as ``"(256, 1, 1)"`` is never mistaken for a number. ``comma``: the report's locale writes a
    decimal comma (:func:`decimal_comma`): ``"55.313.213,62"`` → 55313213.62.
    """
    if text is None:
        return None
    t = text.strip()
    if t in _NA:
        return None
    if comma:
        if not _COMMA_NUMBER.fullmatch(t):
            return None
        t = t.replace(".", "").replace(",", ".")
    elif "," in t:
        if not re.fullmatch(r"[-+]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?([eE][-+]?[0-9]+)?", t):
            return None
        t = t.replace(",", "")
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def to_base(text: str | None, unit: str | None) -> tuple[float | None, str]:
    """Parse ``text`` and convert it from ``unit`` to the base unit: ``(value or None, base_unit)``."""
    f, base = convert_unit(unit)
    v = parse_number(text)
    return (None if v is None else v * f), base


_DIM3 = re.compile(r"^\(?\s*([0-9]{1,18})\s*(?:,\s*([0-9]{1,18})\s*)?(?:,\s*([0-9]{1,18})\s*)?\)?$")  # < 10^18: int64


def parse_dim3(text: str | None) -> tuple[int | None, int | None, int | None]:
    """``"(256, 1, 1)"`` or ``"256"`` → (256, 1, 1) / (256, None, None); anything else (also a dimension of 19 digits
    or more, beyond int64) → Nones."""
    if not text:
        return None, None, None
    m = _DIM3.match(text.strip())
    if not m:
        return None, None, None
    return tuple(int(g) if g is not None else None for g in m.groups())  # type: ignore[return-value]
