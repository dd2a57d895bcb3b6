"""The one error tree of gpulens.

Every error a user can cause derives from :class:`GpulensError`; the CLI catches it, prints its one-line
message and exits with its ``exit_code`` (never a traceback). The tree::

    GpulensError                     exit 2 (usage / input error)
    ├── TraceFormatError             a file is empty, truncated beyond repair, not the format claimed, unreadable
    │   └── UnknownFormatError       no collector recognises the file's content
    ├── SchemaError                  a Timeline does not satisfy its declared schema (a bug in a collector)
    ├── BaselineError                a baseline is missing, malformed or would be overwritten
    │   └── NoUsableRunError         exit 4: ``baseline save`` of runs none of which is usable (as the gate's ERROR)
    └── DependencyError              an optional dependency is not installed (message carries the install hint)

Documented exit codes of the ``gpulens`` command (see README): 0 success, 1 performance regression (gate),
2 usage or input error, 3 no comparable baseline (gate ``--require-baseline``), 4 the profiled workload failed,
5 inputs loaded but contain no GPU work, 70 internal error (an uncaught exception: a bug in gpulens, never a user
error and never a regression; the CLI prints one line naming the input being processed, ``--debug`` shows the
traceback). 70 is ``EX_SOFTWARE`` of BSD ``sysexits.h``.
"""

from __future__ import annotations

import re
from pathlib import Path

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_USAGE = 2
EXIT_NO_BASELINE = 3
EXIT_WORKLOAD_FAILED = 4
EXIT_NO_GPU_WORK = 5
EXIT_INTERNAL = 70


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: object) -> str:
    """``str(text)`` as one printable line: newlines, carriage returns, tabs, escape sequences and other control
    characters (from a file name, or trace text quoted in a message) written as backslash escapes (``\\n``,
    ``\\x1b``)."""
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), str(text))


class GpulensError(Exception):
    """Root of every gpulens error. ``str(err)`` is a complete one-line message for the user: control characters
    in it (a file name holding a newline) are written as escapes (:func:`printable`)."""

    exit_code: int = EXIT_USAGE

    def __str__(self) -> str:
        return printable(super().__str__())


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

    def __reduce__(self):  # picklable across worker processes (Exception pickles ``args`` only)
        return (type(self), (self.path, self.reason))


class UnknownFormatError(TraceFormatError):
    """No registered collector recognises the file's content."""


class DeviceWorkNote(str):
    """The ``reason`` of an :class:`UnknownFormatError` for a file that records GPU work gpulens does not read as
    kernels (rocprofv3 PC-sampling CSV, thread-trace instruction table): the device worked, no kernel is placed in
    time — or for an ``nsys stats`` report that holds no kernel (API calls, NVTX ranges, copies: no GPU work gpulens
    reads). ``gpulens analyze`` exits :data:`EXIT_NO_GPU_WORK` for it, as for a rocprofv3 JSON holding only PC samples
    (one exit code per kind of refusal, never 2 "unreadable"); gate, diff and baseline keep their input error."""


class SchemaError(GpulensError):
    """A Timeline's columns or invariants do not match :mod:`gpulens.timeline.schema`."""


class BaselineError(GpulensError):
    """A performance baseline is missing, malformed, or would be overwritten without ``force``."""


class NoUsableRunError(BaselineError):
    """``gpulens baseline save`` got no usable run: every run has no GPU work or was truncated (the workload failed
    or was not profiled). Exit 4, as ``gpulens gate`` exits for a candidate with no usable run (README's exit codes:
    4 "the profiled workload failed")."""

    exit_code = EXIT_WORKLOAD_FAILED


class DependencyError(GpulensError):
    """An optional dependency is missing. The message says what to install."""

    def __init__(self, package: str, feature: str, extra: str | None = None):
        hint = (f"pip install 'gpulens[{extra}]' (from a gpulens checkout: pip install '.[{extra}]')" if extra
                else f"pip install {package}")
        super().__init__(f"{feature} needs the '{package}' package: {hint}")


def truncated_without_gpu_work(cut: list[tuple[str, int]]) -> GpulensError:
    """The one error for truncated inputs whose readable part holds no GPU event (exit 2, never 5 "no GPU work":
    the lost part may have held all of it). ``cut``: (path, bytes of trace text read) per truncated file."""
    return GpulensError("; ".join(f"{p}: truncated after {n:,} bytes of trace text" if n else
                                  f"{p}: truncated inside its first line (its header, or its first record)"
                                  for p, n in cut) +
                        " — the part that could be read holds no GPU event (0 kernels); the rest of the file is lost")


def truncated_note(path: str, n: int) -> str:
    """The one warning for a truncated input that still holds GPU work (its figures cover the part read)."""
    return f"{path}: truncated after {n:,} bytes of trace text: its figures cover the part read (partial)"


class TruncationNote(str):
    """A warning saying that an input stops early (a CSV whose last line is cut, ...): a ``str`` whose
    ``truncated_at`` = (path, byte offset where the lost part starts). ``Timeline.validate`` marks the Timeline
    truncated from it, so the report is *partial* and, with no GPU work in the part read, an input error (exit 2)."""

    truncated_at: tuple[str, int]

    def __new__(cls, text: str, path: str | Path, offset: int):
        obj = super().__new__(cls, text)
        obj.truncated_at = (str(path), int(offset))
        return obj

    def __reduce__(self):  # picklable across worker processes
        return (type(self), (str(self), *self.truncated_at))


def note_input(exc: BaseException, what: str) -> None:
    """Record on ``exc`` which input gpulens was processing when it was raised (the first, innermost note wins).

    The CLI's internal-error line reads it back (:func:`input_of`): "internal error while <what>". ``what`` is a
    phrase such as ``"reading run.json"`` or ``"analyzing run.json"``.
    """
    if getattr(exc, "_gpulens_input", None) is None:
        try:
            exc._gpulens_input = str(what)  # type: ignore[attr-defined]
        except (AttributeError, TypeError):  # exceptions with __slots__
            pass


def input_of(exc: BaseException) -> str | None:
    """The input noted on ``exc`` by :func:`note_input`, or None."""
    return getattr(exc, "_gpulens_input", None)


def check_label(label: str, what: str = "--label") -> str:
    """``label`` when it is safe as a file stem: no path separator, not ``.``/``..``, no control character, at most
    200 characters (a label never chooses where a file goes, only its name).

    Raises:
        GpulensError: otherwise (one line naming the value).
    """
    bad = (not label or label in (".", "..") or "/" in label or "\\" in label or len(label) > 200
           or any(ord(c) < 32 for c in label))
    if bad:
        raise GpulensError(f"{what} {label[:80]!r}: not usable as a file name (no path separators, '.' or '..', "
                           "control characters; at most 200 characters)")
    return label


def check_output_dir(path: Path, what: str = "--out") -> Path:
    """Create the output folder ``path`` (parents too) or say in one line why it cannot be.

    Raises:
        GpulensError: ``path`` is an existing file, or cannot be created.
    """
    p = Path(path)
    try:  # exists() raises past "not found" (a name too long): inside the try, one line too
        if p.exists() and not p.is_dir():
            raise GpulensError(f"{what} {p}: is a file, not a folder")
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GpulensError(f"{what} {p}: cannot create the folder ({exc.strerror or exc})") from None
    return p
