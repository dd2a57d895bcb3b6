"""When set-up runtime calls (allocation, stream creation) fill the time the GPU waits for the host, the idle
finding's next step is the one-off set-up advice the critical path gives, not "move data loading off the host
thread" (HTA's AlexNet A100 trace: cudaMalloc 1.94 s and cudaStreamCreateWithFlags 735 ms in 2.82 s of host wait).
Expected wording follows from the trace built here: 900 µs of each ~990 µs gap is one call."""

from __future__ import annotations

import json

import pytest

from gpulens.report import analyze

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _trace(path, filler: str):
    ev = []
    for c in range(1, 31):  # 30 kernels of 10 µs every 1,000 µs, each launched right after a 900 µs host call
        t = T + 1000 * c
        cat = "cuda_runtime" if filler.startswith("cuda") else "cpu_op"
        ev.append({"ph": "X", "cat": cat, "name": filler, "pid": 1, "tid": 1, "ts": t - 950, "dur": 900,
                   "args": {"correlation": 1000 + c} if cat == "cuda_runtime" else {}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t - 5,
                   "dur": 4, "args": {"correlation": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": 10,
                   "args": {"correlation": c, "device": 0, "stream": 7}})
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


@pytest.mark.parametrize("filler,setup", [("cudaMalloc", True), ("cudaStreamCreateWithFlags", True),
                                          ("aten::to", False)])
def test_idle_filled_by_setup_calls_gets_the_setup_step(tmp_path, filler, setup):
    fs = [f for f in analyze([_trace(tmp_path / "t.json", filler)], cache=False).sources[0].findings()
          if f.key == "idle"]
    assert len(fs) == 1 and "waiting for the host" in fs[0].action
    assert ("set-up calls fill most of it" in fs[0].action) is setup
    assert ("data loading" in fs[0].action) is not setup
