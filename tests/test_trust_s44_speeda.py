"""Session 44, analyzer speed (issue 16): the one-rank shortcut of the runaway rule
(:func:`gpulens.analyzers.intervals._runaway_cut`: plain min/max reductions instead of a factorisation of every GPU
and host row's rank and ``ufunc.at`` scatters) gives the cut the per-rank route gives. Expected values: a hand
calculation, and the per-rank route itself (forced by turning the shortcut off) on random one-rank inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import gpulens.analyzers.intervals as iv
from gpulens.analyzers.intervals import RUNAWAY_FACTOR, repair_stream_overruns


def _gpu(rank=0):
    """Rank ``rank``: kernels on stream 1 at 0–10 µs and 10–20 µs, one on stream 2 from 15 µs recorded as 1 s."""
    return pd.DataFrame({"rank": [rank] * 3, "device_id": [0, 0, 0], "stream_id": [1, 1, 2],
                         "start_ns": [0, 10_000, 15_000], "dur_ns": [10_000, 10_000, 1_000_000_000],
                         "kind": pd.Series(["kernel"] * 3, dtype="category")})


def _host(ranks, starts, durs):
    return {"rank": np.array(ranks, dtype=np.int64), "start_ns": np.array(starts, dtype=np.int64),
            "dur_ns": np.array(durs, dtype=np.int64)}


def test_host_rows_of_the_one_rank_bound_the_runaway_by_hand():
    # a host call of rank 0 from 5 µs to 30 µs: the rest of the run ends at 30 µs, first start 0; the stream-2 kernel
    # ends at 1 s + 15 µs, past 30 µs by more than RUNAWAY_FACTOR × 30 µs (30 ms): cut at 30 µs → 30 − 15 = 15 µs
    assert 1_000_015_000 - 30_000 > RUNAWAY_FACTOR * 30_000
    rep = repair_stream_overruns(_gpu(), _host([0], [5_000], [25_000]))
    assert rep["effective_ns"].tolist() == [10_000, 10_000, 15_000]
    assert rep["runaway"].tolist() == [False, False, True]
    # a host row starting before the GPU work moves the run's first start: 1 s before → the run so far is 1 s + 30
    # µs long, and 1 s − 15 µs past its end is less than 1000 × that: a measurement, kept whole
    rep = repair_stream_overruns(_gpu(), _host([0, 0], [-1_000_000_000, 5_000], [1_000, 25_000]))
    assert rep["effective_ns"].tolist() == [10_000, 10_000, 1_000_000_000]
    assert not rep["runaway"].any()


def test_host_rows_of_another_rank_bound_nothing_on_this_one():
    # rank 1's host call ending 2 s later is not rank 0's run: rank 0's kernel is still cut at its rest's 20 µs
    # (the per-rank route: two ranks between the GPU and host rows)
    rep = repair_stream_overruns(_gpu(), _host([1], [0], [2_000_000_000]))
    assert rep["effective_ns"].tolist() == [10_000, 10_000, 5_000]


def _random_gpu(rng, n, rank):
    streams = rng.integers(0, 4, n)
    start = np.sort(rng.integers(0, 100_000, n))
    dur = rng.integers(1, 5_000, n)
    # a few events recorded seconds long, among them the last event of one stream (a runaway when nothing after
    # it on its rank reaches as far: the rest of the run is 0.1 ms long)
    dur[rng.random(n) < 0.01] = rng.integers(10**9, 5 * 10**9)
    dur[np.flatnonzero(streams == streams[-1])[-1]] = int(rng.integers(10**9, 5 * 10**9))
    kinds = rng.choice(["kernel", "comm", "memcpy"], n, p=[0.8, 0.1, 0.1])
    return pd.DataFrame({"rank": np.full(n, rank, dtype=np.int64), "device_id": np.zeros(n, dtype=np.int64),
                         "stream_id": pd.array(streams, dtype="Int64"), "start_ns": start, "dur_ns": dur,
                         "kind": pd.Series(kinds, dtype="category"),
                         "name": pd.Series(rng.choice(["gemm", "add", "copy"], n), dtype="category")})


@pytest.mark.parametrize("seed", range(12))
def test_one_rank_shortcut_equals_the_per_rank_route(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(0, 5))
    gpu = _random_gpu(rng, int(rng.integers(1, 400)), rank)
    nh = int(rng.integers(0, 50)) if seed % 3 else 0  # some inputs without host rows
    host = _host(np.full(nh, rank), rng.integers(-10_000, 120_000, nh), rng.integers(-5, 50_000, nh))
    for h in (host, None):
        fast = repair_stream_overruns(gpu, h)
        with monkeypatch.context() as m:
            m.setattr(iv, "_one_value", lambda a, b: False)
            slow = repair_stream_overruns(gpu, h)
        pd.testing.assert_frame_equal(fast, slow)


def test_random_inputs_reach_the_rule():
    """The random inputs above do cut runaways (the equality is not only between two untouched frames)."""
    hits = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        rank = int(rng.integers(0, 5))
        gpu = _random_gpu(rng, int(rng.integers(1, 400)), rank)
        hits += int(repair_stream_overruns(gpu)["runaway"].sum())
    assert hits > 0


def test_one_value():
    one = np.array([3, 3, 3])
    assert iv._one_value(one, np.zeros(0, dtype=np.int64))
    assert iv._one_value(one, np.array([3]))
    assert not iv._one_value(one, np.array([3, 4]))
    assert not iv._one_value(np.array([3, 4]), np.zeros(0, dtype=np.int64))
    assert not iv._one_value(np.array([3.0, 3.0]), np.zeros(0, dtype=np.int64))  # not integers: the general route


# -- kernel outliers: the leave-one-out median per (kernel, grid) from each group's middle values --------------

def _loo_median_loop(groups, values):
    """Per row: the median of the other rows' values of its group (NaN alone or unknown), by a plain loop: the
    others sorted, the middle one or the mean of the middle two."""
    out = []
    for i, (g, v) in enumerate(zip(groups, values)):
        if v != v:
            out.append(float("nan"))
            continue
        others = sorted(x for j, (h, x) in enumerate(zip(groups, values)) if h == g and j != i and x == x)
        m = len(others)
        out.append(float("nan") if m == 0 else (others[(m - 1) // 2] + others[m // 2]) / 2)
    return np.array(out)


def test_leave_one_out_median_by_hand():
    from gpulens.analyzers.distributions import others_median

    # group a: 10, 30, 20, 30 → others of 10: 20 30 30 → 30; of 30 (either): 10 20 30 → 20; of 20: 10 30 30 → 30
    # group b: 5 alone → NaN; group c: 1, 3 → each the other
    df = pd.DataFrame({"k": ["a", "a", "a", "a", "b", "c", "c"], "dur_ns": [10, 30, 20, 30, 5, 1, 3]})
    got = others_median(df, ["k"])
    assert got[[0, 1, 2, 3, 5, 6]].tolist() == [30.0, 20.0, 30.0, 20.0, 3.0, 1.0]
    assert np.isnan(got[4])


@pytest.mark.parametrize("seed", range(24))
def test_selected_middle_values_equal_a_loop_and_the_sorted_route(seed, monkeypatch):
    import gpulens.analyzers.distributions as dist

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    groups = rng.integers(0, int(rng.integers(1, 12)), n)
    # few distinct values: ties at the middle of the groups, where the row's own place decides its median
    values = rng.integers(0, 6, n).astype(float) * rng.choice([1.0, 0.5, 1e9 + 0.25])
    values[rng.random(n) < 0.1] = np.nan
    df = pd.DataFrame({"g": groups, "dur_ns": values})
    fast = dist.others_median(df, ["g"])
    np.testing.assert_array_equal(fast, _loo_median_loop(groups.tolist(), values.tolist()))
    monkeypatch.setattr(dist, "SELECT_GROUPS", 0)  # the sorted route
    np.testing.assert_array_equal(dist.others_median(df, ["g"]), fast)


# -- exact sums (weighted means of occupancy, speed of light): fsum's float without fsum's per-value loop --------

def test_exact_sum_by_hand():
    from gpulens.analyzers._hot import exact_sum

    # 1e16 + 1 is not a double (the spacing there is 2): a left-to-right sum loses the 1, the exact sum keeps it
    x = np.r_[1e16, 1.0, -1e16, np.full(5000, 0.25)]
    assert float(np.add.reduce(x[:3])) == 0.0
    assert exact_sum(x) == 1.0 + 5000 * 0.25
    assert exact_sum(np.zeros(5000)) == 0.0


@pytest.mark.parametrize("seed", range(16))
def test_exact_sum_equals_math_fsum(seed):
    import math

    from gpulens.analyzers._hot import exact_sum

    rng = np.random.default_rng(seed)
    n = int(rng.integers(4096, 40_000))
    kind = seed % 4
    if kind == 0:  # occupancy % × durations [ns]: the weighted means' numerators
        x = rng.choice([12.5, 37.5, 100 / 3, 66.66666666666667], n) * rng.integers(1, 10**7, n)
    elif kind == 1:  # signs and magnitudes over hundreds of binades, sums that cancel
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-200, 200, n)
        x = np.r_[x, -x[: n // 2]]
    elif kind == 2:  # subnormals and tiny values beside ordinary ones
        x = np.r_[rng.standard_normal(n) * 5e-324 * rng.integers(1, 1000, n), rng.standard_normal(50)]
    else:  # halfway cases: many equal fractions whose exact sum needs rounding to even
        x = np.r_[np.full(n, 2.0 ** 52 + 1), np.full(n, 0.5), rng.random(n)]
    assert exact_sum(x) == math.fsum(x)
    assert math.copysign(1.0, exact_sum(x)) == math.copysign(1.0, math.fsum(x))
