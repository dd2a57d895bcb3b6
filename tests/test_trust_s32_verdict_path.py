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
    # the share with what it is read from (s35: host rows less the host's waits on the busy GPU, over the path)
    # said on its own line under "Critical path:" since s36 (inside the verdict it grew to five lines)
    assert a.path_note.startswith("it runs mostly through host work (51.8 % of it: ")
    # the wait named is the backlog (s49: the GPU's busy time inside each queue delay, not the whole delay): part of
    # the 8.69 ms median queue delay, here 8.40 ms
    backlog = src.results["launch_latency"].summary["backlog_p50_ns"]
    assert 0 < backlog <= wait and f"{backlog / 1e6:.2f}" == "8.40"
    assert ("less 93.81 ms of host waits while the GPU was busy), but the median launch waits 8.40 ms "
            "behind earlier GPU work (the GPU had a backlog") in a.path_note
    assert "critical path" not in a.sentence
    assert cp["host_wait_gpu_busy_ns"] // 10_000 == 9_381  # 93.81 ms
    from gpulens.reports import html

    page = html.render(rep)
    assert "critical path held by" in page


def _graph_then_late_launch(tmp_path):
    """A graph launch (1000–1012 µs) replaying three 60 µs kernels (1010, 1080, 1150 µs), nothing recorded on the
    host until a launch at 1300 µs (2 µs) of a 20 µs kernel at 1305 µs — the B13 case's shape (graph replay, then an
    ordinary launch)."""
    import json

    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 70, "tid": 70, "ts": 1000, "dur": 12,
           "args": {"correlation": 500}}]
    for i, ts in enumerate((1010, 1080, 1150)):
        ev.append({"ph": "X", "cat": "kernel", "name": f"g{i}", "pid": 0, "tid": "stream 7", "ts": ts, "dur": 60,
                   "args": {"device": 0, "stream": 7, "correlation": 500}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": 1300,
               "dur": 2, "args": {"correlation": 601}})
    ev.append({"ph": "X", "cat": "kernel", "name": "last", "pid": 0, "tid": "stream 7", "ts": 1305, "dur": 20,
               "args": {"device": 0, "stream": 7, "correlation": 601}})
    p = tmp_path / "graph.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_path_through_host_idle_shows_the_share_its_gpu_bound_rests_on(tmp_path):
    rep = gpulens.analyze([_graph_then_late_launch(tmp_path)])
    cp = rep.sources[0].results["critical_path"].summary
    # path 1000 → 1325 µs = 325 µs; host idle 1012 → 1300 = 288 µs, during which the graph's kernels ran
    # (1012–1070: 58, 1080–1140: 60, 1150–1210: 60 = 178 µs), plus the graph launch call 1010–1012 (2 µs) over its
    # first kernel: 180 µs of host waits on a busy GPU; GPU work on the path: the last kernel, 20 µs
    assert cp["path_ns"] == 325_000 and cp["class_ns"]["host_idle"] == 288_000
    assert cp["host_wait_gpu_busy_ns"] == 180_000
    assert abs(cp["gpu_share"] - 20 / 325) < 1e-12
    assert abs(cp["gpu_held_share"] - 200 / 325) < 1e-12 and cp["bound"] == "gpu"  # 61.5 % ≥ 50 %
    from gpulens.reports import html, markdown

    for text in (html.render(rep), markdown.render(rep)):
        if "critical path held by" in text:  # where the summary is drawn, the share it rests on is beside it
            assert "held by the GPU (with those waits)" in text and "host waits while the GPU was busy" in text
            assert "GPU work (share of the path)" in text
    assert "held by the GPU (with those waits)" in html.render(rep)
