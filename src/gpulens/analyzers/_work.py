"""Per-launch work (FLOPs, DRAM bytes, precision) of kernels: from hardware counters, else from the launching op's
shapes. Used by the roofline analyzer.

Counter formulas (gpu-facts §1.3–1.4):

* Nsight Compute SASS counters ``smsp__sass_thread_inst_executed_op_{f,d,h}{add,mul,fma}_pred_on.sum`` (also the
  ``sm__`` spelling): add + mul + 2 × fma per precision (HTA uses the same weights). Nsight Compute's roofline
  sections (SpeedOfLight_RooflineChart) record these as rates, ``….sum.per_cycle_elapsed`` [inst/cycle], not counts:
  count = rate × the unit's elapsed cycles (``<unit>__cycles_elapsed.avg``, else ``….avg.per_second`` × the
  kernel's duration) — the product ncu's chart itself plots as achieved FLOP/s (rate × cycles per second); a
  ``.sum`` count, when also present, wins. (An H200 saxpy over 2²⁴ elements: 148.947 inst/cycle × 1.976 GHz ×
  56.99 µs = 16,777,2xx FFMA.) Tensor work from
  ``sm__ops_path_tensor_src_<type>_dst_<type>.sum`` (counted in FLOPs; a total and its sparsity or destination
  parts counted once, :func:`tensor_counters`); ``flop_count_{sp,dp,hp}.sum`` (nvprof-style: the same FP
  instructions' FLOPs) only for a launch without SASS FP counts — both together would count its FLOPs twice.
  Bytes: ``dram__bytes_read.sum + dram__bytes_write.sum``, else ``dram__bytes.sum``, else
  ``dram__bytes_op_read.sum + dram__bytes_op_write.sum``.
* rocprof / rocprof-compute: 64 × Σ (``SQ_INSTS_VALU_{ADD,MUL,TRANS}_F*`` + 2 × ``FMA_F*``) + 512 ×
  Σ ``SQ_INSTS_VALU_MFMA_MOPS_*`` (every type of :data:`AMD_MFMA_TYPES`: FP8 and XF32 on MI300, FP6/FP4 on MI350). Bytes: ``FETCH_SIZE + WRITE_SIZE`` (rocprof reports KiB, × 1,024; used as bytes
  only when the counter's unit says ``bytes``, :func:`size_scale`), else the MI200 HBM formula
  32 × ``TCC_EA_RDREQ_32B`` + 64 × (``TCC_EA_RDREQ`` − ``32B``) + 64 × ``TCC_EA_WRREQ_64B`` + 32 × (``TCC_EA_WRREQ`` − ``64B``) (``_sum`` suffix
  accepted); the MI300 (gfx942) spelling ``TCC_EA0_*`` with 128-byte reads counted by ``TCC_BUBBLE``: 128 ×
  ``TCC_BUBBLE`` + 32 × ``TCC_EA0_RDREQ_32B`` + 64 × (``TCC_EA0_RDREQ`` − ``BUBBLE`` − ``RDREQ_32B``) + 32 ×
  (``TCC_EA0_WRREQ`` − ``WRREQ_64B``) + 64 × ``TCC_EA0_WRREQ_64B`` (gpu-facts §1.4); without ``TCC_BUBBLE`` an
  ``EA0`` read count has no known request size and the bytes are unknown.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from gpulens.analyzers._flop_coverage import missing_flop_counters
from gpulens.analyzers._flop_models import OpCost, op_cost
from gpulens.analyzers._optree import gpu_op_links
from gpulens.analyzers.context import category_mask, codes_of, context_of, int_sums, reindex_sorted, unique_ints
from gpulens.timeline import Timeline

_NCU_FP = re.compile(r"^(?:smsp|sm)__sass_thread_inst_executed_op_([dfh])(add|mul|fma)_pred_on\.sum$")
#: the same counters as rates (ncu's roofline sections): group 1 the unit (smsp or sm), group 2 the count's name
_NCU_FP_RATE = re.compile(r"^((?:smsp|sm))__(sass_thread_inst_executed_op_[dfh](?:add|mul|fma)_pred_on\.sum)"
                          r"\.per_cycle_elapsed$")
_NCU_CYCLES = re.compile(r"^(?:smsp|sm)__cycles_elapsed\.avg(?:\.per_second)?$")
#: tensor-core work per source type: ``sm__ops_path_tensor_src_<type>[_dst_<type>][_sparsity_on|off].sum`` (the
#: per-instruction breakdowns ``sm__ops_path_tensor_op_<hmma|hgmma|…>_src_…`` count the same operations again and
#: are not read: an H200 bf16 GEMM reports 137,438,953,472 = 2·4096³ in both ``…_src_bf16_dst_fp32.sum`` and
#: ``…_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum``)
_NCU_TENSOR = re.compile(r"^sm__ops_path_tensor_src_([a-z0-9]+?)(?:_dst_([a-z0-9]+))?(?:_sparsity_(on|off))?\.sum$")
_NCU_FLOPCOUNT = re.compile(r"^flop_count_(sp|dp|hp)(?:\.sum)?$")
_AMD_VALU = re.compile(r"^SQ_INSTS_VALU_(ADD|MUL|FMA|TRANS)_F(16|32|64)(?:_sum)?$")
#: rocprof's MFMA operation counters ``SQ_INSTS_VALU_MFMA_MOPS_<type>`` (each counts operations in units of 512,
#: rocprof-compute "MFMA FLOPs (<type>)" = 512 · the counter) → precision: F16, BF16, F32, F64 and I8 (CDNA2+; I8 are
#: integer operations, IOPs), F8 and XF32 (CDNA3, gfx942: FP8, and XF32, the TF32 equivalent) and F6F4 (CDNA4,
#: gfx950: FP6/FP4, which run at one MFMA rate; the FP4 roof). ``rocprofv3 -L`` lists F16, BF16, F32, F64, I8, F8
#: and XF32 on gfx942 and F6F4 as well on gfx950.
AMD_MFMA_TYPES = {"F16": "fp16", "BF16": "bf16", "F32": "fp32", "F64": "fp64", "I8": "int8", "F8": "fp8",
                  "XF32": "tf32", "F6F4": "fp4"}
#: The floating-point ones (FLOPs; I8 counts integer operations).
AMD_MFMA_FLOAT = tuple(t for t in AMD_MFMA_TYPES if t != "I8")
_AMD_MFMA = re.compile(r"^SQ_INSTS_VALU_MFMA_MOPS_(" + "|".join(AMD_MFMA_TYPES) + r")(?:_sum)?$")
_BYTES = re.compile(r"^(dram__bytes(_read|_write|_op_read|_op_write)?\.sum|FETCH_SIZE|WRITE_SIZE|"
                    r"TCC_EA0?_(RD|WR)REQ(_32B|_64B)?(_sum)?|TCC_BUBBLE(_sum)?)$")
_PREC = {"d": "fp64", "f": "fp32", "h": "fp16", "sp": "fp32", "dp": "fp64", "hp": "fp16", "F16": "fp16",
         "BF16": "bf16", "F32": "fp32", "F64": "fp64", "I8": "int8", "fp16": "fp16", "bf16": "bf16",
         "tf32": "tf32", "fp8": "fp8", "e4m3": "fp8", "e5m2": "fp8", "int8": "int8", "s8": "int8", "fp64": "fp64",
         "int1": "int1", "int4": "int4", "fp4": "fp4", "fp6": "fp6"}
#: ``flops_missing``: the FLOP counters of the launch's vendor formula not collected (:mod:`._flop_coverage`), ""
#: when all were, None for shapes or no FLOP counter — a figure over fewer counters is a lower bound
WORK_COLUMNS = ["flops", "bytes", "precision", "matrix", "source", "flops_missing"]


def _col(wide: pd.DataFrame, *names: str) -> pd.Series:
    """First present column of ``names`` (NaN series when none)."""
    for n in names:
        if n in wide:
            return wide[n]
    return pd.Series(np.nan, index=wide.index)


#: rocprof's DRAM byte counters, recorded in KiB (:data:`gpulens.collectors._dispatch.COUNTER_UNITS`).
SIZE_COUNTERS = ("FETCH_SIZE", "WRITE_SIZE")


def size_scale(unit: str) -> float:
    """Bytes per recorded unit of a rocprof ``FETCH_SIZE`` / ``WRITE_SIZE`` value: 1 when its unit says ``bytes``,
    else 1,024 — ``KiB``, and ``""`` as older Timelines store them: rocprof defines both as "total kilobytes
    fetched from / written to the video memory", (bytes) / 1024 (ROCm/rocprofiler ``metrics.xml``)."""
    return 1.0 if str(unit) == "bytes" else 1024.0


def counter_work(timeline: Timeline, event_ids: np.ndarray, counters: pd.DataFrame | None = None,
                 dur_ns: pd.Series | None = None) -> pd.DataFrame:
    """Work per event from its Counters (columns :data:`WORK_COLUMNS`, indexed by event_id; NaN when absent).

    Vectorised: the event × metric values are pivoted once and each formula is a column expression.

    Args:
        counters: Counters-shaped rows to read instead of ``timeline.counters`` (untimed dispatches,
            :func:`gpulens.analyzers._untimed.untimed_kernels`); ``dur_ns``: their durations [ns] by id (for ncu's
            per-cycle rates), else the events' ``dur_ns``.
    """
    pats = (_NCU_FP, _NCU_FP_RATE, _NCU_CYCLES, _NCU_TENSOR, _NCU_FLOPCOUNT, _AMD_VALU, _AMD_MFMA, _BYTES)
    want = lambda m: any(p.match(m) for p in pats)  # noqa: E731
    if counters is None:
        sub = context_of(timeline).counter_rows(want, event_ids)
    else:
        sub = counters[category_mask(counters["metric"], want) & counters["event_id"].isin(event_ids).to_numpy()]
        sub = sub.assign(metric=sub["metric"].astype(str))
    idx = pd.Index(event_ids, name="event_id")
    # float columns and object (text) columns made separately: an all-object frame whose float columns are then
    # replaced keeps its first block whole (at 1M hot kernels, 33 MiB held for nothing through roofline)
    out = pd.DataFrame({"flops": np.full(len(idx), np.nan), "bytes": np.full(len(idx), np.nan)}, index=idx)
    for c in ("precision", "matrix", "source", "flops_missing"):
        out[c] = pd.Series(np.full(len(idx), np.nan, dtype=object), index=idx, dtype=object, copy=False)
    if not len(sub):
        return out
    sub = sub.drop_duplicates(["event_id", "metric"])
    ev = timeline.events
    wide = counts_from_rates(sub.pivot(index="event_id", columns="metric", values="value"),
                             pd.Series(ev["dur_ns"].to_numpy(dtype=float), index=ev["event_id"].to_numpy())
                             if dur_ns is None else dur_ns)
    units = dict(zip(sub["metric"], sub["unit"].astype(str)))
    parts: dict[tuple[str, bool], pd.Series] = {}

    def add(prec: str, matrix: bool, v: pd.Series) -> None:
        key = (prec, matrix)
        parts[key] = parts[key].add(v.fillna(0)) if key in parts else v.fillna(0)

    sass = [m for m, _, _ in fp_counters(wide.columns)]
    for m, prec, per in fp_counters(wide.columns):
        add(prec, False, wide[m].astype(float) * per)
    # nvprof-style flop_count_* count the same FP instructions' FLOPs as the SASS counts (add + mul + 2 × fma): a
    # launch with both is counted from the SASS counts alone, never twice
    by_sass = wide[sass].notna().any(axis=1) if sass else pd.Series(False, index=wide.index)
    for m, prec in tensor_counters(wide.columns):
        add(prec, True, wide[m].astype(float))
    for m in wide.columns:
        v = wide[m].astype(float)
        if _NCU_FP.match(m):
            continue  # counted above, one spelling per instruction
        elif _NCU_TENSOR.match(m):
            continue  # counted below, each operation once
        elif (g := _NCU_FLOPCOUNT.match(m)):
            add(_PREC[g.group(1)], False, v.where(~by_sass))
        elif (g := _AMD_VALU.match(m)):
            add(_PREC["F" + g.group(2)], False, 64 * v * (2 if g.group(1) == "FMA" else 1))
        elif (g := _AMD_MFMA.match(m)):
            add(AMD_MFMA_TYPES[g.group(1)], True, 512 * v)
    if parts:
        keys = list(parts)
        mat = pd.concat([parts[k] for k in keys], axis=1)
        flops = mat.sum(axis=1)
        best = mat.to_numpy().argmax(axis=1)
        # a complete FP-instruction count of 0 is a figure (a copy kernel); a zero tensor-op count alone is not
        general = [m for m in wide.columns if _NCU_FP.match(m) or _NCU_FLOPCOUNT.match(m) or _AMD_VALU.match(m)]
        has = (flops > 0) | (wide[general].notna().any(axis=1) if general else False)
        out.loc[flops.index[has], "flops"] = flops[has].to_numpy()
        out.loc[flops.index[has], "precision"] = [keys[i][0] for i in best[has.to_numpy()]]
        out.loc[flops.index[has], "matrix"] = [keys[i][1] for i in best[has.to_numpy()]]
        miss = missing_flop_counters(wide)  # what the figure lacks: a counter not collected is not 0 FLOP
        out.loc[flops.index[has], "flops_missing"] = miss[has].to_numpy(dtype=object)

    def both(a: str, b: str, scale_a: float = 1, scale_b: float = 1) -> pd.Series:
        # read + write, both collected: a direction not collected is unknown, never 0 bytes
        return _col(wide, a).astype(float) * scale_a + _col(wide, b).astype(float) * scale_b

    kb = {n: size_scale(units.get(n, "")) for n in SIZE_COUNTERS}  # rocprof: KiB
    by = both("dram__bytes_read.sum", "dram__bytes_write.sum")
    by = by.combine_first(_col(wide, "dram__bytes.sum"))
    by = by.combine_first(both("dram__bytes_op_read.sum", "dram__bytes_op_write.sum"))
    by = by.combine_first(both("FETCH_SIZE", "WRITE_SIZE", kb["FETCH_SIZE"], kb["WRITE_SIZE"]))
    # every request count of the formula, or unknown bytes (one not collected is not 0 requests)
    rq = _col(wide, "TCC_EA_RDREQ_sum", "TCC_EA_RDREQ")
    r32 = _col(wide, "TCC_EA_RDREQ_32B_sum", "TCC_EA_RDREQ_32B")
    wq = _col(wide, "TCC_EA_WRREQ_sum", "TCC_EA_WRREQ")
    w64 = _col(wide, "TCC_EA_WRREQ_64B_sum", "TCC_EA_WRREQ_64B")
    by = by.combine_first(tcc_ea_bytes(rq, r32, wq, w64))
    rq0 = _col(wide, "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ")
    bub = _col(wide, "TCC_BUBBLE_sum", "TCC_BUBBLE")  # NaN without it: the EA0 bytes stay unknown
    r32 = _col(wide, "TCC_EA0_RDREQ_32B_sum", "TCC_EA0_RDREQ_32B")
    wq = _col(wide, "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ")
    w64 = _col(wide, "TCC_EA0_WRREQ_64B_sum", "TCC_EA0_WRREQ_64B")
    by = by.combine_first(tcc_ea_bytes(rq0, r32, wq, w64, bub))
    out.loc[by.index, "bytes"] = by.to_numpy(dtype=float)
    got = out["flops"].notna() | out["bytes"].notna()
    out.loc[got, "source"] = "counters"
    out["flops"] = out["flops"].astype(float)
    out["bytes"] = out["bytes"].astype(float)
    return out


def counts_from_rates(wide: pd.DataFrame, dur_ns: pd.Series) -> pd.DataFrame:
    """``wide`` (event × metric, indexed by event id) with each FP-instruction rate
    ``<unit>__X.sum.per_cycle_elapsed`` turned into the count ``<unit>__X.sum`` (module doc), filling only where that
    count is missing; ``dur_ns`` gives each event's duration [ns] (indexed by event id). A rate without a clock or a
    duration stays unknown. Returns the frame with the rate and clock columns dropped."""
    rates = [m for m in wide.columns if _NCU_FP_RATE.match(m)]
    if not rates:
        return wide
    wide = wide.copy()
    dur = dur_ns.reindex(wide.index).astype(float)
    for m in rates:
        unit, count = _NCU_FP_RATE.match(m).groups()
        cycles = _col(wide, f"{unit}__cycles_elapsed.avg").astype(float).combine_first(
            _col(wide, f"{unit}__cycles_elapsed.avg.per_second").astype(float) * dur / 1e9)
        name = f"{unit}__{count}"
        wide[name] = _col(wide, name).astype(float).combine_first(wide[m].astype(float) * cycles)
    return wide.drop(columns=[m for m in wide.columns if _NCU_FP_RATE.match(m) or _NCU_CYCLES.match(m)])


def tensor_counters(columns) -> list[tuple[str, str]]:
    """The ncu tensor-core operation counts among ``columns`` (``sm__ops_path_tensor_src_<src>[_dst_<dst>]
    [_sparsity_on|off].sum``, each in FLOPs) as (metric, precision), each operation counted once: ncu lists a total
    beside its parts — ``…_src_bf16_dst_fp32`` = ``…_sparsity_off`` + ``…_sparsity_on`` (Nsight Compute's metric
    list: "# of math ops executed in Tensor path with source BF16 and destination FP32", and the same with sparsity
    off / on), and a source type's total without a destination beside its per-destination counts. Per source type:
    the total without destination when recorded (or both its sparsity parts), else per destination the count
    without sparsity suffix, else the sparsity on and off counts summed."""
    by: dict[str, dict[str | None, dict[str | None, str]]] = {}
    for m in map(str, columns):
        g = _NCU_TENSOR.match(m)
        if g:
            by.setdefault(g.group(1), {}).setdefault(g.group(2), {})[g.group(3)] = m
    out = []
    for src, dsts in by.items():
        whole = dsts.get(None, {})
        if None in whole or {"on", "off"} <= whole.keys() or len(dsts) == 1:
            groups = [whole or next(iter(dsts.values()))]
        else:  # per destination (a source total with only one of its sparsity parts is no total)
            groups = [v for k, v in dsts.items() if k is not None]
        for grp in groups:
            picked = [grp[None]] if None in grp else [grp[k] for k in ("off", "on") if k in grp]
            out += [(m, _PREC.get(src, "fp16")) for m in picked]
    return out


def fp_counters(columns) -> list[tuple[str, str, float]]:
    """The ncu FP-instruction counts among ``columns`` as (metric, precision, FLOPs per instruction: 2 for an FMA),
    one per (precision, operation): the ``smsp__`` and ``sm__`` spellings count the same instructions (the sum over
    every SMSP is the sum over every SM), so the ``smsp__`` one is taken when both are present."""
    chosen: dict[tuple[str, str], str] = {}
    for m in map(str, columns):
        g = _NCU_FP.match(m)
        if g and ((g.group(1), g.group(2)) not in chosen or m.startswith("smsp__")):
            chosen[(g.group(1), g.group(2))] = m
    return [(m, _PREC[p], 2.0 if op == "fma" else 1.0) for (p, op), m in chosen.items()]


def tcc_ea_bytes(rdreq, rdreq_32b, wrreq, wrreq_64b, bubble=0):
    """HBM bytes of AMD Instinct kernels from the L2↔memory (TCC EA) request counters, element-wise over
    Series/arrays (NaN in, NaN out): 32 × 32-byte reads + 64 × the other reads + 64 × 64-byte writes + 32 × the
    other writes (MI200: ``TCC_EA_*``); on MI300 (``TCC_EA0_*``) ``TCC_BUBBLE`` counts the 128-byte reads among
    the reads: + 128 × bubble, − bubble from the 64-byte ones (AMD rocprofiler-compute's HBM bandwidth metric,
    gpu-facts §1.4). Returns bytes."""
    return (128 * bubble + 64 * (rdreq - bubble - rdreq_32b) + 32 * rdreq_32b
            + 64 * wrreq_64b + 32 * (wrreq - wrreq_64b))


def shape_work(timeline: Timeline, kernels: pd.DataFrame, causal: bool = False) -> tuple[pd.DataFrame, dict]:
    """Work per kernel launch from its cpu_op's shapes (linked by (rank, external_id)).

    An op that launches several kernels has its bytes split among them in proportion to their durations, and its
    FLOPs among those that compute (not :data:`DATA_MOVEMENT_KERNEL_RE`'s copies, fills and layout transposes, e.g.
    an addmm's bias copy before its GEMM) in proportion to theirs — among all of them when none computes — so summing
    kernels never counts an op twice. The model runs once per distinct (op name, dims, types).

    Returns:
        (DataFrame indexed by event_id with :data:`WORK_COLUMNS` — ``precision``, ``matrix`` and ``source`` as
        categoricals, :func:`text_codes` reads them —, stats dict: ``linked`` launches, ops without a model by name
        ``unmodelled``).
    """
    ev = timeline.events
    ctx = context_of(timeline)
    links = pd.DataFrame({"op_event_id": gpu_op_links(timeline)})  # the one op linking (external id, else enclosing op)
    # every kernel's op and duration: the kernel rows of the GPU events (whose order the links follow), picked by a
    # mask on their kind — no kernel frame, no lookup of the kernels' row labels among the GPU events'
    is_k = category_mask(ctx.gpu["kind"], {"kernel"})
    op_all = links["op_event_id"].to_numpy(dtype="float64", na_value=np.nan)[is_k]
    has_op = ~np.isnan(op_all)
    op_dur, op_of = ctx.gpu["dur_ns"].to_numpy()[is_k][has_op], op_all[has_op].astype("int64")
    # the op's time on kernels that compute (not its copies, fills or layout transposes): its FLOPs go to those
    mover_all = category_mask(ctx.gpu["name"], DATA_MOVEMENT_KERNEL_RE)[is_k][has_op]
    math_dur = np.where(mover_all, 0, op_dur)
    if op_dur.dtype.kind in "iu":  # integer ns: exact sums per op on its id's code (no groupby's hash and sort)
        u_op, i_op = unique_ints(op_of, return_inverse=True)
        op_time = pd.Series(int_sums(i_op, op_dur, len(u_op)), index=pd.Index(u_op))
        op_math = pd.Series(int_sums(i_op, math_dur, len(u_op)), index=pd.Index(u_op))
        del i_op
    else:
        op_time = pd.Series(op_dur).groupby(op_of).sum()
        op_math = pd.Series(math_dur).groupby(op_of).sum()
    del op_dur, op_of, math_dur, mover_all
    op_k = reindex_sorted(links["op_event_id"], kernels.index).to_numpy(dtype="float64", na_value=np.nan)
    n = len(kernels)
    flops, nbytes = np.full(n, np.nan), np.full(n, np.nan)
    # precision, matrix and source as codes into small tables (−1 = missing): no object array of a pointer per
    # launch, no comparison of a million strings
    prec_tab: list[str] = []
    prec_code, matrix_code, source_code = (np.full(n, -1, dtype=np.int8) for _ in range(3))

    def result() -> pd.DataFrame:
        idx = pd.Index(kernels["event_id"].to_numpy(), name="event_id")
        text = {c: pd.Series(_categorical(v, tab), index=idx)
                for c, v, tab in (("precision", prec_code, prec_tab), ("matrix", matrix_code, [False, True]),
                                  ("source", source_code, ["shapes"]))}
        # an object Series: a bare object array would be re-inferred as Arrow strings, row by row
        text["flops_missing"] = pd.Series(np.full(n, None, dtype=object), index=idx, dtype=object, copy=False)
        return pd.DataFrame({"flops": flops, "bytes": nbytes, **text}, index=idx)[WORK_COLUMNS]

    linked = ~np.isnan(op_k)
    stats = {"linked": int(linked.sum()), "unmodelled": {}}
    if not linked.any():
        return result(), stats
    op_ids = op_k[linked].astype("int64")
    # the op model runs once per distinct (name, dims, types[, concrete inputs]): codes of the unique ops, then
    # unique code tuples
    uniq, inv = unique_ints(op_ids, return_inverse=True)
    pos = ctx.positions(uniq)
    # name, dims, types and, when the trace records them, the scalar arguments (an attention call's is_causal)
    names = [c for c in ("name", "input_dims", "input_types", "concrete_inputs") if c in ev]
    cols = [ev[c] if isinstance(ev[c].dtype, pd.CategoricalDtype) else ev[c].astype("category") for c in names]
    cats = [list(c.cat.categories) for c in cols]
    # (name, dims, types) codes packed into one int64 (each code + 1 so that −1, missing, stays distinct)
    codes = [codes_of(c)[pos].astype("int64") for c in cols]  # the ops' rows only, then widened
    if float(np.prod([len(cs) + 1.0 for cs in cats])) < 2.0 ** 62:
        packed = np.zeros(len(pos), dtype="int64")
        for code, cs in zip(codes, cats):
            packed = packed * (len(cs) + 1) + (code + 1)
        ukeys, kinv = unique_ints(packed, return_inverse=True)
        keys = np.zeros((len(ukeys), len(cols)), dtype="int64")
        for j in reversed(range(len(cols))):
            keys[:, j] = ukeys % (len(cats[j]) + 1) - 1
            ukeys = ukeys // (len(cats[j]) + 1)
    else:  # too many distinct values to pack: unique rows (slower)
        keys, kinv = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    kinv = kinv.reshape(-1)
    costs: list[OpCost | None] = []
    for key in keys:
        name, dims, types, *conc = (cats[j][int(x)] if x >= 0 else None for j, x in enumerate(key))
        costs.append(op_cost(str(name), dims, types, causal, conc[0] if conc else None))
    missing = [i for i, c in enumerate(costs) if c is None]
    if missing:  # ops without a model, by name, counted per op, in the order of the ops' event ids
        first = np.full(len(keys), len(kinv), dtype="int64")
        np.minimum.at(first, kinv, np.arange(len(kinv)))
        counts = np.bincount(kinv, minlength=len(keys))
        ti = names.index("input_types") if "input_types" in names else None
        di = names.index("input_dims") if "input_dims" in names else None
        for i in sorted(missing, key=lambda i: first[i]):
            name = str(cats[0][keys[i][0]] if keys[i][0] >= 0 else None)
            # shapes without dtypes: the models need each tensor's element type — not an op without a model
            untyped = di is not None and keys[i][di] >= 0 and (ti is None or keys[i][ti] < 0)
            into = stats.setdefault("untyped", {}) if untyped else stats["unmodelled"]
            into[name] = into.get(name, 0) + int(counts[i])
    key_of = kinv[inv]  # per linked kernel: index into keys
    key_ok = np.array([c is not None for c in costs])
    ok = key_ok[key_of]
    if not ok.any():
        return result(), stats
    dur = kernels["dur_ns"].to_numpy(dtype=float)[linked]
    tot = reindex_sorted(op_time, pd.Index(op_ids)).to_numpy(dtype=float)  # no hash table of every op id
    share = np.where(tot > 0, dur / np.where(tot > 0, tot, 1), 1.0)
    # FLOPs: among the op's computing kernels only, when it has any (an addmm's bias copy or a convolution's layout
    # transpose does none of the op's arithmetic); its bytes stay split over every kernel by duration
    mtot = reindex_sorted(op_math, pd.Index(op_ids)).to_numpy(dtype=float)
    mover = category_mask(kernels["name"], DATA_MOVEMENT_KERNEL_RE)[linked] if "name" in kernels else \
        np.zeros(len(op_ids), dtype=bool)
    fshare = np.where(mtot > 0, np.where(mover, 0.0, dur / np.where(mtot > 0, mtot, 1)), share)
    rows = np.flatnonzero(linked)[ok]
    k = key_of[ok]
    kf = np.array([c.flops if c is not None else np.nan for c in costs], dtype=float)
    kb = np.array([c.bytes if c is not None else np.nan for c in costs], dtype=float)
    prec_tab += sorted({str(c.precision) for c in costs if c is not None and c.precision is not None} | {"tf32"})
    kp = np.array([prec_tab.index(str(c.precision)) if c is not None and c.precision is not None else -1
                   for c in costs], dtype=np.int8)
    km = np.array([-1 if c is None or c.matrix is None else int(bool(c.matrix)) for c in costs], dtype=np.int8)
    flops[rows] = kf[k] * fshare[ok]
    nbytes[rows] = kb[k] * share[ok]
    prec_code[rows] = kp[k]
    matrix_code[rows] = km[k]
    source_code[rows] = 0
    fp32 = prec_tab.index("fp32") if "fp32" in prec_tab else None
    if "name" in kernels and fp32 is not None and (prec_code == fp32).any():
        # fp32 tensors multiplied on tensor cores in TF32 (torch.backends.cuda.matmul.allow_tf32, cudnn's default):
        # the kernel's name says so, and its roof is the TF32 matrix peak, not the CUDA cores' fp32
        tf32 = category_mask(kernels["name"], TF32_KERNEL_RE) & (prec_code == fp32)
        prec_code[tf32] = prec_tab.index("tf32")
        matrix_code[tf32] = 1
    return result(), stats


def _categorical(codes: np.ndarray, values: list) -> pd.Categorical:
    """``values[codes]`` (−1: missing) as a categorical of object categories: the texts and flags of a million
    launches as one small code each, read back by code (:func:`text_codes`)."""
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(pd.Index(values, dtype=object)))


def text_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A per-launch work column (:data:`WORK_COLUMNS`' precision, matrix, source, flops_missing) as (int64 code per
    row, −1 where missing; object array of the distinct values): its categories when categorical
    (:func:`shape_work`'s), else ``pd.factorize`` of the values (:func:`counter_work`'s object columns)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return codes_of(values).astype(np.int64), np.asarray(values.cat.categories, dtype=object)
    codes, uniq = pd.factorize(values.to_numpy(dtype=object))
    return codes.astype(np.int64, copy=False), np.asarray(uniq, dtype=object)


#: Kernel names of pure data movement launched inside a computing op: PyTorch's copy and fill kernels
#: (``direct_copy_kernel_cuda``, ``FillFunctor``), ``CatArrayBatchedCopy``, HIP's blit kernels (``copyBuffer``,
#: ``fillBuffer``), cuDNN's NCHW↔NHWC conversions and MIOpen's ``batched_transpose_*`` layout transposes. They do
#: none of the op's FLOPs (see :func:`shape_work`).
DATA_MOVEMENT_KERNEL_RE = re.compile(r"copy_kernel|CatArray|copyBuffer|fillBuffer|FillFunctor|fill_kernel|"
                                     r"nchwToNhwc|nhwcToNchw|batched_transpose", re.IGNORECASE)


#: Kernel names of fp32 work run on tensor cores in TF32 (NVIDIA Ampere and later): CUTLASS's
#: ``tensorop_s1688gemm`` / ``tensorop_s16816gemm`` (``s`` = single precision through the 16×8×8 / 16×8×16 TF32
#: MMA), and any name carrying ``tf32`` (cuBLAS/cuDNN ``…_tf32f32_…``, CUTLASS ``…_tf32_…``)
TF32_KERNEL_RE = re.compile(r"tf32|tensorop_s168(?:8|16)", re.IGNORECASE)


#: Cache-level traffic counters (gpu-facts §1.3–1.4): ncu L2 (``lts__t_bytes.sum``) and L1 (``l1tex__t_bytes.sum``)
#: bytes; rocprof-compute L2 = 64 × (``TCP_TCC_READ_REQ`` + ``TCP_TCC_WRITE_REQ`` + atomics), L1 = 64 ×
#: ``TCP_TOTAL_CACHE_ACCESSES`` (``_sum`` suffix accepted).
_L2_AMD = ("TCP_TCC_READ_REQ", "TCP_TCC_WRITE_REQ", "TCP_TCC_ATOMIC_WITH_RET_REQ", "TCP_TCC_ATOMIC_WITHOUT_RET_REQ")


def cache_bytes(timeline: Timeline, event_ids: np.ndarray) -> pd.DataFrame:
    """L2 and L1 bytes per event from counters (columns ``l2_bytes``, ``l1_bytes``; NaN when not counted)."""
    amd = [n + s for n in _L2_AMD for s in ("", "_sum")]
    names = ["lts__t_bytes.sum", "l1tex__t_bytes.sum", "TCP_TOTAL_CACHE_ACCESSES", "TCP_TOTAL_CACHE_ACCESSES_sum",
             *amd]
    sub = context_of(timeline).counter_rows(set(names), event_ids)
    out = pd.DataFrame({"l2_bytes": np.nan, "l1_bytes": np.nan}, index=pd.Index(event_ids, name="event_id"))
    if not len(sub):
        return out
    sub = sub.drop_duplicates(["event_id", "metric"])
    wide = sub.pivot(index="event_id", columns="metric", values="value")
    amd_cols = [n + "_sum" if n + "_sum" in wide else n for n in _L2_AMD if n + "_sum" in wide or n in wide]
    l2 = _col(wide, "lts__t_bytes.sum").combine_first(
        (64 * wide[amd_cols].sum(axis=1, min_count=1)) if amd_cols else pd.Series(np.nan, index=wide.index))
    l1 = _col(wide, "l1tex__t_bytes.sum").combine_first(
        64 * _col(wide, "TCP_TOTAL_CACHE_ACCESSES_sum", "TCP_TOTAL_CACHE_ACCESSES"))
    out.loc[wide.index, "l2_bytes"] = l2.to_numpy(dtype=float)
    out.loc[wide.index, "l1_bytes"] = l1.to_numpy(dtype=float)
    return out
