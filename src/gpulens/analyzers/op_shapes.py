"""GEMM and attention tables: one row per distinct problem (shape, dtype, layout) of the framework ops that launch
the GPU work themselves (the innermost ``aten::mm``/``addmm``/``bmm``/… or attention op, so a ``linear`` and its
``addmm`` are not counted twice), with GPU time, FLOPs from the shapes, achieved FLOP/s and % of the device's peak.

* GEMM: ``A[.., M, K] · B[.., K, N]`` (``linear``: ``x[.., K] · W[N, K]ᵀ``, M = prod of x's leading dims); batch =
  broadcast product of the leading dims; FLOPs = 2·batch·M·N·K, plus batch·M·N for the bias add of addmm, baddbmm
  and linear (the op cost model the roofline and the operator roll-up use: one FLOP figure per call).
* Attention (forward ops): q ``[B, Hq, Nq, d]``, k ``[B, Hkv, Nkv, d]``, v ``[.., dv]`` (``_flash_attention_forward``
  and ``_efficient_attention_forward`` record ``[B, N, H, d]``); FLOPs = B·Hq·(2·Nq·Nkv·d + 2·Nq·Nkv·dv) —
  halved for a causal call (its recorded ``is_causal`` in Kineto's Concrete Inputs; without them assumed
  non-causal). Backward ops (their q/k/v
  after grad_out): twice the forward's FLOPs, as the roofline counts them.
* layout: the transpose tag of the kernel that ran (``…_tn_…`` in NVIDIA names; Tensile ``Cijk_Ailk_Bljk`` = nn,
  ``Alik`` = A transposed, ``Bjlk`` = B transposed), "unknown" otherwise.
* % of peak: achieved FLOP/s / the spec's matrix-unit peak for the dtype's precision × 100 (unknown without a device).
"""

from __future__ import annotations

import json
import re
from math import prod
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _flop_models as fm
from gpulens.analyzers._span import warn_once
from gpulens.analyzers._attribution import attribution_codes
from gpulens.analyzers._groupstats import first_max_rows
from gpulens.analyzers.context import context_of, first_rows, unique_ints
from gpulens.analyzers.intervals import key_codes
from gpulens.analyzers._optree import _positions_of, op_tree
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.op_rollup import per_call
from gpulens.analyzers.roofline import ABOVE_ROOF_PCT, at_most_roof
from gpulens.timeline import Timeline
from gpulens.units import plural

_NV_LAYOUT = re.compile(r"_(nn|nt|tn|tt)(?:_|$)", re.I)
_TENSILE = re.compile(r"Cijk_A(ilk|lik)_B(ljk|jlk)")

_RATE = {
    "calls": "op calls [count]",
    "gpu_time_ns": "GPU time of the kernels the calls launched [ns]",
    "mean_ns": "gpu_time_ns / calls [ns]",
    "flops": "FLOPs of the calls from the shapes [FLOP]",
    "flops_per_s": "flops / gpu_time_ns [FLOP/s]",
    "peak_flops_per_s": "matrix-unit peak of the device for that data type's precision [FLOP/s]",
    "peak_pct": "flops_per_s / peak_flops_per_s × 100 [%]",
    "rate_note": "why flops_per_s is unknown where the calls ran no kernel: their only GPU work (a memset or copy) "
                 "is not their computation [text]",
}
GEMM_COLUMNS = {"op": "framework op [text]", "batch": "batch (product of broadcast leading dims) [count]",
                "M": "rows of the output [count]", "N": "columns of the output [count]",
                "K": "reduction length [count]", "dtype": "data type of A [dtypes]",
                "layout": "transpose tag of the kernel that ran (nn, nt, tn, tt or unknown) [text]",
                "kernel": "kernel with the most time [text]", **_RATE}
ATTENTION_COLUMNS = {"op": "framework op [text]", "B": "batch [count]", "Hq": "query heads [count]",
                     "Hkv": "key/value heads [count]", "Nq": "query length [count]", "Nkv": "key/value length [count]",
                     "d": "head dim of q/k [count]", "dv": "head dim of v [count]", "dtype": "data type of q [dtypes]",
                     "causal": "yes / no as the call recorded is_causal (Kineto Concrete Inputs), unknown when the "
                               "trace does not say (FLOPs then count the full score matrix) [text]",
                     "kernel": "kernel with the most time [text]", **_RATE}


def layout_of(kernel: str) -> str:
    """The GEMM transpose tag a kernel name carries (see module docstring), else ``"unknown"``."""
    m = _TENSILE.search(kernel)
    if m:
        return ("t" if m.group(1) == "lik" else "n") + ("t" if m.group(2) == "jlk" else "n")
    m = _NV_LAYOUT.search(kernel)
    return m.group(1).lower() if m else "unknown"


def _tensors(dims: Any, types: Any) -> list[tuple[list[int], int, str]]:
    try:
        d, t = json.loads(dims), json.loads(types)
    except (TypeError, ValueError, RecursionError):
        return []
    return fm._tensors(d, t) if isinstance(d, list) and isinstance(t, list) else []


def gemm_dims(op: str, dims: Any, types: Any, concrete: Any = None) -> tuple[int, int, int, int, str] | None:
    """(batch, M, N, K, dtype) of a GEMM op call from its recorded shapes, None when they do not fit (its scalar
    arguments ``concrete`` change nothing)."""
    m = fm._GEMM.match(op)
    mats = [x for x in _tensors(dims, types) if len(x[0]) >= 2] if m else []
    if len(mats) < 2:
        return None
    (a, _, ta), (w, _, _) = mats[0], mats[1]
    if m.group(1) == "linear":
        return (1, prod(a[:-1]), w[0], a[-1], ta) if w[1] == a[-1] else None
    if a[-1] != w[-2]:
        return None
    ba, bw = a[:-2], w[:-2]
    nb = max(len(ba), len(bw))
    ba, bw = [1] * (nb - len(ba)) + ba, [1] * (nb - len(bw)) + bw
    return prod(max(p, q) for p, q in zip(ba, bw)), a[-2], w[-1], a[-1], ta


def attention_dims(op: str, dims: Any, types: Any, concrete: Any = None) -> tuple | None:
    """(B, Hq, Hkv, Nq, Nkv, d, dv, dtype, causal) of an attention op call (:func:`gpulens.analyzers._flop_models.
    attention_problem`: a backward op's q/k/v follow its grad_out; ``causal``: "yes"/"no" as the call's recorded
    ``Concrete Inputs`` say (:func:`~gpulens.analyzers._flop_models.recorded_causal`), else "unknown"), None when
    the shapes do not fit."""
    m = fm._SDPA.match(op)
    got = fm.attention_problem(m.group(1), _tensors(dims, types)) if m else None
    if got is None:
        return None
    a = got[0]
    said = fm.recorded_causal(op, concrete)
    return a.b, a.hq, a.hkv, a.nq, a.nkv, a.d, a.dv, a.dtype, {True: "yes", False: "no", None: "unknown"}[said]


def _calls(timeline: Timeline, op_match: Any = None) -> pd.DataFrame:
    """Calls that launched GPU work themselves, with the name of their longest GPU event (the first of the longest
    on a tie); only those whose op matches ``op_match`` (a compiled regex, ``match`` semantics) when given, and then
    only the columns :func:`_table` reads (:data:`_TABLE_COLUMNS`)."""
    calls = context_of(timeline).memo("op_shape_calls", lambda: _all_calls(timeline))
    if op_match is None or not len(calls):
        return calls
    # the rows taken of the columns _table reads only (the per-call table has twice as many)
    calls = calls[[c for c in _TABLE_COLUMNS if c in calls]]
    code = calls["_op"].to_numpy()  # one code per op text (per_call)
    if code.min() >= 0 and code.max() < 4 * len(code) + 1024:
        # a row of each code (any: the rows of one code share their op text), by a scatter, not a sort of every row
        row = np.full(int(code.max()) + 1, -1, dtype=np.int64)
        row[code] = np.arange(len(code))
        present = np.flatnonzero(row >= 0)
        ops = calls["op"].to_numpy(dtype=object)[row[present]]
        ok = np.zeros(len(row), dtype=bool)
        ok[present] = [bool(op_match.match(o)) for o in ops]
        return calls[ok[code]]
    uniq, first, inv = np.unique(code, return_index=True, return_inverse=True)
    ops = calls["op"].to_numpy(dtype=object)[first]
    ok = np.array([bool(op_match.match(o)) for o in ops], dtype=bool)
    return calls[ok[inv.reshape(-1)]]


#: Columns of the per-call table that :func:`_table` reads: the codes it groups by, the texts of each group's first
#: row and the GPU time it sums.
_TABLE_COLUMNS = ("_op", "_dims", "_types", "_kernel", "_conc", "_nok", "op", "dims", "types", "conc", "kernel",
                  "gpu_time_ns")


def _all_calls(timeline: Timeline) -> pd.DataFrame:
    calls = per_call(timeline)
    calls = calls[calls["self_gpu_time_ns"] > 0]
    if not len(calls):
        return calls.assign(kernel=pd.Series(dtype=object))
    att, codes = attribution_codes(timeline)
    gop = op_tree(timeline)["gpu_op"]
    has = gop.notna().to_numpy()
    owner = gop[has].astype("int64").to_numpy()
    # per op: the row of its longest event (idxmax: first of the maxima in row order)
    t_own = att["time_ns"].to_numpy()[has]
    if t_own.dtype.kind in "iu" and len(t_own):  # integer ns: on the ops' sorted id codes, no groupby
        op_ids, inv = unique_ints(owner, return_inverse=True)
        best = first_max_rows(inv, t_own, len(op_ids))
        del inv
    else:
        s = pd.Series(t_own).groupby(owner).idxmax()
        op_ids, best = s.index.to_numpy(dtype=np.int64), s.to_numpy()
    op_ids = np.asarray(op_ids, dtype=np.int64)
    name_code = codes["name"][0][has][best]
    ev = calls["event_id"].to_numpy(dtype=np.int64)
    # each call's op among them by position lookup (ids in order), not a binary search per call
    k = _positions_of(op_ids, ev) if len(op_ids) else np.full(len(ev), -1, dtype=np.intp)
    found = k >= 0
    names = codes["name"][1]
    kcode = np.where(found, name_code[np.maximum(k, 0)] if len(op_ids) else -1, -1)
    text, kcode = _kernel_texts(kcode, names)
    # a call none of whose GPU work is a kernel (an addmm whose only recorded GPU work is a "Memset (Device)"): its
    # GPU time is not its computation — its rate is unknown, not a figure over a fill's time (multirank HTA trace)
    kinds = codes["kind"]
    is_k = np.asarray([str(v) == "kernel" for v in kinds[1]], dtype=bool)[kinds[0][has]] if len(kinds[1]) else \
        np.zeros(len(owner), dtype=bool)
    nok = ~np.isin(ev, np.unique(owner[is_k])) if len(owner) else np.ones(len(ev), dtype=bool)
    return calls.assign(kernel=pd.Series(text, index=calls.index, dtype=object), _kernel=kcode,
                        _nok=nok.astype(np.int64))


def _kernel_texts(kcode: np.ndarray, names: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kernel text of each call (object array; '' where the code is −1 or the name missing) and one code per text
    ('' — not found or missing — shares the code of a recorded '' name, else −1). The texts are filled once per
    distinct name and taken by code (−1: an appended ''): no isna or string compare over every call."""
    filled = pd.Series(names, dtype=object).fillna("").to_numpy(dtype=object)
    blank_name = np.asarray(filled == "", dtype=bool)
    text = np.append(filled, "").astype(object)[kcode]
    blank = np.flatnonzero(blank_name)
    return text, np.where(np.append(blank_name, True)[kcode], blank[0] if len(blank) else -1, kcode)


def _rates(t: pd.DataFrame, device: Any) -> pd.DataFrame:
    t["mean_ns"] = t["gpu_time_ns"] / t["calls"]
    t["flops_per_s"] = t["flops"] / (t["gpu_time_ns"].where(t["gpu_time_ns"] > 0) / 1e9)
    no_k = t["no_kernel"].to_numpy(dtype=bool) if "no_kernel" in t else np.zeros(len(t), dtype=bool)
    t.loc[no_k, "flops_per_s"] = np.nan  # no kernel ran it: no rate (nor a TF32 roof from one), whatever the peaks
    peaks = []
    tf32 = device.peak_flops("tf32", True) if device is not None else None
    from gpulens.analyzers._work import TF32_KERNEL_RE

    kernels = t["kernel"] if "kernel" in t else pd.Series([""] * len(t), index=t.index)
    for dt, rate, kname in zip(t["dtype"], t["flops_per_s"], kernels):
        prec = fm._prec(str(dt))
        p = device.peak_flops(prec, True) if device is not None else None
        # an fp32 GEMM ran on tensor cores as TF32 (PyTorch's allow_tf32) when its kernel's name says so, or when it
        # ran faster than the fp32 peak: that roof
        if prec == "fp32" and p and tf32 and (TF32_KERNEL_RE.search(str(kname or "")) or (rate == rate
                                                                                          and rate > p[0])):
            p = tf32
        peaks.append(p[0] if p else np.nan)
    t["peak_flops_per_s"] = np.array(peaks, dtype=float)
    t["peak_pct"] = 100 * t["flops_per_s"] / t["peak_flops_per_s"]
    t["rate_note"] = np.where(no_k, "no kernel of its own: its only GPU work is " + t["kernel"].astype(str).where(
        t["kernel"].astype(str) != "", "unnamed") + ", not its computation (its compute kernel is not in the trace)",
        "")
    # above the GPU's highest peak (any precision, tensor units included: an fp32 GEMM may run as TF32) is
    # impossible: the op's FLOPs were timed against GPU work that is not its computation (its compute kernel missing
    # from the trace, only a fill or copy left) — the rate is unknown, not a result
    tops = [device.peak_flops(p, True) for p in ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")] \
        if device is not None else []
    ceiling = max([p[0] for p in tops if p] or [np.inf])
    bad = (t["flops_per_s"] > ceiling * ABOVE_PEAK_PCT / 100).to_numpy()
    t.attrs["above_peak_named"] = _problem_names(t[bad])
    t.loc[bad, ["flops_per_s", "peak_pct"]] = np.nan
    t.attrs["above_peak"] = int(bad.sum())
    # a possible rate above the peak of the dtype's precision: the op ran at another precision than its inputs'
    # dtype says (autocast, TF32, FP8 scaling): that peak is not its roof — % of peak unknown, the rate stays
    wrong_roof = (t["peak_pct"] > ABOVE_ROOF_PCT).to_numpy()
    t["peak_pct"] = at_most_roof(t["peak_pct"])  # NaN above the allowance, 100 within it (rounding of times)
    t.attrs["wrong_roof"] = int(wrong_roof.sum())
    return t.sort_values(["gpu_time_ns"], ascending=False, kind="stable").reset_index(drop=True)


#: Attained FLOP/s above this % of the GPU's highest peak cannot be real (boost clocks stay within a few %): unknown.
ABOVE_PEAK_PCT = 110.0


def _problem_names(rows: pd.DataFrame, most: int = 3) -> str:
    """``"aten::mm 256×2400×2048 (M×N×K, GPU work: gemm_kernel), …"``: the first ``most`` problems of ``rows`` (a
    GEMM or attention table's rows) by op, shape and the GPU work linked to them, with how many more; "" for none."""
    if not len(rows):
        return ""
    shape = ["M", "N", "K"] if "M" in rows else [c for c in ("B", "Hq", "Nq", "Nkv", "d") if c in rows]
    out = [f"{r['op']} {'×'.join(str(r[c]) for c in shape)} ({'×'.join(shape)}, GPU work: "
           f"{r['kernel'] or 'unnamed'})" for _, r in rows.head(most).iterrows()]
    return ", ".join(out) + (f" and {len(rows) - most:,} more" if len(rows) > most else "")


def _above_peak_warning(timeline: Timeline, t: pd.DataFrame, what: str) -> None:
    n = int(t.attrs.get("above_peak", 0))
    if n:
        warn_once(timeline, f"{what} problems faster than the GPU's peak",
                  f"{plural(n, 'problem(s)')} would run above the GPU's highest peak FLOP/s — "
                  f"{t.attrs.get('above_peak_named', '')}: the GPU work timed for them is not their computation (the "
                  "compute kernel is missing from the trace, e.g. a short fill or copy beside it was recorded); their "
                  "FLOP/s and % of peak are shown as unknown")
    m = int(t.attrs.get("wrong_roof", 0))
    if m:
        warn_once(timeline, f"{what} problems above their dtype's peak",
                  f"{plural(m, 'problem(s)')} ran faster than the peak FLOP/s of their inputs' dtype (more than "
                  f"{ABOVE_ROOF_PCT:g} %): they ran at another precision (autocast, TF32, FP8); their % of peak is "
                  "shown as unknown, their FLOP/s as measured")


def _table(calls: pd.DataFrame, fn, keys: list[str], flops) -> pd.DataFrame:
    """Problems table: calls grouped by (op, dims, types, kernel, recorded scalar arguments) first (vectorised), the
    shape model ``fn(op, input_dims, input_types, concrete_inputs)`` run per group; ``flops(op, dims, input_dims,
    input_types)`` gives one call's FLOPs from ``fn``'s dims and the recorded texts."""
    if not len(calls):
        return pd.DataFrame()
    conc = "_conc" in calls
    nok = "_nok" in calls
    first, n, t = _groups(calls, ["_op", "_dims", "_types", "_kernel"] + (["_conc"] if conc else [])
                          + (["_nok"] if nok else []))
    g = pd.DataFrame({"op": first["op"].to_numpy(), "dims": first["dims"].to_numpy(dtype=object),
                      "types": first["types"].to_numpy(dtype=object),
                      "conc": first["conc"].to_numpy(dtype=object) if conc else None,
                      "kernel": first["kernel"].to_numpy(), "n": n, "t": t,
                      "nok": first["_nok"].to_numpy() if nok else 0})
    rows = []
    for op, d, ty, cn, kern, n, t, no_k in g.astype(object).where(g.notna(), None).itertuples(index=False):
        dims = fn(op, d, ty, cn)
        if dims is not None and n:
            f = flops(op, dims, d, ty)
            rows.append((op, *dims, kern or "", n, t, f * n if f == f else np.nan, bool(no_k)))
    df = pd.DataFrame(rows, columns=["op", *keys, "kernel", "calls", "gpu_time_ns", "flops", "no_kernel"])
    if not len(df):
        return df
    df["layout"] = df["kernel"].map(layout_of)
    by = ["op", *keys] + (["layout"] if "M" in keys else []) + ["no_kernel"]
    grp = df.groupby(by, sort=False)
    top = df.sort_values("gpu_time_ns", ascending=False, kind="stable").groupby(by, sort=False)["kernel"].first()
    return pd.DataFrame({"calls": grp["calls"].sum(), "gpu_time_ns": grp["gpu_time_ns"].sum(),
                         "flops": grp["flops"].sum(min_count=1), "kernel": top}).reset_index()


def _groups(calls: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Groups of ``calls`` by the integer code columns ``keys``, in order of first appearance: (each group's first
    call, a row of ``calls``, calls per group [count], summed ``gpu_time_ns`` per group [ns]) — what
    ``calls.groupby(keys, sort=False)`` gives by ``head(1)``, ``size()`` and ``sum()``.

    On numpy: the key columns folded into one code (:func:`~gpulens.analyzers.intervals.key_codes`), renumbered in
    order of first appearance, counted and summed by ``bincount`` — exact where every time is a whole number of ns
    and their absolute sum is below 2**53 (every partial sum then exact, as pandas' compensated sum is); pandas'
    groupby otherwise (a missing time, fractions of a ns, a code column that is not plain integers)."""
    t = calls["gpu_time_ns"].to_numpy()
    cols = [calls[k] for k in keys]
    if (len(calls) and all(isinstance(c.dtype, np.dtype) and c.dtype.kind in "iu" for c in cols)
            and t.dtype.kind == "f" and bool(np.isfinite(t).all()) and bool((t == np.round(t)).all())
            and float(np.abs(t).sum()) < 2.0 ** 53):
        code, _ = key_codes(*[c.to_numpy() for c in cols])
        gid, uniq = pd.factorize(code, sort=False)
        return (calls.iloc[first_rows(gid)], np.bincount(gid, minlength=len(uniq)).astype(np.int64),
                np.bincount(gid, weights=t, minlength=len(uniq)).astype(t.dtype))
    g = calls.groupby(keys, sort=False)
    return g.head(1), g["gpu_time_ns"].size().to_numpy(), g["gpu_time_ns"].sum().to_numpy()


def _gemm_flops(op: str, dims: tuple, input_dims: Any, input_types: Any) -> float:
    """One GEMM call's FLOPs by the op cost model the roofline and the operator roll-up use
    (:func:`gpulens.analyzers._flop_models.op_cost`: 2·batch·M·N·K, plus the bias add of addmm/baddbmm/linear), so a
    problem's FLOPs and TFLOP/s read the same in every table; 2·batch·M·N·K where that model has no figure."""
    cost = fm.op_cost(op, input_dims, input_types)
    return cost.flops if cost is not None else fm.gemm(dims[1], dims[2], dims[3], dims[0])


class GemmShapes(Analyzer):
    """GEMM problems: M, N, K, batch, dtype, layout, time, FLOPs, TFLOP/s and % of peak (module docstring)."""

    name = "gemm_shapes"
    order = 56

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        keys = ["batch", "M", "N", "K", "dtype"]
        t = _table(_calls(timeline, fm._GEMM), gemm_dims, keys, _gemm_flops)
        if not len(t):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(GEMM_COLUMNS)), GEMM_COLUMNS,
                                  skipped_reason="no GEMM op with recorded shapes launched GPU work")
        t = _rates(t, device)
        _above_peak_warning(timeline, t, "GEMM")
        t = t[list(GEMM_COLUMNS)]
        return AnalysisResult(self.name, t, GEMM_COLUMNS, {"problems": int(len(t)),
                                                           "gpu_time_ns": float(t["gpu_time_ns"].sum())},
                              summary_columns={"problems": "distinct GEMM problems [count]",
                                               "gpu_time_ns": "GPU time of the GEMM calls [ns]"})


class AttentionShapes(Analyzer):
    """Attention problems: B, heads, lengths, head dims, dtype, time, FLOPs, TFLOP/s and % of peak."""

    name = "attention_shapes"
    order = 57

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        keys = ["B", "Hq", "Hkv", "Nq", "Nkv", "d", "dv", "dtype", "causal"]
        # the roofline's figure (_flop_models): halved when the call recorded is_causal (Nq = Nkv); a backward call
        # does twice its forward's FLOPs. "unknown" counts the full score matrix, as the roofline's default does.
        flops = lambda op, d, *_: fm.attention(d[0], d[1], d[3], d[4], d[5], d[6], d[8] == "yes") \
            * (2 if "backward" in op else 1)
        t = _table(_calls(timeline, fm._SDPA), attention_dims, keys, flops)
        if not len(t):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(ATTENTION_COLUMNS)), ATTENTION_COLUMNS,
                                  skipped_reason="no attention op with recorded shapes launched GPU work")
        t = _rates(t, device)
        _above_peak_warning(timeline, t, "attention")
        t = t[list(ATTENTION_COLUMNS)]
        return AnalysisResult(self.name, t, ATTENTION_COLUMNS, {"problems": int(len(t)),
                                                                "gpu_time_ns": float(t["gpu_time_ns"].sum())},
                              summary_columns={"problems": "distinct attention problems [count]",
                                               "gpu_time_ns": "GPU time of the attention calls [ns]"})
