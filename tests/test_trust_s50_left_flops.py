"""An op's FLOPs come from its own arguments only: a GEMM record listing more matrices than the op takes (old
PyTorch appended earlier ops' inputs to a wrapper's ``Input Dims``) has no model, and ``addmm``'s 2-D ``self`` is
its accumulator, not its first matrix. Expected FLOPs are hand counts (2·M·N·K + M·N for a bias add)."""

import json
from pathlib import Path

import pytest

from gpulens.analyzers._flop_models import gemm_extents, op_cost

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
MULTI = SHARED / "traces" / "kineto" / "multirank_hta_trace_filter" / "sampled_rank-0.json.gz"


def _cost(name, dims, types):
    return op_cost(name, json.dumps(dims), json.dumps(types))


def test_linear_with_stale_inputs_has_no_model():
    # the record in the HTA multirank trace: six "inputs" to aten::linear, its child addmm is 2048×1024 @ 1024×541
    dims = [[2048, 1953], [2048, 1953], [2048, 1953], [2048, 1024], [541, 1024], [541]]
    assert _cost("aten::linear", dims, ["float"] * 6) is None
    assert gemm_extents("aten::linear", json.dumps(dims), json.dumps(["float"] * 6)) is None


def test_linear_own_inputs_still_modelled():
    c = _cost("aten::linear", [[2048, 1024], [541, 1024], [541]], ["float"] * 3)
    assert c.flops == 2 * 2048 * 541 * 1024 + 2048 * 541


def test_addmm_two_dimensional_self_is_the_accumulator():
    # addmm(self[64,32], mat1[64,16], mat2[16,32]): M=64, N=32, K=16 plus the bias add
    c = _cost("aten::addmm", [[64, 32], [64, 16], [16, 32], [], []], ["float", "float", "float", "Scalar", "Scalar"])
    assert c.flops == 2 * 64 * 32 * 16 + 64 * 32
    assert gemm_extents("aten::addmm", json.dumps([[64, 32], [64, 16], [16, 32], [], []]),
                        json.dumps(["float", "float", "float", "Scalar", "Scalar"])) == (64, 32, 16)


def test_mm_with_three_matrices_is_not_mm():
    assert _cost("aten::mm", [[8, 8], [8, 8], [8, 8]], ["float"] * 3) is None


@pytest.mark.skipif(not MULTI.exists(), reason="shared traces absent")
def test_multirank_fp32_rates_within_a100_tf32_peak():
    import gpulens

    rep = gpulens.analyze([str(MULTI)])
    t = rep.sources[0].results["op_rollup"].table
    fp32 = t[t["dtypes"].str.contains('"float"') & t["flops_per_s"].notna()]
    assert len(fp32) > 0
    # NVIDIA A100 datasheet: TF32 tensor core 156 TFLOP/s dense — the fastest an fp32-typed GEMM can run
    assert fp32["flops_per_s"].max() <= 156e12
