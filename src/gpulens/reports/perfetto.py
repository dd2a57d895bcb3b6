"""Perfetto export: the unified Timeline of every source as one Chrome-trace JSON file (opens in ui.perfetto.dev).

gpulens does not build a trace viewer; this writes the Timeline in the Chrome Trace Event Format that Perfetto and
``chrome://tracing`` read, in the PyTorch Profiler (Kineto) dialect, so gpulens' own Kineto collector reads it back
(same kernels, same durations — but for a stream overrun, clipped as below):

* one **process** per rank (``pid`` = rank; with several inputs, ``pid`` = input index × 1,000,000 + rank), named
  ``rank R`` (and the input's label);
* host events keep their thread (``tid``); each GPU **stream** is a thread of its rank's process, named
  ``GPU D stream S`` and sorted after the host threads;
* a GPU event that runs past the start of the next one on its stream (case B07: recorded durations that overlap
  the next kernel) ends at that start, as every gpulens figure counts it — Perfetto drops or mis-nests overlapping
  slices of one track (google/perfetto#4280) —, its recorded duration kept in ``args["recorded dur"]`` (µs);
* every event is a complete event (``ph: "X"``) with ``ts``/``dur`` in µs, to the ns, relative to
  ``baseTimeNanoseconds`` (as Kineto writes it), which is 1 µs before the first event (Kineto readers take
  ``ts == 0`` as "never recorded"); ``cat`` is the Kineto category of
  the event's kind (``kernel``, ``gpu_memcpy``, ``cpu_op``, ``cuda_runtime``...);
* ``args`` carry ``device``, ``stream``, ``correlation``, ``External id``, launch configuration, ``bytes``, and the
  event's hardware **counters** (metric name → value);
* every GPU event linked to the runtime call that launched it (:func:`gpulens.analyzers.launches.link_gpu_to_launch`,
  the link every analysis uses) gets a **flow arrow** from that call to it, as Kineto draws them: a flow start
  (``ph: "s"``) on the host thread at the call's start and a flow end (``ph: "f"``, ``bp: "e"``) on the GPU stream at
  the event's start, category ``ac2g``, one ``id`` per arrow (unique in the file). Readers of Kineto traces
  (gpulens included) skip flow events, so the file still loads back with the same events.

Use ``gpulens analyze ... --perfetto trace.json`` or :func:`render`.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pandas as pd

from gpulens.report import Report

#: Timeline kind → Kineto category (the inverse of the Kineto collector's mapping).
KIND_CATEGORY = {"kernel": "kernel", "comm": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset",
                 "cpu_op": "cpu_op", "runtime": "cuda_runtime", "sync": "cuda_sync", "annotation": "user_annotation",
                 "python": "python_function", "other": "other"}
GPU_TID_BASE = 1_000_000_000
_ARG_COLUMNS = (("correlation_id", "correlation"), ("external_id", "External id"),
                ("regs_per_thread", "registers per thread"), ("smem_static_bytes", "shared memory"),
                ("smem_dynamic_bytes", "dynamic shared memory"), ("bytes", "bytes"))


def _num(v: Any) -> Any:
    return None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v


def _counters_by_event(counters: pd.DataFrame) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    c = counters[counters["event_id"] >= 0]
    for eid, metric, value in zip(c["event_id"].tolist(), c["metric"].astype(str).tolist(), c["value"].tolist()):
        out.setdefault(int(eid), {})[metric] = value
    return out


def to_events(report: Report) -> tuple[list[dict[str, Any]], int]:
    """The trace events (metadata first) of every source's Timeline, and the base time (ns) they are relative to."""
    frames = [s.timeline.events for s in report.sources if len(s.timeline.events)]
    # 1 µs before the first event: a ts of exactly 0 means "never recorded" to Kineto readers
    base = min(int(f["start_ns"].min()) for f in frames) - 1000 if frames else 0
    out: list[dict[str, Any]] = []
    flow = 0  # flow arrow ids, unique over the whole file
    for si, s in enumerate(report.sources):
        ev, tl = s.timeline.events, s.timeline
        if not len(ev):
            continue
        counters = _counters_by_event(tl.counters)
        offset = si * 1_000_000 if len(report.sources) > 1 else 0
        streams: dict[tuple[int, int, int], int] = {}
        suffix = f" · {s.label}" if len(report.sources) > 1 else ""
        for rank in sorted(int(r) for r in ev["rank"].unique()):
            out.append({"ph": "M", "name": "process_name", "pid": offset + rank, "tid": 0,
                        "args": {"name": f"rank {rank}{suffix}"}})
            out.append({"ph": "M", "name": "process_sort_index", "pid": offset + rank, "tid": 0,
                        "args": {"sort_index": offset + rank}})
        cols = ["event_id", "kind", "name", "start_ns", "dur_ns", "rank", "device_id", "stream_id", "tid",
                "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "input_dims", "flops"] + \
            [c for c, _ in _ARG_COLUMNS]
        launched = _launch_of(tl)
        clipped = _clipped_durations(tl)
        calls = set(launched.values())
        placed: dict[int, tuple[int, int, float]] = {}  # event_id → (pid, tid, ts) of the events an arrow joins
        for r in ev[cols].astype(object).itertuples(index=False):
            kind = str(r.kind)
            pid = offset + int(r.rank)
            args: dict[str, Any] = {}
            if int(r.device_id) >= 0:
                stream = int(_num(r.stream_id) if _num(r.stream_id) is not None else -1)
                key = (int(r.rank), int(r.device_id), stream)
                if key not in streams:
                    streams[key] = GPU_TID_BASE + len(streams)
                    out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": streams[key],
                                "args": {"name": f"GPU {key[1]} stream {stream}"}})
                    out.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": streams[key],
                                "args": {"sort_index": streams[key]}})
                tid = streams[key]
                args["device"], args["stream"] = int(r.device_id), stream
                cat = "gpu_user_annotation" if kind == "annotation" else KIND_CATEGORY.get(kind, "other")
            else:
                tid = int(_num(r.tid) or 0)
                cat = KIND_CATEGORY.get(kind, "other")
            for col, key in _ARG_COLUMNS:
                v = _num(getattr(r, col))
                if v is not None:
                    args[key] = int(v)
            if _num(r.grid_x) is not None:
                args["grid"] = [int(_num(v) or 1) for v in (r.grid_x, r.grid_y, r.grid_z)]
            if _num(r.block_x) is not None:
                args["block"] = [int(_num(v) or 1) for v in (r.block_x, r.block_y, r.block_z)]
            if _num(r.flops) is not None:
                args["flops"] = float(r.flops)
            if _num(r.input_dims) is not None:
                try:
                    args["Input Dims"] = json.loads(str(r.input_dims))
                except ValueError:
                    pass
            args.update(counters.get(int(r.event_id), {}))
            ts = (int(r.start_ns) - base) / 1000
            dur = clipped.get(int(r.event_id))
            if dur is not None:
                args["recorded dur"] = int(r.dur_ns) / 1000
            out.append({"ph": "X", "cat": cat, "name": str(r.name), "pid": pid, "tid": tid,
                        "ts": ts, "dur": (int(r.dur_ns) if dur is None else dur) / 1000, "args": args})
            if int(r.event_id) in launched or int(r.event_id) in calls:
                placed[int(r.event_id)] = (pid, tid, ts)
        for gpu_id, call_id in launched.items():
            if gpu_id in placed and call_id in placed:
                flow += 1
                for ph, (pid, tid, ts) in (("s", placed[call_id]), ("f", placed[gpu_id])):
                    out.append({"ph": ph, "id": flow, "pid": pid, "tid": tid, "ts": ts, "cat": "ac2g", "name": "ac2g",
                                **({"bp": "e"} if ph == "f" else {})})
    return out, base


def _clipped_durations(timeline: Any) -> dict[int, int]:
    """event_id → duration [ns] of the GPU events that overran the next event on their stream, clipped at its start
    (:func:`~gpulens.analyzers.intervals.repair_stream_overruns`, the durations every figure uses)."""
    from gpulens.analyzers.context import context_of

    ctx = context_of(timeline)
    rep = ctx.overruns
    over = rep["overrun_ns"].to_numpy("int64") > 0
    if not over.any():
        return {}
    ids = ctx.gpu["event_id"].to_numpy()[over]
    return dict(zip((int(i) for i in ids), (int(d) for d in rep["effective_ns"].to_numpy("int64")[over])))


def _launch_of(timeline: Any) -> dict[int, int]:
    """GPU event_id → event_id of the runtime call that launched it, for the linked GPU events of ``timeline``."""
    from gpulens.analyzers.launches import link_gpu_to_launch

    links = link_gpu_to_launch(timeline)
    if not len(links):
        return {}
    ids = timeline.events.loc[links.index, "event_id"].to_numpy()
    call = links["launch_event_id"]
    ok = call.notna().to_numpy()
    return dict(zip(ids[ok].tolist(), call[ok].astype("int64").tolist()))


def render(report: Report) -> str:
    """Render every source's Timeline as Chrome-trace JSON text (see module docstring)."""
    events, base = to_events(report)
    devices = [{"id": d.get("device_id", 0), "name": d.get("name")} for s in report.sources
               for d in s.timeline.meta.devices]
    doc = {"schemaVersion": 1, "displayTimeUnit": "ns", "baseTimeNanoseconds": base,
           "deviceProperties": devices, "traceName": "gpulens export",
           "gpulens": {"version": report.tool_version, "inputs": [s.label for s in report.sources]},
           "traceEvents": events}
    return msgspec.json.encode(doc).decode()
