"""gpulens — why is this GPU workload slow?

Collect PyTorch Profiler, rocprof, Nsight Systems and Nsight Compute outputs into one Timeline, find the kernels
that matter, and explain what bounds them.

Quick use::

    import gpulens
    report = gpulens.analyze(["trace.pt.trace.json.gz"])
    report                                   # one line per input: status, kernel launches, the run's verdict
    tl = gpulens.collect("trace.pt.trace.json.gz")
    gpulens.analyze([gpulens.demo_trace()])  # the sample H100 trace shipped with gpulens (`gpulens analyze --demo`)
"""

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

from gpulens.errors import GpulensError, TraceFormatError  # noqa: E402

#: Public names imported on first use (PEP 562): ``import gpulens`` (and the command line, on a cache hit) does not
#: pay for pandas and the analyzers until they are needed.
_LAZY = {"Timeline": "gpulens.timeline", "concat": "gpulens.timeline", "collect": "gpulens.collectors",
         "Report": "gpulens.report", "analyze": "gpulens.report", "analyze_timeline": "gpulens.report",
         "profile": "gpulens.profiler"}


#: Subpackages reachable as attributes after a plain ``import gpulens`` (``gpulens.reports.html.render(report)``).
_LAZY_MODULES = ("reports",)


#: File name of the sample trace shipped in ``gpulens/data`` (provenance in ``data/PROVENANCE.md``).
DEMO_TRACE = "demo_h100_bert-small.pt.trace.json.gz"


def demo_trace() -> "Path":
    """Path of the sample trace shipped inside the package: a PyTorch Profiler (Kineto) trace of BERT-small on an
    H100, the input of ``gpulens analyze --demo`` — ``gpulens.analyze([gpulens.demo_trace()])`` is the same run from
    Python. Returns a :class:`pathlib.Path` to the gzipped JSON file (read-only: never write there)."""
    from importlib import resources
    from pathlib import Path

    return Path(str(resources.files("gpulens") / "data" / DEMO_TRACE))


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
    "demo_trace",
    "profile",
])
