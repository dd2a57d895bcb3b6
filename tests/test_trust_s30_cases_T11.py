"""T11 / T11b variants (../shared/cases/README.md): a JAX/XLA trace over two GPUs with a memcpy stream and the derived
``XLA Modules`` / ``XLA Ops`` lines (which repeat the kernels: never counted twice), metadata written after the
events; and a Kineto file with cat-less events on the host *and* on a GPU stream's pid/tid. Figures by hand (ns)."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main


def _run(doc: dict, tmp_path: Path) -> dict:
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


def _m(pid, name, tid=None):
    e = {"ph": "M", "pid": pid, "name": "thread_name" if tid is not None else "process_name", "args": {"name": name}}
    return e | ({"tid": tid} if tid is not None else {})


def test_xla_two_gpus_memcpy_stream_and_derived_op_lines(tmp_path):
    """GPU 0: MemcpyH2D [1005,1009] (stream 15), gemm_a [1010,1030], loop_add_fusion [1040,1050] (stream 14); the XLA
    Modules / XLA Ops lines repeat them (not kernels). GPU 1: gemm_a [1020,1045]. Host PjitFunction not a kernel.
    Kernels 3: gemm_a 20 + 25 = 45 µs (2 calls), loop_add 10 µs. Busy 4 + 20 + 10 + 25 = 59 µs; wall span
    1005 → 1050 = 45 µs; busy % = 59 / (45 + 25); exposed copy 4 µs."""
    x = lambda pid, tid, ts, dur, name: {"ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": dur, "name": name,  # noqa
                                          "args": {}}
    ev = [x(701, 100, 1000.0, 200.0, "PjitFunction(step)"), x(1, 14, 1010.0, 20.0, "gemm_a"),
          x(1, 14, 1040.0, 10.0, "loop_add_fusion"), x(1, 15, 1005.0, 4.0, "MemcpyH2D"),
          x(1, 90001, 1010.0, 40.0, "jit_step"), x(1, 90002, 1010.0, 20.0, "dot.1"), x(1, 90002, 1040.0, 10.0, "add"),
          x(2, 14, 1020.0, 25.0, "gemm_a"),
          _m(1, "/device:GPU:0"), _m(2, "/device:GPU:1"), _m(1, "Stream #14(compute)", 14),
          _m(1, "Stream #15(MemcpyH2D)", 15), _m(1, "XLA Modules", 90001), _m(1, "XLA Ops", 90002),
          _m(2, "Stream #14(compute)", 14), _m(701, "/host:CPU"), {}]
    src = _run({"displayTimeUnit": "ns", "traceEvents": ev}, tmp_path)
    sm = src["summary"]
    hot = {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}
    assert hot == {"gemm_a": (2, 45_000), "loop_add_fusion": (1, 10_000)}
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["memcpy_count"]) == (3, 59_000, 45_000, 1)
    assert abs(sm["gpu_busy_pct"] - 100 * 59 / 70) < 1e-9 and sm["exposed_memcpy_ns"] == 4_000


def test_catless_events_on_host_and_on_a_gpu_stream_are_not_gpu_work(tmp_path):
    """dataloader_wait (0.5 + 900 µs, host) first and log_metrics (2000 + 300 µs) on GPU 1's stream-3 pid/tid, both
    without ``cat``: not GPU work. Kernels gemm_kernel [1010,1020] GPU 0, gemm_kernel2 [1012,1018] GPU 1: busy
    10 + 6 = 16 µs; wall GPU span 1010 → 1020 = 10 µs (not stretched to 2300)."""
    ev = [{"ph": "X", "name": "dataloader_wait", "pid": 70, "tid": 71, "ts": 0.5, "dur": 900},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": 1000, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": "stream 7", "ts": 1010, "dur": 10,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm_kernel2", "pid": 1, "tid": "stream 3", "ts": 1012, "dur": 6,
           "args": {"device": 1, "stream": 3}},
          {"ph": "X", "name": "log_metrics", "pid": 1, "tid": "stream 3", "ts": 2000, "dur": 300}]
    src = _run({"schemaVersion": 1, "traceEvents": ev}, tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["kernel_time_ns"]) == (2, 16_000, 10_000, 16_000)
    assert {r["name"] for r in src["analyses"]["hotspots"]["table"]} == {"gemm_kernel", "gemm_kernel2"}
