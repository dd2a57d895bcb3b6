"""Session 47 (lead): findings a new user read as contradicting the figures beside them.

1. A measured unit between 60 % and 80 % of its peak was called "saturated" (ncu B200 flash attention: "its tensor
   pipe runs at 68.4 % of its peak (measured): saturated"). Nsight Compute's SpeedOfLight rules draw two lines: below
   60 % of peak it suspects latency, at > 80 % a unit is the bottleneck. Kind: a state word that overstates its
   figure. Expected: "saturated" only from 80 %; between 60 and 80 % "busy", still "not latency-bound".
2. A time at stake summed over launches that overlap (below).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_trust_s45_lead import _verdict


@pytest.mark.parametrize("pct, shown, word", [(68.4, "68.4 %", "busy"), (79.9, "79.9 %", "busy"),
                                              (80.0, "80.0 %", "saturated"), (97.32, "97.3 %", "saturated")])
def test_a_unit_is_saturated_from_80_percent_busy_from_60(pct, shown, word):
    v = _verdict(pct)
    step = v["next_steps"][0]
    assert step.startswith(f"The SM runs at {shown} of its peak (measured): {word}")
    assert "not latency-bound" in step  # ≥ 60 %: not below ncu's latency line, whichever word
    assert f"→ no bound named, but the SM is {word}" in v["evidence"]
    other = {"busy": "saturated", "saturated": "busy ("}[word]
    assert other not in step


def test_overlapping_launches_put_at_most_their_wall_time_at_stake():
    """2. nvprof concurrentKernels (GTX 1080 Ti, CUDA SDK): 8 ``clock_block`` launches of one block each run at once on
    8 streams; the kernel's 85.86 ms is summed over launches that overlap in a 10.79 ms span, and its verdict put all
    85.77 ms at stake — more than the run lasted. Kind: device time summed over concurrent launches taken as time the
    run could save. Expected: the stake is at most the union of the launches' intervals, computed here from the CSV
    with the csv module (Start and Duration in ms, per the units row)."""
    import csv

    import gpulens

    path = Path(__file__).parent / "data" / "nvidia" / "magus_gtx1080ti_traces_cudasdk_concurrentKernels.csv"
    rows = list(csv.reader(path.read_text().splitlines()[3:]))
    head, units = rows[0], rows[1]
    assert (units[head.index("Start")], units[head.index("Duration")]) == ("ms", "ms")
    iv = sorted((float(r[head.index("Start")]) * 1e6, (float(r[head.index("Start")]) + float(r[head.index(
        "Duration")])) * 1e6) for r in rows[2:] if len(r) == len(head) and r[head.index("Name")].startswith("clock_block"))
    assert len(iv) == 8
    union, end = 0.0, -1.0
    for s, e in iv:
        union += max(0.0, e - max(s, end))
        end = max(end, e)
    summed = sum(e - s for s, e in iv)
    assert summed > 7 * union  # they do overlap: the premise of the case
    t = gpulens.analyze([path]).sources[0].results["verdicts"].table.set_index("name")
    row = t.loc[[n for n in t.index if n.startswith("clock_block")][0]]
    assert row["time_at_stake_ns"] <= union + 1_000  # ns rounding of the ms figures
    assert row["time_at_stake_ns"] >= 0.99 * union  # capped at the wall time, not cut further
    assert "wall time its launches cover" in row["stake_note"]
