"""An fp32 GEMM run on tensor cores in TF32 was judged against the CUDA cores' fp32 roof (fresh-user walk: the
multirank trace's ``cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1`` "vector fp32 (CUDA cores) 19.50 TFLOP/s",
"% of datasheet peak 16.1 %" — 8× too high against the A100's 156 TFLOP/s TF32 peak). The kernel's name says TF32
(CUTLASS ``tensorop_s1688`` / ``s16816``: single precision through the TF32 MMA; any name with ``tf32``): its roof
and the GEMM table's peak are the TF32 matrix peak. A CUDA-core sgemm keeps the fp32 roof.

Hand-made trace (tests/dig_traces.KTrace, H100: matrix.tf32 494.7 TFLOP/s, vector.fp32 66.9 TFLOP/s in the
device table): aten::mm of float [4096, 4096] × [4096, 4096], one kernel each.
"""

from __future__ import annotations

import pytest

from gpulens.analyzers import run_all
from gpulens.analyzers._work import TF32_KERNEL_RE
from gpulens.collectors import collect
from gpulens.devices import get_spec, identify

from .dig_traces import KTrace


@pytest.mark.parametrize("name, tf32", [
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1>(cutlass_80_tensorop_s1688gemm_"
     "128x64_32x6_nt_align1::Params)", True),
    ("cutlass_80_tensorop_s16816gemm_relu_64x64_32x6_nn_align4", True),
    ("sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4_warpsize2x2x1_tensor16x8x8_kernel", True),
    ("ampere_sgemm_128x128_tn", False),
    ("cutlass_80_tensorop_h16816gemm_64x64_64x5_tn_align8", False),  # fp16 tensor op: not TF32
])
def test_tf32_kernel_names(name, tf32):
    assert bool(TF32_KERNEL_RE.search(name)) is tf32


def _gemm(tmp_path, kernel):
    k = KTrace()
    ext = k.op("aten::mm", 100, 50, dims=[[4096, 4096], [4096, 4096]], types=["float", "float"])
    k.launch(ext, 110, [(kernel, 200, 2000)])
    tl = collect(k.write(tmp_path / "t.json"))
    return run_all(tl, identify(tl))


def test_tf32_kernel_is_judged_against_the_tf32_roof(tmp_path):
    h100 = get_spec("H100 SXM")
    res = _gemm(tmp_path, "cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1")
    row = res["roofline"].table.iloc[0]
    assert (row["precision"], row["compute_roof"]) == ("tf32", "matrix.tf32")
    assert row["peak_flops_per_s"] == h100.peak_flops("tf32", True)[0] == 494.7e12
    g = res["gemm_shapes"].table.iloc[0]
    assert g["peak_flops_per_s"] == 494.7e12
    # 2 · 4096³ FLOP in 2 ms = 68.72 TFLOP/s: 13.9 % of the TF32 peak (above 100 % of the fp32 one)
    assert g["peak_pct"] == pytest.approx(100 * 2 * 4096 ** 3 / 2e-3 / 494.7e12)


def test_cuda_core_sgemm_keeps_the_fp32_roof(tmp_path):
    res = _gemm(tmp_path, "ampere_sgemm_128x128_tn")
    row = res["roofline"].table.iloc[0]
    assert row["precision"] == "fp32" and row["compute_roof"] == "vector.fp32"
