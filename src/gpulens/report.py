"""The Report: what the analyzers found for each input, the one object every reporter renders.

``analyze(paths)`` is the library call behind ``gpulens analyze``: collect each path into a Timeline, run the
analyzers, and gather the results. One :class:`SourceReport` per path (a directory of rank files is one source).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from gpulens import __version__
from gpulens.analyzers import AnalysisResult, Finding, run_all
from gpulens.analyzers.ranks import world_size
from gpulens.analyzers._unknown_time import invalid_gpu_work
from gpulens.collectors import collect
from gpulens._split_runs import split_mixed_devices
from gpulens.errors import GpulensError, note_input
from gpulens.units import agree, plural
from gpulens.reports.render_cache import created_now
from gpulens.timeline import Timeline

#: Version of the JSON report layout (docs/report-schema.md). Bump on incompatible change.
SCHEMA_VERSION = 2


def workload_failure(meta: Any) -> str:
    """How a live run's profiled code ended early (``gpulens profile``: ``inputs[].profile.failure``, e.g. "the
    profiled code raised ValueError: …"); ``""`` when it ran to its end or the input is not a live run."""
    for src in getattr(meta, "sources", None) or []:
        prof = src.get("profile") if isinstance(src, dict) else None
        if isinstance(prof, dict) and prof.get("failure"):
            return str(prof["failure"])
    return ""


# Inputs are loaded here, not in analyzers: an empty selection's hint loads the file once more, unselected.
def selection_hint(path: str, strict: bool = True, format: str | None = None, window: bool = False,
                   ranks: Any = None) -> str:
    """The hint shown when a --steps/--window selection matched no GPU work of ``path``: a valid selection built
    from the ``ProfilerStep#N`` ranges the file records (loaded again without a selection) — the step before the last
    (the last is often cut by the profiler's stop): ``"the trace records steps 3–7: try --steps 6:6"``. For a
    ``--window`` selection (``window``) of a trace without steps: how long its profiled window is, the range a
    window can name (``"the profiled window is 80.00 µs long (--window counts from its start): try --window
    0:80us"``). A ``--ranks`` selection (``ranks``: the ranks asked for) that holds none of the input's ranks: the
    ranks it records (:func:`~gpulens.timeline.selection.unmatched_ranks_text`)."""
    from gpulens.analyzers.steps import step_numbers
    from gpulens.collectors import collect
    from gpulens.timeline.selection import unmatched_ranks_text, window_length
    from gpulens.units import fmt_ns

    tl = None
    try:
        tl = collect(path, strict=strict, format=format)
        nums = step_numbers(tl)
    except Exception:  # noqa: BLE001 - the hint is a hint; the file loaded once already, with the selection
        nums = []
    if tl is not None and ranks is not None and not set(tl.ranks) & set(ranks):
        return unmatched_ranks_text(tl.ranks, next((s.get("rank_source") for s in tl.meta.sources), None))
    if not nums:
        length = window_length(tl) if window and tl is not None else None
        if length:
            us = -(-length // 1000)
            return (f"the profiled window is {fmt_ns(length)} long (--window counts from its start): try --window "
                    f"0:{us}us")
        return "the trace records no ProfilerStep#N ranges: run without --steps/--window to see the span it records"
    contiguous = nums[-1] - nums[0] == len(nums) - 1  # sorted and distinct: no gap (never a list of the range)
    listed = (f"{nums[0]}–{nums[-1]}" if contiguous and len(nums) > 1 else
              ", ".join(map(str, nums[:20])) + (", …" if len(nums) > 20 else ""))
    if len(nums) > 2 and contiguous:  # every step but the last, which the profiler's stop often cuts
        return (f"the trace records steps {listed}: try --steps {nums[0]}:{nums[-2]} (all but the last, which the "
                "profiler's stop often cuts)")
    pick = nums[-2] if len(nums) > 1 else nums[0]
    why = " (the step before the last, which the profiler's stop often cuts)" if len(nums) > 1 else ""
    return f"the trace records step{'s' if len(nums) > 1 else ''} {listed}: try --steps {pick}:{pick}{why}"


def note_missing_steps(select: Any, tl: Any, label: str) -> None:
    """Append to ``tl.meta.warnings`` (in place; ``label`` names the input) which step numbers a bounded ``--steps A:B`` selection asked for
    that the selected Timeline does not record (``--steps 3:5`` on a trace of steps 2–4 analysed steps 3–4 and said
    nothing of step 5). Nothing when the selection has no steps, or matched none (:func:`selection_hint` says so)."""
    import dataclasses

    from gpulens.analyzers.steps import step_numbers

    lo, hi = getattr(select, "steps", None) or (None, None)
    if lo is None or hi is None or hi < lo or tl.meta is None:
        return
    found = step_numbers(tl)
    if not found:
        return
    have = set(found)
    missing = [k for k in range(lo, min(hi, lo + 10_000) + 1) if k not in have]
    if not missing:
        return
    shown = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
    kept = ", ".join(map(str, found[:10])) + (", …" if len(found) > 10 else "")
    tl.meta = dataclasses.replace(tl.meta, warnings=[*tl.meta.warnings, (
        f"{label}: --steps {lo}:{hi}: {plural(len(missing), 'step')} of that range {agree(len(missing), 'is', 'are')} not in "
        f"the trace ({shown}); the figures cover {plural(len(found), 'step')} ({kept})")])


def mark_unmatched_selections(sources: list, strict: bool = True, format: str | None = None,
                              select: Any = None) -> None:
    """Set ``selection_unmatched`` (True) and ``selection_hint`` (:func:`selection_hint`) on each input of a source
    whose --steps/--window/--ranks selection (``select``) left no GPU work (in place: the reporters read them from
    the inputs)."""
    for s in sources:
        if s.status != "no_gpu_work":
            continue
        for src in s.timeline.meta.sources:
            if src.get("selection") and not src.get("selection_unmatched"):
                src["selection_unmatched"] = True
                src["selection_hint"] = selection_hint(src.get("path", s.label), strict, format,
                                                       "window" in str(src["selection"]),
                                                       getattr(select, "ranks", None))


@dataclass
class SourceReport:
    """Results for one input.

    Attributes:
        label: the path as given (or a name for in-memory timelines).
        timeline: the loaded Timeline (kept for reporters that draw the timeline itself; not serialised).
        results: analyzer name → AnalysisResult.
        device: the device spec found for it, if any.
    """

    label: str
    timeline: Timeline
    results: dict[str, AnalysisResult]
    device: Any = None
    #: ``status`` and ``summary`` computed once (each reporter reads them; a cache hit restores them).
    cached: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        from gpulens.timeline.secrets import encodable

        self.label = encodable(str(self.label))  # a file name that is not UTF-8 must still be writable
        meta = getattr(self.timeline, "meta", None)
        if meta is not None and hasattr(meta, "scrub"):
            # a note appended after the collector's validate (a device name from an ncu preamble, a fold or
            # join note) names the input path too: every report writes the same printable text
            meta.scrub()

    @property
    def status(self) -> str:
        """``"ok"``, ``"partial"`` (input truncated, events dropped as unreadable, rank files of a rank directory could
        not be read, or a live run's
        profiled code raised or exited non-zero: :func:`workload_failure`) or
        ``"no_gpu_work"`` (no GPU event, no kernel summary and no counter rows of kernels)."""
        if "status" not in self.cached:
            self.cached["status"] = self._status()
        return self.cached["status"]

    def __repr__(self) -> str:
        """One line: the input, its status, its kernel launches, the run's verdict (the ``verdicts`` analyzer's
        ``run_verdict``, the console's "Verdict:" word; "verdict not computed" when that analyzer did not run) and
        how many results it holds (the dataclass's own repr printed every table and column document: 156,683
        characters for one trace)."""
        n = self.summary.get("kernel_count")
        kernels = "kernels unknown" if n is None else f"{int(n):,} kernel launches"
        v = self.results["verdicts"].summary.get("run_verdict") if "verdicts" in self.results else None
        verdict = f"verdict {v}" if v else "verdict not computed"
        return f"SourceReport({self.label!r}: {self.status}, {kernels}, {verdict}, {len(self.results)} analysis results)"

    def _status(self) -> str:
        from gpulens.analyzers._span import has_summary_kernels
        from gpulens.analyzers.context import context_of
        from gpulens.timeline.schema import GPU_KINDS

        has_gpu = bool(context_of(self.timeline).mask_of(*GPU_KINDS).any())  # kind codes only: no row copy
        if not has_gpu and not has_summary_kernels(self.timeline):
            return "no_gpu_work"
        meta = self.timeline.meta
        return "partial" if meta.truncated or getattr(meta, "unread", None) or getattr(meta, "dropped", None) \
            or workload_failure(meta) else "ok"

    @property
    def summary(self) -> dict[str, Any]:
        """Headline figures: kernel count, kernel time (plain sum, ns), kernel busy (union, ns), span, busy %...

        Span and busy % follow the one definition of :mod:`gpulens.analyzers._span` (``span_definition``): ``span_ns``
        is the wall GPU span (never a sum over ranks), ``gpu_busy_pct`` = Σ busy / Σ per-GPU span (≤ 100 %),
        ``window_ns`` the profiled window (host events included) and ``gpu_utilization_pct`` = busy / window.
        For inputs without a real timeline (counter-collection replays, summaries) the busy, span and idle figures
        are None (unknown, not measured) and ``busy_unknown_reason`` says why.

        Also ``memcpy_count``, ``memcpy_bytes`` (sum of the recorded payloads of copies, bytes; None when copies exist
        and none records its size; both None for a per-kernel summary or counter replay, which records no copy), ``memcpy_sizes_unknown`` (copies without a recorded size) and ``flops`` (sum of
        the FLOP counts the source recorded, e.g. Kineto ``with_flops`` on cpu_ops; 0 when none).
        """
        if "summary" not in self.cached:
            self.cached["summary"] = self._summary()
        return self.cached["summary"]

    def _summary(self) -> dict[str, Any]:
        hs = self.results.get("hotspots")
        bd = self.results.get("breakdown")
        h = hs.summary if hs else {}
        b = bd.summary if bd else {}
        ev = self.timeline.events
        from gpulens.analyzers._span import busy_unknown_reason, counter_only_reason

        unknown = busy_unknown_reason(self.timeline)
        copies = _kind_mask(ev, "memcpy")
        out = {
            "kernel_count": h.get("kernel_count", 0),
            "unique_kernels": h.get("unique_kernels", 0),
            # of those, whole CUDA graph replays traced at graph level (only when there are some)
            **{k: h[k] for k in ("graph_replays", "graphs") if k in h},
            "kernel_time_ns": h.get("kernel_time_ns", 0),
            # the same launches' time after the stream-overrun repair (a duration running past the next event on its
            # stream is clipped there): what the per-kernel tables sum; below kernel_time_ns only when some overran
            "kernel_effective_ns": h.get("kernel_effective_ns"),
            # of those clipped, the runaways: a stream's last event cut at the end of the rest of the run
            "kernel_runaway_events": h.get("runaway_events", 0),
            # launches without a duration (analyzers._unknown_time): kernel_time_ns is then unknown, and the sum over
            # the launches that have one is said beside it, labelled as such
            "untimed_launches": h.get("untimed_launches", 0),
            "untimed_not_events": h.get("untimed_not_events", 0),
            "timed_kernel_time_ns": h.get("timed_kernel_time_ns"),
            "kernel_busy_ns": b.get("kernel_busy_ns", 0),
            "gpu_busy_ns": b.get("busy_ns", 0),
            # no GPU work (or no breakdown): no GPU span — unknown (None) for every input, never 0
            "span_ns": b.get("span_ns"),
            # no GPU work: a share of a span that does not exist is no figure (None), as the Markdown's "none"
            "gpu_busy_pct": b.get("busy_pct"),
            "device_span_ns": b.get("device_span_ns"),
            "rank_span_ns": b.get("rank_span_ns", {}),
            "window_ns": b.get("window_ns", 0),
            "gpu_utilization_pct": b.get("gpu_utilization_pct"),
            "span_basis": b.get("span_basis", "wall"),
            "span_definition": b.get("span_definition", ""),
            "computation_ns": b.get("computation_ns", 0),
            "exposed_comm_ns": b.get("exposed_comm_ns", 0),
            "exposed_memcpy_ns": b.get("exposed_memcpy_ns", 0),
            "exposed_memset_ns": b.get("exposed_memset_ns", 0),
            "idle_ns": b.get("idle_ns", 0),
            # idle inside clock domains that the GPU's work on another clock may fill: idle_ns is then at most
            "idle_other_clock_ns": b.get("idle_other_clock_ns", 0),
            "idle_bound": b.get("idle_bound"),
            # GPU work recorded without a time (analyzers._unknown_time.untimed_gpu_rows): busy figures are then at
            # least, idle at most; busy % at least or unknown (busy_bound)
            "untimed_gpu_work": b.get("untimed_gpu_work", 0),
            "idle_untimed_ns": b.get("idle_untimed_ns", 0),
            "busy_bound": b.get("busy_bound"),
            "busy_unknown_reason": unknown,
            "cpu_op_count": int(_kind_mask(ev, "cpu_op").sum()),
            "event_count": int(len(ev)),
            "rejected_event_count": int(len(self.timeline.rejected)),
            # GPU work refused for an impossible time (B06): it ran, its duration is unknown (the gate cannot judge
            # the figures it would enter)
            "invalid_gpu_work": invalid_gpu_work(self.timeline),
            "ranks": self.timeline.ranks,
            # the run's ranks as the inputs record them (Kineto distributedInfo.world_size): more than the ranks
            # read when the trace is a sample of the job — every cross-rank figure then covers only those read
            "world_size": world_size(self.timeline),
            "memcpy_count": int(copies.sum()),
            "memcpy_bytes": _known_sum(ev["bytes"][copies]),
            "memcpy_sizes_unknown": int(ev["bytes"][copies].isna().sum()),
            # FLOPs are recorded by few sources (Kineto with_flops): none recorded is unknown, never 0 FLOP
            "flops": float(ev["flops"].sum()) if ev["flops"].notna().any() else None,
            "verdict": self.results["verdicts"].summary.get("run_verdict") if "verdicts" in self.results else None,
            # the part of the span that verdict is about when not the whole span (analyzers._run_shares.verdict_scope)
            "verdict_scope": (self.results["verdicts"].summary.get("verdict_scope")
                              if "verdicts" in self.results else None),
        }
        if unknown:  # not measured: unknown (None), never 0 or 100 %
            for k in ("kernel_busy_ns", "gpu_busy_ns", "span_ns", "gpu_busy_pct", "device_span_ns", "window_ns",
                      "gpu_utilization_pct", "computation_ns", "exposed_comm_ns", "exposed_memcpy_ns", "exposed_memset_ns",
                      "idle_ns", "idle_other_clock_ns"):
                out[k] = None
            out["rank_span_ns"] = {}
        if not out["memcpy_count"] and counter_only_reason(self.timeline):
            # a per-kernel summary or counter replay records no copy: how many ran is unknown, never "0 copies"
            out["memcpy_count"] = out["memcpy_bytes"] = None
        return out

    @property
    def devices_by_work(self) -> tuple[list[Any], list[Any]]:
        """The recorded devices (``meta.devices``) that ran GPU work and those that ran none
        (:func:`gpulens.devices.split_by_work`), worked out once: every reporter names them, and a cache hit restores
        them with ``status`` and ``summary`` instead of loading the Timeline's events again."""
        if "devices_by_work" not in self.cached:
            from gpulens.devices import split_by_work

            busy, idle = split_by_work(self.timeline)
            self.cached["devices_by_work"] = (list(busy), list(idle))
        return self.cached["devices_by_work"]

    def findings(self) -> list[Finding]:
        """All analyzers' findings as a tree (:func:`gpulens.analyzers._tree.arrange`): roots by time at stake,
        largest first, each followed by the findings that detail it (``parent`` set; their time is part of the
        root's, so totals count findings without a parent only)."""
        from gpulens.analyzers._tree import arrange

        return arrange([f for r in self.results.values() for f in r.findings])


@dataclass
class Report:
    """A whole analysis run: one SourceReport per input, plus provenance."""

    sources: list[SourceReport]
    schema_version: int = SCHEMA_VERSION
    tool_version: str = __version__
    created: str = field(default_factory=created_now)
    #: The analysis-results cache file this report was read from or stored to (None: not cached); rendered reports
    #: are cached beside it (:mod:`gpulens.reports.cached`).
    results_file: Any = field(default=None, repr=False, compare=False)

    @property
    def status(self) -> str:
        """``"no_gpu_work"`` when no source has GPU work, ``"partial"`` when any source is partial, else ``"ok"``."""
        states = [s.status for s in self.sources]
        if not any(x != "no_gpu_work" for x in states):
            return "no_gpu_work"
        return "partial" if "partial" in states else "ok"

    @property
    def has_gpu_work(self) -> bool:
        """True when at least one source contains GPU events."""
        return any(s.status != "no_gpu_work" for s in self.sources)

    def __repr__(self) -> str:
        """Short: the report's status and one :meth:`SourceReport.__repr__` line per input (never the tables; the
        console summary is ``gpulens.reports.console.render(report)``)."""
        head = f"Report({self.status}, {len(self.sources)} source{'s' if len(self.sources) != 1 else ''}, " \
               f"gpulens {self.tool_version}, created {self.created})"
        return "\n".join([head] + [f"  {s!r}" for s in self.sources])


def analyze_timeline(timeline: Timeline, label: str = "timeline", only: list[str] | None = None,
                     device_spec: Any = None, workers: int | None = 1) -> SourceReport:
    """Run the analyzers on an in-memory Timeline.

    Args:
        timeline: a validated Timeline.
        label: name shown in reports.
        only: analyzer names to run (all when None).
        device_spec: a :class:`gpulens.devices.DeviceSpec` or the path of a spec file (JSON/TOML) to use instead of
            the device identified from the trace.
        workers: processes the analyzers may use (see :func:`gpulens.analyzers.run_all`).

    Raises:
        TraceFormatError: the spec file cannot be read.
    """
    device = _device_for(timeline) if device_spec is None else _load_device_spec(device_spec)
    if device_spec is not None:
        _warn_spec_conflict(timeline, label, device)
    results = run_all(timeline, device, only, workers)
    _settle_day_long(timeline)
    return SourceReport(label, timeline, results, device)


def _settle_day_long(timeline: Timeline) -> None:
    """Complete the Timeline's warning about GPU events lasting longer than a day with what the GPU span and busy
    time include of them (:func:`gpulens.timeline.input_notes.settle_day_long`), from the stream clip and runaway
    rule the analyzers apply (:attr:`gpulens.analyzers.context.AnalysisContext.overruns`). Nothing to do, and
    nothing computed, without such an event."""
    from gpulens.timeline.input_notes import DAY_NS, settle_day_long

    ev = timeline.events
    if not len(ev) or not (ev["dur_ns"].to_numpy() > DAY_NS).any():
        return
    from gpulens.analyzers.context import context_of

    settle_day_long(timeline.meta, ev, context_of(timeline).overruns)


def _warn_spec_conflict(timeline: Timeline, label: str, spec: Any) -> None:
    """Warn once (``timeline.meta.warnings``, in place) when the given ``--device-spec`` is not the GPU the trace
    records (:func:`gpulens.devices.spec_conflict`): both named, and which spec the figures use."""
    from gpulens.devices import spec_conflict

    text = spec_conflict(timeline, spec)
    if text and not any(text in w for w in timeline.meta.warnings):
        timeline.meta.warnings.append(f"{label}: {text}")


def _load_device_spec(spec: Any) -> Any:
    from gpulens.devices import DeviceSpec, load_spec

    return spec if isinstance(spec, DeviceSpec) else load_spec(spec)


def _device_for(timeline: Timeline) -> Any:
    """The DeviceSpec matching the Timeline's recorded GPU, when the devices package can identify one."""
    try:
        from gpulens.devices import identify  # type: ignore[attr-defined]
    except ImportError:
        return None
    return identify(timeline)


def analyze(paths: str | os.PathLike | Iterable[str | Path], strict: bool = True, format: str | None = None,
            only: list[str] | None = None,
            on_load: Callable[[str], Any] | None = None, select: Any = None, cache: bool = False,
            workers: int | None = None, scheduler: Any = None, device_spec: Any = None,
            join: bool = False, require_all: bool = False) -> Report:
    """Load each path and analyze it (the library form of ``gpulens analyze``).

    Args:
        paths: trace files or directories (or one such path); each becomes one SourceReport.
        strict: see :func:`gpulens.collectors.collect`.
        format: force a collector by name instead of sniffing.
        only: analyzer names to run (all when None).
        on_load: called with each path before it is loaded (progress display).
        device_spec: a DeviceSpec or spec-file path used for every input instead of the identified device.
        join: treat the inputs as recordings of one run: the counters and launch resources of the 2nd, 3rd…
            input are attached to the first input's kernels (:func:`gpulens.collectors.join.join_dispatches`)
            and one SourceReport is made. Without it, AMD profiler inputs (rocprof, rocprofv3, rocpd,
            rocprofiler-compute) are folded into a framework trace only when most of its kernels match
            (:func:`gpulens.collectors.join.fold_profiler_inputs`).
        select, cache, workers, scheduler, require_all: load-time selection, Timeline cache, processes and Dask
            scheduler for rank directories, and whether a directory's unusable file is an error (see
            :func:`gpulens.collectors.collect`).

    Raises:
        TraceFormatError: an input cannot be read.
        GpulensError: ``paths`` is empty.
    """
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)  # one path, not its characters
    if not paths:  # an empty Report would read as "no GPU work" in every report
        raise GpulensError("no input: give one or more trace files or directories")
    loaded = []
    if device_spec is not None:
        device_spec = _load_device_spec(device_spec)
    memo = None
    if cache and scheduler is None and not join and len(paths) == 1:
        from gpulens.cache import results_file_for

        memo = results_file_for(paths[0], strict, format, only, select, device_spec)
    if memo is not None:
        from gpulens.cache import load_results

        hit = load_results(memo)
        if isinstance(hit, dict) and isinstance(hit.get("results"), dict) and isinstance(hit.get("cached"), dict) \
                and hit.get("label") == str(paths[0]):
            if on_load:
                on_load(str(paths[0]))
            p0 = paths[0]
            tl = LazyTimeline(hit["meta"], hit["rejected"],
                              lambda: collect(p0, strict=strict, format=format, select=select, cache=True))
            src = SourceReport(str(paths[0]), tl, hit["results"], hit.get("device"), dict(hit["cached"]))
            return Report([src], results_file=memo)
    for p in paths:
        if on_load:
            on_load(str(p))
        loaded.append((str(p), collect(p, strict=strict, format=format, select=select, cache=cache,
                                          workers=workers, scheduler=scheduler, require_all=require_all)))
    loaded = [part for label, tl in loaded
              for part in split_mixed_devices(label, tl, strict=strict, format=format, cache=cache)]
    loaded = attach_ncu_inputs(loaded)
    if select is not None and getattr(select, "steps", None) is not None:
        for label, tl in loaded:
            note_missing_steps(select, tl, label)
    if not join:
        from gpulens.collectors.join import fold_profiler_inputs

        loaded = fold_profiler_inputs(loaded)
    if join and len(loaded) > 1:
        from gpulens.collectors.join import join_dispatches

        label, tl = loaded[0]
        for other_label, other in loaded[1:]:
            tl = join_dispatches(tl, other).timeline
            label = f"{label} + {other_label}"
        loaded = [(label, tl)]
    from gpulens.collectors._parallel import analysis_workers

    par = {str(p): analysis_workers(p, workers) for p in paths}  # a rank directory: as many as loaded it
    sources = []
    for label, tl in loaded:
        try:
            sources.append(analyze_timeline(tl, label, only, device_spec, par.get(label, 1)))
        except Exception as exc:
            note_input(exc, f"analyzing {label}")
            raise
    report = Report(sources)
    if select is not None and (getattr(select, "active", False) or getattr(select, "ranks", None) is not None):
        mark_unmatched_selections(report.sources, strict, format, select)
    if memo is not None and len(report.sources) == 1 and report.sources[0].label == str(paths[0]):
        from gpulens.cache import store_results

        src = report.sources[0]
        cached = {"status": src.status, "summary": src.summary, "devices_by_work": src.devices_by_work}
        store_results(memo, {"results": src.results, "device": src.device, "cached": cached, "label": src.label,
                             "meta": src.timeline.meta, "rejected": src.timeline.rejected})
        report.results_file = memo
    return report


class LazyTimeline:
    """Stands in for a source's Timeline when its analysis results came from the cache: ``meta`` and ``rejected``
    (what the reporters read) are at hand; anything else (``events``, ``counters``, ``tables``…, e.g. for
    ``--perfetto`` or ``--csv``) loads the Timeline (itself cached) on first use and is served from it."""

    def __init__(self, meta: Any, rejected: Any, load: Callable[[], Timeline]):
        self.meta = meta
        self.rejected = rejected
        self._load = load
        self._tl: Timeline | None = None

    def loaded(self) -> Timeline:
        """The real Timeline (loaded once)."""
        if self._tl is None:
            self._tl = self._load()
            self.meta = self._tl.meta
            self.rejected = self._tl.rejected
        return self._tl

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_tl", "_load", "meta", "rejected"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)


def _kind_mask(events: Any, kind: str) -> Any:
    """Boolean numpy mask of the event rows of ``kind``, from the category codes (no per-row string compare)."""
    import numpy as np

    col = events["kind"]
    if hasattr(col, "cat"):
        cats = list(col.cat.categories)
        if kind not in cats:
            return np.zeros(len(col), dtype=bool)
        return col.cat.codes.to_numpy() == cats.index(kind)
    return (col == kind).to_numpy()


NCU_COLLECTORS = ("ncu_csv", "ncu_rep", "ncu_text")


def attach_ncu_inputs(loaded: list[tuple[str, Timeline]]) -> list[tuple[str, Timeline]]:
    """Fold Nsight Compute inputs into the trace inputs they profiled (``gpulens analyze trace.json r.ncu-rep``).

    Each ncu Timeline is matched (:func:`gpulens.timeline.join.attach_ncu`) against every non-ncu input with kernel
    events and attached to the one with the most matched launches; it is then no longer a source of its own. An ncu
    input that matches nothing (or comes alone) stays a source of its own, and every trace input's warnings say so."""
    from gpulens.timeline.join import attach_ncu
    def is_ncu(tl: Timeline) -> bool:
        return bool(tl.meta.sources) and all(s.get("collector") in NCU_COLLECTORS for s in tl.meta.sources)

    if not any(is_ncu(tl) for _, tl in loaded):  # nothing to attach: no kernel selection over every input's events
        return loaded
    targets = [i for i, (_, tl) in enumerate(loaded) if not is_ncu(tl) and len(tl.of_kind("kernel", "comm"))]
    if not targets:
        return loaded
    out = list(loaded)
    dropped = set()
    for i, (label, tl) in enumerate(loaded):
        if not is_ncu(tl) or not len(tl.events):
            continue
        t, best = max(((t, attach_ncu(out[t][1], tl)) for t in targets), key=lambda x: x[1].matched)
        if best.matched:
            out[t] = (out[t][0], best.timeline)
            dropped.add(i)
        else:
            other = "the other input" if len(targets) == 1 else f"the {len(targets)} other inputs"
            tl.meta.warnings.append(f"{label}: no profiled launch matched a kernel of {other}")
            for t in targets:  # said in the trace's own report too, read first (the ncu source's comes last)
                out[t][1].meta.warnings.append(f"{label} (Nsight Compute) matched no kernel here: no counters joined")
    return [x for i, x in enumerate(out) if i not in dropped]


def _known_sum(values: Any) -> int | None:
    """Sum of the recorded values; None when there are values and none is recorded (unknown, never 0)."""
    if len(values) and values.isna().all():
        return None
    return int(values.sum())
