"""An outlier launch is compared with the kernel's *other* launches of its grid, not with a median that contains
itself. The MI300A OpenMP-offload workload (amd/HPCTrainingExamples, rocprof-compute) ran its kernel twice with one
grid: 430.65 ms, then 0.63 ms. The median of the two is their mean, 215.64 ms — a duration no launch had — and the
outlier table read "vs median 2", which a kernel with two launches can never exceed, beside a 683× difference.

Synthetic timelines built here; expected ratios by hand from the durations written in the test.
"""

from __future__ import annotations

import numpy as np

import gpulens
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

US = 1_000


def _timeline(durs_us: list[float], grid: int = 912) -> Timeline:
    n, t, starts = len(durs_us), 0, []
    for d in durs_us:
        starts.append(t)
        t += int(d * US) + 5 * US
    return Timeline(make_table(EVENT_COLUMNS, {
        "kind": ["kernel"] * n, "name": ["k"] * n, "start_ns": starts, "dur_ns": [int(d * US) for d in durs_us],
        "grid_x": [grid] * n, "grid_y": [1] * n, "grid_z": [1] * n, "block_x": [256] * n,
        "stream_id": [7] * n, "device_id": [0] * n, "rank": [0] * n, "pid": [1] * n, "tid": [1] * n,
        "event_id": list(range(n)), "source": ["t"] * n})).validate()


def test_two_launches_compare_the_slow_one_with_the_other():
    slow, fast = 430_646.701, 629.122  # µs: the pattern of the MI300A capture (first launch, then the second)
    out = gpulens.analyze_timeline(_timeline([slow, fast])).results["kernel_outliers"].table
    assert len(out) == 1
    row = out.iloc[0]
    assert int(row["dur_ns"]) == int(slow * US)
    assert float(row["grid_median_ns"]) == int(fast * US)  # the other launch, not (slow + fast) / 2
    assert abs(float(row["vs_median"]) - int(slow * US) / int(fast * US)) < 1e-9  # about 684×, not 2×
    assert float(row["vs_median"]) > 600


def test_two_close_launches_are_no_outlier():
    """10 and 14 µs: 14 / 10 = 1.4 < 1.5 — neither is an outlier of the other."""
    res = gpulens.analyze_timeline(_timeline([10, 14])).results["kernel_outliers"]
    assert len(res.table) == 0 and res.skipped


def test_many_launches_keep_the_group_median():
    """Nine 10 µs launches and one of 40 µs: the others' median is 10 µs, as the whole group's is — 4×."""
    out = gpulens.analyze_timeline(_timeline([10] * 9 + [40])).results["kernel_outliers"].table
    assert len(out) == 1 and float(out.iloc[0]["grid_median_ns"]) == 10 * US
    assert abs(float(out.iloc[0]["vs_median"]) - 4.0) < 1e-9


def test_three_launches_one_slow_compares_with_the_two_others():
    """12, 10 and 50 µs: the others of the 50 µs launch are 10 and 12 µs, median 11 µs → 50 / 11; the group median
    (12 µs) would give 50 / 12."""
    out = gpulens.analyze_timeline(_timeline([12, 10, 50])).results["kernel_outliers"].table
    assert len(out) == 1 and float(out.iloc[0]["grid_median_ns"]) == np.median([10, 12]) * US
    assert abs(float(out.iloc[0]["vs_median"]) - 50 / 11) < 1e-9
