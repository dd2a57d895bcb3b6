"""Cutting the ``traceEvents`` array into pieces (:mod:`gpulens.collectors._stream`): a candidate cut whose ``},``
lies inside a string (kernel names such as ``{lambda(float)#1}, at::detail::Array``) is recognised without decoding
the piece, and every piece decoded is a valid one — the same pieces, with no wasted decode of a whole piece."""

import json

import msgspec
import pytest

from gpulens.collectors._stream import StreamInfo, _in_string, stream_pieces

_NAMES = ['void k<{lambda(float)#1}, at::detail::Array<char*, 2> >(int, {lambda(float)#1})',
          'quote "}, {" and backslash \\', "plain", 'ends with brace }', '{"x": 1}, {"y": 2}']


def _events(n: int) -> list[dict]:
    return [{"ph": "X", "cat": "kernel", "name": _NAMES[i % len(_NAMES)], "pid": 0, "tid": 7,
             "ts": 1000 + i, "dur": 1, "args": {"correlation": i}} for i in range(n)]


def _write(tmp_path, events, indent):
    p = tmp_path / "t.json"
    if indent == "line":  # one event per line, as the benchmark generator and many tools write it
        text = '{"traceEvents": [\n' + ",\n".join("  " + json.dumps(e) for e in events) + "\n]}"
    else:
        text = json.dumps({"traceEvents": events}, indent=indent)
    p.write_text(text)
    return p


@pytest.mark.parametrize("indent", ["line", None, 2])
@pytest.mark.parametrize("chunk", [3000, 20000, 70000])
def test_every_piece_decodes_and_pieces_hold_every_event_once(tmp_path, indent, chunk):
    events = _events(2000)  # > 64 kB: the file is read in blocks of 64 kB, cut between them
    path = _write(tmp_path, events, indent)
    dec = msgspec.json.Decoder(list)
    calls = {"ok": 0, "failed": 0}

    def decode(buf):
        try:
            out = dec.decode(buf)
        except msgspec.DecodeError:
            calls["failed"] += 1
            raise
        calls["ok"] += 1
        return out

    got = []
    for piece in stream_pieces(path, decode, StreamInfo(), chunk_bytes=chunk):
        if isinstance(piece, list):
            got += piece
        else:  # the tail: the rest of the document
            got += msgspec.json.decode(piece.doc)["traceEvents"] if not piece.array_form else []
    assert got == events  # every event once, in file order, names with "}," and quotes intact
    assert calls["ok"] > 1  # the file was cut (several pieces)
    assert calls["failed"] == 0  # no candidate inside a string was decoded


@pytest.mark.parametrize("text, nth, inside", [
    (b'[{"name": "a}, b"}, {', 0, True),  # the "}" of "a}, b"
    (b'[{"name": "a}, b"}, {', 1, False),  # the event's closing brace
    (b'[{"name": "q\\"}, x"}, {', 0, True),  # after an escaped quote: still inside
    (b'[{"name": "q\\\\"}, {', 0, False),  # an escaped backslash, then the closing quote: outside
    (b'[{"a": 1},\n {"name": "x}, y"}', 1, True),  # decided on its own line
])
def test_in_string_by_quote_parity_on_the_line(text, nth, inside):
    p = -1
    for _ in range(nth + 1):  # the nth "}" of the text
        p = text.index(b"}", p + 1)
    assert _in_string(bytearray(text), 0, p) is inside


class _Ahead:
    """A second reader for two cores (the stream's ``ahead``): reads pieces by msgspec on the worker thread, but
    refuses every third piece (as the scanner refuses rare content), so the stream must decode those itself."""

    def __init__(self):
        self.dec = msgspec.json.Decoder(list)
        self.calls = self.refused = self.read = self.dropped = 0

    def wanted(self):
        return True

    def read_ahead(self, buf):  # on the worker thread
        self.calls += 1
        if self.calls % 3 == 0:
            return "refuse"
        try:
            return self.dec.decode(buf)
        except msgspec.DecodeError:
            return None

    def result(self, buf, answer):  # back on the stream's thread
        if answer == "refuse":
            self.refused += 1
            return None
        if answer is not None:
            self.read += 1
        return answer

    def drop(self, answer):
        self.dropped += 1


def _nested_events(n: int) -> list[dict]:
    """Events whose args hold nested objects: a "}," inside an event (outside any string) is a cut candidate that
    does not decode, so the two-piece cut must fall back to trying earlier candidates as the one-piece cut does."""
    out = _events(n)
    for i, e in enumerate(out):
        if i % 2:
            e["args"]["nested"] = {"a": {"b": i}, "c": [{"d": j} for j in range(40)]}  # mostly "}, {"
    return out


@pytest.mark.parametrize("indent", ["line", None])
@pytest.mark.parametrize("chunk", [3000, 20000])
@pytest.mark.parametrize("make", [_events, _nested_events])
def test_two_pieces_at_once_yield_the_same_events_in_file_order(tmp_path, indent, chunk, make):
    events = make(3000)
    path = _write(tmp_path, events, indent)
    dec = msgspec.json.Decoder(list)
    ahead = _Ahead()
    seen_threads = set()

    def decode(buf):
        import threading

        seen_threads.add(threading.current_thread().name)
        return dec.decode(buf)

    got, pieces = [], 0
    for piece in stream_pieces(path, decode, StreamInfo(), chunk_bytes=chunk, ahead=ahead):
        if isinstance(piece, list):
            got += piece
            pieces += 1
        else:
            got += msgspec.json.decode(piece.doc)["traceEvents"] if not piece.array_form else []
    assert got == events  # every event once, in file order, whichever reader read its piece
    if make is _events:
        assert ahead.read >= 1 and (ahead.refused >= 1 or ahead.calls < 3)  # the worker's pieces, and refused ones
    else:
        # "}, {" outside strings in every other event: whether any worker piece's two cuts both fall between events
        # is chance (the pieces' sizes decide it); what holds is that the worker was handed pieces and that those
        # behind a cut that did not decode were dropped and their text cut again
        assert ahead.calls >= 1
    if make is _nested_events and chunk == 3000:
        assert ahead.dropped >= 1  # a first cut inside an event: the worker's piece was dropped, cut again
    assert seen_threads == {"MainThread"}  # decode_events itself never runs on the worker
    assert pieces > ahead.read  # the pieces the worker read were yielded beside the main thread's


@pytest.mark.parametrize("chunk", [3000, 20000, 1 << 20])
@pytest.mark.parametrize("indent", ["line", 2])
def test_malformed_text_is_located_by_line_and_column_of_the_file_wherever_the_cuts_fall(tmp_path, chunk, indent):
    from gpulens.collectors.kineto import KinetoCollector

    events = _events(1503)  # the last one named "plain": no brace in its name
    good = _write(tmp_path, events, indent).read_bytes()
    at = good.rindex(b"{", 0, good.rindex(b'"ph"'))  # before the last event, after many lines: a NUL is malformed
    data = good[:at] + b"\x00" + good[at:]
    p = tmp_path / "bad.pt.trace.json"
    p.write_bytes(data)
    line = data.count(b"\n", 0, at) + 1  # written by hand from the file: lines and columns count from 1
    col = at - (data.rfind(b"\n", 0, at) + 1) + 1
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=chunk)
    (msg,) = [w for w in tl.meta.warnings if " at line " in w]
    assert f"line {line}, column {col}:" in msg, msg


def test_newline_count_matches_a_hand_count_and_leaves_the_buffer_resizable():
    from gpulens.collectors._stream import _advance, _newlines

    text = b'[{"a": 1},\r\n  {"b": "x"},\n\n{"c": 2}\n\r]'
    buf = bytearray(text)
    for k in range(len(text) + 1):
        hand = sum(1 for c in text[:k] if c == 0x0A)  # byte by byte, without bytes.count
        assert _newlines(buf, k) == hand
    lines, col = _advance(buf, 14, 3, 5)  # text[:14] = '[{"a": 1},\r\n  ': one newline, then 2 bytes
    assert (lines, col) == (4, 2)
    assert _advance(buf, 9, 3, 5) == (3, 14)  # no newline in text[:9]: the column runs on
    del buf[:14]  # no view of buf is left exported (a bytearray with one cannot be resized)
    buf += b"more"
