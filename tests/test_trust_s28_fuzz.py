"""Faults found by the s28 fresh fuzzing campaign (mutated real inputs run through ``gpulens analyze``), one test per
kind of fault. Each input is written here, small, with the expected figure worked out by hand beside it.

1. A collective kernel recorded twice at one start on its stream (a duplicated event): the verdict table counted it
   once in its time (overrun repair clips the copy to 0 ns) but twice in its exposed time — "22.08 µs of 11.04 µs not
   overlapped by compute", a time at stake twice the kernel's time (fuzz: hta_mi250_minitoy, duplicated events).
"""

from __future__ import annotations

import json
from pathlib import Path

import gpulens

T0 = 1_000_000  # µs
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
GEMM = "ampere_sgemm_128x64_nn"


def _kernel(name: str, ts: int, dur: int, corr: int, stream: int = 7) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": T0 + ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr, "grid": [4, 1, 1], "block": [128, 1, 1]}}


def _launch(ts: int, corr: int) -> dict:
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": T0 + ts,
            "dur": 3, "args": {"correlation": corr}}


def _write(path: Path, events: list[dict], **extra) -> Path:
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events, **extra}))
    return path


def test_duplicated_collective_is_exposed_once(tmp_path):
    # GEMM on stream 7 at [0, 50) µs; the all-reduce on stream 9 at [100, 120) µs, recorded twice (same start, same
    # stream, same correlation). No compute overlaps it: exposed = its time = 20 µs, once.
    ev = [_launch(-10, 1), _kernel(GEMM, 0, 50, 1), _launch(90, 2), _kernel(AR, 100, 20, 2, stream=9),
          _kernel(AR, 100, 20, 2, stream=9)]
    src = gpulens.analyze([_write(tmp_path / "dup.json", ev)]).sources[0]
    t = src.results["verdicts"].table.set_index("name")
    row = t.loc[AR]
    assert int(row["time_ns"]) == 20_000
    assert int(row["time_at_stake_ns"]) == 20_000  # old code: 40_000 (each copy's 20 µs exposed)
