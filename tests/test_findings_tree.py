"""Findings tree (issue 14.6) and warm-up/boundary gaps (issue 14.7), on hand-made Kineto traces.

Every expected value is worked out from the event times written here.
"""

from __future__ import annotations

import json

import gpulens
from gpulens.analyzers._tree import roots

T0 = 1000  # µs


def _write(tmp_path, events):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return p


def _call(name, ts, dur, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 9, "tid": 9, "ts": T0 + ts, "dur": dur,
            "args": {"correlation": corr}}


def _gpu(cat, name, ts, dur, corr):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": T0 + ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


def test_idle_causes_are_children_of_idle_and_counted_once(tmp_path):
    # 10 kernels of 10 µs, each launched 90 µs after the previous kernel ended, its 5 µs call returning 5 µs before
    # the kernel starts (host-bound: the host was late, not the GPU): span 1000 µs, busy 100 µs, idle 900 µs = 9
    # gaps of 100 µs, all "host"
    ev = []
    for i in range(10):
        ev += [_call("cudaLaunchKernel", 110 * i + 90, 5, i), _gpu("kernel", "k", 110 * i + 100, 10, i)]
    src = gpulens.analyze([_write(tmp_path, ev)]).sources[0]
    fs = src.findings()
    idle = next(f for f in fs if f.key == "idle")
    host = next(f for f in fs if f.key == "idle/host")
    assert idle.time_at_stake_ns == 900_000 and host.time_at_stake_ns == 900_000 and host.parent == "idle"
    # the tree order puts the child right after its root
    assert fs.index(host) == fs.index(idle) + 1
    # ranking and totals: the 900 µs appear once
    ranked = src.results["verdicts"].summary["ranked"]
    assert sum(r["time_at_stake_ns"] for r in ranked if r["category"] in ("gpu-idle", "host-bound")) == 900_000
    assert sum(f.time_at_stake_ns or 0 for f in roots(fs) if f.category != "data-quality") <= 1_000_000  # ≤ span


def test_warmup_gap_is_left_out_of_the_steady_state_verdict(tmp_path):
    # a copy at 0 (10 µs), then 12.85 s of nothing, then 10 kernels of 98 µs every 100 µs, each launched well
    # before the previous one ends (queued 2 µs gaps): steady state is GPU-bound, not host-bound
    ev = [_call("cudaMemcpyAsync", -5, 3, 100), _gpu("gpu_memcpy", "Memcpy HtoD", 0, 10, 100)]
    start = 12_850_000
    for i in range(10):
        ev += [_call("cudaLaunchKernel", start - 50 + i, 1, i), _gpu("kernel", "step", start + 100 * i, 98, i)]
    src = gpulens.analyze([_write(tmp_path, ev)]).sources[0]
    bn = src.results["bottlenecks"]
    # the leading gap 10 µs → 12,850,000 µs = 12,849,990 µs; the 9 steady gaps are 2 µs each
    assert int(bn.table.iloc[0]["idle_boundary_ns"]) == 12_849_990_000
    assert int(bn.table.iloc[0]["idle_host_ns"]) == 0
    assert bn.summary["verdict"] == "gpu-bound"
    assert src.results["verdicts"].summary["run_verdict"] != "host-bound"
    f = next(f for f in bn.findings if f.key == "idle/boundary")
    # a profiling-window note: the gap is stated, with no time at stake (the verdict leaves it out)
    assert "12.85 s" in f.title and f.time_at_stake_ns is None
    # the window to paste: from the gap's end, 12,850,000 µs, counted from the rank's earliest event (the copy
    # call at −5 µs): 12,850,005 µs
    assert "--window 12850005us:)" in f.action
    # the idle finding puts at stake only the steady-state idle: the 9 gaps of 2 µs
    idle = next(g for g in src.findings() if g.key == "idle")
    assert idle.time_at_stake_ns == 9 * 2_000
    assert bn.summary["boundary_gaps"][0]["position"] == "leading"


def test_steps_matching_nothing_lists_the_steps_the_trace_has(tmp_path, capsys):
    # ProfilerStep#3 and #4 around one kernel each; --steps 7:9 matches neither
    ev = []
    for n, t in ((3, 0), (4, 200)):
        ev += [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 9, "tid": 9,
                "ts": T0 + t, "dur": 150},
               _call("cudaLaunchKernel", t + 10, 5, n), _gpu("kernel", "k", t + 20, 10, n)]
    from gpulens.cli import main

    assert main(["analyze", str(_write(tmp_path, ev)), "--steps", "7:9", "--no-cache"]) == 5
    out = capsys.readouterr()
    assert "steps 3–4" in out.out + out.err
