"""Per-launch work (FLOPs, DRAM bytes, precision) of kernels: from hardware counters, else from the launching op's
shapes. Used by the roofline analyzer.

Counter formulas (gpu-facts §1.3–1.4):

* Nsight Compute SASS counters ``smsp__sass_thread_inst_executed_op_{f,d,h}{add,mul,fma}_pred_on.sum`` (also the
  ``sm__`` spelling): add + mul + 2 × fma per precision (HTA uses the same weights); tensor work from
  ``sm__ops_path_tensor_src_<type>_dst_<type>.sum`` (counted in FLOPs); ``flop_count_{sp,dp,hp}.sum`` when given.
  Bytes: ``dram__bytes_read.sum + dram__bytes_write.sum``, else ``dram__bytes.sum``, else
  ``dram__bytes_op_read.sum + dram__bytes_op_write.sum``.
* rocprof / rocprof-compute: 64 × Σ (``SQ_INSTS_VALU_{ADD,MUL,TRANS}_F*`` + 2 × ``FMA_F*``) + 512 ×
  Σ ``SQ_INSTS_VALU_MFMA_MOPS_*``. Bytes: ``FETCH_SIZE + WRITE_SIZE`` (rocprof reports kilobytes; used as bytes only
  when the counter's unit says ``bytes``), else the MI200 HBM formula 32 × ``TCC_EA_RDREQ_32B`` + 64 ×
  (``TCC_EA_RDREQ`` − ``32B``) + 64 × ``TCC_EA_WRREQ_64B`` + 32 × (``TCC_EA_WRREQ`` − ``64B``) (``_sum`` suffix
  accepted).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from gpulens.analyzers._flop_models import OpCost, op_cost
from gpulens.analyzers.launches import link_gpu_to_launch
from gpulens.timeline import Timeline

_NCU_FP = re.compile(r"^(?:smsp|sm)__sass_thread_inst_executed_op_([dfh])(add|mul|fma)_pred_on\.sum$")
_NCU_TENSOR = re.compile(r"^sm__ops_path_tensor_src_([a-z0-9]+?)_dst_[a-z0-9]+\.sum$")
_NCU_FLOPCOUNT = re.compile(r"^flop_count_(sp|dp|hp)(?:\.sum)?$")
_AMD_VALU = re.compile(r"^SQ_INSTS_VALU_(ADD|MUL|FMA|TRANS)_F(16|32|64)(?:_sum)?$")
_AMD_MFMA = re.compile(r"^SQ_INSTS_VALU_MFMA_MOPS_(F16|BF16|F32|F64|I8)(?:_sum)?$")
_BYTES = re.compile(r"^(dram__bytes(_read|_write|_op_read|_op_write)?\.sum|FETCH_SIZE|WRITE_SIZE|"
                    r"TCC_EA0?_(RD|WR)REQ(_32B|_64B)?(_sum)?)$")
_PREC = {"d": "fp64", "f": "fp32", "h": "fp16", "sp": "fp32", "dp": "fp64", "hp": "fp16", "F16": "fp16",
         "BF16": "bf16", "F32": "fp32", "F64": "fp64", "I8": "int8", "fp16": "fp16", "bf16": "bf16",
         "tf32": "tf32", "fp8": "fp8", "e4m3": "fp8", "e5m2": "fp8", "int8": "int8", "s8": "int8", "fp64": "fp64"}
WORK_COLUMNS = ["flops", "bytes", "precision", "matrix", "source"]


def _add(d: dict, prec: str, v: float, matrix: bool) -> None:
    if v == v and v:
        d[(prec, matrix)] = d.get((prec, matrix), 0.0) + float(v)


def _row_work(metrics: dict[str, float], units: dict[str, str]) -> tuple[float, float, str | None, bool]:
    parts: dict[tuple[str, bool], float] = {}
    for m, v in metrics.items():
        if (g := _NCU_FP.match(m)):
            _add(parts, _PREC[g.group(1)], v * (2 if g.group(2) == "fma" else 1), False)
        elif (g := _NCU_TENSOR.match(m)):
            _add(parts, _PREC.get(g.group(1), "fp16"), v, True)
        elif (g := _NCU_FLOPCOUNT.match(m)):
            _add(parts, _PREC[g.group(1)], v, False)
        elif (g := _AMD_VALU.match(m)):
            _add(parts, _PREC["F" + g.group(2)], 64 * v * (2 if g.group(1) == "FMA" else 1), False)
        elif (g := _AMD_MFMA.match(m)):
            _add(parts, _PREC[g.group(1)], 512 * v, True)
    flops = sum(parts.values()) if parts else np.nan
    prec, matrix = max(parts, key=parts.get) if parts else (None, False)

    def get(*names: str) -> float:
        for n in names:
            if n in metrics and metrics[n] == metrics[n]:
                return metrics[n]
        return np.nan

    rd, wr = get("dram__bytes_read.sum"), get("dram__bytes_write.sum")
    by = np.nansum([rd, wr]) if rd == rd or wr == wr else get("dram__bytes.sum")
    if by != by:
        r2, w2 = get("dram__bytes_op_read.sum"), get("dram__bytes_op_write.sum")
        by = np.nansum([r2, w2]) if r2 == r2 or w2 == w2 else np.nan
    if by != by:
        f, w = get("FETCH_SIZE"), get("WRITE_SIZE")
        if f == f or w == w:
            by = sum((0 if x != x else x) * (1 if units.get(n) == "bytes" else 1024)
                     for x, n in ((f, "FETCH_SIZE"), (w, "WRITE_SIZE")))
    if by != by:
        rq, r32 = get("TCC_EA_RDREQ_sum", "TCC_EA_RDREQ"), get("TCC_EA_RDREQ_32B_sum", "TCC_EA_RDREQ_32B")
        wq, w64 = get("TCC_EA_WRREQ_sum", "TCC_EA_WRREQ"), get("TCC_EA_WRREQ_64B_sum", "TCC_EA_WRREQ_64B")
        if rq == rq:
            r32, wq, w64 = (0 if x != x else x for x in (r32, wq, w64))
            by = 32 * r32 + 64 * (rq - r32) + 64 * w64 + 32 * (wq - w64)
    return float(flops), float(by), prec, bool(matrix)


def counter_work(timeline: Timeline, event_ids: np.ndarray) -> pd.DataFrame:
    """Work per event from its Counters (columns :data:`WORK_COLUMNS`, indexed by event_id; NaN when absent)."""
    c = timeline.counters
    names = c["metric"].astype(str)
    keep = names.str.match(_NCU_FP) | names.str.match(_NCU_TENSOR) | names.str.match(_NCU_FLOPCOUNT) | \
        names.str.match(_AMD_VALU) | names.str.match(_AMD_MFMA) | names.str.match(_BYTES)
    sub = c[keep & c["event_id"].isin(list(event_ids))]
    rows = {}
    for eid, g in sub.groupby("event_id", sort=False):
        metrics = dict(zip(g["metric"].astype(str), g["value"].astype(float)))
        units = dict(zip(g["metric"].astype(str), g["unit"].astype(str)))
        fl, by, prec, mat = _row_work(metrics, units)
        rows[eid] = (fl, by, prec, mat, "counters")
    out = pd.DataFrame.from_dict(rows, orient="index", columns=WORK_COLUMNS)
    return out.reindex(event_ids)


def shape_work(timeline: Timeline, kernels: pd.DataFrame, causal: bool = False) -> tuple[pd.DataFrame, dict]:
    """Work per kernel launch from its cpu_op's shapes (linked by (rank, external_id)).

    An op that launches several kernels has its FLOPs and bytes split among them in proportion to their
    durations, so summing kernels never counts an op twice.

    Returns:
        (DataFrame indexed by event_id with :data:`WORK_COLUMNS`, stats dict: ``linked`` launches, ops without a
        model by name ``unmodelled``).
    """
    ev = timeline.events
    links = link_gpu_to_launch(timeline)
    allk = timeline.of_kind("kernel")
    op_of = links["op_event_id"].reindex(allk.index)
    op_time = allk["dur_ns"].groupby(op_of.to_numpy(), dropna=True).sum()
    ops = ev.set_index("event_id")
    costs: dict[int, OpCost | None] = {}
    rows, unmodelled, linked = {}, {}, 0
    for idx, eid, dur in zip(kernels.index, kernels["event_id"], kernels["dur_ns"]):
        op = links["op_event_id"].get(idx, pd.NA)
        if pd.isna(op):
            continue
        op = int(op)
        linked += 1
        if op not in costs:
            o = ops.loc[op]
            dims, types = o["input_dims"], o["input_types"]
            costs[op] = op_cost(str(o["name"]), None if pd.isna(dims) else str(dims),
                                None if pd.isna(types) else str(types), causal)
            if costs[op] is None:
                unmodelled[str(o["name"])] = unmodelled.get(str(o["name"]), 0) + 1
        cost = costs[op]
        if cost is None:
            continue
        share = float(dur) / op_time[op] if op_time.get(op, 0) > 0 else 1.0
        rows[eid] = (cost.flops * share, cost.bytes * share, cost.precision, cost.matrix, "shapes")
    out = pd.DataFrame.from_dict(rows, orient="index", columns=WORK_COLUMNS).reindex(kernels["event_id"].to_numpy())
    return out, {"linked": linked, "unmodelled": unmodelled}
