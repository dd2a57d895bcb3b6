"""The boundary-gap rule (bottlenecks.boundary_gaps) against the rule as written in the module docstring, applied
gap by gap in plain Python: longest gap first (ties: earlier first), a gap is a boundary gap while it is at least
BOUNDARY_FACTOR × the median of the other gaps (at least 1 ns) and at least BOUNDARY_IDLE_SHARE of all idle time;
then (session 41: a share of all idle time hid a second one-off behind a warm-up gap) while the next is at least
that factor × the median of the gaps not left out, that share of the idle left, and that factor × the gap after
it (it stands alone); the first gap that fails ends the search. Random devices with ties,
outliers, zero gaps and too few gaps."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from gpulens.analyzers.bottlenecks import BOUNDARY_FACTOR, BOUNDARY_IDLE_SHARE, BOUNDARY_MIN_GAPS, boundary_gaps


def _rule(dur: list[int]) -> list[bool]:
    out = [False] * len(dur)
    total = sum(dur)
    if len(dur) < BOUNDARY_MIN_GAPS or total <= 0:
        return out
    order = sorted(range(len(dur)), key=lambda j: (-dur[j], j))
    k = 0
    for k, i in enumerate(order):  # first pass: shares of all idle
        others = dur[:i] + dur[i + 1:]
        if dur[i] >= BOUNDARY_FACTOR * max(statistics.median(others), 1.0) and dur[i] >= BOUNDARY_IDLE_SHARE * total:
            out[i] = True
        else:
            break
    else:
        return out
    if not any(out):
        return out
    left = total - sum(d for d, o in zip(dur, out) if o)
    for n in range(k, len(order) - 1):  # later passes: shares of what is left, each alone (10 × the next)
        i = order[n]
        others = [d for j, d in enumerate(dur) if j != i and not out[j]]
        if others and dur[i] >= BOUNDARY_FACTOR * max(statistics.median(others), 1.0) and \
                dur[i] >= BOUNDARY_IDLE_SHARE * left and dur[i] >= BOUNDARY_FACTOR * dur[order[n + 1]]:
            out[i] = True
            left -= dur[i]
        else:
            break
    return out


def test_hand_example():
    # ten 100 ns gaps and one of 10 µs: 10,000 ≥ 10 × 100 and ≥ 25 % of 11,000 → the long one only
    dur = [100] * 5 + [10_000] + [100] * 5
    assert boundary_gaps(np.array(dur)).tolist() == [False] * 5 + [True] + [False] * 5


@pytest.mark.parametrize("seed", range(6))
def test_random_devices_against_the_rule(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n = int(rng.integers(0, 40))
        dur = rng.integers(0, 50, n)
        for _ in range(int(rng.integers(0, 4))):  # outliers, sometimes equal to each other (ties)
            if n:
                dur[int(rng.integers(0, n))] = int(rng.choice([5_000, 5_000, 20_000, 400]))
        assert boundary_gaps(dur).tolist() == _rule(dur.tolist())
