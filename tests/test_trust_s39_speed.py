"""Speed work of session 39 on the load side (issue 16), with the figures it must keep.

Newline positions (line, column) of a streamed Kineto file are shown only in the errors and warnings about damaged
text. The stream counted the newlines of every piece it cut (2–3 % of a 1M-kernel load) for them; it now counts
them from the file, read again, only when a position is needed — the first damaged stretch, or the tail's position
when its text is damaged — and counts as it reads from there on. A pipe (which cannot be read again) is counted as
it is read, as before.

Expected positions are counted here by hand from the bytes written (``bytes.count`` / ``rfind``), never from
gpulens's output.
"""

from __future__ import annotations

import gzip
import os
import re
import sys
import threading
from pathlib import Path

import msgspec
import pytest

from gpulens.collectors import _stream
from gpulens.collectors._stream import StreamInfo, Tail, position_at, stream_pieces
from gpulens.collectors._stream_damage import Stretch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import gen_kineto  # noqa: E402

CHUNK = 64 << 10  # a ~1 MB file in about fifteen pieces


def _hand_position(text: bytes, offset: int) -> tuple[int, int]:
    """(newlines before ``offset``, bytes between the last of them and ``offset``), counted on the bytes."""
    return text.count(b"\n", 0, offset), offset - (text.rfind(b"\n", 0, offset) + 1)


@pytest.fixture(scope="module")
def intact(tmp_path_factory) -> bytes:
    p = tmp_path_factory.mktemp("s39") / "t.pt.trace.json"
    gen_kineto.generate(p, 800, steps=2)
    return p.read_bytes()


def _garble(data: bytes, which: list[int]) -> bytes:
    """``data`` with the ``ts`` value of the given kernel events made invalid JSON (same length)."""
    out = bytearray(data)
    starts = [m.start() for m in re.finditer(rb'\{"ph": "X", "cat": "kernel"', data)]
    for k in which:
        ts = out.index(b'"ts": ', starts[k]) + 7
        out[ts] = ord("x")
    return bytes(out)


def _read(path: Path) -> tuple[list[Stretch], Tail, int]:
    """Every stretch and the tail of ``path`` streamed in small pieces; the events decoded."""
    stretches, tail, events = [], None, 0
    for piece in stream_pieces(path, msgspec.json.decode, StreamInfo(), chunk_bytes=CHUNK):
        if isinstance(piece, Stretch):
            stretches.append(piece)
        elif isinstance(piece, Tail):
            tail = piece
        else:
            events += len(piece)
    return stretches, tail, events


def _counting(monkeypatch) -> list[int]:
    """Record the bytes :func:`_stream._count_newlines` is handed (the stream's only newline count)."""
    seen: list[int] = []
    real = _stream._count_newlines

    def counted(data):
        seen.append(len(data))
        return real(data)

    monkeypatch.setattr(_stream, "_count_newlines", counted)
    return seen


@pytest.mark.parametrize("gz", [False, True])
def test_damaged_stretches_mid_stream_are_placed_at_the_files_own_lines(tmp_path, intact, gz):
    kernels = intact.count(b'"cat": "kernel"')
    data = _garble(intact, [kernels // 3, 2 * kernels // 3])  # two stretches, pieces before, between and after
    p = tmp_path / ("bad.json.gz" if gz else "bad.json")
    p.write_bytes(gzip.compress(data) if gz else data)
    stretches, tail, _ = _read(p)
    assert len(stretches) == 2
    for st in stretches:
        assert data[st.offset:st.offset + len(st.data)] == st.data  # the offset is the file's (decompressed)
        assert (st.lines, st.col) == _hand_position(data, st.offset)
    head = tail.base[0]
    assert tail.base[1:] == _hand_position(data, tail.offset + head)
    assert tail.doc[head:] == data[tail.offset + head:]


def test_intact_file_counts_no_newline_while_it_streams_and_the_tail_position_on_demand(tmp_path, intact,
                                                                                      monkeypatch):
    p = tmp_path / "t.json"
    p.write_bytes(intact)
    seen = _counting(monkeypatch)
    stretches, tail, events = _read(p)
    assert not stretches and events > 2000  # the pieces were cut and decoded (kernels, launches, ops, flows)
    assert seen == []  # no newline counted for intact text
    head = tail.base[0]
    assert seen  # counted now, from the file
    assert tail.base[1:] == _hand_position(intact, tail.offset + head)
    assert position_at(p, len(intact)) == _hand_position(intact, len(intact))
    assert position_at(p, 0) == (0, 0)


def test_a_pipe_is_counted_as_it_is_read(tmp_path, intact, monkeypatch):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    data = _garble(intact, [intact.count(b'"cat": "kernel"') // 2])

    def feed():
        with open(fifo, "wb") as fh:
            fh.write(data)

    seen = _counting(monkeypatch)
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        stretches, tail, _ = _read(fifo)
    finally:
        if writer.is_alive():  # the reader failed before opening the pipe: release the writer
            with open(fifo, "rb") as fh:
                fh.read()
        writer.join()
    during = len(seen)
    assert during > 0  # not readable twice: counted while read
    (st,) = stretches
    assert (st.lines, st.col) == _hand_position(data, st.offset)
    head = tail.base[0]
    assert len(seen) == during  # the tail's position was known when it was yielded
    assert tail.base[1:] == _hand_position(data, tail.offset + head)


def test_a_damaged_tail_is_reported_at_its_line_in_the_file(tmp_path, intact):
    from gpulens.collectors.kineto import KinetoCollector

    kernels = intact.count(b'"cat": "kernel"')
    data = _garble(intact, [kernels - 1])  # the last kernel: its text is in the tail
    p = tmp_path / "last.pt.trace.json"
    p.write_bytes(data)
    at = [m.start() for m in re.finditer(rb'\{"ph": "X", "cat": "kernel"', data)][-1]
    bad = data.index(b'"ts": ', at) + 7  # the garbled byte
    line = data.count(b"\n", 0, bad) + 1  # lines and columns count from 1 in messages
    col = bad - (data.rfind(b"\n", 0, bad) + 1) + 1
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=CHUNK)
    (msg,) = [w for w in tl.meta.warnings if " at line " in w]
    assert f"line {line}, column {col}" in msg, msg
