"""One name per figure: a sum of overrun-clipped kernel durations is not labelled "recorded time".

Kind: the Kernel distributions table summed effective (overrun-clipped) durations — 46.82 µs for an MI350X GEMM
recorded as 24.999 + 21.919 = 46.918 µs — under the header "recorded time", the name the hot-kernel table and the
overrun finding give the raw sums (46.92 µs in the HTML kernel panel beside it).
"""

from __future__ import annotations

from gpulens.analyzers import distributions, hotspots, queue_length
from gpulens.reports._format import column_label


def test_effective_sum_is_time_and_raw_sum_is_recorded_time():
    assert "effective" in distributions.COLUMNS["total_ns"]
    assert column_label("total_ns", distributions.COLUMNS["total_ns"]) == "time"
    assert column_label("total_ns", hotspots.COLUMNS["total_ns"]) == "recorded time"


def test_queue_span_is_not_called_the_span():
    # nsys streamSimple on an RTX 4090: stream 13's queue "span 134.46 µs" beside a 76.93 µs GPU span — it runs from
    # the stream's first launch call, before its first kernel
    assert column_label("span_ns", queue_length.COLUMNS["span_ns"]) == "span (first launch → last end)"
    assert column_label("span_ns", "first → last GPU event [ns]") == "span"
