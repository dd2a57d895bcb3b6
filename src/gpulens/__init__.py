"""gpulens — why is this GPU workload slow?

Collect PyTorch Profiler, rocprof, Nsight Systems and Nsight Compute outputs into one Timeline, find the kernels
that matter, and explain what bounds them.

Quick use::

    import gpulens
    report = gpulens.analyze(["trace.pt.trace.json.gz"])
    tl = gpulens.collect("trace.pt.trace.json.gz")
"""

__version__ = "0.1.0"

from typing import Any  # noqa: E402

from gpulens.errors import GpulensError, TraceFormatError  # noqa: E402

#: Public names imported on first use (PEP 562): ``import gpulens`` (and the command line, on a cache hit) does not
#: pay for pandas and the analyzers until they are needed.
_LAZY = {"Timeline": "gpulens.timeline", "concat": "gpulens.timeline", "collect": "gpulens.collectors",
         "Report": "gpulens.report", "analyze": "gpulens.report", "analyze_timeline": "gpulens.report",
         "profile": "gpulens.profiler"}


#: Subpackages reachable as attributes after a plain ``import gpulens`` (``gpulens.reports.html.render(report)``).
_LAZY_MODULES = ("reports",)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted([
    "GpulensError",
    "Report",
    "Timeline",
    "TraceFormatError",
    "__version__",
    "analyze",
    "analyze_timeline",
    "collect",
    "concat",
    "profile",
])
