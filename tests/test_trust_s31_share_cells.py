"""A share of a whole in a table cell is never rounded to a false 100 % or 0 % (new-user review: stream 20 of HTA
AlexNet A100 showed 'empty share 100.0 %' beside a max queue of 3 — its 7 launches did leave the queue non-empty for
a moment), and a kernel page's verdict with no time at stake says so in words (was 'undetermined unknown at stake')."""

from __future__ import annotations

from gpulens.reports._format import fmt_unit


def test_share_cells_keep_their_extremes_honest():
    # 12.01 s span with the queue non-empty for 4.8 µs: empty share 1 − 4.8e-6 / 12.01 = 0.9999996 → not "100.0 %"
    assert fmt_unit(1 - 4.8e-6 / 12.01, "share") == "over 99.9 %"
    # 11 µs of 34 ms: 0.0324 % → not "0.0 %"; 30 µs of 58 ms: 0.0517 % rounds honestly to "0.1 %"
    assert fmt_unit(11e-6 / 34e-3, "share") == "under 0.1 %"
    assert fmt_unit(30e-6 / 58e-3, "share") == "0.1 %"
    assert fmt_unit(1.0, "share") == "100.0 %" and fmt_unit(0.0, "share") == "0.0 %"
    assert fmt_unit(0.758, "share") == "75.8 %"
