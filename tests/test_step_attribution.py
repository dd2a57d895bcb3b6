"""Step of a GPU event: PyTorch annotates ``ProfilerStep#N`` on the main thread only, while backward kernels are
launched from the autograd thread of the same process. A kernel belongs to the step whose host time window (same
rank and process, any thread) contains its launch call; before, every backward kernel's step was "unknown" (35 of
the 60 slowest instances of the V100 HTA trace)."""

from __future__ import annotations

import gzip
import json

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
    path = t.write(tmp_path / "autograd.json")
    r = analyze([path], only=["kernel_outliers"]).sources[0].results["kernel_outliers"].table
    steps = {(n, d): s for n, d, s in zip(r["name"], r["dur_ns"], r["step"])}
    assert steps[("fwd_gemm_kernel", 40_000)] == 7
    assert steps[("bwd_gemm_kernel", 50_000)] == 7
    assert steps[("bwd_gemm_kernel", 90_000)] == 8
    assert str(steps[("bwd_gemm_kernel", 60_000)]) == "<NA>"  # launched after the last step ended: no step


def test_v100_outliers_have_the_step_of_their_launch_window():
    path = shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")
    ev = json.load(gzip.open(path))["traceEvents"]
    steps = [(e["pid"], e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1])) for e in ev
             if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") == "user_annotation"]
    calls = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime"}
    expected = {}  # (name, start µs) -> step of the window containing the launch call (any thread of its pid)
    for k in (e for e in ev if e.get("cat") == "kernel"):
        c = calls.get(k["args"].get("correlation"))
        hit = [s for pid, a, b, s in steps if c and pid == c["pid"] and a <= c["ts"] < b]
        expected.setdefault(k["name"], []).append((k["ts"], hit[0] if hit else None))
    out = analyze([path], only=["hotspots", "kernel_outliers"]).sources[0].results["kernel_outliers"].table
    assert len(out) == 60
    for name, start_ns, step in zip(out["name"], out["start_ns"], out["step"]):
        ts, want = min(expected[name], key=lambda x: abs(x[0] * 1000 - start_ns))
        assert abs(ts * 1000 - start_ns) < 1000
        assert want is not None and step == want, (name, start_ns)
