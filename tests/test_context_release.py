"""Releasing shared analysis intermediates (issue 16, memory): ``AnalysisContext.release`` forgets what it is told
and nothing else, a released entry is computed again with the same value, and ``run_all`` leaves no context behind.

The values compared are recomputed from the Timeline itself (the kernel rows are selected here with a plain boolean
mask on ``events["kind"]``), not copied from gpulens's output.
"""

from __future__ import annotations

import pandas as pd

from gpulens.analyzers import RELEASE_AFTER, registry, run_all
from gpulens.analyzers.context import _ATTR, context_of
from gpulens.collectors import collect
from tests.conftest import KINETO


def _timeline():
    return collect(KINETO / "hta_alexnet_a100.json.gz")


def test_release_forgets_named_memo_entries_only():
    ctx = context_of(_timeline())
    calls = []
    ctx.memo("a:1", lambda: calls.append("a:1") or 1)
    ctx.memo(("b", "x"), lambda: calls.append("b") or 2)
    ctx.memo("c", lambda: calls.append("c") or 3)
    ctx.release(memo=("a", "b"))
    # "a:1" (name before ':') and ("b", …) (first item) are gone and computed again; "c" is still memoised
    assert ctx.memo("a:1", lambda: calls.append("a:1 again") or 10) == 10
    assert ctx.memo(("b", "x"), lambda: calls.append("b again") or 20) == 20
    assert ctx.memo("c", lambda: calls.append("c again") or 30) == 3
    assert calls == ["a:1", "b", "c", "a:1 again", "b again"]


def test_released_row_frame_is_rebuilt_equal_and_gpu_frame_is_kept():
    tl = _timeline()
    ctx = context_of(tl)
    gpu = ctx.gpu
    kernels = ctx.kernels
    ctx.release(kinds=[("kernel",), ("kernel", "comm", "memcpy", "memset")])
    assert ctx.gpu is gpu  # the GPU-event selection is never released (other selections may be the same frame)
    again = ctx.kernels
    assert again is not kernels
    expected = tl.events[(tl.events["kind"] == "kernel").to_numpy()]
    pd.testing.assert_frame_equal(again, expected)


def test_run_all_leaves_no_context_and_release_orders_exist():
    tl = _timeline()
    run_all(tl, None)
    assert not hasattr(tl, _ATTR)
    # every release point lies inside the analyzers' order range, so each one is reached during a full run
    orders = [c.order for c in registry().values()]
    assert all(min(orders) <= o < max(orders) for o in RELEASE_AFTER)


def test_entries_released_after_bottlenecks_are_not_rebuilt_by_op_rollup(monkeypatch):
    """The launch-call rows and kernel columns are released right after bottlenecks (RELEASE_AFTER_ANALYZER), ahead
    of op_rollup of the same order: op_rollup must not read them (it would build them again, costing the memory the
    early release saves). Every selection and memo built is recorded with the analyzer running at that moment."""
    from gpulens.analyzers import RELEASE_AFTER_ANALYZER
    from gpulens.analyzers.context import AnalysisContext

    built = []
    running = [None]
    of_kind, memo = AnalysisContext.of_kind, AnalysisContext.memo

    def spy_of_kind(self, *kinds):
        before = set(self._kinds)
        out = of_kind(self, *kinds)
        built.extend((running[0], k) for k in set(self._kinds) - before)
        return out

    def spy_memo(self, key, compute):
        return memo(self, key, lambda: built.append((running[0], str(key).split(":", 1)[0])) or compute())

    monkeypatch.setattr(AnalysisContext, "of_kind", spy_of_kind)
    monkeypatch.setattr(AnalysisContext, "memo", spy_memo)
    for name, cls in registry().items():
        def wrap(self, tl, dev, res, _f=cls.analyze, _n=name):
            running[0] = _n
            return _f(self, tl, dev, res)
        monkeypatch.setattr(cls, "analyze", wrap)
    results = run_all(_timeline(), None)
    assert not results["op_rollup"].skipped and not results["bottlenecks"].skipped
    released = RELEASE_AFTER_ANALYZER["bottlenecks"]
    names = set(released.get("memo", ())) | {tuple(sorted(k)) for k in released.get("kinds", ())}
    # bottlenecks itself reads them (or they were built before it): the release is not a no-op
    assert any(k in names for who, k in built if who != "op_rollup")
    assert not [k for who, k in built if who == "op_rollup" and k in names]



def test_launch_call_rows_are_first_built_by_bottlenecks(monkeypatch):
    """The launch-call rows (a full-width runtime frame) are first selected by bottlenecks: launches reads their
    columns by row position, and no analyzer ordered between them may read the frame (each would build it and carry
    it under the roofline, occupancy and hierarchical-roofline peaks). Every runtime-frame build is recorded with the
    analyzer running then."""
    from gpulens.analyzers.context import AnalysisContext

    built = []
    running = [None]
    of_kind = AnalysisContext.of_kind

    def spy_of_kind(self, *kinds):
        before = set(self._kinds)
        out = of_kind(self, *kinds)
        built.extend(running[0] for k in set(self._kinds) - before if k == ("runtime",))
        return out

    monkeypatch.setattr(AnalysisContext, "of_kind", spy_of_kind)
    for name, cls in registry().items():
        def wrap(self, tl, dev, res, _f=cls.analyze, _n=name):
            running[0] = _n
            return _f(self, tl, dev, res)
        monkeypatch.setattr(cls, "analyze", wrap)
    results = run_all(_timeline(), None)
    assert not results["launches"].skipped and not results["bottlenecks"].skipped
    order = {n: c.order for n, c in registry().items()}
    # launches reads the launch calls' few columns by row position (no runtime frame): the frame, when built at all
    # (the idle-gap look-ups read four columns of the runtime rows, not the frame), is built by bottlenecks or later
    assert "launches" not in built and all(order.get(who, 0) >= order["bottlenecks"] for who in built)
    assert not [who for who in built if order["launches"] < order.get(who, 0) < order["bottlenecks"]]
