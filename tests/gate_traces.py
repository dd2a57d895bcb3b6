"""A tiny generator of synthetic Kineto (PyTorch Profiler) traces for the gate's end-to-end tests.

Each trace has ``steps`` training-like steps on one stream of one GPU; per step:

=============================================  ========  ====================================
kernel                                         base µs   role
=============================================  ========  ====================================
``ampere_sgemm_128x64_tn`` (the GEMM)          400       ~61 % of kernel time
``vectorized_elementwise_kernel<4, relu>``     120
``reduce_kernel<512, 1>``                       60
``tiny_fill_kernel``                             2        ~0.3 %: under the 1 % gating floor
``Memcpy HtoD (Pageable -> Device)``            80        1 MiB copy (not a kernel)
=============================================  ========  ====================================

Each kernel has a ``cudaLaunchKernel`` runtime call (linked by correlation id) and an ``aten::`` cpu_op. Noise:
one run-level factor ``1 + noise·N(0,1)`` (clock/thermal variation between runs) times a per-event factor
``1 + noise/4·N(0,1)``, from a seeded numpy Generator. ``gemm_scale`` multiplies the GEMM's durations.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

GEMM = "ampere_sgemm_128x64_tn"
KERNELS = ((GEMM, 400.0, "aten::mm"), ("void at::native::vectorized_elementwise_kernel<4, relu>", 120.0, "aten::relu"),
           ("void at::native::reduce_kernel<512, 1>", 60.0, "aten::sum"), ("tiny_fill_kernel", 2.0, "aten::fill_"))
MEMCPY_US, MEMCPY_BYTES = 80.0, 1 << 20
H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
        "totalGlobalMem": 85031714816, "warpSize": 32}
A100 = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "numSms": 108,
        "totalGlobalMem": 85899345920, "warpSize": 32}


def launch(ev: list[dict], name: str, corr: int, t_cpu: float, t_gpu: float, dur: float) -> float:
    """Append one launch to ``ev``: its runtime call (``cudaLaunchKernel``, or ``cudaMemcpyAsync`` for a
    ``Memcpy…`` name) at ``t_cpu + 1`` µs for 5 µs, then its GPU event on device 0 / stream 7 of ``dur`` µs,
    starting at ``max(t_gpu, t_cpu + 6)`` (after the call, once the stream is free; a kernel with a 132-block grid of
    256 threads, a copy of :data:`MEMCPY_BYTES` host to device), both linked by ``corr``. Returns when the stream is
    next free: the event's end + 3 µs."""
    api = "cudaMemcpyAsync" if name.startswith("Memcpy") else "cudaLaunchKernel"
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 1, "tid": 1, "ts": round(t_cpu + 1, 3),
               "dur": 5.0, "args": {"correlation": corr, "External id": corr}})
    t_gpu = max(t_gpu, t_cpu + 6)
    args = {"device": 0, "stream": 7, "correlation": corr, "External id": corr}
    if name.startswith("Memcpy"):
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": name, "pid": 0, "tid": 7, "ts": round(t_gpu, 3),
                   "dur": dur, "args": {**args, "bytes": MEMCPY_BYTES, "kind": "HtoD"}})
    else:
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": round(t_gpu, 3),
                   "dur": dur, "args": {**args, "grid": [132, 1, 1], "block": [256, 1, 1]}})
    return t_gpu + dur + 3.0


def make_trace(path: Path, seed: int, gemm_scale: float = 1.0, noise: float = 0.02, steps: int = 4,
               device: dict | None = None, driver: int = 12040, truncate: bool = False,
               rename: dict[str, str] | None = None) -> Path:
    """Write one synthetic trace to ``path`` and return it.

    Args:
        seed: seed of the noise.
        gemm_scale: factor on the GEMM kernel's duration (1.3 = 30 % slower).
        noise: relative standard deviation of the run-level factor.
        steps: number of steps.
        device: the ``deviceProperties`` entry (H100 by default).
        driver: ``cuda_driver_version`` recorded in the trace.
        truncate: cut the file in the middle of an event (a crashed profiler), so the collector marks it partial.
        rename: kernel names to write differently (e.g. the GEMM under a mangled name), ``{name: written name}``.
    """
    rng = np.random.default_rng(seed)
    run = 1 + noise * rng.standard_normal()
    ev: list[dict] = []
    t_cpu, t_gpu, corr = 1_000_000.0, 1_000_050.0, 1
    for _ in range(steps):
        items = [((rename or {}).get(name, name), us * (gemm_scale if name == GEMM else 1.0), op)
                 for name, us, op in KERNELS]
        items.append(("Memcpy HtoD (Pageable -> Device)", MEMCPY_US, "aten::copy_"))
        for name, us, op in items:
            dur = round(us * run * (1 + noise / 4 * rng.standard_normal()), 3)
            ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": round(t_cpu, 3),
                       "dur": 8.0, "args": {"External id": corr}})
            t_gpu = launch(ev, name, corr, t_cpu, t_gpu, dur)
            t_cpu += 10.0
            corr += 1
    doc = {"schemaVersion": 1, "deviceProperties": [device or H100], "cuda_driver_version": driver,
           "cuda_runtime_version": 12040, "traceEvents": ev}
    text = json.dumps(doc)
    if truncate:
        text = text[: len(text) // 2]
    path.write_text(text)
    return path
