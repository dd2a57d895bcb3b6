"""FLOPs and bytes per memory level per launch, for the hierarchical roofline (NVIDIA ncu metrics, AMD
rocprofiler-compute counters).

NVIDIA (Nsight Compute metric names; Kernel Profiling Guide "Roofline"): FLOPs = Σ over fp16/fp32/fp64 of
``add + mul + 2·fma`` thread instructions (``{sm,smsp}__sass_thread_inst_executed_op_{h,f,d}{add,mul,fma}_pred_on.sum``,
or counted from their ``.per_cycle_elapsed`` rates) + tensor-core operations per source type
(``sm__ops_path_tensor_src_*.sum``; tensor FLOPs are never guessed from instruction counts);
bytes per level: DRAM ``dram__bytes.sum`` (or read + write), L2 ``lts__t_bytes.sum``, L1 ``l1tex__t_bytes.sum``,
(else 32 × the global load/store sectors ``l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum``), shared
``sm__sass_data_bytes_mem_shared.sum``.

AMD (rocprof-compute ``analysis_configs/<gfx>/0200_system-speed-of-light.yaml``): FLOPs = 64·(ADD + MUL + TRANS +
2·FMA) over ``SQ_INSTS_VALU_*_F16/F32/F64`` + 512 · ``SQ_INSTS_VALU_MFMA_MOPS_<type>`` over the floating-point types
(:data:`gpulens.analyzers._work.AMD_MFMA_FLOAT`: F16, BF16, F32, F64, F8, XF32, F6F4) ("VALU FLOPs", "MFMA FLOPs"); bytes: HBM = L2-Fabric read + write bytes (:mod:`gpulens.analyzers._sol_amd`), L2 = ``TCC_REQ_sum ·
128`` ("L2 Cache BW"), vL1D = ``TCP_TOTAL_CACHE_ACCESSES_sum · 64`` (gfx90a) or ``· 128`` (gfx942) ("vL1D Cache BW"),
LDS = ``(SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT) · 4 · lds_banks_per_cu`` ("Theoretical LDS Bandwidth").
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from gpulens.analyzers._flop_coverage import missing_flop_counters
from gpulens.analyzers._sol_amd import _col  # a column as floats, NaN when the counter was not collected
from gpulens.analyzers._work import AMD_MFMA_FLOAT

LEVELS = ("dram", "l2", "l1", "shared")
_NV_BYTES = {"dram": ("dram__bytes.sum",), "l2": ("lts__t_bytes.sum",), "l1": ("l1tex__t_bytes.sum",),
             "shared": ("sm__sass_data_bytes_mem_shared.sum",)}
_NV_DRAM_PARTS = (("dram__bytes_read.sum", "dram__bytes_write.sum"),
                  ("dram__bytes_op_read.sum", "dram__bytes_op_write.sum"))
_AMD_VALU = [(f"SQ_INSTS_VALU_{op}_{p}", 128.0 if op == "FMA" else 64.0)
             for p in ("F16", "F32", "F64") for op in ("ADD", "MUL", "TRANS", "FMA")]
_AMD_MFMA = [f"SQ_INSTS_VALU_MFMA_MOPS_{p}" for p in AMD_MFMA_FLOAT]


def wanted_metrics(counters: pd.DataFrame) -> list[str]:
    """The metric names of ``counters`` that :func:`nvidia` / :func:`amd` read (by :data:`_WANTED_PREFIXES`)."""
    if "metric" not in counters or not len(counters):
        return []
    metric = counters["metric"]
    uniq = metric.cat.categories if isinstance(metric.dtype, pd.CategoricalDtype) else pd.unique(metric)
    return [m for m in map(str, uniq) if m.startswith(_WANTED_PREFIXES)]


def _wide(counters: pd.DataFrame, ids: np.ndarray) -> pd.DataFrame:
    from gpulens.analyzers.context import category_mask

    want = wanted_metrics(counters)
    c = counters[category_mask(counters["metric"], want)] if want else counters.iloc[0:0]
    c = c[c["event_id"].isin(ids)]
    c = c.assign(metric=c["metric"].astype(str)).drop_duplicates(["event_id", "metric"])
    return c.pivot(index="event_id", columns="metric", values="value").reindex(ids) if len(c) else \
        pd.DataFrame(index=pd.Index(ids, name="event_id"))


#: Metric-name prefixes read here (everything else in a large Counters table is skipped before pivoting).
_WANTED_PREFIXES = ("sm__sass_thread_inst_executed_op_", "smsp__sass_thread_inst_executed_op_", "sm__cycles_elapsed",
                    "smsp__cycles_elapsed", "sm__ops_path_tensor_", "dram__bytes", "lts__t_bytes",
                    "l1tex__t_bytes", "l1tex__t_sectors_pipe_lsu_mem_global_op_", "sm__sass_data_bytes_mem_shared",
                    "SQ_INSTS_VALU_", "TCC_", "TCP_TOTAL_CACHE_ACCESSES", "SQ_LDS_", "GRBM_GUI_ACTIVE")


def _sum(w: pd.DataFrame, terms: list[tuple[str, float]]) -> np.ndarray:
    present = [(m, f) for m, f in terms if m in w]
    if not present:
        return np.full(len(w), np.nan)
    return sum(w[m].fillna(0).to_numpy(dtype=float) * f for m, f in present)


def nvidia(counters: pd.DataFrame, ids: np.ndarray, dur_ns: pd.Series | None = None) -> pd.DataFrame:
    """Columns ``flops``, ``tensor_flops`` and ``bytes_<level>`` per event id (NaN when not counted).

    FP-instruction counts and tensor-core operations are read as the roofline's :mod:`gpulens.analyzers._work`
    reads them (one spelling per instruction; counts from ncu's per-cycle rates given ``dur_ns``, each event's
    duration [ns] by event id; the tensor totals per source type, never their per-instruction breakdowns)."""
    from gpulens.analyzers._work import counts_from_rates, fp_counters, tensor_counters

    w = _wide(counters, ids)
    if dur_ns is not None:
        w = counts_from_rates(w, dur_ns)
    out = pd.DataFrame(index=w.index)
    out["flops"] = _sum(w, [(m, per) for m, _, per in fp_counters(w.columns)])
    tens = [(m, 1.0) for m, _ in tensor_counters(w.columns)]
    out["tensor_flops"] = _sum(w, tens)
    out["flops"] = np.where(np.isnan(out["flops"]), out["tensor_flops"],
                            out["flops"] + np.nan_to_num(out["tensor_flops"]))
    out["flops_missing"] = missing_flop_counters(w).to_numpy(dtype=object)  # a lower bound when not ""
    for lvl, names in _NV_BYTES.items():
        out[f"bytes_{lvl}"] = _sum(w, [(names[0], 1.0)])
    # loads + stores, both collected (a direction not collected is unknown, not 0 sectors)
    sectors = 32.0 * (_col(w, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
                      + _col(w, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"))
    out["bytes_l1"] = np.where(np.isnan(out["bytes_l1"]), sectors, out["bytes_l1"])  # 32-byte sectors
    for rd, wr in _NV_DRAM_PARTS:  # read + write, both collected (a direction not collected is unknown, not 0)
        part = _col(w, rd) + _col(w, wr)
        out["bytes_dram"] = np.where(np.isnan(out["bytes_dram"]), part, out["bytes_dram"])
    return out


def amd(counters: pd.DataFrame, ids: np.ndarray, dev: Mapping[str, Any]) -> pd.DataFrame:
    """As :func:`nvidia`, from rocprof-compute counters (``tensor_flops`` = MFMA FLOPs)."""
    from gpulens.analyzers._sol_amd import dispatch_figures

    w = _wide(counters, ids)
    out = pd.DataFrame(index=w.index)
    valu = _sum(w, _AMD_VALU)
    mfma = _sum(w, [(m, 512.0) for m in _AMD_MFMA])
    out["tensor_flops"] = mfma
    out["flops"] = np.where(np.isnan(valu) & np.isnan(mfma), np.nan, np.nan_to_num(valu) + np.nan_to_num(mfma))
    out["flops_missing"] = missing_flop_counters(w).to_numpy(dtype=object)  # a lower bound when not ""
    out["bytes_dram"] = dispatch_figures(w, np.full(len(w), np.nan), dev)["dram_bytes"].to_numpy()
    gfx = str(dev.get("gfx_arch") or "").split(":")[0].lower()
    out["bytes_l2"] = _sum(w, [("TCC_REQ_sum", 128.0)])
    out["bytes_l1"] = _sum(w, [("TCP_TOTAL_CACHE_ACCESSES_sum", 128.0 if gfx >= "gfx940" else 64.0)])
    banks = float(dev.get("lds_banks_per_cu") or 32)
    # both counters of the formula: without SQ_LDS_BANK_CONFLICT the conflict cycles are unknown, not 0
    out["bytes_shared"] = (_col(w, "SQ_LDS_IDX_ACTIVE") - _col(w, "SQ_LDS_BANK_CONFLICT")) * 4 * banks
    return out
