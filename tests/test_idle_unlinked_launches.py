"""Idle gaps that no launch call explains, in a trace that does record launch calls: the advice is to record the
threads/processes the trace missed, never "record the host side too" (it was recorded). Seen on
jimw567/rocprof-unified-viewer's rocprofv3 decode_* folder (HIP API trace kept every 20th call): 106.24 ms "with no
cause the trace shows … record the host side too (rocprofv3 --runtime-trace …)" beside a HIP API trace."""

from __future__ import annotations

import json

import gpulens


def _trace(path, with_calls: bool) -> None:
    # 6 rounds: a launch call (5 µs) → its kernel 8 µs later (50 µs) → 400 µs idle → a kernel whose launch call is
    # not in the trace (50 µs) → 18 µs → the next round. Unattributed idle = 6 × 400 µs; launch-overhead idle
    # = 5 × 18 µs (the gaps before a linked kernel, the first round's excepted).
    ev, t = [], 0
    for i in range(6):
        if with_calls:
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                       "dur": 5, "args": {"correlation": 100 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "linked_k", "pid": 0, "tid": 7, "ts": t + 8, "dur": 50,
                   "args": {"device": 0, "stream": 7, "correlation": 100 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "orphan_k", "pid": 0, "tid": 7, "ts": t + 458, "dur": 50,
                   "args": {"device": 0, "stream": 7, "correlation": 900 + i}})
        t += 518
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))


def test_unexplained_gaps_with_launch_calls_recorded(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _trace(p, with_calls=True)
    s = gpulens.analyze([p]).sources[0]
    bn = s.results["bottlenecks"].summary
    assert (bn["launch_calls"], bn["idle_unattributed_ns"], bn["idle_launch_ns"]) == (6, 6 * 400_000, 5 * 18_000)
    f = {x.key: x for x in s.findings()}
    texts = f["idle"].action + " " + f["idle/unattributed"].detail
    assert "their launch calls are missing although the trace links 6 other launches" in f["idle"].action
    assert "made by a thread or process it did not record" in f["idle/unattributed"].detail
    assert "record the host side too" not in texts.lower() and "GPU-only trace" not in texts


def test_unexplained_gaps_of_a_gpu_only_trace_still_ask_for_the_host_side(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _trace(p, with_calls=False)
    s = gpulens.analyze([p]).sources[0]
    assert s.results["bottlenecks"].summary["launch_calls"] == 0
    f = {x.key: x for x in s.findings()}
    assert "record the host side too" in f["idle/unattributed"].detail.lower()
    assert "GPU-only trace" in f["idle/unattributed"].detail
