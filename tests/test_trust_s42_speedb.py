"""Speed work on the analyzers (issue 16), s42speedb: the occupancy analyzer's time-weighted means sum their
weights (durations in ns) as integers instead of ``math.fsum``; the idle-gap classification looks each launch call
up once (``_gap_classes._launch_times``); the stream timeline's name tie keys are read per GPU and host row without
a position array. Each test checks the value against an independent source: the standard library's ``math.fsum``,
a hand calculation written in the test, or the trace written by the test (KTrace: times in µs).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers._gap_classes import _launch_times
from gpulens.analyzers._hot import exact_sum, weighted_mean
from gpulens.analyzers.context import context_of
from gpulens.analyzers.stream_timeline import _Lanes
from gpulens.collectors import collect

from .dig_traces import KTrace


def test_exact_sum_rounds_the_exact_sum_half_to_even():
    # 2^53 + 4,095 ones: the exact sum 2^53 + 4095 is odd, above 2^53 floats are 2 apart, so it lies halfway between
    # 2^53 + 4094 (mantissa ...2047: odd) and 2^53 + 4096 (...2048: even) — round half to even gives 2^53 + 4096
    x = np.array([2.0 ** 53] + [1.0] * 4095)
    assert exact_sum(x) == 2.0 ** 53 + 4096 == math.fsum(x)
    # whole numbers well past 2^53 in total: the same float as math.fsum
    rng = np.random.default_rng(42)
    for hi in (10, 2 ** 30, 2 ** 40, 2 ** 44):
        y = rng.integers(-hi, hi, 50_000).astype(float)
        assert exact_sum(y) == math.fsum(y)
    # fractions, huge values (the int64 sum could overflow) and short arrays: math.fsum itself
    for z in (np.full(5000, 0.1), np.array([1e300] * 5000 + [-1e300] * 5000 + [3.0]), np.array([0.5, 0.25])):
        assert exact_sum(z) == math.fsum(z)


def test_weighted_mean_by_hand():
    # 3,000 launches at 25 % for 1,000 ns and 2,000 at 100 % for 3,000 ns:
    # (3000·25·1000 + 2000·100·3000) / (3000·1000 + 2000·3000) = 675e6 / 9e6 = 75 %; 100 launches without a value
    # (NaN) weigh nothing, however long
    v = np.r_[np.full(3000, 25.0), np.full(2000, 100.0), np.full(100, np.nan)]
    w = np.r_[np.full(3000, 1000.0), np.full(2000, 3000.0), np.full(100, 1e6)]
    assert weighted_mean(pd.Series(v), pd.Series(w)) == 75.0
    assert weighted_mean(pd.Series(np.full(3, np.nan)), pd.Series(np.ones(3))) is None


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A trace with two launches: cudaLaunchKernel at 110.5 µs for 4.25 µs enqueuing ``b_kernel`` (200–210 µs),
    and at 300 µs for 4 µs enqueuing ``a_kernel`` (400–405 µs), each under its cpu_op (``zeta_op``, ``alpha_op``)."""
    k = KTrace()
    e1 = k.op("zeta_op", 100, 50)
    k.launch(e1, 110.5, [("b_kernel", 200, 10)], dur=4.25)
    e2 = k.op("alpha_op", 290, 50)
    k.launch(e2, 300, [("a_kernel", 400, 5)])
    return collect(k.write(tmp_path_factory.mktemp("s42speedb") / "t.json"))


def test_launch_times_read_from_the_trace(small):
    ev = small.events
    calls = ev[(ev["kind"] == "runtime").to_numpy()].sort_values("start_ns")
    first, second = (int(x) for x in calls["event_id"])
    t0 = int(calls["start_ns"].iloc[0]) - 110_500  # the Timeline's time base: the first call was written at 110.5 µs
    absent = int(ev["event_id"].max()) + 1000
    start, end, known = _launch_times(context_of(small), np.array([first, -1, second, absent], dtype=np.int64))
    # the calls' start and end in ns from the trace, exactly (int64: session 50, float64 steps by 256 ns at the
    # epoch): 110.5 µs + 4.25 µs, 300 µs + 4 µs; unknown: 0, and not known
    assert start.tolist() == [t0 + 110_500, 0, t0 + 300_000, 0] and start.dtype == np.int64
    assert end.tolist() == [t0 + 114_750, 0, t0 + 304_000, 0] and end.dtype == np.int64
    assert known.tolist() == [True, False, True, False]


def test_stream_lane_name_rank_is_text_order(small):
    lanes = _Lanes(small)
    names = small.events["name"]
    got = lanes.name_rank(small)
    # every lane row's event name, GPU rows first then host rows (rows of timeline.events), ranked in text order
    # among all the Timeline's names
    rows = np.r_[lanes.gpos, lanes.hpos]
    texts = [str(n) for n in names.to_numpy(dtype=object)[rows]]
    order = sorted(set(str(c) for c in names.cat.categories))
    assert got.tolist() == [order.index(t) for t in texts]
    # the two kernels: a_kernel sorts before b_kernel whatever their order in the file
    gpu_texts = texts[:lanes.ng]
    assert got[gpu_texts.index("a_kernel")] < got[gpu_texts.index("b_kernel")]
