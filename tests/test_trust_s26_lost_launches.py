"""Launch calls whose GPU work the capture lost are said, not silently left out of every figure.

Kind: a capture that stops (or drops records) after some launches were made: their correlation ids match no kernel.
Before, only a capture with *no* kernel at all was called incomplete (case T06); one that kept 2 of 5 kernels read as
a complete run ("status ok", busy 95 %). Expected counts come from the trace written here: the calls whose
correlation id has no kernel record, and where they lie relative to the launches whose kernels were recorded.
"""

from __future__ import annotations

import json

import gpulens
from gpulens.reports._answer import answer


def _trace(tmp_path, kernels_for, extra=()):
    """Five cudaLaunchKernel calls (correlation 100..104, 4 µs apart) and a kernel for each id in ``kernels_for``."""
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100 + 4 * i,
           "dur": 2, "args": {"correlation": 100 + i}} for i in range(5)]
    ev += [{"ph": "X", "cat": "kernel", "name": f"k{c}", "pid": 0, "tid": 7, "ts": 105 + 11 * j, "dur": 10,
            "args": {"device": 0, "stream": 7, "correlation": c}} for j, c in enumerate(kernels_for)]
    ev += list(extra)
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    return gpulens.analyze([p]).sources[0]


def _lost(src):
    return [f for f in src.findings() if ("have no GPU record" in f.title or "has no GPU record" in f.title)]


def test_tail_of_the_capture_lost(tmp_path):
    src = _trace(tmp_path, [100, 101])  # 102, 103, 104 launched after the last recorded launch (101)
    ln = src.results["launches"].summary
    assert ln["launch_calls_lost"] == 3
    (f,) = _lost(src)
    assert f.title.startswith("3 of 5 launch calls") and "all after the last launch" in f.title
    assert "correlation 102–104" in f.detail and f.severity == "warning"
    assert "3 of the 5 launch calls have no GPU record" in answer(src).sentence


def test_gap_in_the_middle_is_not_called_the_tail(tmp_path):
    src = _trace(tmp_path, [100, 101, 103, 104])  # only 102 lost, between recorded launches
    (f,) = _lost(src)
    assert f.title == "1 of 5 launch calls has no GPU record"
    assert "(correlation 102)" in f.detail and "lost their GPU records" in f.detail


def test_every_launch_recorded_says_nothing(tmp_path):
    src = _trace(tmp_path, [100, 101, 102, 103, 104])
    assert not _lost(src) and "launch_calls_lost" not in src.results["launches"].summary
    assert "no GPU record" not in answer(src).sentence


def test_launches_captured_into_a_graph_are_not_lost(tmp_path):
    # 102..104 lie inside a cudaStreamBeginCapture … cudaStreamEndCapture window of the same thread: recorded into a
    # graph, never run here — no GPU record is expected
    cap = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "pid": 1, "tid": 1, "ts": 107,
            "dur": 1, "args": {"correlation": 90}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamEndCapture", "pid": 1, "tid": 1, "ts": 119,
            "dur": 1, "args": {"correlation": 91}}]
    src = _trace(tmp_path, [100, 101], cap)
    assert src.results["launches"].summary["launch_calls_captured"] == 3
    assert not _lost(src)
