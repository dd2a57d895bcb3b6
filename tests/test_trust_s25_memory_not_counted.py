"""Without the memory side of the speed of light, neither memory-latency stalls nor a low achieved occupancy make a
kernel latency/occupancy-bound.

Kind: rocprofiler-compute's vcopy on an MI300X (memory throughput not counted: "memory not counted → no bound" in
its own evidence) was called latency/occupancy-bound from 76 % dependency-wait stalls and 26 % achieved occupancy —
both of which a kernel saturating HBM shows too; the same kernel on an MI200, with HBM counted, is memory-bound at
62 %. With the memory side counted and low, the latency reading stands (the compute side alone missing does not
change it).
"""

from __future__ import annotations

import pytest

from gpulens.analyzers.verdict_rules import Evidence, decide

MISSING = "a memory throughput counter (rocprof-compute HBM bandwidth)"


@pytest.mark.parametrize("rule", ["stalls", "occupancy"])
def test_memory_not_counted_is_undetermined(rule):
    extra = {"stalls": dict(stall_class="memory_latency", stall_pct=76.0),
             "occupancy": dict(achieved_occupancy_pct=26.0, theoretical_occupancy_pct=100.0, limiter="warps")}[rule]
    e = Evidence("vecCopy", "kernel", 3, 30_000, vendor="amd", compute_pct=0.1, memory_pct=None, sol_pct=0.1,
                 sol_missing=MISSING, **extra)
    v = decide(e)
    assert v.verdict == "undetermined" and v.time_at_stake_ns is None
    assert MISSING in v.next_steps[0]


@pytest.mark.parametrize("rule", ["stalls", "occupancy"])
def test_memory_counted_low_keeps_the_latency_reading(rule):
    # memory counted at 20 %, compute 5 %: neither unit is busy, so waits on memory are latency, not bandwidth
    extra = {"stalls": dict(stall_class="memory_latency", stall_pct=76.0),
             "occupancy": dict(achieved_occupancy_pct=26.0, theoretical_occupancy_pct=100.0, limiter="warps")}[rule]
    e = Evidence("vecCopy", "kernel", 3, 30_000, vendor="amd", compute_pct=5.0, memory_pct=20.0, sol_pct=20.0,
                 sol_missing="FLOP or pipe counters", **extra)
    assert decide(e).verdict == "latency/occupancy-bound"
