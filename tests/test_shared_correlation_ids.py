"""Launch calls that share a correlation id one after another (semantic fuzzer: every launch and kernel with
correlation 5) were accepted without a word: every kernel linked to the first call, "launch calls without GPU
work 5", and the idle causes changed (host-bound read as "waiting on work already queued"). The links stay as
before (the earliest call), but a data-quality warning now says how many ids are shared. A call made inside
another under its id (HIP: hipMemsetAsync creating hipArray3DCreate) is nesting, not sharing.

Hand-made traces (tests/dig_traces.KTrace, µs).
"""

from __future__ import annotations

import pandas as pd

from gpulens.analyzers import run_all
from gpulens.analyzers.launches import shared_correlation_ids
from gpulens.collectors import collect

from .dig_traces import KTrace


def test_one_id_on_several_successive_calls_is_warned(tmp_path):
    k = KTrace()
    for i in range(3):
        ext = k.op("aten::add", 100 * i, 8)
        k.launch(ext, 100 * i + 10, [("elementwise_kernel", 100 * i + 20, 50)])
    for e in k.ev:
        if "correlation" in e.get("args", {}):
            e["args"]["correlation"] = 5
    res = run_all(collect(k.write(tmp_path / "t.json")))["launches"]
    (f,) = [f for f in res.findings if "correlation id" in f.title]
    assert f.title == "1 correlation id shared by launch calls that do not nest" and f.severity == "warning"


def test_distinct_ids_raise_nothing(tmp_path):
    k = KTrace()
    for i in range(3):
        ext = k.op("aten::add", 100 * i, 8)
        k.launch(ext, 100 * i + 10, [("elementwise_kernel", 100 * i + 20, 50)])
    res = run_all(collect(k.write(tmp_path / "t.json")))["launches"]
    assert not [f for f in res.findings if "correlation id" in f.title]


def test_nested_calls_under_one_id_are_not_sharing():
    # rank 0: id 7 on a call 0–100 and on a call 10–20 inside it (nesting); id 8 on calls 0–5 and 50–60 (sharing);
    # rank 1: id 8 once (another rank's ids are its own)
    calls = pd.DataFrame({"rank": [0, 0, 0, 0, 1], "correlation_id": [7, 7, 8, 8, 8],
                          "start_ns": [0, 10, 0, 50, 0], "dur_ns": [100, 10, 5, 10, 5]})
    assert shared_correlation_ids(calls) == 1
