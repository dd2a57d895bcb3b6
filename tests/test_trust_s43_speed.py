"""Zero-copy pieces (``collectors/_stream.py``, ``_kineto_scan.py``): the stream reads its text into a buffer that is
never resized and hands a reader that takes views (the Kineto ``piece_reader``) each piece in place, as a view whose
first and last bytes stand for ``[`` and ``]``; the scanner reads such a view with those two bytes as bounds.

What could go wrong, checked against the text the test wrote: a view read after the buffer behind it was written
again (the two buffers used in turn, a worker thread's piece), an event lost or doubled where the text moves to the
other buffer, the scanner reading the shared separator byte of two pieces, damaged text or gzip input read
differently through views, and a view decoded by msgspec with its separator bytes as they are in the buffer.
"""

from __future__ import annotations

import gzip
import json
import threading

import msgspec
import numpy as np
import pytest

from gpulens.collectors import _kineto_scan as S
from gpulens.collectors._kineto_fast import piece_reader
from gpulens.collectors._stream import StreamInfo, _Text, _viewed, framed_copy, stream_pieces
from gpulens.collectors._stream_damage import Stretch


def _events(n: int) -> list[dict]:
    names = ["plain", 'void k<{lambda(float)#1}, at::detail::Array<char*, 2> >(int)', 'quote "}, {"']
    return [{"ph": "X", "cat": "kernel", "name": names[i % 3], "pid": 0, "tid": 7, "ts": 1000 + i, "dur": 1,
             "args": {"correlation": i}} for i in range(n)]


def _text(events, damaged_at: int | None = None) -> bytes:
    rows = ["  " + json.dumps(e) for e in events]
    if damaged_at is not None:  # one event whose text is not JSON (a missing colon)
        rows.insert(damaged_at, '  {"ph": "X", "name" "broken", "ts": 5}')
    return ('{"traceEvents": [\n' + ",\n".join(rows) + "\n]}").encode()


class _Views:
    """A reader that takes views: decodes each piece by msgspec from :func:`framed_copy` (its bytes as the file
    has them, the bounds made ``[``/``]``), on the calling thread and — as the stream's ``ahead`` — on a worker.
    ``keep``: return the view itself with the events, so that the test reads every view again at the end."""

    takes_views = True

    def __init__(self, keep: bool = False):
        self.dec = msgspec.json.Decoder(list)
        self.keep = keep
        self.views = 0
        self.lock = threading.Lock()

    def __call__(self, piece):
        assert isinstance(piece, memoryview)
        with self.lock:
            self.views += 1
        events = self.dec.decode(framed_copy(piece))
        return (events, piece) if self.keep else events

    def wanted(self):
        return True

    def read_ahead(self, piece):
        try:
            return self(piece), bytes(piece)
        except msgspec.DecodeError:
            return None

    def result(self, piece, answer):
        if answer is None:
            return None
        got, seen = answer
        assert bytes(piece) == seen  # the worker's view still holds the text it read (the buffer not written again)
        return got

    def drop(self, answer):
        pass


def _read(path, reader, chunk, ahead=True):
    got, stretches = [], []
    for piece in stream_pieces(path, reader, StreamInfo(), chunk_bytes=chunk, ahead=reader if ahead else None):
        if isinstance(piece, Stretch):
            stretches.append(piece)
        elif isinstance(piece, (list, tuple)):
            got.append(piece)
        else:
            got.append(msgspec.json.decode(piece.doc)["traceEvents"])
    return got, stretches


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("chunk", [2000, 30000])
def test_views_give_every_event_once_in_file_order_across_buffers(tmp_path, chunk, gz):
    # 6,000 events of ~150 bytes: ~0.9 MB of text through buffers of 4 × 64 KiB, so the text not yet cut moves to
    # the other buffer many times, with the worker's piece in flight
    events = _events(6000)
    data = _text(events)
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    path.write_bytes(gzip.compress(data) if gz else data)
    reader = _Views()
    got, stretches = _read(path, reader, chunk)
    assert [e for piece in got for e in piece] == events and stretches == []
    assert reader.views >= len(data) // (4 << 16)  # the pieces were handed over in place


def test_a_view_kept_by_its_reader_is_never_written_again(tmp_path):
    """A reader that keeps every view it was handed: when each is read again after the whole file streamed, its
    text is still the events it held (a buffer still viewed is replaced, not reused)."""
    events = _events(6000)
    path = tmp_path / "t.json"
    path.write_bytes(_text(events))
    got, _ = _read(path, _Views(keep=True), 2000, ahead=False)
    kept = [piece for piece in got if isinstance(piece, tuple)]
    assert len(kept) > 10
    again = [e for _, view in kept for e in msgspec.json.decode(framed_copy(view))]
    assert again == events[:len(again)] and len(again) >= len(events) - 200  # the rest is the tail's


def test_damaged_text_is_set_aside_the_same_through_views(tmp_path):
    events = _events(3000)
    path = tmp_path / "t.json"
    text = _text(events, damaged_at=1700)
    path.write_bytes(text)
    got, stretches = _read(path, _Views(), 2000)
    assert [e for piece in got for e in piece] == events  # every intact event, in order
    assert len(stretches) == 1 and b'"name" "broken"' in stretches[0].data
    st = stretches[0]
    assert text[st.offset:st.offset + len(st.data)] == st.data  # where the file has it
    # its position: the newlines before it in the file (the damaged event is on line 1,702: line 1 is
    # '{"traceEvents": [', event i on line i + 2), and the bytes since the last of them
    assert st.lines == text[:st.offset].count(b"\n") and text.count(b"\n", 0, text.index(b'"broken"')) + 1 == 1702
    assert st.col == st.offset - (text.rfind(b"\n", 0, st.offset) + 1)


def _add(t: _Text, blk: bytes, lo: int) -> int:
    t.lo = lo
    return t.append(blk)


def test_text_buffer_moves_only_the_uncut_text_and_reuses_a_free_buffer():
    small = _Text(8)
    _add(small, b"abc", 0)
    assert len(small.buf) == 6  # a block shorter than a whole one (a small file): twice its size, not 4 blocks
    t = _Text(8)
    assert _add(t, b"0123456789", 0) == 0
    first = t.buf
    assert len(first) == 32  # 4 blocks of 8 bytes
    assert _add(t, b"abcdefghijklmnop", 6) == 0  # 26 bytes fit: appended where they are
    assert bytes(t.buf[:t.hi]) == b"0123456789abcdefghijklmnop"
    assert _add(t, b"ABCDEFGHIJ", 20) == 20  # 36 > 32: the uncut "klmnop" moves to a new buffer's front
    second = t.buf
    assert second is not first and bytes(t.buf[:t.hi]) == b"klmnopABCDEFGHIJ" and t.consumed == 20
    assert _add(t, b"QRSTUVWXYZ0123456", 14) == 14  # 33 > 32: into the first buffer again (no view of it)
    assert t.buf is first and bytes(t.buf[:t.hi]) == b"IJQRSTUVWXYZ0123456" and t.consumed == 34
    view = memoryview(t.buf)[2:6]
    assert _viewed(first) and not _viewed(second) and len(first) == 32  # the probe leaves the size as it was
    assert _add(t, b"x" * 14, 18) == 18  # into the second buffer (no view of it)
    assert t.buf is second and bytes(t.buf[:t.hi]) == b"6" + b"x" * 14 and t.consumed == 52
    assert _add(t, b"y" * 20, 15) == 15  # the first buffer is viewed: a new one, the first left as it is
    assert t.buf is not first and t.buf is not second and bytes(view) == b"QRST"
    assert bytes(t.buf[:t.hi]) == b"y" * 20 and t.consumed == 67


_PIECE = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1.5, "dur": 2,
           "args": {"correlation": 7}},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 1000012.459, "dur": 3}]


def test_the_scanner_reads_a_view_between_two_separators():
    S.check()
    body = ",\n".join(json.dumps(e) for e in _PIECE).encode()
    buf = bytearray(b'{"x": 1},' + body + b",\n" + json.dumps(_PIECE[0]).encode() + b"]")
    a = buf.index(b"},") + 1  # the ',' before the first event
    b = a + 1 + len(body) + 1  # the view's last byte is the ',' after the last event
    assert bytes(buf[a:a + 1]) == b"," and bytes(buf[b - 1:b]) == b","
    status, I, D, _ = S.scan(memoryview(buf)[a:b])
    try:
        assert status == S.OK and I.shape[1] == 2
        assert I[S.F["TS_V"], 0] == 1500 and I[S.F["TS_V"], 1] == 1_000_012_459  # 1.5 µs, 1000012.459 µs
        assert I[S.F["CORR_V"], 0] == 7 and I[S.F["DUR_V"], 1] == 3000
    finally:
        S.release(I, D)
    # the same bytes as a copy are no JSON array (',' first): not read as events
    status, I, D, _ = S.scan(bytes(buf[a:b]))
    assert status == S.FALLBACK
    # a view that ends inside an event is not read
    status, I, D, _ = S.scan(memoryview(buf)[a:b - 10])
    assert status == S.FALLBACK


def test_piece_reader_decodes_a_view_from_a_copy_and_leaves_the_buffer_as_it_was():
    seen = []

    def decode(piece):
        seen.append(bytes(piece))
        return msgspec.json.decode(piece)

    buf = bytearray(b"," + json.dumps(_PIECE[1]).encode() + b",")
    before = bytes(buf)
    reader = piece_reader(decode, StreamInfo(size_bytes=100), force=False)
    got = reader(memoryview(buf))
    assert got == [_PIECE[1]] and seen[0][:1] == b"[" and seen[0][-1:] == b"]"
    assert bytes(buf) == before


def test_scanned_pieces_from_views_match_the_json(tmp_path):
    """The whole Kineto path through views: the scanner reads every piece of a file in place (forced on, two
    threads), and the kernels' start times and correlation ids are the ones written."""
    from gpulens.collectors.kineto import KinetoCollector

    events = _events(4000)
    path = tmp_path / "t.json"
    path.write_bytes(_text(events))
    import os

    old = os.environ.get("GPULENS_KINETO_THREADS")
    os.environ["GPULENS_KINETO_THREADS"] = "2"
    try:
        tl = KinetoCollector().collect(path, chunk_bytes=30000, fast=True)
    finally:
        if old is None:
            os.environ.pop("GPULENS_KINETO_THREADS")
        else:
            os.environ["GPULENS_KINETO_THREADS"] = old
    ev = tl.events
    k = ev[ev["kind"].astype(str) == "kernel"].sort_values("start_ns")
    assert len(k) == 4000
    assert np.array_equal(k["start_ns"].to_numpy() - k["start_ns"].min(), np.arange(4000) * 1000)  # ts 1000 + i µs
    assert k["correlation_id"].tolist()[1:] == list(range(1, 4000))  # (correlation 0 is Kineto's "none")
    assert set(k["name"].astype(str)) == {e["name"] for e in events[:3]}


def test_a_plain_file_is_read_into_the_buffer_and_a_transcoded_one_as_bytes(tmp_path):
    from gpulens.collectors._stream import iter_blocks

    data = _text(_events(3000))  # ~450 KB: several 64 KiB blocks
    plain, bom = tmp_path / "p.json", tmp_path / "b.json"
    plain.write_bytes(data)
    bom.write_bytes(b"\xef\xbb\xbf" + data)
    for path, direct in ((plain, True), (bom, False)):
        t = _Text(1 << 16)
        info = StreamInfo()
        kinds = []
        for blk in iter_blocks(path, info, block=1 << 16, into=t.read_into):
            kinds.append(type(blk))
            if not isinstance(blk, int):
                t.append(blk)
        assert kinds[0] is bytes and (int in kinds) == direct
        assert info.nbytes == path.stat().st_size
        if direct:  # the text read in place: the file's bytes, in order (lo stays 0: the buffer only grows)
            assert bytes(t.buf[:t.hi]) == data


@pytest.mark.parametrize("n", [1381, 2790, 2868, 3001, 3400])
def test_the_end_of_the_file_anywhere_in_a_block(tmp_path, n):
    """Files whose end falls at many places relative to the 64 KiB blocks and the buffer's room (1,381 events, one
    thread: the last read, which finds nothing, first moves the text to the other buffer, as with 2,868 to ~3,200
    events on two threads): every event once, in order, plain and gzip, one thread and two."""
    events = _events(n)
    data = _text(events)
    for gz in (False, True):
        path = tmp_path / ("t.json.gz" if gz else "t.json")
        path.write_bytes(gzip.compress(data) if gz else data)
        for ahead in (False, True):
            got, _ = _read(path, _Views(), 40000, ahead)
            assert [e for piece in got for e in piece] == events
