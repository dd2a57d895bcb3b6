"""A one-off idle gap is placed where it lies in the run: early, in the middle or late — not always "in the middle".

Kind: nsys fuser on an H200: "1 warm-up/boundary idle gap … 396.82 ms in the middle of the run" beside its own
detail "starts 188.45 µs after the first GPU event" — the gap ran from 0.19 ms to 397 ms of a 508 ms span. The
places expected below follow from the kernel times written in each trace (first tenth / last tenth of the span).
"""

from __future__ import annotations

import json

import pytest

import gpulens


def _trace(tmp_path, gap_after: int):
    """501 kernels of 10 µs, 10 µs apart, on one stream, with one 5,000 µs gap after kernel ``gap_after``: span
    501 × 10 + 499 × 10 + 5,000 = 15,000 µs."""
    ev, t = [], 0
    for i in range(501):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": max(t - 5, 0), "dur": 3, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": 10,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        t += 10 + (5000 if i == gap_after else 10)
    p = tmp_path / f"gap{gap_after}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


@pytest.mark.parametrize("gap_after,place", [
    (0, "early in the run"),        # starts at 10 µs of 15,000 µs: in the first tenth (1,500 µs)
    (250, "in the middle of the run"),  # starts at 251 × 10 + 250 × 10 = 5,010 µs, ends at 10,010 µs
    (499, "late in the run"),       # starts at 500 × 10 + 499 × 10 = 9,990 µs, ends at 14,990 µs > 13,500 µs
])
def test_one_off_gap_place(tmp_path, gap_after, place):
    src = gpulens.analyze([_trace(tmp_path, gap_after)]).sources[0]
    f = next(f for f in src.findings() if f.key == "idle/boundary")
    assert "5.00 ms" in f.title and place in f.title and place in f.detail
