"""The one formatting module of the console, HTML and Markdown reporters: every value a person reads goes through it.

A value is formatted from the unit its analyzer declared (``"meaning [unit]"``, vocabulary
:data:`gpulens.analyzers.base.UNITS`), never from how it happens to be stored:

==========  ==========================================================
unit        shown as
==========  ==========================================================
ns          time with an SI prefix: ``812 ns``, ``1.23 µs``, ``5.00 ms``, ``2.31 s``
%           ``12.3 %`` (a 0–100 figure)
share       ``12.3 %`` (a 0–1 fraction × 100)
bytes       decimal SI: ``512 B``, ``1.50 MB`` (as vendors quote memory traffic)
KiB         a byte amount recorded in units of 1,024 bytes (rocprof ``FETCH_SIZE``), shown as bytes: ``3,771,551`` →
            ``3.86 GB``
FLOP        ``1.23 GFLOP``;  FLOP/s ``12.7 TFLOP/s``;  B/s ``3.35 TB/s``;  FLOP/B ``90.9 FLOP/B``
count       thousands separators: ``1,234``
ratio       3 significant digits: ``1.23``
number      a figure of unknown unit (an undocumented profiler counter): as recorded, ``1,234`` / ``3.25``, no unit
id, text    as recorded; a list is joined with ``; ``, a mapping as ``key: value`` pairs (largest first)
bool        ``yes`` / ``no``
timestamp   a point in time, ns since the Unix epoch: ``2025-07-01 22:20:36.000 UTC`` (a clock that is not an
            epoch, e.g. a monotonic one: ``clock at 12.34 s``) — never a duration
version     as recorded, no thousands separators (``12090``); a CUDA version integer reads ``12.9`` via
            :func:`cuda_version`
Hz          frequency with an SI prefix: ``1.98 GHz``
shapes      an op's input shapes, one per input, ``; `` between them: ``[141×512]; [512×512]; –`` (``–``: not a tensor;
            ``12 × –``: a run of them), a tensor list in brackets (:func:`shapes_text`)
dtypes      an op's input dtypes, PyTorch's short names, repeats counted: ``bf16 ×3, scalar ×2`` (:func:`dtypes_text`)
==========  ==========================================================

A missing value (None, NA, NaN, NaT) reads ``unknown``. A column whose doc string declares no unit (older
analyzers) gets the unit its name implies (``*_ns`` → ns, ``*_pct`` → %, ``*share`` → share, ...): see
:func:`unit_of`. Column headers come from :data:`LABELS` or from the name with its unit suffix dropped and
underscores as spaces (:func:`column_label`) — never snake_case.

The scalar formatters (:func:`fmt_ns`, :func:`fmt_si`, ``MISSING``, :func:`is_missing`) live in :mod:`gpulens.units`,
shared with the analyzers' finding text; this module re-exports them.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Mapping

from gpulens.analyzers.base import UNITS, is_clock_column as _is_clock_column  # the one definition
from gpulens.reports._vendor_words import (  # noqa: F401  (re-exported: one import site for reporters)
    VENDOR_LABELS, VENDOR_SHORT_LABELS, record_vendor, source_vendor, vendor_headers, vendor_label, vendor_short_label)
from gpulens.units import MISSING, fmt_count as _fmt_count, fmt_ns, fmt_num, fmt_si, is_missing  # noqa: F401 (re-exported)
from gpulens.units import agree, fmt_capacity, fmt_share, pct_words, plural, rank_ranges, share_pct_text  # noqa: F401
from gpulens.reports._op_inputs import dtypes_text, shapes_text  # noqa: F401 (re-exported)
from gpulens.reports._values import (  # noqa: F401 (re-exported)
    CELL_CHARS, NO_NOTE, TEXT_UNITS, _SCALARS, _fmt_collection, _fmt_plain, _is_bool, _is_num, clip, cuda_version,
    fmt_timestamp, fmt_unit, kib_text, limiter_text, with_limiter_text)
from gpulens.reports._run_text import (  # noqa: F401 (re-exported)
    BREAKDOWN_PARTS, IDLE_KEYS, ONE_OFF_LABEL, SPLIT_PARTS, STAKE_MARKS, STEADY_IDLE_LABEL, _device_text,
    GPU_SUM_TIP, _no_gpu_work, _several_gpus, bounded_breakdown, gpu_sum_label, breakdown_rest, busy_bound_word, busy_pct_text, busy_text, critical_set_text,
    device_text, idle_at_most, idle_bound_note, is_assumed, kernel_time_text, launches_text, one_off_split,
    run_device_text, span_text, spec_label, stake_notes, time_scale, untimed_text, window_text, world_note)
from gpulens.reports._roofline_text import (  # noqa: F401 (re-exported)
    bound_pct_differs, bound_pct_legend, bound_pct_text, bound_words, roof_note_display, roofline_display,
    roofline_heading)


#: Human headers for columns whose derived label would read badly (column name → label).
LABELS: dict[str, str] = {
    "effective_ns": "time", "time_ns": "time", "total_ns": "recorded time", "mean_ns": "mean", "step_ns": "step time",
    "steps": "step numbers (ProfilerStep#N)",
    # the profiler's own FLOP counts (torch.profiler with_flops), not the roofline's estimate from input shapes
    "ops_with_flops": "ops with FLOPs recorded by the profiler (with_flops)",
    "total_flops": "FLOPs recorded by the profiler (with_flops)",
    # (max − min) / min of the group medians: 150.8 % is a slowest group 2.51× the fastest, not a share over 100
    "spread_pct": "slowest group's median above the fastest's (%)",
    # GPU in capitals, as every report writes it (the annotations, op roll-up and GEMM tables' "gpu time" read lower)
    "gpu_time_ns": "GPU time", "self_gpu_time_ns": "self GPU time",
    # calls inside a call of the *same* name (aten::sum in aten::sum), not every call nested in another op: a plain
    # "nested calls" read 0 beside AddmmBackward0 and aten::mm, which do sit inside other ops
    "nested_calls": "calls inside a same-name call",
    "min_ns": "min", "max_ns": "max", "share": "share of kernel time", "cumulative_share": "cumulative share",
    "critical": "critical set", "device_id": "GPU", "stream_id": "stream", "time_at_stake_ns": "time at stake",
    "flops_per_s": "attained FLOP/s", "bytes_per_s": "attained bandwidth", "arithmetic_intensity":
    "arithmetic intensity", "peak_flops_per_s": "compute roof", "compute_roof": "roof judged against",
    "peak_bytes_per_s": "memory roof",
    "ridge_point": "ridge point", "roof_pct": "% of roofline (DRAM and compute roofs)", "bound_pct": "bound's % of peak",
    "bound_pct_unit": "unit of that % (its peak)", "datasheet_roof_pct": "% of datasheet roof",
    "flops_source": "FLOPs from", "flops": "FLOP", "flops_lower_bound": "FLOP count",
    "regs_per_thread": "registers / thread", "smem_bytes": "shared memory / block", "block_size": "block size",
    "active_blocks_per_sm": "blocks / SM", "theoretical_occupancy_pct": "theoretical occupancy",
    "theoretical_max_pct": "theoretical occupancy upper bound",
    "achieved_occupancy_pct": "achieved occupancy", "busy_pct": "busy %", "idle_pct": "idle %",
    "computation_pct": "computation %", "kernel_count": "kernels", "next_steps": "next step",
    "offset_ns": "start (from the timeline's first event)", "trace_offset_ns": "start (in profiled window)", "dur_ns": "duration", "start_ns": "start", "end_ns": "end", "dominant_pct": "dominant class share",
    "top_reason_pct": "top reason share", "issue_pct": "issue cycles", "memory_sol_pct": "memory SOL",
    "compute_sol_pct": "compute SOL", "dram_pct": "DRAM SOL", "l1_pct": "L1 SOL (as profiled)", "l2_pct": "L2 SOL",
    "l1_run_pct": "L1 SOL (elapsed cycles)", "l1_hit_pct": "L1 hit rate", "l2_hit_pct": "L2 hit rate",
    "issue_slot_pct": "issue slots used", "tensor_pct": "tensor pipe", "compute_pct": "compute SOL", "memory_pct":
    "memory SOL", "mean_call_ns": "mean call time", "median_call_ns": "median call time",
    "vs_median": "vs median (same grid)", "launch_name": "launch API", "max_speedup_pct":
    "estimated speed-up", "comm_pct": "communication (of its rank's span)", "exposed_comm_pct": "exposed communication (of its rank's span)",
    "comm_ns": "communication", "exposed_comm_ns": "exposed communication", "exposed_memcpy_ns": "exposed memcpy",
    "exposed_memset_ns": "exposed memset",
    "idle_host_ns": "idle: host", "idle_launch_ns": "idle: launch", "idle_sync_ns": "idle: sync",
    "idle_queued_ns": "idle: queued", "idle_unattributed_ns": "idle: no launch linked",
    "overlap_pct": "communication hidden by compute (of its communication time)", "idle_boundary_ns": "idle: one-off gaps (left out of the verdict)",
    "steady_idle_ns": "idle: steady state",
    # the bottlenecks / verdicts per-GPU columns in words (the HTML data table read "short kernel", "steady idle %")
    "steady_idle_pct": "idle: steady state (% of span)", "idle_boundary_pct": "idle: one-off gaps (% of span)",
    "idle_other_clock_ns": "idle: may be work on another clock", "idle_untimed_ns": "idle: untimed work may fill",
    "short_launches": "launches shorter than their call", "short_kernel_ns": "GPU time of those short launches",
    "grid_median_ns": "others' median (same grid)",
    "host_wait_gpu_busy_ns": "host waits while the GPU was busy", "gpu_held_share": "held by the GPU (with those waits)",
    # the critical path over the steady state the run verdict judges, beside the whole path's figures
    "steady_path_ns": "path in the verdict's steady state",
    "steady_host_share": "host work (share of the steady-state path)",
    "steady_gpu_held_share": "held by the GPU (share of the steady-state path)",
    "steady_bound": "steady-state path held by",
    # bottlenecks' largest idle/overhead cause, named only from 10 % of the steady span (else "none"): the threshold
    # in its header in every reporter (the Markdown and HTML tables said "overhead: none" beside the console's
    # "overhead ≥ 10 %: none", as if no overhead at all)
    "overhead": "overhead ≥ 10 % of the span",
}

#: Section titles of analysis results (others: the name with spaces, capitalised).
RESULT_TITLES = {"roofline": "Roofline", "occupancy": "Occupancy", "rank_kernels": "Kernel time per rank",
                 "verdicts": "Kernel verdicts", "bottlenecks": "Where the idle time went", "stalls": "Stall classes",
                 "ranks": "Ranks compared", "launches": "Launches", "steps": "Steps", "cpu_ops": "CPU operators",
                 "ncu_rules": "Nsight Compute rules", "telemetry": "Telemetry", "speed_of_light": "Speed of light",
                 "hotspots": "Hot kernels", "breakdown": "Time breakdown", "stream_timeline": "Stream timeline",
                 "gemm_shapes": "GEMM shapes",
                 # its counter columns are means over each kernel's dispatches (analyzers.kernel_counters), not sums:
                 # beside a "dispatches" column of 100, a bare "FETCH SIZE 570 MB" reads as the total
                 "kernel_counters": "Kernel counters (mean per dispatch)"}


def result_title(name: str, vendor: str | None = None) -> str:
    """The human title of an analysis result (``"stalls"`` → ``"Stall classes"``, ``"op_rollup"`` → ``"Op
    rollup"``); one vendor's API in ``vendor``'s words (``"nvtx"``: "NVTX ranges" on NVIDIA, "ROCTX ranges" on AMD,
    "Annotations (NVTX/ROCTX)" when unknown — :func:`gpulens.reports._coverage.vendor_title`)."""
    from gpulens.reports._coverage import vendor_title

    return (vendor_title(name, vendor) or RESULT_TITLES.get(name)
            or name.replace("_", " ").strip().capitalize())


_SUFFIX_UNITS = (("_per_s", None), ("_ns", "ns"), ("_pct", "%"), ("_bytes", "bytes"), ("share", "share"),
                 ("_count", "count"))
_COUNT_NAMES = {"calls", "launches", "events", "samples", "kernels", "count", "gpu_events", "segments",
                "late_arrivals", "matched_collectives", "launch_calls", "short_launches", "small_grid_kernels",
                "calls_without_gpu_work", "cpu_ops", "blocks", "waves"}
_ID_NAMES = {"rank", "device_id", "stream_id", "step", "pid", "tid", "correlation", "event_id", "num_sms"}
_UNIT_RE = re.compile(r"\[([^\[\]]+)\]")


def shown_columns(columns: Any) -> list:
    """The columns a human report (console, HTML, Markdown) shows: a table that places its rows by their offset from
    the start of the profiled window (``trace_offset_ns``, "start (in profiled window)") shows that, not the raw profiler clock beside
    it (``start_ns``, ``end_ns``, …: 1.7e18 ns since 1970, meaningless to a user) — which stays in the JSON, CSV and
    Parquet for tools."""
    cols = list(columns)
    if "trace_offset_ns" not in cols:
        return cols
    return [c for c in cols if not _is_clock_column(str(c))]


@functools.lru_cache(maxsize=1 << 12)
def unit_of(column: str, doc: str = "") -> str:
    """The unit of a column: the last ``[unit]`` of its doc string that is in UNITS, else the unit its name implies
    (``*_ns`` ns, ``*_pct`` %, ``*share`` share, ``*_bytes`` bytes, ``flops_per_s`` FLOP/s, ``bytes_per_s`` B/s,
    counts such as ``calls``), else ``"text"`` (formatted by value type). A byte count of shared memory / LDS
    (``smem…``, ``lds…``) is a ``"capacity"``: shown in binary units (48 KiB) as GPU documentation gives it.
    Memoised: a function of its arguments alone, asked for every cell's column by every report."""
    unit = _unit_of(column, doc)
    if unit == "bytes" and column.lower().startswith(("smem", "lds", "shared_mem")):
        return "capacity"
    return unit


def _unit_of(column: str, doc: str) -> str:
    for unit in reversed(_UNIT_RE.findall(doc or "")):
        unit = unit.strip()
        if unit in UNITS:
            # a point on the trace's clock (start_ns, end_ns, …_at_ns) is a timestamp, not a duration
            return "timestamp" if unit == "ns" and _is_clock_column(column) else unit
        if unit.startswith("fraction"):
            return "share"
    c = column.lower()
    if c in ("base_time_ns", "created_ns") or c.endswith(("_timestamp_ns", "_epoch_ns")) or _is_clock_column(c):
        return "timestamp"
    if c.endswith("_per_s"):
        return "FLOP/s" if "flop" in c else "B/s" if "byte" in c else "ratio"
    if c in ("arithmetic_intensity", "ridge_point"):
        return "FLOP/B"
    if c.startswith(("ops_with", "num_", "n_", "kernels_", "launches_")):
        return "count"
    if c in ("flops", "total_flops"):
        return "FLOP"
    if c == "bytes":
        return "bytes"
    for suffix, unit in _SUFFIX_UNITS:
        if unit and c.endswith(suffix):
            return unit
    if c in _COUNT_NAMES or c.endswith("_calls") or c.endswith("_kernels") or c.endswith("_events"):
        return "count"
    if c in _ID_NAMES:
        return "id"
    if c.endswith("_version") or c == "version":
        return "version"
    if c.endswith("_hz"):
        return "Hz"
    return "text"


@functools.lru_cache(maxsize=1 << 12)
def column_label(column: str, doc: str = "") -> str:
    """A column's human header: :data:`LABELS`, else the name without its unit suffix, underscores as spaces; with
    "(Σ over the rank's GPUs)" when its doc says its figures are sums over a rank's several GPUs
    (:data:`gpulens.analyzers._rank_gpus.RANK_GPU_SUM`). Memoised: a function of its arguments alone (every table
    of every report asks for its headers)."""
    from gpulens.analyzers._rank_gpus import RANK_GPU_SUM

    if doc and RANK_GPU_SUM in doc:
        return column_label(column, doc.replace(RANK_GPU_SUM, "")) + " (Σ over the rank's GPUs)"
    if column == "share" and doc:  # a share of what: its doc says (copies and collectives are not kernel time)
        for key, label in (("GPU event time", "share of GPU time"), ("path window", "share of path window"),
                           ("step_ns", "share of step time"),
                           ("kernel", "share of kernel time")):
            if key in doc:
                return label
    if column == "time_ns" and doc.startswith("GPU event time"):  # copies and fills too: not "kernel time"
        return "GPU event time"  # (kernel groups: "time 170.39 ms" beside the summary's "kernel time 170.06 ms")
    if column == "step_ns" and "path window" in doc:  # a trace without steps: its one window is no step, and no
        return "path window"  # profiled window either (it leaves Python functions and annotations out)
    if column in ("offset_ns", "peak_offset_ns") and doc:  # from which origin: its doc says
        if "profiled window" in doc:
            return "peak (in profiled window)" if column == "peak_offset_ns" else "start (in profiled window)"
        if "segments before it" in doc:
            return "offset along the path"
    if column == "mean_ns" and "outer calls" in (doc or ""):  # cpu_ops: nested calls of an op are inside its
        return "mean per outer call"  # outer ones (total / outer calls), not the mean of every recorded call
    if column == "peak_flops_per_s" and doc and "achievable" not in doc:
        return "datasheet peak"  # the op-shape tables' matrix peak, not the roofline's (perhaps achievable) roof
    if column in ("compute_pct", "memory_pct", "dram_pct") and "% of peak" in (doc or ""):
        # a speed-of-light figure is a share of the vendor's rated peak (ncu's; rocprof-compute's sysinfo / the
        # datasheet), beside one of the measured peak (roofline.csv) and the roofline's "% of roof": say which
        # (vcopy MI200: "memory SOL 52.7 %" beside "62.2 % of roof" read as a contradiction)
        return f"{LABELS[column]} (% of rated peak)"
    if column == "dram_measured_pct" and "measured peak" in (doc or ""):
        return "DRAM SOL (% of measured peak)"
    if column == "bound_pct":
        # the share a bound rests on has two thresholds, one per basis: a roofline bound from ROOF_BOUND_PCT of the
        # attainable roof (a FLOP/byte model's placement), a measured speed-of-light bound from SOL_BOUND_PCT of a
        # unit's peak (ncu's SOLBottleneck rule) — a bare "bound at % of peak" beside "53.5 %" read as a third
        from gpulens.analyzers.verdict_rules import ROOF_BOUND_PCT, SOL_BOUND_PCT

        return (f"bound's % of peak (roofline basis: its % of roofline; speed of light: the limiting unit's % of its "
                f"peak; bound from ≥ {ROOF_BOUND_PCT:g} % of roofline, ≥ {SOL_BOUND_PCT:g} % SOL)")
    if column == "gpu_share" and "of the path" in (doc or ""):
        return "GPU work (share of the path)"
    if column == "host_share" and "of the path" in (doc or ""):
        # the figure the run headline and verdict quote as the host's part of the critical path, under one name
        # and what it is read from: the table's host rows less the host waits on a busy GPU shown beside it (GPT-2 on
        # an H200: 74.1 % beside step rows of CPU ops 64.1 %, runtime 15.1 %, host idle 20.7 %)
        return "host work (share of the path: host rows less host waits while the GPU was busy)"
    if column == "bound" and "critical path" in (doc or ""):
        # which side holds the critical path, not the run verdict ("bound cpu" beside "gpu-bound" read as a
        # contradiction): the two are different definitions
        return "critical path held by"
    if column == "grid_blocks" and "that configuration" in (doc or ""):
        # the occupancy row's grid is its configuration with the most time, not the time-weighted mean grid a
        # kernel's verdict evidence gives when its grids differ (gunrock MI300X: 18,937 beside a mean of 27,260)
        return "grid blocks (grid with the most time)"
    if column == "peak_pct" and doc:
        return "% of datasheet peak"
    if column == "span_ns" and doc and doc.startswith("first launch"):
        # a stream's queue span runs from its first launch call, before its first kernel: not the GPU span
        return "span (first launch → last end)"
    if column == "total_ns" and doc and "effective" in doc:
        # a sum of overrun-clipped durations (kernel distributions) is kernel time, not the raw "recorded time"
        # that the hot-kernel table's total_ns is (the overrun finding keeps the raw sums under that name)
        return "time"
    if column in LABELS:
        return LABELS[column]
    if column == "name" and "kernel" in (doc or "").lower():
        return "kernel"
    c = column
    for suffix in ("_ns", "_pct", "_bytes"):
        if c.endswith(suffix) and len(c) > len(suffix):
            c = c[: -len(suffix)]
    label = " ".join(c.replace("_", " ").split())
    # a percentage beside the time it is a share of (busy_ns, busy_pct) must not read as the same column
    return f"{label} %" if column.endswith("_pct") and len(column) > 4 else label


def stall_class_label(column: str, doc: str = "") -> str | None:
    """The stall class a stalls-table column holds (``memory_latency_pct``, documented "share of stall time in class
    memory_latency [%]") as a person reads it, "memory latency"; None for any other column. Without the "%" the
    generic header adds: the chart's axis and each figure carry the unit ("memory latency %: 32.5 %" before)."""
    if not column.endswith("_pct") or "in class" not in (doc or ""):
        return None
    return " ".join(column[: -len("_pct")].replace("_", " ").split())


def header_label(column: str) -> str:
    """Backward-compatible alias of :func:`column_label`."""
    return column_label(column)


def fmt_value(v: Any, column: str = "", doc: str = "") -> str:
    """A table cell's text: formatted from the column's declared unit (:func:`unit_of`)."""
    return fmt_unit(v, unit_of(column, doc))


def summary_items(summary: Mapping[str, Any], declared: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """A result's summary as (label, text) pairs for people: the keys declared in ``summary_columns`` (in that
    order), or — when an analyzer declares none — every scalar key, its unit implied by its name."""
    out = []
    if declared:
        for key, doc in declared.items():
            if key in summary:
                out.append((column_label(key, doc), fmt_unit(summary[key], unit_of(key, doc))))
        return out
    for key, v in summary.items():
        if isinstance(v, (Mapping, list, tuple)) and len(v) > 12:
            continue
        out.append((column_label(key), fmt_unit(v, unit_of(key))))
    return out


