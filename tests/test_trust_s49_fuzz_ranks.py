"""Session-49 fuzzing (tests/fuzz_s49.py, ``gen_kineto``): a rank that drives several GPUs showed more compute than
its span in the rank comparison — ``computation_ns`` was the sum of its GPUs' unions (device time) beside the rank's
wall span (``compute 720 µs`` for a rank of span 390 µs). The rank's figures are now unions over all its GPUs in wall
time: a moment when any of its GPUs computes counts once, and the shares are of the rank's span.

Expected values are worked by hand from the events built here.
"""

from __future__ import annotations

import json
from pathlib import Path

import gpulens

US = 1000  # ns per µs


def _kernel(dev: int, ts: float, dur: float, corr: int, name: str = "gemm_kernel") -> list[dict]:
    return [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": ts - 5,
             "dur": 3, "args": {"correlation": corr}},
            {"ph": "X", "cat": "kernel", "name": name, "pid": dev, "tid": 7, "ts": ts, "dur": dur,
             "args": {"correlation": corr, "device": dev, "stream": 7}}]


def _write_ranks(d: Path, comm_at: float | None = None) -> None:
    """Rank 0 runs the same four 90 µs kernels on GPUs 0 and 1 at once (at 1000, 1100, 1200, 1300 µs); rank 1 runs
    them on GPU 0 only. With ``comm_at``, each GPU of each rank also runs a 40 µs all-reduce from ``comm_at`` µs."""
    for rank, devs in ((0, (0, 1)), (1, (0,))):
        ev, corr = [], 1
        for i in range(4):
            for dev in devs:
                ev += _kernel(dev, 1000 + 100 * i, 90, corr)
                corr += 1
        if comm_at is not None:
            for dev in devs:
                ev += _kernel(dev, comm_at, 40, corr, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)")
                corr += 1
        (d / f"rank{rank}.json").write_text(json.dumps({"distributedInfo": {"rank": rank, "world_size": 2},
                                                        "traceEvents": ev}))


def _ranks_table(d: Path):
    rep = gpulens.analyze([d])
    res = rep.sources[0].results["ranks"]
    assert not res.skipped, res.skipped_reason
    return res.table.set_index("rank")


def test_rank_of_two_gpus_computes_no_more_than_its_span(tmp_path):
    _write_ranks(tmp_path)
    t = _ranks_table(tmp_path)
    # span: 1000 µs → 1390 µs on both ranks; compute: four 90 µs intervals, the two GPUs' at the same moments
    for rank in (0, 1):
        assert int(t.loc[rank, "span_ns"]) == 390 * US
        assert int(t.loc[rank, "computation_ns"]) == 4 * 90 * US
        assert int(t.loc[rank, "computation_ns"]) <= int(t.loc[rank, "span_ns"])


def test_rank_of_two_gpus_communication_is_a_union_and_a_share_of_its_span(tmp_path):
    # the all-reduce from 1390 µs to 1430 µs on every GPU, after the compute: span 1000 → 1430 µs = 430 µs; comm
    # 40 µs (once, not once per GPU), all of it exposed (no GPU of the rank computes then)
    _write_ranks(tmp_path, comm_at=1390)
    t = _ranks_table(tmp_path)
    for rank in (0, 1):
        assert int(t.loc[rank, "span_ns"]) == 430 * US
        assert int(t.loc[rank, "comm_ns"]) == 40 * US
        assert int(t.loc[rank, "exposed_comm_ns"]) == 40 * US
        assert abs(float(t.loc[rank, "comm_pct"]) - 100.0 * 40 / 430) < 1e-6
        assert abs(float(t.loc[rank, "exposed_comm_pct"]) - 100.0 * 40 / 430) < 1e-6
