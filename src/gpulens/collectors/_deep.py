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

# a string (escapes skipped, an unterminated one runs to the end) or one bracket
_TOKENS_B = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.S)
_TOKENS_S = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.S)

T = TypeVar("T", bytes, bytearray, str)


def flatten_deep(doc: T, limit: int = DEPTH_LIMIT) -> tuple[T, int]:
    """``doc`` with every value that opens at nesting level ``limit + 1`` replaced by ``null`` + spaces (same
    length). Returns (new document, number of values replaced). A value still open at the end of the document (a
    cut file) is replaced up to the end."""
    is_str = isinstance(doc, str)
    pattern, null, space = (_TOKENS_S, "null", " ") if is_str else (_TOKENS_B, b"null", b" ")
    opens = "[{" if is_str else b"[{"
    spans: list[tuple[int, int]] = []
    depth, start = 0, -1
    for m in pattern.finditer(doc):
        c = doc[m.start():m.start() + 1]
        if c == ('"' if is_str else b'"'):
            continue
        if c in opens:
            depth += 1
            if depth == limit + 1:
                start = m.start()
        else:
            if depth == limit + 1 and start >= 0:
                spans.append((start, m.end()))
                start = -1
            depth = max(depth - 1, 0)
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
