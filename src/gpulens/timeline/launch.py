"""Launch-configuration values no GPU can run are unknown, not figures to analyse.

A trace can record a grid, block, register or shared-memory value that no GPU accepts: a block of 0 or 2^63−1
threads, a negative grid, 100,000 registers per thread, a terabyte of shared memory per block (a corrupted file, a
producer bug, a fuzzer). Analysed as given, such a value yields an occupancy of 0 %, a "registers limit occupancy"
verdict or a "too few blocks" finding about a kernel nobody can launch. :func:`scrub_launch_config` turns every
value outside what any supported GPU allows into ``<NA>`` (unknown) and counts them, whatever collector produced
the rows; :meth:`gpulens.timeline.Timeline.validate` calls it and records one warning.

Bounds (device-independent: the largest value any GPU in :mod:`gpulens.devices.arch` accepts, so a valid launch on
any of them is never touched):

* grid: each dimension 1 … 2^31−1 blocks (CUDA Programming Guide, "Technical Specifications per Compute
  Capability": maximum x-dimension of a grid 2^31−1, y/z 65535; HIP ``hipDeviceProp_t::maxGridSize`` 2^31−1);
* block: each dimension ≥ 1 and the product ≤ the largest ``max_threads_per_block`` (1024 on CUDA CC 7.0–12.x and
  on AMD CDNA; CUDA guide, HIP ``maxThreadsPerBlock``);
* registers per thread: 0 … the cap of the row's vendor — NVIDIA 255 (CUDA C++ Programming Guide, "Technical
  Specifications per Compute Capability": maximum number of 32-bit registers per thread 255 for every compute
  capability from 3.5 on) on a row of an NVIDIA device (an ncu / nsys row, or a row whose recorded device is
  NVIDIA's: :func:`nvidia_rows`); 512 elsewhere (unified VGPR+AGPR on gfx90a and later, LLVM ``AMDGPUUsage.rst``:
  the largest of any GPU, so a row whose vendor is unknown is never wrongly cleared);
* shared memory (LDS) per block, static and dynamic each: 0 … the largest opt-in per-block limit of the tables
  (227 KiB on CC 9.0/10.0; 160 KiB LDS on gfx950).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

_GRID = ("grid_x", "grid_y", "grid_z")
_BLOCK = ("block_x", "block_y", "block_z")
_SMEM = ("smem_static_bytes", "smem_dynamic_bytes")
MAX_GRID_DIM = (1 << 31) - 1
#: Registers per thread no NVIDIA kernel exceeds: 255 (CUDA C++ Programming Guide, "Technical Specifications per
#: Compute Capability", "Maximum number of 32-bit registers per thread": 255 for compute capability 3.5 and later).
NVIDIA_MAX_REGS_PER_THREAD = 255
#: Collectors that read NVIDIA tools' files only (Nsight Compute, Nsight Systems): every row is an NVIDIA GPU's.
_NVIDIA_SOURCES = ("ncu", "nsys")


def limits() -> dict[str, int]:
    """The device-independent upper bounds: ``threads_per_block``, ``regs_per_thread``, ``smem_per_block`` [bytes]
    (the largest of every architecture table in :mod:`gpulens.devices.arch`) and ``grid_dim`` [blocks]."""
    from gpulens.devices.arch import AMD_LIMITS, CUDA_LIMITS

    tables = list(CUDA_LIMITS.values()) + list(AMD_LIMITS.values())
    return {"threads_per_block": max(t.max_threads_per_block for t in tables),
            "regs_per_thread": max(t.max_regs_per_thread for t in tables),
            "smem_per_block": max(max(t.smem_per_block_optin, t.smem_per_block) for t in tables),
            "grid_dim": MAX_GRID_DIM}


def _values(col: Any) -> tuple[np.ndarray, np.ndarray]:
    """(integer values, valid mask) of a nullable integer column; a value where the mask is False is any number
    (every caller reads the values only where they are valid). A pandas masked column (Int32/Int64, as the Timeline
    stores launch resources) hands out its own value and mask arrays: no int64 copy with 0 filled in per column (ten
    columns of 3M rows were half of this module's time at 1M kernels); other columns are converted."""
    arr = getattr(col, "array", None)
    if isinstance(arr, pd.arrays.IntegerArray):
        return arr._data, ~arr._mask
    return col.to_numpy(dtype=np.int64, na_value=0), col.notna().to_numpy()


def _is_nvidia_record(rec: Any) -> bool:
    """True for a device record of an NVIDIA GPU: its vendor says so, or it records a CUDA compute capability and
    nothing of AMD's (a ROCm Kineto trace records HIP's "compute capability" 9.4 for an MI300X: not NVIDIA's)."""
    from gpulens.devices.naming import is_amd

    if not isinstance(rec, dict):
        return False
    vendor = str(rec.get("vendor") or "").lower()
    if vendor in ("amd", "nvidia"):
        return vendor == "nvidia"
    if is_amd(rec):
        return False
    return "NVIDIA" in str(rec.get("name") or "").upper() or rec.get("compute_capability") not in (None, "")


def nvidia_rows(events: Any, devices: list[Any] | None = None) -> np.ndarray:
    """Mask of the ``events`` rows run on an NVIDIA GPU: rows of an NVIDIA-only collector (ncu, nsys: the
    ``source`` column) and rows whose (rank, device_id) names a recorded device of NVIDIA's (``devices``:
    ``TimelineMeta.devices``; a record without a rank matches every rank). Other rows (AMD, vendor unknown): False."""
    n = len(events)
    out = np.zeros(n, dtype=bool)
    if not n:
        return out
    if "source" in events:
        src = events["source"].astype(str)
        out |= src.str.startswith(_NVIDIA_SOURCES).to_numpy(dtype=bool)
    recs = [d for d in devices or [] if isinstance(d, dict) and d.get("device_id") is not None]
    if recs and "device_id" in events:
        dev = events["device_id"].to_numpy(dtype=np.int64, na_value=-1)
        rank = events["rank"].to_numpy(dtype=np.int64, na_value=-1) if "rank" in events else np.zeros(n, np.int64)
        for d in recs:
            if not _is_nvidia_record(d):
                continue
            try:
                hit = dev == int(d["device_id"])
                if d.get("rank") is not None:
                    hit &= rank == int(d["rank"])
            except (TypeError, ValueError):
                continue
            out |= hit
    return out


def scrub_launch_config(events: Any, devices: list[Any] | None = None) -> dict[str, int]:
    """Set impossible launch-configuration values of ``events`` (Timeline event columns) to ``<NA>`` in place.

    ``devices`` (``TimelineMeta.devices``) tells which rows ran on an NVIDIA GPU (:func:`nvidia_rows`): their
    register count is impossible above :data:`NVIDIA_MAX_REGS_PER_THREAD` (255), the others' above 512.

    A launch whose grid has one impossible dimension loses its whole grid (its size is unknown); one impossible
    block dimension, register count or shared-memory size clears the block, registers and shared memory of that
    launch (they decide occupancy together).

    Returns:
        rows per cause: ``{"grid": n, "block": n, "registers": n, "shared memory": n}`` (zeros omitted).
    """
    if not len(events) or "grid_x" not in events:
        return {}
    lim = limits()
    out: dict[str, int] = {}

    def clear(cols: tuple[str, ...], bad: np.ndarray, label: str) -> None:
        if bad.any():
            for c in cols:
                events.loc[bad, c] = None
            out[label] = int(bad.sum())

    n = len(events)
    bad = np.zeros(n, dtype=bool)
    for c in _GRID:
        v, ok = _values(events[c])
        bad |= ok & ((v < 1) | (v > lim["grid_dim"]))
    clear(_GRID, bad, "grid")
    # block, registers and shared memory decide occupancy together: one impossible value makes the launch's
    # resource record unreliable, so all three become unknown (an occupancy computed from the other two would
    # be a figure of a launch that never happened)
    block = np.zeros(n, dtype=bool)
    threads = np.ones(n, dtype=np.float64)  # float: a product of three huge int64 values must not wrap around
    for c in _BLOCK:
        v, ok = _values(events[c])
        block |= ok & (v < 1)
        threads *= np.where(ok, np.maximum(v, 1), 1).astype(np.float64)
    block |= threads > lim["threads_per_block"]
    v, ok = _values(events["regs_per_thread"])
    above = ok & (v > NVIDIA_MAX_REGS_PER_THREAD)
    if above.any():  # rows past NVIDIA's cap: impossible on an NVIDIA GPU (the vendor test only when there are some)
        cap = np.where(nvidia_rows(events, devices), NVIDIA_MAX_REGS_PER_THREAD, lim["regs_per_thread"])
        regs = ok & ((v < 0) | (v > cap))
    else:
        regs = ok & (v < 0)
    smem = np.zeros(n, dtype=bool)
    for c in _SMEM:
        v, ok = _values(events[c])
        smem |= ok & ((v < 0) | (v > lim["smem_per_block"]))
    for label, rows in (("block", block), ("registers", regs), ("shared memory", smem)):
        if rows.any():
            out[label] = int(rows.sum())
    clear(_BLOCK + ("regs_per_thread",) + _SMEM, block | regs | smem, "")
    out.pop("", None)
    return out


def describe(changed: dict[str, int]) -> str:
    """One warning sentence for :func:`scrub_launch_config`'s counts."""
    lim = limits()
    parts = ", ".join(f"{k} ×{v}" for k, v in changed.items())
    return (f"impossible launch configuration values treated as unknown ({parts}): no GPU runs a grid dimension "
            f"outside 1…{lim['grid_dim']:,}, a block outside 1…{lim['threads_per_block']:,} threads, more than "
            f"{NVIDIA_MAX_REGS_PER_THREAD} registers per thread on NVIDIA ({lim['regs_per_thread']} VGPRs per "
            f"work-item on AMD) or {lim['smem_per_block']:,} bytes of shared memory (LDS) per block")


#: Device-record keys (``TimelineMeta.devices``) that hold a count or id: a non-negative integer. Keys ending in
#: ``_bytes``/``_hz``/``_mhz``/``_per_s`` or starting with ``max_``/``l1_``/``l2_``/``lds_``/``smem_`` hold a
#: non-negative number.
DEVICE_INT_KEYS = frozenset({"device_id", "rank", "gpu_index", "chip_id", "agent_handle", "num_sms", "num_xcc",
                             "warp_size", "simd_per_cu", "l2_channels", "regs_per_block", "regs_per_sm"})
#: Device-record keys that hold text.
DEVICE_TEXT_KEYS = frozenset({"name", "compute_capability", "gfx_arch", "uuid", "vendor", "chip", "bus_location",
                              "hostname", "rocm_version", "compute_partition", "memory_partition"})
_INT_SUFFIXES = ("_bytes", "_hz", "_mhz", "_per_s")


def _device_number(value: Any, integral: bool) -> int | float | None:
    """``value`` as a non-negative number below 2^63 when it is one (an int, a finite float or its decimal text);
    with ``integral`` an int (a float must be integral)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip()) if any(c in value for c in ".eEnN") else int(value.strip())
        except ValueError:
            return None
    if isinstance(value, float):
        if not np.isfinite(value) or not 0 <= value < 2.0 ** 63:
            return None
        if value == int(value):
            value = int(value)
        elif integral:
            return None
    if isinstance(value, int):
        return value if 0 <= value < (1 << 63) else None
    return value if isinstance(value, float) else None


def scrub_device_records(devices: list[Any]) -> list[str]:
    """Remove, in place, device-record values of the wrong type or impossible (a list where a count belongs, a
    negative or NaN size, an SM count of 2^70, a compute capability that is not ``major.minor``); integers written
    as text or integral floats become ints. Records that are not dicts are removed. Returns ``"key=value"`` for
    each value removed (the caller warns once)."""
    import re

    dropped: list[str] = []
    keep = []
    for d in devices:
        if not isinstance(d, dict):
            dropped.append(f"device record {str(d)[:40]}")
            continue
        for k in list(d):
            v = d[k]
            if v is None:
                continue
            if k in DEVICE_INT_KEYS or k.endswith(_INT_SUFFIXES) or k.startswith(("max_", "l1_", "l2_", "lds_",
                                                                                     "smem_")):
                n = _device_number(v, k in DEVICE_INT_KEYS)
                if n is None:
                    dropped.append(f"{k}={str(v)[:40]}")
                    del d[k]
                else:
                    d[k] = n
            elif k in DEVICE_TEXT_KEYS:
                ok = isinstance(v, str) and (k != "compute_capability" or re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,3})?", v))
                if not ok:
                    dropped.append(f"{k}={str(v)[:40]}")
                    del d[k]
        keep.append(d)
    devices[:] = keep
    return dropped
