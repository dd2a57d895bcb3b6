"""Summed time per (kernel, launch configuration) of the occupancy analyzer (occupancy._config_time) against the
pandas groupby it replaces: integer and float times, missing (NaN) configuration values, ties and one launch."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers.occupancy import _config_time


def _groupby(g, b, r, m, t):
    f = pd.DataFrame({"g": g, "b": b, "r": r, "m": m, "t": t})
    return f.groupby(["g", "b", "r", "m"], sort=True)["t"].sum().reset_index()


def test_hand_example():
    # kernel 0: config (256, 32, 0) for 5 + 7 ns, (128, 32, 0) for 4 ns; kernel 1: (64, 16, 1024) for 9 ns
    g = np.array([0, 0, 1, 0])
    b, r, m = np.array([256, 128, 64, 256]), np.array([32, 32, 16, 32]), np.array([0, 0, 1024, 0])
    t = np.array([5.0, 4.0, 9.0, 7.0])
    got = _config_time(g, b, r, m, t)
    assert got.values.tolist() == [[0, 128, 32, 0, 4.0], [0, 256, 32, 0, 12.0], [1, 64, 16, 1024, 9.0]]


@pytest.mark.parametrize("kind", ["int", "whole_float", "fraction", "nan_config"])
def test_random_against_groupby(kind):
    rng = np.random.default_rng(len(kind))
    for n in (1, 7, 500, 20_000):
        g = rng.integers(0, 30, n)
        b = rng.choice([64, 128, 256, 1024], n)
        r = rng.integers(16, 40, n)
        m = rng.choice([0, 4096, 49152], n)
        t = rng.integers(1, 10 ** 6, n)
        if kind != "int":
            t = t.astype(float)
        if kind == "fraction":
            t = t / 3.0
        if kind == "nan_config":
            b = b.astype(float)
            b[::11] = np.nan
        pd.testing.assert_frame_equal(_config_time(g, b, r, m, t), _groupby(g, b, r, m, t), check_dtype=True)


def test_config_key_numbers_distinct_rows_by_first_appearance():
    # the folded key against the definition written out here: a factorisation of the running key after each column
    # (NaN equal to NaN), on integer, bool and float columns with NaN
    from gpulens.analyzers.occupancy import _config_key

    rng = np.random.default_rng(21)
    n = 5_000
    cols = [rng.integers(0, 3, n), rng.integers(-1, 1024, n), rng.random(n) < 0.5,
            np.where(rng.random(n) < 0.3, np.nan, rng.integers(0, 4, n).astype(float))]
    want = np.zeros(n, dtype=np.int64)
    for c in cols:
        code, uniq = pd.factorize(c, use_na_sentinel=False)
        want, _ = pd.factorize(want * max(len(uniq), 1) + code)
    assert np.array_equal(_config_key(cols, n), want)
    # hand example: rows (1, 2.0), (0, nan), (1, 2.0), (0, nan), (0, 1.0) → configurations 0, 1, 0, 1, 2
    hand = [np.array([1, 0, 1, 0, 0]), np.array([2.0, np.nan, 2.0, np.nan, 1.0])]
    assert _config_key(hand, 5).tolist() == [0, 1, 0, 1, 2]
