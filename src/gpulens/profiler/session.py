"""``gpulens.profile()``: run a block of user code under ``torch.profiler`` and hand back the analysis.

::

    with gpulens.profile(out="gpulens-out", steps=3, warmup=1) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
    prof.report.sources[0].results["hotspots"].table

On exit the session writes into ``out``: the Kineto trace ``<stem>.pt.trace.json.gz``, the JSON report
``<stem>.report.json`` and, when the HTML reporter is installed, ``<stem>.report.html``. ``<stem>`` is ``label``
(default ``profile``), suffixed ``-2``, ``-3``… so that an earlier run's files are never overwritten.

What it adds to what ``gpulens analyze`` on the trace would give:

* FLOP counts: with ``with_flops`` torch computes FLOPs per op in-process but torch 2.13 does not write them to the
  trace JSON; they are copied onto the Timeline's ``cpu_op`` rows (``flops`` column, see :mod:`.flops`).
* Telemetry counter tracks (:mod:`.telemetry`), and a Timeline source ``{"collector": "telemetry", ...}`` saying
  whether it was available and why not.

The profiled program is never broken by gpulens: a failure after the user's code ran (export, analysis, writing
reports) is logged and kept in :attr:`profile.error`; the user's own exception always propagates unchanged.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from pathlib import Path
from typing import Any, Callable

from gpulens._outputs import write_atomic
from gpulens.errors import DependencyError, check_label, check_output_dir
from gpulens.profiler.flops import attach_flops, flops_by_start
from gpulens.profiler.quiet import NO_DEVICE, quiet_markers
from gpulens.profiler.telemetry import Sampler
from gpulens.units import plural

log = logging.getLogger("gpulens.profiler")


def _free_stem(out: Path, stem: str) -> str:
    """First of ``stem``, ``stem-2``, ``stem-3``… for which no output file exists yet in ``out``."""
    from gpulens._outputs import REPORT_SUFFIXES, free_stem

    return free_stem(out, stem, (".pt.trace.json.gz", *REPORT_SUFFIXES))


def _activities(torch: Any) -> list:
    """CPU plus the GPU activity torch supports here (CUDA covers ROCm/HIP builds too)."""
    tp = torch.profiler
    acts = [tp.ProfilerActivity.CPU]
    supported = set(tp.supported_activities())
    if torch.cuda.is_available() and tp.ProfilerActivity.CUDA in supported:
        acts.append(tp.ProfilerActivity.CUDA)
    return acts


def _stopped_by_another(prof: Any) -> bool:
    """Whether torch's profiler, recording for ``prof`` (a ``torch.profiler.profile`` in a recording phase), was
    stopped by someone else: a ``torch.profiler.profile`` block of the profiled code ends the one session torch
    keeps. Stopping ``prof`` then and exporting its (absent) results crashes the process (segmentation fault in
    ``export_chrome_trace``, torch 2.x), so gpulens must not stop it."""
    import torch

    action = getattr(prof, "current_action", None)
    recording = action is not None and action.name in ("RECORD", "RECORD_AND_SAVE")
    enabled = getattr(getattr(torch._C, "_autograd", None), "_profiler_enabled", None)
    return recording and callable(enabled) and not enabled()


def failure_text(exc_type: Any, exc: Any) -> str | None:
    """How the profiled block ended early, in one line (None when it ran to its end, ``sys.exit(0)`` included):
    ``"the profiled code raised ValueError: bad batch"``, ``"the profiled code exited with status 3"``,
    ``"the profiled code was interrupted (Ctrl-C)"``. Its profile then covers the run up to that point (partial)."""
    if exc_type is None:
        return None
    if issubclass(exc_type, SystemExit):
        code = getattr(exc, "code", None)
        if code is None or code == 0:
            return None
        return f"the profiled code exited with status {code if isinstance(code, int) else 1}"
    if issubclass(exc_type, KeyboardInterrupt):
        return "the profiled code was interrupted (Ctrl-C)"
    msg = str(exc).strip().splitlines()[0] if exc is not None and str(exc).strip() else ""
    return f"the profiled code raised {exc_type.__name__}" + (f": {msg}" if msg else "")


class profile:  # noqa: N801 (reads as a function at the call site, like torch.profiler.profile)
    """Context manager and decorator that profiles a block of code with torch.profiler and analyzes it.

    Args:
        out: folder for the trace and reports (created; existing files are never overwritten).
        steps: number of training steps to record (``prof.step()`` ends a step). None records the whole block.
        warmup: steps profiled but discarded before the recorded ones (lets the profiler settle).
        wait: steps skipped entirely before the warm-up.
        label: file stem and report label (default ``"profile"``).
        record_shapes: record input shapes and dtypes (``input_dims``/``input_types`` columns; roofline uses them).
        with_flops: ask torch for FLOP estimates of matmul/conv ops (``flops`` column, FLOP).
        with_stack: record Python stacks (larger traces).
        profile_memory: record allocations.
        telemetry: ``"auto"`` (or True), ``"nvml"``, ``"rocm"``, a backend object (see
            :class:`~gpulens.profiler.telemetry.Sampler`), or False for none.
        telemetry_interval_s: sampling period in seconds (default 0.1).
        html: write the HTML dashboard when the HTML reporter is available.
        activities: torch ProfilerActivity list, to override the CPU + available GPU default.
        auto_step: call :meth:`step` after every ``optimizer.step()`` of any torch optimizer (a global post-hook,
            removed on exit), for code that cannot call ``prof.step()`` itself (``gpulens profile script.py``).

    Attributes (after the block):
        report: the :class:`~gpulens.report.Report` (None when nothing was recorded or analysis failed).
        timeline: the Timeline analysed.
        trace_path, json_path, html_path: files written (None when not written).
        steps_done: ``prof.step()`` calls made.
        telemetry_status: the sampler's status dict (see :class:`~gpulens.profiler.telemetry.Sampler`).
        error: one line describing a gpulens failure after the user's code ran, else None.
        timings_ns: wall ns of the user's ``block`` (trace export included: torch calls it at the last recorded
            ``step()``) and of gpulens' post-processing after it (``finalize``: FLOPs, collect, analyze, write).

    Raises:
        ValueError: ``steps`` below 1, ``warmup`` or ``wait`` not a whole number of 0 or more.
        TypeError: ``activities`` is a string or no list (torch would stop with a bare AssertionError).
        DependencyError: torch is not installed (on entering the block).
    """

    def __init__(self, out: str | Path = "gpulens-out", steps: int | None = None, warmup: int = 1, wait: int = 0,
                 label: str = "profile", record_shapes: bool = True, with_flops: bool = True,
                 with_stack: bool = False, profile_memory: bool = False, telemetry: str | bool = "auto",
                 telemetry_interval_s: float = 0.1, html: bool = True, activities: list | None = None,
                 auto_step: bool = False):
        if steps is not None and steps < 1:
            raise ValueError("steps must be at least 1 (or None to record the whole block)")
        if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0 or \
                isinstance(wait, bool) or not isinstance(wait, int) or wait < 0:
            raise ValueError(f"warmup and wait are whole numbers of steps, 0 or more (got warmup={warmup!r}, "
                             f"wait={wait!r})")
        if activities is not None and (isinstance(activities, (str, bytes)) or not hasattr(activities, "__iter__")):
            raise TypeError(f"activities is a list of torch.profiler.ProfilerActivity (e.g. [ProfilerActivity.CPU]), "
                            f"not {type(activities).__name__} {activities!r}")
        self.out, self.steps, self.warmup, self.wait = Path(out), steps, warmup, wait
        self.label = check_label(label, "label")
        self._opts = dict(record_shapes=record_shapes, with_flops=with_flops, with_stack=with_stack,
                          profile_memory=profile_memory)
        self.telemetry, self.telemetry_interval_s, self.html = telemetry, telemetry_interval_s, html
        self._activities, self.auto_step = activities, auto_step
        self._reset()

    def _reset(self) -> None:
        self.report = self.timeline = None
        self.trace_path = self.json_path = self.html_path = None
        self.steps_done = 0
        self.telemetry_status: dict[str, Any] = {}
        self.error: str | None = None
        self.failure: str | None = None
        self.timings_ns: dict[str, int] = {}
        self._flops: dict[tuple[str, int], float] = {}
        self._sampler: Sampler | None = None
        self._hook: Any = None
        self._no_device: str | None = None

    # -- context manager -----------------------------------------------------------------------------------------
    def __enter__(self) -> "profile":
        try:
            import torch
        except ImportError:
            raise DependencyError("torch", "gpulens.profile()", extra="torch") from None
        self._reset()
        check_output_dir(self.out, "out")
        self._stem = _free_stem(self.out, self.label)
        sched = None
        if self.steps is not None:
            sched = torch.profiler.schedule(wait=self.wait, warmup=self.warmup, active=self.steps, repeat=1)
        # a CPU-only torch build or a machine without a GPU driver records no GPU work: the report says why
        self._no_device = None if torch.cuda.is_available() else NO_DEVICE
        self._prof = torch.profiler.profile(activities=self._activities or _activities(torch), schedule=sched,
                                            on_trace_ready=self._on_trace_ready, **self._opts)
        preset = getattr(self._prof, "preset_metadata_json", None)  # torch ≥ 2.1: written into the trace file
        if self._no_device and callable(preset):  # so that `gpulens analyze`/`gate` of the trace say why, too
            preset("gpulens_no_gpu_device", json.dumps(self._no_device))
        if self.telemetry:
            kind = "auto" if self.telemetry is True else self.telemetry
            self._sampler = Sampler(kind, self.telemetry_interval_s).start()
        if self.auto_step:
            from torch.optim.optimizer import register_optimizer_step_post_hook

            self._hook = register_optimizer_step_post_hook(lambda *_: self.step())
        self._t0 = time.perf_counter_ns()
        try:
            with quiet_markers():
                self._prof.__enter__()
        except BaseException:  # the profiler could not start: leave no thread or hook behind
            self._release()
            raise
        return self

    def _release(self) -> None:
        """Remove the optimizer hook and stop the sampler (idempotent)."""
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
        if self._sampler is not None:
            self.telemetry_status = self._sampler.stop()

    def step(self) -> None:
        """Mark the end of one training step (forwards to torch.profiler's ``step()``)."""
        if self.trace_path is None:  # the recording starts or stops inside a step: torch's marker lines
            with quiet_markers():
                self._prof.step()
        else:
            self._prof.step()
        self.steps_done += 1

    def _on_trace_ready(self, prof: Any) -> None:
        """torch calls this when the recorded steps end (inside the user's block): export the trace, nothing more."""
        path = self.out / f"{self._stem}.pt.trace.json.gz"
        prof.export_chrome_trace(str(path))
        self.trace_path = path

    def __exit__(self, exc_type, exc, tb) -> bool:
        t1 = time.perf_counter_ns()
        self.failure = failure_text(exc_type, exc)
        if _stopped_by_another(self._prof):
            self._fail("the profiled code started and stopped a torch.profiler of its own, which ended gpulens's "
                       "recording (torch runs one profiler at a time): no trace to analyse — profile the code "
                       "without its own torch.profiler, or analyse the trace that one writes (gpulens analyze)")
            self._release()
            self.timings_ns["block"] = t1 - self._t0
            return False
        try:
            with quiet_markers():
                self._prof.__exit__(exc_type, exc, tb)
        except Exception as err:  # the export failed: report, never mask the user's outcome
            self._fail(f"stopping the profiler failed: {err}")
        self._release()
        self.timings_ns["block"] = t1 - self._t0
        if self._opts["with_flops"] and self.trace_path is not None:
            try:  # the last recording's in-memory results outlive the schedule; read them after the user's block
                self._flops = flops_by_start(self._prof)
            except Exception as err:
                self._fail(f"reading torch's FLOP counts failed: {err}")
        try:
            self._finalize()
        except Exception as err:  # analysis or writing failed after the user's code ran
            self._fail(f"analysis failed: {err.__class__.__name__}: {err}")
        self.timings_ns["finalize"] = time.perf_counter_ns() - t1
        return False

    def _fail(self, msg: str) -> None:
        self.error = self.error or msg
        log.warning("gpulens: %s", msg)

    # -- analysis ------------------------------------------------------------------------------------------------
    def _finalize(self) -> None:
        from gpulens.collectors import collect
        from gpulens.report import Report, analyze_timeline
        from gpulens.reports.json_report import render as render_json

        if self.trace_path is None:
            self._fail(f"no trace recorded: the block ended after {plural(self.steps_done, 'step(s)')}, before the "
                       f"first recorded step (wait={self.wait} + warmup={self.warmup})")
            return
        tl = collect(self.trace_path)
        attached = attach_flops(tl, self._flops)
        tl.meta.sources[0]["profile"] = {"steps_done": self.steps_done, "steps": self.steps, "warmup": self.warmup,
                                         "wait": self.wait, "flops_attached": attached, "failure": self.failure,
                                         "no_gpu_device": self._no_device}
        self._add_telemetry(tl)
        self.timeline = tl.validate()
        self.report = Report([analyze_timeline(tl, self.label)])
        self.json_path = self.out / f"{self._stem}.report.json"
        write_atomic(self.json_path, render_json(self.report).encode("utf-8"))
        if self.html:
            self.html_path = write_html(self.report, self.out / f"{self._stem}.report.html")

    def _add_telemetry(self, tl: Any) -> None:
        """Append the sampler's counter tracks (within the recorded window ± one interval) and its status."""
        from gpulens.timeline import COUNTER_COLUMNS
        from gpulens.timeline.timeline import _concat_tables

        st = dict(self.telemetry_status) if self._sampler is not None else \
            {"available": False, "reason": "telemetry disabled (telemetry=False)"}
        if self._sampler is not None and st.get("available") and len(tl.events):
            ev = tl.events
            pad = int(self.telemetry_interval_s * 1e9)
            window = (int(ev["start_ns"].min()) - pad, int((ev["start_ns"] + ev["dur_ns"]).max()) + pad)
            co = self._sampler.counters(window)
            st["rows"] = len(co)
            tl.counters = _concat_tables([tl.counters, co], COUNTER_COLUMNS) if len(co) else tl.counters
        # an unavailable sampler is a fact of the machine, not of the input: recorded in its source entry only, and
        # shown as an environment note by every reporter (reports._warnings.environment_notes), never a warning
        tl.meta.sources.append({"path": f"telemetry:{st.get('backend') or 'none'}", "collector": "telemetry", **st})

    # -- decorator -----------------------------------------------------------------------------------------------
    def __call__(self, fn: Callable) -> Callable:
        """Use as ``@gpulens.profile(...)``: every call of ``fn`` runs under this profiler (one output set per call)."""

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        wrapper.profile = self  # type: ignore[attr-defined]
        return wrapper


def write_html(report: Any, path: Path) -> Path | None:
    """Render ``report`` with :mod:`gpulens.reports.html` into ``path``; None (logged) when that reporter is absent."""
    try:
        from gpulens.reports.html import render
    except ImportError as exc:
        log.info("gpulens: HTML dashboard not written (HTML reporter not available: %s)", exc)
        return None
    text = render(report)
    write_atomic(path, text if isinstance(text, bytes) else text.encode("utf-8"))
    return path
