"""rocprofv3 (rocprofiler-sdk) ``--output-format json`` → Timeline, decoded with typed msgspec structs.

Layout (rocprofiler-sdk JSON writer; checked on TraceLens ``908_results.json.gz``, 43,915 dispatches): the top level
is ``{"rocprofiler-sdk-tool": [ {…one process…} ]}`` holding

* ``metadata`` (pid, node/hostname, command), ``agents`` (one record per CPU/GPU agent: ``id.handle``, ``type``
  1 CPU / 2 GPU, ``node_id``, ``logical_node_type_id``, ``name`` = gfx arch, ``product_name``, ``cu_count``,
  ``wave_front_size``…);
* ``kernel_symbols`` (``kernel_id`` → ``formatted_kernel_name`` / ``truncated_kernel_name``, ``sgpr_count``,
  ``arch_vgpr_count``, ``accum_vgpr_count``): dispatches carry only ``kernel_id`` — names live in this table;
* ``buffer_records.kernel_dispatch``: ``start_timestamp``/``end_timestamp`` (ns), ``correlation_id.internal``,
  ``thread_id``, ``dispatch_info`` (``agent_id.handle``, ``queue_id.handle``, ``kernel_id``, ``dispatch_id``,
  ``private_segment_size``, ``group_segment_size``, ``workgroup_size``/``grid_size`` {x,y,z} in work-items);
  ``buffer_records.memory_copy`` (``dst_agent_id``/``src_agent_id``, ``bytes``), ``buffer_records.hip_api`` (names
  via ``strings.buffer_records[kind].operations[operation]``);
* ``counters`` (``id.handle`` → ``name``) and ``callback_records.counter_collection`` (per dispatch:
  ``dispatch_data.dispatch_info`` and ``records`` [{counter_id, value}], summed per counter).

``name`` = ``formatted_kernel_name`` (the demangled name rocprofv3's CSV shows); the symbol table is kept as
``tables["kernel_symbols"]`` (kernel_id, formatted/truncated/mangled names, registers). ``device_id`` = the agent's
``node_id``; ``stream_id`` = the HSA queue handle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import msgspec
import numpy as np
import pandas as pd

from gpulens.collectors._json_cut import json_error_text
from gpulens.collectors._amd import device_from_sdk_agent
from gpulens.collectors._chrome_json import locate, repair
from gpulens.collectors._chrome_recover import utf8_note
from gpulens.collectors._deep import DeepValues
from gpulens.collectors._dispatch import Dispatches, build_timeline
from gpulens.collectors._io import read_input
from gpulens.collectors._json_cut import close_cut
from gpulens.collectors._numbers import exact_int
from gpulens.collectors._ranks import number_rankless
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError, TruncationNote
from gpulens.timeline import Timeline, TimelineMeta, concat
from gpulens.units import agree, plural


class Handle(msgspec.Struct, frozen=True):
    handle: int = 0


class Dim(msgspec.Struct, frozen=True):
    x: int = 0
    y: int = 0
    z: int = 0


class Corr(msgspec.Struct, frozen=True):
    internal: int = 0
    external: Any = 0


class DispatchInfo(msgspec.Struct, frozen=True):
    agent_id: Handle = Handle()
    queue_id: Handle = Handle()
    kernel_id: int = 0
    dispatch_id: int = 0
    private_segment_size: Optional[int] = None
    group_segment_size: Optional[int] = None
    workgroup_size: Dim = Dim()
    grid_size: Dim = Dim()


class KernelDispatch(msgspec.Struct):
    start_timestamp: Any = 0  # any JSON value: one that is no int64 makes its row unreadable, never the file
    end_timestamp: Any = 0
    thread_id: Optional[int] = None
    correlation_id: Corr = Corr()
    dispatch_info: DispatchInfo = DispatchInfo()
    stream_id: Optional[Handle] = None


class GenericRecord(msgspec.Struct):
    kind: int = 0
    operation: int = 0
    start_timestamp: Any = 0
    end_timestamp: Any = 0
    thread_id: Optional[int] = None
    correlation_id: Corr = Corr()
    dst_agent_id: Optional[Handle] = None
    src_agent_id: Optional[Handle] = None
    bytes: Optional[int] = None


class _Counted(msgspec.Struct):
    """A record only counted (its fields are not read)."""


class BufferRecords(msgspec.Struct):
    kernel_dispatch: list[KernelDispatch] = []
    memory_copy: list[GenericRecord] = []
    hip_api: list[GenericRecord] = []
    # rocprofv3 --pc-sampling (and rocprof-compute's PC sampling): waves sampled on the GPU, counted only
    pc_sample_host_trap: list[_Counted] = []
    pc_sample_stochastic: list[_Counted] = []


class CounterRecord(msgspec.Struct):
    counter_id: Handle = Handle()
    value: Any = 0.0  # a value that is no number is unknown and counted, never the file


class DispatchData(msgspec.Struct, frozen=True):
    dispatch_info: DispatchInfo = DispatchInfo()
    correlation_id: Corr = Corr()


class CounterCollection(msgspec.Struct):
    dispatch_data: DispatchData = DispatchData()
    records: list[CounterRecord] = []


class CallbackRecords(msgspec.Struct):
    counter_collection: list[CounterCollection] = []


class KernelSymbol(msgspec.Struct):
    kernel_id: int = 0
    kernel_name: str = ""
    formatted_kernel_name: str = ""
    truncated_kernel_name: str = ""
    sgpr_count: Optional[int] = None
    arch_vgpr_count: Optional[int] = None
    accum_vgpr_count: Optional[int] = None


class Tool(msgspec.Struct):
    metadata: dict[str, Any] = {}
    agents: list[msgspec.Raw] = []  # decoded lazily: each GPU agent lists hundreds of caches
    counters: list[dict[str, Any]] = []
    strings: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)
    kernel_symbols: list[KernelSymbol] = []
    buffer_records: BufferRecords = msgspec.field(default_factory=BufferRecords)
    callback_records: CallbackRecords = msgspec.field(default_factory=CallbackRecords)


class Root(msgspec.Struct):
    tool: list[Tool] = msgspec.field(name="rocprofiler-sdk-tool", default_factory=list)


_DECODER = msgspec.json.Decoder(Root)


def _kernels(t: Tool, node_of: dict[int, int]) -> tuple[Dispatches, pd.DataFrame, int]:
    """Kernel dispatches, the kernel-symbol table, and the number of records dropped (an integer beyond int64)."""
    syms = {s.kernel_id: s for s in t.kernel_symbols}
    recs = t.buffer_records.kernel_dispatch or [  # --pmc without --kernel-trace: the counted dispatches, untimed
        KernelDispatch(start_timestamp=None, end_timestamp=None, correlation_id=c.dispatch_data.correlation_id,
                       dispatch_info=c.dispatch_data.dispatch_info) for c in t.callback_records.counter_collection]
    n = len(recs)
    a = np.zeros((n, 14), dtype="int64")
    beyond = []  # records with an integer beyond int64 (JSON allows any size): dropped, counted
    unread = np.zeros(n, dtype=bool)  # a timestamp that is no int64 (text, list, 2^64...): not an event
    missing = np.zeros(n, dtype=bool)  # rows without a usable start or end (unreadable, or null)
    for i, r in enumerate(recs):
        di = r.dispatch_info
        t0, t1 = r.start_timestamp, r.end_timestamp
        if type(t0) is not int or type(t1) is not int or not (_I64_MIN <= t0 <= _I64_MAX and
                                                              _I64_MIN <= t1 <= _I64_MAX):
            raw0, raw1 = t0, t1
            t0, t1 = _ts(t0), _ts(t1)
            missing[i] = t0 is None or t1 is None
            unread[i] = (t0 is None and raw0 is not None) or (t1 is None and raw1 is not None)  # null: not recorded
            t0, t1 = t0 or 0, t1 or 0
        try:
            a[i] = (t0, t1, di.agent_id.handle, di.queue_id.handle, di.kernel_id,
                    di.dispatch_id, r.correlation_id.internal, r.thread_id or 0, di.grid_size.x, di.grid_size.y,
                    di.grid_size.z, di.workgroup_size.x, di.workgroup_size.y, di.workgroup_size.z)
        except OverflowError:
            beyond.append(i)
    if beyond:
        keep = np.setdiff1d(np.arange(n), beyond)
        a, recs, n, unread, missing = a[keep], [recs[i] for i in keep], len(keep), unread[keep], missing[keep]
    lds = [r.dispatch_info.group_segment_size for r in recs]
    scratch = [r.dispatch_info.private_segment_size for r in recs]
    d = Dispatches(n=n, unreadable_ts=unread)
    kid = a[:, 4]
    uniq, inv = np.unique(kid, return_inverse=True)
    look = lambda attr: np.array([getattr(syms.get(int(k)), attr, None) for k in uniq], dtype=object)[inv]  # noqa
    names = [n or f"<unknown kernel_id {k}>" for n, k in zip(look("formatted_kernel_name").tolist(), kid)]
    start, end = pd.array(a[:, 0], dtype="Int64"), pd.array(a[:, 1], dtype="Int64")
    start[missing], end[missing] = pd.NA, pd.NA
    d.cols.update(name=names, start_ns=start, end_ns=end,
                  device_id=[_node(node_of, int(h)) for h in a[:, 2]], stream_id=a[:, 3], dispatch_id=a[:, 5],
                  correlation_id=a[:, 6], tid=a[:, 7], grid_items_x=a[:, 8], grid_items_y=a[:, 9],
                  grid_items_z=a[:, 10], block_x=a[:, 11], block_y=a[:, 12], block_z=a[:, 13],
                  lds_bytes=lds, scratch_bytes=scratch, arch_vgpr=look("arch_vgpr_count").tolist(),
                  accum_vgpr=look("accum_vgpr_count").tolist(), sgpr=look("sgpr_count").tolist())
    table = pd.DataFrame([{"kernel_id": s.kernel_id, "formatted_kernel_name": s.formatted_kernel_name,
                           "truncated_kernel_name": s.truncated_kernel_name, "kernel_name": s.kernel_name,
                           "sgpr_count": s.sgpr_count, "arch_vgpr_count": s.arch_vgpr_count,
                           "accum_vgpr_count": s.accum_vgpr_count} for s in t.kernel_symbols])
    return d, table, len(beyond)


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _ts(v: Any) -> int | None:
    """A recorded timestamp as int64 ns (integral floats and numeric text accepted), None when it is unreadable."""
    if v is None or isinstance(v, (bool, list, dict)):
        return None
    return exact_int(v)


def _number(v: Any) -> float | None:
    """A counter value as a finite float, None when it is no number (text, list, bool, beyond float64)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if np.isfinite(f) else None


def _counters(t: Tool, d: Dispatches, node_of: dict[int, int]) -> int:
    """Add the counter records of one process (tool entry) to its dispatches, matched by (agent node, dispatch
    id) — ids restart in every process, so never across tool entries. Returns the records that matched no
    dispatch of this process (left out; the caller warns)."""
    cc = t.callback_records.counter_collection
    if not cc:
        return 0
    unmatched = 0
    names = {_handle(c.get("id")): str(c.get("name")) for c in t.counters if isinstance(c, dict)}
    row_of = {(dev, int(did)): i for i, (dev, did) in enumerate(zip(d.cols["device_id"], d.cols["dispatch_id"]))}
    for c in cc:
        di = c.dispatch_data.dispatch_info
        i = row_of.get((_node(node_of, di.agent_id.handle), di.dispatch_id))
        if i is None:
            unmatched += 1
            continue
        for rec in c.records:
            m = names.get(rec.counter_id.handle, f"counter_{rec.counter_id.handle}")
            v = _number(rec.value)
            if v is None:
                if rec.value is not None:
                    d.unreadable_counter_cells += 1
                    d.unreadable_counter_example = d.unreadable_counter_example or f"{str(rec.value)[:40]!r} in {m}"
                continue
            arr = d.pmc.setdefault(m, np.full(d.n, np.nan))
            arr[i] = v if np.isnan(arr[i]) else arr[i] + v
    return unmatched


#: Copy direction by the (source, destination) agent types, in rocprofiler-sdk's operation names
#: (``rocprofiler_memory_copy_operation_t``: MEMORY_COPY_HOST_TO_HOST, _HOST_TO_DEVICE, _DEVICE_TO_HOST,
#: _DEVICE_TO_DEVICE).
_COPY_BY_AGENTS = {("cpu", "cpu"): "MEMORY_COPY_HOST_TO_HOST", ("cpu", "gpu"): "MEMORY_COPY_HOST_TO_DEVICE",
                   ("gpu", "cpu"): "MEMORY_COPY_DEVICE_TO_HOST", ("gpu", "gpu"): "MEMORY_COPY_DEVICE_TO_DEVICE"}


def _copy_device(r: GenericRecord, name: str, node_of: dict[int, int], type_of: dict[int, str]) -> int | None:
    """HSA node of the GPU side of a copy: by the agents' types where the trace lists them (the GPU one; the
    destination when both are), else by the name — the destination of host-to-device copies, else the source."""
    src, dst = (type_of.get(a.handle) if a is not None else None for a in (r.src_agent_id, r.dst_agent_id))
    if src == "gpu" or dst == "gpu":
        agent = r.dst_agent_id if dst == "gpu" else r.src_agent_id
    else:
        agent = r.dst_agent_id if "HOST_TO" in name else r.src_agent_id
    return _node(node_of, agent.handle) if agent is not None else None


def _copy_name(r: GenericRecord, type_of: dict[int, str]) -> str | None:
    """The operation name of a copy whose name the trace's strings do not give, from its agents' types (CPU or
    GPU); None when a type is not listed."""
    key = tuple(type_of.get(a.handle) if a is not None else None for a in (r.src_agent_id, r.dst_agent_id))
    return _COPY_BY_AGENTS.get(key)  # type: ignore[arg-type]


def agent_types(agents: list[dict[str, Any]]) -> dict[int, str]:
    """Agent handle → ``"cpu"`` / ``"gpu"`` (``type`` 1 / 2, or the words) for the agent records that say."""
    out = {}
    for a in agents:
        typ = {"1": "cpu", "2": "gpu"}.get(str(a.get("type", "")).strip().lower(), str(a.get("type", "")).lower())
        if typ in ("cpu", "gpu"):
            out[_handle(a.get("id"))] = typ
    return out


def _node(node_of: dict[int, int], handle: int) -> int | None:
    """The HSA node id of agent ``handle``: its agent record's ``node_id``; None (device not recorded) for a handle
    that no agent record of a trace listing agents names — never the opaque handle itself, which would read as a GPU
    the trace does not have; the handle itself only when the trace lists no agent at all."""
    if not node_of:
        return handle
    return node_of.get(handle)


def _others(t: Tool, node_of: dict[int, int], type_of: dict[int, str] | None = None,
            said: list[str] | None = None) -> list[Dispatches]:
    """The copies and HIP API calls of one process as Dispatches. A copy whose operation the trace's strings do not
    name is named by its agents' types (``type_of``: :func:`agent_types`), placed on its GPU agent — it was named
    ``op_1_2`` and put on the CPU agent's node; ``said`` gets the count of such copies."""
    strings = msgspec.json.decode(t.strings) if t.strings else {}
    kinds = strings.get("buffer_records", []) if isinstance(strings, dict) else []
    type_of = type_of or {}
    named = [0]

    def op_name(r: GenericRecord, copy: bool = False) -> str:
        try:
            return str(kinds[r.kind]["operations"][r.operation])
        except (IndexError, KeyError, TypeError):
            by_agents = _copy_name(r, type_of) if copy else None
            named[0] += by_agents is not None
            return by_agents or f"op_{r.kind}_{r.operation}"

    out = []
    for recs, kind in ((t.buffer_records.memory_copy, "memcpy"), (t.buffer_records.hip_api, "runtime")):
        if not recs:
            continue
        d = Dispatches(n=len(recs))
        names = [op_name(r, kind == "memcpy") for r in recs]
        d.cols.update(kind=kind, name=names, start_ns=[r.start_timestamp for r in recs],
                      end_ns=[r.end_timestamp for r in recs], tid=[r.thread_id for r in recs],
                      correlation_id=[r.correlation_id.internal for r in recs])
        if kind == "memcpy":
            d.cols["bytes"] = [r.bytes for r in recs]
            d.cols["device_id"] = [_copy_device(r, nm, node_of, type_of) for r, nm in zip(recs, names)]
            d.cols["copy_kind"] = [{"HOST_TO_DEVICE": "HtoD", "DEVICE_TO_HOST": "DtoH", "DEVICE_TO_DEVICE": "DtoD",
                                    "HOST_TO_HOST": "HtoH"}.get(nm.replace("MEMORY_COPY_", "")) for nm in names]
        else:
            d.cols["device_id"] = [-1] * d.n
        out.append(d)
    if named[0] and said is not None:
        said.append(f"{plural(named[0], 'memory copy record(s)')} without an operation name in the trace's strings: "
                    "named by the types of their source and destination agents (MEMORY_COPY_HOST_TO_DEVICE …)")
    return out


def _device_work_unread(root: Root, counters_unplaced: int) -> str | None:
    """The sentence naming the GPU work a rocprofv3 JSON file records without any kernel dispatch record (traced
    without ``--kernel-trace``): PC samples (``pc_sample_host_trap`` / ``pc_sample_stochastic``) and counter records
    of dispatches (``--pmc``) — the GPU ran, but no kernel is placed in time. None when the file has a dispatch
    record or no such record."""
    if any(t.buffer_records.kernel_dispatch for t in root.tool):
        return None
    found = [(sum(len(getattr(t.buffer_records, k)) for t in root.tool), k)
             for k in ("pc_sample_host_trap", "pc_sample_stochastic")] + [(counters_unplaced, "counter_collection")]
    said = [f"{plural(n, 'record(s)')} of {k}" for n, k in found if n]
    return (", ".join(said) + " (GPU work sampled or counted, with no kernel dispatch record to place it in time: "
            "record with rocprofv3 --kernel-trace as well)") if said else None


def _handle(v: Any) -> int:
    """``{"handle": N}`` → N (−1 when ``v`` is not such an object or N is no int64)."""
    h = exact_int(v.get("handle")) if isinstance(v, dict) and not isinstance(v.get("handle"), str) else None
    return -1 if h is None else h


def _command(v: Any) -> str:
    return " ".join(map(str, v)) if isinstance(v, list) else "" if v is None else str(v)


def _agents(path: Path, t: Tool, warnings: list[str]) -> list[dict[str, Any]]:
    """The agent records that are JSON objects; the others (undecodable, not an object) are skipped and counted."""
    out, bad = [], 0
    for raw in t.agents:
        try:
            a = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            a = None
        if isinstance(a, dict):
            out.append(a)
        else:
            bad += 1
    if bad:
        warnings.append(f"{path}: {plural(bad, 'agent record(s)')} skipped (not a JSON object): their devices are "
                        f"unknown")
    return out


class RocprofV3Json(Collector):
    """rocprofv3 JSON (see module docstring)."""

    name = "rocprofv3_json"
    suffixes = ("_results.json", ".json.gz")
    priority = 20

    def sniff(self, path: Path, head: bytes) -> bool:
        return b'"rocprofiler-sdk-tool"' in head[:4096]

    def _recover(self, path: Path, raw: Any, exc: Exception, deep: DeepValues, strict: bool,
                 notes: list[str]) -> Root:
        """The file when the plain decode failed (case B03 / TraceLens#1035, B04), appending one note per repair:

        * invalid UTF-8 (in kernel names, HIP API string args) is read as U+FFFD, always (counted);
        * raw control characters in strings and bare ``inf``/``nan`` (no JSON) are repaired with ``--lenient``
          (:func:`~gpulens.collectors._chrome_json.repair`, counted), else exit 2 naming line, column and bytes;
        * a file cut short keeps every complete record (:meth:`_cut`).
        """
        data = raw.data
        for _ in range(3):
            msg = str(exc)
            if "UTF-8" in msg:
                text = data.decode("utf-8", errors="replace")
                bad = text.count("\ufffd") - data.count("\ufffd".encode())
                data = text.encode("utf-8")
                notes.append(utf8_note(path, bad))
            elif "truncated" in msg:
                root, note = self._cut(path, raw, data, exc, deep)
                notes.append(note)
                return root
            elif not strict and "malformed" in msg:
                text, counts = repair(data.decode("utf-8", errors="replace"))
                if not any(counts.values()):
                    break
                data = text.encode("utf-8")
                notes.append(f"{path}: lenient repairs: " + ", ".join(f"{n:,} {what}" for what, n in counts.items()
                                                                          if n))
            else:
                break
            try:
                return deep.wrap(_DECODER.decode)(data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc2:
                exc = exc2
        at = locate(data, exc)
        hint = (" (--lenient repairs control characters, bare inf/nan and unquoted words)"
                if strict and "malformed" in str(exc)
                and any(repair(data.decode("utf-8", errors="replace"))[1].values()) else "")
        raise TraceFormatError(path, f"not a readable rocprofv3 JSON file ({json_error_text(exc, len(data))}"
                                     f"{f' at {at}' if at and 'truncated' not in str(exc) else ''}){hint}")

    @staticmethod
    def _cut(path: Path, raw: Any, data: bytes, exc: Exception, deep: DeepValues) -> tuple[Root, TruncationNote]:
        """A file cut short (msgspec: "truncated"): every record written in full before the cut, decoded from the
        text closed after its last complete array element (:func:`~gpulens.collectors._json_cut.close_cut`), and
        the note that marks the result partial. Any other decoding error is the file's error (exit 2)."""
        closed = close_cut(data) if "truncated" in str(exc) else None
        if closed is None and "truncated" in str(exc):
            raise TraceFormatError(path, f"truncated rocprofv3 JSON: the text ends after {len(data):,} bytes"
                                         f"{' (decompressed)' if raw.compressed else ''}, before any complete record "
                                         "(the writer was killed or the copy is incomplete)") from None
        if closed is None:
            raise TraceFormatError(path, "not a readable rocprofv3 JSON file "
                                         f"({json_error_text(exc, len(data))})") from None
        text, keep = closed
        try:
            root = deep.wrap(_DECODER.decode)(text)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc2:
            raise TraceFormatError(path, f"truncated rocprofv3 JSON: the text ends after {len(data):,} bytes and "
                                         f"the part before the cut is not readable either ({exc2})") from None
        n = sum(len(t.buffer_records.kernel_dispatch) for t in root.tool)
        lost = len(data) - keep
        return root, TruncationNote(
            f"{path}: truncated: the JSON text ends after {len(data):,} bytes"
            f"{' (decompressed)' if raw.compressed else ''} inside an unfinished record; every record before byte "
            f"{keep:,} is kept ({plural(n, 'kernel dispatch(es)')}), the {plural(lost, 'byte(s)')} after it {agree(lost, 'is', 'are')} "
            f"not", path, keep)

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        raw = read_input(path)
        deep = DeepValues()  # values nested past msgspec's recursion limit: replaced by null, counted
        notes: list[str] = []
        try:
            root = deep.wrap(_DECODER.decode)(raw.data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            root = self._recover(path, raw, exc, deep, strict, notes)
        if not root.tool:
            raise TraceFormatError(path, "'rocprofiler-sdk-tool' holds no process")
        parts, unmatched_all = [], 0
        warnings: list[str] = [w for w in [deep.warning(path), *notes] if w]
        for t in root.tool:
            agents = _agents(path, t, warnings)
            node_of = {_handle(a.get("id")): node for a in agents
                       for node in [exact_int(a.get("node_id")) if not isinstance(a.get("node_id"), str) else None]
                       if node is not None}
            devices = [dv for dv in (device_from_sdk_agent(a, 0) for a in agents) if dv]
            d, symbols, beyond = _kernels(t, node_of)
            if beyond:
                warnings.append(f"{path}: {plural(beyond, 'kernel dispatch record(s)')} dropped: an integer beyond "
                                f"int64")
            unmatched = _counters(t, d, node_of)
            unmatched_all += unmatched
            md = t.metadata if isinstance(t.metadata, dict) else {}
            pid = exact_int(md.get("pid")) if not isinstance(md.get("pid"), (str, bool)) else None
            if unmatched:
                warnings.append(f"{path}: "
                                f"{plural(unmatched, 'counter record(s)')}{f' of pid {pid}' if pid is not None else ''}"
                                " match no kernel dispatch of their process (agent and dispatch id): left out")
            if pid is not None:
                d.cols["pid"] = [pid] * d.n
            node = md.get("node", {}) if isinstance(md.get("node"), dict) else {}
            src = {"path": str(path), "collector": self.name, "size_bytes": raw.size_bytes, "rank": 0,
                   "rank_source": "process", "process_id": pid,
                   "compressed": raw.compressed, "uncompressed_bytes": len(raw.data), "pid": md.get("pid"),
                   "hostname": node.get("hostname"), "command": _command(md.get("command"))}
            meta = TimelineMeta(sources=[src], devices=devices, warnings=warnings)
            gpus = [int(dv["device_id"]) for dv in devices if dv.get("device_id") is not None]
            gpus = gpus if agents else None  # no agent record: the GPUs are not listed (not "no GPU")
            d.gpus = gpus
            said: list[str] = []
            others = _others(t, node_of, agent_types(agents), said)
            meta.warnings += [f"{path}: {w}" for w in said]
            for o in others:
                o.gpus = gpus
            tls = [build_timeline(d, self.name, path, meta=meta, tables={"kernel_symbols": symbols})]
            tls += [build_timeline(o, self.name, path) for o in others]
            parts.append(concat(tls) if len(tls) > 1 else tls[0])
        if unread := _device_work_unread(root, unmatched_all):
            parts[0].meta.sources[0]["unread_device_events"] = unread
        notes = number_rankless([(f"tool entry {i}", p) for i, p in enumerate(parts)])  # one rank per process
        tl = concat(parts) if len(parts) > 1 else parts[0]
        tl.meta.warnings[:0] = [f"{path}: {n}" for n in notes]
        from gpulens.collectors._nsys_more import incomplete_capture  # launches without any kernel: say so (T06)

        note = incomplete_capture(tl.events, "the file has no kernel dispatch record",
                                  "record with rocprofv3 --kernel-trace (or --sys-trace) so the kernels are traced", rejected=tl.rejected)
        if note:
            tl.meta.sources[0]["incomplete_capture"] = note
        return tl
