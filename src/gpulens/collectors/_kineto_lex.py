"""The JSON grammar of the Kineto byte scanner (:mod:`._kineto_scan`), compiled by numba.

Functions over a uint8 array ``buf`` of ``n`` bytes from index ``p``: whitespace (:func:`_ws`), numbers as int64,
exact nanoseconds (:func:`_number`) or float64 (:func:`_float`), strings 8 bytes at a time (:func:`_skip_str`),
validation of any JSON value up to :data:`MAX_DEPTH` nested containers (:func:`_skip`), and the lookup of an
object key in a fixed key table (:func:`_table`, :func:`_key`). They answer an end index and a status; none
allocates. Built on the word primitives of :mod:`._kineto_words`; not cached on disk (see there).
"""

from __future__ import annotations

import numpy as np

from gpulens.collectors._kineto_layout import _KEY_SHIFT, MAX_DEPTH, _key_slot, _table  # noqa: F401
from gpulens.collectors._kineto_words import (_MIX, _MIX_INT, _jit, _ctz, _load8, _part, _same_as,  # noqa: F401
                                              _stops)

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


@_jit(forceinline=True)
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
