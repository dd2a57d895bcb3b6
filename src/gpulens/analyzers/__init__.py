"""Analyzers: one module per question, each an :class:`~gpulens.analyzers.base.Analyzer` returning an
:class:`~gpulens.analyzers.base.AnalysisResult`. Modules in this package register themselves on import.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding, registry
from gpulens.timeline import Timeline

_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_") and mod.name not in ("base", "intervals"):
            importlib.import_module(f"{__name__}.{mod.name}")
    _loaded = True


#: Shared intermediates of the analysis context (:class:`~gpulens.analyzers.context.AnalysisContext`) and the
#: highest analyzer ``order`` that reads them (directly or through a helper): :func:`run_all` releases each one before
#: the first analyzer of a higher order runs, so that the later analyzers do not carry it (at 1M kernels these hold
#: gigabytes). An analyzer that reads a released entry gets it computed again, with the same values: an entry listed
#: too early here costs time, never correctness. Memo entries by name (``"name:…"`` keys included), row selections
#: by kinds.
RELEASE_AFTER: dict[int, dict[str, tuple]] = {
    46: {"memo": ("hot_kernels",)},
    55: {"memo": ("kernel_columns", "runtime_calls_by_start"), "kinds": (("runtime",), ("sync",), ("kernel",))},
    # op_shapes (56, 57) read the op roll-up's per-call table (op_rollup.per_call) too: released after them, not
    # computed twice and then carried to the end
    57: {"memo": ("op_calls", "op_tree", "op_shape_calls")},
    60: {"memo": ("gpu_attribution",)},
    65: {"memo": ("queue_steps",)},
    66: {"memo": ("gpu_steps", "hot_rows")},
    69: {"kinds": (("cpu_op",),)},
    # verdicts (70) reads the gap classification and short launches bottlenecks (55) memoised, not the row frames
    70: {"memo": ("classify_gaps", "short_launches", "devices_by_rank", "runtime_rows_by_rank", "runtime_rows")},
    71: {"memo": ("critical_paths", "critical_path_names")},
}
#: Entries released right after the named analyzer has run, ahead of their :data:`RELEASE_AFTER` order, because
#: the analyzers of the same order that follow it do not read them: op_rollup (55, after bottlenecks) builds its
#: per-call table on the op tree, not on the launch-call rows and kernel columns bottlenecks reads; carried through
#: op_rollup, they put the 1M-kernel command's peak there.
RELEASE_AFTER_ANALYZER: dict[str, dict[str, tuple]] = {
    "bottlenecks": RELEASE_AFTER[55],
}
# The launch-call rows (a full-width copy of every runtime call: 174 MiB at 1M kernels) are first selected by
# bottlenecks (55): launches (30) reads their few columns by row position, so no runtime frame is carried under the
# peaks of roofline, occupancy and hierarchical roofline (tests/test_context_release.py checks who builds it).


def run_all(timeline: Timeline, device: Any = None, only: list[str] | None = None,
            workers: int | None = 1) -> dict[str, AnalysisResult]:
    """Run every registered analyzer (or those named in ``only``) in their declared order.

    Shared intermediates are released once no later analyzer reads them (:data:`RELEASE_AFTER`), and the whole
    analysis context of ``timeline`` at the end (it is computed again if anything asks for it later).

    Args:
        workers: processes allowed (the decision made for loading the input, see
            :func:`gpulens.collectors._parallel.analysis_workers`). Above 1, a large input is analysed by this
            process and one forked child (:mod:`gpulens.analyzers._parallel_run`), with the same results.

    Returns:
        name → AnalysisResult, in run order. Each analyzer sees the results of those before it.
    """
    from gpulens.analyzers._heap import return_free_memory
    from gpulens.analyzers.context import _ATTR, context_of

    classes = [cls for cls in sorted(registry().values(), key=lambda c: (c.order, c.name))
               if only is None or cls.name in only]
    pending = sorted(RELEASE_AFTER.items())

    def step(cls: type[Analyzer], results: dict[str, AnalysisResult], rest: list) -> None:
        # release what no analyzer still to run in this process reads (serially: those of a lower order)
        low = min([cls.order] + [c.order for c in rest])
        while pending and pending[0][0] < low:
            context_of(timeline).release(**pending.pop(0)[1])
        # in a large process (analyzers._heap), what the previous analyzer freed leaves the RSS
        return_free_memory(rows=len(timeline.events))
        results[cls.name] = cls().analyze(timeline, device, results)
        if cls.name in RELEASE_AFTER_ANALYZER:
            context_of(timeline).release(**RELEASE_AFTER_ANALYZER[cls.name])

    results: dict[str, AnalysisResult] = {}
    split = None
    if workers is not None and workers > 1:
        from gpulens.analyzers import _parallel_run

        split = _parallel_run.plan(classes) if _parallel_run.parallel_allowed(timeline, workers) else None
        if split is not None:
            results = _parallel_run.run_parallel(timeline, device, classes, split, step)
    if split is None:
        for i, cls in enumerate(classes):
            step(cls, results, classes[i + 1:])
    finish(timeline, results)
    if hasattr(timeline, _ATTR):  # last: the steps of finish() may read the context
        delattr(timeline, _ATTR)
    return results


def finish(timeline: Timeline, results: dict[str, AnalysisResult]) -> None:
    """What :func:`run_all` does to the results once every analyzer has run (in place): sums over inputs without
    durations become unknown (:func:`gpulens.analyzers._span.blank_unknown_durations`), so do figures over launches of
    which some have no duration (:func:`gpulens.analyzers._unknown_time.blank_untimed_rows`), and each finding's time at
    stake is capped at its parent's (:func:`gpulens.analyzers._tree.cap_children`). Anyone running analyzers one by
    one calls it to get :func:`run_all`'s results."""
    from gpulens.analyzers._span import blank_unknown_durations
    from gpulens.analyzers._tree import cap_children
    from gpulens.analyzers._unknown_time import blank_untimed_rows

    blank_unknown_durations(timeline, results)  # no input durations: sums of zeros are unknown, not 0 ns
    blank_untimed_rows(timeline, results)  # some launches without a duration: figures over them are unknown
    cap_children(results)  # a child's time at stake within its parent's, whatever order they ran in


__all__ = ["AnalysisResult", "Analyzer", "Finding", "finish", "registry", "run_all"]
