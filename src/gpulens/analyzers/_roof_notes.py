"""The roofline row's ``placement_note`` (:meth:`gpulens.analyzers.roofline.Roofline.settle`): why its % of roofline
says another bound than the row's, once the measured speed of light decided the kernel's verdict — the two figures
side by side, explained where they are shown (console, Markdown and HTML mark the % of roofline; JSON has the note).
"""

from __future__ import annotations

from typing import Any

from gpulens.analyzers._verdict_facts import BELOW_ROOFS
from gpulens.units import pct_words


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
