"""Class 3 of issue 13: collective metadata (record_param_comms / NCCL kernel args) and the collectives analyzer.

The trace is written here; expected bytes and bandwidths are worked by hand from the args written and the
nccl-tests definitions (doc/PERFORMANCE.md): algbw = S / t, busbw = algbw × 2(n−1)/n for all-reduce,
× (n−1)/n for all-gather and reduce-scatter.
"""

from __future__ import annotations

import json
import math

import pandas as pd

import gpulens
from gpulens.analyzers.collectives import bus_factor, collective_type
from gpulens.collectors import collect

T = 1_000_000  # µs
AR_ARGS = {"Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float",
           "Group size": 4, "Process Group Name": "0", "Process Group Description": "default_pg",
           "Process Group Ranks": "[0, 1, 2, 3]", "In split size": "[]", "Out split size": "[]"}


def trace(tmp_path):
    ev = [
        # all-reduce: op → launch → NCCL kernel of 100 µs, a GEMM covers its first 40 µs
        {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": T, "dur": 5,
         "args": {"External id": 1, **AR_ARGS}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": T + 1, "dur": 2,
         "args": {"correlation": 11, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20,
         "ts": T + 10, "dur": 100, "args": {"device": 0, "stream": 20, "correlation": 11, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": T, "dur": 50,
         "args": {"device": 0, "stream": 7, "correlation": 12}},
        # all-gather: the kernel carries the args itself (PyTorch ≥ 2.1), 1000 → 4000 bf16 elements, 20 µs
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL", "pid": 0, "tid": 20,
         "ts": T + 200, "dur": 20, "args": {"device": 0, "stream": 20, "correlation": 13,
                                            "Collective name": "allgather", "In msg nelems": 1000,
                                            "Out msg nelems": 4000, "dtype": "BFloat16", "Group size": 4,
                                            "Process Group Name": "0", "Process Group Description": "default_pg"}},
        # reduce-scatter without any metadata: type from the kernel name, size unknown
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", "pid": 0, "tid": 20,
         "ts": T + 300, "dur": 30, "args": {"device": 0, "stream": 20, "correlation": 14}},
    ]
    p = tmp_path / "comms.json"
    p.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 4},
                             "traceEvents": ev}))
    return p


def test_collective_metadata_is_kept_beside_the_events(tmp_path):
    tl = collect(trace(tmp_path))
    c = tl.tables["collectives"].set_index("collective")
    assert c.loc["allreduce", "bytes"] == 1048576 * 4  # Float = 4 bytes
    assert c.loc["allgather", "bytes"] == 4000 * 2  # nccl-tests size of all-gather = output; BFloat16 = 2 bytes
    assert c.loc["allreduce", "pg_desc"] == "default_pg" and c.loc["allreduce", "group_size"] == 4
    op = tl.events.set_index("event_id").loc[int(c.loc["allreduce", "event_id"])]
    assert op["name"] == "record_param_comms"


def test_collectives_analyzer_per_type(tmp_path):
    res = gpulens.analyze([trace(tmp_path)]).sources[0].results["collectives"]
    t = res.table.set_index("collective")
    ar = t.loc["all_reduce"]
    assert ar["count"] == 1 and ar["time_ns"] == 100_000 and ar["bytes"] == 4_194_304
    assert ar["exposed_ns"] == 60_000  # 100 µs kernel, GEMM overlaps its first 40 µs (T+10 … T+50)
    assert math.isclose(ar["algbw"], 4_194_304 / 100e-6)
    assert math.isclose(ar["busbw"], 4_194_304 / 100e-6 * 2 * 3 / 4)
    assert ar["process_group"] == "0 (default_pg)"
    ag = t.loc["all_gather"]
    assert math.isclose(ag["busbw"], 8000 / 20e-6 * 3 / 4) and ag["exposed_ns"] == 20_000
    rs = t.loc["reduce_scatter"]
    # no size known: the total is unknown (null), not 0 B (this test had encoded 0)
    assert rs["sizes_unknown"] == 1 and rs["bytes"] is pd.NA and math.isnan(rs["algbw"])
    assert res.summary["collectives"] == 3 and res.summary["with_metadata"] == 2


def test_bus_factors_and_type_names():
    assert bus_factor("all_reduce", 8) == 2 * 7 / 8 and bus_factor("all_gather", 8) == 7 / 8
    assert bus_factor("send_recv", 2) == 1.0 and math.isnan(bus_factor("all_reduce", None))
    assert collective_type("_allgather_base") == "all_gather"
    assert collective_type("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t") == "send_recv"
    assert collective_type("reduce_scatter_tensor_coalesced") == "reduce_scatter"
