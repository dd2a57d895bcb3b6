"""Run-summary phrases shared by every report (console, HTML, Markdown): the time-breakdown parts and the one-off idle
split, the device line, kernel-time, span, window and busy texts, the critical-set heading, and the time-at-stake
marks (the roofline's phrases: :mod:`gpulens.reports._roofline_text`). One definition per figure's wording; the values come from the analyzers' results. Re-exported
by :mod:`gpulens.reports._format`.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from gpulens.reports._values import fmt_unit
from gpulens.units import agree, fmt_ns, is_missing, plural, share_pct_text


#: The parts of a GPU's span, in the order every reporter shows them (breakdown columns → label): they add up to the
#: span (``analyzers.breakdown``); :func:`breakdown_rest` is what a table without them all would leave unexplained.
BREAKDOWN_PARTS = (("computation_ns", "computation"), ("exposed_comm_ns", "exposed communication"),
                   ("exposed_memcpy_ns", "exposed memcpy"), ("exposed_memset_ns", "exposed memset"),
                   ("idle_ns", "idle"))


#: The label of the one-off / warm-up idle gaps when a reporter draws idle as two parts (:func:`one_off_split`).
ONE_OFF_LABEL = "idle: one-off gaps (left out of the verdict)"


#: The label of the rest of the idle beside them: the steady state's.
STEADY_IDLE_LABEL = "idle: steady state"


def one_off_split(breakdown: Any, bottlenecks: Any) -> list[dict[str, Any]] | None:
    """The breakdown table's rows, each with the ``bottlenecks`` analyzer's split of its idle time added —
    ``steady_idle_ns`` (the steady state the verdict is about) and ``idle_boundary_ns`` (the one-off / warm-up gaps
    it leaves out), with their shares of the GPU's span (``steady_idle_pct``, ``idle_boundary_pct``) — for the reporters to draw idle as those two parts, the same figures as the verdict's. None when
    no GPU has a one-off gap (idle is one part) or either analysis is missing; a GPU the bottlenecks table lacks
    keeps its idle whole (``steady_idle_ns`` = its idle, 0 one-off)."""
    if breakdown is None or getattr(breakdown, "skipped", True) or bottlenecks is None \
            or getattr(bottlenecks, "skipped", True):
        return None
    bn = bottlenecks.table
    if not len(bn) or "steady_idle_ns" not in bn or not (bn["idle_boundary_ns"].fillna(0) > 0).any():
        return None
    keys = [k for k in ("steady_idle_ns", "idle_boundary_ns", "steady_idle_pct", "idle_boundary_pct") if k in bn]
    by = {(int(r), int(d)): rec for r, d, rec in zip(bn["rank"], bn["device_id"], bn[keys].to_dict("records"))}
    out = []
    for rec in breakdown.table.to_dict("records"):
        whole = {"steady_idle_ns": rec.get("idle_ns"), "idle_boundary_ns": 0,
                 "steady_idle_pct": rec.get("idle_pct"), "idle_boundary_pct": 0.0}
        out.append({**rec, **by.get((int(rec["rank"]), int(rec["device_id"])), whole)})
    return out


#: The idle parts' keys (the whole, or its two parts): an idle figure that may be "at most" (:func:`idle_at_most`).
IDLE_KEYS = ("idle_ns", "steady_idle_ns", "idle_boundary_ns")


#: :data:`BREAKDOWN_PARTS` with idle drawn as its two parts (:func:`one_off_split`).
SPLIT_PARTS = BREAKDOWN_PARTS[:-1] + (("steady_idle_ns", STEADY_IDLE_LABEL), ("idle_boundary_ns", ONE_OFF_LABEL))


def idle_at_most(row: Mapping[str, Any]) -> str:
    """"≤ " before an idle figure (time or share) of a breakdown/bottlenecks row or summary whose idle may partly be
    the GPU's work on another clock or work recorded without a time (``idle_other_clock_ns`` or ``idle_untimed_ns``
    > 0: an upper bound, not a measured idle), else ""."""
    from gpulens.analyzers._span import idle_unmeasured_ns

    return "≤ " if idle_unmeasured_ns(row) > 0 else ""


def busy_bound_word(row: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> str:
    """``"at least "`` before the busy share of a breakdown row whose GPU may hold work recorded without a time
    (``idle_untimed_ns`` > 0) when the run's ``busy_bound`` is "at least"; ``"unknown: timed work "`` when it is
    "unknown" (such work of unknown place may lengthen the span); else ""."""
    v = row.get("idle_untimed_ns")
    if v is None or is_missing(v) or not v > 0:
        return ""
    return "at least " if (summary or {}).get("busy_bound") == "at least" else "unknown: timed work "


def bounded_breakdown(table: Any, summary: Mapping[str, Any] | None = None) -> Any:
    """The breakdown (or its idle-split) rows as the Markdown and HTML tables show them (a copy; ``table``: a
    DataFrame with ``busy_pct`` and the idle columns of :data:`IDLE_KEYS`): a row's busy % over a GPU that may hold
    work recorded without a time reads "at least 45.5 %" (:func:`busy_bound_word`), its idle figures "≤ 60.00 µs"
    (:func:`idle_at_most`) — the words the console and the run's busy line use. ``table`` itself when no row is a
    bound."""
    recs = table.to_dict("records")
    busy = [busy_bound_word(r, summary) for r in recs]
    most = [idle_at_most(r) for r in recs]
    if not any(busy) and not any(most):
        return table
    out = table.copy()
    if "busy_pct" in out and any(busy):
        out["busy_pct"] = [w + fmt_unit(r.get("busy_pct"), "%") if w and not is_missing(r.get("busy_pct"))
                           else r.get("busy_pct") for w, r in zip(busy, recs)]
    for k in IDLE_KEYS:
        if k in out and any(most):
            out[k] = [m + fmt_ns(r.get(k)) if m and not is_missing(r.get(k)) else r.get(k) for m, r in zip(most, recs)]
    return out


def idle_bound_note(summary: Mapping[str, Any] | None) -> str:
    """The breakdown summary's ``idle_bound`` sentence as every reporter appends it to its breakdown and idle
    headings (" — idle at most …"), or "" when the idle was measured."""
    why = (summary or {}).get("idle_bound")
    return f" — idle {why}" if why else ""


def breakdown_rest(row: Mapping[str, Any], span_key: str = "span_ns") -> float:
    """Span minus the :data:`BREAKDOWN_PARTS` of one breakdown row or summary [ns] (0 when they add up; a part
    missing from ``row`` counts 0; 0 when a part is unknown, ``<NA>``). Reporters show it, labelled, when it is not
    0."""
    span = row.get(span_key)
    if is_missing(span) or any(k in row and is_missing(row.get(k)) for k, _ in BREAKDOWN_PARTS):
        return 0.0  # an unknown part (overlap across clocks) holds what the known parts leave: no remainder
    return float(span) - sum(float(row.get(k) or 0) for k, _ in BREAKDOWN_PARTS if not is_missing(row.get(k)))


def device_text(devices: list[dict[str, Any]], spec: Any, idle: Any = ()) -> str:
    """The one wording of "which GPU, analysed as which hardware spec" for every reporter: the recorded device names
    and the spec the roofline and occupancy used (``"Tesla V100-SXM2-32GB (analysed as NVIDIA V100 SXM2)"``, with how
    it was identified when not by name: ``"… (analysed as NVIDIA H100 SXM: identified from compute capability 9.0
    with 132 SMs)"``), or that none was identified. ``idle``: recorded devices that ran no GPU work
    (:func:`gpulens.devices.split_by_work`): their names, when none of ``devices`` has them, are said apart
    (``"; also recorded, no GPU work on it: NVIDIA A40"``), never as a device of the run; idle GPUs of the run's own
    model are counted too (``"…: 7 × NVIDIA A100-PG509-200"``: a Kineto trace lists every visible device). Each idle
    GPU counts once per device id that no busy device has (ranks of one node record the same GPUs). With several
    GPUs recorded, a busy GPU whose id in the tables (``device_id``: an AMD agent's HSA node) is not its ordinal
    among the GPU agents (``gpu_index``, the HIP device number when every GPU is visible) says both, after its name
    (:func:`gpu_index_text`): "GPU 2 in the tables is HSA agent node 2, GPU index 0" — rocm-smi and HIP call it 0."""
    text = _device_text(devices, spec) + gpu_index_text(devices, len(devices) + len(list(idle or ())))
    busy_ids = {_dev_id(d) for d in devices}
    ids: dict[str, set] = {}
    for d in idle or ():
        if d.get("name") and _dev_id(d) not in busy_ids:
            ids.setdefault(str(d.get("name")), set()).add(_dev_id(d))
    rest = [f"{len(v)} × {k}" if len(v) > 1 else k for k, v in sorted(ids.items())]
    if rest:
        many = len(rest) > 1 or any(len(v) > 1 for v in ids.values())
        text += f"; also recorded, no GPU work on {'them' if many else 'it'}: {', '.join(rest)}"
    return text


def gpu_index_text(devices: list[dict[str, Any]], recorded: int) -> str:
    """``"; GPU 2 in the tables is HSA agent node 2, GPU index 0 (the HIP device number when every GPU is
    visible)"`` for the ``devices`` whose ``gpu_index`` (ordinal among the GPU agents, :mod:`gpulens.collectors._amd`)
    differs from their ``device_id`` when ``recorded`` (busy + idle) GPUs are several; "" otherwise."""
    pairs = sorted({(_dev_id(d), g) for d in devices for g in [_index(d.get("gpu_index"))]
                    if g is not None and g != _dev_id(d)})
    if recorded < 2 or not pairs:
        return ""
    said = ", ".join(f"GPU {i} in the tables is HSA agent node {i}, GPU index {g}" for i, g in pairs[:4])
    return f"; {said}{' …' if len(pairs) > 4 else ''} (the HIP device number when every GPU is visible)"


def _index(v: Any) -> int | None:
    """A recorded ``gpu_index`` as an int; None when absent or not a whole number."""
    try:
        return None if v is None or v != v else int(v)
    except (TypeError, ValueError):
        return None


def _dev_id(d: Mapping[str, Any]) -> Any:
    """A device record's ``device_id`` as an int where it is one (records of several ranks compare equal)."""
    v = d.get("device_id", 0)
    try:
        return int(v or 0)
    except (TypeError, ValueError):
        return v


def run_device_text(s: Any) -> str:
    """:func:`device_text` of a source (:class:`gpulens.report.SourceReport`): the devices that ran its GPU work
    named as the run's, the others recorded beside them said apart (its ``devices_by_work``, from
    :func:`gpulens.devices.split_by_work`), with the spec it was analysed with."""
    busy, idle = s.devices_by_work
    if not busy and not idle and s.device is None and s.status == "no_gpu_work":
        # a CPU-only run records no GPU: "pass --device-spec" would advise a spec for a GPU nothing ran on
        return "none recorded (no GPU work)"
    return device_text(list(busy), s.device, idle)


def _device_text(devices: list[dict[str, Any]], spec: Any) -> str:
    names = ", ".join(sorted({str(d.get("name")) for d in devices if d.get("name")}))
    if not names:  # a record without a name still tells the architecture (ROCm: gfx arch and CU count)
        from gpulens.devices.naming import arch_text

        arch = sorted({arch_text(d) or "" for d in devices} - {""})
        why = next((str(d["unknown_why"]) for d in devices if d.get("unknown_why")), None)
        names = (f"{', '.join(arch)} (name not recorded)" if arch else f"unknown ({why})" if why
                 else "not recorded")
    name = getattr(spec, "name", None)
    if name:  # how it was identified, when not by its recorded name ("from compute capability 9.0 with 132 SMs")
        note = str(getattr(spec, "note", "") or "")
        if is_assumed(note):  # never as if the input named it: "analysed as an assumed X — assumed from …"
            return f"{names} (analysed as an assumed {name} — {note.split(name, 1)[-1].strip()})"
        how = bool(note) and not note.startswith("identified from name")
        if not how and names.casefold() == str(name).casefold():
            return names  # the trace names the spec itself: "AMD Instinct MI300X", not "… (analysed as …MI300X)"
        return f"{names} (analysed as {name}" + (f": {note}" if how else "") + ")"
    return f"{names} (no hardware spec identified: no roofline peaks; pass --device-spec)"


def time_scale(values_ns: Any) -> tuple[float, str]:
    """(divisor, unit) for a chart axis of times in ns, from the largest magnitude drawn: s from 1 s, ms from 1 ms,
    µs from 1 µs, else ns — an axis of µs-scale kernels reads "20 µs", never "0.02 ms". Missing values are ignored;
    nothing drawn → ms."""
    import pandas as pd

    v = pd.to_numeric(pd.Series(np.asarray(values_ns, dtype=object).ravel()), errors="coerce").abs().max()
    if v != v:
        return 1e6, "ms"
    return next((d, u) for d, u in ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns")) if v >= d or d == 1.0)


def is_assumed(note: Any) -> bool:
    """Whether a device spec's note says the GPU was assumed rather than read from the input (an ncu CSV that
    records only a compute capability: :func:`gpulens.devices.identify_device`)."""
    from gpulens.devices.spec import is_assumed_note

    return is_assumed_note(note)


def spec_label(name: Any, note: Any) -> str:
    """The spec's name as every heading shows it: ``"NVIDIA H100 SXM"``, or ``"an assumed NVIDIA GeForce RTX 5090
    (the input does not name its GPU)"`` when the GPU was assumed."""
    return f"an assumed {name} (the input does not name its GPU)" if is_assumed(note) else str(name)


def launches_text(sm: Mapping[str, Any]) -> str:
    """``"2,258 launches of 194 kernels"``, ``"1 launch of 1 kernel"`` (the one wording of every reporter);
    ``"unknown (the input records no kernel launch: …)"`` when the count is unknown (an API or copy summary alone,
    :func:`gpulens.analyzers.hotspots._other_domain_summary`)."""
    if "kernel_count" in sm and sm.get("kernel_count") is None:
        return "unknown (the input records no kernel launch: a summary of API calls or copies only)"
    n, k = int(sm.get("kernel_count") or 0), int(sm.get("unique_kernels") or 0)
    # whole CUDA graph replays traced at graph level are counted among them: said apart, as what they are
    g, gk = int(sm.get("graph_replays") or 0), int(sm.get("graphs") or 0)
    if g and gk:
        replays = f"{plural(g, 'replay')} of {plural(gk, 'CUDA graph')} (traced whole)"
        return replays if n <= g else f"{plural(n - g, 'launch(es)')} of {plural(k - gk, 'kernel')} and {replays}"
    return f"{plural(n, 'launch(es)')} of {plural(k, 'kernel')}"


def kernel_time_text(sm: Mapping[str, Any]) -> str:
    """The kernels' summed and union time as every reporter words it: ``"388.34 µs summed, 388.34 µs busy
    (union)"``, with the GPU's busy time beside it where copies or memsets add to it (``" (GPU busy with copies
    and memsets: 390.00 µs)"``); ``"1.55 s summed, busy (union) unknown"`` when the input has durations but no timeline (a rocprof
    stats table); ``"durations not recorded"`` when it has no durations (a counter-only run); with durations that
    overran the next event on their stream, ``"184.08 ms summed as recorded (170.06 ms after clipping overruns of the
    next event on their stream), …"`` (``kernel_effective_ns``, what the per-kernel tables sum)."""
    if is_missing(sm.get("kernel_time_ns")):
        return untimed_text(sm) or "durations not recorded"
    busy = sm.get("kernel_busy_ns")
    gpu = sm.get("gpu_busy_ns")
    # the GPU's busy time also holds copies and memsets: said beside it, so the two figures are never confused
    also = (f" (GPU busy with copies and memsets: {fmt_ns(gpu)})"
            if not is_missing(busy) and not is_missing(gpu) and gpu > busy else "")
    eff = sm.get("kernel_effective_ns")
    # recorded durations that run past the next event on their stream were clipped for every per-kernel table:
    # the recorded sum is said with the clipped one beside it, so the tables' totals never contradict it unexplained
    clipped = ""
    if not is_missing(eff) and eff < sm["kernel_time_ns"]:
        # two sums that print alike name what was clipped: "401.44 ms summed as recorded (401.44 ms after clipping
        # …)" read as a clipping that removed nothing
        cut = (f" {fmt_ns(sm['kernel_time_ns'] - eff)} of" if fmt_ns(eff) == fmt_ns(sm["kernel_time_ns"]) else "")
        away = sm.get("kernel_runaway_events") or 0  # a stream's last event cut at the end of the rest of the run
        what = ("overruns of the next event on their stream" if not away else
                f"overruns of the next event on their stream or of the run's end: {plural(away, 'duration')} far "
                "past every other event")
        clipped = f" as recorded ({fmt_ns(eff)} after clipping{cut} {what})"
    # over several GPUs the union is taken per GPU and summed: device time, beside a wall span it can exceed
    per = " per GPU, summed over the GPUs" if _several_gpus(dict(sm)) else ""
    return (f"{fmt_ns(sm['kernel_time_ns'])} summed{clipped}, "
            + ("busy (union) unknown" if is_missing(busy) else f"{fmt_ns(busy)} busy (union{per}){also}"))


def gpu_sum_label(label: str, hsum: Mapping[str, Any] | None, short: bool = False) -> str:
    """A per-kernel time column's label as every reporter heads it: ``"total (Σ over GPUs)"`` when a kernel ran on
    several GPUs (the hotspots summary's ``kernel_gpus`` > 1: its total, time and time at stake are sums over
    them — device time, which may exceed the run's wall span: 4 × 117 ms of ncclAllReduce on a V100×4 is 468 ms),
    ``label`` otherwise; ``short``: ``"Σ total"`` (the first screen's banner, whose header tooltip says it in
    full: :data:`GPU_SUM_TIP`)."""
    n = (hsum or {}).get("kernel_gpus")
    if not (isinstance(n, (int, float)) and not is_missing(n) and n > 1):
        return label
    return f"Σ {label}" if short else f"{label} (Σ over GPUs)"


#: What "Σ" before a per-kernel time says (:func:`gpu_sum_label`), in words.
GPU_SUM_TIP = "summed over the GPUs the kernel ran on (device time: may exceed the run's wall span)"


def untimed_text(sm: Mapping[str, Any]) -> str:
    """The summed kernel time when some launches have no duration (:mod:`gpulens.analyzers._unknown_time`), the one
    wording of every reporter: ``"unknown summed: 2 of 16 launches without a duration (the 14 with one: 10.39 ms)"``;
    ``""`` when every launch has a duration (or none has)."""
    n, timed = int(sm.get("untimed_launches") or 0), sm.get("timed_kernel_time_ns")
    # kernel_count holds every launch, those recorded without a time included (analyzers._unknown_time)
    m = int(sm.get("kernel_count") or 0)
    if not n or n >= m or is_missing(timed):
        return ""
    return f"unknown summed: {n:,} of {m:,} launches without a duration (the {m - n:,} with one: {fmt_ns(timed)})"


def critical_set_text(hsum: Mapping[str, Any], sm: Mapping[str, Any] | None = None) -> str:
    """The performance-critical set as every reporter words it: ``"2 kernels cover 86.2 % of kernel time"``; with
    launches without a duration (:func:`untimed_text`) ``"1 kernel; its share of kernel time is unknown (2 of 16
    launches without a duration)"``; ``"1 kernel, ranked by calls: durations not recorded"`` when no launch has one;
    ``"none: no kernel in the trace"`` without any kernel launch."""
    return _critical_set_text(hsum, sm) + blit_text(hsum)


def blit_text(hsum: Mapping[str, Any]) -> str:
    """What the shares of kernel time leave out that a vendor's own summary counts as kernels (hotspots
    ``blit_kernel_calls`` / ``blit_kernel_ns``): ``"; 19 launches of runtime copy/fill (blit) kernels (580.61 µs) are
    counted as memory copies and fills, not kernel time"``; ``""`` when there is none."""
    n = int(hsum.get("blit_kernel_calls") or 0)
    if not n:
        return ""
    ns = hsum.get("blit_kernel_ns")
    t = f" ({fmt_ns(ns)})" if not is_missing(ns) else ""
    return (f"; {plural(n, 'launch', 'launches')} of runtime copy/fill (blit) kernels{t} {agree(n, 'is', 'are')} "
            "counted as memory copies and fills, not kernel time")


def _critical_set_text(hsum: Mapping[str, Any], sm: Mapping[str, Any] | None = None) -> str:
    n = int(hsum.get("critical_count") or 0)
    if not n and not int({**hsum, **(sm or {})}.get("kernel_count") or 0):
        return "none: no kernel in the trace"  # not a ranking without durations: there is nothing to rank
    word = plural(n, "kernel")
    if not is_missing(hsum.get("critical_share")):
        # the share's one reading, as the verdict sentence and the tables give it ("80.5 %", never "81 %" beside it)
        share = fmt_unit(hsum.get("critical_share"), "share")
        return f"{word} {agree(n, 'covers', 'cover')} {share} of kernel time"
    sm = {**hsum, **(sm or {})}
    u = int(sm.get("untimed_launches") or 0)
    m = int(sm.get("kernel_count") or 0)
    if u and u < m:
        return (f"{word}; {'its' if n == 1 else 'their'} share of kernel time is unknown ({u:,} of {m:,} launches "
                "without a duration)")
    return f"{word}, ranked by calls: durations not recorded"


def _no_gpu_work(sm: Mapping[str, Any]) -> bool:
    return not sm.get("span_ns") and not sm.get("gpu_busy_ns") and not sm.get("kernel_count")


def busy_pct_text(sm: dict[str, Any]) -> str:
    """Busy % with its basis (``"71.4 %"``, ``"80.0 % (Σ busy / Σ per-GPU span)"``); ``"unknown (not measured: …)"``
    when the input has no timeline."""
    if _no_gpu_work(sm) and not sm.get("busy_unknown_reason"):  # nothing ran on a GPU: no span to be busy in
        return "none (no GPU work recorded)"  # (0 of 0 is no percentage: the summary's busy % is None)
    if sm.get("gpu_busy_pct") is None:
        return "unknown (not measured: " + str(sm.get("busy_unknown_reason") or "no timeline") + ")"
    pct = share_pct_text(sm["gpu_busy_pct"]) + (" (Σ busy / Σ per-GPU span)" if _several_gpus(sm) else "")
    n = int(sm.get("untimed_gpu_work") or 0)
    if n and sm.get("busy_bound") == "unknown":  # work of unknown place and length: it may lengthen the span
        return (f"unknown ({plural(n, 'GPU event(s)')} recorded without a usable start or end; the timed work "
                f"alone: {pct} of "
                "its span)")
    return ("at least " if n else "") + pct


def _several_gpus(sm: dict[str, Any]) -> bool:
    """Whether a source's run figures sum over several GPUs (ranks or devices): its busy shares are then ratios of
    sums, not of the wall span or window shown."""
    return len(sm.get("rank_span_ns") or {}) > 1 or (sm.get("device_span_ns") or 0) > (sm.get("span_ns") or 0)


def span_text(sm: dict[str, Any]) -> str:
    """The GPU span alone, as every reporter shows it: ``"3.91 ms"``; ``"none (no GPU work recorded)"``;
    ``"unknown"`` when busy time was not measured (no timeline)."""
    if _no_gpu_work(sm) and not sm.get("busy_unknown_reason"):
        return "none (no GPU work recorded)"
    return fmt_ns(sm["span_ns"]) if sm.get("gpu_busy_pct") is not None else "unknown"


def window_text(sm: dict[str, Any]) -> str:
    """``"40.00 µs: GPU busy 62.5 % of it"`` when the profiled window is longer than the GPU span, else ``""``; the
    share as every share of a whole (:func:`share_pct_text`: 1.76 µs of work in 13.34 s is "under 0.1 %", not 0.0).
    Over several GPUs the window shown is the wall window and the share Σ busy / Σ per-rank window, said so
    (``"1.24 s: GPU busy 45.7 % of the per-rank windows (Σ busy / Σ window)"``): 1.13 s of busy time over a 1.24 s
    wall window would otherwise read as 91 %."""
    if sm.get("gpu_utilization_pct") is not None and (sm.get("window_ns") or 0) > (sm.get("span_ns") or 0):
        share = share_pct_text(sm["gpu_utilization_pct"])
        if sm.get("untimed_gpu_work"):  # work recorded without a time adds busy time inside the window: at least
            share = "at least " + share
        if _several_gpus(sm):
            return f"{fmt_ns(sm['window_ns'])}: GPU busy {share} of the per-rank windows (Σ busy / Σ window)"
        return f"{fmt_ns(sm['window_ns'])}: GPU busy {share} of it"
    return ""


def busy_text(sm: dict[str, Any]) -> str:
    """The one wording of span and busy % for every reporter, from a source summary (see ``span_definition``):
    ``"35.00 µs, busy 71.4 % (profiled window 40.00 µs: GPU busy 62.5 % of it)"``; busy not measured → unknown."""
    if sm.get("gpu_busy_pct") is None or _no_gpu_work(sm):
        return busy_pct_text(sm)
    clock = " (longest rank: the ranks' clocks disagree)" if sm.get("span_basis") == "longest rank" else ""
    win = window_text(sm)
    return f"{fmt_ns(sm['span_ns'])}{clock}, busy {busy_pct_text(sm)}" + (f" (profiled window {win})" if win else "")


#: A findings list's order, said where it is headed (console, HTML): :func:`gpulens.analyzers._tree.rank_key`'s —
#: time outside the GPU span after the workload's findings even when larger (lashi: 75.94 ms after 13.86 µs).
FINDINGS_ORDER = ("largest time at stake first; time outside the GPU span (not judged by the verdict) and upper bounds "
                  "resting on an unverified premise about a kernel's bound after the rest")


#: Marks for the notes beside a verdict's time at stake, in order of first use.
STAKE_MARKS = ("†", "‡", "§", "¶")


def stake_notes(rows: Any, key: str = "stake_note",
                symbols: tuple[str, ...] = STAKE_MARKS) -> dict[int, tuple[str, str]]:
    """Row position → (`` †`` mark, note) for each row of a verdicts table (DataFrame or list of dicts) whose
    ``stake_note`` is set (:func:`gpulens.analyzers.verdicts.stake_note`): one mark per distinct note, so a
    reader sees beside "at stake 3.1 ms" on a kernel of 1.2 ms why the figure exceeds its time. ``key``: another
    per-row note column (the roofline's ``roof_note``, :func:`roof_note_display`), marked with ``symbols``."""
    recs = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    marks: dict[str, str] = {}
    out: dict[int, tuple[str, str]] = {}
    for i, r in enumerate(recs):
        note = r.get(key) if isinstance(r, Mapping) else None
        if not isinstance(note, str) or not note:
            continue
        if note not in marks:
            # one mark per distinct note, never one mark for two notes (the fourth note read the third's "§"): past
            # the symbols, doubled ones (††, ‡‡, …), as footnote marks go
            k = len(marks)
            marks[note] = " " + symbols[k % len(symbols)] * (k // len(symbols) + 1)
        out[i] = (marks[note], note)
    return out


def world_note(sm: dict) -> str:
    """``" (2 of 128 ranks)"`` when the inputs record a world size above the ranks read (a sample of the job, source
    summary ``world_size``), else ""."""
    world, ranks = sm.get("world_size"), sm.get("ranks") or []
    return f" ({len(ranks):,} of {world:,} ranks)" if isinstance(world, int) and world > len(ranks) else ""
