"""Running the analyzers in two processes (issue 16: a directory of rank files analysed with 2 workers).

After the analyzers that the child's analyzers read (``hotspots``, ``breakdown``: the *prefix*) have run, the
process forks. The child runs :data:`CHILD` — analyzers that read no result the parent computes after the
fork, and whose results no analyzer left in the parent reads before the join — and pickles their results back
through a pipe; the parent meanwhile runs the others. Parent analyzers that read a child's result (``verdicts``
reads every earlier result) are *deferred*: they run once the child's results are in. Every analyzer is handed
every result it reads and never one that follows it in the serial order (``(order, name)``); the merged results and
the Timeline's warnings come out in that order, so the report equals the serial one.

Safety: nothing is shared but the forked memory (copy-on-write; ``gc.freeze`` keeps the collector from copying every
page in the child); a child that fails — an exception, a result that cannot be pickled, a crash, no answer within
:func:`_deadline` — is killed and its analyzers run in this process instead, with a warning: a result is never lost.

Which analyzers read which results is declared in :data:`READS` (tests/test_parallel_analysis.py checks the
declaration against the analyzers' source); the split is chosen by cost (:data:`CHILD`). Used only when
:func:`parallel_allowed`: more than one worker allowed, a fork-capable platform, two or more cores, enough available
memory for the child's own intermediates, and an input large enough for the fork to pay for itself.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

log = logging.getLogger("gpulens.analyzers")

#: Result names each analyzer reads from the results of earlier analyzers (directly or through a helper such as
#: ``_hot.hot_kernels`` / ``_steps.hot_rows``, which read ``hotspots``); ``"*"``: every earlier result. Analyzers
#: not listed read none.
READS: dict[str, tuple[str, ...]] = {
    "roofline": ("hotspots",),
    "occupancy": ("hotspots", "roofline"),
    "speed_of_light": ("hotspots",),
    "hierarchical_roofline": ("hotspots",),
    "bottlenecks": ("breakdown",),
    "ranks": ("breakdown",),
    "critical_path": ("breakdown",),
    "kernel_distributions": ("hotspots",),
    "kernel_outliers": ("hotspots",),
    "kernel_variation": ("hotspots",),
    "verdicts": ("*",),
}

#: Analyzers the forked child runs, chosen by CPU time on 8 rank files × 25k kernels (seconds, measured in each
#: process of a parallel run): child ≈ 1.85 (roofline 0.7, critical_path 0.5, occupancy 0.45, stream_timeline 0.2,
#: rank_kernels 0.2, collectives 0.12, launch_latency 0.1, hierarchical roofline 0.08), parent ≈ 1.7 after the fork
#: (bottlenecks 0.48, kernel_variation 0.3, op_rollup 0.19, kernel_groups 0.18, ...), prefix ≈ 0.3 before it
#: (hotspots, breakdown, the shared intermediates of :func:`_warm`) and verdicts ≈ 0.2 after the join. Roofline,
#: occupancy and hierarchical roofline share the hot-kernel table; critical_path_segments reads critical_path's
#: memoised paths.
CHILD: frozenset[str] = frozenset({
    "rank_kernels", "launch_latency", "roofline", "collectives", "occupancy", "speed_of_light",
    "hierarchical_roofline", "critical_path", "critical_path_segments", "stream_timeline",
})

#: Fewer events than this: analysed in one process (a fork, the copies it causes and the pickled results cost more
#: than half of a small analysis).
MIN_EVENTS = 200_000
#: Extra memory the child may need, per byte of the events table (its own intermediates; measured ≈ 1×).
CHILD_MEMORY_FACTOR = 2


@dataclass
class Plan:
    """Which process runs which analyzers (classes in serial order within each list)."""

    prefix: list = field(default_factory=list)
    child: list = field(default_factory=list)
    parent: list = field(default_factory=list)
    deferred: list = field(default_factory=list)


def _reads(name: str) -> tuple[str, ...]:
    return READS.get(name, ())


def plan(classes: list) -> Plan | None:
    """Split ``classes`` (serial order) between the parent and a forked child; None when there is nothing to share.

    The prefix (run before the fork) is what the :data:`CHILD` analyzers read, directly or through what that reads,
    and is not itself a child analyzer. A child analyzer that reads a result the child would not have (neither in
    the prefix nor computed by an earlier child analyzer) stays in the parent. A parent analyzer that reads a
    child's result — or a deferred one's, or every earlier result (``"*"``) while any of those is a child's — is
    deferred until the join.
    """
    names = [c.name for c in classes]
    need: set[str] = set()
    for n in [n for n in names if n in CHILD]:
        closure, todo = set(), list(_reads(n))
        while todo:
            r = todo.pop()
            if r in names and r not in CHILD and r not in closure:
                closure.add(r)
                todo.extend(_reads(r))
        if "*" not in closure and all("*" not in _reads(r) for r in closure | {n}):
            need |= closure
    p = Plan(prefix=[c for c in classes if c.name in need])
    child_names: set[str] = set()
    for c in classes:
        if c.name in CHILD and "*" not in _reads(c.name) and set(_reads(c.name)) <= need | child_names:
            p.child.append(c)
            child_names.add(c.name)
    away = set(child_names)  # results the parent does not have before the join
    for i, c in enumerate(classes):
        if c.name in child_names or c.name in need:
            continue
        r = _reads(c.name)
        needs = set(names[:i]) if "*" in r else set(r)
        if needs & away:
            p.deferred.append(c)
            away.add(c.name)
        else:
            p.parent.append(c)
    if not p.child or not (p.parent or p.deferred):
        return None
    return p


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def parallel_allowed(timeline: Any, workers: int | None) -> bool:
    """Whether :func:`run_parallel` may be used for ``timeline``: ``workers`` (the decision made for loading, see
    :func:`gpulens.collectors._parallel.analysis_workers`) above 1, ``os.fork`` on Linux, at least 2 cores, at
    least :data:`MIN_EVENTS` events, and available memory for the child's own intermediates
    (:data:`CHILD_MEMORY_FACTOR` × the events table)."""
    if not workers or workers < 2 or not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    if _cores() < 2 or len(timeline.events) < MIN_EVENTS:
        return False
    from gpulens.collectors._parallel import _available_memory

    need = CHILD_MEMORY_FACTOR * int(timeline.events.memory_usage(index=True, deep=False).sum()) + (128 << 20)
    return _available_memory() >= need


class _Child:
    """A forked process computing some analyzers; its answer arrives pickled on a pipe."""

    def __init__(self, pid: int, fd: int):
        self.pid, self.fd = pid, fd

    def answer(self, deadline: float) -> tuple[Any, str | None]:
        """(payload, None) or (None, why it failed); the child is reaped (killed first when it is late)."""
        chunks, why = [], None
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    why = "no answer in time"
                    break
                ready, _, _ = select.select([self.fd], [], [], left)
                if not ready:
                    continue
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except BaseException:  # e.g. Ctrl-C while waiting: the child goes too
            os.close(self.fd)
            self.reap(kill=True)
            raise
        os.close(self.fd)
        status = self.reap(kill=why is not None)
        if why is None:
            data = b"".join(chunks)
            try:
                kind, payload = pickle.loads(data) if data else ("error", f"it exited without an answer ({status})")
            except Exception as exc:  # a truncated or corrupt answer
                kind, payload = "error", f"its answer cannot be read ({type(exc).__name__})"
            if kind == "ok":
                return payload, None
            why = str(payload)
        return None, why

    def reap(self, kill: bool = False) -> str:
        """Wait for the child (SIGKILL first when ``kill``); return how it ended."""
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return "already reaped"
        if os.WIFSIGNALED(status):
            return f"killed by signal {os.WTERMSIG(status)}"
        return f"exit status {os.WEXITSTATUS(status)}"


def _fork(work: Callable[[], Any]) -> _Child | None:
    """Fork a child that runs ``work()`` and writes ``("ok", value)`` or ``("error", text)`` pickled to a pipe."""
    r, w = os.pipe()
    gc.freeze()  # the child's collector would otherwise write to (and so copy) every page holding a Python object
    try:
        pid = os.fork()
    except OSError:
        gc.unfreeze()
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(r)
            try:
                data, code = pickle.dumps(("ok", work()), protocol=pickle.HIGHEST_PROTOCOL), 0
            except BaseException as exc:  # noqa: BLE001 — anything goes back to the parent as text
                data = pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        finally:
            os._exit(code)
    os.close(w)
    return _Child(pid, r)


def _deadline(started: float, now: float) -> float:
    """When the parent stops waiting for the child: at least 60 s after the fork, and at least 4× as long again as
    the parent's own share took (the two shares are balanced, so a child this late is stuck)."""
    return max(started + 60.0, now + 4 * (now - started))


def _warm(timeline: Any) -> None:
    """Compute before the fork the shared intermediates both processes read (launch links, the event-id index, the
    op tree), so that they are computed once, not once in each process (values are the same either way)."""
    from gpulens.analyzers._optree import op_tree
    from gpulens.analyzers.context import context_of

    ctx = context_of(timeline)
    ctx.links  # noqa: B018 — cached_property: computed and kept
    ctx.positions([])
    op_tree(timeline)


def _keep_shared(timeline: Any) -> Callable[[], None]:
    """Keep the analysis context's intermediates computed before the fork (the prefix's and :func:`_warm`'s) until
    this run ends, in both processes: released during the parallel run they free no memory (the other process still
    maps the same pages) and a later reader computes them again — the op tree was rebuilt by the child's
    ``stream_timeline`` and by the parent's ``verdicts`` after the join, on the critical path (values are the same
    either way). Returns the function that restores the context's own ``release`` (the parent calls it at the end)."""
    from gpulens.analyzers.context import context_of

    ctx = context_of(timeline)
    shared_memo = dict(ctx.__dict__.get("_memo", {}))
    shared_kinds = dict(ctx._kinds)
    real = ctx.release

    def release(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        store = ctx.__dict__.setdefault("_memo", {})
        for k, v in shared_memo.items():
            store.setdefault(k, v)
        for k, v in shared_kinds.items():
            ctx._kinds.setdefault(k, v)

    ctx.release = release
    return lambda: ctx.__dict__.pop("release", None)


def run_parallel(timeline: Any, device: Any, classes: list, p: Plan, step: Callable[..., None]) -> dict:
    """Run ``classes`` as planned by ``p``; return name → result in serial order.

    Args:
        step: ``step(cls, results, seq_rest)`` runs one analyzer in this process (the run loop's own step: releases
            of shared intermediates, heap trimming), adding its result to ``results``; ``seq_rest`` are the
            analyzers this process runs after it.
    """
    names = [c.name for c in classes]
    pos = {n: i for i, n in enumerate(names)}
    results: dict = {}
    warnings = timeline.meta.warnings
    base = list(warnings)
    added: dict[str, list[str]] = {}

    def run(seq: list, rest: list, into: dict) -> None:
        for i, c in enumerate(seq):
            earlier = [n for n in names[:pos[c.name]] if n in into]
            warnings[:] = base + [w for n in earlier for w in added.get(n, [])]
            view = {n: into[n] for n in earlier}
            step(c, view, seq[i + 1:] + rest)
            into[c.name] = view[c.name]
            added[c.name] = warnings[len(base) + sum(len(added.get(n, [])) for n in earlier):]

    def child_work() -> dict:
        own: dict = dict(results)
        run(p.child, [], own)
        return {"results": {c.name: own[c.name] for c in p.child}, "warnings": {c.name: added[c.name] for c in p.child}}

    run(p.prefix, p.child + p.parent + p.deferred, results)
    _warm(timeline)
    restore = _keep_shared(timeline)
    started = time.monotonic()
    child = _fork(child_work)
    try:
        run(p.parent, p.deferred, results)
    except BaseException:
        if child is not None:
            child.reap(kill=True)
        gc.unfreeze()
        restore()
        raise
    answer, why = (None, "fork failed") if child is None else child.answer(_deadline(started, time.monotonic()))
    gc.unfreeze()
    if answer is not None:
        results.update(answer["results"])
        added.update(answer["warnings"])
    else:
        log.warning("gpulens: parallel analysis failed (%s); analysing those parts in this process instead", why)
        run(p.child, p.deferred, results)
    run(p.deferred, [], results)
    restore()
    seen: set[str] = set(base)
    merged = list(base)
    for n in names:
        for w in added.get(n, []):
            if w not in seen:  # two processes may add the same warning; once, where the serial run adds it
                seen.add(w)
                merged.append(w)
    warnings[:] = merged
    return {n: results[n] for n in names if n in results}
