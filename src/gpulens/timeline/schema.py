"""The Timeline schema, declared once as data.

Every collector produces exactly these columns, whatever the source. Times are int64 nanoseconds on one clock
per Timeline; sizes are bytes. Nullable integers use pandas' ``Int64`` extension dtype (``<NA>`` = not recorded).
Names are dictionary-encoded (``category``) because the same kernel name repeats millions of times.

The launch resources of a kernel — block dimensions, registers per thread, shared memory per block
(:data:`NARROW_COLUMNS`) — are ``Int32``: every value a GPU accepts fits (block ≤ 1024 threads, ≤ 512 registers,
≤ 227 KiB; :mod:`gpulens.timeline.launch` makes any other value unknown), and the columns span every row of the
table, host rows included: 5 bytes a row instead of 9, ~70 MB less at 1M kernels (2.8M rows), in the Timeline and in
every row selection of it. :func:`~gpulens.timeline.make_table` keeps such a column ``Int64`` while it holds a value
outside the int32 range (so that :meth:`~gpulens.timeline.Timeline.validate` can count it as impossible), and
``validate`` narrows it after making those values unknown. Multiply them as float or int64 when a product could
pass 2^31 (grid sizes stay ``Int64``: their products do).

``EVENT_COLUMNS`` is the event table, ``COUNTER_COLUMNS`` the long hardware-counter table (one row per
event × metric), ``REJECTED_COLUMNS`` the events a collector refused (kept with a reason, never silently lost).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    """One column of a Timeline table.

    Attributes:
        name: column name; the unit is part of it where there is one (``start_ns``, ``bytes``).
        dtype: the pandas dtype string the column must have.
        unit: physical unit (``"ns"``, ``"bytes"``, ``"FLOP"``) or ``""`` for none.
        doc: one-line meaning.
    """

    name: str
    dtype: str
    unit: str
    doc: str


#: Event kinds, in the order reports show them.
KINDS: tuple[str, ...] = (
    "kernel",  # GPU compute kernel (not a copy, set or collective)
    "comm",  # GPU collective / p2p kernel (NCCL, RCCL)
    "memcpy",  # GPU copy (HtoD, DtoH, DtoD, PtoP)
    "memset",  # GPU memory set
    "cpu_op",  # framework operator on the host (aten::mm, ...)
    "runtime",  # CUDA/HIP runtime or driver call (cudaLaunchKernel, hipMemcpyAsync, ...)
    "sync",  # host/device synchronisation (cudaStreamSynchronize as recorded by the profiler's sync category)
    "annotation",  # user / profiler range (ProfilerStep#3, NVTX, record_function), host or GPU side
    "python",  # Python function frame (with_stack)
    "other",  # any other interval event the source recorded (kept, not analysed)
)

#: Kinds that run on a GPU queue/stream.
GPU_KINDS: tuple[str, ...] = ("kernel", "comm", "memcpy", "memset")

EVENT_COLUMNS: tuple[Column, ...] = (
    Column("event_id", "int64", "", "unique id of the row within the Timeline (0..n-1 per source before concat)"),
    Column("kind", "category", "", "event kind, one of KINDS"),
    Column("name", "category", "", "kernel or op name as recorded (raw, full)"),
    Column("start_ns", "int64", "ns", "start time on the Timeline's clock"),
    Column("dur_ns", "int64", "ns", "duration as recorded (never negative; invalid events are in the rejected table)"),
    Column("rank", "int64", "", "distributed rank (0 when the trace records none)"),
    Column("device_id", "int64", "", "GPU index; -1 for host events"),
    Column("stream_id", "Int64", "", "CUDA stream / HIP queue of GPU events; none (null) on the host"),
    Column("pid", "Int64", "", "process id (host) or the source's GPU process id"),
    Column("tid", "Int64", "", "thread id (host) or the source's GPU track id"),
    Column("correlation_id", "Int64", "", "links a runtime launch call to the GPU work it enqueued (one-to-many)"),
    Column("external_id", "Int64", "", "links a cpu_op to the runtime calls and GPU work it caused (Kineto)"),
    Column("parent_id", "Int64", "", "event_id of the enclosing op, where the source records nesting"),
    Column("grid_x", "Int64", "", "grid size in blocks/workgroups, x"),
    Column("grid_y", "Int64", "", "grid size, y"),
    Column("grid_z", "Int64", "", "grid size, z"),
    Column("block_x", "Int32", "", "block (workgroup) size in threads, x"),
    Column("block_y", "Int32", "", "block size, y"),
    Column("block_z", "Int32", "", "block size, z"),
    Column("regs_per_thread", "Int32", "", "registers per thread (VGPRs on AMD; arch + accum when both given)"),
    Column("smem_static_bytes", "Int32", "bytes", "static shared memory / LDS per block"),
    Column("smem_dynamic_bytes", "Int32", "bytes", "dynamic shared memory per block"),
    Column("bytes", "Int64", "bytes", "payload of a copy, set or collective"),
    Column("flops", "float64", "FLOP", "floating-point operations of the event when the source records them"),
    Column("copy_kind", "category", "", "HtoD, DtoH, DtoD, PtoP, HtoH for copies (UVM HtoD/DtoH/DtoD: unified-memory page migrations); empty otherwise"),
    Column("input_dims", "category", "", "JSON text of the op's input shapes (Kineto record_shapes)"),
    Column("input_types", "category", "", "JSON text of the op's input dtypes"),
    Column("concrete_inputs", "category", "", "JSON text of the op's scalar arguments as Kineto records them "
           "(\"Concrete Inputs\": '' for a tensor, 'True', '[2, 2]', …; record_shapes, torch ≥ 2.x)"),
    Column("source", "category", "", "collector that produced the row (kineto, rocprof_v1, nsys, ...)"),
    Column("name_norm", "category", "", "`name` without the AMDGPU `.kd` symbol suffixes (` [clone .kd]`, ` (.kd)`, "
           "`.kd`); derived from `name` by make_table when a collector does not set it (timeline/names.py)"),
)

#: Event columns stored as ``Int32`` (module docstring); a table not yet validated may hold them as ``Int64``.
NARROW_COLUMNS: tuple[str, ...] = tuple(c.name for c in EVENT_COLUMNS if c.dtype == "Int32")

COUNTER_COLUMNS: tuple[Column, ...] = (
    Column("event_id", "int64", "", "event_id of the kernel/launch the value belongs to; -1 for whole-run values"),
    Column("metric", "category", "", "metric name as the tool spells it (e.g. sm__throughput.avg.pct_of_peak_sustained_elapsed)"),
    Column("value", "float64", "", "value in the base unit named by `unit`"),
    Column("unit", "category", "", "base unit after normalisation: ns, bytes, bytes/s, %, cycles, ... or ''"),
    Column("source", "category", "", "collector that produced the row"),
    Column("time_ns", "Int64", "ns", "sample time on the Timeline's clock for time-series rows (telemetry counter "
                                     "tracks, event_id -1); null for per-event and whole-run values"),
)

REJECTED_COLUMNS: tuple[Column, ...] = (
    Column("kind", "category", "", "kind the event would have had"),
    Column("name", "category", "", "name as recorded"),
    Column("start_ns", "Int64", "ns", "start as recorded (may be 0 or absurd)"),
    Column("dur_ns", "Int64", "ns", "duration as recorded (may be negative)"),
    Column("rank", "int64", "", "rank"),
    Column("reason", "category", "", "why the event was excluded (e.g. 'negative duration', 'zero timestamp')"),
    Column("source", "category", "", "collector"),
    Column("correlation_id", "Int64", "", "launch ↔ GPU work id as recorded, when the source gives one (a refused "
                                         "kernel's launch call is then known not to be a lost launch)"),
    Column("device_id", "Int64", "", "GPU the refused work ran on, numbered as the events' ``device_id``, when the "
                                     "source records it (<NA> when not: then any GPU of its rank)"),
)


def dtypes(columns: tuple[Column, ...]) -> dict[str, str]:
    """Map column name → dtype string for ``columns``."""
    return {c.name: c.dtype for c in columns}


def names(columns: tuple[Column, ...]) -> list[str]:
    """Column names of ``columns`` in schema order."""
    return [c.name for c in columns]
