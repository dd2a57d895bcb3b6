

def test_whole_percent_never_rounds_a_nonzero_share_to_zero_or_a_partial_one_to_100():
    from gpulens.units import fmt_pct_whole, fmt_waves
    # one block of one thread on an H100 (132 SMs × 32 resident blocks = 4,224 slots): 1/4224 = 0.0237 % of a wave
    assert fmt_pct_whole(100 / 4224) == "<1 %" and fmt_waves(1 / 4224) == "0.00024 waves"
    assert fmt_pct_whole(0) == "0 %" and fmt_pct_whole(99.7) == ">99 %" and fmt_pct_whole(100) == "100 %"
    assert fmt_pct_whole(42.4) == "42 %" and fmt_waves(0.5) == "0.50 waves" and fmt_pct_whole(None) == "unknown"
