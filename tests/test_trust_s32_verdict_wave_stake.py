"""A kernel verdict's unknown time at stake says why beside the same kernel's wave-quantization stake. On HTA's
AlexNet A100 trace ampere_sgemm_32x32_sliced1x4_tn read "undetermined | unknown" in the verdicts table while its
wave-quantization finding read "1.01 ms at stake — if it is not memory-bound": two definitions (what fixing the
bound saves, unknown while the bound is; an upper bound from empty block slots resting on a premise). The verdict's
stake now carries a note (``stake_note``, marked † in the tables and shown on the kernel page) naming the other
figure and its premise.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS

import pytest

import gpulens
from gpulens.analyzers.verdicts import wave_stake_note

ALEX = Path(__file__).parent / "data" / "kineto" / "hta_alexnet_a100.json.gz"


def _results(stake_ns):
    f = NS(key="occupancy/k/waves", time_at_stake_ns=stake_ns, premise="if it is not memory-bound (its bound is "
                                                                       "undetermined)")
    return {"occupancy": NS(findings=[f])}


def test_note_names_the_wave_figure_and_its_premise():
    # 1,010,037 ns is 1.01 ms
    assert wave_stake_note(_results(1_010_037), "k", None, "undetermined") == (
        "its bound is undetermined; the wave-quantization finding's 1.01 ms is another figure: at most what empty "
        "block slots cost, if it is not memory-bound")


def test_no_note_when_the_verdict_has_a_stake_or_no_wave_figure():
    assert wave_stake_note(_results(1_010_037), "k", 5_000, "memory-bound") is None
    assert wave_stake_note(_results(None), "k", None, "undetermined") is None
    assert wave_stake_note(_results(1_010_037), "other", None, "undetermined") is None


def test_alexnet_unknown_stake_stands_with_its_reason():
    if not ALEX.exists():
        pytest.skip("AlexNet fixture absent")
    rep = gpulens.analyze([ALEX])
    src = rep.sources[0]
    waves = {f.kernel: f for f in src.results["occupancy"].findings if f.key.endswith("/waves") and f.time_at_stake_ns}
    rows = src.results["verdicts"].table.to_dict("records")
    checked = 0
    for r in rows:
        if r["name"] in waves and (r["time_at_stake_ns"] is None or r["time_at_stake_ns"] != r["time_at_stake_ns"]):
            assert isinstance(r["stake_note"], str) and "wave-quantization" in r["stake_note"], r
            checked += 1
    assert checked >= 1  # ampere_sgemm_32x32_sliced1x4_tn at least
    from gpulens.reports import markdown

    md = markdown.render(rep)
    line = next(ln for ln in md.splitlines() if "ampere\\_sgemm\\_32x32\\_sliced1x4\\_tn |" in ln and "undetermined" in ln)
    assert line.rstrip().endswith("unknown † |"), line
