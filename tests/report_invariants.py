"""Invariants every ``gpulens analyze --json`` report keeps, checked from the report alone (docs/report-schema.md).

:func:`violations` returns one line per broken invariant (empty when the report is consistent). Each invariant is a
property the schema's definitions make true, whatever the input:

* figures in range — a ``*_pct`` figure lies in [0, 100] and a ``share`` / ``*_share`` in [0, 1], except the ratios
  the schema defines as unbounded (:data:`UNBOUNDED_PCT`); a roofline figure may reach 100.5 % (the schema's
  tolerance: above it the figure is null and ``roof_note`` / ``points_above_roof`` flag it); durations, bytes, counts
  and FLOP are never negative;
* parts within their whole — the time breakdown adds up to the summed per-GPU spans (each GPU's row to its span),
  busy within the span, kernel busy within busy, the idle causes add up to the idle, per-kernel and per-group
  figures within the kernel time, a kernel's time at stake within its time (unless ``stake_note`` says why not), a
  finding's time at stake within the summed spans, the roots together too ("sum the roots only: each nanosecond
  once"), a child's within its parent's (within the parent's ``stake_upper_ns`` when the parent's figure is a
  measured lower bound);
* counts consistent — the kernel count is the hotspots' summed calls, linked + unlinked kernels are the kernels;
* references exist — a finding's parent precedes it, ranks named by findings and tables are the run's ranks.

Used by tests/test_trust_s26_report_invariants.py over the committed inputs (and by hand over ../shared/traces).
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable

#: ``*_pct`` figures the schema defines as ratios that may exceed 100 (not shares of a whole):
#: (max − min) / min or / mean of medians or per-rank times, a change against a base.
UNBOUNDED_PCT = {"spread_pct", "imbalance_pct", "compute_more_pct", "delta_pct"}
#: placement figures allowed up to 100.5 % (docs/report-schema.md ``roof_note``: above it they are null and flagged)
ROOF_PCT = {"roof_pct", "datasheet_roof_pct", "pct_of_attainable", "peak_pct"}
#: keys of figures that are never negative (durations, bytes, counts, FLOP)
_NONNEG = re.compile(r"(_ns|_bytes|^bytes|_count|^count|^calls|^launches|^events|^gpu_events|^flops|_flops|"
                     r"^dispatches|^instances|^samples|^other_rows|^rows_total|^findings_total|^sizes_unknown)$")
#: ``*_ns`` keys that are clock readings or signed differences, not durations
_SIGNED = {"start_ns", "end_ns", "base_time_ns", "delta_ns", "clock_skew_ns", "time_ns_clock"}


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _tol(whole: float, n: int = 1) -> float:
    """Rounding allowed when comparing sums of integer ns figures (1 ns per part, 1e-9 relative)."""
    return n + abs(whole) * 1e-9


def _rows(src: dict, name: str) -> list[dict]:
    a = (src.get("analyses") or {}).get(name) or {}
    return [r for r in (a.get("table") or []) if isinstance(r, dict)]


def _real_rows(src: dict, name: str) -> list[dict]:
    """Table rows without the capped table's closing "other" row."""
    return [r for r in _rows(src, name) if "other_rows" not in r or r.get("other_rows") is None]


def _summ(src: dict, name: str) -> dict:
    a = (src.get("analyses") or {}).get(name) or {}
    return a.get("summary") or {}


def _sum(rows: Iterable[dict], key: str) -> float:
    return sum(r[key] for r in rows if _num(r.get(key)))


def _ranges(obj: Any, where: str, out: list[str]) -> None:
    """Every number in ``obj`` (walked recursively) within its documented range."""
    if isinstance(obj, list):
        for i, x in enumerate(obj):
            _ranges(x, f"{where}[{i}]", out)
        return
    if not isinstance(obj, dict):
        return
    for k, v in obj.items():
        k = str(k)
        if isinstance(v, (dict, list)):
            if k in ("rank_span_ns", "kernel_time_ns_by_rank", "compute_time_ns_by_rank", "class_ns"):
                for kk, vv in (v.items() if isinstance(v, dict) else []):
                    if _num(vv) and vv < 0:
                        out.append(f"{where}.{k}.{kk} = {vv} is negative")
            _ranges(v, f"{where}.{k}", out)
            continue
        if not _num(v):
            continue
        if k.endswith("_pct") and k not in UNBOUNDED_PCT:
            top = 100.5 if k in ROOF_PCT else 100.0 + 1e-9
            if not -1e-9 <= v <= top:
                out.append(f"{where}.{k} = {v} outside [0, 100] %")
        elif (k in ("share", "coverage") or k.endswith("_share") or k.startswith("coverage_")) and not -1e-9 <= v <= 1 + 1e-9:
            out.append(f"{where}.{k} = {v} outside [0, 1]")
        elif _NONNEG.search(k) and k not in _SIGNED and v < 0:
            out.append(f"{where}.{k} = {v} is negative")


def _le(out: list[str], where: str, part: Any, whole: Any, what: str, tol: float | None = None) -> None:
    """``part`` ≤ ``whole`` (both known)."""
    if _num(part) and _num(whole) and part > whole + (_tol(whole) if tol is None else tol):
        out.append(f"{where}: {what}: {part} > {whole}")


def _eq(out: list[str], where: str, a: Any, b: Any, what: str, tol: float | None = None) -> None:
    if _num(a) and _num(b) and abs(a - b) > (_tol(max(abs(a), abs(b))) if tol is None else tol):
        out.append(f"{where}: {what}: {a} != {b}")


def _summary(src: dict, w: str, out: list[str]) -> None:
    """The source summary: breakdown parts add up to the summed spans, busy within span, counts consistent."""
    s = src.get("summary") or {}
    parts = [s.get(k) for k in ("computation_ns", "exposed_comm_ns", "exposed_memcpy_ns", "exposed_memset_ns",
                                "idle_ns")]
    gpus = max(1, len(_rows(src, "breakdown")))
    if all(_num(p) for p in parts) and _num(s.get("device_span_ns")) and s["device_span_ns"] > 0:
        _eq(out, w, sum(parts), s["device_span_ns"], "time breakdown parts ≠ summed per-GPU spans",
            _tol(s["device_span_ns"], 5 * gpus))
    _le(out, w, s.get("kernel_busy_ns"), s.get("gpu_busy_ns"), "kernel busy > GPU busy")
    _le(out, w, s.get("kernel_busy_ns"), s.get("kernel_time_ns"), "kernel busy (union) > kernel time (sum)")
    _le(out, w, s.get("gpu_busy_ns"), s.get("device_span_ns"), "GPU busy > summed spans")
    # the wall span is not bounded by the summed per-GPU spans (two GPUs busy one after the other: wall 30 µs,
    # spans 10 + 10 µs); it covers each GPU's span
    for r in _real_rows(src, "breakdown"):
        _le(out, w, r.get("span_ns"), s.get("span_ns"), f"GPU {r.get('device_id')}'s span > the wall span")
    _le(out, w, s.get("span_ns"), s.get("window_ns"), "GPU span > profiled window")
    _le(out, w, s.get("computation_ns"), s.get("kernel_busy_ns"), "computation > kernel busy")
    br = _summ(src, "breakdown")
    _le(out, w, s.get("exposed_comm_ns"), br.get("comm_ns"), "exposed communication > communication")
    _le(out, w, s.get("idle_other_clock_ns"), s.get("idle_ns"), "idle on another clock > idle")
    _le(out, w, s.get("unique_kernels"), s.get("kernel_count"), "unique kernels > kernels")
    _le(out, w, s.get("memcpy_sizes_unknown"), s.get("memcpy_count"), "copies of unknown size > copies")
    if _num(s.get("gpu_busy_pct")) and _num(s.get("gpu_utilization_pct")):
        _le(out, w, s["gpu_utilization_pct"], s["gpu_busy_pct"], "busy % of the window > busy % of the span", 1e-6)
    if _num(s.get("gpu_busy_pct")) and _num(s.get("gpu_busy_ns")) and (s.get("device_span_ns") or 0) > 0:
        _eq(out, w, s["gpu_busy_pct"], 100.0 * s["gpu_busy_ns"] / s["device_span_ns"], "gpu_busy_pct ≠ busy / Σ span",
            1e-6)
    ranks = set(s.get("ranks") or [])
    for r, v in (s.get("rank_span_ns") or {}).items():
        if ranks and int(r) not in ranks:
            out.append(f"{w}: rank_span_ns names rank {r}, not among ranks {sorted(ranks)}")
        _le(out, w, v, s.get("span_ns"), f"rank {r}'s span > the wall span")
    if _num(s.get("world_size")) and ranks:
        _le(out, w, len(ranks), s["world_size"], "more ranks read than world_size", 0)
    top = src.get("top_kernels") or []
    for i, r in enumerate(top):
        _le(out, f"{w}.top_kernels[{i}]", r.get("effective_ns"), r.get("total_ns"), "effective > recorded time")
        _le(out, f"{w}.top_kernels[{i}]", r.get("total_ns"), s.get("kernel_time_ns"), "one kernel > kernel time")
    _le(out, w, _sum(top, "total_ns"), s.get("kernel_time_ns"), "Σ top kernels > kernel time")
    _le(out, w, _sum(top, "calls"), s.get("kernel_count"), "Σ top kernels' calls > kernel count", 0)


def _hotspots(src: dict, w: str, out: list[str]) -> None:
    """Per-kernel rows add up to the summary's kernel count and time; each row's figures ordered."""
    s, hs, rows = src.get("summary") or {}, _summ(src, "hotspots"), _rows(src, "hotspots")
    if rows and not hs.get("from_summary_partial"):
        _eq(out, w + ".hotspots", _sum(rows, "calls"), s.get("kernel_count"), "Σ calls ≠ kernel_count", 0)
        _eq(out, w + ".hotspots", _sum(rows, "total_ns"), s.get("kernel_time_ns"), "Σ total_ns ≠ kernel_time_ns",
            _tol(s.get("kernel_time_ns") or 0, len(rows)))
    prev = 0.0
    for i, r in enumerate(_real_rows(src, "hotspots")):
        x = f"{w}.hotspots.table[{i}]"
        _le(out, x, r.get("effective_ns"), r.get("total_ns"), "effective > recorded")
        _le(out, x, r.get("min_ns"), r.get("mean_ns"), "min > mean", 1)
        _le(out, x, r.get("mean_ns"), r.get("max_ns"), "mean > max", 1)
        c = r.get("cumulative_share")
        if _num(c):
            _le(out, x, prev, c, "cumulative share decreases", 1e-9)
            prev = c


def _breakdown(src: dict, w: str, out: list[str]) -> None:
    """Each GPU's row: parts add up to its span, busy within span; rows add up to the summary."""
    s = src.get("summary") or {}
    rows = _real_rows(src, "breakdown")
    for i, r in enumerate(rows):
        x = f"{w}.breakdown.table[{i}]"
        parts = [r.get(k) for k in ("computation_ns", "exposed_comm_ns", "exposed_memcpy_ns", "exposed_memset_ns",
                                    "idle_ns")]
        if all(_num(p) for p in parts) and _num(r.get("span_ns")):
            _eq(out, x, sum(parts), r["span_ns"], "parts ≠ span", 5)
        _le(out, x, r.get("busy_ns"), r.get("span_ns"), "busy > span")
        _le(out, x, r.get("kernel_busy_ns"), r.get("busy_ns"), "kernel busy > busy")
        _le(out, x, r.get("exposed_comm_ns"), r.get("comm_ns"), "exposed comm > comm")
        _le(out, x, r.get("idle_other_clock_ns"), r.get("idle_ns"), "idle on another clock > idle")
        _le(out, x, r.get("span_ns"), r.get("window_ns"), "GPU span > its rank's profiled window")
    other = [r for r in _rows(src, "breakdown") if r.get("other_rows")]  # a capped table's closing row (sums)
    if rows:
        for k in ("span_ns", "idle_ns", "computation_ns"):
            key = "device_span_ns" if k == "span_ns" else k
            if any(not _num(r.get(k)) for r in other):  # not summed in the "other" row: the whole is not shown
                continue
            _eq(out, w + ".breakdown", _sum(rows + other, k), s.get(key), f"Σ rows {k} ≠ summary {key}",
                _tol(s.get(key) or 0, len(rows) + len(other)))


#: the gap classes of the idle: every gap is in one, warm-up / boundary / one-off gaps included (bottlenecks.py)
_IDLE_CAUSES = ("idle_host_ns", "idle_launch_ns", "idle_sync_ns", "idle_queued_ns", "idle_unattributed_ns",
                "idle_boundary_ns")


def _bottlenecks(src: dict, w: str, out: list[str]) -> None:
    """Idle causes add up to the idle; each within the span."""
    for i, r in enumerate(_real_rows(src, "bottlenecks")):
        x = f"{w}.bottlenecks.table[{i}]"
        causes = [r.get(k) for k in _IDLE_CAUSES]
        if all(_num(c) for c in causes) and _num(r.get("idle_ns")):
            _eq(out, x, sum(causes), r["idle_ns"], "idle causes ≠ idle", 5)
        _le(out, x, r.get("idle_boundary_ns"), r.get("idle_ns"), "boundary idle > idle")
        _le(out, x, r.get("idle_other_clock_ns"), r.get("idle_ns"), "idle on another clock > idle")
        _le(out, x, r.get("busy_ns"), r.get("span_ns"), "busy > span")
        _le(out, x, r.get("computation_ns"), r.get("busy_ns"), "computation > busy")
        _le(out, x, r.get("idle_ns"), r.get("span_ns"), "idle > span")
        _le(out, x, r.get("short_launches"), r.get("launch_calls"), "short launches > launch calls", 0)
    b = _summ(src, "bottlenecks")
    if _num(b.get("recoverable_idle_ns")):
        _le(out, w + ".bottlenecks", b["recoverable_idle_ns"], b.get("idle_ns"), "recoverable idle > idle")
    causes = [b.get(k) for k in _IDLE_CAUSES]
    if all(_num(c) for c in causes) and _num(b.get("idle_ns")):
        _eq(out, w + ".bottlenecks.summary", sum(causes), b["idle_ns"], "idle causes ≠ idle", _tol(b["idle_ns"], 20))


def _stake_bound(src: dict) -> float | None:
    """The most time any fix can recover: the profiled time — the summed per-GPU spans, or the ranks' summed
    profiled windows (host-only time outside the GPU span and the critical path are shares of the window), or the
    kernel time for inputs without a timeline (an nsys stats summary, an ncu CSV), whichever is largest."""
    s = src.get("summary") or {}
    windows = {r.get("rank"): r.get("window_ns") for r in _real_rows(src, "breakdown") if _num(r.get("window_ns"))}
    summed = sum(windows.values())
    # a capped table (over 1,000 GPUs): its "other" row holds no window; each GPU it stands for counted at the
    # largest window shown (an upper bound of the ranks' summed windows)
    hidden = sum(r.get("other_rows") or 0 for r in _rows(src, "breakdown") if _num(r.get("other_rows")))
    summed += hidden * max(windows.values(), default=0)
    vals = [v for v in (s.get("device_span_ns"), s.get("kernel_time_ns"), s.get("window_ns"), summed) if _num(v)]
    return max(vals) if vals and max(vals) > 0 else None


def _findings(findings: list[dict], src: dict, w: str, out: list[str], tree: bool) -> None:
    """Time at stake within the run, children within their parent, parents before children (``tree``: the source's
    tree-ordered list), ranks among the run's."""
    bound = _stake_bound(src)
    ranks = set((src.get("summary") or {}).get("ranks") or [])
    seen: dict[str, Any] = {}
    roots = 0.0
    for i, f in enumerate(findings):
        if not isinstance(f, dict):
            continue
        x = f"{w}[{i}] {str(f.get('title'))[:60]!r}"
        t = f.get("time_at_stake_ns")
        _le(out, x, t, bound, "time at stake > summed spans")
        par = f.get("parent")
        if par:
            if par in seen:
                _le(out, x, t, seen[par], f"time at stake > its parent {par!r}'s", 0)
            elif tree:
                out.append(f"{x}: parent {par!r} is not among the findings before it")
        elif tree and _num(t):
            roots += t
        if f.get("key"):  # a measured lower bound's children are capped at its upper bound (stake_upper_ns)
            up = f.get("stake_upper_ns")
            seen.setdefault(f["key"], up if _num(up) and _num(t) and up > t else t)
        if ranks and _num(f.get("rank")) and f["rank"] not in ranks:
            out.append(f"{x}: rank {f['rank']} is not among the run's ranks {sorted(ranks)}")
    if tree:
        _le(out, w, roots, bound, "Σ root findings' time at stake > summed spans")


def _stake_rows(src: dict, name: str, w: str, out: list[str], time_key: str = "time_ns") -> None:
    """A kernel's time at stake within its time (unless ``stake_note`` says why), its time within kernel time."""
    kt = (src.get("summary") or {}).get("kernel_time_ns")
    for i, r in enumerate(_real_rows(src, name)):
        x = f"{w}.{name}.table[{i}]"
        if not r.get("stake_note"):
            _le(out, x, r.get("time_at_stake_ns"), r.get(time_key), "time at stake > its time")
        if not (_summ(src, name).get("durations_from_summary")):
            _le(out, x, r.get(time_key), kt, "kernel's time > kernel time")
        if name == "roofline" and r.get("roof_note") and any(r.get(k) is not None for k in
                                                              ("roof_pct", "flops_per_s", "bytes_per_s")):
            out.append(f"{x}: above its roof (roof_note) but a placement figure is shown")


def _kernel_findings(src: dict, w: str, out: list[str]) -> None:
    """A finding about one kernel puts at stake at most that kernel's time, unless its verdict row says why not
    (``stake_note``: a launch-bound kernel's stake is the GPU idle before its launches)."""
    times = {r.get("name"): r.get("total_ns") for r in _real_rows(src, "hotspots")}
    noted = {r.get("name") for r in _real_rows(src, "verdicts") if r.get("stake_note")}
    if _summ(src, "hotspots").get("durations_from_summary"):
        return
    for i, f in enumerate(src.get("findings") or []):
        k = f.get("kernel")
        if k in times and k not in noted and f.get("category") not in ("gpu-idle", "host-bound", "launch-bound"):
            _le(out, f"{w}.findings[{i}] {str(f.get('title'))[:60]!r}", f.get("time_at_stake_ns"), times[k],
                "time at stake > the kernel's time")


_PCT_TEXT = re.compile(r"(\d[\d,]*(?:\.\d+)?) ?%(?! (?:more|less|faster|slower|higher|lower|above|over|longer))")


def _texts(src: dict, w: str, out: list[str]) -> None:
    """A percentage written in a finding's title or detail is at most 100 (a comparison — "29 % more" — aside, and
    a data-quality finding, which names the impossible figure it flags)."""
    for i, f in enumerate(src.get("findings") or []):
        if f.get("category") == "data-quality":  # the flag itself: "the op shapes give 103 % of the roof"
            continue
        for part in ("title", "detail"):
            for m in _PCT_TEXT.finditer(str(f.get(part) or "")):
                if float(m.group(1).replace(",", "")) > 100.5:
                    ctx = str(f.get(part))[max(0, m.start() - 40):m.end() + 25]
                    out.append(f"{w}.findings[{i}].{part}: {m.group(0)!r} above 100 % in '…{ctx}…'")


def _tables(src: dict, w: str, out: list[str]) -> None:
    """Smaller consistency checks of the other analyses."""
    s = src.get("summary") or {}
    kinds = [r for r in _rows(src, "kernel_groups") if r.get("kind") in ("kernel", "comm")]
    if kinds and not any(r.get("other_rows") for r in _rows(src, "kernel_groups")):
        _eq(out, w + ".kernel_groups", _sum(kinds, "count"), s.get("kernel_count"), "Σ kernel rows ≠ kernel_count",
            0)
    for i, r in enumerate(_real_rows(src, "kernel_outliers")):
        _le(out, f"{w}.kernel_outliers.table[{i}]", r.get("dur_ns"), s.get("span_ns"), "one kernel > the GPU span")
    for i, r in enumerate(_real_rows(src, "kernel_variation")):
        x = f"{w}.kernel_variation.table[{i}]"
        _le(out, x, r.get("min_median_ns"), r.get("max_median_ns"), "min median > max median", 1)
        _le(out, x, r.get("excess_ns"), s.get("kernel_time_ns"), "excess > kernel time")
    for i, r in enumerate(_real_rows(src, "queue_length")):
        _le(out, f"{w}.queue_length.table[{i}]", r.get("mean_queue"), r.get("max_queue"), "mean > max", 1e-9)
    for i, r in enumerate(_real_rows(src, "memory_timeline")):
        if r.get("peak_reserved_bytes"):
            _le(out, f"{w}.memory_timeline.table[{i}]", r.get("peak_allocated_bytes"), r["peak_reserved_bytes"],
                "peak allocated > peak reserved")
    cp = _summ(src, "critical_path")
    if isinstance(cp.get("class_ns"), dict) and _num(cp.get("path_ns")):
        _eq(out, w + ".critical_path", sum(v for v in cp["class_ns"].values() if _num(v)), cp["path_ns"],
            "Σ class_ns ≠ path_ns", _tol(cp["path_ns"], 50))
    _le(out, w + ".critical_path", cp.get("host_wait_gpu_busy_ns"), cp.get("path_ns"), "host waits > path")
    _le(out, w + ".critical_path", cp.get("path_ns"), _stake_bound(src), "path > profiled time")
    vrows = _real_rows(src, "verdicts")
    _le(out, w + ".verdicts", _sum(vrows, "share"), 1.0, "Σ shares > 1", 1e-6)
    mc = [r for r in _real_rows(src, "copies") if r.get("operation") == "copy"]
    if mc and not any(r.get("other_rows") for r in _rows(src, "copies")):
        _eq(out, w + ".copies", _sum(mc, "count"), s.get("memcpy_count"), "Σ memcpy rows ≠ memcpy_count", 0)
    for i, r in enumerate(_real_rows(src, "occupancy")):
        x = f"{w}.occupancy.table[{i}]"
        _le(out, x, r.get("wave_loss_ns"), r.get("time_ns"), "wave loss > kernel time")
    kg, kgs = _rows(src, "kernel_groups"), _summ(src, "kernel_groups")
    if kg:
        _eq(out, w + ".kernel_groups", _sum(kg, "time_ns"), kgs.get("time_ns"), "Σ time_ns ≠ summary time_ns",
            _tol(kgs.get("time_ns") or 0, len(kg)))
        _eq(out, w + ".kernel_groups", _sum(kg, "count"), kgs.get("gpu_events"), "Σ count ≠ gpu_events", 0)
    for i, r in enumerate(_real_rows(src, "kernel_groups")):
        _le(out, f"{w}.kernel_groups.table[{i}]", r.get("time_ns"), r.get("total_ns"), "effective > recorded")
    for name, whole in (("op_rollup", "gpu_time_ns"), ("annotations", "gpu_time_ns")):
        for i, r in enumerate(_real_rows(src, name)):
            _le(out, f"{w}.{name}.table[{i}]", r.get("self_" + whole), r.get(whole), "self > inclusive")
    ro = _summ(src, "op_rollup")
    _le(out, w + ".op_rollup", ro.get("gpu_time_ns"), kgs.get("time_ns"), "attributed GPU time > GPU event time")
    oc = _rows(src, "op_categories")
    if oc:
        _eq(out, w + ".op_categories", _sum(oc, "gpu_time_ns"), _summ(src, "op_categories").get("gpu_time_ns"),
            "Σ rows ≠ summary", _tol(0, len(oc)))
    steps: dict = {}
    for r in _real_rows(src, "critical_path"):
        k = (r.get("rank"), r.get("step"))
        steps.setdefault(k, [r.get("step_ns"), 0])[1] += r.get("time_ns") or 0
    for k, (step, tot) in steps.items():
        _eq(out, f"{w}.critical_path {k}", tot, step, "class times ≠ step time", 5)
    win = s.get("window_ns")
    for i, r in enumerate(_real_rows(src, "steps")):
        _le(out, f"{w}.steps.table[{i}]", r.get("dur_ns"), win, "step longer than the profiled window")
    st = _summ(src, "steps")
    _le(out, w + ".steps", st.get("min_step_ns"), st.get("median_step_ns"), "min > median", 1)
    _le(out, w + ".steps", st.get("median_step_ns"), st.get("max_step_ns"), "median > max", 1)
    for i, r in enumerate(_real_rows(src, "kernel_distributions")):
        x = f"{w}.kernel_distributions.table[{i}]"
        for a, b in (("p50_ns", "p90_ns"), ("p90_ns", "p99_ns"), ("p99_ns", "max_ns"), ("mean_ns", "max_ns")):
            _le(out, x, r.get(a), r.get(b), f"{a} > {b}", 1)
        _le(out, x, r.get("total_ns"), s.get("kernel_time_ns"), "kernel's time > kernel time")
    for i, r in enumerate(_real_rows(src, "launch_latency")):
        x = f"{w}.launch_latency.table[{i}]"
        for p in ("p50", "p90", "max"):
            _le(out, x, r.get(f"queue_{p}_ns"), r.get(f"latency_{p}_ns"), f"queue {p} > latency {p}", 1)
    la = _summ(src, "launches")
    if all(_num(la.get(k)) for k in ("kernels", "kernels_linked", "kernels_unlinked")):
        _eq(out, w + ".launches", la["kernels_linked"] + la["kernels_unlinked"], la["kernels"],
            "linked + unlinked ≠ kernels", 0)
    for i, r in enumerate(_real_rows(src, "launches")):
        _le(out, f"{w}.launches.table[{i}]", r.get("calls_without_gpu_work"), r.get("calls"), "> calls", 0)
    for name, part, whole in (("copies", "sizes_unknown", "count"), ("collectives", "sizes_unknown", "count"),
                              ("collectives", "exposed_ns", "time_ns"), ("ranks", "exposed_comm_ns", "comm_ns"),
                              ("ranks", "computation_ns", "span_ns"),
                              ("memory_timeline", "final_allocated_bytes", "peak_allocated_bytes")):
        for i, r in enumerate(_real_rows(src, name)):
            _le(out, f"{w}.{name}.table[{i}]", r.get(part), r.get(whole), f"{part} > {whole}")
    rk = _summ(src, "rank_kernels").get("kernel_time_ns_by_rank") or {}
    # the per-rank sums are of the per-kernel tables' times (overruns repaired): the summary's kernel_effective_ns,
    # which equals kernel_time_ns unless some launch overran (a runaway of B07 in a rank folder)
    whole = s.get("kernel_effective_ns") if _num(s.get("kernel_effective_ns")) else s.get("kernel_time_ns")
    if rk and _num(whole):
        _eq(out, w + ".rank_kernels", sum(v for v in rk.values() if _num(v)), whole,
            "Σ kernel time by rank ≠ the per-kernel tables' kernel time", _tol(whole, len(rk)))


def _references(src: dict, w: str, out: list[str]) -> None:
    """Ranks of the per-GPU tables are the run's ranks; table lengths agree with rows_total."""
    ranks = set((src.get("summary") or {}).get("ranks") or [])
    for name in ("breakdown", "bottlenecks", "ranks", "rank_kernels", "kernel_groups", "steps", "critical_path",
                 "queue_length", "collectives", "copies", "memory_timeline", "annotations"):
        bad = {r.get("rank") for r in _real_rows(src, name) if _num(r.get("rank"))} - ranks
        if ranks and bad:
            out.append(f"{w}.{name}: rows name ranks {sorted(bad)} not among the run's ranks {sorted(ranks)}")
    # a rank recording one device record may number it otherwise than its events (Kineto deviceProperties id 0,
    # events on device 2 of an MI300X VF): only a rank recording several devices must name each GPU it used
    devs = [(d.get("rank"), d.get("device_id")) for d in (src.get("devices") or []) if isinstance(d, dict)]
    for r in _real_rows(src, "breakdown"):
        mine = [d for d in devs if d[0] == r.get("rank")]
        if len(mine) > 1 and (r.get("rank"), r.get("device_id")) not in mine:
            out.append(f"{w}.breakdown: GPU {r.get('device_id')} of rank {r.get('rank')} is not among the devices")
    for name, a in (src.get("analyses") or {}).items():
        rows = a.get("table") or []
        total = a.get("rows_total")
        if _num(total):
            other = [r for r in rows if isinstance(r, dict) and r.get("other_rows")]
            shown = len(rows) - len(other) + sum(r["other_rows"] for r in other)
            if shown != total:
                out.append(f"{w}.{name}: table holds {shown} rows (counting 'other'), rows_total {total}")


def violations(report: dict) -> list[str]:
    """Every invariant ``report`` (a parsed ``gpulens analyze --json`` document) breaks, one line each."""
    out: list[str] = []
    for n, src in enumerate(report.get("sources") or []):
        w = f"sources[{n}]"
        _ranges(src, w, out)
        _summary(src, w, out)
        _hotspots(src, w, out)
        _breakdown(src, w, out)
        _bottlenecks(src, w, out)
        _findings(src.get("findings") or [], src, w + ".findings", out, tree=True)
        for name, a in (src.get("analyses") or {}).items():
            _findings(a.get("findings") or [], src, f"{w}.analyses.{name}.findings", out, tree=False)
        for name in ("verdicts", "roofline", "speed_of_light", "ncu_rules"):
            _stake_rows(src, name, w, out)
        _tables(src, w, out)
        _kernel_findings(src, w, out)
        _texts(src, w, out)
        _references(src, w, out)
        if _num(src.get("findings_total")) and src["findings_total"] < len(src.get("findings") or []):
            out.append(f"{w}: findings_total {src['findings_total']} < findings listed")
    return out
