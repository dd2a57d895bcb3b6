"""The roofline row's ``placement_note`` (:meth:`gpulens.analyzers.roofline.Roofline.settle`): why its % of roofline
says another bound than the row's, once the measured speed of light decided the kernel's verdict — the two figures
side by side, explained where they are shown (console, Markdown and HTML mark the % of roofline; JSON has the note).
"""

from __future__ import annotations

from typing import Any

from gpulens.analyzers._stake import KERNEL_FLOOR_NS
from gpulens.analyzers._verdict_facts import BELOW_ROOFS
from gpulens.units import fmt_ns, pct_words


def overruled_note(summary: dict, model: Any, roof_pct: Any, verdict: str, sol_text: str) -> str:
    """Why a row's % of roofline and its bound disagree (``placement_note``): the roofline's placement ``model``
    at ``roof_pct`` on the spec's (perhaps assumed) peaks, overruled by the measured speed of light."""
    place = "below both roofs" if model == BELOW_ROOFS else f"{model}-bound"
    dev = summary.get("device") or "the device"
    if summary.get("measured_roofs"):  # rocprof-compute's empirical roofline: its HBM peak counts in both
        return (f"{pct_words(float(roof_pct))} of roofline (over the peaks the profiler's empirical roofline "
                f"measured) would make it {place}; the speed of light measured {sol_text} on this GPU's own units "
                f"(its HBM share of the measured peak among them), so it is {verdict} — the measurement decides")
    on = (f"an assumed {dev}'s datasheet peaks: the input does not name its GPU" if summary.get("device_assumed")
          else f"the {dev} datasheet peaks") + (", compute peaks scaled to the SM clock it ran at" if
                                                 summary.get("roof_clock") else "")
    return (f"{pct_words(float(roof_pct))} of roofline (its FLOPs and bytes over {on}) would make it {place}; "
            f"the profiler measured {sol_text} on this GPU's own units, so it is {verdict} — the measurement "
            "decides")


def below_roofs_detail(time_ns: float, calls: int, vendor: str | None = None) -> str:
    """Why a kernel below both roofs is held, in words, from what its own launches rule out. A kernel's GPU time
    holds no launch call: launch cost slows it only through the fixed time any launch takes on the GPU
    (:data:`~gpulens.analyzers._stake.KERNEL_FLOOR_NS`), so "short kernels, launch overhead — fuse or batch" is said
    only when that floor is half its time or more (launches of at most 2 × the floor). Longer launches leave latency
    or occupancy, not measured here (a MIOpen convolution of 1.14 ms per launch at 0.1 % of its roof on an MI300X
    was told "short kernels … Fuse or batch the work"). ``vendor``: ``nvidia`` / ``amd`` for the vendor's words."""
    from gpulens.analyzers._advice_vendor import vendor_word

    if not calls or time_ns <= 2 * calls * KERNEL_FLOOR_NS:
        return ("Neither compute nor memory bandwidth bounds it: latency, occupancy or launch overhead does (small "
                "grids, short kernels, dependent loads). Fuse or batch the work.")
    return (f"Neither compute nor memory bandwidth bounds it, nor launch cost (its launches last "
            f"{fmt_ns(time_ns / calls)} on average against the {fmt_ns(KERNEL_FLOOR_NS)} any launch takes): what is "
            f"left is latency or occupancy (small grids, few {vendor_word(vendor, 'warps')} to hide latency with, "
            "dependent loads), which its grid, occupancy and stall counters tell apart.")


def settle_launch_note(roofline: Any, name: str, reason: Any) -> None:
    """The roofline's below-roofs finding of kernel ``name`` follows the verdict's rule on launch cost
    (:func:`~gpulens.analyzers._verdict_facts.launch_cost_reason`; ``reason``: its result, or the kernel's verdict
    :class:`~gpulens.analyzers._verdict_facts.Evidence` to compute it from): from its launches' duration alone
    (:func:`below_roofs_detail`) it says "nor launch cost"; when the host paced its launches (``"host"``: short
    launches with the GPU idle before them) that sentence would contradict the verdict's first step (batch or fuse
    them), so it says the launch calls hold it. In place; nothing when no such finding."""
    if not isinstance(reason, str):
        from gpulens.analyzers._verdict_facts import launch_reason_of

        reason = launch_reason_of(reason)
    if reason != "host" or roofline is None:
        return
    for f in getattr(roofline, "findings", None) or []:
        if f.key == f"roofline:{name}" and str(f.detail).startswith(_NOT_LAUNCH):
            f.detail = ("Neither compute nor memory bandwidth bounds it: its launch calls do — most of its launches "
                        "run shorter than their launch call and the GPU sat idle before them, so the host paces it "
                        "(the verdict's first step: fewer, larger launches or a graph).")


#: The first words of :func:`below_roofs_detail` when launch cost is ruled out by the launches' duration.
_NOT_LAUNCH = "Neither compute nor memory bandwidth bounds it, nor launch cost"
