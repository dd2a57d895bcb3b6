"""The Kineto loader's native-speed path: a piece of the ``traceEvents`` array read straight from its bytes.

:func:`read_piece` runs the numba scanner (:mod:`._kineto_scan`) over one piece and, when it can read the piece with
certainty, returns a :class:`ScannedPiece`; :meth:`Accumulator.add <._kineto_acc.Accumulator.add>` turns its
:class:`ScannedRows` into exactly the columns and side effects the msgspec path (:class:`._kineto_rows.EventRows`)
gives for the same events — the same column builder reads both. Anything it does not read with certainty returns
None and the piece is decoded by msgspec as before: events of phases other than ``X`` and the skipped ones (``M``,
``B``/``E``, ``i``), escapes or non-ASCII bytes outside ``name``/``cat``, duplicate keys, ids that are not int64
integer literals (strings, floats, booleans, 2^64), non-number ``flops``/occupancy values, collective args,
``kernel_details``, a GPU row's ``kind`` arg that is no plain string, and the other Chrome-trace dialects' args it
has no field for (:func:`_dialect_args`: events without a category, TensorFlow ``Op`` events, ONNX Runtime's
per-axis launch args).

Strings are interned without a Python object per event, in the scan itself (:func:`._kineto_scan._intern`): each
``name``/``cat`` content and raw ``Input Dims``/``Input type`` text is looked up by a 64-bit hash in a per-piece
table and compared (8 bytes at a time) with its group's first text while it is still in cache (two texts of one hash
never merge: they are two groups); one text per group is decoded (plain ASCII directly; escapes by msgspec) and
encoded in the accumulator's dictionaries in order of first appearance, as ``Dictionary.encode`` does.

When it is used (:func:`piece_reader`): ``fast=True``/``False`` (``KinetoCollector.collect(..., fast=)``), else the
environment variable ``GPULENS_KINETO_FAST`` (``1`` on, ``0`` off), else automatically for files of at least
:data:`AUTO_MIN_BYTES` (decompressed size estimated as 8× a gzip file's size), or of at least :data:`NATIVE_MIN_BYTES`
when the scanner's compiled library is already built (:func:`_library_ready`): below those, importing numba (or
building the library, once) — or, with the library, loading it — costs more than the scanner saves. Without numba, or when numba fails to import or compile the
scanner (any exception, :func:`_available`), the msgspec path is used silently.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable

import msgspec
import numpy as np

from gpulens.collectors._kineto_columns import Dictionary, us_text_to_ns

ENV = "GPULENS_KINETO_FAST"
#: ``2`` / ``1``: scan a second piece on a worker thread while the first is read, or not (see
#: :meth:`piece_reader.wanted`); unset or another value: two threads in a process that keeps freed C-heap blocks for
#: reuse (the command line, :mod:`gpulens._memory`) and is not a pool worker, else one. Measured on a 2-core machine
#: (1M-kernel trace, ``gpulens analyze --no-cache --json``, alternated pairs, nineteenth session): with freed blocks
#: kept, two threads 11.8–12.3 s wall / 13.7–14.2 s CPU against one thread's 14.1–14.3 s wall / 14.3–14.6 s CPU, the
#: same peak. Without that policy (a program importing gpulens), the second thread's fresh pages cost more than it
#: overlapped (sixteenth session: 19.3–23.0 s wall / 23.0–25.5 s CPU against 20.1–20.3 / 20.3–20.5 s): one thread.
THREADS_ENV = "GPULENS_KINETO_THREADS"
#: bytes of trace text from which the scanner is used when not forced and its compiled library is not built yet (so
#: numba is imported, ≈ 0.47 s, or the library built, once). Measured (session 15, 2 shared cores, CPU of
#: ``collect()`` in a fresh process, 3 runs each, scanner vs msgspec): 24.6 MB +0.33 s, 30.8 MB +0.24 s, 123 MB
#: −0.46 s — break-even ≈ 63 MB, so from 64 MiB on
AUTO_MIN_BYTES = 64 << 20
#: bytes of trace text from which the scanner is used when its compiled library is built for these sources
#: (:func:`_library_ready`: loading it and the self-check cost ≈ 7 ms, no numba). Measured (session 44, 2 shared cores
#: at load 8–10, CPU of ``collect()`` after the imports, 5 alternated pairs, medians, msgspec → scanner): 3.1 MB
#: 0.191 → 0.197 s, 6.3 MB 0.248 → 0.283 s, 9.4 MB 0.318 → 0.232 s, 12.6 MB 0.354 → 0.261 s, 31.5 MB (one rank of
#: ``benchmarks/gen_kineto.py --ranks 8 --kernels 25000``) 0.69 → 0.47 s: break-even between 6.3 and 9.4 MB, so from
#: 8 MiB on
NATIVE_MIN_BYTES = 8 << 20
_GZIP_RATIO = 8
_GPU_CATEGORIES: Any = None
_CATEGORY_KEY: Any = None


def wanted(force: bool | None, size_bytes: int, compressed: bool) -> bool:
    """Whether to try the scanner for a file of ``size_bytes`` on disk (see the module docstring)."""
    if force is not None:
        return bool(force)
    env = os.environ.get(ENV, "").strip()
    if env in ("0", "1"):
        return env == "1"
    size = size_bytes * (_GZIP_RATIO if compressed else 1)
    return size >= AUTO_MIN_BYTES or (size >= NATIVE_MIN_BYTES and _library_ready())


def _library_ready() -> bool:
    """Whether the scanner's compiled library is turned on and built for these sources
    (:func:`._kineto_native.find`): using the scanner then imports no numba and builds nothing."""
    try:
        from gpulens.collectors import _kineto_native as N

        return N.enabled() and N.find() is not None
    except Exception:  # noqa: BLE001  (an unusable cache folder: as if not built)
        return False


class piece_reader:  # noqa: N801  (used as a function)
    """A piece decoder for :func:`gpulens.collectors._stream.stream_pieces`: the scanner's :class:`ScannedPiece`
    when it is wanted (:func:`wanted`, decided at the first piece, when ``info.size_bytes`` is known), numba imports
    and the piece is read with certainty; ``decode(piece)`` otherwise (which raises msgspec errors as before).

    It is also the stream's ``ahead`` reader: with the scanner on and two CPUs, :meth:`read_ahead` scans a second
    piece on a worker thread (the scanner releases the GIL) while the first is read.

    It reads the stream's pieces in place (:attr:`takes_views`): a piece handed over as a :class:`memoryview` of the
    stream's buffer (its first and last bytes standing for ``[`` and ``]``) is scanned there, and copied into a JSON
    array of its own (:func:`._stream.framed_copy`) only when ``decode`` must read it.

    Attributes:
        scanned, decoded: pieces read by the scanner / handed to ``decode`` so far.
    """

    #: the stream hands pieces over as views of its buffer (:func:`gpulens.collectors._stream.stream_pieces`)
    takes_views = True

    def __init__(self, decode: Callable[[Any], Any], info: Any, force: bool | None = None) -> None:
        self.decode, self.info, self.force = decode, info, force
        self.on: bool | None = None
        self.scanned = self.decoded = 0
        self._lock = threading.Lock()
        self._refused: Any = None  # the last piece read_ahead could not read: not scanned again by __call__

    def __call__(self, buf: Any) -> Any:
        if self.on is None:
            self.on = wanted(self.force, self.info.size_bytes, self.info.compressed) and _available()
        if self.on and buf is not self._refused:
            got = read_piece(buf)
            if got is not None:
                with self._lock:
                    self.scanned += 1
                return got
        if buf is self._refused:
            self._refused = None
        self.decoded += 1
        if isinstance(buf, memoryview):  # decoded Raw values keep their text: a copy, not the stream's buffer
            from gpulens.collectors._stream import framed_copy

            buf = framed_copy(buf)
        return self.decode(buf)

    def wanted(self) -> bool:
        """Whether a second piece should be scanned on a worker thread: the scanner is on, two CPUs are ours, and
        the environment variable :data:`THREADS_ENV` asks for it (``2``) or, unset, this process keeps freed memory
        for reuse (:func:`gpulens._memory.keeping_freed_memory`: the command line) and is not a worker of a process
        pool (each worker of a pool already has a CPU of its own)."""
        if not self.on:
            return False
        choice = os.environ.get(THREADS_ENV, "").strip()
        if choice == "1":
            return False
        if choice != "2":
            import multiprocessing

            from gpulens._memory import keeping_freed_memory

            if not keeping_freed_memory() or multiprocessing.parent_process() is not None:
                return False
        try:
            cpus = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            cpus = os.cpu_count() or 1
        return cpus >= 2

    def read_ahead(self, buf: Any) -> Any:
        """Thread-safe, on the worker thread: the scan of ``buf`` (:func:`._kineto_scan.scan`: its outputs handed
        out there, so that the worker may scan the next piece before this one is taken); :meth:`result` (on the
        calling thread: the Python objects are made there) gives the piece."""
        from gpulens.collectors import _kineto_scan as S

        return S.scan(buf)

    def drop(self, scanned: Any) -> None:
        """Forget what :meth:`read_ahead` scanned (its piece is cut again): its outputs are given back
        (:func:`._kineto_scan.release`)."""
        from gpulens.collectors import _kineto_scan as S

        _, I, D, _ = scanned
        S.release(I, D)

    def result(self, buf: Any, scanned: Any) -> Any:
        """The piece :meth:`read_ahead` scanned, or None (then ``self(buf)`` decodes it without scanning it
        again)."""
        got = read_piece(buf, scanned)
        if got is None:
            self._refused = buf
            return None
        with self._lock:
            self.scanned += 1
        return got


def _available() -> bool:
    """Whether the scanner can be used: numba imports and compiles it (or loads it from its cache) and it reads its
    self-check event right (:func:`._kineto_scan.check`). Any exception there — ImportError without numba, a numba
    that rejects an option or fails to compile — leaves every piece to msgspec."""
    try:
        import importlib

        importlib.import_module("gpulens.collectors._kineto_scan").check()  # imported anew when not in sys.modules
    except Exception:  # noqa: BLE001  (whatever numba raises: the msgspec path reads the same)
        return False
    return True


class _Fallback(Exception):
    """The piece cannot be read with certainty."""


def _strings(data: bytes, I: np.ndarray, gcol: int, spans: tuple):
    """A name/cat field: (decoded value per group, group per row or -1) from the scanner's interning (its groups
    are numbered in order of first appearance, each group's first row gives the text)."""
    values = []
    for a, b in zip(spans[0].tolist(), spans[1].tolist()):
        text = bytes(data[a:b])
        if text.isascii() and b"\\" not in text:
            values.append(text.decode("ascii"))
        else:  # escapes or non-ASCII bytes (T_ESCAPED): decoded as msgspec decodes them
            try:
                v = msgspec.json.decode(data[a - 1:b + 1])
            except msgspec.DecodeError:
                raise _Fallback from None
            values.append(v)
    return values, I[gcol]


class ScannedPiece:
    """One piece read by the scanner: its bytes, the per-row fields, the names and categories grouped.

    Attributes:
        data: the piece's bytes (the stream's bytearray or a view of its buffer, not a copy); I, D: the scanner's field and float matrices (one row per field, one column per
        ``X`` event in file order), texts: the spans of its interned texts' groups (see
        :func:`._kineto_scan.scan`); names, cats: (decoded value per group, group per event or -1).
    """

    def __init__(self, data: bytes, I: np.ndarray, D: np.ndarray, texts: list, names: tuple, cats: tuple) -> None:
        self.data, self.I, self.D, self.texts, self.names, self.cats = data, I, D, texts, names, cats

    def rows(self) -> "ScannedRows":
        """The row source for :meth:`gpulens.collectors._kineto_acc.Accumulator.add`."""
        return ScannedRows(self)

    def release(self) -> None:
        """Hand the scanner's matrices back for the next pieces (:func:`._kineto_scan.release`) once the columns
        of this piece are made (they copy what they keep): ``I`` and ``D`` are empty afterwards, and a second call
        does nothing."""
        from gpulens.collectors import _kineto_scan as S

        S.release(self.I, self.D)
        self.I, self.D = self.I[:, :0].copy(), self.D[:, :0].copy()


#: fields whose values are read on every row / on GPU rows only: any value of another type sends the piece to msgspec
_READ_ALL = ("CORR_T", "EXT_T", "EXTL_T", "REGS_T", "SMEM_T", "RANK_T", "RANKC_T", "GRID_T", "BLOCK_T", "FLOPS_T")
_READ_GPU = ("DEV_T", "STREAM_T", "BYTES_T", "BPS_T", "WPS_T", "OCC_T", "KIND_T")
#: fields whose presence (a T_GOOD value: collective args, ``kernel_details``, ``memcpy_details``) sends the piece to
#: msgspec
_NOT_READ = ("COLL_T", "KD_T", "MD_T")


def read_piece(buf: Any, scanned: Any = None) -> ScannedPiece | None:
    """Scan one JSON array of events; None when the piece must be decoded by msgspec (module docstring).
    ``scanned``: :func:`._kineto_scan.scan`'s result for ``buf`` when it was scanned on another thread."""
    from gpulens.collectors import _kineto_scan as S

    global _GPU_CATEGORIES, _CATEGORY_KEY
    if _GPU_CATEGORIES is None:
        from gpulens.collectors._kineto_kinds import GPU_CATEGORIES, category_key

        _GPU_CATEGORIES, _CATEGORY_KEY = GPU_CATEGORIES, category_key
    status, I, D, texts = S.scan(buf) if scanned is None else scanned
    if status != S.OK:
        return None
    piece = _certain(buf, I, D, texts)
    if piece is None:
        S.release(I, D)
    return piece


def _certain(buf: Any, I: np.ndarray, D: np.ndarray, texts: list) -> ScannedPiece | None:
    """:func:`read_piece`'s piece from a scan that succeeded, or None when a value it holds is not read with
    certainty (module docstring)."""
    from gpulens.collectors import _kineto_scan as S

    # the piece itself, not a copy (8 MiB a piece: 1.2 GB of copies at 1M kernels): the stream never changes a piece
    # (a view of its buffer, or a bytearray of its own) while it is read; the few texts taken from it are made bytes
    data = buf if isinstance(buf, (bytes, bytearray, memoryview)) else bytes(buf)
    F = S.F
    try:
        names = _strings(data, I, F["NAME_G"], texts[S.T_NAMES])
        cats = _strings(data, I, F["CAT_G"], texts[S.T_CATS])
    except _Fallback:
        return None
    if not all(isinstance(v, str) for v in names[0] + cats[0]):
        return None
    if _holds(I, _field_rows(_READ_ALL), S.T_OTHER) or _holds(I, _field_rows(_NOT_READ), S.T_GOOD):
        return None
    if _dialect_args(data, cats):
        return None
    gpu_cat = np.array([_CATEGORY_KEY(v) in _GPU_CATEGORIES for v in cats[0]] + [False], dtype=bool)
    gpu = gpu_cat[cats[1]]
    if gpu.any() and _holds(I, _field_rows(_READ_GPU), S.T_OTHER, gpu):
        return None
    return ScannedPiece(data, I, D, texts, names, cats)


#: capitalised categories of ONNX Runtime (``Kernel``), PaddlePaddle (``Kernel``, ``CudaRuntime``, ``Memcpy``,
#: ``Memset``, ``Operator``) and the 2021 Kineto schema (``Kernel``, ``Runtime``, ``Memcpy``, ``Memset``)
_OTHER_SCHEMA_CATS = frozenset({"Kernel", "CudaRuntime", "Runtime", "Memcpy", "Memset", "Operator"})


def _dialect_args(data: Any, cats: tuple) -> bool:
    """Whether the piece may hold args the scanner has no field for but the msgspec path reads
    (:mod:`._dialect_place`, :class:`._kineto_rows.EventRows`): events without a category (rpd2tracing's ``desc``,
    XLA's), a TensorFlow timeline's ``Op`` events (``kernel``: the kernel's name on ROCm), ONNX Runtime's ``Kernel``
    events with one launch arg per axis (``grid_x`` …), PaddlePaddle's ``correlation id``. Read from the piece's few
    categories; the bytes are searched only in a piece with categories of those producers
    (:data:`_OTHER_SCHEMA_CATS`), never in a Kineto trace of today's schema."""
    if (cats[1] < 0).any() or any(c.lower() in ("", "op") for c in cats[0]):
        return True
    if not any(c in _OTHER_SCHEMA_CATS for c in cats[0]):
        return False
    raw = data if isinstance(data, (bytes, bytearray)) else bytes(data)
    return raw.find(b'"grid_x"') >= 0 or raw.find(b'"correlation id"') >= 0


_ROWS: dict[tuple[str, ...], tuple[int, ...]] = {}


def _field_rows(fields: tuple[str, ...]) -> tuple[int, ...]:
    """The rows of the scanner's field matrix that hold ``fields`` (:data:`._kineto_layout.F`)."""
    got = _ROWS.get(fields)
    if got is None:
        from gpulens.collectors._kineto_layout import F

        got = _ROWS[fields] = tuple(F[f] for f in fields)
    return got


def _holds(I: np.ndarray, rows: tuple[int, ...], value: int, where: np.ndarray | None = None) -> bool:
    """Whether a row ``rows`` of the scanner's field matrix ``I`` holds ``value`` (in a column where ``where`` is
    True, when given). One comparison per field on the matrix's own row (a view), stopping at the first hit, not
    one comparison of the ~20 fields gathered into a copy: that copy and its comparison cost ~2.1 ms a 16 MiB piece
    against ~0.65 ms (session 49, a 40,000-event piece; 0.24 s of :func:`_certain` per 1M-kernel load)."""
    hit = None
    for r in rows:
        eq = I[r] == value
        if where is None:
            if eq.any():
                return True
        else:
            hit = eq if hit is None else np.logical_or(hit, eq, out=hit)
    return hit is not None and bool(np.logical_and(hit, where, out=hit).any())


_IDS = {"pid": "PID", "tid": "TID", "correlation": "CORR", "external_id": "EXT", "device": "DEV",
        "stream": "STREAM", "registers": "REGS", "shared_memory": "SMEM", "bytes": "BYTES", "rank": "RANK",
        "rank_comms": "RANKC"}
_FLOATS = {"flops": 0, "blocks_per_sm": 1, "warps_per_sm": 2, "est_occupancy": 3}
_FLOAT_FIELDS = ("FLOPS", "BPS", "WPS", "OCC")


class ScannedRows:
    """The row source of a :class:`ScannedPiece`, with the calls of :class:`._kineto_rows.EventRows` (see there);
    ``rows`` index the kept rows (GPU rows included: ``gpu`` changes nothing here)."""

    def __init__(self, piece: ScannedPiece) -> None:
        from gpulens.collectors import _kineto_scan as S

        self.S, self.F = S, S.F
        self.data, self.I, self.D, self.texts = piece.data, piece.I, piece.D, piece.texts
        self.arr = np.frombuffer(self.data, dtype=np.uint8)
        self._names, self._cats = piece.names, piece.cats
        self.n = self.I.shape[1]

    def _f(self, name: str, rows: Any = None) -> np.ndarray:
        """One field of all kept rows (or of ``rows``)."""
        v = self.I[self.F[name]]
        return v if rows is None else v[rows]

    @staticmethod
    def _codes(dictionary: Dictionary, groups: tuple) -> np.ndarray:
        values, gid = groups
        table = np.array([dictionary.code(v) for v in values] + [-1], dtype=np.int32)
        return table[gid]

    def name_codes(self, names: Dictionary) -> np.ndarray:
        return self._codes(names, self._names)

    def cat_codes(self, cats: Dictionary) -> np.ndarray:
        return self._codes(cats, self._cats)

    def name_value(self, i: int) -> Any:
        g = self._names[1][i]
        return self._names[0][g] if g >= 0 else None

    def corr_values(self, rows: np.ndarray) -> list:
        v, ok = self.ids("correlation", rows)
        return [int(x) if o else None for x, o in zip(v, ok)]

    def _time(self, f: str) -> tuple[np.ndarray, np.ndarray]:
        v = self._f(f + "_V").copy()
        ok = self._f(f + "_T") == self.S.T_GOOD
        irr = np.flatnonzero(~ok)
        if len(irr):  # strings, exponents, many decimals, null, absent: the msgspec path's own conversion
            got, got_ok = us_text_to_ns([self.time_text(f, i) for i in irr.tolist()])
            v[irr], ok[irr] = got, got_ok
        return v, ok

    def times(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self._time("TS") + self._time("DUR")

    def time_text(self, col: str, i: int) -> bytes:
        f = col.upper()
        return bytes(self.data[int(self._f(f + "_S")[i]):int(self._f(f + "_E")[i])])

    def keep(self, good: np.ndarray | None) -> None:
        if good is not None:
            self.I, self.D = self.I[:, good], self.D[:, good]
        self.n = self.I.shape[1]

    def set_gpu(self, gi: np.ndarray) -> None:
        pass

    def _pair(self, f: str, rows: Any) -> tuple[np.ndarray, np.ndarray]:
        """(values, valid) of an int field: 0 where not valid. Where every row is valid (most ids of most pieces)
        the values are the field itself (a view of the scanner's matrix: its readers copy what they keep before
        :meth:`ScannedPiece.release`), not a masked copy."""
        ok = self._f(f + "_T", rows) == self.S.T_GOOD
        v = self._f(f + "_V", rows)
        return (v if ok.all() else np.where(ok, v, 0)), ok

    def ids(self, key: str, rows: Any = None, gpu: bool = False, bad: list | None = None):
        v, ok = self._pair(_IDS[key], rows)
        if key == "external_id":  # "External id" absent or null: the legacy "external id"
            legacy = self._f("EXT_T", rows) <= self.S.T_NULL
            if legacy.any():
                lv, lok = self._pair("EXTL", rows)
                v, ok = np.where(legacy, lv, v), np.where(legacy, lok, ok)
        return v, ok

    def floats(self, key: str, rows: Any = None, gpu: bool = False) -> np.ndarray:
        j = _FLOATS[key]
        f = _FLOAT_FIELDS[j]
        t = self._f(f + "_T", rows)
        d = self.D[j] if rows is None else self.D[j][rows]
        out = np.where(t == self.S.T_GOOD, d, np.nan)
        slow = np.flatnonzero(t == self.S.T_SLOW)
        if len(slow):  # many digits: numpy's string parsing, correctly rounded as Python's float()
            s, e = self._f(f + "_S", rows)[slow], self._f(f + "_E", rows)[slow]
            width = int((e - s).max())
            out[slow] = self.S.gather(self.arr, s, e, width).view(f"S{width}").ravel().astype(np.float64)
        return out

    def text_codes(self, dictionary: Dictionary, key: str) -> np.ndarray:
        F, S = self.F, self.S
        # "Input Dims" (else the legacy "Input dims"), "Input type", "Concrete Inputs"
        t, field = {"input_dims": (S.T_DIMS, "TEXT_DIMS_G"), "input_type": (S.T_TYPES, "TYPES_G"),
                    "concrete_inputs": (S.T_CONC, "CONC_G")}[key]
        gid = self.I[F[field]]
        starts, ends = self.texts[t]
        # every group of the piece is encoded, also one seen only in rows keep() dropped: a Dictionary's unused
        # values never show (categorical() keeps the codes used, in sorted order)
        values = [bytes(self.data[a:b]) for a, b in zip(starts.tolist(), ends.tolist())]
        return self._codes(dictionary, (values, gid))

    def dim3(self, key: str) -> list[tuple[np.ndarray, np.ndarray]]:
        f = "GRID" if key == "grid" else "BLOCK"
        ok = self._f(f + "_T") == self.S.T_GOOD
        return [(np.where(ok, self._f(f"{f}_{a}"), 0), ok) for a in "XYZ"]

    def pid_labels(self) -> None:
        return None  # text pids are never read here

    def values(self, key: str, rows: np.ndarray, gpu: bool = False) -> list:
        if key != "kind":
            return [None] * len(rows)  # kernel/memcpy_details: pieces that have one are read by msgspec
        return [bytes(self.data[int(a):int(b)]).decode("ascii") if t == self.S.T_GOOD else None
                for a, b, t in zip(self._f("KIND_S", rows), self._f("KIND_E", rows), self._f("KIND_T", rows))]

    def collectives(self) -> tuple[np.ndarray, list]:
        return np.zeros(0, dtype=np.int64), []
