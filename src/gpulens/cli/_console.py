"""The console every command prints through (:func:`console`).

On a terminal, rich fits the output to the terminal's width. Written to a pipe, a file or a CI log, rich would use
80 columns: a warning naming a long path broke across lines (``grep 'no kernels profiled'`` found nothing) and
tables cut kernel names into 14-character pieces. There the console is :data:`PIPE_WIDTH` wide and text lines
are never folded (``soft_wrap``); tables still fit that width. ``COLUMNS`` set by the user wins in both cases.
"""

from __future__ import annotations

import builtins
import codecs
import os
import sys
import unicodedata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: Columns of the console when the output is not a terminal and ``COLUMNS`` is not set.
PIPE_WIDTH = 160


def console(stderr: bool = False) -> Console:
    """A rich Console on stdout (or stderr): the terminal's width, else :data:`PIPE_WIDTH` without folding text."""
    from rich.console import Console

    con = Console(stderr=stderr)
    if con.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return con
    return Console(stderr=stderr, width=PIPE_WIDTH, soft_wrap=True)


class Deferred:
    """A stand-in for :func:`console` (``console(stderr)`` made on the first use of any of its attributes) for a
    command that may print nothing (``--quiet``): rich's console module (≈ 20 ms of CPU to import) is then never
    imported. :func:`status` asks it nothing where no spinner could be shown (:func:`_may_show`)."""

    def __init__(self, stderr: bool = False):
        self._stderr = stderr
        self._con: Any = None

    def made(self) -> "Console":
        """The rich Console, made now if not yet."""
        if self._con is None:
            self._con = console(self._stderr)
        return self._con

    def __getattr__(self, name: str) -> Any:
        return getattr(self.made(), name)


def _may_show(stderr: bool) -> bool:
    """False where rich would find neither a terminal nor Jupyter for a console on stdout (or stderr), read from what
    rich reads (``Console.is_terminal``, ``is_jupyter``): no IPython shell (``get_ipython`` in builtins), no
    ``TTY_COMPATIBLE=1`` or non-empty ``FORCE_COLOR`` (unless ``TTY_COMPATIBLE=0``), a stream that is not a tty.
    True otherwise (rich then decides)."""
    if hasattr(builtins, "get_ipython"):
        return True
    tty = os.environ.get("TTY_COMPATIBLE", "")
    if tty == "1" or (tty != "0" and os.environ.get("FORCE_COLOR")):
        return True
    if tty == "0":
        return False
    stream = sys.stderr if stderr else sys.stdout
    try:
        return bool(stream is not None and stream.isatty())
    except (ValueError, AttributeError, OSError):
        return False


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
    if isinstance(con, Deferred):
        if con._con is None and not _may_show(con._stderr):
            return _Quiet()  # rich not imported for it
        con = con.made()
    if con.is_terminal or con.is_jupyter:
        return con.status(text)
    return _Quiet()

