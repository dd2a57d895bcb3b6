"""Kineto events whose ``ph`` is no Trace Event Format phase (a number, null, an unknown letter) were dropped
without a word (fuzzer: 4 kernels read as 3, ``rejected_event_count`` 0). They are still not read — no phase says
what they are — but a warning counts them, on the msgspec path and the byte scanner's alike. Phases skipped by
design (flows ``s``/``f``, counters ``C``…) stay silent.

Hand-made trace: 4 launch calls, 4 kernels; kernels 2–4 get ``ph`` 7, null and "Q".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.collectors.kineto import KinetoCollector


def _trace(tmp_path: Path, phases: list) -> Path:
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100 + 50 * i,
           "dur": 5, "args": {"correlation": i + 1}} for i in range(4)]
    ev += [{"ph": ph, "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 110 + 50 * i, "dur": 20,
            "args": {"correlation": i + 1, "device": 0, "stream": 7}} for i, ph in enumerate(phases)]
    ev.append({"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 100, "cat": "ac2g", "name": "ac2g"})  # a flow: by design
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


@pytest.mark.parametrize("fast", [False, True])
def test_events_of_no_known_phase_are_counted(tmp_path, fast):
    tl = KinetoCollector().collect(_trace(tmp_path, ["X", 7, None, "Q"]), fast=fast)
    assert len(tl.of_kind("kernel")) == 1
    said = [w for w in tl.meta.warnings if "no Trace Event Format phase" in w]
    assert len(said) == 1 and ": 3 events with a 'ph'" in said[0]
    assert "'Q'" in said[0] and "7" in said[0] and "None" in said[0]


@pytest.mark.parametrize("fast", [False, True])
def test_known_phases_raise_no_warning(tmp_path, fast):
    tl = KinetoCollector().collect(_trace(tmp_path, ["X"] * 4), fast=fast)
    assert len(tl.of_kind("kernel")) == 4
    assert not [w for w in tl.meta.warnings if "phase" in w]
