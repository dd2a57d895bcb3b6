"""Nsight Systems inputs: SQLite exports and `nsys stats` kernel summaries.

Expected values are the verified facts of ../shared/traces/SOURCES.md (computed there with plain sqlite3/csv) or
hand-built inputs whose answers are written out here.
"""

from __future__ import annotations

import sqlite3

import pytest

from gpulens.analyzers.hotspots import Hotspots
from gpulens.collectors import collect, sniff
from gpulens.errors import TraceFormatError
from gpulens.report import analyze
from tests.conftest import DATA, shared_trace

NV = DATA / "nvidia"
FUSER = NV / "fuser_h200_nsys2024.6_report1.sqlite"


def _short_name_totals(tl):
    """(calls, ns) per nsys shortName, joining events to the kernel_names side table."""
    k = tl.of_kind("kernel", "comm")
    short = tl.tables["kernel_names"].drop_duplicates("name").set_index("name")["short_name"]
    g = k.assign(short=k["name"].astype(str).map(short)).groupby("short")["dur_ns"]
    return {s: (int(c), int(t)) for s, c, t in zip(g.size().index, g.size(), g.sum())}


def test_fuser_h200_2024_6_matches_sources_facts():
    tl = collect(FUSER)
    assert sniff(FUSER).name == "nsys_sqlite"
    ev = tl.events
    k = ev[ev["kind"] == "kernel"]
    assert len(k) == 19 and int(k["dur_ns"].sum()) == 393_539
    totals = _short_name_totals(tl)
    assert totals["nvfuser_none_f0_c0_r0_g0"] == (1, 135_137)
    assert totals["nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT"] == (1, 87_521)
    assert totals["vectorized_elementwise_kernel"] == (14, 81_504)
    counts = ev["kind"].value_counts()
    assert (counts["runtime"], counts["annotation"], counts["memcpy"], counts["memset"]) == (968, 652, 1, 1)
    nvtx = ev[ev["kind"] == "annotation"]["name"].astype(str).value_counts()
    assert nvtx.index[0] == "ExpressionEvaluator::evaluate" and nvtx.iloc[0] == 430
    assert set(k["stream_id"].unique()) == {7}
    src = tl.meta.sources[0]
    assert (src["nsys_version"], src["schema_version"]) == ("2024.6.2.25", "3.16.1")
    assert [d["name"] for d in tl.meta.devices] == ["NVIDIA H200"]
    d = tl.meta.devices[0]
    assert d["compute_capability"] == "9.0" and d["num_sms"] == 132


def test_fuser_kernel_rows_keep_launch_configuration_and_links():
    tl = collect(FUSER)
    ev = tl.events
    k = ev[ev["kind"] == "kernel"]
    con = sqlite3.connect(FUSER)
    row = con.execute("SELECT start, gridX, gridY, gridZ, blockX, registersPerThread, staticSharedMemory, "
                      "dynamicSharedMemory, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start LIMIT 1").fetchone()
    first = k.sort_values("start_ns").iloc[0]
    assert (int(first["start_ns"]), first["grid_x"], first["grid_y"], first["grid_z"], first["block_x"],
            first["regs_per_thread"], first["smem_static_bytes"], first["smem_dynamic_bytes"],
            first["correlation_id"]) == row
    # every kernel's correlation id is the id of a runtime launch call
    rt = set(ev.loc[ev["kind"] == "runtime", "correlation_id"].dropna().astype(int))
    assert set(k["correlation_id"].astype(int)) <= rt
    launches = ev[(ev["kind"] == "runtime") & ev["correlation_id"].isin(k["correlation_id"])]
    assert launches["name"].astype(str).str.startswith(("cudaLaunchKernel", "cuLaunchKernel")).all()
    cp = ev[ev["kind"] == "memcpy"].iloc[0]
    assert (cp["copy_kind"], cp["bytes"], cp["dur_ns"]) == ("DtoH", 1, 1632)  # copyKind 2 in the file
    # pid is unpacked from globalPid (PROCESSES lists pid 30156 for ./bin/test_matmul)
    assert set(k["pid"].astype(int)) == {30156}


def test_memfusion_rtx3090_old_export_without_meta_data_export():
    tl = collect(shared_trace("nsys/memfusion_rtx3090_report1.sqlite"))
    ev = tl.events
    k = ev[ev["kind"] == "kernel"]
    assert len(k) == 36 and int(k["dur_ns"].sum()) == 6_415_244
    top_short, (calls, ns) = max(_short_name_totals(tl).items(), key=lambda kv: kv[1][1])
    assert top_short.startswith("sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize128x128x32")
    assert (calls, ns) == (7, 1_881_582)
    counts = ev["kind"].value_counts()
    assert counts["runtime"] == 5_668 and counts["memcpy"] == 4
    # NVTX_EVENTS has 60 rows: 59 push/pop ranges (text via textId) + 1 NvtxDomainCreate, which is not a range
    assert counts["annotation"] == 59
    assert "onnx::Conv_239_clone_1" in set(ev.loc[ev["kind"] == "annotation", "name"].astype(str))
    assert set(k["stream_id"].unique()) == {82} and set(k["device_id"].unique()) == {0}
    assert tl.meta.sources[0]["meta_table"] == "EXPORT_META_DATA"
    # TARGET_INFO_GPU lists 4 GPUs although kernels ran only on device 0
    assert [d["device_id"] for d in tl.meta.devices] == [0, 1, 2, 3]
    assert {d["name"] for d in tl.meta.devices} == {"NVIDIA GeForce RTX 3090"}


def test_lashi_rtx4090_four_concurrent_streams():
    tl = collect(shared_trace("nsys/lashi_rtx4090_streamSimple.sqlite"))
    k = tl.of_kind("kernel")
    assert len(k) == 16 and int(k["dur_ns"].sum()) == 66_721
    assert tl.meta.sources[0]["nsys_version"] == "2023.3.1.92"
    assert tl.meta.sources[0]["schema_version"] == "3.4.0"
    assert tl.meta.devices[0]["name"] == "NVIDIA GeForce RTX 4090"
    assert k.groupby("stream_id").size().to_dict() == {13: 4, 14: 4, 15: 4, 16: 4}
    assert int((k["start_ns"] + k["dur_ns"]).max() - k["start_ns"].min()) == 76_929
    by = k.groupby(k["name"].astype(str))["dur_ns"].agg(["size", "sum"])
    assert by.loc["kernel_2()"].tolist() == [4, 16_993] and by.loc["kernel_4()"].tolist() == [4, 16_288]
    assert not len(tl.of_kind("annotation"))
    hs = Hotspots().analyze(tl)
    assert hs.summary["kernel_count"] == 16 and hs.table["name"].iloc[0] == "kernel_2()"


def _mini_export(path):
    """A hand-made export in an older layout: no demangledName/greenContextId, NVTX text via textId or text, a
    mark (instant, not a range) and a range never closed."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (3, 'step 0'), (4, 'nccl_allreduce');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, shortName INT, gridX INT, blockX INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
            (1000, 1500, 0, 7, 10, 5033164800, 1, 64, 128),
            (2000, 1900, 0, 7, 11, 5033164800, 1, 64, 128),
            (3000, 3300, 1, 9, 12, 5033164800, 4, 8, 256);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, nameId INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 5033164842, 10, 2);
        CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, textId INT, globalTid INT);
        INSERT INTO NVTX_EVENTS VALUES (800, 4000, 59, NULL, 3, 5033164842), (850, NULL, 59, 'open', NULL, 5033164842),
            (870, NULL, 34, 'a mark', NULL, 5033164842);
        CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INT, name TEXT);
        INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (34, 'NvtxMark'), (59, 'NvtxPushPopRange');
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, streamId INT, bytes INT,
            copyKind INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (500, 700, 0, 7, 4096, 1);
    """)
    con.commit()
    con.close()
    return path


def test_hand_made_old_schema_export(tmp_path):
    tl = collect(_mini_export(tmp_path / "mini.sqlite"))
    ev = tl.events
    k = ev[ev["kind"].isin(["kernel", "comm"])].sort_values("start_ns")
    # the second kernel ends before it starts: rejected with its reason, not kept with a negative duration
    assert k["dur_ns"].tolist() == [500, 300] and k["kind"].tolist() == ["kernel", "comm"]
    assert k["name"].astype(str).tolist() == ["gemm", "nccl_allreduce"]
    assert list(tl.rejected["reason"].astype(str)) == ["end before start", "range never closed"]
    # globalPid 5033164800 = 300 << 24; globalTid 5033164842 = (300 << 24) + 42
    assert set(k["pid"].astype(int)) == {300}
    rt = ev[ev["kind"] == "runtime"].iloc[0]
    # stored as cudaLaunchKernel_v7000; the Timeline keeps the API name (issue 13 class 6b)
    assert (rt["pid"], rt["tid"], rt["name"], rt["device_id"]) == (300, 42, "cudaLaunchKernel", -1)
    ann = ev[ev["kind"] == "annotation"]
    assert ann["name"].astype(str).tolist() == ["step 0"] and ann["dur_ns"].tolist() == [3200]
    cp = ev[ev["kind"] == "memcpy"].iloc[0]
    assert (cp["copy_kind"], cp["bytes"], cp["name"]) == ("HtoD", 4096, "Memcpy HtoD")
    assert tl.meta.devices == [] and tl.meta.sources[0]["meta_table"] is None


def test_not_nsys_sqlite_is_a_clear_error(tmp_path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE t (x INT)")
    con.commit()
    con.close()
    assert sniff(p) is None
    with pytest.raises(TraceFormatError, match="no Nsight Systems tables"):
        collect(p, format="nsys_sqlite")
    bad = tmp_path / "cut.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
    with pytest.raises(TraceFormatError, match="cut.sqlite"):
        collect(bad, format="nsys_sqlite")


@pytest.mark.parametrize("fname, rows, instances, total_ns, first_pct, first_total, first_calls, first_prefix", [
    ("codegandee_rtx5090_dsocr_all-stage_cuda_gpu_kern_sum.csv", 113, 1_695_983, 4_946_064_742, 24.9,
     1_231_822_285, 329_035, "std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, "),
    ("codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv", 97, 6_660, 65_691_733, 24.7, 16_214_877, 2_035,
     "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(T1::Params)"),
])
def test_nsys_stats_kernel_summary(fname, rows, instances, total_ns, first_pct, first_total, first_calls,
                                   first_prefix):
    tl = collect(NV / fname)
    assert len(tl.events) == 0
    ks = tl.tables["kernel_summary"]
    assert len(ks) == rows and int(ks["calls"].sum()) == instances and int(ks["total_ns"].sum()) == total_ns
    first = ks.iloc[0]
    assert (first["time_pct"], first["total_ns"], first["calls"]) == (first_pct, first_total, first_calls)
    assert first["name"].startswith(first_prefix)
    src = analyze([NV / fname]).sources[0]
    assert src.status == "ok"
    assert (src.summary["kernel_count"], src.summary["kernel_time_ns"]) == (instances, total_ns)
    hs = src.results["hotspots"]
    assert hs.table["name"].iloc[0] == first["name"] and hs.table["calls"].iloc[0] == first_calls
    assert hs.table["share"].iloc[0] == pytest.approx(first_total / total_ns)


def test_nsys_stats_older_header_and_microseconds(tmp_path):
    p = tmp_path / "gpukernsum.csv"
    p.write_text("Processing [report.sqlite] with [gpukernsum.py]...\n\n"
                 "Time(%),Total Time (us),Instances,Average,Minimum,Maximum,Name\n"
                 '75.0,3.0,2,1.5,1.0,2.0,"k<int, float>(int)"\n25.0,1.0,1,1.0,1.0,1.0,ncclKernel_AllReduce\n')
    tl = collect(p)
    ks = tl.tables["kernel_summary"]
    assert ks["total_ns"].tolist() == [3000, 1000] and ks["name"].tolist()[0] == "k<int, float>(int)"
    # 'Average' has no unit in the header: it is in Total Time's (us): 3.0 us / 2 = 1.5 us = 1500 ns
    assert ks["mean_ns"].tolist() == [1500.0, 1000.0] and ks["max_ns"].tolist() == [2000.0, 1000.0]
    hs = Hotspots().analyze(tl)
    assert hs.table["kind"].tolist() == ["kernel", "comm"] and hs.summary["kernel_count"] == 3
