"""Map any rocprof dispatch CSV (v1 ``results.csv`` and counter CSVs, rocprofv2, rocprofv3 ``kernel_trace.csv``,
rocprofiler-compute ``pmc_perf.csv`` / ``timestamps.csv``) to :class:`~gpulens.collectors._dispatch.Dispatches`
by column **name** (case-insensitive aliases below), never by position.

Required: a kernel-name column. Optional: everything else (missing → NA). Every other numeric column that is not
a known bookkeeping column is a hardware counter (rocprof ``pmc:`` columns such as ``GPUBusy``, ``SQ_WAVES``,
``TCC_HIT_sum``). rocprofiler-compute quirks: ``wave_size_1``/``Correlation_ID_5``-style repeats of bookkeeping
columns are dropped; per-instance columns ``TCC_HIT[3]`` are summed into ``TCC_HIT_sum`` when the file has no
``_sum`` column for them (a ``_sum`` written by the tool is kept as is: it can come from another pass).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._numbers import exact_int, id_of_text, not_recorded

from gpulens.collectors._agent_index import agent_texts
from gpulens.collectors._dur_check import span_disagreement
from gpulens.collectors._dispatch import _SIZES, Dispatches
from gpulens.errors import TraceFormatError

ALIASES: dict[str, tuple[str, ...]] = {
    "name": ("kernelname", "kernel_name", "name"),
    "device_id": ("gpu-id", "gpu_id", "agent_id", "dev-id"),
    "stream_id": ("queue-id", "queue_id"),
    "hip_stream": ("stream_id", "stream-id"),
    "pid": ("pid", "process_id"),
    "tid": ("tid", "thread_id"),
    "correlation_id": ("correlation_id",),
    "dispatch_id": ("index", "dispatch_id"),
    "grid_items_x": ("grd", "grid_size", "grid_size_x"),
    "grid_items_y": ("grid_size_y",),
    "grid_items_z": ("grid_size_z",),
    "block_x": ("wgr", "workgroup_size", "workgroup_size_x"),
    "block_y": ("workgroup_size_y",),
    "block_z": ("workgroup_size_z",),
    "lds_bytes": ("lds", "lds_per_workgroup", "lds_block_size", "group_segment_size"),
    "scratch_bytes": ("scr", "scratch_per_workitem", "scratch_size", "private_segment_size"),
    "arch_vgpr": ("arch_vgpr", "vgpr_count", "vgpr"),
    "accum_vgpr": ("accum_vgpr", "accum_vgpr_count"),
    "sgpr": ("sgpr", "sgpr_count"),
    "wave_size": ("wave_size",),
    "start_ns": ("beginns", "start_timestamp"),
    "end_ns": ("endns", "end_timestamp"),
}
#: Bookkeeping columns that are neither mapped nor counters.
IGNORED = {"queue-index", "queue_index", "sig", "obj", "dispatchns", "completens", "durationns", "kind",
           "kernel_id", "xcc_index", "direction", "data", "roctx-range", "__section", "__lane", "args"}
NAME_COLUMNS = ALIASES["name"]
_REPEAT = re.compile(r"^(.*)_([0-9]+)$")
_INSTANCE = re.compile(r"^(.*)\[([0-9]+)\]$")


def exact_ns(values: list) -> tuple[pd.Series, int, np.ndarray]:
    """Timestamps as exact Int64 ns (integers parsed as integers, not through float64).

    Returns:
        (series, sci, unreadable): ``sci`` counts fields written in scientific notation (``8.1097E+14``): their ns
        digits are lost, which the caller must report; ``unreadable`` marks the fields that hold something (not
        empty, nor a "no value" marker such as rocprof v1's ``n/a``: :func:`._numbers.not_recorded`) that is no
        integer ns within int64 (``abc``, ``nan``, ``1e400``, ``2^64``): NA, never "not recorded".
    """
    out, sci = [], 0
    bad = np.zeros(len(values), dtype=bool)
    for i, v in enumerate(values):
        if not_recorded(v):  # empty, NaN, or a "no value" marker (rocprof v1 writes n/a): not recorded
            out.append(pd.NA)
            continue
        s = str(v).strip()
        n = exact_int(s)  # exact, int64-bounded; None for text, inf/nan, huge exponents
        out.append(pd.NA if n is None else n)
        bad[i] = n is None
        sci += n is not None and "e" in s.lower()
    return pd.Series(pd.array(out, dtype="Int64")), sci, bad


def agent_number(values: pd.Series) -> pd.Series:
    """rocprofv3 ``Agent_Id`` may read ``1`` or ``Agent 1`` / ``GPU 0``: the field as a number when it is one, else
    the last integer in it (:func:`._numbers.id_of_text`: ``1e3`` is agent 1000, not 3)."""
    if values.dtype != object:
        return values
    return pd.Series([id_of_text(v) if isinstance(v, str) else v for v in values.tolist()], dtype=object,
                     index=values.index)


def dispatches_from_rows(path: Path, header: list[str], rows: list[list], kind: str = "kernel",
                         require_name: bool = True) -> Dispatches:
    """Map rows (as read by :func:`gpulens.collectors._csvrows.read_rows`) to Dispatches.

    Raises:
        TraceFormatError: no kernel-name column (when ``require_name``).
    """
    lower = [h.lower() for h in header]
    df = pd.DataFrame(rows, columns=[f"c{i}" for i in range(len(header))], dtype=object)
    col_of: dict[str, int] = {}
    for key, names in ALIASES.items():
        for nm in names:
            if nm in lower:
                col_of[key] = lower.index(nm)
                break
    if "name" not in col_of and require_name:
        raise TraceFormatError(path, "missing required column 'KernelName'/'Kernel_Name' (kernel name); columns: "
                               + ", ".join(header[:12]) + ("…" if len(header) > 12 else ""))
    d = Dispatches(n=len(df))
    d.cols["kind"] = kind
    for key, i in col_of.items():
        s = df[f"c{i}"]
        if key == "name":  # rocprof v1 results.db stores names with their CSV quotes: "\"foo.kd\""
            d.cols["name"] = [v[1:-1] if isinstance(v, str) and len(v) > 1 and v[0] == v[-1] == '"' else v
                              for v in s.tolist()]
        elif key in ("start_ns", "end_ns"):
            d.cols[key], sci, bad = exact_ns(s.tolist())
            d.sci_notation_rows = max(d.sci_notation_rows, sci)
            d.unreadable_ts = bad if d.unreadable_ts is None else d.unreadable_ts | bad
        elif key == "hip_stream":
            continue
        else:
            d.cols[key] = pd.to_numeric(agent_number(s) if key == "device_id" else s, errors="coerce")
            if key == "device_id":
                d.agent_text = agent_texts(s)
            _count_unreadable_fields(d, header[i], s, d.cols[key], whole=key not in _SIZES)
    if "block_x" in d.cols and "block_y" not in d.cols and lower[col_of["block_x"]] in ("wgr", "workgroup_size"):
        d.cols["block_y"] = d.cols["block_z"] = [1] * d.n  # flattened totals
        if "grid_items_x" in d.cols:
            d.cols["grid_items_y"] = d.cols["grid_items_z"] = [1] * d.n
    mapped = set(col_of.values())
    _add_counters(d, df, header, lower, mapped)
    if "durationns" in lower and "start_ns" in col_of and "end_ns" in col_of:  # rocprof v1: End − Begin, exactly
        at = lower.index("durationns")
        note = span_disagreement(path, d.cols["start_ns"], d.cols["end_ns"], exact_ns(df[f"c{at}"].tolist())[0],
                                 header[at], f"{header[col_of['end_ns']]} − {header[col_of['start_ns']]}")
        if note:
            d.notes.append(note)
    return d


def _count_unreadable_fields(d: Dispatches, column: str, raw: pd.Series, parsed: pd.Series, whole: bool) -> None:
    """Count, on ``d``, the cells of an id or size column (``queue-id``, ``Agent_Id``, ``pid``, ``grd`` ...) that
    hold a value (not empty, not a "no value" marker such as ``n/a``) which is no number — text, digits of another
    script (``"٣"``, full-width ``"３"``: ``int`` reads them, pandas and every profiler do not) — or, for an id
    (``whole``), a fraction: each is unknown (the row's queue, agent or process not known), and the user is told
    how many. A size or count (``_dispatch._SIZES``) that is a number but no whole one is counted by
    :func:`gpulens.collectors._dispatch.build_timeline` ("no whole number"), not here."""
    vals = parsed.to_numpy(dtype="float64", na_value=np.nan)
    bad = np.isnan(vals)
    if whole:
        with np.errstate(invalid="ignore"):
            bad |= ~np.isnan(vals) & (vals != np.trunc(vals))
    if not bad.any():
        return
    texts = raw.to_numpy(dtype=object)[bad]
    hits = [t for t in texts if not not_recorded(t)]
    if hits:
        d.unreadable_field_cells += len(hits)
        if not d.unreadable_field_example:
            d.unreadable_field_example = f"{str(hits[0]).strip()[:40]!r} in {column}"


def _add_counters(d: Dispatches, df: pd.DataFrame, header: list[str], lower: list[str], mapped: set[int]) -> None:
    known = {nm for names in ALIASES.values() for nm in names} | IGNORED
    present = set(lower)
    instances: dict[str, list[int]] = {}
    plain: list[int] = []
    for i, h in enumerate(header):
        lo = lower[i]
        if i in mapped or lo in known:
            continue
        m = _REPEAT.match(lo)
        if m and m.group(1) in present and m.group(1) in known:
            continue  # rocprofiler-compute repeat of a bookkeeping column (wave_size_1, obj_2, ...)
        m = _INSTANCE.match(h)
        if m:
            instances.setdefault(m.group(1), []).append(i)
            continue
        plain.append(i)
    cols = plain + [i for idxs in instances.values() for i in idxs]
    if not cols:
        return
    # every counter column parsed in one call (a rocprof-compute pmc_perf.csv has hundreds of columns)
    raw = df[[f"c{i}" for i in cols]].to_numpy(dtype=object)
    num = pd.to_numeric(pd.Series(raw.ravel(order="F"), dtype=object), errors="coerce")
    vals_of = dict(zip(cols, num.to_numpy(dtype="float64", na_value=np.nan).reshape(len(cols), d.n)))
    kept = []
    for j, i in enumerate(plain):
        vals = vals_of[i]
        if np.isnan(vals).all():
            texts = {str(v).strip() for v in raw[:, j] if v is not None}
            if texts - {"", "nan", "NaN"}:
                continue  # a text column we do not know
        d.pmc[header[i]] = vals
        kept.append(j)
    kept += list(range(len(plain), len(cols)))  # per-instance columns are counters too
    _count_unreadable(d, raw[:, kept], num.to_numpy(dtype="float64", na_value=np.nan).reshape(len(cols), d.n)[kept],
                      [header[cols[j]] for j in kept])
    for base, idxs in instances.items():
        if f"{base}_sum" in d.pmc or f"{base.lower()}_sum" in present:
            continue
        block = np.column_stack([vals_of[i] for i in idxs])
        d.pmc[f"{base}_sum"] = np.where(np.isnan(block).all(axis=1), np.nan, np.nansum(block, axis=1))


def _count_unreadable(d: Dispatches, raw: np.ndarray, vals: np.ndarray, names: list[str]) -> None:
    """Count, on ``d``, the counter cells that hold something (not empty, not ``nan``) that is no number: they are
    left out of every figure (a mean over the other dispatches), so the user must be told how many.

    Args:
        raw: rows × counter columns of the cells as read; vals: the same parsed (counter columns × rows, NaN where
            not a number); names: the counter columns' names.
    """
    if not raw.size:
        return
    nan = np.isnan(vals.T)
    if not nan.any():
        return
    r, c = np.nonzero(nan)
    texts = [raw[i, j] for i, j in zip(r, c)]
    bad = [(t, names[j]) for t, j in zip(texts, c) if t is not None and str(t).strip().lower() not in ("", "nan")]
    if bad:
        d.unreadable_counter_cells += len(bad)
        d.unreadable_counter_example = f"{str(bad[0][0])[:40]!r} in {bad[0][1]}"

