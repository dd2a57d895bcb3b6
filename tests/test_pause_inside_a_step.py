"""A long pause inside a ``ProfilerStep`` range (a training step's forward→backward hand-over) is the iteration's
own time: it counts in the verdict as idle waiting for the host. Only a pause outside the profiled steps can be a
one-off stall left out of the verdict. Expected values are written by hand from the trace built here."""

from __future__ import annotations

import json

from gpulens.analyzers.bottlenecks import classify_gaps
from gpulens.collectors import collect
from tests.dig_traces import interval_union
from tests.test_window_suggestion_origin import launched_kernels

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _trace(path, steps: bool):
    # 20 kernels of 10 µs every 20 µs from T + 10, an 800 µs pause, 20 more from T + 1,200, then 40 more from
    # T + 1,610 (the second step); each launched by a 4 µs call 5 µs before it starts
    starts = ([T + 10 + 20 * i for i in range(20)] + [T + 1200 + 20 * i for i in range(20)]
              + [T + 1610 + 20 * i for i in range(40)])
    ev = []
    if steps:
        ev += [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": T,
                "dur": 1600},
               {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": T + 1600,
                "dur": 820}]
    ev += launched_kernels(starts)
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def _pause_class(path) -> str:
    g = classify_gaps(collect(path))
    pause = g[g["dur_ns"] == 800_000]  # T + 400 µs (end of the 20th kernel, started at T + 390) → T + 1,200 µs
    assert len(pause) == 1
    return str(pause["cls"].iloc[0])


def test_a_pause_inside_a_step_is_counted_and_one_outside_the_steps_is_a_one_off(tmp_path):
    # inside ProfilerStep#1: the host launched the next kernel only at T + 1,195 µs — waiting for the host
    assert _pause_class(_trace(tmp_path / "steps.json", steps=True)) == "host"
    # the same run without step marks: the only outlier between kernels, a one-off left out of the verdict
    assert _pause_class(_trace(tmp_path / "nosteps.json", steps=False)) == "boundary"


def test_aorta_pause_inside_its_first_step_is_counted():
    from decimal import Decimal
    from pathlib import Path

    import pytest

    from gpulens.report import analyze

    path = Path("/work/shared/traces/kineto/aorta_mi350x_train_step.pt.trace.json")
    if not path.exists():
        pytest.skip("shared trace not available")
    ev = json.loads(path.read_text(), parse_float=Decimal)["traceEvents"]
    iv = sorted((round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in ev
                if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    seg = interval_union(iv)
    gaps = [(a[1], b[0]) for a, b in zip(seg, seg[1:])]
    big = max(gaps, key=lambda g: g[1] - g[0])
    steps = [(round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in ev
             if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    assert any(s <= big[0] and big[1] <= e for s, e in steps)  # the trace: the longest pause is inside a step
    idle = sum(b - a for a, b in gaps)
    root = next(f for f in analyze([path]).sources[0].findings() if f.key == "idle")
    assert root.time_at_stake_ns == idle  # every gap counted: 495.08 µs, none left out as a one-off
