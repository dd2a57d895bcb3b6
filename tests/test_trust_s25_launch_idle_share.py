"""A kernel is launch-bound only when the launch-overhead idle before it is a real share of its own GPU time.

Kind: tb_plugin's ResNet-50 trace called an elementwise add "launch-bound, 591 µs at stake" — 3,489 launches holding
41.19 ms of kernel time, 88 % shorter than their launch calls, but queued 17.66 ms ahead at the median: 591 µs of
launch idle is 1.4 % of its time, a GPU kept fed. Thresholds by hand: 10 % of the kernel's time
(verdict_rules.LAUNCH_IDLE_MIN_SHARE).
"""

from __future__ import annotations

from gpulens.analyzers.verdict_rules import Evidence, decide

BASE = dict(name="vectorized_elementwise_kernel<AddFunctor>", kind="kernel", calls=3489, time_ns=41_190_000,
            short_launch_frac=0.88)


def test_small_launch_idle_is_not_launch_bound():
    v = decide(Evidence(**BASE, launch_idle_ns=591_000))
    assert v.verdict != "launch-bound"
    assert "1.4 % of its 41.19 ms" in v.evidence  # 591 / 41,190 = 1.43 %


def test_launch_idle_at_the_share_is_launch_bound():
    idle = 4_119_000  # 10 % of 41.19 ms
    v = decide(Evidence(**BASE, launch_idle_ns=idle))
    assert v.verdict == "launch-bound" and v.time_at_stake_ns == idle


def test_short_kernel_with_long_gaps_stays_launch_bound():
    # 20 launches of a 2 µs kernel after 10 µs of launch gap each: 200 µs of idle against 40 µs of kernel time
    v = decide(Evidence(name="k", kind="kernel", calls=20, time_ns=40_000, short_launch_frac=1.0,
                        launch_idle_ns=200_000))
    assert v.verdict == "launch-bound" and v.time_at_stake_ns == 200_000
