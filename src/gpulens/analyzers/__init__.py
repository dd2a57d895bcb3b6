"""Analyzers: one module per question, each an :class:`~gpulens.analyzers.base.Analyzer` returning an
:class:`~gpulens.analyzers.base.AnalysisResult`. Modules in this package register themselves on import.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding, registry
from gpulens.timeline import Timeline

_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_") and mod.name not in ("base", "intervals"):
            importlib.import_module(f"{__name__}.{mod.name}")
    _loaded = True


def run_all(timeline: Timeline, device: Any = None, only: list[str] | None = None) -> dict[str, AnalysisResult]:
    """Run every registered analyzer (or those named in ``only``) in their declared order.

    Returns:
        name → AnalysisResult, in run order. Each analyzer sees the results of those before it.
    """
    results: dict[str, AnalysisResult] = {}
    for cls in sorted(registry().values(), key=lambda c: (c.order, c.name)):
        if only is not None and cls.name not in only:
            continue
        results[cls.name] = cls().analyze(timeline, device, results)
    return results


__all__ = ["AnalysisResult", "Analyzer", "Finding", "registry", "run_all"]
