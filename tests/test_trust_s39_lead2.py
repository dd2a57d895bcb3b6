"""Session 39, lead (after the new user's walk): a join warning names copies apart from kernels."""

from __future__ import annotations

import csv

import gpulens
from tests.conftest import shared_trace


def test_join_warning_counts_copies_apart_from_kernels():
    """rocprof v1 HIP vector_add on an MI300A: the kernel trace holds 1 kernel and the tracer 3 copies; the join
    warning read "joined 1 of 4 kernels" beside the summary's "1 launch of 1 kernel". By hand from the stats files:
    1 kernel call (results.stats.csv), 1 + 2 = 3 copies (results.copy_stats.csv)."""
    d = shared_trace("rocprof/v1_hip_programming_mi300a")
    kernels = sum(int(r["Calls"]) for r in csv.DictReader(open(d / "results.stats.csv")))
    copies = sum(int(r["Calls"]) for r in csv.DictReader(open(d / "results.copy_stats.csv")))
    assert (kernels, copies) == (1, 3)
    src = gpulens.analyze([d]).sources[0]
    w = next(w for w in src.timeline.meta.warnings if w.startswith("joined "))
    assert w.startswith(f"joined 1 of {kernels + copies} dispatches (1 kernel, 3 copies or fills) with 1 dispatch")
