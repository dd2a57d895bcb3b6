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

import re
from typing import Any, Mapping

import numpy as np

from gpulens.analyzers.base import UNITS, is_clock_column as _is_clock_column  # the one definition
from gpulens.reports._vendor_words import (  # noqa: F401  (re-exported: one import site for reporters)
    VENDOR_LABELS, VENDOR_SHORT_LABELS, record_vendor, source_vendor, vendor_headers, vendor_label, vendor_short_label)
from gpulens.units import MISSING, fmt_count as _fmt_count, fmt_ns, fmt_num, fmt_si, is_missing  # noqa: F401 (re-exported)
from gpulens.units import agree, fmt_capacity, fmt_share, pct_words, plural, share_pct_text  # noqa: F401 (re-exported)
from gpulens.reports._op_inputs import dtypes_text, shapes_text  # noqa: F401 (re-exported)

#: Characters of a table cell kept before clipping.
CELL_CHARS = 1000

#: Human headers for columns whose derived label would read badly (column name → label).
LABELS: dict[str, str] = {
    "effective_ns": "time", "time_ns": "time", "total_ns": "recorded time", "mean_ns": "mean", "step_ns": "step time",
    "steps": "step numbers (ProfilerStep#N)",
    # the profiler's own FLOP counts (torch.profiler with_flops), not the roofline's estimate from input shapes
    "ops_with_flops": "ops with FLOPs recorded by the profiler (with_flops)",
    "total_flops": "FLOPs recorded by the profiler (with_flops)",
    "min_ns": "min", "max_ns": "max", "share": "share of kernel time", "cumulative_share": "cumulative share",
    "critical": "critical set", "device_id": "GPU", "stream_id": "stream", "time_at_stake_ns": "time at stake",
    "flops_per_s": "attained FLOP/s", "bytes_per_s": "attained bandwidth", "arithmetic_intensity":
    "arithmetic intensity", "peak_flops_per_s": "compute roof", "compute_roof": "roof judged against",
    "peak_bytes_per_s": "memory roof",
    "ridge_point": "ridge point", "roof_pct": "% of roof", "bound_pct": "bound at % of peak", "datasheet_roof_pct": "% of datasheet roof",
    "flops_source": "FLOPs from", "flops": "FLOP",
    "regs_per_thread": "registers / thread", "smem_bytes": "shared memory / block", "block_size": "block size",
    "active_blocks_per_sm": "blocks / SM", "theoretical_occupancy_pct": "theoretical occupancy",
    "achieved_occupancy_pct": "achieved occupancy", "busy_pct": "busy %", "idle_pct": "idle %",
    "computation_pct": "computation %", "kernel_count": "kernels", "next_steps": "next step",
    "offset_ns": "start (from the timeline's first event)", "trace_offset_ns": "start (in profiled window)", "dur_ns": "duration", "start_ns": "start", "end_ns": "end", "dominant_pct": "dominant class share",
    "top_reason_pct": "top reason share", "issue_pct": "issue cycles", "memory_sol_pct": "memory SOL",
    "compute_sol_pct": "compute SOL", "dram_pct": "DRAM SOL", "compute_pct": "compute SOL", "memory_pct":
    "memory SOL", "mean_call_ns": "mean call time", "median_call_ns": "median call time",
    "vs_median": "vs median (same grid)", "launch_name": "launch API", "max_speedup_pct":
    "estimated speed-up", "comm_pct": "communication (of span)", "exposed_comm_pct": "exposed communication (of span)",
    "comm_ns": "communication", "exposed_comm_ns": "exposed communication", "exposed_memcpy_ns": "exposed memcpy",
    "exposed_memset_ns": "exposed memset",
    "idle_host_ns": "idle: host", "idle_launch_ns": "idle: launch", "idle_sync_ns": "idle: sync",
    "idle_queued_ns": "idle: queued", "idle_unattributed_ns": "idle: cause not recorded",
    "overlap_pct": "communication hidden by compute", "idle_boundary_ns": "idle: one-off gaps (left out of the verdict)",
    "steady_idle_ns": "idle: steady state",
    "grid_median_ns": "others' median (same grid)",
    "host_wait_gpu_busy_ns": "host waits while the GPU was busy", "gpu_held_share": "held by the GPU (with those waits)",
    # the critical path over the steady state the run verdict judges, beside the whole path's figures
    "steady_path_ns": "path in the verdict's steady state",
    "steady_host_share": "host work (share of the steady-state path)",
    "steady_gpu_held_share": "held by the GPU (share of the steady-state path)",
    "steady_bound": "steady-state path held by",
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


def clip(text: str, n: int) -> str:
    """``text`` cut to at most ``n`` characters with an ellipsis when longer — at the last word boundary when one
    falls in the last third of the room (prose: "… another tile…", never "… another tile configuratio…"); a long
    unbroken token (a kernel name) is cut where the room ends."""
    if len(text) <= n:
        return text
    head = text[: n - 1]
    cut = head.rstrip().rfind(" ")
    if cut >= (2 * (n - 1)) // 3:
        head = head[:cut].rstrip(" ,;:—-(")
    return head + "…"


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not _is_bool(v)


def unit_of(column: str, doc: str = "") -> str:
    """The unit of a column: the last ``[unit]`` of its doc string that is in UNITS, else the unit its name implies
    (``*_ns`` ns, ``*_pct`` %, ``*share`` share, ``*_bytes`` bytes, ``flops_per_s`` FLOP/s, ``bytes_per_s`` B/s,
    counts such as ``calls``), else ``"text"`` (formatted by value type). A byte count of shared memory / LDS
    (``smem…``, ``lds…``) is a ``"capacity"``: shown in binary units (48 KiB) as GPU documentation gives it."""
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


def kib_text(v: Any) -> str:
    """A shared memory / LDS byte count as the number of KiB (1024 bytes) the console's ``smem KiB`` column shows:
    ``147456`` → ``144``, ``512`` → ``0.50``; a missing value stays the missing mark."""
    if v is None or is_missing(v):
        return MISSING
    q = float(v) / 1024
    return f"{q:,.0f}" if q.is_integer() else f"{q:,.2f}"


def column_label(column: str, doc: str = "") -> str:
    """A column's human header: :data:`LABELS`, else the name without its unit suffix, underscores as spaces."""
    if column == "share" and doc:  # a share of what: its doc says (copies and collectives are not kernel time)
        for key, label in (("GPU event time", "share of GPU time"), ("traced window", "share of window"),
                           ("step_ns", "share of step time"),
                           ("kernel", "share of kernel time")):
            if key in doc:
                return label
    if column == "step_ns" and "traced window" in doc:  # a trace without steps: its one window is no step
        return "window time"
    if column in ("offset_ns", "peak_offset_ns") and doc:  # from which origin: its doc says
        if "profiled window" in doc:
            return "peak (in profiled window)" if column == "peak_offset_ns" else "start (in profiled window)"
        if "segments before it" in doc:
            return "offset along the path"
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

        return f"bound at % of peak (bound from ≥ {ROOF_BOUND_PCT:g} % of roof, ≥ {SOL_BOUND_PCT:g} % SOL)"
    if column == "gpu_share" and "of the path" in (doc or ""):
        return "GPU work (share of the path)"
    if column == "host_share" and "of the path" in (doc or ""):
        # the figure the run headline and verdict quote as the host's part of the critical path, under one name
        return "host work (share of the path)"
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


def header_label(column: str) -> str:
    """Backward-compatible alias of :func:`column_label`."""
    return column_label(column)


def _fmt_plain(f: float) -> str:
    if float(f).is_integer() and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:.4g}" if abs(f) < 1e6 else f"{f:.3e}"


def _fmt_collection(v: Any) -> str:
    if isinstance(v, Mapping):
        items = list(v.items())
        if items and all(_is_num(x) for _, x in items):
            items.sort(key=lambda kv: -float(kv[1]))
        return ", ".join(f"{k}: {fmt_unit(x, 'text')}" for k, x in items) or "none"
    parts = [fmt_unit(x, "text") for x in v]
    # items that are sentences (next steps) follow one another as sentences: never "… blocks.; Wavefronts …"
    sep = " " if parts and all(p.rstrip().endswith((".", "!", "?", ")")) and p[:1].isupper() for p in parts) \
        else "; "
    return sep.join(parts) or "none"


#: Scalar types tested first: ``isinstance`` against the ``Mapping`` ABC is slow, and most cells are scalars.
_SCALARS = (str, int, float, np.integer, np.floating, np.bool_)


#: A ``[note]`` cell without a note: no remark applies to that row (:data:`gpulens.analyzers.base.UNITS`).
NO_NOTE = "none"


#: Units shown as words (left-aligned, wrapped), not as figures
TEXT_UNITS = ("text", "note", "shapes", "dtypes")

def fmt_unit(v: Any, unit: str) -> str:
    """One value as a person reads it, from its declared ``unit`` (see the module docstring)."""
    if unit in ("shapes", "dtypes") and isinstance(v, str) and v.strip() not in ("", "None", "nan", "<NA>"):
        return clip(shapes_text(v) if unit == "shapes" else dtypes_text(v), CELL_CHARS)
    if not isinstance(v, _SCALARS) and isinstance(v, (Mapping, list, tuple, np.ndarray)):
        return clip(_fmt_collection(list(v) if isinstance(v, np.ndarray) else v), CELL_CHARS)
    if is_missing(v):
        return NO_NOTE if unit == "note" else MISSING
    if _is_bool(v):
        return "yes" if v else "no"
    if isinstance(v, str):
        s = v.strip()
        if s in ("", "None", "nan", "NaN", "null", "<NA>"):
            return NO_NOTE if unit == "note" else MISSING
        return clip(s, CELL_CHARS)
    if not _is_num(v):
        return clip(str(v), CELL_CHARS)
    f = float(v)
    if unit == "ns":
        return fmt_ns(f)
    if unit == "%":  # never a false 0.0 % or 100.0 % (share_pct_text): 11.02 µs busy of an 11.02 µs span less 1 ns
        return share_pct_text(f) if 0.0 <= f <= 100.0 else f"{f:.1f} %"
    if unit == "share":  # a share of a whole is never rounded to a false 0 % or 100 % (share_pct_text)
        return share_pct_text(100 * f) if 0.0 <= f <= 1.0 else f"{100 * f:.1f} %"
    if unit in ("bytes", "KiB"):
        f = f * 1024 if unit == "KiB" else f
        return fmt_si(f, "B") if abs(f) >= 1000 else f"{f:.0f} B"
    if unit == "capacity":
        return fmt_capacity(f)
    if unit in ("FLOP", "FLOP/s", "B/s"):
        return fmt_si(f, unit)
    if unit == "FLOP/B":
        return f"{fmt_num(f)} FLOP/B"
    if unit == "count":
        return _fmt_count(f)
    if unit == "ratio":
        return fmt_num(f)
    if unit in ("id", "version"):
        return str(int(f)) if f.is_integer() else str(v)
    if unit == "timestamp":
        return fmt_timestamp(f)
    if unit == "Hz":
        return fmt_si(f, "Hz")
    return _fmt_plain(f)


def limiter_text(v: Any, vendor: str | None = None) -> str:
    """An occupancy limiter cell as a person reads it: every tied resource of the ``limiters`` column, joined with
    " + " (``"registers, shared_memory"`` → ``"registers + shared memory"``: both bind at the same block count), in
    ``vendor``'s words (AMD: ``wavefronts``, ``workgroups``, ``VGPRs``, ``LDS``;
    :func:`gpulens.analyzers._advice.vendor_word`)."""
    from gpulens.analyzers._advice import vendor_word

    parts = fmt_unit(v, "text").split(", ")
    words = {"warps": vendor_word(vendor, "warps"), "shared_memory": vendor_word(vendor, "smem"),
             "blocks": vendor_word(vendor, "blocks"), "registers": vendor_word(vendor, "regs")} \
        if vendor == "amd" else {}
    return " + ".join(words.get(p, p).replace("_", " ") for p in parts)


def with_limiter_text(t: Any, vendor: str | None = None) -> Any:
    """The occupancy table with its ``limiters`` column in words (:func:`limiter_text`), for generic tables."""
    return t.assign(limiters=t["limiters"].map(lambda x: limiter_text(x, vendor))) if "limiters" in t else t


def fmt_timestamp(ns: Any) -> str:
    """A point in time [ns since the Unix epoch] as UTC date and time to the millisecond; values before 1973 are
    taken as a non-epoch clock (``clock at 12.34 s``)."""
    import datetime as _dt

    f = float(ns)
    if abs(f) < 1e17:
        return f"clock at {fmt_ns(f)}"
    d = _dt.datetime.fromtimestamp(f / 1e9, tz=_dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d} UTC"


def cuda_version(v: Any) -> str:
    """A CUDA version integer (1000 × major + 10 × minor, as ``cudaDriverGetVersion`` returns it) as ``12.9``;
    anything else as recorded."""
    if _is_num(v) and not is_missing(v) and float(v).is_integer() and 1000 <= float(v) < 100000:
        n = int(v)
        return f"{n // 1000}.{(n % 1000) // 10}"
    return fmt_unit(v, "version")


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


def rank_ranges(ranks: Any) -> str:
    """Ranks as runs of consecutive numbers: ``0–1999`` for 2,000 ranks, ``0–3, 8, 10–11`` (one line whatever the
    rank count; a list of every rank filled 110 console lines at 2,000 ranks)."""
    rs = sorted({int(r) for r in ranks})
    runs: list[str] = []
    i = 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        runs.append(str(rs[i]) if i == j else f"{rs[i]}, {rs[j]}" if j == i + 1 else f"{rs[i]}–{rs[j]}")
        i = j + 1
    return ", ".join(runs)


#: The parts of a GPU's span, in the order every reporter shows them (breakdown columns → label): they add up to the
#: span (``analyzers.breakdown``); :func:`breakdown_rest` is what a table without them all would leave unexplained.
BREAKDOWN_PARTS = (("computation_ns", "computation"), ("exposed_comm_ns", "exposed communication"),
                   ("exposed_memcpy_ns", "exposed memcpy"), ("exposed_memset_ns", "exposed memset"),
                   ("idle_ns", "idle"))


#: The label of the one-off / warm-up idle gaps when a reporter draws idle as two parts (:func:`one_off_split`).
ONE_OFF_LABEL = "idle: one-off gaps (left out of the verdict)"
#: The label of the rest of the idle beside them: the steady state's.
STEADY_IDLE_LABEL = "idle: steady state"


def one_off_split(breakdown: Any, bottlenecks: Any) -> list[dict[str, Any]] | None:
    """The breakdown table's rows, each with the ``bottlenecks`` analyzer's split of its idle time added —
    ``steady_idle_ns`` (the steady state the verdict is about) and ``idle_boundary_ns`` (the one-off / warm-up gaps
    it leaves out) — for the reporters to draw idle as those two parts, the same figures as the verdict's. None when
    no GPU has a one-off gap (idle is one part) or either analysis is missing; a GPU the bottlenecks table lacks
    keeps its idle whole (``steady_idle_ns`` = its idle, 0 one-off)."""
    if breakdown is None or getattr(breakdown, "skipped", True) or bottlenecks is None \
            or getattr(bottlenecks, "skipped", True):
        return None
    bn = bottlenecks.table
    if not len(bn) or "steady_idle_ns" not in bn or not (bn["idle_boundary_ns"].fillna(0) > 0).any():
        return None
    by = {(int(r), int(d)): (a, b) for r, d, a, b in zip(bn["rank"], bn["device_id"], bn["steady_idle_ns"],
                                                        bn["idle_boundary_ns"])}
    out = []
    for rec in breakdown.table.to_dict("records"):
        steady, one_off = by.get((int(rec["rank"]), int(rec["device_id"])), (rec.get("idle_ns"), 0))
        out.append({**rec, "steady_idle_ns": steady, "idle_boundary_ns": one_off})
    return out


#: The idle parts' keys (the whole, or its two parts): an idle figure that may be "at most" (:func:`idle_at_most`).
IDLE_KEYS = ("idle_ns", "steady_idle_ns", "idle_boundary_ns")
#: :data:`BREAKDOWN_PARTS` with idle drawn as its two parts (:func:`one_off_split`).
SPLIT_PARTS = BREAKDOWN_PARTS[:-1] + (("steady_idle_ns", STEADY_IDLE_LABEL), ("idle_boundary_ns", ONE_OFF_LABEL))


def idle_at_most(row: Mapping[str, Any]) -> str:
    """"≤ " before an idle figure (time or share) of a breakdown/bottlenecks row or summary whose idle may partly be
    the GPU's work on another clock or work recorded without a time (``idle_other_clock_ns`` or ``idle_untimed_ns``
    > 0: an upper bound, not a measured idle), else ""."""
    from gpulens.analyzers._span import idle_unmeasured_ns

    return "≤ " if idle_unmeasured_ns(row) > 0 else ""


def busy_bound_word(row: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> str:
    """``"at least "`` before the busy share of a breakdown row whose GPU may hold work recorded without a time
    (``idle_untimed_ns`` > 0) when the run's ``busy_bound`` is "at least"; ``"unknown: timed work "`` when it is
    "unknown" (such work of unknown place may lengthen the span); else ""."""
    v = row.get("idle_untimed_ns")
    if v is None or is_missing(v) or not v > 0:
        return ""
    return "at least " if (summary or {}).get("busy_bound") == "at least" else "unknown: timed work "


def idle_bound_note(summary: Mapping[str, Any] | None) -> str:
    """The breakdown summary's ``idle_bound`` sentence as every reporter appends it to its breakdown and idle
    headings (" — idle at most …"), or "" when the idle was measured."""
    why = (summary or {}).get("idle_bound")
    return f" — idle {why}" if why else ""


def breakdown_rest(row: Mapping[str, Any], span_key: str = "span_ns") -> float:
    """Span minus the :data:`BREAKDOWN_PARTS` of one breakdown row or summary [ns] (0 when they add up; a part
    missing from ``row`` counts 0; 0 when a part is unknown, ``<NA>``). Reporters show it, labelled, when it is not
    0."""
    span = row.get(span_key)
    if is_missing(span) or any(k in row and is_missing(row.get(k)) for k, _ in BREAKDOWN_PARTS):
        return 0.0  # an unknown part (overlap across clocks) holds what the known parts leave: no remainder
    return float(span) - sum(float(row.get(k) or 0) for k, _ in BREAKDOWN_PARTS if not is_missing(row.get(k)))


def device_text(devices: list[dict[str, Any]], spec: Any, idle: Any = ()) -> str:
    """The one wording of "which GPU, analysed as which hardware spec" for every reporter: the recorded device names
    and the spec the roofline and occupancy used (``"Tesla V100-SXM2-32GB (analysed as NVIDIA V100 SXM2)"``, with how
    it was identified when not by name: ``"… (analysed as NVIDIA H100 SXM: identified from compute capability 9.0
    with 132 SMs)"``), or that none was identified. ``idle``: recorded devices that ran no GPU work
    (:func:`gpulens.devices.split_by_work`): their names, when none of ``devices`` has them, are said apart
    (``"; also recorded, no GPU work on it: NVIDIA A40"``), never as a device of the run."""
    text = _device_text(devices, spec)
    used = {str(d.get("name")) for d in devices if d.get("name")}
    rest = sorted({str(d.get("name")) for d in idle or () if d.get("name")} - used)
    if rest:
        text += f"; also recorded, no GPU work on {'it' if len(rest) == 1 else 'them'}: {', '.join(rest)}"
    return text


def run_device_text(tl: Any, spec: Any) -> str:
    """:func:`device_text` of a Timeline: the devices that ran its GPU work named as the run's, the others recorded
    beside them said apart (:func:`gpulens.devices.split_by_work`)."""
    from gpulens.devices import split_by_work

    busy, idle = split_by_work(tl)
    return device_text(list(busy), spec, idle)


def _device_text(devices: list[dict[str, Any]], spec: Any) -> str:
    names = ", ".join(sorted({str(d.get("name")) for d in devices if d.get("name")}))
    if not names:  # a record without a name still tells the architecture (ROCm: gfx arch and CU count)
        from gpulens.devices.naming import arch_text

        arch = sorted({arch_text(d) or "" for d in devices} - {""})
        names = f"{', '.join(arch)} (name not recorded)" if arch else "not recorded"
    name = getattr(spec, "name", None)
    if name:  # how it was identified, when not by its recorded name ("from compute capability 9.0 with 132 SMs")
        note = str(getattr(spec, "note", "") or "")
        if is_assumed(note):  # never as if the input named it: "analysed as an assumed X — assumed from …"
            return f"{names} (analysed as an assumed {name} — {note.split(name, 1)[-1].strip()})"
        how = bool(note) and not note.startswith("identified from name")
        if not how and names.casefold() == str(name).casefold():
            return names  # the trace names the spec itself: "AMD Instinct MI300X", not "… (analysed as …MI300X)"
        return f"{names} (analysed as {name}" + (f": {note}" if how else "") + ")"
    return f"{names} (no hardware spec identified: no roofline peaks; pass --device-spec)"


def time_scale(values_ns: Any) -> tuple[float, str]:
    """(divisor, unit) for a chart axis of times in ns, from the largest magnitude drawn: s from 1 s, ms from 1 ms,
    µs from 1 µs, else ns — an axis of µs-scale kernels reads "20 µs", never "0.02 ms". Missing values are ignored;
    nothing drawn → ms."""
    import pandas as pd

    v = pd.to_numeric(pd.Series(np.asarray(values_ns, dtype=object).ravel()), errors="coerce").abs().max()
    if v != v:
        return 1e6, "ms"
    return next((d, u) for d, u in ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns")) if v >= d or d == 1.0)


def is_assumed(note: Any) -> bool:
    """Whether a device spec's note says the GPU was assumed rather than read from the input (an ncu CSV that
    records only a compute capability: :func:`gpulens.devices.identify_device`)."""
    from gpulens.devices.spec import is_assumed_note

    return is_assumed_note(note)


def spec_label(name: Any, note: Any) -> str:
    """The spec's name as every heading shows it: ``"NVIDIA H100 SXM"``, or ``"an assumed NVIDIA GeForce RTX 5090
    (the input does not name its GPU)"`` when the GPU was assumed."""
    return f"an assumed {name} (the input does not name its GPU)" if is_assumed(note) else str(name)


def launches_text(sm: Mapping[str, Any]) -> str:
    """``"2,258 launches of 194 kernels"``, ``"1 launch of 1 kernel"`` (the one wording of every reporter)."""
    n, k = int(sm.get("kernel_count") or 0), int(sm.get("unique_kernels") or 0)
    return f"{plural(n, 'launch(es)')} of {plural(k, 'kernel')}"


def kernel_time_text(sm: Mapping[str, Any]) -> str:
    """The kernels' summed and union time as every reporter words it: ``"388.34 µs summed, 388.34 µs busy
    (union)"``, with the GPU's busy time beside it where copies or memsets add to it (``" (GPU busy with copies
    and memsets: 390.00 µs)"``); ``"1.55 s summed, busy (union) unknown"`` when the input has durations but no timeline (a rocprof
    stats table); ``"durations not recorded"`` when it has no durations (a counter-only run)."""
    if is_missing(sm.get("kernel_time_ns")):
        return untimed_text(sm) or "durations not recorded"
    busy = sm.get("kernel_busy_ns")
    gpu = sm.get("gpu_busy_ns")
    # the GPU's busy time also holds copies and memsets: said beside it, so the two figures are never confused
    also = (f" (GPU busy with copies and memsets: {fmt_ns(gpu)})"
            if not is_missing(busy) and not is_missing(gpu) and gpu > busy else "")
    return (f"{fmt_ns(sm['kernel_time_ns'])} summed, "
            + ("busy (union) unknown" if is_missing(busy) else f"{fmt_ns(busy)} busy (union){also}"))


def untimed_text(sm: Mapping[str, Any]) -> str:
    """The summed kernel time when some launches have no duration (:mod:`gpulens.analyzers._unknown_time`), the one
    wording of every reporter: ``"unknown summed: 2 of 16 launches without a duration (the 14 with one: 10.39 ms)"``;
    ``""`` when every launch has a duration (or none has)."""
    n, timed = int(sm.get("untimed_launches") or 0), sm.get("timed_kernel_time_ns")
    # kernel_count holds every launch, those recorded without a time included (analyzers._unknown_time)
    m = int(sm.get("kernel_count") or 0)
    if not n or n >= m or is_missing(timed):
        return ""
    return f"unknown summed: {n:,} of {m:,} launches without a duration (the {m - n:,} with one: {fmt_ns(timed)})"


def critical_set_text(hsum: Mapping[str, Any], sm: Mapping[str, Any] | None = None) -> str:
    """The performance-critical set as every reporter words it: ``"2 kernels cover 86.2 % of kernel time"``; with
    launches without a duration (:func:`untimed_text`) ``"1 kernel; its share of kernel time is unknown (2 of 16
    launches without a duration)"``; ``"1 kernel, ranked by calls: durations not recorded"`` when no launch has one."""
    n = int(hsum.get("critical_count") or 0)
    word = plural(n, "kernel")
    if not is_missing(hsum.get("critical_share")):
        # the share's one reading, as the verdict sentence and the tables give it ("80.5 %", never "81 %" beside it)
        share = fmt_unit(hsum.get("critical_share"), "share")
        return f"{word} {agree(n, 'covers', 'cover')} {share} of kernel time"
    sm = {**hsum, **(sm or {})}
    u = int(sm.get("untimed_launches") or 0)
    m = int(sm.get("kernel_count") or 0)
    if u and u < m:
        return (f"{word}; {'its' if n == 1 else 'their'} share of kernel time is unknown ({u:,} of {m:,} launches "
                "without a duration)")
    return f"{word}, ranked by calls: durations not recorded"


def roofline_heading(summary: Mapping[str, Any]) -> str:
    """The one heading of the roofline in every report: the hardware spec it used and the FLOP coverage
    (``"Roofline on NVIDIA H100 SXM (FLOPs known for 100 % of the critical kernels' time)"``), and which compute
    roofs are documented achievable peaks (``"; matrix bf16 roof at the achievable peak, not the datasheet's"``) —
    then that the memory roof is the datasheet's, unless it was measured."""
    basis = "launches" if summary.get("coverage_basis") == "launches" else "time"
    cov = summary.get("coverage")
    known = "unknown" if is_missing(cov) else pct_words(100 * float(cov))
    dev = spec_label(summary.get("device"), summary.get("device_note")) if summary.get("device") else \
        "an unidentified GPU"
    ach = [str(k).removeprefix("achievable.").replace(".", " ") for k in summary.get("achievable_roofs") or []]
    at = f"; {', '.join(ach)} roof at the achievable peak, not the datasheet's" if ach else ""
    meas = [str(k).replace("memory_bandwidth", "memory").replace(".", " ") for k in summary.get("measured_roofs") or []]
    if ach and "memory_bandwidth" not in (summary.get("measured_roofs") or []):
        # two bases on one chart: the ridge point (compute roof / memory roof) sits left of an all-achievable one
        at += "; the memory roof is the datasheet bandwidth (no achievable figure is documented)"
    if meas:  # % of roof is then of the measured peaks; the speed of light's % of peak is of the datasheet's
        at += (f"; {', '.join(meas)} roof{'s' if len(meas) > 1 else ''} measured (rocprof-compute roofline.csv), not "
               "the datasheet's")
    return f"Roofline on {dev} (FLOPs known for {known} of the critical kernels' {basis}{at})"


def _no_gpu_work(sm: Mapping[str, Any]) -> bool:
    return not sm.get("span_ns") and not sm.get("gpu_busy_ns") and not sm.get("kernel_count")


def busy_pct_text(sm: dict[str, Any]) -> str:
    """Busy % with its basis (``"71.4 %"``, ``"80.0 % (Σ busy / Σ per-GPU span)"``); ``"unknown (not measured: …)"``
    when the input has no timeline."""
    if _no_gpu_work(sm) and not sm.get("busy_unknown_reason"):  # nothing ran on a GPU: no span to be busy in
        return "none (no GPU work recorded)"  # (0 of 0 is no percentage: the summary's busy % is None)
    if sm.get("gpu_busy_pct") is None:
        return "unknown (not measured: " + str(sm.get("busy_unknown_reason") or "no timeline") + ")"
    pct = share_pct_text(sm["gpu_busy_pct"]) + (" (Σ busy / Σ per-GPU span)" if _several_gpus(sm) else "")
    n = int(sm.get("untimed_gpu_work") or 0)
    if n and sm.get("busy_bound") == "unknown":  # work of unknown place and length: it may lengthen the span
        return (f"unknown ({plural(n, 'GPU event(s)')} recorded without a start or end; the timed work alone: {pct} of "
                "its span)")
    return ("at least " if n else "") + pct


def _several_gpus(sm: dict[str, Any]) -> bool:
    """Whether a source's run figures sum over several GPUs (ranks or devices): its busy shares are then ratios of
    sums, not of the wall span or window shown."""
    return len(sm.get("rank_span_ns") or {}) > 1 or (sm.get("device_span_ns") or 0) > (sm.get("span_ns") or 0)


def span_text(sm: dict[str, Any]) -> str:
    """The GPU span alone, as every reporter shows it: ``"3.91 ms"``; ``"none (no GPU work recorded)"``;
    ``"unknown"`` when busy time was not measured (no timeline)."""
    if _no_gpu_work(sm) and not sm.get("busy_unknown_reason"):
        return "none (no GPU work recorded)"
    return fmt_ns(sm["span_ns"]) if sm.get("gpu_busy_pct") is not None else "unknown"


def window_text(sm: dict[str, Any]) -> str:
    """``"40.00 µs: GPU busy 62.5 % of it"`` when the profiled window is longer than the GPU span, else ``""``; the
    share as every share of a whole (:func:`share_pct_text`: 1.76 µs of work in 13.34 s is "under 0.1 %", not 0.0).
    Over several GPUs the window shown is the wall window and the share Σ busy / Σ per-rank window, said so
    (``"1.24 s: GPU busy 45.7 % of the per-rank windows (Σ busy / Σ window)"``): 1.13 s of busy time over a 1.24 s
    wall window would otherwise read as 91 %."""
    if sm.get("gpu_utilization_pct") is not None and (sm.get("window_ns") or 0) > (sm.get("span_ns") or 0):
        share = share_pct_text(sm["gpu_utilization_pct"])
        if sm.get("untimed_gpu_work"):  # work recorded without a time adds busy time inside the window: at least
            share = "at least " + share
        if _several_gpus(sm):
            return f"{fmt_ns(sm['window_ns'])}: GPU busy {share} of the per-rank windows (Σ busy / Σ window)"
        return f"{fmt_ns(sm['window_ns'])}: GPU busy {share} of it"
    return ""


def busy_text(sm: dict[str, Any]) -> str:
    """The one wording of span and busy % for every reporter, from a source summary (see ``span_definition``):
    ``"35.00 µs, busy 71.4 % (profiled window 40.00 µs: GPU busy 62.5 % of it)"``; busy not measured → unknown."""
    if sm.get("gpu_busy_pct") is None or _no_gpu_work(sm):
        return busy_pct_text(sm)
    clock = " (longest rank: the ranks' clocks disagree)" if sm.get("span_basis") == "longest rank" else ""
    win = window_text(sm)
    return f"{fmt_ns(sm['span_ns'])}{clock}, busy {busy_pct_text(sm)}" + (f" (profiled window {win})" if win else "")


#: Marks for the notes beside a verdict's time at stake, in order of first use.
STAKE_MARKS = ("†", "‡", "§")


def stake_notes(rows: Any) -> dict[int, tuple[str, str]]:
    """Row position → (`` †`` mark, note) for each row of a verdicts table (DataFrame or list of dicts) whose
    ``stake_note`` is set (:func:`gpulens.analyzers.verdicts.stake_note`): one mark per distinct note, so a
    reader sees beside "at stake 3.1 ms" on a kernel of 1.2 ms why the figure exceeds its time."""
    recs = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    marks: dict[str, str] = {}
    out: dict[int, tuple[str, str]] = {}
    for i, r in enumerate(recs):
        note = r.get("stake_note") if isinstance(r, Mapping) else None
        if not isinstance(note, str) or not note:
            continue
        if note not in marks:
            marks[note] = " " + STAKE_MARKS[min(len(marks), len(STAKE_MARKS) - 1)]
        out[i] = (marks[note], note)
    return out


def world_note(sm: dict) -> str:
    """``" (2 of 128 ranks)"`` when the inputs record a world size above the ranks read (a sample of the job, source
    summary ``world_size``), else ""."""
    world, ranks = sm.get("world_size"), sm.get("ranks") or []
    return f" ({len(ranks):,} of {world:,} ranks)" if isinstance(world, int) and world > len(ranks) else ""
