"""Which FLOP counters a launch's collection lacks: a counter not collected is unknown work, never 0 FLOP.

A FLOP count from hardware counters is complete only when every counter of its formula was collected:

* NVIDIA (Nsight Compute): add, mul and fma thread instructions of each of fp16, fp32 and fp64
  (``{sm,smsp}__sass_thread_inst_executed_op_{h,f,d}{add,mul,fma}_pred_on.sum``, or their ``.per_cycle_elapsed``
  rates; ncu collects fp32/fp64 in SpeedOfLight_RooflineChart and fp16 in the half-precision roofline chart — the
  H200 ``--page raw`` export of tests/data has the ``d`` and ``f`` rates but no ``h`` one), a precision's
  nvprof-style ``flop_count_{hp,sp,dp}`` standing for its three; plus tensor-core operations
  (``sm__ops_path_tensor_src_*.sum``, SpeedOfLight_HierarchicalTensorRooflineChart).
* AMD (rocprof-compute ``0200_system-speed-of-light.yaml`` "VALU FLOPs" and "MFMA FLOPs"): ``SQ_INSTS_VALU_{ADD,
  MUL,TRANS,FMA}_F{16,32,64}`` and ``SQ_INSTS_VALU_MFMA_MOPS_{F16,BF16,F32,F64}`` (the types every CDNA part counts;
  F8/XF32/F6F4 exist on gfx942/gfx950 only and are read when present, not required: a gfx90a has no such counter).

:func:`missing_flop_counters` names, per launch, the counters of its vendor's formula that were not collected, so
that the FLOP figure built from the others is shown as a lower bound over the collected ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

_NV_PREC = (("h", "fp16"), ("f", "fp32"), ("d", "fp64"))
_NV_OPS = ("add", "mul", "fma")
_NV_FLOPCOUNT = {"h": "hp", "f": "sp", "d": "dp"}
_AMD_PREC = ("F16", "F32", "F64")
_AMD_OPS = ("ADD", "MUL", "TRANS", "FMA")
_AMD_MFMA = ("F16", "BF16", "F32", "F64")


def _present(wide: pd.DataFrame, names: list[str]) -> np.ndarray:
    """Per row: any of ``names`` (columns of ``wide``) holds a value."""
    have = [n for n in names if n in wide.columns]
    out = np.zeros(len(wide), dtype=bool)
    for n in have:  # column by column: no frame of the selected columns
        out |= ~np.isnan(wide[n].to_numpy(dtype=float, na_value=np.nan))
    return out


def _groups(wide: pd.DataFrame) -> list[tuple[str, str, np.ndarray]]:
    """(vendor, what is missing in words, per-row presence) for every counter of both vendors' formulas."""
    out: list[tuple[str, str, np.ndarray]] = []
    for p, prec in _NV_PREC:
        whole = _present(wide, [f"flop_count_{_NV_FLOPCOUNT[p]}", f"flop_count_{_NV_FLOPCOUNT[p]}.sum"])
        for op in _NV_OPS:
            names = [f"{u}__sass_thread_inst_executed_op_{p}{op}_pred_on.sum" for u in ("smsp", "sm")]
            out.append(("nvidia", f"{prec} {p}{op}", _present(wide, names) | whole))
    tensor = [c for c in map(str, wide.columns) if c.startswith("sm__ops_path_tensor_src_") and c.endswith(".sum")]
    out.append(("nvidia", "tensor-core operations (sm__ops_path_tensor_src_*)", _present(wide, tensor)))
    for prec in _AMD_PREC:
        for op in _AMD_OPS:
            n = f"SQ_INSTS_VALU_{op}_{prec}"
            out.append(("amd", n, _present(wide, [n, n + "_sum"])))
    for t in _AMD_MFMA:
        n = f"SQ_INSTS_VALU_MFMA_MOPS_{t}"
        out.append(("amd", n, _present(wide, [n, n + "_sum"])))
    return out


def missing_flop_counters(wide: pd.DataFrame) -> pd.Series:
    """Per row of ``wide`` (launch × counter, FP-instruction rates already turned into counts): the FLOP counters of
    its vendor's formula (module doc) that were not collected, in words (``"fp16 hadd, fp16 hmul, fp16 hfma"``);
    ``""`` when all were; None when the row has no FLOP counter at all. A row with both vendors' counters (never
    seen) is judged by the vendor with more of them."""
    out = np.full(len(wide), None, dtype=object)
    if not len(wide):
        return pd.Series(out, index=wide.index, dtype=object)
    groups = _groups(wide)
    by_vendor = {}
    for vendor in ("nvidia", "amd"):
        g = [(w, m) for v, w, m in groups if v == vendor]
        mat = np.column_stack([m for _, m in g])
        by_vendor[vendor] = ([w for w, _ in g], mat)
    nv_n = by_vendor["nvidia"][1].sum(axis=1)
    amd_n = by_vendor["amd"][1].sum(axis=1)
    for vendor, rows in (("nvidia", (nv_n > 0) & (nv_n >= amd_n)), ("amd", (amd_n > 0) & (amd_n > nv_n))):
        if not rows.any():
            continue
        words, mat = by_vendor[vendor]
        # each row's presence pattern as one integer (≤ 16 counters a vendor): one text per distinct pattern
        code = mat[rows].astype(np.int64) @ (np.int64(1) << np.arange(mat.shape[1], dtype=np.int64))
        pats, inv = np.unique(code, return_inverse=True)
        texts = np.array([_words(vendor, [w for j, w in enumerate(words) if not (int(p) >> j) & 1]) for p in pats],
                         dtype=object)
        out[rows] = texts[np.asarray(inv).reshape(-1)]
    return pd.Series(out, index=wide.index, dtype=object)


def _words(vendor: str, missing: list[str]) -> str:
    """The missing counters in short words: a precision whose three ncu instructions are all missing reads
    ``fp16 add/mul/fma``."""
    if vendor != "nvidia":
        return ", ".join(missing)
    out = []
    for p, prec in _NV_PREC:
        ops = [w.split()[1][1:] for w in missing if w.startswith(prec + " ")]
        if ops:
            out.append(f"{prec} {'/'.join(ops)} instructions")
    out += [w for w in missing if not w.startswith(("fp16 ", "fp32 ", "fp64 "))]
    return ", ".join(out)


def lower_bound_words(missing: str) -> str:
    """The note a FLOP figure carries when counters were missing: what it is a lower bound over."""
    return f"a lower bound ({missing} not collected: unknown, not 0 FLOP)"
