"""Session 45 (lead): a measured speed of light that names no bound but has a saturated unit says so first.

Kind: ncu counters with SM throughput alone (no FLOP or pipe counters) cannot tell arithmetic from load/store
work, so the kernel stays undetermined — but a unit at >= 60 % of its peak is the answer a GPU engineer needs on
the first screen (Olajide RTX 5070 gemm_naive: sm__throughput 97.32 %, DRAM 1.3 %: the run's headline only said
"collect more counters").
"""

from __future__ import annotations

import gpulens
from gpulens.devices import get_spec
from tests.test_verdict_trust import _one_kernel


def _verdict(sm_pct: float):
    tl = _one_kernel({"sm__throughput.avg.pct_of_peak_sustained_elapsed": sm_pct,
                      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 1.3},
                     name="gemm_naive_kernel(const float *, const float *, float *, int, int, int)",
                     dur_ns=9_589_248, grid=4096)
    return gpulens.analyze_timeline(tl, device_spec=get_spec("H100 SXM")).results["verdicts"].table.iloc[0]


def test_a_saturated_sm_without_pipe_counters_is_said_first():
    v = _verdict(97.32)
    assert v["verdict"] == "undetermined"  # arithmetic vs load/store not told apart: no class guessed
    # the saturation, measured, leads the next step; then the counters that would name the pipe
    assert v["next_steps"][0].startswith("The SM runs at 97.3 % of its peak (measured): saturated, not latency-bound")
    assert "collect" in v["next_steps"][0]
    assert "→ no bound named, but the SM is saturated" in v["evidence"]


def test_an_sm_below_the_threshold_keeps_the_plain_step():
    v = _verdict(30.0)  # 30 % and 1.3 %: no unit near its peak — nothing saturated to say
    assert "saturated" not in v["next_steps"][0] and "saturated" not in v["evidence"]
