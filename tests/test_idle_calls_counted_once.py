"""The calls named in the idle findings are counted once (semantic fuzzer of the twenty-fourth session):

* two threads in ``cudaStreamSynchronize`` at the same moments while the GPU sat idle: "1.56 ms with the host
  blocked — mostly in cudaStreamSynchronize (3.12 ms)" in a 2.1 ms span — each call's overlap was summed, so the
  same instants counted twice;
* one ``cudaGetDeviceProperties`` call across four host-wait gaps: "cudaGetDeviceProperties 3.60 ms in 4 calls" —
  a call was counted once per gap;
* a synchronisation's time was listed both as the "host blocked" cause and among the "runtime calls" of the
  host-wait cause.

Hand-made traces (tests/dig_traces.KTrace, µs); expected values by hand in each test.
"""

from __future__ import annotations

from gpulens.analyzers._idle_blocking import blocking_calls_in_idle
from gpulens.analyzers._idle_findings import host_calls_in_gaps
from gpulens.analyzers.bottlenecks import classify_gaps, sync_calls
from gpulens.collectors import collect

from .dig_traces import KTrace


def _two_thread_syncs(tmp_path):
    # kernels of 100 µs at 20, 1020, 2020 (launched at 10, 1010, 2010 by thread 1); threads 1 and 2 each sync
    # 100–900 and 1100–1900. GPU idle gaps: 120–1020 and 1120–2020; the syncs cover 120–900 and 1120–1900 of them:
    # 780 + 780 = 1,560 µs of host-blocked idle, by 4 calls
    k = KTrace()
    for i in range(3):
        ext = k.op("aten::add", 1000 * i, 8)
        k.launch(ext, 1000 * i + 10, [("elementwise_kernel", 1000 * i + 20, 100)])
    for tid in (1, 2):
        for t in (100, 1100):
            k.sync(t, 800, "cudaStreamSynchronize", tid=tid)
    return collect(k.write(tmp_path / "t.json"))


def test_simultaneous_blocking_calls_hold_the_host_once(tmp_path):
    tl = _two_thread_syncs(tmp_path)
    gaps = classify_gaps(tl)
    (row,) = blocking_calls_in_idle(tl, gaps, sync_calls(tl))
    assert row["name"] == "cudaStreamSynchronize" and row["calls"] == 4
    assert row["overlap_ns"] == 1_560_000
    assert row["overlap_ns"] <= int(gaps["sync_ns"].sum())


def test_one_call_across_many_gaps_is_one_call(tmp_path):
    # five launches 1 ms apart by thread 1, each kernel 100 µs; thread 2 in cudaGetDeviceProperties 0–5000 µs.
    # Host-wait gaps: 4 of 900 µs (120–1020, …); the call covers all of them: 3,600 µs, 1 call
    k = KTrace()
    for i in range(5):
        ext = k.op("aten::add", 1000 * i, 8)
        k.launch(ext, 1000 * i + 10, [("elementwise_kernel", 1000 * i + 20, 100)])
    k.corr += 1
    k.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGetDeviceProperties", "pid": 1, "tid": 2, "ts": 0,
                 "dur": 5000, "args": {"correlation": k.corr}})
    tl = collect(k.write(tmp_path / "t.json"))
    rows = {r["name"]: r for r in host_calls_in_gaps(tl, classify_gaps(tl))}
    assert (rows["cudaGetDeviceProperties"]["calls"], rows["cudaGetDeviceProperties"]["overlap_ns"]) == (1, 3_600_000)


def test_synchronisations_are_not_listed_as_host_wait_calls(tmp_path):
    tl = _two_thread_syncs(tmp_path)
    names = {r["name"] for r in host_calls_in_gaps(tl, classify_gaps(tl), n=10)}
    assert "cudaStreamSynchronize" not in names
