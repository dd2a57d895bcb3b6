"""Closing a JSON document that was cut (a writer killed mid-file, a copy cut short): keep every complete value.

Used by the collectors whose JSON is one nested document rather than an event list (rocprofv3 ``results.json``;
the Kineto path has its own event-by-event recovery, :func:`gpulens.collectors._chrome_recover.recover`).
:func:`close_cut` finds the last complete value before the cut and appends the closing brackets of every container
still open there, so that an ordinary decoder reads every record written in full; the record cut in half is lost.
"""

from __future__ import annotations

import re

import numpy as np

from gpulens.units import agree, plural

_OPEN = (ord("["), ord("{"))
_PAIR = {ord("["): b"]", ord("{"): b"}"}


def _quotes(arr: np.ndarray) -> np.ndarray:
    """Positions of the string-delimiting quotes of ``arr`` (a quote after an odd run of backslashes is text)."""
    q = np.flatnonzero(arr == ord('"'))
    if len(q):
        esc = q[(q > 0) & (arr[np.maximum(q - 1, 0)] == ord("\\"))]
        escaped = []
        for i in esc.tolist():
            j = i - 1
            while j >= 0 and arr[j] == ord("\\"):
                j -= 1
            if (i - 1 - j) % 2:
                escaped.append(i)
        if escaped:
            q = np.setdiff1d(q, np.array(escaped, dtype=q.dtype), assume_unique=True)
    return q


def close_cut(data: bytes) -> tuple[bytes, int] | None:
    """``(closed, offset)``: ``data`` cut back to just after its last complete element of an array (a whole
    record) plus the closing brackets of the containers still open there; ``offset`` is where the kept text ends
    (the lost part starts). None when ``data`` is no cut JSON container (it does not start with ``{``/``[``, every
    bracket is closed, or no array element was completed before the cut).

    Brackets inside strings do not count (quotes located with numpy, escapes honoured); an object cut after some of
    its fields is dropped whole, never kept with the fields it lost. Cost: a few numpy passes over the bytes.
    """
    start = len(data) - len(data.lstrip(b"\xef\xbb\xbf \t\r\n"))
    if data[start:start + 1] not in (b"{", b"["):
        return None
    arr = np.frombuffer(data, dtype=np.uint8)
    pos = np.flatnonzero((arr == ord("[")) | (arr == ord("{")) | (arr == ord("]")) | (arr == ord("}")))
    pos = pos[np.searchsorted(_quotes(arr), pos) % 2 == 0]  # an even number of quotes before: outside strings
    stack: list[int] = []
    best: tuple[int, tuple[int, ...]] | None = None
    for p, c in zip(pos.tolist(), arr[pos].tolist()):
        if c in _OPEN:
            stack.append(c)
        elif stack:
            stack.pop()
            if stack and stack[-1] == _OPEN[0]:  # a whole element of an array ends here
                best = (p + 1, tuple(stack))
    if not stack or best is None:
        return None  # balanced (malformed some other way), or nothing complete to keep
    keep, open_then = best
    return bytes(data[:keep]) + b"".join(_PAIR[c] for c in reversed(open_then)), keep


def json_error_text(exc: BaseException, size: int | None = None) -> str:
    """A JSON decoder's error in gpulens's words: msgspec's bare "Input data was truncated" becomes where the text
    ends and what is lost (``size``: the bytes read, when known); other messages are kept (they name the problem
    and its position)."""
    msg = str(exc)
    if "truncated" in msg.lower():
        at = f" after {size:,} bytes" if size is not None else ""
        return (f"the JSON text ends{at} before its closing brackets, with no complete event before the cut: the "
                "file is truncated (the writer was killed or the copy is incomplete) and nothing in it could be read")
    return msg


def decode_cut(path, data: bytes, decode, what: str, compressed: bool = False):
    """``(doc, note)``: ``decode`` applied to the cut JSON ``data`` closed by :func:`close_cut`, and the
    :class:`~gpulens.errors.TruncationNote` marking the result partial (the lost part starts where the kept text
    ends). ``what`` names the format in messages.

    Raises:
        TraceFormatError: nothing complete before the cut, or the kept part is not readable either.
    """
    import msgspec

    from gpulens.errors import TraceFormatError, TruncationNote

    closed = close_cut(data)
    gz = " (decompressed)" if compressed else ""
    if closed is None:
        raise TraceFormatError(path, f"truncated {what}: the text ends after {len(data):,} bytes{gz}, before any "
                                     "complete record (the writer was killed or the copy is incomplete)")
    text, keep = closed
    try:
        doc = decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise TraceFormatError(path, f"truncated {what}: the text ends after {len(data):,} bytes{gz} and the part "
                                     f"before the cut is not readable either ({json_error_text(exc)})") from None
    return doc, TruncationNote(f"{path}: truncated: the JSON text ends after {len(data):,} bytes{gz} inside an "
                               f"unfinished record; every record before byte {keep:,} is kept, the "
                               f"{plural(len(data) - keep, 'byte(s)')} after it {agree(len(data) - keep, 'is', 'are')} not", path, keep)
