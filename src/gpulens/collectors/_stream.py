"""Streaming a Chrome-trace JSON file as pieces of its ``traceEvents`` array, in bounded memory.

The file (plain or gzip, every member) is read in blocks; the ``traceEvents`` array is cut after a complete top-level
event (a ``}`` followed by ``,``) once about ``chunk_bytes`` have accumulated, and each piece is decoded by msgspec on
its own, so at most a couple of pieces are in memory at once, never the whole file or its whole event list — also
when the text is damaged: the damaged stretch is set aside and the streaming goes on after it (:mod:`._stream_damage`).

Why this is safe without a full JSON scanner: a candidate cut is *validated* by decoding the piece as a JSON array of
events — a cut inside a string (``{lambda()#1}, {…`` in a kernel name) or inside a nested object leaves the piece
unbalanced, so msgspec rejects it and an earlier candidate is tried. Keys that follow the array
(``baseTimeNanoseconds``, ``displayTimeUnit``) are read with the last piece: it is decoded together with the text that
preceded the array, as one document.
"""

from __future__ import annotations

import os
import re
import stat
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import msgspec
import numpy as np

from gpulens.collectors._stream_ahead import Rounds
from gpulens.collectors._stream_damage import Stretch, damage_at, next_event
from gpulens.collectors._io import GZIP_MAGIC, as_utf8, decompress_limit, gunzip_blocks, open_error, text_codec
from gpulens._inputs import NUL_TAIL_KEPT, nul_tail_start
from gpulens.errors import TraceFormatError

#: Default piece size (decompressed bytes). Peak memory grows with it; speed hardly changes above a few MB.
CHUNK_BYTES = 8 << 20
#: Block (and piece) size used instead of :data:`CHUNK_BYTES` for a file of at least :data:`LARGE_FILE_BYTES` of text
#: (a gzip file's size counted 8×) read with the default piece size: the Kineto columns cost ≈ 0.8 ms of fixed work
#: per piece (some 40 column appends, the piece's checks), and the stream's buffer (4 blocks) and the scanner's
#: matrices are a small share of such a file's peak. Measured (forty-fifth session, 1M-kernel trace of 1.27 GB,
#: ``collect()`` in-process CPU, 2 shared cores, 5 alternated runs, medians): 8 MiB 3.94 s, 16 MiB 3.77 s; the
#: collect's own peak 0.90 → 0.98 GB (the analysis' peak, 1.58 GB, stays the command's); 32 MiB 3.86–3.91 s, 1.33 GB.
LARGE_BLOCK = 16 << 20
#: see :data:`LARGE_BLOCK`
LARGE_FILE_BYTES = 512 << 20
_ARRAY_START = re.compile(rb'"traceEvents"\s*:\s*\[')
_WS = b" \t\r\n"
_MAX_TRIES = 4
#: Piece size after damage, doubled up to the usual size while pieces decode: a file whose every hundredth event
#: is damaged costs work in proportion to its text, not one whole piece per damage.
STEP_AFTER_DAMAGE = 64 << 10


@dataclass
class StreamInfo:
    """What the reader learnt about the file while streaming it.

    Attributes:
        size_bytes: size on disk; compressed: gzip found by magic bytes; nbytes: decompressed bytes read;
        truncated_gzip: the gzip stream ended before its end marker.
    """

    size_bytes: int = 0
    compressed: bool = False
    nbytes: int = 0
    truncated_gzip: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def iter_blocks(path: Path, info: StreamInfo, block: int = 8 << 20,
                into: Callable[[Any, int], int] | None = None) -> Iterator[bytes | int]:
    """Yield the decompressed content of ``path`` block by block (gzip members concatenated).

    ``into(file, n)``: reads up to ``n`` bytes of the open file straight into the caller's buffer and answers how
    many (:meth:`_Text.read_into`). Given, a plain file in UTF-8 (no byte-order mark, :func:`._io.text_codec`) is read
    that way after its first block with content, and the number of bytes read is yielded instead of the bytes (one
    copy of the file's text fewer); a compressed or transcoded file is yielded as bytes all along.

    Raises:
        TraceFormatError: missing, unreadable, empty, whitespace-only or corrupt-gzip file (same messages as
            :func:`gpulens.collectors._io.read_input`).
    """
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise open_error(path, exc) from None
    with fh:
        st = path.stat()
        info.size_bytes = st.st_size
        sized = stat.S_ISREG(st.st_mode)  # a pipe's size says nothing of what it holds
        # a NUL tail (a writer that died after reserving the space) is read no further than NUL_TAIL_KEPT bytes:
        # 1 GiB of NULs cost 52 s and 5 GB decoded as the document's tail (:func:`nul_tail_note` says so)
        data = nul_tail_start(fh.fileno(), st.st_size) if sized and st.st_size > 1 << 20 else st.st_size
        cap = data + NUL_TAIL_KEPT if 0 < data and st.st_size - data > NUL_TAIL_KEPT else None
        first = fh.read(block if cap is None else min(block, cap))
        if not first:
            raise TraceFormatError(path, "file is empty")
        info.compressed = first[:2] == GZIP_MAGIC
        seen_content = False
        if not info.compressed:
            if cap is not None:
                info.extra["nul_tail"] = st.st_size - cap
            raw = first
            direct = into is not None and text_codec(first) is None
            while raw:
                info.nbytes += len(raw)
                seen_content = seen_content or bool(raw.strip())
                yield raw
                while direct and seen_content:  # the rest read into the caller's buffer
                    # no more than the file holds: the caller makes room for what it is asked to read (a buffer of
                    # four blocks, zero-filled), which a small file read whole in its first block never needs
                    # (≈ 25 ms per rank file of a folder); a file grown past its size is read on below as bytes
                    left = (info.size_bytes if cap is None else cap) - info.nbytes if sized else block
                    if left <= 0:
                        break
                    got = into(fh, min(block, left))
                    if not got:
                        return
                    info.nbytes += got
                    yield got
                raw = fh.read(block if cap is None else max(0, min(block, cap - info.nbytes)))
            if not seen_content:
                raise TraceFormatError(path, "file contains only whitespace")
            return
        state: dict = {}
        try:
            for out in gunzip_blocks(fh, first, decompress_limit(info.size_bytes), path, block, state):
                info.nbytes += len(out)
                seen_content = seen_content or bool(out.strip())
                yield out
        except zlib.error as exc:
            raise TraceFormatError(path, f"corrupt gzip data ({exc})") from None
        info.truncated_gzip = state.get("truncated", False)
        if state.get("corrupt"):
            info.extra["gzip_error"] = state["corrupt"]
        if state.get("trailing"):
            info.extra["gzip_trailing"] = state["trailing"]
        if not seen_content:
            raise TraceFormatError(path, "gzip file decompresses to nothing" + (" (truncated)" if info.truncated_gzip
                                                                                 else ""))


def _in_string(buf: bytearray, start: int, p: int) -> bool:
    """True when ``buf[p]`` lies inside a JSON string, decided on its line: a string never holds a raw newline, so
    the text from the last newline before ``p`` (or from ``start``, a validated cut outside any string) to ``p``
    starts outside a string, and ``p`` is inside one exactly when an odd number of unescaped quotes precede it there.
    (In text that is not valid JSON the answer may be wrong, but a piece cut there fails to decode either way.)"""
    line = buf.rfind(b"\n", start, p) + 1 or start
    seg = bytes(buf[max(line, start):p])
    if b"\\" in seg:  # drop escaped backslashes first, then escaped quotes: what remains are the string delimiters
        seg = seg.replace(b"\\\\", b"").replace(b'\\"', b"")
    return seg.count(b'"') % 2 == 1


def _candidate(buf: bytearray, start: int, end: int, budget: int = _MAX_TRIES,
               limit: int | None = None) -> tuple[int, int, int] | None:
    """The last cut candidate before ``end``: (index of a top-level-looking ``}``, index of the ``,`` after it, the
    ``},`` looked at to find it) with the ``}`` outside a string (:func:`_in_string`), within the last ``budget``
    ``},``; None when none. ``limit``: the end of the text in ``buf`` (default ``len(buf)``)."""
    tries = 0
    n = len(buf) if limit is None else limit
    while tries < budget:
        p = buf.rfind(b"}", start, end)
        if p < 0:
            return None
        q = p + 1
        while q < n and buf[q] in _WS:
            q += 1
        if q >= n or buf[q] != 0x2C:  # ','
            end = p
            continue
        tries += 1
        if not _in_string(buf, start, p):
            return p, q, tries
        end = p
    return None


def _piece(buf: bytearray, start: int, p: int) -> bytearray:
    """``buf[start:p + 2]`` as a JSON array: its first byte (``[`` or ``,``) made ``[`` and its last ``]``."""
    piece = buf[start:p + 2]
    piece[0] = 0x5B
    piece[-1] = 0x5D
    return piece


def _cut(buf: bytearray, start: int, decode: Callable[[bytes], Any], end: int | None = None,
         damage: list[int] | None = None, views: bool = False, limit: int | None = None) -> tuple[Any, int] | None:
    """Decode the longest prefix of events in ``buf[start:end]`` that ends at a validated cut.

    ``buf[start]`` is the ``[`` or ``,`` before the first event. Returns (decoded events, index of the ``,`` where the
    next piece starts) or None when no candidate within the last few ``},`` decodes. ``damage``: when given, the index
    in ``buf`` of damage a failed decode named (:func:`._stream_damage.damage_at`) is appended to it. ``views``:
    ``decode`` reads pieces in place (:func:`piece_of`); ``limit``: the end of the text in ``buf`` (default
    ``len(buf)``).
    """
    limit = len(buf) if limit is None else limit
    end, left = limit if end is None else end, _MAX_TRIES
    cut = piece_of(views)
    while left > 0:
        c = _candidate(buf, start, end, left, limit)  # a `},` inside a string would fail to decode: skipped, counted
        if c is None:
            return None
        p, q, used = c
        left -= used
        piece = cut(buf, start, p)  # a view, or one copy decoded as is (decoded Raw values keep it alive, not `buf`)
        try:
            return decode(piece), q
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            at = damage_at(exc, len(piece)) if damage is not None else None
            if at is not None:  # every later cut fails there too
                damage.append(start + at)
                return None
            end = p
    return None


@dataclass
class Tail:
    """The last piece: the document text before the array plus everything from the last cut to the end.

    Attributes:
        doc: bytes of a complete document (object form: header keys + remaining events + trailing keys; array form:
            ``[`` + remaining events).
        array_form: the file is a bare JSON array of events.
        offset: absolute decompressed offset of ``doc[len(prefix)]`` minus ``len(prefix)``: add to an offset within
            ``doc`` (past the prefix) to get the offset in the file.
        base: (len(prefix), newlines in the file before ``doc[len(prefix)]``, its column − 1): where
            :func:`gpulens.collectors._chrome_json.where` needs it to give lines and columns of the file, not of
            ``doc`` (whose body starts wherever the last cut fell). A property: ``known_base`` when the stream
            counted it, else counted once, when first read, by ``locate`` (:func:`position_at`: only an error or
            warning about damaged text reads it).
    """

    doc: bytes
    array_form: bool
    offset: int
    known_base: tuple[int, int, int] | None = None
    locate: Callable[[], tuple[int, int, int]] | None = field(default=None, repr=False)

    @property
    def base(self) -> tuple[int, int, int] | None:
        """(len(prefix), newlines before ``doc[len(prefix)]``, its column − 1), None for a whole small document;
        raises :class:`~gpulens.errors.TraceFormatError` when the file to count it from can no longer be read."""
        if self.known_base is None and self.locate is not None:
            self.known_base, self.locate = self.locate(), None
        return self.known_base


def stream_pieces(path: Path, decode_events: Callable[[bytes], Any], info: StreamInfo,
                  chunk_bytes: int = CHUNK_BYTES, ahead: Any = None) -> Iterator[Any]:
    """Yield decoded event pieces of ``path``, then a :class:`Tail` with the rest of the document.

    Damaged text inside the array (a piece that msgspec refuses before its end) does not stop the streaming: the
    events before it are yielded, the text from there to the next event as a
    :class:`~gpulens.collectors._stream_damage.Stretch` for the caller to judge, and the pieces after it as usual
    (:mod:`._stream_damage`). Damage with no event after it stays in the tail.

    The text is read into a buffer that is never resized (:class:`_Text`): a piece is cut by moving an index, and a
    reader that takes views (``decode_events.takes_views``) reads each piece in place, as a :class:`memoryview` of
    the buffer whose first and last bytes stand for ``[`` and ``]`` (:func:`framed_copy` makes it a JSON array);
    other readers get each piece as a JSON array of its own (a copy).

    Args:
        decode_events: decodes a JSON array of events (bytes) into a list; raises msgspec errors when invalid.
        chunk_bytes: approximate decompressed size of each piece.
        ahead: a second reader for two cores (the Kineto scanner's
            :class:`~gpulens.collectors._kineto_fast.piece_reader`): while ``ahead.wanted()`` (asked after the first
            piece), each block's text is cut into two pieces (:mod:`._stream_ahead`): ``decode_events`` reads the
            first here and ``ahead.read_ahead(piece)`` (thread-safe) the second on a worker thread, taken in the next
            round; ``ahead.result(piece, its answer)`` then gives the events, or None when they must be decoded as
            usual; ``ahead.drop(its answer)`` when the piece is not wanted after all (a cut before it did not
            decode). The pieces are yielded in file order; a cut that does not decode is retried as without it.
            Any ``ahead`` gives the same events in the same order.
    """
    block = _block_size(path, chunk_bytes)
    text = _Text(block)
    views = bool(getattr(decode_events, "takes_views", False))
    prefix: bytes | None = None
    start = 0  # index in text.buf of the `[` or `,` before the next event not yet yielded
    array_form = False
    blocks = as_utf8(iter_blocks(path, info, block=block, into=text.read_into))  # BOM / UTF-16
    eof = False
    pool = rounds = None
    yielded = False
    # newlines in the text before text.buf[mark], bytes after the last of them (while `counting`): a regular file is
    # read again to count its newlines when a position is needed (damaged text: rare); the pieces of intact text are
    # not counted as they are cut (2–3 % of a 1M-kernel load). A pipe is counted as read.
    lines = col = mark = 0
    counting = not _rereadable(path)
    damaged: int | None = None  # after damage: where in text.buf the search for the next event goes on
    step: int | None = None  # after damage: pieces of this size, doubled while they decode (damage often recurs)
    try:
        while not eof:
            text.lo, text.moved = mark, 0  # buf[mark] (at or before `start`): the first byte still needed
            blk = next(blocks, None)  # bytes, or how many were read into text.buf (iter_blocks' `into`)
            if blk is None:
                eof = True
            elif not isinstance(blk, int):
                text.append(blk)
            if text.moved:  # the text not yet cut moved to a buffer's front (also by a read that found the end)
                start, mark = start - text.moved, mark - text.moved
                damaged = None if damaged is None else damaged - text.moved
            buf, hi = text.buf, text.hi
            if prefix is None:
                s = buf[:hi].lstrip()
                if not s:
                    continue
                if s[:1] == b"[":
                    array_form = True
                    start = hi - len(s)
                    prefix = bytes(buf[:start + 1])
                else:
                    m = _ARRAY_START.search(buf, 0, hi)
                    if m is None:
                        continue
                    prefix = bytes(buf[:m.end()])
                    start = m.end() - 1
            while True:  # after damage: the stretch and the pieces after it, before more text is read
                if damaged is not None:  # text after damage: set aside up to the next event, then stream on from it
                    j, damaged = next_event(buf, damaged, hi)
                    if j is None:
                        break  # read more; at the end of the file the rest goes to the tail's recovery
                    if not counting:  # the first damage: the position of buf[mark] from the file, then counted on
                        lines, col = position_at(path, text.consumed + mark, block)
                        counting = True
                    lines, col = _advance_within(buf, mark, start + 1, lines, col)
                    stretch = Stretch(bytes(buf[start + 1:j]), text.consumed + start + 1, lines, col,
                                      bytes(buf[j:min(j + 32, hi)]))
                    lines, col = _advance_within(buf, start + 1, j - 1, lines, col)
                    # buf[j - 1] (the stretch's last byte) stands for the separator before the event
                    start = mark = j - 1
                    damaged = None
                    yield stretch
                    del stretch
                if eof or hi - start < (step or chunk_bytes):
                    if rounds is not None and rounds.pending is not None:  # the worker's last piece first
                        got = rounds.flush(text.consumed)
                        if got:
                            events, comma = got.pop()
                            if counting:
                                lines, col = _advance_within(buf, mark, comma, lines, col)
                            start = mark = comma
                            yield events
                            del events
                        continue  # cut again from here (the rest of the text, or the piece that did not decode)
                    break
                two = step is None and yielded and ahead is not None and ahead.wanted()
                got: list = []
                if two:
                    if rounds is None:
                        from concurrent.futures import ThreadPoolExecutor

                        pool = ThreadPoolExecutor(1, thread_name_prefix="gpulens-scan")
                        rounds = Rounds(decode_events, ahead, pool, _candidate, piece_of(views))
                    # two pieces of the new text (not one round's text twice over); the worker's piece is taken next
                    # round (:mod:`._stream_ahead`)
                    got = rounds.step(buf, start, text.consumed, hi)
                at: list[int] = []
                if not got:
                    one = _cut(buf, start, decode_events, hi if step is None else min(hi, start + step), at, views,
                               hi)
                    if one is None and at:  # damaged text: the intact events before it, then the search for the next
                        one = _cut(buf, start, decode_events, min(at), None, views, hi)
                    got = [one] if one is not None else []
                while got:
                    events, comma = got.pop(0)
                    if counting:
                        lines, col = _advance_within(buf, mark, comma, lines, col)
                    start = mark = comma
                    yielded = True
                    yield events
                    del events  # the consumer owns the piece now; keep no reference while decoding the next one
                if not at:
                    if step is None:
                        break  # one round per block read, as for an intact file
                    step = step * 2 if step * 2 < chunk_bytes else None  # also when no cut decoded within it
                    continue
                damaged = min(at) + 1  # searched from the byte after the damage, before more is read
                step = STEP_AFTER_DAMAGE
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    buf, hi, consumed = text.buf, text.hi, text.consumed
    if prefix is None:  # no traceEvents array at all: hand the whole (small) document to the tail decoder
        tail = Tail(bytes(buf[:hi]), False, 0)
    else:
        with memoryview(buf) as whole, whole[start + 1:hi] as body:
            doc = prefix + body.tobytes()
        if counting:
            lines, col = _advance_within(buf, mark, start + 1, lines, col)
            tail = Tail(doc, array_form, consumed + start + 1 - len(prefix), (len(prefix), lines, col))
        else:
            at, head = consumed + start + 1, len(prefix)
            tail = Tail(doc, array_form, at - head, locate=lambda: (head,) + position_at(path, at, block))
    del buf, text  # the buffers (2 × 32 MiB) freed before the tail is read, not when the consumer drops this stream
    yield tail


class _Text:
    """The stream's text buffer: a bytearray that is never resized, so that pieces are read in place
    (:func:`stream_pieces`) — a front delete and an append of a growing bytearray copied each 8 MB block of text
    about four times (measured, forty-second session: 0.63–0.76 s CPU of a 1M-kernel load).

    ``buf[:hi]`` holds the text read; ``consumed`` is the offset in the file's text of ``buf[0]``. When a block
    does not fit after ``hi``, the text not yet cut (from ``lo`` on) is copied to the front of the other of two
    buffers used in turn — the one left is not written again while a view of it is alive (a worker thread's piece
    being read): a buffer still viewed (:func:`_viewed`) is replaced by a new one. Two buffers, not a new one each
    time: a new buffer's pages are faulted in afresh (0.18 s of allocation and a slower copy per 1M-kernel load).

    Sized for four blocks of ``block`` bytes (twice the text to hold, when more), or twice a block shorter than
    that (a small file, read in one block, gets no 32 MiB buffer).

    Attributes:
        buf: the buffer; hi: end of the text in it; consumed: file offset of ``buf[0]``.
    """

    def __init__(self, block: int) -> None:
        self.block = block
        self.buf = bytearray()
        self.spare: bytearray | None = None
        self.hi = self.consumed = self.lo = self.moved = 0

    def append(self, blk: bytes) -> int:
        """Append ``blk``; the text before ``lo`` is no longer needed. Returns how far the indexes into ``buf``
        moved back (0 when the block fitted where it was; also in :attr:`moved`)."""
        n = len(blk)
        shift = self._room(n)
        self.buf[self.hi:self.hi + n] = blk
        self.hi += n
        return shift

    def read_into(self, fh: Any, n: int) -> int:
        """Read up to ``n`` bytes of the file ``fh`` after ``hi`` (made room for as :meth:`append` does, how far
        the indexes moved in :attr:`moved`); returns the bytes read (0 at the end of the file)."""
        self._room(n)
        with memoryview(self.buf) as whole, whole[self.hi:self.hi + n] as view:  # released: no view left alive
            got = fh.readinto(view)
        self.hi += got
        return got

    def _room(self, n: int) -> int:
        """Room for ``n`` bytes after ``hi``: the text from ``lo`` on moved to the front of the other buffer when
        they do not fit. Returns (and keeps in :attr:`moved`) how far the indexes into ``buf`` moved back."""
        buf, hi, lo = self.buf, self.hi, self.lo
        shift = 0
        if hi + n > len(buf):
            live = hi - lo
            new = self.spare
            if new is None or len(new) < live + n or _viewed(new):
                new = bytearray(max(4 * self.block if n >= self.block else 0, 2 * (live + n)))
            with memoryview(buf) as old:
                new[:live] = old[lo:hi]
            self.spare = buf if len(buf) else None
            self.buf, self.consumed, self.hi, self.lo, shift = new, self.consumed + lo, live, 0, lo
        self.moved = shift
        return shift


def _viewed(buf: bytearray) -> bool:
    """Whether a view of ``buf`` (a piece handed out) may still be read: CPython refuses to resize a bytearray
    while a buffer of it is exported (BufferError), so its last byte is removed and put back (no copy: the size
    stays within what is allocated)."""
    last = buf[-1]
    try:
        del buf[-1]
    except BufferError:
        return True
    buf.append(last)
    return False


def piece_of(views: bool) -> Callable[[bytearray, int, int], Any]:
    """The piece ``buf[start:p + 2]`` (``buf[p]`` the last event's ``}``): a view of it in place when ``views`` (its
    first and last bytes stand for ``[`` and ``]``), else a JSON array of its own (:func:`_piece`)."""
    if not views:
        return _piece

    def view(buf: bytearray, start: int, p: int) -> memoryview:
        with memoryview(buf) as whole:
            return whole[start:p + 2]

    return view


def framed_copy(view: memoryview) -> bytearray:
    """A piece handed out as a view (:func:`piece_of`) as a JSON array of its own: a copy whose first byte is made
    ``[`` and last ``]`` (what a reader that cannot read it in place decodes)."""
    piece = bytearray(view)
    piece[0] = 0x5B
    piece[-1] = 0x5D
    return piece


def _block_size(path: Path, chunk_bytes: int) -> int:
    """Bytes of text read (and cut into pieces) at a time: ``chunk_bytes`` within [64 KiB, 8 MiB], or
    :data:`LARGE_BLOCK` for a file of at least :data:`LARGE_FILE_BYTES` read with the default ``chunk_bytes``, or
    for a smaller file read with it, its (estimated) text size within [64 KiB, 8 MiB]."""
    block = max(1 << 16, min(chunk_bytes, 8 << 20))
    if chunk_bytes != CHUNK_BYTES:
        return block
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a pipe is read once, by iter_blocks
            return block
        size = st.st_size
        with path.open("rb") as fh:
            if fh.read(2) == GZIP_MAGIC:
                size *= 8
    except (OSError, TypeError, AttributeError):  # a pipe or an unreadable file: iter_blocks says what is wrong
        return block
    if size >= LARGE_FILE_BYTES:
        return LARGE_BLOCK
    # a small file is one block of about its own size: the text buffer (:class:`_Text`, four blocks) of an 8 MiB
    # block was a 32 MiB bytearray zeroed per file — 34 ms of CPU for a 500-byte trace, 5 minutes for a folder of
    # 10,000 one-kernel rank files. A gzip file's text may be longer than the estimate: it is read in more blocks.
    return max(1 << 16, min(block, size + 1))


def _rereadable(path: Path) -> bool:
    """Whether ``path`` is a regular file (read again by :func:`position_at`), not a pipe or a device."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def position_at(path: Path, offset: int, block: int = 8 << 20) -> tuple[int, int]:
    """(newlines, column − 1) at byte ``offset`` of the text :func:`stream_pieces` reads from ``path`` — the file
    read again from its start, decompressed and made UTF-8 the same way (:func:`iter_blocks`, ``as_utf8``): newlines
    in the text before ``offset``, and the bytes between the last of them (or the start) and ``offset``. Only an
    error or warning about damaged text needs a position, so the stream does not count newlines as it reads.

    Raises:
        TraceFormatError: the file can no longer be read (removed, unreadable), as :func:`iter_blocks` says it.
    """
    lines = col = seen = 0
    blocks = as_utf8(iter_blocks(path, StreamInfo(), block=block))
    try:
        for blk in blocks:
            take = min(len(blk), offset - seen)
            if take <= 0:
                break
            lines, col = _advance_within(blk, 0, take, lines, col)
            seen += take
    finally:
        blocks.close()
    return lines, col


def _advance_within(buf: bytes | bytearray, a: int, k: int, lines: int, col: int) -> tuple[int, int]:
    """:func:`_advance` to the end of ``buf[:k]`` from (``lines``, ``col``) at ``buf[a]`` (``a <= k``)."""
    with memoryview(buf) as whole, whole[a:k] as part:
        nl = _count_newlines(part)
    if nl:
        return lines + nl, k - (buf.rfind(b"\n", a, k) + 1)
    return lines, col + k - a


def _newlines(buf: bytearray, k: int) -> int:
    """Newline bytes in ``buf[:k]`` (:func:`_count_newlines`); the views are released before ``buf`` is resized."""
    with memoryview(buf) as whole, whole[:k] as head:
        return _count_newlines(head)


_COUNT_SPAN = 1 << 18  # bytes compared at a time by _count_newlines: its flags (256 KiB) stay in the L2 cache


def _count_newlines(data: memoryview) -> int:
    """Newline bytes in ``data``. numpy compares several times faster than ``bytearray.count`` (whose one-byte
    count is a plain byte loop in CPython); 256 KiB at a time into one flag array, which stays in the cache — one
    comparison of a whole 8 MiB block wrote (and read back) an 8 MiB temporary, pushing the block itself out."""
    arr = np.frombuffer(data, dtype=np.uint8)
    flags = np.empty(min(len(arr), _COUNT_SPAN), dtype=bool)
    n = 0
    for i in range(0, len(arr), _COUNT_SPAN):
        part = arr[i:i + _COUNT_SPAN]
        out = flags[:len(part)]
        np.equal(part, 10, out=out)
        n += int(np.count_nonzero(out))
    return n


def _advance(buf: bytearray, k: int, lines: int, col: int) -> tuple[int, int]:
    """(newlines, column − 1) at the end of ``buf[:k]``, which follows text of ``lines`` newlines ending ``col``
    bytes after the last one (:func:`_advance_within` from ``buf[0]``)."""
    return _advance_within(buf, 0, k, lines, col)
