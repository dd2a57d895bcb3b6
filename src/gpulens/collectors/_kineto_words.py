"""Numba setup and 8-byte word primitives of the Kineto byte scanner (:mod:`._kineto_scan`).

Holds how the scanner's functions are compiled (:func:`_jit`: without numba's runtime where numba allows it) and the
word-at-a-time helpers the JSON grammar (:mod:`._kineto_lex`) and the event kernel (:mod:`._kineto_kernel`) build
on: unaligned 8-byte loads (:func:`_load8`), trailing-zero counts (:func:`_ctz`), masked partial words
(:func:`_part`), the string-stop mask (:func:`_stops`), byte-span equality (:func:`_same`, :func:`_same_as`) and
the 64-bit span hash of the interning tables (:func:`_span_hash`).

Compiled without numba's on-disk cache: numba keys a cached function by its own source file only, so a cached
caller in another module would keep the old code of a function changed here. The one cached entry point,
:func:`._kineto_kernel.scan_entry`, is keyed by the sources of every module compiled into it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


def _no_nrt() -> dict:
    """``{"_nrt": False}`` when this numba knows its private ``_nrt`` option, else ``{}``.

    The scanning functions allocate nothing, so they need no reference counting: compiled without numba's runtime
    (NRT) they make no incref/decref call for the arrays they are handed — those calls were ~60 % of the scan's time
    in a profile of the compiled code (py-spy, 1M-kernel trace). ``_nrt`` is private: a numba that does not list it
    among its target options compiles the scanner with the runtime, as before (any other failure to compile makes
    :func:`gpulens.collectors._kineto_fast._available` leave every piece to msgspec)."""
    try:
        from numba.core.cpu import CPUTargetOptions
        from numba.core.options import TargetOptions

        if isinstance(getattr(CPUTargetOptions, "_nrt", None), TargetOptions.Mapping):
            return {"_nrt": False}
    except Exception:  # noqa: BLE001  (numba's internals moved: compile as numba does by default)
        pass
    return {}


_NO_NRT = _no_nrt()


def _jit(**options: Any) -> Any:
    """``njit`` for the scanning functions: without the NRT where numba allows it (:func:`_no_nrt`); not cached on
    disk unless ``cache=True`` is given (only :func:`._kineto_kernel.scan_entry`: see the module docstring)."""
    return njit(**_NO_NRT, **options)


_SEED = np.uint64(14695981039346656037)  # FNV-1a's offset basis: any constant would do
from gpulens.collectors._kineto_layout import _MIX_INT  # noqa: E402  (one constant: the key tables use it too)

_MIX = np.uint64(_MIX_INT)

_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_QUOTES = np.uint64(0x2222222222222222)  # '"' in every byte
_BACKSLASHES = np.uint64(0x5C5C5C5C5C5C5C5C)
_SPACES = np.uint64(0x2020202020202020)


@_jit(forceinline=True)
def _stops(w):
    """The bytes of the word ``w`` (8 string bytes, little-endian) at which a string scan must stop — ``"``, ``\\``,
    a control byte (< 0x20) or a non-ASCII one (≥ 0x80) — as their 0x80 bits; exact at the lowest such byte (bits
    above it may be set wrongly: a borrow runs upwards), so only the lowest set bit is used.

    The has-zero-byte trick: ``(x - 0x01…01) & ~x & 0x80…80`` is nonzero exactly when a byte of ``x`` is 0, its lowest
    set bit at the first such byte; ``x`` is ``w`` xor the byte looked for. ``(w - 0x20…20) | w`` sets the 0x80 bit
    of a byte below 0x20 (it borrows) or of 0x80 and above (no byte 0x20–0x7F before the first such one borrows)."""
    q = w ^ _QUOTES
    b = w ^ _BACKSLASHES
    return (((q - _ONES) & ~q) | ((b - _ONES) & ~b) | (w - _SPACES) | w) & _HIGHS


@intrinsic
def _load8(typingctx, arr, idx):
    """The 8 bytes ``arr[idx:idx + 8]`` of a uint8 array as one little-endian uint64 (an unaligned load; no bounds
    check: the caller keeps ``idx + 8 <= len(arr)``)."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.uint8 and isinstance(idx, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        i = context.cast(builder, args[1], sig.args[1], types.intp)
        ptr = builder.bitcast(builder.gep(ary.data, [i]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)

    return types.uint64(arr, idx), codegen


@intrinsic
def _ctz(typingctx, x):
    """The number of trailing zero bits of the uint64 ``x`` (LLVM ``cttz``; 64 for 0)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(x), codegen


_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@_jit(forceinline=True)
def _part(buf, s, m):
    """The ``m`` (0–8) bytes ``buf[s:s + m]`` as a little-endian uint64, zero above them: one word load masked,
    byte by byte only within 8 bytes of ``buf``'s end."""
    if m <= 0:
        return np.uint64(0)
    if s + 8 <= len(buf):
        return _load8(buf, s) & (_ALL >> np.uint64(64 - 8 * m))
    w = np.uint64(0)
    for j in range(m):
        w |= np.uint64(buf[s + j]) << np.uint64(8 * j)
    return w


@_jit(forceinline=True)
def _span_hash(buf, s, e):
    """64-bit hash of the bytes ``buf[s:e]`` for the interning tables (:func:`_intern` compares the bytes of texts of
    equal hash, so the hash only spreads texts over the table).
    Read 8 bytes a time (:func:`_load8`; the last word overlaps the one before it when the length is no multiple of
    8; a text of at most 8 bytes is one masked word, :func:`_part`), each word mixed in by a multiply. A function of
    the bytes and the length alone."""
    n = e - s
    h = _SEED ^ np.uint64(n)
    if n <= 8:
        h = (h ^ _part(buf, s, n)) * _MIX
        return h ^ (h >> np.uint64(29))
    for j in range(s, e - 8, 8):
        h = (h ^ _load8(buf, j)) * _MIX
        h ^= h >> np.uint64(31)
    h = (h ^ _load8(buf, e - 8)) * _MIX
    return h ^ (h >> np.uint64(29))


@_jit(forceinline=True)
def _same(buf, a, s, n):
    """Whether ``buf[a:a + n]`` equals ``buf[s:s + n]`` (both within ``buf``), compared 8 bytes at a time."""
    if a == s:
        return True
    if n < 8:
        for j in range(n):
            if buf[a + j] != buf[s + j]:
                return False
        return True
    for j in range(0, n - 8, 8):
        if _load8(buf, a + j) != _load8(buf, s + j):
            return False
    return _load8(buf, a + n - 8) == _load8(buf, s + n - 8)


@_jit(forceinline=True)
def _same_as(x, a, y, b, n):
    """Whether ``x[a:a + n]`` equals ``y[b:b + n]``, compared 8 bytes at a time (:func:`_part` for the last)."""
    j = 0
    while j + 8 < n:
        if _load8(x, a + j) != _load8(y, b + j):
            return False
        j += 8
    return _part(x, a + j, n - j) == _part(y, b + j, n - j)
