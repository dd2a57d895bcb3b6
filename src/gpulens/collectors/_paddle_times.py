"""PaddlePaddle's exact event starts: ``ts`` is whole µs, ``args.start_time`` holds the ns.

PaddlePaddle's profiler (``paddle/fluid/platform/profiler/chrometracing_logger.cc``, Apache-2.0) prints every ``X``
event with ``"ts": %lld`` = ``nsToUs(StartNs)`` — the start **cut** to whole µs — and ``"args": {"start_time":
"%.3f us", …}`` = ``nsToUsFloat(StartNs, start_time_)``: the start in µs with 3 decimals (ns) relative to
``start_time_``, the earliest host event of the trace (``LogNodeTrees``). ``nsToUsFloat`` divides in ``float``
(``paddle/fluid/platform/profiler/utils.h``), so the relative value is exact to ~1 ns below 2^24 ns (16.7 ms) and
loses precision beyond (2^-23 of the value).

Read from ``ts`` alone, two kernels 0.99 µs apart on one stream can get the same start: a false overlap that the
stream repair (B07) turns into a clipped kernel and a wrong busy time. The exact start of each event is
``start_time_ + start_time``; ``start_time_`` (absolute ns) is not written, but every event bounds it:
``ts·1000 ≤ start_time_ + rel ≤ ts·1000 + 999``. :func:`exact_starts` takes the tightest lower bound over the
events whose ``rel`` is exact, then puts each event at ``bound + rel`` where that lies inside its own whole µs
(allowing the ``float`` rounding of ``rel``), clipped to it; an event whose ``rel`` disagrees with its ``ts`` keeps
``ts``. Times between events are then exact to the ns; the absolute clock is off by the bound's error (< 1 µs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: the number of ``"%.3f us"`` as chrometracing_logger.cc prints ``start_time`` (non-negative, up to 3 decimals, at
#: most 15 significant digits: a float64 holds it exactly)
_US_NUMBER = r"\d{1,12}(?:\.\d{1,3})?"
#: below this many ns a float32 holds the relative start exactly (24-bit significand)
_EXACT_NS = 1 << 24


def rel_start_ns(values: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """(row indices, ns) of the values that are Paddle ``start_time`` texts (``"12.345 us"`` → 12,345), or None when
    none is. The number is parsed as float64 and rounded to the ns: exact for up to 15 significant digits (``%.3f``
    of any time below 10^12 µs, 11.6 days)."""
    import pandas as pd

    n = len(values)
    text = np.fromiter((isinstance(v, str) and v.endswith("us") for v in values), dtype=bool, count=n)
    if not text.any():
        return None
    rows = np.flatnonzero(text)
    num = pd.Series(np.asarray(values, dtype=object)[rows]).str[:-2].str.strip()
    ok = num.str.fullmatch(_US_NUMBER).to_numpy(dtype=bool)
    if not ok.any():
        return None
    ns = np.rint(pd.to_numeric(num[ok]).to_numpy(dtype=np.float64) * 1000).astype(np.int64)
    return rows[ok], ns


def exact_starts(start: np.ndarray, pieces: list[tuple[np.ndarray, np.ndarray]]) -> int:
    """Move the rows of ``start`` (int64 ns from whole-µs ``ts``; edited in place) that carry a Paddle
    ``start_time`` to their exact ns (module docstring). ``pieces``: (row numbers into ``start``, relative ns) as
    :func:`rel_start_ns` gave them. Returns how many rows were moved (0: the args did not fit ``ts`` as Paddle writes
    them, e.g. a ``ts`` with a fraction, and nothing was changed)."""
    if not pieces:
        return 0
    rows = np.concatenate([p[0] for p in pieces])
    rel = np.concatenate([p[1] for p in pieces])
    ts = start[rows]
    if not len(rows) or (ts % 1000 != 0).any():  # Paddle's ts is whole µs; anything else is not its convention
        return 0
    exact = rel < _EXACT_NS
    if not exact.any():
        return 0
    lo = int((ts[exact] - rel[exact]).max())
    hi = int((ts[exact] + 999 - rel[exact]).min())
    if lo > hi + 2:  # no single origin fits every exact event: these args mean something else
        return 0
    cand = lo + rel
    tol = 2 + (rel >> 23)  # the float32 rounding of rel (2^-23 of it) and the %.3f rounding
    ok = (cand >= ts - tol) & (cand <= ts + 999 + tol)
    start[rows[ok]] = np.clip(cand[ok], ts[ok], ts[ok] + 999)
    return int(ok.sum())
