"""A ``ProfilerStep#N`` range is the whole process's iteration: the kernels the autograd engine launches from its own
thread during the step are the step's (as the Steps table counts them), where a user range keeps only its own
thread's launches (HTA's rule). Expected values are written by hand from the trace built here."""

from __future__ import annotations

import json

from gpulens.report import analyze

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _launch(ev, tid, ts, corr, kdur):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": tid, "ts": ts,
               "dur": 5, "args": {"correlation": corr}})
    ev.append({"ph": "X", "cat": "kernel", "name": f"k{corr}", "pid": 0, "tid": 7, "ts": ts + 10, "dur": kdur,
               "args": {"correlation": corr, "device": 0, "stream": 7}})


def test_a_step_owns_the_launches_of_the_rank_s_other_threads(tmp_path):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": T, "dur": 1000},
          {"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 1, "tid": 1, "ts": T + 10, "dur": 390}]
    _launch(ev, 1, T + 100, 1, 20)   # main thread, inside forward: kernel of 20 µs
    _launch(ev, 2, T + 500, 2, 30)   # autograd thread, during the step: 30 µs
    _launch(ev, 2, T + 1500, 3, 40)  # autograd thread, after the step: no step owns it
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    t = analyze([p], cache=False).sources[0].results["annotations"].table.set_index("path")
    # by hand: the step holds the 20 µs and 30 µs kernels; forward (a user range on thread 1) only the 20 µs one
    assert (t.loc["ProfilerStep#1", "gpu_time_ns"], t.loc["ProfilerStep#1", "gpu_events"]) == (50_000, 2)
    assert (t.loc["ProfilerStep#1 / forward", "gpu_time_ns"], t.loc["ProfilerStep#1 / forward", "gpu_events"]) \
        == (20_000, 1)
