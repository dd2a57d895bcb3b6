"""The console every command prints through (:func:`console`).

On a terminal, rich fits the output to the terminal's width. Written to a pipe, a file or a CI log, rich would use
80 columns: a warning naming a long path broke across lines (``grep 'no kernels profiled'`` found nothing) and
tables cut kernel names into 14-character pieces. There the console is :data:`PIPE_WIDTH` wide and text lines
are never folded (``soft_wrap``); tables still fit that width. ``COLUMNS`` set by the user wins in both cases.
"""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console

#: Columns of the console when the output is not a terminal and ``COLUMNS`` is not set.
PIPE_WIDTH = 160


def console(stderr: bool = False) -> Console:
    """A rich Console on stdout (or stderr): the terminal's width, else :data:`PIPE_WIDTH` without folding text."""
    con = Console(stderr=stderr)
    if con.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return con
    return Console(stderr=stderr, width=PIPE_WIDTH, soft_wrap=True)


class _Quiet:
    """What :func:`status` gives where nothing would be shown: a context manager whose ``update`` does nothing."""

    def __enter__(self) -> "_Quiet":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, *args: object, **kwargs: object) -> None:
        """Ignored: no spinner is shown."""


def status(con: Console, text: str = "") -> Any:
    """``con.status(text)`` (a spinner while a command loads and analyses) on a terminal or in Jupyter; elsewhere
    (a pipe, a file, a CI log: rich draws nothing there, its status being transient) a do-nothing stand-in with the
    same ``update``, so that neither rich's live display (imported for it) nor its refresh thread (waking the process
    12 times a second) runs for nothing."""
    if con.is_terminal or con.is_jupyter:
        return con.status(text)
    return _Quiet()
