"""PyTorch Profiler (Kineto) Chrome-trace JSON → Timeline.

Handles ``.json`` and ``.json.gz`` (gzip found by magic bytes, every member read), the CUDA and ROCm dialects,
the 2021 legacy schema (capitalised categories ``Kernel``/``Runtime``/``Operator``, ``"external id"``, ``tid`` strings
such as ``"stream 7"``), ns-resolution traces, ``deviceProperties``, ``distributedInfo`` and ``baseTimeNanoseconds``.

Conventions (Chrome Trace Event Format; Kineto ``output_json.cpp``):

* ``ts``/``dur`` are microseconds whatever ``displayTimeUnit`` says (it only affects display). They are converted
  exactly to int64 ns; ``start_ns = ts·1000 + baseTimeNanoseconds`` when the trace has a base time.
* GPU events: ``device`` from ``args.device``, else the GPU ``pid``; ``stream`` from ``args.stream``, else the
  number in ``tid``. Any ``kernel``-category event is GPU work whatever its stream id (ROCm's default stream is 0).
* Kind is decided by category, name *and* launching op (rules as data in :mod:`._work_rules`): a ``kernel`` whose
  name is a copy/fill (``Memcpy DtoD``, ROCm's ``__amd_rocclr_copyBuffer``) is a memcpy/memset; NCCL/RCCL/MSCCL/
  NVSHMEM/symmetric-memory/custom all-reduce kernels, and any kernel launched under a communication op
  (``record_param_comms``, ``c10d::…``, ``nccl:…``, ``symm_mem::…``), are ``comm``; the count relabelled by launcher
  is ``meta.sources[*]["comm_by_launcher"]``.
* Events with a placeholder ``ts == 0`` (real timestamps far from 0 beside them: pytorch/kineto#109) or a
  negative ``dur`` (Kineto writes ``-1`` for unfinished ops) go to ``rejected`` with the reason; they never define
  the span. In a trace whose clock starts at 0 (rebased timestamps) an event at ``ts 0`` is real and kept.
* An ``X`` event without a category (or with an empty / non-text one) is of kind ``other`` — never the kind of the
  category decoded before it. Events without a name are named ``(unnamed)``.
* Chrome traces of other producers are recognised from their metadata (:mod:`._chrome_dialects`): JAX/XLA GPU traces
  (``/device:GPU:N`` processes) are read by their dialect; others (TPU-only XLA, browser traces, unknown producers
  whose events carry no Kineto category) are refused with a one-line message naming the likely producer.
* Collective metadata (``record_param_comms`` / NCCL kernel args: collective, element counts, dtype, process
  group) goes to ``tables["collectives"]`` (:mod:`._collectives`).
* Kineto's per-kernel estimates (``blocks per SM``, ``warps per SM``, ``est. achieved occupancy %``) become Counters.
"""

from __future__ import annotations

import gc
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd

from gpulens._memory import keeping_freed_memory
from gpulens.collectors._gzip_words import gzip_stop
from gpulens.collectors._io import read_input, tail_warnings
from gpulens.collectors._assemble import Parts, any_kind, assemble, categorical
from gpulens.collectors._chrome_dialects import (KINETO_HEADER_KEYS, RPD_JSON, foreign_events_refusal, identify,
                                                legacy_autograd_refusal, paddle_names, refusal,
                                                untraced_gpu_note)
from gpulens.collectors._chrome_json import TolerantDecoder
from gpulens.collectors._deep import DeepValues
from gpulens.collectors._kineto_damage import DamageLog, read_damaged
from gpulens.collectors._kineto_dupkey import events_of_repeated_key
from gpulens.collectors._kineto_fast import piece_reader
from gpulens.collectors._kineto_acc import Accumulator as _Accumulator
from gpulens.collectors._kineto_grid import sdk_convention
from gpulens.collectors._kineto_kinds import CATEGORY_KIND, GPU_CATEGORIES, category_key, kind_of
from gpulens.collectors._kineto_ranks import RANK_IN_FILE_NAME
from gpulens.collectors._sniff_fast import KINETO_FIRST_KEY as _KINETO_FIRST_KEY  # the Kineto object's first key
from gpulens.collectors._kineto_columns import (FAST_TRACE_DECODER, TRACE_DECODER, FastEvent, RawEvent, RawTrace,
                                                TRIM_AFTER_BYTES, int_or_none, release_free_memory)
from gpulens.collectors._stream import CHUNK_BYTES, LARGE_FILE_BYTES, StreamInfo, Tail, stream_pieces
from gpulens.collectors._stream_damage import Stretch
from gpulens.collectors._work_rules import refused_warnings
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import REJECTED_COLUMNS, Timeline, TimelineMeta, make_table
from gpulens.timeline.selection import Selection
from gpulens.units import agree, plural

__all__ = ["CATEGORY_KIND", "GPU_CATEGORIES", "KinetoCollector", "kind_of"]

#: Kineto's CUPTI range-profiler mode (``profiler_metrics``): one event per kernel with counter values as args
CUPTI_RANGE = "cuda_profiler_range"
#: Kineto categories of on-device work of backends this reader does not read as kernels (libkineto
#: ``include/ActivityType.h``: MTIA_CCP_EVENTS "MTIA ondevice CCP events", MTIA_INSIGHT): a trace holding only these
#: recorded device work, so it must not read as "nothing ran on a GPU"
UNREAD_DEVICE_CATEGORIES = {"mtia_ccp_events": "MTIA on-device (CCP) events: DMA requests, executions, event waits",
                            "mtia_insight": "MTIA Insight events"}
_VERSION_KEYS = ("cuda_driver_version", "cuda_runtime_version", "hip_driver_version", "hip_runtime_version")


def unread_device_events(ignored: dict[str, int] | None) -> str | None:
    """The sentence naming the on-device events of a backend this reader does not read
    (:data:`UNREAD_DEVICE_CATEGORIES`), e.g. ``"1,313 events of mtia_ccp_events (MTIA on-device (CCP) events: …)"``;
    None when the trace has none. ``ignored``: lower-cased category → events kept as kind ``other``."""
    found = {c: n for c, n in (ignored or {}).items() if n and c in UNREAD_DEVICE_CATEGORIES}
    if not found:
        return None
    return ", ".join(f"{plural(n, 'event(s)')} of {c} "
                     f"({UNREAD_DEVICE_CATEGORIES[c]})" for c, n in sorted(found.items()))


def file_rank(path: Path, dist: dict, comm_ranks: set[int], warnings: list[str]) -> tuple[int, str]:
    """The rank of a one-process trace and where it was found: ``distributedInfo``, the one ``Rank`` of its
    ``record_param_comms`` events, a number in the file name (with a warning), or none (0)."""
    rank = int_or_none(dist.get("rank"))
    if rank is not None:
        world = int_or_none(dist.get("world_size"))
        if rank < 0 or world is not None and world > 0 and rank >= world:  # ranks are 0 … world_size − 1
            warnings.append(f"{path}: distributedInfo records rank {rank}"
                            + (f" of a world of {world} (ranks 0–{world - 1})" if world is not None and world > 0
                               else " (ranks count from 0)") + ": kept as recorded; check the trace's rank")
        return rank, "distributedInfo"
    if len(comm_ranks) == 1:
        return int(next(iter(comm_ranks))), "record_param_comms"
    m = RANK_IN_FILE_NAME.search(path.name)
    if m:
        warnings.append(f"{path}: no distributedInfo; rank {int(m.group(1))} inferred from the file name")
        return int(m.group(1)), "file name"
    return 0, "none"


#: Host operators that exist only when a GPU runs the work: a CUDA/ROCm stream's allocator bookkeeping, cuDNN / MIOpen
#: convolutions, NCCL/RCCL collectives (``nccl:all_reduce``), and ops named after CUDA itself.
_GPU_ONLY_OPS = re.compile(r"^(aten::record_stream|aten::_?cudnn_|aten::_?miopen_|nccl:|rccl:|aten::_?cuda_|cuda)",
                           re.IGNORECASE)


def _gpu_ops_untraced(cols: dict, props: list) -> str | None:
    """Why a trace with no GPU event and no runtime call still had GPU work, or None: the process saw GPUs
    (``deviceProperties`` lists them) and its host operators include ops only GPU work has (:data:`_GPU_ONLY_OPS`:
    ``aten::record_stream`` ×48 in HTA's ``distributed_info_not_found.json.gz``) — the profiler recorded CPU
    activity only, so the GPU side is missing, not absent. Without ``deviceProperties`` (HTA's ``rank_non_gpu.json.gz``:
    the same run with the device list stripped) those ops alone say so: each exists only for GPU tensors or streams."""
    if not len(cols.get("kind", ())):
        return None
    if any_kind(cols["kind"], ("kernel", "comm", "memcpy", "memset", "runtime", "sync")):
        return None
    cpu_op = (pd.Series(cols["kind"]) == "cpu_op").to_numpy(dtype=bool)
    names = pd.Series(cols["name"])[cpu_op].astype(str)  # only the host operators' names as text
    hits = names[names.str.match(_GPU_ONLY_OPS)].value_counts()
    if not len(hits):
        return None
    ops = ", ".join(f"{n} ×{c}" for n, c in hits.head(3).items())
    saw = f"the process saw {plural(len(props), 'GPU')} (deviceProperties) and " if props else "the process "
    return (f"the trace holds host operators only, no GPU activity and no runtime call, yet {saw}ran operators only "
            f"GPU work has ({ops}): the profiler recorded CPU activity only — add ProfilerActivity.CUDA to trace the "
            "GPU side")


def device_records(trace: Any) -> list:
    """The trace's device records: ``deviceProperties``, or ``computeProperties`` — the name Kineto wrote the
    same list under in early 2021 (pytorch/kineto tb_plugin test traces), with CUDA's ``cudaDeviceProp`` field names
    (``major``, ``minor``, ``multiProcessorCount``…) that :func:`_devices` reads too; [] when neither is a list."""
    for props in (getattr(trace, "deviceProperties", None), getattr(trace, "computeProperties", None)):
        if isinstance(props, list) and props:
            return props
    return []


def _devices(props: Any, rank: int, warnings: list[str] | None = None, path: Any = None) -> list[dict[str, Any]]:
    """The ``deviceProperties`` records of one rank as device dicts (``device_id``, ``name``, limits as recorded).

    A record whose ``id`` is absent or no device number (negative, ``true``, text without a number) takes its place
    in the list, which is the order PyTorch writes the visible devices in (0, 1, …), instead of claiming device 0;
    ``warnings`` (when given) gets one line naming ``path`` and counting them. A record repeating the id of an
    earlier one is dropped (one device, one record: eight records all claiming device 1 were listed as eight devices
    1 of the rank), counted in a warning too."""
    out = []
    if not isinstance(props, list):
        return out
    bad = 0
    wrapped: list[int] = []  # PaddlePaddle records whose totalGlobalMem is printed modulo 2^32
    seen: set[int] = set()
    twice: dict[int, int] = {}
    for pos, p in enumerate(props):
        if not isinstance(p, dict):
            continue
        dev = int_or_none(p.get("id"))
        if dev is None or dev < 0:
            bad += 1
            dev = pos
        if dev in seen:
            twice[dev] = twice.get(dev, 0) + 1
            continue
        seen.add(dev)
        d = {"rank": rank, "device_id": dev, "name": p.get("name")}
        if p.get("computeMajor") is not None:
            d["compute_capability"] = f"{p.get('computeMajor')}.{p.get('computeMinor', 0)}"
        elif p.get("major") is not None:  # computeProperties (cudaDeviceProp names)
            d["compute_capability"] = f"{p.get('major')}.{p.get('minor', 0)}"
        for src, dst in (("numSms", "num_sms"), ("multiProcessorCount", "num_sms"),
                         ("maxThreadsPerMultiProcessor", "max_threads_per_sm"), ("warpSize", "warp_size"), ("totalGlobalMem", "total_memory_bytes"),
                         ("maxThreadsPerBlock", "max_threads_per_block"),
                         ("maxThreadsPerMultiprocessor", "max_threads_per_sm"), ("regsPerBlock", "regs_per_block"),
                         ("regsPerMultiprocessor", "regs_per_sm"), ("sharedMemPerBlock", "smem_per_block_bytes"),
                         ("sharedMemPerMultiprocessor", "smem_per_sm_bytes"),
                         ("maxSharedMemoryPerMultiProcessor", "smem_per_sm_bytes"),
                         ("sharedMemPerBlockOptin", "smem_per_block_optin_bytes"), ("gcnArchName", "gfx_arch"),
                         ("smCount", "num_sms")):  # PaddlePaddle's spelling (chrometracing_logger.cc)
            if p.get(src) is not None:
                d[dst] = p[src]
        mem = d.get("total_memory_bytes")
        if "smCount" in p and "numSms" not in p and isinstance(mem, int) and 0 <= mem < 1 << 32:
            wrapped.append(dev)  # Paddle prints the size_t through "%u": the size modulo 2^32, no memory size
            del d["total_memory_bytes"]
        out.append(d)
    if bad and warnings is not None:
        warnings.append(f"{path}: {plural(bad, 'deviceProperties record(s)')} with no usable device id (absent, "
                        "negative or not a number): numbered by their place in the list")
    if wrapped and warnings is not None:
        warnings.append(f"{path}: deviceProperties totalGlobalMem of device {', '.join(map(str, wrapped))} read as "
                        "unknown: PaddlePaddle's profiler prints it with a 32-bit format (the size modulo 2^32, 0 for a "
                        "16, 32 or 80 GiB GPU)")
    if twice and warnings is not None:
        n = sum(twice.values())
        warnings.append(f"{path}: {plural(n, 'deviceProperties record(s)')} {agree(n, 'repeats', 'repeat')} the id of an "
                        f"earlier record (device {', '.join(map(str, sorted(twice)))}): the first record of each "
                        "device kept")
    return out


#: A trace object whose event list is empty (B05: a profiler schedule that recorded nothing) — a trace with no GPU
#: work, not an unknown format.
_EMPTY_EVENTS = re.compile(rb'"traceEvents"\s*:\s*\[\s*\]')
#: The array form holding metadata events only (``"ph": "M"`` carries no ``ts``), possibly without its closing
#: ``]`` (B04a + B05: legal, and no GPU work).
_META_EVENT = re.compile(rb'"ph"\s*:\s*"M"')
#: The array form with no event at all, closed or not (``[]``, ``[``; B05 + B04a): legal, and no GPU work. Only for
#: a file named ``*.json`` (or ``*.json.gz``): an empty JSON list under another name is no trace of any kind.
_EMPTY_ARRAY = re.compile(rb'\[\s*\]?\s*')


def _flow_links(path: Path, cols: dict[str, Any], base_ns: int, warnings: list[str]) -> None:
    """Link launch calls and GPU work through the trace's ``ac2g`` flow events when no GPU row carries a correlation
    id (:mod:`._kineto_flows`; older PyTorch), and say so. The file is read again only then."""
    from gpulens.collectors._kineto_flows import GPU_KINDS, link_by_flows, read_flows

    corr = cols.get("correlation_id")
    if corr is None or not any_kind(cols["kind"], GPU_KINDS):
        return
    kind = pd.Categorical(cols["kind"])  # codes, never a string per row (1M-event traces pass here)
    gpu = np.append(np.isin(np.asarray(kind.categories, dtype=object), GPU_KINDS), False)[kind.codes]
    if (~np.asarray(pd.isna(corr), dtype=bool) & gpu).any():  # the usual trace: linked by its own ids
        return
    try:
        flows = read_flows(read_input(path).data)
    except TraceFormatError:
        return
    if flows is None:
        return
    calls, work = link_by_flows(cols, flows, base_ns)
    if work:
        warnings.append(f"{path}: no event carries a correlation id: {plural(work, 'GPU event')} linked to "
                        f"{plural(calls, 'launch call')} through the trace's ac2g flow events (launch → kernel "
                        "arrows)")


def sync_threads(cols: dict[str, Any]) -> int:
    """Put each synchronisation record (kind ``sync``: Kineto's ``cuda_sync`` category, CUPTI's synchronization
    activity) on the host thread of the runtime call it records, in place; return how many moved.

    CUPTI times a synchronization record over the host call that waited (``cudaStreamSynchronize``,
    ``cudaDeviceSynchronize``, ``cudaStreamWaitEvent``, …: CUpti_ActivitySynchronization's start/end are the API
    function's) and Kineto writes it on the GPU's process with the stream as its thread id (``pid`` 0, ``tid`` 7).
    Read as it is written it becomes a host thread "7" that never existed; the runtime call with the same
    correlation id on the same rank names the thread that waited. Records with no such call keep their ids.

    Args:
        cols: the collector's event columns: ``kind`` (Categorical), ``rank`` (int array), and ``pid``, ``tid``,
            ``correlation_id`` (pandas nullable integer arrays), edited in place.
    """
    kind = cols["kind"]
    cats = list(kind.categories)
    if "sync" not in cats or "runtime" not in cats:
        return 0
    codes = np.asarray(kind.codes)
    corr = cols["correlation_id"]
    cval, cok = np.asarray(corr._data), ~np.asarray(corr._mask)
    sync = np.flatnonzero((codes == cats.index("sync")) & cok)
    if not len(sync):
        return 0
    rt = np.flatnonzero((codes == cats.index("runtime")) & cok)
    rt = rt[np.isin(cval[rt], cval[sync])]
    rank = np.asarray(cols["rank"])
    calls = pd.DataFrame({"rank": rank[rt], "corr": cval[rt], "call": rt}).drop_duplicates(["rank", "corr"])
    pairs = pd.DataFrame({"rank": rank[sync], "corr": cval[sync], "row": sync}).merge(calls, on=["rank", "corr"])
    row, call = pairs["row"].to_numpy(), pairs["call"].to_numpy()
    pid, tid = cols["pid"], cols["tid"]
    known = ~np.asarray(pid._mask)[call] & ~np.asarray(tid._mask)[call]  # the call's thread is recorded
    row, call = row[known], call[known]
    moved = ((pid._data[row] != pid._data[call]) | (tid._data[row] != tid._data[call]) | pid._mask[row]
             | tid._mask[row])
    for col in (pid, tid):
        col._data[row], col._mask[row] = col._data[call], False
    return int(moved.sum())


class KinetoCollector(Collector):
    """PyTorch Profiler / Kineto Chrome-trace JSON (see module docstring)."""

    name = "kineto"
    suffixes = (".pt.trace.json", ".pt.trace.json.gz", ".json", ".json.gz")
    priority = 40

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.lstrip()[:65536]
        if not h.startswith((b"{", b"[")):
            return False
        if b'"traceEvents"' in h and (b'"ph"' in h or h.rstrip().endswith(b"[") or _EMPTY_EVENTS.search(h)):
            return True
        if len(h) >= 65536 and b'"traceEvents"' not in h and _KINETO_FIRST_KEY.match(h):
            return True  # a header larger than the sniffed head (many devices, a long value): the array comes later
        if len(h) < 65536 and _EMPTY_ARRAY.fullmatch(h) and path.name.lower().endswith((".json", ".json.gz")):
            return True
        return h.startswith(b"[") and b'"ph"' in h and (b'"ts"' in h or bool(_META_EVENT.search(h)))

    def collect(self, path: Path, strict: bool = True, select: Selection | None = None,
                chunk_bytes: int = CHUNK_BYTES, fast: bool | None = None) -> Timeline:
        """Read a Kineto trace in pieces of about ``chunk_bytes`` (bounded memory, see :mod:`._stream`).

        Args:
            select: keep only the events of these steps / time window / ranks (applied to the columns before the
                DataFrame is built).
            chunk_bytes: decompressed bytes decoded at a time; any value gives the same Timeline.
            fast: read pieces with the numba byte scanner (:mod:`._kineto_fast`): True / False force it on / off;
                None decides by ``GPULENS_KINETO_FAST`` or the file size. Any value gives the same Timeline.
        """
        out = assemble([self.collect_parts(path, strict, select, chunk_bytes, fast)])
        if not keeping_freed_memory():  # the command line keeps the freed blocks for the analyzers (gpulens._memory)
            release_free_memory()
        return out

    def collect_parts(self, path: Path, strict: bool = True, select: Selection | None = None,
                      chunk_bytes: int = CHUNK_BYTES, fast: bool | None = None) -> Parts:
        """:meth:`collect` up to the column arrays (:class:`~gpulens.collectors._assemble.Parts`): a directory of
        rank files joins them and builds its tables once (:func:`~gpulens.collectors._assemble.assemble`)."""
        path = Path(path)
        info = StreamInfo()
        acc = _Accumulator()
        warnings: list[str] = []
        truncated_at: dict[str, int] = {}
        tolerant = TolerantDecoder(RawEvent, FastEvent)  # an ill-typed event is dropped and counted, not fatal
        deep = DeepValues()  # values nested past the decoders' recursion limit: replaced by null, counted
        log = DamageLog()  # damaged text inside the events: what was read, repaired and dropped
        gc_was = gc.isenabled()
        gc.disable()  # millions of small objects, no cycles: the collector would only rescan them
        try:
            reader = piece_reader(deep.wrap(tolerant.decode), info, fast)
            pieces = stream_pieces(path, reader, info, chunk_bytes, ahead=reader)
            while True:  # not a for loop: the previous piece must be freed before the next one is decoded
                piece = next(pieces)
                if isinstance(piece, Tail):
                    tail = piece
                    break
                if isinstance(piece, Stretch):  # damaged text set aside by the stream (strict: refused here)
                    log.stretch(path, piece, strict, deep, tolerant, acc)
                    del piece
                    continue
                acc.add(piece)
                del piece
            header: Any = None
            malformed: msgspec.DecodeError | None = None
            try:  # the tagged fast form first; anything it refuses is read exactly as before
                doc = FAST_TRACE_DECODER.decode(tail.doc)
            except (msgspec.ValidationError, msgspec.DecodeError):
                doc = None
            except RecursionError:
                tail.doc, doc = deep.flat(tail.doc), None
            try:
                if doc is None:
                    try:
                        doc = TRACE_DECODER.decode(tail.doc)
                    except RecursionError:  # the fast decoder stopped at a type error before the deep value
                        tail.doc = deep.flat(tail.doc)
                        doc = TRACE_DECODER.decode(tail.doc)
            except msgspec.ValidationError:
                # an ill-typed event seen before malformed JSON further on: the typed decode stops at the first, so
                # the loose decode meets the second; it then goes to the lenient recovery like any malformed text
                try:
                    try:
                        found, array, events = tolerant.decode_doc(tail.doc)
                    except RecursionError:
                        tail.doc = deep.flat(tail.doc)
                        found, array, events = tolerant.decode_doc(tail.doc)
                except msgspec.DecodeError as exc2:
                    malformed = exc2
                else:
                    acc.add(events)
                    header = RawTrace(**found)
            except msgspec.DecodeError as exc:
                malformed = exc
            else:
                if isinstance(doc, list):
                    acc.add(doc)
                    header = RawTrace()
                else:
                    acc.add(events_of_repeated_key(path, tail.doc, doc.traceEvents, warnings, streamed=tail.offset > 0))
                    doc.traceEvents = []
                    header = doc
            if malformed is not None:
                header = read_damaged(path, tail, malformed, strict, deep, tolerant, acc, info, warnings,
                                      truncated_at, log)
            log.warn(path, info, warnings)
            del tail
        finally:
            if gc_was:
                gc.enable()
            # the decoded structs are gone: return their pages before the columns are joined (a small file's are
            # few: not worth a walk of the heap) — not those of a large file on the command line: there its
            # analysis reuses them at once (gpulens._memory)
            if info.nbytes >= TRIM_AFTER_BYTES and not (keeping_freed_memory() and info.nbytes >= LARGE_FILE_BYTES):
                release_free_memory()
        if deep.count:
            warnings.append(deep.warning(path))
        if tolerant.dropped:
            if not acc.count:
                raise TraceFormatError(path, f"no usable event: {plural(tolerant.dropped, 'event(s)')} {agree(tolerant.dropped, 'has', 'have')} fields of "
                                             f"the wrong type (first: {tolerant.first_problem})")
            info.extra["dropped"] = info.extra.get("dropped", 0) + int(tolerant.dropped)
            warnings.append(f"{path}: {plural(tolerant.dropped, 'event(s)')} dropped: fields of the wrong type (first: "
                            f"{tolerant.first_problem})")
        if acc.unknown_phase:
            info.extra["dropped"] = info.extra.get("dropped", 0) + int(acc.unknown_phase)
            seen = ", ".join(sorted(acc.unknown_phase_seen)[:5])
            warnings.append(f"{path}: {plural(acc.unknown_phase, 'event(s)')} with a 'ph' that is no Trace Event "
                            f"Format phase ({seen}) dropped")
        warnings.extend(tail_warnings(path, info.extra))  # trailing gzip data, a NUL tail not read
        if info.truncated_gzip:  # partial either way: cut short, corrupt from a point, or whole with a failed check
            kept = truncated_at.setdefault(str(path), info.nbytes)
            gz = gzip_stop(info.extra.get("gzip_error"), info.nbytes, kept)
            warnings.append(f"{path}: truncated — {gz.why}: the {acc.count:,} complete timed events in the first "
                            f"{kept:,} bytes of trace text are kept; {gz.after}" if gz.truncated else
                            f"{path}: {gz.why}: {gz.after} ({acc.count:,} complete timed events)")
        return self._build(path, acc, header, info, warnings, truncated_at, select)

    def _source(self, n: int) -> pd.Categorical:
        return categorical(np.zeros(n, dtype=np.int8), [self.name])

    def _build(self, path: Path, acc: "_Accumulator", trace: Any, info: StreamInfo,
               warnings: list[str], truncated_at: dict[str, int], select: Selection | None) -> Parts:
        acc.close_begin_end()  # B/E slices become complete events; unended ones are counted, never extended
        if acc.paired or acc.unended or acc.unopened or acc.unended_gpu:
            warnings.append(f"{path}: {plural(acc.paired, 'begin/end (B/E) pair(s)')} read as complete events"
                            + (f"; {plural(acc.unended, 'begin (B) event(s)')} never ended dropped (not extended to "
                               "the end of the trace)" if acc.unended else "")
                            + (f"; {plural(acc.unended_gpu, 'GPU begin (B) event(s)')} never ended kept as untimed "
                               "launches (duration unknown, not extended)" if acc.unended_gpu else "")
                            + (f"; {plural(acc.unopened, 'end (E) event(s)')} without a begin "
                               f"dropped" if acc.unopened else ""))
        dist = trace.distributedInfo if isinstance(trace.distributedInfo, dict) else {}
        rank, rank_source = file_rank(path, dist, acc.comm_ranks, warnings)
        base_ns = int_or_none(trace.baseTimeNanoseconds) or 0
        if base_ns < 0:  # Kineto writes the Unix-epoch ns of its clock's zero: a negative one is no such time
            warnings.append(f"{path}: baseTimeNanoseconds {base_ns} is negative (no Unix-epoch time): ignored, "
                            "times are relative to the trace's own clock")
            base_ns = 0
        header = {k for k in KINETO_HEADER_KEYS if getattr(trace, k, None) is not None}
        dialect = identify(acc.process_names, acc.thread_names, {category_key(c) for c in acc.cats.values}
                           | acc.missing_cat,
                           acc.count, header)
        if not dialect.reads:
            raise TraceFormatError(path, legacy_autograd_refusal(path) or refusal(dialect))
        if not acc.count and not header and (foreign := foreign_events_refusal(path)):
            raise TraceFormatError(path, foreign)
        if dialect.producer == RPD_JSON:
            warnings.append(f"{path}: read as a rocmProfileData rpd2tracing trace ({dialect.reason}): the events of "
                            "the GPU<N> processes are GPU N's operations (stream = queue), kind from their op type "
                            "(args.desc); host calls are runtime calls, roctx ranges annotations; launch calls are "
                            "not linked to their kernels (the converter's api_op flows are not read) — analyse the "
                            ".rpd database itself for those links and the kernels' launch sizes")
        elif dialect.producer != "kineto":
            warnings.append(f"{path}: read as a {dialect.producer} trace ({dialect.reason}): {dialect.placement}")
        props = device_records(trace)
        rocm = (trace.hip_runtime_version is not None or trace.hip_driver_version is not None
                or trace.rocprofiler_sdk_version is not None
                or any(isinstance(p, dict) and p.get("gcnArchName") for p in props)
                or any(isinstance(v, str) and v.startswith("hip") for v in acc.names.values))
        sdk = sdk_convention(trace.rocprofiler_sdk_version, trace.hip_runtime_version)
        cols, rej, cnt, ignored = acc.finish(base_ns, rank, select, dialect, (rocm, sdk))
        if (stripped := paddle_names(cols["name"])) is not None:
            cols["name"] = stripped
            moved = getattr(acc, "paddle_exact", 0)
            warnings.append(f"{path}: read as a PaddlePaddle profiler trace: the duration its event names carry "
                            "('relu[5.250 us]') is removed, so calls of one kernel are one name; "
                            + (f"the start of {plural(moved, 'event(s)')} is read from args.start_time (to the ns within "
                               "16.7 ms of the first host event, to 2^-24 of the time after it — Paddle prints a float; "
                               "ts is cut to whole µs), the trace's clock placed within 1 µs" if moved else
                               "its start times are whole µs, so an overlap under 1 µs on one stream may be that "
                               "rounding"))
        _flow_links(path, cols, 0 if getattr(acc, "base_ignored", 0) else base_ns, warnings)
        bad_ids = getattr(acc, "bad_ids", {})
        if bad_ids:
            nb = sum(bad_ids.values())
            warnings.append(f"{path}: {plural(nb, 'id or size value(s)')} that {agree(nb, 'is a number', 'are numbers')} "
                            "but no 64-bit integer (beyond ±2^63, a fraction, nan/inf, true/false) read as unknown: "
                            + ", ".join(f"{k} ×{v}" for k, v in sorted(bad_ids.items())))
        if getattr(acc, "base_ignored", 0):
            base_ns = 0  # the memory rows and the metadata follow the event times
            warnings.append(f"{path}: baseTimeNanoseconds {acc.base_ignored} put event times beyond int64 ns: "
                            "ignored, times are relative to the trace's own clock")
        if any(acc.grid_fixes.values()):  # each cause said with its count, a cause with none left unsaid
            parts = [f"{plural(n, 'kernel record(s)')} {what}" for n, what in (
                (acc.grid_fixes["work_items"], "in work-items (hipExtModuleLaunchKernel)"),
                (acc.grid_fixes["swapped"], "with grid and workgroup sizes in swapped places (rocprofiler-sdk "
                                            "backend)")) if n]
            warnings.append(f"{path}: ROCm grid sizes converted to workgroups: {', '.join(parts)}")
        if getattr(acc, "copies_by_launcher", 0):
            warnings.append(f"{path}: {plural(acc.copies_by_launcher, 'kernel record(s)')} without launch geometry, "
                            f"enqueued by "
                            "a copy or fill call (cudaMemcpyAsync, hipMemsetAsync…), counted as copies/fills")
        sync_threads(cols)
        n = len(cols["start_ns"])
        cols["event_id"] = np.arange(n, dtype="int64")
        rk = cols["rank"]
        if n and int(rk.min()) == int(rk.max()):  # one rank (the usual trace): no sort of every row for it
            ranks = [int(rk[0])]
        else:
            ranks = sorted({int(r) for r in np.unique(rk)}) if n else [rank]
        if acc.rank_encodings:
            rank_source = "trace (" + ", ".join(acc.rank_encodings) + ")"
            if len(ranks) > 1:
                warnings.append(f"{path}: {len(ranks)} ranks merged in one trace ({', '.join(map(str, ranks))}), "
                                f"told apart by {', '.join(acc.rank_encodings)}")
        if getattr(acc, "host_track_gpu", None):
            warnings.append(f"{path}: {plural(sum(acc.host_track_gpu.values()), 'GPU event')} record no device and "
                            "sit on a host thread's track (pid " + ", ".join(map(str, acc.host_track_gpu)) + ", with "
                            "its host events): that pid is a process id, not a GPU index — read as GPU 0")
        if getattr(acc, "stream_handles", 0):
            warnings.append(f"{path}: {plural(acc.stream_handles, 'stream')} recorded as handles (stream pointers, "
                            "not stream numbers) numbered in the order first seen")
        cols["source"] = self._source(n)
        outside = 0
        if select is not None and select.active and acc.kept_time:  # refused rows outside the kept time: not counted
            from gpulens.timeline.selection import rejected_inside

            kept = acc.kept_time.get(rank)
            if kept is None:  # several ranks in one file: their refused rows carry the file's rank; any kept time
                kept = [iv for ivs in acc.kept_time.values() if ivs is not None for iv in ivs]
                kept = kept if all(v is not None for v in acc.kept_time.values()) else None
            total = len(rej["reason"])
            rej, outside = rejected_inside(rej, kept)
        nr = len(rej["reason"])
        rejected = {**rej, "rank": [rank] * nr, "source": [self.name] * nr}
        nc = len(cnt["event_id"])
        counters = {**cnt, "source": self._source(nc)}
        # relabelling by launcher and the incomplete-capture sentence need the table: assemble() fills them in
        by_launcher, incomplete, warn_at = 0, None, len(warnings)
        if nr:  # GPU rows without a time are kept as untimed launches, the others excluded: said as done
            rt = make_table(REJECTED_COLUMNS, rejected, n=nr)
            timed_gpu = any_kind(cols["kind"], ("kernel", "comm", "memcpy", "memset"))
            warnings.extend(w + (f" (inside the selection {select.describe()})" if outside else "")
                            for w in refused_warnings(path, rt["kind"], rt["reason"], timed_gpu))
        if outside:
            warnings.append(f"{path}: " + select.outside_note(outside, total, "not counted above"))
        if ignored:
            warnings.append(f"{path}: kept {plural(sum(ignored.values()), 'event(s)')} of other categories as kind 'other': "
                            + ", ".join(f"{k} ×{v}" for k, v in sorted(ignored.items())))
        unread = unread_device_events(ignored)
        if select is not None and select.active:
            warnings.append(f"{path}: selection {select.describe()} kept {n:,} of {plural(acc.count, 'event')}")
        host_only = _gpu_ops_untraced(cols, device_records(trace))
        if not host_only and dialect.gpu_devices:  # XLA / TensorFlow devices named, maybe none of their activity
            host_only = untraced_gpu_note(dialect, n and int(any_kind(cols["kind"], ("kernel", "memcpy", "memset"))))
        if host_only:  # GPU work recorded only through its host operators: never "nothing ran on a GPU"
            incomplete_note = host_only
            warnings.append(f"{path}: incomplete capture: {host_only}")
        else:
            incomplete_note = incomplete
        src = {"path": str(path), "collector": self.name, "size_bytes": info.size_bytes, "rank": rank,
               "rank_source": rank_source, "ranks": ranks,
               "compressed": info.compressed, "uncompressed_bytes": info.nbytes, "base_time_ns": base_ns or None,
               "schema_version": trace.schemaVersion, "display_time_unit": trace.displayTimeUnit,
               "distributed": dist or None, "producer": dialect.producer, "comm_by_launcher": by_launcher,
               "incomplete_capture": incomplete_note, "unread_device_events": unread,
               "grid_units": "workgroups (converted)" if any(acc.grid_fixes.values()) else "as recorded",
               **({"grid_convention": sdk} if sdk else {})}
        for key in _VERSION_KEYS:  # driver/runtime versions as Kineto records them (e.g. 12000 = CUDA 12.0)
            if getattr(trace, key, None) is not None:
                src[key] = getattr(trace, key)
        if isinstance(getattr(trace, "gpulens_no_gpu_device", None), str):  # gpulens profile: torch saw no GPU
            src["profile"] = {"no_gpu_device": trace.gpulens_no_gpu_device[:400]}
        if select is not None and select.active:
            src["selection"] = select.describe()
            src["selection_cuts"] = select.cut_edges()
        tables = {"collectives": acc.collective_table} if acc.collective_table is not None else {}
        if acc.cut_work is not None:  # launch calls a --window kept whose GPU work it left out
            tables["selection_cut_work"] = acc.cut_work
        meta = TimelineMeta(sources=[json.loads(json.dumps(src, default=str))],
                            devices=[d for i, r in enumerate(ranks)
                                     for d in _devices(device_records(trace), r, warnings if i == 0 else None, path)],
                            warnings=warnings,
                            truncated=bool(truncated_at), truncated_at=truncated_at,
                            dropped={str(path): int(info.extra["dropped"])} if info.extra.get("dropped") else {})
        memory = acc.memory_table(base_ns, rank)
        if memory is not None:
            tables["memory"] = memory
        del acc
        ranges = ignored.get(CUPTI_RANGE, 0) if ignored else 0
        incomplete = ((f"the trace is a CUPTI range-profiler capture: its {plural(ranges, CUPTI_RANGE + ' event(s)')} {agree(ranges, 'carries', 'carry')} "
                       "per-kernel hardware counters but no kernel timing (Kineto writes evenly spaced placeholder "
                       "times in this mode)", "profile again without profiler_metrics (ProfilerActivity.CUDA) for "
                       "kernel times, or read the counters with ncu") if ranges else
                      ("the trace has no GPU activity event (kernel, gpu_memcpy, gpu_memset)",
                       "GPU activity was not recorded (ProfilerActivity.CUDA missing) or the profiler stopped before "
                       "flushing it"))
        return Parts(cols, counters, rejected, meta, tables, relabel=True, warn_at=warn_at, incomplete=incomplete)

