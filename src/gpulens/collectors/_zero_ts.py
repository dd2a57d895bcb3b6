"""The rule that tells a ``ts`` of 0 that was never recorded from a clock that starts at 0 (Kineto, Nsight Systems,
the rocprof family: :mod:`._kineto_acc`, :mod:`.nsys_sqlite`, :func:`._dispatch.build_timeline`)."""

from __future__ import annotations

import numpy as np


#: A ``ts`` of 0 is Kineto's "never recorded" placeholder (pytorch/kineto#109) when the real timestamps beside it
#: lie farther from 0 than this multiple of their own extent; in a trace whose clock starts at 0 (rebased, or
#: relative to ``baseTimeNanoseconds``) it is the first real instant and is kept.
ZERO_TS_GAP_RATIO = 10


def zero_ts_placeholders(ts: np.ndarray, dur: np.ndarray, ok: np.ndarray,
                         blank: np.ndarray | None = None) -> np.ndarray:
    """Mask of the events whose ``ts == 0`` (or ``ts < 0``: ``-1``, the unset-marker kind of B06's ``dur -1``) is a
    placeholder (:data:`ZERO_TS_GAP_RATIO`), not a time: counting the event from its start to its end would stretch
    the span of the other valid events ``ok`` (those with ``ts > 0``: first start → last end, ns) more than
    ``ZERO_TS_GAP_RATIO + 1`` times (B06: ``ts 0, dur 0`` beside events at 1.6e15 µs spanning 40 µs). A clock that
    starts at 0 keeps its first event (and a relative clock its events a little before 0), and so does a zero-start
    event whose own duration reaches the others (a profiler span from 0 to the first step); with no other timestamp
    it is kept.

    On a clock that starts at 0 (relative, rebased) the ratio keeps a placeholder too: ``ts 0, dur 0`` beside events
    from 5 to 50 µs widens their span only 11/10 ×, and was counted as a measured launch at the start of the run
    (the span 0 → 50 µs, busy 70 % instead of 77.8 %). An event with **both** figures 0 — no start and no length —
    holds no measurement whatever the clock: it is a placeholder wherever another event has a timestamp after 0
    (among ``blank``, the rows this applies to — the GPU work; None: every row); alone, it is kept.

    Args:
        ts, dur: start and duration [ns] of each event of one piece (int64).
        ok: both recorded (the others' extent uses only events with ``dur >= 0`` besides).
        blank: the rows a ``ts 0, dur 0`` is a placeholder for (GPU records: a host instant at a rebased clock's 0,
            the profiler's start marker, is a real instant).
    """
    zero = ok & (ts <= 0)
    other = ok & (ts > 0) & (dur >= 0)
    if not zero.any() or not other.any():
        return np.zeros(len(ts), dtype=bool)
    empty = zero & (ts == 0) & (dur == 0) & (True if blank is None else blank)  # no start, no length: nothing measured
    lo, hi = int(ts[other].min()), int((ts[other] + dur[other]).max())
    extent = max(hi - lo, 1)
    start = np.where(zero, ts, 0)
    with np.errstate(over="ignore"):  # the span with the event counted from its start (≤ 0) to the others' end
        wide = np.maximum(start + np.where(zero, dur, 0), hi).astype("float64") - start.astype("float64")
    return (zero & (wide > (ZERO_TS_GAP_RATIO + 1) * extent)) | empty
