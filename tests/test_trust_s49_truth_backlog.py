"""A launch's queue delay is a wait "behind earlier GPU work" only while the GPU was busy (session 49).

HTA's ``call_stack_backward_thread`` trace (tests/data/kineto/hta_call_stack_backward_thread.json) holds one
kernel, the only GPU event, starting 64.12 ms after its launch call returned. gpulens read that queue delay as a
backlog: "the median launch waits 64.12 ms behind earlier GPU work (the GPU had a backlog)" — beside a GPU span of
45 µs with nothing run before the kernel. Kind: a queue delay (kernel start − launch call end) was taken for a wait
behind earlier GPU work whether or not the GPU was busy in it. Now ``launch_latency`` measures the backlog, the
GPU's busy time (union of that rank's and device's GPU events) inside each queue delay, and the run verdict's
critical-path reading (``_run_shares.backlog_wait``) reads it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import gpulens
from gpulens.reports._answer import answer

DATA = Path(__file__).parent / "data" / "kineto"


def _kernel(ts, dur, corr, name="k"):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


def _call(ts, dur, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts, "dur": dur,
            "args": {"correlation": corr}}


def _summary(tmp_path, ev):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return gpulens.analyze([p]).sources[0].results["launch_latency"].summary


def test_a_queue_delay_on_an_idle_gpu_is_no_backlog(tmp_path):
    # call [0, 10] µs, its kernel [1000, 1100]: queue 990 µs, nothing on the GPU before it → backlog 0
    s = _summary(tmp_path, [_call(0, 10, 1), _kernel(1000, 100, 1)])
    assert s["queue_p50_ns"] == 990_000
    assert s["backlog_p50_ns"] == 0


def test_the_backlog_is_the_busy_part_of_the_queue_delay(tmp_path):
    # kernel a [100, 900] (its call [80, 90]); kernel b's call [100, 110], b runs [1100, 1200]:
    # b's queue [110, 1100] = 990 µs, of it the GPU busy [110, 900] = 790 µs. a's queue: 90 → 100 = 10 µs, GPU idle.
    # median of the two backlogs (0 and 790 µs) = 395 µs; median queue (10, 990) = 500 µs
    s = _summary(tmp_path, [_call(80, 10, 1), _kernel(100, 800, 1, "a"), _call(100, 10, 2),
                            _kernel(1100, 100, 2, "b")])
    assert s["queue_p50_ns"] == 500_000
    assert s["backlog_p50_ns"] == 395_000


def test_real_trace_one_kernel_is_not_said_to_wait_behind_gpu_work():
    path = DATA / "hta_call_stack_backward_thread.json"
    raw = path.read_bytes()
    ev = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)["traceEvents"]
    gpu = [e for e in ev if e.get("ph") == "X" and str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy",
                                                                                       "gpu_memset")]
    assert len(gpu) == 1  # the trace's only GPU event: nothing for it to queue behind
    src = gpulens.analyze([path]).sources[0]
    s = src.results["launch_latency"].summary
    assert s["queue_p50_ns"] > 50_000_000 and s["backlog_p50_ns"] == 0
    note = answer(src).path_note or ""
    assert "backlog" not in note and "behind earlier GPU work" not in note


def test_a_kernels_long_wait_on_an_idle_gpu_still_gets_the_fusion_step():
    # a latency-bound kernel whose every launch runs shorter than its launch call: told to fuse first, unless its
    # launches wait in a deep GPU queue (then the launch calls did not keep the GPU waiting). The queue is the
    # backlog — GPU busy inside the wait — not the latency: a 100 µs latency over an idle GPU is still launch cost.
    from gpulens.analyzers._verdict_facts import QUEUED_LAUNCH_NS, Evidence
    from gpulens.analyzers._verdict_steps import _latency_steps

    def first(backlog):
        # the GPU idle while each launch waited (session 50: launch cost bounds a kernel only when the GPU waited
        # on its launches, _verdict_facts.launch_cost_reason) — 10 waits of 2 µs of launch idle, 40 % of its time
        e = Evidence(name="k", kind="kernel", calls=10, time_ns=50_000, short_launch_frac=1.0,
                     launch_latency_p50_ns=2 * QUEUED_LAUNCH_NS, launch_backlog_p50_ns=backlog,
                     launch_idle_ns=20_000)
        return (_latency_steps(e) or [""])[0]

    assert first(0).startswith("100.0 % of its launches run shorter than their launch call")
    assert not first(2 * QUEUED_LAUNCH_NS).startswith("100.0 % of its launches run shorter")
