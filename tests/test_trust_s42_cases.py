"""Variants of the shared cases (../shared/cases/README.md) that another public project could produce (session 42),
each generated here with its answer worked out by hand in the docstring from the values written (ns in rocprofv3
CSV, µs in Kineto files, ns in reports) — never copied from gpulens output.

* T12's device naming in a rocprofv3 CSV set: ``Agent_Id`` is written in the space ``--agent-index`` picks
  (``Agent <logical node>`` by default, ``GPU <type-relative index>``, or the bare node id of older versions;
  rocprofiler-sdk ``using-rocprofv3.rst`` "Agent index"). ``GPU 0`` was read as node 0 — the CPU in
  ``agent_info.csv`` — so the kernels ran on "a dangling device" and the listed GPU had "no GPU work on it"; a copy's
  ``Source_Agent_Id`` / ``Destination_Agent_Id`` written as labels was not read at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main

# -- rocprofv3 agent index (T12 / B11: which GPU ran the work) -------------------------------------------------------

_KT = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
       '"Correlation_Id","Start_Timestamp","End_Timestamp","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z",'
       '"Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
_AI = '"Node_Id","Logical_Node_Id","Agent_Type","Cu_Count","Wave_Front_Size","Simd_Per_Cu","Name","Product_Name"\n'
# two CPU sockets (nodes 0, 1) then two GPUs (nodes 2, 3): GPU 0 = node 2, GPU 1 = node 3 (T12's agent table)
_AGENTS = (_AI + '0,0,"CPU",0,0,0,"cpu","EPYC"\n1,1,"CPU",0,0,0,"cpu","EPYC"\n'
           '2,2,"GPU",304,64,4,"gfx942","AMD Instinct MI300X"\n3,3,"GPU",304,64,4,"gfx942","AMD Instinct MI300X"\n')
_CP = '"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'


def _kt_rows(label0: str, label1: str) -> str:
    """gemm [1,000,000, 1,100,000] and add [1,150,000, 1,170,000] on the first GPU (label0, queue 1); gemm
    [1,000,000, 1,050,000] on the second (label1, queue 2)."""
    return (_KT + f'"KERNEL_DISPATCH","{label0}",1,0,9,1,5,"gemm",1,1000000,1100000,256,1,1,4096,1,1\n'
            f'"KERNEL_DISPATCH","{label0}",1,0,9,2,6,"add",2,1150000,1170000,256,1,1,4096,1,1\n'
            f'"KERNEL_DISPATCH","{label1}",2,0,9,3,5,"gemm",3,1000000,1050000,256,1,1,4096,1,1\n')


def _analyze(path: Path, tmp_path: Path) -> dict:
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


def _per_device(src: dict) -> dict:
    rows = src["analyses"]["breakdown"]["table"]
    return {int(r["device_id"]): r["busy_ns"] for r in rows if r.get("device_id") is not None}


@pytest.mark.parametrize("labels", [("GPU 0", "GPU 1"), ("Agent 2", "Agent 3"), ("2", "3")],
                         ids=["type-relative", "relative", "bare-node-id"])
@pytest.mark.parametrize("whole_folder", [False, True], ids=["file", "folder"])
def test_agent_index_spaces_name_the_same_gpus(labels, whole_folder, tmp_path):
    """Whatever ``--agent-index`` wrote, agent_info.csv says the kernels ran on nodes 2 and 3 (the two MI300X):
    node 2 busy 100 + 20 = 120 µs, node 3 busy 50 µs; total 170 µs over span 1,000,000 → 1,170,000 ns; both GPUs
    listed with their hardware (gpu_index 0 and 1, their type-relative index), no "dangling device" warning."""
    (tmp_path / "5_agent_info.csv").write_text(_AGENTS)
    kt = tmp_path / "5_kernel_trace.csv"
    kt.write_text(_kt_rows(*labels))
    src = _analyze(tmp_path if whole_folder else kt, tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"]) == (3, 170_000)
    assert _per_device(src) == {2: 120_000, 3: 50_000}
    devs = {d["device_id"]: d for d in src["devices"]}
    assert sorted(devs) == [2, 3] and (devs[2]["gpu_index"], devs[3]["gpu_index"]) == (0, 1)
    assert devs[2]["name"] == "AMD Instinct MI300X"
    assert not any("dangling" in w for w in src["warnings"])


def test_copy_agents_written_as_labels_name_the_gpu(tmp_path):
    """A host-to-device copy "CPU 0" → "GPU 1" [1,200,000, 1,204,000] and a device-to-host copy "GPU 0" → "CPU 1"
    [1,300,000, 1,302,000] beside the kernels of the type-relative file: the first is work of node 3 (GPU 1),
    the second of node 2 (GPU 0). Node 2: 120 + 2 = 122 µs busy; node 3: 50 + 4 = 54 µs; 2 copies, 6 µs."""
    (tmp_path / "5_agent_info.csv").write_text(_AGENTS)
    (tmp_path / "5_kernel_trace.csv").write_text(_kt_rows("GPU 0", "GPU 1"))
    (tmp_path / "5_memory_copy_trace.csv").write_text(
        _CP + '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE","CPU 0","GPU 1",4,1200000,1204000\n'
        '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST","GPU 0","CPU 1",5,1300000,1302000\n')
    src = _analyze(tmp_path, tmp_path)
    assert src["summary"]["memcpy_count"] == 2
    assert _per_device(src) == {2: 122_000, 3: 54_000}
