"""A partly-filled-wave finding's title gives the share of the kernel's time that the finding puts at stake — the
wave loss, or what a cap leaves of it ("at stake from empty block slots" either way) — and no percentage
in its wording rounds to a false 100 %.

Waves by hand (CUDA occupancy, CC 9.0): 256 threads × 32 registers → 8 resident blocks per SM; 132 SMs hold 1056
blocks at once, 264 SMs 2112. Loss of a launch = t × (1 − W / ⌈W⌉).
"""

from __future__ import annotations

import pytest

import gpulens
from gpulens.analyzers._occ_findings import WAVE_PREMISE, fill_text, retitle_wave, settle_wave_premise
from gpulens.analyzers.base import Finding
from gpulens.units import pct_words
from tests.test_stake_findings import _timeline


def _wave(tl) -> Finding:
    src = gpulens.analyze_timeline(tl)
    return next(f for f in src.findings() if (f.key or "").endswith("/waves"))


def test_capped_stake_sets_the_share_in_the_title():
    # one launch of 1 block for 3 µs: W = 1/1056, loss 3000 × (1 − 1/1056) = 2997 ns (99.9 %), but every launch keeps
    # its 2 µs floor: at stake 3000 − 2000 = 1000 ns = 33.3 % of its time — the title says that, not 99.9 %
    f = _wave(_timeline([(1, 256, 32, 3000)]))
    assert f.time_at_stake_ns == 1000
    # the cap is said in the title too, beside the empty slots' own share (2997 / 3000 = 99.9 %), so a reader who
    # computes 1 − fill does not meet an unexplained 33.3 %
    assert f.title.endswith("of one wave: up to 33.3 % of its time at stake from empty block slots (99.9 % of it with "
                            "slots empty, capped at its time less 2.00 µs for each launch: even an empty kernel takes "
                            "that much GPU time)"), f.title
    assert "lost to" not in f.title
    assert ("Capped at its time less 2.00 µs for each launch (1.00 µs): even an empty kernel takes that much GPU time."
            in f.detail)


def test_uncapped_share_just_under_100_is_never_a_false_100():
    # 1 block for 10 ms on 264 SMs (2112 slots): loss 10 ms × (1 − 1/2112) = 9,995,265 ns = 99.953 % of its time;
    # the floor (10 ms − 2 µs) does not cap it: the title reads "over 99.9 %", never "100.0 %"
    f = _wave(_timeline([(1, 256, 32, 10_000_000)], sms=264))
    assert f.time_at_stake_ns == 9_995_265
    assert f.title.endswith("of one wave: over 99.9 % of its time at stake from empty block slots"), f.title
    assert "100.0 %" not in f.title


def test_uncapped_title_keeps_the_loss_share():
    # 528 blocks (0.5 waves) 100 µs + 1848 blocks (1.75 waves) 300 µs: 50 + 37.5 = 87.5 µs of 400 µs = 21.9 % (one decimal, as the tables)
    f = _wave(_timeline([(528, 256, 32, 100_000), (1848, 256, 32, 300_000)]))
    assert f.time_at_stake_ns == 87_500
    assert "up to 21.9 % of its time, over all its 2 grid sizes, at stake from empty block slots" in f.title


def test_later_cap_by_the_memory_roof_retitles_the_share():
    f = Finding("Last wave of k is 75.0 % full (1.75 waves): up to 22.0 % of its time lost to empty block slots",
                "d", time_at_stake_ns=87_500, kernel="k", key="occupancy/k/waves", premise=WAVE_PREMISE)
    # memory-bound with 30 µs to its roof: the stake drops to 30 µs of the kernel's 400 µs = 7.5 %
    settle_wave_premise([f], "k", "memory-bound", 30_000, 1_000_000, time_ns=400_000)
    assert f.time_at_stake_ns == 30_000 and f.premise == ""
    # the empty slots' own share (22 %) stays beside the capped one, and the title says it was capped
    assert f.title == ("Last wave of k is 75.0 % full (1.75 waves): up to 7.5 % of its time at stake from empty "
                       "block slots (22.0 % of it with slots empty, capped: see the detail)")


def test_retitle_after_a_parent_cap_keeps_the_grid_sizes_clause():
    f = Finding("Main grid of k fills 62.0 % of one wave: up to 49.0 % of its time, over all its 2 grid sizes, lost to "
                "empty block slots", time_at_stake_ns=60_000, kernel="k", key="occupancy/k/waves")
    retitle_wave(f, 300_000)  # 60 of 300 µs = 20 %
    assert f.title == ("Main grid of k fills 62.0 % of one wave: up to 20.0 % of its time, over all its 2 grid sizes, "
                       "at stake from empty block slots (49.0 % of it with slots empty, capped: see the detail)")


@pytest.mark.parametrize("pct,text", [(99.96, "over 99.9 %"), (99.95, "over 99.9 %"), (99.6, "99.6 %"),
                                      (99.5, "99.5 %"), (99.49, "99.5 %"), (100.0, "100.0 %"), (46.3, "46.3 %"),
                                      (0.03, "under 0.1 %")])
def test_pct_words_never_rounds_to_a_false_100(pct, text):
    assert pct_words(pct) == text


def test_fill_of_a_wave_never_reads_100_when_short_of_it():
    # 1055 of 1056 slots = 99.905 %: not "100 %" of one wave
    assert fill_text(1055 / 1056) == "99.9 %" and fill_text(0.99999) == "over 99.9 %" and fill_text(1.0) == "100.0 %"


def test_cap_by_a_parent_finding_retitles_the_share():
    from types import SimpleNamespace

    import pandas as pd

    from gpulens.analyzers._tree import cap_children

    parent = Finding("k is memory-bound", time_at_stake_ns=40_000, kernel="k", key="verdict/k")
    wave = Finding("Last wave of k is 75.0 % full (1.75 waves): up to 22.0 % of its time lost to empty block slots",
                   "d", time_at_stake_ns=87_500, kernel="k", key="occupancy/k/waves", parent="verdict/k")
    results = {"verdicts": SimpleNamespace(findings=[parent]),
               "occupancy": SimpleNamespace(findings=[wave], table=pd.DataFrame({"name": ["k"], "time_ns": [400_000]}))}
    cap_children(results)
    # capped at its parent's 40 µs: 40 of the kernel's 400 µs = 10 %
    assert wave.time_at_stake_ns == 40_000
    assert wave.title == ("Last wave of k is 75.0 % full (1.75 waves): up to 10.0 % of its time at stake from empty "
                          "block slots (22.0 % of it with slots empty, capped: see the detail)")


def test_a_second_cap_keeps_the_empty_slots_share():
    # capped once in the analyzer (note present), then again by a parent: the empty slots' 88 % stays, one note
    f = Finding("Grid of k fills 12.0 % of one wave: up to 66.0 % of its time at stake from empty block slots (88.0 % of it "
                "with slots empty, capped at its distance to the roof)", time_at_stake_ns=30_000, kernel="k",
                key="occupancy/k/waves")
    retitle_wave(f, 100_000)  # 30 of 100 µs = 30 %
    assert f.title == ("Grid of k fills 12.0 % of one wave: up to 30.0 % of its time at stake from empty block slots "
                       "(88.0 % of it with slots empty, capped: see the detail)")
