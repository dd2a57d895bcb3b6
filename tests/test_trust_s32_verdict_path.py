"""A run verdict on the GPU side beside a critical path held by host work says why both hold. The kineto tb_plugin
ResNet-50 trace read "gpu-bound" (GPU busy 70.4 %) beside the critical path's "bound cpu" with nothing between them:
the run verdict weighs busy and idle time over the GPU span, the critical path (HTA's definition) is the chain that
decides each step. The answer now says "the critical path runs mostly through host work (51.8 % of it), but the
median launch waits 8.69 ms behind earlier GPU work (the GPU had a backlog)", and the critical path's summary key
reads "critical path held by", not a bare "bound".
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS

import pytest

import gpulens
from gpulens.analyzers._run_shares import path_disagreement
from gpulens.reports._answer import answer


def _results(queue_p50_ns: float | None, bound: str = "cpu") -> dict:
    # a 100 µs path: 30 % GPU work, 10 µs of host waits while the GPU was busy → host 100 − 30 − 10 = 60 %
    cp = NS(skipped=False, summary={"path_ns": 100_000.0, "gpu_share": 0.3, "host_wait_gpu_busy_ns": 10_000,
                                    "unattributed_share": 0.0, "bound": bound})
    ll = NS(skipped=queue_p50_ns is None, summary={"queue_p50_ns": queue_p50_ns})
    return {"critical_path": cp, "launch_latency": ll}


def test_deep_queue_explains_a_gpu_side_verdict():
    text = path_disagreement(_results(100_000), "gpu-bound")
    assert text == ("the critical path runs mostly through host work (60.0 % of it), but the median launch waits "
                    "100.00 µs behind earlier GPU work (the GPU had a backlog)")


def test_shallow_queue_says_what_cutting_host_work_recovers():
    text = path_disagreement(_results(1_000), "memory-bound")
    assert text.startswith("the critical path runs mostly through host work (60.0 % of it); cutting it recovers at "
                           "most the GPU idle time waiting for the host")


@pytest.mark.parametrize("run", ["host-bound", "launch-bound", "sync-bound", "undetermined"])
def test_no_note_when_they_agree_or_no_verdict(run):
    assert path_disagreement(_results(100_000), run) is None


def test_no_note_for_a_gpu_held_path():
    assert path_disagreement(_results(100_000, bound="gpu"), "gpu-bound") is None


def test_resnet50_answer_and_label():
    path = Path(__file__).parents[2] / "shared" / "traces" / "kineto" / \
        "kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz"
    if not path.exists():
        pytest.skip("shared ResNet-50 trace absent")
    rep = gpulens.analyze([path])
    src = rep.sources[0]
    cp = src.results["critical_path"].summary
    c = cp["class_ns"]
    # host share from the path's own classes: host classes less the host waits while the GPU was busy
    host = (sum(c.get(k, 0) for k in ("cpu_op", "runtime", "host_idle", "launch_delay", "sync"))
            - cp["host_wait_gpu_busy_ns"]) / cp["path_ns"]
    assert f"{100 * host:.1f}" == "51.8" and cp["bound"] == "cpu"
    wait = src.results["launch_latency"].summary["queue_p50_ns"]
    assert wait == 8_689_000
    a = answer(src)
    assert a.verdict == "gpu-bound"
    assert ("the critical path runs mostly through host work (51.8 % of it), but the median launch waits 8.69 ms "
            "behind earlier GPU work (the GPU had a backlog)") in a.sentence
    from gpulens.reports import html

    page = html.render(rep)
    assert "critical path held by" in page
