"""A host-bound run verdict that holds only outside the GPU span (the GPU's work a sliver of the profiled window)
says where first: "Host-bound: the GPU was busy 99.4 % of its 6.46 ms span; but 98.8 % of the 533.93 ms profiled
window is host-only time outside that span" (nsys memfusion RTX 3090) read as a contradiction — a GPU busy over 90 %
of its span is not waiting on the host there. The sentence now names the window outside the span, with the
host-only time before the first GPU work and after the last, then the busy share of the span.

Synthetic timeline: times in ns; expected figures derived from the intervals written here.
"""

from __future__ import annotations

import gpulens
from gpulens.reports._answer import answer
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table


def _timeline() -> Timeline:
    # one host op over a 100 ms window; from 10 ms on, five 1 ms kernels back to back (span 5 ms, busy 100 %),
    # then 85 ms of host-only time: outside the span 10 + 85 = 95 ms = 95.0 % of the window; GPU busy 5 % of the
    # window, under the 10 % min share → the sliver rule (host-bound by the window)
    rows = [("cpu_op", "aten::work", 0, 100_000_000, None, -1)] + [
        ("kernel", "k", 10_000_000 + i * 1_000_000, 1_000_000, 7, 0) for i in range(5)]
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    return Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * n, "pid": [1] * n, "tid": [1] * n,
                                               "event_id": list(range(n)), "source": ["t"] * n})).validate()


def test_host_bound_by_the_window_says_where_before_the_busy_share():
    rep = gpulens.analyze_timeline(_timeline())
    vd = rep.results["verdicts"].summary
    assert vd["run_verdict"] == "host-bound"
    assert vd["verdict_where"] == ("outside the GPU span, host-only time holds 95.0 % of the 100.00 ms profiled "
                                   "window (10.00 ms before the first GPU work, 85.00 ms after the last)")
    sentence = answer(rep).sentence
    assert sentence.startswith("Host-bound: outside the GPU span, host-only time holds 95.0 % of the 100.00 ms "
                               "profiled window (10.00 ms before the first GPU work, 85.00 ms after the last); the "
                               "GPU was busy 100.0 % of its 5.00 ms span"), sentence
    assert "but" not in sentence.split(";")[0]


def test_a_verdict_about_the_span_has_no_where():
    # the same kernels with no host-only time around them: the verdict is about the GPU span itself
    rows = [("kernel", "k", i * 1_000_000, 1_000_000, 7, 0) for i in range(5)]
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * 5, "pid": [1] * 5, "tid": [1] * 5,
                                             "event_id": list(range(5)), "source": ["t"] * 5})).validate()
    vd = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert vd["verdict_where"] is None and vd["run_verdict"] != "host-bound"
