"""``ts == 0`` is Kineto's "never recorded" placeholder only beside real timestamps far from 0 (case B06,
pytorch/kineto#109: kernels at ts 0 among events at 1.6e15 µs). A trace whose clock starts at 0 — timestamps
rebased by a tool, or relative to ``baseTimeNanoseconds`` — has real events at ts 0: the first kernel was dropped
as "impossible timestamp", losing its time from every total."""

from __future__ import annotations

import json

from gpulens.collectors import collect

from .conftest import CASES


def _rebased(tmp_path):
    ev = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 30,
         "args": {"External id": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 4,
         "args": {"correlation": 7, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": "k_first", "pid": 0, "tid": 7, "ts": 0, "dur": 8,
         "args": {"device": 0, "stream": 7, "correlation": 7, "External id": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 6, "dur": 4,
         "args": {"correlation": 8, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": "k_second", "pid": 0, "tid": 7, "ts": 12, "dur": 20,
         "args": {"device": 0, "stream": 7, "correlation": 8, "External id": 1}},
    ]
    p = tmp_path / "rebased.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    return p


def test_events_at_ts_zero_of_a_rebased_trace_are_kept(tmp_path):
    tl = collect(_rebased(tmp_path), cache=False)
    k = tl.events[tl.events["kind"] == "kernel"]
    # from the file: k_first 0..8 µs, k_second 12..32 µs → 2 kernels, 28 µs summed, span 0..32 µs
    assert sorted(k["name"].astype(str)) == ["k_first", "k_second"]
    assert int(k["dur_ns"].sum()) == 28_000
    assert int(k["start_ns"].min()) == 0 and int((k["start_ns"] + k["dur_ns"]).max()) == 32_000
    assert len(tl.rejected) == 0


def test_placeholder_ts_zero_among_absolute_timestamps_is_still_rejected():
    # B06 (README): k_unset has ts 0 / dur 0 beside events at T = 1615207264505000 µs → rejected, reason 2
    tl = collect(CASES / "B06.json", cache=False)
    names = set(tl.rejected["name"].astype(str))
    assert "k_unset" in names
    assert "k_unset" not in set(tl.events["name"].astype(str))
