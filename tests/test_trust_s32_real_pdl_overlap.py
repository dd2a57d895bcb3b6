"""Held-back real traces, Kineto on a B200: kernels that overlap on one stream after a cudaLaunchKernelEx launch.

AMD-AGI/TraceLens @ 171dd747 ``tests/traces/b200/eager_trace.json.gz`` (vLLM MoE decode, NVIDIA B200, rank 0 of 8;
816 KB, not copied): 74 GPU events on stream 7 end after the next event on the stream starts (by 0.128–3.744 µs,
69.278 µs in all). Every one of the 74 later events was launched with ``cuLaunchKernelEx`` (36, the FP4 ``bmm_*``
GEMMs) or ``cudaLaunchKernelExC`` (38, the MoE ``finalize`` / ``routing`` kernels): the launches that can carry
programmatic dependent launch, with which a kernel starts before the one ahead of it on its stream ends, on purpose
(CUDA C++ Programming Guide, "Programmatic Dependent Launch and Synchronization", compute capability 9.0+).
gpulens called them recording errors ("treat these kernels' recorded durations with care"). The finding now counts
the overruns followed by such a launch and, when all are, reads them as possible PDL (severity info).

The test writes the shape in tmp_path: three kernels on one stream, the second starting 2 µs before the first ends.
"""

from __future__ import annotations

import json

from gpulens.cli import main


def _trace(path, second_launch: str) -> None:
    ev = []
    for i, (ts, dur, api) in enumerate([(100.0, 10.0, "cudaLaunchKernel"), (108.0, 5.0, second_launch),
                                        (120.0, 4.0, "cudaLaunchKernel")]):
        corr = 10 + i
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 1, "tid": 1, "ts": ts - 6.0, "dur": 3.0,
                   "args": {"correlation": corr, "External id": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": corr, "External id": corr,
                            "grid": [132, 1, 1], "block": [128, 1, 1]}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA B200", "computeMajor": 10, "computeMinor": 0, "numSms": 148}],
        "traceEvents": ev}))


def _overrun_finding(tmp_path, second_launch: str) -> dict:
    p = tmp_path / f"{second_launch}.json"
    _trace(p, second_launch)
    out = tmp_path / f"{p.stem}.o.json"  # one per input: another input's JSON report is never replaced
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    (f,) = [f for f in json.loads(out.read_text())["sources"][0]["findings"] if "overrun" in f["title"]]
    return f


def test_overlap_after_an_extensible_launch_is_read_as_possible_pdl(tmp_path):
    for api in ("cudaLaunchKernelExC", "cuLaunchKernelEx"):
        f = _overrun_finding(tmp_path, api)
        assert f["title"].startswith("1 GPU event overruns")  # k0 ends at 110 µs, k1 starts at 108 µs
        assert "1 of them are followed by a kernel launched with cuLaunchKernelEx" in f["detail"]
        assert "programmatic dependent launch" in f["action"] and f["severity"] == "info"


def test_overlap_after_a_plain_launch_stays_a_recording_doubt(tmp_path):
    f = _overrun_finding(tmp_path, "cudaLaunchKernel")
    assert "programmatic" not in f["detail"] and "with care" in f["action"]
