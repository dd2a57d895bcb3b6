"""The one error tree of gpulens.

Every error a user can cause derives from :class:`GpulensError`; the CLI catches it, prints its one-line
message and exits with its ``exit_code`` (never a traceback). The tree::

    GpulensError                     exit 2 (usage / input error)
    ├── TraceFormatError             a file is empty, truncated beyond repair, not the format claimed, unreadable
    │   └── UnknownFormatError       no collector recognises the file's content
    ├── SchemaError                  a Timeline does not satisfy its declared schema (a bug in a collector)
    ├── BaselineError                a baseline is missing, malformed or would be overwritten
    └── DependencyError              an optional dependency is not installed (message carries the install hint)

Documented exit codes of the ``gpulens`` command (see README): 0 success, 1 performance regression (gate),
2 usage or input error, 3 no comparable baseline (gate ``--require-baseline``), 4 the profiled workload failed,
5 inputs loaded but contain no GPU work.
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_USAGE = 2
EXIT_NO_BASELINE = 3
EXIT_WORKLOAD_FAILED = 4
EXIT_NO_GPU_WORK = 5


class GpulensError(Exception):
    """Root of every gpulens error. ``str(err)`` is a complete one-line message for the user."""

    exit_code: int = EXIT_USAGE


class TraceFormatError(GpulensError):
    """A trace file cannot be read as the format it claims to be.

    Args:
        path: the offending file (or directory).
        reason: what is wrong, in a few words (e.g. ``"file is empty"``).
    """

    def __init__(self, path: str | Path, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class UnknownFormatError(TraceFormatError):
    """No registered collector recognises the file's content."""


class SchemaError(GpulensError):
    """A Timeline's columns or invariants do not match :mod:`gpulens.timeline.schema`."""


class BaselineError(GpulensError):
    """A performance baseline is missing, malformed, or would be overwritten without ``force``."""


class DependencyError(GpulensError):
    """An optional dependency is missing. The message says what to install."""

    def __init__(self, package: str, feature: str, extra: str | None = None):
        hint = f"pip install 'gpulens[{extra}]'" if extra else f"pip install {package}"
        super().__init__(f"{feature} needs the '{package}' package: {hint}")
