"""What kind of work a GPU kernel is: the rules, as data, with their sources.

Every collector records some GPU activities as *kernels* that are really communication, copies or fills. Two tables
decide it, one place for every source format (Kineto, rocprof/rocprofv3/rocpd, Nsight Systems):

* :data:`KERNEL_NAME_RULES` — by the kernel's own name (first matching rule wins; case-insensitive regular
  expressions searched anywhere in the name unless anchored);
* :data:`LAUNCHER_RULES` — by the CPU op that launched it (Kineto: the ``cpu_op`` whose ``External id`` the kernel
  or its launching runtime call carries). A kernel launched under a communication op is communication whatever its
  name (e.g. PyTorch symmetric-memory and custom all-reduce kernels with generic names).

Only ``kernel`` rows are re-labelled: a row a source already calls a copy, set or collective keeps its kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pandas as pd

from gpulens.units import plural


@dataclass(frozen=True)
class Rule:
    """One classification rule.

    Attributes:
        kind: Timeline kind the matching kernel becomes (``comm``, ``memcpy``, ``memset``, ``sync``).
        pattern: case-insensitive regular expression (``re.search``).
        family: what it recognises (shown in docs and warnings).
        source: where the names come from (so a reviewer can check the pattern).
        blit: the names are real GPU kernels of a vendor runtime that do a copy or fill (HIP's
            ``__amd_rocclr_copyBuffer``…, "blit kernels"), not a copy engine's operation named as a kernel: a
            vendor's own per-kernel summary counts them as kernels, gpulens as copies and fills, and says so
            (:func:`blit_kernel_rows`).
    """

    kind: str
    pattern: str
    family: str
    source: str
    blit: bool = False


KERNEL_NAME_RULES: tuple[Rule, ...] = (
    Rule("memcpy", r"^memcpy", "copy recorded as a kernel (Kineto `Memcpy HtoD (…)` names)",
         "pytorch/kineto libkineto/src/output_json.cpp (memcpy names); pytorch/kineto PR#1295 (ROCm copies as kernels)"),
    Rule("memset", r"^memset", "memory set recorded as a kernel", "pytorch/kineto libkineto/src/output_json.cpp"),
    Rule("memcpy", r"^copy(host|device)to(host|device)\b|^\[?\s*cuda memcpy|^(cuda|cu|hip)(drv)?memcpy",
         "copies under their tracer's operation name (roctracer CopyHostToDevice…, nvprof/nsys [CUDA memcpy HtoD], "
         "nvprof CSV and older nsys reports without brackets: CUDA memcpy DtoD) or under the API call that enqueued "
         "them (rocprof / roctracer copy records named hipMemcpyDtoD, hipMemcpyAsync…)",
         "rocprof v1 COPY track names (ROCm/rocprofiler tblextr.py); nsys stats cuda_gpu_mem_time_sum operations; "
         "nvprof --print-gpu-trace names (CUDA memcpy HtoD); HIP API names (hip_runtime_api.h hipMemcpy*)"),
    Rule("memset", r"^fillbuffer\b|^\[?\s*cuda memset|^(cuda|cu|hip)(drv)?memset",
         "fills under their tracer's operation name (roctracer FillBuffer, [CUDA memset], CUDA memset) or under the "
         "API call that enqueued them (hipMemsetAsync, hipMemsetD32…)",
         "rocprof v1 COPY track names; nsys stats cuda_gpu_mem_time_sum operations; nvprof --print-gpu-trace "
         "names; HIP API names (hip_runtime_api.h hipMemset*)"),
    Rule("memcpy", r"^memory_copy_", "rocprofiler-sdk copy operations recorded as kernels (ROCm 7.1 Kineto: "
         "cat=kernel, MEMORY_COPY_HOST_TO_DEVICE / _DEVICE_TO_HOST / _DEVICE_TO_DEVICE)",
         "rocprofiler-sdk ROCPROFILER_MEMORY_COPY_* operation names; pytorch/kineto PR#1295; "
         "AMD-AGI/TraceLens PR#613 (_ROCM_LEGACY_MEMCPY_NAMES)"),
    Rule("memcpy", r"^__amd_rocclr_copy(Buffer|Image)", "HIP runtime blit copy kernels (ROCm 7.x: cat=kernel)",
         "ROCm/clr rocclr/device/blitcl.cpp (__amd_rocclr_copyBuffer, copyBufferAligned, copyBufferRect, "
         "copyImage…); AMD-AGI/TraceLens PR#613", blit=True),
    Rule("memset", r"^__amd_rocclr_fill(Buffer|Image)", "HIP runtime blit fill kernels",
         "ROCm/clr rocclr/device/blitcl.cpp (__amd_rocclr_fillBuffer, fillBufferAligned, fillImage)", blit=True),
    Rule("memset", r"^__amd_rocclr_(initHeap|gwsInit|scheduler|graphScheduler)\b|^gwsInit(\.kd)?$",
         "HIP runtime set-up kernels: the device-side heap's initialisation (initHeap, launched once before the first "
         "kernel that may call malloc), the global wave sync counter's (gwsInit) and the runtime's device-side "
         "schedulers (scheduler, graphScheduler) — runtime work on the GPU, counted with the runtime's fills, "
         "not computation",
         "ROCm/clr rocclr/device/rocm/rocblit.cpp (BlitName: __amd_rocclr_scheduler, __amd_rocclr_gwsInit, "
         "__amd_rocclr_initHeap) and rocblitcl.cpp (__kernel __amd_rocclr_initHeap: __ockl_dm_init_v1; "
         "__amd_rocclr_gwsInit: ds_gws_init; __amd_rocclr_graphScheduler); rocclr/device/rocm/rocschedcl.cpp "
         "(the older bare gwsInit); rocprofv3 kernel traces list __amd_rocclr_initHeap as dispatch 1", blit=True),
    Rule("sync", r"^__amd_rocclr_(streamOps(Wait|Write|Increment|Decrement)|batchMemOp)",
         "HIP runtime stream-operation kernels: a GPU-queue wait on, write, increment or decrement of a memory value "
         "(hipStreamWaitValue32/64, hipStreamWriteValue32/64, hipStreamBatchMemOp), synchronisation, not "
         "computation",
         "ROCm/clr rocclr/device/rocm/rocblitcl.cpp (__kernel __amd_rocclr_streamOpsWait / streamOpsWrite, "
         "wrappers of __amd_streamOpsWait/Write) and rocclr/device/rocm/rocblit.cpp (KernelBlitManager::"
         "streamOpsWait: 'waits for a value at memory'; BlitName: __amd_rocclr_batchMemOp; rocblitcl.cpp "
         "__amd_rocclr_streamOpsIncrement / streamOpsDecrement); symbols listed in AMD-AGI/TraceLens "
         "tests/rocprof/908_results.json.gz"),
    Rule("comm", r"nccl", "NCCL (ncclKernel_*, ncclDevKernel_*)", "NVIDIA/nccl src/device/common.h kernel names"),
    Rule("comm", r"rccl", "RCCL", "ROCm/rccl src/device kernel names"),
    Rule("comm", r"msccl", "MSCCL / MSCCL++ (mscclKernel_*, mscclpp::…)",
         "microsoft/msccl-executor-nccl src/device; microsoft/mscclpp include/mscclpp"),
    Rule("comm", r"nvshmem", "NVSHMEM device kernels (nvshmemi_*, nvshmem_*)", "NVIDIA NVSHMEM API documentation"),
    Rule("comm", r"multimem_(all_reduce|all_gather|reduce_scatter)|(one|two)_shot_all_reduce|symm_mem",
         "PyTorch symmetric memory (multimem_all_reduce_kernel, one_shot_all_reduce_kernel, …)",
         "pytorch/pytorch torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu"),
    Rule("comm", r"cross_device_reduce_\d?stage|custom_?all_?reduce|(one|two)shot_?all_?reduce|"
                 r"all_?reduce_?fusion_?kernel|quick_?all_?reduce|allreduce_prototype",
         "custom all-reduce of inference engines (vLLM/SGLang cross_device_reduce_1stage/2stage, TensorRT-LLM "
         "oneShotAllReduceKernel/twoShotAllReduceKernel/allReduceFusionKernel, vLLM ROCm QuickReduce)",
         "vllm-project/vllm csrc/custom_all_reduce.cuh, csrc/quickreduce; NVIDIA/TensorRT-LLM "
         "cpp/tensorrt_llm/kernels/customAllReduceKernels.cu"),
    Rule("comm", r"(deep_?ep|dpsk::ep)::(?!(\w+::)*get_dispatch_layout\b)|"
                 r"\b(intranode|internode(_ll)?)::(\w*notify\w*|dispatch|combine|barrier)\b",
         "DeepEP expert-parallel all-to-all: its dispatch/combine kernels and the notify/barrier kernels that "
         "exchange token counts and synchronise the ranks (notify_dispatch, cached_notify, cached_notify_dispatch, "
         "cached_notify_combine, barrier), under DeepEP's public namespace deep_ep:: or the dpsk::ep:: of "
         "DeepSeek's own build; get_dispatch_layout counts tokens per rank and expert locally (no peer access) "
         "and stays computation",
         "deepseek-ai/DeepEP csrc/kernels/intranode.cu, internode.cu, internode_ll.cu (__global__ kernels), "
         "csrc/kernels/legacy/layout.cu (get_dispatch_layout); deepseek-ai/profile-data train.json "
         "(dpsk::ep::internode::cached_notify / notify_dispatch, dpsk::ep::cuda::get_dispatch_layout)"),
)

LAUNCHER_RULES: tuple[Rule, ...] = (
    Rule("comm", r"^record_param_comms$", "PyTorch c10d collective record (Kineto)",
         "pytorch/pytorch torch/csrc/distributed/c10d/ParamCommsUtils.hpp (RECORD_PARAM_COMMS)"),
    Rule("comm", r"(^|_)c10d(_functional)?::", "c10d ops (c10d::allreduce_, _c10d_functional::all_reduce, …)",
         "pytorch/pytorch torch/csrc/distributed/c10d/Ops.cpp, Functional.cpp"),
    Rule("comm", r"^nccl:", "ProcessGroupNCCL profiling ranges (nccl:all_reduce, nccl:send …)",
         "pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (profilingTitle)"),
    Rule("comm", r"^(gloo|ucc|mpi|xccl):", "other process-group backends' ranges",
         "pytorch/pytorch ProcessGroupGloo.cpp, ProcessGroupUCC.cpp, ProcessGroupMPI.cpp"),
    Rule("comm", r"symm_mem", "PyTorch symmetric-memory ops (symm_mem::one_shot_all_reduce, …)",
         "pytorch/pytorch torch/csrc/distributed/c10d/symm_mem/SymmetricMemory.cpp (TORCH_LIBRARY symm_mem)"),
    Rule("comm", r"(_|::)(all_?reduce|all_?gather(?!_copy)|reduce_?scatter|all_?to_?all)|custom_ar::",
         "custom collectives of inference engines (vllm::all_reduce, _C_custom_ar::all_reduce, "
         "sgl_kernel::all_reduce, trtllm::allreduce)",
         "vllm-project/vllm vllm/distributed/device_communicators/custom_all_reduce.py; sgl-project/sglang "
         "sgl-kernel; NVIDIA/TensorRT-LLM tensorrt_llm/_torch/distributed/ops.py"),
)

#: Names AMD tracers give GPU-queue records that are not work: AQL barrier-AND/OR packets (rocprof v1 with kernel
#: tracing writes them as ``<barrier packet>`` rows of ``results.csv`` / ``results.stats.csv``), ROCclr marker
#: commands (roctracer's ``Marker``) and commands roctracer cannot name (``Unknown command type``, 0 ns records on the
#: GPU track of ROCm 4 ``results.json``). They are not kernel launches: a collector leaves them out and counts them.
NON_WORK_RULE = Rule("none", r"^\s*(<\s*barrier[ _-]?(and|or)?[ _-]?packet\s*>|barrier[ _-]?(and|or)?[ _-]?packet|"
                             r"marker|unknown command type)\s*(\[clone \.kd\]|\.kd)?\s*$",
                     "AQL barrier packets, ROCclr markers and unnamed commands on a GPU queue (no work)",
                     "ROCm/rocprofiler (v1) tblextr.py and ROCm/roctracer hcc_ops records ('Marker'); "
                     "ROCm/clr hipamd activity names ('Unknown command type'); rocprof v1 results.stats.csv rows "
                     "'<barrier packet>'")
NON_WORK_REASON = "barrier or marker packet on a GPU queue (no work)"

#: Reasons of refused rows whose time the input does not hold at all — no ``ts``/``dur`` key (Kineto), empty timestamp
#: cells (rocprofv3/rocprof CSV), a NULL ``end`` or ``start`` (Nsight Systems). The work ran; when and for how long
#: is unknown (:func:`gpulens.analyzers._unknown_time.untimed_gpu_rows` counts such GPU rows as untimed launches).
#: Rows with an impossible time — zero placeholders (``ts=0, dur=0``, pytorch/kineto#109), an end before the start,
#: a start or duration no clock can hold — are corrupt records: refused and counted in a warning, never launches.
MISSING_TS_OR_DUR = "missing ts or dur"
NO_TIMESTAMPS = "no timestamps recorded"
NO_END = "start recorded, no end timestamp"  # a row with its start cell and an empty end cell: it ran, length unknown
NEVER_CLOSED = "range never closed"
START_UNKNOWN = "start unknown"
ABSENT_TIME_REASONS = frozenset({MISSING_TS_OR_DUR, NO_TIMESTAMPS, NO_END, NEVER_CLOSED, START_UNKNOWN})
_NON_WORK_RE = re.compile(NON_WORK_RULE.pattern, re.IGNORECASE)
_GPU_WORK_KINDS = ("kernel", "comm", "memcpy", "memset")  # timeline.schema.GPU_KINDS


def refused_warnings(path: object, kinds: Iterable[object], reasons: Iterable[object], timed_gpu: bool) -> list[str]:
    """The warnings of a reader's refused rows, in words that match what is done with them.

    GPU rows (kernel, comm, memcpy, memset) whose time the input does not hold (:data:`ABSENT_TIME_REASONS`: a Kineto
    kernel without ``dur``, or a ``dur`` of NaN; an nsys row with a NULL ``end``) in an input with timed GPU work are
    not excluded: the analyses count them as untimed launches
    (:func:`gpulens.analyzers._unknown_time.untimed_gpu_rows`) — run, with an unknown time. Every other refused
    row (a corrupt time, a host event without one) is excluded. Returns up to two sentences, each with its count and
    reasons (``reason ×n``); none when nothing was refused.

    Args:
        path: the input, named at the start of each sentence.
        kinds, reasons: per refused row, its kind and reason (``timeline.rejected`` columns).
        timed_gpu: whether the input holds GPU work with a recorded time (else its untimed rows are a counter-only
            input's, not launches, and count as excluded).
    """
    k = pd.Series(list(kinds), dtype=object).astype(str)
    r = pd.Series(list(reasons), dtype=object).astype(str)
    kept = (k.isin(_GPU_WORK_KINDS) & r.isin(ABSENT_TIME_REASONS)) if timed_gpu else pd.Series(False, index=r.index)
    out = []

    def counts(rows: pd.Series) -> str:
        return ", ".join(f"{a} ×{b}" for a, b in r[rows].value_counts().items() if b)

    if kept.any():
        out.append(f"{path}: {plural(int(kept.sum()), 'GPU event(s)')} without a recorded time kept as untimed "
                   f"launches (counted; when and for how long they ran is unknown): {counts(kept)}")
    if (~kept).any():
        out.append(f"{path}: {plural(int((~kept).sum()), 'invalid event(s)')} excluded: {counts(~kept)}")
    return out


def is_non_work(names: Iterable[object]) -> np.ndarray:
    """Per name: True for a record that is a barrier/marker packet, not work (:data:`NON_WORK_RULE`); each distinct
    name is matched once."""
    s = names.astype(object) if isinstance(names, pd.Series) else pd.Series(list(names), dtype=object)
    codes, uniq = pd.factorize(s, use_na_sentinel=True)
    table = np.array([isinstance(u, str) and bool(_NON_WORK_RE.match(u)) for u in uniq] + [False], dtype=bool)
    return table[np.where(codes >= 0, codes, len(uniq))]


_NAME_RES = [(r.kind, re.compile(r.pattern, re.IGNORECASE)) for r in KERNEL_NAME_RULES]
_LAUNCHER_RES = [re.compile(r.pattern, re.IGNORECASE) for r in LAUNCHER_RULES]


def kind_of_kernel_name(name: str) -> str:
    """``kernel``, or the kind a rule of :data:`KERNEL_NAME_RULES` gives a kernel of this name."""
    if not isinstance(name, str):
        return "kernel"
    for kind, rx in _NAME_RES:
        if rx.search(name):
            return kind
    return "kernel"


def kinds_of_kernel_names(names: Iterable[object]) -> np.ndarray:
    """:func:`kind_of_kernel_name` of each name (object array), classifying each distinct name once; a missing name
    is ``kernel``."""
    s = names.astype(object) if isinstance(names, pd.Series) else pd.Series(list(names), dtype=object)
    codes, uniq = pd.factorize(s, use_na_sentinel=True)
    table = np.array([kind_of_kernel_name(u) for u in uniq] + ["kernel"], dtype=object)
    return table[np.where(codes >= 0, codes, len(uniq))]  # the missing code maps to the appended "kernel"


_BLIT_RES = [re.compile(r.pattern, re.IGNORECASE) for r in KERNEL_NAME_RULES
             if r.blit and r.kind in ("memcpy", "memset")]


def blit_kernel_rows(names: Iterable[object]) -> np.ndarray:
    """Per name: whether it is a vendor runtime's copy or fill *kernel* (a :data:`KERNEL_NAME_RULES` rule with
    ``blit``: ``__amd_rocclr_copyBuffer``, ``__amd_rocclr_fillBufferAligned``, ``__amd_rocclr_initHeap``…) that
    gpulens counts as a memory copy or fill while the vendor's per-kernel summary (rocprof ``results.stats.csv``,
    rocprofv3 ``kernel_stats.csv``) counts it as a kernel; a missing name is not. Each distinct name is matched
    once. Returns a bool array."""
    s = names.astype(object) if isinstance(names, pd.Series) else pd.Series(list(names), dtype=object)
    codes, uniq = pd.factorize(s, use_na_sentinel=True)
    table = np.array([isinstance(u, str) and any(rx.search(u) for rx in _BLIT_RES) for u in uniq] + [False])
    return table[np.where(codes >= 0, codes, len(uniq))]


def dispatch_rows(events: pd.DataFrame) -> np.ndarray:
    """Rows that come from a kernel-dispatch table: kernels and collectives, and the dispatches the kind rules made
    copies, fills or stream operations (HIP blit kernels ``__amd_rocclr_copyBuffer``, ``__amd_rocclr_streamOpsWait``…,
    see :mod:`._work_rules`)."""
    kind = events["kind"]
    blit = kind.isin(["memcpy", "memset", "sync"]).to_numpy().copy()
    if blit.any():
        blit[blit] = kinds_of_kernel_names(events["name"][blit]) != "kernel"
    return kind.isin(["kernel", "comm"]).to_numpy() | blit


def is_comm_launcher(op_name: str) -> bool:
    """True when a CPU op of this name launches communication (:data:`LAUNCHER_RULES`)."""
    return isinstance(op_name, str) and any(rx.search(op_name) for rx in _LAUNCHER_RES)


def _pairs_in(ra: np.ndarray, ia: np.ndarray, rb: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Per row of ``(ra, ia)``: whether the pair (rank, id) is one of the pairs ``(rb, ib)`` (int64 arrays) — what
    ``MultiIndex.isin`` answers, on one packed int64 key (dense rank code × id span + id offset) when it fits, so
    that numpy compares integers instead of pandas hashing tuples of a million rows."""
    if not len(rb) or not len(ra):
        return np.zeros(len(ra), dtype=bool)
    # the rank code: a row's place among the few ranks of (rb, ib) — found by a binary search in them, not by
    # hashing the ranks of every row (a row of another rank matches nothing)
    ranks = np.unique(rb)
    at = np.minimum(np.searchsorted(ranks, ra), len(ranks) - 1)
    known = ranks[at] == ra
    lo, hi = int(min(ia.min(), ib.min())), int(max(ia.max(), ib.max()))
    if (hi - lo + 1) * len(ranks) < 2 ** 62:
        span = hi - lo + 1
        key_b = np.searchsorted(ranks, rb).astype(np.int64) * span + (ib - lo)
        return known & np.isin(at.astype(np.int64) * span + (ia - lo), key_b)
    return pd.MultiIndex.from_arrays([ra, ia]).isin(pd.MultiIndex.from_arrays([rb, ib]))


def relabel_by_launcher(events: pd.DataFrame) -> int:
    """Kernels launched under a communication CPU op become ``comm``; returns how many changed (in place).

    A kernel is linked to its op by ``(rank, external_id)`` directly, or through its launching runtime call:
    kernel ``(rank, correlation_id)`` → runtime call → its ``external_id`` → ``cpu_op``.
    """
    kind = events["kind"]
    kern = (kind == "kernel").to_numpy()
    has_ext = events["external_id"].notna().to_numpy()
    ops = (kind == "cpu_op").to_numpy() & has_ext
    if not kern.any() or not ops.any():
        return 0
    names = events["name"]
    if isinstance(names.dtype, pd.CategoricalDtype):  # only the names CPU ops use (kernel names are many more)
        codes = np.unique(names.cat.codes.to_numpy()[ops])
        cats = names.cat.categories[codes[codes >= 0]]
    else:
        cats = names[ops].unique()
    comm_names = {c for c in cats if is_comm_launcher(c)}
    if not comm_names:
        return 0
    # the key columns are read on row subsets only (no frame or whole column is copied)
    rank, ext, corr = events["rank"], events["external_id"], events["correlation_id"]
    has_corr = corr.notna().to_numpy()

    def at(values: pd.Series, rows: np.ndarray) -> np.ndarray:
        return values.array[rows].to_numpy(dtype="int64")

    comm_ops = ops & events["name"].isin(comm_names).to_numpy()
    op_r, op_e = at(rank, comm_ops), at(ext, comm_ops)
    rt = (kind == "runtime").to_numpy() & has_ext & has_corr
    rt[rt] = _pairs_in(at(rank, rt), at(ext, rt), op_r, op_e)
    hit = np.zeros(len(kern), dtype=bool)
    for c, ok, kr, kv in ((ext, has_ext, op_r, op_e), (corr, has_corr, at(rank, rt), at(corr, rt))):
        rows = kern & ok
        if rows.any() and len(kr):
            hit[rows] |= _pairs_in(at(rank, rows), at(c, rows), kr, kv)
    if not hit.any():
        return 0
    idx = events.index[hit]
    if "comm" not in events["kind"].cat.categories:
        events["kind"] = events["kind"].cat.add_categories(["comm"])
    events.loc[idx, "kind"] = "comm"
    return int(hit.sum())
