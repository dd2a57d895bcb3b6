"""Classes 2 and 4 of issue 13: communication, copies and fills recorded as kernels (rule table in _work_rules).

Inputs are written inline. Expected kinds come from the kernel-name sources cited in the rule table (the names are
spelled as those projects spell them); times are read off the events written here (µs × 1000 = ns).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.collectors._work_rules import KERNEL_NAME_RULES, LAUNCHER_RULES, kind_of_kernel_name
from tests.conftest import SHARED

CASES = SHARED.parent / "cases"


@pytest.mark.parametrize("name,kind", [
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "comm"),
    ("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "comm"),
    ("void rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)", "comm"),
    ("mscclKernel_Sum_float_LL", "comm"),
    ("void mscclpp::allreduce6<float>(float*, ...)", "comm"),
    ("void nvshmemi_transfer_rma_nbi_kernel<...>", "comm"),
    ("void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16, 8>(...)", "comm"),
    ("void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16, 4>(...)", "comm"),
    ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(...)", "comm"),
    ("void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(...)", "comm"),
    ("void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(...)", "comm"),
    ("void deep_ep::intranode::dispatch<8, 768>(...)", "comm"),
    ("__amd_rocclr_copyBuffer", "memcpy"),
    ("__amd_rocclr_copyBufferAligned", "memcpy"),
    ("__amd_rocclr_copyBufferRect", "memcpy"),
    ("__amd_rocclr_fillBufferAligned", "memset"),
    ("Memcpy DtoD (Device -> Device)", "memcpy"),
    ("Memset (Device)", "memset"),
    # compute kernels whose names share words with the rules stay computation
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, ...>>", "kernel"),
    ("triton_red_fused_sum_0", "kernel"),
    ("Cijk_Alik_Bljk_BBS_BH_MT128x128x64", "kernel"),
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm>", "kernel"),
])
def test_kernel_name_rules(name, kind):
    assert kind_of_kernel_name(name) == kind


def test_fsdp_copy_in_is_not_communication():
    from gpulens.collectors._work_rules import is_comm_launcher

    # FSDP2 packs the all-gather input with a copy kernel under fsdp::all_gather_copy_in: computation, not comm
    assert not is_comm_launcher("fsdp::all_gather_copy_in") and not is_comm_launcher("aten::mm")
    assert is_comm_launcher("c10d::allgather_") and is_comm_launcher("sgl_kernel::all_reduce")


def test_every_rule_cites_a_source():
    for r in KERNEL_NAME_RULES + LAUNCHER_RULES:
        # "sync": HIP stream wait/write operations (__amd_rocclr_streamOps*), synchronisation on a GPU queue
        assert r.source and r.family and r.kind in {"comm", "memcpy", "memset", "sync"}


def _trace(tmp_path: Path, events: list) -> Path:
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return p


def _op(name, ext, ts, dur):  # (ts 0 would be rejected as "never recorded": times start at 1000 µs)
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 10, "tid": 10, "ts": 1000 + ts, "dur": dur,
            "args": {"External id": ext}}


def _launch(corr, ext, ts):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1000 + ts, "dur": 1,
            "args": {"correlation": corr, "External id": ext}}


def _kernel(name, corr, ts, dur, **args):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 1000 + ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr, **args}}


@pytest.mark.parametrize("op", ["symm_mem::one_shot_all_reduce", "record_param_comms", "c10d::allreduce_",
                                "_c10d_functional::all_reduce", "nccl:all_reduce", "vllm::_all_reduce_impl",
                                "_C_custom_ar::all_reduce", "sgl_kernel::all_reduce", "trtllm::allreduce"])
def test_kernel_launched_under_a_communication_op_is_comm(tmp_path, op):
    # a generically named kernel (20 µs) launched by `op`, and a GEMM (30 µs) under aten::mm
    events = [_op(op, 1, 0, 10), _launch(100, 1, 2), _op("aten::mm", 2, 20, 10), _launch(101, 2, 22),
              _kernel("vectorized_elementwise_kernel", 100, 50, 20), _kernel("gemm_kernel", 101, 80, 30)]
    tl = collect(_trace(tmp_path, events))
    kinds = dict(zip(tl.gpu_events()["name"], tl.gpu_events()["kind"]))
    assert kinds == {"vectorized_elementwise_kernel": "comm", "gemm_kernel": "kernel"}
    assert tl.meta.sources[0]["comm_by_launcher"] == 1


def test_kernel_carrying_the_external_id_of_a_comm_op_is_comm(tmp_path):
    # no runtime call recorded; the kernel itself carries External id 5 of a record_param_comms op
    events = [_op("record_param_comms", 5, 0, 10), _kernel("custom_kernel", 900, 20, 10, **{"External id": 5})]
    tl = collect(_trace(tmp_path, events))
    assert list(tl.gpu_events()["kind"]) == ["comm"]


def test_communication_kernels_count_as_comm_in_the_breakdown(tmp_path):
    # 20 µs symm-mem all-reduce alone, then a 30 µs GEMM: computation 30 µs, exposed communication 20 µs
    events = [_op("symm_mem::one_shot_all_reduce", 1, 0, 10), _launch(100, 1, 2),
              _kernel("multimem_all_reduce_kernel", 100, 50, 20), _kernel("gemm_kernel", 101, 80, 30)]
    s = gpulens.analyze([_trace(tmp_path, events)]).sources[0].summary
    assert s["computation_ns"] == 30_000 and s["exposed_comm_ns"] == 20_000


def test_amd_dispatch_tables_use_the_same_rules(tmp_path):
    # rocprofv3 kernel trace with a HIP blit copy kernel and an RCCL kernel among compute kernels
    p = tmp_path / "kernel_trace.csv"
    p.write_text('"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
                 '"KERNEL_DISPATCH",1,1,1,"__amd_rocclr_copyBuffer",1000,3000\n'
                 '"KERNEL_DISPATCH",1,1,2,"__amd_rocclr_fillBufferAligned",3000,3500\n'
                 '"KERNEL_DISPATCH",1,1,3,"ncclDevKernel_AllReduce_Sum_f32_RING_LL",4000,9000\n'
                 '"KERNEL_DISPATCH",1,1,4,"Cijk_Alik_Bljk_HHS_BH_MT64x64x32",9000,12000\n')
    ev = collect(p).events.set_index("name")
    assert ev["kind"].to_dict() == {"__amd_rocclr_copyBuffer": "memcpy", "__amd_rocclr_fillBufferAligned": "memset",
                                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL": "comm",
                                    "Cijk_Alik_Bljk_HHS_BH_MT64x64x32": "kernel"}


def test_case_t05_rocclr_blit_kernels():
    p = CASES / "T05.json"
    if not p.exists():
        pytest.skip("shared case T05 not present")
    src = gpulens.analyze([p]).sources[0]
    b = src.results["breakdown"].summary
    # README T05: compute 100,000 ns; copies 20,000 + 15,000; fill 5,000; busy = span = 140,000 ns
    assert b["computation_ns"] == 100_000
    assert b["exposed_memcpy_ns"] + b["exposed_memset_ns"] == 40_000
    assert b["busy_ns"] == b["span_ns"] == 140_000
    tl = collect(p)
    assert tl.of_kind("memcpy")["dur_ns"].sum() == 35_000 and len(tl.of_kind("memcpy")) == 2
    assert list(tl.of_kind("memset")["name"]) == ["__amd_rocclr_fillBufferAligned"]


def test_pairs_in_is_tuple_membership():
    """(rank, id) membership on a packed integer key equals the membership of the tuples themselves, for small and
    huge ids (the latter do not pack into 62 bits and take the MultiIndex path) and repeated or negative values."""
    import numpy as np

    from gpulens.collectors._work_rules import _pairs_in

    rng = np.random.default_rng(3)
    for lo, hi in ((0, 50), (-7, 7), (-(2 ** 62), 2 ** 62)):
        ra, rb = rng.integers(0, 4, 3000), rng.integers(0, 4, 500)
        ia, ib = rng.integers(lo, hi, 3000), rng.integers(lo, hi, 500)
        ia[:500] = ib  # some pairs present with the same id on the same or another rank
        ra[:250] = rb[:250]
        pairs = set(zip(rb.tolist(), ib.tolist()))
        expected = [(r, i) in pairs for r, i in zip(ra.tolist(), ia.tolist())]
        assert _pairs_in(ra, ia, rb, ib).tolist() == expected
    assert _pairs_in(np.array([1]), np.array([2]), np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == [False]
