"""An outlier launch says what it is compared against: its grid's median. The gunrock MI300X kernel page listed an
18.64 µs launch as an outlier (2.17× the median) beside the kernel's p50 of 20.17 µs — the ratio is against the
median of the launches with the same grid (8.60 µs), not the kernel's p50 over all its grids. The outlier table now
lists that median (``grid_median_ns``, "median (same grid)") beside the ratio.

Synthetic timeline: one kernel, 4 launches with a 100-block grid (10, 10, 10, 22 µs) and 4 with a 1000-block grid
(100 µs each): its p50 over all 8 is (22 + 100) / 2 = 61 µs, the 22 µs launch is 2.2× its grid's 10 µs median.
"""

from __future__ import annotations

import json

import numpy as np

import gpulens
from gpulens.report import Report
from gpulens.reports import console, html, json_report, markdown
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

US = 1_000


def _timeline() -> Timeline:
    durs = [(100, 10), (100, 10), (100, 10), (100, 22), (1000, 100), (1000, 100), (1000, 100), (1000, 100)]
    n, t, starts = len(durs), 0, []
    for _, d in durs:
        starts.append(t)
        t += d * US + 5 * US
    return Timeline(make_table(EVENT_COLUMNS, {
        "kind": ["kernel"] * n, "name": ["k"] * n, "start_ns": starts, "dur_ns": [d * US for _, d in durs],
        "grid_x": [g for g, _ in durs], "grid_y": [1] * n, "grid_z": [1] * n, "block_x": [256] * n,
        "stream_id": [7] * n, "device_id": [0] * n, "rank": [0] * n, "pid": [1] * n, "tid": [1] * n,
        "event_id": list(range(n)), "source": ["t"] * n})).validate()


def test_outlier_lists_its_grid_median_beside_the_ratio():
    src = gpulens.analyze_timeline(_timeline())
    dist = src.results["kernel_distributions"].table
    assert float(dist["p50_ns"].iloc[0]) == np.percentile([10, 10, 10, 22, 100, 100, 100, 100], 50) * US == 61 * US
    out = src.results["kernel_outliers"].table
    assert len(out) == 1
    row = out.iloc[0]
    assert int(row["dur_ns"]) == 22 * US
    assert float(row["grid_median_ns"]) == 10 * US  # the median of its grid's launches 10, 10, 10, 22
    assert abs(float(row["vs_median"]) - 2.2) < 1e-9
    assert "grid_median_ns" in src.results["kernel_outliers"].columns


def test_every_report_labels_the_comparison_value():
    rep = Report([gpulens.analyze_timeline(_timeline())])
    assert "median (same grid)" in html.render(rep)
    md = markdown.render(rep)
    js = json.loads(json_report.render(rep))
    rows = js["sources"][0]["analyses"]["kernel_outliers"]["table"]
    assert rows[0]["grid_median_ns"] == 10 * US
    # Markdown and console show the outlier table where they show it; when they do, the median is labelled
    if "vs median" in md:
        assert "median (same grid)" in md
    # s38: the console now shows the ratio and its basis (they were cut past its sixth column); its headers break
    # over two lines ("others' median" / "(same grid)"), as every console header wider than its cells does
    text = console.render(rep, width=300)
    block = text[text.index("Kernel outliers"):]
    assert "others' median" in block and "(same grid)" in block and "vs median" in block
