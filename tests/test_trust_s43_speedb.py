"""Speed work on the analyzers (issue 16), s43speedb: category codes read as a view of the column's own codes
(``context.codes_of``), the ProfilerStep selection memoised on the analysis context (``_steps.step_ranges``) and
read by the steps analyzer. Expected values come from the categories written in the test or from the trace the
test writes (KTrace: times in µs, the Timeline in ns).
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers import run_all
from gpulens.analyzers._steps import step_ranges
from gpulens.analyzers.context import codes_of, context_of
from gpulens.collectors import collect

from .dig_traces import KTrace


def test_codes_of_by_hand():
    s = pd.Series(pd.Categorical(["b", None, "a", "c", "b"], categories=["a", "b", "c"]))
    codes = codes_of(s)
    # a = 0, b = 1, c = 2, missing = −1, in row order; the dtype pandas picks for three categories
    assert codes.tolist() == [1, -1, 0, 2, 1]
    assert codes.dtype == np.int8
    with pytest.raises(ValueError):  # a view of the column's codes: never written through
        codes[0] = 2
    assert s.tolist()[0] == "b"


def test_codes_of_many_categories_widens():
    # 300 categories do not fit int8: int16 codes, the last category 299
    cats = [f"k{i:03d}" for i in range(300)]
    s = pd.Series(pd.Categorical(["k299", "k000", "k150"], categories=cats))
    codes = codes_of(s)
    assert codes.dtype == np.int16
    assert codes.tolist() == [299, 0, 150]


@pytest.fixture(scope="module")
def stepped(tmp_path_factory):
    """Host steps ProfilerStep#3 (100–300 µs) and #4 (300–550 µs), a GPU-side ProfilerStep#3 range (200–260 µs on
    stream 7), a legacy operator step ProfilerStep#7 (600–650 µs), and ranges named almost like a step
    (``ProfilerStep#x``, ``MyProfilerStep#5``); two ops and a kernel inside step 3."""
    k = KTrace()
    k.annotation("ProfilerStep#3", 100, 200)
    k.annotation("ProfilerStep#4", 300, 250)
    k.annotation("ProfilerStep#3", 200, 60, gpu=True)
    k.annotation("ProfilerStep#x", 120, 10)
    k.annotation("MyProfilerStep#5", 130, 10)
    e = k.op("aten::mm", 150, 40)
    k.launch(e, 160, [("gemm_kernel", 210, 30)])
    k.op("aten::add", 200, 20)
    k.op("ProfilerStep#7", 600, 50)
    return collect(k.write(tmp_path_factory.mktemp("s43speedb") / "steps.json"))


def test_step_ranges_are_memoised_with_their_numbers(stepped):
    sr = step_ranges(stepped)
    assert step_ranges(stepped) is sr  # one selection per analysis context
    rows = sorted(zip(sr["step"].tolist(), sr["start_ns"].tolist(), sr["dur_ns"].tolist(),
                      (sr["device_id"] >= 0).tolist()))
    # from the trace: µs × 1000; the near-miss names are no steps
    assert rows == [(3, 100_000, 200_000, False), (3, 200_000, 60_000, True), (4, 300_000, 250_000, False),
                    (7, 600_000, 50_000, False)]


def test_steps_analyzer_reads_the_host_steps(stepped):
    res = run_all(stepped, None, only=["steps"])["steps"]
    t = res.table
    # the host-side ranges only (the GPU-side #3 is the same step seen on the device), by rank then start
    assert t["step"].tolist() == [3, 4, 7]
    assert t["start_ns"].tolist() == [100_000, 300_000, 600_000]
    assert t["dur_ns"].tolist() == [200_000, 250_000, 50_000]
    # cpu_ops starting inside each step's range: aten::mm (150) and aten::add (200) in #3; none in #4; the legacy
    # step operator itself in #7
    assert t["cpu_ops"].tolist() == [2, 0, 1]
    assert res.summary["steps"] == [3, 4, 7]
    assert res.summary["median_step_ns"] == 200_000
    # a second analysis of the same Timeline (a fresh context) gives the same table
    again = run_all(stepped, None, only=["steps"])["steps"].table
    pd.testing.assert_frame_equal(t, again)


def test_step_ranges_follow_a_new_events_table(stepped):
    # the memo lives on the analysis context, which is dropped when the events table is replaced: a Timeline
    # without the ProfilerStep#4 range has steps 3 (host and GPU side) and 7 only
    step_ranges(stepped)  # memoised on the original table first
    ev = stepped.events
    other = copy.copy(stepped)
    other.events = ev[(ev["name"].astype(str) != "ProfilerStep#4").to_numpy()].reset_index(drop=True)
    assert context_of(other) is not context_of(stepped)
    assert sorted(step_ranges(other)["step"].tolist()) == [3, 3, 7]
    assert sorted(step_ranges(stepped)["step"].tolist()) == [3, 3, 4, 7]
