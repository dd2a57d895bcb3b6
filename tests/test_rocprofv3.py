"""rocprofv3 CSV files and folders, and the rocprofv3 JSON (908_results.json.gz facts from SOURCES.md)."""

from __future__ import annotations

import csv
import gzip
import json


from gpulens.collectors import collect, sniff
from gpulens.timeline.names import truncate_kernel_name
from tests.conftest import CASES, DATA, shared_trace

V3 = DATA / "rocprof" / "v3_csv_sdk_docs"


def test_kernel_trace_csv():
    tl = collect(V3 / "kernel_trace.csv")
    ev = tl.events
    assert len(ev) == 7 and set(ev["kind"]) == {"kernel"}
    bare = [truncate_kernel_name(n) for n in ev["name"].astype(str)]
    assert {n: bare.count(n) for n in set(bare)} == {"addition_kernel": 4, "subtract_kernel": 2, "multiply_kernel": 1}
    assert sorted(ev["stream_id"].unique()) == [1, 2, 3, 4]
    first = ev.iloc[0]
    assert first["dur_ns"] == 8819330200116308 - 8819330200067564
    # Grid_Size_X/Y = 1024 x 1024 work-items, Workgroup_Size_X = 64 -> 16 x 1024 workgroups
    assert (first["grid_x"], first["grid_y"], first["grid_z"], first["block_x"]) == (16, 1024, 1, 64)
    assert first["correlation_id"] == 1451 and first["device_id"] == 1


def test_memory_copy_csv_without_trailing_newline():
    assert not (V3 / "memory_copy_trace.csv").read_bytes().endswith(b"\n")
    tl = collect(V3 / "memory_copy_trace.csv")
    assert list(tl.events["copy_kind"]) == ["HtoD", "DtoH"]
    assert list(tl.events["dur_ns"]) == [14955950239443 - 14955949675563, 14955953315285 - 14955952733485]
    assert list(tl.events["device_id"]) == [1, 1]  # the GPU side of each copy


def test_counter_collection_alone_has_no_timestamps():
    tl = collect(V3 / "counter_collection.csv")
    assert len(tl.events) == 0 and len(tl.rejected) == 7
    u = tl.tables["unattached_counters"]
    assert list(u.loc[u["metric"] == "SQ_WAVES", "value"]) == [16384.0] * 7


def test_folder_joins_counters_to_kernels_by_dispatch_id():
    tl = collect(V3)
    assert sniff(V3).name == "rocprofv3_csv_dir"
    assert tl.events["kind"].value_counts().to_dict() == {"kernel": 7, "memcpy": 2}
    waves = tl.counters[tl.counters["metric"] == "SQ_WAVES"]
    assert len(waves) == 7 and set(waves["event_id"]) == set(tl.of_kind("kernel")["event_id"])
    assert set(tl.of_kind("kernel")["regs_per_thread"]) == {8}  # VGPR_Count comes from counter_collection.csv


def test_folder_counters_land_on_the_right_dispatch(tmp_path):
    (tmp_path / "kernel_trace.csv").write_text(
        '"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
        '"KERNEL_DISPATCH",1,1,7,"k_a(int)",1000,1100\n'
        '"KERNEL_DISPATCH",1,1,3,"k_b(int)",1200,1500\n')
    (tmp_path / "counter_collection.csv").write_text(
        '"Dispatch_Id","Agent_Id","Kernel_Name","Counter_Name","Counter_Value"\n'
        '3,1,"k_b(int)","SQ_WAVES",30\n3,1,"k_b(int)","SQ_WAVES",2\n7,1,"k_a(int)","SQ_WAVES",70\n'
        '9,1,"k_c(int)","SQ_WAVES",90\n')
    tl = collect(tmp_path)
    by_name = {n: e for n, e in zip(tl.events["name"].astype(str), tl.events["event_id"])}
    c = tl.counters[tl.counters["metric"] == "SQ_WAVES"].set_index("event_id")["value"]
    assert c[by_name["k_a(int)"]] == 70 and c[by_name["k_b(int)"]] == 32  # two instances of one counter summed
    u = tl.tables["unattached_counters"]
    assert list(u["name"]) == ["k_c(int)"] and list(u["value"]) == [90.0]


def test_b05b_header_only_kernel_trace_is_zero_kernels():
    tl = collect(CASES / "B05b.kernel_trace.csv")
    assert len(tl.events) == 0 and len(tl.rejected) == 0
    assert list(tl.events.columns)[:3] == ["event_id", "kind", "name"]


def test_agent_info_csv(tmp_path):
    p = tmp_path / "agent_info.csv"
    p.write_text('"Node_Id","Logical_Node_Id","Logical_Node_Type_Id","Agent_Type","Cu_Count","Wave_Front_Size",'
                 '"Name","Product_Name"\n0,0,0,"CPU",64,0,"AMD EPYC","AMD EPYC"\n'
                 '2,2,0,"GPU",304,64,"gfx942","AMD Instinct MI300X"\n')
    dev = collect(p).meta.devices
    assert len(dev) == 1
    assert {k: dev[0][k] for k in ("device_id", "gpu_index", "gfx_arch", "num_sms", "warp_size", "name")} == {
        "device_id": 2, "gpu_index": 0, "gfx_arch": "gfx942", "num_sms": 304, "warp_size": 64,
        "name": "AMD Instinct MI300X"}


def test_rocprofv3_json_908_matches_sources_facts():
    p = shared_trace("rocprof/v3_json_mi350x/908_results.json.gz")
    tl = collect(p)  # its load time is measured by benchmarks/, not asserted here (a loaded runner is not slow code)
    assert sniff(p).name == "rocprofv3_json"
    ev = tl.events
    assert len(ev) == 43_915 and int(ev["dur_ns"].sum()) == 4_441_741_378
    sym = tl.tables["kernel_symbols"]
    assert len(sym) == 9_889
    trunc = ev["name"].astype(str).map(dict(zip(sym["formatted_kernel_name"], sym["truncated_kernel_name"])))
    g = ev.groupby(trunc)["dur_ns"].agg(["count", "sum"]).sort_values("sum", ascending=False)
    assert len(g) == 44
    assert g.index[:3].tolist() == ["ncclDevKernel_Generic_1", "vectorized_elementwise_kernel",
                                    "elementwise_kernel_manual_unroll"]
    assert [tuple(g.iloc[i]) for i in range(3)] == [(1310, 4_158_756_678), (16971, 74_340_648), (4150, 26_963_282)]
    assert (ev["kind"] == "comm").sum() == 1310
    gpus = tl.meta.devices
    assert len(gpus) == 8 and {d["name"] for d in gpus} == {"AMD Instinct MI350X"}
    assert {(d["gfx_arch"], d["num_sms"], d["warp_size"]) for d in gpus} == {("gfx950", 256, 64)}
    assert set(ev["device_id"]) == {2}  # agent handle 37946 = node 2 = first GPU
    assert tl.meta.sources[0]["pid"] == 908 and tl.meta.sources[0]["hostname"] == "smci350-zts-gtu-c6-25"
    # resources: every dispatch has arch VGPR / SGPR counters from its kernel symbol
    assert (tl.counters["metric"] == "sgpr").sum() == 43_915


def _tiny_v3_json(path):
    dinfo = lambda did, kid: {"agent_id": {"handle": 222}, "queue_id": {"handle": 5}, "kernel_id": kid,  # noqa: E731
                              "dispatch_id": did, "private_segment_size": 16, "group_segment_size": 4096,
                              "workgroup_size": {"x": 256, "y": 1, "z": 1}, "grid_size": {"x": 1000, "y": 1, "z": 1}}
    doc = {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 77, "node": {"hostname": "h"}, "command": ["./app"]},
        "agents": [{"id": {"handle": 111}, "type": 1, "node_id": 0, "logical_node_type_id": 0, "name": "CPU"},
                   {"id": {"handle": 222}, "type": 2, "node_id": 1, "logical_node_type_id": 0, "name": "gfx90a",
                    "product_name": "AMD Instinct MI210", "cu_count": 104, "wave_front_size": 64}],
        "counters": [{"id": {"handle": 9}, "name": "SQ_WAVES"}],
        "strings": {"buffer_records": [{"kind": "NONE", "operations": []},
                                       {"kind": "MEMORY_COPY", "operations": ["NONE", "MEMORY_COPY_HOST_TO_DEVICE"]}]},
        "kernel_symbols": [{"kernel_id": 1, "formatted_kernel_name": "k_one(float*)", "truncated_kernel_name": "k_one",
                            "kernel_name": "_Z5k_onePf.kd", "sgpr_count": 24, "arch_vgpr_count": 12,
                            "accum_vgpr_count": 4}],
        "buffer_records": {
            "kernel_dispatch": [{"start_timestamp": 100, "end_timestamp": 250, "thread_id": 7,
                                 "correlation_id": {"internal": 3, "external": 0}, "dispatch_info": dinfo(1, 1)},
                                {"start_timestamp": 300, "end_timestamp": 320, "thread_id": 7,
                                 "correlation_id": {"internal": 4, "external": 0}, "dispatch_info": dinfo(2, 1)}],
            "memory_copy": [{"kind": 1, "operation": 1, "start_timestamp": 10, "end_timestamp": 60, "thread_id": 7,
                             "correlation_id": {"internal": 1, "external": 0}, "dst_agent_id": {"handle": 222},
                             "src_agent_id": {"handle": 111}, "bytes": 4096}]},
        "callback_records": {"counter_collection": [
            {"dispatch_data": {"dispatch_info": dinfo(2, 1)},
             "records": [{"counter_id": {"handle": 9}, "value": 3.0}, {"counter_id": {"handle": 9}, "value": 1.0}]}]},
    }]}
    with gzip.open(path, "wt") as fh:
        json.dump(doc, fh)


def test_rocprofv3_json_symbols_counters_and_copies(tmp_path):
    p = tmp_path / "77_results.json.gz"
    _tiny_v3_json(p)
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert list(k["name"].astype(str)) == ["k_one(float*)"] * 2 and list(k["dur_ns"]) == [150, 20]
    assert list(k["device_id"]) == [1, 1] and list(k["stream_id"]) == [5, 5]
    assert list(k["regs_per_thread"]) == [16, 16] and list(k["smem_static_bytes"]) == [4096, 4096]
    assert list(k["grid_x"]) == [4, 4]  # ceil(1000 / 256)
    waves = tl.counters[tl.counters["metric"] == "SQ_WAVES"]
    second = int(k.iloc[1]["event_id"])
    assert list(waves["event_id"]) == [second] and list(waves["value"]) == [4.0]
    m = tl.of_kind("memcpy")
    assert (m["copy_kind"].iloc[0], int(m["bytes"].iloc[0]), int(m["device_id"].iloc[0])) == ("HtoD", 4096, 1)
    assert tl.meta.devices[0]["product_candidates"] == ["AMD Instinct MI210", "AMD Instinct MI250 (one GCD)"]


def test_kernel_trace_with_resource_columns(tmp_path):
    hdr = next(csv.reader(open(CASES / "B05b.kernel_trace.csv")))
    row = dict.fromkeys(hdr, "0")
    row.update(Kind="KERNEL_DISPATCH", Agent_Id="Agent 2", Queue_Id="1", Kernel_Name="k(int) [clone .kd]",
               Start_Timestamp="100", End_Timestamp="400", LDS_Block_Size="8192", Scratch_Size="64", VGPR_Count="32",
               Accum_VGPR_Count="8", SGPR_Count="40", Workgroup_Size_X="128", Workgroup_Size_Y="1",
               Workgroup_Size_Z="1", Grid_Size_X="1024", Grid_Size_Y="1", Grid_Size_Z="1")
    p = tmp_path / "kernel_trace.csv"
    with open(p, "w", newline="") as fh:
        w = csv.DictWriter(fh, hdr)
        w.writeheader()
        w.writerow(row)
    tl = collect(p)
    e = tl.events.iloc[0]
    assert (e["device_id"], e["regs_per_thread"], e["smem_static_bytes"], e["grid_x"]) == (2, 40, 8192, 8)
    assert e["name_norm"] == "k(int)"
    c = tl.counters.set_index("metric")["value"]
    assert (c["sgpr"], c["scratch_bytes"], c["accum_vgpr"]) == (40, 64, 8)


def test_api_and_marker_traces_in_a_folder(tmp_path):
    (tmp_path / "42_hip_api_trace.csv").write_text(
        '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'
        '"HIP_RUNTIME_API","hipLaunchKernel",42,42,5,1000,1400\n"HIP_RUNTIME_API","hipMemcpyAsync",42,42,6,1500,1600\n')
    (tmp_path / "42_marker_api_trace.csv").write_text(
        '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'
        '"MARKER_CORE_API","step 3",42,42,0,900,2000\n')
    (tmp_path / "42_kernel_trace.csv").write_text(
        '"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Correlation_Id","Start_Timestamp",'
        '"End_Timestamp"\n"KERNEL_DISPATCH",2,1,1,"k(int)",5,1450,1700\n')
    tl = collect(tmp_path)
    rt = tl.of_kind("runtime").sort_values("start_ns")
    assert list(rt["name"].astype(str)) == ["hipLaunchKernel", "hipMemcpyAsync"] and list(rt["dur_ns"]) == [400, 100]
    assert set(rt["device_id"]) == {-1} and list(rt["correlation_id"]) == [5, 6]
    assert list(tl.of_kind("annotation")["name"].astype(str)) == ["step 3"]
    k = tl.of_kind("kernel")
    assert list(k["correlation_id"]) == [5] and list(k["device_id"]) == [2]


import pytest  # noqa: E402


@pytest.mark.parametrize("prefix", ["2684120_", "decode_", ""])
def test_api_trace_joins_its_own_file_set(tmp_path, prefix):
    # rocprofv3 names every file <prefix><domain>.csv (<pid>_ by default, or -o's name + "_"): the HIP API trace of a
    # file set is the same process as its kernel trace — one rank, the launch call linked by Correlation_Id — not a
    # second rank numbered beside it (as in jimw567/rocprof-unified-viewer's decode_*.csv, whose "hip" API domain
    # had been read as part of the prefix).
    (tmp_path / f"{prefix}hip_api_trace.csv").write_text(
        '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'
        '"HIP_RUNTIME_API_EXT","hipLaunchKernel","7","7","40071","1000","1300"\n')
    (tmp_path / f"{prefix}kernel_trace.csv").write_text(
        '"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Correlation_Id","Start_Timestamp",'
        '"End_Timestamp"\n"KERNEL_DISPATCH","Agent 1","2","165","k(int)","40071","1450","1700"\n')
    tl = collect(tmp_path)
    assert sorted(tl.events["rank"].unique()) == [0]
    rt, k = tl.of_kind("runtime"), tl.of_kind("kernel")
    assert list(rt["correlation_id"]) == list(k["correlation_id"]) == [40071]
    assert list(k["dur_ns"]) == [1700 - 1450] and list(rt["dur_ns"]) == [1300 - 1000]


def test_amd_side_tables_survive_save_and_load(tmp_path):
    from gpulens.timeline import Timeline

    for src in (DATA / "omniperf" / "vcopy_MI200", DATA / "omniperf" / "vcopy_MI300X_A1"):
        tl = collect(src)
        back = Timeline.load(tl.save(tmp_path / f"{src.name}.gpulens"))
        assert sorted(back.tables) == sorted(tl.tables)
        for name, t in tl.tables.items():
            assert back.tables[name].shape == t.shape
        assert list(back.events["name_norm"].astype(str)) == list(tl.events["name_norm"].astype(str))


def test_dispatch_of_an_unknown_kernel_symbol_keeps_a_named_row(tmp_path):
    p = tmp_path / "x_results.json.gz"
    _tiny_v3_json(p)
    doc = json.loads(gzip.open(p).read())
    doc["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][1]["dispatch_info"]["kernel_id"] = 99
    with gzip.open(p, "wt") as fh:
        json.dump(doc, fh)
    names = sorted(collect(p).of_kind("kernel")["name"].astype(str))
    assert names == ["<unknown kernel_id 99>", "k_one(float*)"]


def test_output_folder_with_hostname_subfolder_and_two_processes(tmp_path):
    host = tmp_path / "node1"
    host.mkdir()
    hdr = '"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
    (host / "11_kernel_trace.csv").write_text(hdr + '"KERNEL_DISPATCH",2,1,1,"a(int)",100,300\n')
    (host / "12_kernel_trace.csv").write_text(hdr + '"KERNEL_DISPATCH",3,1,1,"b(int)",150,250\n')
    (host / "12_counter_collection.csv").write_text(
        '"Dispatch_Id","Agent_Id","Kernel_Name","Counter_Name","Counter_Value"\n1,3,"b(int)","SQ_WAVES",8\n')
    tl = collect(tmp_path)
    assert sniff(tmp_path).name == "rocprofv3_csv_dir"
    assert dict(zip(tl.events["name"].astype(str), tl.events["dur_ns"])) == {"a(int)": 200, "b(int)": 100}
    b = int(tl.events.loc[tl.events["name"] == "b(int)", "event_id"].iloc[0])
    assert tl.counters.loc[tl.counters["metric"] == "SQ_WAVES", "event_id"].tolist() == [b]  # pid 12's counter


RUV = DATA / "rocprof" / "v3_csv_unified_viewer_decode"


def test_real_folder_with_a_prefixed_api_trace_is_one_process():
    # jimw567/rocprof-unified-viewer's decode_* files (one process, pid 2684120 in the API trace): 144 dispatches, 6 of
    # them __amd_rocclr_copyBuffer (copies: 14,707 ns) and 138 kernels of 16 names summing 1,842,674 ns (Σ End − Start
    # read with pandas); 920 HIP API rows, whose Correlation_Ids meet 4 dispatches. Was: the API file's prefix read
    # as "" and the kernels' as "decode_", two ranks, no launch linked.
    tl = collect(RUV)
    assert sorted(tl.events["rank"].unique()) == [0]
    k, rt = tl.of_kind("kernel"), tl.of_kind("runtime")
    assert len(k) == 138 and int(k["dur_ns"].sum()) == 1_842_674 and k["name_norm"].astype(str).nunique() == 16
    assert len(tl.of_kind("memcpy")) == 6 and int(tl.of_kind("memcpy")["dur_ns"].sum()) == 14_707
    assert len(rt) == 920
    gpu_corr = set(k["correlation_id"].dropna()) | set(tl.of_kind("memcpy")["correlation_id"].dropna())
    assert len(gpu_corr & set(rt["correlation_id"].dropna())) == 4
