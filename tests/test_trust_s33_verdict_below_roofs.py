"""A kernel's class rests on evidence listed beside it. Below both roofs on the roofline, with nothing saying latency
or occupancy (a grid filling the GPU many times over, achieved occupancy not counted, no stalls), the verdict says
"below-roofs", not "latency/occupancy-bound". A user review of the H200 GPT-2 trace: the lm-head CUTLASS ``align1``
GEMMs (N = 50257) at 12-18 % of their roof with 97 / 7.8 / 11.9 grid waves were called occupancy-bound while the
evidence's only cause was the unaligned vocabulary size.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gpulens
from gpulens.analyzers.verdict_rules import Evidence, decide

GPT2 = Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
ALIGN1 = "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>(Params)"


def _gemm(**kw) -> Evidence:
    # an H200 (132 SMs), 25,600 blocks of 256 threads, one resident block per SM (registers): 25,600 / 132 = 194
    # waves — the grid is far from short; 12 % of its roof
    base = dict(name=ALIGN1, kind="kernel", calls=3, time_ns=20_000_000, bound="below-roofs", roof_pct=12.0,
                ridge_side="compute", num_sms=132, mean_blocks=25_600.0, waves_per_sm=25_600 / 132,
                theoretical_occupancy_pct=12.5, limiter="registers", library=True, family="gemm", vendor="nvidia",
                gemm_extents=((8192, 50257, 768),))
    base.update(kw)
    return Evidence(**base)


def test_below_roofs_alone_is_not_occupancy():
    v = decide(_gemm())
    assert v.verdict == "below-roofs", v
    assert "occupancy-bound" not in v.evidence
    # the cause its name gives is in the evidence, and the advice pads the vocabulary: 50257 → next multiple of 8
    assert "align1" in v.evidence and "unaligned GEMM shape" in v.evidence
    assert -(-50257 // 8) * 8 == 50264
    assert "pad 50257 to 50264" in v.next_steps[0]
    # the register limiter is only a condition: nothing shows the kernel latency-bound
    assert not any(s.startswith("Registers per thread limit occupancy") for s in v.next_steps)


@pytest.mark.parametrize("extra", [dict(achieved_occupancy_pct=10.0),  # low achieved occupancy, measured
                                   dict(mean_blocks=40.0, waves_per_sm=40 / 132),  # 40 blocks on 132 SMs
                                   dict(stall_class="memory_latency", stall_pct=70.0)])  # latency stalls dominate
def test_latency_or_occupancy_evidence_keeps_the_class(extra):
    assert decide(_gemm(**extra)).verdict == "latency/occupancy-bound"


def test_gpt2_lm_head_gemms_are_below_roofs_not_occupancy():
    if not GPT2.exists():
        pytest.skip("H200 GPT-2 trace not present")
    src = gpulens.analyze([GPT2]).sources[0]
    rows = [r for r in src.results["verdicts"].table.to_dict("records") if "_align1>" in r["name"]]
    assert len(rows) == 3  # the three lm-head GEMM layouts (tn, nn, nt) of the 50,257-token vocabulary
    for r in rows:
        assert r["verdict"] == "below-roofs", (r["name"], r["verdict"])
        assert "align1" in r["evidence"] and "achieved occupancy not counted" in r["evidence"]
        assert "50257" in r["next_steps"][0]
    label = src.results["verdicts"].summary["run_verdict"]
    assert label != "latency/occupancy-bound"


def test_small_wave_grid_shows_the_waves_it_rests_on():
    # H100 BERT layer norm: 141 blocks on 132 SMs, 12 resident per SM: 141 / (132 × 12) = 0.089 waves — a block on
    # every SM, so "141 blocks on 132 SMs" alone does not show why it is latency/occupancy-bound; the waves do
    w = 141 / (132 * 12)
    assert f"{w:.2g}" == "0.089"
    v = decide(_gemm(name="vectorized_layer_norm_kernel", library=False, family="normalisation", gemm_extents=(),
                     mean_blocks=141.0, waves_per_sm=w))
    assert v.verdict == "latency/occupancy-bound"
    assert "141 blocks on 132 SMs, 0.089 waves" in v.evidence
