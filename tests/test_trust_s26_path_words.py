"""The critical-path finding names what its windows are: "of the step time" for whole steps, "of the traced time"
without steps, and — when a ``--window`` cut steps at its end (the Steps table's ``clipped``) — the time the
selection keeps of the steps, saying how many were cut (multirank ``--window 0:700ms``: step 552 of each rank kept
for 92.6 ms / 92.0 ms of its 622.9 ms / 630.6 ms, yet "CPU ops hold 52 % of the step time").

Hand-made trace (µs in the events).
"""

from __future__ import annotations

import json

from gpulens.analyzers import run_all
from gpulens.collectors import collect
from gpulens.timeline.selection import Selection


def _trace(tmp_path):
    ev = []
    for n, t0 in ((1, 1000), (2, 1100)):  # two 100 µs steps, each launching one 30 µs kernel
        ev += [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1, "ts": t0,
                "dur": 100},
               {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": t0 + 5, "dur": 20,
                "args": {"External id": n}},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t0 + 10,
                "dur": 5, "args": {"correlation": n, "External id": n}},
               {"ph": "X", "cat": "kernel", "name": "mul_kernel", "pid": 0, "tid": 7, "ts": t0 + 20, "dur": 30,
                "args": {"device": 0, "stream": 7, "correlation": n}}]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def _title(p, select=None):
    r = run_all(collect(p, select=select))["critical_path"]
    return r.findings[0].title, r.table


def test_whole_steps_are_step_time(tmp_path):
    title, _ = _title(_trace(tmp_path))
    # s33: the rows give each step's own share; s38: with the class's time and the path it is of (2 × 100 µs steps)
    assert "of the step time (" in title and " of 200.00 µs, summed over 2 steps" in title


def test_steps_cut_by_the_window_say_so(tmp_path):
    # window 0–150 µs from the first event (1000 µs): step 1 (1000–1100) whole, step 2 (1100–1200) cut at 1150
    title, t = _title(_trace(tmp_path), Selection.parse(None, "0:150us", None))
    assert sorted(set(zip(t["step"], t["step_ns"]))) == [(1, 100_000), (2, 50_000)]
    assert "step time" not in title
    assert title.endswith("of the time the selection keeps of the steps, 1 of 2 cut at the --window end"), title
