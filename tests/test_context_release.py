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
