"""Collectives: per rank, collective type and process group — count, time, exposed time, bytes and bandwidths.

Each collective kernel (kind ``comm``) takes its metadata from ``tables["collectives"]`` (PyTorch's
``record_param_comms`` args ``Collective name``, ``In msg nelems``, ``Out msg nelems``, ``dtype``: bytes =
max(in, out) nelems × dtype size, see :mod:`gpulens.collectors._collectives`): its own row (NCCL kernels carry the
args since PyTorch 2.1), else the row of the CPU op it was launched under (``op_event_id`` of the analysis context).
Where those args are not recorded (PyTorch before 2.1), the ``c10d::`` op that launched the kernel (the op itself or
one enclosing it: ``c10d::alltoall_base_`` around ``record_param_comms``) gives the type (its name) and the size
(its tensor arguments' recorded shapes and element types — the rule and its source in
:mod:`gpulens.analyzers._c10d_sizes`). Without either the type comes from the kernel name
(``ncclDevKernel_AllReduce_…``) and the size is unknown — counted in ``sizes_unknown``, never summed as 0: a row
whose sizes are all unknown has ``bytes`` unknown (null), not 0 B.

Bandwidths as nccl-tests defines them (NVIDIA/nccl-tests doc/PERFORMANCE.md): ``algbw = S / t`` with S the
collective's size (``bytes``) and t its time; ``busbw = algbw × factor(n)`` with n the group size — all-reduce
2(n−1)/n; all-gather, reduce-scatter, all-to-all (n−1)/n; broadcast, reduce, send/recv 1. Here t is the GPU time of
the collective kernels (overrun-clipped) and S/t is taken over the events whose size is known.
``exposed_ns`` is the part of that time not overlapped by compute kernels on the same rank and GPU.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._optree import gpu_op_links
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.timeline import Timeline

COLUMNS = {
    "rank": "distributed rank [id]",
    "collective": "collective type (all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, "
                  "send_recv, …) [text]",
    "process_group": "process group name (description), or unknown [text]",
    "group_size": "ranks in the group, unknown when not recorded [count]",
    "count": "collective kernels [count]",
    "time_ns": "summed GPU time of those kernels [ns]",
    "exposed_ns": "part of time_ns not overlapped by compute kernels on the same GPU [ns]",
    "bytes": "summed size S of the collectives whose size is known; unknown when none is [bytes]",
    "sizes_unknown": "collectives whose size is not recorded (not counted in bytes) [count]",
    "algbw": "S / t over the collectives of known size [B/s]",
    "busbw": "algbw × nccl-tests bus factor of the type and group size [B/s]",
}
SUMMARY = {
    "collectives": "collective kernels [count]",
    "time_ns": "GPU time in collectives [ns]",
    "exposed_ns": "collective time not overlapped by compute [ns]",
    "with_metadata": "collectives with recorded type and size (record_param_comms args, or the shapes of the "
                     "c10d op that launched them) [count]",
    "sized_by_op_shapes": "of those, sized from the c10d op's recorded shapes (no record_param_comms sizes) "
                          "[count]",
}
_TYPES = (("allreduce", "all_reduce"), ("allgather", "all_gather"), ("reducescatter", "reduce_scatter"),
          ("alltoall", "all_to_all"), ("sendrecv", "send_recv"), ("broadcast", "broadcast"), ("bcast", "broadcast"),
          ("barrier", "barrier"), ("reduce", "reduce"), ("gather", "gather"), ("scatter", "scatter"),
          ("send", "send_recv"), ("recv", "send_recv"))


def collective_type(text: Any) -> str:
    """Normalised collective type of a PyTorch collective name or a kernel name (``other`` when neither)."""
    if not isinstance(text, str):
        return "other"
    t = re.sub(r"[^a-z]", "", text.lower())
    for key, typ in _TYPES:
        if key in t:
            return typ
    return "other"


def bus_factor(typ: str, n: Any) -> float:
    """nccl-tests bus-bandwidth factor of a collective type for a group of n ranks (NaN when unknown)."""
    if n is None or n is pd.NA or not n or n != n:
        return float("nan")
    n = float(n)
    if typ == "all_reduce":
        return 2 * (n - 1) / n
    if typ in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    if typ in ("broadcast", "reduce", "send_recv"):
        return 1.0
    return float("nan")


def _exposed(comm: pd.DataFrame, comp: dict[str, np.ndarray]) -> np.ndarray:
    """Per comm interval: its length minus its overlap with the union of compute intervals of the same GPU.

    ``comp``: the compute kernels' ``rank``, ``device_id``, ``start`` and ``end`` [ns] as numpy arrays (grouped
    here by their sorted (rank, device_id) codes and row positions, not split into a DataFrame per GPU)."""
    from gpulens.analyzers._groupstats import stable_order
    from gpulens.analyzers.intervals import covered_before, key_codes, merge

    out = (comm["end"] - comm["start"]).to_numpy().astype(np.int64)
    groups: dict[tuple, np.ndarray] = {}
    if len(comp["start"]):
        code, keys = key_codes(np.asarray(comp["rank"]), np.asarray(comp["device_id"]))
        order = stable_order(code) if len(keys) > 1 else np.arange(len(code))  # each GPU's rows in row order
        cuts = np.searchsorted(code[order], np.arange(len(keys) + 1))
        groups = {tuple(k): order[cuts[i]:cuts[i + 1]] for i, k in enumerate(keys)}
    for key, idx in comm.groupby(["rank", "device_id"]).indices.items():
        rows = groups.get(tuple(int(v) for v in key))
        if rows is None:
            continue
        us, ue = merge(comp["start"][rows], comp["end"][rows])
        s, e = comm["start"].to_numpy()[idx], comm["end"].to_numpy()[idx]
        out[idx] = (e - s) - (covered_before(us, ue, e) - covered_before(us, ue, s))
    return out


def _per_group(comm: pd.DataFrame) -> pd.DataFrame:
    """Per (rank, collective, process_group), sorted by them: ``group_size`` (max of ``gs``, NaN skipped), ``count``,
    ``time_ns``, ``exposed_ns`` and ``known_time`` (sums), ``bytes`` (sum of the known ``bytes_f``, NaN when none is
    known) and ``sizes_unknown`` (rows without ``bytes``) — what ``groupby(keys, sort=True).agg(...)`` gives, from
    numpy on the group numbers (a pandas named aggregation with two Python reducers cost ~4 ms on a handful of
    rows, in every run with collectives). Integer sums stay int64; float sums are of whole numbers of bytes and ns."""
    keys = ["rank", "collective", "process_group"]
    code = np.zeros(len(comm), dtype=np.int64)
    for k in keys:  # mixed radix of each key's sorted codes: group numbers in (rank, collective, group) order
        c, u = pd.factorize(comm[k].to_numpy(dtype=object if k != "rank" else None), sort=True)
        code = code * max(len(u), 1) + c
    _, first, inv = np.unique(code, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    n = len(first)
    out = comm[keys].iloc[first].reset_index(drop=True)  # the keys as they are (dtypes kept)
    gs = comm["gs"].to_numpy(dtype="float64")
    gmax = np.full(n, -np.inf)
    np.fmax.at(gmax, inv, gs)  # fmax: NaN skipped
    out["group_size"] = np.where(np.bincount(inv, ~np.isnan(gs), minlength=n) > 0, gmax, np.nan)
    out["count"] = np.bincount(inv, minlength=n).astype(np.int64)
    for col, src in (("time_ns", "time"), ("exposed_ns", "exposed")):
        v = comm[src].to_numpy()
        acc = np.zeros(n, dtype=v.dtype)
        np.add.at(acc, inv, v)
        out[col] = acc
    b = comm["bytes_f"].to_numpy(dtype="float64")
    known = ~np.isnan(b)
    out["bytes"] = np.where(np.bincount(inv, known, minlength=n) > 0,
                            np.bincount(inv, np.where(known, b, 0.0), minlength=n), np.nan)
    # Int64, as pandas casts a Python reducer's result over an Int64 column back to its dtype
    out["sizes_unknown"] = pd.array(np.bincount(inv, comm["bytes"].isna().to_numpy(), minlength=n).astype(np.int64),
                                    dtype="Int64")
    kt = comm["known_time"].to_numpy()
    acc = np.zeros(n, dtype=kt.dtype)
    np.add.at(acc, inv, kt)
    out["known_time"] = acc
    return out


class Collectives(Analyzer):
    """Per-collective-type communication figures (see module docstring); skipped without collective kernels."""

    name = "collectives"
    order = 42

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        from gpulens.analyzers.context import context_of

        ctx = context_of(timeline)
        gpu = ctx.gpu
        eff = ctx.effective_ns
        is_comm = (gpu["kind"] == "comm").to_numpy()
        if not is_comm.any():
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no collective kernels in the trace", summary_columns=SUMMARY)
        # numeric columns of all GPU rows; names and op links of the collectives only (no per-row strings for the
        # millions of compute kernels)
        start = gpu["start_ns"].to_numpy()
        num = {"rank": gpu["rank"].to_numpy(), "device_id": gpu["device_id"].to_numpy(), "start": start,
               "end": start + eff.to_numpy()}
        comm = pd.DataFrame({"event_id": gpu["event_id"].to_numpy()[is_comm], **{k: v[is_comm] for k, v in num.items()},
                             "name": gpu["name"][is_comm].astype(str).to_numpy(),
                             "op": gpu_op_links(timeline)[is_comm].to_numpy()})
        is_kernel = (gpu["kind"] == "kernel").to_numpy()
        comp = {k: v[is_kernel] for k, v in num.items()}  # arrays: no frame of a million compute kernels
        meta = timeline.tables.get("collectives")
        cols = ["collective", "bytes", "group_size", "pg_name", "pg_desc"]
        if meta is not None and len(meta):
            m = meta.drop_duplicates("event_id").set_index("event_id")[cols]
            own = m.reindex(comm["event_id"].to_numpy())
            via = m.reindex(pd.array(comm["op"], dtype="Int64").fillna(-1).to_numpy(dtype=np.int64))
            use_own = own["collective"].notna().to_numpy()
            info = pd.DataFrame(np.where(use_own[:, None], own.to_numpy(dtype=object), via.to_numpy(dtype=object)),
                                columns=cols)
        else:
            info = pd.DataFrame({c: [None] * len(comm) for c in cols})
        info["bytes"] = pd.array([b if b is not None and b is not pd.NA and b == b else pd.NA for b in info["bytes"]],
                                 dtype="Int64")
        # no record_param_comms sizes: the c10d op that launched the kernel (type from its name, size from its
        # tensor arguments' shapes; _c10d_sizes)
        lacking = (info["collective"].isna() | info["bytes"].isna()).to_numpy() & comm["op"].notna().to_numpy()
        by_shapes = np.zeros(len(comm), dtype=bool)
        if lacking.any():
            from gpulens.analyzers._c10d_sizes import c10d_ops_of
            from gpulens.analyzers._optree import op_tree

            ids = pd.array(comm["op"][lacking], dtype="Int64").fillna(-1).to_numpy(dtype=np.int64)
            c10d = c10d_ops_of(op_tree(timeline)["ops"], ids)
            rows = np.flatnonzero(lacking)
            named = c10d["c10d_op"].notna().to_numpy()
            fill_type = named & info["collective"].isna().to_numpy()[rows]
            info.loc[rows[fill_type], "collective"] = c10d["c10d_op"].to_numpy()[fill_type]
            sized = c10d["c10d_bytes"].notna().to_numpy() & info["bytes"].isna().to_numpy()[rows]
            info.loc[rows[sized], "bytes"] = c10d["c10d_bytes"].to_numpy()[sized]
            by_shapes[rows[sized]] = True
        has_meta = info["collective"].notna().to_numpy()
        # the type of each distinct recorded type or kernel name, not one regex per collective kernel
        text = np.where(has_meta, info["collective"].to_numpy(dtype=object), comm["name"].to_numpy(dtype=object))
        t_codes, t_uniq = pd.factorize(text)  # missing (None/NaN) → −1: not a str, type "other"
        comm["collective"] = np.array([collective_type(u) for u in t_uniq] + ["other"], dtype=object)[t_codes]
        comm["bytes"] = pd.array(info["bytes"].to_numpy(), dtype="Int64")
        comm["group_size"] = pd.array([g if g is not None and g is not pd.NA and g == g else pd.NA
                                       for g in info["group_size"]], dtype="Int64")
        def group_label(n: Any, d: Any) -> str:
            return f"{n} ({d})" if isinstance(d, str) and d and isinstance(n, str) else \
                (n if isinstance(n, str) and n else "unknown")

        # one label per distinct (name, description) pair: a few process groups for thousands of collectives
        p_codes, p_uniq = pd.factorize(pd.MultiIndex.from_arrays([info["pg_name"].to_numpy(dtype=object),
                                                                  info["pg_desc"].to_numpy(dtype=object)]))
        comm["process_group"] = np.array([group_label(n, d) for n, d in p_uniq] + ["unknown"], dtype=object)[p_codes]
        comm["time"] = comm["end"] - comm["start"]
        comm["exposed"] = _exposed(comm, comp)
        known = comm["bytes"].notna().to_numpy()
        comm["known_time"] = np.where(known, comm["time"], 0)
        comm["bytes_f"] = comm["bytes"].astype("float64")  # NaN: unknown (summed with min_count=1: none known → NaN)
        comm["gs"] = comm["group_size"].astype("float64")
        table = _per_group(comm)
        table["algbw"] = np.where(table["known_time"] > 0, table["bytes"] * 1e9 / table["known_time"].clip(lower=1),
                                  np.nan)
        table["busbw"] = table["algbw"] * [bus_factor(t, n) for t, n in zip(table["collective"], table["group_size"])]
        table["group_size"] = pd.array([int(x) if x == x else pd.NA for x in table["group_size"]], dtype="Int64")
        table["bytes"] = pd.array([int(x) if x == x else pd.NA for x in table["bytes"]], dtype="Int64")
        table = table.sort_values(["rank", "time_ns"], ascending=[True, False], kind="stable")[list(COLUMNS)]
        summary = {"collectives": int(len(comm)), "time_ns": int(comm["time"].sum()),
                   "exposed_ns": int(comm["exposed"].sum()),
                   "with_metadata": int((has_meta & comm["bytes"].notna().to_numpy()).sum()),
                   "sized_by_op_shapes": int(by_shapes.sum())}
        from gpulens.analyzers._rank_gpus import rank_gpu_sum_docs

        cols = rank_gpu_sum_docs(COLUMNS, timeline, ("time_ns", "exposed_ns", "bytes"))
        return AnalysisResult(self.name, table.reset_index(drop=True), cols, summary, summary_columns=SUMMARY)
