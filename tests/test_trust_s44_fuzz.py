"""Regressions of the session-44 fuzzing campaign (tests/fuzz_s44.py): one seeded, fast test per fault kind.

1. Time and size: a Kineto trace of one kernel event repeated 400,000 times (every one overrunning the next on its
   stream) wrote an 88 MB JSON report — ``hotspots.summary.overruns`` listed every clipped event — and spent a third
   of its 10.5 s of CPU time building and writing that list; now the 1,000 largest overruns (and every event cut at
   the end of the run, which the gate and diff read) are listed, the rest counted in ``overruns_unlisted``: 0.3 MB,
   4.6 s (with 2.). ``overrun_events`` / ``overrun_ns`` still count every clipped event.
2. Time: a stream label (``"tid": "stream 7"``, an ``args`` id written as text) was parsed once per event (6 s of a
   profile for 400,000 events); now once per distinct text.
3. Each nanosecond at stake counted once: the slow-step finding (``steps``), whose time at stake is GPU idle time
   inside the slow steps, was a root beside the idle finding that holds that time — the roots summed past the run's
   summed spans (fuzz: ``dur`` and ``tid`` swapped in every other event of a rank of HTA's multirank trace, 2.80 s
   of root findings in 2.47 s of spans). It is now a child of ``idle``.
4. Words: the warning for one id that is no 64-bit integer said "1 id or size value that is numbers" (a kernel's
   ``registers per thread`` 1.5, fuzz); now "that is a number" (one) / "that are numbers" (several).
5. Device records: a Kineto ``deviceProperties`` whose records all claim one id (fuzz: every ``id`` set to 1 in
   HTA's 8-GPU A100 trace) was listed as eight devices 1 of rank 0 — and the GPU the kernels ran on (device 0) was
   then neither listed nor said; a record repeating an earlier record's id is now dropped, with a warning counting
   it (the one record left is the rank's device, as for any one-record trace).
6. Hang: a rocprofiler-compute workload whose ``SQ_IFETCH_LEVEL.csv`` held a 1.2 MB gzip file (another input under
   that name) ran past 200 s with ``--lenient``: each of its ~10^5 ragged "rows" that no reading places was looked up
   in the list of dropped rows (quadratic, :func:`gpulens.collectors._csvrows.read_rows`); now a set — 2.4 s.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import gpulens
from gpulens.analyzers.hotspots import MAX_JSON_LISTED
from gpulens.cli import main
from gpulens.collectors._kineto_columns import int_array

US = 1000


def _kineto(path: Path, kernels: list[tuple[float, float]]) -> Path:
    """A Kineto trace of ``kernels`` ((ts, dur) in µs) on stream 7 of GPU 0, each launched by a runtime call."""
    ev = []
    for j, (ts, dur) in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": ts - 2, "dur": 1, "args": {"correlation": j + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{j % 3}", "pid": 0, "tid": "stream 7", "ts": ts,
                   "dur": dur, "args": {"device": 0, "stream": 7, "correlation": j + 1}})
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


# --- 1. the overrun list of the JSON report is bounded ------------------------------------------------------------
def test_overrun_list_keeps_the_largest_and_counts_the_rest(tmp_path):
    n = 1500
    # kernel j starts at 100·j µs; j < n-1 lasts 100 + (j+1) µs, so it overruns the next by (j+1) µs; the last lasts
    # 50 µs (no overrun, ends well inside the run)
    kernels = [(100.0 * j + 10, 100.0 + (j + 1) if j < n - 1 else 50.0) for j in range(n)]
    out = tmp_path / "r.json"
    assert main(["analyze", str(_kineto(tmp_path / "t.json", kernels)), "-q", "--no-cache", "--json", str(out)]) == 0
    hs = json.loads(out.read_text())["sources"][0]["analyses"]["hotspots"]
    sm = hs["summary"]
    assert MAX_JSON_LISTED == 1000
    # by hand: 1,499 overruns of 1 … 1,499 µs, summing 1499·1500/2 µs; listed: the 1,000 largest, 1,499 … 500 µs
    assert sm["overrun_events"] == n - 1 and sm["overrun_ns"] == (n - 1) * n // 2 * US
    assert [o["overrun_ns"] for o in sm["overruns"]] == [k * US for k in range(n - 1, 499, -1)]
    assert sm["overruns_unlisted"] == 499
    f = next(f for f in hs["findings"] if f["key"] == "overruns")
    assert "and 1,479 more (the largest 1,000 listed in the JSON report)" in f["detail"]
    assert out.stat().st_size < 1_000_000


def test_overrun_list_below_the_bound_is_whole(tmp_path):
    # 30 kernels, each but the last overrunning the next by 1 µs: all 29 listed, none unlisted
    kernels = [(100.0 * j + 10, 101.0 if j < 29 else 50.0) for j in range(30)]
    out = tmp_path / "r.json"
    assert main(["analyze", str(_kineto(tmp_path / "t.json", kernels)), "-q", "--no-cache", "--json", str(out)]) == 0
    hs = json.loads(out.read_text())["sources"][0]["analyses"]["hotspots"]
    assert len(hs["summary"]["overruns"]) == 29 and hs["summary"]["overruns_unlisted"] == 0
    f = next(f for f in hs["findings"] if f["key"] == "overruns")
    assert "and 9 more (all listed in the JSON report)" in f["detail"]


# --- 2. a label id is parsed once per distinct text ---------------------------------------------------------------
def test_label_ids_are_read_once_per_text_with_the_same_values():
    vals = ["stream 7"] * 5 + ["7", " 12 ", "cuda:3", "x", None, 4, 2.0, 2.5, "stream 99999999999999999999", True]
    got, valid = int_array(vals)
    # by hand: labels read by their trailing number, a whole float kept, a fraction / no digits / bool / > int64 not
    want = [7] * 5 + [7, 12, 3, None, None, 4, 2, None, None, None]
    assert [int(g) if v else None for g, v in zip(got, valid)] == want
    assert isinstance(valid, np.ndarray) and valid.dtype == bool


# --- 3. the slow-step finding's GPU idle is the idle finding's ----------------------------------------------------
def test_slow_step_idle_is_a_child_of_the_idle_finding(tmp_path):
    ms = 1000.0  # µs
    steps = [(0, 10), (10, 10), (20, 10), (30, 100)]  # (start, length) ms: median 10 ms, the last 100 ms
    ev = [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{j + 1}", "pid": 1, "tid": 1,
           "ts": a * ms, "dur": d * ms} for j, (a, d) in enumerate(steps)]
    # a 1 ms kernel 1 ms into each step, and one at 129-130 ms closing the GPU span
    for j, t in enumerate([1, 11, 21, 31, 129]):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": t * ms - 500, "dur": 100, "args": {"correlation": j + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t * ms, "dur": ms,
                   "args": {"device": 0, "stream": 7, "correlation": j + 1}})
    p = tmp_path / "steps.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    src = gpulens.analyze([p]).sources[0]
    fs = [f for r in src.results.values() for f in r.findings]
    step = next(f for f in fs if f.category == "step-time")
    idle = next(f for f in fs if f.key == "idle")
    # by hand: GPU span 1 → 130 ms (129 ms), busy 5 × 1 ms, idle 124 ms; step 4 = [30, 130) ms holds 98 ms of idle
    # (100 ms less its two kernels), its excess over the median is 90 ms: 90 ms at stake, inside the idle's 124 ms
    assert idle.time_at_stake_ns == 124 * 10**6
    assert step.time_at_stake_ns == 90 * 10**6 and step.parent == "idle"
    roots = sum(f.time_at_stake_ns or 0 for f in fs if not f.parent)
    assert roots <= 129 * 10**6  # 124 + 90 = 214 ms of roots in a 129 ms span before



# --- 4. the bad-id warning agrees with its count ------------------------------------------------------------------
def test_bad_id_warning_agrees_with_its_count(tmp_path):
    from gpulens.collectors import collect

    def k(i, **args):
        return {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000 + 20 * i, "dur": 5,
                "args": {"device": 0, "stream": 7, "correlation": i + 1, **args}}

    for bad, said in ((1, "1 id or size value that is a number but no 64-bit integer"),
                      (2, "2 id or size values that are numbers but no 64-bit integer")):
        p = tmp_path / f"t{bad}.json"
        p.write_text(json.dumps({"traceEvents": [k(0)] + [k(j + 1, correlation=2 ** 64 + j) for j in range(bad)]}))
        w = [x for x in collect(p).meta.warnings if "64-bit integer" in x]
        assert len(w) == 1 and w[0].startswith(f"{p}: {said} (") and f"correlation ×{bad}" in w[0]


# --- 5. a device record repeating an earlier one's id ---------------------------------------------------------------
def test_device_records_repeating_an_id_are_dropped_and_counted(tmp_path):
    from gpulens.collectors import collect

    props = [{"id": i, "name": f"GPU-{j}", "computeMajor": 8, "computeMinor": 0, "numSms": 108}
             for j, i in enumerate([1, 1, 2, 1])]
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
           "args": {"device": 2, "stream": 7, "correlation": 1}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"deviceProperties": props, "traceEvents": ev}))
    tl = collect(p)
    # by hand: ids 1, 1, 2, 1 → devices 1 (the first record, GPU-0) and 2 (GPU-2); the 2nd and 4th records repeat 1
    assert [(d["device_id"], d["name"]) for d in tl.meta.devices] == [(1, "GPU-0"), (2, "GPU-2")]
    w = [x for x in tl.meta.warnings if "repeat" in x]
    assert w == [f"{p}: 2 deviceProperties records repeat the id of an earlier record (device 1): the first record "
                 "of each device kept"]


# --- 6. dropping many ragged CSV rows is linear ---------------------------------------------------------------------
def test_many_unplaceable_ragged_rows_are_dropped_in_linear_time(tmp_path):
    import time

    from gpulens.collectors._csvrows import read_rows

    def run(n: int) -> tuple[float, list]:
        # header of 3 numeric columns; every other row has a 5th field of text no reading can place
        lines = ["Index,BeginNs,EndNs"] + [f"{j},{10 * j},{10 * j + 5}" if j % 2 else f"{j},x,y,z,w"
                                           for j in range(n)]
        t0 = time.process_time()
        header, rows, warnings = read_rows(tmp_path / "r.csv", "\n".join(lines) + "\n", strict=False)
        return time.process_time() - t0, (header, rows, warnings)

    small, (_, rows_s, _) = run(5_000)
    big, (header, rows, warnings) = run(40_000)
    # by hand: the 20,000 odd rows are kept, the 20,000 even ones (5 fields for 3 columns) dropped and counted
    assert header == ["Index", "BeginNs", "EndNs"] and len(rows) == 20_000 and rows[0] == ["1", "10", "15"]
    assert len(rows_s) == 2_500
    assert any("20,000 rows dropped" in w for w in warnings), warnings
    assert big < max(2.0, 20 * small)  # 8× the rows: linear is ~8× the time; the list lookup was ~64× (and > 10 s)
