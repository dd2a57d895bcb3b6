"""The RTX 5060 spec: each figure checks against the datasheet's own counts (NVIDIA GeForce RTX 5060 product
specifications: 3,840 CUDA cores, 2.497 GHz boost, 8 GB GDDR7 on a 128-bit bus at 28 Gbps, 614 AI TOPS FP4 with
sparsity)."""

from __future__ import annotations

import pytest

from gpulens.devices import get_spec


def test_rtx5060_figures_follow_from_the_datasheet():
    s = get_spec("NVIDIA GeForce RTX 5060")
    assert s is not None and s.name == "NVIDIA GeForce RTX 5060" and s.compute_capability == "12.0"
    assert s.num_sms == 3840 // 128  # Blackwell GeForce: 128 FP32 lanes per SM
    assert s.memory_bandwidth == pytest.approx(128 / 8 * 28e9)  # bus bytes × data rate = 448 GB/s
    assert s.peak_flops("fp32", matrix=False)[0] == pytest.approx(3840 * 2 * 2.497e9, rel=1e-3)
    # 614 AI TOPS = FP4 with 2:4 sparsity: dense FP4 307, FP8 (FP32 accumulate) a quarter of 614, BF16 an eighth
    assert s.peak_flops("fp8", matrix=True)[0] == pytest.approx(614e12 / 8, rel=2e-3)
    assert s.peak_flops("bf16", matrix=True)[0] == pytest.approx(614e12 / 16, rel=2e-3)
    assert s.figures["l2"].value == 32 * 2**20


@pytest.mark.parametrize("name", ["NVIDIA GeForce RTX 5060 Ti", "NVIDIA GeForce RTX 5060 Laptop GPU"])
def test_other_5060_parts_are_not_taken_for_it(name):
    # the Ti (36 SMs) and the Laptop GPU (3,328 cores) are other chips' configurations: never the desktop 5060's peaks
    s = get_spec(name)
    assert s is None or s.name != "NVIDIA GeForce RTX 5060"
