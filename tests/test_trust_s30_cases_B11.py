"""B11 variants (../shared/cases/README.md): the ROCm dialect on two GPUs known only by ``pid`` (no ``device`` arg),
stream 0 on both, a ``hipGraphLaunch`` feeding two kernels, file order reversed; and launch names of other runtimes
(Intel XPU ``urEnqueueKernelLaunch``, driver ``cuLaunchKernelEx``, ``cudaLaunchKernelExC``, ``hipLaunchKernelExC``).
Figures derived by hand below (µs in the file, ns in the report)."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main


def _launch(name, ts, corr, pid=60):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": pid, "tid": pid, "ts": ts, "dur": 4,
            "args": {"correlation": corr, "External id": corr}}


def _k(name, ts, dur, pid, corr=None, dev=None):
    a = {"stream": 0, **({"correlation": corr} if corr is not None else {}), **({"device": dev} if dev is not None else {})}
    return {"ph": "X", "cat": "kernel", "name": name, "pid": pid, "tid": "stream 0", "ts": ts, "dur": dur, "args": a}


def _run(events, tmp_path: Path) -> dict:
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


def test_two_gpus_by_pid_stream_zero_graph_launch_and_unlinked(tmp_path):
    """GPU 2 (pid 2): graph_k1 105+10, graph_k2 116+12 ← hipGraphLaunch corr 7. GPU 3 (pid 3): gemm_b 115+20 ←
    hipLaunchKernel corr 8; orphan 140+6 without correlation. hipModuleLaunchKernel corr 9 has no kernel.
    Busy 22 + 26 = 48 µs; wall span 105 → 146 = 41 µs; busy % = 48 / ((128-105) + (146-115)) = 48 / 54.
    Launches: 3 calls for 4 kernels, 1 graph launch → 2 kernels, 3 linked, 1 unlinked, 1 call without work."""
    ev = [_launch("hipGraphLaunch", 100, 7), _launch("hipLaunchKernel", 110, 8), _launch("hipModuleLaunchKernel", 120, 9),
          _k("graph_k1", 105, 10, 2, 7), _k("graph_k2", 116, 12, 2, 7), _k("gemm_b", 115, 20, 3, 8),
          _k("orphan_elementwise", 140, 6, 3),
          {"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "GPU 2"}},
          {"ph": "M", "name": "process_name", "pid": 3, "args": {"name": "GPU 3"}}]
    src = _run(ev[::-1], tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (4, 48_000, 41_000)
    assert abs(sm["gpu_busy_pct"] - 100 * 48 / 54) < 1e-9
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["graph_launches"], la["gpu_events_from_graphs"]) == (3, 1, 2)
    assert (la["kernels_linked"], la["kernels_unlinked"], la["launch_calls_without_gpu_work"]) == (3, 1, 1)
    dev = {r["name"]: (r["device_id"], r["stream_id"]) for r in src["analyses"]["stream_timeline"]["table"]
           if r["kind"] == "kernel"}
    assert dev == {"graph_k1": (2, 0), "graph_k2": (2, 0), "gemm_b": (3, 0), "orphan_elementwise": (3, 0)}


def test_launch_names_of_other_runtimes_link(tmp_path):
    """Four launch APIs, corr 1–4, each → one 5 µs kernel 5 µs after it: 4 calls, 4 linked, busy 20 µs of span
    105 → 140 = 35 µs."""
    names = ["urEnqueueKernelLaunch", "cuLaunchKernelEx", "cudaLaunchKernelExC", "hipLaunchKernelExC"]
    ev = [_launch(n, 100 + 10 * i, i + 1) for i, n in enumerate(names)]
    ev += [_k(f"x{i + 1}", 105 + 10 * i, 5, 0, i + 1, 0) for i in range(4)]
    src = _run(ev, tmp_path)
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["kernels_linked"], la["kernels_unlinked"]) == (4, 4, 0)
    assert (src["summary"]["gpu_busy_ns"], src["summary"]["span_ns"]) == (20_000, 35_000)
