"""The gate: compare a candidate's runs with a baseline, metric by metric, and decide.

Steps: (1) no usable candidate run → ERROR (whatever the baseline: one verdict for one input); (2) no baseline →
NO_BASELINE; (3) environments differ in GPU
model/count/arch, driver, rank count or report schema, or the runs are not the same workload (under half of one
side's kernel time in kernels both run, :mod:`gpulens.gate.workload`; not judged between different GPU models or
architectures, whose libraries name kernels differently: :func:`gpu_differs`) → INCOMPARABLE (rows still show the
numbers);
(4) each metric: counts exactly (:func:`~gpulens.gate.stats.compare_count`), timings with the noise model
(:func:`~gpulens.gate.stats.compare_timing`); kernels under ``min_kernel_share`` of kernel time and new kernels are
reported but never gate; (5) when some candidate runs were unusable (truncated / empty), no row may PASS: those
become AMBIGUOUS. The overall verdict is the worst gating row: REGRESSED > AMBIGUOUS > IMPROVED > PASS.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from gpulens import __version__
from gpulens.errors import BaselineError
from gpulens.gate.baseline import Baseline, copied_runs_text
from gpulens.gate.config import GateConfig
from gpulens.gate.result import (AMBIGUOUS, ERROR, IMPROVED, INCOMPARABLE, NO_BASELINE, PASS, REGRESSED, VERDICTS,
                                 GateResult, MetricResult)
from gpulens.gate.replaced import kernel_like, replaced
from gpulens.gate.runs import KERNEL_PREFIX, RUN_METRICS, Metric, RunSet, rekey_kernels
from gpulens.gate.workload import kernel_overlap, steps_differ, workload_text
from gpulens.gate.stats import (Comparison, TimingTest, compare_count, decide, family_weights, holm_adjust,
                                relative_spread, timing_tests)
from gpulens.timeline.names import kernel_key
from gpulens.units import pct_words, plural

#: Environment fields that must match (label, key); the others are reported as notes.
MUST_MATCH = (("GPU model", "gpus"), ("GPU count", "gpu_count"), ("GPU architecture", "arch"),
              ("driver (the runtime version it supports)", "driver"), ("rank count", "ranks"))
#: the driver's and the runtime's CUDA/HIP versions differ by nature ("CUDA 12.9" beside "CUDA 12.4"): each label says
#: which version it is, so that the two lines do not read as one figure contradicting itself
NOTE_ONLY = (("runtime (the version torch was built with)", "runtime"), ("torch", "torch"),
             ("gpulens version", "tool_version"),
             ("collectors", "collectors"))


def comparability(base: Baseline, cand: RunSet) -> tuple[list[str], list[str]]:
    """Environment differences: ``(mismatches, notes)``.

    A field recorded on one side only is a note (it cannot be checked), never a mismatch.
    """
    mism, notes = [], []
    be, ce = base.environment, cand.environment
    basis = [e.get("gpu_count_basis") or "recorded" for e in (be, ce)]
    for label, key in MUST_MATCH + NOTE_ONLY:
        b, c = be.get(key), ce.get(key)
        if b in (None, [], 0) and c in (None, [], 0):
            continue
        if key == "gpu_count" and basis[0] != basis[1] and b != c:  # counted otherwise: not comparable figures
            notes.append(f"GPU count: baseline {b} ({'GPUs ' if basis[0] == 'with GPU work' else 'devices '}"
                         f"{basis[0]}), candidate {c} ({'GPUs ' if basis[1] == 'with GPU work' else 'devices '}"
                         f"{basis[1]}): counted differently, not checked")
            continue
        if b in (None, [], 0) or c in (None, [], 0):
            notes.append(f"{label} recorded only in the {'candidate' if b in (None, [], 0) else 'baseline'}: "
                         "not checked")
        elif b != c:
            text = f"{label}: baseline {_show(b, key, be)}, candidate {_show(c, key, ce)}"
            (mism if (label, key) in MUST_MATCH else notes).append(text)
    bc, cc = be.get("sm_clock_mhz"), ce.get("sm_clock_mhz")
    if bc and cc and abs(cc - bc) > 0.05 * bc:
        notes.append(f"mean SM clock: baseline {bc} MHz, candidate {cc} MHz (differs by over 5 %: timings may "
                     "reflect clocks, not code; lock clocks for stable results)")
    if base.report_schema_version != cand.report_schema_version:
        mism.append(f"report schema: baseline {base.report_schema_version}, candidate {cand.report_schema_version}")
    return mism, notes


def gpu_differs(be: dict[str, Any], ce: dict[str, Any]) -> str:
    """Why two environments ran on different GPUs — ``"the runs ran on different GPU models (…) "``, naming the first
    of GPU model or architecture recorded on both sides that differs — or ``""``. Kernel names then differ by
    nature (each vendor's and architecture's libraries), so :func:`run_gate` does not read a low kernel-name overlap
    as another workload (as ``gpulens diff`` does not across vendors)."""
    for label, key in (("GPU models", "gpus"), ("GPU architectures", "arch")):
        b, c = be.get(key), ce.get(key)
        if b not in (None, [], 0) and c not in (None, [], 0) and b != c:
            return f"the runs ran on different {label} ({_show(b, key, be)}; {_show(c, key, ce)})"
    return ""


def _show(v: Any, key: str = "", env: dict[str, Any] | None = None) -> str:
    """An environment value as a person reads it: versions decoded (``CUDA 12.9``, ``HIP 6.4.43483``), an
    architecture named (``gfx942 (HIP reports 9.4)``, ``compute capability 9.0 (sm_90)``); see
    :mod:`gpulens.devices.naming`. The comparison itself uses the raw values."""
    from gpulens.devices.naming import arch_list_text, version_text

    if key in ("driver", "runtime"):
        return version_text(v, "" if key == "driver" else "runtime")
    if key == "arch":
        return arch_list_text(v if isinstance(v, list) else [v], (env or {}).get("gpus") or [])
    return ", ".join(map(str, v)) if isinstance(v, list) else str(v)


def _median(m: Metric | None) -> float | None:
    return float(np.median(m.samples)) if m is not None and m.samples else None


def _centers(base: Metric | None, cand: Metric | None) -> dict[str, tuple[float | None, float | None]]:
    """Mean and geometric mean (None where a sample is ≤ 0) of each side's samples, the statistics the timing tests
    compare (:mod:`gpulens.gate.stats`)."""
    def both(m: Metric | None) -> tuple[float | None, float | None]:
        if m is None or not m.samples:
            return None, None
        x = np.asarray(m.samples, dtype=float)
        return float(x.mean()), float(np.exp(np.log(x).mean())) if (x > 0).all() else None

    (bm, bg), (cm, cg) = both(base), both(cand)
    return {"mean": (bm, cm), "geometric mean": (bg, cg)}


def compare_metric(name: str, base: Metric | None, cand: Metric | None, config: GateConfig,
                   rng: np.random.Generator | None = None) -> MetricResult | None:
    """Compare one metric on its own; None when configuration ignores it. A timing is decided as a family of one;
    :func:`run_gate` decides the timings of a run together (run-level error control). ``rng`` is unused (kept for
    callers of the bootstrap era)."""
    row, spec = _prepare(name, base, cand, config)
    if row is not None and spec is not None:
        decide_family(_run_tests([(row, spec)], config), config.alpha, family=False)
    return row


def _prepare(name: str, base: Metric | None, cand: Metric | None,
             config: GateConfig) -> tuple[MetricResult | None, tuple | None]:
    """The row of one metric, decided when no statistical test is involved; else the row and what to test:
    ``(base samples, candidate samples, threshold, noise multiplier, direction)``."""
    rule = config.rule(name)
    if rule.ignore:
        return None, None
    ref = base or cand
    assert ref is not None
    direction = rule.direction or ref.direction
    is_kernel = kernel_like(name)
    row = MetricResult(name, ref.kind, ref.unit, direction, PASS, True, "",
                       base_n=len(base.samples) if base else 0, cand_n=len(cand.samples) if cand else 0,
                       base_median=_median(base), cand_median=_median(cand), centers=_centers(base, cand))
    if is_kernel:
        row.share = max(float(np.median(m.share)) for m in (base, cand) if m is not None and m.share) \
            if any(m is not None and m.share for m in (base, cand)) else None
        row.base_calls = float(np.median(base.calls)) if base and base.calls else None
        row.cand_calls = float(np.median(cand.calls)) if cand and cand.calls else None
    if base is None:
        row.verdict, row.gating = NO_BASELINE, False
        row.reason = "new kernel: not in the baseline" if is_kernel else "not recorded in the baseline"
        return row, None
    if cand is None:  # a kernel the candidate does not run, or a whole-run metric its reports lack
        row.verdict, row.gating = AMBIGUOUS, False
        row.reason = ("kernel not in the candidate (removed, renamed or fused into another): its time is not a "
                      "saving by itself; see `gpulens diff` for where the work went") if is_kernel \
            else "not recorded in the candidate"
        return row, None
    deterministic = ref.kind == "count" and len(set(base.samples)) == 1
    # one baseline run has no run-to-run noise to measure: unknown (None, shown "—"), never 0
    row.base_spread = None if len(base.samples) < 2 else \
        0.0 if deterministic else relative_spread(np.asarray(base.samples))
    if rule.gating is not None:
        row.gating = rule.gating
    elif is_kernel and (row.share or 0) < config.min_kernel_share:
        row.gating = False
        row.note = f" — {pct_words(100 * (row.share or 0))} of kernel time, under " \
                   f"{100 * config.min_kernel_share:g} %: reported, not gating"
    if deterministic:
        _apply(row, compare_count(base.samples, cand.samples, tolerance=rule.count_tolerance, direction=direction))
        return row, None
    row.base_share = float(np.median(base.share)) if base.share else None
    return row, (base.samples, cand.samples, rule.threshold, rule.noise_multiplier, direction)


def _unjudged(name: str, base: Metric | None, cand: Metric | None, config: GateConfig,
              why: str) -> MetricResult | None:
    """The row of a metric whose candidate figure is not a measurement in some run (``why``, from
    :func:`gpulens.gate.runs.unknown_figures`): AMBIGUOUS — the gate cannot judge it — and gating where the metric
    would gate (so a run holding such a figure is never a silent PASS); None for an ignored metric. The samples of
    the runs that measured it are shown, not tested."""
    row, _ = _prepare(name, base, cand if base is None else None, config)
    if row is None:
        return None
    if cand is not None:
        row.cand_n, row.cand_median = len(cand.samples), _median(cand)
    if base is not None or cand is not None:
        rule = config.rule(name)
        row.gating = rule.gating if rule.gating is not None else not (
            kernel_like(name) and (row.share or 0) < config.min_kernel_share)
    row.verdict, row.reason = AMBIGUOUS, f"cannot be judged: {why}"
    return row


def _run_tests(specs: list[tuple[MetricResult, tuple]], config: GateConfig) -> list[tuple[MetricResult, TimingTest]]:
    """Run the timing tests of ``specs`` together (one vectorised scipy call per run-count group); rows that need
    no test (zero baseline, too few runs) are decided here; the others are returned with their test."""
    tests = timing_tests([(s[0], s[1]) for _, s in specs], [s[2] for _, s in specs], [s[3] for _, s in specs],
                         [s[4] for _, s in specs], config.confidence)
    pending = []
    for (row, _), t in zip(specs, tests):
        if isinstance(t, Comparison):
            _apply(row, t)
        else:
            pending.append((row, t))
    return pending


def _apply(row: MetricResult, c: Comparison) -> None:
    row.verdict, row.reason, row.ratio, row.ci_low, row.ci_high = c.verdict, c.reason + row.note, c.ratio, \
        c.ci_low, c.ci_high
    row.p_value, row.threshold, row.method = c.p_value, c.threshold, c.method
    row.p_adjusted, row.repeats_needed, row.band = c.p_adjusted, c.repeats_needed, c.band


def decide_family(pending: list[tuple[MetricResult, TimingTest]], alpha: float, family: bool = True) -> None:
    """Decide a run's timing metrics together: the gating ones form one family whose one-sided p-values are
    adjusted by the weighted Holm procedure (:func:`~gpulens.gate.stats.holm_adjust`, weights
    :func:`~gpulens.gate.stats.family_weights`), so that an unchanged run is REGRESSED (or IMPROVED) with
    probability ≤ α. Non-gating rows (and every row when ``family`` is False) are decided alone."""
    fam = [(r, t) for r, t in pending if r.gating and family]
    if fam:
        w = family_weights([kernel_like(r.metric) for r, _ in fam],
                           [r.base_share if r.base_share is not None else (r.share or 0) for r, _ in fam])
        q_worse = holm_adjust([t.p_worse for _, t in fam], w)
        q_better = holm_adjust([t.p_better for _, t in fam], w)
        for (r, t), qw, qb, wi in zip(fam, q_worse, q_better, w):
            r.weight = round(float(wi), 6)
            _apply(r, decide(t, float(qw), float(qb), alpha, level=float(wi) * alpha))
    for r, t in pending:
        if not (r.gating and family):
            _apply(r, decide(t, t.p_worse, t.p_better, alpha))


#: Display order of the whole-run timings, which lead their verdict group (docs/gate.md, "Outputs").
_RUN_TIMINGS = {name: i for i, (name, kind, _unit, _path) in enumerate(RUN_METRICS) if kind == "timing"}


def _order(rows: list[MetricResult]) -> list[MetricResult]:
    """Rows in the one order every output uses (console, Markdown, HTML, JSON, JUnit, and the headline's first
    row): gating rows before the rest, by verdict severity; inside a verdict, the whole-run timings first (step
    time, span, busy times, in :data:`RUN_METRICS` order: they say what the run lost), then the per-kernel rows by
    the absolute change of their time [ns, |candidate − baseline| of the compared centre] — a 2 ms kernel 10 %
    slower does not lead a 300 ms one 6 % slower — then the counts by relative change; name breaks ties."""
    rank = {v: i for i, v in enumerate(VERDICTS)}

    def key(r: MetricResult) -> tuple:
        if r.metric in _RUN_TIMINGS:
            tier, size = 0, float(_RUN_TIMINGS[r.metric])
        elif r.kind == "timing":
            b, c = r.base_center, r.cand_center
            tier, size = 1, (-abs(c - b) if b is not None and c is not None else 0.0)
        else:
            tier, size = 2, -abs((r.ratio or 1) - 1)
        return (not r.gating, rank[r.verdict], tier, size, r.metric)

    return sorted(rows, key=key)


def _baseline_info(baseline: Baseline) -> dict:
    """The result's ``baseline`` entry: name, path, created, machine key, git, environment, run count, tool version."""
    return {"name": baseline.name, "path": str(baseline.path) if baseline.path else None,
            "created": baseline.created, "machine_key": baseline.machine_key, "git": baseline.git,
            "environment": baseline.environment, "runs": len(baseline.runs), "tool_version": baseline.tool_version}


def run_gate(baseline: Baseline | None, candidate: RunSet, config: GateConfig | None = None, *,
             baseline_ref: str = "", allow_cross_machine: bool = False,
             allow_other_workload: bool = False) -> GateResult:
    """Compare ``candidate`` with ``baseline`` and decide (module docstring). ``exit_code`` is left at 0.

    Args:
        baseline: the loaded baseline, or None when none was found (→ NO_BASELINE).
        candidate: the candidate's runs (:func:`gpulens.gate.runs.collect_runs`).
        config: settings (defaults when None).
        baseline_ref: what the user asked for (named in the NO_BASELINE reason).
        allow_cross_machine: report environment mismatches as notes and compare anyway.
        allow_other_workload: compare even when the runs are not the same workload
            (:func:`gpulens.gate.workload.kernel_overlap`), said in a note; else that is a mismatch (INCOMPARABLE).
    """
    config = config or GateConfig()
    cand_info = {"runs": candidate.runs, "excluded": candidate.excluded, "machine_key": candidate.machine_key,
                 "environment": candidate.environment, "report_schema_version": candidate.report_schema_version}
    res = GateResult(PASS, "", [], None, cand_info, config=config.to_dict(), tool_version=__version__,
                     created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    if not candidate.runs:  # first: with no usable run there is nothing to compare, whatever the baseline
        # (a CPU-only machine read NO_BASELINE exit 3 with --require-baseline and ERROR exit 4 without, one input)
        res.verdict = ERROR
        why = "; ".join(sorted({e["reason"] for e in candidate.excluded})) or "no run given"
        res.reason = f"no usable candidate run: {why}"
        if baseline is not None:
            res.baseline = _baseline_info(baseline)
        return res
    if baseline is None:
        res.verdict = NO_BASELINE
        from gpulens.gate.baseline import is_name, is_path_ref, names_a_file

        # a path names one file, not a machine's store: say it does not exist (a first run before the file is
        # made, or a typo) and how to make it, never a store lookup the user did not ask for
        res.reason = (f"no baseline file {baseline_ref} (no such file): save one there with `gpulens baseline save "
                      f"REPORT --name {baseline_ref}`" if is_path_ref(str(baseline_ref)) else
                      f"no baseline file {baseline_ref} (no such file)"
                      if not is_name(str(baseline_ref)) or names_a_file(str(baseline_ref)) else
                      f"no baseline '{baseline_ref}' for machine {candidate.machine_key}: save one with "
                      "`gpulens baseline save`")
        res.metrics = _order([r for n, m in candidate.metrics.items()
                              if (r := compare_metric(n, None, m, config)) is not None])
        return res
    res.baseline = _baseline_info(baseline)
    mism, res.notes = comparability(baseline, candidate)
    res.notes += [baseline.resolved] if getattr(baseline, "resolved", "") else []
    # a side whose runs are not one workload: its medians and noise describe neither program (said on every gate)
    res.notes += [f"baseline: {n}" for n in getattr(baseline, "notes", [])] + \
        [f"candidate: {n}" for n in getattr(candidate, "notes", [])]
    res.notes += [f"{side}: {t}" for side, t in ((side, copied_runs_text(s.metrics, len(s.runs), side)) for s, side
                                                  in ((baseline, "baseline"), (candidate, "candidate"))) if t]
    if allow_cross_machine:
        res.notes = [f"allowed: {m}" for m in mism] + res.notes
        mism = []
    rows, specs = [], []
    base_metrics, cand_metrics = rekey_kernels(baseline.metrics), rekey_kernels(candidate.metrics)
    ov = kernel_overlap(*({n: _median(m) or 0.0 for n, m in ms.items() if n.startswith(KERNEL_PREFIX)}
                          for ms in (base_metrics, cand_metrics)))
    other_gpu = gpu_differs(baseline.environment, candidate.environment)
    if ov is not None and other_gpu:
        # another GPU model or architecture runs other kernels by nature (cuBLAS sm90 vs hipBLASLt gfx942 names):
        # a low name overlap is no evidence of another program; the GPU is the reason, said as a mismatch above
        if not ov["same_workload"]:
            res.notes.append(f"kernel names not used to tell the workloads apart: {other_gpu}; "
                             f"as little as {100 * ov['overlap']:.1f} % of one run's kernel time is in kernel names "
                             "both run, as expected of libraries built for different GPUs")
        ov = None
    res.workload = ov
    env_differs = bool(mism)  # another GPU, vendor, driver...: decisive whatever the kernels run
    # another program (kernel overlap), or the same one measured over other steps: every per-run total differs
    run_texts = ([workload_text(ov)] if ov is not None and not ov["same_workload"] else []) + \
        [t for t in [steps_differ(baseline.environment, candidate.environment)] if t]
    if allow_other_workload:
        res.notes[:0] = [f"allowed: {text}" for text in run_texts]
    else:  # after a GPU, vendor or driver difference (the decisive cause: other kernel names follow from it)
        mism += run_texts
    res.mismatches = mism
    same_measure(baseline, base_metrics, cand_metrics)
    untimed = {n if n == "*" else KERNEL_PREFIX + kernel_key(n[len(KERNEL_PREFIX):])
               for n in getattr(candidate, "untimed", ())}
    unknown = {(KERNEL_PREFIX + kernel_key(n[len(KERNEL_PREFIX):]) if n.startswith(KERNEL_PREFIX) else n): why
               for n, why in (getattr(candidate, "unknown", None) or {}).items()}
    base_unknown = {(KERNEL_PREFIX + kernel_key(n[len(KERNEL_PREFIX):]) if n.startswith(KERNEL_PREFIX) else n): why
                    for n, why in (getattr(baseline, "unknown", None) or {}).items()}
    names = list(base_metrics) + [n for n in cand_metrics if n not in base_metrics]
    counted_apart = graph_capture_mismatch(base_metrics, cand_metrics)
    swaps, members = replaced(base_metrics, cand_metrics)  # renamed/re-fused kernels: compared per category
    # new kernels no category pairs with a vanished one (``other``, or a category the baseline lacks): while any
    # exists, a vanished kernel may have been renamed into it, so its −100 % is not a saving by itself
    unpaired_new = [n for n in cand_metrics if n.startswith(KERNEL_PREFIX) and n not in base_metrics
                    and n not in members]
    for name in names + list(swaps):
        b, c = swaps.get(name) or (base_metrics.get(name), cand_metrics.get(name))
        if name in members:  # compared in its category's replaced row; this row is information
            row, _ = _prepare(name, b, c, config)
            if row is not None:
                row.gating = False
                row.reason = (f"{row.reason}; " if row.reason else "") + \
                    f"compared with the other {'new' if b is None else 'vanished'} kernels of its category in " \
                    f"'{members[name]}'"
                rows.append(row)
            continue
        if c is None and name.startswith(KERNEL_PREFIX) and unpaired_new:  # renamed? information, not a saving
            row, _ = _prepare(name, b, None, config)
            if row is not None:
                row.reason += f"; the candidate runs {plural(len(unpaired_new), 'kernel(s)')} the baseline lacks"
                rows.append(row)
            continue
        if counted_apart and name in GRAPH_COUNTED and b is not None and c is not None:
            row = _unjudged(name, b, c, config, counted_apart)  # the counts differ by the capture, not the run
            if row is not None:
                rows.append(row)
            continue
        if (c is None and name in unknown) or (b is None and name in base_unknown):
            # the candidate's (or baseline's) figure is not a measurement in any run (a runaway duration, GPU work
            # without a time): the gate cannot judge it — said, and inconclusive where the metric gates, never a
            # silent PASS
            why = unknown[name] if c is None and name in unknown else f"in the baseline, {base_unknown[name]}"
            row = _unjudged(name, b, c, config, why)
            if row is not None:
                rows.append(row)
            continue
        if c is None and (name in untimed or (name.startswith(KERNEL_PREFIX) and "*" in untimed)):
            # it ran (or may have: a run recorded launches without any kernel time), durations not recorded
            row, _ = _prepare(name, b, None, config)
            if row is not None:
                row.reason = "the candidate ran this kernel but did not record its durations (counter-only or " \
                             "timestamp-less profile): no time to compare"
                rows.append(row)
            continue
        if c is None and name.startswith(KERNEL_PREFIX):  # the kernel no longer runs: zero time in every run
            c = Metric(name, b.kind, b.unit, [0.0] * len(candidate.runs), b.direction, [0.0] * len(candidate.runs),
                       [0] * len(candidate.runs))
        row, spec = _prepare(name, b, c, config)
        if row is None:
            res.ignored.append(name)
        else:
            rows.append(row)
            if spec is not None:
                specs.append((row, spec))
    decide_family(_run_tests(specs, config), config.alpha)
    if candidate.excluded:
        note = f"{len(candidate.excluded)} of {plural(len(candidate.excluded) + len(candidate.runs), 'candidate run')} " \
               f"unusable ({'; '.join(sorted({e['reason'] for e in candidate.excluded}))})"
        for r in rows:
            if r.verdict == PASS:
                r.verdict, r.reason = AMBIGUOUS, f"{r.reason}; but {note}"
    if mism:
        for r in rows:
            r.reason = f"{'environments' if env_differs else 'runs'} differ (if compared: {r.verdict}, {r.reason})"
            r.verdict = INCOMPARABLE
        res.verdict, res.reason = INCOMPARABLE, "not comparable: " + "; ".join(mism)
    res.metrics = _order(rows)
    if not mism:
        res.verdict, res.reason = _overall(res.metrics, candidate, note if candidate.excluded else "")
    return res


#: Run metrics that count a CUDA graph replay traced at graph level as one kernel (its nodes are not records)
GRAPH_COUNTED = ("kernel_count", "unique_kernels")


def graph_capture_mismatch(base: dict[str, Metric], cand: dict[str, Metric]) -> str | None:
    """Why the kernel counts of ``base`` and ``cand`` (metrics by name) cannot be compared, or None: one side traced
    CUDA graphs at graph level (``nsys --cuda-graph-trace=graph``, shared case T07: each replay one record, its
    ``kernel:CUDA graph N`` metric, :func:`gpulens.timeline.names.is_graph_replay`) and the other has no such
    record — kernel by kernel (``--cuda-graph-trace=node``, the default of recent nsys) or no graph at all — so one
    replay is one kernel on one side and all its nodes on the other: the counts differ by the capture, not by the
    run."""
    from gpulens.timeline.names import graph_capture_text, is_graph_replay

    def graphs(ms: dict[str, Metric]) -> list[str]:
        return [n[len(KERNEL_PREFIX):] for n in ms if n.startswith(KERNEL_PREFIX)
                and is_graph_replay(n[len(KERNEL_PREFIX):])]

    b, c = graphs(base), graphs(cand)
    if bool(b) == bool(c):
        return None
    side, other = ("baseline", "candidate") if b else ("candidate", "baseline")
    return (f"{graph_capture_text(side, other, b or c)}, so kernel counts differ by the capture, not "
            "the run (trace both with the same nsys --cuda-graph-trace)")


def same_measure(baseline: Baseline, base: dict[str, Metric], cand: dict[str, Metric]) -> None:
    """Check that every metric recorded on both sides is the same measure: the same unit (ns, bytes, FLOP or a
    count) and the same kind (a timing is tested for noise, a count compared exactly). gpulens writes each metric
    with one unit and kind, so a difference is a hand-edited baseline (``"unit": "ms"`` with its samples in ms):
    compared anyway, a 1000× ratio would gate — or a misread kind pass — what no run measured.

    Raises:
        BaselineError: naming the baseline file, the metric and the field (exit 2: the gate cannot compare).
    """
    for name, b in base.items():
        c = cand.get(name)
        if c is None:
            continue
        for field_name, bv, cv in (("unit", b.unit, c.unit), ("kind", b.kind, c.kind)):
            if bv != cv:
                raise BaselineError(f"{baseline.path or 'baseline'}: metric {name!r} has {field_name} {bv!r} in the "
                                    f"baseline but {cv!r} in the candidate runs: cannot compare (gpulens records "
                                    f"it as {cv!r}; re-save the baseline from its reports)")


def _weight(r: MetricResult) -> float:
    """GPU time a row stands for, for the precedence rule: a kernel its share, a whole-run metric all of it."""
    return (r.share or 0.0) if kernel_like(r.metric) else 1.0


def widened_pass(r: MetricResult) -> bool:
    """A PASS row judged against a PASS band the baseline's noise widened past its threshold (``band`` >
    ``threshold``, :func:`~gpulens.gate.stats.limit_text`): it is within that band, not shown within the threshold."""
    return r.verdict == PASS and r.band is not None and r.threshold is not None and r.band > r.threshold


def _pass_text(gating: list[MetricResult]) -> str:
    """The PASS headline's words for the ``gating`` rows (all PASS): "all 3 gating metrics within their
    thresholds", or, when some were judged against a noise-widened band, which — "within its threshold" is never
    said of a row that passed only within a band wider than it (a 2 × baseline-noise band of 14.8 % beside a 5 %
    threshold)."""
    wide = [r for r in gating if widened_pass(r)]
    if not wide:
        return ("the only gating metric within its threshold" if len(gating) == 1 else
                f"all {len(gating)} gating metrics within their thresholds")
    names = ", ".join(r.metric for r in wide[:3]) + (f" and {len(wide) - 3} more" if len(wide) > 3 else "")
    band = "its PASS band" if len(wide) == 1 else "their PASS bands"
    widened = (f"{len(wide)} of them ({names}) only within {band}, widened past the threshold by the baseline's "
               "noise")
    if len(gating) == 1:
        return f"the only gating metric within its PASS band, widened past its threshold by the baseline's noise ({names})"
    return f"all {len(gating)} gating metrics within their PASS bands: {widened}"


def _overall(rows: list[MetricResult], cand: RunSet, excluded_note: str) -> tuple[str, str]:
    """The run's verdict from its gating rows (docs/gate.md, "Run-level verdicts").

    REGRESSED if any row regressed. Else IMPROVED if rows improved and the GPU time they stand for (a kernel: its
    share; a whole-run metric: all of it) exceeds that of the AMBIGUOUS rows — a real speed-up is not hidden by an
    inconclusive small kernel. Else AMBIGUOUS if any row is, naming the rows and the repeats that would resolve
    them. Else PASS."""
    gating = [r for r in rows if r.gating]
    if not gating:
        return AMBIGUOUS, "no gating metric was compared"
    by = {v: [r for r in gating if r.verdict == v] for v in (REGRESSED, AMBIGUOUS, IMPROVED)}
    amb, imp = by[AMBIGUOUS], by[IMPROVED]
    if by[REGRESSED]:
        v = REGRESSED
    elif imp and sum(map(_weight, imp)) > sum(map(_weight, amb)):
        v = IMPROVED
    elif amb:
        v = AMBIGUOUS
    elif imp:
        v = IMPROVED
    else:
        return PASS, f"{_pass_text(gating)} ({plural(len(cand.runs), 'candidate run')})"
    hit = by[v]
    text = {REGRESSED: "regressed", AMBIGUOUS: "inconclusive", IMPROVED: "improved"}[v]
    if v == AMBIGUOUS:
        names = ", ".join(f"{r.metric}" + (f" ({r.change_pct:+.1f} %)" if r.change_pct is not None else "")
                          for r in hit[:5]) + (f" and {len(hit) - 5} more" if len(hit) > 5 else "")
        need = [r.repeats_needed for r in hit if r.repeats_needed is not None]
        tail = ""
        if need:
            t = max((r.threshold or 0) for r in hit)
            tail = f"; {max(need)} more candidate runs would detect a {100 * t:.3g} % change" if max(need) else \
                "; the noise allows detection at this run count: rerun to resolve"
        if any(r.method == "threshold" and r.base_n == 1 for r in hit):  # over T, inside the assumed-noise band
            tail += ("; one baseline run measures no run-to-run noise, so a change under the PASS band may be noise: "
                     "save the baseline from ≥ 5 runs")
        unjudged = [r.reason for r in hit if r.reason.startswith("cannot be judged: ")]
        if unjudged:
            tail += f"; {unjudged[0]}"
        if excluded_note:
            tail += f"; {excluded_note}"
        return v, f"{len(hit)} of {len(gating)} gating metrics {text}: {names}{tail}"
    # the kernels that caused it first (up to two, largest absolute change first: rows are in display order), then
    # the first whole-run figure they moved (step time, span...): where the time went, then what the run lost
    kernels = [r for r in hit if kernel_like(r.metric)]
    top = kernels[:2] + [r for r in hit if not kernel_like(r.metric)][:1]
    named = ", ".join(r.metric + (f" ({r.change_pct:+.1f} %)" if r.change_pct is not None else "") for r in top)
    more = f" and {len(hit) - len(top)} more" if len(hit) > len(top) else ""
    also = (f"; {len(amb)} inconclusive: {', '.join(r.metric for r in amb[:3])}"
            + (f" and {len(amb) - 3} more" if len(amb) > 3 else "")) if amb else ""
    return v, f"{len(hit)} of {len(gating)} gating metrics {text}: {named}{more}{also}"
