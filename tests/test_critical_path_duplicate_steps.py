"""A ProfilerStep#N recorded twice on one rank (nested ranges on one thread, or one range per thread) made two
critical-path windows with one (rank, step) key: the summary counted the step's length once and the class times of
both, so "host idle gaps hold 146 % of the step time" (fuzzer; 160 % with one range per thread). Each (rank, step)
is now one window: on a thread that launches GPU work when one does, its longest range there.

Hand-made traces (times in µs in the events, ns in the results).
"""

from __future__ import annotations

import json

from gpulens.analyzers import run_all
from gpulens.collectors import collect


def _launch(ts, corr, tid=100):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": tid, "ts": ts, "dur": 4,
            "args": {"correlation": corr, "External id": corr}}


def _kernel(ts, corr, name):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": 20,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


def _step(n, ts, dur, tid=100):
    return {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 100, "tid": tid, "ts": ts,
            "dur": dur}


def _path(tmp_path, ev):
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    r = run_all(collect(p))["critical_path"]
    return r.table, r.summary, r.findings


def _check_shares(table, summary, findings):
    per_step = table.groupby(["rank", "step"])
    assert (per_step["time_ns"].sum() == per_step["step_ns"].first()).all()  # classes tile each step once
    assert summary["path_ns"] == per_step["step_ns"].first().sum()
    title = findings[0].title
    pct = float(title.split(" hold ")[1].split(" %")[0])
    assert 0 <= pct <= 100, title


def test_nested_duplicate_step_is_one_window(tmp_path):
    # ProfilerStep#1 at 990–1190 µs and again at 995–1095 µs on the same thread: the outer range is the step
    ev = [_launch(1000, 1), _kernel(1005, 1, "gemm_a"), _kernel(1030, 2, "gemm_b"),
          _step(1, 990, 200), _step(1, 995, 100)]
    table, summary, findings = _path(tmp_path, ev)
    assert sorted(table["step_ns"].unique().tolist()) == [200_000]
    assert summary["windows"] == 1
    _check_shares(table, summary, findings)


def test_step_on_two_threads_is_walked_on_the_launching_thread(tmp_path):
    # ProfilerStep#1 on the launching thread 100 (990–1080 µs) and on thread 200 (991–1091 µs, longer, no launch):
    # the step is thread 100's 90 µs (its three kernels end at 1075 µs, inside it); ProfilerStep#2 (1085–1125 µs)
    # follows
    ev = [_launch(1000, 1), _kernel(1005, 1, "gemm_a"), _launch(1010, 2), _kernel(1030, 2, "gemm_b"),
          _launch(1020, 3), _kernel(1055, 3, "gemm_c"),
          _step(1, 990, 90), _step(1, 991, 100, tid=200), _step(2, 1085, 40)]
    table, summary, findings = _path(tmp_path, ev)
    assert dict(table.groupby("step")["step_ns"].first()) == {1: 90_000, 2: 40_000}
    assert summary["windows"] == 2 and summary["path_ns"] == 130_000
    # thread 100's three 4 µs launch calls lie in step 1: they are on its path
    assert table[(table["step"] == 1) & (table["class"] == "runtime")]["time_ns"].tolist() == [12_000]
    _check_shares(table, summary, findings)
