"""Damage inside a large Kineto trace is read while streaming, in the memory of an intact file.

Kind fixed (s26): when one piece of ``traceEvents`` failed to decode (a garbled byte), the whole rest of the file was
read into memory as one tail and parsed with Python's ``json`` (a 126 MB trace with one bad byte near its start:
1.2 GB before the strict error, 2.7 GB and 14 s with ``--lenient``, against 475 MB for the intact file; one bare
``inf`` in every hundredth kernel: 2.9 GB, 161 s). Now the damaged stretch alone (the damaged event up to the next
event) is set aside and the pieces after it stream through the normal path: strict reading refuses the file at the
first damage without reading on; lenient reading keeps every intact event and counts what it dropped.

Expected values come from the generator's own arithmetic (kernel count, sum of kernel durations) minus the damaged
kernels, whose durations are read from their text before it is damaged; byte offsets and lines from the bytes
written here.
"""

from __future__ import annotations

import json
import re
import sys
import tracemalloc
from pathlib import Path

import pytest

from gpulens.collectors.kineto import KinetoCollector
from gpulens.errors import TraceFormatError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import gen_kineto  # noqa: E402

KERNELS = 4000
CHUNK = 256 << 10  # the file spans about twenty pieces


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """(intact file bytes, generator facts)."""
    p = tmp_path_factory.mktemp("big") / "t.pt.trace.json"
    (facts,) = gen_kineto.generate(p, KERNELS, steps=4)
    return p.read_bytes(), facts


def _kernel_lines(data: bytes) -> list[tuple[int, int]]:
    """(offset of the line's ``{``, offset of the line's end) of every kernel event line."""
    return [(m.start(), data.index(b"\n", m.start())) for m in re.finditer(rb'\{"ph": "X", "cat": "kernel"', data)]


def _damage(data: bytes, which: list[int]) -> tuple[bytes, list[int], int]:
    """The file with the ``ts`` of the given kernels garbled; (file, offsets of their ``{``, their total dur ns)."""
    out, lines, lost_ns = bytearray(data), _kernel_lines(data), 0
    for k in which:
        a, b = lines[k]
        ev = json.loads(data[a:b].rstrip(b","))
        lost_ns += round(ev["dur"] * 1000)
        ts = out.index(b'"ts": ', a) + 7
        out[ts] = ord("x")  # same length: the other offsets do not move
    return bytes(out), [lines[k][0] for k in which], lost_ns


def _kernel_stats(tl) -> tuple[int, int]:
    k = tl.events[tl.events["kind"].isin(["kernel", "comm"])]
    return len(k), int(k["dur_ns"].sum())


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
    except TraceFormatError:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_lenient_keeps_every_intact_event_after_damage_in_several_pieces(tmp_path, trace):
    data, facts = trace
    bad, at, lost_ns = _damage(data, [2, 1500, 3000])  # near the start and in two later pieces
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(bad)
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=CHUNK)
    assert _kernel_stats(tl) == (facts["kernels"] - 3, facts["kernel_ns"] - lost_ns)
    assert tl.meta.dropped == {str(p): 3} and not tl.meta.truncated
    (w,) = [w for w in tl.meta.warnings if "lenient JSON reading" in w]
    assert "3 malformed events dropped in 3 damaged stretches" in w
    for a in at:
        line = bad.count(b"\n", 0, a) + 1
        assert f"from byte {a:,} (" in w and f"at line {line}, column " in w, w


@pytest.mark.parametrize("chunk", [64 << 10, 1 << 30])  # small pieces, and the whole file read as one tail
def test_the_result_does_not_depend_on_where_the_pieces_fall(tmp_path, trace, chunk):
    data, _ = trace
    bad, _, _ = _damage(data, [2, 1500, 3000])
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(bad)
    ref = KinetoCollector().collect(p, strict=False, chunk_bytes=CHUNK)
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=chunk)
    assert _kernel_stats(tl) == _kernel_stats(ref) and tl.meta.dropped == ref.meta.dropped
    assert tl.meta.warnings == ref.meta.warnings


def test_strict_refuses_at_the_first_damage_without_reading_the_rest(tmp_path, trace):
    data, _ = trace
    bad, (at,), _ = _damage(data, [2])
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(bad)
    with pytest.raises(TraceFormatError) as ei:
        KinetoCollector().collect(p, chunk_bytes=CHUNK)
    msg = str(ei.value)
    line = bad.count(b"\n", 0, at) + 1
    assert f"damaged text from byte {at:,} (" in msg and f"at line {line}, column " in msg and "\n" not in msg
    assert "--lenient" in msg
    peak = _peak(lambda: KinetoCollector().collect(p, chunk_bytes=CHUNK))
    assert peak < len(bad) / 2, (peak, len(bad))  # a piece or two, never the rest of the file


def test_lenient_peak_memory_is_close_to_the_intact_files(tmp_path, trace):
    data, _ = trace
    good = tmp_path / "good.pt.trace.json"
    good.write_bytes(data)
    bad = tmp_path / "bad.pt.trace.json"
    bad.write_bytes(_damage(data, [2])[0])
    intact = _peak(lambda: KinetoCollector().collect(good, chunk_bytes=CHUNK, fast=False))
    damaged = _peak(lambda: KinetoCollector().collect(bad, strict=False, chunk_bytes=CHUNK, fast=False))
    assert damaged < 1.3 * intact, (damaged, intact)
