"""Divergences between the Kineto byte scanner and the msgspec path found by the differential fuzzer
(``tests/fuzz_kineto_fast.py``), one test per kind with the expected values written from the JSON in the test, and a
small seeded sample of the fuzzer itself (the scanner forced on and off must give the same Timeline and report)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_kineto_fast import differences, fuzz, load, numbers  # noqa: E402

K = '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 2, "args": {"correlation": 5}}'
FLOAT64_MAX = 1.7976931348623157e308  # IEEE 754 binary64 largest finite value


def _trace(tmp_path: Path, odd: str, n: int = 1500) -> Path:
    """``n`` plain kernels, ``odd``, ``n`` plain kernels: more than one 64 KiB block, so several pieces."""
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join([K] * n + [odd] + [K] * n) + "]}")
    return p


@pytest.mark.parametrize("key,spelling", [("flops", "0.828078925291e309"), ("blocks per SM", "-7.82700205128126841E+309"),
                                          ("est. achieved occupancy %", "17976931348623159e292"),
                                          ("warps per SM", "1797.6931348623159e+305")])
def test_a_float_arg_beyond_float64_in_many_digits_drops_the_event_on_both_paths(tmp_path, spelling, key):
    """A float arg whose decimal value exceeds float64's maximum: msgspec refuses it ("Number out of range") and the
    event is dropped and counted. Spelt with more than 15 significant digits and an exponent of at most 300 after
    moving the point, the scanner used to hand it to numpy's parser (→ inf) and keep the event."""
    assert abs(float(spelling)) == float("inf")  # beyond FLOAT64_MAX by more than half a unit in the last place
    odd = K.replace('"correlation": 5', f'"correlation": 6, "{key}": {spelling}')
    p = _trace(tmp_path, odd)
    slow, _ = load(p, False, 65536)
    fast, reader = load(p, True, 65536)
    assert reader.scanned > 0  # the other pieces are still read by the scanner
    assert differences(slow, fast) is None
    assert len(fast.events) == 3000  # 3001 kernels written, the one with the out-of-range number dropped
    assert 6 not in set(fast.events["correlation_id"])
    assert any("1 event dropped" in w and "Number out of range" in w for w in fast.meta.warnings)


def test_a_float_arg_near_float64_max_in_many_digits_is_read_exactly(tmp_path):
    """The same spelling within range (0.123456789012e309 = 1.23456789012e308 < 1.797e308) is kept by both paths,
    with the correctly rounded value Python's float() gives."""
    odd = K.replace('"correlation": 5', '"correlation": 6, "flops": 0.123456789012e309')
    p = _trace(tmp_path, odd)
    slow, _ = load(p, False, 65536)
    fast, _ = load(p, True, 65536)
    assert differences(slow, fast) is None
    ev = fast.events
    assert len(ev) == 3001
    assert ev.loc[ev["correlation_id"] == 6, "flops"].tolist() == [1.23456789012e308]


def test_seeded_number_spellings_read_the_same():
    """1000 random JSON numbers (up to 25 integer and 24 fraction digits, exponents near ±22, ±300, ±308) as ts,
    dur, float and id args: the scanner's values equal msgspec's + the msgspec path's conversions, or it falls back."""
    assert numbers(seed=3, count=1000) == []


def test_seeded_fuzz_sample_reads_the_same_with_the_scanner_on_and_off(tmp_path):
    limit = sys.getrecursionlimit()
    tot = fuzz(seed=11, count=5, workdir=tmp_path, report_every=2, timeout=60.0, verbose=False)
    # the harness raises the limit for its serialiser and restores it: a leaked 20,000 let a later test's
    # 5,000-deep TOML parse in the same process (test_robust_nesting expects "not valid TOML")
    assert sys.getrecursionlimit() == limit
    assert tot["inputs"] == 5
    assert tot["scanned"] > 0  # the sample exercises the scanner, not only the fallback
    assert not tot["divergences"], tot["findings"]


def _colliding(monkeypatch) -> None:
    """Make every text hash the same in the scanner's interning tables (``HASH_MASK`` 0), as if all names,
    categories, Input Dims and Input type texts collided in the 64-bit text hash: only the byte comparison may tell the texts apart."""
    from gpulens.collectors import _kineto_scan as S

    monkeypatch.setattr(S, "HASH_MASK", np.uint64(0))


def _dims_trace(tmp_path: Path) -> Path:
    rows = []
    for i in range(3000):  # names k0..k6 and 5 distinct Input Dims / Input type texts of one length each
        rows.append(K.replace('"name": "k"', f'"name": "k{i % 7}"').replace(
            '"correlation": 5', f'"correlation": {i}, "Input Dims": [[{i % 5}, 2]], "Input type": ["t{i % 5}"]'))
    p = tmp_path / "d.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join(rows) + "]}")
    return p


def test_colliding_hashes_never_merge_two_texts(tmp_path, monkeypatch):
    p = _dims_trace(tmp_path)
    slow, _ = load(p, False, 65536)
    _colliding(monkeypatch)
    fast, reader = load(p, True, 65536)
    assert reader.scanned > 0 and reader.decoded == 0  # the scanner reads every piece: a collision costs a probe
    assert differences(slow, fast) is None
    # written in the JSON above: name k(i % 7), Input Dims [[i % 5, 2]], Input type ["t(i % 5)"] (json text as written)
    ev = fast.events
    assert ev["name"].astype(str).tolist()[:8] == ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k0"]
    assert ev["input_dims"].astype(object).tolist()[:6] == ["[[0, 2]]", "[[1, 2]]", "[[2, 2]]", "[[3, 2]]",
                                                           "[[4, 2]]", "[[0, 2]]"]
    assert ev["input_types"].astype(object).tolist()[:6] == ['["t0"]', '["t1"]', '["t2"]', '["t3"]', '["t4"]',
                                                            '["t0"]']


def test_texts_interned_before_rows_are_rejected_follow_the_kept_rows(tmp_path):
    # row 0: dims [[9]] with a negative duration (rejected); the kept rows: [[1]], [[9]], [[1]] — the scanner numbers
    # [[9]] first (first seen, rejected row included), the kept rows' group numbers must still give their own texts
    bad = K.replace('"dur": 2', '"dur": -2').replace('"correlation": 5', '"correlation": 5, "Input Dims": [[9]]')
    rows = [bad] + [K.replace('"correlation": 5', f'"correlation": {i}, "Input Dims": [[{d}]]')
                    for i, d in enumerate([1, 9, 1] * 700)]
    p = tmp_path / "r.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join(rows) + "]}")
    slow, _ = load(p, False, 65536)
    fast, reader = load(p, True, 65536)
    assert reader.scanned > 0
    assert differences(slow, fast) is None
    assert fast.events["input_dims"].astype(object).tolist()[:3] == ["[[1]]", "[[9]]", "[[1]]"]


def _one_byte_apart(length: int) -> list[str]:
    """Names of ``length`` bytes that differ from ``a…a`` (and from each other) in one byte each: the first byte,
    bytes 7, 8 and 9 (around the first 8-byte word's end), the middle and the last byte (the overlapping last word)."""
    base = "a" * length
    spots = sorted({0, min(7, length - 1), min(8, length - 1), min(9, length - 1), length // 2, length - 1})
    return [base] + [base[:i] + "b" + base[i + 1:] for i in spots]


@pytest.mark.parametrize("length", [7, 8, 9, 15, 16, 17, 23, 40])
def test_colliding_names_one_byte_apart_stay_apart_at_every_byte_position(tmp_path, monkeypatch, length):
    """Texts are compared 8 bytes at a time (the last word overlapping the one before): with every hash colliding,
    names of one length that differ in a single byte — in the first word, across a word boundary, in the overlap —
    must stay distinct names, at unaligned offsets in the piece."""
    names = _one_byte_apart(length)
    rows = [K.replace('"name": "k"', f'"name": "{names[i % len(names)]}"').replace('"correlation": 5',
                                                                                    f'"correlation": {i}')
            for i in range(2100)]
    p = tmp_path / "n.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",\n".join(rows) + "]}")
    slow, _ = load(p, False, 65536)
    _colliding(monkeypatch)
    fast, reader = load(p, True, 65536)
    assert reader.scanned > 0 and reader.decoded == 0
    assert differences(slow, fast) is None
    # the names as written above: event i is names[i % len(names)]
    assert fast.events["name"].astype(str).tolist() == [names[i % len(names)] for i in range(2100)]


def test_word_comparison_and_hash_agree_with_the_bytes():
    """``_same`` is slice equality and ``_span_hash`` a function of the bytes alone, for every length up to 40 and
    offsets of every alignment (texts copied to several places of one buffer, some changed in one byte)."""
    import random

    from gpulens.collectors import _kineto_words as S

    rng = random.Random(5)
    for n in range(41):
        text = bytes(rng.randrange(32, 127) for _ in range(n))
        other = bytearray(text)
        if n:
            other[rng.randrange(n)] ^= 1
        pad = [bytes(rng.randrange(32, 127) for _ in range(k)) for k in (3, 5, 1, 7)]
        buf = pad[0] + text + pad[1] + text + pad[2] + bytes(other) + pad[3]
        a, b = len(pad[0]), len(pad[0]) + n + len(pad[1])
        c = b + n + len(pad[2])
        arr = np.frombuffer(buf, dtype=np.uint8)
        assert S._same(arr, a, b, n)
        assert S._same(arr, a, c, n) == (buf[a:a + n] == buf[c:c + n])
        assert S._span_hash(arr, a, a + n) == S._span_hash(arr, b, b + n)


def _skip_str_bytewise(buf: bytes, p: int) -> tuple[int, int]:
    """Reference for the scanner's string scan, one byte at a time (JSON's string grammar): (index after the closing
    quote or -1 when invalid, flags 1 escape / 2 \\u escape / 4 non-ASCII byte)."""
    flags, p, n = 0, p + 1, len(buf)
    while p < n:
        c = buf[p]
        if c == 0x22:
            return p + 1, flags
        if c == 0x5C:
            d = buf[p + 1] if p + 1 < n else None
            if d == ord("u"):
                if p + 5 >= n or not all(chr(x) in "0123456789abcdefABCDEF" for x in buf[p + 2:p + 6]):
                    return -1, flags | 1
                flags |= 3
                p += 6
            elif d is not None and chr(d) in '"\\/bfnrt':
                flags |= 1
                p += 2
            else:
                return -1, flags | (1 if d is not None else 0)
            continue
        if c < 0x20:
            return -1, flags
        if c >= 0x80:
            flags |= 4
        p += 1
    return -1, flags


def test_the_word_at_a_time_string_scan_agrees_with_a_byte_by_byte_one():
    """Strings are scanned 8 bytes at a time (the has-zero-byte trick finds the first quote, backslash, control or
    non-ASCII byte of a word): random strings of those bytes and plain ones, at every alignment, ending inside the
    buffer or cut before their quote near its end, give the end and flags the byte-by-byte grammar gives."""
    import random

    from gpulens.collectors import _kineto_lex as S

    rng = random.Random(7)
    alphabet = [b"a", b"Z", b" ", b"~", b'"', b"\\", b'\\"', b"\\\\", b"\\n", b"\\u00e9", b"\\u12G4", b"\\x", b"\x1f",
                b"\x00", b"\x7f", b"\x80", "é".encode(), b"\xff", b"\t"]
    weights = [30, 10, 10, 5, 2, 1, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1]
    seen = set()
    for i in range(4000):
        body = b"".join(rng.choices(alphabet, weights, k=rng.randrange(0, 40)))
        if rng.random() < 0.5:  # a plain run: the SWAR path passes whole words
            body = b"x" * rng.randrange(0, 30) + body
        buf = b" " * rng.randrange(0, 9) + b'"' + body
        if rng.random() < 0.8:
            buf += b'"' + b"," * rng.randrange(0, 12)
        p = buf.index(b'"')
        arr = np.frombuffer(buf, dtype=np.uint8)
        want = _skip_str_bytewise(buf, p)
        assert tuple(S._skip_str(arr, p, len(arr))) == want, (buf, want)
        seen.add((want[0] >= 0, want[1]))
    assert len(seen) >= 8  # valid and invalid strings with each kind of flags were drawn


def test_keys_are_told_apart_a_word_at_a_time():
    """Keys are looked up by their first 8 bytes and length, the rest compared a word at a time: every key the
    scanner reads maps to its own id, wherever it lies in the buffer (also in its last 8 bytes); the same key with one
    byte changed at any position, one byte shorter or longer, maps to none (-1)."""
    from gpulens.collectors import _kineto_kernel as S
    from gpulens.collectors._kineto_lex import _key

    for keys, table in ((S._TOP_KEYS, S.TOP_TABLE), (S._ARG_KEYS, S.ARG_TABLE)):
        for want, key in enumerate(keys):
            others = [key[:i] + bytes([key[i] ^ 1]) + key[i + 1:] for i in range(len(key))]
            others += [key[:-1], key + b"s", b"x" + key]
            for text, expect in [(key, want)] + [(o, -1) for o in others if o not in keys]:
                for pad in range(0, 10):
                    for tail in (b'": 1}', b""):  # the key in the middle, or at the very end of the buffer
                        buf = b"{" * pad + b'"' + text + tail
                        arr = np.frombuffer(buf, dtype=np.uint8)
                        s = pad + 1
                        assert _key(arr, s, s + len(text), *table) == expect, (text, pad, tail)


@pytest.mark.parametrize("count", [1, 63, 64, 65, 127, 128, 129, 3000])
def test_every_row_reaches_the_outputs_across_ring_boundaries_and_a_rescan(monkeypatch, count):
    """The scan writes rows into a 64-row ring copied out when full and at the end: pieces of 1 to 3000 X events (a
    flow event between each, skipped) give, for event i, correlation i, ts i µs and flops i + 0.5 as written; the
    work matrices made too small for 3000 rows (sized for the last piece's 1 row) are grown and the piece scanned
    again."""
    from gpulens.collectors import _kineto_scan as S

    monkeypatch.setattr(S._WORK, "last", 1)  # the next piece is expected to hold ~1 row: 1025 rows provided
    ev = ('{{"ph": "X", "cat": "kernel", "name": "k{m}", "pid": 0, "tid": 7, "ts": {i}, "dur": 1, '
          '"args": {{"correlation": {i}, "flops": {i}.5}}}}')
    flow = '{{"ph": "s", "id": {i}, "pid": 0, "tid": 7, "ts": {i}, "cat": "ac2g", "name": "ac2g"}}'
    buf = bytearray(("[" + ",\n".join(ev.format(i=i, m=i % 3) + ",\n" + flow.format(i=i) for i in range(count))
                     + "]").encode())
    status, I, D, texts = S.scan(buf)
    assert status == S.OK and I.shape == (S.NOUT, count)
    assert I[S.F["CORR_V"]].tolist() == list(range(count))
    assert I[S.F["TS_V"]].tolist() == [1000 * i for i in range(count)]
    assert D[0].tolist() == [i + 0.5 for i in range(count)]
    assert I[S.F["NAME_G"]].tolist() == [i % 3 for i in range(count)]  # k0, k1, k2 in order of first appearance
