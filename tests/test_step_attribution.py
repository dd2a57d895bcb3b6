"""Step of a GPU event: PyTorch annotates ``ProfilerStep#N`` on the main thread only, while backward kernels are
launched from the autograd thread of the same process. A kernel belongs to the step whose host time window (same
rank and process, any thread) contains its launch call; before, every backward kernel's step was "unknown" (35 of
the 60 slowest instances of the V100 HTA trace)."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from gpulens.report import analyze
from tests.conftest import shared_trace
from tests.dig_traces import KTrace


def test_kernels_launched_from_the_autograd_thread_take_the_step_of_their_launch_window(tmp_path):
    t = KTrace()
    t.annotation("ProfilerStep#7", 1, 99, tid=1)  # main thread: steps 7 and 8 (ts 0 is read as "not recorded")
    t.annotation("ProfilerStep#8", 100, 100, tid=1)
    t.launch(t.op("aten::mm", 10, 20), 12, [("fwd_gemm_kernel", 300, 40)], tid=1)  # step 7, main thread
    t.launch(t.op("MmBackward0", 60, 30, tid=2), 65, [("bwd_gemm_kernel", 350, 50)], tid=2)  # step 7, autograd
    t.launch(t.op("MmBackward0", 150, 30, tid=2), 155, [("bwd_gemm_kernel", 450, 90)], tid=2)  # step 8, autograd
    t.launch(t.op("aten::zero_", 250, 10, tid=2), 252, [("bwd_gemm_kernel", 600, 60)], tid=2)  # after the steps
    # a launch record cut off: the kernel's External id still names its op (autograd thread, in step 8's window)
    c = t.launch(t.op("MmBackward0", 170, 20, tid=2), 175, [("lost_launch_kernel", 700, 70)], tid=2)
    t.ev = [e for e in t.ev if not (e["cat"] == "cuda_runtime" and e["args"]["correlation"] == c)]
    path = t.write(tmp_path / "autograd.json")
    r = analyze([path], only=["kernel_outliers"]).sources[0].results["kernel_outliers"].table
    steps = {(n, d): s for n, d, s in zip(r["name"], r["dur_ns"], r["step"])}
    assert steps[("fwd_gemm_kernel", 40_000)] == 7
    assert steps[("bwd_gemm_kernel", 50_000)] == 7
    assert steps[("bwd_gemm_kernel", 90_000)] == 8
    assert str(steps[("bwd_gemm_kernel", 60_000)]) == "<NA>"  # launched after the last step ended: no step
    assert steps[("lost_launch_kernel", 70_000)] == 8  # no launch record: its op (at 170 µs) lies in step 8


@pytest.mark.parametrize("rel, unknown", [
    # the V100 HTA trace: backward kernels launched from the autograd thread (35 of 60 were "unknown")
    ("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz", 0),
    # the legacy TensorBoard-plugin format writes ProfilerStep#N as an operator ("cat": "Operator"), not an
    # annotation: its steps were not read at all (45 of 45 "unknown"); 2 slow instances run after the last step
    ("kineto/kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz", 2),
])
def test_outliers_have_the_step_of_their_launch_window(rel, unknown):
    path = shared_trace(rel)
    ev = json.load(gzip.open(path))["traceEvents"]
    steps = [(e["pid"], e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1])) for e in ev
             if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") in ("user_annotation", "Operator")]
    calls = {e["args"]["correlation"]: e for e in ev if e.get("cat") in ("cuda_runtime", "Runtime")}
    expected = {}  # name -> [(start µs, step of the window containing the launch call, any thread of its pid)]
    for k in (e for e in ev if e.get("cat") in ("kernel", "Kernel")):
        c = calls.get(k["args"].get("correlation"))
        hit = [s for pid, a, b, s in steps if c and pid == c["pid"] and a <= c["ts"] < b]
        expected.setdefault(k["name"], []).append((k["ts"], hit[0] if hit else None))
    res = analyze([path], only=["hotspots", "kernel_outliers"]).sources[0].results["kernel_outliers"]
    out = res.table
    assert len(out) and int(out["step"].isna().sum()) == unknown == res.summary["without_step"]
    for name, start_ns, step in zip(out["name"], out["start_ns"], out["step"]):
        ts, want = min(expected[name], key=lambda x: abs(x[0] * 1000 - start_ns))
        assert abs(ts * 1000 - start_ns) < 1000
        assert (None if pd.isna(step) else int(step)) == want, (name, start_ns)
