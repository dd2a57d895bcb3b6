"""A kernel's grid in its verdict is the grid where its time is: launches weighted by their GPU time.

Kind: gunrock's merge-path kernel on an MI300X had 11 launches of 1 to 39,041 blocks; the plain mean, 7,341 blocks,
was no launch's grid and understated the two launches holding 95 % of its time (18,937 and 39,041 blocks). A plain
mean also lets many tiny launches make a kernel whose time is in one full launch read as "fewer blocks than SMs".
Expected values are hand calculations on the trace below.
"""

from __future__ import annotations

import json

import gpulens


def _trace(tmp_path, launches=None):
    """A100 Kineto trace of one kernel launched as ``launches`` [(blocks, µs)] (default: ten 1-block launches of
    2 µs, one of 1,000 blocks for 1,000 µs), 256 threads and 32 registers per thread each."""
    ev, t = [], 0
    launches = launches or [(1, 2)] * 10 + [(1000, 1000)]
    for i, (blocks, dur) in enumerate(launches):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                   "dur": 1, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "my_kernel", "pid": 0, "tid": 7, "ts": t + 2, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [blocks, 1, 1],
                            "block": [256, 1, 1], "registers per thread": 32, "shared memory": 0}})
        t += dur + 4
    p = tmp_path / "grids.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "numSms": 108,
         "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 167936,
         "sharedMemPerBlock": 49152, "warpSize": 32, "totalGlobalMem": 85899345920}], "traceEvents": ev}))
    return p


def test_grid_is_weighted_by_launch_time(tmp_path):
    # weighted: (10 × 1 × 2 + 1,000 × 1,000) / (10 × 2 + 1,000) = 1,000,020 / 1,020 = 980.4 → "980 blocks";
    # plain mean (10 + 1,000) / 11 = 91.8 < 0.9 × 108 would have called the grid short
    src = gpulens.analyze([_trace(tmp_path)]).sources[0]
    row = next(r for r in src.results["verdicts"].table.to_dict("records") if r["name"] == "my_kernel")
    # s32: the mean says what it is over and names the grid with the most time (the occupancy row's 1,000 blocks)
    assert ("980 blocks on 108 SMs (time-weighted mean of its 2 grid sizes; the grid with the most time has 1000)"
            in row["evidence"]), row["evidence"]
    assert "too few blocks" not in " ".join(row["next_steps"])
