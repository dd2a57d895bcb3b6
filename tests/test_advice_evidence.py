"""Advice that fits the evidence: what holds the critical path decides the next step (a blocking wait is about what
it waits for, a set-up call is a one-off, a launch call is launch overhead — not "cut runtime-call overhead" for
all of them); Triton kernels get Triton's knobs; a library kernel's advice says its code cannot be edited.
Traces are written here by hand; the expected words follow from the call each one holds the path with."""

from __future__ import annotations

import pytest

import gpulens
from tests.test_verdict_premises import _call, _kernel, _steady, _write


@pytest.mark.parametrize("call,words,not_words", [
    # the host blocked in a synchronous copy for 100 ms (as the TraceLens sglang decode trace's 463 ms in
    # hipMemcpyWithStream inside aten::copy_): a wait, so the step is about what it waits for
    ("hipMemcpyWithStream", ("blocked in hipMemcpyWithStream", "synchronous copy", "what it waits for",
                             "non_blocking=True"), ("overhead",)),
    ("cudaMemcpy", ("blocked in cudaMemcpy", "synchronous copy"), ("overhead",)),
    ("hipStreamSynchronize", ("blocked in hipStreamSynchronize", "what it waits for", "remove the synchronisation"),
     ("overhead",)),
    # a 100 ms allocation: a one-off set-up cost, not per-call overhead
    ("hipMalloc", ("Set-up calls", "once before the loop"), ("overhead",)),
    # anything else keeps the generic wording
    ("hipGetLastError", ("Cut runtime-call overhead",), ()),
])
def test_critical_path_runtime_advice_fits_the_call(tmp_path, call, words, not_words):
    """A kernel, then 100 ms of the host inside ``call`` (inside aten::copy_), then 20 steady kernels: the path is
    held by that runtime call (99,990 µs of a 100,239 µs step)."""
    ev = [_call("hipLaunchKernel", -8, 2, 1), _kernel("k0", 0, 10, 1),
          _call("aten::copy_", 15, 99_997, cat="cpu_op"), _call(call, 20, 99_990),
          _call("hipLaunchKernel", 100_012, 2, 2), _kernel("k", 100_020, 10, 2)]
    ev += _steady(100_031, 19, 10)
    s = gpulens.analyze([_write(tmp_path, ev)]).sources[0]
    cp = s.results["critical_path"]
    assert cp.summary["top_class"] in ("runtime", "sync")  # a blocking call may be classed as a sync
    f = next(f for f in s.findings() if f.key == "critical_path")
    assert f"largest: {call}" in f.title
    for w in words:
        assert w in f.action, (w, f.action)
    for w in not_words:
        assert w not in f.action, (w, f.action)


# ---- a Triton kernel gets Triton's knobs, not per-thread CUDA advice ---------------------------------------------

import gzip  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

from gpulens.analyzers._advice import triton_kernels  # noqa: E402

MI300 = Path("/work/shared/traces/kineto/tracelens_mi300x_bert-small.json.gz")


def _h100_trace(tmp_path, launch: str, frame: bool):
    """20 launches of a bare-named kernel ``matmul_kernel``: 128 threads, 200 registers/thread, 64 KiB shared
    memory, a 16-block grid on a 132-SM H100, 30 µs each with 5 µs between them, launched by ``launch``; with
    ``frame`` the host records Triton's Python launcher (a python_function event naming triton/runtime/jit.py)."""
    ev = []
    for i in range(20):
        t = 100 * i
        if frame:
            ev.append({"ph": "X", "cat": "python_function", "name": "triton/runtime/jit.py(580): run", "pid": 9,
                       "tid": 9, "ts": T0 + t, "dur": 20})
        ev.append({"ph": "X", "cat": "cuda_driver" if launch.startswith("cu") and not launch.startswith("cuda")
                   else "cuda_runtime", "name": launch, "pid": 9, "tid": 9, "ts": T0 + t + 2, "dur": 5,
                   "args": {"correlation": 100 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "matmul_kernel", "pid": 0, "tid": 7, "ts": T0 + t + 10,
                   "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 100 + i, "grid": [16, 1, 1],
                                        "block": [128, 1, 1], "registers per thread": 200,
                                        "shared memory": 65536}})
    p = tmp_path / f"{launch}{int(frame)}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
         "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 233472,
         "sharedMemPerBlockOptin": 232448, "totalGlobalMem": 85_000_000_000}], "traceEvents": ev}))
    return p


T0 = 1000


def _advice_text(s, name):
    out = []
    for f in s.findings():
        if f.kernel == name:
            out.append(f.action or "")
    vd = s.results["verdicts"].table
    out += [x for steps in vd.loc[vd["name"] == name, "next_steps"] for x in steps]
    return " ".join(out)


def test_triton_kernel_advice_names_triton_knobs(tmp_path):
    s = gpulens.analyze([_h100_trace(tmp_path, "cuLaunchKernel", True)]).sources[0]
    assert triton_kernels(s.timeline) == {"matmul_kernel": "triton"}
    text = _advice_text(s, "matmul_kernel")
    assert "num_warps" in text and "BLOCK" in text
    for cuda_lever in ("__launch_bounds__", "maxrregcount", "elements per thread", "loads per thread"):
        assert cuda_lever not in text, cuda_lever


def test_cuda_triton_kernels_need_no_op_tree_nor_kernel_frame(tmp_path):
    """The launching op only tells AOTriton kernels apart, and those are launched through HIP: for a CUDA trace the
    Triton labels come without building the op tree (on a 1M-kernel trace it was held from occupancy on)."""
    from gpulens.analyzers.context import context_of
    from gpulens.collectors import collect

    path = _h100_trace(tmp_path, "cuLaunchKernel", True)
    doc = json.loads(path.read_text())  # plus one copy: the GPU rows are then more than the kernel rows
    doc["traceEvents"].append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                               "tid": 7, "ts": T0 + 5000, "dur": 4, "args": {"device": 0, "stream": 7}})
    path.write_text(json.dumps(doc))
    tl = collect(path)
    ctx = context_of(tl)
    ctx.links  # the launch links it reads (shared: built by earlier analyzers), with the GPU rows they need
    frames = set(ctx._kinds)
    assert triton_kernels(tl) == {"matmul_kernel": "triton"}
    assert "op_tree" not in ctx.__dict__.get("_memo", {})
    # nor a new full-width frame of rows (the kernel name column is all it reads; occupancy held that frame on)
    assert set(ctx._kinds) == frames


def test_same_kernel_without_triton_evidence_keeps_cuda_advice(tmp_path):
    """Control: launched through cudaLaunchKernel with no Triton frame, nothing says Triton: the user's CUDA code."""
    s = gpulens.analyze([_h100_trace(tmp_path, "cudaLaunchKernel", False)]).sources[0]
    assert triton_kernels(s.timeline) == {}
    text = _advice_text(s, "matmul_kernel")
    assert "num_warps" not in text and "__launch_bounds__" in text


@pytest.mark.skipif(not MI300.exists(), reason="shared trace not available")
def test_rocm_attention_kernel_is_aotriton():
    """tracelens_mi300x_bert-small: attn_fwd is launched by hipModuleLaunchKernel under aten::_flash_attention_forward
    (read from the file here): PyTorch's ROCm AOTriton kernel, whose configs the user cannot edit."""
    ev = json.load(gzip.open(MI300))["traceEvents"]
    k = next(e for e in ev if e.get("cat") == "kernel" and e["name"] == "attn_fwd")
    call = next(e for e in ev if e.get("cat") == "cuda_runtime"
                and e.get("args", {}).get("correlation") == k["args"]["correlation"])
    op = next(e for e in ev if e.get("cat") == "cpu_op"
              and e.get("args", {}).get("External id") == k["args"]["External id"])
    assert call["name"] == "hipModuleLaunchKernel" and op["name"] == "aten::_flash_attention_forward"
    s = gpulens.analyze([MI300]).sources[0]
    assert triton_kernels(s.timeline).get("attn_fwd") == "aotriton"
    text = _advice_text(s, "attn_fwd")
    assert "split the key/value sequence across blocks" not in text and "loads per thread" not in text
    assert "sequences or heads per call" in text


# ---- a library kernel's advice says its code is the library's ----------------------------------------------------

from gpulens.analyzers._advice import library_name, whole_waves  # noqa: E402

V100 = Path("/work/shared/traces/kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")


@pytest.mark.parametrize("name,fam,lib", [
    ("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, float, float)", "normalisation",
     "cuDNN"),
    ("ampere_sgemm_32x32_sliced1x4_tn", "gemm", "cuBLAS"),
    ("nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT", "gemm", "cuBLAS"),
    ("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1", "gemm", "hipBLASLt/rocBLAS"),
])
def test_library_wave_advice_says_the_code_is_the_librarys(name, fam, lib):
    assert library_name(name) == lib
    text = whole_waves(fam, True, name, pytorch=True)
    assert f"It is {lib}'s library kernel" in text and "not yours to edit" in text and f"another {lib} version" in text
    assert not text.startswith("Change the problem size")
    # a user's own kernel keeps the grid-sizing step
    assert whole_waves(fam, False, "my_kernel").startswith("Size the grid")


@pytest.mark.skipif(not V100.exists(), reason="shared trace not available")
def test_cudnn_batchnorm_kernel_in_a_real_trace():
    """hta_v100_rank0_ns_resolution: cudnn::bn_bw_1C11_kernel_new (a cuDNN batch-norm backward kernel, SOURCES.md)
    has a partly filled last wave; its step names cuDNN and what the user can change instead of the kernel."""
    s = gpulens.analyze([V100]).sources[0]
    fs = [f for f in s.findings() if "bn_bw" in str(f.kernel) and (f.key or "").endswith("/waves")]
    assert fs
    for f in fs:
        assert "cuDNN's library kernel" in f.action and "not yours to edit" in f.action
        assert "another op for the same work" in f.action  # batch norm has no tile configurations to pick from
        assert "tile configuration" not in f.action
