"""The inner loop of the critical-path walk (:meth:`gpulens.analyzers._critical_walk.Walker._gpu_chain`): follow a
chain of GPU events each of which waited for another GPU event, back in time.

One function, :func:`follow`, run as plain Python or, for large inputs, compiled (:func:`follower`): on a deep
launch queue the chain is every queued kernel of a step (a million at 1M kernels), where plain Python reads cost
≈ 1 µs per event. Compiled means a shared library built once by numba (:data:`LIB`, :mod:`gpulens._native`: loaded
with ctypes, numba not imported — its import and first cached function cost ≈ 0.2–0.5 s CPU per process), else
numba's own cached entry point; without numba, or when it fails to compile, the plain function runs, with the same
result.
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from gpulens._native import Library

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


#: the chain walk's library: :func:`follow` behind the C entry point of :func:`_ir`; ``GPULENS_CHAIN_NATIVE=0``
#: turns it off (numba's entry point, else the plain loop)
LIB = Library("critical_chain", "gpulens_critical_follow", "GPULENS_CHAIN_NATIVE", (Path(__file__).resolve(),))


def _ir() -> tuple[Any, Callable]:
    """(numba signature, C-callable Python function) of :func:`follow` for :data:`LIB`. C arguments, in order: g,
    t, lo; the addresses of ``kind`` (int8), ``target``, ``resume``, ``start`` (int64), ``stamp`` (int32); walk_id;
    the addresses of ``chain``, ``ends`` (int64); the number of GPU events (every array's length); the address of
    a 4-cell int64 array receiving :func:`follow`'s result. Returns 0."""
    from numba import carray, njit, types

    P, i64 = types.CPointer, types.int64
    sig = i64(i64, i64, i64, P(types.int8), P(i64), P(i64), P(i64), P(types.int32), i64, P(i64), P(i64), i64, P(i64))
    walk = njit(nogil=True)(follow)

    def entry(g, t, lo, kind, target, resume, start, stamp, walk_id, chain, ends, n, out):
        r = walk(g, t, lo, carray(kind, (n,)), carray(target, (n,)), carray(resume, (n,)), carray(start, (n,)),
                 carray(stamp, (n,)), walk_id, carray(chain, (n,)), carray(ends, (n,)))
        out[0], out[1], out[2], out[3] = r[0], r[1], r[2], 1 if r[3] else 0
        return 0

    return sig, entry


#: dtype of each array argument of :func:`follow`, by position
_DTYPES = {3: np.int8, 4: np.int64, 5: np.int64, 6: np.int64, 7: np.int32, 9: np.int64, 10: np.int64}


def _wrap(fn: Callable[..., int]) -> Callable[..., tuple[int, int, int, bool]]:
    """:func:`follow`'s signature over the library's entry point ``fn``. Raises ValueError, before the call, for an
    array of another dtype, not C-contiguous, or shorter than ``start`` (the caller then runs :func:`follow`)."""
    i64, ptr = ctypes.c_int64, ctypes.c_void_p

    def run(g, t, lo, kind, target, resume, start, stamp, walk_id, chain, ends):
        args = (g, t, lo, kind, target, resume, start, stamp, walk_id, chain, ends)
        n = len(start)
        for pos, dt in _DTYPES.items():
            a = args[pos]
            if a.dtype != dt or not a.flags.c_contiguous or len(a) < n:
                raise ValueError("the chain walk's arrays do not fit its library")
        out = np.zeros(4, dtype=np.int64)
        status = fn(i64(g), i64(t), i64(lo), *(ptr(a.ctypes.data) for a in (kind, target, resume, start, stamp)),
                    i64(walk_id), ptr(chain.ctypes.data), ptr(ends.ctypes.data), i64(n), ptr(out.ctypes.data))
        if status != 0:
            raise RuntimeError("the compiled chain walk raised")
        return int(out[0]), int(out[1]), int(out[2]), bool(out[3])

    return run


_compiled: Callable | None = None
_library: Callable | None = None
_library_tried = False


def follower(events: int) -> Callable:
    """:func:`follow`, compiled, for ``events`` ≥ :data:`JIT_WARM_MIN_EVENTS` when :data:`LIB` is already built
    (loading it costs ≈ 1 ms); else, for ``events`` ≥ :data:`JIT_MIN_EVENTS` (≥ :data:`JIT_WARM_MIN_EVENTS` when
    numba is already loaded, :func:`numba_loaded`), the library built now (once per version of its sources), else
    numba's entry point (cached on disk; compiled at its first call) when numba imports; else the plain function. A
    caller falls back to :func:`follow` when the compiled one raises (both check before changing anything)."""
    global _compiled, _library, _library_tried
    if events < JIT_WARM_MIN_EVENTS:
        return follow
    if _library is None and not _library_tried:
        fn = LIB.load()
        if fn is None and events >= (JIT_WARM_MIN_EVENTS if numba_loaded() else JIT_MIN_EVENTS):
            _library_tried = True
            fn = LIB.load_or_build(_ir)
        _library = _wrap(fn) if fn is not None else None
    if _library is not None:
        return _library
    if events < (JIT_WARM_MIN_EVENTS if numba_loaded() else JIT_MIN_EVENTS):
        return follow
    if _compiled is None:
        try:
            from numba import njit

            _compiled = njit(cache=True, nogil=True)(follow)
        except Exception:  # noqa: BLE001  (whatever numba raises: the plain loop gives the same result)
            _compiled = follow
    return _compiled
