"""rocprof v1 ``results.json`` (Chrome trace) and ``results.db`` (SQLite) → Timeline.

``results.json`` (``--hip-trace`` / ``--sys-trace``): a Chrome trace whose numbers are **strings**
(``"ts": "622109046136"``); ``M`` events name each pid's track (``CPU HIP API``, ``COPY``, ``GPU0``…). Times are
taken from ``args.BeginNs``/``args.EndNs`` (exact ns), falling back to ``ts``/``dur`` (µs strings) × 1000. Kind by
track: ``GPU<n>`` → kernel, ``COPY`` → memcpy (``FillBuffer`` → memset), ``… API`` → runtime, ``ROCTX``/markers → annotation.
``device_id`` = ``args.dev-id`` (HSA node id), ``stream_id`` = ``args.queue-id`` for kernels. Copies (``COPY``
track / table) get no stream: rocprof v1 writes ``queue-id`` 0 on every copy record, which is not the kernels' AQL
queue (copies run on the SDMA engines), and their timestamps can lag the synchronous ``hipMemcpy`` call that made
them by milliseconds; on the kernels' queue such a copy would look like the next work item and the stream-overrun
repair would clip a kernel running beside it (a 331 s kernel cut to 6.9 ms in a real MI300X results.db).

``results.db``: one table per domain, any of which may be empty — ``KERN`` (the ``results.csv`` columns), ``OPS``
(asynchronous GPU ops of the HIP trace: ``BeginNs, EndNs, dev-id, queue-id, Name, pid, tid, …``), ``COPY``,
``HIP``/``HSA`` (API calls). Kernels come from ``KERN`` when it has rows (it carries the launch resources), else
from ``OPS``. ``Index`` of an ``OPS`` / ``COPY`` row is the ``Index`` of the ``HIP`` call that made it
(``hipLaunchKernel`` 8 → the kernel of ``Index`` 8, ``hipMemcpy`` 4 → its copy, in a real MI300A results.db): it is
their ``correlation_id``, so a launch call whose GPU op has no row is counted as such (``KERN``'s ``Index`` is
the dispatch number, no link).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Optional, Union

import msgspec
import numpy as np

from gpulens.collectors._amdcsv import dispatches_from_rows
from gpulens.collectors._deep import DeepValues
from gpulens.collectors._dur_check import span_disagreement
from gpulens.collectors._dispatch import Dispatches, build_timeline, merge
from gpulens.collectors._io import describe, read_head, read_input
from gpulens.collectors._json_cut import decode_cut
from gpulens.collectors._chrome_recover import read_events, utf8_note
from gpulens.collectors._kineto_dupkey import repeated_choice, repeated_key_warning
from gpulens.collectors._nsys_more import mark_incomplete
from gpulens.collectors._numbers import exact_int, not_recorded
from gpulens.collectors._sqlite import connect_ro, read_stored
from gpulens.collectors.base import Collector
from gpulens.collectors.rocprof_v1 import device_beside
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.units import plural

SQLITE_MAGIC = b"SQLite format 3\x00"
#: why launch calls can lack their GPU ops in rocprof v1 output, and what records them (rocprof v1 --hip-trace
#: writes the asynchronous ops, kernels and copies, to the OPS / COPY tables and the GPU<n> / COPY tracks)
_RECORD_OPS = ("the GPU side was not traced or the run stopped before its records were written — record with "
               "rocprof --hip-trace (or --sys-trace), which writes the kernels and copies too")
V1_TABLES = {"KERN", "OPS", "COPY", "HIP", "HSA"}
_COPY = re.compile(r"(HostToDevice|DeviceToHost|DeviceToDevice|HostToHost)")
_COPY_KIND = {"HostToDevice": "HtoD", "DeviceToHost": "DtoH", "DeviceToDevice": "DtoD", "HostToHost": "HtoH"}


def copy_kind(name: str | None) -> str | None:
    """``CopyHostToDevice`` → ``HtoD`` (None when the name says nothing)."""
    m = _COPY.search(name or "")
    return _COPY_KIND[m.group(1)] if m else None


def copy_track_kind(name: str | None) -> str:
    """Kind of a record on rocprof v1's ``COPY`` track / table: ``memset`` for a buffer fill (``FillBuffer``, as
    ``tblextr.py`` splits the ops records: ``Fill`` → fill), else ``memcpy``."""
    return "memset" if re.search(r"fill", name or "", re.IGNORECASE) else "memcpy"


def _track_kind(track: str) -> str:
    t = track.upper()
    if re.match(r"^GPU[0-9]*$", t):
        return "kernel"
    if "COPY" in t:
        return "memcpy"
    if "API" in t:
        return "runtime"
    if "ROCTX" in t or "MARKER" in t:
        return "annotation"
    return "other"


def _ns(v) -> int | None:
    if v is None or v == "" or isinstance(v, bool):
        return None
    return exact_int(v)


#: A number as rocprof v1 writes it: a decimal string ("622109046136251") or a JSON number.
Num = Union[int, float, str, None]


class V1Args(msgspec.Struct):
    """``args`` of a v1 event: the fields read (others ignored)."""

    BeginNs: Num = None
    EndNs: Num = None
    DurationNs: Num = None  # EndNs − BeginNs as rocprof writes it: checked against them, never used for time
    dev_id: Num = msgspec.field(name="dev-id", default=None)
    #: the kernel records converted from ``results.csv`` (``--stats`` / ``--timestamp on`` runs) carry the CSV's
    #: ``gpu-id`` (the same HSA agent index as ``dev-id``) instead
    gpu_id: Num = msgspec.field(name="gpu-id", default=None)
    queue_id: Num = msgspec.field(name="queue-id", default=None)
    pid: Num = None
    tid: Num = None
    Name: Num = None
    name: Num = None  # of an ``M`` (metadata) event: the track name


class V1Event(msgspec.Struct):
    """One ``traceEvents`` entry: the declared schema of the v1 trace; an entry of other types is dropped."""

    ph: Optional[str] = None
    name: Num = None
    pid: Num = None
    ts: Num = None
    dur: Num = None
    args: Optional[V1Args] = None


class V1Doc(msgspec.Struct):
    traceEvents: Optional[list[msgspec.Raw]] = None


_EVENT = msgspec.json.Decoder(V1Event)


class RocprofV1Json(Collector):
    """rocprof v1 ``results.json`` (see module docstring)."""

    name = "rocprof_v1_json"
    suffixes = ("results.json",)
    priority = 15  # before the generic Kineto sniffer: both are Chrome traces

    def sniff(self, path: Path, head: bytes) -> bool:
        return b'"traceEvents"' in head and b'"BeginNs"' in head and b'"DurationNs"' in head

    def collect(self, path: Path, strict: bool = True, with_siblings: bool = True) -> Timeline:
        """Read one results.json; ``with_siblings``: also the ``results.sysinfo.txt`` beside it (the device)."""
        path = Path(path)
        raw = read_input(path)
        deep = DeepValues()  # values nested past msgspec's recursion limit: replaced by null, counted
        decode = deep.wrap(lambda b: msgspec.json.decode(b, type=Union[V1Doc, list[msgspec.Raw]]))
        cut, notes, lost = None, [], 0
        try:
            doc = decode(raw.data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            if "truncated" in str(exc):
                # cut short (the events come first, the agent description last): every complete event is kept
                doc, cut = decode_cut(path, raw.data, decode, "rocprof results.json", raw.compressed)
            else:  # almost-JSON (case B03): read event by event, the damage said (or refused: strict)
                evs, notes, lost = read_events(path, raw.data, strict, deep)
                doc = [msgspec.Raw(msgspec.json.encode(e)) for e in evs]
        items = doc.traceEvents if isinstance(doc, V1Doc) else doc
        repeated = repeated_choice(raw.data) if cut is None and isinstance(doc, V1Doc) else None
        if repeated is not None:  # the key written twice: the longest array, never silently the last (maybe [])
            vals, sizes, best = repeated
            items = [msgspec.json.encode(e) for e in vals[best]] if isinstance(vals[best], list) else None
        if items is None:
            raise TraceFormatError(path, "no traceEvents array")
        events, bad, replaced = [], 0, 0
        for r in items:
            try:
                events.append(_EVENT.decode(r))
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                if "UTF-8" not in str(exc):
                    bad += 1  # not an object, or a field of the wrong type
                    continue
                text = bytes(r).decode("utf-8", errors="replace")  # a name's invalid UTF-8 (case B03b): U+FFFD
                replaced += text.count("\ufffd") - bytes(r).count("\ufffd".encode())
                try:
                    events.append(_EVENT.decode(text.encode()))
                except (msgspec.ValidationError, msgspec.DecodeError):
                    bad += 1
        if replaced:
            notes.append(utf8_note(path, replaced))
        tracks = {str(e.pid): str(e.args.name if e.args and e.args.name is not None else "")
                  for e in events if e.ph == "M" and e.name == "process_name"}
        rows = [e for e in events if e.ph == "X"]
        d = Dispatches(n=len(rows))
        kinds, names, start, end, dev, queue, pid, tid = [], [], [], [], [], [], [], []
        span = ([], [], [])  # BeginNs, EndNs, DurationNs as recorded: a DurationNs that contradicts them is counted
        unread: list[bool] = []  # a timestamp recorded but unreadable (text, inf, beyond int64)
        for e in rows:
            a = e.args or V1Args()
            kind = _track_kind(tracks.get(str(e.pid), ""))
            names.append(str(e.name if e.name is not None else a.Name if a.Name is not None else ""))
            if kind == "memcpy":
                kind = copy_track_kind(names[-1])
            kinds.append(kind)
            b, en = _ns(a.BeginNs), _ns(a.EndNs)
            for col, v in zip(span, (b, en, _ns(a.DurationNs))):
                col.append(v)
            if b is None or en is None:
                ts, du = _ns_us(e.ts), _ns_us(e.dur)
                b, en = ts, (ts + du if ts is not None and du is not None else None)
            start.append(b), end.append(en)
            unread.append((b is None or en is None) and (
                any(_ns(x) is None for x in (a.BeginNs, a.EndNs) if not not_recorded(x))
                or any(_ns_us(x) is None for x in (e.ts, e.dur) if not not_recorded(x))))
            gpu = kind in ("kernel", "memcpy", "memset")
            dev.append(_device(a, tracks.get(str(e.pid), "")) if gpu else -1)
            queue.append(_ns(a.queue_id) if kind == "kernel" else None)  # copies: no AQL queue (module docstring)
            pid.append(_ns(a.pid)), tid.append(_ns(a.tid))
        d.cols.update(kind=kinds, name=names, start_ns=start, end_ns=end, device_id=dev, stream_id=queue,
                      pid=pid, tid=tid, copy_kind=[copy_kind(n) if k == "memcpy" else None
                                                   for n, k in zip(names, kinds)])
        d.unreadable_ts = np.array(unread, dtype=bool)
        meta = TimelineMeta(sources=[{"path": str(path), "collector": self.name, "size_bytes": raw.size_bytes,
                                      "rank": 0, "tracks": sorted(set(tracks.values()))}],
                            dropped={str(path): int(bad + lost)} if bad + lost else {})
        warnings = [f"{path}: {plural(bad, 'trace event(s)')} dropped (not an object, or a field of the wrong type)"] \
            if bad else []
        warnings += notes + [w for w in [deep.warning(path), cut, span_disagreement(path, *span, "DurationNs",
                                                                            "EndNs − BeginNs", "event")] if w]
        if repeated is not None:
            warnings.append(repeated_key_warning(path, sizes, best))
        if with_siblings:
            device_beside(path, meta, warnings)
        tl = build_timeline(d, self.name, path, meta=meta, warnings=warnings)
        mark_incomplete(tl, path, "the trace has no GPU track record (GPU<n> / COPY)", _RECORD_OPS)
        return tl


def _device(a: V1Args, track: str) -> int | None:
    """HSA agent index of a GPU record: ``dev-id`` (HIP-trace ops), else ``gpu-id`` (kernel records converted from
    results.csv, as its ``gpu-id`` column), else the number of its ``GPU<n>`` track (rocprof names the track by
    that index); None when none is recorded. A kernel on track GPU8 with ``gpu-id`` 8 is the device results.csv
    and results.sysinfo.txt call 8, not device 0."""
    for v in (a.dev_id, a.gpu_id):
        n = _ns(v)
        if n is not None:
            return n
    m = re.match(r"^GPU([0-9]+)$", track.strip(), re.IGNORECASE)
    return int(m.group(1)) if m else None


def _ns_us(v) -> int | None:
    if v is None or v == "":
        return None
    return exact_int(v, 3)


def sqlite_tables(path: Path) -> set[str]:
    """Names of the tables and views of an SQLite file (empty when it is not one)."""
    try:
        if read_head(path, 16) != SQLITE_MAGIC:  # decompressed when gzip (then read from a copy: connect_ro)
            return set()
        con = connect_ro(path, check=False)  # sniffing: a truncated file is named by the collector that reads it
        try:
            return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        finally:
            con.close()
    except (OSError, sqlite3.Error, UnicodeDecodeError, TraceFormatError):  # not SQLite, corrupt, cut gzip
        return set()


class RocprofV1Db(Collector):
    """rocprof v1 ``results.db`` (see module docstring)."""

    name = "rocprof_v1_db"
    suffixes = ("results.db",)
    priority = 15

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(SQLITE_MAGIC) and bool(sqlite_tables(path) & V1_TABLES)

    def collect(self, path: Path, strict: bool = True, with_siblings: bool = True) -> Timeline:
        """Read one results.db; ``with_siblings``: also the ``results.sysinfo.txt`` beside it (the device)."""
        path = Path(path)
        tables = sqlite_tables(path)
        if not tables & V1_TABLES:
            raise TraceFormatError(path, "not a rocprof v1 results.db (no KERN/OPS/COPY/HIP/HSA table)")
        con = connect_ro(path)
        parts, counts, warnings = [], {}, []
        try:
            loaded = {t: read_stored(con, t) for t in sorted(tables & V1_TABLES)}
        except (sqlite3.Error, UnicodeDecodeError) as exc:  # corrupt pages, column names not UTF-8
            raise TraceFormatError(path, f"cannot read SQLite tables ({describe(exc)})") from None
        finally:
            con.close()
        counts = {t: len(rows) for t, (_, rows, _) in loaded.items()}
        garbled = sorted({c for h, _, _ in loaded.values() for c in h if "\ufffd" in c})
        if garbled:  # a corrupt schema page: the column is not recognised, its values are not used
            warnings.append(f"{path}: {plural(len(garbled), 'column name(s)')} not valid UTF-8 (corrupt schema), their "
                            f"values unused: "
                            + ", ".join(map(repr, garbled)))
        blobs = sum(b for _, _, b in loaded.values())
        if blobs:
            warnings.append(f"{path}: {plural(blobs, 'BLOB value(s)')} in columns of numbers or text read as unknown")
        kern_table = "KERN" if counts.get("KERN") else "OPS"
        if counts.get("KERN") and counts.get("OPS"):
            warnings.append(f"{path}: kernels taken from KERN ({plural(counts['KERN'], 'row')}); OPS ({plural(counts['OPS'], 'row')}) "
                            "describes the same dispatches and is not added again")
        for table, kind in ((kern_table, "kernel"), ("COPY", "memcpy"), ("HIP", "runtime"), ("HSA", "runtime")):
            if not counts.get(table):
                continue
            header, rows, _ = loaded[table]
            d = dispatches_from_rows(path, header, rows, kind=kind)
            if table != "KERN" and "dispatch_id" in d.cols:  # the HIP call's Index: the launch ↔ GPU op link
                d.cols["correlation_id"] = d.cols["dispatch_id"]
            if kind != "kernel":
                d.pmc = {}
            if kind == "memcpy":
                d.cols["copy_kind"] = [copy_kind(n) for n in d.cols["name"]]
                d.cols["kind"] = [copy_track_kind(n) for n in d.cols["name"]]  # FillBuffer records are fills
                d.cols["stream_id"] = [None] * d.n  # queue-id 0 of a copy is not the kernels' queue (docstring)
            if kind == "runtime":
                d.cols["device_id"] = [-1] * d.n
                d.cols.pop("stream_id", None)
            parts.append(d)
        tl = build_timeline(merge(parts), self.name, path) if parts else Timeline()
        tl.meta.sources = [{"path": str(path), "collector": self.name, "size_bytes": path.stat().st_size, "rank": 0,
                            "tables": counts}]
        if with_siblings:
            device_beside(path, tl.meta, warnings)
        tl.meta.warnings = warnings + tl.meta.warnings
        mark_incomplete(tl, path, "the database has no OPS / KERN / COPY row", _RECORD_OPS)
        return tl.validate()
