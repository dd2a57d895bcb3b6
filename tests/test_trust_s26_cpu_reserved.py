"""The CPU allocator records no reserved total: PyTorch's ``ProfiledCPUMemoryReporter`` writes ``Total Reserved`` 0
on every CPU ``[memory]`` event (c10/core/CPUAllocator.cpp), so the memory analysis showed ``peak_reserved_bytes``
0.0 for the ``cpu`` rows (tracelens_h100 / tracelens_mi300x: 0 B reserved while 16 B / 8 B were allocated — below
what was allocated, impossible for a real reserved figure). It is unknown (null) now; the GPU figures stay.
"""

from __future__ import annotations

import gzip
import json
import math

from gpulens.analyzers import run_all
from gpulens.collectors import collect
from tests.conftest import DATA


def _mem(ts, dev_type, dev_id, alloc, reserved, nbytes):
    return {"ph": "i", "s": "t", "name": "[memory]", "pid": 100, "tid": 100, "ts": ts,
            "args": {"Total Reserved": reserved, "Total Allocated": alloc, "Bytes": nbytes, "Device Id": dev_id,
                     "Device Type": dev_type}}


def _unknown(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def test_cpu_rows_have_no_reserved_figure(tmp_path):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 100, "tid": 100, "ts": 1000, "dur": 50},
          _mem(1001, 0, -1, 8, 0, 8), _mem(1002, 0, -1, 24, 0, 16), _mem(1003, 0, -1, 8, 0, -16),
          _mem(1004, 1, 0, 512, 2048, 512), _mem(1005, 1, 0, 1024, 4096, 512)]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    r = run_all(collect(p))
    t = r["memory_timeline"].table.set_index("device")
    assert t.loc["cpu", "peak_allocated_bytes"] == 24  # 8 + 16
    assert _unknown(t.loc["cpu", "peak_reserved_bytes"])
    assert t.loc["cuda:0", "peak_reserved_bytes"] == 4096  # max(2048, 4096): the GPU's figure is kept
    s = r["memory_series"].table
    assert all(_unknown(v) for v in s.loc[s["device"] == "cpu", "reserved_bytes"])
    assert s.loc[s["device"] == "cuda:0", "reserved_bytes"].max() == 4096


def test_tracelens_cpu_reserved_is_unknown():
    path = DATA / "kineto" / "tracelens_h100_bert-small.json.gz"
    raw = [e["args"] for e in json.load(gzip.open(path))["traceEvents"] if e.get("name") == "[memory]"]
    cpu = [a["Total Reserved"] for a in raw if a["Device Type"] == 0]
    gpu = max(a["Total Reserved"] for a in raw if a["Device Type"] == 1)
    assert cpu and set(cpu) == {0}  # the trace's own CPU events: reserved 0 on every one
    t = run_all(collect(path))["memory_timeline"].table.set_index("device")
    assert _unknown(t.loc["cpu", "peak_reserved_bytes"])
    assert t.loc["cuda:0", "peak_reserved_bytes"] == gpu
