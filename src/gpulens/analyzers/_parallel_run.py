"""Running the analyzers in two processes (issue 16: a directory of rank files analysed with 2 workers).

After the analyzers that the child's analyzers read (``hotspots``: the *prefix*) have run, the process forks. The
child first runs the :data:`EARLY` analyzers (``breakdown``: read by both processes, reading only the prefix) and
sends their results at once, then runs :data:`CHILD` — analyzers that read no result the parent computes after the
fork, and whose results no analyzer left in the parent reads before the join — and pickles their results back
through a pipe (length-prefixed messages); the parent meanwhile runs the others, taking the early results when an
analyzer of its own reads one. Intermediates computed before the fork are kept until the end in both processes
(:func:`_keep_shared`). Parent analyzers that read a child's result (``verdicts``
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
    "rank_kernels": ("breakdown",),
    "critical_path": ("breakdown", "bottlenecks"),  # bottlenecks: its lost-work figures (_lost_late_starts)
    "kernel_distributions": ("hotspots",),
    "kernel_outliers": ("hotspots",),
    "kernel_variation": ("hotspots",),
    "verdicts": ("*",),
    "ncu_rules": ("verdicts", "occupancy"),
}

#: Analyzers the forked child runs, chosen by CPU time on 8 rank files × 25k kernels (seconds of CPU per analyzer in
#: each process, ``--workers 2``, two runs, session 48, a machine at load 15–18, so read them as shares): since
#: critical_path runs in the parent (session 47, below) the parent's share after the fork was 1.56–1.63 against the
#: child's 0.93–1.00 (rank_kernels, roofline, occupancy, stream_timeline, collectives; breakdown early), so the
#: parent's work set the run's length; with the hot-kernel statistics (kernel_distributions 0.07, kernel_outliers
#: 0.06, kernel_variation 0.05: they read only hotspots, run before the fork), launch_latency (0.06–0.08: the launch
#: links, warmed before the fork) and the queue length pair (0.05: its queue steps read by nothing else) in the child,
#: 1.15–1.27 against 1.05–1.18. Nothing the parent runs before the join reads them (verdicts reads every result
#: after it). The parent keeps bottlenecks 0.28, critical_path 0.26, op_rollup 0.09, kernel_groups 0.07 and the
#: small ones; hotspots (0.09) runs before the fork and verdicts (0.17–0.20) after the join.
#: Roofline, occupancy and hierarchical roofline share the hot-kernel table; critical_path_segments reads
#: critical_path's memoised paths.
CHILD: frozenset[str] = frozenset({
    "rank_kernels", "roofline", "collectives", "occupancy", "speed_of_light",
    "hierarchical_roofline", "stream_timeline",
    # since session 48: the per-kernel distributions (their hot rows and GPU steps shared among the three), the
    # queue length and its series (queue steps shared between the two) and launch latency — each reads nothing the
    # parent computes after the fork, only verdicts (deferred) reads their results, and no parent analyzer shares
    # their intermediates (a 1M-kernel trace, CPU s per process at load ~12: child 3.2 → 4.1, parent 5.9 → 5.0)
    "kernel_distributions", "kernel_outliers", "kernel_variation", "queue_length", "queue_length_series",
    "launch_latency",
})
# critical_path (and critical_path_segments, which reads its memoised paths) run in the parent since session 47:
# critical_path reads the parent's bottlenecks result (its lost-work figures), which the child does not have

#: Analyzers the child runs first, before its :data:`CHILD` share, and sends back at once (instead of this process
#: running them before the fork, while the child's core waits): ``breakdown`` (≈ 0.15 s on 8 rank files × 25k
#: kernels) is read by the child's ``critical_path`` and by the parent's ``bottlenecks`` and ``ranks``, which
#: take its result from the child's first message when they come to run. Only an analyzer that reads nothing but
#: what is computed before the fork can be one.
EARLY: frozenset[str] = frozenset({"breakdown"})

#: Fewer events than this: analysed in one process (a fork, the copies it causes and the pickled results cost more
#: than half of a small analysis).
MIN_EVENTS = 200_000
#: Extra memory the child may need, per byte of the events table (its own intermediates; measured ≈ 1×).
CHILD_MEMORY_FACTOR = 2


@dataclass
class Plan:
    """Which process runs which analyzers (classes in serial order within each list)."""

    prefix: list = field(default_factory=list)
    early: list = field(default_factory=list)
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
    deferred until the join. Of the prefix, the :data:`EARLY` analyzers that read nothing but the rest of it run
    first in the child instead (``early``): a parent analyzer reading one waits for the child's first message.
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
    early = {n for n in need & EARLY if set(_reads(n)) <= need - EARLY and "*" not in _reads(n)}
    p = Plan(prefix=[c for c in classes if c.name in need - early], early=[c for c in classes if c.name in early])
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


_LEN = 8  # bytes of the length prefix of each message on the pipe


class _Child:
    """A forked process computing some analyzers; its messages arrive pickled on a pipe, each prefixed by its length:
    ``("early", payload)`` (the :data:`EARLY` results, sent as soon as they are computed), then ``("ok", payload)``
    or ``("error", text)``."""

    def __init__(self, pid: int, fd: int):
        self.pid, self.fd = pid, fd
        self._buf = bytearray()
        self._eof = False
        self._early: Any = None
        self.failed: str | None = None

    def _message(self, deadline: float) -> tuple[str, Any]:
        """The next message. Raises TimeoutError (none by ``deadline``), EOFError (the pipe closed before one)."""
        while True:
            if len(self._buf) >= _LEN:
                n = int.from_bytes(self._buf[:_LEN], "big")
                if len(self._buf) >= _LEN + n:
                    data = bytes(self._buf[_LEN:_LEN + n])
                    del self._buf[:_LEN + n]
                    return pickle.loads(data)
            if self._eof:
                raise EOFError
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 1 << 20)
                if chunk:
                    self._buf += chunk
                else:
                    self._eof = True

    def _receive(self, want: str, deadline: float) -> tuple[Any, str | None]:
        """(payload, None) of the first message of kind ``want`` (an ``early`` one met on the way is kept), or
        (None, why it failed): the child is then killed and reaped, and every later call gives the same answer.
        The child is reaped after its final message."""
        if want == "early" and self._early is not None:
            return self._early, None
        while self.failed is None:
            try:
                kind, payload = self._message(deadline)
            except TimeoutError:
                self._fail("no answer in time")
            except EOFError:
                self._fail(f"it exited without an answer ({self.reap()})", kill=False)
            except Exception as exc:  # a truncated or corrupt message
                self._fail(f"its answer cannot be read ({type(exc).__name__})")
            except BaseException:  # e.g. Ctrl-C while waiting: the child goes too
                self._fail("interrupted")
                raise
            else:
                if kind == "early":
                    self._early = payload
                    if want == "early":
                        return payload, None
                elif kind == "ok" and want == "ok":
                    os.close(self.fd)
                    self.reap()
                    return payload, None
                else:
                    self._fail(str(payload) if kind == "error" else f"unexpected message {kind!r}")
        return None, self.failed

    def early(self, deadline: float) -> tuple[Any, str | None]:
        """The child's ``early`` message: (payload, None) or (None, why it failed)."""
        return self._receive("early", deadline)

    def answer(self, deadline: float) -> tuple[Any, str | None]:
        """The child's final message: (payload, None) or (None, why it failed); the child is reaped."""
        return self._receive("ok", deadline)

    def _fail(self, why: str, kill: bool = True) -> None:
        self.failed = why
        try:
            os.close(self.fd)
        except OSError:
            pass
        if kill:
            self.reap(kill=True)

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


def _write(fd: int, message: tuple) -> None:
    """Write one length-prefixed pickled message to ``fd``."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(data).to_bytes(_LEN, "big") + data)
    while view:
        view = view[os.write(fd, view):]


def _fork(work: Callable[[Callable[[Any], None]], Any]) -> _Child | None:
    """Fork a child that runs ``work(send)`` — ``send(payload)`` writes an ``("early", payload)`` message — and
    writes ``("ok", value)`` or ``("error", text)`` last."""
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
                message, code = ("ok", work(lambda payload: _write(w, ("early", payload)))), 0
                _write(w, message)
            except BaseException as exc:  # noqa: BLE001 — anything goes back to the parent as text
                _write(w, ("error", f"{type(exc).__name__}: {exc}"))
                code = 1
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
    from gpulens.analyzers._optree import gpu_op_links, op_tree
    from gpulens.analyzers.context import context_of

    ctx = context_of(timeline)
    ctx.links  # noqa: B018 — cached_property: computed and kept
    ctx.positions([])
    op_tree(timeline)
    gpu_op_links(timeline)


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

    early_names = {c.name for c in p.early}
    child: _Child | None = None
    started = 0.0

    def run(seq: list, rest: list, into: dict) -> None:
        for i, c in enumerate(seq):
            if into is results and early_names & set(_reads(c.name)) - set(results):
                take_early()
            earlier = [n for n in names[:pos[c.name]] if n in into]
            warnings[:] = base + [w for n in earlier for w in added.get(n, [])]
            view = {n: into[n] for n in earlier}
            step(c, view, seq[i + 1:] + rest)
            into[c.name] = view[c.name]
            added[c.name] = warnings[len(base) + sum(len(added.get(n, [])) for n in earlier):]

    def take_early() -> None:
        """Merge the child's early results; when it failed, compute them here (with the warning of a failure)."""
        got, why = (None, "fork failed") if child is None else child.early(_deadline(started, time.monotonic()))
        if got is not None:
            results.update(got["results"])
            added.update(got["warnings"])
        else:
            fallback(why, p.early)

    warned: list[str] = []

    def fallback(why: str | None, seq: list) -> None:
        """The child failed: run its analyzers not yet merged (of ``seq``) in this process, with one warning."""
        if not warned:
            log.warning("gpulens: parallel analysis failed (%s); analysing those parts in this process instead", why)
            warned.append(str(why))
        todo = sorted((c for c in seq if c.name not in results), key=lambda c: pos[c.name])
        run(todo, [c for c in p.deferred if c.name not in results], results)

    def child_work(send: Callable[[Any], None]) -> dict:
        own: dict = dict(results)
        if p.early:
            run(p.early, p.child, own)
            send({"results": {c.name: own[c.name] for c in p.early},
                  "warnings": {c.name: added[c.name] for c in p.early}})
        run(p.child, [], own)
        return {"results": {c.name: own[c.name] for c in p.child}, "warnings": {c.name: added[c.name] for c in p.child}}

    run(p.prefix, p.early + p.child + p.parent + p.deferred, results)
    _warm(timeline)
    restore = _keep_shared(timeline)
    started = time.monotonic()
    child = _fork(child_work)
    try:
        run(p.parent, p.deferred, results)
        if p.early and not early_names <= set(results):
            take_early()  # no parent analyzer read them: merged now, in serial order by the final sort
        answer, why = (None, "fork failed") if child is None else child.answer(_deadline(started, time.monotonic()))
    except BaseException:
        if child is not None and child.failed is None:
            child._fail("this process failed")  # killed, reaped, its pipe closed
        gc.unfreeze()
        restore()
        raise
    gc.unfreeze()
    if answer is not None:
        results.update(answer["results"])
        added.update(answer["warnings"])
    else:
        fallback(why, p.early + p.child)
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
