"""Bounds that keep every sum of durations inside int64 ns.

Analyzers and reporters add durations up with numpy/pandas int64 sums, which wrap silently past 2^63 − 1 ns: two
``nsys stats`` rows of 5e18 ns, or 1,200 rocprofv3 kernels of 100 days each, once turned the kernel time negative
(``-8446744073.71 s summed``, a share of −59 %). The collectors and :meth:`~gpulens.timeline.Timeline.validate`
therefore keep only inputs whose durations add up to at most :data:`MAX_TOTAL_NS` (2^62 ns, 146 years of GPU time,
far beyond any capture): since durations are never negative, every subset of them — a kernel's total, one GPU's
busy time, kernel plus copy time — then adds up within int64, wherever the sum is taken.

==============================  ==========================================================================
rule                            why
==============================  ==========================================================================
one duration ≤ MAX_EVENT_NS     2^53 ns ≈ 104 days: no profiler measured a longer interval (a 2^63-ish end
                                written by a broken export is no time)
a summary row's mean instance   the same bound for a per-name summary (Total Time / Instances): a row that
≤ MAX_EVENT_NS                  says one launch took 158 years is no measurement
all durations together          beyond it, the longest are left out (counted in a warning) until the rest
≤ MAX_TOTAL_NS                  fit: they are the ones whose values cannot be right
==============================  ==========================================================================
"""

from __future__ import annotations

import numpy as np

#: Longest duration an event may have (2^53 ns ≈ 104 days): beyond it no profiler measured it, and a few such
#: durations summed overflow int64.
MAX_EVENT_NS = 1 << 53
#: Largest sum of all the durations of one input (2^62 ns ≈ 146 years): any two subsets of them still add up
#: within int64.
MAX_TOTAL_NS = 1 << 62


def over_total(durations: np.ndarray | list, limit: int = MAX_TOTAL_NS) -> np.ndarray:
    """Mask of the durations to leave out so that the others add up to at most ``limit`` ns: the longest first
    (of equal ones, the later rows), none when all of them fit. NaN counts as 0 (an unknown duration adds
    nothing).

    Example: ``over_total([3, 1, 2], limit=3)`` → ``[True, False, False]`` (1 + 2 = 3 fit; 3 is left out).
    """
    d = np.nan_to_num(np.asarray(durations, dtype="float64"), nan=0.0)
    out = np.zeros(len(d), dtype=bool)
    if not len(d) or float(d.sum()) <= limit:
        return out
    order = np.argsort(d, kind="stable")  # shortest first; float sums: exact enough far below 2^63 (limit 2^62)
    out[order[np.cumsum(d[order]) > limit]] = True
    return out


def implausible_summary_rows(calls: np.ndarray | list, total_ns: np.ndarray | list,
                             limit: int = MAX_TOTAL_NS) -> np.ndarray:
    """Mask of the rows of a per-name summary (``nsys stats``, rocprof ``*.stats.csv``) that cannot be
    measurements: a mean instance (``total_ns / calls``) beyond :data:`MAX_EVENT_NS`, then, of the rest, the
    longest totals until the others add up to at most ``limit`` (:func:`over_total`). ``calls`` and ``total_ns``
    are finite and non-negative (the collectors check that first)."""
    c = np.asarray(calls, dtype="float64")
    t = np.asarray(total_ns, dtype="float64")
    bad = t > np.maximum(c, 1.0) * MAX_EVENT_NS
    rest = np.flatnonzero(~bad)
    bad[rest[over_total(t[rest], limit)]] = True
    return bad
