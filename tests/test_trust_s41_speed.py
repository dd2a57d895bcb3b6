"""The Kineto stream on two cores, pipelined (``collectors/_stream_ahead.py``): the worker's piece of a round is
taken in the next round, so the worker scans while the calling thread reads the next block and makes the columns.

What could go wrong, and is checked here against the trace text itself: an event lost, doubled or reordered at a
round's seam (every event of a file written here, in file order); a worker piece that does not decode (the text is
cut again from where it starts, nothing lost); the worker's second scan overwriting the first's outputs before they
are taken (values read back against the JSON the test wrote); and the overlap itself (a piece reaches the consumer
while the worker's piece after it is still untaken).
"""

from __future__ import annotations

import json
import threading

import msgspec
import pytest

from gpulens.collectors._stream import StreamInfo, stream_pieces


def _events(n: int) -> list[dict]:
    names = ["plain", 'void k<{lambda(float)#1}, at::detail::Array<char*, 2> >(int)', 'quote "}, {"']
    return [{"ph": "X", "cat": "kernel", "name": names[i % 3], "pid": 0, "tid": 7, "ts": 1000 + i, "dur": 1,
             "args": {"correlation": i}} for i in range(n)]


def _write(tmp_path, events) -> object:
    p = tmp_path / "t.json"
    p.write_text('{"traceEvents": [\n' + ",\n".join("  " + json.dumps(e) for e in events) + "\n]}")
    return p


def _read_all(path, decode, ahead, chunk):
    got, pieces = [], []
    for piece in stream_pieces(path, decode, StreamInfo(), chunk_bytes=chunk, ahead=ahead):
        if isinstance(piece, list):
            got += piece
            pieces.append(len(piece))
        else:
            got += msgspec.json.decode(piece.doc)["traceEvents"]
    return got, pieces


class _Ahead:
    """The stream's second reader, by msgspec on the worker. ``fail``: the n-th pieces (1-based, in the order the
    worker is handed them) are answered as text that does not decode — as a piece cut inside an event would be —
    and the decoder on the calling thread then refuses the same bytes too."""

    def __init__(self, fail=(), bad=None):
        self.dec = msgspec.json.Decoder(list)
        self.fail, self.bad = set(fail), bad if bad is not None else set()
        self.handed = self.taken = self.dropped = 0
        self.lock = threading.Lock()

    def wanted(self):
        return True

    def read_ahead(self, buf):
        with self.lock:
            self.handed += 1
            n = self.handed
        if n in self.fail:
            self.bad.add(bytes(buf))
            return None
        return self.dec.decode(buf)

    def result(self, buf, answer):
        with self.lock:
            self.taken += 1
        return answer

    def drop(self, answer):
        with self.lock:
            self.dropped += 1


@pytest.mark.parametrize("chunk", [2000, 9000, 70000])
def test_every_event_once_in_file_order_across_rounds(tmp_path, chunk):
    events = _events(2500)
    path = _write(tmp_path, events)
    dec = msgspec.json.Decoder(list)
    ahead = _Ahead()
    got, pieces = _read_all(path, dec.decode, ahead, chunk)
    assert got == events  # compared with the list the file was written from
    assert ahead.taken >= 2 and len(pieces) > ahead.taken  # the worker's pieces and the calling thread's


@pytest.mark.parametrize("fail", [(1,), (2, 3), (4,)])
def test_a_worker_piece_that_does_not_decode_is_cut_again_and_nothing_is_lost(tmp_path, fail):
    events = _events(2500)
    path = _write(tmp_path, events)
    dec = msgspec.json.Decoder(list)
    bad: set = set()
    ahead = _Ahead(fail, bad)

    def decode(buf):  # the calling thread refuses what the worker refused: the piece's cut is wrong
        if bytes(buf) in bad:
            raise msgspec.DecodeError("cut inside an event")
        return dec.decode(buf)

    got, _ = _read_all(path, decode, ahead, 9000)
    assert got == events
    assert ahead.dropped >= 1  # the piece queued behind the refused one was dropped and its text cut again


def test_a_piece_reaches_the_consumer_while_the_worker_piece_after_it_is_untaken(tmp_path):
    """The overlap: when the calling thread's piece of a round is yielded, the worker's piece of the same round
    (later in the file) has been handed to the worker and not yet taken — the consumer's work overlaps its scan."""
    events = _events(3000)
    path = _write(tmp_path, events)
    dec = msgspec.json.Decoder(list)
    ahead = _Ahead()
    overlapped = 0
    got = []
    for piece in stream_pieces(path, dec.decode, StreamInfo(), chunk_bytes=9000, ahead=ahead):
        if isinstance(piece, list):
            got += piece
            # pieces the worker has started on (or been handed and finished) but the stream has not taken. A piece
            # submitted to the worker counts once the worker thread starts it: on a loaded machine that may be a
            # moment after the yield, so wait for it (up to 2 s; the generator is suspended, so nothing else is
            # submitted meanwhile). Without the overlap the worker's piece is taken before the yield and this
            # never holds.
            if overlapped < 2 and _worker_ahead(ahead, seconds=2.0):
                overlapped += 1
    assert got == events[:len(got)]
    assert overlapped >= 2


def _worker_ahead(ahead, seconds: float) -> bool:
    """Whether the worker holds a piece the stream has not taken, waiting up to ``seconds`` for it to start one."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        with ahead.lock:
            if ahead.handed > ahead.taken + ahead.dropped:
                return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)


def test_two_scans_on_the_worker_before_either_is_taken_keep_their_own_outputs():
    """``read_ahead`` hands its outputs out on the worker: a second scan there before the first is taken must not
    write into the first's matrices. The values are read back against the JSON written here."""
    from gpulens.collectors import _kineto_fast as KF
    from gpulens.collectors import _kineto_scan as S

    if not KF._available():
        pytest.skip("the Kineto scanner is not available here")
    reader = KF.piece_reader(lambda b: None, None, force=True)
    reader.on = True
    texts = []
    for base in (1000, 5000):
        evs = [{"ph": "X", "cat": "kernel", "name": f"k{base}_{i % 3}", "pid": 0, "tid": 7, "ts": base + i,
                "dur": 2, "args": {"correlation": base + i}} for i in range(50)]
        texts.append(bytearray(json.dumps(evs).encode()))
    answers = []
    t = threading.Thread(target=lambda: answers.extend(reader.read_ahead(b) for b in texts))
    t.start()
    t.join()
    assert answers[0][1].base is not answers[1][1].base  # two sets of matrices
    for base, text, answer in zip((1000, 5000), texts, answers):
        piece = reader.result(text, answer)
        assert piece is not None
        I = piece.I
        assert I[S.F["TS_V"]].tolist() == [(base + i) * 1000 for i in range(50)]  # µs in the JSON → ns
        assert I[S.F["CORR_V"]].tolist() == [base + i for i in range(50)]
        names, groups = piece.names
        assert [names[g] for g in groups] == [f"k{base}_{i % 3}" for i in range(50)]
        piece.release()
