"""Values nested too deeply to decode, replaced by ``null`` so that the rest of a JSON trace is still read.

msgspec and Python's ``json`` decode nested arrays/objects recursively and raise ``RecursionError`` past about a
thousand levels — one such value anywhere (an ``args`` entry written by a buggy exporter, a fuzzer's
``[[[[…]]]]``) would make the whole file unreadable. No field gpulens reads is nested more than a few levels
(``Input Dims`` is a list of lists), so a value that opens deeper than :data:`DEPTH_LIMIT` levels is replaced by
``null`` padded with spaces to the same length (every byte offset in the document stays valid: truncation offsets,
error positions) and counted; the caller says how many were replaced in a warning. An event whose *timing* field is
such a value then fails type validation and is dropped and counted by the ordinary path.

The scan runs only after a decoder raised ``RecursionError`` (it costs one regex pass over the document).
"""

from __future__ import annotations

import re
from typing import Any, Callable, TypeVar

from gpulens.units import plural

#: Deepest nesting (arrays/objects inside each other, the document's top level counting as 1) kept as is.
DEPTH_LIMIT = 64

# a string (escapes skipped, an unterminated one runs to the end), or a run of opening / of closing brackets
# (whitespace between them allowed): ``[[[[…`` of any depth is one match, not one per level
_TOKENS_B = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[{][\s\[{]*|[\]}][\s\]}]*', re.S | re.ASCII)
_TOKENS_S = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[{][\s\[{]*|[\]}][\s\]}]*', re.S | re.ASCII)
_BRACKETS = frozenset(b"[]{}") | frozenset("[]{}")

T = TypeVar("T", bytes, bytearray, str)


def _nth_bracket(run: Any, at: int, k: int) -> int:
    """Offset in the document of the ``k``-th (0-based) bracket of ``run``, a match of brackets and whitespace that
    starts at ``at``."""
    for j, c in enumerate(run):
        if c in _BRACKETS:
            if k == 0:
                return at + j
            k -= 1
    raise ValueError("run holds fewer brackets")  # pragma: no cover - the caller counts them first


def flatten_deep(doc: T, limit: int = DEPTH_LIMIT) -> tuple[T, int]:
    """``doc`` with every value that opens at nesting level ``limit + 1`` replaced by ``null`` + spaces (same
    length). Returns (new document, number of values replaced). A value still open at the end of the document (a
    cut file) is replaced up to the end. Time: one regex pass; a run of brackets (``[[[[…``) is one step whatever
    its length."""
    is_str = isinstance(doc, str)
    pattern, null, space = (_TOKENS_S, "null", " ") if is_str else (_TOKENS_B, b"null", b" ")
    quote, opens, closes = ('"', "[{", "]}") if is_str else (b'"', b"[{", b"]}")
    spans: list[tuple[int, int]] = []
    depth, start = 0, -1
    for m in pattern.finditer(doc):
        at = m.start()
        c = doc[at:at + 1]
        if c == quote:
            continue
        run = m.group()
        if c in opens:  # depths depth+1 … depth+n: a value opens where the depth reaches limit + 1
            n = run.count(opens[:1]) + run.count(opens[1:])
            if depth <= limit < depth + n:
                start = _nth_bracket(run, at, limit - depth)
            depth += n
        else:  # the closers see depths depth, depth-1 …: the value open at limit + 1 ends at the one seeing it
            n = run.count(closes[:1]) + run.count(closes[1:])
            if depth - n < limit + 1 <= depth and start >= 0:
                spans.append((start, _nth_bracket(run, at, depth - limit - 1) + 1))
                start = -1
            depth = max(depth - n, 0)
    if start >= 0:
        spans.append((start, len(doc)))
    if not spans:
        return doc, 0
    parts: list[Any] = []
    at = 0
    for a, b in spans:
        parts += [doc[at:a], null, space * (b - a - 4)]
        at = b
    parts.append(doc[at:])
    joined = ("" if is_str else b"").join(parts)
    return (joined if is_str or isinstance(doc, bytes) else bytearray(joined)), len(spans)


class DeepValues:
    """Counts the values replaced while one file is read (see the module docstring).

    Attributes:
        count: values replaced by ``null`` so far.
    """

    def __init__(self) -> None:
        self.count = 0

    def flat(self, doc: T) -> T:
        """``doc`` flattened (:func:`flatten_deep`), the replacements counted."""
        out, n = flatten_deep(doc)
        self.count += n
        return out

    def wrap(self, decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``decode`` that, on ``RecursionError``, decodes the flattened document instead."""
        def run(buf: Any) -> Any:
            try:
                return decode(buf)
            except RecursionError:
                return decode(self.flat(buf))
        return run

    def warning(self, path: Any) -> str | None:
        """The warning line for ``path``, or None when nothing was replaced."""
        if not self.count:
            return None
        return (f"{path}: {plural(self.count, 'value(s)')} nested deeper than {DEPTH_LIMIT} levels (arrays/objects inside "
                "each other) replaced by null; gpulens reads no field nested that deep, the rest of the file is kept")
