"""Kineto ``deviceProperties`` records without a usable ``id`` keep their own device number.

Fuzzing (s29) found a TraceLens MI210 trace whose records' ids were mutated to -1e9 / true: every such record became
device 0, so the run listed device 0 four times and its GPU 1 (where all 562 kernels ran) was among no device.
PyTorch writes the visible devices in order (record i is device i), so the list position is the device number.
"""
from __future__ import annotations

import json

from gpulens.cli import main


def test_device_record_with_bad_id_takes_its_list_position(tmp_path):
    props = [{"id": 0, "name": "GPU-A", "numSms": 104, "warpSize": 64},
             {"id": -1000000000, "name": "GPU-B", "numSms": 104, "warpSize": 64}]
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 10, "dur": 5,
           "args": {"device": 1, "stream": 7, "correlation": 1}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"deviceProperties": props, "traceEvents": ev}))
    out = tmp_path / "r.json"
    assert main(["analyze", str(p), "--no-cache", "--json", str(out), "-q"]) == 0
    src = json.loads(out.read_text())["sources"][0]
    ids = sorted(d["device_id"] for d in src["devices"])
    assert ids == [0, 1]  # record 0 → device 0, record 1 (bad id) → its place: device 1
    assert next(d["name"] for d in src["devices"] if d["device_id"] == 1) == "GPU-B"
    assert any("1 deviceProperties record with no usable device id" in w and str(p) in w for w in src["warnings"])
