"""The figure that proves a run verdict decided by the kernels' classes alone (a counter-collection run: ncu,
rocprof-compute/omniperf, rocprof --pmc), said first by the verdict line of every reporter.

Such a run has no timeline, so no share of a span decides its verdict: the ``verdicts`` analyzer gives it the kernel
class holding the most GPU time of the performance-critical kernels (its summary's ``kernel_time_by_verdict_ns``,
largest first). The headline said only "GPU busy time is unknown (…)" beside "memory-bound": the one clause of the
first screen was about what was not measured, and nothing said why the run is memory-bound. Nothing is computed here:
the times are the analyzer's, as recorded.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpulens.units import fmt_ns, is_missing

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
