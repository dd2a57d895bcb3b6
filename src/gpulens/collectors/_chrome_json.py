"""Typed, fast decoding of Chrome-trace JSON (the Kineto dialect) with msgspec, plus recovery of cut files.

The decoder keeps only the fields gpulens uses; timestamps decode as :class:`decimal.Decimal` so that ns-resolution
traces (``ts`` in µs with three decimals, e.g. ``1712195495505583.123``) convert to int64 ns without the float64
rounding error (a float64 near 1.7e15 µs has a spacing of 0.25 µs).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Optional, Union

import msgspec

Number = Union[int, float, str, None]


class Args(msgspec.Struct, omit_defaults=True):
    """The ``args`` keys gpulens reads (every other key is skipped by the decoder)."""

    external_id: Any = msgspec.field(name="External id", default=None)
    external_id_legacy: Any = msgspec.field(name="external id", default=None)
    correlation: Any = None
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
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default_factory=msgspec.Raw)
    input_dims_legacy: msgspec.Raw = msgspec.field(name="Input dims", default_factory=msgspec.Raw)
    input_type: msgspec.Raw = msgspec.field(name="Input type", default_factory=msgspec.Raw)
    flops: Any = None
    name: Any = None  # metadata events (process_name, thread_name)


class Event(msgspec.Struct):
    """One trace event; only ``X`` (complete) events become Timeline rows."""

    ph: Any = None
    cat: Any = None
    name: Any = None
    pid: Any = None
    tid: Any = None
    ts: Union[Decimal, None] = None
    dur: Union[Decimal, None] = None
    args: Union[Args, None] = None


class Trace(msgspec.Struct):
    """Top level of a Kineto trace (object form)."""

    traceEvents: list[Event] = []
    deviceProperties: Any = None
    distributedInfo: Any = None
    displayTimeUnit: Any = None
    baseTimeNanoseconds: Any = None
    schemaVersion: Any = None
    cuda_driver_version: Any = None
    cuda_runtime_version: Any = None
    hip_driver_version: Any = None
    hip_runtime_version: Any = None


_DECODER = msgspec.json.Decoder(Union[Trace, list[Event]])
_EVENT_DECODER = msgspec.json.Decoder(Event)
_HEADER_KEYS = ("deviceProperties", "distributedInfo", "displayTimeUnit", "baseTimeNanoseconds", "schemaVersion",
                "cuda_driver_version", "cuda_runtime_version", "hip_driver_version", "hip_runtime_version")


def decode(data: bytes) -> Trace:
    """Decode a complete trace (object or array form).

    Raises:
        msgspec.DecodeError / msgspec.ValidationError: malformed or truncated JSON.
    """
    out = _DECODER.decode(data)
    if isinstance(out, list):
        return Trace(traceEvents=out)
    return out


def recover(data: bytes) -> tuple[Trace, int | None, str | None]:
    """Read every complete event of a trace whose JSON is cut or whose array lacks its closing ``]``.

    Returns:
        (trace, stop_offset, problem): ``stop_offset`` is the byte offset where reading stopped because the rest is
        incomplete or malformed (None when the file merely ends without the legal-to-omit ``]`` of the array form);
        ``problem`` describes it.
    """
    text = data.decode("utf-8", errors="replace")
    dec = json.JSONDecoder(parse_float=Decimal)
    stripped = text.lstrip()
    header: dict[str, Any] = {}
    if stripped.startswith("["):
        pos = text.index("[") + 1
    else:
        m = re.search(r'"traceEvents"\s*:\s*\[', text)
        if not m:
            return Trace(), 0, "no traceEvents array found"
        pos = m.end()
        for key in _HEADER_KEYS:
            km = re.search(r'"%s"\s*:\s*' % key, text)
            if km:
                try:
                    header[key], _ = dec.raw_decode(text, km.end())
                except ValueError:
                    pass
    events: list[Event] = []
    n = len(text)
    stop: int | None = None
    problem: str | None = None
    while True:
        while pos < n and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= n:
            if not stripped.startswith("["):
                stop, problem = pos, "file ends inside traceEvents"
            break
        if text[pos] == "]":
            break
        try:
            obj, end = dec.raw_decode(text, pos)
        except ValueError as exc:
            stop, problem = len(text[:pos].encode("utf-8")), f"incomplete or malformed event ({exc.msg})"
            break
        try:
            events.append(msgspec.convert(obj, Event, strict=False))
        except msgspec.ValidationError as exc:
            stop, problem = len(text[:pos].encode("utf-8")), f"event of unexpected shape ({exc})"
            break
        pos = end
    hdr = {k: v for k, v in header.items()}
    return Trace(traceEvents=events, **hdr), stop, problem
