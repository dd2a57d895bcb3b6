"""(Superseded in s40: the run verdict judges the GPU span; host-only time outside it is its own figure.) A host-bound
run verdict that holds only outside the GPU span (the GPU's work a sliver of the profiled window)
says where first: "Host-bound: the GPU was busy 99.4 % of its 6.46 ms span; but 98.8 % of the 533.93 ms profiled
window is host-only time outside that span" (nsys memfusion RTX 3090) read as a contradiction — a GPU busy over 90 %
of its span is not waiting on the host there. The sentence now names the window outside the span, with the
host-only time before the first GPU work and after the last, then the busy share of the span.

Synthetic timeline: times in ns; expected figures derived from the intervals written here.
"""

from __future__ import annotations

import pytest

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


def test_host_only_time_outside_the_span_is_its_own_figure_not_the_verdict():
    # s40: the run verdict judges the GPU span (busy 100 % of its 5 ms: gpu-bound); the 10 ms before the first GPU
    # work and 85 ms after the last (95.0 % of the 100 ms window) are stated beside it, never its cause
    rep = gpulens.analyze_timeline(_timeline())
    vd = rep.results["verdicts"].summary
    assert vd["run_verdict"] == "gpu-bound" and vd["verdict_where"] is None
    assert vd["outside_span"] == {"before_ns": 10_000_000, "after_ns": 85_000_000, "window_ns": 100_000_000,
                                  "pct": pytest.approx(95.0)}  # (10 + 85) of 100 ms
    sentence = answer(rep).sentence
    assert sentence.startswith("GPU-bound: the GPU was busy 100.0 % of its 5.00 ms span; outside the GPU span, not "
                               "judged by the verdict: 10.00 ms of host-only time before the first GPU work "
                               "(start-up) and 85.00 ms after the last (95.0 % of the 100.00 ms profiled window)"), \
        sentence


def test_a_verdict_about_the_span_has_no_where():
    # the same kernels with no host-only time around them: the verdict is about the GPU span itself
    rows = [("kernel", "k", i * 1_000_000, 1_000_000, 7, 0) for i in range(5)]
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * 5, "pid": [1] * 5, "tid": [1] * 5,
                                             "event_id": list(range(5)), "source": ["t"] * 5})).validate()
    vd = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert vd["verdict_where"] is None and vd["run_verdict"] != "host-bound"
