"""The run verdict when the host paces the steps: computing holds the larger share of the span, yet the steps'
critical path runs on the host and every launch finds the GPU ready — faster kernels would not shorten a step, and
the run was called by the kernels' class. A hand-made trace, derived by hand:

Two ProfilerSteps of 12 host ops each, back to back, 100 µs apiece; each op issues one launch call at +90 µs (3 µs)
whose kernel runs 75 µs from +95 µs. Each kernel ends (+170 µs, the next op's +70) before the next op's launch
(+90): the GPU waits 25 µs for the host after every kernel, 20 of them in host op code — busy 75 of every 100 µs —
and never holds the host back, so the steps' critical path runs on the host from their start to their end (a last
100 µs op launches nothing): host share 100 %.
"""

from __future__ import annotations

import pytest

from gpulens.report import analyze
from tests.dig_traces import KTrace

OPS, OP_US, KERNEL_US = 12, 100, 75


def _paced(tmp_path, kernel_us: int = KERNEL_US, sync: bool = False):
    """``sync``: the step's last op waits for the GPU (loss.item()): a cudaDeviceSynchronize until its last kernel
    ends, each kernel starting when both its launch and the kernel before it are done (one stream)."""
    t = KTrace()
    ts, gpu_free = 1000, 0
    for step in (1, 2):
        ops = []
        start = ts
        for _ in range(OPS):
            ext = t.op("aten::mul", ts, OP_US)
            k0 = max(ts + 95, gpu_free)
            t.launch(ext, ts + 90, [("my_kernel", k0, kernel_us)], dur=3)
            gpu_free = k0 + kernel_us
            ops.append(ext)
            ts += OP_US
        end = ts + OP_US
        if sync:  # the host waits for the GPU's backlog inside the step's last op
            end = max(end, gpu_free + 10)
            t.sync(ts + 5, gpu_free + 2 - (ts + 5))
        t.op("aten::item", ts, end - ts)  # host work at the step's end, launching nothing
        t.annotation(f"ProfilerStep#{step}", start, end - start)
        ts = end
    return t.write(tmp_path / "paced.json")


def test_host_paced_steps_are_host_bound_whatever_the_busy_share(tmp_path):
    src = analyze([_paced(tmp_path)]).sources[0]
    cp, vd = src.results["critical_path"].summary, src.results["verdicts"].summary
    assert cp["bound"] == "cpu" and cp["gpu_share"] == 0.0
    bn = src.results["bottlenecks"].summary
    # computing holds the larger share of the span: 24 kernels × 30 µs, the gaps waiting for the host far less
    assert bn["computation_ns"] == 2 * OPS * KERNEL_US * 1000
    assert vd["run_verdict"] == "host-bound"
    assert vd["host_path_share"] == pytest.approx(1.0)
    assert "critical path" in vd["basis"] and "only once the host keeps up" in vd["basis"]


def test_the_answer_says_why_a_busy_gpu_is_host_bound(tmp_path):
    from gpulens.reports._answer import answer

    a = answer(analyze([_paced(tmp_path)]).sources[0])
    assert a.verdict == "host-bound" and a.sentence.startswith("Host-bound")
    assert "the host holds 100.0 % of the steps' critical path" in a.reason  # share_pct_text: one decimal


def test_gpu_paced_steps_keep_the_kernels_verdict(tmp_path):
    # kernels of 200 µs, launched every 100 µs: they queue behind each other and the step ends waiting for them, so
    # the GPU holds the path — no host verdict
    src = analyze([_paced(tmp_path, kernel_us=200, sync=True)]).sources[0]
    assert src.results["critical_path"].summary["bound"] == "gpu"
    assert src.results["verdicts"].summary["run_verdict"] != "host-bound"
    assert src.results["verdicts"].summary["host_path_share"] is None


def test_a_deep_launch_queue_keeps_the_kernels_verdict():
    """GPT-2 small training on an H200: the host holds 74 % of the steps' critical path, but the median launch waits
    far longer than any launch call before its kernel starts (read from the trace: kernel start − launch-call start,
    median 267 µs) — the GPU has a backlog and paces those phases. The kernels' class stays the run verdict,
    host-bound the secondary cause."""
    import gzip
    import json

    import numpy as np

    from gpulens.analyzers.verdict_rules import QUEUED_LAUNCH_NS
    from tests.conftest import DATA

    p = DATA / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
    with gzip.open(p, "rt") as fh:
        ev = json.load(fh)["traceEvents"]
    calls = {e["args"]["correlation"]: e["ts"] for e in ev
             if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    waits = [e["ts"] - calls[e["args"]["correlation"]] for e in ev
             if e.get("cat") == "kernel" and e.get("args", {}).get("correlation") in calls]
    assert np.median(waits) * 1000 >= QUEUED_LAUNCH_NS  # µs → ns: launches wait in a queue most of the time
    src = analyze([p]).sources[0]
    vd = src.results["verdicts"].summary
    assert src.results["critical_path"].summary["bound"] == "cpu"
    assert vd["run_verdict"] == vd["kernel_verdict"] != "host-bound" and vd["host_path_share"] is None
    assert vd["secondary_cause"] == "host-bound"
