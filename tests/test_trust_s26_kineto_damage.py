"""Damage inside a Kineto trace's events is not a truncation.

Kind fixed (s26): a bad token in the middle of ``traceEvents`` (a garbled value, a stray byte, an unquoted word, stray text between
   two events) was read as the end of the file: every intact event after it was lost and the input called
   truncated. Now strict reading refuses the file in one line naming the byte where the damaged text starts and
   suggesting ``--lenient``; lenient reading skips exactly the damaged text (one event, or none for stray text
   between events) and keeps every later event, with a warning naming where — never "outside the events".

Expected values come from the bytes written here: the events are joined by hand, so the damaged event's byte
offset and the number of events kept are counted from the list.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from gpulens.cli import main
from gpulens.collectors.kineto import KinetoCollector
from gpulens.errors import TraceFormatError

N = 60  # kernels; the damaged one is in the middle
MID = N // 2
HEAD = '{\n  "schemaVersion": 1,\n  "traceEvents": [\n'
TAIL = '\n  ],\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1700000000000000000\n}'


def _event(i: int) -> str:
    return ('  {"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d.5, "dur": 4.25, '
            '"args": {"device": 0, "stream": 7, "correlation": %d, "grid": [8, 1, 1], "block": [128, 1, 1]}}'
            % (i, 1000 + 10 * i, i + 1))


def _file(events: list[str]) -> tuple[bytes, list[int]]:
    """The trace text and the byte offset of each event's first byte (after its two-space indent)."""
    text, starts = HEAD, []
    for i, e in enumerate(events):
        if i:
            text += ",\n"
        starts.append(len(text.encode()) + 2)
        text += e
    return (text + TAIL).encode(), starts


#: (name, damaged text of event MID, events lost, offset of the damage from the event's first byte)
DAMAGE = [
    ("garbled value", lambda e: e.replace('"ts": ', '"ts": 12x', 1), 1, 0),
    ("stray byte in a number", lambda e: e.replace('"dur": 4.25', '"dur": 4.2\x015', 1), 1, 0),
    # an unquoted word as a value ("ph": X) is repaired into text, its event kept (test_trust_s44_cases): a key
    # written unquoted is not
    ("unquoted key", lambda e: e.replace('"ph"', "ph", 1), 1, 0),
    ("stray word before an event", lambda e: "  oops " + e[2:], 0, 0),
    ("NUL before an event", lambda e: "  \x00" + e[2:], 0, 0),
    ("extra closing brace", lambda e: e + "}", 0, len(_event(MID)) - 2),
]


def _damaged(kind) -> tuple[bytes, int, int]:
    """(file, byte where the damaged text starts, events lost)."""
    _, change, lost, into = kind
    events = [_event(i) for i in range(N)]
    events[MID] = change(events[MID])
    data, starts = _file(events)
    return data, starts[MID] + into, lost


def _kernels(tl) -> list[str]:
    return sorted(tl.events.loc[tl.events["kind"] == "kernel", "name"].astype(str), key=lambda s: int(s[1:]))


@pytest.mark.parametrize("chunk", [1 << 20, 2048])  # the whole text at once, and streamed in small pieces
@pytest.mark.parametrize("kind", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_strict_reading_refuses_damage_inside_the_events_naming_its_byte(tmp_path, kind, chunk):
    data, at, _ = _damaged(kind)
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(data)
    with pytest.raises(TraceFormatError) as ei:
        KinetoCollector().collect(p, chunk_bytes=chunk)
    msg = str(ei.value)
    line = data.count(b"\n", 0, at) + 1
    assert msg.startswith(f"{p}: malformed JSON inside traceEvents: damaged text from byte {at:,} "), msg
    # intact events follow the damage: not a cut where the file ends (whether the end is whole, strict reading
    # does not know: it stops here — test_trust_s39_lead)
    assert f"line {line}, column" in msg and "intact events follow it" in msg and "not where it ends" in msg
    assert "--lenient" in msg and "\n" not in msg


@pytest.mark.parametrize("chunk", [1 << 20, 2048])
@pytest.mark.parametrize("kind", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_lenient_reading_skips_exactly_the_damaged_text(tmp_path, kind, chunk):
    data, at, lost = _damaged(kind)
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(data)
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=chunk)
    want = [f"k{i}" for i in range(N) if not (lost and i == MID)]  # every event after the damage is kept
    assert _kernels(tl) == want
    assert not tl.meta.truncated and tl.meta.truncated_at == {}
    assert tl.meta.dropped == ({str(p): lost} if lost else {})
    (w,) = [w for w in tl.meta.warnings if "lenient JSON reading" in w]
    assert f"{lost:,} malformed event{'s' if lost != 1 else ''} dropped" in w and f"from byte {at:,} " in w, w
    assert not any("outside the events" in w or "truncat" in w for w in tl.meta.warnings), tl.meta.warnings
    start = int(tl.events["start_ns"].min())
    assert start == 1700000000000000000 + 1_000_500  # the base time after the events is still read


def test_a_damaged_last_event_before_the_arrays_end(tmp_path):
    events = [_event(i) for i in range(N)]
    events[-1] = events[-1].replace('"dur": 4.25', '"dur": 4..25')
    data, starts = _file(events)
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(data)
    with pytest.raises(TraceFormatError, match=f"damaged text from byte {starts[-1]:,} "):
        KinetoCollector().collect(p)
    tl = KinetoCollector().collect(p, strict=False)
    assert _kernels(tl) == [f"k{i}" for i in range(N - 1)] and not tl.meta.truncated


def _run(*args):
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        try:
            code = main(list(map(str, args)))
        except SystemExit as e:
            code = e.code
    return code, err.getvalue()


def test_cli_strict_is_one_line_naming_the_byte_and_lenient_is_a_partial_result(tmp_path):
    data, at, _ = _damaged(DAMAGE[0])
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(data)
    code, err = _run("analyze", p, "-q", "--no-cache")
    assert code == 2 and err.count("\n") == 1 and str(p) in err and f"byte {at:,}" in err and "--lenient" in err
    code, err = _run("analyze", p, "-q", "--no-cache", "--lenient", "--json", tmp_path / "r.json")
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert code == 0 and src["status"] == "partial" and src["summary"]["kernel_count"] == N - 1
    assert src["truncated"] is False


def test_an_intact_file_has_no_warning(tmp_path):
    data, _ = _file([_event(i) for i in range(N)])
    p = tmp_path / "t.json"
    p.write_bytes(data)
    tl = KinetoCollector().collect(p)
    assert len(_kernels(tl)) == N and not tl.meta.truncated and tl.meta.warnings == []
