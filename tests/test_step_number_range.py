"""A ``ProfilerStep#N`` whose N does not fit int64 (the fuzzer's ``ProfilerStep#99999999999999999999``) made the
steps analyzer raise OverflowError (an internal error for the whole command). A step number is at most 18 digits
(every such number is an int64) in every reader — the steps analyzer, the step attribution, the idle findings'
``--steps`` hint and ``--steps A:B`` selection: a longer one is an ordinary annotation name, and the rest of the
trace is analysed.
"""

from __future__ import annotations

import json

import pytest

from gpulens.analyzers.steps import step_numbers
from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.timeline.selection import STEP_NAME


def _trace(tmp_path, step_names):
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1000 + 300 * i,
           "dur": 5, "args": {"correlation": i + 1}} for i in range(len(step_names))]
    ev += [{"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 1010 + 300 * i, "dur": 20,
            "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(len(step_names))]
    ev += [{"ph": "X", "cat": "user_annotation", "name": n, "pid": 100, "tid": 100, "ts": 990 + 300 * i, "dur": 200}
           for i, n in enumerate(step_names)]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_step_name_is_an_int64_number():
    assert STEP_NAME.match("ProfilerStep#" + "9" * 18).group(1) == "9" * 18  # 999…9 (18 digits) < 2^63 − 1
    assert int("9" * 18) < 2 ** 63 - 1
    assert STEP_NAME.match("ProfilerStep#" + "9" * 19) is None  # may exceed int64 (2^63 − 1 has 19 digits)
    assert STEP_NAME.match("ProfilerStep#12 ") is None and STEP_NAME.match("xProfilerStep#12") is None


def test_overlong_step_number_is_no_step(tmp_path, capsys):
    big = "ProfilerStep#99999999999999999999"  # 20 digits: 1e20 − 1 > 2^63 − 1
    p = _trace(tmp_path, [big, "ProfilerStep#7", "ProfilerStep#123456789012345678"])
    assert step_numbers(collect(p)) == [7, 123456789012345678]
    js = tmp_path / "r.json"
    assert main(["analyze", str(p), "--json", str(js), "-q"]) in (0, 1)
    assert "internal error" not in capsys.readouterr().err
    steps = json.loads(js.read_text())["sources"][0]["analyses"]["steps"]
    assert sorted(r["step"] for r in steps["table"]) == [7, 123456789012345678]


@pytest.mark.parametrize("names", [["ProfilerStep#99999999999999999999"] * 3])
def test_only_overlong_steps_analyse_as_a_trace_without_steps(tmp_path, names):
    js = tmp_path / "r.json"
    assert main(["analyze", str(_trace(tmp_path, names)), "--json", str(js), "-q"]) in (0, 1)
    doc = json.loads(js.read_text())["sources"][0]["analyses"]
    assert not doc["steps"].get("table")
    assert doc["hotspots"]["table"][0]["calls"] == 3


@pytest.mark.parametrize("numbers, listed", [
    ([1, 60_000_000], "1, 60000000"),  # a gap of 6e7: the hint listed range(1, 6e7 + 1) — 21 s, 2.5 GB
    ([1, 9_000_000_000_000_000], "1, 9000000000000000"),  # a gap of 9e15: MemoryError
    ([3, 4, 5], "3–5"),  # contiguous: a range
])
def test_empty_selection_hint_is_immediate_whatever_the_step_gap(tmp_path, numbers, listed):
    import time

    from gpulens.report import selection_hint

    p = _trace(tmp_path, [f"ProfilerStep#{n}" for n in numbers])
    t = time.monotonic()
    hint = selection_hint(str(p))
    assert time.monotonic() - t < 10
    if len(numbers) > 2:  # contiguous: every step but the last (the profiler's stop often cuts it)
        assert hint == (f"the trace records steps {listed}: try --steps {numbers[0]}:{numbers[-2]} (all but the "
                        "last, which the profiler's stop often cuts)")
    else:  # two steps far apart: the one before the last
        pick = numbers[-2]
        assert hint == (f"the trace records steps {listed}: try --steps {pick}:{pick} (the step before the last, "
                        "which the profiler's stop often cuts)")
