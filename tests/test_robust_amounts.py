"""Amounts no event can have (eighth-session fuzzing): a negative byte count (nsys ``bytes`` -4096, Kineto
``args.bytes``), a negative or infinite FLOP count (Kineto ``args.flops``), and a copy whose size over its duration
is beyond any memory or link. Each was shown as a figure (``memcpy_bytes = -4096``, ``flops = -1e12``, a copy
bandwidth of 4.6e23 B/s); now that amount is unknown with a counted warning, and the rest of the event is kept.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

import gpulens
from gpulens.reports import json_report

from .fuzzing import _nsys


def _kineto(tmp_path, bytes_=4096, flops=2 ** 31):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
           "args": {"flops": flops, "External id": 1}},
          {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 120, "dur": 30,
           "args": {"device": 0, "stream": 7}},
          {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 160,
           "dur": 10, "args": {"device": 0, "stream": 7, "bytes": bytes_}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    return json.loads(json_report.render(gpulens.analyze([p])))["sources"][0]


def test_negative_bytes_and_flops_are_unknown(tmp_path):
    src = _kineto(tmp_path, bytes_=-4096, flops=-1e12)
    assert src["summary"]["memcpy_bytes"] is None  # the only copy's size: unknown, not -4096
    assert src["summary"]["flops"] is None  # the only FLOP count was invalid: none recorded, unknown (was -1e12, then 0)
    assert src["analyses"]["cpu_ops"]["summary"]["total_flops"] is None  # no FLOP count known
    assert any("1 event with a negative or infinite byte count" in w for w in src["warnings"])
    assert any("1 event with a negative or infinite FLOP count" in w for w in src["warnings"])
    # the events themselves stay: busy = kernel 30 µs + copy 10 µs (they do not overlap)
    assert src["summary"]["gpu_busy_ns"] == 40_000


def test_nsys_negative_memcpy_bytes_are_unknown(tmp_path):
    p = tmp_path / "r.sqlite"
    _nsys(p)  # the fuzz seed: one 4096-byte copy of 200 ns
    con = sqlite3.connect(p)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -4096")
    con.commit()
    con.close()
    src = json.loads(json_report.render(gpulens.analyze([p])))["sources"][0]
    assert src["summary"]["memcpy_bytes"] is None


def test_copy_bandwidth_beyond_any_link_is_unknown(tmp_path):
    src = _kineto(tmp_path, bytes_=2 ** 62)  # 4.6e18 B in 10 µs = 4.6e23 B/s: no memory or link does that
    row = src["analyses"]["copies"]["table"][0]
    assert row["bytes"] == 2 ** 62 and row["bandwidth"] is None
    src = _kineto(tmp_path, bytes_=4096)  # 4096 B / 10 µs = 409.6 MB/s: shown
    assert src["analyses"]["copies"]["table"][0]["bandwidth"] == pytest.approx(4096 / 10e-6)


def test_run_flops_are_the_recorded_sum_or_unknown(tmp_path):
    """summary.flops: the sum of the FLOP counts the profiler recorded; with none recorded it is unknown (null), not
    0 FLOP — a figure the gate would otherwise compare as a measured zero."""
    src = _kineto(tmp_path, flops=2 ** 31)  # the one aten::mm records 2^31 FLOP
    assert src["summary"]["flops"] == 2 ** 31
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 5,
           "args": {"device": 0, "stream": 7}}]
    p = tmp_path / "none.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    assert json.loads(json_report.render(gpulens.analyze([p])))["sources"][0]["summary"]["flops"] is None
