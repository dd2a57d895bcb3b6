"""The Kineto byte scanner's Python side: one piece of a ``traceEvents`` array scanned into reused work matrices.

:func:`scan` (or :func:`scan_only` then :func:`scan_result`, when a worker thread scans ahead) runs the compiled
event kernel (:func:`._kineto_kernel._scan`, see :mod:`._kineto_kernel` for what it reads; the layout of its outputs
is :mod:`._kineto_layout`) over a piece's bytes and hands out its field × row matrices; :func:`release` gives them
back for later pieces once the piece's columns are made. :func:`check` loads and self-checks the scanner once per
process: the compiled library (:mod:`._kineto_native`, loaded without importing numba; built by numba the first
time, :mod:`._kineto_aot`), else numba's cached entry point (:data:`._kineto_kernel.scan_entry`).
:func:`gather` copies byte spans into a matrix.

The scanner is split by layer, each layer used through this module (:mod:`._kineto_fast`): :mod:`._kineto_layout`
(output layout and key tables, no numba), :mod:`._kineto_words` (numba setup, 8-byte word primitives),
:mod:`._kineto_lex` (the JSON grammar), :mod:`._kineto_kernel` (the event pass). The layout's names are importable
from here; this module imports numba only when the compiled library is not used.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from gpulens.collectors._kineto_layout import (  # noqa: F401  (the layout, importable from here)
    _ARG_KEYS, _SKIPPED_SET, _TOP_KEYS, ARG_TABLE, F, FALLBACK, FULL, H_CAT, H_CONC, H_DIMS, H_DIMSL, H_NAME,
    H_TYPES, MAX_DEPTH, NF, NH, NOUT, NT, OK, RING, SKIPPED, T_ABSENT, T_CATS, T_CONC, T_DIMS, T_ESCAPED, T_GOOD,
    T_NAMES, T_NULL, T_OTHER, T_SLOW, T_TYPES, TOP_TABLE)


class _Work(threading.local):
    """Per-thread work matrices of :func:`._kineto_kernel._scan`, reused from piece to piece (fresh ones would cost
    a page fault per 4 kB written): the rings, the interning tables and the outputs the next piece is scanned into.

    Row-major rings (one row of :data:`NF` cells per event, :data:`RING` rows): an event's cells share a few cache
    lines; with one matrix row per field each event touched ~80 pages (more than the L1 TLB holds) — 20 % slower.
    :func:`._kineto_kernel._scan` clears each row as it starts it and copies each full ring into the field-major
    outputs while it is in cache (:func:`._kineto_kernel._flush`): the outputs are handed out as they are
    (:func:`scan_result`) — a transposing copy of the whole piece after the scan was ~15 % of its time, clearing the
    rows after it ~9 %.

    Sized to the rows expected (1.25 × the last piece's, or the count of ``"ph"`` keys for the first piece), not to
    an upper bound: each field's row is written from its start, and with transparent huge pages a field row far
    longer than what is written would still become resident 2 MB at a time (an 8 MB piece made 80 MB resident)."""

    def __init__(self) -> None:
        self.cap = 0
        self.last = -1
        self.rings = (np.zeros((RING, NF), dtype=np.int64), np.zeros((RING, NH), dtype=np.uint64),
                      np.zeros((RING, 4), dtype=np.float64))
        self.out = _Outputs()

    def want(self, buf: Any, n: int) -> int:
        """Rows to provide for a piece of ``n`` bytes."""
        if self.last < 0:
            return max(16, bytes(buf).count(b'"ph"') + 1)
        return max(16, min(n // 8, self.last + self.last // 4 + 1024))

    def get(self, cap: int) -> tuple[np.ndarray, ...]:
        """(I, H, D, O, OD, slots, gs, ge, gh, gslot, ngroups) for ``cap`` rows: the rings, the outputs
        (:class:`_Outputs`) and the interning tables of :func:`._kineto_kernel._intern` (slots: a power of two
        ≥ 2 × rows, all -1 between pieces)."""
        if cap > self.cap or 2 * cap < self.cap:
            self.cap = cap
            cells = cap | 1
            size = 1 << (2 * cells - 1).bit_length()
            self.tables = (np.full((NT, size), -1, dtype=np.int64), np.zeros((NT, cells), dtype=np.int64),
                           np.zeros((NT, cells), dtype=np.int64), np.zeros((NT, cells), dtype=np.uint64),
                           np.zeros((NT, cells), dtype=np.int64), np.zeros(NT, dtype=np.int64))
        return self.rings + self.out.get(self.cap | 1) + self.tables


class _Outputs:
    """The field-major matrices the next piece is scanned into, (O, OD) of ``cells`` rows: a plain object held by
    one thread's :class:`_Work`. :func:`scan_result` — on the thread that takes the piece — hands them out and
    forgets them; the next scan takes a pair from :data:`_POOL` (given back by :func:`release` once the piece's
    columns are made), so that pieces reuse memory already touched instead of page-faulting fresh matrices in."""

    def __init__(self) -> None:
        self.mats: tuple[np.ndarray, np.ndarray] | None = None

    def get(self, cells: int) -> tuple[np.ndarray, np.ndarray]:
        if self.mats is None or self.mats[0].shape[1] != cells:
            self.mats = _POOL.take(cells) or (np.empty((NOUT, cells), dtype=np.int64),
                                              np.empty((4, cells), dtype=np.float64))
        return self.mats

    def hand_out(self) -> None:
        """The matrices now belong to a piece: the next scan gets others (:meth:`get`)."""
        self.mats = None


class _Pool:
    """Output matrices of pieces that were read, for the next scans (thread-safe: a worker thread may scan ahead).
    At most :attr:`SIZE` pairs are kept; a pair of another size than asked is dropped when met."""

    SIZE = 2

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[tuple[np.ndarray, np.ndarray]] = []

    def take(self, cells: int) -> tuple[np.ndarray, np.ndarray] | None:
        """A kept pair of ``cells`` columns, or None."""
        with self._lock:
            while self._free:
                mats = self._free.pop()
                if mats[0].shape[1] == cells:
                    return mats
        return None

    def give(self, mats: tuple[np.ndarray, np.ndarray]) -> None:
        """Keep ``mats`` (no longer read by anyone) for a later scan."""
        with self._lock:
            if len(self._free) < self.SIZE and all(m is not mats[0] for m, _ in self._free):
                self._free.append(mats)


_POOL = _Pool()


def release(I: np.ndarray, D: np.ndarray) -> None:
    """Give the matrices behind a piece's ``I`` and ``D`` (:func:`scan`'s views) back for later scans; the caller
    must read neither again, nor any view of them. Arrays that are not such views (an empty fallback result, a
    copy) are ignored."""
    O, OD = I.base, D.base
    if isinstance(O, np.ndarray) and isinstance(OD, np.ndarray) and O.shape[0] == NOUT and OD.shape[0] == 4 \
            and O.shape[1] == OD.shape[1] and O.base is None and OD.base is None:
        _POOL.give((O, OD))


_WORK = _Work()


#: the scan itself, ``(arr, work, stack, seen, tseen, mask) -> (status, rows)``: the compiled library's entry point
#: (:mod:`._kineto_native`) or numba's (:func:`_numba_entry`); set by :func:`check`
_SCAN: Any = None


def _run(arr: np.ndarray, work: tuple, framed: bool = False) -> tuple[int, int]:
    """:func:`._kineto_kernel._scan` of the bytes ``arr`` into the work matrices ``work`` (:meth:`_Work.get`):
    (status, rows); ``framed``: ``arr`` is a piece of the stream's buffer in place (:func:`scan`). Its scratch arrays are made here (the scan, compiled without the NRT, allocates nothing): the
    container stack of :func:`._kineto_lex._skip`, one flag per args key and per top-level key seen in the current
    event."""
    stack = np.zeros(MAX_DEPTH + 1, dtype=np.uint8)
    seen, tseen = np.zeros(len(_ARG_KEYS), dtype=np.bool_), np.zeros(len(_TOP_KEYS), dtype=np.bool_)
    return (_SCAN or _numba_entry())(arr, work, stack, seen, tseen, HASH_MASK, framed)


def _numba_entry():
    """numba's cached entry point (:data:`._kineto_kernel.scan_entry`) as a ``_SCAN`` function: numba imported,
    the kernel compiled or loaded from numba's cache."""
    from gpulens.collectors._kineto_kernel import scan_entry

    def run(arr, work, stack, seen, tseen, mask, framed=False):
        return scan_entry(arr, *work[:5], *TOP_TABLE, *ARG_TABLE, _SKIPPED_SET, stack, seen, tseen, *work[5:], mask,
                          bool(framed))

    return run


def _native_entry():
    """The compiled library's entry point as a ``_SCAN`` function (:mod:`._kineto_native`): loaded when built for
    these sources, else built first (:func:`._kineto_aot.build`: numba compiles it, once per version of the
    sources; not again after a failed build); None when the library is turned off or cannot be built or loaded
    here."""
    from gpulens.collectors import _kineto_native as N

    fn = N.load()
    if fn is None and N.enabled() and not N.build_failed():
        try:
            from gpulens.collectors._kineto_aot import build

            fn = N.open_library(build())
        except Exception:  # noqa: BLE001  (no compiler, numba or llvmlite; a read-only install: numba's entry point)
            fn = None
    return N.wrap(fn) if fn is not None else None


_PROBE = (b'[{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1.5, "dur": 2, "args": {'
          b'"correlation": 7, "grid": [1, 2, 3], "flops": 1.5, "Input Dims": [[1]], "kind": "a"}}]')
_checked = False


def check() -> None:
    """Load the scanner — the compiled library (:func:`_native_entry`), else numba's entry point, compiled or
    loaded from numba's cache — and scan one known event, once per process; raises whatever numba raises when it
    cannot (:func:`gpulens.collectors._kineto_fast._available` then leaves every piece to msgspec), RuntimeError
    when the event is read wrong. A library that misreads it is dropped for numba's entry point (checked in turn).
    Uses work matrices of its own: the per-thread ones size themselves by the last piece."""
    global _checked, _SCAN
    if _checked:
        return
    native = _native_entry()
    for scan in ((native,) if native is not None else ()) + (None,):
        _SCAN = scan if scan is not None else _numba_entry()
        arr = np.frombuffer(bytearray(_PROBE), dtype=np.uint8)  # writable, as the stream's pieces: one version
        work = _Work().get(16)
        try:
            status, rows = _run(arr, work)
        except (RuntimeError, ValueError):
            if scan is None:
                raise
            continue
        I, D = work[3][:, :rows], work[4][:, :rows]
        g = gather(arr, I[F["KIND_S"]], I[F["KIND_E"]], 1)
        if (status, rows, I[F["TS_V"], 0], I[F["CORR_V"], 0], I[F["GRID_Z"], 0], D[0, 0], g[0, 0]) == (
                OK, 1, 1500, 7, 3, 1.5, ord("a")):
            _checked = True
            return
    _SCAN = None
    raise RuntimeError("the Kineto scanner misread its self-check event")


#: the hash bits the interning tables use: all but in tests (0 makes every text collide, see
#: :func:`._kineto_kernel._intern`)
HASH_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def scan(buf: bytes | bytearray | memoryview) -> tuple[int, np.ndarray, np.ndarray, list]:
    """Scan a JSON array of events (bytes): :func:`scan_only` then :func:`scan_result`.

    A :class:`memoryview` is a piece of the stream's buffer in place (:func:`._stream.stream_pieces`, a reader that
    takes views): its first byte (``[`` or ``,``) stands for ``[`` and its last for ``]``, whatever they are
    (:func:`._kineto_kernel._scan`, ``framed``); any other buffer is a whole JSON array.

    Returns:
        (status, I, D, texts): :data:`OK` with, per ``X`` event in file order, ``I`` (int64, the first :data:`NOUT`
        fields × rows; ``NAME_G``/``CAT_G``/``TEXT_DIMS_G``/``TYPES_G``: the row's group in interning table
        ``T_NAMES``/``T_CATS``/``T_DIMS``/``T_TYPES``, -1 for none), ``D`` (float64, the 4 float args ``flops``,
        ``blocks per SM``, ``warps per SM``, ``est. achieved occupancy %`` × rows, valid where their type is
        T_GOOD) and ``texts`` (per table, (start, end) byte offsets of each group's text, by group number — groups
        are numbered in order of first appearance); or :data:`FALLBACK` (empty arrays) when the piece must be read
        by msgspec. ``I`` and ``D`` are views of the first ``rows`` columns of wider matrices (each field's cells
        contiguous).
    """
    return scan_result(scan_only(buf))


def scan_only(buf: bytes | bytearray | memoryview) -> tuple:
    """The scan itself, into this thread's work matrices (no memory allocated here but when a piece outgrows
    them, see :class:`_Outputs`): (status, rows, work matrices, their outputs' holder) for :func:`scan_result`,
    which must run before this thread scans again."""
    arr = np.frombuffer(buf, dtype=np.uint8)
    cap = _WORK.want(buf, len(arr))
    framed = isinstance(buf, memoryview)
    while True:
        work = _WORK.get(cap)
        status, rows = _run(arr, work, framed)
        if status != FULL:
            if status == OK:
                _WORK.last = rows
            return status, rows, work, _WORK.out
        _clear(work, rows)
        cap = 2 * work[3].shape[1]


def _clear(work: tuple, rows: int) -> None:
    """Reset the interning tables a scan wrote (:func:`._kineto_kernel._scan` clears each ring row as it starts it)."""
    slots, gs, ge, gh, gslot, ng = work[5:]
    for t in range(NT):
        slots[t, gslot[t, :ng[t]]] = -1
    ng[:] = 0


def scan_result(scanned: tuple) -> tuple[int, np.ndarray, np.ndarray, list]:
    """:func:`scan`'s result from :func:`scan_only`'s: the outputs handed out (the scanning thread's next piece
    takes others, see :class:`_Outputs`; :func:`release` gives them back), the group spans copied; the interning
    tables are then cleared."""
    status, rows, work, holder = scanned
    O, OD, gs, ge, ng = work[3], work[4], work[6], work[7], work[10]
    if status == OK:
        out = (O[:, :rows], OD[:, :rows], [(gs[t, :ng[t]].copy(), ge[t, :ng[t]].copy()) for t in range(NT)])
        holder.hand_out()
    _clear(work, rows)
    if status != OK:
        return FALLBACK, np.zeros((NOUT, 0), dtype=np.int64), np.zeros((4, 0)), []
    return (OK,) + out


def gather(buf: np.ndarray, s: np.ndarray, e: np.ndarray, width: int) -> np.ndarray:
    """The spans ``buf[s[i]:e[i]]`` (uint8 array, int64 bounds) as rows of a zero-padded (len(s), width) byte
    matrix."""
    s, e = np.asarray(s, dtype=np.int64), np.asarray(e, dtype=np.int64)
    at = s[:, None] + np.arange(width, dtype=np.int64)
    inside = at < e[:, None]
    out = np.zeros((len(s), width), dtype=np.uint8)
    out[inside] = buf[at[inside]]
    return out
