"""Join two recordings of the same run: attach a profiler's per-dispatch counters and launch resources (rocprof,
rocprofiler-compute) to the kernels of a primary Timeline (typically the PyTorch profiler's Kineto trace).

Matching rule (:func:`join_dispatches`):

1. Devices are paired by ``device_map`` when given; otherwise by each side's GPU ordinal when the secondary's
   ``meta.devices`` record ``gpu_index`` (rocprof numbers GPUs by HSA node, Kineto by HIP ordinal); otherwise in
   sorted order when both sides have the same number of devices.
2. On each device pair, kernels are keyed by :func:`~gpulens.timeline.names.normalize_kernel_name` (``.kd``
   suffixes removed) — or, when that key matches fewer than half the dispatches, by
   :func:`~gpulens.timeline.names.truncate_kernel_name` (rocprofv3 truncated names against full Kineto names) —
   and the *k*-th dispatch of a key on the secondary side (in start order, or file order when it has no
   timestamps) is paired with the *k*-th kernel of that key on the primary side.
3. When both sides have timestamps, a clock offset is fitted per device (median of primary − secondary starts over
   the pairs) and pairs whose residual exceeds ``tolerance_ns`` are dropped as mismatches.

Matched secondary counters are copied to the primary's Counters (``event_id`` of the primary kernel, ``source`` of
the secondary); the primary's launch columns (grid, block, registers, LDS) are filled where it lacks them — from the
secondary's events, or from its ``tables["untimed_launches"]`` for dispatches that are not events (a counter pass
without timestamps, such as rocprof v1 ``--pmc``, records the launch configuration all the same). The pairs
are kept in ``tables["joined_dispatches"]`` (``event_id``, ``secondary_source``, ``secondary_key``, ``name_norm``,
``offset_ns``) and a warning line reports how many matched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.collectors._work_rules import dispatch_rows
from gpulens.timeline import COUNTER_COLUMNS, Timeline, make_table
from gpulens.timeline.names import normalize_kernel_name, truncate_kernel_name
from gpulens.units import plural

_FILL = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "regs_per_thread", "smem_static_bytes")


@dataclass
class JoinResult:
    """Outcome of :func:`join_dispatches`.

    Attributes:
        timeline: the primary Timeline with the secondary's counters attached (a new object).
        matched: kernels of the primary that received a secondary dispatch.
        primary_kernels: kernels (``kernel`` + ``comm``) of the primary.
        secondary_dispatches: dispatches offered by the secondary (events + unattached counter dispatches).
        rejected_by_time: name/order pairs dropped because their start times disagreed with the fitted offset.
        offsets_ns: fitted clock offset (primary − secondary, ns) per primary device id.
        device_pairs: primary device id → secondary device id used.
    """

    timeline: Timeline
    matched: int
    primary_kernels: int
    secondary_dispatches: int
    rejected_by_time: int = 0
    offsets_ns: dict[int, int] = field(default_factory=dict)
    device_pairs: dict[int, int] = field(default_factory=dict)


def _secondary_dispatches(tl: Timeline) -> pd.DataFrame:
    """One row per secondary dispatch: key, name, device_id, start_ns (NA without timestamps), order."""
    ev = tl.events[dispatch_rows(tl.events)]  # kernels, collectives and blit copies/fills (all are dispatches)
    rows = pd.DataFrame({"key": [("event", int(e)) for e in ev["event_id"]], "name": ev["name"].astype(str).to_numpy(),
                         "device_id": ev["device_id"].to_numpy(), "start_ns": ev["start_ns"].astype("Int64").to_numpy(),
                         "order": np.arange(len(ev))})
    un = tl.tables.get("unattached_counters")
    if un is not None and len(un):
        first = un.drop_duplicates("dispatch_seq")
        extra = pd.DataFrame({"key": [("seq", int(s)) for s in first["dispatch_seq"]],
                              "name": first["name"].astype(str).to_numpy(), "device_id": first["device_id"].to_numpy(),
                              "start_ns": all_missing(len(first)),
                              "order": len(ev) + first["dispatch_seq"].to_numpy()})
        rows = pd.concat([rows, extra], ignore_index=True)
    return rows


def _pair_devices(primary: Timeline, sec: pd.DataFrame, secondary: Timeline,
                  device_map: dict[int, int] | None) -> dict[int, int]:
    p_devs = sorted(int(x) for x in primary.gpu_events()["device_id"].unique())
    s_devs = sorted(int(x) for x in sec["device_id"].unique())
    if device_map:
        return {p: s for p, s in device_map.items() if p in p_devs and s in s_devs}
    ordinal = {int(d["device_id"]): int(d["gpu_index"]) for d in secondary.meta.devices
               if d.get("gpu_index") is not None and d.get("device_id") is not None}
    if ordinal and all(s in ordinal for s in s_devs):
        pairs = {ordinal[s]: s for s in s_devs if ordinal[s] in p_devs}
        if pairs:
            return pairs
    if len(p_devs) == len(s_devs):
        return dict(zip(p_devs, s_devs))
    return {}


def _occurrence_pairs(p: pd.DataFrame, s: pd.DataFrame, key: str) -> pd.DataFrame:
    p = p.assign(k=p[key], n=p.groupby(key, sort=False).cumcount())
    s = s.assign(k=s[key], n=s.groupby(key, sort=False).cumcount())
    return p.merge(s, on=["k", "n"], suffixes=("_p", "_s"))


def join_dispatches(primary: Timeline, secondary: Timeline, device_map: dict[int, int] | None = None,
                    tolerance_ns: int = 1_000_000) -> JoinResult:
    """Attach ``secondary``'s per-dispatch counters and resources to ``primary``'s kernels (see module docstring).

    Args:
        primary: the Timeline that keeps its events (e.g. a Kineto trace).
        secondary: the Timeline whose dispatches carry counters (rocprof, rocprofv3, rocprofiler-compute).
        device_map: primary device id → secondary device id, to override the automatic pairing.
        tolerance_ns: largest disagreement (ns) between a pair's start times after the fitted offset.
    """
    pk = primary.events[dispatch_rows(primary.events)]
    sec = _secondary_dispatches(secondary)
    pairs_dev = _pair_devices(primary, sec, secondary, device_map)
    out_pairs, offsets, rejected = [], {}, 0
    for pd_id, sd_id in pairs_dev.items():
        p = pk[pk["device_id"] == pd_id].sort_values(["start_ns", "event_id"])
        p = pd.DataFrame({"event_id": p["event_id"].to_numpy(), "start_ns": p["start_ns"].to_numpy(),
                          "name": p["name"].astype(str).to_numpy()})
        s = sec[sec["device_id"] == sd_id].sort_values(["order"])
        s = s.assign(_t=s["start_ns"].fillna(-1)).sort_values(["_t", "order"], kind="stable") \
            if s["start_ns"].notna().all() else s
        for frame in (p, s):
            frame["norm"] = [normalize_kernel_name(n) for n in frame["name"]]
            frame["trunc"] = [truncate_kernel_name(n) for n in frame["name"]]
        m = _occurrence_pairs(p, s, "norm")
        if len(m) < 0.5 * min(len(p), len(s)):
            m2 = _occurrence_pairs(p, s, "trunc")
            m = m2 if len(m2) > len(m) else m
        timed = m["start_ns_s"].notna()
        off = 0
        if timed.any():
            delta = m.loc[timed, "start_ns_p"].astype("int64") - m.loc[timed, "start_ns_s"].astype("int64")
            off = int(np.median(delta))
            # in int64 ns on the timed rows (the known mask): float64 steps by 256 ns at epoch-ns starts (≈1.7e18)
            bad = pd.Series(False, index=m.index)
            bad[timed] = np.abs(delta.to_numpy(dtype=np.int64) - off) > tolerance_ns
            rejected += int(bad.sum())
            m = m[~bad]
        offsets[pd_id] = off
        out_pairs.append(m.assign(offset_ns=off))
    pairs = pd.concat(out_pairs, ignore_index=True) if out_pairs else pd.DataFrame(
        columns=["event_id", "key", "k", "offset_ns"])
    tl = _attach(primary, secondary, pairs)
    result = JoinResult(tl, int(pairs["event_id"].nunique()) if len(pairs) else 0, len(pk), len(sec), rejected,
                        offsets, pairs_dev)
    # the primary's dispatch rows include copies and fills (HIP's blit kernels, dispatch_rows): named apart, as
    # "joined 1 of 4 kernels" read beside "1 launch of 1 kernel" for 1 kernel and 3 memcpys
    blits = int((~pk["kind"].isin(["kernel", "comm"])).sum())
    of = (plural(result.primary_kernels, 'kernel(s)') if not blits else
          f"{result.primary_kernels:,} dispatches ({plural(result.primary_kernels - blits, 'kernel(s)')}, "
          f"{blits:,} {'copy or fill' if blits == 1 else 'copies or fills'})")
    tl.meta.warnings.append(
        f"joined {result.matched:,} of {of} with "
        f"{plural(result.secondary_dispatches, 'dispatch(es)')} of "
        f"{', '.join(sorted({str(s.get('path') or s.get('collector', '?')) for s in secondary.meta.sources}))}"
        + (f"; {plural(rejected, 'name/order pair(s)')} dropped: start times disagree" if rejected else "")
        + ("" if pairs_dev else "; no device could be paired (pass device_map)"))
    return result


def _fill_launch(ev: pd.DataFrame, pos: pd.Series, launches: pd.DataFrame, pairs: dict[int, int]) -> None:
    """Fill, in place, the launch columns (:data:`_FILL`: grid, block, registers, LDS) that the primary's event
    ``pairs[key]`` lacks from row ``key`` of ``launches`` (the secondary's events by ``event_id``, or its
    ``untimed_launches`` by ``dispatch_seq``: the same columns and units); a value the primary records is kept."""
    cols = [c for c in _FILL if c in launches.columns]
    for key, p_id in pairs.items():
        if key not in launches.index:
            continue
        row = pos[p_id]
        for col in cols:
            if pd.isna(ev.at[row, col]) and not pd.isna(launches.at[key, col]):
                ev.at[row, col] = launches.at[key, col]


def _attach(primary: Timeline, secondary: Timeline, pairs: pd.DataFrame) -> Timeline:
    ev = primary.events.copy()
    counters = [primary.counters]
    src = ",".join(sorted({s.get("collector", "?") for s in secondary.meta.sources})) or "secondary"
    if len(pairs):
        by_event = {k[1]: int(e) for k, e in zip(pairs["key"], pairs["event_id"]) if k[0] == "event"}
        by_seq = {k[1]: int(e) for k, e in zip(pairs["key"], pairs["event_id"]) if k[0] == "seq"}
        sc = secondary.counters[secondary.counters["event_id"].isin(list(by_event))]
        parts = [pd.DataFrame({"event_id": sc["event_id"].map(by_event).to_numpy(),
                               "metric": sc["metric"].astype(str).to_numpy(),
                               "value": sc["value"].to_numpy(), "unit": sc["unit"].astype(str).to_numpy(),
                               "source": sc["source"].astype(str).to_numpy()})]
        un = secondary.tables.get("unattached_counters")
        if un is not None and by_seq:
            uc = un[un["dispatch_seq"].isin(list(by_seq))]
            parts.append(pd.DataFrame({"event_id": uc["dispatch_seq"].map(by_seq).to_numpy(),
                                       "metric": uc["metric"].to_numpy(),
                                       "value": uc["value"].to_numpy(), "unit": uc["unit"].to_numpy(),
                                       "source": uc["source"].to_numpy()}))
        new = pd.concat(parts, ignore_index=True)
        counters.append(make_table(COUNTER_COLUMNS, {c: new[c].tolist() for c in new.columns}, n=len(new)))
        pos = pd.Series(ev.index, index=ev["event_id"].to_numpy())
        _fill_launch(ev, pos, secondary.events.set_index("event_id"), by_event)
        ul = secondary.tables.get("untimed_launches")
        if ul is not None and len(ul) and by_seq:
            # a counter pass without timestamps (rocprof --pmc): its launch configuration is not in events
            _fill_launch(ev, pos, ul.drop_duplicates("dispatch_seq").set_index("dispatch_seq"), by_seq)
    merged = pd.concat([c for c in counters if len(c)], ignore_index=True) if any(len(c) for c in counters) \
        else primary.counters
    merged = make_table(COUNTER_COLUMNS, {c: merged[c] for c in merged.columns}, n=len(merged))
    tables = dict(primary.tables)
    tables["joined_dispatches"] = pd.DataFrame({
        "event_id": pairs["event_id"].astype("int64") if len(pairs) else pd.Series([], dtype="int64"),
        "secondary_source": src, "secondary_key": [f"{k[0]}:{k[1]}" for k in pairs.get("key", [])],
        "name_norm": pairs.get("k", pd.Series([], dtype=object)).tolist(),
        "offset_ns": pairs.get("offset_ns", pd.Series([], dtype="int64")).astype("int64")})
    meta = type(primary.meta).from_dict(primary.meta.to_dict())
    meta.sources = meta.sources + secondary.meta.sources
    meta.devices = meta.devices + [d for d in secondary.meta.devices if d not in meta.devices]
    return Timeline(ev, merged, primary.rejected, meta, tables).validate()


#: Collectors whose Timelines carry per-dispatch counters/resources worth attaching to a framework trace.
PROFILER_COLLECTORS = ("rocprof_v1", "rocprof_v1_db", "rocprof_v1_json", "rocprof_v1_dir", "rocprofv3_csv",
                       "rocprofv3_csv_dir", "rocprofv3_json", "rocpd", "omniperf")


def fold_profiler_inputs(loaded: list[tuple[str, Timeline]], min_share: float = 0.5) -> list[tuple[str, Timeline]]:
    """Fold AMD profiler inputs into the framework trace of the same run (``gpulens analyze trace.json rocprof/``).

    Each input read by a :data:`PROFILER_COLLECTORS` collector is joined (:func:`join_dispatches`) to every other
    input with kernels that is not itself a profiler input; it is folded into the best one when at least
    ``min_share`` of that input's kernels matched and at most a tenth of the name/order pairs disagreed in time.
    Otherwise both stay separate sources and the profiler input gets a warning saying why.

    Returns:
        ``(label, Timeline)`` pairs, folded inputs removed and their targets relabelled ``"a + b"``.
    """
    def is_profiler(tl: Timeline) -> bool:
        return bool(tl.meta.sources) and all(s.get("collector") in PROFILER_COLLECTORS for s in tl.meta.sources)

    targets = [i for i, (_, tl) in enumerate(loaded) if not is_profiler(tl) and len(tl.of_kind("kernel", "comm"))]
    out, dropped = list(loaded), set()
    for i, (label, tl) in enumerate(loaded):
        if not targets or not is_profiler(tl):
            continue
        t, best = max(((t, join_dispatches(out[t][1], tl)) for t in targets), key=lambda x: x[1].matched)
        if best.matched and best.matched >= min_share * best.primary_kernels and \
                best.rejected_by_time <= 0.1 * best.matched:
            out[t] = (f"{out[t][0]} + {label}", best.timeline)
            dropped.add(i)
        else:
            tl.meta.warnings.append(f"{label}: not joined to {out[t][0]} ({best.matched:,} of {best.primary_kernels:,} "
                                    "kernels matched by name and order): analysed as a separate run")
    return [x for i, x in enumerate(out) if i not in dropped]
