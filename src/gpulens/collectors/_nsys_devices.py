"""Nsight Systems SQLite export: the export's metadata and its GPUs (``meta.devices``) for :mod:`.nsys_sqlite`.

:func:`metadata` reads the nsys and schema versions (``META_DATA_EXPORT``, else the older ``EXPORT_META_DATA``) and
one device per ``TARGET_INFO_GPU`` row (:data:`GPU_FIELDS`), or for exports of 2020–2021 the figures of
``TARGET_INFO_CUDA_GPU`` (:data:`CUDA_GPU_FIELDS`, converted to bytes and Hz), and the capture's start
(``TARGET_INFO_SESSION_START_TIME.utcEpochNs``, :func:`session_start_ns`): every time of an export counts from it.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pandas as pd

from gpulens.collectors._nsys_db import _Db
from gpulens.collectors._sqlite import INT, TEXT, read_typed
from gpulens.units import plural

#: TARGET_INFO_GPU column → device dict key.
GPU_FIELDS = {"name": "name", "computeMajor": None, "smCount": "num_sms", "totalMemory": "total_memory_bytes",
              "memoryBandwidth": "memory_bandwidth_bytes_per_s", "clockRate": "clock_hz",
              "l2CacheSize": "l2_cache_bytes", "threadsPerWarp": "warp_size", "maxWarpsPerSm": "max_warps_per_sm",
              "maxBlocksPerSm": "max_blocks_per_sm", "maxRegistersPerSm": "regs_per_sm",
              "maxRegistersPerBlock": "regs_per_block", "maxShmemPerSm": "smem_per_sm_bytes",
              "maxShmemPerBlock": "smem_per_block_bytes", "maxShmemPerBlockOptin": "smem_per_block_optin_bytes",
              "maxThreadsPerBlock": "max_threads_per_block", "chipName": "chip", "busLocation": "bus_location",
              "uuid": "uuid"}

_TEXT_FIELDS = {"name", "chipName", "busLocation", "uuid"}


def session_start_ns(db: _Db) -> int | None:
    """The UTC time [ns since the Unix epoch] at which the capture of ``db`` started, or None when not recorded.

    Every timestamp of an nsys export counts from its own capture (session) start, and
    ``TARGET_INFO_SESSION_START_TIME.utcEpochNs`` is that start's wall-clock time (an RTX 4090 export made by nsys
    2023.3: utcEpochNs 1694763998414956583, first kernel at 429,658,647 ns): one export per rank or process has one
    clock origin per file, so ``utcEpochNs + start`` places the files' events on one time axis."""
    t = "TARGET_INFO_SESSION_START_TIME"
    if not db.has(t, "utcEpochNs"):
        return None
    df, _ = read_typed(db.con, t, {"utcEpochNs": INT})
    v = pd.to_numeric(df["utcEpochNs"], errors="coerce").dropna()
    return int(v.iloc[0]) if len(v) and int(v.iloc[0]) > 0 else None


def _export_meta(db: _Db) -> dict[str, Any]:
    for t in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if db.has(t, "name", "value"):
            df, _ = read_typed(db.con, t, {"name": TEXT, "value": TEXT})
            kv = dict(zip(df["name"], df["value"]))
            return {"nsys_version": kv.get("EXPORT_PRODUCT_VERSION"),
                    "schema_version": kv.get("EXPORT_SCHEMA_VERSION"), "meta_table": t}
    return {"nsys_version": None, "schema_version": None, "meta_table": None}


#: Older exports (nsys 2020–2021: ``TARGET_INFO_GPU`` has ``deviceId, name, busLocation`` and no ``id``) keep the
#: device figures in ``TARGET_INFO_CUDA_GPU``: column → (device dict key, factor to bytes / Hz). Its bandwidth is in
#: kB/s and its clock in kHz (as CUDA's ``cudaDeviceProp::clockRate``): an RTX 3080 export (PolPuigPuy/
#: OpenACC_Project_PolPuig report2.sqlite) records 760080000 (760.08 GB/s, the card's 19 Gbps × 320 bit) and 1740000.
CUDA_GPU_FIELDS = {"numMultiprocessors": ("num_sms", 1), "globalMemorySize": ("total_memory_bytes", 1),
                   "globalMemoryBandwidth": ("memory_bandwidth_bytes_per_s", 1000), "coreClockRate": ("clock_hz", 1000),
                   "l2CacheSize": ("l2_cache_bytes", 1), "numThreadsPerWarp": ("warp_size", 1),
                   "maxWarpsPerMultiprocessor": ("max_warps_per_sm", 1),
                   "maxBlocksPerMultiprocessor": ("max_blocks_per_sm", 1),
                   "maxRegistersPerMultiprocessor": ("regs_per_sm", 1), "maxRegistersPerBlock": ("regs_per_block", 1),
                   "maxSharedMemoryPerMultiprocessor": ("smem_per_sm_bytes", 1),
                   "maxSharedMemoryPerBlock": ("smem_per_block_bytes", 1),
                   "maxThreadsPerBlock": ("max_threads_per_block", 1)}


def cuda_prop_device(r: dict[str, Any], device_id: int, name: Any) -> dict[str, Any]:
    """A device dict from a row of CUDA ``cudaDeviceProp`` figures (nsys' ``TARGET_INFO_CUDA_GPU``, nvprof's
    ``CUPTI_ACTIVITY_KIND_DEVICE``: ``computeCapabilityMajor/Minor`` and the columns of :data:`CUDA_GPU_FIELDS`,
    converted to bytes and Hz; a figure ≤ 0 or missing is left out)."""
    d: dict[str, Any] = {"rank": 0, "device_id": device_id, "name": name}
    if r.get("computeCapabilityMajor") is not None:
        d["compute_capability"] = f"{r['computeCapabilityMajor']}.{r.get('computeCapabilityMinor') or 0}"
    for src, (dst, factor) in CUDA_GPU_FIELDS.items():
        if r.get(src) is not None and int(r[src]) > 0:
            d[dst] = int(r[src]) * factor
    return d


def _devices_old_schema(db: _Db) -> list[dict[str, Any]]:
    """Devices of an older export (no ``TARGET_INFO_GPU.id``): one per ``TARGET_INFO_CUDA_GPU`` row keyed by its
    ``deviceId`` (the CUDA device the kernels' ``deviceId`` names), figures converted by :data:`CUDA_GPU_FIELDS`;
    else the names of ``TARGET_INFO_GPU`` (``deviceId``, ``name``, ``busLocation``) alone."""
    t = "TARGET_INFO_CUDA_GPU"
    if db.has(t, "deviceId"):
        cols = [c for c in ["deviceId", "name", "pciBusId", "computeCapabilityMajor", "computeCapabilityMinor",
                            *CUDA_GPU_FIELDS] if c in db.cols[t]]
        df, _ = read_typed(db.con, t, {c: TEXT if c in ("name", "pciBusId") else INT for c in cols})
    elif db.has("TARGET_INFO_GPU", "deviceId"):
        cols = [c for c in ["deviceId", "name", "busLocation"] if c in db.cols["TARGET_INFO_GPU"]]
        df, _ = read_typed(db.con, "TARGET_INFO_GPU", {c: TEXT if c != "deviceId" else INT for c in cols})
    else:
        return []
    out, seen = [], set()
    for r in df.sort_values("deviceId").to_dict("records"):
        r = {k: (None if v is pd.NA or v is None else v) for k, v in r.items()}
        if r["deviceId"] is None or int(r["deviceId"]) in seen:  # one row per process that used the device
            continue
        seen.add(int(r["deviceId"]))
        d = cuda_prop_device(r, int(r["deviceId"]), r.get("name"))
        bus = r.get("pciBusId") or r.get("busLocation")
        if bus:
            d["bus_location"] = bus
        out.append(d)
    return out


def _devices(db: _Db) -> list[dict[str, Any]]:
    """One dict per ``TARGET_INFO_GPU`` row, read with declared types (a row whose id is no integer is skipped;
    another field of the wrong type is left out; a row with 0 SMs and no compute capability is no CUDA device and is
    skipped); an older export's devices by :func:`_devices_old_schema`."""
    t = "TARGET_INFO_GPU"
    if not db.has(t, "id"):
        return _devices_old_schema(db)
    schema = {c: TEXT if c in _TEXT_FIELDS else INT for c in ["id", *GPU_FIELDS, "computeMinor"]}
    df, _ = read_typed(db.con, t, schema)
    out = []
    for r in df.sort_values("id").to_dict("records"):
        r = {k: (None if v is pd.NA or v is None else v) for k, v in r.items()}
        if r["id"] is None:
            continue
        if r.get("smCount") == 0 and not r.get("computeMajor"):
            # no SM and no compute capability: a display adapter CUDA cannot run on (Windows lists its software
            # "Microsoft Basic Render Driver" beside the GPU), never a GPU of the run that did no work
            continue
        d: dict[str, Any] = {"rank": 0, "device_id": int(r["id"]), "name": r.get("name")}
        if r.get("computeMajor") is not None:
            d["compute_capability"] = f"{r['computeMajor']}.{r.get('computeMinor') or 0}"
        for src, dst in GPU_FIELDS.items():
            if dst and dst != "name" and r.get(src) is not None:
                d[dst] = int(r[src]) if src not in _TEXT_FIELDS else r[src]
        out.append(d)
    return out


def metadata(db: _Db, warnings: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Export metadata and devices; an unreadable metadata table (corrupt page, ...) is a warning, not the file."""
    info: dict[str, Any] = {"nsys_version": None, "schema_version": None, "meta_table": None}
    devices: list[dict[str, Any]] = []
    for what, fn in (("export metadata", _export_meta), ("GPU list (TARGET_INFO_GPU)", _devices)):
        try:
            got = fn(db)
        except sqlite3.DatabaseError as exc:
            warnings.append(f"{db.path}: {what} unreadable, skipped ({exc})")
            continue
        if isinstance(got, dict):
            info = got
        else:
            devices = got
    gpu_rows_unread(db, devices, ("TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"), warnings)
    try:
        info["session_start_epoch_ns"] = session_start_ns(db)
    except sqlite3.DatabaseError as exc:
        warnings.append(f"{db.path}: capture start (TARGET_INFO_SESSION_START_TIME) unreadable, skipped ({exc})")
    return info, devices


def gpu_rows_unread(db: _Db, devices: list[dict[str, Any]], tables: tuple[str, ...], warnings: list[str]) -> None:
    """Say in ``warnings`` when the rows of the export's GPU table gave no device (nsys' ``TARGET_INFO_GPU`` or
    nvprof's ``CUPTI_ACTIVITY_KIND_DEVICE`` in a layout without the id column, or with every id NULL): nothing when
    a device was read or the first of ``tables`` present holds no row."""
    unread = None if devices else _rows_unread(db, tables)
    if unread:
        warnings.append(f"{db.path}: {unread}: the GPUs' hardware (name, SMs, clocks) is not known from this export")


def _rows_unread(db: _Db, tables: tuple[str, ...]) -> str | None:
    """Why the first of ``tables`` that holds rows gave no device, or None when none holds a row."""
    for t in tables:
        if t not in db.cols:
            continue
        try:
            n = int(db.con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0])
        except sqlite3.DatabaseError:
            continue
        if n:
            how = ("no id column (nor deviceId)" if "id" not in db.cols[t] and "deviceId" not in db.cols[t]
                   else "no integer device id in any")
            return f"{t} holds {plural(n, 'row(s)')} but {how}"
    return None
