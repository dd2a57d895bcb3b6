"""Session 50: over several GPUs a time at stake is GPU time summed over them, and the verdict says so.

One process driving six GPUs, each waiting for it: the verdict read "4.86 ms at stake from this cause alone" in a run
whose whole profiled window is 925 µs — a figure no engineer can recover in run time. The idle causes are summed over
the GPUs (the source summary's span definition); the headline now names that sum and, when it passes the wall span,
that the wall span bounds the run-time gain. The "At stake, largest first" line says its times are summed too, before
its "start with" tail (which the HTML banner leaves out).

Expected values are worked out by hand from the hand-made trace.
"""

from __future__ import annotations

import gpulens
from gpulens.reports import html, markdown
from gpulens.reports._answer import answer
from gpulens.reports._answer_proof import order_summed, summed_note
from tests.conftest import KINETO
from tests.test_idle_stake import _write as write_events


def _six_gpus(tmp_path):
    """GPU g (0..5) runs 10 kernels of 10 µs; kernel i starts at 1000 + g + 100 i + 90 µs, launched by a 5 µs call
    80 µs into its 100 µs slot. Per GPU: span 9 × 100 + 10 = 910 µs, busy 100 µs, idle 9 gaps × 90 µs = 810 µs, all
    waiting for the host (the launch call ends 5 µs before the kernel starts; its gap began 85 µs earlier). Summed over
    the 6 GPUs: 4,860 µs of idle at stake, against a wall span from 1,090 µs (GPU 0's first kernel) to 1,005 + 900 +
    100 µs (GPU 5's last end) = 915 µs."""
    ev, corr = [], 0
    for g in range(6):
        for i in range(10):
            t = 1000 + g + 100 * i
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9,
                       "ts": t + 80, "dur": 5, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": g, "tid": 7, "ts": t + 90, "dur": 10,
                       "args": {"device": g, "stream": 7, "correlation": corr}})
            corr += 1
    return write_events(tmp_path, ev)


def test_a_stake_summed_over_six_gpus_says_so_and_names_the_wall_span(tmp_path):
    rep = gpulens.analyze([_six_gpus(tmp_path)])
    s = rep.sources[0]
    assert s.summary["span_ns"] == 915_000 and s.summary["device_span_ns"] == 6 * 910_000
    a = answer(s)
    # 6 × 810 µs = 4.86 ms, 89.0 % of the 5.46 ms summed spans; more than the 915 µs wall span
    want = ("the host-bound share is the largest (89.0 % of the GPUs' summed spans): 4.86 ms at stake from this cause "
            "alone (GPU time summed over the 6 GPUs; more than the 915.00 µs wall span, which bounds the run-time "
            "gain); the 6 GPUs were busy 11.0 % of their summed spans (5.46 ms; wall span 915.00 µs)")
    assert a.headline.startswith(want), a.headline
    # the same sentence in Markdown and in the HTML banner (one definition)
    assert want in " ".join(markdown.render(rep).replace("\\", "").split())
    page = html.render(rep)
    page = page.decode() if isinstance(page, bytes) else page
    assert "4.86 ms at stake from this cause alone (GPU time summed over the 6 GPUs; more than the 915.00 µs wall " \
           "span" in " ".join(page.split())


def test_one_gpu_keeps_the_bare_stake_and_a_sum_under_the_wall_span_no_bound():
    assert summed_note(1, 5_000, 1_000) == ""
    assert summed_note(2, 900, 1_000) == " (GPU time summed over the 2 GPUs)"   # 900 ns ≤ the 1 µs wall span
    assert summed_note(2, 1_001, 1_000).endswith("more than the 1.00 µs wall span, which bounds the run-time gain)")
    start = " — start with the largest single finding: "
    order = f"1.00 ms of GPU idle; 2.00 ms in x{start}GPU idle"
    assert order_summed(order, 1) == order
    assert order_summed(order, 2) == f"1.00 ms of GPU idle; 2.00 ms in x; times summed over the 2 GPUs{start}GPU idle"


def test_two_rank_run_says_its_stakes_are_summed():
    """tests/data/kineto/multirank: two ranks, one GPU each; the idle and exposed-communication figures are sums over
    both GPUs (the idle finding says "summed over 2 GPUs"): the headline says it, once."""
    s = gpulens.analyze([KINETO / "multirank"]).sources[0]
    a = answer(s)
    assert "at stake from this cause alone (GPU time summed over the 2 GPUs)" in a.headline
    # said once: the At-stake line leaves it to the headline that carries it (the HTML banner shows both lines)
    assert "summed over the" not in a.fix_first and a.fix_first.startswith("1.33 s of GPU idle")
