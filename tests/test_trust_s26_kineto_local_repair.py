"""Lenient repairs of a damaged Kineto trace stay local to the damaged text.

Kind fixed (s26, found by fuzzing): ``--lenient`` repaired the whole remaining text at once (raw control characters
escaped inside "strings" found by pairing quotes), so one stray quote — in the metadata before ``traceEvents`` or in
one event — flipped the pairing for the rest of the file: its newlines were "escaped" into the structure and every
later event was lost (the whole file refused when it was read in one piece; 8 of its events kept when read in
small pieces: the answer depended on the chunk size). Now the events are read as strict JSON and only a stretch that
fails is repaired, on its own; damaged metadata is skipped with a warning.

Expected values come from the trace written here (its events counted by hand) and from the vendor rule that a raw
control character inside a JSON string is invalid (RFC 8259 §7): the one event holding one is repaired and kept.
"""

from __future__ import annotations

import pytest

from gpulens.collectors.kineto import KinetoCollector

from .test_trust_s26_kineto_damage import MID, N, TAIL, _event, _kernels

HEAD = ('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA A100", "numSms": 108,\n'
        '     "warpSize": 32}\n  ],\n  "traceEvents": [\n')


def _write(tmp_path, head: str, events: list[str]):
    p = tmp_path / "t.pt.trace.json"
    p.write_text(head + ",\n".join(events) + TAIL)
    return p


@pytest.mark.parametrize("chunk", [1 << 20, 1024])
def test_a_stray_quote_in_the_metadata_loses_no_event(tmp_path, chunk):
    head = HEAD.replace('"numSms"', '""numSms"')
    p = _write(tmp_path, head, [_event(i) for i in range(N)])
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=chunk)
    assert _kernels(tl) == [f"k{i}" for i in range(N)]
    assert not tl.meta.truncated and not tl.meta.dropped
    line = head.count("\n", 0, head.index('""numSms"')) + 1
    (w,) = [w for w in tl.meta.warnings if "outside the events" in w]
    assert f"before the traceEvents array, at line {line}," in w and f"{N} events kept" in w


@pytest.mark.parametrize("chunk", [1 << 20, 1024])
def test_a_stray_quote_in_one_event_loses_that_event_only(tmp_path, chunk):
    events = [_event(i) for i in range(N)]
    events[MID] = events[MID].replace(f'"k{MID}"', f'"k"{MID}"')
    events[MID + 5] = events[MID + 5].replace(f'"k{MID + 5}"', f'"k{MID + 5}\x01"')  # a raw control character
    p = _write(tmp_path, HEAD, events)
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=chunk)
    names = sorted(tl.events["name"].astype(str), key=lambda s: int(s[1:].rstrip("\x01")))
    want = [f"k{i}" + ("\x01" if i == MID + 5 else "") for i in range(N) if i != MID]  # the \x01 one repaired, kept
    assert names == want
    assert tl.meta.dropped == {str(p): 1} and not tl.meta.truncated
    (w,) = [w for w in tl.meta.warnings if "lenient JSON reading" in w]
    assert "control characters escaped ×1" in w and "1 malformed event dropped" in w
