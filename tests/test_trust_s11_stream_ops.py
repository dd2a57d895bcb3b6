"""HIP stream wait/write operations are synchronisation, not computation (one rule for every collector).

Kind: ROCm runs ``hipStreamWaitValue*`` / ``hipStreamWriteValue*`` as the blit kernels ``__amd_rocclr_streamOpsWait``
and ``__amd_rocclr_streamOpsWrite`` (ROCm/clr rocclr/device/rocm/rocblitcl.cpp), which tracers record as kernel
dispatches. A wait kernel spins until a memory value is written (rocprofv3 decode profiles show 0.35 ms per wait): it
counted as computation, inflating busy/compute time and ranking as a hot kernel.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.collectors._work_rules import kind_of_kernel_name
from tests.conftest import shared_trace


@pytest.mark.parametrize("name,kind", [
    ("__amd_rocclr_streamOpsWait", "sync"), ("__amd_rocclr_streamOpsWrite", "sync"),
    ("__amd_rocclr_streamOpsWait.kd", "sync"),
    ("__amd_rocclr_copyBuffer", "memcpy"), ("__amd_rocclr_fillBufferAligned", "memset"),
    ("__amd_rocclr_initHeap", "memset"), ("streamOpsWaitKernel_of_my_app", "kernel"),  # initHeap: runtime set-up (s40)
])
def test_one_rule(name, kind):
    assert kind_of_kernel_name(name) == kind


def _kineto(tmp_path):
    """ROCm 7 Kineto (cat=kernel for every dispatch): a GEMM [0, 100) µs on stream 1; on stream 2 a wait op
    [100, 150) µs then a write op [150, 152) µs; an elementwise kernel [152, 162) µs on stream 1."""
    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 2, "tid": s, "ts": 1000 + t, "dur": d,
           "args": {"device": 0, "stream": s, "correlation": i + 1}}
          for i, (n, s, t, d) in enumerate([("Cijk_Alik_Bljk_HHS_BH_MT128x128x32", 1, 0, 100),
                                            ("__amd_rocclr_streamOpsWait", 2, 100, 50),
                                            ("__amd_rocclr_streamOpsWrite", 2, 150, 2),
                                            ("elementwise_kernel", 1, 152, 10)])]
    p = tmp_path / "rocm.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev,
                             "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}]}))
    return p


def test_kineto_stream_ops_are_not_computation(tmp_path):
    src = gpulens.analyze([_kineto(tmp_path)]).sources[0]
    ev = src.timeline.events
    assert set(ev.loc[ev["name"].astype(str).str.startswith("__amd_rocclr_streamOps"), "kind"]) == {"sync"}
    bd = src.results["breakdown"].summary
    # by hand: computation = GEMM 100 µs + elementwise 10 µs = 110 µs (not 162 µs); the 52 µs of waiting is idle
    assert bd["computation_ns"] == 110_000 and bd["device_span_ns"] == 162_000 and bd["idle_ns"] == 52_000
    hot = src.results["hotspots"].table["name"].astype(str).tolist()
    assert not any("streamOps" in n for n in hot)
    # the wait runs on a GPU queue: the idle beside it is never "the host blocked in a synchronisation"
    bn = src.results["bottlenecks"].summary
    assert bn["idle_sync_ns"] == 0 and bn["idle_ns"] == 52_000


def test_rocprofv3_csv_stream_ops_are_not_computation(tmp_path):
    # the rocprofiler-sdk docs' kernel_trace.csv with its first dispatch renamed to a stream wait op: computation is
    # the union of the other dispatches, computed here from the CSV itself
    import pandas as pd

    src_csv = shared_trace("rocprof/v3_csv_sdk_docs/kernel_trace.csv")
    df = pd.read_csv(src_csv)
    df.loc[0, "Kernel_Name"] = "__amd_rocclr_streamOpsWait"
    p = tmp_path / "kernel_trace.csv"
    df.to_csv(p, index=False)
    rest = df.iloc[1:].sort_values("Start_Timestamp")
    union, end = 0, None
    for s, e in zip(rest["Start_Timestamp"], rest["End_Timestamp"]):
        if end is None or s > end:
            union += e - s
            end = e
        elif e > end:
            union += e - end
            end = e
    src = gpulens.analyze([p]).sources[0]
    assert src.results["breakdown"].summary["computation_ns"] == union
    assert src.summary["kernel_count"] == len(df) - 1
