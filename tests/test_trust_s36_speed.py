"""Session 36 speed work (issue 16): the quicker paths give exactly what the slower ones gave.

Expected values come from independent sources: Python's own ``sorted`` / ``statistics.median`` over the rows, numpy's
stable sort, and the counts of kernels of each kind written into the generated trace.
"""

from __future__ import annotations

import json
import statistics

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers._groupstats import stable_argsort
from gpulens.analyzers.distributions import others_median
from gpulens.analyzers.intervals import group_order
from gpulens.collectors.kineto import KinetoCollector


def _python_order(values) -> list[int]:
    """Row numbers by value, equal values in row order (Python's sort is stable)."""
    return sorted(range(len(values)), key=lambda i: values[i])


@pytest.mark.parametrize("case", ["ints", "whole_floats", "signed_zeros", "large_uint", "fractions", "nearly_sorted"])
def test_stable_argsort_is_the_stable_order(case):
    rng = np.random.default_rng(7)
    n = 6000  # above the size where the folded-key sort is used
    if case == "ints":
        v = rng.integers(-40, 40, n)  # many ties: equal values must stay in row order
    elif case == "whole_floats":
        v = rng.integers(1_000, 60_000, n).astype(np.float64)  # durations in ns held as float64
    elif case == "signed_zeros":
        v = rng.integers(-2, 3, n).astype(np.float64)
        v[rng.random(n) < 0.3] = -0.0  # -0.0 == 0.0: ties, kept in row order
    elif case == "large_uint":
        v = (rng.integers(0, 1_000, n) + 2 ** 40).astype(np.uint64)
    elif case == "fractions":
        v = rng.random(n)  # no fold possible: numpy's own stable sort
    else:
        v = np.sort(rng.integers(0, 10 ** 9, n))
        v[::500] = 0  # a few descents
    got = stable_argsort(v)
    assert got.tolist() == _python_order(v.tolist())
    assert np.array_equal(got, np.argsort(v, kind="stable"))


def test_stable_argsort_ties_by_hand():
    # 4096 rows alternating 5, 3: the 3s (odd rows) first, each value's rows in increasing order
    v = np.array([5, 3] * 2048, dtype=np.int64)
    got = stable_argsort(v)
    assert got[:2048].tolist() == list(range(1, 4096, 2))
    assert got[2048:].tolist() == list(range(0, 4096, 2))


def test_group_order_is_lexsort_by_group_then_value():
    rng = np.random.default_rng(3)
    n = 5000
    g = rng.integers(0, 9, n)
    v = rng.integers(0, 50, n).astype(np.float64)
    expected = sorted(range(n), key=lambda i: (g[i], v[i]))  # stable: ties in row order
    assert group_order(g, v).tolist() == expected


def test_others_median_leave_one_out_by_hand():
    # group "a": 1, 2, 3, 10 → the others of 1 are 2, 3, 10 (median 3); of 2: 1, 3, 10 (3); of 3: 1, 2, 10 (2);
    # of 10: 1, 2, 3 (2). Group "b" has one row: no other launch, NaN.
    df = pd.DataFrame({"k": ["a", "a", "b", "a", "a"], "dur_ns": [10.0, 1.0, 7.0, 3.0, 2.0]})
    got = others_median(df, ["k"])
    assert got[[0, 1, 3, 4]].tolist() == [2.0, 3.0, 2.0, 3.0]
    assert np.isnan(got[2])


def test_others_median_large_groups_against_statistics_median():
    rng = np.random.default_rng(11)
    n = 9000  # the folded sort path
    k = rng.integers(0, 4, n)
    d = rng.choice([1_500.0, 2_000.0, 2_500.0, 9_000.0, 61_000.0], n)
    d[rng.random(n) < 0.05] = np.nan  # unknown durations: neither compared nor given a median
    got = others_median(pd.DataFrame({"k": k, "dur_ns": d}), ["k"])
    for grp in range(4):
        vals = d[(k == grp) & ~np.isnan(d)].tolist()
        for x in set(vals):  # rows of one value share their leave-one-out median
            rest = list(vals)
            rest.remove(x)
            rows = np.flatnonzero((k == grp) & (d == x))
            assert np.all(got[rows] == statistics.median(rest))
    assert np.isnan(got[np.isnan(d)]).all()


def _kernel_trace(path, per_name: int) -> None:
    names = ["Memcpy DtoD (Device -> Device)", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)",
             "void gemm_kernel<float>(float*)"]
    events = []
    t = 1_000
    for i in range(per_name):
        for name in names:
            events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t, "dur": 2,
                           "args": {"correlation": len(events) + 1, "device": 0, "stream": 7}})
            t += 3
    path.write_text(json.dumps({"traceEvents": events}))


@pytest.mark.parametrize("fast", [True, False])
def test_kernel_kinds_by_name_in_every_piece(tmp_path, fast):
    # 3 × 600 kernel records, read in pieces of 64 KiB (each name is met in many pieces): the copy is a memcpy, the
    # NCCL kernel communication, the GEMM a kernel — in every piece, as the trace's names say
    p = tmp_path / "kinds.pt.trace.json"
    _kernel_trace(p, 600)
    assert p.stat().st_size > 4 * 65536
    ev = KinetoCollector().collect(p, fast=fast, chunk_bytes=65536).events
    kinds = ev.groupby(ev["name"].astype(str))["kind"].agg(lambda s: sorted(set(s.astype(str))))
    assert kinds.to_dict() == {"Memcpy DtoD (Device -> Device)": ["memcpy"],
                               "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)": ["comm"],
                               "void gemm_kernel<float>(float*)": ["kernel"]}
    assert ev["kind"].astype(str).value_counts().to_dict() == {"memcpy": 600, "comm": 600, "kernel": 600}
