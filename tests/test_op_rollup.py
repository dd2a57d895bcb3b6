"""Operator roll-up, GEMM/attention tables and the op-category summary on a hand-made trace whose expected values
are derived here from the events as written (op intervals contain their launch calls)."""

from __future__ import annotations

import pytest

from gpulens.report import analyze
from tests.conftest import KINETO
from tests.dig_traces import KTrace

GEMM_K = "ampere_bf16_s16816gemm_bf16_128x64_ldg8_nn"
BF = "c10::BFloat16"


def _trace(tmp_path):
    t = KTrace()
    ops, kernels = [], []  # (name, ts, dur) of ops; (launch_ts, dur) of kernels, to derive expectations below

    def op(name, ts, dur, dims=None, types=None):
        ops.append((name, ts, dur))
        return t.op(name, ts, dur, dims, types)

    def launch(ext, ts, ks, **kw):
        kernels.extend((ts, d) for _, _, d in ks)
        t.launch(ext, ts, ks, **kw)

    gpu = 1000.0
    for i in range(2):  # two linear layers: linear → (t, addmm → GEMM kernel)
        base = 100.0 + 200 * i
        op("aten::linear", base, 60, [[4, 32, 256], [512, 256], [512]], [BF] * 3)
        op("aten::t", base + 2, 3, [[512, 256]], [BF])
        e = op("aten::addmm", base + 10, 40, [[512], [128, 256], [256, 512], [], []], [BF, BF, BF, "Scalar", "Scalar"])
        launch(e, base + 20, [(GEMM_K, gpu, 40.0 + i)])
        gpu += 50
        e = op("aten::add", base + 80, 10, [[4, 32, 512], [4, 32, 512], []], [BF, BF, "Scalar"])
        launch(e, base + 82, [("void at::native::vectorized_elementwise_kernel<4, add>", gpu, 5.0)])
        gpu += 10
    # attention with GQA: q [B=2, N=128, Hq=8, d=64], k/v [2, 128, Hkv=2, 64] (flash layout B, N, H, d)
    e = op("aten::_flash_attention_forward", 600, 30, [[2, 128, 8, 64], [2, 128, 2, 64], [2, 128, 2, 64]], [BF] * 3)
    launch(e, 605, [("flash_fwd_kernel", gpu, 25.0)])
    gpu += 30
    # a CUDA graph replay inside an op: three kernels under one cudaGraphLaunch, linked by correlation only
    op("graph_step", 700, 50)
    launch(0, 710, [("triton_poi_fused_0", gpu, 7.0), ("triton_red_fused_1", gpu + 8, 9.0),
                    ("triton_poi_fused_2", gpu + 18, 11.0)], api="cudaGraphLaunch", linked=False)
    return t.write(tmp_path / "ops.json"), ops, kernels


def _expected_gpu_time(ops, kernels, name):
    """Σ duration (ns) of the kernels whose launch call lies inside a call of op ``name`` (one host thread)."""
    return sum(d for o, ts, dur in ops if o == name for lts, d in kernels if ts <= lts < ts + dur) * 1000


def test_op_gpu_time_equals_the_sum_of_its_kernels(tmp_path):
    path, ops, kernels = _trace(tmp_path)
    r = analyze([path], only=["op_rollup", "gemm_shapes", "attention_shapes", "op_categories"]).sources[0].results
    t = r["op_rollup"].table.groupby("op")["gpu_time_ns"].sum()
    for name in ("aten::linear", "aten::addmm", "aten::add", "graph_step", "aten::_flash_attention_forward"):
        assert t[name] == pytest.approx(_expected_gpu_time(ops, kernels, name)), name
    assert t["graph_step"] == 27_000  # the graph replay's three kernels: 7 + 9 + 11 µs
    assert "aten::t" not in set(t.index)  # no GPU work
    lin = r["op_rollup"].table.set_index("op").loc["aten::linear"]
    assert lin["calls"] == 2 and lin["self_gpu_time_ns"] == 0 and bool(lin["top_level"])
    # top-level rows add up to all GPU time (every kernel here is launched inside some op)
    top = r["op_rollup"].table[r["op_rollup"].table["top_level"]]
    assert top["gpu_time_ns"].sum() == pytest.approx(sum(d for _, d in kernels) * 1000)


def test_gemm_flops_are_2mnk_plus_bias_from_the_recorded_shapes(tmp_path):
    path, _, _ = _trace(tmp_path)
    r = analyze([path], only=["gemm_shapes", "attention_shapes"]).sources[0].results
    g = r["gemm_shapes"].table
    assert len(g) == 1  # linear and its addmm are one problem, counted once (at the op that launched it)
    row = g.iloc[0]
    assert (row["op"], row["M"], row["N"], row["K"], row["batch"]) == ("aten::addmm", 128, 512, 256, 1)
    # two calls of addmm(bias[512], x[128, 256], W[256, 512]): 2·M·N·K for the product + M·N for the bias add, the
    # figure the roofline gives the same kernel (one FLOP definition per call in every table)
    assert row["flops"] == 2 * (2 * 128 * 512 * 256 + 128 * 512)
    assert row["gpu_time_ns"] == 81_000 and row["layout"] == "nn" and row["dtype"] == BF
    # H100 (from deviceProperties): dense BF16 tensor peak 989.4 TFLOP/s (NVIDIA H100 datasheet, SXM)
    assert row["peak_pct"] == pytest.approx(100 * row["flops"] / 81e-6 / 989.4e12, rel=1e-3)
    a = r["attention_shapes"].table.iloc[0]
    assert (a["B"], a["Hq"], a["Hkv"], a["Nq"], a["Nkv"], a["d"]) == (2, 8, 2, 128, 128, 64)
    # QKᵀ and PV: B·Hq·(2·Nq·Nkv·d + 2·Nq·Nkv·dv) with d = dv = 64
    assert a["flops"] == 2 * 8 * (2 * 128 * 128 * 64 * 2)


def test_op_categories_add_up(tmp_path):
    path, _, kernels = _trace(tmp_path)
    c = analyze([path], only=["op_categories"]).sources[0].results["op_categories"].table.set_index("category")
    assert c["gpu_time_ns"].sum() == sum(d for _, d in kernels) * 1000
    assert c.loc["GEMM", "gpu_time_ns"] == 81_000 and c.loc["attention", "gpu_time_ns"] == 25_000
    assert c.loc["elementwise", "gpu_time_ns"] == 10_000 + 7_000 + 11_000  # adds + the two triton_poi kernels
    assert c.loc["reduction", "gpu_time_ns"] == 9_000  # triton_red_fused_1: a reduction is its own category
    assert c["share"].sum() == pytest.approx(1.0)


def test_bert_rollup_matches_kernel_sums_per_op():
    """On the real H100 BERT trace, each op's inclusive GPU time equals the sum of the durations of the kernels
    linked to it by external id (cpu_op args["External id"] == kernel args["External id"]), read with json."""
    import gzip
    import json

    doc = json.loads(gzip.decompress((KINETO / "tracelens_h100_bert-small.json.gz").read_bytes()))
    ev = doc["traceEvents"]
    ext_name = {e["args"]["External id"]: e["name"] for e in ev if e.get("cat") == "cpu_op" and "args" in e}
    by_op: dict[str, float] = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy"):
            n = ext_name[e["args"]["External id"]]
            by_op[n] = by_op.get(n, 0) + e["dur"]
    t = analyze([KINETO / "tracelens_h100_bert-small.json.gz"], only=["op_rollup"]).sources[0].results["op_rollup"]
    self_t = t.table.groupby("op")["self_gpu_time_ns"].sum()
    for name, us in by_op.items():
        assert self_t[name] == pytest.approx(us * 1000, abs=1), name


def test_gemm_table_and_roofline_give_one_flop_figure_on_the_demo():
    """On the shipped H100 BERT trace each GEMM kernel that ran one problem has the same FLOPs in the GEMM table and
    in the roofline (both from the recorded shapes); the first problem's figure is checked by hand: 17 calls of
    addmm(bias[512], x[141, 512], W[512, 512]) = 17 × (2·141·512·512 + 141·512)."""
    from importlib import resources

    demo = resources.files("gpulens.data") / "demo_h100_bert-small.pt.trace.json.gz"
    r = analyze([str(demo)], only=["gemm_shapes", "roofline"]).sources[0].results
    g, roof = r["gemm_shapes"].table, r["roofline"].table.set_index("name")
    single = g.groupby("kernel").filter(lambda x: len(x) == 1)
    assert len(single) >= 3
    for _, row in single.iterrows():
        assert roof.loc[row["kernel"], "flops"] == pytest.approx(row["flops"], rel=1e-12), row["kernel"]
    first = g[(g["M"] == 141) & (g["N"] == 512) & (g["K"] == 512)].iloc[0]
    assert first["calls"] == 17 and first["flops"] == 17 * (2 * 141 * 512 * 512 + 141 * 512)
