"""Session 48 — PaddlePaddle profiler traces read as its writer prints them.

PaddlePaddle's ``paddle/fluid/platform/profiler/chrometracing_logger.cc`` (Apache-2.0) prints each ``X`` event with
``"ts": %lld`` = the start **cut** to whole µs (``nsToUs``) and ``"args": {"start_time": "%.3f us", ...}`` = the start
in µs with 3 decimals relative to the trace's earliest host event (``nsToUsFloat(StartNs, start_time_)``); its
``deviceProperties`` print ``"totalGlobalMem": %u`` (a 64-bit ``size_t`` through a 32-bit format: the size modulo
2^32) and the SM count as ``"smCount"``.

1. Kind: event starts known to the ns in the file, read cut to whole µs. Two kernels 0.98 µs apart on one stream got
   the same start: a false overlap that the stream repair clipped (busy time wrong, a kernel shown 0 ns). Now each
   start is placed by ``args.start_time`` (:mod:`gpulens.collectors._paddle_times`).
2. Kind: a device figure recorded in a truncated form, read as the figure. A Paddle record's ``totalGlobalMem`` is
   the memory size modulo 2^32 (0 for 16/32/80 GiB parts, 3.2 GB for an 80 GB H100) — now unknown, with a warning;
   its ``smCount`` is the SM count (was not read).
3. Kind: a copy direction in a producer's own spelling, not read. Paddle's CUPTI tracer names copies
   ``MEMCPY_HtoD`` / ``MEMCPY_DtoH`` … (``MemcpyKind`` in paddle/fluid/platform/profiler/cuda_tracer.cc): the copy's
   direction was unknown (copies table "unknown" kind). Now read as HtoD / DtoH.

Every expected figure below is computed from the absolute ns times the test chooses, not from gpulens.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.collectors._paddle_times import exact_starts, rel_start_ns

#: the trace's earliest host event (Paddle's start_time_), absolute ns: 456 ns into its µs
S = 1_700_000_000_000_123_456


def _x(name: str, cat: str, pid: int, tid: str, start_ns: int, dur_ns: int, args: str) -> str:
    """One ``X`` event with chrometracing_logger.cc's 1.0.1 template (the name suffixed with its duration in ms)."""
    rel = start_ns - S
    return (f'\n  {{ \n    "name": "{name}[{dur_ns / 1e6:.3f} ms]", "pid": {pid}, "tid": {tid},\n'
            f'    "ts": {start_ns // 1000}, "dur": {dur_ns / 1000:.3f},\n    "ph": "X", "cat": "{cat}", \n'
            f'    "cname": "thread_state_runnable",\n    "args": {{\n      "start_time": "{rel / 1000:.3f} us",\n'
            f'      "end_time": "{(rel + dur_ns) / 1000:.3f} us"{args}\n    }}\n  }},\n  ')


def _trace(path: Path, kernels: list[tuple[str, int, int]], mem: int = 34359738368 % (1 << 32)) -> Path:
    """A 1.0.1 trace: one host op at S (20 µs), one launch call per kernel, the kernels on device 0, stream 7."""
    out = [_x("matmul dygraph", "Operator", 4242, '"11(C++)"', S, 20_000, "")]
    for i, (name, start, dur) in enumerate(kernels, 1):
        out.append(_x("cudaLaunchKernel", "CudaRuntime", 4242, '"11(C++)"', S + 1_000 * i, 500,
                      f',\n      "correlation id": {i}'))
        out.append(_x(name, "Kernel", 0, "7", start, dur,
                      f',\n      "device": 0, "context": 1,\n      "stream": 7, "correlation id": {i},\n'
                      '      "registers per thread": 64,\n      "shared memory": 0,\n      "grid": [80, 1, 1],\n'
                      '      "block": [256, 1, 1]'))
    head = ('\n  { \n    "schemaVersion": "1.0.1",\n    "displayTimeUnit": "ms",\n    "span_indx": "0",\n  '
            '\n    "deviceProperties": [\n  \n    {\n       "id": 0, "name": "Tesla V100-SXM2-32GB", '
            f'"totalGlobalMem": {mem},\n      "computeMajor": 7, "computeMinor": 0,\n'
            '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
            '      "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,\n'
            '      "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 98304,\n'
            '      "smCount": 80, "sharedMemPerBlockOptin": 98304\n    }],\n  \n    "traceEvents": [\n  ')
    path.write_text(head + "".join(out) + "\n  {}\n  ],\n  \n  \"ExtraInfo\": {\n     \"11\": \"MainThread\"\n   \n  }}")
    return path


def _analyze(path: Path, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)])
    return code, json.loads(out.read_text())["sources"][0]


#: k1 starts 10 ns into a µs and runs 900 ns; k2 starts 990 ns into the same µs (80 ns after k1 ends), 2 µs long
K1, K2 = S - 456 + 11_000 + 10, S - 456 + 11_000 + 990
KERNELS = [("volta_sgemm_128x64_nn", K1, 900), ("relu_kernel", K2, 2_000)]


def test_paddle_starts_to_the_ns_no_false_overlap(tmp_path):
    """By ``ts`` alone both kernels start at the same whole µs: k1 [0, 900], k2 [0, 2000] ns — an overlap, k1 clipped
    to 0 ns and busy 2,000 ns. Exact: busy 900 + 2,000 = 2,900 ns, the GPU span K2 + 2,000 − K1 = 2,980 ns, no
    event flagged as overrunning, and k2 starts 980 ns after k1. The placed clock is within 1 µs of the true one."""
    p = _trace(tmp_path / "pid_4242_time_2024_01_01_00_00_00_000000.paddle_trace.json", KERNELS)
    ev = collect(p).events
    k = ev[ev["kind"].astype(str) == "kernel"].sort_values("start_ns")
    starts = k["start_ns"].tolist()
    assert starts[1] - starts[0] == K2 - K1 == 980
    assert 0 <= K1 - starts[0] < 1000
    assert k["dur_ns"].tolist() == [900, 2_000]
    code, src = _analyze(p, tmp_path)
    assert code == 0
    s = src["summary"]
    assert (s["kernel_count"], s["kernel_busy_ns"], s["span_ns"]) == (2, 2_900, 2_980)
    assert s["kernel_effective_ns"] == 2_900  # nothing clipped by the stream repair
    # every event of the trace (1 host op, 2 launch calls, 2 kernels) is placed by its start_time
    assert any("PaddlePaddle" in w and "the start of 5 events is read from args.start_time" in w
               for w in src["warnings"])


def test_paddle_start_args_that_do_not_fit_ts_are_not_used(tmp_path):
    """Control: a ``start_time`` that contradicts ``ts`` by more than a µs (hand-edited, or another producer's arg of
    that name) leaves every start at ``ts`` (µs × 1000) and the warning says starts are whole µs."""
    p = _trace(tmp_path / "pid_4242_time_x.paddle_trace.json", KERNELS)
    text = p.read_text().replace('"start_time": "0.000 us"', '"start_time": "7.000 us"')
    p.write_text(text)
    ev = collect(p).events
    assert (ev["start_ns"] % 1000 == 0).all()
    code, src = _analyze(p, tmp_path)
    assert code == 0 and any("whole µs" in w for w in src["warnings"])


def test_exact_starts_rule_by_hand():
    """The rule on three rows: origin 5,000,123 ns (unknown to the reader); rows at +0, +1,950 and +20,000,001 ns
    (the last beyond float32's exact range: Paddle prints 20000.000 µs). ``ts`` cut: 5,000,000 / 5,002,000 /
    25,000,000 ns. Expected: the first two exact relative to each other (1,950 ns apart), the third within 2 ns of
    its true place and inside its own µs."""
    origin = 5_000_123
    true = np.array([origin, origin + 1_950, origin + 20_000_001], dtype=np.int64)
    start = true // 1000 * 1000
    got = rel_start_ns(["0.000 us", "1.950 us", "20000.000 us"])
    assert got is not None and got[1].tolist() == [0, 1_950, 20_000_000]
    assert exact_starts(start, [got]) == 3
    assert start[1] - start[0] == 1_950
    assert abs((start[2] - start[0]) - 20_000_001) <= 2
    assert ((start >= true // 1000 * 1000) & (start <= true // 1000 * 1000 + 999)).all()
    assert rel_start_ns([None, 3, "1.5 ms"]) is None


def test_paddle_device_memory_modulo_2_32_is_unknown(tmp_path):
    """``"totalGlobalMem": %u`` of a 32 GiB V100 prints 34,359,738,368 mod 2^32 = 0; of an 80 GB H100
    (85,029,158,912 B) 3,424,780,288. Neither is the memory: the device's memory is unknown, a warning says why,
    and ``smCount`` 80 is read as the SM count."""
    h100 = 85_029_158_912
    assert h100 % (1 << 32) == 3_424_780_288
    p = _trace(tmp_path / "pid_4242_time_y.paddle_trace.json", KERNELS, mem=h100 % (1 << 32))
    tl = collect(p)
    dev = [d for d in tl.meta.devices if d.get("device_id") == 0][0]
    assert dev.get("total_memory_bytes") is None
    assert dev.get("num_sms") == 80
    assert any("totalGlobalMem" in w and "2^32" in w for w in tl.meta.warnings)


def test_paddle_copy_directions_and_versioned_api_names(tmp_path):
    """A 4,096 B ``MEMCPY_HtoD`` of 4 µs and a 2,048 B ``MEMCPY_DtoH`` of 2 µs, each launched by a call named as
    Paddle's tracer names runtime calls (the CUPTI callback id: ``cudaMemcpyAsync_v3020``), and one kernel launched by
    ``cudaLaunchKernel_v7000``. Expected: copies HtoD 1 × 4,096 B / 4,000 ns and DtoH 1 × 2,048 B / 2,000 ns; every GPU
    record linked to its call."""
    t0 = S
    rt = '"11(C++)"'
    ev = [_x("matmul dygraph", "Operator", 4242, rt, t0, 40_000, ""),
          _x("cudaMemcpyAsync_v3020", "CudaRuntime", 4242, rt, t0 + 1_000, 500, ',\n      "correlation id": 1'),
          _x("MEMCPY_HtoD", "Memcpy", 0, "7", t0 + 3_000, 4_000,
             ',\n      "stream": 7, "correlation id": 1,\n      "bytes": 4096, "memory bandwidth (GB/s)": 1.024'),
          _x("cudaLaunchKernel_v7000", "CudaRuntime", 4242, rt, t0 + 2_000, 500, ',\n      "correlation id": 2'),
          _x("relu_kernel", "Kernel", 0, "7", t0 + 8_000, 3_000,
             ',\n      "device": 0, "context": 1,\n      "stream": 7, "correlation id": 2'),
          _x("cudaMemcpyAsync_v3020", "CudaRuntime", 4242, rt, t0 + 9_000, 500, ',\n      "correlation id": 3'),
          _x("MEMCPY_DtoH", "Memcpy", 0, "7", t0 + 12_000, 2_000,
             ',\n      "stream": 7, "correlation id": 3,\n      "bytes": 2048, "memory bandwidth (GB/s)": 1.024')]
    p = tmp_path / "pid_4242_time_z.paddle_trace.json"
    p.write_text('\n  { \n    "schemaVersion": "1.0.1",\n    "displayTimeUnit": "ms",\n    "span_indx": "0",\n  '
                 '\n    "traceEvents": [\n  ' + "".join(ev) + "\n  {}\n  ]\n  }")
    code, src = _analyze(p, tmp_path)
    assert code == 0
    rows = {r["copy_kind"]: (r["count"], r["bytes"], r["time_ns"]) for r in src["analyses"]["copies"]["table"]}
    assert rows == {"HtoD": (1, 4_096, 4_000), "DtoH": (1, 2_048, 2_000)}
    ln = src["analyses"]["launches"]["summary"]
    assert (ln["kernels"], ln["kernels_linked"]) == (1, 1)
