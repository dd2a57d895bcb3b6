"""The Kineto byte scanner as a compiled shared library, loaded without numba.

Importing numba and loading its cached scanner costs ≈ 0.5 s CPU in every process that reads a large trace
(measured, fortieth session: ``import numba`` 0.16–0.21 s, loading and self-checking the cached kernel 0.32 s — most
of it numba's own modules and its BLAS probe importing ``scipy.linalg``), more than the whole scan of a 120 MB trace.
So the kernel (:func:`._kineto_kernel._scan`, unchanged) is compiled once by numba into a plain shared library
(:mod:`._kineto_aot`: numba compiles, llvmlite emits position-independent machine code for the architecture's
baseline CPU, the system C compiler links it) and later processes load that file with :mod:`ctypes` — numba is not
imported at all. ctypes releases the GIL during the call, as the numba entry point does (``nogil``), so a worker
thread still scans beside the main thread.

The library's file name holds :func:`digest`: SHA-256 of every source compiled into it (layout, word primitives,
grammar, kernel, the builder and this loader, then the generic loader and builder :mod:`gpulens._native` and
:mod:`gpulens._native_build`, which the critical path's chain walk shares), so an edit to any of them builds a new
library instead of loading the old code — as the numba cache key does (:func:`._kineto_kernel.sources_digest`). It is
looked for in, and written to, the first usable of :func:`cache_dirs`. Anything missing (no C compiler, numba, llvmlite; a read-only install; not
Linux or macOS) leaves the numba entry point in use, as before (:func:`gpulens.collectors._kineto_scan.check`).
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any, Callable

import numpy as np

from gpulens._native import Library, files_digest, sources_digest  # noqa: F401  (files_digest: numba's cache key)
from gpulens.collectors import _kineto_layout as L

#: the C symbol of the library's entry point (see :func:`call`)
SYMBOL = "gpulens_kineto_scan"
#: the environment variable that turns the library off (``0``): the numba entry point is used, as before
ENV = "GPULENS_KINETO_NATIVE"
_HERE = Path(__file__).resolve().parent
#: the source files compiled into the library, in the order they are hashed (:func:`digest`, then the generic
#: loader and builder, :data:`gpulens._native.GENERIC_SOURCES`)
SOURCES = ("_kineto_layout.py", "_kineto_words.py", "_kineto_lex.py", "_kineto_kernel.py", "_kineto_aot.py",
           "_kineto_native.py")
#: the scanner's library (:class:`gpulens._native.Library`)
LIB = Library("kineto_scan", SYMBOL, ENV, tuple(_HERE / f for f in SOURCES))


def enabled() -> bool:
    """Whether the library may be used (:meth:`gpulens._native.Library.enabled`)."""
    return LIB.enabled()


def digest(files: tuple[str, ...] | None = None, where: Path = _HERE) -> str:
    """:func:`gpulens._native.sources_digest` of ``files`` (in ``where``); by default the library's own digest
    (its sources, then the generic loader and builder)."""
    return LIB.digest() if files is None else sources_digest(where / name for name in files)


def library_name() -> str:
    """The library's file name (:meth:`gpulens._native.Library.name`)."""
    return LIB.name()


def cache_dirs() -> list[Path]:
    """Where the library is looked for and written to (:func:`gpulens._native.cache_dirs`: ``$NUMBA_CACHE_DIR``,
    this package's ``__pycache__``, the user's cache folder)."""
    return LIB.cache_dirs()


def find() -> Path | None:
    """The library built for these sources, when one exists in :func:`cache_dirs`."""
    return LIB.find(cache_dirs())


def failed_marker(folder: Path) -> Path:
    """The file a failed build of this library leaves in ``folder`` (:func:`._kineto_aot.build`)."""
    return LIB.failed_marker(folder)


def build_failed() -> bool:
    """Whether a build of this library failed before, in any of :func:`cache_dirs`: not tried again (numba's entry
    point is used) until the sources change (another name) or the marker is removed."""
    return LIB.build_failed(cache_dirs())


def open_library(path: Path) -> Callable[..., int]:
    """The entry point of the library at ``path`` (raises OSError / AttributeError when it cannot be loaded)."""
    return LIB.open(path)


def load() -> Callable[..., int] | None:
    """The entry point of the library built for these sources, or None when there is none (or it cannot be
    loaded: a damaged file is built again by the caller)."""
    return LIB.load(cache_dirs())


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    if not a.flags.c_contiguous:
        raise ValueError("the scanner's arrays must be C-contiguous")
    return ctypes.c_void_p(a.ctypes.data)


_I64 = ctypes.c_int64


def call(fn: Callable[..., int], arr: np.ndarray, work: tuple, stack: np.ndarray, seen: np.ndarray,
         tseen: np.ndarray, mask: np.uint64, framed: bool = False) -> tuple[int, int]:
    """:func:`._kineto_kernel._scan` of the bytes ``arr`` through the library's entry point ``fn``, with the
    arguments :func:`gpulens.collectors._kineto_scan._run` passes to the numba entry point: (status, rows).

    The C signature (:func:`._kineto_aot.build` writes the matching one): the buffer and its length; the rings
    ``I``, ``H``, ``D``; the outputs ``O``, ``OD`` and their columns; the top-level and args key tables (4 arrays
    each); the skipped-phase set; the scratch ``stack``, ``seen``, ``tseen``; the interning tables (``slots``,
    ``gs``, ``ge``, ``gh``, ``gslot``, ``ngroups``), the columns of ``slots`` and of the others; the hash mask;
    ``framed`` (1: ``arr`` is a piece of the stream's buffer in place, its first and last bytes standing for ``[``
    and ``]``, see :func:`._kineto_kernel._scan`); a one-cell int64 array for the rows. Every array is passed by address: its shape is fixed by the layout
    (:mod:`._kineto_layout`) or by the three column counts given. Returns -1 when the compiled code raised (never
    expected: the scan raises nothing) — reported here as RuntimeError."""
    I, H, D, O, OD, slots, gs, ge, gh, gslot, ng = work
    for a, shape in ((I, (L.RING, L.NF)), (H, (L.RING, L.NH)), (D, (L.RING, 4)), (O, (L.NOUT, O.shape[1])),
                     (OD, (4, O.shape[1])), (slots, (L.NT, slots.shape[1])), (gs, (L.NT, gs.shape[1])),
                     (ge, gs.shape), (gh, gs.shape), (gslot, gs.shape), (ng, (L.NT,)),
                     (stack, (L.MAX_DEPTH + 1,)), (seen, (len(L._ARG_KEYS),)), (tseen, (len(L._TOP_KEYS),))):
        if a.shape != shape:
            raise ValueError(f"scanner array of shape {a.shape}, not {shape}")
    rows = np.zeros(1, dtype=np.int64)
    status = fn(_ptr(arr), _I64(len(arr)), _ptr(I), _ptr(H), _ptr(D), _ptr(O), _ptr(OD), _I64(O.shape[1]),
                *map(_ptr, L.TOP_TABLE), *map(_ptr, L.ARG_TABLE), _ptr(L._SKIPPED_SET), _ptr(stack), _ptr(seen),
                _ptr(tseen), _ptr(slots), _ptr(gs), _ptr(ge), _ptr(gh), _ptr(gslot), _ptr(ng),
                _I64(slots.shape[1]), _I64(gs.shape[1]), ctypes.c_uint64(int(mask)), _I64(int(framed)),
                _ptr(rows))
    if status < 0:
        raise RuntimeError("the compiled Kineto scanner raised")
    return int(status), int(rows[0])


def wrap(fn: Callable[..., int]) -> Callable[..., tuple[int, int]]:
    """``run(arr, work, stack, seen, tseen, mask, framed)`` over the entry point ``fn`` (:func:`call`)."""
    def run(arr: np.ndarray, work: tuple, stack: np.ndarray, seen: np.ndarray, tseen: np.ndarray,
            mask: Any, framed: bool = False) -> tuple[int, int]:
        return call(fn, arr, work, stack, seen, tseen, mask, framed)

    return run
