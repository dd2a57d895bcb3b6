"""A duration a trace records beside the start and end of the same event must be their difference.

rocprof v1 writes ``DurationNs`` beside ``BeginNs``/``EndNs`` (``results.csv``, the ``KERN`` table of ``results.db``,
the ``args`` of ``results.json``), always ``EndNs − BeginNs`` exactly (every such row of the MI300X, MI210 and gfx950
traces in tests/data). gpulens takes an event's time from its start and end; a duration column that disagrees
(written in another unit — ×1000 —, edited, or from another clock) means the file contradicts itself, and which of
the two is right is not known. :func:`span_disagreement` counts such rows so the collector can say so, naming the
columns used, instead of passing the contradiction silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.units import agree, plural

#: Largest difference [ns] between a recorded duration and end − start that is rounding: both are integer ns of
#: one clock in every format checked, so 1 ns allows a tool that rounds each figure on its own.
TOLERANCE_NS = 1

#: Ratios of a recorded duration to end − start that name a unit slip (ns written where µs belong, or the reverse).
_UNIT_RATIOS = (1e3, 1e6, 1e-3, 1e-6)


def _ints(values: Any) -> pd.Series:
    """``values`` as nullable Int64 (anything that is no integer → NA)."""
    s = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    s = s.reset_index(drop=True)
    if s.dtype != "Int64":
        s = pd.to_numeric(s.astype(object), errors="coerce")
        s = s.where(np.isfinite(s.astype("float64")) & (s.astype("float64") == np.trunc(s.astype("float64"))))
        s = s.astype("float64").astype("Int64") if s.dtype.kind == "f" else s.astype("Int64")
    return s


def span_disagreement(path: Path, start: Any, end: Any, duration: Any, column: str, used: str,
                      what: str = "row") -> str | None:
    """The warning for rows whose recorded ``duration`` disagrees with ``end − start`` by more than
    :data:`TOLERANCE_NS`, or None when every row with all three recorded agrees.

    Args:
        path: the file, named in the warning.
        start, end, duration: per row, in ns (sequences or Series; missing or unreadable values are skipped).
        column: the duration column's name as the file writes it (``DurationNs``).
        used: the columns the event's time is taken from, as the warning names them (``EndNs − BeginNs``).
        what: what one row is called in the warning (``row`` of a CSV or table, ``event`` of a JSON trace).

    Returns:
        ``"<path>: N of M rows record a DurationNs that disagrees with EndNs − BeginNs …"``, with the first such
        row's two figures and, when every such row is off by one factor of 1000ⁿ, that factor (a unit slip).
    """
    s, e, d = _ints(start), _ints(end), _ints(duration)
    if not (len(s) == len(e) == len(d)) or not len(s):
        return None
    span = e - s
    known = (span.notna() & d.notna()).to_numpy(dtype=bool)
    if not known.any():
        return None
    diff = (d - span).to_numpy(dtype="float64", na_value=np.nan)
    bad = known & (np.abs(diff) > TOLERANCE_NS)
    n = int(bad.sum())
    if not n:
        return None
    i = int(np.flatnonzero(bad)[0])
    rec, sp = int(d.iloc[i]), int(span.iloc[i])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = d.to_numpy(dtype="float64", na_value=np.nan)[bad] / span.to_numpy(dtype="float64", na_value=np.nan)[bad]
    slip = next((r for r in _UNIT_RATIOS if np.all(np.abs(ratio / r - 1) < 0.01)), None)
    factor = (f"; it is {'×' if slip > 1 else '÷'}{max(slip, 1 / slip):,.0f} the timestamps' span in "
              f"{'all of them' if n > 1 else 'it'} (another unit)" if slip else "")
    return (f"{path}: {n} of {plural(int(known.sum()), what)} {agree(n, 'records', 'record')} a {column} that "
            f"disagrees with {used} by more than {TOLERANCE_NS} ns (e.g. {what} {i + 1}: {column} {rec:,} beside "
            f"{used} = {sp:,} ns{factor}): the file contradicts itself; each event's time is taken from {used}, "
            f"{column} is not used")
