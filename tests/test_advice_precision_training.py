"""Advice that names what the kernel already does (issue class: conclusions that contradict the numbers beside
them). Found on public TraceLens traces: an H100 ``sm90_xmma_gemm_bf16bf16…`` GEMM (bf16 on tensor cores, per its
roofline row) was told to "use tensor cores at a lower precision (TF32, BF16, FP8)"; a B200 vLLM inference trace
(MoE forward, no backward pass) was told to overlap its all-reduce "during backward (DDP gradient bucketing, FSDP
prefetch)". Expected sentences are checked for what they must and must not name; traces are hand-made."""

from __future__ import annotations

import pytest

from gpulens.analyzers import _advice
from gpulens.analyzers.verdict_rules import Evidence, steps_for
from gpulens.report import analyze
from tests.advice_premises import premise_violations
from tests.dig_traces import KTrace


def _gemm(precision, roof):
    return Evidence("cutlass_gemm", "kernel", 10, 1_000_000, family="gemm", library=True, pytorch=True,
                    precision=precision, compute_roof=roof)


def test_bf16_tensor_core_gemm_is_told_fp8_not_tf32_or_bf16():
    steps = steps_for("compute-bound", _gemm("bf16", "matrix.bf16"))
    assert "FP8" in steps[0] and "TF32" not in steps[0] and "already runs at BF16" in steps[0]
    assert premise_violations("compute-bound", steps, _gemm("bf16", "matrix.bf16")) == []


def test_fp8_gemm_gets_no_precision_advice():
    steps = steps_for("compute-bound", _gemm("fp8", "matrix.fp8"))
    assert not any("precision" in s.lower() or "FP8" in s for s in steps)
    assert steps == ["Cut the FLOPs: avoid recomputation, pick a cheaper algorithm or shape."]


def test_fp32_gemm_on_vector_units_is_told_to_use_tensor_cores():
    steps = steps_for("compute-bound", _gemm("fp32", "vector.fp32"))
    assert "vector units" in steps[0] and "tensor cores" in steps[0]


def test_generic_sentence_is_kept_when_the_precision_is_unknown():
    steps = steps_for("compute-bound", _gemm(None, None))
    assert steps[0].startswith("Use tensor cores / MFMA at a lower precision")


def test_memory_bound_bf16_kernel_is_not_told_bf16():
    e = Evidence("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>",
                 "kernel", 4, 40_000, family="elementwise", pytorch=True)
    steps = steps_for("memory-bound", e)
    assert "FP8" in steps[1] and "BF16" not in steps[1]
    e.name = "void f<float>"
    assert "narrower dtypes (BF16/FP8)" in steps_for("memory-bound", e)[1]


@pytest.mark.parametrize("name,prec", [("ampere_fp16_s16816gemm_fp16_128x128", "fp16"),
                                       ("cutlass_80_tensorop_bf16_s16816gemm_relu", "bf16"),
                                       ("fmhaSm100aKernel_QkvE4m3OBfloat16H64", "fp8"),
                                       ("sgemm_128x64_nn", None), ("elementwise<float>", None)])
def test_name_precision_reads_the_type_the_kernel_name_spells(name, prec):
    assert _advice.name_precision(name) == prec


def _comm_trace(tmp_path, training: bool):
    """One forward op launching a GEMM then an NCCL all-reduce (exposed: nothing runs beside it); with
    ``training`` a backward op (``MmBackward0``, autograd's name for mm's backward) launches one more GEMM."""
    t = KTrace()
    e = t.op("aten::mm", 100.0, 20)
    t.launch(e, 105.0, [("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 200.0, 50.0)])
    e = t.op("c10d::allreduce_", 130.0, 20)
    t.launch(e, 135.0, [("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 260.0, 400.0)])
    if training:
        e = t.op("MmBackward0", 700.0, 20)
        t.launch(e, 705.0, [("sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n", 710.0, 50.0)])
    return t.write(tmp_path / f"comm_{training}.json")


@pytest.mark.parametrize("training", [False, True])
def test_collective_advice_follows_training_or_inference(tmp_path, training):
    s = analyze([_comm_trace(tmp_path, training)]).sources[0]
    assert _advice.trains(s.timeline) is training
    v = s.results["verdicts"].table
    row = v[v["verdict"] == "communication-bound"].iloc[0]
    text = " ".join(row["next_steps"])
    exposed = [f for f in s.findings() if f.title.startswith("Exposed communication")]
    assert exposed
    if training:
        assert "during backward" in text and "during backward" in exposed[0].detail
    else:
        assert "backward" not in text and "DDP" not in text and "FSDP" not in text
        assert "backward" not in exposed[0].detail and "forward pass" in exposed[0].detail


def test_program_without_pytorch_has_no_training_answer(tmp_path):
    from gpulens.collectors import collect

    from .conftest import DATA

    tl = collect(DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv", cache=False)
    assert _advice.trains(tl) is None


def test_point_to_point_collective_is_not_told_ddp_bucketing():
    """HTA's 2-rank trace: ncclKernel_SendRecv_RING_SIMPLE (pipeline send/recv) was told "start it during backward
    (DDP gradient bucketing, FSDP prefetch)" — bucketing concerns all-reduce of gradients, not point-to-point."""
    e = Evidence("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "comm", 10, 1_000_000, pytorch=True, training=True)
    steps = steps_for("communication-bound", e)
    assert not any("DDP" in s or "bucket" in s or "FSDP" in s for s in steps)
    assert "micro-batches" in steps[0]
    e.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    assert "DDP gradient bucketing" in steps_for("communication-bound", e)[0]

