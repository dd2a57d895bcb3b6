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

from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.collectors._dispatch_rows import (_F64_I64, _GPU_KINDS, _IDS, _SIZES, UNNAMED, UNREADABLE_TS,  # noqa: F401
                                               Dispatches, _beyond_int64, _cat, _grid_groups, _recorded, join_files,
                                               merge, timestamps)
from gpulens.collectors._assemble import move_rank
from gpulens.collectors._dispatch_notes import file_notes
from gpulens.collectors._duplicates import drop_exact_duplicates, duplicates_note, exact_duplicate_ids
from gpulens.collectors._work_rules import NO_END, NO_TIMESTAMPS, NON_WORK_REASON, is_non_work, kinds_of_kernel_names
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, REJECTED_COLUMNS, Timeline, TimelineMeta, make_table

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


#: Collectors that build NVIDIA rows through :func:`build_timeline` (the rest are AMD's).
_NVIDIA_SOURCES = ("nsys", "ncu", "nvprof")


def negative_ts_reason(source: str) -> str:
    """The rejection reason of a row with a negative timestamp, naming the clock of ``source`` (a collector name):
    CUPTI's activity records (``start``/``end``, uint64 ns) for NVIDIA tools, the HSA/rocprofiler timestamps
    (uint64 ns) for AMD's — both unsigned, so a negative one is a sentinel or a sign error, never a time."""
    if str(source).startswith(_NVIDIA_SOURCES):
        return "negative timestamp (NVIDIA CUPTI timestamps are unsigned)"
    return "negative timestamp (AMD timestamps are unsigned)"


def counter_unit(metric: str) -> str:
    """The unit of AMD hardware counter ``metric`` as recorded (:data:`COUNTER_UNITS`), ``""`` when none is
    documented (counts, ratios)."""
    return COUNTER_UNITS.get(str(metric), "")


RESOURCE_METRICS = (("arch_vgpr", ""), ("accum_vgpr", ""), ("sgpr", ""), ("scratch_bytes", "bytes"),
                    ("wave_size", ""))
_PASS_THROUGH = ("device_id", "stream_id", "pid", "tid", "correlation_id", "bytes", "copy_kind")



@dataclass
class FileRows:
    """One file's dispatches and the arguments :func:`build_timeline` takes for them (see there); ``relabel``: the
    rank a folder of per-process files gives this file's events and rejected rows once read
    (:func:`gpulens.collectors._ranks.relabel_rank`: its side tables' rows go with them; its device notes keep
    ``rank``)."""

    d: Dispatches
    source: str
    path: Path
    rank: int = 0
    meta: TimelineMeta | None = None
    tables: dict[str, pd.DataFrame] | None = None
    warnings: list[str] | None = None
    relabel: int | None = None


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
    events, counters, rejected, metas, tables_of = _build([FileRows(d, source, path, rank, meta, tables, warnings)], d)
    return Timeline(events, counters, rejected, metas[0], tables_of[0]).validate()


def build_timelines(files: list[FileRows]) -> Timeline:
    """``concat([build_timeline(f.d, f.source, f.path, ...) for f in files])`` — the same rows, ids, categories,
    metadata, per-file warnings and side tables — with the rows of all files checked and the tables built once
    (:func:`joined_build`) when that gives the same Timeline, else file by file. The files' Dispatches and
    arguments are left as they are."""
    from gpulens.timeline.timeline import concat

    tl = joined_build(files) if len(files) > 1 else None
    if tl is not None:
        return tl
    out = []
    for f in files:
        d = replace(f.d, cols=dict(f.d.cols))  # build_timeline writes its readings into the columns it is given
        tl = build_timeline(d, f.source, f.path, f.rank, f.meta, f.tables, f.warnings)
        if f.relabel is not None:
            move_rank(tl, f.relabel)
        out.append(tl)
    return concat(out)


def joined_build(files: list[FileRows]) -> Timeline | None:
    """The Timeline of ``files`` built once: every per-row rule over all their rows, the tables built and validated
    once — a folder of 1,000 small per-process CSVs paid ~45 ms of pandas per file for three tables built,
    validated and copied again by the join (issue 16). Equal to the join of the files built one by one, or None
    when that cannot be promised: columns that cannot be joined exactly
    (:func:`~gpulens.collectors._dispatch_rows.join_files`), files given metadata or side tables, rows on which the
    Timeline's own checks (:meth:`Timeline.validate`: impossible counters, launch configurations, day-long events)
    warn — each file's build would say so in its own words. Changes neither the files' Dispatches nor their
    arguments."""
    from gpulens.timeline.timeline import join_meta

    if not all(f.meta is None and not f.tables for f in files):
        return None
    d = join_files([f.d for f in files])
    if d is None:
        return None
    events, counters, rejected, metas, tables_of = _build(files, d)
    meta, tables = join_meta([SimpleNamespace(meta=m, tables=t) for m, t in zip(metas, tables_of)], [0] * len(files))
    n_warn, n_co = len(meta.warnings), len(counters)
    n_un = len(tables.get("unattached_counters", ()))
    tl = Timeline(events, counters, rejected, meta, tables).validate()
    same = (len(tl.meta.warnings), len(tl.counters), len(tl.tables.get("unattached_counters", ()))) == \
        (n_warn, n_co, n_un)
    return tl if same else None


def _build(files: list[FileRows], d: Dispatches) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame,
                                                           list[TimelineMeta], list[dict[str, pd.DataFrame]]]:
    """Events, counters and rejected rows of ``d`` — the rows of ``files`` in order, joined — and per file its
    metadata (warnings counted over its own rows) and side tables. Each file's rows are checked as
    :func:`build_timeline` checks one file's: every per-row rule runs once on all rows, the rules that look at a
    whole file (zero-timestamp placeholders, exact duplicates, scientific notation, the lone GPU) per file."""
    nf = len(files)
    n = d.n
    starts = np.cumsum([0] + [f.d.n for f in files])
    fo = np.repeat(np.arange(nf), np.diff(starts))  # the file of each row

    def per_file(mask: Any) -> np.ndarray:
        return np.bincount(fo[np.asarray(mask, dtype=bool)], minlength=nf)

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
    negative = np.zeros(nf, dtype=np.int64)  # sizes and counts below zero (a -1 sentinel, a sign error): unknown
    unwhole = np.zeros(nf, dtype=np.int64)  # sizes and counts recorded but no whole number (7.5, inf, text)
    for key in _SIZES:
        if key in d.cols:
            v = d.get(key)
            unwhole += per_file(v.isna().to_numpy() & _recorded(d.cols[key], n))
            bad = (v < 0).fillna(False)
            if bad.any():
                negative += per_file(bad.to_numpy())
                d.cols[key] = v.mask(bad)
    reason = pd.Series([None] * n, dtype=object)
    reason[unreadable] = UNREADABLE_TS
    reason[reason.isna() & start.isna()] = NO_TIMESTAMPS
    reason[reason.isna() & end.isna()] = NO_END  # a start and no end: ran, its length unknown (an untimed launch)
    ok = reason.isna()
    # a negative start, or a negative end that is no end before its start (that one is a negative duration below)
    negative_ts = (start < 0) | ((end < 0) & (end >= start))
    neg = (ok & negative_ts.fillna(False)).to_numpy(dtype=bool)
    if neg.any():  # the vendor whose clock the file's rows come from: an nsys CSV is no AMD input
        said = np.array([negative_ts_reason(f.source) for f in files], dtype=object)
        reason[neg] = said[fo[neg]]
    ok = (reason.isna() & start.notna() & end.notna()).to_numpy(dtype=bool)
    st = start.fillna(0).to_numpy(dtype="int64")
    if (st[ok] == 0).any():  # a 0 start that is a placeholder, by the Kineto reader's rule (a clock from 0 keeps it)
        from gpulens.collectors._zero_ts import zero_ts_placeholders

        with np.errstate(over="ignore"):
            du = np.where(ok, end.fillna(0).to_numpy(dtype="int64") - st, 0)
        zero = np.zeros(n, dtype=bool)
        for i in np.unique(fo[ok & (st == 0)]):  # the rule reads one file's other events
            a, b = starts[i], starts[i + 1]
            zero[a:b] = zero_ts_placeholders(st[a:b], du[a:b], ok[a:b] & (du[a:b] >= 0))
        reason[zero] = "zero timestamp (never recorded)"
    reason[reason.isna() & (end < start).fillna(False)] = "negative duration (end before start)"
    with np.errstate(over="ignore"):  # end − start beyond int64 (e.g. −2^63 … 2^63−1) wraps around: not a duration
        wraps = (end.astype("float64") - start.astype("float64")).abs() >= _F64_I64
    reason[reason.isna() & wraps.fillna(False)] = "timestamps out of range (duration beyond int64)"
    sci = np.array([f.d.sci_notation_rows for f in files]) > 0
    if sci.any():
        reason[reason.isna() & (end == start).fillna(False) & sci[fo]] = \
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
    rank_of = np.array([f.rank if f.relabel is None else f.relabel for f in files], dtype="int64")
    source_of = np.array([f.source for f in files], dtype=object)

    bx, by, bz = d.get("block_x"), d.get("block_y"), d.get("block_z")
    cols: dict[str, Any] = {
        "event_id": np.arange(nv, dtype="int64"),
        "kind": _cat(kinds[valid].tolist()),
        "name": _cat(names[valid].tolist()),
        "start_ns": start[valid].astype("int64").to_numpy(),
        "dur_ns": (end - start)[valid].astype("int64").to_numpy(),
        "rank": rank_of[fo[valid]],
        "source": _cat(source_of[fo[valid]].tolist()),
    }
    # a row whose device the source does not say: a host row is the host (-1); a GPU row is the source's only GPU,
    # else device 0 with a warning that counts them (below) — never silently one GPU among several
    dev = d.get("device_id")
    # a GPU row on a negative device (agent) id: no GPU has one (-1 is the host's mark): not recorded, counted
    neg_dev = ((dev < 0).fillna(False) & kinds.isin(_GPU_KINDS)).to_numpy(dtype=bool)
    neg_example = {int(fo[i]): int(dev.iloc[i]) for i in np.flatnonzero(neg_dev)[::-1]}  # the first of each file
    dev = dev.mask(neg_dev)
    no_dev = (dev.isna() & kinds.isin(_GPU_KINDS)).to_numpy()
    lone = [f.d.gpus[0] if f.d.gpus is not None and len(set(f.d.gpus)) == 1 else None for f in files]
    dev = dev.fillna(-1)
    if no_dev.any():
        dev[no_dev] = np.array([0 if g is None else g for g in lone], dtype="int64")[fo[no_dev]]
    d.cols["device_id"] = dev
    n_no_dev = per_file(no_dev & valid)
    beyond: list[dict[str, int]] = [{} for _ in files]  # ids recorded as numbers beyond int64 (2^64, 1e30): counted
    for key in _PASS_THROUGH:
        if key in d.cols:
            # ids stay Int64 (a list of ints and NA made 2^63 − 1 a float, then unknown)
            cols[key] = (pd.Series(d.cols[key], dtype=object)[valid].tolist() if key == "copy_kind" else
                         (dev if key == "device_id" else d.get(key))[valid])
            if key in _IDS:
                for i, k in enumerate(per_file(_beyond_int64(d.cols[key], n) & valid)):
                    if k:
                        beyond[i][_IDS[key]] = int(k)
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
        "unit": _cat([u for part in c_unit for u in part]),
        "source": _cat(source_of[fo[idx]][np.concatenate(c_eid)].tolist() if nc else [])}, n=nc)
    counters = counters.sort_values(["event_id"], kind="stable").reset_index(drop=True) if nc else counters
    norm_order = _joined_norm_order(events["name"], fo[idx]) if nf > 1 else None
    events, counters, dup_notes = _drop_duplicates(events, counters, files, fo[idx])
    if norm_order is not None and list(events["name_norm"].cat.categories) != norm_order:
        events["name_norm"] = events["name_norm"].cat.reorder_categories(pd.Index(norm_order, dtype="str"))

    bad = np.flatnonzero(~valid)
    nr = len(bad)
    rejected = make_table(REJECTED_COLUMNS, {
        "kind": kinds[~valid].tolist(), "name": names[~valid].tolist(),
        "start_ns": start[~valid].reset_index(drop=True), "dur_ns": (end - start)[~valid].reset_index(drop=True),
        "rank": rank_of[fo[bad]].tolist(), "reason": reason[~valid].tolist(), "source": source_of[fo[bad]].tolist(),
        "device_id": pd.array(dev[~valid].where(dev[~valid] >= 0).to_numpy(), dtype="Int64"),
        **({"correlation_id": d.get("correlation_id")[~valid].reset_index(drop=True)}
           if "correlation_id" in d.cols else {})}, n=nr)
    tables_of = [dict(f.tables or {}) for f in files]
    n_kept = np.zeros(nf, dtype=np.int64)  # counter values of rows that are not events, kept per file
    n_res = np.zeros(nf, dtype=np.int64)  # of those, launch resources (registers, scratch…): no hardware counter
    if u_rows:
        rows, vals = np.concatenate(u_rows), np.concatenate(u_val)
        units = [u for p in u_unit for u in p]
        n_kept = np.bincount(fo[rows], minlength=nf)
        res_names = {m for m, _ in RESOURCE_METRICS}
        n_res = np.bincount(fo[rows][np.fromiter((m in res_names for m in u_metric), bool, len(u_metric))],
                            minlength=nf)
        for i in np.flatnonzero(n_kept):  # each file's table as it has it alone (metric by metric, its rows)
            at = np.flatnonzero(fo[rows] == i) if nf > 1 else np.arange(len(rows))
            r = rows[at]
            tables_of[i]["unattached_counters"] = pd.DataFrame({
                "dispatch_seq": r - starts[i], "name": names.to_numpy()[r],
                "device_id": dev.to_numpy()[r].astype("int64"), "metric": [u_metric[j] for j in at],
                "value": vals[at], "unit": [units[j] for j in at], "source": files[i].source,
                "reason": reason.to_numpy()[r]})
    for i, t in _untimed_launches(d, names, kinds, dev, valid, non_work, reason, files, fo, starts):
        tables_of[i]["untimed_launches"] = t
    unlisted = _unlisted_gpus(files, starts, dev.to_numpy(dtype="int64"),
                              valid & kinds.isin(_GPU_KINDS).to_numpy(dtype=bool) & ~no_dev)
    metas = []
    for i, f in enumerate(files):
        meta = f.meta or TimelineMeta()
        meta.warnings = list(f.warnings or []) + meta.warnings
        a, b = starts[i], starts[i + 1]
        file_reasons = reason[a:b][~valid[a:b]] if (~valid[a:b]).any() else None
        file_notes(meta, f.d, f.path, f.rank, lone=lone[i], n_no_dev=int(n_no_dev[i]),
                   n_neg_dev=int((neg_dev[a:b] & valid[a:b]).sum()) if neg_example.get(i) is not None else 0,
                   neg_example=neg_example.get(i), negative=int(negative[i]), unwhole=int(unwhole[i]),
                   unnamed=int(unnamed[a:b].sum()), beyond=beyond[i], dup_note=dup_notes[i],
                   reasons=file_reasons, kept=int(n_kept[i]), unlisted=unlisted[i],
                   kept_resources=int(n_res[i]))
        metas.append(meta)
    return events, counters, rejected, metas, tables_of


def _unlisted_gpus(files: list[FileRows], starts: np.ndarray, dev: np.ndarray, gpu_rows: np.ndarray
                   ) -> list[dict[int, int]]:
    """Per file whose agent list was read (``d.gpus`` not None), the devices (HSA node ids) its GPU rows ran on
    that the list does not hold as a GPU → how many rows: an ``agent_info.csv`` listing only the CPU agent left the
    GPU of every kernel without a name, and nothing said why."""
    out: list[dict[int, int]] = [{} for _ in files]
    for i, f in enumerate(files):
        if f.d.gpus is None:
            continue
        a, b = starts[i], starts[i + 1]
        ids = dev[a:b][gpu_rows[a:b]]
        ids = ids[~np.isin(ids, np.asarray(list(f.d.gpus), dtype="int64"))]
        if len(ids):
            vals, counts = np.unique(ids, return_counts=True)
            out[i] = dict(zip(vals.tolist(), counts.tolist()))
    return out


def _joined_norm_order(names: pd.Series, file_of_event: np.ndarray) -> list[str] | None:
    """The ``name_norm`` categories the join of the files' own tables holds (``pd.concat``, then
    ``_as_category``): each file's are its distinct normalised names (:func:`~gpulens.timeline.names.
    normalized_names` of its sorted names); the first file's order when every file with events has the same set,
    else the sorted union. None when there are no names."""
    from gpulens.timeline.names import normalize_kernel_name

    cats = names.cat.categories
    if not len(cats):
        return None
    codes = names.cat.codes.to_numpy().astype(np.int64)
    pairs = np.unique(file_of_event.astype(np.int64) * len(cats) + codes)
    _, first = np.unique(pairs // len(cats), return_index=True)
    normed = [normalize_kernel_name(c) for c in cats]
    orders = [list(dict.fromkeys(normed[c] for c in part % len(cats))) for part in np.split(pairs, first[1:])]
    if all(set(o) == set(orders[0]) for o in orders[1:]):
        return orders[0]
    return sorted({x for o in orders for x in o})


def _drop_duplicates(events: pd.DataFrame, counters: pd.DataFrame, files: list[FileRows], file_of_event: np.ndarray
                     ) -> tuple[pd.DataFrame, pd.DataFrame, list[str | None]]:
    """:func:`~gpulens.collectors._duplicates.drop_exact_duplicates` of each file's events (two files may hold the
    same kernel: only a copy within one file is a capture artefact), the events renumbered ``0..n-1`` as the join
    of the files' Timelines numbers them; the warning of each file (None when it dropped none)."""
    if len(files) == 1:
        events, counters, note = drop_exact_duplicates(events, counters, files[0].path)
        return events, counters, [note]
    notes: list[str | None] = [None] * len(files)
    if not len(events):
        return events, counters, notes
    # the cheap first pass of drop_exact_duplicates (times alone), within each file
    cand = pd.DataFrame({"f": file_of_event, "s": events["start_ns"].to_numpy(),
                         "d": events["dur_ns"].to_numpy()}).duplicated(keep=False).to_numpy()
    if not cand.any():
        return events, counters, notes
    gone = []
    for i in np.unique(file_of_event[cand]):
        rows = np.flatnonzero(file_of_event == i)
        sub = events.iloc[int(rows[0]):int(rows[-1]) + 1]
        ids, names = exact_duplicate_ids(sub, counters)
        if len(ids):
            gone.append(ids)
            notes[i] = duplicates_note(files[i].path, len(ids), names)
    if not gone:
        return events, counters, notes
    keep = ~np.isin(events["event_id"].to_numpy(), np.concatenate(gone))
    cid = counters["event_id"].to_numpy()
    new_of = np.full(len(events), -1, dtype="int64")
    new_of[keep] = np.arange(int(keep.sum()))
    events = events[keep].reset_index(drop=True)
    events["event_id"] = np.arange(len(events), dtype="int64")
    counters = counters[keep[cid]].reset_index(drop=True)
    counters["event_id"] = new_of[counters["event_id"].to_numpy()]
    return events, counters, notes


def _untimed_launches(d: Dispatches, names: pd.Series, kinds: pd.Series, dev: pd.Series, valid: np.ndarray,
                      non_work: np.ndarray, reason: pd.Series, files: list[FileRows], fo: np.ndarray,
                      starts: np.ndarray) -> list[tuple[int, pd.DataFrame]]:
    """Per file (its position in ``files``), ``tables["untimed_launches"]`` (:data:`UNTIMED_COLUMNS`): the launch
    configuration of its kernel rows that are not events (no timestamps…), in the event columns' units,
    ``dispatch_seq`` counted within the file; only files with such rows whose source records a configuration."""
    keys = ("grid_items_x", "block_x", "lds_bytes", "arch_vgpr")
    recorded = np.array([any(k in f.d.cols for k in keys) for f in files])
    every = np.flatnonzero(~valid & ~non_work & kinds.isin(["kernel", "comm"]).to_numpy())
    every = every[recorded[fo[every]]]
    if not len(every):
        return []
    b = {ax: d.get(f"block_{ax}") for ax in "xyz"}
    grid = {ax: _grid_groups(d.get(f"grid_items_{ax}"), b[ax]).to_numpy() if f"grid_items_{ax}" in d.cols else None
            for ax in "xyz"}
    arch, accum = d.get("arch_vgpr"), d.get("accum_vgpr")
    regs, lds = (arch + accum.fillna(0)).to_numpy(), d.get("lds_bytes").to_numpy()
    out = []
    for i in np.unique(fo[every]):
        rows = every[fo[every] == i]
        rank = files[i].rank if files[i].relabel is None else files[i].relabel  # a renumbered process's rank
        t: dict[str, Any] = {"dispatch_seq": rows - starts[i], "name": names.to_numpy()[rows],
                             "kind": kinds.to_numpy()[rows], "rank": np.full(len(rows), rank, dtype="int64"),
                             "device_id": dev.to_numpy()[rows].astype("int64")}
        for ax in "xyz":
            t[f"grid_{ax}"] = grid[ax][rows] if grid[ax] is not None and f"grid_items_{ax}" in files[i].d.cols \
                else all_missing(len(rows))
            t[f"block_{ax}"] = b[ax].to_numpy()[rows]
        t["regs_per_thread"] = regs[rows]
        t["smem_static_bytes"] = lds[rows]
        t["source"] = files[i].source
        t["reason"] = reason.to_numpy()[rows]
        table = pd.DataFrame(t)
        for c in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "regs_per_thread",
                  "smem_static_bytes"):
            table[c] = pd.array(table[c], dtype="Int64")
        out.append((int(i), table[list(UNTIMED_COLUMNS)]))
    return out
