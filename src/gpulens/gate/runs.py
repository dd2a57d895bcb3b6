"""Runs: per-metric samples, environment and machine key taken from JSON reports (docs/report-schema.md).

Every *source* of a report is one run (one repeat): ``gpulens analyze r1.json r2.json --json all.json`` gives two
runs, and so do two reports of one source each. A trace file given instead of a report is analyzed first.

Metrics taken from each run (all ``direction = "lower"`` is better):

==================  ======  =====  =======================================================================
metric              kind    unit   from the report
==================  ======  =====  =======================================================================
``step_ns``         timing  ns     ``analyses.steps.summary.median_step_ns``: median ``ProfilerStep#N`` time
                                   (when the trace has steps; the run's typical step, robust to a slow first)
``span_ns``         timing  ns     ``summary.span_ns``: first → last GPU event (the step/run time on the GPU)
``gpu_busy_ns``     timing  ns     ``summary.gpu_busy_ns``: union of all GPU work
``kernel_busy_ns``  timing  ns     ``summary.kernel_busy_ns``: union of kernel intervals
``kernel_time_ns``  timing  ns     ``summary.kernel_effective_ns``: sum of kernel durations, each clipped at the
                                   start of the next event on its stream (one runaway recorded duration is not a
                                   regression of seconds; the per-kernel metrics are clipped the same way);
                                   ``summary.kernel_time_ns``, the recorded sum, in a report without it
``kernel_count``    count   —      ``summary.kernel_count``: kernel launches recorded
``unique_kernels``  count   —      ``summary.unique_kernels``
``launch_calls``    count   —      ``analyses.launches.summary.launch_calls``: runtime launch API calls
``memcpy_bytes``    count   bytes  ``summary.memcpy_bytes``: payload of copies
``flops``           count   FLOP   ``summary.flops``: FLOPs recorded by the profiler (only when non-zero)
``kernel:<name>``   timing  ns     ``analyses.hotspots.table[].effective_ns`` of that kernel (0 when absent; no
                                   sample from a run that did not record its durations)
==================  ======  =====  =======================================================================

Kernels are matched across runs by :func:`gpulens.timeline.names.kernel_key` (demangled, ``.kd`` suffixes dropped,
demangler spellings unified), so a baseline recorded with mangled names (``_ZN…``) and a candidate with demangled
names (or ``… [clone .kd]``) compare kernel for kernel; rows whose names share a key are summed.

Counts are deterministic for a deterministic workload and are compared exactly; timings carry noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from gpulens.errors import GpulensError, TraceFormatError
from gpulens.gate.environment import _get, common_env, environment_of, machine_key
from gpulens.timeline.names import kernel_key
from gpulens.units import plural

#: Whole-run metrics that are only bounds in a run holding GPU work recorded without a time
BOUNDED_BY_UNTIMED = frozenset({"span_ns", "gpu_busy_ns", "kernel_busy_ns"})

#: (metric, kind, unit, path in the source dict) of the whole-run metrics.
RUN_METRICS = (
    ("step_ns", "timing", "ns", ("analyses", "steps", "summary", "median_step_ns")),
    ("span_ns", "timing", "ns", ("summary", "span_ns")),
    ("gpu_busy_ns", "timing", "ns", ("summary", "gpu_busy_ns")),
    ("kernel_busy_ns", "timing", "ns", ("summary", "kernel_busy_ns")),
    ("kernel_time_ns", "timing", "ns", ("summary", "kernel_effective_ns")),
    ("kernel_count", "count", "", ("summary", "kernel_count")),
    ("unique_kernels", "count", "", ("summary", "unique_kernels")),
    ("launch_calls", "count", "", ("analyses", "launches", "summary", "launch_calls")),
    ("memcpy_bytes", "count", "bytes", ("summary", "memcpy_bytes")),
    ("flops", "count", "FLOP", ("summary", "flops")),
)
KERNEL_PREFIX = "kernel:"


@dataclass
class Metric:
    """Samples of one metric over the runs.

    Attributes:
        name: metric id (``span_ns``, ``kernel:<name>``...).
        kind: ``"timing"`` (noisy, compared statistically) or ``"count"`` (deterministic, compared exactly).
        unit: ``"ns"``, ``"bytes"``, ``"FLOP"`` or ``""``.
        samples: one value per run.
        direction: ``"lower"`` (lower is better) or ``"higher"``.
        share: per kernel, its share of GPU kernel time per run (fraction 0..1); empty otherwise.
        calls: per kernel, its launches per run; empty otherwise.
    """

    name: str
    kind: str
    unit: str
    samples: list[float]
    direction: str = "lower"
    share: list[float] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (integers stay integers so baseline files diff cleanly)."""
        d: dict[str, Any] = {"kind": self.kind, "unit": self.unit, "direction": self.direction,
                             "samples": [_num(v) for v in self.samples]}
        if self.share:
            d["share"] = [round(float(s), 6) for s in self.share]
        if self.calls:
            d["calls"] = [int(c) for c in self.calls]
        return d

    @classmethod
    def from_dict(cls, name: str, d: dict[str, Any]) -> "Metric":
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: ``kind``, ``unit`` or ``direction`` is not one of :data:`KINDS`, :data:`UNITS`,
                :data:`DIRECTIONS` (a misspelled ``"lowr"`` would be read as "higher is better"); ``samples`` is
                empty or holds a value that is not an amount (:func:`amounts`); ``share`` is not fractions in
                [0, 1]; ``calls`` not non-negative integers; ``share`` or ``calls`` not one per sample.
        """
        if not isinstance(d, dict):
            raise ValueError(f"metric {name!r} is {type(d).__name__}, not an object")
        kind, unit, direction = d["kind"], d.get("unit", ""), d.get("direction", "lower")
        for field_name, value, allowed in (("kind", kind, KINDS), ("unit", unit, UNITS),
                                           ("direction", direction, DIRECTIONS)):
            if not isinstance(value, str) or value not in allowed:
                raise ValueError(f"metric {name!r}: {field_name} {value!r} is not one of "
                                 f"{', '.join(repr(a) for a in allowed)}")
        samples = amounts(name, "sample", d["samples"], SAMPLE_MAX[unit])
        if not samples:
            raise ValueError(f"metric {name!r} has no samples")
        share = amounts(name, "share", d.get("share", []), SHARE_MAX)
        calls = amounts(name, "call count", d.get("calls", []), SAMPLE_MAX[""])
        if any(not c.is_integer() for c in calls):
            raise ValueError(f"metric {name!r} has a call count that is not a whole number")
        if kind == "count" and unit == "" and any(not v.is_integer() for v in samples):  # launches, kernels
            raise ValueError(f"metric {name!r} has a count that is not a whole number")
        for what, values in (("share", share), ("calls", calls)):
            if values and len(values) != len(samples):
                raise ValueError(f"metric {name!r}: {plural(len(values), what + ' value(s)')} for "
                                 f"{plural(len(samples), 'sample(s)')}")
        return cls(name, kind, unit, samples, direction, share, [int(c) for c in calls])


#: The largest value a baseline sample may hold, per unit: ns, bytes and counts are int64 figures in every report
#: (2^63 − 1); FLOP are float sums, bounded far above any run (10^30 FLOP is 30,000 years of a 1-EFLOP/s machine).
#: Beyond that a value is not a measurement (a hand-edited or corrupted file, the F34 kind) and would overflow the
#: statistics (the median of two samples of 1e308 is inf, which no JSON output can hold).
#: A kernel's share of kernel time is a fraction; shares of spellings summed and rounded to 6 decimals may pass 1 by
#: rounding only.
SHARE_MAX = 1.001
SAMPLE_MAX = {"": float(2 ** 63 - 1), "ns": float(2 ** 63 - 1), "bytes": float(2 ** 63 - 1), "FLOP": 1e30}
#: The values a baseline metric's ``kind``, ``unit`` and ``direction`` may hold (what :data:`RUN_METRICS` and the
#: kernel metrics are written with; a configuration may set ``direction`` per metric too).
KINDS = ("timing", "count")
UNITS = tuple(SAMPLE_MAX)
DIRECTIONS = ("lower", "higher")


def amounts(name: str, what: str, values: Any, high: float) -> list[float]:
    """``values`` (a JSON list) as floats, each a finite number in ``[0, high]``: every gate metric is an amount
    (time, count, bytes, FLOP, a share), never negative, never a boolean or a string.

    Raises:
        ValueError: ``values`` is not a list, or one value is not such a number (the message names the metric).
    """
    if not isinstance(values, list):
        raise ValueError(f"metric {name!r}: {what}s are {type(values).__name__}, not a list of numbers")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"metric {name!r} has a {what} that is not a number: {v!r}")
        f = float(v)
        if not math.isfinite(f) or f < 0 or f > high:
            kind = "a fraction" if high == SHARE_MAX else "an amount"
            raise ValueError(f"metric {name!r} has a {what} that is not {kind}"
                             f" ({'non-finite' if not math.isfinite(f) else 'negative' if f < 0 else 'out of range'}"
                             f": {v!r})")
        out.append(f)
    return out


@dataclass
class RunSet:
    """Samples of every metric over a set of runs, with where they came from.

    Attributes:
        runs: one dict per usable run: ``label``, ``report`` (file), ``status``, ``created``.
        excluded: runs left out, each ``{"label", "report", "status", "reason"}`` (no GPU work, truncated).
        environment: see :func:`environment_of`.
        machine_key: see :func:`machine_key`.
        report_schema_version: ``schema_version`` of the reports (one value; mixed versions are an error).
        metrics: metric name → :class:`Metric`.
        untimed: ``kernel:<key>`` of the kernels some run recorded launches of but not their durations (no timing
            sample from that run; a kernel that no run timed has no metric at all); ``"*"`` when a run recorded
            launches without any kernel time (counter-only input: which kernels ran is not known by name).
        notes: what the runs' set holds that the figures do not say: runs of another workload than the first
            (:func:`gpulens.gate.workload.mixed_workloads`).
        unknown: metric name → why some run's figure of it is unknown (:func:`unknown_figures`): GPU work recorded
            without a usable time, or a runaway recorded duration (shared case B07's fault on a stream's last
            event); that run gives the metric no sample, so the gate cannot judge it on that run.
    """

    runs: list[dict[str, Any]]
    excluded: list[dict[str, Any]]
    environment: dict[str, Any]
    machine_key: str
    report_schema_version: int | None
    metrics: dict[str, Metric]
    untimed: set[str] = field(default_factory=set)
    unknown: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _num(v: float) -> float | int:
    f = float(v)
    return int(f) if f.is_integer() else f


def is_trace(p: Path) -> bool:
    """True when a collector recognises the JSON file ``p`` as a trace (rocprofv3 ``*_results.json``, a Kineto
    trace whose ``traceEvents`` key comes late…): it is analysed, not read as a report. A gpulens report or
    baseline is recognised by no collector."""
    from gpulens.collectors import sniff

    try:
        return sniff(p) is not None
    except (OSError, ValueError):
        return False


def load_report(path: str | Path, strict: bool = True) -> dict[str, Any]:
    """Read a ``gpulens analyze --json`` report; a trace file is analyzed and converted on the fly (``strict``:
    see :func:`gpulens.collectors.collect`; False is ``--lenient``).

    Raises:
        TraceFormatError: the file is missing, is a baseline rather than a report, is unreadable, or holds a figure
            that is not a number (:func:`gpulens.reports.report_check.check_report`).
    """
    p = Path(path)
    if not p.exists():
        raise TraceFormatError(p, "no such file")
    doc = None
    if p.is_file():
        from gpulens.collectors._io import json_document, read_head

        head = read_head(p, 4096).lstrip().removeprefix(b"\xef\xbb\xbf")  # gunzipped, as UTF-8 (a BOM, UTF-16)
        if head.startswith(b"{") and b'"traceEvents"' not in head and not is_trace(p):
            try:
                doc = json_document(p)
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                raise TraceFormatError(p, f"not a readable JSON report ({exc})") from None
    if isinstance(doc, dict) and "gpulens_baseline" in doc:
        raise TraceFormatError(p, "is a gpulens baseline, not a report (pass it to --baseline)")
    from gpulens.reports.report_check import check_report, is_report

    if is_report(doc):
        if not isinstance(doc["sources"], list):
            raise TraceFormatError(p, "report 'sources' is not a list")
        return check_report(doc, p)
    if doc is not None and "traceEvents" not in doc:
        raise TraceFormatError(p, "JSON without 'sources' and 'schema_version': not a gpulens report")
    from gpulens.report import analyze
    from gpulens.reports.json_report import to_dict

    return to_dict(analyze([p], strict=strict))


def _kernel_rows(source: dict[str, Any]) -> list[dict[str, Any]]:
    rows = _get(source, ("analyses", "hotspots", "table"))
    return rows if isinstance(rows, list) else list(source.get("top_kernels") or [])


def collect_runs(paths: Iterable[str | Path], reports: list[dict[str, Any]] | None = None,
                 strict: bool = True) -> RunSet:
    """Load reports and gather per-metric samples over every usable source.

    Sources with status ``no_gpu_work`` or ``partial`` (truncated input, rank files not read) are excluded and listed
    with the reason.

    Args:
        paths: report (or trace) files.
        reports: already loaded report dicts, parallel to ``paths`` (skip reading).
        strict: False (``--lenient``) keeps what can be read from a malformed trace (:func:`load_report`).

    Raises:
        TraceFormatError: a file cannot be read.
        GpulensError: the runs come from different machines or report schema versions.
    """
    paths = [Path(p) for p in paths]
    reports = reports if reports is not None else [load_report(p, strict) for p in paths]
    from gpulens.reports._truncated import damage_lead
    from gpulens.reports.report_check import check_report
    from gpulens.timeline.input_notes import no_gpu_reason, no_gpu_work_text

    for p, rep in zip(paths, reports):  # a report handed in already loaded (a baseline given as a report) too
        check_report(rep, p)
    runs, excluded, usable = [], [], []
    envs: list[dict[str, Any]] = []
    for p, rep in zip(paths, reports):
        for s in rep["sources"]:
            status = s.get("status", "ok")
            info = {"label": s.get("label"), "report": str(p), "status": status, "created": rep.get("created")}
            env = environment_of(s, rep)
            envs.append(env)
            lead = damage_lead(s.get("truncated_at") or {}, s.get("warnings")) if s.get("truncated") else ("", "")
            if status == "no_gpu_work" and lead[0] == "input truncated":  # the lost part may have held GPU work
                excluded.append({**info, "reason": f"{lead[0]}: the part that could be read holds no GPU event"})
            elif status == "no_gpu_work":
                inputs = s.get("inputs") if isinstance(s.get("inputs"), list) else []
                what = no_gpu_work_text(inputs)
                excluded.append({**info, "reason": what + ("" if what.startswith("incomplete") else
                                                           f": {no_gpu_reason(inputs)}")})
            elif status == "partial" or s.get("truncated"):
                why = s.get("partial_reason")  # rank files not read and/or where the input stops
                excluded.append({**info, "reason": f"partial result: {why}" if isinstance(why, str) and why else
                                 ": ".join(lead) if lead[0] else "partial result"})
            else:
                runs.append(info)
                usable.append((s, rep))
    if len(versions := {r.get("schema_version"): p for p, r in zip(paths, reports)}) > 1:  # a file of each
        raise GpulensError("reports mix schema versions (" + ", ".join(f"{p}: {v}" for v, p in sorted(
            versions.items(), key=lambda vp: str(vp[0]))) + "): regenerate them with one gpulens version")
    env = common_env([environment_of(s, r) for s, r in usable] or envs, paths)
    untimed: set[str] = set()
    unknown: dict[str, str] = {}
    from gpulens.gate.workload import mixed_steps, mixed_workloads

    notes = mixed_workloads([(str(s.get("label")), _kernel_times(s)) for s, _ in usable]) + \
        mixed_steps([(str(s.get("label")), environment_of(s, r)["steps"]) for s, r in usable])
    return RunSet(runs, excluded, env, machine_key(env), next(iter(versions), None),
                  _metrics(usable, untimed, unknown), untimed, unknown, notes)


def _kernel_times(source: dict[str, Any]) -> dict[str, float]:
    """Kernel key → kernel time [ns] of one run (its per-kernel table; untimed kernels count 0)."""
    out: dict[str, float] = {}
    for r in _kernel_rows(source):
        if r.get("name") is not None:
            t = r.get("effective_ns", r.get("total_ns"))
            key = kernel_key(str(r["name"]))
            out[key] = out.get(key, 0.0) + (float(t) if isinstance(t, (int, float)) else 0.0)
    return out


def unknown_figures(source: dict[str, Any]) -> dict[str, str]:
    """The metrics of one run (a JSON report source) whose figure is not a measurement, each with why:

    * GPU work recorded without a usable start or end (``summary.untimed_gpu_work``): ``span_ns``, ``gpu_busy_ns``
      and ``kernel_busy_ns`` are bounds (:data:`BOUNDED_BY_UNTIMED`);
    * GPU events the runaway rule cut (``analyses.hotspots.summary.overruns`` rows with ``past_run_end``: a
      stream's last event recorded far past the rest of the run, :func:`gpulens.analyzers.intervals._runaway_cut`):
      what they really lasted is unknown — the kept part runs to the end of the rest of the run, a bound the trace
      does not measure — so the span and busy time, and for a kernel or collective the summed kernel time and that
      kernel's ``kernel:<key>`` time, include an unknown duration;
    * GPU work refused for an impossible time (``summary.invalid_gpu_work``, case B06: ``ts 0 / dur 0``, a negative
      duration): it ran and is in none of the figures — the span and busy time, and for a kernel or collective the
      kernel busy and summed time, its ``kernel:<key>`` row, the kernel count (and the distinct-kernel count when
      no launch of it has a time), for a copy the copied bytes — so none of them is a measurement of the run
      (read as measured, one such kernel made a run "IMPROVED −100 %" on that kernel);
    * kernels without a single launch call (``analyses.launches.summary``: ``launch_calls`` 0, ``kernels`` > 0):
      the input records no host side, so ``launch_calls`` is not counted (read as 0, the same run exported with its
      API calls was "REGRESSED 0 → 2");
    * copy sizes the input prints rounded (an input's ``copy_bytes_resolution`` > 1 B: nsys stats
      ``cuda_gpu_trace``, 0.001 MB): ``memcpy_bytes`` is not exact (4,194,000 B beside the 4,194,304 B of the same
      run's SQLite export was "REGRESSED +304").

    Returns: metric name → reason (empty for a run whose figures are all measured)."""
    summ = source.get("summary") or {}
    out: dict[str, str] = {}
    over = _get(source, ("analyses", "hotspots", "summary", "overruns"))
    away = [o for o in over if isinstance(o, dict) and o.get("past_run_end")] if isinstance(over, list) else []
    if away:
        kernels = {str(r.get("name")) for r in _kernel_rows(source) if r.get("name") is not None}
        names = sorted({str(o.get("name")) for o in away})
        why = (f"{plural(len(away), 'GPU event')} ({', '.join(names[:3])}{' …' if len(names) > 3 else ''}) recorded "
               f"far past the rest of the run: {'its' if len(away) == 1 else 'their'} duration is unknown (the "
               "recorded one is a fault, and nothing in the trace measures it)")
        out.update(dict.fromkeys(("span_ns", "gpu_busy_ns"), why))
        if any(n in kernels for n in names):
            out.update(dict.fromkeys(("kernel_busy_ns", "kernel_time_ns"), why))
            out.update({KERNEL_PREFIX + kernel_key(n): why for n in names if n in kernels})
    bad = [b for b in summ.get("invalid_gpu_work") or [] if isinstance(b, dict) and b.get("name") is not None]
    if bad:  # GPU work refused for an impossible time (B06): it ran, for how long is unknown
        n = sum(int(b.get("count") or 0) for b in bad)
        names = list(dict.fromkeys(str(b["name"]) for b in bad))
        why = (f"{plural(n, 'GPU event')} ({', '.join(names[:3])}{' …' if len(names) > 3 else ''}) excluded as "
               f"invalid (an impossible time recorded): {'its' if n == 1 else 'their'} duration is unknown, so the "
               "figures it would enter are not measured")
        for m in ("span_ns", "gpu_busy_ns"):
            out.setdefault(m, why)
        work = {str(b["name"]) for b in bad if b.get("kind") in ("kernel", "comm")}
        if work:
            timed = {str(r.get("name")) for r in _kernel_rows(source) if r.get("name") is not None}
            for m in ("kernel_busy_ns", "kernel_time_ns", "kernel_count"):
                out.setdefault(m, why)
            if work - timed:  # a kernel with no timed launch left: the count of distinct kernels lacks it
                out.setdefault("unique_kernels", why)
            for nm in work:
                out.setdefault(KERNEL_PREFIX + kernel_key(nm), why)
        if any(b.get("kind") == "memcpy" for b in bad):
            out.setdefault("memcpy_bytes", why)
    la = _get(source, ("analyses", "launches", "summary")) or {}
    if la.get("launch_calls") == 0 and isinstance(la.get("kernels"), int) and la["kernels"] > 0:
        # kernels ran, so calls launched them: an input without a single one records no host side
        out["launch_calls"] = (f"no launch call recorded for its {plural(la['kernels'], 'kernel')}: the input records "
                               "no host side (a GPU-only export: nsys stats cuda_gpu_trace, a rocprofv3 kernel trace "
                               "without --hip-trace), so its count of launch calls is not a measurement")
    step = max((int(i.get("copy_bytes_resolution") or 1) for i in source.get("inputs") or [] if isinstance(i, dict)
                and isinstance(i.get("copy_bytes_resolution"), int)), default=1)
    if step > 1 and (summ.get("memcpy_count") or 0) > 0:
        out.setdefault("memcpy_bytes", f"copy sizes printed to the nearest {step:,} B (nsys stats cuda_gpu_trace "
                                       "prints MB to 3 decimals): the copied bytes are not exact")
    # GPU work without a time: the breakdown counts a runaway left no time among it (its duration is unknown too)
    untimed = summ.get("untimed_gpu_work") or 0
    untimed = untimed - sum(1 for o in away if o.get("dur_ns") == o.get("overrun_ns")) \
        if isinstance(untimed, (int, float)) else 0
    if untimed > 0:
        why = (f"{plural(int(untimed), 'GPU event')} recorded without a usable start or end: the run's span and busy "
               "time are bounds, not measurements")
        for m in sorted(BOUNDED_BY_UNTIMED):
            out.setdefault(m, why)
    return out


def _metrics(usable: list[tuple[dict, dict]], untimed: set[str] | None = None,
             unknown: dict[str, str] | None = None) -> dict[str, Metric]:
    """Metric samples over the usable runs; ``untimed`` (filled in place) gets the ``kernel:<key>`` of kernels a run
    recorded without durations; ``unknown`` (filled in place) the metrics some run's figure of which is not a
    measurement (:func:`unknown_figures`), with why — that run gives them no sample, so the gate never passes or
    fails on them."""
    out: dict[str, Metric] = {}
    n = len(usable)
    if not n:
        return out
    per_unknown = [unknown_figures(s) for s, _ in usable]
    if unknown is not None:
        for m in {m for u in per_unknown for m in u}:
            hit = [u[m] for u in per_unknown if m in u]
            unknown[m] = hit[0] if len(hit) == n == 1 else f"in {len(hit)} of {n} runs, {hit[0]}"
    for name, kind, unit, path in RUN_METRICS:
        vals = [None if name in u else _get(s, path) for (s, _), u in zip(usable, per_unknown)]
        if all(v is None for v in vals) or (name == "flops" and not any(vals)):
            continue
        # a run whose report lacks the figure (no ProfilerStep markers: no step time) has no sample; counted as 0
        # it would pull the mean of a timing towards zero (a 20 % slower median step read as "4.6 % better")
        out[name] = Metric(name, kind, unit, [float(v) for v in vals if v is not None])
    names: dict[str, None] = {}
    per_run = []
    for s, _ in usable:
        rows: dict[str, list[float]] = {}  # kernel key -> [effective ns, share, calls], summed over spellings
        for r in _kernel_rows(s):
            if r.get("name") is None:
                continue
            key = kernel_key(str(r["name"]))
            acc = rows.setdefault(key, [0.0, 0.0, 0.0])
            # a runaway's kept time is no measurement (unknown_figures): no sample from this run, as untimed
            t = None if KERNEL_PREFIX + key in per_unknown[len(per_run)] else r.get("effective_ns", r.get("total_ns"))
            # a kernel whose durations were not recorded (rocprof-compute timestamps in scientific notation, ncu
            # CSV without gpu__time_duration, counter-only rocprof) has no time sample in this run: NaN, never 0
            # (0 ns beside a timed baseline read as "IMPROVED −100 %", the reverse as a REGRESSED exit 1)
            acc[0] += float("nan") if t is None else float(t)
            acc[1] += float(r.get("share") or 0)
            acc[2] += int(r.get("calls") or 0)
        summ = s.get("summary") or {}
        # a run that recorded launches but no kernel time at all (counter-only rows, no per-kernel table): every
        # kernel's time is unknown in it, not 0 — None marks the run
        per_run.append(None if summ.get("kernel_time_ns") is None and (summ.get("kernel_count") or 0) > 0
                       and not any(v[0] == v[0] for v in rows.values()) else rows)
        names.update(dict.fromkeys(rows))
    if untimed is not None and any(r is None for r in per_run):
        untimed.add("*")  # some run timed no kernel: any kernel it lacks may have run untimed
    zero = [0.0, 0.0, 0.0]
    nan = [float("nan"), 0.0, 0.0]
    for k in names:
        vals = [v for v in (nan if r is None else r.get(k, zero) for r in per_run) if not math.isnan(v[0])]
        if untimed is not None and len(vals) < len(per_run):
            untimed.add(KERNEL_PREFIX + k)
        if not vals:  # no run recorded this kernel's time: no timing metric (its launches count in kernel_count)
            continue
        out[KERNEL_PREFIX + k] = Metric(KERNEL_PREFIX + k, "timing", "ns", [v[0] for v in vals],
                                        share=[v[1] for v in vals], calls=[int(v[2]) for v in vals])
    return out


def rekey_kernels(metrics: dict[str, Metric]) -> dict[str, Metric]:
    """``metrics`` with every ``kernel:<name>`` renamed to ``kernel:<kernel_key(name)>``; metrics whose names
    share a key are summed run by run (samples, shares, calls). For baselines saved before kernels were keyed
    (their names as recorded, possibly mangled). Other metrics are returned unchanged."""
    out: dict[str, Metric] = {}
    for name, m in metrics.items():
        if not name.startswith(KERNEL_PREFIX):
            out[name] = m
            continue
        key = KERNEL_PREFIX + kernel_key(name[len(KERNEL_PREFIX):])
        if key not in out:
            out[key] = Metric(key, m.kind, m.unit, list(m.samples), m.direction, list(m.share), list(m.calls))
            continue
        o = out[key]
        o.samples = [a + b for a, b in zip(o.samples, m.samples)]
        o.share = [a + b for a, b in zip(o.share, m.share)] if o.share and m.share else o.share or list(m.share)
        o.calls = [a + b for a, b in zip(o.calls, m.calls)] if o.calls and m.calls else o.calls or list(m.calls)
    return out
