"""Every figure that places something in time reads from one origin — the start of the rank's profiled window, the
origin ``--window`` counts from — so a queue-length bin, a memory peak and a step can be compared and pasted into
``--window``. Expected values are read from the raw demo trace here (its first event, its allocator events, its
launch calls), not from gpulens."""

from __future__ import annotations

import gzip
import json
from importlib import resources

import gpulens
from gpulens.reports._format import column_label

DEMO = resources.files("gpulens") / "data" / "demo_h100_bert-small.pt.trace.json.gz"


def _raw():
    with gzip.open(str(DEMO)) as fh:
        ev = json.load(fh)["traceEvents"]
    # the profiled window's start: the first recorded event, the profiler's own session record excepted
    origin = min(float(e["ts"]) for e in ev if e.get("ph") == "X" and not e["name"].startswith("PyTorch Profiler"))
    return ev, origin


def _ns(us: float) -> int:
    return round(us * 1000)


def test_memory_peak_and_queue_bins_count_from_the_profiled_window():
    ev, origin = _raw()
    rep = gpulens.analyze([str(DEMO)])
    res = rep.sources[0].results

    # memory: the GPU allocator event with the largest "Total Allocated", from the window's start
    mem = [e for e in ev if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1]
    peak = max(mem, key=lambda e: e["args"]["Total Allocated"])  # the first such event on a tie
    row = res["memory_timeline"].table.set_index("device").loc["cuda:0"]
    assert abs(int(row["peak_offset_ns"]) - _ns(float(peak["ts"]) - origin)) <= 1
    assert column_label("peak_offset_ns", res["memory_timeline"].columns["peak_offset_ns"]) == \
        "peak (in profiled window)"
    series = res["memory_series"].table
    assert series["offset_ns"].min() >= 0 and column_label("offset_ns", res["memory_series"].columns["offset_ns"]) \
        == "start (in profiled window)"

    # queue length: the stream's first bin starts at its first launch call (a runtime call whose correlation id a
    # GPU event on that stream carries)
    gpu = {e["args"]["correlation"] for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy")
           and e["args"].get("stream") == 7}
    first_launch = min(float(e["ts"]) for e in ev if e.get("ph") == "X"
                       and e.get("cat") in ("cuda_runtime", "cuda_driver") and e["args"].get("correlation") in gpu)
    q = res["queue_length_series"].table
    q = q[q["stream_id"] == 7].sort_values("bin_start_ns")
    assert abs(int(q["trace_offset_ns"].iloc[0]) - _ns(first_launch - origin)) <= 1
    # every bin keeps its place: the offset from the window start is the offset from the first launch plus that
    diff = (q["trace_offset_ns"] - q["bin_start_ns"]).unique()
    assert len(diff) == 1
    # a human table shows the window offset under the --window label, not the stream-relative clock column
    from gpulens.reports.markdown import render

    md = render(rep)
    assert "### Queue length series" in md and "clock at" not in md


def test_critical_path_offsets_are_labelled_as_positions_along_the_path():
    rep = gpulens.analyze([str(DEMO)])
    seg = rep.sources[0].results["critical_path_segments"]
    assert column_label("offset_ns", seg.columns["offset_ns"]) == "offset along the path"
    t = seg.table
    t = t[t["step"] == t["step"].iloc[0]].sort_values("order")
    # the offset of a segment is the summed length of the segments before it
    assert (t["offset_ns"].to_numpy()[1:] == t["dur_ns"].cumsum().to_numpy()[:-1]).all()
