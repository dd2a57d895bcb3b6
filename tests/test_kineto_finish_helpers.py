"""Helpers of the post-scan Kineto load, each against an independent computation (numpy's sort-based answers or a
plain Python loop)."""
import numpy as np
import pandas as pd

from gpulens.collectors._assemble import _dense_rank
from gpulens.collectors._kineto_columns import used_codes


def test_used_codes_is_the_sorted_distinct_nonnegative_codes():
    rng = np.random.default_rng(3)
    for dtype in (np.int8, np.int32, np.int64):
        for size in (1, 5, 300 if dtype != np.int8 else 100):
            codes = rng.integers(-1, size, 1000).astype(dtype)
            want = sorted({int(c) for c in codes if c >= 0})
            got = used_codes(codes, size)
            assert got.dtype == np.int64 and got.tolist() == want
    assert used_codes(np.zeros(0, dtype=np.int32), 4).tolist() == []
    assert used_codes(np.array([-1, -1]), 4).tolist() == []


def test_dense_rank_matches_position_among_sorted_distinct_values():
    rng = np.random.default_rng(11)
    for values in (rng.integers(-5, 5, 500), rng.integers(0, 2**40, 50).repeat(3), np.array([7] * 9),
                   np.zeros(0, dtype=np.int64), rng.integers(0, 9, 40).astype(np.uint8)):
        distinct = sorted(set(values.tolist()))
        want = [distinct.index(x) for x in values.tolist()]
        assert _dense_rank(values).tolist() == want
    f = np.array([2.0, np.nan, 1.0, 2.0])  # not integers: numpy's own answer
    assert _dense_rank(f).tolist() == np.unique(f, return_inverse=True)[1].tolist()


def test_fits_int32_at_the_range_edges():
    from gpulens.collectors._kineto_acc import fits_int32

    lo, hi = -2**31, 2**31 - 1  # int32's range, written out
    assert fits_int32(np.array([lo, 0, hi]))
    assert not fits_int32(np.array([hi + 1]))
    assert not fits_int32(np.array([0, lo - 1]))
    assert fits_int32(np.zeros(0, dtype=np.int64))


def _trace(tmp_path, regs: list):
    import json

    events = []
    for i, r in enumerate(regs):
        args = {"device": 0, "stream": 7, "correlation": i + 1, "grid": [1, 1, 1], "block": [128, 1, 1]}
        if r is not None:
            args["registers per thread"] = r
        events.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 10 + 10 * i, "dur": 5,
                       "args": args})
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": events}))
    return p


def test_launch_resources_are_int32_with_the_same_values_in_or_out_of_range(tmp_path):
    from gpulens.collectors import collect

    # in range: Int32 with the recorded values; a missing one unknown
    ev = collect(_trace(tmp_path, [32, None, 255])).events.sort_values("start_ns")
    regs = ev.loc[ev["kind"] == "kernel", "regs_per_thread"]
    assert str(regs.dtype) == "Int32"
    assert [None if v is pd.NA else int(v) for v in regs] == [32, None, 255]
    assert str(ev["block_x"].dtype) == "Int32" and set(ev.loc[ev["kind"] == "kernel", "block_x"]) == {128}
    # 2^40 registers fits no int32 and no GPU: the schema's rule makes it unknown, the column still Int32
    ev = collect(_trace(tmp_path, [32, 2**40])).events.sort_values("start_ns")
    regs = ev.loc[ev["kind"] == "kernel", "regs_per_thread"]
    assert str(regs.dtype) == "Int32"
    assert [None if v is pd.NA else int(v) for v in regs] == [32, None]
