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

from gpulens.analyzers._attribution import _codes_of, _compact, _dense, gpu_attribution
from gpulens.analyzers._categories import op_category
from gpulens.analyzers._flop_models import op_cost
from gpulens.analyzers._optree import inclusive, op_tree
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import int_sums, unique_ints
from gpulens.timeline import Timeline

COLUMNS = {
    "op": "framework op name [text]",
    "shapes": "input shapes, compact JSON ('' when not recorded) [text]",
    "dtypes": "input dtypes, compact JSON ('' when not recorded) [text]",
    "category": "GEMM, attention, elementwise, normalisation, communication, copy or other [text]",
    "calls": "op calls with GPU work [count]",
    "host_time_ns": "summed host duration of those calls [ns]",
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
    """One row per cpu_op call with GPU work: event_id, op, shapes, dtypes, depth, host_time_ns, gpu_time_ns,
    self_gpu_time_ns, gpu_events (memoised; shared with the GEMM/attention tables)."""
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
    inc_t, inc_n = inclusive(ops, self_t), inclusive(ops, self_n)
    ids = ops["event_id"].to_numpy()
    keep = inc_n.to_numpy() > 0
    sel = ops[keep]
    # categorical columns stay categorical (no per-row strings); op/shapes/dtypes texts are taken per category
    df = pd.DataFrame({"event_id": ids[keep], "op": sel["name"].array, "dims": sel["input_dims"].array,
                       "types": sel["input_types"].array, "depth": sel["depth"].to_numpy(),
                       "host_time_ns": sel["dur_ns"].to_numpy(), "gpu_time_ns": inc_t.to_numpy()[keep],
                       "self_gpu_time_ns": self_t.reindex(ids[keep]).fillna(0).to_numpy(),
                       "gpu_events": inc_n.to_numpy()[keep]}, copy=False)
    # texts per category; ``_op``/``_shapes``/``_dtypes``: dense codes of those texts, ``_dims``/``_types``: codes
    # of the recorded values (grouping by a code is grouping by its text)
    for col, src, fn in (("op", "op", lambda v: "" if v is None else str(v)), ("shapes", "dims", _compact),
                         ("dtypes", "types", _compact)):
        codes, cats = _codes_of(df[src])
        idx = np.where(codes < 0, len(cats), codes)
        dense, values = _dense(idx, [fn(c) for c in cats] + [fn(None)])
        df[col] = pd.Series(values[dense], dtype=object)
        df["_" + col] = dense
        if src != "op":
            df["_" + src] = codes
    return df


def _costs(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """FLOPs and bytes per call (NaN without a model), the model run once per distinct (op, dims, types)."""
    if not len(df):
        return np.zeros(0), np.zeros(0)
    key = df.groupby(["_op", "_dims", "_types"], sort=False).ngroup().to_numpy()
    first = unique_ints(key, return_index=True)[1]
    dims, types = df["dims"].array, df["types"].array
    f = np.full(len(first), np.nan)
    b = np.full(len(first), np.nan)
    for j, i in enumerate(first.tolist()):
        d, t = dims[i], types[i]
        c = op_cost(df["op"].iat[i], None if pd.isna(d) else d, None if pd.isna(t) else t)
        if c is not None:
            f[j], b[j] = c.flops, c.bytes
    return f[key], b[key]


def _nested_in_own_row(timeline: Timeline, calls: pd.DataFrame, key: np.ndarray) -> np.ndarray:
    """Per call: some ancestor op of it (same thread nesting, :func:`op_tree`) is a call of the same row ``key``.
    One vectorised step per nesting level (ancestors of a call with GPU work have GPU work: they are rows too)."""
    ops = op_tree(timeline)["ops"]
    parent = pd.Series(ops["parent_event_id"].to_numpy(), index=ops["event_id"].to_numpy())
    idx = pd.Index(calls["event_id"].to_numpy())
    par = idx.get_indexer(parent.reindex(idx).fillna(-1).astype("int64").to_numpy())
    nested = np.zeros(len(calls), bool)
    anc = par.copy()
    while (anc >= 0).any():
        ok = anc >= 0
        nested[ok] |= key[anc[ok]] == key[ok]
        anc = np.where(ok, par[np.clip(anc, 0, None)], -1)
    return nested


class OpRollup(Analyzer):
    """GPU time, calls, shapes, FLOPs and rates per framework op (see module docstring)."""

    name = "op_rollup"
    order = 55

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        att = gpu_attribution(timeline)
        if not len(att):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no GPU events in the trace")
        calls = per_call(timeline)
        if not len(calls):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no framework op is linked to GPU work (the trace records no "
                                                 "framework ops (cpu_op events), or no external ids / launch calls)")
        flops, nbytes = _costs(calls)
        calls = calls.assign(flops=flops, bytes=nbytes, top=calls["depth"] == 0)
        g = calls.groupby(["_op", "_shapes", "_dtypes"], sort=False)
        # a call nested in a call of the same row (reentrant backward, recursion) is inside that call's inclusive
        # time already: summed again, a row could exceed the GPU time of the whole trace
        outer = ~_nested_in_own_row(timeline, calls, g.ngroup().to_numpy())
        t = pd.DataFrame({"op": g["op"].first(), "shapes": g["shapes"].first(), "dtypes": g["dtypes"].first(),
                          "calls": g.size(), "host_time_ns": g["host_time_ns"].sum(),
                          "gpu_time_ns": calls["gpu_time_ns"].where(outer, 0).groupby(g.ngroup()).sum().to_numpy(),
                          "self_gpu_time_ns": g["self_gpu_time_ns"].sum(),
                          "gpu_events": calls["gpu_events"].where(outer, 0).groupby(g.ngroup()).sum().to_numpy(), "flops": g["flops"].sum(min_count=1),
                          "bytes": g["bytes"].sum(min_count=1), "top_level": g["top"].any()}).reset_index(drop=True)
        total = float(att["time_ns"].sum())
        t["category"] = t["op"].map({o: op_category(o) for o in t["op"].unique()})
        t["share"] = t["gpu_time_ns"] / total if total else 0.0
        sec = t["gpu_time_ns"].where(t["gpu_time_ns"] > 0) / 1e9
        t["flops_per_s"], t["bytes_per_s"] = t["flops"] / sec, t["bytes"] / sec
        t["gpu_events"] = t["gpu_events"].astype("int64")
        t = t.sort_values(["gpu_time_ns", "op"], ascending=[False, True], kind="stable").reset_index(drop=True)
        top = calls[calls["top"]]
        top_t = float(top["gpu_time_ns"].sum())
        modelled = float(top.loc[top["flops"].notna(), "gpu_time_ns"].sum())
        summary = {"ops_with_gpu_work": int(len(t)), "gpu_time_ns": total,
                   "attributed_share": top_t / total if total else 0.0,
                   "modelled_share": modelled / top_t if top_t else 0.0}
        return AnalysisResult(self.name, t[list(COLUMNS)], COLUMNS, summary, summary_columns=SUMMARY_COLUMNS)
