"""A GPU row that records no device (rocpd kernel rows with ``agent_id`` NULL or the column absent; rocprofv3 JSON
dispatches without an agent) is never silently put on device 0 among several GPUs.

The databases are tests/test_rocpd.py's layout B (2 dispatches, agent 2 = HSA node 5) with a second GPU agent (node
6) added, then the kernels' agent removed. With one GPU listed the rows belong to it (node 5: the only GPU); with
two, the warning counts the 2 rows placed on device 0 (a device that is neither node 5 nor node 6).
"""

from __future__ import annotations

import gzip
import json
import sqlite3

import pytest

from gpulens.collectors import collect
from tests.test_rocpd import U, build_layout_a, build_layout_b
from tests.test_rocprofv3 import _tiny_v3_json


def _second_gpu(con):
    con.execute("INSERT INTO rocpd_info_agent VALUES (3, 'g', 1, 1, 'GPU', 6, 6, 1, 0, NULL, NULL, NULL, 'AMD', "
                "'AMD Instinct MI300X', '{}')")


@pytest.mark.parametrize("how", ["null", "absent"])
def test_rocpd_kernels_without_agent_among_two_gpus_are_counted(tmp_path, how):
    p = tmp_path / "r.db"
    build_layout_b(p)
    con = sqlite3.connect(p)
    _second_gpu(con)
    con.execute("UPDATE rocpd_kernel_dispatch SET agent_id = NULL")
    if how == "absent":
        con.execute("ALTER TABLE rocpd_kernel_dispatch DROP COLUMN agent_id")
    con.commit()
    con.close()
    tl = collect(p)
    # the rows stand on device 0, listed beside the two recorded GPUs with its hardware unknown
    assert sorted(d["device_id"] for d in tl.meta.devices) == [0, 5, 6]
    assert [d["name"] for d in tl.meta.devices if d["device_id"] == 0] == [None]
    said = [w for w in tl.meta.warnings if "no device (agent id" in w]
    assert len(said) == 1 and said[0].split(": ", 1)[1].startswith("2 GPU rows") and "2 GPUs" in said[0]


def test_rocpd_kernels_without_agent_on_the_only_gpu_go_to_it(tmp_path):
    p = tmp_path / "r.db"
    build_layout_a(p)
    con = sqlite3.connect(p)
    con.execute(f"UPDATE rocpd_track{U} SET agent_id = NULL")
    con.commit()
    con.close()
    tl = collect(p)
    k = tl.of_kind("kernel")
    assert len(k) == 2 and set(k["device_id"]) == {5}  # the database's only GPU agent: HSA node 5
    assert set(tl.of_kind("memcpy")["device_id"]) == {5}
    assert not any("no device (agent id" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("two_gpus", [False, True])
def test_rocprofv3_json_copy_without_agent(tmp_path, two_gpus):
    """The HtoD copy of the tiny JSON with its destination agent removed: on the only GPU (agent 222 = node 1), or,
    with a second GPU listed, counted in the warning (1 row)."""
    p = tmp_path / "77_results.json.gz"
    _tiny_v3_json(p)
    with gzip.open(p, "rt") as fh:
        doc = json.load(fh)
    tool = doc["rocprofiler-sdk-tool"][0]
    del tool["buffer_records"]["memory_copy"][0]["dst_agent_id"]
    if two_gpus:
        tool["agents"].append(dict(tool["agents"][1], id={"handle": 333}, node_id=2, logical_node_type_id=1))
    with gzip.open(p, "wt") as fh:
        json.dump(doc, fh)
    tl = collect(p)
    m = tl.of_kind("memcpy")
    said = [w for w in tl.meta.warnings if "no device (agent id" in w]
    assert len(m) == 1
    if two_gpus:
        assert len(said) == 1 and ": 1 GPU row" in said[0] and "2 GPUs" in said[0]
    else:
        assert list(m["device_id"]) == [1] and not said


@pytest.mark.parametrize("gpus", [1, 2])
def test_rocprofv3_csv_dispatch_with_empty_agent(tmp_path, gpus):
    """A kernel_trace.csv row with an empty Agent_Id beside agent_info.csv: on its only GPU (node 2), or counted
    with two GPUs listed (nodes 2 and 3)."""
    agents = ('"Node_Id","Logical_Node_Id","Logical_Node_Type_Id","Agent_Type","Cu_Count","Wave_Front_Size",'
              '"Name","Product_Name"\n0,0,0,"CPU",64,0,"AMD EPYC","AMD EPYC"\n'
              '2,2,0,"GPU",304,64,"gfx942","AMD Instinct MI300X"\n')
    if gpus == 2:
        agents += '3,3,1,"GPU",304,64,"gfx942","AMD Instinct MI300X"\n'
    (tmp_path / "5_agent_info.csv").write_text(agents)
    (tmp_path / "5_kernel_trace.csv").write_text(
        '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
        '"KERNEL_DISPATCH",2,1,1,"a(int)",100,300\n"KERNEL_DISPATCH",,1,1,"b(int)",400,500\n')
    tl = collect(tmp_path)
    k = tl.of_kind("kernel").sort_values("start_ns")
    said = [w for w in tl.meta.warnings if "no device (agent id" in w]
    assert list(k["name"].astype(str)) == ["a(int)", "b(int)"]
    if gpus == 1:
        assert list(k["device_id"]) == [2, 2] and not said
    else:
        assert len(said) == 1 and ": 1 GPU row" in said[0] and "2 GPUs" in said[0]
