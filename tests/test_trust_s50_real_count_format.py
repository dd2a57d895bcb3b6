"""A count beside another count is written the same way: "6,637 of 6,663 launches", not "6637 of 6,663".

Seen on a real nsys export (cestwc/balinski-and-gomory-cuda @ ddb2578974b7c3935fc7d21b903db831eeb4ef83
``report5.sqlite``, an RTX 3090, 6,663 kernel launches; MIT, not copied: its capture record holds the user's
environment): the launch-overhead idle
finding read "6637 of 6,663 launches did less GPU work than the launch call cost" — the first count without the
thousands separator every other count of the report carries. The trace below has 1,200 launches, each a 10 µs
``cudaLaunchKernel`` whose 2 µs kernel starts 0.5 µs after the call returns: every launch did less GPU work than
its call cost (2 µs < 10 µs), so the sentence must read "1,200 of 1,200 launches". The same holds for every
"N of M" count of a finding or note (telemetry samples, matched collectives, joined kernels, cut steps): the
telemetry case below has 1,500 throttled samples of 2,000.
"""

from __future__ import annotations

import json

import gpulens
from gpulens.analyzers.telemetry import Telemetry
from tests.test_telemetry import _telemetry_timeline

N = 1200


def _trace(tmp_path):
    ev, t = [], 1000.0
    for i in range(N):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                   "dur": 10.0, "args": {"correlation": i + 1, "External id": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "tiny_kernel", "pid": 0, "tid": 7, "ts": t + 10.5, "dur": 2.0,
                   "args": {"correlation": i + 1, "External id": i + 1, "device": 0, "stream": 7,
                            "grid": [1, 1, 1], "block": [32, 1, 1]}})
        t += 11.0
    p = tmp_path / "launches.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132, "computeMajor": 9, "computeMinor": 0}]}))
    return p


def test_short_launch_count_carries_its_thousands_separator(tmp_path):
    rep = gpulens.analyze([_trace(tmp_path)])
    texts = [str(x) for r in rep.sources[0].results.values() for f in r.findings
             for x in (f.title, getattr(f, "detail", ""), getattr(f, "advice", "")) if x]
    said = [t for t in texts if "did less GPU work than the launch call cost" in t]
    assert said and all(f"{N:,} of {N:,} launches did less GPU work" in t for t in said)
    assert not any(f"{N} of" in t for t in said)


def test_telemetry_sample_counts_carry_their_thousands_separator():
    # 2,000 samples 100 ms apart on GPU 1: 500 busy at 1,980 MHz, then 1,500 busy throttled (SwPowerCap, 0x4) to
    # 1,410 MHz — "in 1,500 of 2,000 telemetry samples", and the drop "1,500 of 2,000 busy samples"
    s = [(100 * i, 100, 1980, 0) for i in range(500)] + [(100 * i, 100, 1410, 0x4) for i in range(500, 2000)]
    res = Telemetry().analyze(_telemetry_timeline(s))
    titles = [f.title for f in res.findings]
    assert "GPU 1 was throttled (SwPowerCap) in 1,500 of 2,000 telemetry samples" in titles
    assert any(t.endswith("while busy (1,500 of 2,000 busy samples)") for t in titles)
