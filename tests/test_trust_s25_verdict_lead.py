"""The answer sentence states the share its run verdict rests on beside the secondary cause's, and calls a near tie.

Kind: "host-bound — the GPUs were busy 46 % …; secondary cause: communication-bound (26.1 %)" gave the runner-up's
share but not the verdict's own (28.6 %), so a reader could not see that the verdict rested on 2.5 points. Expected
values are hand calculations on the kernel + copy traces below (span = kernel + copy, no idle).
"""

from __future__ import annotations

import pytest

import gpulens
from gpulens.reports import markdown
from gpulens.reports._answer import NEAR_TIE, answer
from tests.test_trust_s11_verdict_share import _copies_beside_kernels


def _kernel_then_copy(tmp_path, kernel_us: int, copy_us: int):
    """One kernel of ``kernel_us`` µs, then a copy of ``copy_us`` µs right after it (span = both, no idle)."""
    return _copies_beside_kernels(tmp_path, copy_us, kernel_us)


def test_copies_leading_state_their_own_share(tmp_path):
    # 70 µs copy after a 30 µs kernel: memcpy-bound holds 70 / 100 = 70 %, computing 30 % (30 < 0.9 · 70: no tie)
    rep = gpulens.analyze([_kernel_then_copy(tmp_path, 30, 70)])
    src = rep.sources[0]
    vd = src.results["verdicts"].summary
    assert vd["run_verdict"] == "memcpy-bound" and vd["verdict_share_pct"] == pytest.approx(70.0)
    s = answer(src).sentence
    assert "the memcpy-bound share is the largest (70.0 % of the span)" in s
    assert "near tie" not in s
    assert "the memcpy-bound share is the largest (70.0 % of the span)" in markdown.render(rep)


def test_computing_barely_ahead_of_copies_is_a_near_tie(tmp_path):
    # 52 µs kernel, 48 µs copy: computing 52 %, copies 48 % ≥ 0.9 · 52 = 46.8 %: a near tie, 4.0 points apart
    assert 48 >= NEAR_TIE * 52
    src = gpulens.analyze([_kernel_then_copy(tmp_path, 52, 48)]).sources[0]
    vd = src.results["verdicts"].summary
    assert vd["verdict_share_pct"] == pytest.approx(52.0) and vd["secondary_share_pct"] == pytest.approx(48.0)
    s = answer(src).sentence
    assert "GPU computing is the largest (52.0 % of the span)" in s
    assert "secondary cause: memcpy-bound (48.0 % of the span; a near tie: 4.0 percentage points apart)" in s


def test_computing_well_ahead_is_no_tie(tmp_path):
    # 84 µs kernel, 16 µs copy: 16 < 0.9 · 84 — the secondary cause is named without a tie
    s = answer(gpulens.analyze([_kernel_then_copy(tmp_path, 84, 16)]).sources[0]).sentence
    assert "GPU computing is the largest (84.0 % of the span)" in s and "near tie" not in s
