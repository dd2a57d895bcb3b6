"""Roofline: FLOP/byte models by hand, counters, the analyzer on real traces, skip reasons."""

import json

import pandas as pd
import pytest

import gpulens
from gpulens.analyzers._flop_models import attention, conv, gemm, op_cost
from gpulens.devices import spec_from_dict
from gpulens.reports.console import render
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table
from tests.conftest import DATA, KINETO

BF16 = "c10::BFloat16"


def _cost(name, dims, types):
    return op_cost(name, json.dumps(dims), json.dumps(types))


def test_gemm_flops_exactly_2mnk_plus_bias():
    c = _cost("aten::mm", [[128, 256], [256, 512]], [BF16, BF16])
    assert c.flops == 2 * 128 * 512 * 256 == 33_554_432
    assert c.bytes == (128 * 256 + 256 * 512 + 128 * 512) * 2 and c.precision == "bf16" and c.matrix
    c = _cost("aten::addmm", [[512], [128, 256], [256, 512], [], []], [BF16, BF16, BF16, "Scalar", "Scalar"])
    assert c.flops == 2 * 128 * 512 * 256 + 128 * 512 == 33_619_968  # + one add per output element
    assert c.bytes == (128 * 256 + 256 * 512 + 128 * 512 + 512) * 2
    # linear: x [2, 64, 768] → M = 128; W [3072, 768]; bias [3072]
    c = _cost("aten::linear", [[2, 64, 768], [3072, 768], [3072]], ["float", "float", "float"])
    assert c.flops == 2 * 128 * 3072 * 768 + 128 * 3072 and c.precision == "fp32"
    c = _cost("aten::bmm", [[12, 141, 64], [12, 64, 141]], [BF16, BF16])
    assert c.flops == 2 * 12 * 141 * 141 * 64
    c = _cost("aten::matmul", [[4, 1, 32, 16], [3, 16, 8]], ["float", "float"])  # batch broadcast 4 × 3
    assert c.flops == 2 * 12 * 32 * 8 * 16
    assert gemm(10, 20, 30, batch=2, bias=True) == 2 * 2 * 10 * 20 * 30 + 2 * 10 * 20
    assert _cost("aten::mm", [[128, 256], [255, 512]], [BF16, BF16]) is None  # inner dims disagree: no guess


def test_attention_flops_causal_and_gqa():
    # causal self-attention B=2, H=16, N=1024, d=64: QKᵀ and PV are 2·N·N·d each, lower triangle only → ÷2
    assert attention(2, 16, 1024, 1024, 64, causal=True) == 2 * 16 * (2 * 1024 * 1024 * 64 * 2) / 2 == 4_294_967_296
    # decode-like causal with Nq ≠ Nkv is not halved
    assert attention(1, 8, 1, 4096, 128, causal=True) == 8 * 2 * 1 * 4096 * 128 * 2
    # GQA: 32 query heads, 8 K/V heads, Nq 512, Nkv 2048, d 128 — FLOPs follow the query heads
    q, kv = [1, 32, 512, 128], [1, 8, 2048, 128]
    c = _cost("aten::_scaled_dot_product_flash_attention", [q, kv, kv], [BF16] * 3)
    assert c.flops == 32 * (2 * 512 * 2048 * 128 * 2) == 17_179_869_184
    # bytes: Q 32·512·128·2 + K, V 8·2048·128·2 each + O (as Q) = 4 × 4 MiB
    assert c.bytes == 4 * 4_194_304 and c.matrix
    causal = op_cost("aten::scaled_dot_product_attention", json.dumps([[2, 16, 1024, 64]] * 3), json.dumps([BF16] * 3),
                     causal=True)
    assert causal.flops == 4_294_967_296
    # flash-attention forward takes [B, N, H, d]: the H100 BERT op q = k = v = [1, 141, 8, 64]
    c = _cost("aten::_flash_attention_forward", [[1, 141, 8, 64]] * 3, [BF16] * 3)
    assert c.flops == 8 * 4 * 141 * 141 * 64
    assert _cost("aten::_flash_attention_forward", [[141, 8, 64]] * 3, [BF16] * 3) is None  # varlen: no cu_seqlens


def test_conv_flops_grouped_and_bias():
    # x [8, 64, 56, 56], w [128, 64, 3, 3], 56×56 out: 2 · (8·128·56·56) · (64·3·3) + bias per output
    assert conv([8, 64, 56, 56], [128, 64, 3, 3], [56, 56], bias=True) == \
        2 * (8 * 128 * 56 * 56) * (64 * 9) + 8 * 128 * 56 * 56
    assert conv([8, 64, 56, 56], [128, 32, 3, 3], [56, 56], groups=2) == 2 * (8 * 128 * 56 * 56) * (32 * 9)
    # 1-d and transposed: each input element scatters through C_out/g × k
    assert conv([4, 16, 100], [32, 16, 5], [96]) == 2 * 4 * 32 * 96 * 16 * 5
    assert conv([4, 16, 10, 10], [16, 8, 2, 2], [20, 20], transposed=True) == 2 * (4 * 16 * 10 * 10) * (8 * 2 * 2)


def test_elementwise_and_reduction_models():
    c = _cost("aten::add", [[1, 141, 512], [1, 141, 512], []], [BF16, BF16, "Scalar"])
    assert c.flops == 141 * 512 and c.bytes == 3 * 141 * 512 * 2 and not c.matrix
    c = _cost("aten::mul", [[4, 1, 8], [1, 3, 8]], ["float", "float"])  # broadcast to [4, 3, 8]
    assert c.flops == 96 and c.bytes == (32 + 24 + 96) * 4
    c = _cost("aten::gelu", [[1, 141, 2048], []], [BF16, ""])
    assert c.flops == 141 * 2048 and c.bytes == 2 * 141 * 2048 * 2
    c = _cost("aten::native_layer_norm", [[1, 141, 512], [], [512], [512], []],
              [BF16, "ScalarList", BF16, BF16, "Scalar"])
    assert c.flops == 5 * 141 * 512 and c.bytes == (141 * 512 + 512 + 512 + 141 * 512) * 2
    assert _cost("aten::index_select", [[30522, 512], [], [141]], [BF16, "Scalar", "long int"]) is None


def _timeline_with_counters(metrics, units=None):
    ev = make_table(EVENT_COLUMNS, {"event_id": [0], "kind": ["kernel"], "name": ["k"], "start_ns": [1000],
                                    "dur_ns": [1_000_000], "rank": [0], "device_id": [0], "stream_id": [7],
                                    "source": ["t"]})
    units = units or {}
    co = make_table(COUNTER_COLUMNS, {"event_id": [0] * len(metrics), "metric": list(metrics),
                                      "value": list(metrics.values()),
                                      "unit": [units.get(m, "") for m in metrics], "source": ["t"] * len(metrics)})
    return Timeline(ev, co).validate()


TOY = spec_from_dict({"name": "toy", "compute_capability": "9.0", "num_sms": 100,
                      "figures": {"memory_bandwidth": [1000, "test"], "vector.fp32": [100, "test"],
                                  "matrix.bf16": [400, "test"]}})


def test_roofline_from_ncu_counters_by_hand():
    # 1 ms kernel: fadd 1e9 + fmul 1e9 + 2 × ffma 4e9 = 10 GFLOP fp32; DRAM 0.6 + 0.4 GB = 1 GB
    tl = _timeline_with_counters({
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 1e9,
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 1e9,
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 4e9,
        "dram__bytes_read.sum": 6e8, "dram__bytes_write.sum": 4e8}, {"dram__bytes_read.sum": "bytes"})
    r = gpulens.analyze_timeline(tl, device_spec=TOY).results["roofline"]
    row = r.table.iloc[0]
    assert row["flops"] == 10e9 and row["bytes"] == 1e9 and row["flops_source"] == "counters"
    assert row["flops_per_s"] == pytest.approx(10e12) and row["arithmetic_intensity"] == pytest.approx(10)
    # fp32 vector roof 100 TFLOP/s, 1 TB/s → ridge 100 FLOP/B; AI 10 → memory side, attainable 10 TFLOP/s
    assert row["precision"] == "fp32" and row["ridge_point"] == pytest.approx(100)
    assert row["bound"] == "memory" and row["roof_pct"] == pytest.approx(100.0)
    assert r.summary["coverage"] == 1.0


def test_roofline_from_rocprof_counters_by_hand():
    # 64 lanes × (2 × 1e6 FMA_F32) + 512 × 1e6 MFMA_MOPS_BF16; FETCH_SIZE/WRITE_SIZE in KB (rocprof)
    tl = _timeline_with_counters({"SQ_INSTS_VALU_FMA_F32": 1e6, "SQ_INSTS_VALU_MFMA_MOPS_BF16": 1e6,
                                  "FETCH_SIZE": 1000.0, "WRITE_SIZE": 24.0})
    row = gpulens.analyze_timeline(tl, device_spec=TOY).results["roofline"].table.iloc[0]
    assert row["flops"] == 64 * 2 * 1e6 + 512 * 1e6
    assert row["bytes"] == (1000 + 24) * 1024
    assert row["precision"] == "bf16" and row["peak_flops_per_s"] == 400e12  # most work is MFMA bf16
    # 6.4e8 FLOP in 1 ms = 6.4e11 FLOP/s against min(400e12, AI × 1e12): far below → below both roofs (issue 14.3:
    # one vocabulary, formerly None); AI = 6.4e8 / 1,048,576 B ≈ 610 FLOP/B > ridge 400e12 / 1e12 = 400 → compute side
    assert row["bound"] == "below-roofs" and row["roof_pct"] < 10 and row["ridge_side"] == "compute"


def test_h100_bert_gemm_and_attention_get_flops_from_shapes_and_coverage_is_reported():
    path = KINETO / "tracelens_h100_bert-small.json.gz"
    src = gpulens.analyze([path]).sources[0]
    r = src.results["roofline"]
    assert list(r.table.columns) == ["name", "calls", "time_ns", "flops", "bytes", "flops_per_s", "bytes_per_s",
                                     "arithmetic_intensity", "precision", "peak_flops_per_s", "compute_roof",
                                     "peak_bytes_per_s", "ridge_point", "bound", "ridge_side", "roof_pct",
                                     "datasheet_roof_pct", "flops_source", "time_at_stake_ns", "roof_note",
                                     "placement_note",
                                     "flops_lower_bound", "bound_basis", "bound_pct", "bound_pct_unit",
                                     "bound_unit"]
    t = r.table.set_index("name")
    gemms = t[t.index.str.contains("gemm")]
    assert len(gemms) == 4 and (gemms["flops_source"] == "shapes").all() and (gemms["precision"] == "bf16").all()
    flash = t[t.index.str.contains("flash_fwd")].iloc[0]
    # from the file: aten::_flash_attention_forward q = k = v = [1, 141, 8, 64] bf16, 4 calls, non-causal
    assert flash["flops"] == 4 * 8 * 4 * 141 * 141 * 64 and flash["flops_source"] == "shapes"
    assert flash["bytes"] == 4 * 4 * 141 * 8 * 64 * 2
    # the single 256x128 GEMM is the vocabulary projection: addmm bias [30522], x [141, 512], W [512, 30522]
    big = t[t.index.str.contains("256x128")].iloc[0]
    assert big["calls"] == 1 and big["flops"] == 2 * 141 * 30522 * 512 + 141 * 30522
    # GEMMs are judged on the tensor-core roof at its achievable peak: the measured BF16 matmul of an H100 SXM,
    # 795 TFLOP/s (gpu-facts §1.2, STAS MAMF table), not the datasheet's 989.4; the datasheet share stays beside it
    assert big["peak_flops_per_s"] == pytest.approx(795e12) and big["peak_bytes_per_s"] == pytest.approx(3.35e12)
    # AI = 4.41e9 FLOP / 40.0 MB ≈ 110 FLOP/B, left of both ridges (795 / 3.35 = 237; 989.4 / 3.35 = 295): bandwidth
    # use, the same share of the one memory roof under either compute peak
    assert big["ridge_point"] == pytest.approx(795 / 3.35) and big["ridge_side"] == "memory"
    assert big["datasheet_roof_pct"] == pytest.approx(big["roof_pct"])
    # the layer norm (elementwise work, no GEMM) on the CUDA-core roof: its BF16 data computed in FP32 (PyTorch's
    # opmath: aten/src/ATen/OpMathType.h; the kernel is vectorized_layer_norm_kernel<c10::BFloat16, float>), so the
    # H100's FP32 vector peak, 66.9 TFLOP/s (Hopper whitepaper Table 3), ridge 66.9 / 3.35 = 20 FLOP/B — not the
    # packed-BF16 133.8 its kernel never issues (s48)
    assert (gemms["compute_roof"] == "achievable.matrix.bf16").all()
    norm = t[t.index.str.contains("layer_norm")].iloc[0]
    assert norm["compute_roof"] == "vector.fp32" and norm["peak_flops_per_s"] == pytest.approx(66.9e12)
    assert norm["precision"] == "bf16" and norm["ridge_point"] == pytest.approx(66.9e12 / 3.35e12)
    assert r.summary["coverage"] == 1.0 and r.summary["launches_from_shapes"] == 40
    # only the critical set is analysed: over all kernel time, coverage is the critical set's share
    assert r.summary["coverage_of_kernel_time"] == pytest.approx(r.summary["critical_share_of_kernel_time"])
    text = render(gpulens.analyze([path]))
    assert "FLOPs known for 100.0 % of the critical" in text and "Roofline on NVIDIA H100 SXM" in text


def test_measured_peaks_in_a_roofline_side_table_override_the_datasheet():
    tl = _timeline_with_counters({"SQ_INSTS_VALU_FMA_F64": 1e6, "FETCH_SIZE": 1.0})
    tl.tables["roofline"] = pd.read_csv(DATA / "roofline" / "vcopy_MI200_roofline.csv")
    spec = gpulens.devices.get_spec("MI210")
    row = gpulens.analyze_timeline(tl, device_spec=spec).results["roofline"].table.iloc[0]
    assert row["peak_bytes_per_s"] == pytest.approx(1388.9302e9)  # measured HBMBw, not the datasheet 1638.4
    assert row["peak_flops_per_s"] == pytest.approx(20272.537e9)  # measured FP64Flops (vector)


@pytest.mark.parametrize("trace, reason", [
    ("hta_cpu_only_rank34.pt.trace.json.gz", "no kernel in the trace"),  # a CPU-only run needs no spec (s26)
    ("hta_alexnet_a100.json.gz", "record_shapes=True"),
])
def test_roofline_skips_with_reason(trace, reason):
    r = gpulens.analyze([KINETO / trace]).sources[0].results["roofline"]
    assert r.skipped and reason in r.skipped_reason


def test_cli_device_spec_option(tmp_path):
    from gpulens.cli import main

    spec = tmp_path / "gpu.json"
    spec.write_text(json.dumps({"base": "NVIDIA H100 SXM", "name": "lab H100",
                                "figures": {"memory_bandwidth": [1000, "derated for the test"]}}))
    out = tmp_path / "r.json"
    code = main(["analyze", str(KINETO / "tracelens_h100_bert-small.json.gz"), "--device-spec", str(spec),
                 "--json", str(out), "-q"])
    assert code == 0
    src = json.loads(out.read_text())["sources"][0]
    assert src["device_spec"] == "lab H100"
    rows = src["analyses"]["roofline"]["table"]
    assert all(r["peak_bytes_per_s"] == 1e12 for r in rows if r["flops"] is not None)
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["analyze", "--demo", "--device-spec", str(bad), "-q"]) == 2


def test_copy_kernel_without_fp_work_is_placed_by_bandwidth():
    # vecCopy-like dispatch: complete VALU counters, all 0 FLOPs; 600 MB moved in 1 ms = 600 GB/s of 1000 GB/s
    tl = _timeline_with_counters({"SQ_INSTS_VALU_ADD_F64": 0.0, "SQ_INSTS_VALU_FMA_F64": 0.0,
                                  "FETCH_SIZE": 300e6, "WRITE_SIZE": 300e6},
                                 {"FETCH_SIZE": "bytes", "WRITE_SIZE": "bytes"})
    r = gpulens.analyze_timeline(tl, device_spec=TOY).results["roofline"]
    row = r.table.iloc[0]
    assert row["flops"] == 0 and row["precision"] is None and row["arithmetic_intensity"] == 0
    assert row["bound"] == "memory" and row["roof_pct"] == pytest.approx(60.0)
    # issue 14.3: the ridge side is always stated; s40: only ADD_F64 and FMA_F64 of rocprof-compute's "VALU FLOPs"
    # formula (ADD/MUL/TRANS/FMA × F16/F32/F64) were collected, so the 0 FLOP is a lower bound and the placement
    # says what it rests on
    assert row["flops_lower_bound"] and "SQ_INSTS_VALU_MUL_F64" in row["flops_lower_bound"]
    assert any(f.title == "k at 60.0 % of the memory roof (memory side of the ridge) on a lower-bound AI"
               for f in r.findings)


def test_shape_flops_with_measured_dram_bytes():
    # aten::mm [1024, 1024] × [1024, 1024] fp32 launches one 1 ms kernel; ncu measured 20 MB of DRAM traffic
    # (the shape model would say (3 × 1024²) × 4 B = 12.58 MB): FLOPs from shapes, bytes from the counters
    # (read 1.5e7 + write 5e6: both directions, as a DRAM-bytes figure needs)
    ev = make_table(EVENT_COLUMNS, {
        "event_id": [0, 1], "kind": ["cpu_op", "kernel"], "name": ["aten::mm", "sgemm"], "start_ns": [0, 10],
        "dur_ns": [2_000_000, 1_000_000], "rank": [0, 0], "device_id": [-1, 0], "stream_id": [None, 7],
        "external_id": [5, 5], "input_dims": ["[[1024, 1024], [1024, 1024]]", None],
        "input_types": ['["float", "float"]', None], "source": ["t", "t"]})
    co = make_table(COUNTER_COLUMNS, {"event_id": [1, 1], "metric": ["dram__bytes_read.sum", "dram__bytes_write.sum"],
                                      "value": [1.5e7, 5e6], "unit": ["bytes", "bytes"], "source": ["t", "t"]})
    row = gpulens.analyze_timeline(Timeline(ev, co).validate(), device_spec=TOY).results["roofline"].table.iloc[0]
    assert row["flops"] == 2 * 1024**3 and row["flops_source"] == "shapes" and row["precision"] == "fp32"
    assert row["bytes"] == 2e7


def test_cache_level_points_from_rocprof_counters_with_measured_l2_roof():
    # 64 × 2 × 1e4 FMA_F32 = 1.28e6 FLOP; L2 = 64 B × (1000 read + 500 write requests) = 96,000 B → AI 13.33;
    # L1 = 64 B × 4000 accesses = 256,000 B → AI 5; L2 roof measured by rocprof-compute: L2Bw 5018.2891 GB/s
    tl = _timeline_with_counters({"SQ_INSTS_VALU_FMA_F32": 1e4, "TCP_TCC_READ_REQ_sum": 1000.0,
                                  "TCP_TCC_WRITE_REQ_sum": 500.0, "TCP_TOTAL_CACHE_ACCESSES_sum": 4000.0,
                                  "FETCH_SIZE": 10.0})
    tl.tables["roofline"] = pd.read_csv(DATA / "roofline" / "vcopy_MI200_roofline.csv")
    r = gpulens.analyze_timeline(tl, device_spec=gpulens.devices.get_spec("MI210")).results["roofline"]
    (lv,) = r.summary["cache_levels"]
    assert lv["l2_bytes"] == 96_000 and lv["l2_arithmetic_intensity"] == pytest.approx(1.28e6 / 96_000)
    assert lv["l1_bytes"] == 256_000 and lv["l1_arithmetic_intensity"] == pytest.approx(5.0)
    assert lv["l2_bytes_per_s"] == pytest.approx(96_000 / 1e-3)  # over the 1 ms kernel
    assert lv["l2_peak_bytes_per_s"] == pytest.approx(5018.2891e9)
    # without cache counters there is no cache-level point
    assert gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"]).sources[0] \
        .results["roofline"].summary["cache_levels"] == []
