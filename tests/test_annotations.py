"""Annotation breakdown: GPU time per host range (by launch call inside the range), per GPU-side range (by kernel
start inside it), nested paths and per rank — expected values derived from the events the test writes."""

from __future__ import annotations

import pytest

from gpulens.report import analyze
from tests.dig_traces import KTrace


def _rank(path, rank: int, scale: float):
    t = KTrace(rank=rank)
    t.annotation("ProfilerStep#1", 100, 500)
    t.annotation("forward", 110, 200)
    gpu = 1000.0
    durs = {}
    for i in range(2):  # two "layer" ranges inside forward, each launching one kernel
        t.annotation("layer", 120 + 80 * i, 60)
        e = t.op("aten::mm", 125 + 80 * i, 20)
        d = (10.0 + i) * scale
        t.launch(e, 130 + 80 * i, [(f"gemm_{i}", gpu, d)])
        durs.setdefault("layer", 0.0)
        durs["layer"] += d
        gpu += 50
    t.annotation("backward", 320, 200)
    e = t.op("aten::mm", 330, 20)
    t.launch(e, 335, [("gemm_bwd", gpu, 30.0 * scale)])
    gpu += 100  # no kernel overruns the next one on the stream (that would clip it)
    e = t.op("aten::add", 700, 10)  # outside every range
    t.launch(e, 702, [("add_kernel", gpu, 4.0 * scale)])
    # a GPU-side range on stream 7 covering the two forward kernels (they start at 1000 and 1050)
    t.annotation("fwd_gpu", 995, 80, gpu=True)
    return t.write(path / f"rank{rank}.json"), durs["layer"], 30.0 * scale, 4.0 * scale


def test_gpu_time_per_nested_annotation_and_rank(tmp_path):
    exp = {r: _rank(tmp_path, r, 1.0 + r) for r in (0, 1)}
    res = analyze([tmp_path], only=["annotations"]).sources[0].results["annotations"]
    t = res.table.set_index(["rank", "side", "path"])
    for r, (_, layer, bwd, outside) in exp.items():
        host = lambda p: t.loc[(r, "host", p)]
        assert host("ProfilerStep#1 / forward / layer")["calls"] == 2
        assert host("ProfilerStep#1 / forward / layer")["gpu_time_ns"] == pytest.approx(layer * 1000)
        assert host("ProfilerStep#1 / forward")["gpu_time_ns"] == pytest.approx(layer * 1000)
        assert host("ProfilerStep#1 / forward")["self_gpu_time_ns"] == 0
        assert host("ProfilerStep#1 / backward")["gpu_time_ns"] == pytest.approx(bwd * 1000)
        step = host("ProfilerStep#1")
        assert step["gpu_time_ns"] == pytest.approx((layer + bwd) * 1000) and step["depth"] == 0
        # the step's share of the rank's GPU time: everything but the kernel launched outside it
        assert step["share"] == pytest.approx((layer + bwd) / (layer + bwd + outside))
        assert t.loc[(r, "gpu", "fwd_gpu"), "gpu_time_ns"] == pytest.approx(layer * 1000)
    assert t.loc[(1, "host", "ProfilerStep#1 / backward"), "gpu_time_ns"] == 60_000  # 30 µs × 2 on rank 1
