import numpy as np
import pandas as pd
import pytest

import gpulens
from gpulens.analyzers.hotspots import critical_set
from gpulens.analyzers.intervals import merge, union_ns
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table
from tests.conftest import KINETO


def test_union_counts_overlap_once():
    # [0,10) ∪ [5,15) ∪ [20,30) ∪ [30,31) = 15 + 11
    assert union_ns(np.array([0, 5, 20, 30]), np.array([10, 15, 30, 31])) == 26
    s, e = merge(np.array([20, 0, 5]), np.array([30, 10, 15]))
    assert s.tolist() == [0, 20] and e.tolist() == [15, 30]
    assert union_ns(np.array([], dtype="int64"), np.array([], dtype="int64")) == 0


def test_critical_set_is_smallest_prefix_reaching_fraction():
    assert critical_set(np.array([0.5, 0.2, 0.2, 0.1]), 0.8).tolist() == [True, True, True, False]
    assert critical_set(np.array([0.8, 0.2]), 0.8).tolist() == [True, False]
    assert critical_set(np.array([0.9, 0.1]), 0.8).tolist() == [True, False]


def _tl(rows):
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id"])}
    return Timeline(make_table(EVENT_COLUMNS, {**cols, "event_id": list(range(n)), "rank": [0] * n,
                                               "device_id": [0] * n, "source": ["t"] * n})).validate()


def test_breakdown_split_adds_up_to_span():
    # compute [0,100) on s1; nccl [50,150) on s2; memcpy [140,160) on s3; idle [160,200); memset [200,210)
    tl = _tl([("kernel", "gemm", 0, 100, 1), ("comm", "ncclAllReduce", 50, 100, 2),
              ("memcpy", "Memcpy HtoD", 140, 20, 3), ("memset", "Memset", 200, 10, 3)])
    src = gpulens.analyze_timeline(tl)
    b = src.results["breakdown"].summary
    assert b["span_ns"] == 210
    assert b["computation_ns"] == 100
    assert b["exposed_comm_ns"] == 50          # 100..150
    assert b["exposed_memcpy_ns"] == 10        # 150..160
    assert b["exposed_memset_ns"] == 10
    assert b["idle_ns"] == 40                  # 160..200
    assert b["computation_ns"] + b["exposed_comm_ns"] + b["exposed_memcpy_ns"] + b["exposed_memset_ns"] \
        + b["idle_ns"] == b["span_ns"]


def test_hotspots_hand_computed():
    tl = _tl([("kernel", "a", 0, 60, 1), ("kernel", "b", 100, 30, 1), ("kernel", "a", 200, 40, 1),
              ("kernel", "c", 300, 20, 1), ("memcpy", "Memcpy DtoH", 400, 500, 1)])
    t = gpulens.analyze_timeline(tl).results["hotspots"].table
    assert t["name"].tolist() == ["a", "b", "c"]  # the copy is not a kernel
    a = t.iloc[0]
    assert (a["calls"], a["total_ns"], a["min_ns"], a["max_ns"], a["mean_ns"]) == (2, 100, 40, 60, 50)
    assert a["share"] == pytest.approx(100 / 150)
    assert t["critical"].tolist() == [True, True, False]  # 0.667 < 0.8 ≤ 0.867


@pytest.mark.parametrize("trace,ref", [
    ("tracelens_h100_bert-small.json.gz", "h100_bert-small_gpu_timeline.csv"),
    ("tracelens_mi300x_bert-small.json.gz", "mi300_bert-small_gpu_timeline.csv"),
])
def test_breakdown_matches_tracelens_reference(trace, ref):
    ref_df = pd.read_csv(KINETO / "tracelens_reference" / ref).set_index("type")["time ms"]
    b = gpulens.analyze([KINETO / trace]).sources[0].results["breakdown"].summary
    assert b["computation_ns"] / 1e6 == pytest.approx(ref_df["computation_time"], rel=1e-3)
    assert b["span_ns"] / 1e6 == pytest.approx(ref_df["total_time"], rel=1e-3)
    assert b["exposed_memcpy_ns"] / 1e6 == pytest.approx(ref_df["exposed_memcpy_time"], rel=1e-2)
    assert b["idle_pct"] == pytest.approx(100 * ref_df["idle_time"] / ref_df["total_time"], abs=0.1)


def test_multirank_breakdown_has_a_row_per_rank_and_comm():
    src = gpulens.analyze([KINETO / "multirank"]).sources[0]
    t = src.results["breakdown"].table
    assert t["rank"].tolist() == [0, 1]
    assert (t["comm_ns"] > 0).all()
