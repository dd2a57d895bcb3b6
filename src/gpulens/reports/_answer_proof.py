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

And :func:`summed_note`: over several GPUs a time at stake is GPU time summed over them, which can pass the wall
time of the whole run (one process driving six GPUs, each waiting for it: "4.86 ms at stake" in a 925 µs window).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpulens.units import fmt_ns, is_missing, share_pct_text

#: Other kernel classes named after the verdict's own.
OTHERS = 2
#: A secondary cause holding at least this fraction of the run verdict's share is called a near tie in the answer:
#: the verdict then rests on a difference smaller than what one more profiled step could move.
NEAR_TIE = 0.9


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


def summed_note(gpus: int, ns: Any = None, wall_ns: Any = None) -> str:
    """What a time at stake of a several-GPU run is: "" for one GPU; else " (GPU time summed over the 6 GPUs)", and
    when the sum ``ns`` passes the wall span ``wall_ns`` [ns] — the GPUs waited side by side, so removing the cause
    saves at most the wall span in run time — " (GPU time summed over the 6 GPUs; more than the 915.00 µs wall span,
    which bounds the run-time gain)". The figures are the analyzers' sums (the verdict's idle causes and findings
    sum their time over the GPUs: the source summary's ``span_definition``); nothing is recomputed here."""
    if gpus <= 1:
        return ""
    over = (not is_missing(ns) and not is_missing(wall_ns) and wall_ns and float(ns) > float(wall_ns))
    return (f" (GPU time summed over the {gpus} GPUs"
            + (f"; more than the {fmt_ns(wall_ns)} wall span, which bounds the run-time gain" if over else "") + ")")


def order_summed(order: str, gpus: int) -> str:
    """The ``verdicts`` summary's ``fix_first`` sentence (the times at stake, largest first) with the sum said as
    :func:`summed_note` says it ("; times summed over the 2 GPUs") after its times and before its "— start with the
    largest single finding: …" tail (which the HTML banner leaves out: the note must stay); as it is for one GPU."""
    from gpulens.analyzers._verdict_order import FIX_FIRST_START

    if gpus <= 1:
        return order
    head, sep, tail = order.partition(FIX_FIRST_START)
    return f"{head}; times summed over the {gpus} GPUs{sep}{tail}"


def tie_text(lead_pct: float, sec_pct: float) -> str:
    """The clause after a secondary cause's share that is close to the verdict's (both [%] of the same span, the
    ``verdicts`` summary's ``verdict_share_pct`` and ``secondary_share_pct``): "; a near tie: 4.4 percentage points
    apart" ("under 0.1" for a gap under 0.05: never a false "0.0" between two shares that differ), or "; a tie: the
    same share" when they are equal — the verdict's own clause then reads "ties for the largest" (case B12:
    30 µs of unexplained idle beside 30 µs of computing read "a near tie: 0.0 percentage points apart")."""
    gap = lead_pct - sec_pct
    if gap == 0:
        return "; a tie: the same share"
    return f"; a near tie: {'under 0.1' if 0 < gap < 0.05 else f'{gap:.1f}'} percentage points apart"


def largest_words(vd_summary: Mapping[str, Any], verdict: str) -> str:
    """How the verdict's share stands: "is the largest", or "ties for the largest" when the secondary cause's share
    (``secondary_share_pct`` of the ``verdicts`` summary) equals the verdict's (``verdict_share_pct``) — the verdict
    class is then one of two equal readings, none the largest (case B12: 30 µs of unexplained idle, 30 µs
    computing)."""
    lead, sec = vd_summary.get("verdict_share_pct"), vd_summary.get("secondary_share_pct")
    tied = (vd_summary.get("secondary_cause") not in (None, verdict) and not is_missing(lead) and not is_missing(sec)
            and float(sec) == float(lead))
    return "ties for the largest" if tied else "is the largest"


def secondary_notes(vd_summary: Mapping[str, Any], verdict: str) -> str:
    """What follows the secondary cause's share in the answer's detail: :func:`tie_text` when its share is at least
    :data:`NEAR_TIE` of the verdict's, and when the secondary cause is a host wait mostly of one-off set-up calls
    (the ``verdicts`` summary's ``secondary_host_setup``: ``{"setup_ns", "host_ns", "steady_ns"}``) what of it they
    are — "; 27.20 ms of its 28.53 ms are one-off set-up calls, once per run, not per step" (AMD rpd matmul: "secondary
    cause: host-bound (12.6 % of the steady span)" beside an idle finding whose steady host wait is 1.33 ms)."""
    lead, sec = vd_summary.get("verdict_share_pct"), vd_summary.get("secondary_share_pct")
    out = (tie_text(float(lead), float(sec)) if verdict and not is_missing(lead) and not is_missing(sec)
           and float(sec) >= NEAR_TIE * float(lead) else "")
    su = vd_summary.get("secondary_host_setup")
    if su:
        out += (f"; {fmt_ns(su['setup_ns'])} of its {fmt_ns(su['host_ns'])} are one-off set-up calls, once per run, "
                "not per step")
    return out
