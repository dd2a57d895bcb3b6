"""Autograd nodes take the category of the forward op they differentiate (analyzers/_categories.py docstring).

Expected values: the forward op each node differentiates, by PyTorch's naming of autograd nodes
(``<Op>Backward<N>`` for ATen op ``op``, torch/csrc/autograd/generated/Functions.h), categorised by the table of
rules — written out here by hand, not computed with the code under test.
"""

from __future__ import annotations

import pytest

from gpulens.analyzers._categories import op_category
from tests.conftest import shared_trace

CASES = [
    ("ConvolutionBackward0", "GEMM"),  # aten::convolution
    ("autograd::engine::evaluate_function: ConvolutionBackward0", "GEMM"),  # the engine's wrapper of the node
    ("CudnnConvolutionBackward", "GEMM"),  # PyTorch 1.8's node name, no version suffix
    ("AddmmBackward0", "GEMM"),
    ("MmBackward0", "GEMM"),
    ("CudnnBatchNormBackward0", "normalisation"),
    ("NativeLayerNormBackward0", "normalisation"),  # aten::native_layer_norm
    ("ScaledDotProductFlashAttentionBackward0", "attention"),
    ("MulBackward0", "elementwise"),
    ("ToCopyBackward0", "copy"),  # aten::_to_copy
    ("All2All_Pooled_WaitBackward", "communication"),  # torchrec's all-to-all wait
    ("CompiledFunctionBackward", "other"),  # a torch.compile graph: any kind of work
    ("EmbeddingBackward0", "other"),
    ("ViewBackward0", "other"),
    ("torch::jit::(anonymous namespace)::DifferentiableGraphBackward", "other"),
]


@pytest.mark.parametrize("name,expected", CASES)
def test_autograd_node_category(name, expected):
    assert op_category(name) == expected


def test_backward_rows_of_a_real_training_trace_are_not_other():
    """hta_v100_rank0_ns_resolution records a ResNet training step: its op roll-up has the engine's
    ``…ConvolutionBackward0`` rows (225 ms of GPU time under them), which were 'other'; they are GEMM like the
    trace's own forward ``aten::convolution`` rows."""
    from gpulens.report import analyze

    path = shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")
    rows = analyze(path, only=["op_rollup"]).sources[0].results["op_rollup"].table
    cats = rows.groupby("op")["category"].agg(set)
    assert cats["autograd::engine::evaluate_function: ConvolutionBackward0"] == {"GEMM"}
    assert cats["ConvolutionBackward0"] == {"GEMM"}
    assert cats["aten::convolution"] == {"GEMM"}
    assert cats["CudnnBatchNormBackward0"] == {"normalisation"}
