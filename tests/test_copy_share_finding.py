"""Host-to-device copies that are most of the GPU's work get a finding even when the GPU idles most of its span
(HTA's AlexNet A100 trace: 55.5 ms of pageable copies, 84 % of the busy time, 0.4 % of a 12.9 s span, had none).
Expected values are written by hand from the trace built here."""

from __future__ import annotations

import json

from gpulens.report import analyze

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def test_copies_holding_most_of_the_busy_time_get_a_finding(tmp_path):
    ev = []
    # one 800 µs host-to-device copy, then 20 kernels of 10 µs every 1,000 µs: busy 1,000 µs in a ~20 ms span
    ts = [T + 1000 * i for i in range(21)]
    for c, t in enumerate(ts, 1):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync" if c == 1 else "cudaLaunchKernel",
                   "pid": 1, "tid": 1, "ts": t - 5, "dur": 4, "args": {"correlation": c}})
        if c == 1:
            ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                       "tid": 7, "ts": t, "dur": 800, "args": {"correlation": c, "device": 0, "stream": 7,
                                                               "bytes": 4_000_000}})
        else:
            ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": 10,
                       "args": {"correlation": c, "device": 0, "stream": 7}})
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    fs = [f for f in analyze([p], cache=False).sources[0].findings() if f.key == "exposed-memcpy"]
    # by hand: 800 µs of 1,000 µs busy = 80 % (20 kernels × 10 µs beside it); 4 % of the 20.01 ms span
    assert len(fs) == 1 and fs[0].time_at_stake_ns == 800_000
    assert "(80.0 % of the GPU's busy time)" in fs[0].title
