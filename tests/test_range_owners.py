"""_steps.range_owners (ranges probed at their starts and ends, leaves matched by a sorted search) against the plain
Python stack sweep of the ranges and leaves together (_optree._sweep_py, the reference the vectorised sweeps follow)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers import _steps
from gpulens.analyzers._nesting import thread_codes, visit_order
from gpulens.analyzers._optree import _sweep_py


def _reference(ranges: pd.DataFrame, leaves: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    host = pd.concat([ranges, leaves.assign(dur_ns=0)], ignore_index=True)
    is_range = np.r_[np.ones(len(ranges), bool), np.zeros(len(leaves), bool)]
    tcode = thread_codes(host)
    start = host["start_ns"].to_numpy(np.int64)
    end = start + host["dur_ns"].to_numpy(np.int64)
    order = visit_order(tcode, start, end - start, ~is_range)
    parent, depth = _sweep_py(tcode, start, end, is_range, order)
    n = len(ranges)
    return parent[:n], depth[:n], parent[n:]


def _case(seed: int, n_ranges: int, n_leaves: int, threads: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    # coarse times so that starts, ends and leaves tie often; durations incl. 0 and negative (malformed rows)
    rs = rng.integers(0, 60, n_ranges) * 10
    rd = rng.choice([-10, 0, 10, 20, 50, 100, 300], n_ranges)
    pid = pd.array(rng.integers(0, 2, n_ranges), dtype="Int64")
    pid[rng.random(n_ranges) < 0.2] = pd.NA  # a missing pid is a key of its own (as -1)
    ranges = pd.DataFrame({"rank": rng.integers(0, 2, n_ranges), "pid": pid,
                           "tid": pd.array(rng.integers(0, threads, n_ranges), dtype="Int64"),
                           "start_ns": rs, "dur_ns": rd})
    lpid = pd.array(rng.integers(0, 2, n_leaves), dtype="Int64")
    lpid[rng.random(n_leaves) < 0.2] = pd.NA
    leaves = pd.DataFrame({"rank": rng.integers(0, 3, n_leaves), "pid": lpid,  # rank 2: no range on its threads
                           "tid": pd.array(rng.integers(0, threads + 1, n_leaves), dtype="Int64"),
                           "start_ns": rng.integers(-5, 700, n_leaves) // 5 * 5})
    return ranges, leaves


@pytest.mark.parametrize("seed", range(12))
def test_probed_owners_match_the_stack_sweep(seed):
    ranges, leaves = _case(seed, n_ranges=6 + seed, n_leaves=2000, threads=2)
    assert len(leaves) >= _steps.PROBE_MIN_RATIO * 2 * len(ranges)  # the probe path is the one taken
    got = _steps.range_owners(ranges, leaves)
    want = _reference(ranges, leaves)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert (got[2] >= 0).any() and (got[2] < 0).any()  # owned and unowned leaves both checked


def test_many_threads_or_few_leaves_sweep_every_leaf():
    for n_ranges, n_leaves, threads in ((40, 100, 2), (300, 5000, 100)):
        ranges, leaves = _case(99, n_ranges, n_leaves, threads)
        got = _steps.range_owners(ranges, leaves)
        for g, w in zip(got, _reference(ranges, leaves)):
            np.testing.assert_array_equal(g, w)


def test_nested_steps_by_hand():
    # thread (0, 1, 1): A [0, 100) holds B [10, 50); a leaf at B's end (50) is A's, one at A's end (100) nobody's
    ranges = pd.DataFrame({"rank": [0, 0], "pid": [1, 1], "tid": [1, 1], "start_ns": [0, 10], "dur_ns": [100, 40]})
    leaves = pd.DataFrame({"rank": [0] * 6 + [1], "pid": [1] * 7, "tid": [1] * 7,
                           "start_ns": [-1, 0, 10, 49, 50, 100, 20]}).loc[np.repeat(np.arange(7), 6)]
    assert len(leaves) >= _steps.PROBE_MIN_RATIO * 2 * len(ranges)  # the probe path
    parent, depth, owner = _steps.range_owners(ranges, leaves.reset_index(drop=True))
    assert parent.tolist() == [-1, 0] and depth.tolist() == [0, 1]
    assert owner.tolist() == np.repeat([-1, 0, 1, 1, 0, -1, -1], 6).tolist()
