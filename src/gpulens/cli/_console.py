"""The console every command prints through (:func:`console`).

On a terminal, rich fits the output to the terminal's width. Written to a pipe, a file or a CI log, rich would use
80 columns: a warning naming a long path broke across lines (``grep 'no kernels profiled'`` found nothing) and
tables cut kernel names into 14-character pieces. There the console is :data:`PIPE_WIDTH` wide and text lines
are never folded (``soft_wrap``); tables still fit that width. ``COLUMNS`` set by the user wins in both cases.
"""

from __future__ import annotations

import codecs
import os
import unicodedata
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


#: ASCII spellings of the signs the console writes (units, dashes, arrows, relations), used only where the standard
#: stream's encoding cannot hold them (``LC_ALL=C`` without UTF-8 mode, ``PYTHONIOENCODING=ascii``, a cp1252 or
#: latin-1 console): ``65.00 µs`` reads ``65.00 us``, never ``65.00 ?s``.
ASCII_SPELLINGS = {"µ": "u", "μ": "u", "—": "-", "–": "-", "−": "-", "·": "-", "→": "->", "←": "<-", "↔": "<->",
                   "↳": "->", "×": "x", "÷": "/", "≥": ">=", "≤": "<=", "≈": "~", "≠": "!=", "±": "+/-", "…": "...",
                   "Σ": "sum ", "Δ": "delta ", "▲": "^", "▼": "v", "⌈": "ceil(", "⌉": ")", "⌊": "floor(", "⌋": ")",
                   "“": '"', "”": '"', "‘": "'", "’": "'", "‹": "<", "›": ">", "†": "+", "√": "sqrt", "∪": "U",
                   "⚠": "!", "α": "alpha", "χ": "chi", "§": "S", "─": "-", "├": "+", "└": "+", "│": "|", "★": "*",
                   "✓": "ok", "✖": "x", "∅": "{}", "∞": "inf", "°": " deg", "π": "pi", "Γ": "Gamma", "‡": "++",
                   "¶": "P", "∝": "~", "∫": "S", "ᵀ": "T"}
_HANDLER = "gpulens-console"


def _spell(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler: each character the stream cannot encode as its ASCII spelling
    (:data:`ASCII_SPELLINGS`, else its compatibility decomposition: ``²`` → ``2``, full-width ``３`` → ``3``), else
    as a ``\\uXXXX`` escape (a kernel name in another script stays distinguishable)."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start:err.end]:
        spelt = ASCII_SPELLINGS.get(ch)
        if spelt is None:
            spelt = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
        out.append(spelt or ch.encode("ascii", "backslashreplace").decode("ascii"))
    return "".join(out), err.end


def encodable_streams(*streams: Any) -> None:
    """Let each of ``streams`` (the console run's ``sys.stdout`` / ``sys.stderr``) write any text: a stream whose
    encoding is not a UTF one is set to spell what it cannot encode (:func:`_spell`) instead of raising
    ``UnicodeEncodeError`` — an internal error (exit 70) after the analysis, the console summary cut and no
    report file written, for every input on a non-UTF-8 console. A UTF stream, or one that cannot be reconfigured
    (a test's ``StringIO``), is left as it is."""
    try:
        codecs.lookup_error(_HANDLER)
    except LookupError:
        codecs.register_error(_HANDLER, _spell)
    for stream in streams:
        enc = getattr(stream, "encoding", None) or "ascii"
        try:
            if codecs.lookup(enc).name.startswith("utf"):
                continue
            stream.reconfigure(errors=_HANDLER)
        except (LookupError, AttributeError, ValueError, OSError):
            continue


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
