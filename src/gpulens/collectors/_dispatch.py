"""From a table of AMD GPU dispatches (any rocprof generation) to a validated Timeline.

Every AMD collector reduces its input to :class:`Dispatches` — per-row arrays under the names below — and calls
:func:`build_timeline`, so units, validation and the placement of resources are decided once:

========================  ======================================================================================
array                     meaning (unit)
========================  ======================================================================================
``name``                  kernel / copy / API name as recorded
``kind``                  Timeline kind per row (default ``kernel``)
``start_ns``, ``end_ns``  begin / end timestamps (ns, exact integers; NA when not recorded)
``device_id``             HSA node id of the GPU as the tool records it (rocminfo ``Node``, rocprof ``gpu-id``,
                          rocprofiler-sdk ``node_id``); the GPU ordinal is kept in ``meta.devices[*].gpu_index``
``stream_id``             HIP queue (rocprof ``queue-id``) — the GPU's serial execution context
``grid_items_{x,y,z}``    grid size in **work-items** as every rocprof writes it (v1 ``grd`` is the flattened
                          total); converted here to workgroups: ``grid_x = ceil(grid_items_x / block_x)``,
                          unknown when ``block_x`` is
``block_{x,y,z}``         workgroup size in work-items (v1 ``wgr`` flattened total → y = z = 1)
``lds_bytes``             LDS (group segment) per workgroup (bytes) → ``smem_static_bytes``
``arch_vgpr``, ``accum_vgpr``, ``sgpr``, ``scratch_bytes`` (per work-item), ``wave_size``
========================  ======================================================================================

Resources without a Timeline column become Counters rows of their dispatch: ``arch_vgpr``, ``accum_vgpr``,
``sgpr`` (registers, unit ``""``), ``scratch_bytes`` (private segment per work-item, unit ``bytes``), ``wave_size``.
``regs_per_thread`` = arch + accum VGPRs (unified register file on gfx90a and later). Hardware counters keep the
tool's value and name their unit where the tool documents one (:data:`COUNTER_UNITS`: ``FETCH_SIZE`` and
``WRITE_SIZE`` are KiB); others have unit ``""``.

Rows that cannot be events (no timestamps, an unreadable timestamp — recorded but not an integer ns within int64,
such as ``abc``, ``1e400`` or ``2^64`` —, end before start, zero timestamp, or a zero duration produced by
timestamps written in scientific notation) go to ``rejected`` with the reason; their counters are kept in the side
table ``tables["unattached_counters"]`` (:data:`UNATTACHED_COLUMNS`) so a later join can still place them, and the
launch configuration of those that are kernels in ``tables["untimed_launches"]`` (:data:`UNTIMED_COLUMNS`, the
Timeline's units: grid in workgroups, LDS bytes), so a counter pass without timestamps still has its occupancy.
A dispatch recorded twice (every field and counter equal) counts once
(:func:`~gpulens.collectors._duplicates.drop_exact_duplicates`, with a warning).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


import numpy as np
import pandas as pd

from gpulens.collectors._duplicates import drop_exact_duplicates
from gpulens.collectors._numbers import exact_int, not_recorded
from gpulens.collectors._work_rules import NO_TIMESTAMPS, NON_WORK_REASON, is_non_work, kinds_of_kernel_names
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, REJECTED_COLUMNS, Timeline, TimelineMeta, make_table
from gpulens.units import agree, plural

#: Columns of ``tables["unattached_counters"]``: counters of dispatches that are not events.
UNATTACHED_COLUMNS = ("dispatch_seq", "name", "device_id", "metric", "value", "unit", "source", "reason")

#: Columns of ``tables["untimed_launches"]``: launch configuration of kernel dispatches that are not events (one row
#: per dispatch, ``dispatch_seq`` as in ``unattached_counters``; the event columns' meaning and units).
UNTIMED_COLUMNS = ("dispatch_seq", "name", "kind", "rank", "device_id", "grid_x", "grid_y", "grid_z", "block_x",
                   "block_y", "block_z", "regs_per_thread", "smem_static_bytes", "source", "reason")
#: Units of AMD counters whose value is not a plain count, as the tools define them. ``FETCH_SIZE`` / ``WRITE_SIZE``
#: (rocprof v1 aliases ``FetchSize`` / ``WriteSize``): "The total kilobytes fetched from / written to the video
#: memory", expression (bytes) / 1024 — ROCm/rocprofiler ``test/tool/metrics.xml`` and rocprofiler-sdk
#: ``counter_defs.yaml`` (gfx9/gfx90a/gfx942/gfx11 alike): KiB of 1,024 bytes, kept as the tool wrote them.
COUNTER_UNITS = {"FETCH_SIZE": "KiB", "WRITE_SIZE": "KiB", "FetchSize": "KiB", "WriteSize": "KiB"}


def counter_unit(metric: str) -> str:
    """The unit of AMD hardware counter ``metric`` as recorded (:data:`COUNTER_UNITS`), ``""`` when none is
    documented (counts, ratios)."""
    return COUNTER_UNITS.get(str(metric), "")


RESOURCE_METRICS = (("arch_vgpr", ""), ("accum_vgpr", ""), ("sgpr", ""), ("scratch_bytes", "bytes"),
                    ("wave_size", ""))
_PASS_THROUGH = ("device_id", "stream_id", "pid", "tid", "correlation_id", "bytes", "copy_kind")


@dataclass
class Dispatches:
    """Per-row arrays of one AMD source (see module docstring); ``pmc`` maps counter name → float array."""

    n: int
    cols: dict[str, Any] = field(default_factory=dict)
    pmc: dict[str, np.ndarray] = field(default_factory=dict)
    sci_notation_rows: int = 0
    #: per row: a start or end timestamp was recorded but could not be read as an integer ns (set by readers that
    #: parse the text themselves, e.g. :func:`gpulens.collectors._amdcsv.exact_ns`); None: no such row known
    unreadable_ts: np.ndarray | None = None
    #: counter cells that hold something other than a number (text, a list...), left out of every figure
    unreadable_counter_cells: int = 0
    unreadable_counter_example: str = ""  # the first such cell and its column, for the warning
    #: id and size cells (queue, agent, process, workgroup...) that hold something other than a number
    #: (:func:`gpulens.collectors._amdcsv.dispatches_from_rows`): unknown, counted in a warning
    unreadable_field_cells: int = 0
    unreadable_field_example: str = ""
    #: the GPU devices (``device_id`` values) the source lists, when it lists them: a GPU row that records no device
    #: goes to the only one; with none or several listed it goes to device 0 and a warning counts such rows
    gpus: list[int] | None = None
    #: per row, the agent cell as written when the file writes labels (``Agent 1``, ``GPU 0``): the index space
    #: :func:`gpulens.collectors._agent_index.resolve_agents` maps to the node id once the agents are known
    agent_text: list | None = None

    def get(self, key: str) -> pd.Series:
        """The array ``key`` as a nullable Int64 Series (all NA when absent). Text is parsed as a number; a value
        that is no whole finite number within int64 (``'x'``, ``inf``, ``1e30``, 2^64, ``7.5``) is NA."""
        v = self.cols.get(key)
        if v is None:
            return pd.Series(pd.array([pd.NA] * self.n, dtype="Int64"))
        s = v if isinstance(v, pd.Series) else pd.Series(v)
        s = s.reset_index(drop=True)
        if s.dtype == object and _whole_ints(s):  # ints only: exact (to_numeric made 2^63 − 1 a float beside 2^64)
            return pd.Series(pd.array([x if x is not None and -_I64 <= x < _I64 else None for x in s.tolist()],
                                      dtype="Int64"))
        if not pd.api.types.is_numeric_dtype(s.dtype) or s.dtype.kind in "ub":
            s = pd.to_numeric(s.astype(object), errors="coerce")
            if s.dtype == object:  # Python ints beyond int64 (to_numeric keeps them as objects)
                s = pd.Series([x if isinstance(x, int) and -_I64 <= x < _I64 else None for x in s], dtype="Int64")
        if s.dtype.kind == "f":  # a fraction is no id, size or count: unknown (7.5 was read as 8, 5e-324 as 0)
            s = s.where(np.isfinite(s) & (s.abs() < _F64_I64) & (s == np.trunc(s)))
        if s.dtype.kind == "u":
            s = s.astype("float64").where(s <= np.iinfo(np.int64).max)
        return s.astype("Int64")


_I64 = 1 << 63
#: The id columns whose values beyond int64 are counted in a warning, by the name the warning gives them.
_IDS = {"stream_id": "queue", "pid": "process", "tid": "thread", "correlation_id": "correlation"}


def _whole_ints(s: pd.Series) -> bool:
    """Whether an object Series holds Python ints (bool aside) and Nones only."""
    return all(x is None or (isinstance(x, int) and not isinstance(x, bool)) for x in s.tolist())


def _beyond_int64(values: Any, n: int) -> np.ndarray:
    """Per row of a column of ``n`` rows (or one value for all): whether it holds a number whose magnitude no
    int64 holds (a Python int beyond ±2^63, a uint64 past 2^63 − 1, a finite float of at least 9.2e18, digits of
    such a number): :meth:`Dispatches.get` reads it as NA. Text that is no number, fractions and NaN are not
    counted here (the collector's own warnings count those)."""
    if isinstance(values, (str, int, float)) or values is None:
        values = [values] * n
    s = values if isinstance(values, pd.Series) else pd.Series(values)
    if s.dtype.kind == "u":
        return (s > np.iinfo(np.int64).max).to_numpy(dtype=bool)
    if s.dtype.kind == "f":
        a = s.to_numpy(dtype="float64")
        with np.errstate(invalid="ignore"):
            return np.isfinite(a) & (np.abs(a) >= _F64_I64)
    if s.dtype.kind in "ib":
        return np.zeros(len(s), dtype=bool)

    def big(x: Any) -> bool:
        if isinstance(x, str):
            t = x.strip()
            x = int(t) if t.isascii() and t.lstrip("-").isdigit() and len(t) < 4000 else None
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            return not -_I64 <= int(x) < _I64
        return isinstance(x, (float, np.floating)) and np.isfinite(x) and abs(x) >= _F64_I64

    return np.fromiter((big(x) for x in s.tolist()), dtype=bool, count=len(s))


def _recorded(values: Any, n: int) -> np.ndarray:
    """Per row of a column of ``n`` rows (or one value for all): whether the source wrote a value there (not
    empty, NaN, None or a "no value" marker such as ``n/a``: :func:`._numbers.not_recorded`)."""
    if isinstance(values, (str, int, float)) or values is None:
        return np.full(n, not not_recorded(values), dtype=bool)
    s = values if isinstance(values, pd.Series) else pd.Series(values)
    if pd.api.types.is_numeric_dtype(s.dtype):
        return s.notna().to_numpy(dtype=bool)
    return np.fromiter((not not_recorded(x) for x in s.tolist()), dtype=bool, count=n)
_F64_I64 = 9.2e18  # the largest float64 magnitude that still converts to int64


_GPU_KINDS = ("kernel", "comm", "memcpy", "memset")
#: Columns that are sizes or counts: never negative (a negative value is unknown).
_SIZES = ("grid_items_x", "grid_items_y", "grid_items_z", "block_x", "block_y", "block_z", "lds_bytes", "arch_vgpr",
          "accum_vgpr", "sgpr", "scratch_bytes", "wave_size", "bytes")
#: Name of a row whose source gives none (the placeholder of the Kineto reader too).
UNNAMED = "(unnamed)"


def merge(parts: list[Dispatches]) -> Dispatches:
    """One Dispatches holding the rows of ``parts`` in order (kernels, copies, API calls of one file), so that
    :func:`build_timeline` assembles and validates them once instead of once per part plus a concat.

    A column a part lacks is unknown for its rows, except ``kind`` (``kernel``) and ``device_id``, which take the
    defaults :func:`build_timeline` gives a part without them (GPU kinds device 0, host rows −1); ``pmc`` counters a
    part lacks are NaN for its rows.
    """
    if len(parts) == 1:
        return parts[0]
    n = sum(p.n for p in parts)
    out = Dispatches(n=n, sci_notation_rows=sum(p.sci_notation_rows for p in parts),
                     unreadable_counter_cells=sum(p.unreadable_counter_cells for p in parts),
                     unreadable_counter_example=next((p.unreadable_counter_example for p in parts
                                                      if p.unreadable_counter_example), ""),
                     unreadable_field_cells=sum(p.unreadable_field_cells for p in parts),
                     unreadable_field_example=next((p.unreadable_field_example for p in parts
                                                    if p.unreadable_field_example), ""))
    if any(p.unreadable_ts is not None for p in parts):
        out.unreadable_ts = np.concatenate([np.zeros(p.n, bool) if p.unreadable_ts is None else
                                            np.asarray(p.unreadable_ts, bool) for p in parts])
    keys = list(dict.fromkeys(["kind", *(k for p in parts for k in p.cols)]))
    for k in keys:
        pieces = []
        for p in parts:
            v = p.cols.get(k)
            if isinstance(v, str):  # one kind for the whole part
                v = [v] * p.n
            elif v is None and k == "device_id":
                kinds = p.cols.get("kind", "kernel")
                kinds = [kinds] * p.n if isinstance(kinds, str) else list(kinds)
                v = [None if kd in _GPU_KINDS else -1 for kd in kinds]  # GPU rows: no device (build_timeline)
            elif v is None:
                v = ["kernel" if k == "kind" else None] * p.n  # build_timeline's default kind
            pieces.append(pd.Series(v, dtype=object) if not isinstance(v, pd.Series) else v.astype(object))
        out.cols[k] = pd.concat(pieces, ignore_index=True) if pieces else []
    for m in dict.fromkeys(m for p in parts for m in p.pmc):
        out.pmc[m] = np.concatenate([np.asarray(p.pmc[m], dtype="float64") if m in p.pmc else np.full(p.n, np.nan)
                                     for p in parts])
    return out


def _cat(values: Any) -> pd.Series:
    """Categorical Series (building categories from a list once is much faster than make_table's conversion)."""
    return pd.Series(pd.Categorical(list(values) if not isinstance(values, (list, np.ndarray)) else values))


def _grid_groups(items: pd.Series, block: pd.Series) -> pd.Series:
    """Grid size in workgroups, ``ceil(items / block)``, from the grid size in work-items and the workgroup size.

    Unknown (NA) where the workgroup size is unknown or not positive — the work-item count is not a workgroup
    count — except for 0 or 1 work-items, which are 0 or 1 workgroups whatever the size. Computed without
    ``items + block - 1`` (no int64 overflow near 2^63)."""
    b = block.where(block > 0)
    out = items // b + (items % b != 0).astype("Int64")
    return out.where(out.notna() | ~items.isin([0, 1]), items)


#: Reason of a row whose start or end timestamp is recorded but is no integer ns (text, NaN/inf, beyond int64).
UNREADABLE_TS = "unreadable timestamp (not a number, or beyond int64 ns)"


def timestamps(d: Dispatches, key: str) -> tuple[pd.Series, np.ndarray]:
    """Column ``key`` (``start_ns``/``end_ns``) as exact Int64 ns and the mask of rows whose value is recorded but
    unreadable (text, a list, NaN-free non-finite or non-integral beyond int64...). Text and Python ints are read
    one by one through :func:`exact_int` (never through float64: ns timestamps above 2^53 keep every digit)."""
    v = d.cols.get(key)
    if v is None:
        return d.get(key), np.zeros(d.n, dtype=bool)
    s = v.reset_index(drop=True) if isinstance(v, pd.Series) else pd.Series(list(v) if not isinstance(
        v, np.ndarray) else v, dtype=object if not isinstance(v, np.ndarray) else None)
    if pd.api.types.is_numeric_dtype(s.dtype) and s.dtype.kind not in "bO":
        out = d.get(key)
        with np.errstate(invalid="ignore"):
            bad = (s.notna() & out.isna()).to_numpy(dtype=bool)
        if s.dtype.kind == "f":  # NaN in a float column is "not recorded", not unreadable
            bad &= ~np.isnan(s.to_numpy(dtype="float64"))
        return out, bad
    vals, bad = [], np.zeros(len(s), dtype=bool)
    for i, x in enumerate(s.tolist()):
        if not_recorded(x):  # empty, NaN or a "no value" marker (n/a): not recorded
            vals.append(pd.NA)
            continue
        n = exact_int(x) if not isinstance(x, (list, dict, tuple)) else None
        if n is None:
            bad[i] = True
        vals.append(pd.NA if n is None else n)
    return pd.Series(pd.array(vals, dtype="Int64")), bad


def build_timeline(d: Dispatches, source: str, path: Path, rank: int = 0,
                   meta: TimelineMeta | None = None, tables: dict[str, pd.DataFrame] | None = None,
                   warnings: list[str] | None = None) -> Timeline:
    """Validate the rows of ``d`` and assemble events, counters, rejected rows and side tables.

    Args:
        d: the dispatches.
        source: collector name (``source`` column).
        path: input path (warnings).
        rank: rank to stamp on every row.
        meta: metadata to complete (sources/devices filled by the caller); a new one when None.
        tables: extra side tables to attach.
        warnings: notes from parsing, prepended to the Timeline's warnings.
    """
    meta = meta or TimelineMeta()
    n = d.n
    (start, bad_start), (end, bad_end) = timestamps(d, "start_ns"), timestamps(d, "end_ns")
    unreadable = bad_start | bad_end
    if d.unreadable_ts is not None:
        unreadable |= np.asarray(d.unreadable_ts, dtype=bool)
    names = pd.Series(d.cols.get("name", [None] * n), dtype=object).reset_index(drop=True)
    unnamed = (names.isna() | (names.astype(str).str.strip() == "")).to_numpy()
    if unnamed.any():  # a name the source does not give (symbol id not found...): visible, never NaN
        names[unnamed] = UNNAMED
    kinds = d.cols.get("kind", "kernel")
    kinds = pd.Series([kinds] * n if isinstance(kinds, str) else kinds, dtype=object).reset_index(drop=True)
    if n and (kinds == "kernel").any():  # collectives, blit copies/fills by name, as every collector (_work_rules)
        is_kern = (kinds == "kernel").to_numpy()
        kinds[is_kern] = kinds_of_kernel_names(names[is_kern])
    negative = 0  # sizes and counts below zero (a -1 sentinel, a sign error): unknown, counted
    unwhole = 0  # sizes and counts recorded but no whole number (7.5, inf, text): unknown, counted
    for key in _SIZES:
        if key in d.cols:
            v = d.get(key)
            unwhole += int((v.isna().to_numpy() & _recorded(d.cols[key], n)).sum())
            bad = (v < 0).fillna(False)
            if bad.any():
                negative += int(bad.sum())
                d.cols[key] = v.mask(bad)
    reason = pd.Series([None] * n, dtype=object)
    reason[unreadable] = UNREADABLE_TS
    reason[reason.isna() & (start.isna() | end.isna())] = NO_TIMESTAMPS
    ok = reason.isna()
    # a negative start, or a negative end that is no end before its start (that one is a negative duration below)
    negative_ts = (start < 0) | ((end < 0) & (end >= start))
    reason[ok & negative_ts.fillna(False)] = "negative timestamp (AMD timestamps are unsigned)"
    ok = (reason.isna() & start.notna() & end.notna()).to_numpy(dtype=bool)
    st = start.fillna(0).to_numpy(dtype="int64")
    if (st[ok] == 0).any():  # a 0 start that is a placeholder, by the Kineto reader's rule (a clock from 0 keeps it)
        from gpulens.collectors._zero_ts import zero_ts_placeholders

        with np.errstate(over="ignore"):
            du = np.where(ok, end.fillna(0).to_numpy(dtype="int64") - st, 0)
        reason[zero_ts_placeholders(st, du, ok & (du >= 0))] = "zero timestamp (never recorded)"
    reason[reason.isna() & (end < start).fillna(False)] = "negative duration (end before start)"
    with np.errstate(over="ignore"):  # end − start beyond int64 (e.g. −2^63 … 2^63−1) wraps around: not a duration
        wraps = (end.astype("float64") - start.astype("float64")).abs() >= _F64_I64
    reason[reason.isna() & wraps.fillna(False)] = "timestamps out of range (duration beyond int64)"
    if d.sci_notation_rows:
        reason[reason.isna() & (end == start).fillna(False)] = \
            "timestamps written in scientific notation lost precision (duration 0 is not real)"
    non_work = np.zeros(n, dtype=bool)
    if n:  # barrier / marker packets on a GPU queue are not work: not events, counted with the other rows
        gpu_rows = kinds.isin(_GPU_KINDS).to_numpy()
        if gpu_rows.any():
            non_work[gpu_rows] = is_non_work(names[gpu_rows])
            reason[reason.isna() & non_work] = NON_WORK_REASON
    valid = reason.isna().to_numpy()
    idx = np.flatnonzero(valid)
    nv = len(idx)

    bx, by, bz = d.get("block_x"), d.get("block_y"), d.get("block_z")
    cols: dict[str, Any] = {
        "event_id": np.arange(nv, dtype="int64"),
        "kind": _cat(kinds[valid].tolist()),
        "name": _cat(names[valid].tolist()),
        "start_ns": start[valid].astype("int64").to_numpy(),
        "dur_ns": (end - start)[valid].astype("int64").to_numpy(),
        "rank": np.full(nv, rank, dtype="int64"),
        "source": _cat([source] * nv),
    }
    # a row whose device the source does not say: a host row is the host (-1); a GPU row is the source's only GPU,
    # else device 0 with a warning that counts them (below) — never silently one GPU among several
    dev = d.get("device_id")
    # a GPU row on a negative device (agent) id: no GPU has one (-1 is the host's mark): not recorded, counted
    neg_dev = ((dev < 0).fillna(False) & kinds.isin(_GPU_KINDS)).to_numpy(dtype=bool)
    neg_example = int(dev[neg_dev].iloc[0]) if neg_dev.any() else None
    dev = dev.mask(neg_dev)
    no_dev = (dev.isna() & kinds.isin(_GPU_KINDS)).to_numpy()
    lone = d.gpus[0] if d.gpus is not None and len(set(d.gpus)) == 1 else None
    dev = dev.fillna(-1)
    dev[no_dev] = lone if lone is not None else 0
    d.cols["device_id"] = dev
    n_no_dev = int((no_dev & valid).sum())
    beyond: dict[str, int] = {}  # ids recorded as numbers beyond int64 (2^64, 1e30): unknown, counted
    for key in _PASS_THROUGH:
        if key in d.cols:
            # ids stay Int64 (a list of ints and NA made 2^63 − 1 a float, then unknown)
            cols[key] = (pd.Series(d.cols[key], dtype=object)[valid].tolist() if key == "copy_kind" else
                         (dev if key == "device_id" else d.get(key))[valid])
            if key in _IDS:
                k = int((_beyond_int64(d.cols[key], n) & valid).sum())
                if k:
                    beyond[_IDS[key]] = k
    for ax, b in (("x", bx), ("y", by), ("z", bz)):
        if f"block_{ax}" in d.cols:
            cols[f"block_{ax}"] = b[valid]
        if f"grid_items_{ax}" in d.cols:
            cols[f"grid_{ax}"] = _grid_groups(d.get(f"grid_items_{ax}"), b)[valid]
    arch, accum = d.get("arch_vgpr"), d.get("accum_vgpr")
    if "arch_vgpr" in d.cols:
        cols["regs_per_thread"] = (arch + accum.fillna(0))[valid]
    if "lds_bytes" in d.cols:
        cols["smem_static_bytes"] = d.get("lds_bytes")[valid]
    for k in list(cols):
        if isinstance(cols[k], pd.Series):
            cols[k] = cols[k].reset_index(drop=True)
    events = make_table(EVENT_COLUMNS, cols, n=nv)

    metrics = [(m, u, d.get(m).astype("float64").to_numpy(na_value=np.nan)) for m, u in RESOURCE_METRICS
               if m in d.cols]
    metrics += [(m, counter_unit(m), np.asarray(v, dtype="float64")) for m, v in d.pmc.items()]
    event_of_row = np.full(n, -1, dtype="int64")
    event_of_row[idx] = np.arange(nv)
    c_eid, c_metric, c_val, c_unit = [], [], [], []
    u_rows: list[np.ndarray] = []
    u_metric, u_val, u_unit = [], [], []
    for m, unit, vals in metrics:
        has = ~np.isnan(vals)
        sel = has & valid
        k = int(sel.sum())
        c_eid.append(event_of_row[sel])
        c_val.append(vals[sel])
        c_metric += [m] * k
        c_unit.append([unit] * k)
        lost = has & ~valid & ~non_work  # a barrier packet's resource fields describe no kernel: dropped
        if lost.any():
            u_rows.append(np.flatnonzero(lost))
            u_val.append(vals[lost])
            u_metric += [m] * int(lost.sum())
            u_unit.append([unit] * int(lost.sum()))
    nc = len(c_metric)
    counters = make_table(COUNTER_COLUMNS, {
        "event_id": np.concatenate(c_eid) if c_eid else np.zeros(0, "int64"),
        "metric": _cat(c_metric), "value": np.concatenate(c_val) if c_val else np.zeros(0),
        "unit": _cat([u for part in c_unit for u in part]), "source": _cat([source] * nc)}, n=nc)
    counters = counters.sort_values(["event_id"], kind="stable").reset_index(drop=True) if nc else counters
    events, counters, dup_note = drop_exact_duplicates(events, counters, path)

    bad = np.flatnonzero(~valid)
    nr = len(bad)
    rejected = make_table(REJECTED_COLUMNS, {
        "kind": kinds[~valid].tolist(), "name": names[~valid].tolist(),
        "start_ns": start[~valid].reset_index(drop=True), "dur_ns": (end - start)[~valid].reset_index(drop=True),
        "rank": [rank] * nr, "reason": reason[~valid].tolist(), "source": [source] * nr,
        **({"correlation_id": d.get("correlation_id")[~valid].reset_index(drop=True)}
           if "correlation_id" in d.cols else {})}, n=nr)
    tables = dict(tables or {})
    if u_rows:
        rows = np.concatenate(u_rows)
        tables["unattached_counters"] = pd.DataFrame({
            "dispatch_seq": rows, "name": names.to_numpy()[rows], "device_id": dev.to_numpy()[rows].astype("int64"),
            "metric": u_metric, "value": np.concatenate(u_val), "unit": [u for p in u_unit for u in p],
            "source": source, "reason": reason.to_numpy()[rows]})
    untimed = _untimed_launches(d, names, kinds, dev, valid, non_work, reason, rank, source)
    if untimed is not None:
        tables["untimed_launches"] = untimed
    meta.warnings = list(warnings or []) + meta.warnings
    if n_no_dev and lone is None:
        many = ("the trace does not list its GPUs" if d.gpus is None else
                f"the trace lists {len(set(d.gpus))} GPUs" if d.gpus else "the trace lists no GPU")
        meta.warnings.append(f"{path}: {plural(n_no_dev, 'GPU row(s)')} (kernels, copies) {agree(n_no_dev, 'records', 'record')} no device (agent id "
                             f"absent, empty "
                             f"or naming no listed agent): shown on device 0, which is not known to be the GPU that "
                             f"ran them ({many}); "
                             "per-GPU figures count them with device 0")
        if not any(isinstance(x, dict) and x.get("device_id") == 0 and x.get("rank", rank) == rank
                   for x in meta.devices):  # device 0 stands in for them: listed, hardware unknown (no 2nd warning)
            vendor = next((x.get("vendor") for x in meta.devices if isinstance(x, dict) and x.get("vendor")), None)
            meta.devices.append({"rank": rank, "device_id": 0, "name": None, "vendor": vendor,
                                 "stand_in": d.gpus is None or not d.gpus})  # not a record of the file's
    if neg_dev.any():
        n_neg = int((neg_dev & valid).sum())
        meta.warnings.append(f"{path}: {plural(n_neg, 'GPU row(s)')} {agree(n_neg, 'records', 'record')} a negative "
                             f"device (agent) id (e.g. {neg_example}), which no GPU has: read as not recorded")
    if negative:
        meta.warnings.append(f"{path}: {plural(negative, 'negative size or count value(s)')} (workgroup, grid, LDS, "
                             "registers, bytes) read as unknown")
    if unwhole:
        meta.warnings.append(f"{path}: {plural(unwhole, 'size or count value(s)')} (workgroup, grid, LDS, registers, "
                             f"bytes) {agree(unwhole, 'is', 'are')} no whole number (a fraction such as 7.5, inf, "
                             "text): read as unknown")
    if unnamed.any():
        meta.warnings.append(f"{path}: {plural(int(unnamed.sum()), 'row(s)')} without a name (symbol or string not "
                             f"recorded): named {UNNAMED!r}")
    if d.unreadable_counter_cells:
        meta.warnings.append(f"{path}: {plural(d.unreadable_counter_cells, 'counter value(s)')} {agree(d.unreadable_counter_cells, 'is not a number', 'are not numbers')} (e.g. "
                             f"{d.unreadable_counter_example}): read as unknown, left out of every mean and total")
    if beyond:
        k = sum(beyond.values())
        meta.warnings.append(f"{path}: {plural(k, 'id value(s)')} beyond int64 (±2^63) read as unknown: "
                             + ", ".join(f"{name} ×{v}" for name, v in sorted(beyond.items())))
    if d.unreadable_field_cells:
        k = d.unreadable_field_cells
        meta.warnings.append(f"{path}: {plural(k, 'id or size value(s)')} (queue, agent, process, thread, "
                             f"correlation, workgroup, grid, LDS, registers) {agree(k, 'is', 'are')} no number (e.g. "
                             f"{d.unreadable_field_example}): read as unknown")
    if d.sci_notation_rows:
        meta.warnings.append(f"{path}: {plural(d.sci_notation_rows, 'row(s)')} {agree(d.sci_notation_rows, 'has', 'have')} timestamps in scientific notation "
                             "(e.g. 8.1097E+14): ns precision is lost; zero durations are rejected, not reported")
    if dup_note:
        meta.warnings.append(dup_note)
    if nr:
        by = pd.Series(reason[~valid]).value_counts()
        meta.warnings.append(f"{path}: {plural(nr, 'row(s)')} {agree(nr, 'is', 'are')} not events: "
                             f"" + ", ".join(f"{k} ×{v}" for k, v in by.items())
                             + (f"; their {plural(sum(len(r) for r in u_rows), 'counter value(s)')} {agree(sum(len(r) for r in u_rows), 'is', 'are')} kept as "
                                "per-kernel counters (the kernel counters table)" if u_rows else ""))
    return Timeline(events, counters, rejected, meta, tables).validate()


def _untimed_launches(d: Dispatches, names: pd.Series, kinds: pd.Series, dev: pd.Series,
                      valid: np.ndarray, non_work: np.ndarray, reason: pd.Series, rank: int,
                      source: str) -> pd.DataFrame | None:
    """``tables["untimed_launches"]`` (:data:`UNTIMED_COLUMNS`): the launch configuration of the kernel rows that
    are not events (no timestamps…), in the event columns' units; None when there is none or the source records no
    configuration."""
    rows = np.flatnonzero(~valid & ~non_work & kinds.isin(["kernel", "comm"]).to_numpy())
    keys = ("grid_items_x", "block_x", "lds_bytes", "arch_vgpr")
    if not len(rows) or not any(k in d.cols for k in keys):
        return None
    out: dict[str, Any] = {"dispatch_seq": rows, "name": names.to_numpy()[rows], "kind": kinds.to_numpy()[rows],
                           "rank": np.full(len(rows), rank, dtype="int64"),
                           "device_id": dev.to_numpy()[rows].astype("int64")}
    b = {ax: d.get(f"block_{ax}") for ax in "xyz"}
    for ax in "xyz":
        out[f"grid_{ax}"] = _grid_groups(d.get(f"grid_items_{ax}"), b[ax]).to_numpy()[rows] \
            if f"grid_items_{ax}" in d.cols else pd.array([pd.NA] * len(rows), dtype="Int64")
        out[f"block_{ax}"] = b[ax].to_numpy()[rows]
    arch, accum = d.get("arch_vgpr"), d.get("accum_vgpr")
    out["regs_per_thread"] = (arch + accum.fillna(0)).to_numpy()[rows]
    out["smem_static_bytes"] = d.get("lds_bytes").to_numpy()[rows]
    out["source"] = source
    out["reason"] = reason.to_numpy()[rows]
    t = pd.DataFrame(out)
    for c in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "regs_per_thread", "smem_static_bytes"):
        t[c] = pd.array(t[c], dtype="Int64")
    return t[list(UNTIMED_COLUMNS)]
