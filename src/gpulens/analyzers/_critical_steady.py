"""The critical path over the steady state the run verdict judges: the part of each window's path inside the GPU
span less the warm-up / tail / one-off idle gaps that :mod:`gpulens.analyzers.bottlenecks` leaves out of the
verdict (its ``boundary`` gaps). The run verdict weighs busy and idle time over that steady state; a path share it
cites beside that verdict is over the same time, or the reader sees "gpu-bound (judged on the steady state)"
beside "critical path mostly host work (97.9 %)", a share held by the one 463 ms blocking copy the verdict left
out (SGLang decode on an MI300X)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpulens.analyzers._critical_walk import CLASSES
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline


def steady_windows(timeline: Timeline) -> dict[Any, tuple[np.ndarray, np.ndarray]]:
    """Per rank, the steady state as disjoint sorted (starts, ends) [ns]: each GPU's span (first GPU event start to
    last end) less that GPU's ``boundary`` gaps, united over the rank's GPUs. Empty when no GPU has a boundary gap
    (the verdict then judges the whole span, and the path needs no second reading)."""
    from gpulens.analyzers._gap_classes import one_off_gaps
    from gpulens.analyzers.intervals import merge

    gaps = one_off_gaps(timeline)
    if not len(gaps):
        return {}
    ctx = context_of(timeline)
    gpu = ctx.gpu
    start = gpu["start_ns"].to_numpy("int64")
    spans = (gpu.assign(_s=start, _e=start + ctx.effective_ns.to_numpy("int64"))
             .groupby(["rank", "device_id"])[["_s", "_e"]].agg({"_s": "min", "_e": "max"}))
    by_gpu = {k: g.sort_values("start_ns") for k, g in gaps.groupby(["rank", "device_id"])}
    none = np.zeros(0, dtype="int64")
    pieces: dict[Any, tuple[list, list]] = {}
    for (rank, dev), first, last in zip(spans.index, spans["_s"].to_numpy("int64"), spans["_e"].to_numpy("int64")):
        g = by_gpu.get((rank, dev))
        gs = g["start_ns"].to_numpy("int64") if g is not None else none
        ge = gs + g["dur_ns"].to_numpy("int64") if g is not None else none
        s, e = pieces.setdefault(rank, ([], []))
        s.append(np.concatenate(([first], ge)))  # the span cut at each left-out gap
        e.append(np.concatenate((gs, [last])))
    return {r: merge(np.concatenate(s), np.concatenate(e)) for r, (s, e) in pieces.items()}


def steady_class_ns(timeline: Timeline, ps: list) -> dict[str, int] | None:
    """Path time per event class inside :func:`steady_windows` [ns], summed over the windows ``ps`` (the
    ``(rank, step, step_ns, segments)`` list of :func:`gpulens.analyzers._critical_paths.paths`); None when no
    boundary gap is left out (the whole path is the steady one)."""
    from gpulens.analyzers.bottlenecks import covered_until

    steady = steady_windows(timeline)
    if not steady:
        return None
    total = np.zeros(len(CLASSES), dtype="int64")
    for rank, _step, _ns, seg in ps:
        c = seg.cols
        a = c["a"].astype("int64")
        b = a + c["ns"].astype("int64")
        s, e = steady.get(rank, (np.zeros(0, "int64"), np.zeros(0, "int64")))
        inside = covered_until(b, s, e) - covered_until(a, s, e)
        total += np.bincount(c["_cls"].astype("int64"), weights=inside, minlength=len(CLASSES)).astype("int64")
    return {CLASSES[i]: int(v) for i, v in enumerate(total) if v > 0}
