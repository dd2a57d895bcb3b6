"""Whether a per-name summary table holds all its rows, told by its own share column.

``nsys stats`` (``Time (%)``) and rocprof ``*.stats.csv`` (``Percentage``) print each row's share of the time of
**all** rows. A table cut at a row boundary (a copy that stopped early, ``head``, a full disk) still parses, but its
shares then belong to a larger total than the rows read add up to: every row's total time divided by its share
gives the full table's total, and the rows read fall short of it. :func:`missing_share` computes that shortfall
with the printed rounding allowed for, so a complete table (shares rounded to 0.1, summing to 99.0 over 97 rows)
is never flagged.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Relative slack for totals printed rounded (``--timeunit ms`` with three decimals).
_TOTAL_SLACK = 1e-3


def _unit_of_last_digit(text: str) -> float | None:
    """One unit of the last printed digit of a decimal share (``"24.7"`` → 0.1, ``"84.25093"`` → 1e-5,
    ``"50"`` → 1), or None when ``text`` is no plain decimal number."""
    t = text.strip()
    if not t.isascii():  # float() reads digits of other scripts ("٢٤.٧"): no profiler prints them
        return None
    try:
        float(t)
    except ValueError:
        return None
    if not t or "e" in t.lower() or t.lower() in ("nan", "inf", "-inf", "infinity"):
        return None
    return 10.0 ** -(len(t.split(".", 1)[1]) if "." in t else 0)


def missing_share(shares: Sequence[str], totals: Sequence[float]) -> float | None:
    """The least fraction of the table's time (0–1) that the rows read do not hold, or None when they hold all
    of it (within the printed rounding) or the shares cannot tell.

    Args:
        shares: each row's printed share of all rows' time [%], as text (its decimals give its rounding).
        totals: each row's total time, in one unit.

    Each row with a share ``p`` printed to a unit ``u`` of its last digit bounds the full table's total from below:
    ``T ≥ 100 · t / (p + u)`` (a whole unit: right whether the tool rounds or truncates). When the largest such
    bound exceeds the rows' own sum (beyond :data:`_TOTAL_SLACK`), rows are missing — unless the shares, each taken
    at ``p + u``, reach 100 % (every row may be there): then the second largest bound must exceed it too, so that
    one row whose Total Time disagrees with its share is not read as a cut table.
    """
    read = float(sum(totals))
    if read <= 0 or len(shares) != len(totals):
        return None
    bounds, most = [], 0.0  # most: the largest whole the printed shares allow the rows read (p + u each)
    for text, t in zip(shares, totals):
        u = _unit_of_last_digit(text)
        if u is None:
            return None
        p = float(text)
        most += p + u
        if p > u and t > 0:
            bounds.append(100.0 * float(t) / (p + u))
    bounds.sort()
    # shares that may sum to 100 % say every row is there: one row's bound alone is then the row's own fault (a
    # Total Time 1000× its Instances × Avg read as "75 % of the rows missing"), so two rows must agree on it
    bound = (bounds[-2] if len(bounds) > 1 and most >= 100.0 else bounds[-1]) if bounds else 0.0
    if bound <= read * (1 + _TOTAL_SLACK):
        return None
    return 1.0 - read / bound
