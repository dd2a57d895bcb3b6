"""Kineto events → columns, one decoded piece at a time (see :mod:`gpulens.collectors._stream`).

A piece of decoded events becomes numpy columns immediately (the event structs are dropped after each piece), with
names dictionary-encoded across pieces. Times are converted exactly: ``ts``/``dur`` are kept as their raw JSON text
and parsed by integer arithmetic on the digits (:func:`us_text_to_ns`), so ``1712195495505583.123`` µs becomes
``1712195495505583123`` ns with no float64 rounding; numbers with sub-ns digits, exponents or quotes go through
:class:`decimal.Decimal` (half-even rounding), as do every number of the rare irregular ones.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Optional, Union

import msgspec
import numpy as np
import pandas as pd

from gpulens.collectors._chrome_json import NO_RAW, TIME_KEYS, Args, TraceHeader
from gpulens.collectors._numbers import TRAILING_INT, exact_int, id_of_text, int_of_float

#: A JSON scalar: what an event's ``name`` or ``cat`` may be (an array or object there makes the event ill-typed, so
#: it is dropped and counted instead of failing the dictionary encoding of the whole file).
Scalar = Union[str, int, float, bool, None]

_NUMBER = re.compile(rb"-?\d+(\.\d{1,3})?")


class _EventBody(msgspec.Struct, gc=False):
    """The fields gpulens reads from a complete (``X``) event, declared once for :class:`RawEvent` and
    :class:`XEvent`: ``ts``/``dur`` kept as raw JSON text (exact conversion happens on columns), ``name``/``cat`` a
    JSON scalar, ``args`` an object or null. ``gc=False``: decoded events hold only JSON values, never a cycle, so the
    garbage collector need not track them."""

    cat: Scalar = None
    name: Scalar = None
    pid: Any = None
    tid: Any = None
    ts: msgspec.Raw = NO_RAW
    dur: msgspec.Raw = NO_RAW
    args: Union[Args, None] = None


class RawEvent(_EventBody, gc=False):
    """One trace event of any ``ph`` (including none), with the fields of :class:`_EventBody`: the general form,
    used when a piece does not decode as :data:`FastEvent`."""

    ph: Any = None


class RawTrace(TraceHeader):
    """Top level of a Kineto trace (object form): the header fields of :class:`TraceHeader`, events with raw
    times."""

    traceEvents: list[RawEvent] = []


# -- the fast path: a union tagged by ``ph`` ------------------------------------------------------------------------
# msgspec picks the struct from the ``ph`` value, so the events gpulens does not read (flow ``s``/``f``/``t``,
# counters, async...) become empty structs whose keys are skipped, not a 7-field struct each. Every struct accepts
# exactly what :class:`RawEvent` accepts (``args`` an object or null), so an ill-typed event fails the same way; a
# ``ph`` outside the tags (or absent) fails the whole piece, which is then decoded as ``list[RawEvent]``.


class _Tagged(msgspec.Struct, gc=False, tag_field="ph"):
    """Base of the tagged event structs (``ph`` is the tag; ``ph`` is also a class attribute, so code written for
    :class:`RawEvent` reads it the same way)."""


class _AnyArgs(msgspec.Struct, gc=False):
    """An ``args`` object whose keys are not read (validated as an object, contents skipped)."""


class XEvent(_EventBody, gc=False, tag_field="ph", tag="X"):
    """A complete event (``ph`` X): the rows of the Timeline (fields of :class:`_EventBody`)."""

    ph: ClassVar[str] = "X"


class BeginEvent(_EventBody, gc=False, tag_field="ph", tag="B"):
    """A duration-begin event (``ph`` B): paired with its ``E`` on the same (pid, tid) into a complete event by
    :meth:`gpulens.collectors._kineto_acc._Accumulator.close_begin_end`; one never ended is not extended."""

    ph: ClassVar[str] = "B"


class EndEvent(_EventBody, gc=False, tag_field="ph", tag="E"):
    """A duration-end event (``ph`` E): closes the latest open ``B`` of its (pid, tid)."""

    ph: ClassVar[str] = "E"


class MetaEvent(_Tagged, tag="M"):
    """A metadata event (``ph`` M: process and thread names)."""

    ph: ClassVar[str] = "M"
    name: Scalar = None
    pid: Any = None
    tid: Any = None
    args: Union[Args, None] = None


class InstantEvent(_Tagged, tag="i"):
    """An instant event (``ph`` i; ``[memory]`` events of ``profile_memory``)."""

    ph: ClassVar[str] = "i"
    name: Scalar = None
    ts: msgspec.Raw = NO_RAW
    args: Union[Args, None] = None


class InstantEventLegacy(InstantEvent, tag="I"):
    """An instant event spelt ``ph`` I (older Chrome traces)."""

    ph: ClassVar[str] = "I"


def _skipped(phase: str) -> type:
    return msgspec.defstruct(f"Skipped_{ord(phase)}", [("args", Union[_AnyArgs, None], None)], bases=(_Tagged,),
                             tag=phase, namespace={"ph": phase, "__annotations__": {"ph": ClassVar[str]}})


#: Trace Event Format phases gpulens does not read (Chrome's "Trace Event Format" document): counters, async, flow,
#: sample, object, mark, context, legacy async. (Duration begin/end ``B``/``E`` are read: :class:`BeginEvent`.)
SKIPPED_PHASES = ("C", "b", "n", "e", "s", "t", "f", "P", "O", "N", "D", "R", "S", "T", "p", "F", "c",
                  "(", ")", "V", "v")
FastEvent = Union[(XEvent, BeginEvent, EndEvent, MetaEvent, InstantEvent, InstantEventLegacy)
                  + tuple(_skipped(p) for p in SKIPPED_PHASES)]


class FastTrace(TraceHeader):
    """Top level of a trace whose events all decode as :data:`FastEvent`."""

    traceEvents: list[FastEvent] = []


EVENTS_DECODER = msgspec.json.Decoder(list[RawEvent])
TRACE_DECODER = msgspec.json.Decoder(Union[RawTrace, list[RawEvent]])
FAST_EVENTS_DECODER = msgspec.json.Decoder(list[FastEvent])
FAST_TRACE_DECODER = msgspec.json.Decoder(Union[FastTrace, list[FastEvent]])
_NUMBER_ENCODER = msgspec.json.Encoder(decimal_format="number")


def from_plain(obj: Any) -> RawEvent:
    """A RawEvent from an event already parsed by ``json`` (with ``parse_float=Decimal``), numbers kept exact."""
    return msgspec.json.decode(plain_bytes(obj), type=RawEvent, strict=False)


def plain_bytes(obj: Any, replaced: list[int] | None = None) -> bytes:
    """JSON bytes of an event parsed by ``json`` (Decimal numbers written exactly), to decode as a RawEvent. A lone
    surrogate (``"\\ud800"``, valid JSON syntax but no character) becomes one U+FFFD instead of failing the file;
    ``replaced`` (``[characters, events]``), when given, counts them. A ``ts``/``dur`` that ``json`` read as an
    infinite float (``Infinity``, ``-Infinity``) is written as text (:func:`infinite_times_as_text`): a corrupt
    time, refused like ``1e308``, never "not recorded" (the ``null`` msgspec would write; ``NaN`` stays that)."""
    obj = infinite_times_as_text(obj)
    try:
        return _NUMBER_ENCODER.encode(obj)
    except UnicodeEncodeError:
        n = [0]
        out = _NUMBER_ENCODER.encode(no_surrogates(obj, n))
        if replaced is not None:
            replaced[0] += n[0]
            replaced[1] += 1
        return out


def infinite_times_as_text(obj: Any) -> Any:
    """``obj`` (an event parsed by ``json`` with ``parse_float=Decimal``: its only floats are ``NaN``/``Infinity``
    /``-Infinity``) with an infinite ``ts`` or ``dur`` (:data:`~._chrome_json.TIME_KEYS`) replaced by its text
    (``"inf"``, ``"-inf"``); anything else as it is."""
    def inf(v: Any) -> bool:
        return isinstance(v, float) and v in (float("inf"), float("-inf"))

    if isinstance(obj, dict) and any(inf(obj.get(k)) for k in TIME_KEYS):
        return {k: (repr(v) if k in TIME_KEYS and inf(v) else v) for k, v in obj.items()}
    return obj


_SURROGATE = re.compile("[\ud800-\udfff]")  # json pairs valid surrogates into one character: these are lone


def no_surrogates(o: Any, n: list[int]) -> Any:
    """``o`` (parsed JSON) with each lone surrogate replaced by U+FFFD; ``n[0]`` counts them."""
    if isinstance(o, str):
        out, k = _SURROGATE.subn("\ufffd", o)
        n[0] += k
        return out
    if isinstance(o, dict):
        return {no_surrogates(k, n): no_surrogates(v, n) for k, v in o.items()}
    if isinstance(o, list):
        return [no_surrogates(v, n) for v in o]
    return o


def int_or_none(v: Any) -> int | None:
    """An id that may be an int, a whole float, a numeric string or a label ending in a number ("stream 7"), as an
    int64; None for anything else (``inf``, ``nan``, 2^64, a fraction)."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, float):
        v = int_of_float(v)
    elif isinstance(v, str):
        v = id_of_text(v)
    return v if isinstance(v, int) and -(1 << 63) <= v < (1 << 63) else None  # an int64, or unknown


def _slow_ns(text: bytes) -> Optional[int]:
    """One number's text (µs) → ns via Decimal (half-even); None for null/absent/non-numbers."""
    t = text.strip()
    if not t or t == b"null":
        return None
    if t[:1] == b'"':
        t = t[1:-1]
    return exact_int(t, 3)  # bounded: no huge integer from "1e4000400", None beyond int64


def us_text_to_ns(raws: list) -> tuple[np.ndarray, np.ndarray]:
    """Raw JSON numbers in µs → (int64 ns, valid mask), exactly.

    Regular numbers (``-?digits[.d{1,3}]``, at most 16 integer digits, no int64 overflow) are parsed by vectorised integer arithmetic
    on their digits (Horner's scheme column by column, then ×10^(3−decimals)); anything else (more decimals,
    exponent, string, null, absent) goes through :func:`_slow_ns` one by one; values beyond int64 ns are invalid.
    """
    n = len(raws)
    out = np.zeros(n, dtype=np.int64)
    valid = np.ones(n, dtype=bool)
    if n == 0:
        return out, valid
    joined = b"\n".join(raws)
    if joined.count(b"\n") != n - 1:
        # a JSON number's text never holds a raw newline, but an object/array value spread over lines does: it is no
        # number, so it is replaced by a non-digit (irregular → _slow_ns → invalid) before splitting
        raws = [b"[]" if b"\n" in bytes(r) else r for r in raws]
        joined = b"\n".join(raws)
    texts = joined.split(b"\n")
    # texts longer than any regular number go to the slow path: the digit matrix below is n × the longest text
    # (one 140 kB "ts" made it 140,000 numpy passes; in a 1M-event trace, a 140 GB matrix)
    cut = np.flatnonzero(np.frombuffer(joined, dtype=np.uint8) == 10)
    lens = np.diff(np.concatenate(([-1], cut, [len(joined)]))) - 1
    long_texts = {int(i): texts[i] for i in np.flatnonzero(lens > _REGULAR_MAX)}
    for i in long_texts:
        texts[i] = b"x"  # not a digit: irregular, read from long_texts by _slow_ns
    arr = np.array(texts, dtype=bytes)
    w = arr.dtype.itemsize
    if w == 0:
        return out, np.zeros(n, dtype=bool)
    m = np.ascontiguousarray(arr.view(np.uint8).reshape(n, w).T)  # one contiguous row per character position
    acc = np.zeros(n, dtype=np.int64)
    accf = np.zeros(n, dtype=np.float64)  # the same in float, to detect int64 overflow
    ndig = np.zeros(n, dtype=np.int64)
    frac = np.full(n, -1, dtype=np.int64)  # digits after the dot (-1: no dot yet)
    dots = np.zeros(n, dtype=np.int64)
    other = np.zeros(n, dtype=bool)
    neg = m[0] == 45
    for j in range(w):
        c = m[j]
        d = c - np.uint8(48)
        isd = d <= 9
        dd = np.where(isd, d, 0)
        acc = np.where(isd, acc * 10, acc) + dd
        accf = np.where(isd, accf * 10, accf) + dd
        ndig += isd
        frac += isd & (frac >= 0)
        isdot = c == 46
        frac[isdot] = 0
        dots += isdot
        other |= ~isd & ~isdot & (c != 0) & ~((c == 45) & (j == 0))
    frac = np.maximum(frac, 0)
    intdig = ndig - frac
    scale = _POW10[3 - np.minimum(frac, 3)]
    regular = ~other & (dots <= 1) & (frac <= 3) & (intdig >= 1) & (ndig >= 1) & (accf * scale < 9.2e18)
    out = acc * scale
    out = np.where(neg, -out, out)
    for i in np.flatnonzero(~regular):
        v = _slow_ns(long_texts.get(int(i), texts[i]))
        if v is None or not -(1 << 63) <= v < (1 << 63):
            valid[i] = False
            out[i] = 0
        else:
            out[i] = v
    return out, valid


_POW10 = np.array([1, 10, 100, 1000], dtype=np.int64)
_REGULAR_MAX = 32  # bytes: a regular number is at most a sign, 16 digits, a dot and 3 decimals (21)


def int_array(vals: list, bad: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Python ids (int, float, numeric or labelled strings, None) → (int64 values, valid mask).

    Plain ints (with or without None) convert in C; strings such as ``"stream 7"`` take the per-value path.
    With ``bad``, the number of values that are numbers but no int64 (2^64, 1e30, nan, ``"stream 99…9"``) or JSON
    booleans is appended to it (absent values and labels without a number are not counted: they were never numbers).
    """
    n = len(vals)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    # JSON true/false is no id (numpy would read true as 1: a kernel on a GPU 1 that does not exist), nor is a
    # fraction (numpy would cut 7.5 to 7, 5e-324 to 0): such a list takes the per-value path, where either is unknown
    types = set(map(type, vals))
    per_value = bool in types or float in types
    if not per_value:
        try:
            return np.fromiter(vals, dtype=np.int64, count=n), np.ones(n, dtype=bool)
        except (TypeError, ValueError, OverflowError):
            pass
    obj = np.empty(n, dtype=object)
    obj[:] = vals
    valid = ~np.equal(obj, None)
    sub = obj[valid]
    if not per_value and not any(isinstance(v, (str, float)) for v in sub[:1]):
        try:
            out = np.zeros(n, dtype=np.int64)
            out[valid] = sub.astype(np.int64)
            return out, valid
        except (TypeError, ValueError, OverflowError):
            pass
    # a label ("stream 7") repeats on every event of its row: parsed once per distinct text (400,000 parses of one
    # label were 6 s of CPU time); other values are cheap or unhashable
    labels = {v: int_or_none(v) for v in set(v for v in vals if type(v) is str)} if str in types else {}
    conv = [c if c is not None and -(1 << 63) <= c < (1 << 63) else None
            for c in (labels[v] if type(v) is str else int_or_none(v) for v in vals)]
    valid = np.fromiter((c is not None for c in conv), dtype=bool, count=n)
    if bad is not None:
        bad.append(sum(1 for v, c in zip(vals, conv) if c is None and (  # true/false too: a value, not an id
            isinstance(v, (int, float)) or isinstance(v, str) and TRAILING_INT.search(v) is not None)))
    return np.fromiter((c if c is not None else 0 for c in conv), dtype=np.int64, count=n), valid


def release_free_memory() -> None:
    """Give the C heap's free pages back to the OS (glibc ``malloc_trim``; a no-op elsewhere).

    Decoding millions of small objects and freeing them leaves the heap fragmented: without this, the resident size
    after loading a 1M-kernel trace stays ~0.7 GB above what the Timeline holds, and every later step starts there.
    """
    global _TRIM
    if _TRIM is None:
        from gpulens._memory import libc

        lib = libc()
        _TRIM = getattr(lib, "malloc_trim", False) if lib is not None else False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None
#: Trace text [bytes] below which a file's load does not call :func:`release_free_memory`: its decoded structs hold
#: a few MiB at most, while ``malloc_trim`` walks the whole heap (pandas, numpy and the earlier files included): ≈ 5 ms
#: per small rank file of a folder.
TRIM_AFTER_BYTES = 4 << 20


def take(table: np.ndarray, codes: np.ndarray, missing: Any) -> np.ndarray:
    """``table[codes]`` where ``codes >= 0``, ``missing`` where a code is -1 (absent value).

    Dictionary codes use -1 for "not recorded"; indexing a lookup array with it would silently return the *last*
    entry (numpy negative indexing), so every per-code lookup goes through here.
    """
    codes = np.asarray(codes)
    table = np.asarray(table)
    if not len(table):
        return np.full(len(codes), missing)
    return np.where(codes >= 0, table[np.maximum(codes, 0)], missing)


def used_codes(codes: np.ndarray, size: int) -> np.ndarray:
    """The distinct codes ``>= 0`` of an integer array whose codes are all ``< size``, ascending (int64): what
    ``np.unique(codes[codes >= 0])`` gives, by counting (one pass, a ``size``-long count) instead of hashing or
    sorting the rows — ~1 ms per million codes instead of ~50."""
    codes = np.asarray(codes)
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    if codes.dtype.itemsize == 1:  # int8 / uint8 codes: -1 counted as 255 (uint8 view), then left out
        counts = _chunked_bincount(codes.view(np.uint8), 256)
        return np.flatnonzero(counts[:128 if codes.dtype.kind == "i" else 256]).astype(np.int64)
    if int(codes.min()) < 0:
        codes = codes[codes >= 0]
    return np.flatnonzero(_chunked_bincount(codes, size)).astype(np.int64, copy=False)


#: rows counted at a time by :func:`_chunked_bincount`: numpy's ``bincount`` first converts its input to an intp
#: array; per chunk that copy (512 KiB) stays in the cache, instead of one fresh 8-byte-per-row array of every row
#: (24 MiB at 3M rows; int8 codes at 1M kernels: 42–57 ms a call in the collector's large process, 5 ms chunked)
_BINCOUNT_CHUNK = 1 << 16


def _chunked_bincount(values: np.ndarray, size: int) -> np.ndarray:
    """``np.bincount(values, minlength=size)`` of non-negative integers, counted :data:`_BINCOUNT_CHUNK` rows at a
    time (same counts; longer than ``size`` when a value is ``>= size``, as numpy's)."""
    if len(values) <= _BINCOUNT_CHUNK:
        return np.bincount(values, minlength=size)
    counts = np.zeros(size, dtype=np.intp)
    for i in range(0, len(values), _BINCOUNT_CHUNK):
        part = np.bincount(values[i:i + _BINCOUNT_CHUNK], minlength=size)
        if len(part) > len(counts):
            part[:len(counts)] += counts
            counts = part
        else:
            counts += part
    return counts


def nullable(values: np.ndarray, valid: np.ndarray) -> pd.arrays.IntegerArray:
    """(int64 values, valid mask) → pandas ``Int64`` array."""
    return pd.arrays.IntegerArray(values.astype(np.int64, copy=False), ~valid)


class Dictionary:
    """Dictionary-encodes strings across pieces: text → stable int code."""

    def __init__(self) -> None:
        self.codes: dict[Any, int] = {}
        self.values: list[Any] = []

    def encode(self, items: list) -> np.ndarray:
        """Codes of ``items`` (a list or an object array; None stays -1)."""
        if not len(items):
            return np.zeros(0, dtype=np.int32)
        local, uniq = pd.factorize(np.array(items, dtype=object), use_na_sentinel=True)
        m = np.empty(len(uniq) + 1, dtype=np.int32)
        m[-1] = -1
        for j, u in enumerate(uniq):
            m[j] = self.code(u)
        return m[local]

    def code(self, value: Any) -> int:
        """The code of one value, a new one (the next number) when it was not seen before."""
        c = self.codes.get(value)
        if c is None:
            c = self.codes[value] = len(self.values)
            self.values.append(value)
        return c

    def text(self, code: int, missing: str = "") -> str:
        """The stored value of one code as text; ``missing`` for -1 (never the last entry)."""
        if code < 0:
            return missing
        v = self.values[code]
        return v if isinstance(v, str) else str(v)

    def categorical(self, codes: np.ndarray, text: Any = None) -> pd.Categorical:
        """A pandas Categorical of ``codes`` with sorted string categories, only those used (``text`` maps stored
        values to their shown string; values that print the same are merged)."""
        empty = pd.Index([], dtype="str")
        if not len(codes):
            return pd.Categorical([], categories=empty)
        used = used_codes(codes, len(self.values))
        if not len(used):
            return pd.Categorical.from_codes(codes, categories=empty)
        cats = np.array([text(self.values[i]) if text else self.values[i] for i in used], dtype=object)
        uniq, inv = np.unique(cats, return_inverse=True)
        from gpulens.collectors._assemble import categorical, code_dtype  # dtype cached per category list

        remap = np.full(len(self.values) + 1, -1, dtype=code_dtype(len(uniq)))  # codes made in their stored dtype
        remap[used] = inv
        return categorical(remap[codes], uniq)


_I32 = np.iinfo(np.int32)


def fits_int32(v: np.ndarray) -> bool:
    """True when every value of the integer array ``v`` lies in the int32 range (an empty array fits)."""
    return not len(v) or (int(v.min()) >= _I32.min and int(v.max()) <= _I32.max)


def _codes_to_named_cat(codes: np.ndarray, names: list[str]):
    """Categorical of ``names[code]`` with sorted categories, only those used (duplicate names merged)."""
    from gpulens.collectors._assemble import categorical, code_dtype

    used = used_codes(codes, len(names))
    cats = sorted({names[u] for u in used})
    remap = np.zeros(len(names), dtype=code_dtype(len(cats)))
    for u in used:
        remap[u] = cats.index(names[u])
    return categorical(remap[codes], cats)
