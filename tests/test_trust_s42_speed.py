"""Session 42, collect-side speed (issue 16): the changed code paths read what the trace says.

- ``_work_rules._pairs_in`` codes ranks by a binary search among the launcher side's ranks: rows of a rank the
  launcher side does not have must match nothing, whatever their id (expected values: Python sets of tuples).
- ``_kineto_fast._certain`` tests the type fields of a scanned piece in one comparison per group: a value the
  scanner cannot read with certainty still sends the piece to msgspec (the module's documented rules: an id of
  another type on any row, a GPU field of another type on a GPU row only, collective args), and nothing else does.
- ``ScannedRows._pair`` hands out the scanner's field itself where every row is valid: the columns keep the values
  written in the trace even though the scanner's matrices are reused by later pieces.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpulens.collectors._work_rules import _pairs_in


def test_pairs_in_rows_of_a_rank_the_launchers_lack_match_nothing():
    """(rank, id) membership: rank 9 and rank -1 rows carry ids the launcher side has on rank 0/1 — no match;
    the same ids on the launcher's own ranks match. Checked against Python's set of tuples."""
    rb = np.array([0, 0, 1, 1], dtype=np.int64)
    ib = np.array([10, 11, 10, 12], dtype=np.int64)
    ra = np.array([0, 0, 0, 1, 1, 9, 9, -1, 1], dtype=np.int64)
    ia = np.array([10, 11, 12, 10, 11, 10, 12, 11, 12], dtype=np.int64)
    # by hand: (0,10) yes, (0,11) yes, (0,12) no, (1,10) yes, (1,11) no, (9,*) no, (-1,11) no, (1,12) yes
    assert _pairs_in(ra, ia, rb, ib).tolist() == [True, True, False, True, False, False, False, False, True]


def test_pairs_in_random_against_tuple_sets():
    """Many small random cases — ranks on the row side beyond the launcher side's (below and above them), ids
    small, negative and spanning more than 62 bits (the MultiIndex path) — equal Python tuple membership."""
    rng = np.random.default_rng(42)
    for t in range(200):
        na, nb = int(rng.integers(1, 50)), int(rng.integers(1, 15))
        lo, hi = [(0, 9), (-5, 5), (-(2 ** 62), 2 ** 62), (2 ** 61, 2 ** 62)][t % 4]
        ra, rb = rng.integers(-3, 6, na), rng.integers(0, 3, nb)
        ia, ib = rng.integers(lo, hi, na), rng.integers(lo, hi, nb)
        k = min(na, nb)
        ia[:k] = ib[:k]
        pairs = set(zip(rb.tolist(), ib.tolist()))
        expected = [(r, i) in pairs for r, i in zip(ra.tolist(), ia.tolist())]
        assert _pairs_in(ra, ia, rb, ib).tolist() == expected, t


def _piece(events: list[dict]) -> bytearray:
    return bytearray(json.dumps(events).encode())


def _kernel(i: int, **args) -> dict:
    a = {"correlation": 200 + i, "device": 0, "stream": 7, "grid": [4, 2, 1], "block": [128, 1, 1]}
    a.update(args)
    return {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000 + 10 * i, "dur": 2,
            "args": a}


def _op(i: int, **args) -> dict:
    return {"ph": "X", "cat": "cpu_op", "name": f"op{i}", "pid": 1, "tid": 1, "ts": 990 + 10 * i, "dur": 5,
            "args": {"External id": 100 + i, **args}}


@pytest.fixture(scope="module")
def read_piece():
    pytest.importorskip("numba")
    from gpulens.collectors import _kineto_fast as fast

    if not fast._available():
        pytest.skip("the Kineto scanner cannot be loaded here")
    return fast.read_piece


@pytest.mark.parametrize("where,arg,value,scanned", [
    ("op", "correlation", "7", False),  # an id as text on any row: msgspec reads the piece
    ("op", "registers per thread", 1.5, False),  # a fraction where an int is read on every row
    ("kernel", "device", "0", False),  # a GPU row's device as text
    ("op", "device", "0", True),  # the same on a CPU op: not read there, the piece stays scanned
    ("op", "stream", [1], True),
    ("kernel", "stream", [1], False),
    ("op", "Collective name", "allreduce", False),  # collective args are read by msgspec only
    ("op", "kernel_details", "x", False),
    ("kernel", "flops", 12.5, True),  # a plain float: read by the scanner
])
def test_certain_sends_exactly_the_documented_values_to_msgspec(read_piece, where, arg, value, scanned):
    events = [_op(i) for i in range(3)] + [_kernel(i) for i in range(3)]
    target = events[1] if where == "op" else events[4]
    target["args"][arg] = value
    got = read_piece(_piece(events))
    assert (got is not None) == scanned
    if got is not None:
        assert got.I.shape[1] == 6  # six X rows
        got.release()


def test_ids_survive_the_reuse_of_the_scanner_matrices(tmp_path):
    """3,000 kernels and 3,000 ops with distinct ids, read by the scanner in pieces of 64 KiB (many pieces, the
    scanner's matrices handed back and reused between them): every row keeps the ids written for it."""
    pytest.importorskip("numba")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fuzz_kineto_fast import load

    events = []
    for i in range(3000):
        events += [_op(i), _kernel(i)]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    tl, reader = load(p, True, 1 << 16)
    assert reader.scanned >= 10  # many pieces read by the scanner (≈ 1 MB of text in 64 KiB pieces)
    ev = tl.events
    kern = ev[ev["kind"].astype(str) == "kernel"].sort_values("start_ns")
    ops = ev[ev["kind"].astype(str) == "cpu_op"].sort_values("start_ns")
    assert kern["correlation_id"].astype("int64").tolist() == [200 + i for i in range(3000)]
    assert kern["stream_id"].astype("int64").tolist() == [7] * 3000
    assert kern["grid_x"].astype("int64").tolist() == [4] * 3000
    assert ops["external_id"].astype("int64").tolist() == [100 + i for i in range(3000)]
    assert ops["pid"].astype("int64").tolist() == [1] * 3000
