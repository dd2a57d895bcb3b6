"""Next-step advice of latency/occupancy-bound kernels: a small grid is named before the per-block limiter.

Hand examples (CUDA occupancy rules, H100 SXM: 132 SMs):
- 80 blocks of 128 threads, registers allow 5 blocks/SM → capacity 5 × 132 = 660 blocks, waves = 80 / 660 = 0.121:
  the grid, not the register limit, caps the parallelism (relaxing registers cannot raise achieved occupancy).
- 128 blocks on 132 SMs with 1 block/SM allowed by shared memory → waves = 128 / 132 = 0.97: the grid fills the GPU
  once, so the binding resource is shared memory (issue 14, item 1).
"""

from gpulens.analyzers.verdict_rules import Evidence, _latency_steps


def _ev(**kw):
    return Evidence("k", "kernel", 10, 100_000, **kw)


def test_small_grid_is_named_before_the_register_limiter():
    waves = 80 / (5 * 132)
    steps = _latency_steps(_ev(limiter="registers", waves_per_sm=waves, theoretical_occupancy_pct=31.25))
    # 80 / 660 = 12.12 % of one wave
    assert "12.1 %" in steps[0] and "0.121 waves" in steps[0] and "too few blocks" in steps[0]
    assert not any("Registers per thread" in s for s in steps)


def test_grid_filling_the_gpu_once_keeps_the_shared_memory_limiter():
    steps = _latency_steps(_ev(limiter="shared_memory", waves_per_sm=128 / 132, theoretical_occupancy_pct=12.5))
    assert steps[0].startswith("Shared memory (LDS) per block limits occupancy")
    assert not any("too few blocks" in s for s in steps)
