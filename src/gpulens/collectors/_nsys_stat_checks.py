"""Checks of the per-kernel duration statistics of an ``nsys stats`` kernel summary (``cuda_gpu_kern_sum``).

A row's Avg/Med/Min/Max/StdDev are read as unknown when they cannot be right — not finite, or contradicting each
other or the row's Total Time (min ≤ median ≤ max, min ≤ mean ≤ max, max ≤ total, min ≤ total / instances ≤ max) —
and also when they are printed too coarsely to be used: ``nsys stats --timeunit`` (``nsec``, ``usec``, ``msec``,
``sec``) prints every time with the same decimals (3 in its CSV), so with ``sec`` a 50 µs kernel's Avg is ``0.000``
(its last digit is 1 ms). Such a row contradicts Total Time / Instances only by the rounding of its printed digits:
its statistics are unknown (0 ns would be a wrong figure), and the warning names that cause, not an impossible row.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.units import fmt_ns, plural

#: the per-kernel duration statistics of a ``cuda_gpu_kern_sum`` row, each unknown (NaN) when not printed
STATS = ("mean_ns", "median_ns", "min_ns", "max_ns", "stddev_ns")


def printed_step(text: str) -> float:
    """The value of the last printed digit of the number ``text`` in its own unit: ``"0.000"`` → 0.001,
    ``"7968.0"`` → 0.1, ``"5792"`` and ``"16,214,877"`` → 1; 0.0 for an exponent form or no number."""
    t = text.strip().replace(",", "")
    if not t or "e" in t.lower() or not t.replace(".", "", 1).lstrip("+-").isdigit():
        return 0.0
    return 10.0 ** -(len(t.split(".", 1)[1]) if "." in t else 0)


def blank_impossible_statistics(table: pd.DataFrame, path: Path, warnings: list[str], one_unit: bool = True) -> None:
    """Make a row's duration statistics unknown (in place) when any is not finite (``inf``, ``1e400``) or they
    contradict each other or the row's total (see the module docstring), with 1 ns for nsys's rounding to ns plus
    half the printed step of each value compared (``table``'s ``step:<column>`` columns, in ns, when present). The
    total / instances comparison is made only when ``one_unit``: every time column was read in the Total Time's unit.
    Rows that contradict only within the printed rounding are counted apart, with the step named. Instances and Total
    Time, checked before, are kept; a warning counts the rows. (Shown as "inf s" and "1e21 s" beside a 16 ms total
    otherwise.)"""
    if not len(table):
        return
    st = table[list(STATS)].astype("float64")
    lo, mid, avg, hi = st["min_ns"], st["median_ns"], st["mean_ns"], st["max_ns"]
    calls = table["calls"].astype("float64").where(table["calls"] > 0)
    total = table["total_ns"].astype("float64")
    half = {c: (table[f"step:{c}"].astype("float64").fillna(0.0) / 2 if f"step:{c}" in table
                else pd.Series(0.0, index=table.index)) for c in STATS + ("total_ns",)}
    # the mean of Total Time over Instances lies between Min and Max too (Avg may be missing or disagree with it)
    per = (total / calls).round()
    pairs = [(lo, mid, "min_ns", "median_ns"), (mid, hi, "median_ns", "max_ns"), (lo, avg, "min_ns", "mean_ns"),
             (avg, hi, "mean_ns", "max_ns"), (hi, total, "max_ns", "total_ns")]
    if one_unit:
        pairs += [(lo, per, "min_ns", "per"), (per, hi, "per", "max_ns")]
    half["per"] = (half["total_ns"] / calls).fillna(0.0)
    impossible = (np.isinf(st) | (st.abs() >= 2.0**63)).any(axis=1)
    off = pd.Series(False, index=table.index)
    for a, b, ca, cb in pairs:
        off |= (a > b + 1).fillna(False)
        impossible |= (a > b + 1 + half[ca] + half[cb]).fillna(False)
    coarse = off & ~impossible
    if impossible.any():
        warnings.append(f"{path}: {plural(int(impossible.sum()), 'kernel row(s)')} with impossible duration statistics (infinite, or "
                        "Min/Med/Avg/Max out of order, above the Total Time or around Total Time / Instances): their Avg/Med/Min/Max/StdDev read as "
                        "unknown; Instances and Total Time kept")
    if coarse.any():
        step = max(float((2 * half[c][coarse]).max()) for c in STATS + ("total_ns",))
        zero = int(((st[coarse] == 0).any(axis=1)).sum())
        warnings.append(f"{path}: {plural(int(coarse.sum()), 'kernel row(s)')} whose duration statistics are printed too "
                        f"coarsely to be used: their last digit is {fmt_ns(step)} (nsys stats --timeunit)"
                        + (f", and {zero} of them print a duration of 0" if zero else "")
                        + ", so their Min/Med/Avg/Max disagree with Total Time / Instances by that rounding: their "
                          "Avg/Med/Min/Max/StdDev read as unknown; Instances and Total Time kept — export with "
                          "--timeunit nsec for per-kernel statistics")
    bad = impossible | coarse
    if bad.any():
        table.loc[bad.to_numpy(), list(STATS)] = np.nan
