"""Operator roll-up (what TraceLens users rely on): per framework op and input shapes, the GPU time of the kernels
it launched — itself or through nested ops, CUDA/HIP graph replays included —, calls, host time, FLOPs and bytes
from the shape models (:mod:`gpulens.analyzers._flop_models`) and the achieved FLOP/s and B/s.

Rows are (op name, input shapes, input dtypes) with GPU work. Inclusive times nest (``aten::linear`` contains its
``aten::addmm``), so rows are not additive; ``top_level`` rows are (their ``gpu_time_ns`` sum to the GPU time
launched by any op). Achieved rates divide the op's FLOPs/bytes by its inclusive GPU time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._span import counter_only_reason
from gpulens.analyzers._attribution import _codes_of, _compact, _dense, gpu_attribution
from gpulens.analyzers._categories import op_category
from gpulens.analyzers._flop_models import op_cost
from gpulens.analyzers._optree import _positions_of, inclusive_many, op_tree
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import first_rows, int_sums, unique_ints
from gpulens.analyzers.cpu_ops import own_host_ns
from gpulens.timeline import Timeline

COLUMNS = {
    "op": "framework op name [text]",
    "shapes": "input shapes, compact JSON ('' when not recorded) [shapes]",
    "dtypes": "input dtypes, compact JSON ('' when not recorded) [dtypes]",
    "category": "GEMM, attention, elementwise, reduction, normalisation, communication, copy or other [text]",
    "calls": "op calls with GPU work [count]",
    "host_time_ns": "summed host duration of those calls; a call nested in a call of the same op on its thread is "
                    "inside that call's time and counted once (as the CPU operators table counts it) [ns]",
    "gpu_time_ns": "GPU time of the events launched by the calls and their nested ops (inclusive) [ns]",
    "self_gpu_time_ns": "GPU time of the events the calls launched themselves [ns]",
    "gpu_events": "GPU events launched, nested ops included [count]",
    "share": "gpu_time_ns / all GPU event time [share]",
    "flops": "FLOPs of the calls from the shape model (unknown without a model) [FLOP]",
    "bytes": "bytes moved by the calls from the shape model (unknown without a model) [bytes]",
    "flops_per_s": "flops / gpu_time_ns [FLOP/s]",
    "bytes_per_s": "bytes / gpu_time_ns [B/s]",
    "top_level": "some call is not nested in another op (top-level rows add up) [bool]",
}
SUMMARY_COLUMNS = {
    "ops_with_gpu_work": "distinct (op, shapes, dtypes) rows [count]",
    "gpu_time_ns": "GPU event time of the trace [ns]",
    "attributed_share": "share of GPU time launched by some framework op [share]",
    "modelled_share": "share of top-level GPU time whose op has a FLOP model [share]",
}


def per_call(timeline: Timeline) -> pd.DataFrame:
    """One row per cpu_op call with GPU work: event_id, op, shapes, dtypes, conc (the recorded scalar arguments),
    depth, host_time_ns, gpu_time_ns, self_gpu_time_ns, gpu_events (memoised; shared with the GEMM/attention
    tables)."""
    from gpulens.analyzers.context import context_of

    return context_of(timeline).memo("op_calls", lambda: _per_call(timeline))


def _per_call(timeline: Timeline) -> pd.DataFrame:
    tree = op_tree(timeline)
    ops = tree["ops"]
    att = gpu_attribution(timeline)
    gop = tree["gpu_op"]
    has = gop.notna().to_numpy()
    owner = gop[has].astype("int64").to_numpy()
    t_own = att["time_ns"].to_numpy()[has]
    if t_own.dtype.kind in "iu":  # per owner op: GPU time and events, on sorted owner codes (no groupby)
        uniq, inv = unique_ints(owner, return_inverse=True)
        self_t = pd.Series(int_sums(inv, t_own, len(uniq)), index=pd.Index(uniq))
        self_n = pd.Series(np.bincount(inv, minlength=len(uniq)).astype(float), index=pd.Index(uniq))
    else:
        self_t = pd.Series(t_own).groupby(owner).sum()
        self_n = pd.Series(np.ones(int(has.sum()))).groupby(owner).sum()
    inc_t, inc_n = inclusive_many(ops, [self_t, self_n])
    ids = ops["event_id"].to_numpy()
    keep = inc_n.to_numpy() > 0
    sel = ops[keep]
    # categorical columns stay categorical (no per-row strings); op/shapes/dtypes texts are taken per category
    conc = sel["concrete_inputs"].array if "concrete_inputs" in sel else pd.Categorical([None] * len(sel))
    df = pd.DataFrame({"event_id": ids[keep], "op": sel["name"].array, "dims": sel["input_dims"].array,
                       "types": sel["input_types"].array, "conc": conc, "depth": sel["depth"].to_numpy(),
                       "host_time_ns": own_host_ns(timeline)[keep], "gpu_time_ns": inc_t.to_numpy()[keep],
                       "self_gpu_time_ns": _own_values(self_t, ids[keep]),
                       "gpu_events": inc_n.to_numpy()[keep]}, copy=False)
    # texts per category; ``_op``/``_shapes``/``_dtypes``: dense codes of those texts, ``_dims``/``_types``: codes
    # of the recorded values (grouping by a code is grouping by its text)
    for col, src, fn in (("op", "op", lambda v: "" if v is None else str(v)), ("shapes", "dims", _compact),
                         ("dtypes", "types", _compact)):
        codes, cats = _codes_of(df[src])
        idx = np.where(codes < 0, len(cats), codes)
        dense, values = _dense(idx, [fn(c) for c in cats] + [fn(None)])
        df[col] = pd.Series(values[dense], dtype=object, copy=False)  # a fresh array: no copy of it
        df["_" + col] = dense
        if src != "op":
            df["_" + src] = codes
    df["_conc"] = _codes_of(df["conc"])[0]
    return df


def _own_values(values: pd.Series, ids: np.ndarray) -> np.ndarray:
    """``values.reindex(ids).fillna(0).to_numpy()`` by position lookup (:func:`~gpulens.analyzers._optree.
    _positions_of`, no hash table of every id): the values' dtype when every id has one, else float64 with 0 for
    the ids without."""
    v = values.to_numpy()
    if not len(ids):
        return v[:0].copy()
    k = _positions_of(values.index.to_numpy(), ids) if len(values) else np.full(len(ids), -1, dtype=np.intp)
    if (k >= 0).all():
        out = v[k]
        return np.where(np.isnan(out), 0, out) if out.dtype.kind == "f" else out
    out = np.zeros(len(ids), dtype=float)
    hit = k >= 0
    out[hit] = v[k[hit]]
    out[np.isnan(out)] = 0.0
    return out


def _row_groups(df: pd.DataFrame, cols: tuple[str, ...]) -> tuple[np.ndarray, int]:
    """Group number of each row for the distinct values of the int code columns ``cols`` (−1 allowed), numbered in
    order of first appearance — ``df.groupby(list(cols), sort=False).ngroup()`` — and the number of groups.

    The codes are folded into one int64 per row (mixed radix) and factorised once (a pandas groupby on three key
    columns cost ~0.1 s per million calls); keys too many to fold take the groupby."""
    parts = [df[c].to_numpy() for c in cols]
    radix = 1
    for v in parts:
        radix *= int(v.max()) + 2 if len(v) else 1
    if radix >= 2 ** 62 or any(v.dtype.kind not in "iu" for v in parts):
        group = df.groupby(list(cols), sort=False).ngroup().to_numpy()
        return group.astype(np.int64, copy=False), int(group.max()) + 1 if len(group) else 0
    key = np.zeros(len(df), dtype=np.int64)
    for v in parts:
        key *= int(v.max()) + 2
        key += v
        key += 1
    group, uniq = pd.factorize(key)
    return group.astype(np.int64, copy=False), len(uniq)


def _exact_sums(group: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Per-group sums of ``values`` as ``Series.groupby(group).sum()`` gives them: by ``np.bincount`` where every
    value and partial sum is an exact integer in float64 (GPU times in ns, event counts), so the order of the
    additions cannot change the result; otherwise pandas' own sum (its compensated summation)."""
    x = np.asarray(values)
    if x.dtype.kind in "iu":
        return int_sums(group, x, n_groups)
    if x.dtype.kind == "f" and bool(np.isfinite(x).all()) and bool((x == np.floor(x)).all()) \
            and float(np.abs(x).sum()) < 2.0 ** 53:
        return np.bincount(group, weights=x, minlength=n_groups)[:n_groups]
    return pd.Series(x).groupby(group).sum().reindex(np.arange(n_groups), fill_value=0).to_numpy()


def _costs(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """FLOPs and bytes per call (NaN without a model), the model run once per distinct (op, dims, types)."""
    if not len(df):
        return np.zeros(0), np.zeros(0)
    key, _ = _row_groups(df, ("_op", "_dims", "_types"))
    first = first_rows(key)
    dims, types, ops = df["dims"].array, df["types"].array, df["op"].array  # columns taken once, not per row
    f = np.full(len(first), np.nan)
    b = np.full(len(first), np.nan)
    for j, i in enumerate(first.tolist()):
        d, t = dims[i], types[i]
        c = op_cost(ops[i], None if pd.isna(d) else d, None if pd.isna(t) else t)
        if c is not None:
            f[j], b[j] = c.flops, c.bytes
    return f[key], b[key]


def _nested_in_own_row(timeline: Timeline, calls: pd.DataFrame, key: np.ndarray) -> np.ndarray:
    """Per call: some ancestor op of it (same thread nesting, :func:`op_tree`) is a call of the same row ``key``.
    One vectorised step per nesting level (ancestors of a call with GPU work have GPU work: they are rows too)."""
    ops = op_tree(timeline)["ops"]
    # each call's parent op id (the ops' row of the call by position lookup, no hash tables), then that parent's
    # position among the calls (−1: no parent, or a parent without GPU work)
    op_ids, call_ids = ops["event_id"].to_numpy(), calls["event_id"].to_numpy()
    at = _positions_of(op_ids, call_ids)
    parent_ids = ops["parent_event_id"].fillna(-1).astype("int64").to_numpy()
    p_ids = np.where(at >= 0, parent_ids[np.maximum(at, 0)], -1) if len(op_ids) else np.full(len(call_ids), -1)
    par = _positions_of(call_ids, p_ids.astype(np.int64, copy=False))
    return same_key_ancestor(par, key)


#: Rounds of the vectorised ancestor walk of :func:`same_key_ancestor` before it finishes by a depth-first pass
#: (host threads nest a few levels deep; a chain thousands deep made the walk O(n · depth): 40,000 identical
#: launches of one op, 22 s CPU).
_WALK_ROUNDS = 48


def same_key_ancestor(par: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Per node of a forest (``par``: parent position, −1 = root): whether some ancestor has the node's ``key``.

    One vectorised step per level for the nodes still undecided (a node is decided when a same-key ancestor is found
    or its walk reaches a root); past :data:`_WALK_ROUNDS` levels the rest is decided by one depth-first pass that
    counts the keys open on the path, O(n) whatever the depth."""
    nested = np.zeros(len(par), bool)
    live = np.flatnonzero(par >= 0)
    anc = par[live]
    for _ in range(_WALK_ROUNDS):
        if not live.size:
            return nested
        hit = key[anc] == key[live]
        nested[live[hit]] = True
        keep = ~hit
        live, anc = live[keep], par[anc[keep]]
        up = anc >= 0
        live, anc = live[up], anc[up]
    if live.size:
        nested |= _same_key_dfs(par, key)
    return nested


def _same_key_dfs(par: np.ndarray, key: np.ndarray) -> np.ndarray:
    """:func:`same_key_ancestor` by one iterative depth-first pass (children in position order)."""
    n = len(par)
    order = np.argsort(par, kind="stable")
    first = np.searchsorted(par[order], np.arange(-1, n + 1), side="left").tolist()
    kids, keys = order.tolist(), key.tolist()
    open_keys: dict = {}
    out = [False] * n
    stack = [~v for v in reversed(kids[first[0]:first[1]])]  # roots; ~v = enter v, v = leave v
    while stack:
        v = stack.pop()
        if v >= 0:
            k = keys[v]
            c = open_keys[k] - 1
            if c:
                open_keys[k] = c
            else:
                del open_keys[k]
            continue
        v = ~v
        k = keys[v]
        out[v] = k in open_keys
        open_keys[k] = open_keys.get(k, 0) + 1
        stack.append(v)
        stack.extend(~c for c in reversed(kids[first[v + 1]:first[v + 2]]))
    return np.array(out, dtype=bool)


class OpRollup(Analyzer):
    """GPU time, calls, shapes, FLOPs and rates per framework op (see module docstring)."""

    name = "op_rollup"
    order = 55

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        att = gpu_attribution(timeline)
        if not len(att):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason=counter_only_reason(timeline) or "no GPU events in the trace")
        calls = per_call(timeline)
        if not len(calls):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no framework op is linked to GPU work (the trace records no "
                                                 "framework ops (cpu_op events), or no external ids / launch calls)")
        flops, nbytes = _costs(calls)
        calls = calls.assign(flops=flops, bytes=nbytes, top=calls["depth"] == 0)
        # rows: (op, shapes, dtypes) by their dense codes, groups in order of first appearance (as a groupby with
        # sort=False); the texts taken at each group's first call, the sums on the group numbers
        group, n_groups = _row_groups(calls, ("_op", "_shapes", "_dtypes"))
        first = first_rows(group)
        # a call nested in a call of the same row (reentrant backward, recursion) is inside that call's inclusive
        # time already: summed again, a row could exceed the GPU time of the whole trace
        outer = ~_nested_in_own_row(timeline, calls, group)
        t = pd.DataFrame({"op": pd.Series(calls["op"].to_numpy()[first], dtype=object),
                          "shapes": pd.Series(calls["shapes"].to_numpy()[first], dtype=object),
                          "dtypes": pd.Series(calls["dtypes"].to_numpy()[first], dtype=object),
                          "calls": np.bincount(group, minlength=n_groups).astype(np.int64),
                          "host_time_ns": _exact_sums(group, calls["host_time_ns"].to_numpy(), n_groups),
                          "gpu_time_ns": _exact_sums(group, np.where(outer, calls["gpu_time_ns"].to_numpy(), 0),
                                                     n_groups),
                          "self_gpu_time_ns": _exact_sums(group, calls["self_gpu_time_ns"].to_numpy(), n_groups),
                          "gpu_events": _exact_sums(group, np.where(outer, calls["gpu_events"].to_numpy(), 0),
                                                    n_groups),
                          "flops": calls["flops"].groupby(group).sum(min_count=1).to_numpy(),
                          "bytes": calls["bytes"].groupby(group).sum(min_count=1).to_numpy(),
                          "top_level": np.bincount(group[calls["top"].to_numpy()], minlength=n_groups) > 0})
        total = float(att["time_ns"].sum())
        t["category"] = t["op"].map({o: op_category(o) for o in t["op"].unique()})
        t["share"] = t["gpu_time_ns"] / total if total else 0.0
        sec = t["gpu_time_ns"].where(t["gpu_time_ns"] > 0) / 1e9
        t["flops_per_s"], t["bytes_per_s"] = t["flops"] / sec, t["bytes"] / sec
        t["gpu_events"] = t["gpu_events"].astype("int64")
        # a complete key: rows of equal GPU time in the same order whatever the order of the trace file
        t = t.sort_values(["gpu_time_ns", "op", "shapes", "dtypes"], ascending=[False, True, True, True],
                          kind="stable").reset_index(drop=True)
        top = calls[calls["top"]]
        top_t = float(top["gpu_time_ns"].sum())
        modelled = float(top.loc[top["flops"].notna(), "gpu_time_ns"].sum())
        summary = {"ops_with_gpu_work": int(len(t)), "gpu_time_ns": total,
                   "attributed_share": top_t / total if total else 0.0,
                   "modelled_share": modelled / top_t if top_t else 0.0}
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, summary, summary_columns=SUMMARY_COLUMNS)
