"""One op input shape is one category, whichever reading path met it.

Kind fixed (s26): ``Input Dims`` / ``Input type`` / ``Concrete Inputs`` were kept as the text of the file for events
read whole (``[[10, 10], [10]]``) but written again compactly for events read through the lenient recovery of damaged
text (``[[10,10],[10]]``), so one shape became two categories (two rows in per-shape tables); a writer that spaces
differently gave a third. Now every text is respelled once per distinct value in Kineto's own spelling.

Expected values: the texts as Kineto writes them (``json.dumps`` with its default separators), written here by hand.
"""

from __future__ import annotations

import json

import pytest

from gpulens.collectors.kineto import KinetoCollector

DIMS, TYPES, CONC = [[10, 10], [10]], ["float", "c10::BFloat16"], ["", "a, b: c"]
N = 40


def _op(i: int, sep: tuple[str, str]) -> str:
    args = json.dumps({"External id": i + 1, "Input Dims": DIMS, "Input type": TYPES, "Concrete Inputs": CONC},
                      separators=sep)
    return ('  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": %s}'
            % (100 + 10 * i, args))


def _kernel() -> str:
    return ('  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2000, "dur": 4, '
            '"args": {"device": 0, "stream": 7, "correlation": 1}}')


def _texts(tl) -> dict[str, set]:
    ops = tl.events[tl.events["kind"] == "cpu_op"]
    assert len(ops) == N
    return {c: set(ops[c].astype(str)) for c in ("input_dims", "input_types", "concrete_inputs")}


WANT = {"input_dims": {json.dumps(DIMS)}, "input_types": {json.dumps(TYPES)}, "concrete_inputs": {json.dumps(CONC)}}


@pytest.mark.parametrize("chunk", [1 << 20, 2048])
def test_an_op_read_through_the_recovery_has_the_same_shape_text(tmp_path, chunk):
    events = [_op(i, (", ", ": ")) for i in range(N)] + [_kernel()]
    events[N // 2] += "}"  # an extra brace after one op: that op is read by the lenient recovery, and kept
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [\n' + ",\n".join(events) + "\n]}")
    tl = KinetoCollector().collect(p, strict=False, chunk_bytes=chunk)
    assert any("lenient JSON reading" in w for w in tl.meta.warnings)
    assert _texts(tl) == WANT


def test_a_compact_writer_gives_the_same_text_as_kineto(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [\n' + ",\n".join([_op(i, (",", ":")) for i in range(N)] + [_kernel()]) + "\n]}")
    assert _texts(KinetoCollector().collect(p)) == WANT
