"""The HTML "Why the GPU was idle" chart draws the idle causes that hold time, as the console's table lists them:
a new user saw "idle untimed", "cause not recorded" and "one-off gaps" in the legend of a run with none of them."""

from __future__ import annotations

import pandas as pd

from gpulens.analyzers.base import AnalysisResult
from gpulens.reports._html_analyses import _idle_panel


def test_idle_chart_legend_has_only_causes_with_time():
    t = pd.DataFrame({"rank": [0, 0], "device_id": [0, 1], "idle_ns": [5_000, 3_000],
                      "idle_host_ns": [4_000, 0], "idle_launch_ns": [1_000, 3_000], "idle_boundary_ns": [0, 0],
                      "idle_untimed_ns": [None, 0], "overhead": ["", ""]})
    panel = _idle_panel(AnalysisResult("bottlenecks", t, {}), 50)
    traces = panel.figure["data"]
    assert len(traces) == 2  # host and launch; boundary (all 0) and untimed (unknown/0) hold nothing
    # in µs (the axis unit follows the idle's magnitude: 5 µs): host 4 / 0, launch 1 / 3 per GPU
    assert [tr["x"] for tr in traces] == [[4.0, 0.0], [1.0, 3.0]]
