"""An AMD GPU that no built-in spec covers is still an AMD GPU: the advice names rocprof, not ncu.

ROCm's PyTorch profiler writes ``computeMajor``/``computeMinor`` for an AMD device (9.4 on an MI300X: TraceLens's
MI300X traces), and the vendor test took any recorded compute capability for a CUDA one. With the GPU identified
(MI300X) the spec said "amd"; with a real AMD part the table lacks (an MI308X: 80 CUs, gfx942 — see
test_trust_s29_left_device_specs.py), the TraceLens sglang decode trace relabelled so advised "profile with ncu
--section LaunchStats", "Collect counters … (ncu --set full)" and "records them for CUDA kernels only".

Hand-made device records: the fields a ROCm Kineto trace's deviceProperties give (name, compute capability,
wavefront size 64).
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.analyzers._advice_vendor import vendor_of


@pytest.mark.parametrize("dev,want", [
    ({"name": "AMD Instinct MI308X", "compute_capability": "9.4", "warp_size": 64, "num_sms": 80}, "amd"),
    ({"name": "", "compute_capability": "9.4", "warp_size": 64, "num_sms": 304}, "amd"),
    ({"name": "AMD Radeon PRO W6800", "compute_capability": "10.3", "num_sms": 60}, "amd"),
    ({"name": "NVIDIA L40", "compute_capability": "8.9", "warp_size": 32, "num_sms": 142}, "nvidia"),
])
def test_recorded_device_vendor(dev, want):
    class _Meta:
        devices = [dev]
        sources = [{"collector": "kineto"}]

    class _TL:
        meta = _Meta()

    assert vendor_of(_TL()) == want


MI308X = {"id": 0, "name": "AMD Instinct MI308X", "totalGlobalMem": 206141652992, "computeMajor": 9,
          "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
          "regsPerBlock": 131072, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 80,
          "maxSharedMemoryPerMultiProcessor": 65536}


def test_unidentified_amd_gpu_gets_amd_tools(tmp_path):
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "hipGraphLaunch", "pid": 1, "tid": 1, "ts": 0, "dur": 30,
           "args": {"correlation": 2}}]
    ev += [{"ph": "X", "cat": "kernel", "name": f"gemm_{i}", "pid": 2, "tid": 3, "ts": 40 + 100 * i, "dur": 90,
            "args": {"device": 0, "stream": 3, "correlation": 2, "kind": "Dispatch Kernel"}} for i in range(4)]
    p = tmp_path / "mi308x.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [MI308X], "traceEvents": ev}))
    src = gpulens.analyze([p], cache=False).sources[0]
    why = src.results["occupancy"].skipped_reason
    assert "ncu" not in why and "CUDA" not in why
    assert "rocprofv3" in why
