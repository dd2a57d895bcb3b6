"""Real profiler outputs (session 36, "held-back real traces"): inputs that were misread or not read at all.

1. rocprof v1 writes ``n/a`` in ``DispatchNs/BeginNs/EndNs/CompleteNs/DurationNs`` of a dispatch whose timestamps it
   never got; those rows were "unreadable timestamps" (dropped as corrupt: 1 of 2 untimed rows left out of the
   launch count). Kind: a "no value" marker read as a broken number. Now ``n/a``, ``N/A``, ``-``, ``null`` are "not
   recorded" everywhere a collector reads text times: the row is kept as an untimed launch.
2. An ``nsys stats`` kernel summary whose header prints no unit was read as ns silently; a bare ``Average`` beside
   ``Total Time (us)`` was kept as printed (1.5 "ns" for 1.5 µs). Kind: a time unit guessed, not read. Now bare time
   columns take Total Time's unit; a header without any unit is ns only in the form of nsys' old reports (whose
   documentation says ns), otherwise ns is assumed and the user told; bare totals holding fractions are refused.
3. rocprofv3 ``--stats`` files (``<pid>_kernel_stats.csv``, ``hip_api_stats.csv``, ``memory_copy_stats.csv``) beside a
   CSV trace folder were not read at all, and an API/copy summary alone reported "0 launches of 0 kernels". Now the
   folder reads them, a kernel summary is cross-checked against the kernel trace, and an API or copy summary alone
   says the kernels are unknown.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

import gpulens
from gpulens.collectors import collect

DATA = Path(__file__).parent / "data"
_V1_HEAD = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
            "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,DurationNs\n")


def _v1_row(i, name, times):
    return f'{i},"{name} [clone .kd]",2,0,{i},100,100,1024,256,0,0,8,0,16,64,0x0,0x0,{times}\n'


@pytest.mark.parametrize("marker", ["n/a", "N/A", "-", "null"])
def test_rocprof_v1_rows_without_timestamps_are_untimed_launches(tmp_path, marker):
    p = tmp_path / "results.csv"
    na = ",".join([marker] * 5)
    p.write_text(_V1_HEAD + _v1_row(0, "k1", "1000,2000,3000,3100,1000") + _v1_row(1, "k2", na)
                 + _v1_row(2, "k1", "4000,5000,7000,7100,2000") + _v1_row(3, "k2", ",,,,"))
    src = gpulens.analyze([p]).sources[0]
    hs = src.results["hotspots"].summary
    # 4 dispatch rows: k1 twice with times (1000 + 2000 ns), k2 twice with none (one "n/a"-like, one empty)
    assert hs["kernel_count"] == 4
    assert hs["untimed_launches"] == 2
    assert hs["timed_kernel_time_ns"] == 3000
    assert hs["kernel_time_ns"] is None
    said = " ".join(src.timeline.meta.warnings)
    assert "unreadable timestamp" not in said and "no timestamps recorded ×2" in said


def test_not_recorded_markers():
    from gpulens.collectors._numbers import not_recorded

    # the marker set, case-insensitive, quotes allowed; a number, text or "inf" is a value (inf: unreadable); the
    # text "nan" is the float NaN written out (Python's csv/str), read as NaN is (session 45: one behaviour in every
    # collector)
    assert all(not_recorded(v) for v in (None, "", "  ", "n/a", "N/A", '"n/a"', "-", "--", "NULL", "None",
                                         float("nan"), "nan", "NaN", '"nan"'))
    assert not any(not_recorded(v) for v in ("0", 0, "inf", "abc", "1e3"))


_NEW = "Time (%),Total Time{u},Instances,Avg{u},Med{u},Min{u},Max{u},StdDev{u},Name\n"


def _kern_sum(tmp_path, header, rows, name="kern_sum.csv"):
    p = tmp_path / name
    p.write_text(header + "".join(rows))
    return collect(p)


def test_nsys_stats_header_without_units_says_ns_is_assumed(tmp_path):
    tl = _kern_sum(tmp_path, _NEW.format(u=""), ['75.0,3000,2,1500.0,1500.0,1000,2000,707.1,"k(int, float)"\n',
                                                 "25.0,1000,1,1000.0,1000.0,1000,1000,0.0,k2\n"])
    ks = tl.tables["kernel_summary"]
    assert ks["total_ns"].tolist() == [3000, 1000]
    said = " ".join(tl.meta.warnings)
    assert "no time unit" in said and "ns assumed" in said


def test_nsys_stats_old_report_form_is_ns_without_a_warning(tmp_path):
    # nsys' reports before 2022 (gpukernsum) printed "Time(%),Total Time,Instances,Average,Minimum,Maximum,Name" and
    # documented "All time values given in nanoseconds"
    tl = _kern_sum(tmp_path, "Time(%),Total Time,Instances,Average,Minimum,Maximum,Name\n",
                   ["75.0,3000,2,1500.0,1000,2000,k\n", "25.0,1000,1,1000.0,1000,1000,k2\n"])
    assert tl.tables["kernel_summary"]["total_ns"].tolist() == [3000, 1000]
    assert not any("ns assumed" in w for w in tl.meta.warnings)


def test_nsys_stats_bare_columns_take_total_times_unit(tmp_path):
    tl = _kern_sum(tmp_path, "Time (%),Total Time (ms),Instances,Avg,Min,Max,Name\n",
                   ["100.0,6.0,3,2.0,1.5,2.5,k\n"])
    ks = tl.tables["kernel_summary"]
    # 6.0 ms over 3 instances = 2.0 ms each: Avg/Min/Max are in ms like the total
    assert ks["total_ns"].tolist() == [6_000_000]
    assert ks["mean_ns"].tolist() == [2_000_000.0] and ks["min_ns"].tolist() == [1_500_000.0]
    assert ks["max_ns"].tolist() == [2_500_000.0]


def test_nsys_stats_bare_fractional_totals_are_refused(tmp_path):
    from gpulens.errors import TraceFormatError

    with pytest.raises(TraceFormatError, match="no unit and holds fractions"):
        _kern_sum(tmp_path, "Time (%),Total Time,Instances,Avg,Name\n", ["75.0,3.5,2,1.75,k\n", "25.0,1.0,1,1.0,k2\n"])


# kernel_trace.csv of the rocprofiler-sdk docs: per kernel, Σ (End_Timestamp − Start_Timestamp) by hand:
#   addition_kernel: 48,744 + 100,895 + 130,526 + 133,341 = 413,506 ns over 4 dispatches
#   subtract_kernel: 103,265 + 139,119 = 242,384 ns over 2; multiply_kernel: 139,563 ns, 1
_ADD = "void addition_kernel<float>(float*, float const*, float const*, int, int)"
_SUB = "subtract_kernel(float*, float const*, float const*, int, int)"
_MUL = "multiply_kernel(float*, float const*, float const*, int, int)"
_STATS_HEAD = '"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"\n'


def _v3_folder(tmp_path, add_calls=4):
    d = tmp_path / "out"
    d.mkdir()
    shutil.copy(DATA / "rocprof/v3_csv_sdk_docs/kernel_trace.csv", d / "9_kernel_trace.csv")
    shutil.copy(DATA / "rocprof/v3_csv_sdk_docs/hip_api_stats.csv", d / "9_hip_api_stats.csv")
    (d / "9_kernel_stats.csv").write_text(
        _STATS_HEAD + f'"{_ADD}",{add_calls},413506,{413506 / add_calls:.6f},52.19,48744,133341,39000.0\n'
        f'"{_SUB}",2,242384,121192.000000,30.59,103265,139119,25000.0\n'
        f'"{_MUL}",1,139563,139563.000000,17.61,139563,139563,0.0\n')
    return d


def test_rocprofv3_folder_reads_its_stats_and_cross_checks_them(tmp_path):
    src = gpulens.analyze([_v3_folder(tmp_path)]).sources[0]
    tl = src.timeline
    st = tl.tables["rocprof_stats"]
    # both summaries read: 17 HIP API rows + 3 kernel rows
    assert sorted(st["domain"].value_counts().items()) == [("hip", 17), ("kernel", 3)]
    # one process (prefix 9_), not two ranks: the stats files join the trace's file set
    assert sorted(tl.events["rank"].unique().tolist()) == [0]
    said = " ".join(tl.meta.warnings)
    assert "summary agrees with the trace (3 kernels, 7 calls, 795.45 µs summed)" in said  # 413,506+242,384+139,563
    assert src.results["hotspots"].summary["kernel_time_ns"] == 795_453


def test_rocprofv3_kernel_stats_that_disagree_with_the_trace_are_said(tmp_path):
    src = gpulens.analyze([_v3_folder(tmp_path, add_calls=5)]).sources[0]
    said = " ".join(src.timeline.meta.warnings)
    assert "disagrees with 9_kernel_trace.csv on 1 of 3 kernels" in said
    assert "5 calls / 413.51 µs in the summary, 4 / 413.51 µs in the trace" in said
    assert src.results["hotspots"].summary["kernel_count"] == 7  # the trace's figures are used


def test_rocprof_v1_results_csv_agrees_with_its_own_stats():
    # gunrock/gunrock results.csv + results.stats.csv (MI300X): the stats rows of the kernel domain (blit copies are
    # copies in both) add up to the trace's kernel launches — 37 calls of 7 kernels, as rocprof computed them
    p = DATA / "rocprof/v1_gunrock_mi300x/results.csv"
    tl = collect(p)
    st = tl.tables["rocprof_stats"]
    k = st[st["domain"] == "kernel"]
    ev = tl.events[tl.events["kind"].astype(str).isin(["kernel", "comm"])]
    assert int(k["Calls"].sum()) == len(ev) == 37
    assert int(k["TotalDurationNs"].sum()) == int(ev["dur_ns"].sum())
    assert any("the summary agrees with the trace (7 kernels, 37 calls" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("name,rows,calls", [
    ("hip_api_stats.csv", None, 155),
    ("1_memory_copy_stats.csv", ['"MEMORY_COPY_HOST_TO_DEVICE",10,5000000,500000.0,83.33,400000,600000,5.0\n',
                                 '"MEMORY_COPY_DEVICE_TO_HOST",2,1000000,500000.0,16.67,500000,500000,0.0\n'], 12),
])
def test_an_api_or_copy_summary_alone_has_unknown_kernels(tmp_path, name, rows, calls):
    p = tmp_path / name
    if rows is None:  # the docs' hip_api_stats.csv: Σ Calls over its 17 rows = 155
        shutil.copy(DATA / "rocprof/v3_csv_sdk_docs/hip_api_stats.csv", p)
    else:
        p.write_text(_STATS_HEAD + "".join(rows))
    src = gpulens.analyze([p]).sources[0]
    hs = src.results["hotspots"]
    assert hs.summary["kernel_count"] is None and hs.summary["kernel_time_ns"] is None
    assert f"{calls:,} calls" in hs.skipped_reason and "records no kernel launch" in hs.skipped_reason
    from gpulens.reports._run_text import launches_text

    assert launches_text(src.summary).startswith("unknown")


def _empty_workload(tmp_path, log_lines):
    # the shape of ROCm/rocprofiler-compute @ 95b600ea tests/workloads/dispatch_6_8/MI100 (MIT): vcopy ran 3 dispatches
    # (ids 0-2), rocprof-compute was asked for dispatches 6-8, so every pass CSV holds its header only
    w = tmp_path / "dispatch_6_8" / "MI100"
    w.mkdir(parents=True)
    for f in ("pmc_perf.csv", "timestamps.csv", "SQ_LEVEL_WAVES.csv"):
        (w / f).write_text("Dispatch_ID,Kernel_Name\n")
    (w / "sysinfo.csv").write_text("workload_name,command,gpu_model,gpu_arch,cu_per_gpu\n"
                                   "dispatch_6_8,./tests/vcopy -n 1048576 -b 256 -i 3,MI100,gfx908,120\n")
    if log_lines:
        (w / "log.txt").write_text("Omniperf version: 2.0.0-RC1\n" + "".join(log_lines))
    return w


def test_a_workload_whose_dispatch_filter_matched_nothing_is_not_no_gpu_work(tmp_path):
    from gpulens.reports._answer import answer

    w = _empty_workload(tmp_path, ["Kernel Selection: None\n", "Dispatch Selection: ['6:8']\n"])
    src = gpulens.analyze([w]).sources[0]
    a = answer(src)
    assert a.verdict == "incomplete capture"  # before: "no GPU work … nothing ran on a GPU to analyse"
    assert "dispatch selection ['6:8']" in a.sentence and "nothing ran" not in a.sentence


def test_an_empty_workload_without_its_log_still_names_the_filter_as_a_cause(tmp_path):
    from gpulens.reports._answer import answer

    a = answer(gpulens.analyze([_empty_workload(tmp_path, None)]).sources[0])
    assert a.verdict == "incomplete capture" and "filter" in a.sentence


KINETO_2021 = DATA / "kineto/kineto_tbplugin_gpu_metrics_input_2021.json"


def test_kineto_2021_compute_properties_name_the_gpu():
    # pytorch/kineto tb_plugin/test/gpu_metrics_input.json (BSD-3-Clause): Kineto of May 2021 wrote the device list as
    # "computeProperties" with cudaDeviceProp names (major/minor, multiProcessorCount); before, "device not recorded"
    import json

    doc = json.loads(KINETO_2021.read_text())
    first = doc["computeProperties"][0]
    kern = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "Kernel"]
    src = gpulens.analyze([KINETO_2021]).sources[0]
    devs = {d["device_id"]: d for d in src.timeline.meta.devices}
    assert len(devs) == len(doc["computeProperties"]) == 4
    d0 = devs[0]
    assert d0["name"] == first["name"] == "Tesla V100-DGXS-32GB"
    assert d0["num_sms"] == first["multiProcessorCount"] == 80
    assert d0["compute_capability"] == f"{first['major']}.{first['minor']}" == "7.0"
    assert d0["max_threads_per_sm"] == first["maxThreadsPerMultiProcessor"] == 2048
    hs = src.results["hotspots"].summary
    assert hs["kernel_count"] == len(kern) == 30
    assert hs["kernel_time_ns"] == sum(e["dur"] for e in kern) * 1000 == 48_000


# `nsys stats --report cuda_gpu_trace --format csv` (nsys 2024 header, as NVIDIA's report prints it): before, "not a
# recognised trace format". Rows in the shape of a 2-copy + 1-kernel capture on an RTX 5000 Ada laptop GPU.
_GPU_TRACE = (
    "Processing [report1.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/cuda_gpu_trace.py]..."
    "\n\nStart (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),"
    "Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n"
    "1134711990,661398,123,,,,,,,,,,4.194,6337.593,Pinned,Device,NVIDIA RTX 5000 Ada Generation Laptop GPU (0),1,,13,"
    "[CUDA memcpy Host-to-Device]\n"
    "1135375308,660534,124,,,,,,,,,,4.194,6345.982,Pinned,Device,NVIDIA RTX 5000 Ada Generation Laptop GPU (0),1,,13,"
    "[CUDA memcpy Host-to-Device]\n"
    "1136125733,7072,128,4096,1,1,256,1,1,16,0.000,0.000,,,,,NVIDIA RTX 5000 Ada Generation Laptop GPU (0),1,,13,"
    '"void add<float>(int, const float *, float *)"\n'
    "1136140000,3000,130,2,1,1,128,1,1,40,0.000,0.000,,,,,NVIDIA RTX 5000 Ada Generation Laptop GPU (0),1,,14,"
    '"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long, ncclWork *)"\n'
    "1136150000,900,131,,,,,,,,,,0.000,0.001,,Device,NVIDIA RTX 5000 Ada Generation Laptop GPU (0),1,,14,"
    "[CUDA memset]\n")


def test_nsys_cuda_gpu_trace_csv_is_a_timeline(tmp_path):
    p = tmp_path / "report1_cuda_gpu_trace.csv"
    p.write_text(_GPU_TRACE)
    src = gpulens.analyze([p]).sources[0]
    ev = src.timeline.events.sort_values("start_ns")
    assert ev["kind"].astype(str).tolist() == ["memcpy", "memcpy", "kernel", "comm", "memset"]
    # span: first start 1,134,711,990 → last end 1,136,150,000 + 900 = 1,136,150,900 ns: 1,438,910 ns
    assert src.summary["span_ns"] == 1_438_910
    # busy: no two rows overlap: 661,398 + 660,534 + 7,072 + 3,000 + 900 = 1,332,904 ns
    assert src.summary["gpu_busy_ns"] == 1_332_904
    k = ev[ev["kind"].astype(str) == "kernel"].iloc[0]
    # GrdX is in blocks (4096 × 256 threads), Reg/Trd 16; the device index from "(0)", the stream from Strm
    assert (k["grid_x"], k["block_x"], k["regs_per_thread"], k["stream_id"], k["device_id"]) == (4096, 256, 16, 13, 0)
    cp = ev[ev["kind"].astype(str) == "memcpy"]
    # 4.194 MB printed (SI MB): 4,194,000 bytes each, to the report's precision; HtoD from "Host-to-Device"
    assert cp["bytes"].tolist() == [4_194_000, 4_194_000] and set(cp["copy_kind"].astype(str)) == {"HtoD"}
    assert cp["name"].astype(str).tolist() == ["Memcpy HtoD"] * 2  # as the SQLite export of the same run names them
    ms = ev[ev["kind"].astype(str) == "memset"].iloc[0]
    assert pd.isna(ms["bytes"])  # "0.000" MB: below what the report prints, unknown (not 0)
    assert src.timeline.meta.devices[0]["name"] == "NVIDIA RTX 5000 Ada Generation Laptop GPU"


def test_nsys_cuda_gpu_trace_in_microseconds(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("Start (us),Duration (us),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,Device,Strm,Name\n"
                 "10.5,2.25,1,1,1,1,32,1,1,8,GPU 0,7,k\n20.0,1.0,2,1,1,1,32,1,1,8,GPU 0,7,k\n")
    ev = collect(p).events
    # --timeunit us: 10.5 µs = 10,500 ns, 2.25 µs = 2,250 ns
    assert ev["start_ns"].tolist() == [10_500, 20_000] and ev["dur_ns"].tolist() == [2_250, 1_000]


def test_nsys_cuda_gpu_trace_without_a_time_unit_is_refused(tmp_path):
    from gpulens.errors import TraceFormatError

    p = tmp_path / "t.csv"
    p.write_text("Start,Duration,CorrId,GrdX,Strm,Name\n10,2,1,1,7,k\n")
    with pytest.raises(TraceFormatError, match="no time unit"):
        collect(p)


def test_a_cpu_activity_only_trace_of_gpu_work_is_not_no_gpu_work():
    # facebookresearch/HolisticTraceAnalysis tests/data/distributed_info_unavailable/distributed_info_not_found.json.gz
    # (MIT): 2,424 cpu_op events and nothing else, deviceProperties listing 8 A100s, and aten::record_stream ×48 —
    # an op only CUDA-stream tensors have. Before: "no GPU work — nothing ran on a GPU to analyse".
    import gzip
    import json

    from gpulens.reports._answer import answer

    p = DATA / "kineto/hta_a100_cpu_activity_only.json.gz"
    doc = json.loads(gzip.decompress(p.read_bytes()))
    xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    assert {e.get("cat") for e in xs} == {"cpu_op", "user_annotation"}
    streams = sum(e["name"] == "aten::record_stream" for e in xs)
    a = answer(gpulens.analyze([p]).sources[0])
    assert a.verdict == "incomplete capture"
    assert f"aten::record_stream ×{streams}" in a.sentence and f"{len(doc['deviceProperties'])} GPUs" in a.sentence


def test_a_cpu_only_workload_stays_no_gpu_work():
    from gpulens.reports._answer import answer

    # torch 2.13+cpu, CPU activity only, torch.mm: no GPU-only operator, so nothing says a GPU worked
    a = answer(gpulens.analyze([DATA / "kineto/torch2.13_cpu_only_mm.pt.trace.json"]).sources[0])
    assert a.verdict == "no GPU work"


def test_composable_kernel_entry_is_labelled_by_its_kernel():
    # a rocpd database of HGLiu1998/batched_gemm (ck_bmm/…/28_results.db, MI300X) names its 150 GEMM dispatches
    # "void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<…>, …>(…)": every table showed "kentry", CK's launch wrapper
    from gpulens.reports._names import base_name

    name = ("void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::GemmSpatiallyLocalTilePartitioner<"
            "ck_tile::TileGemmShape<ck_tile::sequence<256, 256, 64>, ck_tile::sequence<2, 2, 1>, ck_tile::sequence<"
            "32, 32, 16>, false, false>, 8, 4>, int>::BatchedGemmKernelArgs>(int)")
    assert base_name(name) == "BatchedGemmKernel"
