"""Launch ↔ GPU-work links from Kineto's ``ac2g`` flow events (or PaddlePaddle's ``"correlation id"`` args,
:func:`read_paddle_ids`), for traces whose events carry no ``correlation`` id.

Kineto draws each launch → kernel link as a flow: a start (``"ph": "s"``, ``"cat": "ac2g"``) on the launching
runtime call's thread at the call's ``ts``, and an end (``"ph": "f"``, ``"bp": "e"``) on the GPU's process at the
kernel's ``ts``, both with ``"id"`` = the correlation id (pytorch/kineto ``libkineto/src/output_json.cpp``,
``handleLink``/``"ac2g"``). Older PyTorch builds and some converters write the flows but no ``args.correlation`` on
the events: the events' ids are then unknown and no kernel reads as launched. :func:`link_by_flows` gives such rows
the flow's id — a runtime call whose (pid, tid, start) is a flow start's, a GPU row whose (pid, start) is a flow
end's (the unique one there) — so every analyzer links them as it links a correlation id.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec
import numpy as np
import pandas as pd

GPU_KINDS = ("kernel", "comm", "memcpy", "memset")
#: The flow category of launch → GPU work links (Kineto's "async CPU to GPU")
FLOW_CATEGORY = "ac2g"


class _Flow(msgspec.Struct):
    ph: Any = None
    id: Any = None
    pid: Any = None
    tid: Any = None
    ts: msgspec.Raw = msgspec.Raw(b"null")
    cat: Any = None
    name: Any = None


class _Doc(msgspec.Struct):
    traceEvents: list[_Flow] = []


_DECODER = msgspec.json.Decoder(_Doc)
_LIST_DECODER = msgspec.json.Decoder(list[_Flow])


class _IdArgs(msgspec.Struct):
    corr: Any = msgspec.field(name="correlation id", default=None)


class _IdEvent(msgspec.Struct):
    ph: Any = None
    pid: Any = None
    tid: Any = None
    ts: msgspec.Raw = msgspec.Raw(b"null")
    cat: Any = None
    args: Optional[_IdArgs] = None


class _IdDoc(msgspec.Struct):
    traceEvents: list[_IdEvent] = []


_ID_DECODER = msgspec.json.Decoder(_IdDoc)
#: The key PaddlePaddle's profiler writes each launch call's and GPU record's correlation id under
#: (paddle/fluid/platform/profiler/chrometracing_logger.cc, schemas 1.0.0 and 1.0.1; Kineto writes ``correlation``)
PADDLE_ID_KEY = b'"correlation id"'
#: PaddlePaddle's GPU record categories (its TracerEventType names, lower-cased): the ends of its links
_PADDLE_GPU_CATEGORIES = ("kernel", "memcpy", "memset")


def _id(v: Any) -> int | None:
    """An integer id from a flow's pid/tid/id (int, or text that is one; ``"stream 7"`` → 7), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v if -(1 << 63) <= v < (1 << 63) else None
    if isinstance(v, str):
        t = v.strip().rsplit(" ", 1)[-1]
        if t.lstrip("-").isdigit() and len(t) < 19:
            return int(t)
    return None


def read_flows(data: bytes) -> pd.DataFrame | None:
    """The ``ac2g`` flow starts and ends of a Kineto JSON document: columns ``ph`` ('s' or 'f'), ``id``, ``pid``,
    ``tid`` (int or <NA>), ``ts_ns`` (µs text → ns, exact; before ``baseTimeNanoseconds``). None when the document
    holds none or cannot be decoded as strict JSON (the links are then left as they are)."""
    from gpulens.collectors._kineto_columns import us_text_to_ns

    if FLOW_CATEGORY.encode() not in data:
        return None
    try:
        events = _LIST_DECODER.decode(data) if data.lstrip()[:1] == b"[" else _DECODER.decode(data).traceEvents
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    flows = [e for e in events if e.ph in ("s", "f") and FLOW_CATEGORY in (e.cat, e.name)]
    if not flows:
        return None
    ts, ok = us_text_to_ns([bytes(e.ts) for e in flows])
    out = pd.DataFrame({"ph": [e.ph for e in flows], "id": pd.array([_id(e.id) for e in flows], dtype="Int64"),
                        "pid": pd.array([_id(e.pid) for e in flows], dtype="Int64"),
                        "tid": pd.array([_id(e.tid) for e in flows], dtype="Int64"), "ts_ns": ts})
    return out[ok & out["id"].notna().to_numpy()].reset_index(drop=True)


def read_paddle_ids(data: bytes) -> pd.DataFrame | None:
    """The links a PaddlePaddle profiler trace records as its events' ``"correlation id"`` args, in the shape of
    :func:`read_flows`: a start (``ph`` 's') at each host event's (``pid``, ``tid``, ``ts``) and an end ('f') at each
    GPU record's (``pid`` = its device, ``ts``), ``id`` the correlation id. Paddle's own ``launch`` flows are of no use
    here: they start and end at the calls' and records' midpoints. None when the document holds no such arg or
    cannot be decoded as strict JSON (the links are then left as they are)."""
    from gpulens.collectors._kineto_columns import us_text_to_ns

    if PADDLE_ID_KEY not in data:
        return None
    try:
        events = _ID_DECODER.decode(data).traceEvents
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    rows = [e for e in events if e.ph == "X" and e.args is not None and e.args.corr is not None]
    if not rows:
        return None
    ts, ok = us_text_to_ns([bytes(e.ts) for e in rows])
    gpu = [isinstance(e.cat, str) and e.cat.lower() in _PADDLE_GPU_CATEGORIES for e in rows]
    out = pd.DataFrame({"ph": ["f" if g else "s" for g in gpu],
                        "id": pd.array([_id(e.args.corr) for e in rows], dtype="Int64"),
                        "pid": pd.array([_id(e.pid) for e in rows], dtype="Int64"),
                        "tid": pd.array([_id(e.tid) for e in rows], dtype="Int64"), "ts_ns": ts})
    return out[ok & out["id"].notna().to_numpy()].reset_index(drop=True)


def _unique_keys(keys: pd.DataFrame) -> pd.DataFrame:
    """``keys`` less every row whose key columns (all but the last) occur more than once (ambiguous)."""
    cols = list(keys.columns[:-1])
    return keys[~keys.duplicated(cols, keep=False)]


_NO_TID = -(1 << 62)


def link_by_flows(cols: dict[str, Any], flows: pd.DataFrame, base_ns: int) -> tuple[int, int]:
    """Give the runtime calls and GPU rows of ``cols`` (the Kineto accumulator's columns: ``kind``, ``start_ns``
    with ``base_ns`` added, ``pid``, ``tid``, ``correlation_id``) that have no correlation id the id of the
    ``ac2g`` flow (:func:`read_flows`) that starts / ends at them, in place. Only when no GPU row has a correlation
    id of its own (the flows then are the only links). Returns (launch calls linked, GPU rows linked)."""
    kind = np.asarray(pd.Categorical(cols["kind"]).astype(str), dtype=object)
    gpu = np.isin(kind, GPU_KINDS)
    corr = cols["correlation_id"]
    has = ~np.asarray(pd.isna(corr), dtype=bool)
    if not gpu.any() or (has & gpu).any():
        return 0, 0
    start = np.asarray(cols["start_ns"], dtype="int64")
    pid = pd.array(cols["pid"], dtype="Int64")
    tid = pd.array(cols["tid"], dtype="Int64")
    # a thread no integer names (PaddlePaddle's "11(C++)") is one key on both sides: a start there matches the call
    # at its pid and time alone (ambiguous pairs are dropped, :func:`_unique_keys`)
    tid = tid.fillna(_NO_TID)
    fl = flows.assign(ts_ns=flows["ts_ns"] + base_ns, tid=flows["tid"].fillna(_NO_TID))
    ids = pd.array(corr, dtype="Int64")
    vals, miss = ids.fillna(0).to_numpy("int64"), np.asarray(ids.isna(), dtype=bool).copy()
    linked = []
    for ph, rows, keys in (("s", (kind == "runtime") & ~has, ["pid", "tid", "ts_ns"]),
                           ("f", gpu & ~has, ["pid", "ts_ns"])):
        f = _unique_keys(fl.loc[fl["ph"] == ph, keys + ["id"]].dropna())
        idx = np.flatnonzero(rows)
        if not len(f) or not len(idx):
            linked.append(0)
            continue
        ev = pd.DataFrame({"pid": pid[idx], "tid": tid[idx], "ts_ns": start[idx], "row": idx})[keys + ["row"]]
        ev = _unique_keys(ev.dropna())
        m = ev.astype({k: "int64" for k in keys}).merge(f.astype({k: "int64" for k in keys}), on=keys)
        at = m["row"].to_numpy(dtype="int64")
        vals[at], miss[at] = m["id"].to_numpy(dtype="int64"), False
        linked.append(len(m))
    if sum(linked):
        cols["correlation_id"] = pd.arrays.IntegerArray(vals, miss)
    return linked[0], linked[1]
