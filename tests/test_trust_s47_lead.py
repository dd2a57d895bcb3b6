"""Session 47 (lead): findings a new user read as contradicting the figures beside them.

1. A measured unit between 60 % and 80 % of its peak was called "saturated" (ncu B200 flash attention: "its tensor
   pipe runs at 68.4 % of its peak (measured): saturated"). Nsight Compute's SpeedOfLight rules draw two lines: below
   60 % of peak it suspects latency, at > 80 % a unit is the bottleneck. Kind: a state word that overstates its
   figure. Expected: "saturated" only from 80 %; between 60 and 80 % "busy", still "not latency-bound".
"""

from __future__ import annotations

import pytest

from tests.test_trust_s45_lead import _verdict


@pytest.mark.parametrize("pct, shown, word", [(68.4, "68.4 %", "busy"), (79.9, "79.9 %", "busy"),
                                              (80.0, "80 %", "saturated"), (97.32, "97.3 %", "saturated")])
def test_a_unit_is_saturated_from_80_percent_busy_from_60(pct, shown, word):
    v = _verdict(pct)
    step = v["next_steps"][0]
    assert step.startswith(f"The SM runs at {shown} of its peak (measured): {word}")
    assert "not latency-bound" in step  # ≥ 60 %: not below ncu's latency line, whichever word
    assert f"→ no bound named, but the SM is {word}" in v["evidence"]
    other = {"busy": "saturated", "saturated": "busy ("}[word]
    assert other not in step
