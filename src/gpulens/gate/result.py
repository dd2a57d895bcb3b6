"""What the gate decided: one :class:`MetricResult` per metric, a :class:`GateResult` for the run, the exit code.

Verdicts (:data:`VERDICTS`):

==============  =======================================================================================
PASS            no change beyond the threshold (or a change shown to be smaller than it)
IMPROVED        better by more than the threshold, significantly
REGRESSED       worse, significantly, and by a margin compatible with the threshold or more
AMBIGUOUS       not enough evidence either way (too noisy, or candidate runs truncated/missing)
INCOMPARABLE    baseline and candidate differ in GPU model/count, driver, rank count or report schema
NO_BASELINE     no baseline found (or the metric is new)
ERROR           no usable candidate run (no GPU work, or truncated), whatever the baseline
==============  =======================================================================================

Exit codes (:func:`exit_code`, documented in README and docs/gate.md): 0 pass / improved / ambiguous /
incomparable / no baseline; 1 regression (or ambiguous with ``fail_on_ambiguous``); 3 no comparable baseline with
``require_baseline``; 4 the candidate workload produced no usable data; ``warn_only`` makes every outcome 0.
Usage and input errors (unreadable files, bad config) exit 2 from the CLI.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gpulens.errors import EXIT_NO_BASELINE, EXIT_OK, EXIT_REGRESSION, EXIT_WORKLOAD_FAILED

PASS, IMPROVED, REGRESSED, AMBIGUOUS = "PASS", "IMPROVED", "REGRESSED", "AMBIGUOUS"
INCOMPARABLE, NO_BASELINE, ERROR = "INCOMPARABLE", "NO_BASELINE", "ERROR"
VERDICTS = (REGRESSED, ERROR, AMBIGUOUS, INCOMPARABLE, NO_BASELINE, IMPROVED, PASS)
#: A marker per verdict that reads without colour (for terminals, Markdown and colour-blind readers).
MARKS = {REGRESSED: "▲", ERROR: "✖", AMBIGUOUS: "?", INCOMPARABLE: "≠", NO_BASELINE: "∅", IMPROVED: "▼",
         PASS: "✓"}


@dataclass
class MetricResult:
    """The comparison of one metric.

    Attributes:
        metric: metric id (``span_ns``, ``kernel_count``, ``kernel:<name>``).
        kind: ``timing`` or ``count``.
        unit: ``ns``, ``bytes``, ``FLOP`` or ``""``.
        direction: ``lower`` or ``higher`` is better.
        verdict: one of :data:`VERDICTS`.
        gating: whether this row can fail the gate (kernels under ``min_kernel_share`` and new kernels cannot).
        reason: one sentence explaining the verdict (and why the row does not gate, if so).
        base_n, cand_n: runs on each side.
        base_median, cand_median: medians of the samples [unit].
        centers: statistic name → (baseline, candidate) value, for :attr:`center` (``mean``, ``geometric mean``).
        base_spread: baseline robust relative spread (1.4826·MAD/median) [fraction]; None with one baseline run
            (no run-to-run noise to measure).
        ratio: the estimated candidate / baseline ratio (timings: ratio of geometric means; counts and
            ``method = "threshold"``: of medians); ci_low / ci_high its confidence interval (Welch t on the logs);
            p_value: one-sided p in the direction of the change; p_adjusted: the same after the run-level weighted
            Holm adjustment (the value compared with α).
        threshold: relative threshold T: the change that matters (timings: the configured one; counts: the
            tolerance) [fraction]. Reports title it ``threshold``.
        band: timings: half-width of the PASS band, ``max(T, noise_multiplier × base_spread)`` [fraction]; with
            ``method = "threshold"`` (too few runs for a test) also the limit the change is compared with. Reports
            title it ``PASS band`` and :attr:`base_spread` ``baseline noise``.
        method: ``welch-log-t+holm`` (``welch-raw-t+holm`` with zero samples), ``threshold`` or ``exact``.
        weight: the metric's share of α in the run's family (gating timings only) [fraction].
        repeats_needed: AMBIGUOUS timings: candidate runs to add (the baseline as saved) to detect a change of the
            threshold (95 % power).
        share: for kernels, the larger of baseline and candidate median share of kernel time [fraction].
        base_calls, cand_calls: for kernels, median launches per run.
    """

    metric: str
    kind: str
    unit: str
    direction: str
    verdict: str
    gating: bool
    reason: str
    base_n: int = 0
    cand_n: int = 0
    base_median: float | None = None
    cand_median: float | None = None
    base_spread: float | None = None
    ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    threshold: float | None = None
    method: str | None = None
    share: float | None = None
    base_calls: float | None = None
    cand_calls: float | None = None
    band: float | None = None
    p_adjusted: float | None = None
    weight: float | None = None
    repeats_needed: int | None = None
    base_share: float | None = field(default=None, repr=False)
    note: str = field(default="", repr=False)
    centers: dict[str, tuple[float | None, float | None]] = field(default_factory=dict, repr=False)

    @property
    def change_pct(self) -> float | None:
        """(ratio − 1) · 100, the signed relative change [%]; None when undefined."""
        return None if self.ratio is None else (self.ratio - 1) * 100

    @property
    def center(self) -> str:
        """The statistic of the samples that :attr:`ratio` compares: ``"geometric mean"`` (``welch-log``),
        ``"mean"`` (``welch-raw``), else ``"median"`` — the baseline and candidate figures shown beside a change
        are this statistic, so the two columns and the change never disagree."""
        m = self.method or ""
        return "geometric mean" if m.startswith("welch-log") else "mean" if m.startswith("welch-raw") else "median"

    @property
    def base_center(self) -> float | None:
        """Baseline samples' :attr:`center` [unit] (the median when no other was computed)."""
        return self.centers.get(self.center, (self.base_median, self.cand_median))[0]

    @property
    def cand_center(self) -> float | None:
        """Candidate samples' :attr:`center` [unit] (the median when no other was computed)."""
        return self.centers.get(self.center, (self.base_median, self.cand_median))[1]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (the internal ``base_share``, ``note`` and ``centers`` are left out; ``center``,
        ``base_center`` and ``cand_center`` say what the ratio compares)."""
        d = asdict(self)
        for k in ("base_share", "note", "centers"):
            d.pop(k, None)
        d.update(center=self.center, base_center=self.base_center, cand_center=self.cand_center)
        return d


@dataclass
class GateResult:
    """The gate's decision for a candidate against a baseline.

    Attributes:
        verdict: overall verdict (worst gating row, or a run-level NO_BASELINE / INCOMPARABLE / ERROR).
        reason: one line for humans.
        metrics: rows, already ordered for display: gating rows by severity, then the rest.
        baseline: name, path, created, machine_key, environment, git, runs (None when there is none).
        candidate: reports, runs, excluded runs, machine_key, environment.
        mismatches: differences that make the runs incomparable, the decisive cause first: the environments'
            (GPU, vendor, driver...), then, when the runs are not the same workload, that
            (:func:`gpulens.gate.workload.workload_text`) — first when the environments match.
        workload: the runs' kernel-name overlap (:func:`gpulens.gate.workload.kernel_overlap`), None when either
            side has no kernel time, or the runs ran on different GPU models or architectures (kernel names differ
            by nature: :func:`gpulens.gate.compare.gpu_differs`, said in a note).
        notes: differences that are reported but allowed (runtime, torch, tool version, unknown fields).
        ignored: metrics skipped by configuration.
        config: the settings used.
        exit_code: set by :func:`exit_code` for the options given.
    """

    verdict: str
    reason: str
    metrics: list[MetricResult]
    baseline: dict[str, Any] | None
    candidate: dict[str, Any]
    mismatches: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    workload: dict[str, Any] | None = None
    ignored: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    tool_version: str = ""
    exit_code: int = 0

    def counts(self) -> dict[str, int]:
        """Gating rows per verdict (every verdict present as a key)."""
        out = dict.fromkeys(VERDICTS, 0)
        for m in self.metrics:
            if m.gating:
                out[m.verdict] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """The gate's JSON document (``gpulens_gate: 1``; layout in docs/gate.md)."""
        return {"gpulens_gate": 1, "tool": {"name": "gpulens", "version": self.tool_version},
                "created": self.created, "verdict": self.verdict, "exit_code": self.exit_code,
                "reason": self.reason, "counts": self.counts(), "baseline": self.baseline,
                "candidate": self.candidate, "mismatches": self.mismatches, "notes": self.notes,
                "workload": self.workload,
                "ignored": self.ignored, "config": self.config, "metrics": [m.to_dict() for m in self.metrics]}


def exit_code(result: GateResult, *, warn_only: bool = False, require_baseline: bool = False,
              fail_on_ambiguous: bool = False) -> int:
    """The documented exit code for ``result`` (module docstring)."""
    if warn_only:
        return EXIT_OK
    v = result.verdict
    if v == REGRESSED or (v == AMBIGUOUS and fail_on_ambiguous):
        return EXIT_REGRESSION
    if v == ERROR:
        return EXIT_WORKLOAD_FAILED
    if v in (NO_BASELINE, INCOMPARABLE) and require_baseline:
        return EXIT_NO_BASELINE
    return EXIT_OK
