"""Crash kinds of the Kineto msgspec path found by the s11 differential fuzzer: each input here is written by hand and
must give a partial result (bad values unknown, bad events dropped and counted), the same with the byte scanner
forced on (``GPULENS_KINETO_FAST=1``) and off."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_kineto_fast import differences, load  # noqa: E402

K = '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 2, "args": {"correlation": 5}}'
N = 1500  # plain kernels either side of the odd one: more than one 64 KiB block, so the scanner reads pieces


def _trace(tmp_path: Path, odd: str, n: int = N) -> Path:
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join([K] * n + [odd] + [K] * n) + "]}")
    return p


def _both(p: Path):
    """The Timeline of both read paths, after checking they are the same."""
    slow, _ = load(p, False, 65536)
    fast, _ = load(p, True, 65536)
    assert not isinstance(slow, str), slow
    assert differences(slow, fast) is None
    return fast


@pytest.mark.parametrize("field", ["ts", "dur"])
@pytest.mark.parametrize("value", ['{"a":\n1}', "[1,\n2]", "[\n]"])
def test_a_ts_or_dur_object_or_array_spread_over_lines_is_one_unreadable_event(tmp_path, field, value):
    """Kind 1: the ts/dur texts were joined with newlines and split again, so a value holding a raw newline (an
    object or array spread over lines, never a number) broke the digit matrix ("cannot reshape"). That event is
    unreadable (no number) and counted; the 2 × 1500 plain kernels stay."""
    odd = K.replace('"correlation": 5', '"correlation": 6').replace(f'"{field}": ', f'"{field}": {value}, "x{field}": ')
    tl = _both(_trace(tmp_path, odd))
    assert len(tl.events) == 2 * N
    assert 6 not in set(tl.events["correlation_id"])
    assert sum("1 invalid event excluded: unreadable ts or dur" in w for w in tl.meta.warnings) == 1


@pytest.mark.parametrize("digits", [310, 400])
def test_an_integer_flops_beyond_float64_is_unknown(tmp_path, digits):
    """Kind 2: ``flops`` written as an integer literal of 10^(digits−1) > float64 max (1.797e308) decodes to a Python
    int that float() refuses (OverflowError). The value is unknown (NaN), the event kept, other flops exact."""
    big = "1" + "0" * (digits - 1)
    assert int(big) > 1.7976931348623157e308
    odd = K.replace('"cat": "kernel"', '"cat": "cpu_op"').replace('"correlation": 5', f'"flops": {big}')
    ok = K.replace('"cat": "kernel"', '"cat": "cpu_op"').replace('"correlation": 5', '"flops": 4096')
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join([K] * N + [odd, ok] + [K] * N) + "]}")
    tl = _both(p)
    ops = tl.events[tl.events["kind"] == "cpu_op"]
    assert len(ops) == 2
    fl = sorted(ops["flops"].tolist(), key=lambda v: (not math.isnan(v), v))
    assert math.isnan(fl[0]) and fl[1] == 4096.0


@pytest.mark.parametrize("key,metric", [("blocks per SM", "kineto.blocks_per_sm"),
                                        ("warps per SM", "kineto.warps_per_sm"),
                                        ("est. achieved occupancy %", "kineto.est_achieved_occupancy_pct")])
@pytest.mark.parametrize("value", ["[1.5]", "[2, 3]", "[[1]]"])
def test_a_float_arg_written_as_an_array_is_unknown(tmp_path, key, metric, value):
    """Kind 5: a float arg written as an array (``"blocks per SM": [1.5]``) made floats() return a 2-D array
    (IndexError / ValueError downstream). An array is no number: that value is unknown (no counter row), the
    other kernel's value (2.5) is kept; both kernels stay."""
    odd = K.replace('"correlation": 5', f'"correlation": 6, "{key}": {value}')
    ok = K.replace('"correlation": 5', f'"correlation": 7, "{key}": 2.5')
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join([K] * N + [odd, ok] + [K] * N) + "]}")
    tl = _both(p)
    assert len(tl.events) == 2 * N + 2
    c = tl.counters[tl.counters["metric"] == metric]
    assert c["value"].tolist() == [2.5]
    ids = tl.events.set_index("event_id")["correlation_id"]
    assert ids[c["event_id"].iloc[0]] == 7


def _write(tmp_path: Path, evs: list[bytes]) -> Path:
    p = tmp_path / "t.pt.trace.json"
    p.write_bytes(b'{"traceEvents": [' + b",\n".join(evs) + b"]}")
    return p


KB = K.encode()
ILL = KB.replace(b'"args": {"correlation": 5}', b'"args": 5')  # args a number: ill-typed
BAD_UTF8 = KB.replace(b'"name": "k"', b'"name": "k\xff"').replace(b'"correlation": 5', b'"correlation": 9')


@pytest.mark.parametrize("n", [1, N])
def test_an_ill_typed_event_then_malformed_json_runs_the_recovery(tmp_path, n):
    """Kind 3: the typed decode of the last piece stops at the ill-typed event (ValidationError); the loose decode
    then met the malformed text after it (a raw NUL between events) and its DecodeError escaped, so the recovery
    never ran. Now it runs. The NUL is damage inside the events with an intact kernel after it, not a cut (s26):
    strict reading refuses the file naming the NUL's byte; lenient reading keeps the n + n plain kernels and the
    one after the NUL (the ill-typed one dropped and counted once)."""
    from gpulens.collectors.kineto import KinetoCollector

    p = tmp_path / "t.pt.trace.json"
    data = b'{"traceEvents": [' + b",\n".join([KB] * n + [ILL] + [KB] * n) + b"\x00, " + KB + b"]}"
    p.write_bytes(data)
    slow, _ = load(p, False, 65536)
    fast, _ = load(p, True, 65536)
    assert slow == fast and f"damaged text from byte {data.index(bytes(1)):,}" in slow and "--lenient" in slow
    for f in (False, True):
        tl = KinetoCollector().collect(p, strict=False, fast=f, chunk_bytes=65536)
        assert len(tl.events) == 2 * n + 1
        assert sum("1 event dropped: fields of the wrong type" in w for w in tl.meta.warnings) == 1
        assert not tl.meta.truncated


@pytest.mark.parametrize("n", [1, N])
def test_an_ill_typed_event_beside_invalid_utf8_keeps_the_rest(tmp_path, n):
    """Kind 4: an ill-typed event and an event with invalid UTF-8 (byte 0xFF in a name) in the same piece: the
    per-event validation raised msgspec's DecodeError ("Invalid UTF-8") and the whole file was lost. Now the ill-typed
    event is dropped and counted once, and the invalid-UTF-8 event is read as it is without the ill-typed one (the
    lenient recovery keeps it): 2n plain kernels + that one."""
    alone = _both(_write(tmp_path, [KB] * n + [BAD_UTF8] + [KB] * n))
    tl = _both(_write(tmp_path, [KB] * n + [ILL, BAD_UTF8] + [KB] * n))
    assert len(alone.events) == 2 * n + 1
    assert len(tl.events) == len(alone.events)
    assert sum("1 event dropped: fields of the wrong type" in w for w in tl.meta.warnings) == 1


@pytest.mark.parametrize("key,metric", [("blocks per SM", "kineto.blocks_per_sm"),
                                        ("est. achieved occupancy %", "kineto.est_achieved_occupancy_pct")])
@pytest.mark.parametrize("value", ["[1.5]", "[2, 3]"])
@pytest.mark.parametrize("n", [3, 3000])
def test_every_kernel_with_the_float_arg_as_an_array_gives_no_value(tmp_path, key, metric, value, n):
    """Kind 5 where it crashed: every kernel of a piece writes the arg as an array of the same length, so numpy
    built a 2-D array without complaint (IndexError in the counters, ValueError when joining pieces). No kernel has
    a number there: no counter row for that metric, all n kernels kept."""
    odd = K.replace('"correlation": 5', f'"correlation": 5, "{key}": {value}')
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join([odd] * n) + "]}")
    tl = _both(p)
    assert len(tl.events) == n
    assert (tl.counters["metric"] == metric).sum() == 0
