"""Real NVIDIA H200 captures (tests/data/nvidia/h200, recipe in its capture/ folder): Nsight Compute 2025.3.1 raw
and details CSV exports and a .ncu-rep of four CUDA C++ kernels and four PyTorch kernels, and Kineto traces of a
PyTorch workload. Expected values come from the kernels' source (element counts, matrix sizes), the raw files (read
with the csv / json modules) or NVIDIA's definitions, never from gpulens's own output.

Kinds of fault covered:
* ncu FP-instruction counters given only as rates (``….sum.per_cycle_elapsed``, the roofline sections' form) were
  not counted: the roofline was skipped ("no FLOP source") on every capture made with ncu's standard sections.
* ncu's per-instruction tensor breakdowns (``sm__ops_path_tensor_op_…``) were added to the per-type totals: the
  hierarchical roofline counted each tensor-core FLOP twice.
* a "local" ncu speedup estimate (a hardware unit's efficiency in isolation, not a cut in run time) was shown as
  "up to N % less time" and led the findings; a rule's first message (a note that an optional metric was missing)
  stood for its advice.
"""

from __future__ import annotations

import csv
import gzip
import json

import pandas as pd
import pytest

import gpulens
from tests.conftest import DATA
from tests.dig_traces import interval_union

H200 = DATA / "nvidia" / "h200"
N_SAXPY = 1 << 24          # kernels.cu: saxpy over n = 1 << 24 floats, one FFMA each
G = 2048                   # kernels.cu: gemm_naive / gemm_wmma on 2048 × 2048 matrices
N_TORCH = 4096             # torch_ncu.py / workload.py: bf16 GEMM 4096³


def raw_rows(name: str) -> list[dict]:
    """The kernel rows of an ncu ``--page raw`` CSV (its second line holds the units)."""
    with open(H200 / name, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return rows[1:]


def duration_ns(row: dict, unit_row_file: str) -> float:
    with open(H200 / unit_row_file, newline="") as fh:
        units = next(r for i, r in enumerate(csv.DictReader(fh)) if i == 0)
    scale = {"ns": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6}[units["gpu__time_duration.sum"]]
    return float(row["gpu__time_duration.sum"]) * scale


def roofline_row(src, kernel_prefix: str) -> pd.Series:
    t = src.results["roofline"].table
    return t[t["name"].astype(str).str.startswith(kernel_prefix)].iloc[0]


def test_fp_counts_from_per_cycle_rates_match_the_kernel_source():
    src = gpulens.analyze([H200 / "h200_kernels_raw.csv"]).sources[0]
    rows = {r["Kernel Name"].split("(")[0]: r for r in raw_rows("h200_kernels_raw.csv")}
    # the raw export holds the FFMA count only as a rate (the roofline section's form), no .sum count
    assert "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" not in rows["saxpy"]
    assert float(rows["saxpy"]["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"]) > 0
    assert not src.results["roofline"].skipped
    naive = roofline_row(src, "gemm_naive")
    # gemm_naive: one FFMA per (row, column, k): 2·2048³ FLOP; counted back from a 6-digit rate: within 1e-5
    assert naive["flops"] == pytest.approx(2 * G ** 3, rel=1e-5)
    assert naive["precision"] == "fp32"
    dur = duration_ns(rows["gemm_naive"], "h200_kernels_raw.csv")
    assert naive["flops_per_s"] == pytest.approx(2 * G ** 3 / (dur / 1e9), rel=1e-4)


def test_hierarchical_roofline_counts_each_flop_once():
    src = gpulens.analyze([H200 / "h200_kernels_raw.csv"]).sources[0]
    h = src.results["hierarchical_roofline"].table
    per = {k: g for k, g in h.groupby(h["name"].astype(str).str.split("(").str[0])}
    # saxpy: 2 FLOP per element; its L1 traffic is x read, y read, y written: 3 × 4 bytes per element
    assert per["saxpy"]["flops"].iloc[0] == pytest.approx(2 * N_SAXPY, rel=1e-5)
    l1 = per["saxpy"].set_index("level").loc["l1", "bytes"]
    assert l1 == pytest.approx(3 * 4 * N_SAXPY, rel=1e-3)
    # gemm_wmma: bf16 tensor-core 2·2048³, reported in both the per-type total and the HMMA breakdown
    row = next(r for r in raw_rows("h200_kernels_raw.csv") if r["Kernel Name"].startswith("gemm_wmma"))
    # (ncu prints these with thousands separators)
    assert float(row["sm__ops_path_tensor_src_bf16_dst_fp32.sum"].replace(",", "")) == 2 * G ** 3
    assert float(row["sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum"].replace(",", "")) == 2 * G ** 3
    assert per["gemm_wmma"]["flops"].iloc[0] == pytest.approx(2 * G ** 3, rel=1e-5)  # not 4·2048³


def test_torch_gemm_tensor_flops_once_in_both_rooflines():
    src = gpulens.analyze([H200 / "h200_torch_raw.csv"]).sources[0]
    gemm = roofline_row(src, "nvjet_sm90")
    assert gemm["flops"] == 2 * N_TORCH ** 3 and gemm["precision"] == "bf16"
    h = src.results["hierarchical_roofline"].table
    assert set(h.loc[h["name"].astype(str).str.startswith("nvjet_sm90"), "flops"]) == {2 * N_TORCH ** 3}


def _details_rules(name: str) -> list[dict]:
    with open(H200 / name, newline="") as fh:
        return [r for r in csv.DictReader(fh) if r["Rule Name"]]


def test_local_speedup_estimates_put_no_time_at_stake():
    rules = _details_rules("h200_torch_details.csv")
    local = {(r["Rule Name"], r["Kernel Name"]) for r in rules if r["Estimated Speedup Type"] == "local"}
    glob = {(r["Rule Name"], r["Kernel Name"]) for r in rules if r["Estimated Speedup Type"] == "global"}
    assert ("HighPipeUtilization", next(k for _, k in local if "MulFunctor" in k)) in local
    src = gpulens.analyze([H200 / "h200_torch_details.csv"]).sources[0]
    t = src.results["ncu_rules"].table
    for row in t.itertuples():
        key = (row.rule, row.kernel)
        if key in local and key not in glob:
            assert pd.isna(row.time_at_stake_ns) and row.speedup_type == "local", key
    fs = [f for f in src.results["ncu_rules"].findings if "HighPipeUtilization" in f.title and "MulFunctor" in f.kernel]
    assert len(fs) == 1 and fs[0].time_at_stake_ns is None and "less time" not in fs[0].title
    assert "local estimate" in fs[0].title and fs[0].severity == "info"
    # the run's first finding carries a figure from a global estimate or an analysis, not a local one
    top = src.findings()[0]
    assert top.time_at_stake_ns is not None and "local estimate" not in top.title


def test_a_rule_speaks_with_its_advice_not_with_a_collection_note():
    rules = _details_rules("h200_torch_details.csv")
    mul = next(r["Kernel Name"] for r in rules if "MulFunctor" in r["Kernel Name"])
    mine = [r for r in rules if r["Rule Name"] == "CPIStall" and r["Kernel Name"] == mul]
    # ncu writes three CPIStall messages on this launch: a WRN note, the OPT advice with the estimate, an INF pointer
    assert [r["Rule Type"] for r in mine] == ["WRN", "OPT", "INF"]
    assert mine[0]["Rule Description"].startswith("The optional metric")
    advice = mine[1]
    src = gpulens.analyze([H200 / "h200_torch_details.csv"]).sources[0]
    t = src.results["ncu_rules"].table
    row = t[(t["rule"] == "CPIStall") & (t["kernel"] == mul)].iloc[0]
    assert row["type"] == "OPT" and row["description"] == advice["Rule Description"]
    assert row["max_speedup_pct"] == pytest.approx(float(advice["Estimated Speedup"]))
    f = next(f for f in src.results["ncu_rules"].findings if f.key == f"ncu/CPIStall/{mul}")
    assert "optional metric" not in f.detail and "optional metric" not in (f.action or "")


def test_ncu_rep_reads_the_same_counts():
    pytest.importorskip("ncu_report")
    src = gpulens.analyze([H200 / "h200_kernels.ncu-rep"]).sources[0]
    assert src.timeline.meta.devices[0]["name"] == "NVIDIA H200"
    assert roofline_row(src, "gemm_naive")["flops"] == pytest.approx(2 * G ** 3, rel=1e-5)


def test_kineto_workload_graph_launches_and_exposed_copies():
    ev = json.load(gzip.open(H200 / "h200_kineto.pt.trace.json.gz"))["traceEvents"]
    graph_calls = [e for e in ev if e.get("name") == "cudaGraphLaunch"]
    corr = {e["args"]["correlation"] for e in graph_calls}
    graph_kernels = [e for e in ev if e.get("cat") == "kernel" and e["args"].get("correlation") in corr]
    d2h = [e for e in ev if e.get("cat") == "gpu_memcpy" and "DtoH" in e["name"]]
    copies = [e for e in ev if e.get("cat") == "gpu_memcpy"]
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    # no kernel runs during a device→host copy (the workload synchronises around it)
    assert not any(k["ts"] < c["ts"] + c["dur"] and c["ts"] < k["ts"] + k["dur"] for c in d2h for k in kernels)
    src = gpulens.analyze([H200 / "h200_kineto.pt.trace.json.gz"]).sources[0]
    lt = src.results["launches"].table.set_index("launch_name")
    assert lt.loc["cudaGraphLaunch", "calls"] == len(graph_calls) == 3
    assert lt.loc["cudaGraphLaunch", "gpu_events"] == len(graph_kernels) == 9  # 3 kernels per replay
    b = src.results["breakdown"].table.iloc[0]
    assert sum(c["dur"] for c in d2h) * 1e3 <= b["exposed_memcpy_ns"] <= sum(c["dur"] for c in copies) * 1e3 + 1
    assert src.results["verdicts"].summary["run_verdict"] == "memcpy-bound"


def test_cudnn_attention_ops_get_forward_and_twice_forward_flops():
    """torch 2.11 on the H200 runs SDPA through cuDNN: the kernels hang under ``aten::_cudnn_attention_forward`` /
    ``_backward`` (FLOPs were unknown), and ``_scaled_dot_product_cudnn_attention_backward`` was given the
    forward's FLOPs. Backward = 2 × forward (PyTorch's sdpa_backward_flop_count: dV, dP, dQ, dK); the calls record
    is_causal=True (Kineto's Concrete Inputs), which halves both (the full score matrix was counted)."""
    ev = json.load(gzip.open(H200 / "h200_compiled.pt.trace.json.gz"))["traceEvents"]
    fwd = [e for e in ev if e.get("name") == "aten::_cudnn_attention_forward"]
    bwd = [e for e in ev if e.get("name") == "aten::_cudnn_attention_backward"]
    b, h, n, d = fwd[0]["args"]["Input Dims"][0]           # q [B, H, N, d]
    assert bwd[0]["args"]["Input Dims"][1] == [b, h, n, d]  # backward: grad_out first, then q
    # is_causal as recorded: argument 10 of _cudnn_attention_forward, 14 of _backward (native_functions.yaml)
    assert {e["args"]["Concrete Inputs"][10] for e in fwd} == {e["args"]["Concrete Inputs"][14] for e in bwd} == {"True"}
    per_fwd = b * h * (2 * n * n * d + 2 * n * n * d) // 2  # QKᵀ and PV over the causal lower triangle
    src = gpulens.analyze([H200 / "h200_compiled.pt.trace.json.gz"]).sources[0]
    a = src.results["attention_shapes"].table.set_index("op")
    assert set(a["causal"]) == {"yes"}
    assert a.loc["aten::_cudnn_attention_forward", "flops"] == len(fwd) * per_fwd
    assert a.loc["aten::_cudnn_attention_backward", "flops"] == len(bwd) * 2 * per_fwd
    r = src.results["roofline"].table
    bprop = r[r["name"].astype(str).str.contains("sdpa_sm90_flash_bprop")]
    assert len(bprop) == 1 and bprop["flops"].iloc[0] > 0 and bprop["precision"].iloc[0] == "bf16"


def test_flash_backward_cross_attention_reads_q_k_v_after_grad_out():
    from gpulens.analyzers._flop_models import op_cost

    bb, nq, nkv, hh, d, dv = 2, 128, 512, 8, 64, 32     # [B, N, H, d] layout of _flash_attention_*
    dims = [[bb, nq, hh, dv], [bb, nq, hh, d], [bb, nkv, hh, d], [bb, nkv, hh, dv], [bb, nq, hh, dv]]
    types = ["c10::BFloat16"] * 5
    c = op_cost("aten::_flash_attention_backward", json.dumps(dims), json.dumps(types))
    assert c.flops == 2 * bb * hh * (2 * nq * nkv * d + 2 * nq * nkv * dv)
    # read Q, K, V, O, dO and write dQ, dK, dV: 2·(Q + K + V) + O + dO, 2 bytes each
    q, k, v, o = bb * nq * hh * d, bb * nkv * hh * d, bb * nkv * hh * dv, bb * nq * hh * dv
    assert c.bytes == 2 * (2 * (q + k + v) + 2 * o)
    fwd = op_cost("aten::_flash_attention_forward", json.dumps(dims[1:4]), json.dumps(types[1:4]))
    assert fwd.flops * 2 == c.flops


def test_ncu_rep_rule_types_and_estimates_match_its_csv_export():
    """The .ncu-rep stores an estimate's type with ``ncu_report.SpeedupType`` (UNKNOWN 0, LOCAL 1, GLOBAL 2); read
    against the rule API's ``IFrontend.SpeedupType_LOCAL`` (0) every local estimate was taken for a global one. The
    same capture's ``--page details`` CSV, written by ncu itself, is the reference."""
    pytest.importorskip("ncu_report")
    want = {}
    for r in _details_rules("h200_kernels_details.csv"):
        if r["Estimated Speedup"]:
            want[(int(r["ID"]), r["Rule Name"], round(float(r["Estimated Speedup"]), 2))] = r["Estimated Speedup Type"]
    assert set(want.values()) == {"local", "global"}
    from gpulens.collectors import collect

    rules = collect(H200 / "h200_kernels.ncu-rep").tables["ncu_rules"]
    got = {(int(r.event_id), r.rule, round(float(r.estimated_speedup_pct), 2)): r.speedup_type  # launch order
           for r in rules.itertuples() if not pd.isna(r.estimated_speedup_pct)}
    assert got == want


def test_gpt2_lm_head_runs_narrow_load_kernels_and_the_advice_says_why():
    """GPT-2 small (transformers, random init) trained on the H200: its 50,257-token vocabulary is no multiple of 8,
    so cuBLAS runs the LM head's three GEMMs (forward, dX, dW) with sm75 ``align1`` CUTLASS kernels. Each is
    2·8192·768·50257 FLOP per call (the trace's own aten::mm Input Dims); the verdict's advice names the cause."""
    ev = json.load(gzip.open(H200 / "h200_gpt2_train.pt.trace.json.gz"))["traceEvents"]
    heads = [e["args"]["Input Dims"] for e in ev if e.get("name") == "aten::mm"
             and 50257 in sum(e["args"]["Input Dims"], [])]
    assert len(heads) == 9  # 3 profiled steps × (forward, dX, dW)
    per_call = {2 * a[0] * a[1] * b[1] for a, b in heads}
    assert per_call == {2 * 8192 * 768 * 50257}
    align1 = {e["name"] for e in ev if e.get("cat") == "kernel" and "align1" in e["name"]}
    assert len(align1) == 3
    src = gpulens.analyze([H200 / "h200_gpt2_train.pt.trace.json.gz"]).sources[0]
    r = src.results["roofline"].table.set_index("name")
    v = src.results["verdicts"].table.set_index("name")
    for name in align1:
        assert r.loc[name, "flops"] == 3 * 2 * 8192 * 768 * 50257 and r.loc[name, "precision"] == "bf16"
        advice = " ".join(v.loc[name, "next_steps"])
        assert "align1" in advice and "multiple of 8" in advice


@pytest.mark.parametrize("op, args, causal", [
    ("aten::_flash_attention_forward", ["", "", "", "", "", "128", "128", "0.0", "True", "False"], True),
    ("aten::_flash_attention_forward", ["", "", "", "", "", "128", "128", "0.0", "False", "False"], False),
    ("aten::_efficient_attention_forward", ["", "", "", "", "", "", "128", "128", "0.0", "1", "False"], True),
    ("aten::_efficient_attention_forward", ["", "", "", "", "", "", "128", "128", "0.0", "0", "False"], False),
    ("aten::scaled_dot_product_attention", ["", "", "", "", "0.0", "True", "", "False"], True),
    ("aten::_flash_attention_forward", ["", ""], None),  # too short: the caller's default stands
])
def test_recorded_is_causal_halves_attention_flops(op, args, causal):
    """is_causal read at its position in each op's signature (PyTorch native_functions.yaml); a causal call with
    Nq = Nkv does half the QKᵀ and PV work: B·H·(2·N²·d + 2·N²·dv) / 2."""
    from gpulens.analyzers._flop_models import op_cost

    bb, n, hh, d = 2, 128, 4, 64
    bnhd = op.startswith("aten::_flash") or op.startswith("aten::_efficient")
    q = [bb, n, hh, d] if bnhd else [bb, hh, n, d]
    full = bb * hh * (2 * n * n * d + 2 * n * n * d)
    c = op_cost(op, json.dumps([q, q, q]), json.dumps(["c10::BFloat16"] * 3), concrete=json.dumps(args))
    assert c.flops == (full / 2 if causal else full)
    default = op_cost(op, json.dumps([q, q, q]), json.dumps(["c10::BFloat16"] * 3), causal=True,
                      concrete=json.dumps(args))
    assert default.flops == (full if causal is False else full / 2)  # the recorded flag wins over the default


def test_ncu_details_export_without_a_device_name_is_told_apart_by_its_dram_clock():
    """An ncu details export names no GPU: compute capability 9.0 with 132 SMs was always taken for an H100 SXM
    (3.35 TB/s), so this H200 capture was judged against the wrong memory roof. Its SpeedOfLight "DRAM Frequency"
    (3.20 GHz here) is an H200's HBM3e clock (nvidia-smi: 3201 MHz); an H100 SXM's HBM3 runs at 2619 MHz
    (2619 MHz × 2 × 5120 bit / 8 = 3.35 TB/s)."""
    rows = [r for r in csv.DictReader(open(H200 / "h200_torch_details.csv", newline=""))
            if r["Metric Name"] == "DRAM Frequency"]
    assert {r["Metric Unit"].lower() for r in rows} == {"ghz"}
    assert all(3.19 <= float(r["Metric Value"]) <= 3.21 for r in rows)
    src = gpulens.analyze([H200 / "h200_torch_details.csv"]).sources[0]
    assert src.device.name == "NVIDIA H200 SXM"
    assert "DRAM clock (3.20 GHz)" in src.device.note and "NVIDIA H100 SXM" not in src.device.note  # 1st launch
    assert src.device.memory_bandwidth == 4.8e12


def test_a_dram_clock_far_from_every_part_leaves_the_choice_as_it_was():
    from gpulens.devices import identify_device

    h100 = identify_device({"compute_capability": "9.0", "num_sms": 132, "memory_clock_hz": 2.62e9})
    assert h100.name == "NVIDIA H100 SXM" and "2.62 GHz" in h100.note
    odd = identify_device({"compute_capability": "9.0", "num_sms": 132, "memory_clock_hz": 9.9e9})
    assert odd.name == identify_device({"compute_capability": "9.0", "num_sms": 132}).name == "NVIDIA H100 SXM"


def test_resnet_convolutions_get_flops_from_their_recorded_stride_and_padding():
    """ResNet-18 on the H200: every cuDNN convolution call, forward and backward, gets 2·N·Cout·Hout·Wout·(Cin/g)·kh·kw
    FLOPs per gradient it computes, its output size from the stride/padding/dilation the call recorded in Kineto's
    Concrete Inputs (before: unknown — the conv kernels were a quarter of the roofline's critical time left blank).
    The expected values are computed here from the raw events with the textbook output-size formula."""
    from gpulens.analyzers._flop_models import op_cost

    ev = json.load(gzip.open(H200 / "h200_resnet18_train.pt.trace.json.gz"))["traceEvents"]

    def hand(x, w, pad, stride, dil, groups):
        out = [(i + 2 * p - d * (k - 1) - 1) // s + 1 for i, p, d, k, s in zip(x[2:], pad, dil, w[2:], stride)]
        return 2 * x[0] * w[0] * out[0] * out[1] * (x[1] // groups) * w[2] * w[3]

    fwd = [e for e in ev if e.get("name") == "aten::cudnn_convolution"]
    bwd = [e for e in ev if e.get("name") == "aten::convolution_backward"]
    assert len(fwd) == len(bwd) == 60  # 20 convolutions × 3 profiled steps
    stem = 0
    for e in fwd:  # cudnn_convolution(self, weight, padding, stride, dilation, groups, …)
        a, c = e["args"]["Input Dims"], e["args"]["Concrete Inputs"]
        want = hand(a[0], a[1], json.loads(c[2]), json.loads(c[3]), json.loads(c[4]), int(c[5]))
        got = op_cost(e["name"], json.dumps(a), json.dumps(e["args"]["Input type"]), concrete=json.dumps(c))
        assert got is not None and got.flops == want and got.precision == "bf16"
        stem += a[1] == [64, 3, 7, 7]
    assert stem == 3  # the 7×7 stride-2 stem: 2·64·64·112·112·3·49 = 15.1 GFLOP per call
    for e in bwd:  # convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, …, mask)
        a, c = e["args"]["Input Dims"], e["args"]["Concrete Inputs"]
        mask = json.loads(c[10].lower())
        f = hand(a[1], a[2], json.loads(c[5]), json.loads(c[4]), json.loads(c[6]), int(c[9]))
        assert a[0][2:] == [(i + 2 * p - (k - 1) - 1) // s + 1 for i, p, k, s in
                            zip(a[1][2:], json.loads(c[5]), a[2][2:], json.loads(c[4]))]  # grad_output is the output
        got = op_cost(e["name"], json.dumps(a), json.dumps(e["args"]["Input type"]), concrete=json.dumps(c))
        assert got.flops == f * mask[0] + f * mask[1] + (a[0][0] * a[0][1] * a[0][2] * a[0][3]) * mask[2]
    src = gpulens.analyze([H200 / "h200_resnet18_train.pt.trace.json.gz"]).sources[0]
    r = src.results["roofline"].table
    conv = r[r["name"].astype(str).str.contains("xmma_(?:fprop|dgrad|wgrad)")]
    assert len(conv) and conv["flops"].notna().all() and (conv["roof_pct"] <= 100).all()


@pytest.mark.parametrize("args, out", [
    (["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "1"], 30),        # conv2d 3×3, no padding: 32 − 2
    (["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"], 16),        # stride 2, padding 1: ⌊(32 + 2 − 2 − 1)/2⌋ + 1
    (["", "", "", "[1, 1]", "[2, 2]", "[2, 2]", "1"], 32),        # dilation 2 with padding 2 keeps the size
    (["", "", "", "[1, 1]", "\"same\"", "[1, 1]", "1"], 32),      # padding='same'
    (["", "", "", "1", "0", "1", "1"], 30),                       # scalars broadcast to both dims
])
def test_conv2d_output_size_from_recorded_arguments(args, out):
    from gpulens.analyzers._flop_models import op_cost

    x, w = [4, 16, 32, 32], [8, 16, 3, 3]
    c = op_cost("aten::conv2d", json.dumps([x, w, [], [], [], [], []]),
                json.dumps(["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar"]),
                concrete=json.dumps(args))
    assert c.flops == 2 * 4 * 8 * out * out * 16 * 9


def test_conv_without_recorded_arguments_stays_unknown():
    from gpulens.analyzers._flop_models import op_cost

    assert op_cost("aten::cudnn_convolution", "[[1, 3, 8, 8], [4, 3, 3, 3]]", '["float", "float"]') is None


def test_ncu_chart_series_are_not_counted_as_impossible_percentages():
    """The raw export prints the Occupancy section's graph data (derived__pct_occupancy_per_block_size = 5706) with
    unit %: no percentage of anything, so no "percentage above 100 dropped" warning names it. Nor does it name the
    l1tex/sm__warps_active ….max.pct_of_peak_sustained_active values above 100 on short kernels: the busiest SM over
    the average SM's active cycles, above 100 by definition (gpulens.timeline.percent.exceeds_100_by_design). The
    warning counts the rest, the real impossible ones."""
    import re

    from gpulens.collectors import collect

    with open(H200 / "h200_kernels_raw.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    units, data = rows[0], rows[1:]

    def above(m):
        return sum(1 for r in data if r[m].replace(",", "").replace(".", "", 1).isdigit()
                   and float(r[m].replace(",", "")) > 100)

    pct = [m for m, u in units.items() if u == "%" and not m.startswith("derived__pct_occupancy")]
    rollup = [m for m in pct if re.search(r"[.]max[.]pct_of_peak_sustained_active$", m)]
    over = sum(above(m) for m in pct if m not in rollup)
    assert sum(above(m) for m in rollup) > 0 and float(data[0]["derived__pct_occupancy_per_block_size"]) > 100
    tl = collect(H200 / "h200_kernels_raw.csv")
    warn = [w for w in tl.meta.warnings if "above 100 dropped" in w]
    if over:
        assert len(warn) == 1 and warn[0].startswith(f"{over:,} percentage counter value{'s' if over != 1 else ''}")
    else:
        assert warn == []
    kept = tl.counters[tl.counters["metric"].astype(str).isin(rollup)]
    assert (kept["value"] > 100).sum() == sum(above(m) for m in rollup)  # kept, as recorded


def test_h200_bf16_gemm_is_judged_against_the_achievable_roof_an_h100_gets():
    """The H200 and the H100 SXM share the GH100's tensor cores at 1980 MHz: an H100 was judged against the 795
    TFLOP/s achievable bf16 peak (MAMF) and an H200 against the 989.4 datasheet peak, so one cuBLAS GEMM read
    96.6 % on one and 77.1 % on the other. Expected: 2·4096³ / its ncu duration, over 795 TFLOP/s."""
    row = next(r for r in raw_rows("h200_torch_raw.csv") if r["Kernel Name"].startswith("nvjet_sm90"))
    dur = duration_ns(row, "h200_torch_raw.csv")
    src = gpulens.analyze([H200 / "h200_torch_raw.csv"]).sources[0]
    gemm = roofline_row(src, "nvjet_sm90")
    assert gemm["peak_flops_per_s"] == 795e12
    assert gemm["roof_pct"] == pytest.approx(100 * (2 * N_TORCH ** 3 / (dur / 1e9)) / 795e12, rel=1e-6)


def test_a_pageable_async_copy_holds_the_host_as_a_synchronous_copy_does():
    """Three 16 MiB device→pageable cudaMemcpyAsync calls held the host ~1 ms past their copies (CUDA: an async copy
    with pageable memory "might be synchronous with respect to host"): the GPU idle then was "waiting for the
    host" (advice: move data loading off the host) instead of "the host blocked in a synchronous copy". Expected:
    the idle time inside blocking host calls (cuda*Synchronize, and async copy calls whose copy is Pageable),
    computed here from the raw events."""
    ev = json.load(gzip.open(H200 / "h200_kineto.pt.trace.json.gz"))["traceEvents"]
    gpu = sorted((e["ts"] * 1e3, (e["ts"] + e["dur"]) * 1e3) for e in ev
                 if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    busy = interval_union(gpu)
    gaps = [(a[1], b[0]) for a, b in zip(busy, busy[1:])]
    rt = [e for e in ev if e.get("cat") == "cuda_runtime"]
    pageable = {e["args"]["correlation"] for e in ev if e.get("cat") == "gpu_memcpy" and "Pageable" in e["name"]}
    blocking = sorted((e["ts"] * 1e3, (e["ts"] + e["dur"]) * 1e3) for e in rt
                      if "Synchronize" in e["name"] or (e["name"] == "cudaMemcpyAsync"
                                                        and e["args"].get("correlation") in pageable))
    assert len(pageable) == 3
    merged = interval_union(blocking)
    # a gap whose next GPU work was enqueued before it began is the GPU waiting on queued work (another stream), not
    # on the host: no host call explains it
    call_end = {e["args"].get("correlation"): (e["ts"] + e["dur"]) * 1e3 for e in rt}
    starts = {e["ts"] * 1e3: e["args"].get("correlation") for e in ev
              if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")}
    waits = [(gs, ge) for gs, ge in gaps if not call_end.get(starts.get(ge), float("inf")) <= gs]
    want = sum(max(0.0, min(ge, be) - max(gs, bs)) for gs, ge in waits for bs, be in merged)
    from gpulens.analyzers.bottlenecks import classify_gaps

    src = gpulens.analyze([H200 / "h200_kineto.pt.trace.json.gz"]).sources[0]
    got = classify_gaps(src.timeline)["sync_ns"].sum()
    assert want > 3e6 and got == pytest.approx(want, abs=len(gaps) * 2)  # ns rounding per gap
    idle = next(f for f in src.findings() if f.title.startswith("GPU idle"))
    assert "with the host blocked in synchronisations or synchronous copies" in idle.title.split(":")[1].split(",")[0]


def test_exposed_copies_finding_names_the_pageable_copies_and_their_bandwidth():
    """The exposed-copy advice was generic ("use pinned memory") although the trace names its copies "Memcpy DtoH
    (Device -> Pageable)" at ~2 GB/s and "Memcpy HtoD (Pinned -> Device)" at ~55 GB/s: the pageable ones, 24.93 of
    the 28.49 ms, are named with their count, time and bandwidth (bytes / time from the raw events)."""
    from gpulens.units import fmt_ns

    ev = json.load(gzip.open(H200 / "h200_kineto.pt.trace.json.gz"))["traceEvents"]
    page = [e for e in ev if e.get("cat") == "gpu_memcpy" and "Pageable" in e["name"]]
    ns = round(sum(e["dur"] for e in page) * 1e3)
    rate = sum(e["args"]["bytes"] for e in page) / ns  # bytes per ns = GB/s
    src = gpulens.analyze([H200 / "h200_kineto.pt.trace.json.gz"]).sources[0]
    f = next(f for f in src.findings() if f.key == "exposed-memcpy")
    assert f.detail.startswith(f"{len(page)} copies to or from pageable host memory take {fmt_ns(ns)} at "
                               f"{rate:.1f} GB/s")
    assert "pin_memory" in f.detail


def test_one_kernel_name_over_two_problem_sizes_is_no_outlier():
    """cuBLAS ran the workload's 4096³ GEMM (grid 2×66) and its 2048³ side-stream GEMM (grid 2×64) with one kernel
    name: against the name's median the 178 µs launches were "outliers" of the 25 µs ones. Judged per grid, none
    is: every launch is within 1.5× its grid's median (the raw durations, read here)."""
    import statistics

    ev = json.load(gzip.open(H200 / "h200_kineto.pt.trace.json.gz"))["traceEvents"]
    gemm = [e for e in ev if e.get("cat") == "kernel" and e["name"].startswith("nvjet_sm90")]
    by_grid = {}
    for e in gemm:
        by_grid.setdefault(tuple(e["args"]["grid"]), []).append(e["dur"])
    assert len(by_grid) == 2
    med_all = statistics.median(e["dur"] for e in gemm)
    assert max(e["dur"] for e in gemm) >= 1.5 * med_all  # one median for both sizes: the big ones stand out
    assert all(max(d) < 1.5 * statistics.median(d) for d in by_grid.values())
    src = gpulens.analyze([H200 / "h200_kineto.pt.trace.json.gz"]).sources[0]
    t = src.results["kernel_outliers"].table
    assert not t["name"].astype(str).str.startswith("nvjet_sm90").any()


def test_kernels_waiting_in_a_deep_queue_are_not_told_to_save_launch_calls():
    """GPT-2: a copy kernel's launches run shorter than their launch calls, but they wait ~3.4 ms (p50) between call
    and start behind hundreds of queued kernels: the launch calls did not keep the GPU waiting, so "51 % of its
    launches run shorter than their launch call: fuse it … would not pay back the launch" is no reason. The p50
    wait and the short share are computed here from the raw events."""
    import statistics

    ev = json.load(gzip.open(H200 / "h200_gpt2_train.pt.trace.json.gz"))["traceEvents"]
    src = gpulens.analyze([H200 / "h200_gpt2_train.pt.trace.json.gz"]).sources[0]
    v = src.results["verdicts"].table
    name = next(n for n in v["name"] if "direct_copy_kernel_cuda" in n and n.startswith("void at::native::unrolled"))
    rt = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime"}
    ks = [e for e in ev if e.get("cat") == "kernel" and e["name"] == name and e["args"]["correlation"] in rt]
    wait = statistics.median(e["ts"] - rt[e["args"]["correlation"]]["ts"] for e in ks)
    short = sum(e["dur"] < rt[e["args"]["correlation"]]["dur"] for e in ks) / len(ks)
    assert wait >= 50 and short >= 0.5  # µs: queued far longer than any launch call; most launches short
    steps = " ".join(v.set_index("name").loc[name, "next_steps"])
    assert "shorter than their launch call" not in steps


def test_below_roofs_finding_of_an_align1_gemm_names_the_alignment_not_small_grids():
    """GPT-2's LM-head GEMMs (align1 CUTLASS kernels, 25,600 blocks) ran below both roofs; the roofline finding's
    detail blamed "small grids, short kernels, dependent loads" beside the verdict's alignment fix."""
    src = gpulens.analyze([H200 / "h200_gpt2_train.pt.trace.json.gz"]).sources[0]
    fs = [f for f in src.results["roofline"].findings if "align1" in (f.kernel or "") and "below both roofs" in f.title]
    assert len(fs) == 3
    from gpulens.analyzers._tree import SAME_STEP

    for f in fs:  # the alignment step is the verdict's, which this finding details: said once, there (s35)
        assert SAME_STEP in f.detail and "small grids" not in f.detail


def test_idle_advice_for_blocking_pageable_copies_names_pinning_not_an_unseen_wait():
    """The idle finding's next step sent the user to "find what it waited for (another process's … work the trace
    does not show)" for time the host spent inside pageable cudaMemcpyAsync calls — a cause the trace does show."""
    src = gpulens.analyze([H200 / "h200_kineto.pt.trace.json.gz"]).sources[0]
    idle = next(f for f in src.findings() if f.title.startswith("GPU idle"))
    assert "mostly in cudaMemcpyAsync" in idle.action and "pageable" in idle.action and "pin_memory" in idle.action
    assert "does not show" not in idle.action


# GPT-2 small as captured (capture/models.py): batch 8 × 1024 tokens, hidden 768, vocabulary 50257 (GPT2Config)
TOKENS, HIDDEN, VOCAB = 8 * 1024, 768, 50257


def test_align1_gemm_steps_name_the_extent_to_pad():
    """GPT-2's LM-head GEMMs ran as align1 CUTLASS kernels; the step said "pad the problem's K and N", but the
    backward's weight-gradient GEMM has the vocabulary as M. The step now names the recorded GEMM sizes and the one
    extent that is not a multiple of 8 bf16 elements (16 bytes), with the size to pad it to (50257 → 50264), in the
    verdict and in the roofline and occupancy findings of the same kernel."""
    src = gpulens.analyze([H200 / "h200_gpt2_train.pt.trace.json.gz"]).sources[0]
    v = src.results["verdicts"].table.set_index("name")
    align = [n for n in v.index if "align1" in n]
    want = {"_tn_": (TOKENS, VOCAB, HIDDEN),  # forward: logits = x · Wᵀ
            "_nn_": (TOKENS, HIDDEN, VOCAB),  # input gradient: dlogits · W
            "_nt_": (VOCAB, HIDDEN, TOKENS)}  # weight gradient: dlogitsᵀ · x
    assert len(align) == 3
    for n in align:
        mnk = next(x for layout, x in want.items() if layout in n)
        step = v.loc[n, "next_steps"][0]
        assert f"M×N×K {'×'.join(map(str, mnk))}" in step
        assert f"pad {VOCAB} to {-(-VOCAB // 8) * 8}" in step and "K and N" not in step
        same = [f for f in src.findings() if f.key in (f"roofline:{n}", f"occupancy/{n}/limiter")]
        # under the verdict, its roofline and occupancy findings point to that step, said once (s35)
        assert len(same) == 2 and all(step not in (f.detail or "") + (f.action or "") for f in same)
        assert all("The same next step as the finding above: this kernel's verdict." in (f.detail or "") + (f.action or "")
                   for f in same)


def test_library_gemm_register_limit_puts_no_time_at_stake():
    """The same kernels' occupancy finding put 17.53 ms at stake on "Registers limit occupancy to 12 %" — a
    tensor-core GEMM tile's normal occupancy (the library chose it: latency hidden by ILP and async copies). No
    time at stake; a user kernel with the same limit still gets one (tests/test_occupancy*.py)."""
    src = gpulens.analyze([H200 / "h200_gpt2_train.pt.trace.json.gz"]).sources[0]
    fs = [f for f in src.results["occupancy"].findings if "align1" in (f.kernel or "") and f.key.endswith("/limiter")]
    assert len(fs) == 3
    for f in fs:
        assert f.time_at_stake_ns is None and "not its lever" in f.detail and "at most" not in f.detail


def test_every_kernel_of_a_small_ncu_capture_gets_a_verdict():
    """The four-kernel ncu capture (kernels.cu profiled on purpose with ncu) gave a verdict to gemm_naive alone: the
    critical set (80 % of the replay's time) held only it. A counter-collection replay of a few kernels puts each in
    the set: roofline, occupancy and verdict for every profiled kernel."""
    names = {r["Kernel Name"] for r in raw_rows("h200_kernels_raw.csv")}
    assert len(names) == 4
    for f in ("h200_kernels_raw.csv", "h200_kernels_details.csv", "h200_kernels.ncu-rep"):
        if f.endswith(".ncu-rep"):
            pytest.importorskip("ncu_report", reason="the .ncu-rep reader needs Nsight Compute's ncu_report module")
        src = gpulens.analyze([H200 / f]).sources[0]
        assert set(src.results["verdicts"].table["name"]) == names, f
        assert src.results["hotspots"].summary["every_profiled_kernel"] is True


def test_one_block_kernel_is_latency_bound_not_l1_bound():
    """tiny(float *) — one block of 32 threads on a 132-SM H200 — read "memory-bound: busiest memory unit L1 (83 %)":
    ncu's L1/TEX throughput is a % of the cycles the unit was *active* (l1tex__throughput.avg.pct_of_peak_sustained_
    active), while the SMs were active 0.25 % of the run. Over the run (× SM active cycles / elapsed cycles) it is
    0.2 %; with compute and memory throughput under 60 % too, Nsight Compute's SOLBottleneck rule says latency."""
    row = next(r for r in raw_rows("h200_kernels_raw.csv") if r["Kernel Name"].startswith("tiny"))
    num = lambda k: float(row[k].replace(",", ""))  # noqa: E731
    l1_run = num("l1tex__throughput.avg.pct_of_peak_sustained_active") * num("sm__cycles_active.avg") / \
        num("gpc__cycles_elapsed.max")
    assert num("l1tex__throughput.avg.pct_of_peak_sustained_active") > 80 and l1_run < 1
    assert num("sm__throughput.avg.pct_of_peak_sustained_elapsed") < 60
    assert num("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") < 60
    src = gpulens.analyze([H200 / "h200_kernels_raw.csv"]).sources[0]
    sol = src.results["speed_of_light"].table.set_index("name")
    v = src.results["verdicts"].table.set_index("name")
    name = row["Kernel Name"]
    assert sol.loc[name, "bound"] == "latency" and v.loc[name, "verdict"] == "latency/occupancy-bound"
    assert sol.loc[name, "l1_pct"] == pytest.approx(num("l1tex__throughput.avg.pct_of_peak_sustained_active"))
    # a kernel that fills the GPU keeps its L1 figure: gemm_naive's SMs were active 99 % of its run
    naive = next(r for r in raw_rows("h200_kernels_raw.csv") if r["Kernel Name"].startswith("gemm_naive"))
    assert sol.loc[naive["Kernel Name"], "bound"] == "memory"


def test_cudnn_attention_is_not_told_to_set_cudnn_benchmark():
    """cuDNN's attention kernels (cudnn_generated_fort_native_sdpa_…, torch.compile'd block on the H200) were told
    "let it pick another algorithm (torch.backends.cudnn.benchmark = True tries them)": benchmark mode tries cuDNN's
    convolution algorithms only. An attention kernel's other algorithm is another SDPA backend; a cuDNN convolution
    (ResNet-18) keeps the benchmark advice."""
    v = gpulens.analyze([H200 / "h200_compiled.pt.trace.json.gz"]).sources[0].results["verdicts"].table
    attn = [" ".join(s) for n, s in zip(v["name"], v["next_steps"]) if "native_sdpa" in n]
    assert attn and all("cudnn.benchmark" not in s and "sdpa_kernel" in s for s in attn)
    from gpulens.analyzers._advice import limiter

    conv = "void cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16_256x64_32x4_nhwc_align8>(P)"
    assert "cudnn.benchmark = True" in limiter("registers", conv, pytorch=True, latency_bound=True)


def test_a_batch_norm_pass_is_not_called_one_fused_kernel():
    """ResNet-18's batch_norm_backward_elemt_channels_last_kernel was told "it is already one fused batch norm
    kernel (statistics, normalisation and scale in one launch)": PyTorch's CUDA batch norm runs as several launches
    (collect_statistics + transform_input forward, backward_reduce + backward_elemt backward) — this trace has all
    four. The step names it as one of them; a LayerNorm kernel keeps the one-fused-kernel step."""
    with gzip.open(H200 / "h200_resnet18_train.pt.trace.json.gz", "rt") as fh:
        names = {e["name"] for e in json.load(fh)["traceEvents"] if e.get("cat") == "kernel"}
    for part in ("collect_statistics", "transform_input", "backward_reduce", "backward_elemt"):
        assert any(f"batch_norm_{part}" in n for n in names), part
    v = gpulens.analyze([H200 / "h200_resnet18_train.pt.trace.json.gz"]).sources[0].results["verdicts"].table
    steps = " ".join(" ".join(s) for n, s in zip(v["name"], v["next_steps"]) if "batch_norm" in n)
    assert "already one fused batch norm" not in steps
    from gpulens.analyzers._advice import fuse_step

    ln = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int)"
    assert fuse_step(True, "normalisation", ln).startswith("it is already one fused LayerNorm kernel")


def test_an_l1_bound_naive_gemm_puts_its_roofline_distance_at_stake():
    """gemm_naive (kernels.cu: one output per thread, every operand from L1) runs at 98 % of L1/TEX and 0.3 % of
    DRAM: memory-bound by its speed of light, and the stake was its distance to the L1 peak — 69 µs of 3.18 ms —
    beside a next step (register tiling) that removes most of that traffic. The stake is its distance to the
    roofline: time − FLOPs / the H200's FP32 peak (67 TFLOP/s, datasheet), FLOPs = 2·2048³ from the source. The
    roofline finding no longer says "neither compute nor memory bandwidth bounds it" under a memory-bound verdict."""
    row = next(r for r in raw_rows("h200_kernels_raw.csv") if r["Kernel Name"].startswith("gemm_naive"))
    t = duration_ns(row, "h200_kernels_raw.csv")
    src = gpulens.analyze([H200 / "h200_kernels_raw.csv"]).sources[0]
    v = src.results["verdicts"].table
    naive = v[v["name"].astype(str).str.startswith("gemm_naive")].iloc[0]
    assert naive["verdict"] == "memory-bound"
    assert naive["time_at_stake_ns"] == pytest.approx(t - 2 * G ** 3 / 66.9e12 * 1e9, rel=0.01)
    assert "register tiling" in naive["next_steps"][0]
    f = next(f for f in src.findings() if f.key == f"roofline:{naive['name']}")
    assert "Neither compute nor memory" not in f.detail and "measured speed of light: memory-bound" in f.title


def test_a_log_softmax_kernel_is_not_told_to_use_attention():
    """GPT-2's cunn_SoftMaxForward<…, LogSoftMaxForwardEpilogue> (aten::_log_softmax over 8192 × 50257: the loss)
    was told "for attention, scaled_dot_product_attention instead of matmul + softmax" — in a model already on
    cuDNN SDPA. A log-softmax is a loss: the step names a fused cross-entropy; a plain softmax keeps the SDPA hint."""
    from gpulens.analyzers._kernel_owner import owned_kernel_step

    src = gpulens.analyze([H200 / "h200_gpt2_train.pt.trace.json.gz"]).sources[0]
    v = src.results["verdicts"].table
    steps = [" ".join(s) for n, s in zip(v["name"], v["next_steps"]) if "LogSoftMax" in n]
    assert steps and all("scaled_dot_product_attention" not in s for s in steps)
    plain = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, SoftMaxForwardEpilogue>"
    assert "scaled_dot_product_attention" in owned_kernel_step(plain, "normalisation")


def test_kernel_page_stall_reasons_carry_their_unit():
    """The kernel page listed "Top reasons: lg_throttle: 40.33, long_scoreboard: 32.45, …": numbers without a unit
    (a dict printed as text). Each reason now reads "name share %", largest first, the share of stall time the
    stalls table holds for that kernel."""
    import re

    from gpulens.reports import html

    rep = gpulens.analyze([H200 / "h200_kernels_raw.csv"])
    page = html.render(rep)
    lines = re.findall(r"Top reasons \(share of stall time\): ([^<]*)", page)
    assert lines
    st = rep.sources[0].results["stalls"].table
    reasons = {r for d in st["reasons"] for r in d}
    for line in lines:
        items = [re.fullmatch(r"(\w+) (\d+\.\d) %", x.strip()) for x in line.split(",")]
        assert all(items) and {m.group(1) for m in items} <= reasons
        shares = [float(m.group(2)) for m in items]
        assert shares == sorted(shares, reverse=True) and sum(shares) <= 100.05
