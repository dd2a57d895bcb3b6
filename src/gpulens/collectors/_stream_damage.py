"""Damaged text inside a streamed ``traceEvents`` array, set aside without leaving the stream.

When a piece of the array fails to decode (:mod:`._stream`), msgspec names the byte where the text stops being JSON.
If that byte lies before the end of the piece, it is damage in the file (the text before it is a valid prefix: the
pieces before were validated), not a cut that fell inside an event. The stream then

1. yields the intact events before the damage as a normal piece (cut at the last event boundary before it),
2. finds the next event after the damage (:func:`next_event`: an object with a ``"ph"`` key, as the document-level
   recovery of :mod:`._chrome_recover` resumes) and sets the text between aside as a :class:`Stretch` (small: the
   damaged event and any stray text around it), and
3. goes on streaming from that event through the normal fast path.

Memory stays that of an intact file whatever the size of the file after the damage; the reader of the stretch decides
what it means (strict: refuse the file at once; lenient: read what it can, count the rest).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_BYTE_AT = re.compile(r"\(byte ([0-9]+)\)")
_OPEN = re.compile(r"\{")
#: Text looked at first when searching for the next event after damage (it grows while the object there is cut).
WINDOW = 1 << 16


@dataclass
class Stretch:
    """A damaged stretch of the events array, set aside by :func:`._stream.stream_pieces`.

    Attributes:
        data: the text from just after the separator that precedes it up to the next intact event's ``{``.
        offset: offset in the (decompressed) file of ``data[0]``.
        lines: newlines in the file before ``data[0]``; col: bytes between the last of them and ``data[0]``.
        after: the first bytes of the event that follows (shown after an error at the stretch's end).
    """

    data: bytes
    offset: int
    lines: int
    col: int
    after: bytes = b""


def damage_at(exc: BaseException, length: int) -> int | None:
    """Index in a piece of ``length`` bytes (``[`` + events + ``]``) of the damage msgspec's error ``exc`` names;
    None when the error is at the piece's last event boundary or end (a cut inside an event, a truncated piece): only
    a byte before the final ``}`` and ``]`` is text of the file that cannot be JSON wherever the piece is cut."""
    m = _BYTE_AT.search(str(exc))
    if m is None:
        return None
    at = int(m.group(1))
    return at if at < length - 2 else None


def next_event(buf: bytearray, start: int, end: int) -> tuple[int | None, int]:
    """The first event in ``buf[start:end]``: (index of its ``{`` or None, where to search again when None).

    An event is an object with a ``"ph"`` key that reads as strict JSON (objects inside a damaged event — its
    ``args`` — have none). The text is searched in windows that grow while an object is cut by their end; when no
    event is found, the second value is the first ``{`` whose object reaches past ``end`` (else ``end``): the caller
    reads more text and searches again from there."""
    dec = json.JSONDecoder()
    width = WINDOW
    while start < end:
        stop = min(end, start + width)
        text = bytes(buf[start:stop]).decode("utf-8", "surrogateescape")  # one character per invalid byte
        again = None
        for m in _OPEN.finditer(text):
            j = m.start()
            try:
                obj, _ = dec.raw_decode(text, j)
            except ValueError as exc:
                if exc.pos >= len(text) - 1 or exc.msg.startswith("Unterminated"):  # the window cuts it
                    again = j
                    break
                continue
            except RecursionError:
                continue
            if isinstance(obj, dict) and "ph" in obj:
                return start + len(text[:j].encode("utf-8", "surrogateescape")), end
        if again is None:
            start = stop
            continue
        skip = start + len(text[:again].encode("utf-8", "surrogateescape"))
        if stop == end:
            return None, skip
        start, width = skip, width * 4
    return None, end
