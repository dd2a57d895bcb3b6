"""Distinct events per (window, class) of the critical path (_critical_paths._distinct_events, the ``events``
column) against a set of (key, event) pairs built row by row: narrow spans (the bitmap), scattered events (the
hash fallback), keys without rows, and the −1 (no event) position."""

from __future__ import annotations

import numpy as np
import pytest

from gpulens.analyzers._critical_paths import CLASSES, _distinct_events


def _reference(key: np.ndarray, pos: np.ndarray, nkey: int) -> np.ndarray:
    pairs = set(zip(key.tolist(), pos.tolist()))
    out = np.zeros(nkey, dtype=np.int64)
    for k, _ in pairs:
        out[k] += 1
    return out


def test_hand_example():
    # window 0: class 0 events 4, 4, 5 → 2; class 3 event 4 → 1 (same row number, other class); window 1: class 0
    # events -1, 7, -1 → 2
    c = len(CLASSES)
    key = np.array([0, 0, 0, 3, c, c, c])
    pos = np.array([4, 4, 5, 4, -1, 7, -1])
    got = _distinct_events(key, pos, 2 * c)
    assert got[0] == 2 and got[3] == 1 and got[c] == 2
    assert got.sum() == 5


@pytest.mark.parametrize("scatter", [10, 10 ** 9])
def test_random_against_set_of_pairs(scatter):
    rng = np.random.default_rng(scatter % 1000)
    c = len(CLASSES)
    for trial in range(30):
        windows = int(rng.integers(1, 6))
        parts_k, parts_p = [], []
        for w in range(windows):
            n = int(rng.integers(0, 400))
            cls = rng.choice([0, 1, 3, 5], size=n)
            base = w * 1000
            # narrow spans: events of one step; scattered: positions anywhere in a huge table
            p = base + rng.integers(-1, 300, n) if scatter == 10 else rng.integers(-1, scatter, n)
            parts_k.append(w * c + cls)
            parts_p.append(p)
        key = np.concatenate(parts_k).astype(np.int64)
        pos = np.concatenate(parts_p).astype(np.int64)
        if not len(key):
            continue
        nkey = windows * c
        assert np.array_equal(_distinct_events(key, pos, nkey), _reference(key, pos, nkey))
