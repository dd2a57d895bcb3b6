"""GPU work recorded without a time, in every input format: figures over it are bounds or unknown, never a plain
number that may be wrong.

Real traces hold GPU work without a start or end beside timed work: a Kineto kernel without ``dur``, a rocprofv3
``kernel_trace.csv`` row with 0 or empty timestamps, an nsys ``CUPTI_ACTIVITY_KIND_KERNEL`` row whose ``end`` is
NULL. The collectors refuse such a row as an event (``timeline.rejected``); the run's figures read as if it never
ran: "3 launches of 2 kernels, 50.00 µs summed", busy 45.5 %, idle 60.00 µs, the kernel absent from every per-kernel
table (so ``gpulens diff`` and the gate took it for a vanished kernel, "−100 %").

One run in three formats, by hand (µs from the first kernel; one stream, one GPU):

=========  =====  ========  =====================================
kernel     start  duration  note
=========  =====  ========  =====================================
kA         0      10
kB         20     30
kC         60     unknown   recorded without a time
kA         100    10
=========  =====  ========  =====================================

Timed: 3 launches, 10 + 30 + 10 = 50 µs; GPU span 0 → 110 = 110 µs measured; busy (union of timed) 50 µs.
kC ran, so: 4 launches of 3 kernels; the summed kernel time is unknown (at least 50 µs); busy is at least 50 µs;
idle is at most 110 − 50 = 60 µs.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

import gpulens

US = 1000
#: (name, start µs, duration µs or None) in launch order
KERNELS = [("kA", 0, 10), ("kB", 20, 30), ("kC", 60, None), ("kA", 100, 10)]
TIMED_NS = (10 + 30 + 10) * US
SPAN_NS = 110 * US
IDLE_AT_MOST_NS = SPAN_NS - TIMED_NS  # 60 µs


def kineto(d: Path, untimed: bool = True) -> Path:
    evs = []
    for i, (n, t, du) in enumerate(KERNELS):
        if du is None and not untimed:
            du = 30
        k = {"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": "stream 7", "ts": 1000 + t,
             "args": {"device": 0, "stream": 7, "correlation": i + 1}}
        if du is not None:
            k["dur"] = du
        evs += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": 995 + t,
                 "dur": 4, "args": {"correlation": i + 1}}, k]
    p = d / ("kineto.json" if untimed else "kineto_timed.json")
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                             "traceEvents": evs}))
    return p


V3_HEAD = ["Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name", "Correlation_Id",
           "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size", "Workgroup_Size_X",
           "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]


def rocprofv3(d: Path, blank: str = "0") -> Path:
    """``blank``: what the untimed row holds in its timestamp cells ("0": zero timestamps, "": empty cells)."""
    t0 = 8_819_330_200_000_000
    (d / f"v3{blank or 'empty'}").mkdir()
    p = d / f"v3{blank or 'empty'}" / "kernel_trace.csv"
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(V3_HEAD)
        for i, (n, t, du) in enumerate(KERNELS):
            a, b = (blank, blank) if du is None else (t0 + t * US, t0 + (t + du) * US)
            w.writerow(["KERNEL_DISPATCH", 1, 1, 69, i + 1, 16 + i, n, i + 1, a, b, 0, 0, 64, 1, 1, 1024, 1, 1])
    return p


def nsys(d: Path) -> Path:
    p = d / "run.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "end" INTEGER NOT NULL,
            eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, "end" INTEGER, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,
            gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER);
    """)
    names = ["cudaLaunchKernel_v7000", "kA", "kB", "kC"]
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(names, 1)))
    for i, (n, t, du) in enumerate(KERNELS):
        a = 1_000_000 + t * US
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, 7, ?, 1, 0)", (a - 5000, a - 1000, i + 1))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, 5, ?, ?, 64, 1, 1, 256, 1, 1)",
                    (a, None if du is None else a + du * US, i + 1, names.index(n) + 1, names.index(n) + 1))
    con.commit()
    con.close()
    return p


#: absent times only: zero timestamps are placeholders of corrupt records (case B06), refused, not launches
BUILDERS = {"kineto": kineto, "rocprofv3-empty": lambda d: rocprofv3(d, ""), "nsys-null-end": nsys}


@pytest.fixture(scope="module", params=list(BUILDERS))
def run(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(request.param.replace("-", "_"))
    p = BUILDERS[request.param](d)
    return p, gpulens.analyze([p])


def _unknown(v) -> bool:
    return v is None or str(v) in ("nan", "<NA>", "None")


def test_kernel_totals_count_the_untimed_launch_and_leave_the_sum_unknown(run):
    _, rep = run
    sm = rep.sources[0].summary
    assert sm["kernel_count"] == 4 and sm["unique_kernels"] == 3  # kC ran: 4 launches of 3 kernels
    assert sm["kernel_time_ns"] is None  # at least 50 µs, never "50.00 µs summed"
    assert sm["untimed_launches"] == 1 and sm["timed_kernel_time_ns"] == TIMED_NS


def test_zero_timestamps_are_a_refused_record_not_an_untimed_launch(tmp_path):
    """kC written with Start/End 0 (the placeholder of case B06, pytorch/kineto#109): a corrupt record, refused with
    a warning — 3 launches of 2 kernels, 50 µs summed and busy exactly, as B06's answer (busy of the valid events)."""
    rep = gpulens.analyze([rocprofv3(tmp_path, "0")])
    sm = rep.sources[0].summary
    assert (sm["kernel_count"], sm["unique_kernels"], sm["kernel_time_ns"]) == (3, 2, TIMED_NS)
    assert not sm.get("untimed_launches")
    assert "zero timestamp (never recorded) ×1" in " ".join(rep.sources[0].timeline.meta.warnings)


def test_per_kernel_table_has_the_untimed_kernel_with_its_count(run):
    _, rep = run
    hot = rep.sources[0].results["hotspots"].table.set_index("name")
    assert set(hot.index) == {"kA", "kB", "kC"}
    assert hot.loc["kC", "calls"] == 1 and hot.loc["kC", "untimed_launches"] == 1
    assert _unknown(hot.loc["kC", "total_ns"]) and _unknown(hot.loc["kC", "mean_ns"])
    # timed kernels keep their own figures: kA 2 × 10 µs, kB 30 µs, none of their launches untimed
    assert hot.loc["kA", "calls"] == 2 and hot.loc["kA", "total_ns"] == 20 * US
    assert hot.loc["kB", "total_ns"] == 30 * US and hot.loc["kB", "untimed_launches"] == 0
    groups = rep.sources[0].results["kernel_groups"].table
    kc = groups[groups["name"].astype(str) == "kC"]
    assert len(kc) == 1 and kc["count"].iloc[0] == 1 and _unknown(kc["time_ns"].iloc[0])


def test_busy_is_at_least_and_idle_at_most_in_every_report(run):
    """Busy 50 µs of the 110 µs span = 45.5 % over the timed work: at least that (kC started inside the span where
    its start is recorded — Kineto, nsys — else unknown: rocprofv3 rows with no timestamps may lie outside it);
    idle at most 60 µs; no idle finding puts a time at stake on it."""
    from gpulens.reports.json_report import render as js
    from gpulens.reports.markdown import render as md
    from gpulens.reports.html import render as html
    from gpulens.reports._format import busy_pct_text

    path, rep = run
    src = rep.sources[0]
    sm = src.summary
    assert sm["gpu_busy_ns"] == TIMED_NS and sm["idle_ns"] == IDLE_AT_MOST_NS and sm["untimed_gpu_work"] == 1
    start_known = path.suffix in (".json", ".sqlite")
    assert sm["busy_bound"] == ("at least" if start_known else "unknown")
    pct = f"{100 * TIMED_NS / SPAN_NS:.1f} %"  # 45.5 %
    text = busy_pct_text(sm)
    assert text == f"at least {pct}" if start_known else text.startswith("unknown (")
    assert sm["idle_bound"].startswith("at most 60.00 µs")
    doc = json.loads(js(rep))["sources"][0]["summary"]
    assert doc["busy_bound"] == sm["busy_bound"] and doc["idle_bound"] == sm["idle_bound"]
    page = md(rep)
    assert f"| GPU busy | {text} |" in page and "idle at most 60.00 µs" in page
    assert "at most 60.00 µs" in html(rep)
    idle = [f for r in src.results.values() for f in r.findings if f.category == "gpu-idle"]
    assert idle and all(f.time_at_stake_ns is None for f in idle)


def test_gate_does_not_pass_or_fail_on_bounds(tmp_path):
    """Baseline: kC timed (30 µs). Candidate: the same run with kC untimed. Its span/busy figures are bounds and kC's
    time unknown: no sample, never a gating PASS/REGRESSED on them; the counts (4 launches, 3 kernels) match."""
    from gpulens.gate.runs import collect_runs

    base = gpulens.analyze([kineto(tmp_path, untimed=False)])
    cand = gpulens.analyze([kineto(tmp_path)])
    from gpulens.reports.json_report import render as js

    (tmp_path / "b.json").write_text(js(base))
    (tmp_path / "c.json").write_text(js(cand))
    runs = collect_runs([tmp_path / "c.json"])
    for m in ("span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_time_ns"):
        assert m not in runs.metrics or not runs.metrics[m].samples
    assert runs.metrics["kernel_count"].samples == [4.0]


def test_diff_keeps_the_timed_kernels_and_leaves_the_untimed_one_unknown(tmp_path):
    """A single untimed launch blanked a whole side (every kernel "unknown"), or read as 0 ns ("kC −100 %"). By hand:
    kA 20 µs → 20 µs, kB 30 → 30 (Δ 0), kC 30 µs → unknown, the summed time unknown."""
    from gpulens.diff import diff

    res = diff(kineto(tmp_path, untimed=False), kineto(tmp_path))
    k = res.tables["kernels"].set_index("kernel")
    assert k.loc["kA", "cand_time_ns"] == 20 * US and k.loc["kA", "delta_ns"] == 0
    assert k.loc["kB", "cand_time_ns"] == 30 * US
    assert k.loc["kC", "base_time_ns"] == 30 * US and _unknown(k.loc["kC", "cand_time_ns"])
    assert _unknown(k.loc["kC", "delta_ns"]) and k.loc["kC", "cand_count"] == 1
    assert res.summary["cand_time_ns"] is None and res.summary["delta_ns"] is None
    assert res.summary["base_time_ns"] == 80 * US
