"""Two pieces per block on two cores, the worker's piece taken one round later (:func:`._stream.stream_pieces`).

Each round (one block read) cuts the text not yet read into two pieces: the first, :data:`MAIN_SHARE` of it, is
decoded on the calling thread; the second, the rest, is handed to a worker thread (``ahead.read_ahead``: the Kineto
scanner, which releases the GIL) and taken in the *next* round. So the worker scans while the calling thread does
what only it can do — read and cut the next block, make the columns of the pieces it yields (Python, holding the
GIL) — instead of idling from the end of one scan to the next. Before this, both pieces of a round were taken in the
same round, and the worker was idle for the whole rest of it (the columns of two pieces, the next block's read).

The pieces are yielded in file order: the worker's piece of the last round, then this round's first piece; the
worker's piece of this round waits (:class:`Pending`) with its text still in the stream's buffer, so that a piece
that does not decode is cut again from where it starts, as without a worker. The worker's piece of the last round
is also taken before this round's first piece is decoded (file order for whatever a decoder counts or reports).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import msgspec

#: share of a round's new text decoded by the calling thread (the rest by the worker). The calling thread also
#: reads and cuts each block and makes every piece's columns, so it scans less than half: with both threads equally
#: busy while streaming, share = (scan − other work) / (2 × scan). Measured (forty-first session, 1M-kernel trace,
#: ``collect()`` in-process, thread CPU s): scan ≈ 5.4, the calling thread's other work while streaming ≈ 2.8 → 0.24.
MAIN_SHARE = 0.25
_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)


@dataclass
class Pending:
    """The worker's piece of the last round, not yet yielded.

    Attributes:
        piece: its text as a JSON array (``[`` … ``]``, a copy) or a view of the stream's buffer in place
        (:func:`._stream.piece_of`); future: the worker's answer; comma: absolute offset
        in the file's text of the ``,`` after it (where the next piece starts).
    """

    piece: Any
    future: Any
    comma: int


class Rounds:
    """The two-piece rounds of one stream (module docstring): :meth:`step` per round, :meth:`flush` before the
    stream cuts on its own (the end of the text, a piece that does not decode)."""

    def __init__(self, decode: Callable[[Any], Any], ahead: Any, pool: Any,
                 candidate: Callable[..., Any], piece: Callable[..., Any]) -> None:
        self.decode, self.ahead, self.pool = decode, ahead, pool
        self._candidate, self._piece = candidate, piece
        self.pending: Pending | None = None
        self._alone = False  # the first piece of the last round did not decode at its cut: this round cuts alone

    def _take(self, pend: Pending) -> tuple[bool, Any]:
        """(decoded, events) of a pending piece: the worker's answer, else decoded here (as ``ahead`` tells);
        (False, None) when it does not decode."""
        got = self.ahead.result(pend.piece, pend.future.result())
        if got is not None:
            return True, got
        try:
            return True, self.decode(pend.piece)
        except _DECODE_ERRORS:
            return False, None

    def flush(self, consumed: int) -> list[tuple[Any, int]]:
        """The pending piece, decoded, as [(events, index in the buffer of the ``,`` after it)] (the buffer's
        first byte is at absolute offset ``consumed``); [] when none is pending or it does not decode (its text is
        then cut again by the stream)."""
        pend, self.pending = self.pending, None
        if pend is None:
            return []
        ok, events = self._take(pend)
        return [(events, pend.comma - consumed)] if ok else []

    def step(self, buf: bytearray, start: int, consumed: int, end: int | None = None) -> list[tuple[Any, int]]:
        """One round over ``buf[:end]`` (``buf[start]`` is the ``[`` or ``,`` before the next event not yet yielded,
        ``buf[0]`` at absolute offset ``consumed``; ``end`` the end of the text in ``buf``, default ``len(buf)``):
        the pieces to yield, in order, as [(events, index in ``buf`` of the ``,`` where the next piece starts)]. []
        when nothing could be cut or decoded here: nothing is pending then, and the stream cuts ``buf`` from
        ``start`` on its own. The worker's piece is made by the ``piece`` function given (a view of ``buf`` in
        place or a copy): ``buf[:end]`` must stay as it is until it is taken."""
        if self._alone:  # as a failed first cut did without a worker: the stream's own cut, tries included
            self._alone = False
            return self.flush(consumed)
        s0 = start if self.pending is None else self.pending.comma - consumed
        end = len(buf) if end is None else end
        c1 = self._candidate(buf, s0, s0 + int((end - s0) * MAIN_SHARE), limit=end)
        c2 = self._candidate(buf, c1[1], end, limit=end) if c1 is not None else None  # (}, ',' after it, tries)
        if c2 is None:
            return self.flush(consumed)
        second = self._piece(buf, c1[1], c2[0])
        fut = self.pool.submit(self.ahead.read_ahead, second)  # queued behind the pending one: the worker goes on
        out = self.flush(consumed)
        if not out and s0 != start:  # the pending piece does not decode: cut again from its start
            self.ahead.drop(fut.result())
            return []
        try:
            first = self.decode(self._piece(buf, s0, c1[0]))
        except _DECODE_ERRORS:
            self.ahead.drop(fut.result())
            self._alone = bool(out)  # [] makes the stream cut alone at once
            return out
        out.append((first, c1[1]))
        self.pending = Pending(second, fut, consumed + c2[1])
        return out
