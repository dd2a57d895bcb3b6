"""Step of a GPU event: PyTorch annotates ``ProfilerStep#N`` on the main thread only, while backward kernels are
launched from the autograd thread of the same process. A kernel belongs to the step whose host time window (same
rank and process, any thread) contains its launch call; before, every backward kernel's step was "unknown" (35 of
the 60 slowest instances of the V100 HTA trace). The legacy format writes its steps as operators (``"cat":
"Operator"``), which were not read as steps at all. Kernel outliers, variation by step and the critical path read
these steps (:func:`gpulens.analyzers._steps.gpu_steps`)."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from gpulens.analyzers._steps import gpu_steps
from gpulens.analyzers.context import context_of
from gpulens.report import analyze
from tests.conftest import shared_trace
from tests.dig_traces import KTrace


def _steps_by_name(path) -> dict[str, list]:
    """Step of each GPU event by kernel name (Timeline order), <NA> as None."""
    tl = analyze([path], only=["kernel_groups"]).sources[0].timeline
    gpu = context_of(tl).gpu
    out: dict[str, list] = {}
    for name, step in zip(gpu["name"].astype(str), gpu_steps(tl)):
        out.setdefault(name, []).append(None if pd.isna(step) else int(step))
    return out


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
    steps = _steps_by_name(t.write(tmp_path / "autograd.json"))
    assert steps["fwd_gemm_kernel"] == [7]
    assert steps["bwd_gemm_kernel"] == [7, 8, None]  # the last launched after the last step ended: no step
    assert steps["lost_launch_kernel"] == [8]  # no launch record: its op (at 170 µs) lies in step 8


@pytest.mark.parametrize("rel, before", [
    # the V100 HTA trace: backward kernels launched from the autograd thread
    ("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz", "autograd thread"),
    # the legacy TensorBoard-plugin format: ProfilerStep#N written as an operator ("cat": "Operator")
    ("kineto/kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz", "legacy steps"),
])
def test_every_kernel_has_the_step_of_its_launch_window(rel, before):
    """Expected, from the raw events: the step whose host window (same pid, any thread) contains the kernel's launch
    call (matched by correlation id); None when none does. Compared kernel by kernel, by name in start order."""
    path = shared_trace(rel)
    ev = json.load(gzip.open(path))["traceEvents"]
    steps = [(e["pid"], e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1])) for e in ev
             if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") in ("user_annotation", "Operator")]
    calls = {e["args"]["correlation"]: e for e in ev if e.get("cat") in ("cuda_runtime", "Runtime")}
    expected: dict[str, list] = {}
    for k in sorted((e for e in ev if e.get("cat") in ("kernel", "Kernel")), key=lambda e: e["ts"]):
        c = calls.get(k["args"].get("correlation"))
        hit = [s for pid, a, b, s in steps if c and pid == c["pid"] and a <= c["ts"] < b]
        expected.setdefault(k["name"], []).append(hit[0] if hit else None)
    assert sum(s is not None for v in expected.values() for s in v) > 1000  # the traces do have steps
    got = _steps_by_name(path)
    for name, want in expected.items():
        assert got[name] == want, (before, name)
