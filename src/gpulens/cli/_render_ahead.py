"""The HTML and Markdown reports of ``gpulens analyze`` rendered in a forked child while this process prints the
console summary and writes the JSON report (issue 16, target 3: ``--html --markdown`` close to ``--json`` alone).

On a 100k-kernel trace the first HTML + Markdown render takes ≈ 0.25 s of CPU, about what the console summary and
the JSON report take together (≈ 0.2 s): on two cores the two run side by side. It trades CPU for wall time —
measured (session 44, 3 alternated runs, 2 shared cores): the child takes 0.31 s and this process ≈ 0.09 s more
than without the fork (copy-on-write of the heap pages both reuse), so ``--json --html --markdown`` costs 2.50–2.55 s
of CPU against 2.31–2.48 s rendered in turn, while this process waits only ≈ 0.1 s for the child after its own
share (the serial renders added ≈ 0.25 s to the wall time). The child renders with the same
renderers and the same Report (forked memory: the same objects), so the text is the one this process would render
— renderers compute nothing (:mod:`gpulens.reports`). The texts come back pickled through a pipe
(:class:`gpulens.analyzers._parallel_run._Child`); this process writes every file itself, in the order asked for.

Safety: a child that fails (an exception, a crash, no answer in time) is killed and the report is rendered here
instead, so its error, if any, is the one the serial run gives. Used only by the console command
(:data:`gpulens.cli._ENDS_PROCESS`: its objects are frozen out of the collector for the rest of the process), on
Linux with ``os.fork``, two or more cores, and a run of at least
:data:`~gpulens.analyzers._parallel_run.MIN_EVENTS` events (a small report renders in less time than a fork
costs).
"""

from __future__ import annotations

import sys
import time
from typing import Any

#: Renderers worth a child of their own (``gpulens.reports.<name>``); the JSON report stays in this process.
AHEAD = ("html", "markdown")


def _events(report: Any) -> int:
    """Events of the report's loaded Timelines (a cache hit's lazy Timeline is not loaded for this: 0)."""
    from gpulens.report import LazyTimeline

    return sum(len(s.timeline.events) for s in report.sources if not isinstance(s.timeline, LazyTimeline))


def allowed(report: Any, modules: list[str]) -> bool:
    """Whether :func:`start` forks for ``modules``: the console command, two renderers' worth of work (at least one
    of :data:`AHEAD`), Linux with ``os.fork``, two or more cores and a large run."""
    import os

    from gpulens import cli

    if not cli._ENDS_PROCESS or not any(m in AHEAD for m in modules):
        return False
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    from gpulens.analyzers._parallel_run import MIN_EVENTS, _cores

    return _cores() >= 2 and _events(report) >= MIN_EVENTS


class Ahead:
    """The renderings of :data:`AHEAD` modules asked for, computed in a forked child (:func:`start`)."""

    def __init__(self, child: Any, modules: list[str], started: float):
        self.child, self.modules, self.started = child, modules, started
        self._texts: dict[str, Any] | None = None

    def text(self, report: Any, module: str) -> Any:
        """The rendering of ``module``: the child's, or rendered here when the child failed or never had it."""
        from gpulens.reports.render_cache import render

        if module not in self.modules:
            return render(report, module)
        if self._texts is None:
            from gpulens.analyzers._parallel_run import _deadline

            got, _why = (None, "fork failed") if self.child is None else \
                self.child.answer(_deadline(self.started, time.monotonic()))
            self._texts = got if isinstance(got, dict) else {}
        if module in self._texts:
            return self._texts[module]
        return render(report, module)

    def close(self) -> None:
        """Kill and reap the child if its answer was never taken (this process failed before writing the reports)."""
        if self._texts is None and self.child is not None and self.child.failed is None:
            self.child._fail("not needed")
        self._texts = self._texts if self._texts is not None else {}


def start(report: Any, modules: list[str]) -> Ahead | None:
    """Fork a child rendering the :data:`AHEAD` ones of ``modules`` (:func:`gpulens.reports.render_cache.render`)
    when :func:`allowed`; None otherwise (render as usual)."""
    if not allowed(report, modules):
        return None
    from gpulens.analyzers._parallel_run import _fork
    from gpulens.reports.render_cache import render

    wanted = [m for m in dict.fromkeys(modules) if m in AHEAD]

    def work(_send: Any) -> dict[str, Any]:
        return {m: render(report, m) for m in wanted}

    return Ahead(_fork(work), wanted, time.monotonic())
