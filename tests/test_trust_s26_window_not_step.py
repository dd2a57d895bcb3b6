"""The critical-path table of a trace without ProfilerStep ranges calls its one window a window, not a step.

Kind (new-user walk): AlexNet's trace records no ProfilerStep (checked below from its events), yet the table's
columns read "step time 43.42 s" and "share of step time". With steps (the HTA two-rank trace) the labels stay.
"""

from __future__ import annotations

import gpulens
from gpulens.reports._format import column_label
from tests.conftest import KINETO


def _labels(path):
    src = gpulens.analyze([path]).sources[0]
    r = src.results["critical_path"]
    return src, {c: column_label(c, r.columns[c]) for c in ("step_ns", "share")}


def test_stepless_trace_labels_the_window():
    src, labels = _labels(KINETO / "hta_alexnet_a100.json.gz")
    names = src.timeline.events["name"].astype(str)
    assert not names.str.startswith("ProfilerStep#").any()
    assert labels == {"step_ns": "path window", "share": "share of path window"}


def test_stepped_trace_keeps_step_labels():
    src, labels = _labels(KINETO / "multirank")
    assert src.timeline.events["name"].astype(str).str.startswith("ProfilerStep#").any()
    assert labels == {"step_ns": "step time", "share": "share of step time"}
