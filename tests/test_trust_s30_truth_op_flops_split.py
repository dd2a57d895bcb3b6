"""An op's FLOPs go to the kernels that compute, not to the copies, fills or layout transposes it also launches.

Found on ../shared/traces/kineto/hta_mi250_minitoy_rocm6.2.json.gz: ``aten::addmm`` (bias [128], x [5, 128],
W [128, 128], fp32) launches ``direct_copy_kernel_cuda`` (6.88 µs: the bias broadcast into the output) and then the
Tensile GEMM ``Cijk_Alik_Bljk_…`` (17.60 µs). The op's 2·5·128·128 + 5·128 = 164,480 FLOP were split by duration,
so the copy kernel was given 46,226 FLOP (2.3 FLOP/B, fp32, judged against the matrix fp32 roof) and the GEMM only
118,254 (72 %).
"""

from pathlib import Path

import pytest

import gpulens
from gpulens.devices import spec_from_dict
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table

SPEC = spec_from_dict({"name": "toy", "compute_capability": "9.0", "num_sms": 100,
                       "figures": {"memory_bandwidth": [1000, "test"], "vector.fp32": [100, "test"],
                                   "matrix.fp32": [200, "test"]}})
COPY = ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
        "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}>>(int)")
GEMM = "Cijk_Alik_Bljk_SB_Bias_MT64x16x32_MI16x16x1"


def _roofline(names, durs, op, dims, types):
    n = len(names)
    ev = make_table(EVENT_COLUMNS, {
        "event_id": list(range(n + 1)), "kind": ["cpu_op"] + ["kernel"] * n, "name": [op] + names,
        "start_ns": [0] + [10 + 100_000 * i for i in range(n)], "dur_ns": [1_000_000] + durs,
        "rank": [0] * (n + 1), "device_id": [-1] + [0] * n, "stream_id": [None] + [7] * n,
        "external_id": [5] * (n + 1), "input_dims": [dims] + [None] * n, "input_types": [types] + [None] * n,
        "source": ["t"] * (n + 1)})
    tl = Timeline(ev, make_table(COUNTER_COLUMNS, {}, n=0)).validate()
    return gpulens.analyze_timeline(tl, device_spec=SPEC).results["roofline"].table.set_index("name")


def test_addmm_flops_all_on_the_gemm_none_on_its_bias_copy():
    t = _roofline([COPY, GEMM], [6_880, 17_600], "aten::addmm", "[[128], [5, 128], [128, 128], [], []]",
                  '["float", "float", "float", "Scalar", "Scalar"]')
    # by hand: the product 2·M·N·K = 2·5·128·128 = 163,840 FLOP plus one add per output element (5·128 = 640)
    assert t.loc[GEMM, "flops"] == pytest.approx(2 * 5 * 128 * 128 + 5 * 128)
    # the copy moves the bias into the output: no arithmetic, so no precision and no compute roof
    assert t.loc[COPY, "flops"] == 0 and t.loc[COPY, "precision"] is None
    # bytes stay split by duration (the copy does move data): together they are the op's bytes once
    op_bytes = (128 + 5 * 128 + 128 * 128 + 5 * 128) * 4
    assert t.loc[COPY, "bytes"] + t.loc[GEMM, "bytes"] == pytest.approx(op_bytes)


def test_mm_flops_not_on_its_fill_or_layout_transpose():
    # a GEMM zeroing its split-K output (FillFunctor) and converting a layout first (cuDNN's nchwToNhwc): neither
    # does any of the product's FLOPs
    fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)"
    to_nhwc, gemm_k = "void nchwToNhwcKernel<float, float, float, false, true>(int)", "sm80_xmma_gemm_f32f32"
    t = _roofline([fill, to_nhwc, gemm_k], [8_000, 8_000, 16_000], "aten::mm", "[[256, 512], [512, 128]]",
                  '["float", "float"]')
    assert t.loc[gemm_k, "flops"] == pytest.approx(2 * 256 * 128 * 512)  # 2·M·N·K by hand
    assert t.loc[fill, "flops"] == 0 and t.loc[to_nhwc, "flops"] == 0


def test_op_with_only_copy_kernels_keeps_the_duration_split():
    # aten::add launching only a copy-named kernel: no computing kernel to give its FLOPs to, so they are kept
    t = _roofline([COPY], [4_000], "aten::add", "[[1024], [1024], []]", '["float", "float", "Scalar"]')
    assert t.loc[COPY, "flops"] == pytest.approx(1024)


def test_real_mi250_trace_addmm_gemm_gets_all_of_its_flops():
    path = Path(__file__).resolve().parents[2] / "shared" / "traces" / "kineto" / "hta_mi250_minitoy_rocm6.2.json.gz"
    if not path.exists():
        pytest.skip("../shared traces not present")
    t = gpulens.analyze([path]).sources[0].results["roofline"].table.set_index("name")
    gemm = t[t.index.str.startswith("Cijk_Alik_Bljk")].iloc[0]
    copy = t[t.index.str.contains("direct_copy_kernel_cuda")].iloc[0]
    # the file's aten::addmm: bias [128], x [5, 128], W [128, 128] fp32 → 2·5·128·128 + 5·128
    assert gemm["flops"] == pytest.approx(2 * 5 * 128 * 128 + 5 * 128)
    assert copy["flops"] == 0 and copy["precision"] is None
