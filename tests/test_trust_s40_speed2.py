"""The critical path's chain walk as a compiled library (``_critical_chain.LIB``, built by ``gpulens._native_build``).

The library is :func:`follow` compiled once by numba and linked by the C compiler; a process loads it with ctypes and
never imports numba. These tests hold it to the plain-Python walk on hand-built inputs (one whose path is worked out
by hand below), check that a new process walks without importing numba, that wrong arrays are refused before the
call, and that two processes building at once both end with a whole library (written under a temporary name and
renamed into place).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpulens.analyzers import _critical_chain as C

ROOT = Path(__file__).resolve().parents[1]
#: where the gpulens this test imports lives (site-packages after ``pip install .``, as in CI; src/ when editable):
#: a child process must load the same package, whose library the test built — src/'s would be built anew there
_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])


def _library():
    """The library's walk (``follow``'s signature), built when missing; skips where it cannot be built."""
    if not C.LIB.enabled():
        pytest.skip("the compiled library is not used on this platform")
    pytest.importorskip("numba")
    pytest.importorskip("llvmlite")
    from gpulens._native_build import compiler

    if C.LIB.find() is None and compiler() is None:
        pytest.skip("no C compiler to link the library")
    fn = C.LIB.load_or_build(C._ir)
    if fn is None:
        pytest.skip("the library could not be built here")
    return C._wrap(fn)


def _walk(f, g, t, lo, kind, target, resume, start, stamp, walk_id):
    """(result, stamps, chain, ends) of one walk by ``f`` on copies of the stamps, buffers filled with -7."""
    n = len(start)
    stamp = stamp.copy()
    chain, ends = np.full(n, -7, np.int64), np.full(n, -7, np.int64)
    r = f(g, t, lo, kind, target, resume, start, stamp, walk_id, chain, ends)
    return (int(r[0]), int(r[1]), int(r[2]), bool(r[3])), stamp, chain, ends


def _arrays(kind, target, resume, start):
    return (np.array(kind, np.int8), np.array(target, np.int64), np.array(resume, np.int64),
            np.array(start, np.int64))


def test_a_chain_worked_out_by_hand():
    """Five GPU events starting at 0, 10, 20, 30, 40 ns. Event 4 waited for 3 (path resumes at 35 ns), 3 for 1
    (at 25), 1 for 0 (at 5); 2 is off the chain. From event 4 ending at 50 in the window starting at 3: visit 4
    (segment ends 50), 3 (ends 35), 1 (ends 25), 0 (ends 5); event 0 starts at 0 ≤ 3, so the walk stops there:
    4 events, current event 0, time 5, no cycle; stamps set on 4, 3, 1, 0 only."""
    run = _library()
    kind, target, resume, start = _arrays([0, 0, 0, 0, 0], [-1, 0, 1, 1, 3], [0, 5, 15, 25, 35], [0, 10, 20, 30, 40])
    stamp = np.zeros(5, np.int32)
    for f in (C.follow, run):
        r, st, chain, ends = _walk(f, 4, 50, 3, kind, target, resume, start, stamp, 1)
        assert r == (4, 0, 5, False)
        assert chain[:4].tolist() == [4, 3, 1, 0] and ends[:4].tolist() == [50, 35, 25, 5]
        assert st.tolist() == [1, 1, 0, 1, 1]
        assert chain[4] == -7  # nothing written past the chain


def test_stops_at_a_host_wait_at_the_window_start_and_at_a_cycle():
    run = _library()
    # event 1 waited for the host (kind 1): the chain is 1 alone
    kind, target, resume, start = _arrays([0, 1], [-1, -1], [0, 4], [0, 10])
    for f in (C.follow, run):
        assert _walk(f, 1, 20, 0, kind, target, resume, start, np.zeros(2, np.int32), 1)[0] == (1, 1, 20, False)
    # event 1 waited for 0 resuming at 8 ≤ lo = 8: the time reaches the window start, 0 is not visited
    kind, target, resume, start = _arrays([0, 0], [-1, 0], [0, 8], [0, 10])
    for f in (C.follow, run):
        r, st, _, _ = _walk(f, 1, 20, 8, kind, target, resume, start, np.zeros(2, np.int32), 1)
        assert r == (1, 0, 8, False) and st.tolist() == [0, 1]
    # 0 and 1 wait for each other (an inconsistent trace): visit 1, 0, then 1 again is a cycle
    kind, target, resume, start = _arrays([0, 0], [1, 0], [15, 12], [10, 10])
    for f in (C.follow, run):
        assert _walk(f, 1, 20, 0, kind, target, resume, start, np.zeros(2, np.int32), 5)[0] == (2, 1, 15, True)
    # an event already stamped by this walk: nothing written, a cycle at once
    for f in (C.follow, run):
        assert _walk(f, 0, 20, 0, kind, target, resume, start, np.array([5, 0], np.int32), 5)[0] == (0, 0, 20, True)


def test_the_library_walks_as_python_does_on_random_chains():
    """Random hop tables (kinds 0–2, any target, resume times around the window start), some events already
    stamped by this walk or an earlier one: the same result, stamps, chain and ends."""
    run = _library()
    rng = np.random.default_rng(40)
    for trial in range(300):
        n = int(rng.integers(1, 400))
        kind = rng.choice(np.array([0, 0, 0, 1, 2], np.int8), n)
        target = rng.integers(0, n, n).astype(np.int64)
        start = rng.integers(0, 10**6, n).astype(np.int64)
        resume = rng.integers(-10, 10**6, n).astype(np.int64)
        stamp = rng.integers(0, 3, n).astype(np.int32)
        args = (int(rng.integers(0, n)), int(rng.integers(0, 2 * 10**6)), int(rng.integers(-5, 10**5)),
                kind, target, resume, start, stamp, int(rng.integers(1, 3)))
        a, b = _walk(C.follow, *args), _walk(run, *args)
        assert a[0] == b[0]
        for x, y in zip(a[1:], b[1:]):
            np.testing.assert_array_equal(x, y)


def test_arrays_that_do_not_fit_are_refused_before_the_call():
    run = _library()
    kind, target, resume, start = _arrays([0, 0], [-1, 0], [0, 5], [0, 10])
    stamp = np.zeros(2, np.int64)  # the walker's stamps are int32
    with pytest.raises(ValueError):
        run(1, 20, 0, kind, target, resume, start, stamp, 1, np.zeros(2, np.int64), np.zeros(2, np.int64))
    with pytest.raises(ValueError):  # a chain buffer shorter than the events
        run(1, 20, 0, kind, target, resume, start, np.zeros(2, np.int32), 1, np.zeros(1, np.int64),
            np.zeros(2, np.int64))


def test_a_new_process_walks_with_the_library_without_importing_numba():
    _library()  # built (or found) here first
    code = ("import sys; from gpulens.analyzers import _critical_chain as C; f = C.follower(1_000_000); "
            "print('numba' in sys.modules, f is C.follow, f is C._compiled)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": _PKG_ROOT})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "False"]


def test_two_processes_building_at_once_both_load_a_whole_library(tmp_path):
    """Two fresh processes build into the same empty folder at the same time: each writes under a temporary name
    and renames, so both load a complete library and walk the hand-worked chain right; no temporary file is
    left."""
    _library()
    code = ("from gpulens.analyzers import _critical_chain as C; import numpy as np, pathlib, sys; "
            "fn = C.LIB.load_or_build(C._ir, [pathlib.Path(sys.argv[1])]); run = C._wrap(fn); "
            "k = np.zeros(5, np.int8); s = np.zeros(5, np.int32); c = np.zeros(5, np.int64); e = c.copy(); "
            "print(run(4, 50, 3, k, np.array([-1, 0, 1, 1, 3]), np.array([0, 5, 15, 25, 35]), "
            "np.array([0, 10, 20, 30, 40]), s, 1, c, e), c.tolist())")
    env = {**os.environ, "PYTHONPATH": _PKG_ROOT}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert out.split() == ["(4,", "0,", "5,", "False)", "[4,", "3,", "1,", "0,", "0]"]
    assert sorted(f.name for f in tmp_path.iterdir()) == [C.LIB.name()]


def test_a_built_library_is_used_from_the_warm_threshold_without_numba(monkeypatch):
    """Once built, the library serves from :data:`JIT_WARM_MIN_EVENTS` GPU events whether numba is loaded or not
    (loading it costs no numba import); below that the plain loop; turned off, numba's policy as before."""
    _library()
    monkeypatch.setattr(C, "_library", None)
    monkeypatch.setattr(C, "_library_tried", False)
    monkeypatch.delitem(sys.modules, "numba.np.linalg", raising=False)
    assert C.follower(C.JIT_WARM_MIN_EVENTS - 1) is C.follow
    lib = C.follower(C.JIT_WARM_MIN_EVENTS)
    assert lib is not C.follow and lib is not C._compiled
    assert C.follower(C.JIT_MIN_EVENTS) is lib
    monkeypatch.setattr(C, "_library", None)
    monkeypatch.setenv(C.LIB.env, "0")
    assert C.follower(C.JIT_WARM_MIN_EVENTS) is C.follow  # numba not set up: 10k events stay in Python


def test_the_library_name_follows_its_sources_and_the_generic_builder():
    from gpulens import _native

    names = [p.name for p in (*C.LIB.sources, *_native.GENERIC_SOURCES)]
    assert names == ["_critical_chain.py", "_native.py", "_native_build.py"]
    assert C.LIB.digest()[:24] in C.LIB.name() and C.LIB.name().startswith("critical_chain-")
