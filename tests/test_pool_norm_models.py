"""Byte and FLOP models of the CNN training ops that had none (ResNet-18 on an H200, tests/data/nvidia/h200: the
max-pool forward/backward, batch-norm backward and ReLU backward kernels were 4 of 19 critical kernels left
undetermined, "its operator has recorded input shapes but gpulens has no FLOP/byte model for it"). Expected values
are hand calculations from the recorded shapes (bf16 = 2 bytes, int64 indices = 8, fp32 vectors = 4) and PyTorch's
pooling_output_shape rule."""

from __future__ import annotations

import gzip
import json

import pytest

import gpulens
from gpulens.analyzers._flop_models import op_cost
from tests.conftest import DATA

BF, L, F = '"c10::BFloat16"', '"long int"', '"float"'
SL = '"ScalarList"'


@pytest.mark.parametrize("dims, args, out_hw", [
    # ResNet's stem pool: 112 → ⌊(112 + 2·1 − 1·(3 − 1) − 1) / 2⌋ + 1 = 56
    ("[[64, 64, 112, 112], [], [], [], [], []]", '["", "[3, 3]", "[2, 2]", "[1, 1]", "[1, 1]", "False"]', 56),
    # ceil_mode: 7 → ⌈(7 − 1·(2 − 1) − 1) / 2⌉ + 1 = ⌈5 / 2⌉ + 1 = 4; the last window starts at 6 < 7 + 0, kept
    ("[[2, 8, 7, 7], [], [], [], [], []]", '["", "[2, 2]", "[2, 2]", "[0, 0]", "[1, 1]", "True"]', 4),
    # ceil_mode: 5, kernel 2, stride 3, padding 1 → ⌈(5 + 2 − 1 − 1) / 3⌉ + 1 = 3, but that window would start at
    # (3 − 1)·3 = 6 ≥ 5 + 1, inside the right padding only: dropped → 2
    ("[[2, 8, 5, 5], [], [], [], [], []]", '["", "[2, 2]", "[3, 3]", "[1, 1]", "[1, 1]", "True"]', 2),
    # stride left empty ([]): PyTorch uses the kernel size — 8 → ⌊(8 − 1 − 1) / 2⌋ + 1 = 4
    ("[[2, 8, 8, 8], [], [], [], [], []]", '["", "[2, 2]", "[]", "[0, 0]", "[1, 1]", "False"]', 4),
])
def test_max_pool_bytes_read_input_write_output_and_indices(dims, args, out_hw):
    x = json.loads(dims)[0]
    types = f'[{BF}, {SL}, {SL}, {SL}, {SL}, "Scalar"]'
    c = op_cost("aten::max_pool2d_with_indices", dims, types, concrete=args)
    n_in, n_out = x[0] * x[1] * x[2] * x[3], x[0] * x[1] * out_hw * out_hw
    assert (c.flops, c.bytes) == (0.0, 2 * n_in + 2 * n_out + 8 * n_out)
    # without the recorded arguments the output size is unknown: no figure
    assert op_cost("aten::max_pool2d_with_indices", dims, types) is None


def test_max_pool_backward_reads_grad_and_indices_writes_grad_input():
    dims = "[[64, 64, 56, 56], [64, 64, 112, 112], [], [], [], [], [], [64, 64, 56, 56]]"
    types = f'[{BF}, {BF}, {SL}, {SL}, {SL}, {SL}, "Scalar", {L}]'
    c = op_cost("aten::max_pool2d_with_indices_backward", dims, types)
    dy, dx = 64 * 64 * 56 * 56, 64 * 64 * 112 * 112
    assert (c.flops, c.bytes) == (0.0, 2 * dy + 8 * dy + 2 * dx)  # the input itself is not read


def test_batch_norm_backward_two_passes_over_grad_and_input():
    dims = "[[64, 512, 7, 7], [64, 512, 7, 7], [512], [512], [512], [512], [512], [], [], []]"
    types = f'[{BF}, {BF}, {F}, {F}, {F}, {F}, {F}, "Scalar", "Scalar", "ScalarList"]'
    c = op_cost("aten::native_batch_norm_backward", dims, types)
    n = 64 * 512 * 7 * 7
    # reduction pass reads dy and x; the dx pass reads both again and writes dx; five fp32 per-channel vectors
    assert c.bytes == 2 * (2 * n + 2 * n) + 2 * n + 5 * 512 * 4
    assert c.flops == 9 * n and c.precision == "bf16"


def test_relu_backward_is_a_binary_elementwise_op():
    dims, types = "[[64, 512, 7, 7], [64, 512, 7, 7], []]", f'[{BF}, {BF}, "Scalar"]'
    c = op_cost("aten::threshold_backward", dims, types)
    n = 64 * 512 * 7 * 7
    assert (c.flops, c.bytes) == (n, 3 * 2 * n)


def test_resnet18_pool_and_norm_kernels_are_placed_on_the_roofline():
    p = DATA / "nvidia" / "h200" / "h200_resnet18_train.pt.trace.json.gz"
    with gzip.open(p, "rt") as fh:
        ev = json.load(fh)["traceEvents"]
    pools = [e for e in ev if e.get("name") == "aten::max_pool2d_with_indices"]
    src = gpulens.analyze([p]).sources[0]
    roof = src.results["roofline"].table.set_index("name")
    fwd = next(n for n in roof.index if "max_pool_forward_nhwc" in n)
    x = pools[0]["args"]["Input Dims"][0]  # [64, 64, 112, 112] → 56 × 56 (3×3, stride 2, padding 1)
    per_call = 2 * x[0] * x[1] * x[2] * x[3] + (2 + 8) * x[0] * x[1] * 56 * 56
    assert roof.loc[fwd, "bytes"] == per_call * len(pools)
    v = src.results["verdicts"].table.set_index("name")
    for part in ("max_pool_forward_nhwc", "max_pool_backward_nhwc", "batch_norm_backward_reduce", "BinaryFunctor"):
        names = [n for n in v.index if part in n]
        assert names and all(v.loc[n, "verdict"] != "undetermined" for n in names), part
