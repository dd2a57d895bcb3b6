"""The Kineto scanner loaded as a compiled library without numba (``_kineto_native``, built by ``_kineto_aot``).

The library is the same kernel (``_kineto_kernel._scan``) compiled once by numba and linked by the C compiler; a
process then loads it with ctypes and never imports numba (≈ 0.5 s CPU less per large trace). These tests hold it to
numba's own entry point (the scanner every earlier test was written against) byte for byte on pieces of every
shape the scanner reads or refuses, to values written from the JSON by hand, and check how the file is found, named
and refused.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpulens.collectors import _kineto_native as N
from gpulens.collectors import _kineto_scan as S

ROOT = Path(__file__).resolve().parents[1]
#: where the gpulens this test imports lives (site-packages after ``pip install .``, as in CI; src/ when editable):
#: a child process must load the same package, whose library the test built — src/'s would be built anew there
_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])


def _native():
    """The library's scan function, built when missing; skips where it cannot be built (no C compiler, numba,
    llvmlite)."""
    if not N.enabled():
        pytest.skip("the compiled library is not used on this platform")
    pytest.importorskip("numba")
    pytest.importorskip("llvmlite")
    from gpulens.collectors._kineto_aot import compiler

    if N.find() is None and compiler() is None:
        pytest.skip("no C compiler to link the library")
    run = S._native_entry()
    if run is None:
        pytest.skip("the library could not be built here")
    return run


_EVENTS = [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.5, "dur": 2,
     "args": {"correlation": 7, "grid": [1, 2, 3], "block": [128, 1, 1], "flops": 1.5, "device": 0,
              "stream": 7, "registers per thread": 32, "shared memory": 0, "blocks per SM": 0.5,
              "warps per SM": 4.0, "est. achieved occupancy %": 14, "kind": "a"}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4242, "tid": 4242, "ts": 1000012.459, "dur": 4.026,
     "args": {"External id": 2, "Input Dims": [[512, 1024], [1024, 768]], "Input type": ["float", "float"],
              "Concrete Inputs": ["", ""]}},
    {"ph": "s", "id": 2, "pid": 4242, "tid": 4242, "ts": 1000012.459, "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "cuda_runtime", "name": "caf\u00e9 \"quoted\"", "pid": 1, "tid": 2, "ts": "12.25",
     "dur": 1.123456, "args": {"correlation": None, "external id": 5, "flops": 1.2345678901234567}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": -3, "dur": 0, "args": None},
]


def _piece(events) -> bytearray:
    return bytearray(("[" + ",\n".join(json.dumps(e, ensure_ascii=False) for e in events) + "]").encode())


def _scan_with(run, buf: bytearray):
    """(status, the handed-out matrices and group spans) of one piece scanned by ``run``."""
    old = S._SCAN
    S._SCAN = run
    try:
        status, I, D, texts = S.scan(buf)
        out = (status, I.copy(), D.copy(), [(a.copy(), b.copy()) for a, b in texts])
        S.release(I, D)
        return out
    finally:
        S._SCAN = old


def _same(a, b) -> None:
    assert a[0] == b[0]
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])  # NaN-free: unset cells are 0.0
    assert len(a[3]) == len(b[3])
    for (s1, e1), (s2, e2) in zip(a[3], b[3]):
        np.testing.assert_array_equal(s1, s2)
        np.testing.assert_array_equal(e1, e2)


@pytest.mark.parametrize("mask", [0xFFFFFFFFFFFFFFFF, 0])
def test_the_library_reads_every_field_as_numba_does(monkeypatch, mask):
    """Every output cell, float and interned span equal to numba's entry point, also with every text hash
    colliding (mask 0); and values read from the JSON by hand: ts 1.5 µs → 1,500 ns, 1000012.459 µs →
    1,000,012,459 ns, grid z 3, correlation 7, flops 1.5, the flow event not a row (4 X events)."""
    native = _native()
    monkeypatch.setattr(S, "HASH_MASK", np.uint64(mask))
    buf = _piece(_EVENTS * 40)  # several rings of 64 rows
    got = _scan_with(native, buf)
    _same(got, _scan_with(S._numba_entry(), buf))
    status, I, D, texts = got
    assert status == S.OK and I.shape[1] == 4 * 40
    assert I[S.F["TS_V"], 0] == 1500 and I[S.F["TS_V"], 1] == 1_000_012_459
    assert I[S.F["GRID_Z"], 0] == 3 and I[S.F["CORR_V"], 0] == 7 and D[0, 0] == 1.5
    assert I[S.F["TS_V"], 3] == -3000
    # names interned in order of first appearance: k, aten::mm, the escaped one (k again is group 0)
    assert list(I[S.F["NAME_G"], :4]) == [0, 1, 2, 0]
    assert len(texts[S.T_NAMES][0]) == 3


@pytest.mark.parametrize("text", [
    b'[{"ph": "X", "name": "a", "ts": 1, "dur": 1, "pid": 1, "tid": 1, "ph": "X"}]',  # a duplicate key
    b'[{"ph": "B", "name": "a", "ts": 1, "pid": 1, "tid": 1}]',  # a phase the scanner does not read
    b'[{"ph": "X", "name": "a", "ts": 1, "dur": 1, "pid": 1, "tid": 1}',  # unclosed array
    b'[{"ph": "X", "name": "a", "ts": 1e999, "dur": 1, "pid": 1, "tid": 1, "args": {"flops": 1e999}}]',
    b'[]',
])
def test_the_library_refuses_and_accepts_what_numba_does(text):
    native = _native()
    buf = bytearray(text)
    got = _scan_with(native, buf)
    _same(got, _scan_with(S._numba_entry(), buf))
    assert got[0] == (S.OK if text == b"[]" else S.FALLBACK)


def test_a_new_process_loads_the_library_without_importing_numba():
    _native()  # built (or found) here first
    code = ("import sys; from gpulens.collectors import _kineto_scan as S; S.check(); "
            "print('numba' in sys.modules, 'scipy' in sys.modules, S._SCAN.__qualname__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "PYTHONPATH": _PKG_ROOT})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "wrap.<locals>.run"]


def test_the_library_name_follows_every_source_byte(tmp_path):
    """SHA-256 of the files' bytes in order (computed here with hashlib): one changed byte, another name."""
    (tmp_path / "a.py").write_bytes(b"X = 1\n")
    (tmp_path / "b.py").write_bytes(b"Y = 2\n")
    assert N.digest(("a.py", "b.py"), tmp_path) == hashlib.sha256(b"X = 1\nY = 2\n").hexdigest()
    (tmp_path / "b.py").write_bytes(b"Y = 3\n")
    assert N.digest(("a.py", "b.py"), tmp_path) == hashlib.sha256(b"X = 1\nY = 3\n").hexdigest()
    # every module compiled into the library is among its sources, the builder and the loader too
    assert set(N.SOURCES) == {"_kineto_layout.py", "_kineto_words.py", "_kineto_lex.py", "_kineto_kernel.py",
                              "_kineto_aot.py", "_kineto_native.py"}
    assert N.digest()[:24] in N.library_name()


def test_a_damaged_library_file_is_not_loaded_and_the_switch_turns_it_off(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    d = tmp_path / "gpulens"
    d.mkdir()
    (d / N.library_name()).write_bytes(b"not a shared library")
    assert N.find() == d / N.library_name()
    assert N.load() is None
    monkeypatch.setenv(N.ENV, "0")
    assert not N.enabled() and N.load() is None


def test_gather_copies_each_span_zero_padded():
    buf = np.frombuffer(b"abcdefgh", dtype=np.uint8)
    out = S.gather(buf, np.array([0, 3, 7]), np.array([2, 6, 8]), 3)
    assert out.tolist() == [[97, 98, 0], [100, 101, 102], [104, 0, 0]]


def test_wrong_array_shapes_are_refused_before_the_call():
    run = _native()
    work = S._Work().get(16)
    bad = (work[0][:, :5],) + work[1:]
    stack = np.zeros(S.MAX_DEPTH + 1, dtype=np.uint8)
    seen, tseen = np.zeros(len(S._ARG_KEYS), dtype=np.bool_), np.zeros(len(S._TOP_KEYS), dtype=np.bool_)
    with pytest.raises(ValueError):
        run(np.frombuffer(bytearray(b"[]"), dtype=np.uint8), bad, stack, seen, tseen, S.HASH_MASK)


# --- the report writers' shared look-ups (their cost, not their content) -----------------------------------------

def test_a_column_unknown_on_every_row_is_told_per_table_and_forgotten_with_it():
    """``unknown_everywhere`` (HTML panels and kernel pages): NaN / None / NA on every row, per table — a second
    table with the same column names gets its own answer, never the first one's; the entry goes with its table."""
    import gc

    import pandas as pd

    from gpulens.reports import _html_parts as HP

    a = pd.DataFrame({"x": [np.nan, np.nan], "y": [None, "k"], "z": pd.array([pd.NA, pd.NA], dtype="Int64")})
    assert HP.unknown_everywhere(a, "x") is True
    assert HP.unknown_everywhere(a, "y") is False
    assert HP.unknown_everywhere(a, "z") is True
    b = pd.DataFrame({"x": [1.0, np.nan], "y": [None, None], "z": pd.array([pd.NA, 3], dtype="Int64")})
    assert (HP.unknown_everywhere(b, "x"), HP.unknown_everywhere(b, "y"), HP.unknown_everywhere(b, "z")) == (
        False, True, False)
    assert HP.unknown_everywhere(a, "x") is True  # a's answers unchanged
    key = id(a)
    del a
    gc.collect()
    assert key not in HP._UNKNOWN


def test_a_compact_table_leaves_out_blank_columns_only():
    """``_blank`` (console and Markdown compact tables): every value unknown, or (text columns of Python objects)
    an empty or whitespace string; one value that says something keeps the column, wherever it is."""
    import pandas as pd

    from gpulens.reports.console_other import _blank

    assert _blank(pd.Series([np.nan, None], dtype=object))
    assert _blank(pd.Series([" ", None, ""], dtype=object))
    assert not _blank(pd.Series([" ", None, "", "aten::mm"], dtype=object))  # the last row says something
    assert not _blank(pd.Series([" ", 0], dtype=object))  # a number is a value
    assert _blank(pd.Series([np.nan, np.nan]))
    assert not _blank(pd.Series([np.nan, 0.0]))
    assert _blank(pd.Series([], dtype="float64"))


def test_after_a_failed_build_numbas_entry_point_is_used_without_compiling_again(tmp_path, monkeypatch):
    from gpulens.collectors import _kineto_aot

    monkeypatch.setattr(N, "cache_dirs", lambda: [tmp_path])
    monkeypatch.delenv(N.ENV, raising=False)
    calls = []

    def fails():
        calls.append(1)
        N.failed_marker(tmp_path).write_text("x")  # as build() leaves it
        raise RuntimeError("link error")

    monkeypatch.setattr(_kineto_aot, "build", fails)
    if not N.enabled():
        pytest.skip("the compiled library is not used on this platform")
    assert S._native_entry() is None and calls == [1]
    assert N.build_failed()
    assert S._native_entry() is None and calls == [1]  # not tried again
