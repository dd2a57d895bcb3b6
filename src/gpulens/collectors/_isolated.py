"""A few events far outside the rest of a trace: said in a warning, never a silent stretch of the span.

Every span gpulens reports (GPU span: first → last GPU event; profiled window: first → last event, host included)
runs from the earliest to the latest event. One event recorded on another clock, with a stale timestamp, or written
by a buggy exporter an hour after the rest (pytorch/kineto#109 is the ``ts 0`` kind of it, handled by
:mod:`._zero_ts`) stretches that span — and with it GPU busy %, idle time and the verdict's share of the span — by
orders of magnitude, while every other figure looks sound. Such events are kept (they may be real: a run that sat
idle for an hour), but :func:`note_isolated` names them in a warning with the span they stretch, so that a reader
knows which figures to distrust and ``--window`` can leave them out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.units import agree, fmt_ns, plural

#: The isolated side is at most this many events (and :data:`SHARE` of all): a few strays, not a phase of the run.
MOST = 10
SHARE = 0.01
#: A gap is a stray's when it is longer than this multiple of the rest's own extent (first start → last end) — the
#: ratio :data:`gpulens.collectors._zero_ts.ZERO_TS_GAP_RATIO` uses for a ``ts 0`` placeholder.
GAP_RATIO = 10
#: Fewer timed events than this: too few to tell a stray from the run.
FEWEST = 20


def isolated_split(start: np.ndarray, end: np.ndarray) -> tuple[int, int, int, int] | None:
    """Where a few events stand apart from the rest.

    Args:
        start, end: start and end [ns] of every timed event (int64, any order).

    Returns:
        ``(n_before, n_after, gap_ns, rest_ns)``: the counts of isolated events before and after the rest, the
        longest of the gaps that separate them from it, and the rest's extent (first start → last end) [ns]; None
        when no event stands apart (:data:`MOST`, :data:`SHARE`, :data:`GAP_RATIO`).
    """
    n = len(start)
    if n < FEWEST:
        return None
    end = np.maximum(end, start)
    k = min(MOST, max(2, int(n * SHARE)))
    first = np.sort(np.partition(start, k)[:k + 1])  # the k+1 earliest starts
    last = np.sort(np.partition(start, n - k - 1)[n - k - 1:])[::-1]  # the k+1 latest, latest first
    # each side first judged against a rest without the other side's k most extreme events (strays on both sides
    # would hide each other), then exactly, against the rest less the other side's strays found
    lo_cut, _ = _side(start, end, first, last, last[k] + 1, before=True)
    hi_cut, _ = _side(start, end, last, first, first[k], before=False)
    lo_cut, gap_lo = _side(start, end, first, last, hi_cut, before=True)
    hi_cut, gap_hi = _side(start, end, last, first, lo_cut, before=False)
    if lo_cut is None and hi_cut is None:
        return None
    rest = np.ones(n, dtype=bool)
    if lo_cut is not None:
        rest &= start >= lo_cut
    if hi_cut is not None:
        rest &= start < hi_cut
    n_lo = int((start < lo_cut).sum()) if lo_cut is not None else 0
    n_hi = int((start >= hi_cut).sum()) if hi_cut is not None else 0
    return n_lo, n_hi, min(g for g in (gap_lo, gap_hi) if g), int(end[rest].max() - start[rest].min())


def _side(start: np.ndarray, end: np.ndarray, near: np.ndarray, far: np.ndarray, other: Any,
          before: bool) -> tuple[Any, int]:
    """The cut (a start [ns]) past which the events of one side stand apart, and their gap to the rest [ns].

    ``near``: that side's k+1 most extreme starts, most extreme first; ``far``: the other side's; ``other``: the
    other side's cut already found (its strays are no part of the rest), or None. Before: the events starting
    before the cut stand apart; after: those starting at or after it."""
    k = len(near) - 1
    cut_found, gap_found = None, 0
    for j in range(1, k + 1):
        cut = near[j] if before else near[j - 1]
        inner = near[j] if not before else cut
        # cheap bound first (no pass over the events): the gap is at most the distance between the two starts on
        # either side of the cut; the rest spans at least from the cut to the other side's (k+1)-th start
        reach = abs(int(cut - near[j - 1])) if before else abs(int(cut - near[j]))
        if reach == 0 or reach <= GAP_RATIO * max(abs(int(far[k] - inner)), 1):
            continue
        rest = (start >= cut) if before else (start < cut)
        if other is not None:
            rest &= (start < other) if before else (start >= other)
        if before:
            gap = int(start[rest].min() - end[~rest & (start < cut)].max())
        else:
            gap = int(cut - end[rest].max())
        if gap > GAP_RATIO * max(int(end[rest].max() - start[rest].min()), 1):
            cut_found, gap_found = cut, gap  # a later j keeps more events apart: the most that qualify win
    return cut_found, gap_found


def note_isolated(tl: Any, path: Path | str) -> Any:
    """``tl`` with a warning when a few of its events lie far outside the rest (:func:`isolated_split`), per rank.

    Args:
        tl: a Timeline just read from ``path`` (events: ``start_ns``, ``dur_ns``, ``rank``, ``kind``).
        path: the input, named in the warning.

    Returns:
        ``tl`` itself; ``tl.meta.warnings`` gets one line per rank with strays: how many events, how far before or
        after the rest, the rest's extent and the span they stretch it to.
    """
    ev = tl.events
    if len(ev) < FEWEST or "start_ns" not in ev or "dur_ns" not in ev:
        return tl
    start = ev["start_ns"].to_numpy(dtype=np.int64, na_value=0)
    end = start + ev["dur_ns"].to_numpy(dtype=np.int64, na_value=0)
    ranks = ev["rank"].to_numpy(dtype=np.int64, na_value=0) if "rank" in ev else np.zeros(len(ev), np.int64)
    several = bool(len(ranks)) and ranks.min() != ranks.max()
    # unclassified rows (Kineto's own session record "PyTorch Profiler (0)", which opens before what it records) are
    # no part of the profiled window (gpulens.timeline.selection.window_origin): neither strays nor the rest
    other = (ev["kind"] == "other").to_numpy(dtype=bool) if "kind" in ev else np.zeros(len(ev), dtype=bool)
    for r in (np.sort(pd.unique(ranks)) if several else ranks[:1]):
        rows = ranks == r if several else np.ones(len(ranks), dtype=bool)
        rows = rows & ~other if (rows & ~other).any() else rows
        found = isolated_split(start[rows], end[rows])
        if found is None:
            continue
        before, after, gap, rest = found
        where = "outside" if before and after else "before" if before else "after"
        both = f" ({before} before, {after} after)" if before and after else ""
        span = int(end[rows].max() - start[rows].min())
        n = before + after
        tl.meta.warnings.append(
            f"{path}: {plural(n, 'event(s)')}{f' of rank {r}' if several else ''}{both} {agree(n, 'lies', 'lie')} "
            f"{fmt_ns(gap)} or more {where} the other {len(start[rows]) - n} (which span {fmt_ns(rest)}): the span, "
            f"and every share of it (GPU busy %, idle time), stretches to {fmt_ns(span)} — a stray timestamp "
            f"(another clock, a stale record) or a real pause; --window can leave {agree(n, 'it', 'them')} out")
    return tl


def read_checks(tl: Any, path: Path | str, collector: str) -> Any:
    """The checks every input gets once read, a file or a folder claimed by one collector: GPU events on a device
    the input does not list (:func:`gpulens.collectors._unlisted.add_unlisted`), a few events far from the rest
    (:func:`note_isolated`). Returns ``tl``, its device records and warnings completed."""
    from gpulens.collectors._unlisted import add_unlisted

    return note_isolated(add_unlisted(tl, path, collector), path)
