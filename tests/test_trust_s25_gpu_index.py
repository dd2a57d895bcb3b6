"""AMD rocprofiler-sdk sources number a GPU by its ordinal among GPUs, not by its HSA node id.

rocprofiler-sdk ``agent.h``: ``node_id`` is the HSA node (it counts the CPU agents: on a node with two CPU sockets
the first GPU is node 2), ``logical_node_type_id`` the "logical sequence number with respect to other agents of
same type … logical_node_type_id value for first GPU will be 0, second GPU will have value of 1" — the index HIP and
``HIP_VISIBLE_DEVICES`` use. TraceLens' ``908_results.json.gz`` (8× MI350X, 2 CPU agents) ran every dispatch on
agent 37946: ``node_id`` 2, ``logical_node_type_id`` 0, i.e. HIP device 0, which the time breakdown called "GPU 2".
rocprofv3's CSV ``Agent_Id`` is that ordinal under ``--agent-index type-relative`` (``GPU 0``), else an agent
number counting CPUs (``absolute`` = node_id, ``relative`` = logical_node_id; rocprofiler-sdk
``tests/rocprofv3/agent-index/validate.py``); rocpd's ``rocpd_info_agent.type_index`` is the ordinal.

Each input below is written by the test: 2 CPU agents (nodes 0, 1) and 2 GPUs (nodes 2, 3 → GPU 0, GPU 1).
"""

from __future__ import annotations

import gzip
import json
import sqlite3

import pytest

import gpulens
from gpulens.collectors import collect
from tests.conftest import shared_trace

GPU_EXT = json.dumps({"name": "gfx942", "cu_count": 304, "wave_front_size": 64})


def _agents_json(with_type_id: bool = True) -> list[dict]:
    out = []
    for node, (typ, handle) in enumerate([(1, 100), (1, 101), (2, 200), (2, 201)]):
        a = {"id": {"handle": handle}, "type": typ, "node_id": node, "logical_node_id": node,
             "name": "CPU" if typ == 1 else "gfx942"}
        if typ == 2:
            a.update(product_name="AMD Instinct MI300X", cu_count=304, wave_front_size=64)
        if with_type_id:
            a["logical_node_type_id"] = node if typ == 1 else node - 2
        out.append(a)
    return out


def _v3_json(path, with_type_id: bool = True, one_gpu: bool = False) -> None:
    def dinfo(handle, did):
        return {"agent_id": {"handle": handle}, "queue_id": {"handle": 5}, "kernel_id": 1, "dispatch_id": did,
                "private_segment_size": 0, "group_segment_size": 0, "workgroup_size": {"x": 64, "y": 1, "z": 1},
                "grid_size": {"x": 6400, "y": 1, "z": 1}}

    doc = {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 5, "node": {"hostname": "h"}, "command": ["./app"]},
        "agents": _agents_json(with_type_id),
        "counters": [{"id": {"handle": 9}, "name": "SQ_WAVES"}],
        "strings": {"buffer_records": [{"kind": "NONE", "operations": []},
                                       {"kind": "MEMORY_COPY", "operations": ["NONE", "MEMORY_COPY_HOST_TO_DEVICE"]}]},
        "kernel_symbols": [{"kernel_id": 1, "formatted_kernel_name": "k(float*)", "truncated_kernel_name": "k",
                            "kernel_name": "_Z1kPf.kd", "sgpr_count": 16, "arch_vgpr_count": 8,
                            "accum_vgpr_count": 0}],
        "buffer_records": {
            # dispatches 1, 2 on node 2 (GPU 0), dispatch 3 on node 3 (GPU 1)
            "kernel_dispatch": [{"start_timestamp": s, "end_timestamp": s + 100, "thread_id": 7,
                                 "correlation_id": {"internal": did, "external": 0}, "dispatch_info": dinfo(h, did)}
                                for did, h, s in ((1, 201 if one_gpu else 200, 1000),
                                                  (2, 201 if one_gpu else 200, 1200), (3, 201, 1000))
                                if not one_gpu or did != 3],
            "memory_copy": [{"kind": 1, "operation": 1, "start_timestamp": 500, "end_timestamp": 600,
                             "thread_id": 7, "correlation_id": {"internal": 9, "external": 0},
                             "dst_agent_id": {"handle": 201}, "src_agent_id": {"handle": 100}, "bytes": 64}]},
        "callback_records": {"counter_collection": [
            {"dispatch_data": {"dispatch_info": dinfo(201, 3)},
             "records": [{"counter_id": {"handle": 9}, "value": 100.0}]}]},
    }]}
    with gzip.open(path, "wt") as fh:
        json.dump(doc, fh)


@pytest.mark.parametrize("with_type_id", [True, False])
def test_v3_json_device_is_the_gpu_ordinal_not_the_node_id(tmp_path, with_type_id):
    p = tmp_path / "5_results.json.gz"
    _v3_json(p, with_type_id)
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values(["start_ns", "correlation_id"])
    # node 2 → GPU 0, node 3 → GPU 1 (recorded logical_node_type_id, or the GPUs' order by node id without it)
    assert list(zip(k["correlation_id"], k["device_id"])) == [(1, 0), (3, 1), (2, 0)]
    assert sorted((d["device_id"], d["gpu_index"], d["hsa_node_id"]) for d in tl.meta.devices) == [(0, 0, 2),
                                                                                                   (1, 1, 3)]
    waves = tl.counters[tl.counters["metric"] == "SQ_WAVES"]  # the counter still lands on dispatch 3 (GPU 1)
    ev3 = int(k.loc[k["correlation_id"] == 3, "event_id"].iloc[0])
    assert list(waves["event_id"]) == [ev3] and list(waves["value"]) == [100.0]
    assert list(tl.of_kind("memcpy")["device_id"]) == [1]  # host → node 3: the GPU side, GPU 1


def test_v3_json_breakdown_names_the_gpu_ordinal(tmp_path):
    from gpulens.reports import console

    p = tmp_path / "5_results.json.gz"
    _v3_json(p, one_gpu=True)  # every dispatch on agent 201: node 3, the second GPU
    rep = gpulens.analyze([p])
    assert [int(x) for x in rep.sources[0].results["breakdown"].table["device_id"]] == [1]
    text = console.render(rep)
    assert "rank 0, GPU 1" in text and "GPU 3" not in text


_KT = '"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
_CC = '"Dispatch_Id","Agent_Id","Kernel_Name","Counter_Name","Counter_Value"\n'
_MC = '"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'
_AI = ('"Node_Id","Logical_Node_Id","Agent_Type","Cu_Count","Wave_Front_Size","Name","Product_Name"\n'
       '0,0,"CPU",64,0,"EPYC","EPYC"\n1,1,"CPU",64,0,"EPYC","EPYC"\n'
       '2,2,"GPU",304,64,"gfx942","AMD Instinct MI300X"\n3,3,"GPU",304,64,"gfx942","AMD Instinct MI300X"\n')


def test_v3_csv_folder_maps_agent_numbers_to_gpu_ordinals(tmp_path):
    """Agent_Id 2 and 3 (agent numbers; this agent_info.csv has no Logical_Node_Type_Id column) are GPUs 0 and 1:
    the GPUs' order by node id."""
    (tmp_path / "5_agent_info.csv").write_text(_AI)
    (tmp_path / "5_kernel_trace.csv").write_text(_KT + '"KERNEL_DISPATCH",2,1,1,"a(int)",1000,1100\n'
                                                       '"KERNEL_DISPATCH",3,1,2,"b(int)",1000,1300\n')
    (tmp_path / "5_counter_collection.csv").write_text(_CC + '2,3,"b(int)","SQ_WAVES",30\n')
    (tmp_path / "5_memory_copy_trace.csv").write_text(_MC + '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,3,0,10,20\n')
    tl = collect(tmp_path)
    k = tl.of_kind("kernel").set_index(tl.of_kind("kernel")["name"].astype(str))
    assert (int(k.loc["a(int)", "device_id"]), int(k.loc["b(int)", "device_id"])) == (0, 1)
    waves = tl.counters[tl.counters["metric"] == "SQ_WAVES"]  # dispatch 2 on agent 3 found after the mapping
    assert list(waves["event_id"]) == [int(k.loc["b(int)", "event_id"])]
    assert list(tl.of_kind("memcpy")["device_id"]) == [1]
    assert sorted((d["device_id"], d["hsa_node_id"]) for d in tl.meta.devices) == [(0, 2), (1, 3)]


def test_v3_csv_type_relative_ids_are_already_ordinals(tmp_path):
    (tmp_path / "kernel_trace.csv").write_text(_KT + '"KERNEL_DISPATCH","GPU 1",1,1,"a(int)",1000,1100\n')
    (tmp_path / "memory_copy_trace.csv").write_text(
        _MC + '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE","CPU 0","GPU 1",0,10,20\n')
    tl = collect(tmp_path)
    assert list(tl.of_kind("kernel")["device_id"]) == [1]
    assert list(tl.of_kind("memcpy")["device_id"]) == [1]  # "GPU 1" read, not unknown
    assert not [w for w in tl.meta.warnings if "agent number" in w]


def test_v3_csv_file_alone_reads_its_agent_info_beside_it(tmp_path):
    (tmp_path / "5_agent_info.csv").write_text(_AI)
    p = tmp_path / "5_kernel_trace.csv"
    p.write_text(_KT + '"KERNEL_DISPATCH",2,1,1,"a(int)",1000,1100\n')
    tl = collect(p)
    assert list(tl.of_kind("kernel")["device_id"]) == [0]
    assert {d["name"] for d in tl.meta.devices} == {"AMD Instinct MI300X"}


def test_v3_csv_agent_numbers_without_agent_info_are_kept_and_said(tmp_path):
    p = tmp_path / "kernel_trace.csv"
    p.write_text(_KT + '"KERNEL_DISPATCH",2,1,1,"a(int)",1000,1100\n')
    tl = collect(p)
    assert list(tl.of_kind("kernel")["device_id"]) == [2]  # no agent records: nothing to map with
    assert [w for w in tl.meta.warnings if "agent number" in w and "agent_info.csv" in w]


def test_rocpd_device_is_type_index_not_absolute_index(tmp_path):
    p = tmp_path / "results.db"
    con = sqlite3.connect(p)
    con.executescript(f"""
    CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, guid TEXT, type TEXT, absolute_index INT,
        logical_index INT, type_index INT, name TEXT, product_name TEXT, extdata JSONB);
    INSERT INTO rocpd_info_agent VALUES (1, 'g', 'CPU', 0, 0, 0, 'EPYC', 'EPYC', '{{}}'),
        (2, 'g', 'CPU', 1, 1, 1, 'EPYC', 'EPYC', '{{}}'),
        (3, 'g', 'GPU', 2, 2, 0, 'gfx942', 'AMD Instinct MI300X', '{GPU_EXT}'),
        (4, 'g', 'GPU', 3, 3, 1, 'gfx942', 'AMD Instinct MI300X', '{GPU_EXT}');
    CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, guid TEXT, kernel_name TEXT, display_name TEXT);
    INSERT INTO rocpd_info_kernel_symbol VALUES (10, 'g', '_Z1kPf.kd', 'k(float*)');
    CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, guid TEXT, agent_id INT, kernel_id INT,
        dispatch_id INT, queue_id INT, start BIGINT, "end" BIGINT);
    INSERT INTO rocpd_kernel_dispatch VALUES (1, 'g', 3, 10, 1, 1, 1000, 1100), (2, 'g', 4, 10, 2, 1, 1000, 1200);
    """)
    con.commit()
    con.close()
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("dur_ns")
    assert list(k["device_id"]) == [0, 1]  # agents 3, 4: type_index 0, 1 (absolute_index 2, 3)
    assert sorted((d["device_id"], d["hsa_node_id"]) for d in tl.meta.devices) == [(0, 2), (1, 3)]


def test_shared_908_runs_on_gpu_0():
    """SOURCES.md: all dispatches on agent handle 37946, whose node_id is 2 and logical_node_type_id 0."""
    p = shared_trace("rocprof/v3_json_mi350x/908_results.json.gz")
    tl = collect(p)
    assert set(tl.events.loc[tl.events["kind"].isin(["kernel", "comm"]), "device_id"]) == {0}
    d0 = [d for d in tl.meta.devices if d["device_id"] == 0]
    assert len(d0) == 1 and d0[0]["hsa_node_id"] == 2 and d0[0]["agent_handle"] == 37946
