"""The alignment hint of an ``align1``/``align2`` CUTLASS GEMM pads the leading dimensions, not the rows.

For contiguous row-major operands A[M,K], B[K,N], C[M,N] the leading dimensions are K (A's rows are K elements
apart) and N (B's and C's): vectorised 16-byte loads need those to be multiples of 8 bf16 elements. M, the number
of rows (141 tokens of a BERT batch), is a leading dimension only when A is a transposed view. TraceLens BERT-small
on H100 (aten::addmm [[30522],[141,512],[512,30522]]) read "pad 141 to 144, 30522 to 30528": only 30522 → 30528
(⌈30522 / 8⌉ · 8 = 3816 · 8) aligns the operands.
"""

from __future__ import annotations

from gpulens.analyzers._advice import alignment_hint

NAME = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_64x3_tn_align2>(…)"


def test_odd_rows_are_not_padded_beside_an_odd_leading_dimension():
    h = alignment_hint(NAME, [(141, 30522, 512)])
    assert "pad 30522 to 30528" in h
    assert "141 to 144" not in h


def test_odd_rows_alone_name_the_transposed_operand_case():
    # N = K = 512 are multiples of 8; M = 141 is not: contiguous operands are aligned already
    h = alignment_hint(NAME, [(141, 512, 512)])
    assert "M = 141" in h and "transposed" in h and ".contiguous()" in h
    assert "pad 141 to 144 where the first operand must stay transposed" in h


def test_weight_gradient_gemm_odd_k_is_padded():
    # dW = dYᵀ · X: aten::mm [[512, 141], [141, 30522]] → M = 512, N = 30522, K = 141: K is A's leading dimension
    h = alignment_hint(NAME, [(512, 30522, 141)])
    assert "pad 141 to 144, 30522 to 30528" in h
