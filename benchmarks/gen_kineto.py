"""Generate valid synthetic PyTorch Profiler (Kineto) traces of any size, for benchmarks and scale tests.

Each kernel comes with what a real trace records around it: a ``cpu_op`` parent (``aten::…`` with ``Input Dims``,
``Input type`` and ``Concrete Inputs``, as torch 2.x writes them with record_shapes), the runtime launch call
(``cudaLaunchKernel`` / ``hipLaunchKernel``) sharing the kernel's ``correlation`` id, the ``ac2g`` flow arrows
between them, and a ``ProfilerStep#N`` annotation around each step.
Every 50th kernel is an NCCL/RCCL collective on its own stream. Timestamps are µs with three decimals (ns resolution),
as recent Kineto writes them; the layout of the file (one event per line, ``args`` inline) follows Kineto's writer.

Usage::

    python benchmarks/gen_kineto.py --kernels 1000000 --out /tmp/big.pt.trace.json
    python benchmarks/gen_kineto.py --kernels 100000 --dialect rocm --gzip --ranks 4 --out /tmp/run/

The generator returns (and prints as JSON) the facts a loader must reproduce: kernel count, the plain sum of kernel
durations in ns, event counts by category — so tests can check a load against the generator's own arithmetic.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path
from typing import IO, Any

CUDA_KERNELS = [
    "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(Params)",
    "ampere_sgemm_128x64_tn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >"
    "(int, {lambda(float)#1}, at::detail::Array<char*, 2>)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous "
    "namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
    "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4>)",
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false, "
    "false, false, false, true, true, false>(Flash_fwd_params)",
    "triton_poi_fused_add_cos_sin_0",
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_"
    "cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)"
    "#1}>(at::TensorIteratorBase&, {lambda(float)#1} const&)::{lambda(int)#1}>(int, {lambda(int)#1})",
]
ROCM_KERNELS = [
    "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA4",
    "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
    "attn_fwd",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous "
    "namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4> >(at::native::ReduceOp<float, float, unsigned int, float, 4>)",
]
OPS = ["aten::mm", "aten::addmm", "aten::gelu", "aten::_softmax", "aten::mean", "aten::add", "aten::copy_",
       "aten::_flash_attention_forward"]
COMM = {"cuda": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        "rocm": "ncclDevKernel_Generic_4(ncclDevComm*, unsigned long, ncclWork*)"}


def _us(ns: int) -> str:
    """ns → µs text with three decimals (exact)."""
    return f"{ns // 1000}.{ns % 1000:03d}"


def write_trace(fh: IO[str], kernels: int, dialect: str = "cuda", rank: int = 0, world: int = 1, steps: int = 10,
                seed: int = 0) -> dict[str, Any]:
    """Write one rank's trace to ``fh`` and return its facts.

    Returns:
        dict with ``kernels`` (count, collectives included), ``kernel_ns`` (plain sum of kernel ``dur`` in ns),
        ``comm_kernels``, ``cpu_ops``, ``runtime``, ``steps``, ``step_kernels`` (kernels launched in each step).
    """
    rnd = random.Random(seed * 1000 + rank)
    rocm = dialect == "rocm"
    names = ROCM_KERNELS if rocm else CUDA_KERNELS
    gpu_pid = 2 + rank % 8 if rocm else rank % 8
    compute_stream = 0 if rocm else 7
    comm_stream = 1 if rocm else 20
    launch = "hipLaunchKernel" if rocm else "cudaLaunchKernel"
    pid, tid = 4242 + rank, 4242 + rank
    w = fh.write
    w('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    ')
    if rocm:
        w('{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 205822885888, "computeMajor": 9, '
          '"computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": '
          '65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304, "maxSharedMemoryPerMultiProcessor": '
          '65536}')
    else:
        w('{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9, '
          '"computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, '
          '"warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536, '
          '"sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}')
    w('\n  ],\n  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n' % (rank, world))
    w('  "traceEvents": [\n')
    t = 1_000_000_000 + rank * 1000  # ns; relative clock, baseTimeNanoseconds added below
    gpu_t = t + 50_000
    ext = corr = 0
    facts = {"kernels": 0, "kernel_ns": 0, "comm_kernels": 0, "cpu_ops": 0, "runtime": 0, "steps": steps,
             "step_kernels": []}
    per_step = [kernels // steps + (1 if i < kernels % steps else 0) for i in range(steps)]
    first = True
    for step, nk in enumerate(per_step):
        step_start = t
        step_lines = []
        for _ in range(nk):
            ext += 1
            corr += 1
            comm = facts["kernels"] % 50 == 49
            op = "c10d::allreduce_" if comm else OPS[rnd.randrange(len(OPS))]
            kname = COMM[dialect] if comm else names[rnd.randrange(len(names))]
            op_dur = 8_000 + rnd.randrange(20_000)
            rt_start = t + 2_000 + rnd.randrange(1_000)
            rt_dur = 3_000 + rnd.randrange(3_000)
            kdur = 1_500 + rnd.randrange(60_000)
            k_start = max(gpu_t, rt_start + 4_000) + rnd.randrange(2_000)
            gpu_t = k_start + kdur
            stream = comm_stream if comm else compute_stream
            dims = '[[%d, %d], [%d, %d]]' % (rnd.choice((64, 128, 512)), 1024, 1024, rnd.choice((768, 4096)))
            step_lines.append(
                '  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d, "ts": %s, "dur": %s, '
                '"args": {"External id": %d, "Record function id": 0, "Input Dims": %s, '
                '"Input type": ["c10::BFloat16", "c10::BFloat16"], "Concrete Inputs": ["", ""], "Ev Idx": %d}}'
                % (op, pid, tid, _us(t), _us(op_dur), ext, dims, ext))
            step_lines.append(
                '  {"ph": "X", "cat": "cuda_runtime", "name": "%s", "pid": %d, "tid": %d, "ts": %s, "dur": %s, '
                '"args": {"External id": %d, "cbid": 211, "correlation": %d}}'
                % (launch, pid, tid, _us(rt_start), _us(rt_dur), ext, corr))
            step_lines.append('  {"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"}'
                              % (corr, pid, tid, _us(rt_start)))
            grid = rnd.choice((1, 80, 132, 264, 1024))
            if rocm:
                kargs = ('"External id": %d, "device": %d, "stream": %d, "correlation": %d, "kind": "Dispatch Kernel", '
                         '"grid": [%d, 1, 1], "block": [256, 1, 1]' % (ext, gpu_pid, stream, corr, grid * 256))
            else:
                kargs = ('"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": %d, "correlation": %d, '
                         '"registers per thread": %d, "shared memory": %d, "blocks per SM": %.6f, "warps per SM": '
                         '%.6f, "grid": [%d, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %%": %d'
                         % (ext, stream, corr, rnd.choice((32, 64, 128, 168)), rnd.choice((0, 16384, 49152)),
                            grid / 132, grid * 4 / 132, grid, rnd.randrange(5, 100)))
            step_lines.append(
                '  {"ph": "X", "cat": "kernel", "name": "%s", "pid": %d, "tid": %d, "ts": %s, "dur": %s, "args": {%s}}'
                % (kname, gpu_pid, stream, _us(k_start), _us(kdur), kargs))
            step_lines.append('  {"ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g", '
                              '"bp": "e"}' % (corr, gpu_pid, stream, _us(k_start)))
            facts["kernels"] += 1
            facts["kernel_ns"] += kdur
            facts["comm_kernels"] += comm
            facts["cpu_ops"] += 1
            facts["runtime"] += 1
            t += op_dur + 500
        ext += 1
        step_lines.insert(0, '  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d, '
                             '"ts": %s, "dur": %s, "args": {"External id": %d, "Record function id": 0}}'
                          % (step, pid, tid, _us(step_start), _us(t - step_start), ext))
        facts["step_kernels"].append(nk)
        t += 20_000
        for line in step_lines:
            if not first:
                w(",\n")
            w(line)
            first = False
    w(',\n  {"name": "process_name", "ph": "M", "ts": %s, "pid": %d, "tid": 0, "args": {"name": "python3"}}'
      % (_us(1_000_000_000), pid))
    w('\n  ],\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1700000000000000000\n}\n')
    return facts


def generate(out: str | Path, kernels: int, dialect: str = "cuda", gz: bool = False, ranks: int = 1,
             steps: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    """Write ``ranks`` trace files (``out`` is a file for one rank, a directory for several); return their facts."""
    out = Path(out)
    files = [out] if ranks == 1 else [out / f"rank-{r}.pt.trace.json" for r in range(ranks)]
    if ranks > 1:
        out.mkdir(parents=True, exist_ok=True)
    facts = []
    for r, f in enumerate(files):
        if gz and not f.name.endswith(".gz"):
            f = f.with_name(f.name + ".gz")
        f.parent.mkdir(parents=True, exist_ok=True)
        opener = (lambda p: gzip.open(p, "wt", compresslevel=1)) if gz else (lambda p: open(p, "w"))
        with opener(f) as fh:
            fa = write_trace(fh, kernels, dialect, rank=r, world=ranks, steps=steps, seed=seed)
        facts.append({"path": str(f), **fa})
    return facts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=int, default=100_000, help="kernels per rank")
    ap.add_argument("--dialect", choices=("cuda", "rocm"), default="cuda")
    ap.add_argument("--gzip", action="store_true", help="write .json.gz")
    ap.add_argument("--ranks", type=int, default=1, help="ranks (a directory of files when > 1)")
    ap.add_argument("--steps", type=int, default=10, help="ProfilerStep annotations per rank")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="output file (one rank) or directory (several)")
    a = ap.parse_args(argv)
    facts = generate(a.out, a.kernels, a.dialect, a.gzip, a.ranks, a.steps, a.seed)
    json.dump(facts, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
