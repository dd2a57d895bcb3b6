"""The event kernel of the Kineto byte scanner (:mod:`._kineto_scan`): its output layout and the numba-compiled
pass over one piece of a ``traceEvents`` array.

:func:`_scan` validates the piece as strict JSON and records, for every complete (``X``) event, the byte spans and
parsed values of the fields :class:`~gpulens.collectors._kineto_acc.Accumulator` reads — without creating a Python
object per event. It answers :data:`OK` only for pieces it reads with certainty; anything rare or subtle (an event
of another phase than ``X`` and the skipped ones, a duplicate key, a key or value with ``\\u`` escapes or non-ASCII
bytes outside ``name``/``cat``, ids that are not int64 literals, values nested past
:data:`~._kineto_lex.MAX_DEPTH`, a number that may overflow float64 (msgspec drops the event where it decodes one),
invalid JSON) answers :data:`FALLBACK` and the caller reads the piece with msgspec as before.

Per event row ``r``, ``I[r, field]`` (int64, row-major rings while scanning; :func:`._kineto_scan.scan` hands out
field × row matrices) holds the fields named ``F_*`` (those after :data:`NOUT` are read in the scan only); a ``*_T``
field is the value's type: :data:`T_ABSENT`, :data:`T_NULL`, :data:`T_GOOD` (an int64 integer literal, a plain
ASCII string, a regular time, a ``[x, y, z]`` of int64 literals, a float exact by :func:`~._kineto_lex._float` — by
field), :data:`T_SLOW` (a number left to numpy's string parsing), :data:`T_OTHER` (valid JSON of another type) or
:data:`T_ESCAPED` (a ``name``/``cat`` string with escapes or non-ASCII bytes, decoded apart; a ``kind`` string with
them is T_OTHER). ``H[r, h]`` (uint64) holds 64-bit hashes (:func:`~._kineto_words._span_hash`) of the name/cat
contents and of the raw ``Input Dims``/``Input type`` texts, by which the texts are interned (:func:`_intern`:
``*_G`` fields).

Times: a regular number (``-?digits[.d{1,3}]``, integer part below 9.2e15 µs) is converted exactly to ns here; any
other value is left to :func:`gpulens.collectors._kineto_columns.us_text_to_ns` through its span.

Only :data:`scan_entry` is cached on disk by numba; its cache key covers the sources of every module compiled into
it (:func:`sources_digest`).
"""

from __future__ import annotations

import sys
from types import ModuleType

import numpy as np

from gpulens.collectors import _kineto_layout, _kineto_lex, _kineto_words
from gpulens.collectors._kineto_layout import (  # noqa: F401  (the layout, importable from here as before)
    _ARG_KEYS, _FIELDS, _FLOAT_ARG_FIELDS, _INT_ARG_FIELDS, _RAW_ARG_FIELDS, _SKIPPED_SET, _TOP_KEYS, ARG_TABLE, F,
    F_FLOAT_S, F_INT_V, F_RAW_S, FALLBACK, FULL, H_CAT, H_CONC, H_DIMS, H_DIMSL, H_NAME, H_TYPES, NF, NH, NOUT, NT,
    OK, RING, SKIPPED, T_ABSENT, T_CATS, T_CONC, T_DIMS, T_ESCAPED, T_GOOD, T_NAMES, T_NULL, T_OTHER, T_SLOW,
    T_TYPES, TOP_TABLE)
from gpulens.collectors._kineto_native import files_digest
from gpulens.collectors._kineto_lex import _float, _huge, _key, _number, _skip, _skip_str, _ws
from gpulens.collectors._kineto_words import _jit, _same, _span_hash

globals().update({"F_" + f: i for f, i in F.items()})  # F_NAME_S... : compile-time constants of the kernel


@_jit(forceinline=True)
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


@_jit(forceinline=True)
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


@_jit(forceinline=True)
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


@_jit(forceinline=True)
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
          slots, gs, ge, gh, gslot, ngroups, mask, framed):
    """See :func:`scan`; returns (status, rows). ``I``, ``H``, ``D``: row-major rings of :data:`RING` rows (event
    ``r`` in row ``r % RING``), each full ring copied into the field-major outputs ``O`` (the first :data:`NOUT`
    fields of ``I``) and ``OD`` (``D``) while in cache (:func:`_flush`). ``stack``, ``seen``, ``tseen``: scratch
    arrays of :data:`MAX_DEPTH` + 1 bytes, one flag per args key / top-level key (:func:`_run`; compiled without the
    NRT, the scan allocates nothing). ``framed``: ``buf`` is a piece of the stream's buffer in place
    (:func:`gpulens.collectors._stream.stream_pieces`): its first byte (``[`` or the ``,`` before the first event)
    stands for the array's ``[`` and its last byte (the ``,`` or white space after the last event's ``}``) for its
    ``]``, whatever they are — neither is read, so two threads may scan two pieces that share that byte; else
    ``buf`` is a JSON array, white space around it allowed."""
    n = len(buf)
    cap = O.shape[1]
    r = 0
    if framed:
        n -= 1
        if n < 1:
            return FALLBACK, 0
        p = _ws(buf, 1, n)
        if p >= n:
            return OK, 0
    else:
        p = _ws(buf, 0, n)
        if p >= n or buf[p] != 91:
            return FALLBACK, 0
        p = _ws(buf, p + 1, n)
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
            if framed:  # the end of the piece after an event: its closing byte
                _flush(I, D, O, OD, r - (r & (RING - 1)), r & (RING - 1))
                return OK, r
            return FALLBACK, r
        if buf[p] == 93 and not framed:
            p = _ws(buf, p + 1, n)
            if p != n:
                return FALLBACK, r
            _flush(I, D, O, OD, r - (r & (RING - 1)), r & (RING - 1))
            return OK, r
        if buf[p] != 44:
            return FALLBACK, r
        p = _ws(buf, p + 1, n)


def sources_digest(modules: tuple[ModuleType, ...]) -> str:
    """SHA-256 (hex) of the source files of ``modules``, in order; a module whose file cannot be read (a frozen
    application) contributes its name instead.

    numba's on-disk cache keys a function by its own source file (its bytes' SHA-256 in numba 0.68, its time stamp
    and size in older numba) and, for a closure, by the values of its closure cells (``numba.core.caching``,
    ``_index_key``): it sees no change in another module whose functions or constants are compiled in.
    :data:`scan_entry` holds this digest in a closure cell, so that a change to any of those modules compiles the
    scanner anew instead of loading the old code."""
    return files_digest((getattr(m, "__file__", None), m.__name__.encode()) for m in modules)


#: the modules whose numba functions and constants :data:`scan_entry` compiles in (all of them: every other
#: function of the scanner is compiled uncached, see :mod:`._kineto_words`)
KERNEL_MODULES = (_kineto_layout, _kineto_words, _kineto_lex, sys.modules[__name__])


def _keyed_entry(digest: str):
    """:func:`_scan` behind a cached entry point whose numba cache key includes ``digest`` (:func:`sources_digest`)."""

    @_jit(cache=True, nogil=True)
    def scan_entry(buf, I, H, D, O, OD, tslots, tfirsts, tdata, toffs, aslots, afirsts, adata, aoffs, skipped, stack,
                   seen, tseen, slots, gs, ge, gh, gslot, ngroups, mask, framed):
        digest  # noqa: B018  (read, so that it is a closure cell: numba hashes those into the cache key)
        return _scan(buf, I, H, D, O, OD, tslots, tfirsts, tdata, toffs, aslots, afirsts, adata, aoffs, skipped,
                     stack, seen, tseen, slots, gs, ge, gh, gslot, ngroups, mask, framed)

    return scan_entry


#: :func:`_scan`, compiled once and cached on disk (see :func:`sources_digest`); called by :func:`._kineto_scan._run`
scan_entry = _keyed_entry(sources_digest(KERNEL_MODULES))
