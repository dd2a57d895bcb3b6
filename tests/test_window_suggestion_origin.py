"""The ``--window`` options a boundary-gap finding suggests count from the same origin ``--window`` reads (the
profiled window's start: the first recorded event, the profiler's own session record excepted), so pasting them
selects the two halves of the run. Expected offsets are written by hand from the trace built here."""

from __future__ import annotations

import json
import re

from gpulens.report import analyze
from gpulens.timeline.selection import Selection

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _trace(path, lead_us: int):
    # the session record opens lead_us before the first event; 20 kernels of 10 µs every 20 µs from T + 10 µs, a
    # 2.6 ms pause, then 20 more from T + 3,000 µs; each launched 5 µs before it starts
    ev = [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
           "ts": T - lead_us, "dur": lead_us + 20_000},
          {"ph": "X", "cat": "cpu_op", "name": "aten::warmup", "pid": 1, "tid": 1, "ts": T, "dur": 5}]
    starts = [T + 10 + 20 * i for i in range(20)] + [T + 3000 + 20 * i for i in range(20)]
    ev += launched_kernels(starts)
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def launched_kernels(starts: list[int], dur_us: int = 10) -> list[dict]:
    """Kineto events of one kernel ``k`` (``dur_us`` long, stream 7) at each of ``starts`` [µs], each launched by a
    4 µs cudaLaunchKernel call 5 µs before it starts, linked by correlation id 1, 2, …"""
    ev = []
    for c, ts in enumerate(starts, 1):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts - 5,
                   "dur": 4, "args": {"correlation": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts, "dur": dur_us,
                   "args": {"device": 0, "stream": 7, "correlation": c}})
    return ev


def test_suggested_windows_count_from_the_profiled_window_start(tmp_path):
    p = _trace(tmp_path / "t.json", lead_us=8000)
    fs = analyze([p], cache=False).sources[0].findings()
    text = " ".join(f"{f.title} {f.action or ''}" for f in fs if "--window" in (f.action or ""))
    # by hand: the first half ends at T + 10 + 19·20 + 10 = T + 400 µs, the second starts at T + 3,000 µs — from
    # aten::warmup at T, not from the session record 8,000 µs before it (":8400us" / "11000us:")
    assert "--window :400us before the gap" in text and "--window 3000us: after it" in text
    halves = re.findall(r"--window (\S+)", text)
    kernels = []
    for w in halves:
        k = analyze([p], cache=False, select=Selection.parse(window=w)).sources[0].summary["kernel_count"]
        kernels.append(k)
    assert kernels == [20, 20]  # pasted, each option selects one half, and no kernel is lost
