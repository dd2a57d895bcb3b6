"""A launch call whose kernel was refused as invalid is not a lost launch: ``launch_calls_lost`` counts only the
calls whose GPU work was never recorded; the refused ones are counted apart (``launch_calls_gpu_work_refused``).

Hand-built traces: 6 launch calls (correlation 1–6) each with one kernel, kernels 2 and 3 recorded with a negative
duration (refused), plus one call (correlation 99) whose kernel is not in the trace. Expected: 1 lost, 2 refused.
The same for a rocprofv3 CSV pair (hip_api_trace + kernel_trace, one dispatch with End < Start).
"""

from __future__ import annotations

import json

import pytest

import gpulens


def _kineto(path):
    ev = []
    for i in range(6):
        t = 1000 + i * 100
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": -5 if i in (1, 2) else 50,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t - 10,
                   "dur": 5, "args": {"correlation": i + 1}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1700,
               "dur": 5, "args": {"correlation": 99}})
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return path


def _rocprofv3(folder):
    api = ['"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"']
    ker = ['"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Correlation_Id","Start_Timestamp",'
           '"End_Timestamp"']
    for i in range(6):
        t = 10_000 + i * 1000
        api.append(f'"HIP_RUNTIME_API","hipLaunchKernel",42,42,{i + 1},{t},{t + 100}')
        end = t + 150 if i in (1, 2) else t + 700  # dispatches 2 and 3 end before they start: refused
        ker.append(f'"KERNEL_DISPATCH",2,1,{i + 1},"k(int)",{i + 1},{t + 200},{end}')
    api.append('"HIP_RUNTIME_API","hipLaunchKernel",42,42,99,17000,17100')
    (folder / "42_hip_api_trace.csv").write_text("\n".join(api) + "\n")
    (folder / "42_kernel_trace.csv").write_text("\n".join(ker) + "\n")
    return folder


@pytest.mark.parametrize("make", ["kineto", "rocprofv3"])
def test_refused_kernels_launches_are_not_lost(tmp_path, make):
    p = _kineto(tmp_path / "t.json") if make == "kineto" else _rocprofv3(tmp_path)
    src = gpulens.analyze([p]).sources[0]
    assert len(src.timeline.rejected) == 2
    s = src.results["launches"].summary
    assert s["launch_calls"] == 7
    assert s["launch_calls_lost"] == 1  # only correlation 99
    assert s["launch_calls_gpu_work_refused"] == 2  # correlations 2 and 3
    titles = [f.title for f in src.results["launches"].findings]
    assert any(t.startswith("1 of 7 launch calls has no GPU record") for t in titles)
