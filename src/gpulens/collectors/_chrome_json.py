"""Chrome-trace JSON (Kineto dialect) pieces shared by the Kineto collector: the typed ``args`` struct msgspec
decodes into (only the keys gpulens reads), the tolerant event decoder, error positions and lenient repairs.

The fast path (typed decoding with ``ts``/``dur`` kept as raw text and converted exactly to int64 ns) lives in
:mod:`gpulens.collectors._kineto_columns`; the event-by-event reading of a damaged or cut document in
:mod:`gpulens.collectors._chrome_recover` (numbers parsed as :class:`decimal.Decimal` for the same exactness: a
float64 near 1.7e15 µs has a spacing of 0.25 µs).
"""

from __future__ import annotations

import re
from typing import Any, Union

import msgspec

#: The value of an absent raw field: one shared empty ``msgspec.Raw`` (immutable; a ``default_factory`` made a new one
#: per absent field of every decoded event — three per ``args`` — in the decoder's innermost loop).
NO_RAW = msgspec.Raw()


class Args(msgspec.Struct, omit_defaults=True, gc=False):
    """The ``args`` keys gpulens reads (every other key is skipped by the decoder). Not tracked by the garbage
    collector (``gc=False``): decoded JSON values never form a cycle."""

    external_id: Any = msgspec.field(name="External id", default=None)
    external_id_legacy: Any = msgspec.field(name="external id", default=None)
    correlation: Any = None
    correlation_paddle: Any = msgspec.field(name="correlation id", default=None)  # PaddlePaddle's spelling
    start_time: Any = None  # PaddlePaddle: the exact start, "%.3f us" from the trace's first host event
    device: Any = None
    stream: Any = None
    grid: Any = None
    block: Any = None
    registers: Any = msgspec.field(name="registers per thread", default=None)
    shared_memory: Any = msgspec.field(name="shared memory", default=None)
    bytes: Any = None
    kind: Any = None
    blocks_per_sm: Any = msgspec.field(name="blocks per SM", default=None)
    warps_per_sm: Any = msgspec.field(name="warps per SM", default=None)
    est_occupancy: Any = msgspec.field(name="est. achieved occupancy %", default=None)
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=NO_RAW)
    input_dims_legacy: msgspec.Raw = msgspec.field(name="Input dims", default=NO_RAW)
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=NO_RAW)
    concrete_inputs: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=NO_RAW)
    flops: Any = None
    name: Any = None  # metadata events (process_name, thread_name)
    # ``[memory]`` instant events (profile_memory=True): kept in the Timeline's ``memory`` side table
    total_allocated: Any = msgspec.field(name="Total Allocated", default=None)
    total_reserved: Any = msgspec.field(name="Total Reserved", default=None)
    mem_bytes: Any = msgspec.field(name="Bytes", default=None)
    device_id: Any = msgspec.field(name="Device Id", default=None)
    device_type: Any = msgspec.field(name="Device Type", default=None)
    # rank identity (fused multi-rank traces: args.rank; record_param_comms: Rank)
    rank: Any = None
    rank_comms: Any = msgspec.field(name="Rank", default=None)
    # collective metadata of record_param_comms / NCCL kernels (PyTorch ParamCommsUtils)
    coll_name: Any = msgspec.field(name="Collective name", default=None)
    in_nelems: Any = msgspec.field(name="In msg nelems", default=None)
    out_nelems: Any = msgspec.field(name="Out msg nelems", default=None)
    dtype: Any = None
    group_size: Any = msgspec.field(name="Group size", default=None)
    pg_name: Any = msgspec.field(name="Process Group Name", default=None)
    pg_desc: Any = msgspec.field(name="Process Group Description", default=None)
    pg_ranks: Any = msgspec.field(name="Process Group Ranks", default=None)
    in_split: Any = msgspec.field(name="In split size", default=None)
    out_split: Any = msgspec.field(name="Out split size", default=None)
    kernel_details: Any = None  # XLA/JAX GPU ops: "regs:128 static_shared:0 dynamic_shared:73728 grid:8,8,1 …"
    memcpy_details: Any = None  # XLA/JAX GPU copies: "kind_src:pinned kind_dst:device size:4194304 dest:0 async:1"
    # ONNX Runtime Kernel events: the launch one axis per arg, each a decimal string ("grid_x": "216")
    grid_x: Any = None
    grid_y: Any = None
    grid_z: Any = None
    block_x: Any = None
    block_y: Any = None
    block_z: Any = None
    kernel: Any = None  # TensorFlow timeline on ROCm: a GPU op's kernel name (its event name is the op type)
    desc: Any = None  # rocmProfileData rpd2tracing: a GPU op's op type, a host call's arguments


class TraceHeader(msgspec.Struct):
    """Top-level keys of a Chrome/Kineto trace document read besides ``traceEvents`` — declared once; the event
    containers (:class:`LooseTrace` here, ``RawTrace`` of the Kineto column builder) extend it."""

    deviceProperties: Any = None
    computeProperties: Any = None  # Kineto of early 2021: the same list, under this name, with cudaDeviceProp keys
    distributedInfo: Any = None
    displayTimeUnit: Any = None
    baseTimeNanoseconds: Any = None
    schemaVersion: Any = None
    cuda_driver_version: Any = None
    cuda_runtime_version: Any = None
    hip_driver_version: Any = None
    hip_runtime_version: Any = None
    rocprofiler_sdk_version: Any = msgspec.field(name="rocprofiler-sdk_version", default=None)
    # gpulens profile's own record that torch saw no GPU (torch.profiler metadata, profiler.quiet.NO_DEVICE)
    gpulens_no_gpu_device: Any = None


#: Attribute names of the header fields (see :class:`TraceHeader`).
LOOSE_FIELDS: tuple[str, ...] = TraceHeader.__struct_fields__
#: (attribute, JSON key) of each header field.
HEADER_FIELDS: tuple[tuple[str, str], ...] = tuple(zip(TraceHeader.__struct_fields__,
                                                       TraceHeader.__struct_encode_fields__))


class LooseTrace(TraceHeader):
    """A trace document with its events left undecoded (``msgspec.Raw``), for decoding them one at a time."""

    traceEvents: list[msgspec.Raw] = []


class TolerantDecoder:
    """Decodes a JSON array of events into ``event_type`` structs; an event whose fields have the wrong type
    (``args`` a number, ``ph`` an object...) is dropped and counted instead of failing the whole array.

    The fast path is one typed decode (first as ``list[fast]`` when given — e.g. a union tagged by ``ph`` that
    skips the events gpulens does not read —, then as ``list[event_type]``); only when that raises
    ``msgspec.ValidationError`` is the array decoded as raw items and each validated alone as ``event_type``.
    Malformed JSON (``msgspec.DecodeError``) is raised as before.

    Attributes:
        dropped: events dropped so far; first_problem: msgspec's message for the first one.
    """

    def __init__(self, event_type: Any, fast: Any = None):
        self._fast = msgspec.json.Decoder(list[fast]) if fast is not None else None
        self._all = msgspec.json.Decoder(list[event_type])
        self._one = msgspec.json.Decoder(event_type)
        self._raw = msgspec.json.Decoder(list[msgspec.Raw])
        self._loose = msgspec.json.Decoder(Union[LooseTrace, list[msgspec.Raw]])
        self.dropped = 0
        self.first_problem: str | None = None

    def decode(self, buf: bytes) -> list[Any]:
        """Events of a JSON array (see class docstring)."""
        if self._fast is not None:
            try:
                return self._fast.decode(buf)
            except msgspec.ValidationError:
                pass
        try:
            return self._all.decode(buf)
        except msgspec.ValidationError:
            dropped, first = self.dropped, self.first_problem
            try:
                return self.each(self._raw.decode(buf))
            except msgspec.DecodeError:  # the caller reads this text again (a shorter piece, the recovery)
                self.dropped, self.first_problem = dropped, first
                raise

    def each(self, raws: list[Any], undecodable: bool = False) -> list[Any]:
        """Validate raw events one by one (``msgspec.Raw`` or plain JSON bytes), dropping the ill-typed ones.

        ``undecodable``: an event msgspec cannot decode at all (``DecodeError``, e.g. invalid UTF-8 left in it) is
        dropped and counted too, instead of raised — for events a lenient recovery already cut out, where raising
        would lose the whole file. Without it the error is raised, so that a piece reader cuts the piece shorter
        and the damaged text reaches the recovery (the same outcome wherever the pieces are cut).
        """
        errors = (msgspec.ValidationError, msgspec.DecodeError) if undecodable else msgspec.ValidationError
        out = []
        for r in raws:
            try:
                out.append(self._one.decode(r))
            except errors as exc:
                self.dropped += 1
                self.first_problem = self.first_problem or str(exc)
        return out

    def decode_doc(self, buf: bytes) -> tuple[dict[str, Any], list[Any] | None, list[Any]]:
        """A whole document (object or array form) whose typed decode raised ValidationError.

        Returns:
            (header, array, events): the top-level keys of :data:`LOOSE_FIELDS` (object form), None or ``[]`` for
            the array form, and the events that validate.

        Raises:
            msgspec.DecodeError: the text is malformed JSON (the caller's lenient recovery reads it).
        """
        dropped, first = self.dropped, self.first_problem
        try:
            doc = self._loose.decode(buf)
            if isinstance(doc, list):
                return {}, [], self.each(doc)
            return {f: getattr(doc, f) for f in LOOSE_FIELDS}, None, self.each(doc.traceEvents)
        except msgspec.DecodeError:
            self.dropped, self.first_problem = dropped, first  # the recovery reads (and counts) these events again
            raise


_BYTE_AT = re.compile(r"\(byte ([0-9]+)\)|\(char ([0-9]+)\)")


def where(data: bytes, offset: int, context: int = 24, base: tuple[int, int, int] | None = None) -> str:
    """``"line L, column C: … b'<bytes around offset>'"``: where a parser stopped, for one-line errors.

    Line and column count from 1 (column in bytes); the bytes shown are those from the offending one on. ``base``
    (``Tail.base`` of :mod:`._stream`): ``data`` is the file's first ``base[0]`` bytes followed by the text that
    starts after ``base[1]`` newlines of the file, ``base[2]`` bytes into its line — lines and columns of the file.
    """
    offset = max(0, min(offset, len(data)))
    if base is not None and offset >= base[0]:
        last = data.rfind(b"\n", base[0], offset)
        line = base[1] + data.count(b"\n", base[0], offset) + 1
        col = offset - last if last >= 0 else base[2] + offset - base[0] + 1
    else:
        line = data.count(b"\n", 0, offset) + 1
        col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    snippet = data[offset:offset + context]
    if not snippet:
        return f"line {line}, column {col}: the text ends there"
    return f"line {line}, column {col}: offending bytes {snippet!r}"


def locate(data: bytes, exc: BaseException) -> str | None:
    """:func:`where` for a msgspec error mentioning ``(byte N)``; None when the message gives no position."""
    m = _BYTE_AT.search(str(exc))
    return where(data, int(m.group(1) or m.group(2))) if m else None


_NON_FINITE = r"-?(?:Infinity|inf|NaN|nan)(?![\w.])"
#: an unquoted word or hex number as a key's value, ending where the value ends (``"datatype": ncclFloat32``,
#: ``"Stream": 0x7f3a…``: ROCm/rocm-systems PR#3216, the RCCL profiler plugin's events) — never a JSON literal
_BARE = (r"(?!(?:true|false|null)(?![\w.:]))(?:0[xX][0-9a-fA-F]+|[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.)[A-Za-z_]"
         r"[A-Za-z0-9_]*)*)(?=\s*[,}\]])")
#: a JSON string (with the non-finite value or bare word it keys, if any), or a bare non-finite value elsewhere
_REPAIRABLE = re.compile(r'(?P<s>"(?:[^"\\]|\\.)*")(?:(?P<sep>\s*:\s*)(?:(?P<v>%s)|(?P<bare>%s)))?|(?<![\w.])%s'
                         % (_NON_FINITE, _BARE, _NON_FINITE), re.S)
#: :func:`repair`'s count of the unquoted words read as text
BARE_WORDS = "unquoted values read as text"
_CONTROL = re.compile(r"[\x00-\x1f]")
#: the keys whose value is an event's time (Kineto ``ts``/``dur`` in µs, rocprofv3 JSON ``start_timestamp`` /
#: ``end_timestamp`` in ns): an infinite one is a corrupt time, never an absent one
TIME_KEYS = frozenset({"ts", "dur", "start_timestamp", "end_timestamp"})
#: :func:`repair`'s count of the infinite ``ts``/``dur`` values kept as text (their events are corrupt: refused)
NON_FINITE_TIMES = "infinite times (their events excluded)"


def repair(text: str, edits: list[tuple[int, int, int, int]] | None = None) -> tuple[str, dict[str, int]]:
    """Lenient repairs of almost-JSON (case B03): raw control characters inside strings are escaped
    (``\\u0001``), a key's unquoted word or hex value (``ncclFloat32``, ``0x7f3a``) becomes that text
    (``"ncclFloat32"``: the event it sits in is kept), and bare ``inf``/``-inf``/``nan``/``Infinity``/``NaN`` values
    become ``null`` (unknown) — except
    an infinite value of a time key (:data:`TIME_KEYS`: ``ts``, ``dur``…), kept as text (``"inf"``): a time no
    clock can hold is a corrupt event, refused and counted like ``1e308``, never an event whose time is merely not
    recorded.
    ``NaN`` stays ``null`` there too: NaN is how Python and pandas write a value not recorded (the rule of every
    collector: :func:`gpulens.collectors._dispatch.timestamps`).

    Args:
        edits: when given, one ``(start in the new text, start in ``text``, new length, old length)`` is appended
            per token changed, in order, so that positions in the repaired text can be traced back.

    Returns:
        (text, counts): the repaired text and ``{"control characters escaped": n, "non-finite numbers read as
        unknown": m, NON_FINITE_TIMES: t, BARE_WORDS: w}``.
    """
    counts = {"control characters escaped": 0, "non-finite numbers read as unknown": 0, NON_FINITE_TIMES: 0,
              BARE_WORDS: 0}
    shift = [0]  # length added by the edits so far

    def fix(m: re.Match) -> str:
        tok, key, val, bare = m.group(0), m.group("s"), m.group("v"), m.group("bare")
        if key is None:
            counts["non-finite numbers read as unknown"] += 1
            new = "null"
        else:
            if not _CONTROL.search(key) and val is None and bare is None:
                return tok
            counts["control characters escaped"] += len(_CONTROL.findall(key))
            new = _CONTROL.sub(lambda c: "\\u%04x" % ord(c.group(0)), key)
            if bare is not None:
                counts[BARE_WORDS] += 1
                new += m.group("sep") + f'"{bare}"'
            elif val is not None:
                timed = key[1:-1] in TIME_KEYS and val.lstrip("-").lower().startswith("inf")
                counts[NON_FINITE_TIMES if timed else "non-finite numbers read as unknown"] += 1
                new += m.group("sep") + (f'"{val}"' if timed else "null")
        if edits is not None:
            edits.append((m.start() + shift[0], m.start(), len(new), len(tok)))
            shift[0] += len(new) - len(tok)
        return new

    return _REPAIRABLE.sub(fix, text), counts


#: A JSON string (kept as written), a run of whitespace, or a separator: what :func:`json_text` respells.
_SPACING = re.compile(r'("(?:[^"\\]|\\.)*")|[ \t\r\n]+|([,:])', re.S)


def _respell(m: re.Match) -> str:
    return m.group(1) or (m.group(2) + " " if m.group(2) else "")


def json_text(raw: bytes) -> str:
    """The JSON text of an ``args`` value (``Input Dims``, ``Input type``, ``Concrete Inputs``) in one spelling:
    no whitespace but one space after each ``,`` and ``:`` outside strings — Kineto's own (``[[10, 10], [10]]``).

    Events read whole by msgspec keep the file's text, events read through the lenient recovery are written again
    compactly (``[[10,10],[10]]``), and other writers space differently: one shape must be one category whichever
    path read it. Applied once per distinct text (dictionary values), never per event."""
    text = raw.decode("utf-8", errors="replace")
    return _SPACING.sub(_respell, text)
