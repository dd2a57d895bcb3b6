"""Second new-user trial (s50): the demo's Annotations table showed "host time 3.91 ms" on the ``gpu ProfilerStep#6``
row — the GPU-side range's span on its stream, not host time. A GPU-side range's host time is unknown in every
output; a host range's is its recorded duration (the trace's ``dur``)."""

from __future__ import annotations

import gzip
import json

import pytest

import gpulens
from gpulens import demo_trace
from gpulens.reports import console, markdown
from gpulens.reports.json_report import to_dict


def _events():
    p = demo_trace()
    raw = gzip.open(p).read() if str(p).endswith(".gz") else p.read_bytes()
    return json.loads(raw)["traceEvents"]


@pytest.fixture(scope="module")
def report():
    return gpulens.analyze([demo_trace()])


def test_gpu_side_range_has_no_host_time(report):
    ev = _events()
    step = [e for e in ev if e.get("name") == "ProfilerStep#6" and e.get("ph") == "X"]
    host = [e for e in step if e.get("cat") == "user_annotation"]
    gpu = [e for e in step if e.get("cat") == "gpu_user_annotation"]
    assert len(host) == 1 and len(gpu) == 1  # the trace has both sides of the step
    assert gpu[0]["dur"] != host[0]["dur"]  # the two durations differ: one cannot stand for the other
    t = report.sources[0].results["annotations"].table
    rows = t[t["annotation"] == "ProfilerStep#6"].set_index("side")
    assert rows.loc["host", "host_time_ns"] == pytest.approx(host[0]["dur"] * 1000, abs=1000)
    assert rows.loc["gpu", "host_time_ns"] != rows.loc["gpu", "host_time_ns"]  # NaN: unknown
    recs = to_dict(report)["sources"][0]["analyses"]["annotations"]["table"]
    gpu_rec = [r for r in recs if r["annotation"] == "ProfilerStep#6" and r["side"] == "gpu"]
    assert gpu_rec and gpu_rec[0]["host_time_ns"] is None


def test_no_output_shows_the_gpu_span_as_host_time(report):
    """The GPU range's duration (ms, as every reporter formats it) never appears on its row as host time."""
    gpu = [e for e in _events() if e.get("name") == "ProfilerStep#6" and e.get("cat") == "gpu_user_annotation"][0]
    span = f"{gpu['dur'] / 1000:.2f} ms"
    lines = [ln for ln in console.render(report).splitlines() if "ProfilerStep#6" in ln and " gpu " in ln]
    assert lines and all(span not in ln and "unknown" in ln for ln in lines), span
    md = [ln for ln in markdown.render(report).splitlines() if "ProfilerStep#6" in ln and "| gpu |" in ln]
    assert all(span not in ln for ln in md)
