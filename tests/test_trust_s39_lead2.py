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


def test_gate_reason_names_whole_run_metrics_by_their_table_labels():
    """The gate's headline said "gpu_busy_ns (+10.0 %)" (the JSON id) while its table says "GPU busy time (…)"
    (a new user's finding: every kernel 10 % slower). The labels are docs/gate.md's; the JSON keeps the ids."""
    from types import SimpleNamespace as NS

    from gpulens.reports.gate_fmt import reason_text

    metrics = [NS(metric=m) for m in ("gpu_busy_ns", "kernel_busy_ns", "kernel_time_ns", "kernel:gemm_k")]
    res = NS(reason="4 of 11 gating metrics regressed: kernel:gemm_k (+29.3 %), gpu_busy_ns (+10.0 %), "
                    "kernel_busy_ns (+10.1 %), kernel_time_ns (+10.2 %)", metrics=metrics)
    assert reason_text(res) == (
        "4 of 11 gating metrics regressed: kernel gemm_k (+29.3 %), "
        "GPU busy time (kernels, collectives, copies, memsets: union) (+10.0 %), "
        "kernel busy time (kernels, collectives only: union) (+10.1 %), "
        "kernel time (kernels, collectives only: summed) (+10.2 %)")
