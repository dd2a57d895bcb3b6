"""A small generator of valid synthetic Kineto traces (CUDA dialect) for size and scale tests."""

from __future__ import annotations

import json
from pathlib import Path


def write_kineto(path: Path, n_kernels: int, n_names: int, name_len: int = 200, streams: int = 4,
                 gap_ns: int = 500, dur_ns: int = 2000, device: str = "Synthetic GPU", regs: int | None = None) -> dict:
    """Write a trace of ``n_kernels`` kernels cycling over ``n_names`` distinct names of ``name_len`` characters.

    Kernel i runs on stream 7 + i % streams, starts at 1 ms + i·(dur_ns + gap_ns) and lasts ``dur_ns + i % 3`` ns
    (written in µs with 3 decimals). ``device`` is the recorded GPU name (e.g. "NVIDIA H100 80GB HBM3" for a
    known spec); ``regs`` adds ``registers per thread`` and 0 B shared memory to every launch. Returns what was written: ``kernels``, ``time_ns`` (sum of durations),
    ``names`` (the distinct names, in first-use order).
    """
    names = [(f"void k{j}_" + "tile" * name_len)[:name_len] for j in range(n_names)]
    total = 0
    parts = []
    extra = ',"registers per thread":%d,"shared memory":0' % regs if regs is not None else ""
    for i in range(n_kernels):
        d = dur_ns + i % 3
        total += d
        ts = 1_000_000 + i * (dur_ns + gap_ns)
        parts.append('{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":%d,"ts":%d.%03d,"dur":%d.%03d,'
                     '"args":{"device":0,"stream":%d,"correlation":%d,"grid":[120,1,1],"block":[256,1,1]%s}}'
                     % (json.dumps(names[i % n_names]), 7 + i % streams, ts // 1000, ts % 1000, d // 1000,
                        d % 1000, 7 + i % streams, i + 1, extra))
    head = ('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":%s}],"traceEvents":[' % json.dumps(device))
    Path(path).write_text(head + ",".join(parts) + "]}")
    return {"kernels": n_kernels, "time_ns": total, "names": names}
