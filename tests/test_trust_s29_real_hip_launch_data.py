"""The occupancy skip reason of a ROCm PyTorch-profiler trace says what that profiler records for HIP kernels.

AMD-AGI/TraceLens @ 171dd747 ``tests/traces/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz`` (MI300X):
544 of its 555 kernels are replayed by one ``hipGraphLaunch`` and carry no ``grid``/``block``; the 11 launched by
``hipLaunchKernel``/``hipModuleLaunchKernel`` carry both. The reason read "the PyTorch profiler records them only
for NVIDIA kernels, not HIP ones" beside a file holding a block size for 11 HIP kernels.

Hand-made ROCm Kineto trace in that layout (times in µs).
"""

from __future__ import annotations

import json

import gpulens
from gpulens.collectors import collect

MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9,
          "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
          "regsPerBlock": 131072, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304,
          "maxSharedMemoryPerMultiProcessor": 65536}


def _trace(tmp_path):
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "fill_kernel", "pid": 2, "tid": 3, "ts": 10, "dur": 2,
           "args": {"device": 0, "stream": 3, "correlation": 1, "kind": "Dispatch Kernel", "grid": [4, 1, 1],
                    "block": [512, 1, 1]}},
          {"ph": "X", "cat": "cuda_runtime", "name": "hipGraphLaunch", "pid": 1, "tid": 1, "ts": 20, "dur": 30,
           "args": {"correlation": 2}}]
    ev += [{"ph": "X", "cat": "kernel", "name": f"gemm_{i}", "pid": 2, "tid": 3, "ts": 60 + 100 * i, "dur": 90,
            "args": {"device": 0, "stream": 3, "correlation": 2, "kind": "Dispatch Kernel"}} for i in range(4)]
    p = tmp_path / "rocm.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [MI300X], "traceEvents": ev}))
    return p


def test_reason_does_not_deny_what_the_file_records(tmp_path):
    p = _trace(tmp_path)
    k = collect(p, cache=False).events
    k = k[k["kind"] == "kernel"]
    assert (k["block_x"].fillna(0) > 0).sum() == 1  # the file records the directly launched HIP kernel's block
    why = gpulens.analyze([p], cache=False).sources[0].results["occupancy"].skipped_reason
    assert "not HIP ones" not in why and "only for NVIDIA" not in why
    assert "replayed from a HIP graph" in why
    assert "rocprofv3 --kernel-trace" in why
