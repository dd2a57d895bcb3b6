"""Per launch call GPU time (bottlenecks.short_launches) on a hand-made trace whose kernels are not in launch order:
graph launches of several kernels on two streams, interleaved with single launches, each row checked against a sum
written here."""

from __future__ import annotations

import json

from gpulens.analyzers.bottlenecks import short_launches
from gpulens.collectors import collect

T0 = 1000  # µs


def _launch(ts, dur, corr, name="cudaLaunchKernel"):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 9, "tid": 9, "ts": T0 + ts, "dur": dur,
            "args": {"correlation": corr}}


def _kernel(name, ts, dur, corr, stream):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": T0 + ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr, "grid": [1, 1, 1], "block": [64, 1, 1]}}


def test_graph_and_single_launches_summed_per_call(tmp_path):
    ev = [_launch(0, 20, 1, "cudaGraphLaunch"), _launch(30, 4, 2), _launch(40, 3, 3)]
    # the graph (call 1, 20 µs) runs kernels of 5 + 6 + 7 µs on streams 7 and 8, the single launches' kernels
    # (calls 2 and 3) start before the graph's last kernel: kernel rows in time order are 1, 1, 3, 2, 1
    ev += [_kernel("g_a", 50, 5, 1, 7), _kernel("g_b", 51, 6, 1, 8), _kernel("single3", 52, 2, 3, 9),
           _kernel("single2", 53, 9, 2, 10), _kernel("g_c", 60, 7, 1, 7)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    tl = collect(p)
    t = short_launches(tl).sort_values("call_ns", ascending=False).reset_index(drop=True)
    assert t["kernels"].tolist() == [3, 1, 1]
    assert t["gpu_ns"].tolist() == [18_000, 9_000, 2_000]  # 5 + 6 + 7 µs; 9 µs; 2 µs
    assert t["call_ns"].tolist() == [20_000, 4_000, 3_000]
    assert t["short"].tolist() == [True, False, True]  # 18 < 20; 9 ≥ 4; 2 < 3
    assert t["rank"].tolist() == [0, 0, 0] and t["device_id"].tolist() == [0, 0, 0]
    ids = t["launch_event_id"].tolist()
    names = tl.events.set_index("event_id").loc[ids, "name"].astype(str).tolist()
    assert names == ["cudaGraphLaunch", "cudaLaunchKernel", "cudaLaunchKernel"]


def test_per_gpu_launch_counts_against_hand_sums():
    import pandas as pd

    from gpulens.analyzers.bottlenecks import _launch_counts

    # calls on (0, 0): short 10 + 20 ns, long 5 ns; on (1, 0): one short 7 ns; on (0, 1): one long
    sl = pd.DataFrame({"rank": [0, 1, 0, 0, 0], "device_id": [0, 0, 0, 1, 0], "gpu_ns": [10, 7, 5, 3, 20],
                       "short": [True, True, False, False, True]})
    want = {(0, 0): {"n": 3, "short": 2, "sns": 30}, (1, 0): {"n": 1, "short": 1, "sns": 7},
            (0, 1): {"n": 1, "short": 0, "sns": 0}}
    assert _launch_counts(sl) == want
    # a float device column (missing values possible): the pandas path, same figures
    assert _launch_counts(sl.astype({"device_id": float})) == want
