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


#: ASCII stand-ins for the characters gpulens's own text uses (units, arrows, dashes, Greek letters of Δ and Σ),
#: for a console whose encoding cannot write them (:func:`fit_encoding`); any other character is written as a
#: ``\uXXXX`` escape. A stand-in keeps a figure readable: ``15.00 us``, not ``15.00 ?s``.
ASCII_STAND_INS = {"µ": "u", "μ": "u", "—": "-", "–": "-", "−": "-", "…": "...", "→": "->", "←": "<-", "·": "-",
                   "×": "x", "÷": "/", "Δ": "d", "Σ": "sum", "≥": ">=", "≤": "<=", "≠": "!=", "≈": "~", "±": "+/-",
                   "▲": "^", "▼": "v", "›": ">", "‹": "<", "†": "+", "‡": "++", "↳": "->", "α": "alpha", "∝": "~",
                   "★": "*", "§": "S", "¶": "P", "＠": "@", "²": "^2", "³": "^3", "¹": "^1", "°": " deg"}
_ERRORS = "gpulens-stand-in"


def _stand_in(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: the unencodable run ``exc.object[exc.start:exc.end]`` written with :data:`ASCII_STAND_INS`
    where the encoding (ASCII, Latin-1…) can hold the stand-in, else as a backslash escape."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start:exc.end]:
        sub = ASCII_STAND_INS.get(ch)
        out.append(sub if sub is not None else (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"))
    return "".join(out), exc.end


def fit_encoding(stream: Any) -> None:
    """Let ``stream`` (``sys.stdout`` / ``sys.stderr``) write every report text when its encoding is not a Unicode
    one (``PYTHONIOENCODING=ascii``, a Latin-1 locale, ``LC_ALL=C`` before Python 3.7): each character it cannot
    encode is written as an ASCII stand-in (:data:`ASCII_STAND_INS`) or an escape, instead of the command failing
    with ``UnicodeEncodeError`` (exit 70) half-way through its summary. A UTF-8/16/32 stream, or one that cannot be
    reconfigured (a test's captured stream), is left as it is. rich draws its tables with ASCII boxes on such a
    stream by itself."""
    import codecs

    try:
        name = codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name
    except LookupError:
        return
    if name.startswith("utf"):
        return
    try:
        codecs.lookup_error(_ERRORS)
    except LookupError:
        codecs.register_error(_ERRORS, _stand_in)
    try:
        stream.reconfigure(errors=_ERRORS)
    except (AttributeError, ValueError, OSError):
        pass
