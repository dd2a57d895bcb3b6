"""A Kineto JSON that ends in NUL padding (a writer that died after reserving the space) keeps its events, says how
many NUL bytes were not read, and reads only NUL_TAIL_KEPT of them (not the whole padding as the document's
tail: 256 MiB took 11.8 s and 1.27 GB before)."""

import json
import time

import gpulens
from gpulens._inputs import NUL_TAIL_KEPT

N = 100
PAD = 48 << 20


def _doc() -> bytes:
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1 + 10 * i, "dur": 2,
           "args": {"device": 0, "stream": 7, "correlation": i}} for i in range(N)]
    return json.dumps({"traceEvents": ev}).encode()


def test_nul_padded_kineto_keeps_events_and_says_what_was_not_read(tmp_path):
    p = tmp_path / "dead.pt.trace.json"
    body = _doc()
    p.write_bytes(body + bytes(PAD))
    t = time.process_time()
    tl = gpulens.collect(str(p))
    spent = time.process_time() - t
    assert len(tl.events) == N
    notes = [w for w in tl.meta.warnings if "NUL" in w]
    assert len(notes) == 1 and f"{PAD - NUL_TAIL_KEPT:,} NUL bytes" in notes[0]
    assert spent < 5  # the padding is skipped, not decoded (48 MiB decoded took ≈ 8 s)


def test_padding_inside_cut_event_keeps_complete_events(tmp_path):
    p = tmp_path / "cut.pt.trace.json"
    body = _doc()
    cut = body.rindex(b'{"ph"')  # the last event's text starts here: it is cut, the 99 before it complete
    p.write_bytes(body[:cut + 20] + bytes(PAD))
    tl = gpulens.collect(str(p))
    assert len(tl.events) == N - 1
    assert any(f"{PAD - NUL_TAIL_KEPT:,} NUL bytes" in w for w in tl.meta.warnings)


def test_small_nul_tail_is_read_as_before(tmp_path):
    # a tail within NUL_TAIL_KEPT is read whole: no note about bytes not read
    p = tmp_path / "small.pt.trace.json"
    p.write_bytes(_doc() + bytes(100))
    tl = gpulens.collect(str(p))
    assert len(tl.events) == N and not any("not read" in w for w in tl.meta.warnings)
