"""Speed work of the thirty-seventh session, checked for the values it must keep:

* ``host_calls_in_gaps`` finds each gap's runtime calls through an index sorted by (rank, start) with the running
  latest end, not by testing every runtime call per gap: a long call that starts before many short ones must still be
  found, calls ending exactly at the gap start or of zero length must not, and a call across two overlapping gaps is
  counted once with the union of its parts, also as the longest single call (expected values by hand, µs).
"""

from __future__ import annotations

import pandas as pd

from gpulens.analyzers._idle_findings import host_calls_in_gaps
from gpulens.collectors import collect

from .dig_traces import KTrace

US = 1000  # ns per µs


def _trace(tmp_path):
    """One rank. Host (µs): launch 10–14; cudaGetDeviceProperties (thread 2) 150–2150; twenty cudaGetLastError of
    2 µs at 200, 210, …, 390 (ending by 392); cudaEventRecord 790–800; cudaMalloc 1000–1100; cudaPeekAtLastError of
    zero length at 1200; cudaStreamSynchronize (thread 3) 1000–1500, a blocking call. One kernel 20–120 µs."""
    k = KTrace()
    ext = k.op("aten::add", 0, 8)
    k.launch(ext, 10, [("elementwise_kernel", 20, 100)])

    def call(name, ts, dur, tid=1):
        k.corr += 1
        k.ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
                     "args": {"correlation": k.corr}})

    call("cudaGetDeviceProperties", 150, 2000, tid=2)
    for j in range(20):
        call("cudaGetLastError", 200 + 10 * j, 2)
    call("cudaEventRecord", 790, 10)
    call("cudaMalloc", 1000, 100)
    call("cudaPeekAtLastError", 1200, 0)
    k.sync(1000, 500, "cudaStreamSynchronize", tid=3)
    return collect(k.write(tmp_path / "t.json"))


def _gaps(tl):
    """Hand-made gaps in the Timeline's ns: host-wait 800–1300 and 1250–1400 µs on rank 0 (overlapping), a host-wait
    gap on rank 5 (no such rank), and a queued gap 100–5000 µs."""
    t0 = int(tl.events["start_ns"].min())  # the op at ts 0
    rows = [(0, 800, 500, "host"), (0, 1250, 150, "host"), (5, 0, 5000, "host"), (0, 100, 4900, "queued")]
    return pd.DataFrame({"rank": [r for r, *_ in rows], "start_ns": [t0 + s * US for _, s, _, _ in rows],
                         "dur_ns": [d * US for *_, d, _ in rows], "cls": [c for *_, c in rows]})


def test_host_calls_in_gaps_by_hand(tmp_path):
    tl = _trace(tmp_path)
    gaps = _gaps(tl)
    # host-wait: cudaGetDeviceProperties covers 800–1300 and 1250–1400: union 800–1400 = 600 µs, one call;
    # cudaMalloc 1000–1100 inside the first gap: 100 µs. cudaEventRecord ends at the gap start, the zero-length call
    # has no time, the synchronisation is the other cause, the short calls ended long before: none listed
    assert host_calls_in_gaps(tl, gaps, n=10) == [
        {"name": "cudaGetDeviceProperties", "overlap_ns": 600 * US, "calls": 1, "longest_ns": 600 * US},
        {"name": "cudaMalloc", "overlap_ns": 100 * US, "calls": 1, "longest_ns": 100 * US},
    ]
    # queued 100–5000: cudaGetDeviceProperties 150–2150 (2000 µs), cudaMalloc 100 µs, the twenty cudaGetLastError
    # 20 × 2 = 40 µs, cudaEventRecord 10 µs (the launch 10–14 ends before the gap)
    assert host_calls_in_gaps(tl, gaps, cls="queued", n=10) == [
        {"name": "cudaGetDeviceProperties", "overlap_ns": 2000 * US, "calls": 1, "longest_ns": 2000 * US},
        {"name": "cudaMalloc", "overlap_ns": 100 * US, "calls": 1, "longest_ns": 100 * US},
        {"name": "cudaGetLastError", "overlap_ns": 40 * US, "calls": 20, "longest_ns": 2 * US},
        {"name": "cudaEventRecord", "overlap_ns": 10 * US, "calls": 1, "longest_ns": 10 * US},
    ]
    # the two longest host-wait gaps only: rank 5's (no calls there) and 800–1300 — cudaGetDeviceProperties' part in
    # 1300–1400 is left out
    assert host_calls_in_gaps(tl, gaps, n=1, max_gaps=2) == [
        {"name": "cudaGetDeviceProperties", "overlap_ns": 500 * US, "calls": 1, "longest_ns": 500 * US}]

