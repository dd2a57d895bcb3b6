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

2. Time before the first GPU event is not host-only when the GPU already held recorded work. TraceLens' vLLM
   prefill+decode capture on an MI300X (AMD-AGI/TraceLens @ 171dd74721ca1ec45709e5805b68ae1f65e27811,
   ``tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz``, MIT) makes every launch call
   in the first 26 ms of its 307.70 ms window, yet its first GPU event (a DtoD copy queued by hipMemcpyAsync at
   +2.21 ms) starts at +151.23 ms: the GPU was still running work launched before the profiler started. gpulens
   reported "Host-only time outside the GPU span: 151.23 ms (49.1 %) … Start the profiler where the GPU work
   starts" and the verdict line repeated it. Kind: the leading edge of the window was called host-only although the
   GPU held enqueued work. Now that part (from the earliest return of a launch call of the rank's GPU events to
   its first GPU event, when over 20 µs) is ``gpu_pending_before_ns``, with its own finding.

The SC23 repository shows no licence, so that file is not copied: the tests below rebuild its shape as Kineto JSON (µs),
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
    # the critical path walks each kernel back to its launch call [b, b+4400]: the call itself [b, b+10] is the launch
    # path (launch_delay, 4 × 10 µs), the 4390 µs after it returned a late start — queued, the idle split's name for
    # the same time (s36: the whole 17,600 µs was "launch_delay", a host cause, beside the split's "queued"): 4 × 4390
    # = 17,560 µs, its top class; what shortening them can recover is at most the GPU idle they explain — the late
    # starts, queued — 15,000 µs (before s35: only the host/launch idle, 1,821 µs, as if the rest were not theirs)
    cp = src.results["critical_path"]
    assert cp.summary["top_class"] == "queued" and cp.summary["class_ns"]["queued"] == 17_560_000
    assert cp.summary["class_ns"]["launch_delay"] == 40_000
    assert cp.findings[0].time_at_stake_ns == 15_000_000


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


def test_time_before_the_first_gpu_event_with_work_enqueued_is_not_host_only(tmp_path):
    # host: a CPU op [0, 1000]; cudaLaunchKernel [10, 20] (corr 1) and [30, 40] (corr 2). GPU: k1 [800, 900],
    # k2 [900, 1000] — the GPU ran nothing recorded until 780 µs after the first launch call returned.
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::step", "pid": 1, "tid": 1, "ts": 0, "dur": 1000, "args": {}},
          _call("cudaLaunchKernel", 10, 10, 1), _call("cudaLaunchKernel", 30, 10, 2),
          _kernel(800, 100, 1), _kernel(900, 100, 2)]
    src = _analyze(tmp_path, ev)
    bn = src.results["bottlenecks"].summary
    # window [0, 1000] = 1000 µs; before the first GPU event 800 µs, of which [20, 800] = 780 µs with k1 enqueued
    # (pending) and [0, 20] = 20 µs host-only; nothing after the last GPU event (before: 800 µs "host-only")
    assert bn["window_ns"] == 1_000_000
    assert bn["gpu_pending_before_ns"] == 780_000
    assert bn["host_only_before_ns"] == 20_000 and bn["host_only_after_ns"] == 0
    f = [x for x in src.findings() if x.category == "host-only-window"]
    assert [x.key for x in f] == ["window/gpu-pending"]
    # 780 of 1000 µs: 78.0 % of the window
    assert f[0].title == "GPU work enqueued 780.00 µs before any recorded GPU event ran (78.0 % of the profiled window)"
    assert "Start the profiler where the GPU work starts" not in " ".join(x.action or "" for x in src.findings())


def test_real_vllm_decode_leading_time_is_pending_gpu_work():
    """TraceLens' vLLM decode on an MI300X (tests/data/kineto, MIT; PROVENANCE.md): its first GPU event, a DtoD copy,
    starts 7.83 ms after the hipMemcpyAsync that queued it returned. Expected figures read from the JSON here."""
    import gzip
    from pathlib import Path

    path = Path(__file__).parent / "data" / "kineto" / "tracelens_mi300x_vllm_decode_graph_exec.json.gz"
    ev = [e for e in json.load(gzip.open(path, "rt"))["traceEvents"] if e.get("ph") == "X"]
    gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    corr = {e["args"].get("correlation") for e in gpu}
    calls = [e for e in ev if e.get("cat") == "cuda_runtime" and e["args"].get("correlation") in corr]
    t0 = min(e["ts"] for e in ev)
    first_gpu = min(e["ts"] for e in gpu)
    first_return = min(e["ts"] + e["dur"] for e in calls)
    # µs in the file: 534.277 + 10.45 → the first launch call returns at +544.727 µs; the first GPU event at +8370.878
    assert abs(first_return - t0 - 544.727) < 0.002 and abs(first_gpu - t0 - 8370.878) < 0.002
    src = gpulens.analyze([path]).sources[0]
    bn = src.results["bottlenecks"].summary
    assert abs(bn["gpu_pending_before_ns"] - (first_gpu - first_return) * 1000) <= 2  # 7,826,150 ns
    assert abs(bn["host_only_before_ns"] - (first_return - t0) * 1000) <= 2  # 544,727 ns
    assert [f.key for f in src.findings() if f.category == "host-only-window"] == ["window/gpu-pending"]


def test_the_host_only_finding_keeps_the_gpu_span_when_some_leading_time_is_pending(tmp_path):
    # host: a CPU op [1000, 11000]; cudaLaunchKernel [10000, 10010] (corr 1); the kernel runs [10100, 10200].
    # Before the first GPU event: 9100 µs, of which [10010, 10100] = 90 µs with the kernel enqueued (pending, over
    # 20 µs) and 9010 µs host-only; after: [10200, 11000] = 800 µs. Window 10,000 µs; GPU span 100 µs =
    # 10,000 − (9010 + 800) − 90.
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::step", "pid": 1, "tid": 1, "ts": 1000, "dur": 10000,
           "args": {}}, _call("cudaLaunchKernel", 10000, 10, 1), _kernel(10100, 100, 1)]
    src = _analyze(tmp_path, ev)
    bn = src.results["bottlenecks"].summary
    assert (bn["host_only_before_ns"], bn["host_only_after_ns"], bn["gpu_pending_before_ns"]) == (
        9_010_000, 800_000, 90_000)
    f = next(x for x in src.findings() if x.key == "window/host-only")
    assert "the GPU's work spans only 100.00 µs of it" in f.detail
    assert "Not counted here: 90.00 µs before the first GPU event" in f.detail


def test_the_run_verdict_basis_states_the_gpu_span_without_the_pending_part(tmp_path):
    # host: a CPU op [1000, 2000]; cudaLaunchKernel [1100, 1110]; the kernel runs [1400, 1600]: host-only 110 µs
    # before + 400 µs after = 510 µs (≥ half the 1000 µs window), pending [1110, 1400] = 290 µs, GPU span 200 µs
    # (before: "a 490.00 µs span", the pending part counted in it)
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::step", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000, "args": {}},
          _call("cudaLaunchKernel", 1100, 10, 1), _kernel(1400, 200, 1)]
    src = _analyze(tmp_path, ev)
    bn, vd = src.results["bottlenecks"].summary, src.results["verdicts"].summary
    assert (bn["host_only_before_ns"], bn["host_only_after_ns"], bn["gpu_pending_before_ns"]) == (
        110_000, 400_000, 290_000)
    # s40: judged over the 200 µs GPU span; the host-only time outside it (110 + 400 µs, not the 290 µs pending)
    # is stated on its own
    assert vd["run_verdict"] == "gpu-bound"
    assert vd["basis"].endswith("outside the GPU span, not judged by the verdict: 110.00 µs of host-only time before "
                                "the first GPU work (start-up) and 400.00 µs after the last (51.0 % of the 1.00 ms "
                                "profiled window)")
