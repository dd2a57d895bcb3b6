"""A refused-row warning says what is done with the rows (s32 wording review).

A Kineto kernel whose ``dur`` is NaN or missing is kept as an untimed launch — counted by the analyses
(``untimed_gpu_rows``: "2 of 4 launches without a duration") — yet the reader warned "2 invalid event(s)
excluded". Now such GPU rows are reported as kept (untimed), with their count, and only the rows really left out
(a corrupt time: negative duration, an end before the start; a host event without a time) as excluded. The same
words for Nsight Systems (a kernel whose ``end`` is NULL: "range never closed").

Counts by hand: the Kineto trace below has 5 GPU kernels — k_ok, k_ok2 timed; k_nan (dur NaN) and k_missing (no
dur) untimed; k_negative (dur −5) corrupt — and 1 CPU op without dur: 2 kept untimed, 2 excluded (k_negative and
the CPU op).
"""

from __future__ import annotations

import json
import sqlite3

from gpulens.analyzers._unknown_time import untimed_gpu_rows
from gpulens.collectors import collect


def _kernel(name, ts, dur=None, corr=1):
    ev = {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts,
          "args": {"device": 0, "stream": 7, "correlation": corr}}
    if dur is not None:
        ev["dur"] = dur
    return ev


def test_kineto_untimed_kernels_are_kept_not_excluded(tmp_path):
    ev = [_kernel("k_ok", 1000.0, 10.0, 1), _kernel("k_nan", 1020.0, float("nan"), 2),
          _kernel("k_missing", 1040.0, None, 3), _kernel("k_ok2", 1060.0, 5.0, 4),
          _kernel("k_negative", 1080.0, -5.0, 5),
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 990.0, "dur": 80.0, "args": {}},
          {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 995.0, "args": {}}]
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9,
                                                     "computeMinor": 0, "numSms": 132}], "traceEvents": ev}
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))  # json writes NaN for float("nan"), as Python-written traces carry it
    tl = collect(p)
    kept = [w for w in tl.meta.warnings if "kept as untimed launches" in w]
    excluded = [w for w in tl.meta.warnings if "excluded" in w]
    assert len(kept) == 1 and ": 2 GPU events without a recorded time kept as untimed launches" in kept[0]
    assert len(excluded) == 1 and ": 2 invalid events excluded" in excluded[0]
    assert "negative" in excluded[0] and "missing ts or dur ×1" in excluded[0]
    # the count said is the count the analyses use
    assert sorted(untimed_gpu_rows(tl)["name"]) == ["k_missing", "k_nan"]


def test_nsys_never_closed_kernel_is_kept_not_excluded(tmp_path):
    p = tmp_path / "n.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, shortName INT, gridX INT, blockX INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
            (1000, 1500, 0, 7, 10, 5033164800, 1, 64, 128),
            (2000, NULL, 0, 7, 11, 5033164800, 1, 64, 128),
            (3000, 2900, 0, 7, 12, 5033164800, 1, 64, 128);
    """)
    con.commit()
    con.close()
    tl = collect(p)
    kept = [w for w in tl.meta.warnings if "kept as untimed launches" in w]
    excluded = [w for w in tl.meta.warnings if "excluded" in w]
    assert len(kept) == 1 and "1 GPU event" in kept[0] and "range never closed ×1" in kept[0]
    assert len(excluded) == 1 and "1 invalid event excluded: end before start ×1" in excluded[0]
    assert len(untimed_gpu_rows(tl)) == 1
