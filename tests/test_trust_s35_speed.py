"""Speed work of session 35 (issue 16): choices made for speed that must not change what is computed."""

from __future__ import annotations

import sys

import numpy as np
import pytest


def test_chain_loop_compiled_from_fewer_events_once_numba_is_loaded(monkeypatch):
    """Once numba's compiler is set up in the process (the Kineto scanner ran), the walk's inner loop runs compiled
    from :data:`JIT_WARM_MIN_EVENTS` GPU events (a cached function then loads in milliseconds); without it, only from
    :data:`JIT_MIN_EVENTS` (loading numba would cost more than the plain loop). Below both: the plain loop."""
    pytest.importorskip("numba")
    from gpulens.analyzers import _critical_chain as cc

    assert cc.JIT_WARM_MIN_EVENTS < cc.JIT_MIN_EVENTS
    monkeypatch.setattr(cc, "_compiled", None)
    # numba's entry point: the chain walk's library (session 40, tests/test_trust_s40_speed2.py) turned off
    monkeypatch.setenv(cc.LIB.env, "0")
    monkeypatch.setattr(cc, "_library", None)
    monkeypatch.setattr(cc, "_library_tried", False)
    monkeypatch.delitem(sys.modules, "numba.np.linalg", raising=False)
    assert not cc.numba_loaded()
    assert cc.follower(cc.JIT_WARM_MIN_EVENTS) is cc.follow  # numba not set up: 10k events stay in Python
    import numba.np.linalg  # noqa: F401  (what numba imports when it first compiles or loads a function)

    monkeypatch.setitem(sys.modules, "numba.np.linalg", sys.modules["numba.np.linalg"])
    assert cc.numba_loaded()
    if cc.follower(cc.JIT_MIN_EVENTS) is cc.follow:
        pytest.skip("numba did not compile the loop on this machine")
    assert cc.follower(cc.JIT_WARM_MIN_EVENTS - 1) is cc.follow
    fast = cc.follower(cc.JIT_WARM_MIN_EVENTS)
    assert fast is not cc.follow  # numba loaded: 10k events run compiled
    # a chain of 5 events, each waiting for the one before it (event i starts at 10 i + 5, resumes at 10 i)
    n = 5
    kind, target = np.zeros(n, np.int8), np.arange(-1, n - 1, dtype=np.int64)
    start, resume = np.arange(n, dtype=np.int64) * 10 + 5, np.arange(n, dtype=np.int64) * 10
    for fn in (cc.follow, fast):
        chain, ends = np.empty(n, np.int64), np.empty(n, np.int64)
        k, g, t, cycle = fn(4, 50, 0, kind, target, resume, start, np.zeros(n, np.int32), 1, chain, ends)
        # visits 4, 3, 2, 1, 0 (segment ends 50, then each event's resume time); after event 0 the time (its
        # resume time, 0) reaches lo = 0 and the walk stops
        assert (int(k), int(t), bool(cycle)) == (5, 0, False)
        assert chain[:5].tolist() == [4, 3, 2, 1, 0]
        assert ends[:5].tolist() == [50, 40, 30, 20, 10]


@pytest.mark.parametrize("size", [0, 1, 9, (1 << 18) - 1, 1 << 18, (1 << 18) + 1, 3 * (1 << 18) + 5])
def test_newline_count_across_its_compare_spans(size):
    """The stream's newline count (line numbers of error positions) compares 256 KiB at a time: the count over any
    length, with newlines on both sides of every span boundary, equals ``bytes.count`` (CPython's own count)."""
    from gpulens.collectors._stream import _COUNT_SPAN, _count_newlines, _newlines

    rng = np.random.default_rng(size)
    data = bytearray(rng.choice(np.frombuffer(b'ab\n{}" ', dtype=np.uint8), size).tobytes())
    for edge in range(_COUNT_SPAN, size, _COUNT_SPAN):  # a newline just before and at each span boundary
        data[edge - 1] = data[edge] = 10
    assert _count_newlines(memoryview(data)) == bytes(data).count(b"\n")
    k = size // 2
    assert _newlines(data, k) == bytes(data[:k]).count(b"\n")
