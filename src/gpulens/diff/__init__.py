"""``gpulens diff``: what changed between two runs, per kernel, operator, category and rank (the gate decides,
diff explains). :func:`diff` is the library call; :mod:`gpulens.reports.diff` renders its result."""

from __future__ import annotations

from pathlib import Path

from gpulens.diff.compute import DiffResult, DiffSide, compare
from gpulens.diff.sides import load_side


def diff(base: str | Path, cand: str | Path, top: int = 10, strict: bool = True) -> DiffResult:
    """Compare two runs (trace files, rank folders or JSON reports) — see :mod:`gpulens.diff.compute`; ``strict``
    False (``--lenient``) keeps what can be read from a malformed trace.

    Raises:
        TraceFormatError: an input cannot be read.
    """
    return compare(load_side(base, strict), load_side(cand, strict), top=top)


__all__ = ["DiffResult", "DiffSide", "compare", "diff", "load_side"]
