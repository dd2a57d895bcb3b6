"""gpulens — why is this GPU workload slow?

Collect PyTorch Profiler, rocprof, Nsight Systems and Nsight Compute outputs into one Timeline, find the kernels
that matter, and explain what bounds them.

Quick use::

    import gpulens
    report = gpulens.analyze(["trace.pt.trace.json.gz"])
    tl = gpulens.collect("trace.pt.trace.json.gz")
"""

__version__ = "0.1.0"

from gpulens.errors import GpulensError, TraceFormatError  # noqa: E402
from gpulens.timeline import Timeline, concat  # noqa: E402
from gpulens.collectors import collect  # noqa: E402
from gpulens.report import Report, analyze, analyze_timeline  # noqa: E402
from gpulens.profiler import profile  # noqa: E402

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
