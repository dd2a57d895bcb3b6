"""A step's critical-path classes add up to its ``step_ns`` (docs/report-schema.md) under any selection.

With a ``--window`` starting inside the main thread's ``backward()`` call, that call is not kept (an event is kept
when it starts in the window): the main thread's last kept event ended before the autograd thread's first one
started. The walk reads one view per launching thread, its idle time filled by the process's other launching
thread (:func:`gpulens.analyzers._critical_walk.process_views`), and that view left out the time between the two
threads' events — no segment at all, so the path skipped it: on HTA's two-rank trace with ``--window 100ms:300ms``
rank 0's classes summed to 189.97 ms of 191.45 ms and rank 1's to 189.84 ms of 191.49 ms. That time is host idle
(no launching thread ran an event) and is on the path now.
"""

from __future__ import annotations

import json

import numpy as np

from gpulens.analyzers import run_all
from gpulens.analyzers._critical_walk import _fill_idle
from gpulens.collectors import collect
from gpulens.timeline.selection import Selection
from tests.conftest import DATA


def test_filled_view_tiles_the_time_between_two_threads():
    # thread A: event 0 on [0, 10); thread B: event 1 on [50, 60); the gap [10, 50) is in neither tiling
    a, b, w = _fill_idle(np.array([0]), np.array([10]), np.array([0]), np.array([50]), np.array([60]), np.array([1]))
    assert a.tolist() == [0, 10, 50] and b.tolist() == [10, 50, 60] and w.tolist() == [0, -1, 1]


def _ev(tid, name, cat, ts, dur, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": ts, "dur": dur, "args": args}


def test_time_between_two_launching_threads_is_host_idle(tmp_path):
    # main thread 100: op 1000–1010 µs launching kernel A (1005–1015); autograd thread 200: op 1050–1060 launching
    # kernel B (1070–1090). No steps: one window, first event to last end = 1000–1090 µs = 90 µs.
    # Path, walked back from B's end: kernel B 20 µs, launch delay 1052→1070 = 18 µs, thread 200's op 1050–1052
    # (2 µs), no launching thread runs an event 1010–1050 (host idle 40 µs), main op self time 1006–1010 and
    # 1000–1002 (6 µs), its launch call 1002–1006 (4 µs): 20 + 18 + 2 + 40 + 6 + 4 = 90 µs.
    ev = [_ev(100, "aten::ones_like", "cpu_op", 1000, 10, **{"External id": 1}),
          _ev(100, "cudaLaunchKernel", "cuda_runtime", 1002, 4, correlation=1, **{"External id": 1}),
          _ev(200, "aten::div", "cpu_op", 1050, 10, **{"External id": 2}),
          _ev(200, "cudaLaunchKernel", "cuda_runtime", 1052, 4, correlation=2, **{"External id": 2}),
          {"ph": "X", "cat": "kernel", "name": "fill_a", "pid": 0, "tid": 7, "ts": 1005, "dur": 10,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "div_b", "pid": 0, "tid": 7, "ts": 1070, "dur": 20,
           "args": {"device": 0, "stream": 7, "correlation": 2}}]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    t = run_all(collect(p))["critical_path"].table
    assert t["step_ns"].unique().tolist() == [90_000]
    per = dict(zip(t["class"], t["time_ns"]))
    assert per == {"cpu_op": 8_000, "runtime": 4_000, "host_idle": 40_000, "launch_delay": 18_000,
                   "kernel": 20_000}


def test_window_inside_backward_keeps_every_step_whole():
    # HTA's two-rank trace, --window 100ms:300ms: no ProfilerStep is kept whole, so each rank is one window from its
    # first kept event to its last end, of the events a path is made of (host ops and calls, GPU work; annotations
    # are no path event) — computed here from the selected events themselves
    tl = collect(DATA / "kineto" / "multirank", select=Selection.parse(None, "100ms:300ms", None))
    t = run_all(tl)["critical_path"].table
    ev = tl.events
    ev = ev[ev["kind"].astype(str).isin(["cpu_op", "runtime", "sync", "kernel", "memcpy", "memset", "comm"])]
    ends = ev["start_ns"] + ev["dur_ns"]
    for rank, rows in t.groupby("rank"):
        mine = ev["rank"] == rank
        window = int(ends[mine].max() - ev["start_ns"][mine].min())
        assert rows["step_ns"].unique().tolist() == [window]
        assert int(rows["time_ns"].sum()) == window
