"""Launch configurations no GPU can run are unknown, whatever collector read them; ROCm runtime calls that carry a
launch are converted to workgroups like their kernels.

Bounds written here from the sources, not from gpulens: CUDA Programming Guide "Technical Specifications per Compute
Capability" (max threads per block 1024, grid x ≤ 2^31−1) and HIP (maxThreadsPerBlock 1024); registers per thread ≤
512 (AMD unified VGPR+AGPR file, the largest of any architecture); shared memory per block ≤ 227 KiB (H100 opt-in).
"""

from __future__ import annotations

import json
import re
import warnings

import pytest

from gpulens.collectors import collect
from gpulens.report import analyze
from tests.test_amd_fidelity import _kineto


def _trace(tmp_path, grid, block, regs=32, smem=0, name="t.json"):
    ev = []
    for i in range(3):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": 100 + 100 * i, "dur": 5, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 110 + 100 * i, "dur": 50,
                   "args": {"correlation": i + 1, "device": 0, "stream": 7, "grid": grid, "block": block,
                            "registers per thread": regs, "shared memory": smem}})
    p = tmp_path / name
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev, "deviceProperties": [
        {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "numSms": 108}]}))
    return p


@pytest.mark.parametrize("grid, block, regs, smem, cleared, cause", [
    ([4, 1, 1], [2 ** 63 - 1, 1, 1], 32, 0, "block", "block"),      # more threads than int64 allows
    ([4, 1, 1], [64, 64, 1], 32, 0, "block", "block"),              # 4096 threads > 1024
    ([4, 1, 1], [0, 1, 1], 32, 0, "block", "block"),                # an empty block
    ([4, 1, 1], [128, 1, 1], 100_000, 0, "block", "registers"),     # > 512 registers per thread
    ([4, 1, 1], [128, 1, 1], -3, 0, "block", "registers"),
    ([4, 1, 1], [128, 1, 1], 32, 10 ** 12, "block", "shared memory"),  # a terabyte per block
    ([2 ** 40, 1, 1], [128, 1, 1], 32, 0, "grid", "grid"),          # > 2^31−1 blocks in x
    ([4, -1, 1], [128, 1, 1], 32, 0, "grid", "grid"),
])
def test_impossible_launch_values_are_unknown(tmp_path, grid, block, regs, smem, cleared, cause):
    tl = collect(_trace(tmp_path, grid, block, regs, smem))
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 3  # the launches stay: only the impossible figures go
    group = ["grid_x", "grid_y", "grid_z"] if cleared == "grid" else \
        ["block_x", "block_y", "block_z", "regs_per_thread", "smem_static_bytes"]
    assert k[group].isna().all().all()
    kept = ["block_x", "regs_per_thread"] if cleared == "grid" else ["grid_x"]
    assert k[kept].notna().all().all()
    (w,) = [w for w in tl.meta.warnings if "impossible launch configuration" in w]
    assert f"{cause} ×3" in w


def test_no_occupancy_verdict_from_an_impossible_launch(tmp_path):
    # before: 100,000 registers per thread gave "0 % occupancy, limited by registers" and a register finding
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the int64 cast of a 2^63 block warned on stderr
        for i, (block, regs) in enumerate((([128, 1, 1], 100_000), ([2 ** 63 - 1, 1, 1], 32))):
            rep = analyze([_trace(tmp_path, [4, 1, 1], block, regs, name=f"t{i}.json")])
            occ = rep.sources[0].results["occupancy"]
            assert occ.skipped
            titles = " ".join(f.title for r in rep.sources[0].results.values() for f in r.findings)
            assert "egisters limit" not in titles and not re.search(r"(?<![\d.])0(\.0)? %", titles)


def test_plausible_extremes_are_kept(tmp_path):
    # the largest launches real GPUs accept: 1024 threads, 255 registers, 227 KiB opt-in shared memory, 2^31−1 blocks
    tl = collect(_trace(tmp_path, [2 ** 31 - 1, 65535, 1], [32, 32, 1], 255, 232_448))
    k = tl.events[tl.events["kind"] == "kernel"]
    assert int(k["grid_x"].iloc[0]) == 2 ** 31 - 1 and int(k["block_y"].iloc[0]) == 32
    assert int(k["regs_per_thread"].iloc[0]) == 255 and int(k["smem_static_bytes"].iloc[0]) == 232_448
    assert not [w for w in tl.meta.warnings if "impossible" in w]


def test_rocm_runtime_calls_converted_like_their_kernels(tmp_path):
    # rocprofiler-sdk backend: hipLaunchKernel's args hold grid = workgroup size, block = work-items, on the runtime
    # call as on the kernel; 524288 work-items / 256 = 2048 workgroups, (512, 128) / (512, 1) = (1, 128)
    _kineto(tmp_path, [("hipLaunchKernel", [256, 1, 1], [524288, 1, 1]),
                       ("hipLaunchKernel", [512, 1, 1], [512, 128, 1])],
            hip_runtime_version=70051831, **{"rocprofiler-sdk_version": 1.0})
    raw = json.loads((tmp_path / "rocm.json").read_text())
    for e in raw["traceEvents"]:  # the same launch recorded on the runtime call as well
        if e["cat"] == "cuda_runtime":
            k = next(x for x in raw["traceEvents"] if x["cat"] == "kernel"
                     and x["args"]["correlation"] == e["args"]["correlation"])
            e["args"].update(grid=k["args"]["grid"], block=k["args"]["block"])
    (tmp_path / "rocm.json").write_text(json.dumps(raw))
    tl = collect(tmp_path / "rocm.json")
    rt = tl.events[tl.events["kind"] == "runtime"].sort_values("correlation_id")
    got = [tuple(int(v) for v in r) for r in rt[["grid_x", "grid_y", "block_x", "block_y"]].to_numpy()]
    assert got == [(2048, 1, 256, 1), (1, 128, 512, 1)]
    assert not [w for w in tl.meta.warnings if "impossible" in w]
