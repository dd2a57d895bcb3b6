"""Whether a per-name summary table holds all its rows, told by its own share column.

``nsys stats`` (``Time (%)``) and rocprof ``*.stats.csv`` (``Percentage``) print each row's share of the time of
**all** rows. A table cut at a row boundary (a copy that stopped early, ``head``, a full disk) still parses, but its
shares then belong to a larger total than the rows read add up to: every row's total time divided by its share
gives the full table's total, and the rows read fall short of it. :func:`missing_share` computes that shortfall
with the printed rounding allowed for, so a complete table (shares rounded to 0.1, summing to 99.0 over 97 rows)
is never flagged.
"""

from __future__ import annotations

import math
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


def impossible_shares(path: object, column: str, shares: Sequence[str], names: Sequence[str]
                      ) -> tuple[str | None, list[bool]]:
    """The warning for printed shares of a whole that no share can be, and the rows whose share to read as unknown.

    A share of all rows' time lies in 0–100 % and the shares of one table add up to at most 100 %. Each printed
    share ``p`` with a last-digit unit ``u`` (:func:`_unit_of_last_digit`) stands for a true share within ``u`` of it
    (rounded or truncated), so a row is impossible when ``p − u > 100``, ``p + u < 0`` or ``p`` is infinite, and the
    table when ``Σ (p − u) > 100`` over its rows (a complete table rounded to 0.1 sums to 99.0–101.0, never beyond
    that bound). Text that is no number (an empty cell, ``nan``) is not recorded, not impossible.

    Args:
        path: the file, named in the warning; column: the share column's name (``Time (%)``, ``Percentage``).
        shares: each row's share as printed [%]; names: each row's name, for the example.

    Returns:
        (warning or None, per row True where its share is to be read as unknown: the impossible rows, or every row
        when the shares together exceed 100 %). The caller must not check the table for missing rows with such
        shares (:func:`missing_share`): they describe no whole.
    """
    bad, low = [False] * len(shares), 0.0
    example = None
    for i, text in enumerate(shares):
        t = str(text).strip()
        try:
            p = float(t) if t.isascii() and t else float("nan")
        except ValueError:
            continue
        if p != p:  # nan: not recorded
            continue
        u = _unit_of_last_digit(t) or 0.0
        if p in (float("inf"), float("-inf")) or p - u > 100.0 or p + u < 0.0:
            bad[i] = True
            example = example or (names[i] if i < len(names) else "?", t)
        else:
            low += p - u
    if any(bad):
        n = sum(bad)
        return (f"{path}: {n} row{'s' if n > 1 else ''} with an impossible {column} share (above 100 %, negative or "
                f"infinite; e.g. {str(example[0])[:60]!r} at {example[1]} %): impossible statistics — "
                f"{'their shares are' if n > 1 else 'its share is'} read as unknown and the {column} shares are not "
                "used to check that the table is whole; each row's calls and total time are kept", bad)
    if low > 100.0:
        return (f"{path}: the {column} shares add up to more than 100 % ({low:.1f} % at least, after their "
                f"rounding): impossible statistics — every row's share is read as unknown and the shares are not "
                "used to check that the table is whole; each row's calls and total time are kept",
                [True] * len(shares))
    return None, bad


def disagreeing_shares(path: object, column: str, shares: Sequence[str], totals: Sequence[float],
                       names: Sequence[str]) -> str | None:
    """The warning for a table whose printed shares no single whole fits, or None.

    A row printing ``p`` (last-digit unit ``u``, :func:`_unit_of_last_digit`) with a total ``t`` puts the table's
    whole ``T`` within ``[100·t/(p+u), 100·t/(p−u)]``. The whole most rows fit is the median of ``100·t/p``; a row
    whose interval excludes it disagrees with its own Total Time (one of the two is wrong, which one the file cannot
    tell) — the shares gpulens shows are computed from the Total Times, so a row printing 20.0 % read "71.4 %" with
    nothing said (kernel sum: 0.5 ms 50.0 %, 0.3 ms 30.0 %, 2 ms 20.0 %). Rows cut off the table's end
    (:func:`missing_share`) scale every row's share alike and disagree with nothing. ``names``: the rows' names,
    the first disagreeing one named in the warning."""
    est, rows = [], []
    for i, (text, t) in enumerate(zip(shares, totals)):
        u = _unit_of_last_digit(str(text))
        try:
            p, t = float(text), float(t)
        except (TypeError, ValueError):
            continue
        if u is None or not (math.isfinite(p) and math.isfinite(t)) or p <= u or t <= 0:
            continue
        est.append(100.0 * t / p)
        rows.append((i, p, u, t))
    if len(rows) < 3:  # two rows cannot say which one is wrong
        return None
    whole = sorted(est)[len(est) // 2]
    bad = [(i, p, t) for i, p, u, t in rows
           if whole < 100.0 * t / (p + u) * (1 - _TOTAL_SLACK) or whole > 100.0 * t / (p - u) * (1 + _TOTAL_SLACK)]
    if not bad:
        return None
    i, p, t = bad[0]
    read = sum(float(x) for x in totals if x == x)
    from gpulens.units import plural, share_pct_text

    return (f"{path}: {plural(len(bad), 'row')} whose {column} disagrees with its Total Time (no one total fits "
            f"them and the other rows): {names[i] if i < len(names) else 'a row'} prints {share_pct_text(p)} but holds "
            f"{share_pct_text(100.0 * t / read)} of the rows' summed Total Time; the shares shown are computed from the "
            "Total Times — which of the two figures is wrong is unknown")

