"""What the kernel verdicts (:mod:`gpulens.analyzers.verdicts`) read from the Timeline and the earlier results
before deciding: exposed communication per collective name, speed of light from ncu percentages, the first source of
a figure per kernel name, the op shapes and GEMM extents behind a kernel, the small-grid loss, and the notes beside a
time at stake (launch overhead, wave quantization). Re-exported by :mod:`~gpulens.analyzers.verdicts`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers._flop_models import gemm_extents
from gpulens.analyzers._sol_nvidia import METRICS as _SOL_METRICS
from gpulens.analyzers._stake import SOL_BOUND_PCT
from gpulens.analyzers.context import codes_of, context_of, first_seen_codes, lookup_sorted
from gpulens.analyzers.speed_of_light import bound_of
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns


#: The note beside a launch-bound kernel's time at stake (docs/bottlenecks.md, "Time at stake").
LAUNCH_STAKE_NOTE = "GPU idle before its launches (launch overhead), not part of its own GPU time"


def wave_stake_note(results: dict | None, name: str, stake_ns: Any, verdict: str) -> str | None:
    """The note beside a verdict's unknown time at stake when the same kernel's wave-quantization finding (the
    ``occupancy`` finding keyed ``occupancy/<name>/waves``) gives one: the two are two definitions — the verdict's
    stake is what fixing its bound saves (unknown while the bound is), the wave finding's an upper bound from empty
    block slots that rests on its premise (HTA AlexNet A100: ampere_sgemm "unknown" beside "1.01 ms at stake — if it
    is not memory-bound"). None when the verdict's stake is known or no such finding has one."""
    if stake_ns is not None and stake_ns == stake_ns:
        return None
    occ = (results or {}).get("occupancy")
    f = next((f for f in getattr(occ, "findings", None) or [] if f.key == f"occupancy/{name}/waves"
              and f.time_at_stake_ns), None)
    if f is None:
        return None
    why = "its bound is undetermined" if verdict == "undetermined" else f"not quantified for {verdict}"
    cond = str(getattr(f, "premise", "") or "").split(" (")[0]  # "if it is not memory-bound (its bound is …)"
    return (f"{why}; the wave-quantization finding's {fmt_ns(f.time_at_stake_ns)} is another figure: at most what "
            "empty block slots cost" + (f", {cond}" if cond else ""))


def stake_note(verdict: str, stake_ns: Any, time_ns: Any, premise: str = "") -> str | None:
    """The note shown beside a verdict's time at stake when that figure is not a share of the kernel's own GPU time:
    a launch-bound kernel's stake is the launch-overhead idle before its launches — "at stake 3.1 ms" beside 1.2 ms
    of GPU time reads as a contradiction without it — or when it rests on a ``premise`` the input does not show (an
    assumed GPU's peaks or SM count: :func:`gpulens.analyzers._stake.assumed_premise`). None for every other
    verdict, and for a launch-bound stake within the kernel's time (no contradiction to explain)."""
    if premise and stake_ns is not None and stake_ns == stake_ns:
        return premise
    if verdict != "launch-bound" or stake_ns is None or stake_ns != stake_ns:
        return None
    if time_ns is not None and time_ns == time_ns and stake_ns <= time_ns:
        return None
    return LAUNCH_STAKE_NOTE


def _on_another_clock(gcode: np.ndarray, st: np.ndarray, en: np.ndarray, is_comp: np.ndarray,
                      is_comm: np.ndarray) -> np.ndarray:
    """Per collective (the ``is_comm`` rows, in order): True when its GPU has compute kernels but none in the
    collective's clock domain (:func:`gpulens.analyzers._span.clock_windows` of the GPU's events): its overlap with
    compute is unknown. Only GPUs whose events stretch over :data:`~gpulens.analyzers._span.CLOCK_GAP_NS` are looked
    at."""
    from gpulens.analyzers._span import CLOCK_GAP_NS, clock_domain_of, clock_windows

    out = np.zeros(len(gcode), dtype=bool)
    lo = np.full(gcode.max() + 1, np.iinfo("int64").max, dtype="int64")
    hi = np.full(gcode.max() + 1, np.iinfo("int64").min, dtype="int64")
    np.minimum.at(lo, gcode, st)
    np.maximum.at(hi, gcode, en)
    for g in np.flatnonzero(hi - lo >= CLOCK_GAP_NS):
        rows = np.flatnonzero(gcode == g)
        dom = clock_domain_of(st[rows], clock_windows(st[rows], en[rows]))
        comp = dom[is_comp[rows]]
        if len(comp):
            out[rows] = is_comm[rows] & ~np.isin(dom, comp)
    return out[is_comm]


def exposed_comm_by_name(timeline: Timeline) -> dict[str, int | None]:
    """Per collective name: its time not overlapped by compute kernels on the same rank and device [ns]; None when a
    launch of it lies on another clock than its GPU's compute kernels (overlap unknown). Each event counts with its
    overrun-clipped duration (:attr:`AnalysisContext.effective_ns`), as the kernel times it is compared with.

    Every (rank, device) at once: the compute kernels' merged segments of all GPUs sorted by (GPU, start), and each
    collective's covered time found by one lexicographic search into them (no per-GPU slice: thousands of ranks).
    Names in the order a per-GPU walk (GPUs sorted, names sorted within each) first meets them.
    """
    from gpulens.analyzers.intervals import group_segments, key_codes

    ctx = context_of(timeline)
    ev = ctx.of_kind("kernel", "comm")
    if not len(ev):
        return {}
    cats = list(ev["kind"].cat.categories)
    kc = codes_of(ev["kind"])
    is_comm = kc == cats.index("comm") if "comm" in cats else np.zeros(len(ev), dtype=bool)
    if not is_comm.any():
        return {}
    is_comp = kc == cats.index("kernel") if "kernel" in cats else np.zeros(len(ev), dtype=bool)
    # (rank, device) codes in sorted order, as pd.factorize of a MultiIndex gives them (without its tuple pass)
    gcode, _ = key_codes(ev["rank"].to_numpy(), ev["device_id"].to_numpy())
    st = ev["start_ns"].to_numpy("int64")
    # overrun-clipped durations (context.effective_ns), the time the verdict table's row holds: a collective recorded
    # twice at one start (or overrunning the next event on its stream) is exposed once, never more than its time
    en = st + ctx.effective_ns.reindex(ev.index).to_numpy("int64")
    seg = group_segments(gcode[is_comp], st[is_comp], en[is_comp])
    sg, ss, se = seg["group"], seg["start"], seg["end"]
    length = se - ss
    cum = np.concatenate(([0], np.cumsum(length)))
    first_seg = np.searchsorted(sg, np.arange(gcode.max() + 1), side="left")
    cg, cs, ce = gcode[is_comm], st[is_comm], en[is_comm]

    def covered(t: np.ndarray) -> np.ndarray:  # covered_until per collective, within its own GPU's segments
        if not len(ss):
            return np.zeros(len(t), dtype="int64")
        kg = np.concatenate((sg, cg))
        kt = np.concatenate((ss, t))
        isq = np.concatenate((np.zeros(len(sg), dtype="int8"), np.ones(len(cg), dtype="int8")))
        order = np.lexsort((isq, kt, kg))  # a segment starting at t counts (side="right")
        seen = np.cumsum(isq[order] == 0)
        i = np.empty(len(kg), dtype="int64")
        i[order] = seen - 1
        i = i[len(sg):]
        lo = first_seg[cg]
        ok = i >= lo
        j = np.maximum(i, 0)
        inside = np.clip(t - ss[j], 0, length[j])
        return np.where(ok, cum[j] - cum[lo] + inside, 0)

    exposed = ((ce - cs) - (covered(ce) - covered(cs))).astype("float64")
    exposed[_on_another_clock(gcode, st, en, is_comp, is_comm)] = np.nan  # overlap unknown, not all exposed
    ncodes = codes_of(ev["name"])[is_comm]
    names = np.append(np.asarray(ev["name"].cat.categories.astype(object), dtype=object), "nan")  # as astype(str)
    # per (GPU, name code) in order of first appearance, then by (GPU, name) — numpy group numbers, not a pandas
    # groupby on a few rows (whole ns as float64: the sums are exact either way)
    _, first, inv = np.unique(cg.astype(np.int64) * len(names) + (ncodes.astype(np.int64) + 1), return_index=True,
                              return_inverse=True)
    inv, seen = inv.reshape(-1), np.argsort(first, kind="stable")
    xs = np.bincount(inv, np.nan_to_num(exposed), minlength=len(first))[seen]
    us = (np.bincount(inv, np.isnan(exposed), minlength=len(first)) > 0)[seen]
    gs, ns = cg[first[seen]].tolist(), [str(names[c]) for c in ncodes[first[seen]].tolist()]
    out: dict[str, int | None] = {}
    for i in sorted(range(len(seen)), key=lambda i: (gs[i], ns[i])):  # stable: ties keep first appearance
        n, x, u = ns[i], float(xs[i]), bool(us[i])
        out[n] = None if u or (n in out and out[n] is None) else out.get(n, 0) + int(x)
    return out


#: DRAM throughput % of peak as ncu records it (raw metric and details-page names of every release): the names of
#: :data:`gpulens.analyzers._sol_nvidia.METRICS` ``dram_pct``, one list.
DRAM_SOL = {"dram_sol_pct": tuple(m for m, _ in _SOL_METRICS["dram_pct"])}


def lds_bank_conflict_pcts(timeline: Timeline) -> dict[str, float]:
    """Per kernel name, rocprof v1's derived ``LDSBankConflict`` (% of GPU time the LDS is stalled by bank
    conflicts) weighted by the dispatches' durations (their mean when none is known); values above 100 never reach
    here (``Timeline.validate`` drops them). Kernels without the counter are absent."""
    from gpulens.analyzers.context import named_counter_rows

    rows = named_counter_rows(timeline, {"LDSBankConflict"})
    if not len(rows):
        return {}
    rows = rows[pd.to_numeric(rows["value"], errors="coerce").notna()]
    out = {}
    for name, g in rows.groupby("name", sort=False):
        v, w = g["value"].to_numpy(float), g["dur_ns"].to_numpy(float)
        out[str(name)] = float((v * w).sum() / w.sum()) if w.sum() > 0 else float(v.mean())
    return out


def measured_hbm(srow: dict) -> tuple[float | None, tuple[float, float] | None]:
    """(DRAM % of the measured HBM peak, (measured peak, rated peak) [B/s]) of a ``speed_of_light`` row — the peaks
    as its figures divide by them: HBM bytes/s ÷ ``dram_measured_pct`` and ÷ ``dram_pct`` (each × 100); (None, None)
    without a measured peak (rocprof-compute's optional roofline.csv), the peaks None when either share or the
    throughput is unknown. vcopy MI200: 864.2 GB/s at 62.2 % and 52.7 % → (1,388.9 GB/s, 1,638.4 GB/s)."""
    meas, rated, thr = (_num(srow.get(k)) for k in ("dram_measured_pct", "dram_pct", "memory_throughput"))
    if meas is None:
        return None, None
    if not (thr and meas > 0 and rated and rated > 0):
        return meas, None
    return meas, (100 * thr / meas, 100 * thr / rated)


#: Below this % of peak on both compute and memory, a kernel is latency-limited (ncu's SOL rule threshold, 60 %).
SOL_LATENCY_PCT = SOL_BOUND_PCT


def sol_from_percentages(p: dict[str, Any]) -> dict[str, Any] | None:
    """A ``speed_of_light``-shaped row from raw ncu percentages when that analyzer gave none for the kernel.

    Bound as Nsight Compute's speed-of-light rule reads it: the larger of compute (SM) % and memory % of peak
    (DRAM % when counted) when it reaches :data:`SOL_LATENCY_PCT`, else ``latency``. Needs both a compute and a
    memory figure unless the known one reaches the threshold (None otherwise).
    """
    comp, mem, dram = (_num(p.get(k)) for k in ("compute_sol_pct", "memory_sol_pct", "dram_sol_pct"))
    if comp is None and mem is None and dram is None:
        return None
    top_mem = max(v for v in (mem, dram, -1.0) if v is not None)
    c = comp if comp is not None else -1.0
    if max(c, top_mem) < SOL_LATENCY_PCT and (comp is None or top_mem < 0):
        return None  # a low figure on one side alone says nothing about the other roof
    # ncu's "Compute (SM) Throughput" is the busiest SM unit, not an arithmetic pipe: it alone never says compute
    bound = bound_of(comp, top_mem if top_mem >= 0 else None, compute_is_sm=True)
    return {"compute_pct": comp, "memory_pct": mem, "dram_pct": dram, "bound": bound, "vendor": "nvidia",
            "evidence": "ncu SM and memory throughput % of peak"}


def _vendor(timeline: Timeline, device: Any) -> str | None:
    """``"amd"`` / ``"nvidia"`` of the input (:func:`gpulens.analyzers._advice.vendor_of`; None: unknown)."""
    return _advice.vendor_of(timeline, device)


def _rows_by_name(rows: pd.DataFrame) -> Any:
    """``name → row positions`` of ``rows`` (a function), by category code: no per-row strings."""
    col = rows["name"]
    if not isinstance(col.dtype, pd.CategoricalDtype):
        groups = {str(k): v for k, v in col.astype(str).groupby(col.astype(str), sort=False).indices.items()}
        return lambda name: groups.get(name, np.zeros(0, dtype="int64"))
    codes = codes_of(col)
    code_of = {str(c): i for i, c in enumerate(col.cat.categories)}
    # positions of every code at once (one stable sort), not one scan of all rows per name
    order = np.argsort(codes, kind="stable")
    cuts = np.searchsorted(codes[order], np.arange(len(code_of) + 1))
    none = np.zeros(0, dtype="int64")
    return lambda name: order[cuts[code_of[name]]:cuts[code_of[name] + 1]] if name in code_of else none


def _first_in_time(pos: np.ndarray, start: np.ndarray, ids: np.ndarray) -> int:
    """The row among ``pos`` of a kernel's first launch in time (earliest start, then lowest event_id): the launch
    whose op, family and GPU the verdict names — not its first row in the trace file. −1 when ``pos`` is empty."""
    if not len(pos):
        return -1
    st = start[pos]
    at = pos[st == st.min()]
    return int(at[np.argmin(ids[at])]) if len(at) > 1 else int(at[0])


def _first_source(co: pd.DataFrame) -> tuple[pd.Series, np.ndarray]:
    """Per counter event_id, the ``source`` of its first row with one (as ``groupby("event_id").first()``), as a code
    into the returned value table: (int64 codes indexed by the sorted event ids, object array of the source texts)."""
    src = co["source"]
    known = src.notna().to_numpy()
    every = bool(known.all())  # every row has a source (collectors set it): the rows as they are, no gather
    has = None if every else np.flatnonzero(known)  # the rows with a source, read as numpy: no copy of the table
    ids = co["event_id"].to_numpy() if every else co["event_id"].to_numpy()[has]
    if not len(ids):
        return pd.Series(dtype="int64"), np.zeros(0, dtype=object)
    if bool((ids[1:] >= ids[:-1]).all()):
        first = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
        uniq = ids[first]
    else:
        uniq, first = np.unique(ids, return_index=True)
    codes, values = first_seen_codes(src.take(first if every else has[first]))
    return pd.Series(codes, index=uniq), values


def _lookup(series: pd.Series, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`gpulens.analyzers.context.lookup_sorted` (values of ``series`` at integer ``keys``, and which were
    found), by a dense position table when the index (strictly increasing integers) spans at most a few times its
    length — event ids: one gather instead of a binary search per key."""
    idx = series.index
    keys = np.asarray(keys)
    if not (len(idx) and idx.dtype.kind in "iu" and keys.dtype.kind in "iu" and idx.is_monotonic_increasing
            and idx.is_unique):
        return None
    iv = idx.to_numpy(dtype="int64")
    lo, span = int(iv[0]), int(iv[-1]) - int(iv[0]) + 1
    if span > 4 * len(iv) + 1024:
        return lookup_sorted(series, keys)
    table = np.full(span, -1, dtype="int32" if len(iv) < 2 ** 31 else "int64")  # half the memory of int64
    table[iv - lo] = np.arange(len(iv))
    k = keys.astype("int64", copy=False) - lo
    inside = (k >= 0) & (k < span)
    pos = np.where(inside, table[np.where(inside, k, 0)], -1)
    found = pos >= 0
    return series.to_numpy()[np.maximum(pos, 0)], found


def _sources_of_rows(codes: np.ndarray, values: np.ndarray, pos: np.ndarray, missing: Any = None) -> set:
    """The distinct ``values[codes[pos]]`` (code −1: ``missing``, left out when None) — one bincount of small codes
    instead of a hash of the rows' texts."""
    if not len(pos):
        return set()
    present = np.flatnonzero(np.bincount(codes[pos] + 1, minlength=len(values) + 1))
    return {values[c - 1] if c else missing for c in present.tolist() if c or missing is not None}


def _row_by_name(result: Any) -> dict[str, dict]:
    if result is None or result.skipped or not len(result.table) or "name" not in result.table:
        return {}
    t = result.table
    if "time_ns" in t:
        t = t.sort_values("time_ns", ascending=False, kind="stable")
    return {str(r["name"]): r for r in t.drop_duplicates("name").to_dict("records")}


def launches_wall_ns(start: np.ndarray, dur: np.ndarray, rank: np.ndarray, dev: np.ndarray) -> int | None:
    """The wall time [ns] a kernel's launches cover (``start`` [ns], ``dur`` [ns], NaN = unknown; ``rank`` /
    ``device_id`` per launch): per (rank, GPU) the union of [start, start + dur), overlap counted once
    (:func:`gpulens.analyzers.intervals.group_union_ns`), summed over GPUs; None when no launch has a duration."""
    from gpulens.analyzers.intervals import group_union_ns, key_codes

    ok = ~np.isnan(dur)
    if not ok.any():
        return None
    s = np.asarray(start, dtype="int64")[ok]
    g, keys = key_codes(np.asarray(pd.array(rank[ok]).fillna(-1), dtype="int64"),
                        np.asarray(pd.array(dev[ok]).fillna(-1), dtype="int64"))
    return int(group_union_ns(g, s, s + dur[ok].astype("int64"), len(keys)).sum())


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if np.isnan(f) else f


def _family(timeline: Timeline, name: str, label: Any, op_links: pd.Series) -> str:
    """The kernel's family for its advice (:func:`gpulens.analyzers._advice.family`): from its name, else from the
    name of the framework op that launched its first launch (``label``: that launch's row label)."""
    fam = _advice.family(name)
    if fam != "other":
        return fam
    at = _op_position(timeline, label, op_links)
    return _advice.family(name, str(timeline.events["name"].iloc[at])) if at is not None else fam


def _op_position(timeline: Timeline, label: Any, op_links: pd.Series) -> int | None:
    """Position in ``timeline.events`` of the framework op that launched the launch at row ``label`` (None: no
    label, no linked op)."""
    if label is None:
        return None
    oid = op_links.get(label)
    if oid is None or pd.isna(oid):
        return None
    at = int(context_of(timeline).positions([int(oid)])[0])
    return at if at >= 0 else None


def _shaped_op(timeline: Timeline, label: Any, op_links: pd.Series) -> str | None:
    """The name of the framework op that launched the launch at row ``label`` when its input shapes are recorded
    (``Input Dims`` in a Kineto trace), else None."""
    at = _op_position(timeline, label, op_links)
    if at is None:
        return None
    dims = timeline.events["input_dims"].iloc[at] if "input_dims" in timeline.events else None
    if dims is None or pd.isna(dims) or str(dims).strip() in ("", "[]"):
        return None
    return str(timeline.events["name"].iloc[at])


def _gemm_extents(timeline: Timeline, labels: pd.Index, op_links: pd.Series) -> tuple:
    """The distinct (M, N, K) of the GEMM ops that launched the launches at rows ``labels``, from their recorded
    ``Input Dims`` / ``Input types`` (:func:`gemm_extents`); empty without recorded shapes."""
    ev = timeline.events
    if "input_dims" not in ev or "input_types" not in ev:
        return ()
    oids = op_links.reindex(labels).dropna().astype("int64").unique()
    at = context_of(timeline).positions(oids) if len(oids) else np.empty(0, dtype="int64")
    at = at[at >= 0]
    rows = {(str(ev["name"].iloc[i]), ev["input_dims"].iloc[i], ev["input_types"].iloc[i]) for i in at}
    got = {gemm_extents(n, d if isinstance(d, str) else None, t if isinstance(t, str) else None) for n, d, t in rows}
    return tuple(sorted(x for x in got if x is not None))


def _share_alignment_step(results: dict, name: str, step: str | None) -> None:
    """Kernel ``name``'s roofline and occupancy findings said the alignment hint without the GEMM sizes (they read
    no shapes): the verdict's hint, which names the extents to pad, replaces it — in place."""
    generic = _advice.alignment_hint(name)
    if not step or not generic or step == generic:
        return
    for analysis in ("roofline", "occupancy"):
        for f in getattr(results.get(analysis), "findings", []):
            if f.kernel == name:
                f.action = f.action.replace(generic, step) if f.action else f.action
                f.detail = f.detail.replace(generic, step) if f.detail else f.detail


def _small_grid_loss(blocks: np.ndarray, dur: np.ndarray, all_dur: np.ndarray, time_ns: int, sms: int | None
                     ) -> int | None:
    """Σ over launches with fewer blocks than SMs of duration × (1 − blocks / SMs) [ns], scaled to the kernel's
    effective time (``time_ns`` / its launches' summed duration ``all_dur``): the SMs such a launch leaves idle for
    its whole run (one resident block per SM assumed; the occupancy analyzer's wave loss replaces it when known).
    None without an SM count."""
    if not sms:
        return None
    small = blocks < sms
    raw = float(np.nansum(dur[small] * (1.0 - blocks[small] / sms)))
    tot = float(np.nansum(all_dur))
    return int(round(raw * (time_ns / tot if tot > 0 else 1.0)))
