"""Shared text formatting of gate results (values only; every number comes from the GateResult)."""

from __future__ import annotations

from typing import Any

from gpulens.gate.result import MARKS, GateResult, MetricResult
from gpulens.reports.console import fmt_ns
from gpulens.gate.stats import UNMEASURED_NOISE, noise_band_texts
from gpulens.units import plural


#: Human names of the whole-run metrics (the metric id stays in JSON and JUnit, where tools match on it). The three
#: GPU-time metrics read alike, so each label says what it counts: "GPU busy time" is the union of every GPU event
#: (kernels, collectives, copies, memsets: ``breakdown``'s ``busy_ns``), "kernel busy time" the union of kernels and
#: collectives only (copies left out: a run can copy less and compute more), "kernel time" their clipped sum
#: (overlapping kernels counted once each).
METRIC_LABELS = {"step_ns": "median step time", "span_ns": "GPU span",
                 "gpu_busy_ns": "GPU busy time (kernels, collectives, copies, memsets: union)",
                 "kernel_busy_ns": "kernel busy time (kernels, collectives only: union)",
                 "kernel_time_ns": "kernel time (kernels, collectives only: summed)",
                 "kernel_count": "kernel launches", "unique_kernels": "distinct kernels",
                 "launch_calls": "launch calls", "memcpy_bytes": "bytes copied", "flops": "FLOP"}


def metric_label(m: MetricResult, width: int = 60) -> str:
    """``span_ns`` → ``GPU span``; ``kernel:<long name>`` → ``kernel <name>`` shortened to ``width`` with an
    ellipsis; ``kernels:GEMM replaced`` → ``GEMM kernels replaced``; any other id with its unit suffix dropped and underscores as spaces."""
    name = m.metric
    if name.startswith("kernel:"):
        name = "kernel " + name[len("kernel:"):]
    elif name.startswith("kernels:"):  # kernels:GEMM replaced → GEMM kernels replaced (gpulens.gate.replaced)
        cat, _, rest = name[len("kernels:"):].partition(" ")
        name = f"{cat} kernels {rest}".strip()
    else:
        name = METRIC_LABELS.get(name) or name.removesuffix("_ns").replace("_", " ")
    return name if len(name) <= width else name[: width - 1] + "…"


def metric_labels(metrics: list[MetricResult]) -> dict[str, str]:
    """Metric id → label for people: whole-run metrics by :func:`metric_label`, kernels by their short names
    (:func:`gpulens.reports._names.short_names` over every kernel of the result, so that two kernels never read alike
    — a name clipped at 80 characters could). The JSON and JUnit keep the full metric id."""
    from gpulens.reports._names import short_names

    kern = [m.metric[len("kernel:"):] for m in metrics if m.metric.startswith("kernel:")]
    short = dict(zip(kern, short_names(kern)))
    return {m.metric: f"kernel {short[m.metric[len('kernel:'):]]}" if m.metric.startswith("kernel:")
            else metric_label(m, 120) for m in metrics}


def reason_text(result: GateResult) -> str:
    """The run's reason sentence for people: each metric id in it (``kernel:<full mangled name>``, ``gpu_busy_ns``)
    replaced by the label its row has in the table (:func:`metric_labels`), so the headline and the table name a
    metric alike. The JSON and JUnit keep :attr:`GateResult.reason` with the ids."""
    import re

    text = result.reason
    labels = metric_labels(list(result.metrics))
    for mid in sorted(labels, key=len, reverse=True):  # a longer id first: one id may begin another
        if mid.startswith(("kernel:", "kernels:")) and mid in text:
            text = text.replace(mid, labels[mid])
        elif mid in text:  # a whole-run metric ("gpu_busy_ns (+10.0 %)"), as a word: the table's label
            text = re.sub(rf"(?<![\w:]){re.escape(mid)}(?!\w)", lambda _m, lab=labels[mid]: lab, text)
    return text


def listed_mismatches(result: GateResult) -> list[str]:
    """The mismatches listed under the headline: those its reason does not already state (an INCOMPARABLE
    reason names them all — each is said once, the decisive cause first)."""
    return [m for m in result.mismatches if m not in (result.reason or "")]


#: Caption of the baseline/candidate columns: which statistic of the runs they show (the one the change compares).
CENTER_NOTE = ("baseline / candidate: the statistic the change compares — the geometric mean of the runs' "
               "values, the mean where marked (a run without the kernel: 0 ns), the median for counts and for too "
               "few runs")


def fmt_center(m: Any, side: str) -> str:
    """The baseline (``side="base"``) or candidate figure of a gate row: the statistic its change compares
    (:attr:`gpulens.gate.result.MetricResult.center`), marked ``(mean)`` when it is the arithmetic mean."""
    v = fmt_value(m.base_center if side == "base" else m.cand_center, m.unit)
    return v + " (mean)" if m.center == "mean" and v != "—" else v


def fmt_value(v: float | None, unit: str) -> str:
    """A median in its unit: ns → human time, bytes → KiB/MiB/GiB, counts with thousands separators."""
    if v is None:
        return "—"
    if unit == "ns":
        return fmt_ns(v)
    if unit == "bytes":
        for u, d in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if abs(v) >= d:
                return f"{v / d:.2f} {u}"
        return f"{v:,.0f} B"
    if unit == "FLOP":
        for u, d in (("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6)):
            if abs(v) >= d:
                return f"{v / d:.2f} {u}"
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}"


def fmt_change(m: MetricResult) -> str:
    """Signed relative change, ``+30.0 %``; ``—`` when undefined."""
    c = m.change_pct
    return "—" if c is None else f"{c:+.1f} %"


def fmt_ci(m: MetricResult) -> str:
    """The ratio's confidence interval as a change range, ``[+25.1, +34.9] %``; ``—`` when not computed."""
    if m.ci_low is None or m.ci_high is None:
        return "—"
    limits = [x for x in (m.threshold, m.band) if x is not None and x > 0]
    limits = [100 * x for x in limits] + [100 * (1 / (1 + x) - 1) for x in limits]  # worse / better by T, band
    return f"[{_ci_end((m.ci_low - 1) * 100, limits)}, {_ci_end((m.ci_high - 1) * 100, limits)}] %"


def _ci_end(x: float, limits: list[float]) -> str:
    """One end of a CI in percent, one decimal unless that reads as a limit it lies on the other side of: +4.97 %
    beside a 5 % threshold reads "+4.97", not "+5.0" — the verdict turns on whether the CI reaches the threshold
    (:func:`gpulens.gate.stats.decide`), so the end shown never seems to reach a limit it misses, or the reverse."""
    for d in (1, 2, 3):
        if not any(x != lim and f"{x:+.{d}f}" == f"{lim:+.{d}f}" for lim in limits):
            return f"{x:+.{d}f}"
    return f"{x:+.3f}"


def no_test_note(rows: list[MetricResult]) -> str:
    """Why the CI and p columns read ``—`` on the rows decided by the threshold alone (``method = "threshold"``:
    too few runs for a test), or why they are left out when no row has a CI or p (:func:`kept_columns`); ``""``
    when every shown row was tested (or is a count compared exactly)."""
    untested = [m for m in rows if m.method == "threshold"]
    if not untested:
        return ""
    m = untested[0]
    why = (f"no test ran ({m.base_n} baseline vs {m.cand_n} candidate runs are too few; record ≥ 5 repeats per "
           "side), so the PASS band alone decides")
    if all(fmt_ci(r) == "—" and fmt_p(r) == "—" for r in rows):
        return f"No CI or p column: {why} every row"
    return f"CI and p read — on {plural(len(untested), 'row')}: {why} them"


def kept_columns(cells: list[list[Any]]) -> list[int]:
    """The positions of the gate table's columns to show, one rule for every gate table (console, HTML, Markdown):
    a column of figures (``change`` through the limit columns) that reads ``—`` in every row is left out — with no
    test run the CI and p columns are all ``—`` and only push the note out of view; the verdict and metric columns
    (the first two) and the note (the last) always stay. ``cells``: each row's cells in column order."""
    if not cells:
        return []
    n = len(cells[0])
    return [i for i in range(n) if i < 2 or i == n - 1 or any(str(row[i]) != "—" for row in cells)]


def fmt_p(m: MetricResult) -> str:
    """The p compared with α, two significant digits: the run-level (Holm-adjusted) one when the row was adjusted,
    else the one-sided p; ``—`` when no test ran. The column is titled ``p (run)``."""
    p = m.p_adjusted if m.p_adjusted is not None else m.p_value
    return "—" if p is None else f"{p:.2g}"


def fmt_threshold(m: MetricResult) -> str:
    """The configured threshold T in percent (``exact`` for counts compared exactly); the PASS band it widens to is
    :func:`fmt_band`."""
    if m.method == "exact" and not m.threshold:
        return "exact"
    return "—" if m.threshold is None else f"±{m.threshold * 100:.1f} %"


def verdict_text(m: MetricResult) -> str:
    """``▲ REGRESSED`` — the mark makes the verdict readable without colour; ``(info)`` for non-gating rows."""
    return f"{MARKS[m.verdict]} {m.verdict}" + ("" if m.gating else " (info)")


def ci_label(result: GateResult) -> str:
    """Column title of the confidence interval, e.g. ``95 % CI``."""
    return f"{100 * float(result.config.get('confidence', 0.95)):g} % CI"


def method_text(result: GateResult) -> str:
    """How the gate decided, from its configuration (one sentence for every gate report: Markdown footer, HTML page):
    the test, α, the threshold a regression must reach, the PASS band (threshold or baseline noise, the larger) and
    the kernel share under which a kernel does not gate; for INCOMPARABLE runs, that nothing was judged."""
    cfg = result.config
    if result.verdict == "INCOMPARABLE":  # nothing was judged: how a judgement would have been made is beside it
        return ("Not judged: the runs are not comparable (the verdict's reason), so no timing was compared with the "
                "baseline; the figures are shown side by side only.")
    share = f"kernels under {100 * cfg.get('min_kernel_share', 0):g} % of kernel time do not gate."
    timings = [m for m in result.metrics if m.kind == "timing" and m.method is not None]
    if timings and not any(m.p_value is not None for m in timings):
        # no timing was tested (too few runs on a side): describing the t-test would describe what did not run
        runs = sorted({(m.base_n, m.cand_n) for m in timings})
        n = ", ".join(f"{b} vs {c}" for b, c in runs)
        return (f"No statistical test ran ({n} runs: record ≥ 5 repeats per side for one): each timing was "
                f"compared with its PASS band alone: the {100 * cfg.get('threshold', 0):g} % threshold, widened to "
                f"{cfg.get('noise_multiplier')} × baseline noise where that is larger (a baseline of ≥ 2 runs)"
                + (f", to {cfg.get('noise_multiplier')} × an assumed {100 * UNMEASURED_NOISE:g} % run-to-run noise "
                   "for a baseline of one run (a change between the threshold and that band is AMBIGUOUS)"
                   if any(m.base_n == 1 for m in timings) else "") + f"; {share}")
    return (f"Welch t-test on log times, weighted Holm across the run's gating timings at α = {cfg.get('alpha')}; "
            f"REGRESSED needs ≥ half the {100 * cfg.get('threshold', 0):g} % threshold and a CI reaching it; PASS "
            f"band = max(threshold, {cfg.get('noise_multiplier')} × baseline noise); {share}")


def fmt_spread(m: MetricResult) -> str:
    """The baseline's run-to-run noise of a row (``base_spread``: 1.4826·MAD/median) as ``±2.3 %`` (more decimals
    where the band it widened needs them to add up, :func:`gpulens.gate.stats.noise_band_texts`); ``—`` when not
    computed (one baseline run, or a count)."""
    if m.base_spread is None:
        return "—"
    return "±" + noise_band_texts(m.band, m.base_spread, m.threshold)[0]


def fmt_band(m: MetricResult) -> str:
    """A timing row's PASS band (``band``: max(threshold, noise multiplier × baseline noise)) as ``±5.0 %``; ``—``
    when the row has none (counts)."""
    if m.band is None:
        return "—"
    return "±" + noise_band_texts(m.band, m.base_spread, m.threshold)[1]


#: Titles of the three columns that say what limit a row was held to, in the same words in the console, Markdown and
#: HTML gate reports and in the reason sentences (:func:`gpulens.gate.stats.limit_text`): the configured threshold
#: (JSON ``threshold``), the baseline's run-to-run noise (JSON ``base_spread``) and the PASS band
#: max(threshold, noise multiplier × baseline noise) (JSON ``band``) — the limit a change is compared with when too few runs
#: allow a test.
LIMIT_COLUMNS = ("threshold", "baseline noise", "PASS band")


def limit_cells(m: MetricResult) -> list[str]:
    """A row's cells under :data:`LIMIT_COLUMNS`: threshold, baseline noise, PASS band."""
    return [fmt_threshold(m), fmt_spread(m), fmt_band(m)]
