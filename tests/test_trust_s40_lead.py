"""Session 40, the lead's own fixes (expected values by hand)."""

from gpulens.timeline.selection import Selection


def test_open_window_bound_reads_start_or_end_not_a_dangling_colon():
    """``--window 463380us:`` (the MI300X decode hint) was described "window 463380000: ns" in the selection warning
    (``kept 1117 of 1471 events``): the unit sat after the colon of an open bound. 463,380 µs = 463,380,000 ns."""
    assert Selection.parse(window="463380us:").describe() == "window 463380000 ns to the end"
    assert Selection.parse(window=":250ms").describe() == "window the start to 250000000 ns"
    assert Selection.parse(window="100:200ms").describe() == "window 100000000 ns to 200000000 ns"
