"""Conclusions checked on real profiler outputs gpulens had not seen (session 35, "held-back real traces").

1. A kernel that starts long after its launch call returned is not waiting on the host. The nvc OpenMP offload
   heat solver of RajaATAli/SC23_Programming-Your-GPU-with-OpenMP_Tutorial (``report6.sqlite``, nsys on a Tesla
   T4) launches each of its 50 kernels with cuLaunchKernel (≈ 10 µs) and then blocks in cuStreamSynchronize; each
   kernel starts ≈ 4.4 ms after its launch call returned (sqlite: kernel 2 starts at 2,881,006,090 ns, its
   cuLaunchKernel ran 2,876,624,744–2,876,636,545 ns, the previous kernel ended at 2,876,599,377 ns). gpulens read
   those 49 gaps (216 ms) as "the host blocked in synchronisations" and told the user to remove the
   synchronisations — but the synchronisation was waiting on the already-submitted kernel that the GPU had not
   started. Kind: the part of an idle gap after the launch call of the work ending it returned was charged to the
   host (its blocking call, or its class). Now a blocking call counts as sync only until that call returned, and a
   gap whose work started more than ``launch_gap_ns`` after its call returned — that delay being its larger part —
   is ``queued`` (the launch-latency analyzer's queue delay).

The repository shows no licence, so the file is not copied: the tests below rebuild its shape as Kineto JSON (µs),
with every expected figure worked out in the comments.
"""

from __future__ import annotations

import json

import gpulens


def _kernel(ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": "nvkernel_solve", "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


def _call(name, ts, dur, corr=None):
    args = {} if corr is None else {"correlation": corr}
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": args}


def _analyze(tmp_path, ev):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return gpulens.analyze([p]).sources[0]


def test_a_late_start_after_the_launch_returned_is_queued_not_host_sync(tmp_path):
    # every 6000 µs (b = 6000·i, i = 0..3): cuLaunchKernel [b, b+10], then cuStreamSynchronize [b+12, b+5405];
    # the kernel runs [b+4400, b+5400] — it starts 4390 µs after its launch call returned.
    ev = []
    for i in range(4):
        b = 6000 * i
        ev += [_call("cuLaunchKernel", b, 10, i + 1), _call("cuStreamSynchronize", b + 12, 5393), _kernel(b + 4400,
                                                                                                        1000, i + 1)]
    src = _analyze(tmp_path, ev)
    bn = src.results["bottlenecks"].summary
    # 3 gaps, each [b+5400, b+10400] = 5000 µs. In each, the previous sync runs until b+5405 (5 µs of it), the next
    # cuLaunchKernel returns at b+6010 (610 µs into the gap) and the next sync starts at b+6012, after that return.
    # The 4390 µs after the return are the gap's larger part → the gap is queued, and a queued gap keeps no sync
    # part (the 5 µs are the tail of the sync that waited on the previous kernel) → queued 3 × 5000 = 15,000 µs,
    # sync 0 (before: 3 × (5 + 4388) = 13,179 µs of sync, the rest host, the run "sync-bound"), host 0. The span is
    # [4400, 23400] = 19,000 µs: 15,000 µs queued against 4 × 1000 µs computing → dependency-bound
    assert src.results["verdicts"].summary["run_verdict"] == "dependency-bound"
    assert bn["idle_ns"] == 15_000_000
    assert bn["idle_queued_ns"] == 15_000_000
    assert bn["idle_sync_ns"] == 0
    assert bn["idle_host_ns"] == 0
    said = " ".join(f.title + " " + (f.detail or "") for f in src.findings())
    assert "remove device/stream synchronisations" not in said and "remove synchronisations" not in said
    # the launch-latency analyzer measures the same delay: kernel start − launch call end = 4390 µs for every launch
    ll = src.results["launch_latency"].summary
    assert ll["launches"] == 4 and ll["queue_p50_ns"] == ll["queue_max_ns"] == 4_390_000


def test_a_sync_before_the_launch_is_still_the_hosts_wait(tmp_path):
    # every 5000 µs: the kernel runs [b, b+1000]; the host blocks in cuStreamSynchronize [b+500, b+4980], then
    # launches the next kernel with cuLaunchKernel [b+4985, b+4995]; that kernel starts at b+5000 (5 µs after the
    # call returned: a normal launch, not a late start)
    ev = []
    for i in range(4):
        b = 5000 * i
        ev += [_kernel(b, 1000, i + 1), _call("cuLaunchKernel", b - 15, 10, i + 1)]
        if i < 3:
            ev.append(_call("cuStreamSynchronize", b + 500, 4480))
    src = _analyze(tmp_path, ev)
    bn = src.results["bottlenecks"].summary
    # 3 gaps [b+1000, b+5000] = 4000 µs: blocked [b+1000, b+4980] = 3980 µs before the next call returned → sync
    # 3 × 3980 = 11,940 µs; the remaining 20 µs per gap (host returns, launches) → host 3 × 20 = 60 µs
    assert bn["idle_ns"] == 12_000_000
    assert bn["idle_sync_ns"] == 11_940_000
    assert bn["idle_host_ns"] == 60_000
    assert bn["idle_queued_ns"] == 0


def test_a_short_start_delay_stays_launch_overhead(tmp_path):
    # back-to-back launches: kernel i runs [b, b+100] (b = 115·i); the next cuLaunchKernel runs [b+90, b+105] and
    # its kernel starts at b+115: a 15 µs gap whose 10 µs after the return is under launch_gap_ns (20 µs)
    ev = []
    for i in range(5):
        b = 115 * i
        ev += [_kernel(b, 100, i + 1), _call("cuLaunchKernel", b - 25, 15, i + 1)]
    bn = _analyze(tmp_path, ev).results["bottlenecks"].summary
    # 4 gaps × 15 µs, each begun while its launch call ran → launch overhead 60 µs, nothing queued
    assert bn["idle_launch_ns"] == 60_000
    assert bn["idle_queued_ns"] == 0
