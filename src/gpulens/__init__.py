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

import os as _os  # noqa: E402 - both loaded by the interpreter before any program: nothing to interrupt here
import sys as _sys  # noqa: E402

#: What the ``gpulens`` command says when Ctrl-C comes while it is still starting (importing this package, typer,
#: rich and the commands): nothing was read or written yet.
ABORTED_STARTING = "gpulens: aborted (Ctrl-C) while starting: nothing was read or written\n"


def _is_console_command() -> bool:
    """Whether this process is the ``gpulens`` command (the console script or ``python -m gpulens``, whose package
    is imported before its ``__main__`` runs), not a program or test importing gpulens."""
    top = _sys.modules.get("__main__")
    spec = getattr(top, "__spec__", None)
    if spec is not None and getattr(spec, "name", None) == "gpulens.__main__":
        return True
    argv = list(getattr(_sys, "orig_argv", None) or ())
    if "-m" in argv[:-1] and argv[argv.index("-m") + 1] == "gpulens":
        return True
    return _os.path.basename(str(getattr(top, "__file__", "") or "")) in ("gpulens", "gpulens.exe",
                                                                         "gpulens-script.py")


def _interrupted_while_starting() -> None:
    """Ctrl-C while the command's modules are imported (this package's, then :mod:`gpulens.cli`'s): for the
    ``gpulens`` command, the one-line :data:`ABORTED_STARTING` and exit 130 (as ``main`` says for a Ctrl-C later:
    no traceback); anyone else importing gpulens gets the ``KeyboardInterrupt`` itself."""
    if not _is_console_command():
        raise KeyboardInterrupt
    try:
        _sys.stderr.write(ABORTED_STARTING)
        _sys.stderr.flush()
    finally:
        _os._exit(130)


try:  # Ctrl-C at the very start of `gpulens …` (a slow disk, a cold venv): one line, exit 130
    from typing import TYPE_CHECKING, Any

    from gpulens.errors import GpulensError, TraceFormatError
except KeyboardInterrupt:
    _interrupted_while_starting()

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

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
