"""A CPU-only run is not told to pass --device-spec: nothing ran on a GPU, so no GPU figures are missing.

Kind (new-user walk, `gpulens profile` of a CPU torch script): after "Verdict: no GPU work", the console still said
"roofline: skipped — no device spec: the GPU was not identified from the trace (pass --device-spec NAME …)". The
committed CPU-only trace below holds no kernel event (checked in the test from its own events).
"""

from __future__ import annotations

import gpulens
from tests.conftest import KINETO


def test_cpu_only_trace_skips_without_device_advice():
    src = gpulens.analyze([KINETO / "torch2.13_cpu_only_mm.pt.trace.json"]).sources[0]
    assert not src.timeline.events["kind"].isin(["kernel", "comm"]).any()
    for name in ("roofline", "occupancy"):
        reason = src.results[name].skipped_reason
        assert reason == "no kernel in the trace (no device spec is needed)"
