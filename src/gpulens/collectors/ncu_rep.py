"""Nsight Compute binary report (``.ncu-rep``) → Timeline + Counters + rule results, via NVIDIA's ``ncu_report``.

Needs the optional extra ``pip install 'gpulens[ncu]'`` (from a checkout ``pip install '.[ncu]'``; the ``ncu-report`` package from PyPI, imported lazily);
without it :class:`~gpulens.errors.DependencyError` names the extra. The file must start with the report magic
``NVR\\0``: ``ncu_report.load_report`` accepts any file silently (a text file loads as a report with no ranges), so
the magic is checked first and a file without it is a :class:`~gpulens.errors.TraceFormatError`.

Every action (kernel launch) of every range becomes one launch, in report order. Each metric with a numeric value
becomes a Counters row (name exactly as ncu spells it, value converted to base units as in
:mod:`gpulens.collectors._ncu_units`); string metrics (``device__attribute_display_name``) fill the device table.
Rule results go to ``tables["ncu_rules"]``: ``rule`` is the rule identifier, ``section`` its section identifier,
``description`` the message title and text, ``type`` the message type in the words of ncu's CSV export's "Rule Type"
column (:func:`rule_type`: the report stores a number), ``speedup_type``/``estimated_speedup_pct`` from the rule's
speedup estimate when it has one.
Start times are synthetic, as for the CSV (see :mod:`gpulens.collectors._ncu`).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors import _ncu
from gpulens.collectors._io import read_magic
from gpulens.collectors.base import Collector
from gpulens.errors import DependencyError, TraceFormatError, TruncationNote
from gpulens.timeline import Timeline
from gpulens.units import plural

MAGIC = b"NVR\x00"
EXTRA = "ncu"
PACKAGE = "ncu-report"


def load_module(path: Path | None = None) -> Any:
    """Import ``ncu_report`` lazily.

    Raises:
        DependencyError: the package is not installed (message: ``pip install 'gpulens[ncu]'``).
    """
    try:
        return importlib.import_module("ncu_report")
    except ImportError:
        what = f"{path}: reading .ncu-rep reports" if path is not None else "reading .ncu-rep reports"
        raise DependencyError(PACKAGE, what, extra=EXTRA) from None


def _varint(b: bytes, i: int) -> tuple[int, int]:
    """A protobuf base-128 varint at ``b[i:]`` → (value, next offset); IndexError/ValueError when cut or too long."""
    x = shift = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7F) << shift
        if c < 0x80:
            return x, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _header_fields(header: bytes) -> dict[int, int] | None:
    """The varint fields (number → value) of a report block header (protobuf wire format); None when unreadable."""
    i, found = 0, {}
    try:
        while i < len(header):
            key, i = _varint(header, i)
            field, wire = key >> 3, key & 7
            if wire == 0:
                found[field], i = _varint(header, i)
            elif wire == 2:
                n, i = _varint(header, i)
                i += n
            elif wire == 1:
                i += 8
            elif wire == 5:
                i += 4
            else:
                return None
    except (IndexError, ValueError):
        return None
    return found if i == len(header) else None


def _payload_size(header: bytes) -> int | None:
    """Field 5 (``PayloadSize``) of a report block header (protobuf wire format); None when unreadable."""
    fields = _header_fields(header)
    return None if fields is None else fields.get(5)


#: Block header field 2 of a block holding one profiled result (one kernel launch): in the real reports of two
#: Nsight Compute releases (tests/data/nvidia/h200/h200_kernels.ncu-rep, 4 launches;
#: ../shared/traces/ncu/lashi_rtx4090_simpleDivergence.ncu-rep, 4 launches) exactly the blocks with field 2 = 1 are
#: as many as the launches ``ncu_report`` reads; the session, device and process blocks have field 2 = 0.
_RESULT_BLOCK = 1


def framing(data: bytes) -> tuple[int, int | None]:
    """Walk the block framing of a ``.ncu-rep`` and say where it ends.

    Layout (read from real reports of several Nsight Compute releases, not from a published spec): the magic
    ``NVR\\0``; a little-endian uint32 length and the file header; then blocks, each a uint32 length, a block header
    (protobuf; field 5 = ``PayloadSize``) and that many payload bytes. Returns (complete blocks, byte offset where the
    data stops being complete — None when every block is whole or the framing is not understood, in which case
    nothing is claimed)."""
    blocks, cut, _ = _walk(data)
    return blocks, cut


def result_blocks(data: bytes) -> int:
    """How many complete blocks of ``data`` hold a profiled result (:data:`_RESULT_BLOCK`): the launches a reader
    should find. 0 when the framing is not understood (nothing is claimed)."""
    return _walk(data)[2]


def _walk(data: bytes) -> tuple[int, int | None, int]:
    """(complete blocks, where the data stops being complete or None, complete result blocks) of :func:`framing`."""
    import struct

    if len(data) < 8:
        return 0, len(data), 0
    (hlen,) = struct.unpack_from("<I", data, 4)
    i = 8 + hlen
    if i > len(data):
        return 0, 4, 0
    blocks = results = 0
    while i < len(data):
        if i + 4 > len(data):
            return blocks, i, results
        (blen,) = struct.unpack_from("<I", data, i)
        if i + 4 + blen > len(data):
            return blocks, i, results
        fields = _header_fields(data[i + 4:i + 4 + blen])
        size = None if fields is None else fields.get(5)
        if size is None:
            return blocks, None, 0  # not the framing this reader knows: claim nothing
        end = i + 4 + blen + size
        if end > len(data):
            return blocks, i, results
        blocks, i = blocks + 1, end
        results += fields.get(2) == _RESULT_BLOCK
    return blocks, None, results


#: ncu's rule message types (NvRules ``IFrontend::MsgType``; ``ncu_report.MsgType``: NONE 0, OK 1 "informative",
#: OPTIMIZATION 2, WARNING 3 "a warning or fixable issue", ERROR 4 in ncu_report 2026.3, read by name) in the words
#: of the CSV export's "Rule Type" column (OPT, WRN, INF, ERR; NONE: no type, as the CSV leaves it empty).
MSG_TYPE_WORDS = {"NONE": "", "OK": "INF", "OPTIMIZATION": "OPT", "WARNING": "WRN", "ERROR": "ERR", "ERR": "ERR"}
#: The same by number, for a binding without the ``MsgType`` enum (values of ncu_report 2026.3.1).
MSG_TYPE_NUMBERS = {0: "", 1: "INF", 2: "OPT", 3: "WRN", 4: "ERR"}


#: A stored speedup estimate's type (``ncu_report.SpeedupType``: UNKNOWN 0, LOCAL 1, GLOBAL 2 in ncu_report
#: 2026.3.1) in the CSV export's words. Not ``IFrontend.SpeedupType_LOCAL``/``_GLOBAL`` (0 and 1: the rule-writing
#: API's numbering): compared with those, an H200 report's local estimates (1) all read as global.
SPEEDUP_TYPE_NUMBERS = {0: "", 1: "local", 2: "global"}


def speedup_type(mod: Any, value: Any) -> str:
    """``"local"``, ``"global"`` or ``""`` (unknown) for a stored estimate's type as ``ncu_report`` returns it: named
    through the module's ``SpeedupType`` enum when it has one, else :data:`SPEEDUP_TYPE_NUMBERS`; an unknown value
    is ``""`` (the estimate is then read as the CSV's untyped ones are)."""
    name = getattr(value, "name", None)
    if not isinstance(name, str):
        enum = getattr(mod, "SpeedupType", None)
        try:
            name = enum(value).name if enum is not None and isinstance(value, int) else None
        except (ValueError, TypeError):
            name = None
    if isinstance(name, str):
        return {"LOCAL": "local", "GLOBAL": "global"}.get(name.upper(), "")
    return SPEEDUP_TYPE_NUMBERS.get(value, "") if isinstance(value, int) else ""


def rule_type(mod: Any, value: Any) -> str:
    """The CSV export's word for a rule message type as ``ncu_report`` returns it (an int, or an ``IntEnum``):
    named through the module's own ``MsgType`` enum when it has one (its numbering is the binding's, not the
    file's), else :data:`MSG_TYPE_NUMBERS`; a word already (``"OPT"``) is kept; an unknown number is
    ``"unknown (<n>)"``, never a bare number shown as a type."""
    if value is None or value == "":
        return ""
    name = getattr(value, "name", None)
    if isinstance(name, str) and name.upper() in MSG_TYPE_WORDS:
        return MSG_TYPE_WORDS[name.upper()]
    try:
        n = int(value)
    except (TypeError, ValueError):
        word = str(value).strip().upper()
        return MSG_TYPE_WORDS.get(word, word)
    enum = getattr(mod, "MsgType", None)
    if enum is not None:
        try:
            return MSG_TYPE_WORDS.get(enum(n).name.upper(), f"unknown ({n})")
        except (ValueError, TypeError, AttributeError):
            return f"unknown ({n})"
    return MSG_TYPE_NUMBERS.get(n, f"unknown ({n})")


def _value(metric: Any) -> Any:
    try:
        return metric.value()
    except Exception:  # noqa: BLE001 - the binding raises plain exceptions for metrics without a value
        return None


class NcuRepCollector(Collector):
    """Nsight Compute ``.ncu-rep`` report (see module docstring)."""

    name = "ncu_rep"
    suffixes = (".ncu-rep",)
    priority = 10

    def sniff(self, path: Path, head: bytes) -> bool:
        return head[:4] == MAGIC

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        from gpulens.collectors._sqlite import unpacked_file

        path = Path(path)
        plain = unpacked_file(path, "Nsight Compute report")  # a gzip-compressed report: its decompressed copy (B02)
        head = read_magic(plain, 4)
        if head != MAGIC:
            raise TraceFormatError(path, "not an Nsight Compute report (missing the NVR\\0 magic bytes)")
        mod = load_module(path)
        data = plain.read_bytes()
        blocks, cut, results = _walk(data)
        if cut is not None and blocks == 0:
            raise TraceFormatError(path, f"not a complete Nsight Compute report: its header declares more than the "
                                         f"file's {len(data):,} bytes (truncated or corrupt)")
        cut_note = [] if cut is None else [TruncationNote(
            f"{path}: truncated Nsight Compute report: {plural(blocks, 'complete block(s)')}, the rest from byte "
            f"{cut:,} of "
            f"{len(data):,} is cut off or corrupt — launches and metrics in it are lost (partial)", path, cut)]
        try:
            ctx = mod.load_report(str(plain))
        except Exception as exc:  # noqa: BLE001 - any failure of the vendor library is a bad input
            raise TraceFormatError(path, f"ncu_report could not read it ({exc})") from None
        launches: list[dict[str, Any]] = []
        strings: list[dict[str, str]] = []
        mparts: dict[str, list] = {"launch": [], "section": [], "metric": [], "unit": [], "value": []}
        rparts: dict[str, list] = {k: [] for k in ("launch", "section", "rule", "type", "description",
                                                   "speedup_type", "estimated_speedup_pct")}
        for ri in range(ctx.num_ranges()):
            rng = ctx.range_by_idx(ri)
            for ai in range(rng.num_actions()):
                act = rng.action_by_idx(ai)
                li = len(launches)
                names = act.metric_names()
                vals = {n: _value(act[n]) for n in names}
                units = {n: act[n].unit() or "" for n in names}
                launches.append({"id": li, "name": act.name(mod.IAction.NameBase_DEMANGLED),
                                 "device": vals.get("launch__device_id"), "stream": vals.get("launch__stream_id")})
                s: dict[str, str] = {}
                for n in names:
                    v = vals[n]
                    if isinstance(v, str):
                        s[n] = v
                    elif isinstance(v, (int, float)) and not isinstance(v, bool):
                        mparts["launch"].append(li), mparts["section"].append("")
                        mparts["metric"].append(n), mparts["unit"].append(units[n]), mparts["value"].append(float(v))
                strings.append(s)
                for rr in act.rule_results():
                    msg = rr.rule_message() or {}
                    sp = rr.speedup_estimation() if rr.has_speedup_estimation() else None
                    rparts["launch"].append(li)
                    rparts["section"].append(rr.section_identifier())
                    rparts["rule"].append(rr.rule_identifier())
                    rparts["type"].append(rule_type(mod, msg.get("type")))
                    rparts["description"].append(": ".join(x for x in (msg.get("title"), msg.get("message")) if x))
                    if isinstance(sp, dict):
                        rparts["speedup_type"].append(speedup_type(mod, sp.get("type")))
                        rparts["estimated_speedup_pct"].append(float(sp.get("speedup", np.nan)))
                    else:
                        num = float(sp) if isinstance(sp, (int, float)) and not isinstance(sp, bool) else np.nan
                        rparts["speedup_type"].append(""), rparts["estimated_speedup_pct"].append(num)
        metrics = pd.DataFrame(mparts)
        metrics["value"] = metrics["value"].astype("float64")
        if len(launches) < results:  # the library skipped results the file holds whole: damaged inside
            if not launches:
                held = plural(results, "complete result block(s)")
                raise TraceFormatError(path, f"corrupt Nsight Compute report: it holds {held} but ncu_report read "
                                             "no kernel launch from them")
            cut_note.append(f"{path}: {plural(results - len(launches), 'profiled result(s)')} of the report's "
                            f"{results} not read by ncu_report (damaged data): those launches are lost (partial)")
        after = len(data) - 8 - int.from_bytes(data[4:8], "little")  # bytes after the file header
        if not launches and not blocks and cut is None and after > 0:
            # bytes after the header but no block readable, and nothing read by the library either: not an empty
            # run (a real report holds session and device blocks even then), a damaged one
            raise TraceFormatError(path, f"corrupt Nsight Compute report: none of the {after:,} bytes after its "
                                         "header is a readable block, and ncu_report read no kernel launch")
        warnings = cut_note + ([] if launches else [f"{path}: no kernels profiled (the report holds no kernel launch)"])
        return _ncu.build(path, self.name, launches, metrics, strings, pd.DataFrame(rparts), warnings,
                          {"layout": "ncu-rep", "ncu_report_version": str(getattr(ctx, "get_version", str)())})
