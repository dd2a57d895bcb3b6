"""The Kineto byte scanner (``_kineto_scan`` + ``_kineto_fast``) reads exactly what the msgspec path reads.

Differential part: every Kineto JSON of tests/data, ../shared/traces and ../shared/cases, generated traces of several
shapes (one event per line, pretty-printed, gzip, ROCm) and seeded mutations (tests/fuzzing.py) give the same
Timeline — events, counters, rejected rows, side tables, meta and warnings — with the scanner forced on and off.
Hand-written part: small traces per kind that must fall back (``read_piece`` answers None) or must be read exactly,
the expected values written from the JSON in each test.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

import msgspec
import pandas as pd
import pytest

pytest.importorskip("numba")

import gpulens.collectors.kineto as kineto_mod  # noqa: E402
from gpulens.collectors._kineto_columns import FAST_EVENTS_DECODER  # noqa: E402
from gpulens.collectors._kineto_fast import read_piece, wanted  # noqa: E402
from gpulens.collectors.kineto import KinetoCollector  # noqa: E402
from gpulens.errors import TraceFormatError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))


def _read(path: Path, fast: bool, chunk: int = 4096):
    """(Timeline or the error text, the piece reader used)."""
    readers = []
    orig = kineto_mod.piece_reader

    def spy(*a, **k):
        r = orig(*a, **k)
        readers.append(r)
        return r

    kineto_mod.piece_reader = spy
    try:
        return KinetoCollector().collect(path, fast=fast, chunk_bytes=chunk), readers[0]
    except TraceFormatError as exc:
        return f"error: {exc}", readers[0] if readers else None
    finally:
        kineto_mod.piece_reader = orig


def _assert_same(a, b) -> None:
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    pd.testing.assert_frame_equal(a.events, b.events)
    pd.testing.assert_frame_equal(a.counters, b.counters)
    pd.testing.assert_frame_equal(a.rejected, b.rejected)
    assert sorted(a.tables) == sorted(b.tables)
    for k in a.tables:
        pd.testing.assert_frame_equal(a.tables[k], b.tables[k])
    assert a.meta == b.meta


def _differential(path: Path, chunk: int | None = None) -> int:
    """Assert fast == slow for one file, read in pieces of ``chunk`` bytes (default: about 30 pieces, at least 4 kB,
    so that a large file stays quick); return the number of pieces the scanner read."""
    if chunk is None:
        raw = path.read_bytes()
        size = len(gzip.decompress(raw)) if raw[:2] == b"\x1f\x8b" else len(raw)
        chunk = max(4096, size // 30)
    slow, r0 = _read(path, False, chunk)
    fast, r1 = _read(path, True, chunk)
    _assert_same(slow, fast)
    assert r0 is None or r0.scanned == 0
    return r1.scanned if r1 is not None else 0


def _kineto_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name.endswith((".json", ".json.gz")):
            head = p.read_bytes()[:4096]
            head = gzip.decompress(p.read_bytes())[:4096] if head[:2] == b"\x1f\x8b" else head
            if b'"ph"' in head or b'"traceEvents"' in head:
                out.append(p)
    return out


def test_corpus_reads_the_same_with_the_scanner_on_and_off():
    files = _kineto_files(ROOT / "tests" / "data" / "kineto") + _kineto_files(ROOT.parent / "shared" / "traces" /
                                                                               "kineto")
    files += _kineto_files(ROOT.parent / "shared" / "cases")
    assert files
    scanned = sum(_differential(p) for p in files)
    assert scanned > 0  # the scanner read some of it (not a test of the fallback alone)


def _generated(tmp_path: Path, dialect: str, kernels: int = 150, seed: int = 0) -> Path:
    from gen_kineto import generate

    out = tmp_path / f"{dialect}{seed}.pt.trace.json"
    generate(out, kernels, dialect=dialect, steps=3, seed=seed)
    return out


@pytest.mark.parametrize("dialect", ["cuda", "rocm"])
def test_generated_traces_of_several_shapes_read_the_same(tmp_path, dialect):
    one_per_line = _generated(tmp_path, dialect)
    doc = json.loads(one_per_line.read_text())
    pretty = tmp_path / "pretty.pt.trace.json"
    pretty.write_text(json.dumps(doc, indent=2))  # real traces: one event over many lines, args nested
    gz = tmp_path / "pretty.pt.trace.json.gz"
    gz.write_bytes(gzip.compress(pretty.read_bytes()))
    arr = tmp_path / "array.json"
    arr.write_text(json.dumps(doc["traceEvents"]))  # the bare-array form
    for p in (one_per_line, pretty, gz, arr):
        assert _differential(p) > 0, p
    assert _differential(pretty, chunk=1 << 20) == 0  # one piece: everything is in the tail (msgspec)


def test_seeded_mutations_read_the_same(tmp_path):
    from fuzzing import mutate_bytes, mutate_json

    seeds = [_generated(tmp_path, "cuda", 60), _generated(tmp_path, "rocm", 60)]
    rng = random.Random(16)
    for i in range(24):
        src = seeds[i % 2].read_bytes()
        data = mutate_json(rng, src) if i % 3 == 0 else mutate_bytes(rng, src)
        if data is None:
            continue
        p = tmp_path / f"m{i}.pt.trace.json"
        p.write_bytes(data)
        _differential(p, chunk=max(2048, len(data) // 30))


# -- hand-written kinds ------------------------------------------------------------------------------------------


def _piece(*events: str) -> bytes:
    return ("[" + ",\n".join(events) + "]").encode()


K = '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 2, "args": {"correlation": 5}}'


@pytest.mark.parametrize("event", [
    '{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}}',  # metadata
    '{"ph": "B", "name": "b", "pid": 0, "tid": 1, "ts": 1}',  # begin/end
    '{"ph": "i", "name": "[memory]", "pid": 0, "tid": 1, "ts": 1, "args": {}}',  # instant
    K.replace('"correlation": 5', '"correlation": "5"'),  # ids as strings / floats / booleans / beyond int64
    K.replace('"correlation": 5', '"correlation": 5.0'),
    K.replace('"correlation": 5', '"correlation": true'),
    K.replace('"correlation": 5', '"correlation": 18446744073709551616'),
    K.replace('"pid": 0', '"pid": "RANK 2 - GPU 0"'),
    K.replace('"tid": 7', '"tid": "stream 7"'),
    K.replace('"correlation": 5', '"correlation": 5, "correlation": 6'),  # duplicate keys
    K.replace('"ts": 10', '"ts": 10, "ts": 11'),
    K.replace('"args": {', '"args": {"Collective name": "allreduce", '),  # collective args
    K.replace('"args": {', '"args": {"kernel_details": "regs:32", '),
    K.replace('"args": {', '"args": {"note": "\\u00e9", '),  # \\u escape outside name/cat
    K.replace('"args": {', '"args": {"note": "é", '),  # non-ASCII outside name/cat
    K.replace('"name": "k"', '"name": 12'),  # a number as a name
    K.replace('"ts": 10', '"ts": 010'),  # invalid JSON number
    K.replace('"args": {', '"args": {"flops": "12", '),  # a string where a number is read
    K.replace('"cat": "kernel"', '"cat": "gpu_memcpy"').replace('"args": {', '"args": {"device": "cuda:0", '),
    '{"cat": "kernel", "name": "no phase", "ts": 1, "dur": 1}',
    # a float beyond float64 where msgspec decodes the value (any Args field, read or not): msgspec drops the event
    K.replace('"cat": "kernel"', '"cat": "cpu_op"').replace('"args": {', '"args": {"device": 1.8e308, '),
    '{"ph": "X", "name": "deep", "ts": 1, "dur": 1, "args": {"x": ' + "[" * 80 + "]" * 80 + "}}",
])
def test_rare_kinds_fall_back(event):
    assert read_piece(_piece(K, event)) is None
    assert read_piece(_piece(K, K)) is not None


def test_a_cut_inside_a_string_falls_back():
    assert read_piece(b'[{"ph": "X", "name": "ab}, {') is None
    assert read_piece(_piece(K)[:-5] + b"]") is None


def _collect_fast(tmp_path: Path, events: list[str]):
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"schemaVersion": 1, "traceEvents": [\n' + ",\n".join(events) + "\n]}")
    tl, reader = _read(p, True, chunk=64)
    assert reader.scanned > 0
    return tl


def test_escaped_names_multi_line_events_and_flows_are_read_exactly(tmp_path):
    esc = ('{\n  "ph": "X", "cat": "kernel",\n  "name": "void f<\\"T\\">(\\u00e9\\u4e2d\\t)",\n  "pid": 0,\n'
           '  "tid": 7,\n  "ts": 100.5,\n  "dur": 3,\n  "args": {\n    "correlation": 9,\n'
           '    "grid": [\n      4,\n      2,\n      1\n    ],\n    "block": [128, 1, 1]\n  }\n}')
    flow = '{"ph": "s", "id": 9, "pid": 0, "tid": 7, "ts": 100, "cat": "ac2g", "name": "ac2g"}'
    piece = _piece(flow, esc, flow.replace('"s"', '"f"'))
    assert read_piece(piece) is not None
    utf8 = K.replace('"name": "k"', '"name": "gemm_é"')  # raw UTF-8 bytes in a name: decoded by msgspec
    tl = _collect_fast(tmp_path, [flow, esc, flow.replace('"s"', '"f"'), K, utf8])
    ev = tl.events
    assert len(ev) == 3  # the flows are no rows
    assert ev["name"].astype(str).iloc[2] == "gemm_\u00e9"
    assert ev["name"].astype(str).iloc[0] == 'void f<"T">(é中\t)'
    assert ev["start_ns"].iloc[0] == 100_500 and ev["dur_ns"].iloc[0] == 3000
    assert ev["grid_x"].iloc[0] == 4 and ev["grid_y"].iloc[0] == 2 and ev["block_x"].iloc[0] == 128
    assert list(ev["correlation_id"]) == [9, 5, 5]
    # invalid UTF-8 in a name: msgspec refuses the piece (a bad cut for the stream), so must the scanner
    bad = _piece(K, K).replace(b'"name": "k"', b'"name": "bad \xff"', 1)
    with pytest.raises(msgspec.DecodeError):
        FAST_EVENTS_DECODER.decode(bad)
    assert read_piece(bad) is None


def test_times_with_many_decimals_negative_and_missing_are_read_exactly(tmp_path):
    many = K.replace('"ts": 10', '"ts": 1.2345')
    neg = K.replace('"dur": 2', '"dur": -1').replace('"name": "k"', '"name": "neg"')
    missing = K.replace('"ts": 10, ', "").replace('"name": "k"', '"name": "nots"')
    exp = K.replace('"ts": 10', '"ts": 1.5e1')  # 15 µs
    tl = _collect_fast(tmp_path, [many, neg, missing, exp, K])
    ev = tl.events
    # 1.2345 µs = 1234.5 ns, rounded half-even to whole ns: 1234; 1.5e1 µs = 15000 ns
    assert list(ev["start_ns"]) == [1234, 15_000, 10_000]
    rej = tl.rejected.set_index("name")
    assert rej.loc["neg", "reason"].startswith("negative duration")
    assert rej.loc["nots", "reason"] == "missing ts or dur"


def test_auto_mode_uses_the_file_size_and_the_environment(monkeypatch):
    monkeypatch.delenv("GPULENS_KINETO_FAST", raising=False)
    monkeypatch.setattr("gpulens.collectors._kineto_fast._library_ready", lambda: False)  # numba to import
    assert not wanted(None, 48 << 20, False) and wanted(None, 80 << 20, False)
    assert wanted(None, 9 << 20, True) and not wanted(None, 7 << 20, True)  # gzip: about 8× the bytes on disk
    assert wanted(True, 10, False) and not wanted(False, 1 << 30, False)
    monkeypatch.setenv("GPULENS_KINETO_FAST", "1")
    assert wanted(None, 10, False)
    monkeypatch.setenv("GPULENS_KINETO_FAST", "0")
    assert not wanted(None, 1 << 30, False)


def test_a_number_beyond_float64_drops_the_event_on_both_paths(tmp_path):
    """msgspec refuses 1e400 in a field it decodes ("Number out of range"): that event is dropped and counted; the
    scanner hands such a piece to msgspec, so the Timeline is the same (one kernel row, one event dropped)."""
    huge = K.replace('"cat": "kernel"', '"cat": "cpu_op"').replace('"args": {', '"args": {"device": 1e400, ')
    p = tmp_path / "h.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",".join([K] * 30 + [huge] + [K] * 30) + "]}")
    slow, _ = _read(p, False, chunk=256)
    fast, _ = _read(p, True, chunk=256)
    _assert_same(slow, fast)
    assert len(fast.events) == 60
    assert any("1 event dropped" in w for w in fast.meta.warnings)


def test_without_numba_the_decoder_reads_everything(tmp_path, monkeypatch):
    """``import numba`` failing (ImportError) silently leaves every piece to msgspec — when no compiled library
    (``_kineto_native``, loaded without numba) is used either."""
    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",".join([K] * 50) + "]}")
    monkeypatch.setenv("GPULENS_KINETO_NATIVE", "0")
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba → ImportError
    import gpulens.collectors as C
    from gpulens.collectors import _kineto_scan

    # imported anew below (it imports without numba): the package's attribute is put back afterwards as well
    monkeypatch.setattr(C, "_kineto_scan", _kineto_scan)
    monkeypatch.delitem(sys.modules, "gpulens.collectors._kineto_scan", raising=False)
    # and the kernel's module, which an earlier test in this process may have imported with numba
    monkeypatch.setattr(C, "_kineto_kernel", sys.modules.get("gpulens.collectors._kineto_kernel"), raising=False)
    monkeypatch.delitem(sys.modules, "gpulens.collectors._kineto_kernel", raising=False)
    tl, reader = _read(p, True, chunk=256)
    assert reader.scanned == 0 and reader.decoded > 0
    assert len(tl.events) == 50


def test_a_scanner_numba_cannot_compile_leaves_every_piece_to_the_decoder(tmp_path, monkeypatch):
    """Any exception while numba compiles or loads the scanner (here the KeyError numba raises for an option it does
    not know), not only ImportError, silently leaves every piece to msgspec."""
    from gpulens.collectors import _kineto_scan as S

    def fails() -> None:
        raise KeyError("Unrecognized options: {'_nrt'}")

    p = tmp_path / "t.pt.trace.json"
    p.write_text('{"traceEvents": [' + ",".join([K] * 50) + "]}")
    monkeypatch.setattr(S, "check", fails)
    tl, reader = _read(p, True, chunk=256)
    assert reader.scanned == 0 and reader.decoded > 0
    assert len(tl.events) == 50


def test_the_scanner_is_compiled_without_the_nrt_only_where_numba_knows_the_option(monkeypatch):
    from numba.core.cpu import CPUTargetOptions

    from gpulens.collectors import _kineto_words as S

    assert S._no_nrt() == {"_nrt": False}
    monkeypatch.setattr(CPUTargetOptions, "_nrt", None)  # a numba without the private option: compiled as by default
    assert S._no_nrt() == {}


def test_the_scanner_self_check_reads_its_event(monkeypatch):
    """check() scans its one event and compares the values written in it (ts 1.5 µs, correlation 7, grid z 3,
    flops 1.5, kind a): it raises when one is misread, and then marks the scanner checked."""
    from gpulens.collectors import _kineto_scan as S

    monkeypatch.setattr(S, "_checked", False)
    S.check()
    assert S._checked is True


def test_the_second_scanning_thread_needs_the_scanner_two_cpus_and_a_reason(monkeypatch):
    import os

    from gpulens import _memory
    from gpulens.collectors._kineto_fast import THREADS_ENV, piece_reader

    two_cpus = len(os.sched_getaffinity(0)) >= 2
    monkeypatch.setitem(_memory._STATE, "keeping", False)
    r = piece_reader(lambda b: b, None)
    monkeypatch.setenv(THREADS_ENV, "2")
    r.on = False
    assert r.wanted() is False  # msgspec path: nothing to scan ahead
    r.on = True
    assert r.wanted() is two_cpus
    for other in ("", "yes"):  # not asked for: one thread in a process that returns freed memory (a library user)
        monkeypatch.setenv(THREADS_ENV, other)
        assert r.wanted() is False
    monkeypatch.delenv(THREADS_ENV)
    assert r.wanted() is False
    monkeypatch.setitem(_memory._STATE, "keeping", True)  # the command line: two threads unless told one
    assert r.wanted() is two_cpus
    monkeypatch.setenv(THREADS_ENV, "1")
    assert r.wanted() is False


def test_a_pool_worker_scans_on_one_thread(monkeypatch):
    # each worker of a process pool has a CPU of its own: no second thread unless asked for
    import multiprocessing

    from gpulens import _memory
    from gpulens.collectors._kineto_fast import THREADS_ENV, piece_reader

    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.setitem(_memory._STATE, "keeping", True)
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: object())
    r = piece_reader(lambda b: b, None)
    r.on = True
    assert r.wanted() is False


def test_released_outputs_serve_the_next_scan_and_a_kept_piece_is_never_overwritten(monkeypatch):
    from gpulens.collectors import _kineto_scan as S

    monkeypatch.setattr(S, "_POOL", S._Pool())  # no pairs left over from other tests
    ev = b'[{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": %d, "dur": 2}]'
    ts = S.F["TS_V"]
    a = S.scan(bytearray(ev % 5))
    b = S.scan(bytearray(ev % 6))  # `a` is still held: `b` is scanned into other matrices
    assert a[1].base is not b[1].base
    assert (a[1][ts, 0], b[1][ts, 0]) == (5000, 6000)
    S.release(a[1], a[2])
    c = S.scan(bytearray(ev % 7))
    assert c[1].base is a[1].base and c[2].base is a[2].base  # the released pair, reused
    assert (b[1][ts, 0], c[1][ts, 0]) == (6000, 7000)
    S.release(c[1][:, :0].copy(), c[2])  # not the scanner's views: ignored
    assert S._POOL.take(c[1].base.shape[1]) is None


def test_scanned_piece_release_empties_it_and_is_idempotent(monkeypatch):
    from gpulens.collectors import _kineto_scan as S

    monkeypatch.setattr(S, "_POOL", S._Pool())
    piece = read_piece(bytearray(b'[{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1, "dur": 2}]'))
    base = piece.I.base
    piece.release()
    piece.release()
    assert piece.I.shape == (S.NOUT, 0) and piece.D.shape == (4, 0)
    assert S._POOL.take(base.shape[1])[0] is base and S._POOL.take(base.shape[1]) is None  # given back once
