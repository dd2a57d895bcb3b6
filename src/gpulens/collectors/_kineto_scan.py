"""One numba-compiled pass over the bytes of a piece of a Kineto ``traceEvents`` array (see :mod:`._kineto_fast`).

:func:`scan` validates the piece as strict JSON and records, for every complete (``X``) event, the byte spans and
parsed values of the fields :class:`~gpulens.collectors._kineto_acc.Accumulator` reads — without creating a Python
object per event. It answers :data:`OK` only for pieces it reads with certainty; anything rare or subtle (an event
of another phase than ``X`` and the skipped ones, a duplicate key, a key or value with ``\\u`` escapes or non-ASCII
bytes outside ``name``/``cat``, ids that are not int64 literals, values nested past :data:`MAX_DEPTH`, a number that
may overflow float64 (msgspec drops the event where it decodes one), invalid JSON)
answers :data:`FALLBACK` and the caller reads the piece with msgspec as before.

Per event row ``r``, ``I[r, field]`` (int64, row-major rings while scanning; :func:`scan` hands out field × row matrices)
holds the fields named ``F_*`` (those after :data:`NOUT` are read in the scan only); a ``*_T`` field is the value's type:
:data:`T_ABSENT`, :data:`T_NULL`, :data:`T_GOOD` (an int64 integer literal, a plain ASCII string, a regular time,
a ``[x, y, z]`` of int64 literals, a float exact by :func:`_float` — by field), :data:`T_SLOW` (a number
left to numpy's string parsing), :data:`T_OTHER` (valid JSON of another type) or
:data:`T_ESCAPED` (a ``name``/``cat`` string with escapes or non-ASCII bytes, decoded apart; a ``kind`` string
with them is T_OTHER). ``H[r, h]`` (uint64) holds
64-bit hashes (:func:`_span_hash`) of the name/cat contents and of the raw ``Input Dims``/``Input type`` texts, by which the texts are
interned (:func:`_intern`: ``*_G`` fields).

Times: a regular number (``-?digits[.d{1,3}]``, integer part below 9.2e15 µs) is converted exactly to ns here; any
other value is left to :func:`gpulens.collectors._kineto_columns.us_text_to_ns` through its span.
"""

from __future__ import annotations

import threading
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
    """``njit`` for the scanning functions: cached, without the NRT where numba allows it (:func:`_no_nrt`)."""
    return njit(cache=True, **_NO_NRT, **options)


OK, FALLBACK, FULL = 0, 1, 2
T_ABSENT, T_NULL, T_GOOD, T_OTHER, T_ESCAPED, T_SLOW = 0, 1, 2, 3, 4, 5
MAX_DEPTH = 60

_FIELDS = ("PID_V", "PID_T", "TID_V", "TID_T",
           "TS_V", "TS_T", "TS_S", "TS_E", "DUR_V", "DUR_T", "DUR_S", "DUR_E",
           "CORR_V", "CORR_T", "EXT_V", "EXT_T", "EXTL_V", "EXTL_T", "DEV_V", "DEV_T", "STREAM_V", "STREAM_T",
           "REGS_V", "REGS_T", "SMEM_V", "SMEM_T", "BYTES_V", "BYTES_T", "RANK_V", "RANK_T", "RANKC_V", "RANKC_T",
           "GRID_X", "GRID_Y", "GRID_Z", "GRID_T", "BLOCK_X", "BLOCK_Y", "BLOCK_Z", "BLOCK_T",
           "FLOPS_S", "FLOPS_E", "FLOPS_T", "BPS_S", "BPS_E", "BPS_T", "WPS_S", "WPS_E", "WPS_T",
           "OCC_S", "OCC_E", "OCC_T", "KIND_S", "KIND_E", "KIND_T", "COLL_T", "KD_T",
           "NAME_G", "CAT_G", "TEXT_DIMS_G", "TYPES_G", "CONC_G",
           # read in the scan only (spans and types of the interned texts): not copied out (:data:`NOUT`)
           "NAME_S", "NAME_E", "NAME_T", "CAT_S", "CAT_E", "CAT_T", "ARGS_T",
           "DIMS_S", "DIMS_E", "DIMS_T", "DIMSL_S", "DIMSL_E", "DIMSL_T", "TYPES_S", "TYPES_E", "TYPES_T",
           "CONC_S", "CONC_E", "CONC_T")
F = {f: i for i, f in enumerate(_FIELDS)}
globals().update({"F_" + f: i for f, i in F.items()})  # F_NAME_S... : compile-time constants of the kernel
NF = len(_FIELDS)
#: fields :func:`scan` hands out (``F[f] < NOUT``): the others are read in the scan only
NOUT = F["NAME_S"]
H_NAME, H_CAT, H_DIMS, H_DIMSL, H_TYPES, H_CONC = range(6)
NH = 6
#: interning tables (see :func:`_intern`): names, categories, ``Input Dims`` texts (else the legacy ``Input dims``),
#: ``Input type`` texts, ``Concrete Inputs`` texts (the scalar arguments)
T_NAMES, T_CATS, T_DIMS, T_TYPES, T_CONC = range(5)
NT = 5

# key ids: top-level keys, then args keys read from X events
_TOP_KEYS = (b"ph", b"cat", b"name", b"pid", b"tid", b"ts", b"dur", b"args")
_ARG_KEYS = (b"correlation", b"External id", b"external id", b"device", b"stream", b"registers per thread",
             b"shared memory", b"bytes", b"rank", b"Rank", b"grid", b"block", b"flops", b"blocks per SM",
             b"warps per SM", b"est. achieved occupancy %", b"Input Dims", b"Input dims", b"Input type",
             b"Concrete Inputs", b"kind", b"Collective name", b"kernel_details")
# the int-valued args keys in _ARG_KEYS order → their (value, type) fields
_INT_ARG_FIELDS = ("CORR", "EXT", "EXTL", "DEV", "STREAM", "REGS", "SMEM", "BYTES", "RANK", "RANKC")
_FLOAT_ARG_FIELDS = ("FLOPS", "BPS", "WPS", "OCC")
_RAW_ARG_FIELDS = ("DIMS", "DIMSL", "TYPES", "CONC")
#: Trace Event Format phases whose events are skipped (see ``_kineto_columns.SKIPPED_PHASES``; kept in step there)
SKIPPED = b"CbnestfPONDRSTpFc()Vv"

_SEED = np.uint64(14695981039346656037)  # FNV-1a's offset basis: any constant would do
_MIX_INT = 0x9E3779B97F4A7C15  # 2^64 / golden ratio, odd: a multiply that spreads a word's bits upwards
_MIX = np.uint64(_MIX_INT)
_KEY_SHIFT = 54  # a key table's slot: the top 10 bits of a product (they depend on all of its input's bits)


def _key_slot(first: int, n: int) -> int:
    """:func:`_key`'s slot of a key of ``n`` bytes whose first (up to) 8 bytes are the little-endian word ``first``."""
    return (((first ^ n) * _MIX_INT) & ((1 << 64) - 1)) >> _KEY_SHIFT


def _table(keys: tuple[bytes, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Key table for :func:`_key`: (slot → key id or -1 over 1024 slots (:func:`_key_slot`), each key's first
    word (its first 8 bytes, zero-padded), the concatenated key bytes and 8 zero bytes (a word may be read at any
    key's start), the keys' offsets in them)."""
    slots = np.full(1024, -1, dtype=np.int64)
    firsts = np.array([int.from_bytes(k[:8], "little") for k in keys], dtype=np.uint64)
    for i, k in enumerate(keys):
        s = _key_slot(int(firsts[i]), len(k))
        while slots[s] >= 0:
            s = (s + 1) & 1023
        slots[s] = i
    data = np.frombuffer(b"".join(keys) + bytes(8), dtype=np.uint8).copy()
    offs = np.zeros(len(keys) + 1, dtype=np.int64)
    offs[1:] = np.cumsum([len(k) for k in keys])
    return slots, firsts, data, offs


TOP_TABLE = _table(_TOP_KEYS)
ARG_TABLE = _table(_ARG_KEYS)


@_jit(forceinline=True)
def _ws(buf, p, n):
    while p < n:
        c = buf[p]
        if c == 32 or c == 10 or c == 13 or c == 9:
            p += 1
        else:
            break
    return p


@_jit(forceinline=True)
def _hex(c):
    return (48 <= c <= 57) or (65 <= c <= 70) or (97 <= c <= 102)


@_jit(inline='always')
def _number(buf, p, n):
    """A JSON number at ``buf[p]``: (end or -1 when invalid, int64 value or 0, value is an int64 literal,
    ns value, ns exact (regular time)).

    Inlined where it is called (as :func:`_huge`), numba's ``inline='always'``: a call returning a 5-tuple, made for
    every number of the trace, cost ~8 % of the scan (a 160 MB prefix of the 1M-kernel trace: 0.64 → 0.59 s), for
    a few seconds more of one-time compiling (the whole kernel, cache empty: 18 → 21 s CPU)."""
    neg = False
    if buf[p] == 45:
        neg = True
        p += 1
    if p >= n or not (48 <= buf[p] <= 57):
        return -1, 0, False, 0, False
    ip = 0
    nd = 0
    if buf[p] == 48:
        p += 1
        nd = 1
    else:
        while p < n and 48 <= buf[p] <= 57:
            if nd < 18:
                ip = ip * 10 + (buf[p] - 48)
            nd += 1
            p += 1
    fr = 0
    fd = 0
    has_frac = False
    if p < n and buf[p] == 46:
        has_frac = True
        p += 1
        if p >= n or not (48 <= buf[p] <= 57):
            return -1, 0, False, 0, False
        while p < n and 48 <= buf[p] <= 57:
            if fd < 3:
                fr = fr * 10 + (buf[p] - 48)
            fd += 1
            p += 1
    has_exp = False
    if p < n and (buf[p] == 101 or buf[p] == 69):
        has_exp = True
        p += 1
        if p < n and (buf[p] == 43 or buf[p] == 45):
            p += 1
        if p >= n or not (48 <= buf[p] <= 57):
            return -1, 0, False, 0, False
        while p < n and 48 <= buf[p] <= 57:
            p += 1
    is_int = not has_frac and not has_exp and nd <= 18
    val = -ip if neg else ip
    regular = not has_exp and fd <= 3 and nd <= 16 and ip < 9200000000000000
    ns = 0
    if regular:
        sc = 1000
        for _ in range(fd):
            sc //= 10
        ns = ip * 1000 + fr * sc
        if neg:
            ns = -ns
    return p, (val if is_int else 0), is_int, ns, regular


_POW10F = np.array([10.0 ** i for i in range(23)])


@_jit()
def _float(buf, p, n):
    """A JSON number at ``buf[p]`` as float64: (end or -1 when invalid, how, value) with ``how`` 0 when the value is
    exact here, 1 when numpy's string parsing must give it (many digits), 2 for a power of ten beyond ±300.

    Exact here is Clinger's fast path: a significand of at most 15 digits (< 2^53) and a power of ten within ±22
    (exact in float64) make one IEEE multiplication or division correctly rounded — the value Python's ``float()``
    gives. An integer literal is ``float(int)`` (``-0`` → 0.0, as msgspec's int → numpy)."""
    neg = buf[p] == 45
    if neg:
        p += 1
    if p >= n or not (48 <= buf[p] <= 57):
        return -1, 2, 0.0
    mant = 0
    nd = 0
    e10 = 0
    if buf[p] == 48:
        p += 1
    else:
        while p < n and 48 <= buf[p] <= 57:
            if nd < 16:
                mant = mant * 10 + (buf[p] - 48)
            else:
                e10 += 1
            nd += 1
            p += 1
    is_int = True
    if p < n and buf[p] == 46:
        is_int = False
        p += 1
        if p >= n or not (48 <= buf[p] <= 57):
            return -1, 2, 0.0
        while p < n and 48 <= buf[p] <= 57:
            d = buf[p] - 48
            if mant == 0 and d == 0:
                e10 -= 1
            elif nd < 16:
                mant = mant * 10 + d
                nd += 1
                e10 -= 1
            else:
                nd += 1
            p += 1
    ex = 0
    if p < n and (buf[p] == 101 or buf[p] == 69):
        is_int = False
        p += 1
        eneg = False
        if p < n and (buf[p] == 43 or buf[p] == 45):
            eneg = buf[p] == 45
            p += 1
        if p >= n or not (48 <= buf[p] <= 57):
            return -1, 2, 0.0
        while p < n and 48 <= buf[p] <= 57:
            if ex < 100000:
                ex = ex * 10 + (buf[p] - 48)
            p += 1
        if eneg:
            ex = -ex
    if mant == 0:
        return p, 0, (-0.0 if neg and not is_int else 0.0)
    e = e10 + ex
    if e > 300 or e < -300:
        return p, 2, 0.0
    if nd > 15 or e > 22 or e < -22:
        return p, 1, 0.0
    v = float(mant)
    v = v * _POW10F[e] if e >= 0 else v / _POW10F[-e]
    return p, 0, (-v if neg else v)


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


@_jit()
def _skip_str(buf, p, n):
    """``buf[p]`` is ``"``: (index after the closing quote or -1 when invalid, flags 1 escape / 2
    ``\\u`` / 4 non-ASCII).

    Plain bytes are passed 8 at a time (SWAR: :func:`_load8` words, :func:`_stops` finds the first byte to look at),
    the byte a word stops at and the last bytes of ``buf`` one at a time."""
    flags = 0
    p += 1
    while True:
        while p + 8 <= n:
            m = _stops(_load8(buf, p))
            if m != 0:
                p += np.int64(_ctz(m) >> np.uint64(3))
                break
            p += 8
        if p >= n:
            return -1, flags
        c = buf[p]
        if c == 34:
            return p + 1, flags
        if c == 92:
            if p + 1 >= n:
                return -1, flags
            d = buf[p + 1]
            flags |= 1
            if d == 117:
                if p + 5 >= n or not (_hex(buf[p + 2]) and _hex(buf[p + 3]) and _hex(buf[p + 4])
                                      and _hex(buf[p + 5])):
                    return -1, flags
                flags |= 2
                p += 6
                continue
            if d == 34 or d == 92 or d == 47 or d == 98 or d == 102 or d == 110 or d == 114 or d == 116:
                p += 2
                continue
            return -1, flags
        if c < 32:
            return -1, flags
        if c >= 128:
            flags |= 4
        p += 1


@_jit(inline='always')
def _huge(buf, s, e):
    """Whether the valid JSON number ``buf[s:e]`` may be beyond float64 (msgspec then fails the event where it
    decodes the value): a fraction or exponent and (integer digits + exponent) > 300. Integer literals never are."""
    if buf[s] == 45:
        s += 1
    intd = 0
    while s < e and 48 <= buf[s] <= 57:
        intd += 1
        s += 1
    if s >= e:
        return False
    while s < e and buf[s] != 101 and buf[s] != 69:
        s += 1
    ex = 0
    neg = False
    if s < e:
        s += 1
        if buf[s] == 43 or buf[s] == 45:
            neg = buf[s] == 45
            s += 1
        while s < e:
            if ex < 100000:
                ex = ex * 10 + (buf[s] - 48)
            s += 1
    return intd + (-ex if neg else ex) > 300


@_jit()
def _member_key(buf, p, n):
    """An object member's key and colon at ``buf[p]``: (index after the colon, status as :func:`_skip`)."""
    if p >= n or buf[p] != 34:
        return p, -1
    p, fl = _skip_str(buf, p, n)
    if p < 0:
        return 0, -1
    if fl & 6:
        return p, 1
    p = _ws(buf, p, n)
    if p >= n or buf[p] != 58:
        return p, -1
    return p + 1, 0


@_jit()
def _skip(buf, p, n, stack):
    """Validate one JSON value at ``buf[p]``: (end, status) with status 0 valid, 1 unsupported (``\\u`` escape,
    non-ASCII, too deep), -1 invalid."""
    depth = 0
    while True:
        p = _ws(buf, p, n)
        if p >= n:
            return p, -1
        c = buf[p]
        if c == 123 or c == 91:
            q = _ws(buf, p + 1, n)
            if q < n and buf[q] == (125 if c == 123 else 93):
                p = q + 1
            else:
                if depth >= MAX_DEPTH:
                    return p, 1
                stack[depth] = c
                depth += 1
                p = q
                if c == 123:
                    p, st = _member_key(buf, p, n)
                    if st != 0:
                        return p, st
                continue
        elif c == 34:
            p, fl = _skip_str(buf, p, n)
            if p < 0:
                return 0, -1
            if fl & 6:
                return p, 1
        elif c == 45 or 48 <= c <= 57:
            q = p
            p = _number(buf, p, n)[0]
            if p < 0:
                return 0, -1
            if _huge(buf, q, p):
                return p, 1
        elif c == 116 and p + 3 < n and buf[p + 1] == 114 and buf[p + 2] == 117 and buf[p + 3] == 101:
            p += 4
        elif c == 102 and p + 4 < n and buf[p + 1] == 97 and buf[p + 2] == 108 and buf[p + 3] == 115 \
                and buf[p + 4] == 101:
            p += 5
        elif c == 110 and p + 3 < n and buf[p + 1] == 117 and buf[p + 2] == 108 and buf[p + 3] == 108:
            p += 4
        else:
            return p, -1
        # after a value: close containers or move to the next member
        while True:
            if depth == 0:
                return p, 0
            p = _ws(buf, p, n)
            if p >= n:
                return p, -1
            c = buf[p]
            if c == 44:
                p = _ws(buf, p + 1, n)
                if stack[depth - 1] == 123:
                    p, st = _member_key(buf, p, n)
                    if st != 0:
                        return p, st
                break
            if c == (125 if stack[depth - 1] == 123 else 93):
                depth -= 1
                p += 1
                continue
            return p, -1


@_jit(forceinline=True)
def _key(buf, s, e, slots, firsts, data, offs):
    """Id of the key ``buf[s:e]`` in a key table (:func:`_table`), -1 for another key: the slot of its first word
    (one masked load, :func:`_part`) and length, a match only when the length, the first word and the bytes after
    it (compared a word at a time) are equal."""
    n = e - s
    w = _part(buf, s, min(n, 8))
    i = np.int64(((w ^ np.uint64(n)) * _MIX) >> np.uint64(_KEY_SHIFT))
    k = slots[i]
    while k >= 0:
        a = offs[k]
        if firsts[k] == w and offs[k + 1] - a == n and (n <= 8 or _same_as(buf, s + 8, data, a + 8, n - 8)):
            return k
        i = (i + 1) & 1023
        k = slots[i]
    return -1


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


@_jit()
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


@_jit()
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


@_jit()
def _int_value(buf, p, n, stack, I, fv, ft, r):
    """An id value at ``buf[p]``: int64 literal → T_GOOD, null → T_NULL, other valid JSON → T_OTHER."""
    c = buf[p]
    if c == 45 or 48 <= c <= 57:
        q, v, is_int, _, _ = _number(buf, p, n)
        if q < 0:
            return q, -1
        if is_int:
            I[r, fv] = v
            I[r, ft] = T_GOOD
        else:
            I[r, ft] = T_OTHER
        return q, (1 if _huge(buf, p, q) else 0)
    q, st = _skip(buf, p, n, stack)
    I[r, ft] = T_NULL if (q - p == 4 and c == 110) else T_OTHER
    return q, st


@_jit()
def _dim3(buf, p, n, stack, I, fx, ft, r):
    """``[x, y, z]`` of int64 literals → T_GOOD; null → T_NULL; other → T_OTHER."""
    if buf[p] == 91:
        q = p + 1
        good = True
        for j in range(3):
            q = _ws(buf, q, n)
            if q >= n or not (buf[q] == 45 or 48 <= buf[q] <= 57):
                good = False
                break
            q, v, is_int, _, _ = _number(buf, q, n)
            if q < 0 or not is_int:
                good = False
                break
            I[r, fx + j] = v
            q = _ws(buf, q, n)
            if q >= n or buf[q] != (93 if j == 2 else 44):
                good = False
                break
            q += 1
        if good:
            I[r, ft] = T_GOOD
            return q, 0
    q, st = _skip(buf, p, n, stack)
    I[r, ft] = T_NULL if (q - p == 4 and buf[p] == 110) else T_OTHER
    return q, st


@_jit()
def _args(buf, p, n, stack, I, H, D, r, slots, firsts, data, offs, seen):
    """The ``args`` object at ``buf[p]`` (``{``) of row ``r``: (end, status 0 ok / 1 fall back / -1 invalid)."""
    p = _ws(buf, p + 1, n)
    if p < n and buf[p] == 125:
        return p + 1, 0
    while True:
        if p >= n or buf[p] != 34:
            return p, -1
        ks = p + 1
        p, fl = _skip_str(buf, p, n)
        if p < 0:
            return 0, -1
        if fl:
            return p, 1
        k = _key(buf, ks, p - 1, slots, firsts, data, offs)
        p = _ws(buf, p, n)
        if p >= n or buf[p] != 58:
            return p, -1
        p = _ws(buf, p + 1, n)
        if p >= n:
            return p, -1
        st = 0
        if k < 0:
            p, st = _skip(buf, p, n, stack)
        else:
            if seen[k]:
                return p, 1
            seen[k] = True
            if k < 10:
                fv = F_INT_V[k]
                p, st = _int_value(buf, p, n, stack, I, fv, fv + 1, r)
            elif k < 12:
                fx = F_GRID_X if k == 10 else F_BLOCK_X
                p, st = _dim3(buf, p, n, stack, I, fx, fx + 3, r)
            elif k < 16:
                fs = F_FLOAT_S[k - 12]
                c = buf[p]
                q = p
                if c == 45 or 48 <= c <= 57:
                    p, how, v = _float(buf, p, n)
                    if p < 0:
                        return 0, -1
                    D[r, k - 12] = v
                    I[r, fs + 2] = T_GOOD if how == 0 else (T_SLOW if how == 1 and p - q <= 30 else T_OTHER)
                    if _huge(buf, q, p):  # any spelling that may overflow (0.83e309 is left to numpy: inf)
                        return p, 1
                else:
                    p, st = _skip(buf, p, n, stack)
                    I[r, fs + 2] = T_NULL if (p - q == 4 and c == 110) else T_OTHER
                I[r, fs] = q
                I[r, fs + 1] = p
            elif k < 20:
                fs = F_RAW_S[k - 16]
                q = p
                p, st = _skip(buf, p, n, stack)
                I[r, fs] = q
                I[r, fs + 1] = p
                I[r, fs + 2] = T_GOOD
                H[r, H_DIMS + k - 16] = _span_hash(buf, q, p)
            elif k == 20:  # kind: a plain string is kept (its span), any other value is T_OTHER
                c = buf[p]
                q = p
                if c == 34:
                    p, fl = _skip_str(buf, p, n)
                    if p < 0:
                        return 0, -1
                    I[r, F_KIND_S] = q + 1
                    I[r, F_KIND_E] = p - 1
                    I[r, F_KIND_T] = T_OTHER if fl else T_GOOD
                else:
                    p, st = _skip(buf, p, n, stack)
                    I[r, F_KIND_T] = T_NULL if (p - q == 4 and c == 110) else T_OTHER
            else:
                ft = F_COLL_T + k - 21
                c = buf[p]
                q = p
                p, st = _skip(buf, p, n, stack)
                I[r, ft] = T_NULL if (p - q == 4 and c == 110) else T_GOOD
        if st != 0:
            return p, st
        p = _ws(buf, p, n)
        if p >= n:
            return p, -1
        if buf[p] == 125:
            return p + 1, 0
        if buf[p] != 44:
            return p, -1
        p = _ws(buf, p + 1, n)


@_jit()
def _intern(buf, s, e, h, t, slots, gs, ge, gh, gslot, ngroups, mask):
    """Group number of the text ``buf[s:e]`` (hash ``h``) in interning table ``t``, a new one (the next number: groups
    are numbered in order of first appearance) for a text not seen in this piece.

    Open addressing on ``h & mask`` (``mask`` is all ones but in tests, where 0 makes every text collide); a slot is
    a match only when the stored hash, the length and every byte are equal, so two texts of one hash never merge —
    a collision only costs one more probe. ``gs``/``ge``: span of each group's first text; ``gslot``: its slot."""
    size = slots.shape[1]
    hm = h & mask
    i = np.int64(hm & np.uint64(size - 1))
    while True:
        g = slots[t, i]
        if g < 0:
            g = ngroups[t]
            ngroups[t] = g + 1
            slots[t, i] = g
            gs[t, g] = s
            ge[t, g] = e
            gh[t, g] = hm
            gslot[t, g] = i
            return g
        if gh[t, g] == hm and ge[t, g] - gs[t, g] == e - s and _same(buf, gs[t, g], s, e - s):
            return g
        i = (i + 1) & (size - 1)


@_jit()
def _intern_row(buf, I, H, r, slots, gs, ge, gh, gslot, ngroups, mask):
    """Intern the name, category, input dims and input type texts of ``X`` row ``r`` (``*_G`` fields, -1: none)."""
    for t, fs, hc, fg in ((T_NAMES, F_NAME_S, H_NAME, F_NAME_G), (T_CATS, F_CAT_S, H_CAT, F_CAT_G)):
        ty = I[r, fs + 2]
        if ty == T_GOOD or ty == T_ESCAPED:
            I[r, fg] = _intern(buf, I[r, fs], I[r, fs + 1], H[r, hc], t, slots, gs, ge, gh, gslot, ngroups, mask)
        else:
            I[r, fg] = -1
    if I[r, F_DIMS_T] == T_GOOD:  # "Input Dims", else the legacy "Input dims"
        I[r, F_TEXT_DIMS_G] = _intern(buf, I[r, F_DIMS_S], I[r, F_DIMS_E], H[r, H_DIMS], T_DIMS, slots, gs, ge, gh,
                                      gslot, ngroups, mask)
    elif I[r, F_DIMSL_T] == T_GOOD:
        I[r, F_TEXT_DIMS_G] = _intern(buf, I[r, F_DIMSL_S], I[r, F_DIMSL_E], H[r, H_DIMSL], T_DIMS, slots, gs, ge,
                                      gh, gslot, ngroups, mask)
    else:
        I[r, F_TEXT_DIMS_G] = -1
    if I[r, F_TYPES_T] == T_GOOD:
        I[r, F_TYPES_G] = _intern(buf, I[r, F_TYPES_S], I[r, F_TYPES_E], H[r, H_TYPES], T_TYPES, slots, gs, ge, gh,
                                  gslot, ngroups, mask)
    else:
        I[r, F_TYPES_G] = -1
    if I[r, F_CONC_T] == T_GOOD:
        I[r, F_CONC_G] = _intern(buf, I[r, F_CONC_S], I[r, F_CONC_E], H[r, H_CONC], T_CONC, slots, gs, ge, gh,
                                 gslot, ngroups, mask)
    else:
        I[r, F_CONC_G] = -1


F_INT_V = np.array([F[f + "_V"] for f in _INT_ARG_FIELDS], dtype=np.int64)
F_FLOAT_S = np.array([F[f + "_S"] for f in _FLOAT_ARG_FIELDS], dtype=np.int64)
F_RAW_S = np.array([F[f + "_S"] for f in _RAW_ARG_FIELDS], dtype=np.int64)
_SKIPPED_SET = np.zeros(256, dtype=np.bool_)
_SKIPPED_SET[np.frombuffer(SKIPPED, dtype=np.uint8)] = True


RING = 64  # rows of the row-major rings :func:`_scan` writes (64 × 77 cells: 39 KiB, in the L1/L2 cache)


@_jit()
def _flush(I, D, O, OD, r0, m):
    """Ring rows ``0..m-1`` (events ``r0..r0+m-1``) into the field-major outputs ``O`` (``I``'s first ``O.shape[0]``
    fields) and ``OD``: each output field gets ``m`` consecutive cells, the ring is read from the cache."""
    for f in range(O.shape[0]):
        for j in range(m):
            O[f, r0 + j] = I[j, f]
    for f in range(OD.shape[0]):
        for j in range(m):
            OD[f, r0 + j] = D[j, f]


@_jit(nogil=True)
def _scan(buf, I, H, D, O, OD, tslots, tfirsts, tdata, toffs, aslots, afirsts, adata, aoffs, skipped, stack, seen, tseen,
          slots, gs, ge, gh, gslot, ngroups, mask):
    """See :func:`scan`; returns (status, rows). ``I``, ``H``, ``D``: row-major rings of :data:`RING` rows (event
    ``r`` in row ``r % RING``), each full ring copied into the field-major outputs ``O`` (the first :data:`NOUT`
    fields of ``I``) and ``OD`` (``D``) while in cache (:func:`_flush`). ``stack``, ``seen``, ``tseen``: scratch
    arrays of :data:`MAX_DEPTH` + 1 bytes, one flag per args key / top-level key (:func:`_run`; compiled without the
    NRT, the scan allocates nothing)."""
    n = len(buf)
    cap = O.shape[1]
    p = _ws(buf, 0, n)
    if p >= n or buf[p] != 91:
        return FALLBACK, 0
    p = _ws(buf, p + 1, n)
    r = 0
    if p < n and buf[p] == 93:
        p = _ws(buf, p + 1, n)
        return (OK if p == n else FALLBACK), 0
    while True:
        if p >= n or buf[p] != 123:
            return FALLBACK, r
        if r >= cap:
            return FULL, r
        w = r & (RING - 1)
        for j in range(I.shape[1]):  # the row is written from scratch (its cells are cleared nowhere else)
            I[w, j] = 0
        for j in range(H.shape[1]):
            H[w, j] = 0
        for j in range(D.shape[1]):
            D[w, j] = 0.0
        for j in range(len(seen)):
            seen[j] = False
        for j in range(len(tseen)):
            tseen[j] = False
        phase = 0  # 1 X, 2 skipped
        p = _ws(buf, p + 1, n)
        if p < n and buf[p] == 125:
            return FALLBACK, r  # an event without ph
        while True:
            if p >= n or buf[p] != 34:
                return FALLBACK, r
            ks = p + 1
            p, fl = _skip_str(buf, p, n)
            if p < 0 or fl:
                return FALLBACK, r
            k = _key(buf, ks, p - 1, tslots, tfirsts, tdata, toffs)
            p = _ws(buf, p, n)
            if p >= n or buf[p] != 58:
                return FALLBACK, r
            p = _ws(buf, p + 1, n)
            if p >= n:
                return FALLBACK, r
            st = 0
            c = buf[p]
            if k >= 0:
                if tseen[k]:
                    return FALLBACK, r
                tseen[k] = True
            if k < 0:
                p, st = _skip(buf, p, n, stack)
            elif k == 0:  # ph
                if c != 34 or p + 2 >= n or buf[p + 2] != 34:
                    return FALLBACK, r
                ph = buf[p + 1]
                if ph == 88:
                    phase = 1
                elif skipped[ph]:
                    phase = 2
                else:
                    return FALLBACK, r
                p += 3
            elif k == 1 or k == 2:  # cat, name
                fs = F_CAT_S if k == 1 else F_NAME_S
                if c == 34:
                    q = p
                    p, fl = _skip_str(buf, p, n)
                    if p < 0:
                        return FALLBACK, r
                    if fl & 2 or fl & 4 or fl & 1:
                        I[w, fs + 2] = T_ESCAPED
                    else:
                        I[w, fs + 2] = T_GOOD
                    I[w, fs] = q + 1
                    I[w, fs + 1] = p - 1
                    H[w, H_CAT if k == 1 else H_NAME] = _span_hash(buf, q + 1, p - 1)
                else:
                    q = p
                    p, st = _skip(buf, p, n, stack)
                    I[w, fs + 2] = T_NULL if (p - q == 4 and c == 110) else T_OTHER
            elif k == 3 or k == 4:  # pid, tid
                fv = F_PID_V if k == 3 else F_TID_V
                p, st = _int_value(buf, p, n, stack, I, fv, fv + 1, w)
            elif k == 5 or k == 6:  # ts, dur
                fv = F_TS_V if k == 5 else F_DUR_V
                q = p
                if c == 45 or 48 <= c <= 57:
                    p, _, _, ns, regular = _number(buf, p, n)
                    if p < 0:
                        return FALLBACK, r
                    I[w, fv] = ns
                    I[w, fv + 1] = T_GOOD if regular else T_OTHER
                else:
                    p, st = _skip(buf, p, n, stack)
                    I[w, fv + 1] = T_OTHER
                I[w, fv + 2] = q
                I[w, fv + 3] = p
            else:  # args
                if c == 123:
                    p, st = _args(buf, p, n, stack, I, H, D, w, aslots, afirsts, adata, aoffs, seen)
                    I[w, F_ARGS_T] = T_GOOD
                elif c == 110 and p + 3 < n and buf[p + 1] == 117 and buf[p + 2] == 108 and buf[p + 3] == 108:
                    p += 4
                    I[w, F_ARGS_T] = T_NULL
                else:
                    return FALLBACK, r
            if st != 0:
                return FALLBACK, r
            p = _ws(buf, p, n)
            if p >= n:
                return FALLBACK, r
            if buf[p] == 125:
                p += 1
                break
            if buf[p] != 44:
                return FALLBACK, r
            p = _ws(buf, p + 1, n)
        if phase == 0:
            return FALLBACK, r
        if phase == 1:
            if I[w, F_NAME_T] == T_OTHER or I[w, F_CAT_T] == T_OTHER or I[w, F_PID_T] == T_OTHER \
                    or I[w, F_TID_T] == T_OTHER:
                return FALLBACK, r
            _intern_row(buf, I, H, w, slots, gs, ge, gh, gslot, ngroups, mask)
            r += 1
            if w == RING - 1:
                _flush(I, D, O, OD, r - RING, RING)
        p = _ws(buf, p, n)
        if p >= n:
            return FALLBACK, r
        if buf[p] == 93:
            p = _ws(buf, p + 1, n)
            if p != n:
                return FALLBACK, r
            _flush(I, D, O, OD, r - (r & (RING - 1)), r & (RING - 1))
            return OK, r
        if buf[p] != 44:
            return FALLBACK, r
        p = _ws(buf, p + 1, n)


class _Work(threading.local):
    """Per-thread work matrices of :func:`_scan`, reused from piece to piece (fresh ones would cost a page fault per
    4 kB written): the rings, the interning tables and the outputs the next piece is scanned into.

    Row-major rings (one row of :data:`NF` cells per event, :data:`RING` rows): an event's cells share a few cache
    lines; with one matrix row per field each event touched ~80 pages (more than the L1 TLB holds) — 20 % slower.
    :func:`_scan` clears each row as it starts it and copies each full ring into the field-major outputs while it is
    in cache (:func:`_flush`): the outputs are handed out as they are (:func:`scan_result`) — a transposing copy of
    the whole piece after the scan was ~15 % of its time, clearing the rows after it ~9 %.

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
        (:class:`_Outputs`) and the interning tables of :func:`_intern` (slots: a power of two ≥ 2 × rows, all -1
        between pieces)."""
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


def _run(arr: np.ndarray, work: tuple) -> tuple[int, int]:
    """:func:`_scan` of the bytes ``arr`` into the work matrices ``work`` (:meth:`_Work.get`): (status, rows). Its
    scratch arrays are made here (the scan, compiled without the NRT, allocates nothing): the container stack of
    :func:`_skip`, one flag per args key and per top-level key seen in the current event."""
    stack = np.zeros(MAX_DEPTH + 1, dtype=np.uint8)
    seen, tseen = np.zeros(len(_ARG_KEYS), dtype=np.bool_), np.zeros(len(_TOP_KEYS), dtype=np.bool_)
    return _scan(arr, *work[:5], *TOP_TABLE, *ARG_TABLE, _SKIPPED_SET, stack, seen, tseen, *work[5:], HASH_MASK)


_PROBE = (b'[{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1.5, "dur": 2, "args": {'
          b'"correlation": 7, "grid": [1, 2, 3], "flops": 1.5, "Input Dims": [[1]], "kind": "a"}}]')
_checked = False


def check() -> None:
    """Compile the scanner (or load it from numba's cache) and scan one known event, once per process; raises
    whatever numba raises when it cannot (:func:`gpulens.collectors._kineto_fast._available` then leaves every piece
    to msgspec), RuntimeError when the event is read wrong. Uses work matrices of its own: the per-thread ones
    size themselves by the last piece."""
    global _checked
    if _checked:
        return
    arr = np.frombuffer(bytearray(_PROBE), dtype=np.uint8)  # writable, as the stream's pieces: one compiled version
    work = _Work().get(16)
    status, rows = _run(arr, work)
    I, D = work[3][:, :rows], work[4][:, :rows]
    g = gather(arr, I[F["KIND_S"]], I[F["KIND_E"]], 1)
    if (status, rows, I[F["TS_V"], 0], I[F["CORR_V"], 0], I[F["GRID_Z"], 0], D[0, 0], g[0, 0]) != (
            OK, 1, 1500, 7, 3, 1.5, ord("a")):
        raise RuntimeError("the Kineto scanner misread its self-check event")
    _checked = True


#: the hash bits the interning tables use: all but in tests (0 makes every text collide, see :func:`_intern`)
HASH_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def scan(buf: bytes | bytearray | memoryview) -> tuple[int, np.ndarray, np.ndarray, list]:
    """Scan a JSON array of events (bytes): :func:`scan_only` then :func:`scan_result`.

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
    while True:
        work = _WORK.get(cap)
        status, rows = _run(arr, work)
        if status != FULL:
            if status == OK:
                _WORK.last = rows
            return status, rows, work, _WORK.out
        _clear(work, rows)
        cap = 2 * work[3].shape[1]


def _clear(work: tuple, rows: int) -> None:
    """Reset the interning tables a scan wrote (:func:`_scan` clears each ring row as it starts it)."""
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


@njit(cache=True)
def gather(buf, s, e, width):
    """The spans ``buf[s[i]:e[i]]`` as rows of a zero-padded (len(s), width) byte matrix."""
    out = np.zeros((len(s), width), dtype=np.uint8)
    for i in range(len(s)):
        for j in range(e[i] - s[i]):
            out[i, j] = buf[s[i] + j]
    return out
