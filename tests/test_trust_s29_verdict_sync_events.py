"""A critical-path class table row never reads "0 events" beside a nonzero time for a class that has an event:
the ``sync`` wait (from the end of the GPU work a blocking call waited for to that call's end) is that call's own
time, so the row names the call and counts it. Before, the wait was an unnamed gap: nsys memfusion RTX 3090 read
"sync | 6.56 µs | 0 events | unknown".

Hand-made Kineto trace; times in µs in the events, ns in the results.
"""

from __future__ import annotations

import json

from gpulens.analyzers import run_all
from gpulens.collectors import collect


def _trace(tmp_path):
    # step 1000–1100 µs; cudaLaunchKernel 1002–1004 launches a 60 µs kernel running 1005–1065;
    # cudaDeviceSynchronize 1010–1070 waits for it and returns 5 µs after the kernel ends
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 100, "ts": 1000,
           "dur": 100},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1002,
           "dur": 2, "args": {"correlation": 1, "External id": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1005, "dur": 60,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 100, "tid": 100, "ts": 1010,
           "dur": 60, "args": {"correlation": 2}}]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_sync_wait_is_the_blocking_calls_time(tmp_path):
    t = run_all(collect(_trace(tmp_path)))["critical_path"].table
    sync = t[t["class"] == "sync"]
    assert len(sync) == 1
    row = sync.iloc[0]
    assert int(row["time_ns"]) == (1070 - 1065) * 1000  # call end − kernel end
    assert int(row["events"]) == 1
    assert row["top_event"] == "cudaDeviceSynchronize"


def test_no_class_with_time_and_no_event_but_the_gaps(tmp_path):
    t = run_all(collect(_trace(tmp_path)))["critical_path"].table
    gaps = {"host_idle", "launch_delay", "gpu_gap", "unattributed"}
    odd = t[(t["time_ns"] > 0) & (t["events"] == 0) & ~t["class"].isin(gaps)]
    assert odd.empty, odd.to_dict("records")


def test_gap_rows_say_none_not_unknown(tmp_path):
    """A gap class (host_idle here: 1070–1100 µs after the sync, 30 µs, plus 1000–1002 before the launch) has no
    event: the row's top event reads "—" (nothing to name), never "unknown" (a name the trace lost); the class reads
    in words (s48), never the code host_idle."""
    from gpulens import analyze
    from gpulens.reports import markdown

    md = markdown.render(analyze([_trace(tmp_path)], only=["critical_path"]))
    table = md.split("### Critical path")[1].split("\n\n")[1]
    assert "host\\_idle" not in table and "host_idle" not in table
    idle = [ln for ln in table.splitlines() if "| host idle gaps |" in ln]
    assert len(idle) == 1
    cells = [c.strip() for c in idle[0].strip("|").split("|")]
    assert cells[-2:] == ["0", "—"]
