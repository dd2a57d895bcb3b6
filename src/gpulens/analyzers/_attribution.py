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
from gpulens.analyzers.context import codes_of, context_of
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
    "op_event_id": "event_id of the launching framework op (the op tree's link: external id, else the op enclosing "
                   "the launching runtime call), unknown when unlinked [id]",
    "op": "name of the launching framework op, '' when unlinked [text]",
    "shapes": "the op's input shapes, compact JSON text, '' when not recorded [shapes]",
    "dtypes": "the op's input dtypes, compact JSON text, '' when not recorded [dtypes]",
    "category": "work category (GEMM, attention, elementwise, reduction, normalisation, communication, copy, other) [text]",
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
    except (ValueError, RecursionError):
        return text.strip()


def _map_categorical(values: pd.Series, fn) -> np.ndarray:
    """``fn`` applied once per distinct category of ``values`` (a categorical), taken back to every row."""
    if not isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype("category")
    cats = [fn(c) for c in values.cat.categories]
    lut = np.array(cats + [fn(None)], dtype=object)
    codes = codes_of(values)
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

    Text columns are categoricals on the per-value tables' codes (no per-row strings or pointers). Do not mutate
    the returned frame.
    """
    return attribution_codes(timeline)[0]


def attribution_codes(timeline: Timeline) -> tuple[pd.DataFrame, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """:func:`gpu_attribution` and, for each text column (kind, name, key, op, shapes, dtypes, category), its rows as
    dense int64 codes and the table of values (object array): ``values[codes]`` is the column. Equal texts share one
    code, so grouping by codes groups by text. Memoised on the analysis context."""
    ctx = context_of(timeline)
    return ctx.memo("gpu_attribution", lambda: _build(timeline))


#: the launching op's columns read for every GPU event: its name, shapes and dtypes
_OP_TEXTS = ("name", "input_dims", "input_types")


def _codes_of(values: pd.Series) -> tuple[np.ndarray, list]:
    """Category codes (int64, −1 missing) and categories of a column (made categorical when it is not)."""
    if not isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype("category")
    return codes_of(values).astype(np.int64), list(values.cat.categories)


def _dense(idx: np.ndarray, table: list) -> tuple[np.ndarray, np.ndarray]:
    """Rows given as indices into ``table`` (a list of texts, NaN allowed) → dense codes of the distinct texts and
    those texts (object array)."""
    codes, uniq = pd.factorize(pd.Series(table, dtype=object), use_na_sentinel=False)
    values = np.asarray(uniq, dtype=object)
    return codes.astype(np.int64)[idx], values


def _build(timeline: Timeline) -> tuple[pd.DataFrame, dict]:
    from gpulens.analyzers._optree import _positions_of, gpu_op_links

    ctx = context_of(timeline)
    gpu = ctx.gpu
    n = len(gpu)
    # one linking for every per-op view: the op tree's (the external id, else the cpu_op enclosing the launching
    # runtime call: ROCm traces whose kernels carry no external id, graph replays), as the operator roll-up uses
    op_ids = gpu_op_links(timeline)
    kc, kcats = _codes_of(gpu["kind"])
    nc, ncats = _codes_of(gpu["name"])
    kind_tab = [str(c) for c in kcats] + [np.nan]  # astype(str) keeps a missing value missing
    name_tab = [str(c) for c in ncats] + [np.nan]
    codes = {"kind": _dense(np.where(kc < 0, len(kcats), kc), kind_tab),
             "name": _dense(np.where(nc < 0, len(ncats), nc), name_tab),
             "key": _dense(np.where(nc < 0, len(ncats), nc), [kernel_key(c) for c in ncats] + [""])}
    # op name / shapes / dtypes of the launching cpu_op: index 0 = '' (unlinked), else 1 + the op column's code
    op_i = np.zeros(n, dtype=np.int64)
    dims_i = np.zeros(n, dtype=np.int64)
    types_i = np.zeros(n, dtype=np.int64)
    linked = op_ids.notna().to_numpy()
    ev = timeline.events
    if all(isinstance(ev[c].dtype, pd.CategoricalDtype) for c in _OP_TEXTS):
        # the op columns' codes read at the linked ops' rows of the Timeline itself (their event ids' positions, kept
        # where the row is a cpu_op): no copy of the million cpu_op rows' columns, no look-up table over their ids;
        # the categories are the Timeline's, as a selection of its rows keeps them (1M kernels, session 49: this
        # function's first call 0.49–0.50 → 0.30–0.36 s CPU, three alternated pairs on a loaded machine)
        (oc, ocats), (dc, dcats), (tc, tcats) = ((codes_of(ev[c]), list(ev[c].cat.categories)) for c in _OP_TEXTS)
        if linked.any():
            pos = ctx.positions(op_ids[linked].astype("int64").to_numpy())
            kinds = ctx.kind_categories
            ok = pos >= 0
            ok &= (ctx.kind_codes[np.maximum(pos, 0)] == kinds.index("cpu_op")) if "cpu_op" in kinds else False
            rows = np.flatnonzero(linked)[ok]
            p = pos[ok]
    else:  # the four op columns read here, not a full-width copy of every cpu_op row
        ops = ctx.take_rows(ctx.mask_of("cpu_op"), ["event_id", *_OP_TEXTS])
        (oc, ocats), (dc, dcats), (tc, tcats) = (_codes_of(ops[c]) for c in _OP_TEXTS)
        if linked.any():
            pos = _positions_of(ops["event_id"].to_numpy(), op_ids[linked].astype("int64").to_numpy())
            ok = pos >= 0
            rows = np.flatnonzero(linked)[ok]
            p = pos[ok]
    if linked.any():
        for out, code, cats in ((op_i, oc, ocats), (dims_i, dc, dcats), (types_i, tc, tcats)):
            c = code[p].astype(np.int64)
            out[rows] = 1 + np.where(c < 0, len(cats), c)
    codes["op"] = _dense(op_i, [""] + [str(c) for c in ocats] + [np.nan])
    codes["shapes"] = _dense(dims_i, [""] + [_compact(c) for c in dcats] + [_compact(None)])
    codes["dtypes"] = _dense(types_i, [""] + [_compact(c) for c in tcats] + [_compact(None)])
    codes["category"] = _categories(codes["kind"], codes["name"], codes["op"])
    text = {c: pd.Series(_categorical(k, v), index=gpu.index) for c, (k, v) in codes.items()}
    out = pd.DataFrame({
        "rank": gpu["rank"].to_numpy(), "kind": text["kind"], "name": text["name"], "key": text["key"],
        "time_ns": ctx.effective_ns.to_numpy(), "dur_ns": gpu["dur_ns"].to_numpy(), "op_event_id": op_ids.to_numpy(),
        "op": text["op"], "shapes": text["shapes"], "dtypes": text["dtypes"], "category": text["category"],
    }, index=gpu.index, copy=False)  # no consolidation copy of the columns
    return out, codes


def _categorical(codes: np.ndarray, values: np.ndarray) -> pd.Categorical:
    """The texts ``values[codes]`` as a categorical on those codes (a missing value: code −1): no object array of a
    pointer per row (seven text columns of a million GPU events each were a tenth of a second and 56 MB)."""
    missing = pd.isna(values)
    if missing.any():  # NaN is no category: its rows take −1, the later codes one lower
        shift = np.cumsum(missing)
        codes = np.where(missing[codes], -1, codes - shift[codes])
        values = values[~missing]
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(pd.Index(values, dtype=object)))


def _categories(kind: tuple, name: tuple, op: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Work category per row (:func:`categorize` rules), classified once per distinct (kind, name, op) codes."""
    (k, kv), (nm, nv), (o, ov) = kind, name, op
    if not len(k):
        return np.zeros(0, dtype=np.int64), np.array([], dtype=object)
    if len(kv) * len(nv) * len(ov) < 2 ** 62:  # one int64 key per row
        key = (k * len(nv) + nm) * len(ov) + o
        # np.unique(key, return_inverse=True) by hashing the rows and sorting the few distinct keys only
        inv0, u0 = pd.factorize(key)
        order = np.argsort(u0, kind="stable")
        rank = np.empty(len(u0), dtype=np.int64)
        rank[order] = np.arange(len(u0))
        ukey, inv = np.asarray(u0)[order], rank[inv0]
        uniq = np.stack([ukey // (len(nv) * len(ov)), (ukey // len(ov)) % len(nv), ukey % len(ov)], axis=1)
    else:
        uniq, inv = np.unique(np.stack([k, nm, o], axis=1), axis=0, return_inverse=True)
    cats = categorize(pd.Series(kv[uniq[:, 0]], dtype=object), pd.Series(nv[uniq[:, 1]], dtype=object),
                      pd.Series(ov[uniq[:, 2]], dtype=object))
    return _dense(inv.reshape(-1), list(cats))
