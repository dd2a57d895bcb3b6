"""Chrome-trace JSON (Kineto dialect) pieces shared by the Kineto collector: the typed ``args`` struct msgspec
decodes into (only the keys gpulens reads), and :func:`recover`, which keeps every complete event of a cut file.

The fast path (typed decoding with ``ts``/``dur`` kept as raw text and converted exactly to int64 ns) lives in
:mod:`gpulens.collectors._kineto_columns`; :func:`recover` parses numbers as :class:`decimal.Decimal` for the same
exactness (a float64 near 1.7e15 µs has a spacing of 0.25 µs).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import msgspec

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
    # ``[memory]`` instant events (profile_memory=True): kept in the Timeline's ``memory`` side table
    total_allocated: Any = msgspec.field(name="Total Allocated", default=None)
    total_reserved: Any = msgspec.field(name="Total Reserved", default=None)
    mem_bytes: Any = msgspec.field(name="Bytes", default=None)
    device_id: Any = msgspec.field(name="Device Id", default=None)
    device_type: Any = msgspec.field(name="Device Type", default=None)


_HEADER_KEYS = ("deviceProperties", "distributedInfo", "displayTimeUnit", "baseTimeNanoseconds", "schemaVersion",
                "cuda_driver_version", "cuda_runtime_version", "hip_driver_version", "hip_runtime_version")


def recover(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]], int | None, str | None]:
    """Read every complete event of a trace whose JSON is cut or whose array lacks its closing ``]``.

    Returns:
        (header, events, stop_offset, problem): ``header`` holds the top-level keys found (``deviceProperties``,
        ``baseTimeNanoseconds``...); ``events`` the complete events as dicts ``json`` parsed (numbers exact as
        Decimal); ``stop_offset`` is the byte offset where reading stopped because the rest is
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
            return {}, [], 0, "no traceEvents array found"
        pos = m.end()
        for key in _HEADER_KEYS:
            km = re.search(r'"%s"\s*:\s*' % key, text)
            if km:
                try:
                    header[key], _ = dec.raw_decode(text, km.end())
                except ValueError:
                    pass
    events: list[Any] = []
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
        if not isinstance(obj, dict):
            stop, problem = len(text[:pos].encode("utf-8")), f"event of unexpected shape ({type(obj).__name__})"
            break
        events.append(obj)
        pos = end
    return header, events, stop, problem
