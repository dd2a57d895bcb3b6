"""Verdict evidence and steps round a percentage the way every other sentence does (units.pct_words: the tables' one
decimal, halves up): the launch rule's short-launch share of 62.5 % (5 of 8 launches) read "62 %" — Python's
round-half-even — where the tables read 62.5 %; since s35 the sentences use the tables' digits."""

from __future__ import annotations

from gpulens.analyzers.verdict_rules import Evidence, decide


def test_short_launch_share_rounds_half_up():
    # 8 launches, 5 shorter than their launch call: 5 / 8 = 62.5 %, as the tables read it, never "62 %" or "63 %"
    v = decide(Evidence(name="k", kind="kernel", calls=8, time_ns=40_000, short_launch_frac=5 / 8,
                        launch_idle_ns=30_000))
    text = v.evidence + " " + " ".join(v.next_steps)
    assert "62.5 %" in text and "62 %" not in text and "63 %" not in text, text
