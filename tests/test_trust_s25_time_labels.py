"""One name per figure: a sum of overrun-clipped kernel durations is not labelled "recorded time".

Kind: the Kernel distributions table summed effective (overrun-clipped) durations — 46.82 µs for an MI350X GEMM
recorded as 24.999 + 21.919 = 46.918 µs — under the header "recorded time", the name the hot-kernel table and the
overrun finding give the raw sums (46.92 µs in the HTML kernel panel beside it).
"""

from __future__ import annotations

from gpulens.analyzers import distributions, hotspots
from gpulens.reports._format import column_label


def test_effective_sum_is_time_and_raw_sum_is_recorded_time():
    assert "effective" in distributions.COLUMNS["total_ns"]
    assert column_label("total_ns", distributions.COLUMNS["total_ns"]) == "time"
    assert column_label("total_ns", hotspots.COLUMNS["total_ns"]) == "recorded time"
