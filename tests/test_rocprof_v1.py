"""rocprof v1 / v2 CSV, stats, rocminfo, results.json and results.db: values from the files (SOURCES.md facts) and
from the B17 case's README."""

from __future__ import annotations

import csv
import shutil

import pytest

from gpulens.collectors import collect, sniff
from gpulens.errors import TraceFormatError
from tests.conftest import CASES, DATA, shared_trace

GUNROCK = DATA / "rocprof" / "v1_gunrock_mi300x"
MERGE_PATH = "void gunrock::operators::advance::merge_path::merge_path_kernel<256, 11,"
TRAMPOLINE = "void rocprim::ROCPRIM_400100_NS::detail::trampoline_kernel<"


def per_kernel(tl):
    k = tl.of_kind("kernel", "comm")
    return k.groupby("name", observed=True)["dur_ns"].agg(["count", "sum"]).sort_values("sum", ascending=False)


def test_gunrock_results_csv_matches_sources_facts():
    tl = collect(GUNROCK / "results.csv")
    assert sniff(GUNROCK / "results.csv").name == "rocprof_v1"
    # every row of results.csv is a kernel dispatch (SOURCES.md: 56 rows); the 19 HIP blit kernels
    # __amd_rocclr_copyBuffer are copies (issue 13 class 4), the other 37 computation
    k = tl.gpu_events()
    assert len(k) == 56 and k["name"].nunique() == 8
    blit = k[k["name"].astype(str).str.startswith("__amd_rocclr_copyBuffer")]
    assert len(blit) == 19 and set(blit["kind"]) == {"memcpy"} and len(tl.of_kind("kernel")) == 37
    assert int(k["dur_ns"].sum()) == 9_025_354
    top = per_kernel(tl)
    assert top.index[0].startswith(MERGE_PATH) and tuple(top.iloc[0]) == (11, 7_603_945)
    assert top.index[1].startswith(TRAMPOLINE) and tuple(top.iloc[1]) == (5, 648_643)
    assert set(k["device_id"]) == {2}
    assert int(k["start_ns"].min()) == 3599977333839958
    assert int((k["start_ns"] + k["dur_ns"]).max()) == 3599977423860885


def test_gunrock_resources_are_in_timeline_and_counters():
    tl = collect(GUNROCK / "results.csv")
    with open(GUNROCK / "results.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    ev = tl.events.sort_values("event_id")
    for i in (0, 20, 55):
        r, e = rows[i], ev.iloc[i]
        grd, wgr = int(r["grd"]), int(r["wgr"])
        assert e["block_x"] == wgr and e["block_y"] == 1
        assert e["grid_x"] == -(-grd // wgr)  # grd counts work-items; grid_x counts workgroups
        assert e["regs_per_thread"] == int(r["arch_vgpr"]) + int(r["accum_vgpr"])
        assert e["smem_static_bytes"] == int(r["lds"])
        c = tl.counters[tl.counters["event_id"] == e["event_id"]].set_index("metric")["value"]
        assert c["sgpr"] == int(r["sgpr"]) and c["scratch_bytes"] == int(r["scr"])
        assert c["arch_vgpr"] == int(r["arch_vgpr"]) and c["accum_vgpr"] == int(r["accum_vgpr"])
    first = ev.iloc[0]
    assert first["name"] == "__amd_rocclr_copyBuffer.kd" and first["name_norm"] == "__amd_rocclr_copyBuffer"
    assert first["grid_x"] == 155648 // 512 == 304


def test_b17_quoted_commas_in_names():
    tl = collect(CASES / "B17.v1_results.csv")
    got = dict(zip(tl.events["name"].astype(str), tl.events["dur_ns"]))
    assert got == {"transpose_tile(float*, float const*, int, int) [clone .kd]": 60_000,
                   "void demo::axpy<float, 256>(float, float const*, float*, int) [clone .kd]": 10_000}


def test_b17_header_wider_than_rows_is_an_error_naming_file_lines_and_counts():
    with pytest.raises(TraceFormatError) as err:
        collect(CASES / "B17.v2_results.csv")
    msg = str(err.value)
    assert "B17.v2_results.csv" in msg and "lines 2, 3" in msg and "19 fields" in msg and "21 columns" in msg


def test_b17_lenient_realigns_on_the_kernel_name():
    tl = collect(CASES / "B17.v2_results.csv", strict=False)
    got = dict(zip(tl.events["name_norm"].astype(str), tl.events["dur_ns"]))
    assert got == {"saxpy(float, float*, float*, int)": 7_500, "scale(float*, int)": 2_000}
    assert "GRBM_COUNT" not in set(tl.counters["metric"])  # the counter is unknown, not invented
    assert any("realigned" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("fname,content,fmt", [
    ("results.csv", "Index,gpu-id,BeginNs,EndNs\n0,2,10,20\n", "rocprof_v1"),
    ("kernel_trace.csv", '"Kind","Agent_Id","Start_Timestamp","End_Timestamp"\n"KERNEL_DISPATCH",1,5,9\n',
     "rocprofv3_csv"),
])
def test_missing_required_column_is_named(tmp_path, fname, content, fmt):
    p = tmp_path / fname
    p.write_text(content)
    with pytest.raises(TraceFormatError, match="missing required column 'KernelName'/'Kernel_Name'"):
        collect(p, format=fmt)


def test_renamed_file_is_sniffed_by_content(tmp_path):
    p = tmp_path / "trace.bin"
    shutil.copy(GUNROCK / "results.csv", p)
    assert sniff(p).name == "rocprof_v1" and len(collect(p).events) == 56


def test_stats_and_rocminfo():
    st = collect(GUNROCK / "results.stats.csv")
    assert len(st.events) == 0
    t = st.tables["rocprof_stats"]
    assert len(t) == 8 and t.iloc[0]["Name"].startswith(MERGE_PATH)
    assert (t.iloc[0]["Calls"], t.iloc[0]["TotalDurationNs"]) == (11, 7603945)
    seismic = collect(DATA / "rocprof" / "v1_pmc_seismic_mi250x" / "results.stats.csv").tables["rocprof_stats"]
    assert len(seismic) == 13 and seismic.iloc[0]["Name"].startswith("compute_fd_z_kernel")
    assert (seismic.iloc[0]["Calls"], seismic.iloc[0]["TotalDurationNs"]) == (100, 374067410)
    info = collect(GUNROCK / "results.sysinfo.txt")
    gpu = info.meta.devices[0]
    assert len(info.meta.devices) == 8
    assert (gpu["gfx_arch"], gpu["name"]) == ("gfx942", "AMD Radeon Graphics")
    assert (gpu["num_sms"], gpu["warp_size"]) == (304, 64)
    assert (gpu["device_id"], gpu["gpu_index"]) == (2, 0)  # node 2 = first GPU = rocprof gpu-id 2
    assert gpu["product_candidates"] == ["AMD Instinct MI300X", "AMD Instinct MI325X"]


def test_counter_mode_csv_without_timestamps_keeps_counters_unattached():
    tl = collect(shared_trace("rocprof/v1_hip_programming_mi300a/output_vec_add_gpu.csv"))
    assert len(tl.events) == 0 and list(tl.rejected["reason"]) == ["no timestamps recorded"]
    u = tl.tables["unattached_counters"].set_index("metric")["value"]
    assert (u["GPUBusy"], u["Wavefronts"]) == (100.0, 15625000.0)


def test_seismic_counter_csvs():
    for f, counters in (("bankconflicts.csv", {"LDSBankConflict", "LDSInsts"}),
                        ("data_movement.csv", {"FETCH_SIZE", "WRITE_SIZE", "TCP_TOTAL_CACHE_ACCESSES_sum"})):
        tl = collect(shared_trace(f"rocprof/v1_pmc_seismic_mi250x/{f}"))
        assert len(tl.rejected) == 1024 and tl.rejected["name"].nunique() == 13
        assert counters <= set(tl.tables["unattached_counters"]["metric"])
        assert "initialize_polynomial_kernel" in set(tl.rejected["name"].astype(str))


def test_results_json_with_string_numbers():
    p = shared_trace("rocprof/v1_hip_programming_mi300a/results.json")
    assert sniff(p).name == "rocprof_v1_json"
    tl = collect(p)
    assert len(tl.events) == 17
    k = tl.of_kind("kernel")
    assert list(k["name"].astype(str)) == ["vector_add(float*, float*, float*, int)"]
    assert int(k["dur_ns"].iloc[0]) == 3_431_611 and int(k["device_id"].iloc[0]) == 4
    c = tl.of_kind("memcpy").groupby("copy_kind", observed=True)["dur_ns"].agg(["count", "sum"])
    assert tuple(c.loc["DtoH"]) == (1, 885_689_740) and tuple(c.loc["HtoD"]) == (2, 180_717_650)
    hip = tl.of_kind("runtime")
    assert int(hip.loc[hip["name"] == "hipMemcpy", "dur_ns"].sum()) == 1_342_822_760


def test_results_db_tables_per_domain():
    tl = collect(shared_trace("rocprof/v1_hip_programming_mi300a/results.db"))
    assert tl.meta.sources[0]["tables"] == {"HIP": 13, "OPS": 1, "COPY": 3, "KERN": 0}
    assert int(tl.of_kind("kernel")["dur_ns"].sum()) == 3_431_611
    g = collect(shared_trace("rocprof/v1_gunrock_mi300x/results.db"))
    assert len(g.gpu_events()) == 56 and int(g.events["dur_ns"].sum()) == 9_025_354  # 37 kernels + 19 blit copies
    assert not g.events["name"].astype(str).str.startswith('"').any()  # the db stores names with CSV quotes


def test_unquoted_commas_in_a_name_error_then_rejoin_in_lenient_mode(tmp_path):
    p = tmp_path / "results.csv"
    p.write_text("Index,KernelName,gpu-id,queue-id,BeginNs,EndNs\n"
                 "0,k_ok(int),2,0,1000,1500\n"
                 "1,saxpy(float, float*, int) [clone .kd],2,0,2000,2600\n")
    with pytest.raises(TraceFormatError, match=r"line 3: 8 fields but the header has 6 columns"):
        collect(p)
    tl = collect(p, strict=False)
    got = dict(zip(tl.events["name"].astype(str), tl.events["dur_ns"]))
    assert got == {"k_ok(int)": 500, "saxpy(float, float*, int) [clone .kd]": 600}
    assert set(tl.events["device_id"]) == {2}


def test_kernel_rows_without_a_device_column_stay_on_the_gpu(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("KernelName,grd,BeginNs,EndNs\nk(int),64,10,30\n")
    ev = collect(p).events
    assert list(ev["device_id"]) == [0] and list(ev["dur_ns"]) == [20]  # not -1 (host)


def test_rocminfo_memory_size_tells_memory_variants_apart(tmp_path):
    """The GPU agent's GLOBAL coarse-grained pool is its own memory (rocminfo: "Size: 201310208(0xbffc000) KB" on this
    MI300X node: 192 GiB). Read, it picks the MI300X over the MI325X (same gfx942, 304 CUs, 256 GB) without the
    "memory size is not recorded" doubt; the same file with a 256 GiB pool is an MI325X."""
    import gpulens
    from gpulens.devices import identify_device as spec_for_record

    text = (GUNROCK / "results.sysinfo.txt").read_text()
    gpu = collect(GUNROCK / "results.sysinfo.txt").meta.devices[0]
    assert gpu["total_memory_bytes"] == 201_310_208 * 1024
    spec = spec_for_record(gpu)
    assert spec.name == "AMD Instinct MI300X" and "not recorded" not in spec.note
    rep = gpulens.analyze([GUNROCK / "results.csv"]).sources[0]
    assert "memory size is not recorded" not in str(rep.timeline.meta.devices) + str(rep.summary)
    d = tmp_path / "mi325x"
    d.mkdir()
    (d / "results.sysinfo.txt").write_text(text.replace("201310208(0xbffc000) KB", "268435456(0x10000000) KB"))
    big = collect(d / "results.sysinfo.txt").meta.devices[0]
    assert big["total_memory_bytes"] == 256 * 2**30 and spec_for_record(big).name == "AMD Instinct MI325X"
