"""A selection (``--window``, ``--steps``, ``--ranks``) cuts the allocator events as it cuts the events, and is
applied once.

Found by the report-invariant checker (tests/report_invariants.py) on ``--window`` reports: the memory timeline kept
the allocator events of the whole trace (offsets before the window's start, negative, and a peak from outside it)
without the Timeline cache, and said "the trace has no allocator events" with it (the cached Timeline's selection
dropped every side table); ``--window`` with ``--ranks`` counted the window twice (no GPU work left, exit 5).

Expected values are worked out by hand from the tiny trace below.
"""

from __future__ import annotations

import json
from pathlib import Path

import gpulens
from gpulens.collectors import collect
from gpulens.report import analyze_timeline
from gpulens.reports import json_report
from gpulens.timeline.selection import Selection

#: kernels at 1000, 2000, 3000, 4000 µs (10 µs each; the first event of the trace is the first kernel); allocator
#: events at 500 (900 B allocated, outside the window), 1950 (1000 B, outside), 2500 (300 B) and 3500 µs (250 B),
#: 4500 µs (700 B, outside).
#: The profiled window starts at the first allocator event (500 µs: the profiler recorded it — session 45, one origin
#: for every offset and for ``--window``). ``--window 1500us:3500us`` keeps [2000, 4000) µs: kernels at 2000 and 3000,
#: allocator events at 2500 and 3500; offsets count from the selection's first event (2000 µs): peak 300 B at 500 µs,
#: bins from 500 µs.
KERNELS = [1000.0, 2000.0, 3000.0, 4000.0]
MEMORY = [(500.0, 900), (1950.0, 1000), (2500.0, 300), (3500.0, 250), (4500.0, 700)]


def _trace(path: Path) -> Path:
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": ts, "dur": 10.0,
           "args": {"device": 0, "stream": 7}} for i, ts in enumerate(KERNELS)]
    ev += [{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
            "args": {"Total Reserved": 1024, "Total Allocated": a, "Bytes": 8, "Addr": 1, "Device Id": 0,
                     "Device Type": 1}} for ts, a in MEMORY]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132}]}))
    return path


def _memory(source) -> tuple[list[dict], list[dict]]:
    doc = json_report.source_dict(source)["analyses"]
    assert doc["memory_timeline"]["skipped_reason"] is None, doc["memory_timeline"]["skipped_reason"]
    return doc["memory_timeline"]["table"], doc["memory_series"]["table"]


def _check(source, expected=("cuda:0", 2, 300.0, 500_000)) -> None:
    timeline, series = _memory(source)
    assert [(r["device"], r["events"], r["peak_allocated_bytes"], r["peak_offset_ns"]) for r in timeline] == \
        [expected]
    assert min(r["offset_ns"] for r in series) >= 0
    assert max(r["allocated_bytes"] for r in series) == expected[2]


def test_window_cuts_allocator_events_at_load(tmp_path):
    """The Kineto collector applies the selection while reading: the allocator events follow it."""
    rep = gpulens.analyze(_trace(tmp_path / "t.json"), select=Selection.parse(window="1500us:3500us"))
    _check(rep.sources[0])


def test_window_on_a_built_timeline_keeps_allocator_events(tmp_path):
    """Selection.apply (cached Timelines, other collectors) keeps the side tables, cut to the selection."""
    tl = collect(_trace(tmp_path / "t.json"))
    _check(analyze_timeline(Selection.parse(window="1500us:3500us").apply(tl)))


def test_window_starting_before_the_first_kept_event(tmp_path):
    """``--window 1400us:3500us`` keeps [1900, 4000) µs: the allocator event at 1950 µs lies inside it, before the
    first kept kernel (2000 µs); the selected Timeline starts at that first kept instant, the origin of every offset
    (it was left out, else it would show at −50 µs): 3 allocator events (1950, 2500, 3500 µs), the peak 1000 B at
    1950 µs, offset 0."""
    expected = ("cuda:0", 3, 1000.0, 0)
    rep = gpulens.analyze(_trace(tmp_path / "t.json"), select=Selection.parse(window="1400us:3500us"))
    _check(rep.sources[0], expected)
    tl = collect(_trace(tmp_path / "u.json"))
    _check(analyze_timeline(Selection.parse(window="1400us:3500us").apply(tl)), expected)


def test_window_with_ranks_is_applied_once(tmp_path):
    """``--window`` with ``--ranks``: the same two kernels as ``--window`` alone (was: none, the window counted again
    from the cut trace's first event)."""
    rep = gpulens.analyze(_trace(tmp_path / "t.json"), select=Selection.parse(window="1500us:3500us", ranks="0"))
    assert rep.sources[0].summary["kernel_count"] == 2
    _check(rep.sources[0])
    assert "window" in json_report.source_dict(rep.sources[0])["inputs"][0]["selection"]
