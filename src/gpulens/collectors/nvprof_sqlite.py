"""nvprof / Visual Profiler output (``nvprof -o FILE.nvvp`` / ``--export-profile``) → Timeline.

nvprof writes its profile as an SQLite database with CUPTI's activity records, one table per activity kind, as
Nsight Systems' export later did, under other names:

========================================== ========== ========================================================
table                                      kind       columns used
========================================== ========== ========================================================
``CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL``  kernel     start, end, deviceId, streamId, correlationId, name (a
/ ``CUPTI_ACTIVITY_KIND_KERNEL``                      ``StringTable`` key of the *mangled* name, shown demangled),
                                                      gridX..Z, blockX..Z, registersPerThread, static/dynamic smem
``CUPTI_ACTIVITY_KIND_MEMCPY``             memcpy     start, end, deviceId, streamId, correlationId, bytes, copyKind
``CUPTI_ACTIVITY_KIND_MEMSET``             memset     start, end, deviceId, streamId, correlationId, bytes
``CUPTI_ACTIVITY_KIND_RUNTIME``            runtime    start, end, processId, threadId, correlationId, cbid (named by
                                                      :data:`RUNTIME_CBIDS`)
``CUPTI_ACTIVITY_KIND_DRIVER``             runtime    the same columns, cbid named by :data:`DRIVER_CBIDS` (driver calls:
                                                      OpenACC's and CUDA Fortran's ``cuLaunchKernel``, copies, syncs)
``CUPTI_ACTIVITY_KIND_SYNCHRONIZATION``    sync       start, end, streamId, correlationId
``CUPTI_ACTIVITY_KIND_DEVICE``             meta       one device per row: id, name (``StringTable`` key),
                                                      computeCapabilityMajor/Minor and the figures of
                                                      :data:`~._nsys_devices.CUDA_GPU_FIELDS` (kB/s, kHz)
========================================== ========== ========================================================

Times are CUPTI's int64 ns; copy kinds follow ``CUpti_ActivityMemcpyKind`` as in :mod:`.nsys_sqlite`, whose
readers and rules (rejected rows, placeholder zeros, exact duplicates, incomplete captures) this collector shares.
Not read: NVTX markers (``CUPTI_ACTIVITY_KIND_MARKER``: a start and
an end row per range), metrics and events (``--metrics``/``--events`` tables).

Sniffed by content: an SQLite file with nvprof's ``StringTable`` and one of its ``CUPTI_ACTIVITY_KIND_*`` tables
(nvprof's ``.nvvp``/``.prof`` suffixes are informative only).

A Visual Profiler *session* (nvvp's ``File > Save``, also ``.nvvp``) is XML — ``<session version="2" …>`` with the
GUI state — that embeds the profile: ``<timelinepdm><pdm><split>`` holds nvprof's SQLite database, gzip-compressed
and base64-encoded (found in sessions of CUDA 10/11 nvvp, schema ``Version`` 12). It is decoded to a private
temporary file and read as above; a session with several ``<pdm>`` (one per profiled process) is read for its first,
with a warning counting the others; one without any says it holds no profile data.
"""

from __future__ import annotations

import base64
import binascii
import re
import sqlite3
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors._io import gunzip_all, read_head, read_input
from gpulens.collectors._nsys_db import _Db
from gpulens.collectors._nsys_devices import CUDA_GPU_FIELDS, cuda_prop_device, gpu_rows_unread
from gpulens.collectors._sqlite import INT, read_typed
from gpulens.collectors.nsys_sqlite import (SQLITE_MAGIC, NsysSqliteCollector, _copies, _host, _kernels, _memsets,
                                            _syncs, sniff_db)
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline

#: nvprof's tables of GPU work (kernels in concurrent-kernel mode, the default since CUDA 5; ``KERNEL`` when
#: ``--concurrent-kernels off``), copies and runtime calls: one of them marks an nvprof database.
_TABLES = ("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
           "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DEVICE")

#: CUDA runtime API callback ids (``CUpti_runtime_api_trace_cbid``, CUPTI's ``cupti_runtime_cbid.h``) → function
#: name, for the calls the analyzers weigh: launches, copies, fills, synchronisations, allocations and streams.
#: Another id is named ``cudaRuntimeCall#<cbid>`` (its name is not in the file).
RUNTIME_CBIDS = {
    1: "cudaDriverGetVersion", 2: "cudaRuntimeGetVersion", 3: "cudaGetDeviceCount", 4: "cudaGetDeviceProperties",
    8: "cudaConfigureCall", 9: "cudaSetupArgument", 10: "cudaGetLastError", 13: "cudaLaunch", 16: "cudaSetDevice",
    17: "cudaGetDevice", 20: "cudaMalloc", 21: "cudaMallocPitch", 22: "cudaFree", 25: "cudaMallocHost",
    26: "cudaFreeHost", 27: "cudaHostAlloc", 31: "cudaMemcpy", 32: "cudaMemcpy2D", 39: "cudaMemcpyToSymbol",
    40: "cudaMemcpyFromSymbol", 41: "cudaMemcpyAsync", 44: "cudaMemcpy2DAsync", 47: "cudaMemcpyToSymbolAsync",
    48: "cudaMemcpyFromSymbolAsync", 49: "cudaMemset", 50: "cudaMemset2D", 51: "cudaMemsetAsync",
    123: "cudaThreadExit", 126: "cudaThreadSynchronize", 129: "cudaStreamCreate", 130: "cudaStreamDestroy",
    131: "cudaStreamSynchronize", 132: "cudaStreamQuery", 133: "cudaEventCreate", 134: "cudaEventCreateWithFlags",
    135: "cudaEventRecord", 136: "cudaEventDestroy", 137: "cudaEventSynchronize", 138: "cudaEventQuery",
    139: "cudaEventElapsedTime", 147: "cudaStreamWaitEvent", 152: "cudaHostRegister", 153: "cudaHostUnregister",
    154: "cudaDeviceCanAccessPeer", 155: "cudaDeviceEnablePeerAccess", 160: "cudaMemcpyPeer",
    161: "cudaMemcpyPeerAsync", 164: "cudaDeviceReset", 165: "cudaDeviceSynchronize", 171: "cudaProfilerStart",
    172: "cudaProfilerStop", 198: "cudaStreamCreateWithFlags", 200: "cudaDeviceGetAttribute",
    201: "cudaStreamDestroy", 202: "cudaStreamCreateWithPriority", 206: "cudaMallocManaged", 211: "cudaLaunchKernel",
    213: "cudaLaunch_ptsz", 214: "cudaLaunchKernel_ptsz", 215: "cudaMemcpy_ptds", 225: "cudaMemcpyAsync_ptsz",
    233: "cudaMemset_ptds", 235: "cudaMemsetAsync_ptsz", 239: "cudaStreamSynchronize_ptsz",
    242: "cudaEventRecord_ptsz", 247: "cudaStreamWaitEvent_ptsz", 252: "cudaMemPrefetchAsync", 254: "cudaMemAdvise",
    269: "cudaLaunchCooperativeKernel", 272: "cudaLaunchCooperativeKernelMultiDevice", 273: "cudaFuncSetAttribute",
    284: "cudaLaunchHostFunc", 311: "cudaGraphLaunch", 312: "cudaGraphLaunch_ptsz",
}


#: CUDA driver API callback ids (``CUpti_driver_api_trace_cbid``, CUPTI's ``cupti_driver_cbid.h``) → function name,
#: for the calls the analyzers weigh: launches, copies, fills, synchronisations and graph launches (OpenACC, CUDA
#: Fortran and JIT programs launch through the driver: ``cuLaunchKernel``). Another id is named
#: ``cuDriverCall#<cbid>``.
DRIVER_CBIDS = {
    17: "cuCtxSynchronize", 115: "cuLaunch", 116: "cuLaunchGrid", 117: "cuLaunchGridAsync",
    121: "cuEventSynchronize", 126: "cuStreamSynchronize", 216: "cuMemsetD8Async", 218: "cuMemsetD16Async",
    220: "cuMemsetD32Async", 222: "cuMemsetD2D8Async", 224: "cuMemsetD2D16Async", 226: "cuMemsetD2D32Async",
    249: "cuMemsetD8_v2", 250: "cuMemsetD16_v2", 251: "cuMemsetD32_v2", 252: "cuMemsetD2D8_v2",
    253: "cuMemsetD2D16_v2", 254: "cuMemsetD2D32_v2", 276: "cuMemcpyHtoD_v2", 277: "cuMemcpyHtoDAsync_v2",
    278: "cuMemcpyDtoH_v2", 279: "cuMemcpyDtoHAsync_v2", 280: "cuMemcpyDtoD_v2", 281: "cuMemcpyDtoDAsync_v2",
    287: "cuMemcpy2D_v2", 289: "cuMemcpy2DAsync_v2", 290: "cuMemcpy3D_v2", 291: "cuMemcpy3DAsync_v2",
    295: "cuStreamWaitEvent", 304: "cuCtxGetCurrent", 305: "cuMemcpy", 306: "cuMemcpyAsync", 307: "cuLaunchKernel",
    310: "cuPointerGetAttribute", 318: "cuMemcpyPeer", 319: "cuMemcpyPeerAsync", 397: "cuMemcpyHtoD_v2_ptds",
    398: "cuMemcpyDtoH_v2_ptds", 399: "cuMemcpyDtoD_v2_ptds", 408: "cuMemcpy_ptds", 418: "cuMemcpyAsync_ptsz",
    421: "cuMemcpyHtoDAsync_v2_ptsz", 422: "cuMemcpyDtoHAsync_v2_ptsz", 423: "cuMemcpyDtoDAsync_v2_ptsz",
    436: "cuStreamWaitEvent_ptsz", 440: "cuStreamSynchronize_ptsz", 442: "cuLaunchKernel_ptsz",
    477: "cuLaunchCooperativeKernel", 478: "cuLaunchCooperativeKernel_ptsz",
    480: "cuLaunchCooperativeKernelMultiDevice", 514: "cuGraphLaunch", 515: "cuGraphLaunch_ptsz",
    527: "cuLaunchHostFunc", 528: "cuLaunchHostFunc_ptsz", 652: "cuLaunchKernelEx", 653: "cuLaunchKernelEx_ptsz",
}

#: The head of a Visual Profiler session file: an XML declaration, then ``<session version="N"``.
_SESSION = re.compile(rb'^\s*(?:<\?xml[^>]*\?>\s*)?<session version="[0-9]+"', re.ASCII)


def _session_profiles(text: str) -> tuple[list[str], str | None]:
    """The base64 text of each ``<timelinepdm><pdm>`` of a session that holds any (its ``<split>`` texts joined, in
    file order), and the XML error that ended the reading early (None when the document is well-formed: profiles
    complete before a damaged tail are kept). Parsed as XML (CDATA, comments, entities, any element order), with
    expat's limits on entity expansion."""
    import xml.etree.ElementTree as ET  # noqa: N817 - the stdlib's usual alias; imported when a session is read,
    # not when the collectors are loaded to sniff a file (~8 ms)

    parser = ET.XMLPullParser(events=("start", "end"))
    parser.feed(text)
    profiles: list[str] = []
    open_tags: list[str] = []
    splits: list[str] = []
    err = None
    events = parser.read_events()
    while True:
        try:
            ev, el = next(events)
        except StopIteration:
            break
        except ET.ParseError as exc:
            err = str(exc)
            break
        if ev == "start":
            open_tags.append(el.tag)
            continue
        open_tags.pop()
        inside = "timelinepdm" in open_tags
        if el.tag == "split" and inside and "pdm" in open_tags:
            splits.append("".join(el.itertext()))
        elif el.tag == "pdm" and inside:
            joined = "".join("".join(x.split()) for x in splits)
            if joined:
                profiles.append(joined)
            splits = []
            el.clear()
    if err is None:
        try:
            parser.close()
        except ET.ParseError as exc:
            err = str(exc)
    return profiles, err


def session_database(path: Path) -> tuple[bytes, int, str | None]:
    """The nvprof database a Visual Profiler session embeds, how many more profiles (``<pdm>`` holding data) it
    holds, and the XML error past the profile read (None when the session is well-formed).

    The session may be gzipped or UTF-16 (read by :func:`~._io.read_input`). The ``<split>`` texts of the first
    ``<timelinepdm><pdm>`` holding any are base64; their concatenation decodes to one gzip stream of the SQLite file
    (expanded within :func:`~._io.decompress_limit`). Raises :class:`TraceFormatError` when the session holds no
    profile data or the data does not decode to an SQLite file."""
    raw = read_input(path).data
    profiles, err = _session_profiles(raw.decode("utf-8", errors="replace"))
    if not profiles:
        damaged = f" (the XML is damaged: {err})" if err else ""
        raise TraceFormatError(path, "a Visual Profiler session without profile data (no <timelinepdm><pdm><split> "
                                     f"element holding data: the GUI state only){damaged}: record the data with "
                                     "`nvprof -o app.nvvp ./app` (an SQLite file, which gpulens reads)")
    try:
        db, truncated = gunzip_all(base64.b64decode(profiles[0]), path)
    except (binascii.Error, OSError, EOFError, zlib.error) as exc:
        raise TraceFormatError(path, f"Visual Profiler session: its embedded profile does not decode (base64 + "
                                     f"gzip: {exc})") from None
    if truncated:
        raise TraceFormatError(path, "Visual Profiler session: its embedded profile does not decode (base64 + gzip: "
                                     "the gzip stream ends before its end-of-stream marker)")
    if not db.startswith(SQLITE_MAGIC):
        raise TraceFormatError(path, "Visual Profiler session: its embedded profile is not an SQLite database")
    return db, len(profiles) - 1, err


class _NvprofDb(_Db):
    """nvprof's database: names in ``StringTable(_id_, value)``."""

    strings_table = "StringTable"
    string_id = "_id_"


def _is_nvprof(db: _Db) -> bool:
    return "StringTable" in db.cols and "StringIds" not in db.cols and any(t in db.cols for t in _TABLES)


def _concurrent_kernels(db: _Db):
    return _kernels(db, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL")


def _serial_kernels(db: _Db):
    return _kernels(db, "CUPTI_ACTIVITY_KIND_KERNEL")


def _api_calls(db: _Db, table: str, names_of: dict[int, str], unknown: str, anonymous: str):
    """The API calls of ``table`` (nvprof's runtime or driver activity records) as ``runtime`` host events, named
    from their callback id by ``names_of`` (another id: ``unknown`` + ``#<cbid>``; no id: ``anonymous``); pid/tid as
    recorded. None when the table is absent."""
    if not db.has(table, "start", "end"):
        return None
    df = db.select_ints(table, {"start_ns": "{start}", "dur_ns": "{end} - {start}", "correlation_id": "{correlationId}",
                                "pid": "{processId}", "tid": "{threadId}", "_cbid": "{cbid}"})
    codes, uniq = pd.factorize(df.pop("_cbid") if "_cbid" in df else pd.Series(np.full(len(df), None, dtype=object)))
    # one name per distinct id (two ids can share a name: cudaStreamDestroy _v3020 and _v5050); no id: unknown call
    names = np.array([names_of.get(int(c), f"{unknown}#{int(c)}") for c in uniq] + [anonymous], dtype=object)
    df["name"] = pd.Categorical(names[np.where(codes < 0, len(uniq), codes)])
    return _host(df, "runtime"), None


def _runtime(db: _Db):
    """Runtime API calls, named from their callback id (:data:`RUNTIME_CBIDS`)."""
    return _api_calls(db, "CUPTI_ACTIVITY_KIND_RUNTIME", RUNTIME_CBIDS, "cudaRuntimeCall", "cuda runtime")


def _driver(db: _Db):
    """Driver API calls (``--profile-api-trace all``, nvprof's default), named from their callback id
    (:data:`DRIVER_CBIDS`): the launches and copies of programs that call the driver (OpenACC, CUDA Fortran), linked
    to their kernels by correlation id as runtime calls are."""
    return _api_calls(db, "CUPTI_ACTIVITY_KIND_DRIVER", DRIVER_CBIDS, "cuDriverCall", "cuda driver")


def _devices(db: _Db) -> list[dict[str, Any]]:
    """One device per ``CUPTI_ACTIVITY_KIND_DEVICE`` row (first row per ``id``), its figures converted to bytes and
    Hz by :data:`CUDA_GPU_FIELDS` (nvprof records CUDA's ``cudaDeviceProp`` units: kB/s and kHz, as nsys' older
    ``TARGET_INFO_CUDA_GPU``)."""
    t = "CUPTI_ACTIVITY_KIND_DEVICE"
    if not db.has(t, "id"):
        return []
    cols = [c for c in ["id", "name", "computeCapabilityMajor", "computeCapabilityMinor", *CUDA_GPU_FIELDS]
            if c in db.cols[t]]
    df, _ = read_typed(db.con, t, {c: INT for c in cols})
    names = db.strings(df["name"], False) if "name" in df else pd.Series([None] * len(df))
    out, seen = [], set()
    for r, name in zip(df.to_dict("records"), names):
        r = {k: (None if v is pd.NA or v is None else v) for k, v in r.items()}
        if r["id"] is None or int(r["id"]) in seen:
            continue
        seen.add(int(r["id"]))
        out.append(cuda_prop_device(r, int(r["id"]), None if pd.isna(name) else str(name)))
    return sorted(out, key=lambda d: d["device_id"])


class NvprofSqliteCollector(NsysSqliteCollector):
    """nvprof's SQLite profile (``.nvvp``), see the module docstring."""

    name = "nvprof_sqlite"
    suffixes = (".nvvp", ".prof")
    priority = 10
    kernel_tables = ("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL")
    capture_hint = ""  # nvprof: no nsys option to name

    def sniff(self, path: Path, head: bytes) -> bool:
        """A Visual Profiler session by its XML head, or an SQLite file holding nvprof's tables."""
        return bool(_SESSION.match(head)) or sniff_db(path, head, _NvprofDb, _is_nvprof)

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        """Read an nvprof database, or the one a Visual Profiler session embeds (decoded to a private temporary
        file; the Timeline names the session, never the copy). Raises :class:`TraceFormatError` as
        :meth:`NsysSqliteCollector.collect` does, and for a session without decodable profile data."""
        path = Path(path)
        if not _SESSION.match(read_head(path, 4096)):
            return super().collect(path, strict)
        db, others, err = session_database(path)
        with tempfile.TemporaryDirectory(prefix="gpulens-nvvp-") as tmp:
            inner = Path(tmp) / "profile.sqlite"
            inner.write_bytes(db)
            try:
                tl = super().collect(inner, strict)
            except TraceFormatError as exc:
                raise TraceFormatError(path, f"Visual Profiler session: {exc.reason}") from None
        src = tl.meta.sources[0]
        src.update(path=str(path), size_bytes=path.stat().st_size, uncompressed_bytes=len(db),
                   embedded_in="Visual Profiler session")
        tl.meta.warnings[:] = [w.replace(str(inner), str(path)) for w in tl.meta.warnings]
        if err:
            tl.meta.warnings.append(f"{path}: the Visual Profiler session's XML is damaged past its profile data "
                                    f"({err}): the profile was read, the rest of the session not")
        if others:
            tl.meta.warnings.append(f"{path}: the Visual Profiler session holds {others + 1} profiles (<pdm>, one per "
                                    f"profiled process): the first is read, {others} not")
        return tl

    def _open(self, path: Path) -> _Db:
        db = _NvprofDb(path)
        if not _is_nvprof(db):
            db.con.close()
            raise TraceFormatError(path, "SQLite file has no nvprof tables (StringTable and "
                                         "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, _KERNEL, _MEMCPY or _RUNTIME)")
        return db

    def _readers(self, graphs) -> tuple:
        return (_concurrent_kernels, _serial_kernels, _copies, _memsets, _runtime, _driver, _syncs)

    def _metadata(self, db: _Db, warnings: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        ver, devices = None, []
        try:
            if db.has("Version", "version"):
                row = db.con.execute("SELECT version FROM Version LIMIT 1").fetchone()
                ver = row[0] if row and isinstance(row[0], int) else None
            devices = _devices(db)
        except sqlite3.DatabaseError as exc:  # a corrupt device table costs the device, not the file
            warnings.append(f"{db.path}: device list (CUPTI_ACTIVITY_KIND_DEVICE) unreadable, skipped ({exc})")
            return {"nvprof_schema_version": ver}, devices
        gpu_rows_unread(db, devices, ("CUPTI_ACTIVITY_KIND_DEVICE",), warnings)
        info: dict[str, Any] = {"nvprof_schema_version": ver}
        replay = _replay_tables(db)
        if replay:
            info["pmc"] = True  # a counter-collection run: no span, busy or idle (analyzers._span)
            warnings.append(f"{db.path}: an nvprof counter-collection run ({', '.join(replay)}: --metrics, --events "
                            "or --analysis-metrics): nvprof serialised and replayed each kernel to read them, so the "
                            "kernels' start times and the gaps between them are not the workload's; record a "
                            "timeline with nvprof -o FILE (no --metrics/--events) or Nsight Systems")
        return info, devices


#: nvprof tables written only when kernels were replayed to collect counters or instrumented (--metrics, --events,
#: --analysis-metrics, --source-level-analysis global_access/branch/...): the timeline of such a run is the profiler's
_REPLAY_TABLES = ("CUPTI_ACTIVITY_KIND_METRIC", "CUPTI_ACTIVITY_KIND_EVENT", "CUPTI_ACTIVITY_KIND_METRIC_INSTANCE",
                  "CUPTI_ACTIVITY_KIND_EVENT_INSTANCE", "CUPTI_ACTIVITY_KIND_INSTRUCTION_EXECUTION",
                  "CUPTI_ACTIVITY_KIND_GLOBAL_ACCESS", "CUPTI_ACTIVITY_KIND_SHARED_ACCESS",
                  "CUPTI_ACTIVITY_KIND_BRANCH")


def _replay_tables(db: _Db) -> list[str]:
    """The replay-only tables of ``db`` that hold rows (short names: ``METRIC``, ``EVENT`` …); unreadable ones are
    not counted."""
    out = []
    for t in _REPLAY_TABLES:
        if t in db.cols:
            try:
                if db.con.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone():
                    out.append(t.removeprefix("CUPTI_ACTIVITY_KIND_"))
            except sqlite3.DatabaseError:
                continue
    return out
