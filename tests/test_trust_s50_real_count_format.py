"""A count beside another count is written the same way: "6,637 of 6,663 launches", not "6637 of 6,663".

Seen on a real nsys export (cestwc/balinski-and-gomory-cuda @ ddb2578974b7c3935fc7d21b903db831eeb4ef83
``report5.sqlite``, an RTX 3090, 6,663 kernel launches; MIT, not copied: its capture record holds the user's
environment): the launch-overhead idle
finding read "6637 of 6,663 launches did less GPU work than the launch call cost" — the first count without the
thousands separator every other count of the report carries. The trace below has 1,200 launches, each a 10 µs
``cudaLaunchKernel`` whose 2 µs kernel starts 0.5 µs after the call returns: every launch did less GPU work than
its call cost (2 µs < 10 µs), so the sentence must read "1,200 of 1,200 launches".
"""

from __future__ import annotations

import json

import gpulens

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
