"""Per GPU event: its matching key, launching framework op, the op's shapes and the event's work category.

One table, computed once per Timeline (``context_of(timeline).memo``) and shared by ``kernel_groups``, the
operator roll-up and ``gpulens diff``. Distinct names and shape texts are processed once each (category codes),
so the cost is one pass over the distinct values plus integer takes over the rows.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from gpulens.analyzers._categories import categorize
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline
from gpulens.timeline.names import normalize_kernel_name

try:  # the gate helper's demangled, normalised matching key (lands in gpulens.timeline.names)
    from gpulens.timeline.names import kernel_key as _kernel_key  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - until it lands: the name without toolchain suffixes
    _kernel_key = None

#: Columns of :func:`gpu_attribution` (indexed like ``context_of(timeline).gpu``).
ATTRIBUTION_COLUMNS = {
    "rank": "distributed rank [id]",
    "kind": "kernel, comm, memcpy or memset [text]",
    "name": "GPU event name as recorded [text]",
    "key": "matching key of the name (kernel_key: demangled, normalised) [text]",
    "time_ns": "effective (overrun-clipped) duration [ns]",
    "dur_ns": "duration as recorded [ns]",
    "op_event_id": "event_id of the launching framework op (linked by external id), <NA> when unlinked [id]",
    "op": "name of the launching framework op, '' when unlinked [text]",
    "shapes": "the op's input shapes, compact JSON text, '' when not recorded [text]",
    "dtypes": "the op's input dtypes, compact JSON text, '' when not recorded [text]",
    "category": "work category (GEMM, attention, elementwise, normalisation, communication, copy, other) [text]",
}


def kernel_key(name: str) -> str:
    """Matching key of a kernel name: :func:`gpulens.timeline.names.kernel_key` when available, else the name
    without AMDGPU ``.kd`` suffixes."""
    if _kernel_key is not None:
        return _kernel_key(name)
    return normalize_kernel_name(name) or str(name)


def _compact(text: object) -> str:
    """Compact JSON text of a recorded shape/dtype list ('' when missing or unreadable)."""
    if not isinstance(text, str) or not text:
        return ""
    try:
        return json.dumps(json.loads(text), separators=(",", ":"))
    except ValueError:
        return text.strip()


def _map_categorical(values: pd.Series, fn) -> np.ndarray:
    """``fn`` applied once per distinct category of ``values`` (a categorical), taken back to every row."""
    if not isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype("category")
    cats = [fn(c) for c in values.cat.categories]
    lut = np.array(cats + [fn(None)], dtype=object)
    codes = values.cat.codes.to_numpy()
    return lut[np.where(codes < 0, len(cats), codes)]


def per_distinct(df: pd.DataFrame, cols: list[str], fn) -> np.ndarray:
    """``fn(*values)`` computed once per distinct combination of ``cols`` (categoricals stay codes), returned per row
    as an object array. Missing values reach ``fn`` as None."""
    if not len(df):
        return np.empty(0, dtype=object)
    key = df.groupby(cols, sort=False, observed=True, dropna=False).ngroup().to_numpy()
    first = pd.Series(np.arange(len(df))).groupby(key).first()
    rows = df[cols].iloc[first.to_numpy()].astype(object)
    rows = rows.where(rows.notna(), None)
    lut = np.empty(int(key.max()) + 1, dtype=object)
    lut[first.index.to_numpy()] = [fn(*r) for r in rows.itertuples(index=False)]
    return lut[key]


def gpu_attribution(timeline: Timeline) -> pd.DataFrame:
    """The attribution table of every GPU event (columns :data:`ATTRIBUTION_COLUMNS`), computed once per Timeline.

    Do not mutate the returned frame.
    """
    ctx = context_of(timeline)
    return ctx.memo("gpu_attribution", lambda: _build(timeline))


def _build(timeline: Timeline) -> pd.DataFrame:
    ctx = context_of(timeline)
    gpu = ctx.gpu
    ev = timeline.events
    op_ids = ctx.links["op_event_id"]
    out = pd.DataFrame({
        "rank": gpu["rank"].to_numpy(),
        "kind": gpu["kind"].astype(str).to_numpy(),
        "name": gpu["name"].astype(str).to_numpy(),
        "key": _map_categorical(gpu["name"], lambda n: "" if n is None else kernel_key(n)),
        "time_ns": ctx.effective_ns.to_numpy(),
        "dur_ns": gpu["dur_ns"].to_numpy(),
        "op_event_id": op_ids.to_numpy(),
    }, index=gpu.index)
    out["op"], out["shapes"], out["dtypes"] = "", "", ""
    linked = op_ids.notna().to_numpy()
    if linked.any():
        ops = ev.loc[ev["kind"] == "cpu_op", ["event_id", "name", "input_dims", "input_types"]]
        pos = pd.Index(ops["event_id"].to_numpy()).get_indexer(op_ids[linked].astype("int64").to_numpy())
        ok = pos >= 0
        rows = np.flatnonzero(linked)[ok]
        sel = ops.iloc[pos[ok]]
        out.iloc[rows, out.columns.get_loc("op")] = sel["name"].astype(str).to_numpy()
        out.iloc[rows, out.columns.get_loc("shapes")] = _map_categorical(sel["input_dims"], _compact)
        out.iloc[rows, out.columns.get_loc("dtypes")] = _map_categorical(sel["input_types"], _compact)
    out["category"] = categorize(out["kind"], out["name"], out["op"])
    return out
