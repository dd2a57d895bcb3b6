"""Advice that fits the evidence: what holds the critical path decides the next step (a blocking wait is about what
it waits for, a set-up call is a one-off, a launch call is launch overhead — not "cut runtime-call overhead" for
all of them); Triton kernels get Triton's knobs; a library kernel's advice says its code cannot be edited.
Traces are written here by hand; the expected words follow from the call each one holds the path with."""

from __future__ import annotations

import pytest

import gpulens
from tests.test_verdict_premises import _call, _kernel, _steady, _write


@pytest.mark.parametrize("call,words,not_words", [
    # the host blocked in a synchronous copy for 100 ms (as the TraceLens sglang decode trace's 463 ms in
    # hipMemcpyWithStream inside aten::copy_): a wait, so the step is about what it waits for
    ("hipMemcpyWithStream", ("blocked in hipMemcpyWithStream", "synchronous copy", "what it waits for",
                             "non_blocking=True"), ("overhead",)),
    ("cudaMemcpy", ("blocked in cudaMemcpy", "synchronous copy"), ("overhead",)),
    ("hipStreamSynchronize", ("blocked in hipStreamSynchronize", "what it waits for", "remove the synchronisation"),
     ("overhead",)),
    # a 100 ms allocation: a one-off set-up cost, not per-call overhead
    ("hipMalloc", ("Set-up calls", "once before the loop"), ("overhead",)),
    # anything else keeps the generic wording
    ("hipGetLastError", ("Cut runtime-call overhead",), ()),
])
def test_critical_path_runtime_advice_fits_the_call(tmp_path, call, words, not_words):
    """A kernel, then 100 ms of the host inside ``call`` (inside aten::copy_), then 20 steady kernels: the path is
    held by that runtime call (99,990 µs of a 100,239 µs step)."""
    ev = [_call("hipLaunchKernel", -8, 2, 1), _kernel("k0", 0, 10, 1),
          _call("aten::copy_", 15, 99_997, cat="cpu_op"), _call(call, 20, 99_990),
          _call("hipLaunchKernel", 100_012, 2, 2), _kernel("k", 100_020, 10, 2)]
    ev += _steady(100_031, 19, 10)
    s = gpulens.analyze([_write(tmp_path, ev)]).sources[0]
    cp = s.results["critical_path"]
    assert cp.summary["top_class"] in ("runtime", "sync")  # a blocking call may be classed as a sync
    f = next(f for f in s.findings() if f.key == "critical_path")
    assert f"largest: {call}" in f.title
    for w in words:
        assert w in f.action, (w, f.action)
    for w in not_words:
        assert w not in f.action, (w, f.action)
