"""Collective sizes (issue s25): unknown is null, never 0 B; sized from the c10d op when the args are not recorded.

HTA's two-rank sample reported "send_recv … bytes 0 B, sizes unknown 10": its PyTorch (before 2.1) wrote no
``In msg nelems`` / ``Out msg nelems`` / ``dtype`` args on ``record_param_comms``, but the ``c10d::`` ops around the
NCCL kernels record their tensor arguments (``c10d::_allgather_base_`` ``[[1073741824], [16777216], []]`` int8,
``c10d::alltoall_base_`` ``[[382132224], [419430400], …]`` uint8). The rule (pytorch Ops.cpp signatures, nccl-tests
size = the largest buffer): bytes = max over tensor arguments of numel × element size. Also: op categories named
``record_param_comms`` the top communication op while the op roll-up called it "other".

The trace below mirrors that PyTorch 2.0 layout: the kernels link to their op only through the launch call inside
it (their External id matches no op), and every expected size is worked out by hand beside the events.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

import gpulens
from gpulens.analyzers._categories import op_category

T0 = 1_000_000  # µs
SR = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
RPC_TYPES = ["Scalar", "Scalar", "Scalar", "", "", ""]


def _trace(path: Path, with_args: bool = False) -> Path:
    ev: list[dict] = []
    corr = [500]

    def op(name, ts, dur, dims=None, types=None, args=None):
        a = {"External id": 10 + len(ev)}
        if dims is not None:
            a.update({"Input Dims": dims, "Input type": types})
        a.update(args or {})
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": T0 + ts, "dur": dur, "args": a})

    def kernel(ts_host, ts_gpu, dur):
        corr[0] += 1
        c = corr[0]  # External id = correlation: matches no op (as in the HTA sample): linked through the launch
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": T0 + ts_host, "dur": 2, "args": {"correlation": c, "External id": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": SR, "pid": 0, "tid": 7, "ts": T0 + ts_gpu, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": c, "External id": c}})

    # 1. all-to-all: output 1000, input 1200 floats → max(1000, 1200) × 4 = 4800 B, kernel 40 µs
    op("c10d::alltoall_base_", 0, 30, [[1000], [1200], [], [], [], []], ["float", "float", "", "", "", "Scalar"])
    op("record_param_comms", 2, 25, [[1200], [], [], [], [], [], []], ["float"] + RPC_TYPES)
    kernel(10, 100, 40)
    # 2. all-gather: output 4096, input 1024 bf16 → 4096 × 2 = 8192 B, kernel 20 µs (no record_param_comms)
    op("c10d::_allgather_base_", 200, 30, [[4096], [1024], []], ["c10::BFloat16", "c10::BFloat16", ""])
    kernel(210, 300, 20)
    # 3. all-reduce of a tensor list: no shape recorded → size unknown, kernel 10 µs
    op("c10d::allreduce_", 400, 30, [[], [], [], []], ["TensorList", "", "", "Scalar"])
    rpc_args = ({"Collective name": "allreduce", "In msg nelems": 256, "Out msg nelems": 256, "dtype": "Float"}
                if with_args else None)
    op("record_param_comms", 402, 25, [[], [], [], [], [], [], []], ["TensorList"] + RPC_TYPES, rpc_args)
    kernel(410, 500, 10)
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
           "traceEvents": ev}
    path.write_text(json.dumps(doc))
    return path


def test_sizes_come_from_the_c10d_op_and_unknown_stays_null(tmp_path):
    res = gpulens.analyze([_trace(tmp_path / "t.json")]).sources[0].results["collectives"]
    t = res.table.set_index("collective")
    assert sorted(t.index) == ["all_gather", "all_reduce", "all_to_all"]  # from the c10d op, not "send_recv"
    assert t.loc["all_to_all", "bytes"] == 4800 and t.loc["all_to_all", "sizes_unknown"] == 0
    assert math.isclose(t.loc["all_to_all", "algbw"], 4800 / 40e-6)
    assert t.loc["all_gather", "bytes"] == 8192 and math.isclose(t.loc["all_gather", "algbw"], 8192 / 20e-6)
    ar = t.loc["all_reduce"]
    assert ar["bytes"] is pd.NA and ar["sizes_unknown"] == 1 and pd.isna(ar["algbw"])
    assert res.summary["with_metadata"] == 2 and res.summary["sized_by_op_shapes"] == 2


def test_unknown_total_is_null_in_json(tmp_path):
    from gpulens.reports import json_report

    doc = json.loads(json_report.render(gpulens.analyze([_trace(tmp_path / "t.json")])))
    rows = {r["collective"]: r for r in doc["sources"][0]["analyses"]["collectives"]["table"]}
    assert rows["all_reduce"]["bytes"] is None and rows["all_to_all"]["bytes"] == 4800


def test_record_param_comms_args_come_first(tmp_path):
    # the all-reduce's record_param_comms carries In/Out msg nelems 256 and dtype Float: 256 × 4 = 1024 B
    res = gpulens.analyze([_trace(tmp_path / "t.json", with_args=True)]).sources[0].results["collectives"]
    t = res.table.set_index("collective")
    assert t.loc["all_reduce", "bytes"] == 1024 and t.loc["all_reduce", "sizes_unknown"] == 0
    assert res.summary["with_metadata"] == 3 and res.summary["sized_by_op_shapes"] == 2


def test_message_bytes_rule():
    from gpulens.analyzers._c10d_sizes import c10d_message_bytes

    assert c10d_message_bytes([[1073741824], [16777216], []], ["signed char", "signed char", ""]) == 1073741824
    assert c10d_message_bytes('[[382132224], [419430400], [], [], [], []]',
                              '["unsigned char", "unsigned char", "", "", "", "Scalar"]') == 419430400
    assert c10d_message_bytes([[2, 3]], ["long int"]) == 48
    assert c10d_message_bytes([[], [], [], []], ["TensorList", "", "", "Scalar"]) is None   # shapes not recorded
    assert c10d_message_bytes([[8]], ["c10::Float4_e2m1fn_x2"]) is None                     # size not known here
    assert c10d_message_bytes([[], []], ["", "Scalar"]) is None                              # no tensor at all


def test_record_param_comms_is_communication_in_every_table(tmp_path):
    assert op_category("record_param_comms") == "communication"
    src = gpulens.analyze([_trace(tmp_path / "t.json")]).sources[0]
    roll = src.results["op_rollup"].table
    assert set(roll.loc[roll["op"] == "record_param_comms", "category"]) == {"communication"}
    cats = src.results["op_categories"].table.set_index("category")
    top = cats.loc["communication", "top_op"]
    assert set(roll.loc[roll["op"] == top, "category"]) == {"communication"}
