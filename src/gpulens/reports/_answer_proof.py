"""The figure that proves a run verdict decided by the kernels' classes alone (a counter-collection run: ncu,
rocprof-compute/omniperf, rocprof --pmc), said first by the verdict line of every reporter.

Such a run has no timeline, so no share of a span decides its verdict: the ``verdicts`` analyzer gives it the kernel
class holding the most GPU time of the performance-critical kernels (its summary's ``kernel_time_by_verdict_ns``,
largest first). The headline said only "GPU busy time is unknown (…)" beside "memory-bound": the one clause of the
first screen was about what was not measured, and nothing said why the run is memory-bound. Nothing is computed here:
the times are the analyzer's, as recorded.

It also holds the busy clause of a host-bound verdict whose host wait is mostly one-off set-up calls
(:func:`steady_busy_text`): there the steady-state stake leads and every one-off part the verdict leaves out (the
set-up calls, the warm-up/one-off idle gaps) is named in one "left out" clause at the end — the nsys fuser H200
headline named two exclusions in two places and five ms figures before its stake.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpulens.units import fmt_ns, is_missing, share_pct_text

#: Other kernel classes named after the verdict's own.
OTHERS = 2


def kernel_class_proof(verdict: str, vd_summary: Mapping[str, Any] | None) -> str:
    """"every critical kernel is memory-bound (3.86 ms of GPU time)" or "most critical-kernel time is memory-bound
    (3.86 ms, against latency/occupancy-bound 2.02 µs)": the kernel times per class of the ``verdicts`` summary,
    verdict first; "" when ``verdict`` is no kernel class holding recorded time there (a timeline run's verdict is
    proved by its share of the span instead)."""
    times = dict((vd_summary or {}).get("kernel_time_by_verdict_ns") or {})
    own = times.pop(verdict, None)
    if not verdict or verdict == "undetermined" or is_missing(own) or not own:
        return ""
    rest = [(c, ns) for c, ns in times.items() if not is_missing(ns) and ns]
    if not rest:
        return f"every critical kernel is {verdict} ({fmt_ns(own)} of GPU time)"
    shown = ", ".join(f"{c} {fmt_ns(ns)}" for c, ns in rest[:OTHERS])
    more = f" and {len(rest) - OTHERS} other class{'es' if len(rest) - OTHERS > 1 else ''}" \
        if len(rest) > OTHERS else ""
    return f"most critical-kernel time is {verdict} ({fmt_ns(own)}, against {shown}{more})"


__all__ = ["kernel_class_proof"]


def steady_busy_text(sm: Mapping[str, Any], steady_pct: str, steady_span_ns: Any, gpus: int) -> str:
    """The busy clause of a set-up-led host-bound verdict: the steady state's busy share first (``steady_pct``, the
    bottlenecks summary's ``steady_busy_pct`` in words, of ``steady_span_ns``), then the whole span's (``sm``: the
    source summary's ``gpu_busy_pct`` [%], ``span_ns`` and, with ``gpus`` > 1, ``device_span_ns`` — the per-GPU spans
    summed — beside the wall span): "the GPU was busy 0.4 % of the 111.46 ms steady span (busy 0.1 % of its whole
    508.28 ms span)". What lies outside the steady span is said by the caller's "left out" clause."""
    busy, span = share_pct_text(sm.get("gpu_busy_pct")), fmt_ns(sm.get("span_ns"))
    if gpus <= 1:
        return (f"the GPU was busy {steady_pct} of the {fmt_ns(steady_span_ns)} steady span (busy {busy} of its "
                f"whole {span} span)")
    return (f"the {gpus} GPUs were busy {steady_pct} of their summed {fmt_ns(steady_span_ns)} steady spans (busy "
            f"{busy} of their summed {fmt_ns(sm.get('device_span_ns'))} spans; wall span {span})")
