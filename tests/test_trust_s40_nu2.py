"""A new user's findings (part 2): the gate's baseline date, the order of its rows and headline, and the op
category of reductions in ``gpulens diff``.

Expected values are set by hand in the tests: a report's ``created`` written by the test, a trace file's mtime set
by the test, the kernel sizes of a synthetic trace (their absolute change under a uniform 10 % slowdown), and the
category a GPU engineer files an ``aten::all`` / ``aten::sum`` reduction under.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import numpy as np
import pytest

from gpulens.cli import main
from tests.gate_traces import H100, launch

#: (kernel, µs per step, aten op): a big GEMM, a mid kernel and a small layer norm, as in a GPT-2 step
KERNELS = (("ampere_sgemm_128x64_tn", 900.0, "aten::mm"),
           ("void at::native::vectorized_elementwise_kernel<4, gelu>", 250.0, "aten::gelu"),
           ("void at::native::vectorized_layer_norm_kernel<float>", 40.0, "aten::layer_norm"))


def _trace(path: Path, seed: int, scale: float, steps: int = 3) -> Path:
    """One Kineto trace of ``steps`` ProfilerSteps; every kernel's duration × ``scale`` × (1 + 1 % noise)."""
    rng = np.random.default_rng(seed)
    ev: list[dict] = []
    t_cpu, t_gpu, corr = 1_000_000.0, 1_000_050.0, 1
    for s in range(steps):
        start = t_cpu
        for name, us, op in KERNELS:
            dur = round(us * scale * (1 + 0.01 * rng.standard_normal()), 3)
            ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t_cpu, "dur": 8.0,
                       "args": {"External id": corr}})
            t_gpu = launch(ev, name, corr, t_cpu, t_gpu, dur)  # its launch call and kernel (gate_traces)
            t_cpu += 10.0
            corr += 1
        t_cpu = max(t_cpu, t_gpu) + 20.0  # the step ends when its GPU work is done (a synchronising step)
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1,
                   "ts": start - 1, "dur": round(t_cpu - start, 3), "args": {}})
        t_cpu += 5.0
    doc = {"schemaVersion": 1, "deviceProperties": [H100],
           "cuda_driver_version": 12040, "cuda_runtime_version": 12040, "traceEvents": ev}
    path.write_text(json.dumps(doc))
    return path


def _runs(tmp: Path, tag: str, scale: float, seed0: int, n: int = 5) -> list[str]:
    return [str(_trace(tmp / f"{tag}{i}.pt.trace.json", seed0 + i, scale)) for i in range(n)]


@pytest.fixture(scope="module")
def slower(tmp_path_factory):
    """A baseline report of 5 runs, its ``created`` set by hand, and 5 candidate runs uniformly 10 % slower."""
    tmp = tmp_path_factory.mktemp("nu2")
    base = tmp / "base.json"
    assert main(["analyze", *_runs(tmp, "b", 1.0, 100), "--json", str(base), "--no-cache"]) == 0 or base.exists()
    doc = json.loads(base.read_text())
    doc["created"] = "2026-01-02T03:04:05+00:00"
    base.write_text(json.dumps(doc))
    cand = _runs(tmp, "c", 1.10, 200)
    out = tmp / "gate.json"
    md, html = tmp / "gate.md", tmp / "gate.html"
    try:
        main(["gate", "--baseline", str(base), *cand, "--json", str(out), "--markdown", str(md), "--html", str(html)])
    except SystemExit:
        pass
    return tmp, json.loads(out.read_text()), md.read_text(), html.read_text()


def test_a_report_given_as_baseline_shows_when_it_was_recorded(slower):
    _tmp, gate, md, html = slower
    assert gate["baseline"]["created"] == "2026-01-02T03:04:05+00:00"
    assert "2026-01-02T03:04:05" in md and "2026-01-02T03:04:05" in html
    # a report given as the baseline was never saved as one: when it was recorded, not "saved"
    assert "recorded 2026-01-02T03:04:05" in md and "recorded 2026-01-02T03:04:05" in html and "saved 2026" not in md


def test_a_trace_given_as_baseline_is_dated_by_its_file(tmp_path):
    from gpulens.gate.baseline import load_baseline

    p = _trace(tmp_path / "one.pt.trace.json", 1, 1.0)
    os.utime(p, (1_767_323_045, 1_767_323_045))  # 2026-01-02T03:04:05Z
    assert dt.datetime.fromtimestamp(1_767_323_045, dt.timezone.utc).isoformat() == "2026-01-02T03:04:05+00:00"
    assert load_baseline(p).created == "2026-01-02T03:04:05+00:00"


def test_whole_run_metrics_lead_then_the_largest_absolute_change(slower):
    _tmp, gate, md, html = slower
    assert gate["verdict"] == "REGRESSED"
    reg = [m["metric"] for m in gate["metrics"] if m["gating"] and m["verdict"] == "REGRESSED"]
    # every timing is 10 % slower; the whole-run timings lead in their fixed order (step, span, busy times) ...
    whole = [m for m in ("step_ns", "span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_time_ns") if m in reg]
    assert whole[:2] == ["step_ns", "span_ns"] and reg[:len(whole)] == whole
    # ... then the kernels by absolute change: 0.1 × 900 µs > 0.1 × 250 µs > 0.1 × 40 µs per step, whatever the noise
    kern = [m for m in reg if m.startswith("kernel:")]
    assert len(kern) == 3 and "sgemm" in kern[0] and "gelu" in kern[1] and "layer_norm" in kern[2]
    assert reg.index(kern[0]) == len(whole)
    # the headline names the regressed kernels first (the two largest, in row order), then the first whole-run
    # timing they moved (s42: a CI reader sees the cause before the aggregates); Markdown and HTML list the rows in
    # the table order
    assert gate["reason"].startswith("8 of 12 gating metrics regressed: kernel:ampere_sgemm_128x64_tn (+")
    assert ", kernel:void at::native::vectorized_elementwise_kernel<4, gelu> (+" in gate["reason"]
    assert ", step_ns (+" in gate["reason"] and gate["reason"].endswith(" and 5 more")  # 8 − 3 named
    table = md[md.index("| metric |"):]
    assert table.index("layer\\_norm") > table.index("sgemm") > table.index("| median step time")
    chart = html[html.index('id="chart-gate"'):]
    chart = chart[:chart.index("</figure>")]
    # the chart leads with the cause (s45): the kernels by absolute change, then the whole-run timings
    assert "step time" in chart and chart.index("sgemm") < chart.index("layer_norm") < chart.index("step time")


@pytest.mark.parametrize("op, cat", [
    ("aten::all", "reduction"), ("aten::any", "reduction"), ("aten::sum", "reduction"), ("aten::mean", "reduction"),
    ("aten::amax", "reduction"), ("aten::max", "reduction"), ("aten::argmax", "reduction"),
    ("aten::cumsum", "reduction"), ("aten::norm", "reduction"), ("aten::var", "reduction"),
    # softmax and the norms stay normalisation; pointwise ops stay elementwise; a collective stays communication
    ("aten::_softmax", "normalisation"), ("aten::layer_norm", "normalisation"), ("aten::add", "elementwise"),
    ("aten::add_", "elementwise"), ("aten::maximum", "elementwise"), ("aten::eq", "elementwise"),
    ("c10d::allreduce_", "communication")])
def test_reductions_are_their_own_op_category(op, cat):
    from gpulens.analyzers._categories import op_category

    assert op_category(op) == cat


@pytest.mark.parametrize("kernel, cat", [
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool, at::native::func_wrapper_t<bool>>>", "reduction"),
    ("triton_red_fused_sum_1", "reduction"), ("triton_per_fused_mean_2", "reduction"),
    ("void cub::DeviceReduceSingleTileKernel<float>", "reduction"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", "elementwise"),
    ("triton_poi_fused_add_0", "elementwise"), ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "communication"),
    ("void softmax_warp_forward<float>", "normalisation")])
def test_reduction_kernels_are_their_own_category(kernel, cat):
    from gpulens.analyzers._categories import kernel_category

    assert kernel_category(kernel) == cat


def test_diff_files_aten_all_under_reduction_not_elementwise():
    """tracelens BERT-small H100 vs MI300X: the H100's one reduce_kernel (aten::all, 3.648 µs in the trace) is
    the reduction row; elementwise keeps the adds, gelu and eq (27.807 µs: the 16 pointwise kernels)."""
    from tests.conftest import shared_trace

    from gpulens.diff import diff

    base = shared_trace("kineto/tracelens_h100_bert-small.json.gz")
    cand = shared_trace("kineto/tracelens_mi300x_bert-small.json.gz")
    cats = diff(base, cand).tables["categories"].set_index("category")
    assert cats.loc["reduction", "base_time_ns"] == 3_648 and cats.loc["reduction", "base_count"] == 1
    assert cats.loc["elementwise", "base_count"] == 16
