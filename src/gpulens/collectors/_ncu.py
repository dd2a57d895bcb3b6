"""Shared Nsight Compute → Timeline builder, used by the CSV (:mod:`.ncu_csv`) and report (:mod:`.ncu_rep`) readers.

A reader hands over three things, in ncu's own vocabulary:

* ``launches`` — one dict per profiled kernel launch in profiling order: ``id`` (ncu's launch ID), ``name``
  (Kernel Name), and when known ``pid``, ``stream``, ``context``, ``device``, ``cc`` (``"9.0"``), ``block``/``grid``
  (``"(256, 1, 1)"``), ``process``;
* ``metrics`` — a long DataFrame ``launch`` (index into ``launches``), ``section``, ``metric`` (name exactly as ncu
  spells it: ``gpu__time_duration.sum``, ``Duration``, ``Achieved Occupancy``), ``unit`` (as printed), ``value``
  (float in that unit; NaN for ``n/a``);
* ``strings`` — per launch, text-valued metrics (``device__attribute_display_name`` …);
* ``rules`` — rule results: ``launch``, ``section``, ``rule``, ``type``, ``description``, ``speedup_type``,
  ``estimated_speedup_pct``.

The Timeline gets one ``kernel`` event per launch and one Counters row per numeric metric (value converted to the
base unit by :func:`~gpulens.collectors._ncu_units.convert_unit`). **Start times are synthetic**: ncu serialises
and replays each kernel, so it records no timeline; ``start_ns`` is the cumulative sum of the previous launches'
durations (first launch at 0) and a warning says so. ``dur_ns`` is ``gpu__time_duration.sum``, else the
"Duration" metric of the Speed Of Light section, else another roll-up of ``gpu__time_duration`` (``.avg``, ``.max``,
``.min``: equal for one launch); a launch with none gets 0 and a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors._process_split import split_by_process
from gpulens.collectors._numbers import exact_int
from gpulens.collectors._ncu_units import UNIT_NOT_RECORDED, convert_unit, parse_dim3
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, TimelineMeta, make_table
from gpulens.timeline.sums import MAX_EVENT_NS, over_total
from gpulens.units import agree, plural
from gpulens.units import plural

#: Columns of ``timeline.tables["ncu_rules"]``.
RULE_COLUMNS = {
    "event_id": "event_id of the launch the rule was evaluated on",
    "kernel": "kernel name",
    "section": "ncu section (or rule section identifier) that holds the rule",
    "rule": "rule name as ncu spells it (SOLBottleneck, AchievedOccupancy, ...)",
    "type": "OPT (optimisation advice), WRN (warning), INF (information) or ERR",
    "description": "the rule's text",
    "speedup_type": "'global' (a cut in the kernel's duration) or 'local' (the rule's hardware unit used that much "
                    "better, viewed in isolation; NvRules SpeedupType_LOCAL) or '' when not given",
    "estimated_speedup_pct": "ncu's estimated speedup [%], unknown when not given",
}

SYNTHETIC_START_WARNING = ("ncu records no timeline (kernels are serialised and replayed): the start times shown are "
                           "synthetic, the cumulative sum of the previous launches' durations")

#: A launch's duration under every spelling ncu users request: ``.sum`` (the Speed Of Light section's), the
#: "Duration" row of the details page, and the other roll-ups of the same per-launch metric (``--metrics
#: gpu__time_duration.avg`` is the common command line; a launch is one instance, so sum = avg = max = min).
_DUR = ("gpu__time_duration.sum", "Duration", "gpu__time_duration.avg", "gpu__time_duration.max",
        "gpu__time_duration.min", "gpu__time_duration")
_REGS = ("launch__registers_per_thread", "Registers Per Thread")
_SMEM_STATIC = ("launch__shared_mem_per_block_static", "Static Shared Memory Per Block")
_SMEM_DYN = ("launch__shared_mem_per_block_dynamic", "Dynamic Shared Memory Per Block")
_GRID = ("launch__grid_size", "Grid Size")
_BLOCK = ("launch__block_size", "Block Size")
_SMS = ("device__attribute_multiprocessor_count", "launch__sm_count", "# SMs")
#: the DRAM clock [Hz]: the raw page's metric, the details page's SpeedOfLight row (both normalised to Hz)
_DRAM_CLOCK = ("dram__cycles_elapsed.avg.per_second", "DRAM Frequency")
#: CUDA device attributes ncu records (raw page, .ncu-rep) in kHz (``cudaDevAttrClockRate``,
#: ``cudaDevAttrMemoryClockRate``: "in kilohertz") where no unit says otherwise; read into the device record as Hz
_DEV_KHZ = {"device__attribute_clock_rate": "clock_hz", "device__attribute_memory_clock_rate": "memory_clock_rate_hz"}
#: further device attributes kept in the device record: the memory bus width [bits] and the L2 size [bytes]
_DEV_OTHER = {"device__attribute_global_memory_bus_width": "memory_bus_width_bits",
              "device__attribute_l2_cache_size": "l2_cache_bytes"}


#: Most launches a per-kernel summary is expanded into (its Invocations summed): a larger count is refused.
MAX_SUMMARY_LAUNCHES = 2_000_000


def summary_note(path: Path, n: int, form: str) -> str:
    """The one warning of a per-kernel summary (``ncu --print-summary per-kernel``, text or ``--csv``) whose
    kernels stood for ``n`` launches."""
    return (f"{path}: per-kernel summary (ncu --print-summary{form}): {plural(n, 'launch(es)')} {agree(n, 'is', 'are')} each shown with their "
            "kernel's average over its invocations (minimum and maximum not kept)")


def expand_summary(launches: list[dict[str, Any]], metrics: pd.DataFrame, strings: list[dict[str, str]],
                   rules: pd.DataFrame, calls: list[int]) -> tuple[list, pd.DataFrame, list, pd.DataFrame]:
    """A per-kernel summary's launch rows, each standing for ``calls[i]`` invocations, as that many launches with
    the same (average) metrics and rule results; launch ids renumbered 0, 1, … in order. Raises ValueError past
    :data:`MAX_SUMMARY_LAUNCHES` launches."""
    if sum(calls) > MAX_SUMMARY_LAUNCHES:
        raise ValueError(f"a per-kernel summary of {sum(calls):,} invocations (more than {MAX_SUMMARY_LAUNCHES:,})")
    if not any(c > 1 for c in calls):
        return launches, metrics, strings, rules
    first = np.concatenate([[0], np.cumsum(calls)[:-1]])
    launches = [{**la, "id": str(first[i] + k)} for i, la in enumerate(launches) for k in range(calls[i])]
    strings = [st for i, st in enumerate(strings) for _ in range(calls[i])]

    def spread(df: pd.DataFrame) -> pd.DataFrame:
        reps = np.asarray(calls)[df["launch"].to_numpy(dtype=int)] if len(df) else np.zeros(0, dtype=int)
        df = df.loc[df.index.repeat(reps)].reset_index(drop=True)
        off = np.concatenate([np.arange(r) for r in reps]) if len(reps) else np.zeros(0, dtype=int)
        df["launch"] = first[df["launch"].to_numpy(dtype=int)] + off if len(df) else df["launch"]
        return df

    return launches, spread(metrics), strings, spread(rules)


def _first(per_launch: dict[str, float], names: tuple[str, ...]) -> float | None:
    for n in names:
        v = per_launch.get(n)
        if v is not None and v == v:
            return v
    return None


def _int(v: Any) -> int | None:
    """``v`` as an int64, or None when it is no finite number within int64 (see :func:`._numbers.exact_int`)."""
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError):
        return None
    return exact_int(f)


def _speedups(path: Path, rules: pd.DataFrame, warnings: list[str]) -> pd.DataFrame:
    """``rules`` with each ``estimated_speedup_pct`` outside [0, 100] (negative, above 100, ±inf, ±1e308 of a
    damaged file) read as unknown (NaN), counted in a warning appended to ``warnings``. ncu's estimated speedup is
    the share of the kernel's time a fix could save (its rule text: "Est. Speedup: N%"): a percentage of a whole."""
    if not len(rules) or "estimated_speedup_pct" not in rules:
        return rules
    sp = pd.to_numeric(rules["estimated_speedup_pct"], errors="coerce").astype("float64")
    bad = sp.notna() & ~sp.between(0.0, 100.0)
    if not bad.any():
        return rules
    warnings.append(f"{path}: {plural(int(bad.sum()), 'rule estimated speedup(s)')} outside 0–100 % read as unknown")
    return rules.assign(estimated_speedup_pct=sp.where(~bad))


def build(path: Path, source: str, launches: list[dict[str, Any]], metrics: pd.DataFrame,
          strings: list[dict[str, str]], rules: pd.DataFrame, warnings: list[str],
          extra_meta: dict[str, Any] | None = None) -> Timeline:
    """Assemble the Timeline (see module docstring). ``metrics.value`` is in the printed unit; converted here."""
    n = len(launches)
    rules = _speedups(path, rules, warnings)
    m = metrics.copy()
    units = pd.unique(m["unit"].fillna(""))
    conv = {u: convert_unit(u) for u in units}
    uu = m["unit"].fillna("")
    m["value"] = m["value"].astype("float64") * uu.map(lambda u: conv[u][0]).astype("float64")
    m["unit"] = uu.map(lambda u: conv[u][1])
    m = m[m["value"].notna()]
    # a duration in a unit that is no time (``cycle``, a typo) is no duration: unknown for its launch, never ns
    not_time = m["metric"].isin(_DUR).to_numpy() & ~m["unit"].isin(["ns", ""]).to_numpy()
    if not_time.any():
        odd = sorted(set(uu[m.index[not_time]].astype(str)))
        what = ("without a unit (the file has no Metric Unit column or units row: µs or ms?)"
                if odd == [UNIT_NOT_RECORDED] else f"in a unit that is no time ({', '.join(map(repr, odd[:3]))})")
        warnings = [*warnings, f"{path}: {plural(int(not_time.sum()), 'duration value(s)')} {what}: read as "
                               "unknown, not as ns"]
        m = m[~not_time]
    # per-launch lookup of the values that fill the event columns (first occurrence wins)
    key_names = set(_DUR + _REGS + _SMEM_STATIC + _SMEM_DYN) | {
        f"launch__{k}_dim_{a}" for k in ("grid", "block") for a in "xyz"} | {
        "launch__device_id", "launch__stream_id", *_GRID, *_BLOCK, *_SMS, *_DRAM_CLOCK,
        "device__attribute_compute_capability_major", "device__attribute_compute_capability_minor",
        *_DEV_KHZ, *_DEV_OTHER}
    sel = m[m["metric"].isin(key_names)].drop_duplicates(["launch", "metric"])
    per: list[dict[str, float]] = [{} for _ in range(n)]
    for li, name, v, u in zip(sel["launch"].to_numpy(), sel["metric"].to_numpy(), sel["value"].to_numpy(),
                              sel["unit"].to_numpy()):
        # a clock attribute without a unit is CUDA's kHz; with one (Khz, Mhz) it was converted to Hz above
        per[int(li)][str(name)] = float(v) * (1e3 if name in _DEV_KHZ and u != "Hz" else 1.0)

    cols: dict[str, list] = {k: [] for k in ("name", "dur_ns", "device_id", "stream_id", "pid", "grid_x", "grid_y",
                                             "grid_z", "block_x", "block_y", "block_z", "regs_per_thread",
                                             "smem_static_bytes", "smem_dynamic_bytes")}
    no_dur = 0
    no_dur_ids: list[int] = []
    for i, la in enumerate(launches):
        p = per[i]
        dur = _int(_first(p, _DUR))  # an int64 number of ns, or unknown (inf, 1e30, 2^64 are no duration)
        if dur is None or dur < 0 or dur > MAX_EVENT_NS:  # beyond 104 days: no measured time (timeline.sums)
            no_dur += 1
            no_dur_ids.append(i)
            dur = 0
        cols["name"].append(str(la.get("name", "")))
        cols["dur_ns"].append(dur)
        dev = _int(la.get("device"))
        cols["device_id"].append(dev if dev is not None else (_int(p.get("launch__device_id")) or 0))
        st = _int(la.get("stream"))
        cols["stream_id"].append(st if st is not None else _int(p.get("launch__stream_id")))
        cols["pid"].append(_int(la.get("pid")))
        for kind in ("grid", "block"):
            dims = parse_dim3(la.get(kind))
            if dims[0] is None:
                dims = tuple(_int(p.get(f"launch__{kind}_dim_{a}")) for a in "xyz")
            if dims[0] is None:
                dims = (_int(_first(p, _GRID if kind == "grid" else _BLOCK)), None, None)
            for a, d in zip("xyz", dims):
                cols[f"{kind}_{a}"].append(d)
        cols["regs_per_thread"].append(_int(_first(p, _REGS)))
        cols["smem_static_bytes"].append(_int(_first(p, _SMEM_STATIC)))
        cols["smem_dynamic_bytes"].append(_int(_first(p, _SMEM_DYN)))
    durs = np.asarray(cols["dur_ns"], dtype="int64")
    piled = over_total(durs)  # launches are laid end to end: the longest of durations adding up past 2^62 ns are
    if piled.any():  # no measured times (their starts and every sum would wrap int64): unknown, as a missing one
        durs[piled] = 0
        cols["dur_ns"] = durs.tolist()
        no_dur += int(piled.sum())
        no_dur_ids = sorted(no_dur_ids + np.flatnonzero(piled).tolist())
    starts = np.concatenate([[0], np.cumsum(durs)[:-1]]) if n else np.zeros(0, dtype="int64")
    events = make_table(EVENT_COLUMNS, {
        **cols, "event_id": np.arange(n, dtype="int64"), "kind": ["kernel"] * n, "start_ns": starts,
        "rank": np.zeros(n, dtype="int64"), "source": [source] * n}, n=n)

    m = m.drop_duplicates(["launch", "metric", "unit", "value"])
    counters = make_table(COUNTER_COLUMNS, {
        "event_id": m["launch"].to_numpy(dtype="int64"), "metric": m["metric"].astype(str).to_numpy(),
        "value": m["value"].to_numpy(dtype="float64"), "unit": m["unit"].to_numpy(),
        "source": [source] * len(m)}, n=len(m))

    if n:
        warnings = [*warnings, f"{path}: {SYNTHETIC_START_WARNING}"]
    if no_dur:
        warnings.append(f"{path}: {plural(no_dur, 'launch(es)')} without a usable gpu__time_duration.sum or Duration (absent, "
                        "negative, beyond 104 days, among durations adding up beyond 146 years, or no number within "
                        "int64): their duration is unknown (their counters are kept; "
                        "every time figure over them, and every share of a total holding them, is shown as unknown)")
    meta = TimelineMeta(
        sources=[{"path": str(path), "collector": source, "size_bytes": path.stat().st_size, "rank": 0,
                  "launches": n, "synthetic_start": True, **(extra_meta or {}),
                  # read by analyzers._span.durations_unknown: every figure from those zeros is unknown, not 0 ns
                  # and durations_unknown_events (event ids): a kernel whose every launch is one has no time
                  **({"durations_unknown": no_dur, "durations_unknown_events": no_dur_ids} if no_dur else {})}],
        devices=_devices(launches, per, strings), warnings=warnings)
    r = rules.copy()
    tables = {}
    if len(r):
        r.insert(0, "event_id", r.pop("launch").astype("int64"))
        r.insert(1, "kernel", [str(launches[i].get("name", "")) for i in r["event_id"]])
        tables["ncu_rules"] = r[list(RULE_COLUMNS)].reset_index(drop=True)
    return split_by_process(Timeline(events, counters, None, meta, tables).validate(), path, "report")


def _devices(launches: list[dict[str, Any]], per: list[dict[str, float]], strings: list[dict[str, str]]
             ) -> list[dict[str, Any]]:
    """One dict per distinct device index: name, compute capability, SM count, DRAM clock (``memory_clock_hz``),
    and the device attributes clock (``clock_hz``), memory clock (``memory_clock_rate_hz``), memory bus width
    (``memory_bus_width_bits``) and L2 size (``l2_cache_bytes``) where the data has them
    (:mod:`gpulens.devices.derived` derives the peaks of a GPU without a built-in spec from them)."""
    out: dict[int, dict[str, Any]] = {}
    for i, la in enumerate(launches):
        p, s = per[i], strings[i] if i < len(strings) else {}
        dev = _int(la.get("device"))
        if dev is None:
            dev = _int(p.get("launch__device_id")) or 0
        d = out.setdefault(dev, {"rank": 0, "device_id": dev, "name": None})
        if d["name"] is None and s.get("device__attribute_display_name"):
            d["name"] = s["device__attribute_display_name"]
        cc = la.get("cc")
        if not cc and p.get("device__attribute_compute_capability_major") is not None:
            cc = f"{int(p['device__attribute_compute_capability_major'])}." \
                 f"{int(p.get('device__attribute_compute_capability_minor', 0))}"
        if cc and "compute_capability" not in d:
            d["compute_capability"] = str(cc)
        sms = _int(_first(p, _SMS))
        if sms is not None:
            d.setdefault("num_sms", sms)
        clk = _first(p, _DRAM_CLOCK)
        if clk is not None and clk > 0:
            d.setdefault("memory_clock_hz", float(clk))
        for attr, key in (*_DEV_KHZ.items(), *_DEV_OTHER.items()):  # what a derived spec rests on
            v = p.get(attr)
            if v is not None and v == v and v > 0:
                d.setdefault(key, float(v))
    for d in out.values():
        if d["name"] is None and d.get("compute_capability"):
            _assume_name(d)
    return list(out.values())


def _assume_name(d: dict[str, Any]) -> None:
    """For a device recorded only by compute capability (ncu's ``CC`` column), say in ``name_assumed`` which
    built-in GPU is assumed for it and why (shown with the spec's note; see :func:`gpulens.devices.identify_device`).
    ``name`` stays None: a name the file does not record is never presented as the device's name."""
    from gpulens.devices import identify_device

    spec = identify_device(d)
    if spec is not None:
        d["name_assumed"] = f"{spec.name} assumed from {spec.note.removeprefix('identified from ')}"
