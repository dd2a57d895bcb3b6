"""Kineto capture modes without kernel timing are named, not reported as a broken capture.

HTA's tests/data/cupti_profiler trace (Kineto with ``profiler_metrics``) has one ``cuda_profiler_range`` event per
kernel with counter values as args and evenly spaced placeholder times, and no ``kernel`` event at all.
"""

from __future__ import annotations

import json

from gpulens.collectors import collect


def test_cupti_range_profiler_trace_is_named(tmp_path):
    ev = []
    for i in range(3):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": 1000 + 10 * i, "dur": 4, "args": {"correlation": 10 + i}})
        ev.append({"ph": "X", "cat": "cuda_profiler_range", "name": f"kernel_{i}", "pid": 0, "tid": 0,
                   "ts": 5000 + 700 * i, "dur": 700,  # evenly spaced: not a measured time
                   "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1024 * (i + 1)}})
    p = tmp_path / "range.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    tl = collect(p)
    src = tl.meta.sources[0]
    assert "CUPTI range-profiler" in src["incomplete_capture"]
    assert "3 cuda_profiler_range events" in src["incomplete_capture"]  # the 3 written above
    assert not tl.events["kind"].isin(["kernel"]).any()  # placeholder times never become kernel time
