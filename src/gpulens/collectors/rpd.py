"""rocmProfileData (RPD) SQLite traces (``runTracer.sh``, ``rpd_tracer``; ROCm/rocmProfileData) → Timeline.

RPD is not the rocprofv3 rocpd database (:mod:`gpulens.collectors.rocpd`) although its tables share the ``rocpd_``
prefix. Its schema (rocmProfileData ``schema.sql``, ``rocpd_metadata`` ``schema_version`` 2):

* ``rocpd_op`` — one row per GPU operation: ``gpuId``, ``queueId``, ``start``/``end`` (ns), ``description_id``
  (kernel name) and ``opType_id`` → ``rocpd_string.string``: ``KernelExecution``; ``Task`` (a kernel run as a node
  of a HIP graph replay: its launch is the ``hipGraphLaunch``); ``CopyHostToDevice`` / ``CopyDeviceToHost`` /
  ``CopyDeviceToDevice`` / ``CopyHostToHost`` / ``CopyPeerToPeer`` → memcpy; ``FillBuffer`` → memset; other types
  (barrier and marker packets) are not GPU work and are left out, counted in a warning.
* ``rocpd_api`` — host calls (``pid``, ``tid``, ``start``/``end``, ``apiName_id``, ``args_id``). ``UserMarker``
  rows are roctx ranges (their text in ``args``) → ``annotation``; the others (HIP API) → ``runtime``.
* ``rocpd_api_ops`` (``api_id``, ``op_id``) links a call to the operations it enqueued: both get the call's id as
  ``correlation_id``.
* ``rocpd_kernelapi`` (per launching call: ``workgroup{X,Y,Z}``, ``groupSegmentSize`` = LDS bytes) gives the
  block size and LDS of the kernels the call enqueued. Its ``gridX`` is not read: the tracer stores blocks for some
  launch APIs (``hipLaunchKernel``: ``numBlocks``) and work-items for others (``hipExtModuleLaunchKernel``:
  ``globalWorkSize``) and for its rocprofiler-sdk backend (``grid_size``), so the unit cannot be told from the file
  (rpd_tracer ``RoctracerDataSource.cpp`` / ``RocprofDataSource.cpp``); the grid is unknown.

RPD records no device name: the GPU is ``gpuId`` alone (no hardware spec; ``--device-spec`` gives one).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._dispatch import Dispatches, build_timeline, merge
from gpulens.collectors._io import describe
from gpulens.collectors._nsys_more import mark_incomplete
from gpulens.collectors._sqlite import INT, TEXT, connect_ro, read_typed
from gpulens.collectors.base import Collector
from gpulens.collectors.rocprof_v1_trace import SQLITE_MAGIC, sqlite_tables
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline
from gpulens.units import agree, plural

#: opType → (Timeline kind, copy kind); ``Task`` is a kernel of a HIP graph replay
OP_KINDS = {"KernelExecution": ("kernel", None), "Task": ("kernel", None), "FillBuffer": ("memset", None),
            "CopyHostToDevice": ("memcpy", "HtoD"), "CopyDeviceToHost": ("memcpy", "DtoH"),
            "CopyDeviceToDevice": ("memcpy", "DtoD"), "CopyHostToHost": ("memcpy", "HtoH"),
            "CopyPeerToPeer": ("memcpy", "PtoP")}
_SCHEMA = {
    "rocpd_op": {"id": INT, "gpuId": INT, "queueId": INT, "start": INT, "end": INT, "description_id": INT,
                 "opType_id": INT},
    "rocpd_api": {"id": INT, "pid": INT, "tid": INT, "start": INT, "end": INT, "apiName_id": INT, "args_id": INT},
    "rocpd_api_ops": {"api_id": INT, "op_id": INT},
    "rocpd_kernelapi": {"api_ptr_id": INT, "workgroupX": INT, "workgroupY": INT, "workgroupZ": INT,
                        "groupSegmentSize": INT},
    "rocpd_copyapi": {"api_ptr_id": INT, "size": INT},
    "rocpd_string": {"id": INT, "string": TEXT},
    "rocpd_metadata": {"tag": TEXT, "value": TEXT},
}
#: tables that make an SQLite file an RPD trace (rocprofv3's rocpd has ``rocpd_kernel_dispatch`` instead)
RPD_TABLES = {"rocpd_op", "rocpd_api", "rocpd_string"}


#: key of :func:`_ops`'s count of kernels whose name (``description_id``) is not in ``rocpd_string``
_UNNAMED = "\0unnamed"


def is_rpd(tables: set[str]) -> bool:
    """Whether an SQLite file with these tables/views is an RPD trace (and not a rocprofv3 rocpd database)."""
    return RPD_TABLES <= tables and not any(t.startswith("rocpd_kernel_dispatch") for t in tables)


def _map(keys: pd.Series, table: pd.DataFrame, key: str, col: str) -> pd.Series:
    """``table[col]`` for each value of ``keys`` matched on ``table[key]`` (first row of a repeated key); NA when
    no row matches."""
    right = table.dropna(subset=[key]).drop_duplicates(key).set_index(key)[col]
    out = keys.map(right)
    if right.dtype == object:  # text: with no key matched, map keeps the keys' Int64 dtype, where "" cannot go
        out = out.astype(object)
    return pd.Series(out.array, index=keys.index)


def _read(con: sqlite3.Connection, tables: set[str]) -> tuple[dict[str, pd.DataFrame], int]:
    frames, bad = {}, 0
    for t, schema in _SCHEMA.items():
        if t in tables:
            frames[t], n = read_typed(con, t, schema)
            bad += n
        else:
            frames[t] = pd.DataFrame({c: pd.Series(dtype="Int64" if k == INT else object) for c, k in schema.items()})
    return frames, bad


def _ops(f: dict[str, pd.DataFrame], text: pd.DataFrame) -> tuple[Dispatches, dict[str, int]]:
    """The GPU operations that are work (:data:`OP_KINDS`) and the count of the others per opType."""
    op = f["rocpd_op"]
    optype = _map(op["opType_id"], text, "id", "string").fillna("").astype(str)
    known = optype.isin(list(OP_KINDS)).to_numpy()
    skipped = optype[~known].value_counts().to_dict()
    op, optype = op[known].reset_index(drop=True), optype[known].reset_index(drop=True)
    kind = optype.map(lambda t: OP_KINDS[t][0])
    desc = _map(op["description_id"], text, "id", "string")
    skipped[_UNNAMED] = int((desc.isna() & op["description_id"].notna() & (kind == "kernel")).sum())
    desc = desc.fillna("").astype(str)
    name = desc.where((kind != "memcpy") & (desc.str.strip() != ""), optype)  # copies and fills: their opType
    api = _map(op["id"], f["rocpd_api_ops"], "op_id", "api_id")
    ka = f["rocpd_kernelapi"]
    d = Dispatches(n=len(op))
    d.cols.update(kind=kind.tolist(), name=name.tolist(), start_ns=op["start"], end_ns=op["end"],
                  device_id=op["gpuId"], stream_id=op["queueId"], correlation_id=api,
                  copy_kind=optype.map(lambda t: OP_KINDS[t][1]).tolist(),
                  bytes=_map(api, f["rocpd_copyapi"], "api_ptr_id", "size").where(kind == "memcpy"))
    is_kernel = (kind == "kernel").to_numpy()
    for ax in "XYZ":  # the launching call's workgroup size: block of the kernels it enqueued
        d.cols[f"block_{ax.lower()}"] = _map(api, ka, "api_ptr_id", f"workgroup{ax}").where(is_kernel)
    d.cols["lds_bytes"] = _map(api, ka, "api_ptr_id", "groupSegmentSize").where(is_kernel)
    return d, skipped


def _apis(f: dict[str, pd.DataFrame], text: pd.DataFrame) -> Dispatches | None:
    a = f["rocpd_api"]
    if not len(a):
        return None
    api = _map(a["apiName_id"], text, "id", "string").fillna("").astype(str)
    args = _map(a["args_id"], text, "id", "string").fillna("").astype(str)
    marker = (api == "UserMarker").to_numpy()
    d = Dispatches(n=len(a))
    d.cols.update(kind=np.where(marker, "annotation", "runtime").tolist(),
                  name=np.where(marker & (args.str.strip() != ""), args, api).tolist(),
                  start_ns=a["start"], end_ns=a["end"], device_id=[-1] * len(a), pid=a["pid"], tid=a["tid"],
                  correlation_id=a["id"].where(~marker))
    return d


class Rpd(Collector):
    """rocmProfileData SQLite trace (see module docstring)."""

    name = "rpd"
    suffixes = (".rpd",)
    priority = 13  # before rocpd (14): both have rocpd_* tables

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(SQLITE_MAGIC) and is_rpd(sqlite_tables(path))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        tables = sqlite_tables(path)
        if not is_rpd(tables):
            raise TraceFormatError(path, "not a rocmProfileData (RPD) trace (no rocpd_op / rocpd_api table)")
        con = connect_ro(path)
        try:
            f, coerced = _read(con, tables)
        except (sqlite3.Error, pd.errors.DatabaseError, UnicodeDecodeError) as exc:
            raise TraceFormatError(path, f"cannot read the RPD tables ({describe(exc)})") from None
        finally:
            con.close()
        text = f["rocpd_string"]
        ops, skipped = _ops(f, text)
        unnamed = skipped.pop(_UNNAMED, 0)
        parts = [p for p in (ops, _apis(f, text)) if p is not None and p.n]
        warnings = []
        if skipped:
            warnings.append(f"{path}: {plural(sum(skipped.values()), 'GPU operation(s)')} that {agree(sum(skipped.values()), 'is', 'are')} not work left out ("
                            + ", ".join(f"{k or '(no type)'} ×{v:,}" for k, v in sorted(skipped.items())) + ")")
        if coerced:
            warnings.append(f"{path}: {plural(coerced, 'value(s)')} of the wrong type read as unknown")
        if unnamed:
            warnings.append(f"{path}: {plural(unnamed, 'kernel(s)')} whose description id is not in rocpd_string: "
                            "named by their operation type")
        tl = build_timeline(merge(parts), self.name, path, warnings=warnings) if parts else Timeline()
        meta = f["rocpd_metadata"]
        hit = meta.loc[meta["tag"] == "schema_version", "value"] if len(meta) else pd.Series(dtype=object)
        pids = sorted({int(p) for p in f["rocpd_api"]["pid"].dropna()})
        tl.meta.sources = [{"path": str(path), "collector": self.name, "size_bytes": path.stat().st_size, "rank": 0,
                            "schema_version": str(hit.iloc[0]) if len(hit) else None,
                            "process_id": pids[0] if len(pids) == 1 else None}]
        gpus = sorted({int(g) for g in f["rocpd_op"]["gpuId"].dropna()})
        tl.meta.devices = [{"rank": 0, "device_id": g, "vendor": "amd"} for g in gpus]
        if not parts:
            tl.meta.warnings.extend(warnings)
        mark_incomplete(tl, path, "the database has no GPU operation (rocpd_op) row",
                        "the GPU side was not traced or the run stopped before rpd flushed its ops (runTracer.sh / "
                        "rpdTracerControl record both)")
        return tl.validate()
