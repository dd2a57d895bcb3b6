"""The CI performance regression gate: baselines, the noise model, and verdicts.

Library form of ``gpulens baseline save`` and ``gpulens gate``::

    from gpulens.gate import save_baseline, gate
    save_baseline(["run1.json", "run2.json", ...], "main")        # .gpulens/baselines/<machine>/main.json
    result = gate("main", ["cand1.json", "cand2.json", ...])      # GateResult; result.verdict, result.metrics

Modules: :mod:`~gpulens.gate.runs` (samples from reports), :mod:`~gpulens.gate.baseline` (store/load, history),
:mod:`~gpulens.gate.stats` (the statistics), :mod:`~gpulens.gate.compare` (the decision),
:mod:`~gpulens.gate.result` (verdicts, exit codes), :mod:`~gpulens.gate.config` (``[tool.gpulens.gate]``).
Renderers of a :class:`GateResult` live in :mod:`gpulens.reports` (``gate_console``, ``gate_markdown``,
``gate_junit``); its JSON is :meth:`GateResult.to_dict`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from gpulens.gate.baseline import Baseline, default_store, find_baseline, load_baseline, save_baseline
from gpulens.gate.compare import run_gate
from gpulens.gate.config import ConfigError, GateConfig, load_config
from gpulens.gate.result import VERDICTS, GateResult, MetricResult, exit_code
from gpulens.gate.runs import RunSet, collect_runs

__all__ = ["Baseline", "ConfigError", "GateConfig", "GateResult", "MetricResult", "RunSet", "VERDICTS",
           "collect_runs", "exit_code", "find_baseline", "gate", "load_baseline", "load_config", "run_gate",
           "save_baseline"]


def gate(baseline: str | Path, candidates: Iterable[str | Path], config: GateConfig | None = None,
         store: Path | None = None, allow_cross_machine: bool = False) -> GateResult:
    """Compare candidate reports (or traces) with a stored baseline.

    Args:
        baseline: a baseline name (looked up in ``store`` under the candidate's machine key) or a file path.
        candidates: JSON reports from ``gpulens analyze --json`` (or trace files); each source is one run.
        config: settings (defaults when None).
        store: baseline folder (default :func:`~gpulens.gate.baseline.default_store`).
        allow_cross_machine: compare even when GPU/driver differ (reported as notes).

    Raises:
        TraceFormatError: a candidate cannot be read.
        BaselineError: the baseline file is malformed.
    """
    config = config or GateConfig()
    runs = collect_runs(list(candidates))
    store = store if store is not None else default_store(config.baseline_dir)
    base = find_baseline(str(baseline), runs.machine_key, store)
    return run_gate(base, runs, config, baseline_ref=str(baseline), allow_cross_machine=allow_cross_machine)
