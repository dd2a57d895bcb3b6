"""A capture whose GPU records all carry invalid times is not called a capture "with no GPU activity event".

Kind (case B06 with every kernel invalid): Kineto wrote the kernels at ``ts 0, dur 0`` (pytorch/kineto#109) while
their launches have real times. The kernels are refused (they cannot define the span), and the run has no GPU work to
measure — but the reason said "the trace has no GPU activity event … ProfilerActivity.CUDA missing", which is false:
the events are in the file. Expected counts come from the traces written here.
"""

from __future__ import annotations

import json
import sqlite3

from gpulens.collectors import collect

T = 1615207264505000  # µs, as in case B06


def _kineto(tmp_path):
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": T + 10 * i,
           "dur": 3, "args": {"correlation": i + 1}} for i in range(3)]
    ev += [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 0, "dur": 0,
            "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(3)]
    p = tmp_path / "ts0.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    return p


def _nsys(tmp_path):
    p = tmp_path / "backwards.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, shortName INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 1900, 0, 7, 10, 5033164800, 1),
            (3000, 2500, 0, 7, 11, 5033164800, 1);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, nameId INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 5033164842, 10, 2), (1000, 1050, 5033164842, 11, 2);
    """)
    con.commit()
    con.close()
    return p


def test_kineto_kernels_at_ts0_are_named_as_refused_records(tmp_path):
    tl = collect(_kineto(tmp_path))
    note = tl.meta.sources[0]["incomplete_capture"]
    assert note.startswith("3 launch calls (cudaLaunchKernel ×3) (correlation 1–3) have no valid GPU record")
    assert "3 GPU activity records (zero timestamp" in note
    assert "no GPU activity event" not in note and "ProfilerActivity.CUDA missing" not in note


def test_nsys_kernels_ending_before_they_start_are_named_as_refused_records(tmp_path):
    tl = collect(_nsys(tmp_path))
    note = tl.meta.sources[0]["incomplete_capture"]
    assert "2 launch calls" in note and "2 GPU activity records (end before start ×2)" in note
    assert "kernel activity table is" not in note
