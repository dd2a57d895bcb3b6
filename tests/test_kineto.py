"""Kineto collector against the verified facts of real traces and the hand-made edge cases."""

import gzip
import json

import pandas as pd
import pytest

import gpulens
from gpulens.collectors import collect, sniff
from gpulens.errors import TraceFormatError
from tests.conftest import CASES, KINETO, shared_trace

# (file, kernel events, kernel time µs as the plain sum of `dur`, top kernel prefix, its calls, its µs)
# Values: ../shared/traces/SOURCES.md "Verified facts (kineto)" (computed there with plain json).
FACTS = [
    ("hta_alexnet_a100.json.gz", 79, 10_692.0, "ampere_sgemm_32x32_sliced1x4_tn", 6, 2621.0),
    ("hta_mi250_minitoy_rocm6.2.json.gz", 14, 110.881, "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32", 1, 17.6),
    ("hta_a100_triton_example.json.gz", 1, 1.76, "triton_poi_fused_add_cos_sin_0", 1, 1.76),
    ("hta_cpu_only_rank34.pt.trace.json.gz", 0, 0.0, None, 0, 0),
    ("tracelens_h100_bert-small.json.gz", 60, 307.197, "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2", 17, 98.718),
    ("tracelens_mi300x_bert-small.json.gz", 60, 388.344, "attn_fwd", 4, 113.656),
    ("tracelens_mi210_gpu_only.json.gz", 562, 5_343.422, "void at::native::batch_norm_backward_kernel<c10::BFloat16", 20, 844.938),
    ("aorta_mi350x_train_step.pt.trace.json", 20, 265.54, "void at::native::reduce_kernel<512, 1", 2, 54.958),
    ("multirank/sampled_rank-0.json.gz", 1154, 606_519.0, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 10, 396_199.0),
    ("multirank/sampled_rank-1.json.gz", 1104, 651_026.0, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 10, 379_053.0),
]


def top_by_raw_sum(report):
    t = report.results["hotspots"].table.sort_values("total_ns", ascending=False, kind="stable")
    return t.iloc[0] if len(t) else None


@pytest.mark.parametrize("fname,kernels,kernel_us,top_prefix,top_calls,top_us", FACTS)
def test_real_traces_match_verified_facts(fname, kernels, kernel_us, top_prefix, top_calls, top_us):
    src = gpulens.analyze([KINETO / fname]).sources[0]
    s = src.summary
    # SOURCES.md counts every `cat: kernel` event; HIP runtime blit kernels (__amd_rocclr_copy*/fill*, cat=kernel
    # on ROCm 7.x) are copies/fills since issue 13 class 4, so they are counted beside the compute kernels here
    gpu = collect(KINETO / fname).gpu_events()
    blit = gpu[gpu["name"].astype(str).str.startswith("__amd_rocclr_")]
    assert set(blit["kind"]) <= {"memcpy", "memset"}
    assert s["kernel_count"] + len(blit) == kernels
    assert s["kernel_time_ns"] + int(blit["dur_ns"].sum()) == round(kernel_us * 1000)
    top = top_by_raw_sum(src)
    if top_prefix is None:
        assert top is None
    else:
        assert top["name"].startswith(top_prefix)
        assert top["calls"] == top_calls
        assert top["total_ns"] == round(top_us * 1000)


def test_devices_and_rank_are_read():
    tl = collect(KINETO / "tracelens_h100_bert-small.json.gz")
    assert tl.meta.devices[0]["name"] == "NVIDIA H100 80GB HBM3"
    assert tl.meta.devices[0]["compute_capability"] == "9.0"
    assert tl.meta.devices[0]["num_sms"] == 132
    amd = collect(KINETO / "hta_mi250_minitoy_rocm6.2.json.gz")
    assert amd.meta.devices[0]["name"] == "AMD Radeon Graphics"
    assert amd.meta.devices[0]["warp_size"] == 64 and amd.meta.devices[0]["num_sms"] == 104
    # ROCm: kernels live on GPU pid 2 and the kernel args say device 2? device_id falls back to the pid
    k = amd.of_kind("kernel")
    assert set(k["device_id"]) <= {int(x) for x in set(k["pid"].dropna())} | set(k["device_id"])
    cpu = collect(KINETO / "hta_cpu_only_rank34.pt.trace.json.gz")
    assert cpu.ranks == [34]
    assert cpu.meta.sources[0]["distributed"]["world_size"] == 300


def test_python_functions_and_annotations_are_kinds():
    tl = collect(KINETO / "tracelens_h100_bert-small.json.gz")
    kinds = tl.events["kind"].value_counts()
    assert kinds["python"] == 1385  # SOURCES.md: 1,385 python_function events
    assert kinds["memcpy"] == 1
    assert kinds["annotation"] == 2  # ProfilerStep on host and on GPU


def test_launch_configuration_and_links_are_kept():
    tl = collect(KINETO / "tracelens_h100_bert-small.json.gz")
    k = tl.of_kind("kernel")
    assert k["grid_x"].notna().all() and k["block_x"].notna().all()
    assert k["correlation_id"].notna().all() and k["external_id"].notna().all()
    # every kernel's correlation id belongs to a runtime call of the same trace
    rt_corr = set(tl.of_kind("runtime")["correlation_id"].dropna())
    assert set(k["correlation_id"]) <= rt_corr


def test_multirank_directory_is_one_timeline():
    tl = collect(KINETO / "multirank")
    assert tl.ranks == [0, 1]
    per_rank = tl.of_kind("kernel", "comm").groupby("rank")["dur_ns"].agg(["size", "sum"])
    assert per_rank.loc[0, "size"] == 1154 and per_rank.loc[0, "sum"] == 606_519_000
    assert per_rank.loc[1, "size"] == 1104 and per_rank.loc[1, "sum"] == 651_026_000
    assert tl.events["event_id"].is_unique
    assert (tl.of_kind("comm")["name"].astype(str).str.startswith("ncclKernel")).all()


def test_torch_cpu_only_trace_reports_zero_kernels_and_its_ops():
    # made on this machine with torch.profiler (see tests/data/PROVENANCE.md): 3 × mm + relu on the CPU
    src = gpulens.analyze([KINETO / "torch2.13_cpu_only_mm.pt.trace.json"]).sources[0]
    assert src.status == "no_gpu_work"
    assert src.summary["kernel_count"] == 0
    ops = src.timeline.of_kind("cpu_op")
    assert (ops["name"] == "aten::mm").sum() == 3
    mm = ops[ops["name"] == "aten::mm"].iloc[0]
    assert json.loads(mm["input_dims"]) == [[64, 64], [64, 64]]


def test_ns_resolution_fractions_convert_exactly(tmp_path):
    # 1712195495505583.123 µs cannot be held by a float64 to the ns (its spacing there is 0.25 µs)
    trace = ('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, '
             '"ts": 1712195495505583.123, "dur": 4.928, "args": {"stream": 7, "device": 0}}], '
             '"displayTimeUnit": "ns"}')
    p = tmp_path / "ns.json"
    p.write_text(trace)
    ev = collect(p).events.iloc[0]
    assert ev["start_ns"] == 1712195495505583123
    assert ev["dur_ns"] == 4928


def test_base_time_is_added():
    tl = collect(KINETO / "hta_a100_triton_example.json.gz")
    # baseTimeNanoseconds 1727743122000000000; min ts 2413668742269.099 µs (SOURCES.md scan)
    assert tl.meta.sources[0]["base_time_ns"] == 1727743122000000000
    assert int(tl.events["start_ns"].min()) == 1727743122000000000 + 2413668742269099


@pytest.mark.parametrize("fname", ["B02.pt.trace.json.gz", "B02.renamed.json"])
def test_b02_multimember_gzip_and_renamed(fname):
    src = gpulens.analyze([CASES / fname]).sources[0]
    assert len(src.timeline.events) == 5
    assert src.summary["kernel_count"] == 4
    assert src.summary["kernel_busy_ns"] == 80_000
    assert sorted(src.results["hotspots"].table["name"]) == ["gemm_a", "gemm_b", "gemm_c", "gemm_d"]


def test_b04a_array_without_closing_bracket_is_legal():
    src = gpulens.analyze([CASES / "B04a.json"]).sources[0]
    assert src.summary["kernel_count"] == 3 and src.summary["kernel_busy_ns"] == 15_000
    assert not src.timeline.meta.truncated and src.timeline.meta.warnings == []


def test_b04b_cut_trace_keeps_complete_events_and_flags_truncation():
    src = gpulens.analyze([CASES / "B04b.json"]).sources[0]
    assert sorted(src.timeline.of_kind("kernel")["name"]) == ["k1", "k2"]
    assert src.summary["kernel_busy_ns"] == 10_000
    assert src.timeline.meta.truncated and src.status == "partial"
    (path, offset), = src.timeline.meta.truncated_at.items()
    assert 0 < offset < (CASES / "B04b.json").stat().st_size


def test_b05_metadata_only_trace_is_empty_not_an_error():
    src = gpulens.analyze([CASES / "B05a.json"]).sources[0]
    assert src.status == "no_gpu_work" and src.summary["kernel_count"] == 0
    assert list(src.results["hotspots"].table.columns)[:3] == ["name", "kind", "calls"]


def test_b06_invalid_timestamps_are_excluded_and_counted():
    src = gpulens.analyze([CASES / "B06.json"]).sources[0]
    rej = src.timeline.rejected
    assert sorted(rej["name"]) == ["aten::copy_ (unfinished)", "k_backwards", "k_unset"]
    bd = src.results["breakdown"].summary
    assert bd["busy_ns"] == 25_000
    assert bd["trace_span_ns"] == 40_000          # aten::mm [T-5, T+35]
    assert bd["gpu_utilization_pct"] == pytest.approx(62.5)


def test_b07_stream_overruns_are_clipped_not_dropped():
    src = gpulens.analyze([CASES / "B07.json"]).sources[0]
    hs = src.results["hotspots"]
    t = hs.table.set_index("name")
    assert len(t) == 4
    assert hs.table.iloc[0]["name"] == "gemm_a"
    assert t.loc["gemm_a", "effective_ns"] == 40_000 and t.loc["elementwise_c", "effective_ns"] == 30_000
    assert hs.summary["kernel_time_ns"] == 3_000_090_000  # raw sum kept
    assert hs.summary["overrun_events"] == 2
    assert hs.summary["overrun_ns"] == 10_000 + 2_999_970_000
    bd = src.results["breakdown"].summary
    assert bd["busy_ns"] == 110_000 and bd["span_ns"] == 120_000
    assert bd["busy_pct"] == pytest.approx(91.666, abs=0.01)


def test_b11_rocm_dialect_links():
    src = gpulens.analyze([CASES / "B11.json"]).sources[0]
    k = src.timeline.of_kind("kernel")
    assert len(k) == 3 and set(k["device_id"]) == {0} and set(k["stream_id"]) == {0}
    assert src.summary["kernel_busy_ns"] == 38_000
    la = src.results["launches"].summary
    assert la["launch_calls"] == 3 and la["kernels_linked"] == 2 and la["kernels_unlinked"] == 1
    assert la["launch_calls_without_gpu_work"] == 1


def test_b12_copies_are_not_compute():
    src = gpulens.analyze([CASES / "B12.json"]).sources[0]
    ev = src.timeline.events
    cp = ev[ev["kind"] == "memcpy"].sort_values("start_ns")
    assert cp["dur_ns"].tolist() == [2000, 4000, 3000]
    assert cp["bytes"].tolist()[:2] == [4096, 8192] and pd.isna(cp["bytes"].iloc[2])
    assert cp["copy_kind"].astype(str).tolist() == ["HtoD", "DtoH", "DtoD"]
    ms = ev[ev["kind"] == "memset"]
    assert ms["bytes"].tolist() == [1024]
    assert src.summary["computation_ns"] == 30_000


def test_b13_graph_launch_is_one_to_many():
    src = gpulens.analyze([CASES / "B13.json"]).sources[0]
    la = src.results["launches"]
    assert la.summary["launch_calls"] == 2 and la.summary["kernels"] == 4
    assert la.summary["kernels_unlinked"] == 0 and la.summary["gpu_events_from_graphs"] == 3
    assert la.table.set_index("launch_name").loc["cudaGraphLaunch", "gpu_events"] == 3
    assert src.summary["kernel_busy_ns"] == 65_000


@pytest.mark.parametrize("content,reason", [
    (b"", "empty"),
    (b"hello, world\n", "not a recognised"),
    (b'{"traceEvents": [', "not a readable"),
    (b"\x1f\x8b\x08\x00garbage", "gzip"),
])
def test_bad_inputs_raise_one_clear_error(tmp_path, content, reason):
    p = tmp_path / "bad.json"
    p.write_bytes(content)
    with pytest.raises(TraceFormatError, match=reason) as ei:
        collect(p)
    assert str(p) in str(ei.value) and "\n" not in str(ei.value)


def test_truncated_gzip_keeps_the_readable_part(tmp_path):
    body = json.dumps({"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 10 * i + 1, "dur": 5}
        for i in range(2000)]}).encode()
    blob = gzip.compress(body)
    p = tmp_path / "cut.json.gz"
    p.write_bytes(blob[: len(blob) // 2])
    tl = collect(p)
    assert tl.meta.truncated
    assert 0 < len(tl.of_kind("kernel")) < 2000
    names = tl.of_kind("kernel")["name"].astype(str)
    assert names.tolist() == [f"k{i}" for i in range(len(names))]  # a prefix, nothing invented


def test_sniff_is_by_content_not_extension(tmp_path):
    p = tmp_path / "trace.txt"
    p.write_bytes((CASES / "B04a.json").read_bytes())
    assert sniff(p).name == "kineto"


def test_large_legacy_and_ns_traces_from_corpus():
    legacy = collect(shared_trace("kineto/kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz"))
    k = legacy.of_kind("kernel")
    assert len(k) == 9564 and int(k["dur_ns"].sum()) == 640_354_000
    assert set(k["stream_id"]) == {7}  # tid "stream 7"
    assert legacy.of_kind("runtime")["external_id"].notna().any()  # legacy "external id"
    ns = collect(shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz"))
    k = ns.of_kind("kernel")
    assert len(k) == 4350 and int(k["dur_ns"].sum()) == 468_153_602
    assert ns.meta.devices[0]["name"] == "Tesla V100-SXM2-32GB"
