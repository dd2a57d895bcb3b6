"""Per-row arrays of AMD dispatches (:class:`Dispatches`) and the exact readers of their columns.

What :func:`gpulens.collectors._dispatch.build_timeline` reads from a :class:`Dispatches` — ids, sizes and
timestamps as exact integers, text and out-of-range values as unknown — and :func:`merge` / :func:`join_files`,
which put the rows of several parts (of one file) or of several files into one :class:`Dispatches` so the Timeline
is built once. See :mod:`gpulens.collectors._dispatch` for the meaning and units of each array.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.collectors._numbers import exact_int, not_recorded

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
    #: whole-file warnings found while reading the rows (a ``DurationNs`` that contradicts ``EndNs − BeginNs``:
    #: :func:`gpulens.collectors._dur_check.span_disagreement`), given with the file's other notes
    notes: list[str] = field(default_factory=list)

    def get(self, key: str) -> pd.Series:
        """The array ``key`` as a nullable Int64 Series (all NA when absent). Text is parsed as a number; a value
        that is no whole finite number within int64 (``'x'``, ``inf``, ``1e30``, 2^64, ``7.5``) is NA."""
        v = self.cols.get(key)
        if v is None:
            return pd.Series(all_missing(self.n))
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


def _gpu_rows(p: Dispatches) -> np.ndarray:
    """Per row of ``p``: whether its kind (``kernel`` when not given) is GPU work — a row :func:`build_timeline`
    places on a device even when the source records none (host rows are the host, -1)."""
    kinds = p.cols.get("kind", "kernel")
    kinds = [kinds] * p.n if isinstance(kinds, str) else list(kinds)
    return np.fromiter((kd in _GPU_KINDS for kd in kinds), dtype=bool, count=p.n)


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
                                                    if p.unreadable_field_example), ""),
                     notes=[w for p in parts for w in p.notes])
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
                v = [None if gpu else -1 for gpu in _gpu_rows(p)]  # GPU rows: no device (build_timeline)
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


_EXACT_F64 = 1 << 53  # integers up to this magnitude read the same as float64


def _as_float(v: Any) -> np.ndarray | None:
    """An integer column (int64 / Int64) as float64 (NA → NaN) when every value is exact in float64, where
    :meth:`Dispatches.get` reads it as it reads the integers; else None."""
    s = v if isinstance(v, pd.Series) else pd.Series(v)
    a = s.to_numpy(dtype="float64", na_value=np.nan)
    return a if not len(a) or bool((np.abs(a[~np.isnan(a)]) < _EXACT_F64).all()) else None


def join_files(parts: list[Dispatches]) -> Dispatches | None:
    """The rows of several files' Dispatches as one, each column keeping the dtype it has in every file, so that
    :meth:`Dispatches.get`, :func:`timestamps` and the other readers give each row what they give it in its own
    file; None when that cannot be promised (a column of different types in different files — text beside
    numbers, or integers beyond 2^53 beside fractions —, or counters listed in different orders): the caller
    then builds file by file.

    A column a file lacks is unknown for its rows (NA; ``kind``: ``kernel``; ``device_id``: unknown on GPU rows,
    the host's −1 on host rows, as :func:`merge`). Per-file facts (``sci_notation_rows``, ``gpus``, the unreadable
    cell counts and examples) are not joined: :func:`gpulens.collectors._dispatch.build_timelines` reads them from
    each file.
    """
    orders = {tuple(p.pmc) for p in parts if p.pmc}
    if len(orders) > 1:
        return None
    out = Dispatches(n=sum(p.n for p in parts))
    if any(p.unreadable_ts is not None for p in parts):
        out.unreadable_ts = np.concatenate([np.zeros(p.n, bool) if p.unreadable_ts is None else
                                            np.asarray(p.unreadable_ts, bool) for p in parts])
    for k in dict.fromkeys(["kind", *(k for p in parts for k in p.cols)]):
        col = _join_column(k, parts)
        if col is None:
            return None
        out.cols[k] = col
    for m in dict.fromkeys(m for p in parts for m in p.pmc):
        out.pmc[m] = np.concatenate([np.asarray(p.pmc[m], dtype="float64") if m in p.pmc else np.full(p.n, np.nan)
                                     for p in parts])
    return out


def _whole_list(v: list) -> Any:
    """A list of ints within int64 and Nones as a nullable Int64 array (what :meth:`Dispatches.get` and the other
    readers make of it), else the list itself."""
    if all(x is None or (isinstance(x, (int, np.integer)) and not isinstance(x, bool) and -_I64 <= int(x) < _I64)
           for x in v):
        return pd.array(v, dtype="Int64")
    return v


def _join_column(k: str, parts: list[Dispatches]) -> Any:
    """Column ``k`` of every part joined (see :func:`join_files`); None when the parts' types differ."""
    vals = [p.cols.get(k) for p in parts]
    arrays = (pd.Series, np.ndarray, pd.api.extensions.ExtensionArray)
    if any(isinstance(v, arrays) for v in vals):  # a list of whole numbers reads as the Int64 array of them
        vals = [_whole_list(v) if isinstance(v, list) else v for v in vals]
    typed = [v for v in vals if isinstance(v, arrays)]
    if len(typed) < sum(v is not None for v in vals):  # text constants and lists: object, read value by value
        if typed:
            return None
        out: list = []
        for p, v in zip(parts, vals):
            if isinstance(v, str):
                out += [v] * p.n
            elif v is None and k == "device_id":
                out += [None if gpu else -1 for gpu in _gpu_rows(p)]
            elif v is None:
                out += ["kernel" if k == "kind" else None] * p.n
            else:
                out += list(v)
        return out
    dtypes = {str(v.dtype) for v in typed}
    if dtypes <= {"int64", "Int64"}:
        dtype = "Int64" if len(typed) < len(vals) or "Int64" in dtypes else "int64"
    elif dtypes <= {"int64", "Int64", "float64"}:
        dtype = "float64"
    elif len(dtypes) == 1 and len(typed) == len(vals):
        dtype = dtypes.pop()
    else:
        return None
    if k == "device_id" and len(typed) < len(vals) and dtype == "int64":
        dtype = "Int64"
    pieces = []
    for p, v in zip(parts, vals):
        if v is None:  # unknown; device_id: unknown on GPU rows, the host's -1 on host rows (as merge)
            na = np.ones(p.n, dtype=bool)
            if k == "device_id":
                na = _gpu_rows(p)
            fill = pd.arrays.IntegerArray(np.where(na, 0, -1).astype("int64"), na)
            pieces.append(fill.to_numpy(dtype="float64", na_value=np.nan) if dtype == "float64" else fill)
            continue
        a = v.array if isinstance(v, pd.Series) else v
        if str(a.dtype) != dtype:
            if dtype == "float64":
                a = _as_float(a)
                if a is None:
                    return None
            else:  # int64 → Int64
                a = pd.array(np.asarray(a), dtype=dtype)
        if isinstance(a, pd.arrays.NumpyExtensionArray):
            a = a.to_numpy()
        pieces.append(a)
    if isinstance(pieces[0], np.ndarray):
        return pd.Series(np.concatenate(pieces) if len(pieces) > 1 else pieces[0], copy=False)
    return pd.Series(type(pieces[0])._concat_same_type(pieces) if len(pieces) > 1 else pieces[0], copy=False)
