"""Occupancy when one hot launch records a configuration that fits no SM beside launches without any launch data.

The analyzer dropped its per-launch block-size and register arrays before describing the launches whose recorded
configuration leaves room for no block, so a trace holding both kinds (one impossible configuration, some launches
with nothing recorded) ended in an internal error (UnboundLocalError, exit 70) instead of a report (new-user review,
session 34).
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.report import analyze

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
        "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
        "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
        "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448}


def _trace(tmp_path: Path) -> Path:
    ev, corr, ts = [], 0, 1000
    for name, launch in (("big_regs_kernel", {"registers per thread": 255, "shared memory": 0,
                                              "grid": [132, 1, 1], "block": [1024, 1, 1]}),
                         *[("ok_kernel", {"registers per thread": 32, "shared memory": 0, "grid": [132, 1, 1],
                                          "block": [256, 1, 1]})] * 10,
                         *[("nolaunchdata_kernel", {})] * 10):
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
                   "dur": 5, "args": {"correlation": corr}})
        dur = 1000 if name == "big_regs_kernel" else 100  # a third of the time each: all three kernels hot
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts + 10, "dur": dur,
                   "args": {"correlation": corr, "device": 0, "stream": 7, **launch}})
        ts += dur + 100
    p = tmp_path / "nofit.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": ev}))
    return p


def test_a_launch_that_fits_no_sm_beside_launches_without_data_is_reported(tmp_path):
    # 255 registers per thread allocate ceil(255 / 8) × 8 = 256 per thread, 256 × 32 = 8,192 per warp; a 1,024-thread
    # block is 32 warps = 262,144 registers > the SM's 65,536: no block fits, so that one launch cannot have run as
    # recorded. ok_kernel (256 threads × 32 registers = 8,192 per block) fits; nolaunchdata_kernel records nothing.
    assert 8 * -(-255 // 8) * 32 * (1024 // 32) > 65536
    occ = analyze([_trace(tmp_path)], only=["hotspots", "occupancy"]).sources[0].results["occupancy"]
    missing = occ.summary["theoretical_missing"]
    assert "1 launch records a configuration" in missing and "yet it ran" in missing
    assert "records no block size" in missing  # the 10 launches without launch data, named as such
    table = occ.table.set_index("name") if "name" in occ.table.columns else occ.table
    assert "ok_kernel" in set(table.index.astype(str))
