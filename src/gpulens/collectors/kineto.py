"""PyTorch Profiler (Kineto) Chrome-trace JSON → Timeline.

Handles ``.json`` and ``.json.gz`` (gzip found by magic bytes, every member read), the CUDA and ROCm dialects,
the 2021 legacy schema (capitalised categories ``Kernel``/``Runtime``/``Operator``, ``"external id"``, ``tid`` strings
such as ``"stream 7"``), ns-resolution traces, ``deviceProperties``, ``distributedInfo`` and ``baseTimeNanoseconds``.

Conventions (Chrome Trace Event Format; Kineto ``output_json.cpp``):

* ``ts``/``dur`` are microseconds whatever ``displayTimeUnit`` says (it only affects display). They are converted
  exactly to int64 ns; ``start_ns = ts·1000 + baseTimeNanoseconds`` when the trace has a base time.
* GPU events: ``device`` from ``args.device``, else the GPU ``pid``; ``stream`` from ``args.stream``, else the
  number in ``tid``. Any ``kernel``-category event is GPU work whatever its stream id (ROCm's default stream is 0).
* Kind is decided by category *and* name: a ``kernel`` whose name is a copy/set (``Memcpy DtoD``) is a memcpy/memset,
  and NCCL/RCCL kernels are ``comm``.
* Events with ``ts == 0`` or a negative ``dur`` (Kineto writes ``-1`` for unfinished ops) go to ``rejected`` with
  the reason; they never define the span.
* Kineto's per-kernel estimates (``blocks per SM``, ``warps per SM``, ``est. achieved occupancy %``) become Counters.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from gpulens.collectors._chrome_json import Args, Trace, decode, recover
from gpulens.collectors._io import read_input
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, REJECTED_COLUMNS, Timeline, TimelineMeta, make_table

#: lower-cased Kineto category → Timeline kind (current and 2021 legacy spellings).
CATEGORY_KIND = {
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "memcpy": "memcpy",
    "gpu_memset": "memset",
    "memset": "memset",
    "cpu_op": "cpu_op",
    "operator": "cpu_op",
    "cuda_runtime": "runtime",
    "cuda_driver": "runtime",
    "runtime": "runtime",
    "driver": "runtime",
    "cuda_sync": "sync",
    "user_annotation": "annotation",
    "gpu_user_annotation": "annotation",
    "python_function": "python",
}
GPU_CATEGORIES = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset", "gpu_user_annotation"}
_COMM_RE = re.compile(r"nccl|rccl", re.IGNORECASE)
_COPY_KIND_RE = re.compile(r"\b(HtoD|DtoH|DtoD|PtoP|HtoH|DtoA|AtoD)\b")
_TRAILING_INT = re.compile(r"(-?\d+)\s*$")
_SILENT_OTHER = {"trace"}  # the profiler's own span "PyTorch Profiler (0)"
_RANK_IN_NAME = re.compile(r"rank[-_]?(\d+)", re.IGNORECASE)
_VERSION_KEYS = ("cuda_driver_version", "cuda_runtime_version", "hip_driver_version", "hip_runtime_version")
_KINETO_COUNTERS = (("blocks_per_sm", "kineto.blocks_per_sm"), ("warps_per_sm", "kineto.warps_per_sm"),
                    ("est_occupancy", "kineto.est_achieved_occupancy_pct"))


def _int_or_none(v: Any) -> int | None:
    """An id that may be an int, a float, a numeric string or a label ending in a number ("stream 7")."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v) if v == v else None
    if isinstance(v, str):
        m = _TRAILING_INT.search(v)
        return int(m.group(1)) if m else None
    return None


def _to_ns(d: Decimal) -> int:
    """Exact µs (Decimal) → int ns, rounding sub-ns digits half-even."""
    return int(d.scaleb(3).to_integral_value())


def _dim3(v: Any) -> tuple[int | None, int | None, int | None]:
    if isinstance(v, (list, tuple)):
        vals = [_int_or_none(x) for x in list(v)[:3]] + [None, None, None]
        return vals[0], vals[1], vals[2]
    return None, None, None


def _kind_of(cat: str, name: str) -> str:
    kind = CATEGORY_KIND.get(cat, "other")
    if kind == "kernel":
        low = name[:16].lower()
        if low.startswith("memcpy"):
            return "memcpy"
        if low.startswith("memset"):
            return "memset"
        if _COMM_RE.search(name):
            return "comm"
    return kind


def _devices(props: Any, rank: int) -> list[dict[str, Any]]:
    out = []
    if not isinstance(props, list):
        return out
    for p in props:
        if not isinstance(p, dict):
            continue
        d = {"rank": rank, "device_id": _int_or_none(p.get("id")) or 0, "name": p.get("name")}
        if p.get("computeMajor") is not None:
            d["compute_capability"] = f"{p.get('computeMajor')}.{p.get('computeMinor', 0)}"
        for src, dst in (("numSms", "num_sms"), ("warpSize", "warp_size"), ("totalGlobalMem", "total_memory_bytes"),
                         ("maxThreadsPerBlock", "max_threads_per_block"),
                         ("maxThreadsPerMultiprocessor", "max_threads_per_sm"), ("regsPerBlock", "regs_per_block"),
                         ("regsPerMultiprocessor", "regs_per_sm"), ("sharedMemPerBlock", "smem_per_block_bytes"),
                         ("sharedMemPerMultiprocessor", "smem_per_sm_bytes"),
                         ("maxSharedMemoryPerMultiProcessor", "smem_per_sm_bytes"),
                         ("sharedMemPerBlockOptin", "smem_per_block_optin_bytes"), ("gcnArchName", "gfx_arch")):
            if p.get(src) is not None:
                d[dst] = p[src]
        out.append(d)
    return out


class KinetoCollector(Collector):
    """PyTorch Profiler / Kineto Chrome-trace JSON (see module docstring)."""

    name = "kineto"
    suffixes = (".pt.trace.json", ".pt.trace.json.gz", ".json", ".json.gz")
    priority = 40

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.lstrip()[:65536]
        if not h.startswith((b"{", b"[")):
            return False
        if b'"traceEvents"' in h and (b'"ph"' in h or h.rstrip().endswith(b"[")):
            return True
        return h.startswith(b"[") and b'"ph"' in h and b'"ts"' in h

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        raw = read_input(path)
        warnings: list[str] = []
        truncated_at: dict[str, int] = {}
        try:
            trace = decode(raw.data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            trace, stop, problem = recover(raw.data)
            if stop is not None:
                if not trace.traceEvents:
                    raise TraceFormatError(path, f"not a readable Kineto trace: {exc}") from None
                truncated_at[str(path)] = stop
                warnings.append(f"{path}: {problem} at byte {stop}; kept {len(trace.traceEvents)} complete events")
        if raw.truncated_gzip:
            truncated_at.setdefault(str(path), len(raw.data))
            warnings.append(f"{path}: gzip stream ends early; read {len(raw.data)} decompressed bytes")
        return self._build(path, trace, raw.size_bytes, raw.compressed, len(raw.data), warnings, truncated_at)

    def _build(self, path: Path, trace: Trace, size: int, compressed: bool, nbytes: int,
               warnings: list[str], truncated_at: dict[str, int]) -> Timeline:
        dist = trace.distributedInfo if isinstance(trace.distributedInfo, dict) else {}
        rank = _int_or_none(dist.get("rank"))
        if rank is None:
            m = _RANK_IN_NAME.search(path.name)
            rank = int(m.group(1)) if m else 0
        base_ns = _int_or_none(trace.baseTimeNanoseconds) or 0

        cols: dict[str, list] = {k: [] for k in (
            "kind", "name", "start_ns", "dur_ns", "device_id", "stream_id", "pid", "tid", "correlation_id",
            "external_id", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "regs_per_thread",
            "smem_static_bytes", "bytes", "flops", "copy_kind", "input_dims", "input_types")}
        rej: dict[str, list] = {k: [] for k in ("kind", "name", "start_ns", "dur_ns", "reason")}
        cnt: dict[str, list] = {"event_id": [], "metric": [], "value": []}
        ignored: dict[str, int] = {}
        app = {k: v.append for k, v in cols.items()}
        for ev in trace.traceEvents:
            if ev.ph != "X":
                continue
            cat = ev.cat.lower() if isinstance(ev.cat, str) else ""
            name = ev.name if isinstance(ev.name, str) else str(ev.name)
            kind = _kind_of(cat, name)
            ts, dur = ev.ts, ev.dur
            reason = None
            if ts is None or dur is None:
                reason = "missing ts or dur"
            elif dur < 0:
                reason = "negative duration (unfinished or corrupt event)"
            elif ts == 0:
                reason = "zero timestamp (never recorded)"
            if reason:
                rej["kind"].append(kind), rej["name"].append(name), rej["reason"].append(reason)
                rej["start_ns"].append(_to_ns(ts) + base_ns if ts is not None else None)
                rej["dur_ns"].append(_to_ns(dur) if dur is not None else None)
                continue
            if kind == "other" and cat not in _SILENT_OTHER:
                ignored[cat or "(none)"] = ignored.get(cat or "(none)", 0) + 1
            a = ev.args
            gpu = cat in GPU_CATEGORIES
            app["kind"](kind)
            app["name"](name)
            app["start_ns"](_to_ns(ts) + base_ns)
            app["dur_ns"](_to_ns(dur))
            pid, tid = _int_or_none(ev.pid), _int_or_none(ev.tid)
            app["pid"](pid)
            app["tid"](tid)
            if a is None:
                a = _EMPTY_ARGS
            if gpu:
                dev = _int_or_none(a.device)
                app["device_id"](dev if dev is not None else (pid if pid is not None else 0))
                st = _int_or_none(a.stream)
                app["stream_id"](st if st is not None else tid)
            else:
                app["device_id"](-1)
                app["stream_id"](None)
            app["correlation_id"](_int_or_none(a.correlation))
            ext = a.external_id if a.external_id is not None else a.external_id_legacy
            app["external_id"](_int_or_none(ext))
            gx, gy, gz = _dim3(a.grid)
            bx, by, bz = _dim3(a.block)
            app["grid_x"](gx), app["grid_y"](gy), app["grid_z"](gz)
            app["block_x"](bx), app["block_y"](by), app["block_z"](bz)
            app["regs_per_thread"](_int_or_none(a.registers))
            app["smem_static_bytes"](_int_or_none(a.shared_memory))
            app["bytes"](_int_or_none(a.bytes) if kind in ("memcpy", "memset", "comm") else None)
            app["flops"](float(a.flops) if isinstance(a.flops, (int, float)) else None)
            ck = None
            if kind == "memcpy":
                ck = a.kind if isinstance(a.kind, str) and _COPY_KIND_RE.fullmatch(a.kind or "") else None
                if ck is None:
                    m = _COPY_KIND_RE.search(name)
                    ck = m.group(1) if m else None
            app["copy_kind"](ck)
            dims = a.input_dims or a.input_dims_legacy
            app["input_dims"](bytes(dims).decode() if dims else None)
            app["input_types"](bytes(a.input_type).decode() if a.input_type else None)
            if kind == "kernel":
                eid = len(cols["kind"]) - 1
                for attr, metric in _KINETO_COUNTERS:
                    v = getattr(a, attr)
                    if isinstance(v, (int, float)):
                        cnt["event_id"].append(eid), cnt["metric"].append(metric), cnt["value"].append(float(v))
        n = len(cols["kind"])
        cols["event_id"] = np.arange(n, dtype="int64")
        cols["rank"] = np.full(n, rank, dtype="int64")
        cols["source"] = [self.name] * n
        events = make_table(EVENT_COLUMNS, cols, n=n)
        nr = len(rej["kind"])
        rejected = make_table(REJECTED_COLUMNS, {**rej, "rank": [rank] * nr, "source": [self.name] * nr}, n=nr)
        nc = len(cnt["event_id"])
        units = ["" if m.endswith("per_sm") else "%" for m in cnt["metric"]]
        counters = make_table(COUNTER_COLUMNS, {**cnt, "unit": units, "source": [self.name] * nc}, n=nc)
        if nr:
            by_reason = rejected["reason"].value_counts()
            warnings.append(f"{path}: {nr} invalid event(s) excluded: " +
                            ", ".join(f"{k} ×{v}" for k, v in by_reason.items() if v))
        if ignored:
            warnings.append(f"{path}: kept {sum(ignored.values())} event(s) of other categories as kind 'other': "
                            + ", ".join(f"{k} ×{v}" for k, v in sorted(ignored.items())))
        src = {"path": str(path), "collector": self.name, "size_bytes": size, "rank": rank,
               "compressed": compressed, "uncompressed_bytes": nbytes, "base_time_ns": base_ns or None,
               "schema_version": trace.schemaVersion, "display_time_unit": trace.displayTimeUnit,
               "distributed": dist or None}
        for key in _VERSION_KEYS:  # driver/runtime versions as Kineto records them (e.g. 12000 = CUDA 12.0)
            if getattr(trace, key) is not None:
                src[key] = getattr(trace, key)
        meta = TimelineMeta(sources=[json.loads(json.dumps(src, default=str))],
                            devices=_devices(trace.deviceProperties, rank), warnings=warnings,
                            truncated=bool(truncated_at), truncated_at=truncated_at)
        return Timeline(events, counters, rejected, meta).validate()


_EMPTY_ARGS = Args()
