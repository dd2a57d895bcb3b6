"""The inner loop of the critical-path walk (:meth:`gpulens.analyzers._critical_walk.Walker._gpu_chain`): follow a
chain of GPU events each of which waited for another GPU event, back in time.

One function, :func:`follow`, run as plain Python or, for large inputs, compiled by numba (:func:`follower`): on a
deep launch queue the chain is every queued kernel of a step (a million at 1M kernels), where plain Python reads
cost ≈ 1 µs per event. Without numba, or when it fails to compile, the plain function runs, with the same result.
"""

from __future__ import annotations

import sys
from typing import Callable

import numpy as np

#: GPU events from which the compiled loop is used: below that the plain loop costs less than loading numba
#: (≈ 0.5 s to import it when the Kineto scanner has not; each event ≈ 1 µs in plain Python).
JIT_MIN_EVENTS = 200_000
#: GPU events from which the compiled loop is used when numba's compiler is already loaded in this process (the
#: Kineto scanner ran): loading the cached loop then costs ≈ 5 ms, a walk over 100k events ≈ 0.13 s in plain
#: Python (measured at 100k GPU events, session 35).
JIT_WARM_MIN_EVENTS = 10_000


def numba_loaded() -> bool:
    """Whether numba's CPU compiler is already set up in this process: its target registries (``numba.np.linalg``
    among them, imported when numba first compiles or loads a cached function) are loaded, so a cached function
    loads in milliseconds instead of the ≈ 0.5 s of a first one."""
    return "numba.np.linalg" in sys.modules


def follow(g: int, t: int, lo: int, kind: np.ndarray, target: np.ndarray, resume: np.ndarray, start: np.ndarray,
           stamp: np.ndarray, walk_id: int, chain: np.ndarray, ends: np.ndarray) -> tuple[int, int, int, bool]:
    """Follow GPU waits back from event g, whose segment ends at t [ns], in the window starting at lo [ns].

    Args:
        kind, target, resume: per GPU event, what it waited for (0 = another GPU event, ``target``, the path
            resuming at ``resume`` [ns]; any other kind ends the chain), from ``Walker._hops``.
        start: per GPU event, its start [ns].
        stamp: per GPU event, the id of the last walk that visited it (updated here); walk_id: this walk's id.
        chain, ends: output buffers (at least as long as the number of GPU events): the events visited, latest
            first, and the end of each one's segment [ns].
    Returns:
        (events written to the buffers, the current event, the current time [ns], whether the walk stopped at an
        event it had already visited — a zero-length cycle, only in an inconsistent trace). The chain stops at an
        event starting at or before lo, at one that did not wait for a GPU event, or when the time reaches lo.
    """
    n = 0
    while True:
        if stamp[g] == walk_id:
            return n, g, t, True
        stamp[g] = walk_id
        chain[n] = g
        ends[n] = t
        n += 1
        if start[g] <= lo or kind[g] != 0:
            return n, g, t, False
        t = resume[g]
        g = target[g]
        if t <= lo:
            return n, g, t, False


_compiled: Callable | None = None


def follower(events: int) -> Callable:
    """:func:`follow`, compiled by numba (cached on disk; compiled at its first call) for ``events`` ≥
    :data:`JIT_MIN_EVENTS` (≥ :data:`JIT_WARM_MIN_EVENTS` when numba is already loaded, :func:`numba_loaded`) when
    numba imports, else the plain function. A caller falls back to :func:`follow` when the compiled one raises (numba
    compiles before running: nothing was changed)."""
    global _compiled
    if events < (JIT_WARM_MIN_EVENTS if numba_loaded() else JIT_MIN_EVENTS):
        return follow
    if _compiled is None:
        try:
            from numba import njit

            _compiled = njit(cache=True, nogil=True)(follow)
        except Exception:  # noqa: BLE001  (whatever numba raises: the plain loop gives the same result)
            _compiled = follow
    return _compiled
