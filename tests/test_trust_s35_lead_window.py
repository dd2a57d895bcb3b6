"""A ``--window`` that ends between a launch call and its kernel cuts that kernel off: the launch accounting must
say the selection left that work out, not that the capture lost it (the H200 GPT-2 trace with ``--window 0:50ms``
read "73 of the 803 launch calls have no GPU record (the capture lost or cut off their work)"). A launch whose
kernel the trace never recorded is still lost, window or not."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.collectors import collect
from gpulens.report import analyze_timeline
from gpulens.timeline.selection import Selection


def _trace(path: Path) -> Path:
    """Six cudaLaunchKernel calls 20 µs apart from 1000 µs (5 µs each); kernel i starts 40 µs after its call
    (1040 + 20 i µs, 10 µs long); the kernel of call 1 is missing from the trace (lost)."""
    ev = []
    for i in range(6):
        corr = 100 + i
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": 1000.0 + 20 * i, "dur": 5.0, "args": {"correlation": corr}})
        if i != 1:
            ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1040.0 + 20 * i,
                       "dur": 10.0, "args": {"device": 0, "stream": 7, "correlation": corr,
                                             "grid": [64, 1, 1], "block": [256, 1, 1]}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                                "traceEvents": ev}))
    return path


def _launches(tl):
    return analyze_timeline(tl, only=["launches"]).results["launches"].summary


def test_window_cut_is_not_lost_work(tmp_path):
    p = _trace(tmp_path / "t.json")
    # window 0:100 µs from the earliest event (1000 µs): calls 0–4 start inside it (1000…1080 µs); kernels of
    # calls 0 and 2 start at 1040 and 1080 µs (inside), those of calls 3 and 4 at 1100 and 1120 µs (outside: cut),
    # call 5 (1100 µs) and its kernel are outside; call 1's kernel was never recorded
    sel = Selection.parse(window="0:100us")
    full = collect(p)
    for tl in (collect(p, select=sel), sel.apply(full)):  # the collector's path and the built-Timeline path
        s = _launches(tl)
        assert s["launch_calls"] == 5
        assert s["launch_calls_work_outside_selection"] == 2
        assert s["launch_calls_lost"] == 1
    s = _launches(full)
    assert s["launch_calls"] == 6 and s["launch_calls_lost"] == 1
    assert s["launch_calls_work_outside_selection"] == 0


def test_window_keeping_everything_cuts_nothing(tmp_path):
    p = _trace(tmp_path / "t.json")
    s = _launches(collect(p, select=Selection.parse(window="0:1s")))
    assert s["launch_calls"] == 6 and s["launch_calls_lost"] == 1
    assert s["launch_calls_work_outside_selection"] == 0


def _steps_trace(path: Path, steps: list[int]) -> Path:
    """One 1 ms ProfilerStep#N range per N, each with a launch and its 100 µs kernel."""
    ev = []
    for i, n in enumerate(steps):
        t0 = 1000.0 + 1000 * i
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1, "ts": t0,
                   "dur": 1000.0})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t0 + 10,
                   "dur": 5.0, "args": {"correlation": 10 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t0 + 20, "dur": 100.0,
                   "args": {"device": 0, "stream": 7, "correlation": 10 + i, "grid": [64, 1, 1],
                            "block": [256, 1, 1]}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                                "traceEvents": ev}))
    return path


def test_steps_range_past_the_trace_says_which_steps_are_missing(tmp_path):
    from gpulens.report import analyze

    p = _steps_trace(tmp_path / "s.json", [2, 3, 4])
    # --steps 3:5 on steps 2–4: steps 3 and 4 analysed, 5 is not in the trace
    src = analyze(p, select=Selection.parse(steps="3:5")).sources[0]
    notes = [w for w in src.timeline.meta.warnings if "--steps 3:5" in w]
    assert notes == [f"{p}: --steps 3:5: 1 step of that range is not in the trace (5); the figures cover 2 steps "
                     "(3, 4)"]
    src = analyze(p, select=Selection.parse(steps="2:4")).sources[0]
    assert not [w for w in src.timeline.meta.warnings if "not in the trace" in w]
