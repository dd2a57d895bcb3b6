"""Over several GPUs the profiled-window share says its basis: Σ busy / Σ per-rank window, beside a window that is
the wall (or longest-rank) window — one rank's busy time over the wall window would read as another figure."""

from __future__ import annotations

import gpulens
from gpulens.reports._format import busy_text, window_text
from tests.test_trust_s15 import _rank, _run_dir


def test_two_ranks_window_share_names_its_basis(tmp_path):
    # by hand from _rank: each rank's window runs from its aten::warmup (t) to its last step's end (t + lead + 2000 +
    # 900 µs): rank 0 (lead 100) 3,000 µs, rank 1 (lead 300) 3,200 µs; each rank's kernels: 11 × 10 µs + 80 µs =
    # 190 µs busy. Σ busy / Σ window = 380 / 6,200 = 6.1 %; the ranks' clocks are 7 s apart, so the window shown is
    # the longest rank's, 3.20 ms
    sm = gpulens.analyze([_run_dir(tmp_path)]).sources[0].summary
    assert sm["window_ns"] == 3_200_000
    assert f"{100 * 380 / 6_200:.1f}" == "6.1"
    assert window_text(sm) == "3.20 ms: GPU busy 6.1 % of the per-rank windows (Σ busy / Σ window)"
    assert window_text(sm) in busy_text(sm)


def test_one_rank_window_share_is_of_it(tmp_path):
    p = tmp_path / "t.json"
    _rank(p, 0, 1_700_000_000_000_000, 100)
    sm = gpulens.analyze([p]).sources[0].summary
    # 190 µs busy in the 3,000 µs window: 6.3 %
    assert window_text(sm) == "3.00 ms: GPU busy 6.3 % of it"
