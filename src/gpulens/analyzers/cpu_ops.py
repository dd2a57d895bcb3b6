"""Host operators: which framework ops (``cpu_op``: ``aten::mm``, ...) ran, how often, how long, and their FLOPs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import codes_of, context_of, first_seen_codes
from gpulens.analyzers.intervals import group_cummax, group_order, group_sum, key_codes
from gpulens.timeline import Timeline

COLUMNS = {
    "name": "operator name as recorded",
    "calls": "number of calls",
    "total_ns": "host time inside its calls, inclusive of nested ops; a call nested in a call of the same name (on "
                "the same thread) is inside that call's time and counted once [ns]",
    "nested_calls": "calls inside a call of the same name on the same thread (aten::sum calling aten::sum): their "
                    "time is inside the outer call's, in total_ns once [count]",
    "mean_ns": "total_ns / (calls − nested_calls): the mean of the outer calls [ns]",
    "flops": "sum of the FLOP counts the profiler recorded (with_flops); unknown when none is [FLOP]",
    "flops_per_s": "flops / total_ns, the host-side rate of a CPU-only run; unknown when the trace has GPU work: an "
                   "op's FLOPs then run in its kernels and its host time (the launch) is no divisor — 100 PFLOP/s "
                   "for an aten::mm launched in 20 µs — see gemm_shapes / roofline for the GPU-time rate [FLOP/s]",
}


def _outermost_ns(ev: pd.DataFrame, mask: np.ndarray) -> np.ndarray:
    """Per selected row: the part of its host duration [ns] not already inside an earlier call of the same name on
    the same rank/process/thread — the union of each name's calls per thread, so ``aten::copy_`` nested in
    ``aten::copy_`` (TraceLens sglang decode: 463 ms inside 463 ms) counts once and a name's total never exceeds the
    thread's time. Rows sorted by (name, thread, start); a row adds what ends past the running maximum end of the
    rows before it in its group."""
    sel = np.flatnonzero(mask)
    parts = [codes_of(ev["name"])[sel].astype("int64")]
    for c in ("rank", "pid", "tid"):
        part = ev[c].take(sel)
        if part.hasnans:  # a thread not recorded: the grouping of pandas' groupby (:func:`_outermost_ns_frame`)
            return _outermost_ns_frame(ev, mask)
        parts.append(part.to_numpy("int64"))
    # the (name, rank, pid, tid) group of each row as one int code (the codes' order does not matter here: rows
    # are grouped, never ranked by it)
    varying = [p for p in parts if len(p) and p.min() != p.max()]
    if len(varying) > 1:
        key, _ = key_codes(*varying)
    else:  # one thread (or one name): that column's values group the rows as they are
        key = varying[0] if varying else np.zeros(len(sel), dtype=np.int64)
    start = ev["start_ns"].to_numpy()[sel]
    end = start + ev["dur_ns"].to_numpy()[sel]
    return _own_ns(key, start, end, group_order(key, start), group_cummax)


def own_host_ns(timeline: Timeline) -> np.ndarray:
    """Per cpu_op row (Timeline order): its host time not already inside an earlier call of the same name on its
    thread [ns, int64] (:func:`_outermost_ns`) — memoised, the one definition of an op's host time that the CPU
    operators table and the operator roll-up share."""
    ctx = context_of(timeline)
    return ctx.memo("cpu_op_own_ns", lambda: _outermost_ns(timeline.events, ctx.mask_of("cpu_op")))


def _own_ns(key: np.ndarray, start: np.ndarray, end: np.ndarray, order: np.ndarray, cummax: Any) -> np.ndarray:
    """Per row, what its [start, end) adds past the running maximum end of the earlier rows of its group (``order``:
    rows by (group, start); ``cummax(groups, values)``: the running maximum per group of the sorted rows) [ns]."""
    k, s, e = key[order], start[order], end[order]
    running = cummax(k, e)  # int64 throughout: absolute ns exceed float precision
    covered = np.roll(running, 1)
    first = np.ones(len(k), bool)
    first[1:] = k[1:] != k[:-1]
    covered[first] = np.iinfo(np.int64).min
    own = np.where(first, e - s, np.clip(e - np.maximum(s, covered), 0, None))
    out = np.empty(len(order), np.int64)
    out[order] = own
    return out


def _outermost_ns_frame(ev: pd.DataFrame, mask: np.ndarray) -> np.ndarray:
    """:func:`_outermost_ns` grouped by pandas (rows whose rank, pid or tid is missing share one NaN group key):
    the path for inputs with unrecorded threads, as it always computed them."""
    keys = pd.DataFrame({"name": codes_of(ev["name"])[mask]})
    for c in ("rank", "pid", "tid"):
        keys[c] = ev[c].to_numpy()[mask] if ev[c].dtype.kind in "iu" else pd.array(ev[c][mask]).fillna(-1)
    key = keys.groupby(list(keys.columns), sort=False).ngroup().to_numpy()
    start = ev["start_ns"].to_numpy()[mask]
    end = start + ev["dur_ns"].to_numpy()[mask]
    return _own_ns(key, start, end, np.lexsort((start, key)),
                   lambda k, e: pd.Series(e).groupby(k).cummax().to_numpy())


class CpuOps(Analyzer):
    """Per cpu_op name: calls, inclusive host time, FLOPs and (CPU-only runs) FLOP/s, longest total first."""

    name = "cpu_ops"
    order = 15

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        ev = timeline.events
        mask = context_of(timeline).mask_of("cpu_op")
        ops = ev.loc[mask, ["name", "flops"]]  # the columns read here
        if not len(ops):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no framework operators (cpu_op) in the trace")
        once = own_host_ns(timeline)
        # per name in order of first appearance (as a groupby(sort=False) of the names), on integer codes
        codes, uniq = first_seen_codes(ops["name"])
        keep = codes >= 0  # a missing name is no group
        kc = codes[keep]
        fl = ops["flops"].to_numpy("float64")[keep]
        if np.isnan(fl).all():
            flops = np.full(len(uniq), np.nan)
        else:  # pandas' own (compensated) float sum, keyed by code
            flops = pd.Series(fl).groupby(kc, sort=False).sum(min_count=1).to_numpy("float64")
        # the names as a groupby gives its keys back (an Index infers the same text dtype)
        # a call some of whose time an earlier call of its name already holds is nested in it (its own part is
        # shorter than its duration); the outer calls are the rest, and the mean is theirs
        nested = once[keep] < ev["dur_ns"].to_numpy("int64")[mask][keep]
        t = pd.DataFrame({"name": pd.Series(pd.Index(uniq)), "calls": np.bincount(kc, minlength=len(uniq)),
                          "nested_calls": np.bincount(kc[nested], minlength=len(uniq)),
                          "total_ns": group_sum(kc, once[keep], len(uniq)), "flops": flops})
        t["mean_ns"] = t["total_ns"] / (t["calls"] - t["nested_calls"]).clip(lower=1)
        gpu_run = bool(len(context_of(timeline).gpu))  # the ops' FLOPs ran on the GPU, not in their host time
        t["flops_per_s"] = np.where((t["total_ns"] > 0) & (not gpu_run),
                                    t["flops"] / t["total_ns"].clip(lower=1) * 1e9, np.nan)
        t = t.sort_values(["total_ns", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)
        t = t[list(COLUMNS)]
        summary = {"cpu_op_count": int(len(ops)), "unique_ops": int(len(t)),
                   "ops_with_flops": int(ops["flops"].notna().sum()),
                   "total_flops": float(ops["flops"].sum()) if ops["flops"].notna().any() else None}
        return AnalysisResult(self.name, t, COLUMNS, summary)
