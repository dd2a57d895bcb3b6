"""Session 46: variants of the shared cases (../shared/cases/README.md) in the formats and producers that carry the
same kind of fault. Every expected figure is worked out by hand in the test's docstring from the input written in the
test (ns unless said).

T11 kind — a Chrome trace from another producer whose GPU work is told apart by its process names, not by Kineto
categories: the TensorFlow 1.x timeline (``tf.python.client.timeline``; every event of category ``Op``; the GPU
tracer's records written twice, to ``/device:GPU:N/stream:all`` and ``/device:GPU:N/stream:S``, copies to ``…/memcpy``
and ``…/stream:S``) was read as "no GPU work" (exit 5).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from gpulens.cli import main


def _analyze(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict | None]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out), *extra])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else None)


def _tf_timeline(procs: list[str], ops: list[tuple[str, float, float, str]]) -> dict:
    """A TensorFlow 1.x timeline: pid = index in ``procs`` (``process_name`` metadata), each op an ``X`` event of
    category ``Op`` named by its op type (``args.name`` the node) on ``(process, ts µs, dur µs, op type)``; plus a
    flow pair and an allocator counter as timeline.py writes them."""
    pid = {n: i for i, n in enumerate(procs)}
    ev = [{"name": "process_name", "ph": "M", "pid": i, "args": {"name": n}} for i, n in enumerate(procs)]
    ev += [{"ph": "X", "cat": "Op", "name": op, "pid": pid[p], "tid": 0, "ts": ts, "dur": dur,
            "args": {"name": f"node/{op}", "op": op}} for p, ts, dur, op in ops]
    ev += [{"ph": "s", "cat": "DataFlow", "name": "edge", "pid": 1, "tid": 0, "ts": 101, "id": 0},
           {"ph": "t", "cat": "DataFlow", "name": "edge", "pid": 3, "tid": 0, "ts": 240, "id": 0},
           {"ph": "C", "cat": "Memory", "name": "GPU_0_bfc", "pid": 0, "ts": 100, "args": {"GPU_0_bfc": 1024}}]
    return {"traceEvents": ev}


def test_t11_tensorflow_timeline_gpu_tracer_streams_are_the_gpu_work(tmp_path):
    """TF ≥ 1.5 device names. GPU 0: stream 14 holds MEMCPYHtoD [200,230] (repeated on …/memcpy) and Conv2D [240,340];
    stream 15 holds Relu [300,320]; …/stream:all repeats Conv2D and Relu. GPU 1: stream 20 MatMul [250,290] (repeated
    on its stream:all). The executor's ops (/job:…/device:GPU:0 Compute Conv2D [100,105], CPU _Recv [90,94]) are host
    events. Kernels: Conv2D 100 µs, MatMul 40 µs, Relu 20 µs → 3 kernels, 160 µs summed. GPU 0 busy = 30 + union(
    [240,340], [300,320]) = 130 µs over its span 200 → 340 = 140 µs; GPU 1 busy 40 of 40 µs. Busy 170 µs; busy % =
    170 / (140 + 40); wall span 200 → 340 = 140 µs; one copy, HtoD, 30 µs exposed (nothing beside it)."""
    job = "/job:localhost/replica:0/task:0/device:GPU:0"
    procs = ["Allocators", f"{job} Compute", f"{job} Tensors", "/device:GPU:0/stream:all Compute",
             "/device:GPU:0/stream:14 Compute", "/device:GPU:0/stream:15 Compute", "/device:GPU:0/memcpy Compute",
             "/device:GPU:1/stream:all Compute", "/device:GPU:1/stream:20 Compute",
             "/job:localhost/replica:0/task:0/device:CPU:0 Compute"]
    ops = [(f"{job} Compute", 100, 5, "Conv2D"), (procs[-1], 90, 4, "_Recv"),
           ("/device:GPU:0/stream:all Compute", 240, 100, "Conv2D"), ("/device:GPU:0/stream:all Compute", 300, 20, "Relu"),
           ("/device:GPU:0/stream:14 Compute", 200, 30, "MEMCPYHtoD"), ("/device:GPU:0/memcpy Compute", 200, 30, "MEMCPYHtoD"),
           ("/device:GPU:0/stream:14 Compute", 240, 100, "Conv2D"), ("/device:GPU:0/stream:15 Compute", 300, 20, "Relu"),
           ("/device:GPU:1/stream:all Compute", 250, 40, "MatMul"), ("/device:GPU:1/stream:20 Compute", 250, 40, "MatMul")]
    p = tmp_path / "timeline.json"
    p.write_text(json.dumps(_tf_timeline(procs, ops)))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    sm = src["summary"]
    assert (sm["kernel_count"], sm["kernel_time_ns"], sm["gpu_busy_ns"], sm["span_ns"]) == (3, 160_000, 170_000, 140_000)
    assert abs(sm["gpu_busy_pct"] - 100 * 170 / 180) < 1e-9
    assert (sm["memcpy_count"], sm["exposed_memcpy_ns"]) == (1, 30_000)
    hot = {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}
    assert hot == {"Conv2D": (1, 100_000), "MatMul": (1, 40_000), "Relu": (1, 20_000)}
    from gpulens.collectors import collect

    ev = collect(p).events
    gpu = ev[ev["kind"].astype(str).isin(["kernel", "memcpy"])]
    assert sorted(zip(gpu["name"].astype(str), gpu["device_id"], gpu["stream_id"])) == [
        ("Conv2D", 0, 14), ("MEMCPYHtoD", 0, 14), ("MatMul", 1, 20), ("Relu", 0, 15)]
    cp = ev[ev["kind"].astype(str) == "memcpy"]
    assert list(cp["copy_kind"].astype(str)) == ["HtoD"]
    assert any("tensorflow-timeline" in w and "not counted twice" in w for w in src["warnings"])


def test_t11_tensorflow_timeline_old_names_and_a_gpu_with_only_stream_all(tmp_path):
    """TF ≤ 1.4 device names (``/gpu:N/…``). GPU 0 has stream 7 (k 'Add' [10,15]) and its stream:all repeat;
    GPU 1 has only ``/gpu:1/stream:all`` (MatMul [12,20]): then that is GPU 1's work (stream unknown), not dropped.
    Kernels 2: 5 + 8 = 13 µs busy; wall span 10 → 20 = 10 µs. Host op (``/job:…/gpu:0 Compute`` Add [1,3]) not
    a kernel."""
    procs = ["Allocators", "/job:localhost/replica:0/task:0/gpu:0 Compute", "/gpu:0/stream:all Compute",
             "/gpu:0/stream:7 Compute", "/gpu:1/stream:all Compute"]
    ops = [(procs[1], 1, 2, "Add"), (procs[2], 10, 5, "Add"), (procs[3], 10, 5, "Add"), (procs[4], 12, 8, "MatMul")]
    p = tmp_path / "timeline.json"
    p.write_text(json.dumps(_tf_timeline(procs, ops)))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (2, 13_000, 10_000)
    from gpulens.collectors import collect

    ev = collect(p).events
    k = ev[ev["kind"].astype(str) == "kernel"].sort_values("start_ns")
    assert list(k["device_id"]) == [0, 1] and k["stream_id"].iloc[0] == 7 and k["stream_id"].isna().iloc[1]


def test_b11_kernels_without_device_on_a_host_thread_track_are_not_gpu_pid(tmp_path):
    """ONNX Runtime's profiler (``enable_profiling`` with CUDA kernels): its ``Kernel`` events record no device and
    carry the pid/tid of the thread that ran the node (pid 5120, tid 5120, beside ``Node`` and ``Session`` events).
    The pid is a process id, not a GPU index: before, the report said "GPU 5120". Expected: kernels on GPU 0 with a
    warning naming pid 5120; conv 25 µs [20010, 20035] + relu 6 µs [20050, 20056] → busy 31 µs over 46 µs of span.
    Control: a Kineto kernel without ``device`` on its own GPU track (pid 3, tid 7) keeps device 3."""
    conv = "void cudnn::cnn::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, true, true>(int)"

    def ort(cat, name, ts, dur, **args):
        return {"cat": cat, "pid": 5120, "tid": 5120, "dur": dur, "ts": ts, "ph": "X", "name": name, "args": args}

    ev = [ort("Session", "model_run", 19990, 80), ort("Node", "Conv_0_kernel_time", 20000, 40, op_name="Conv"),
          ort("Kernel", conv, 20010, 25, stream="7", grid_x="4", block_x="128", op_name="Conv"),
          ort("Node", "Relu_1_kernel_time", 20045, 15, op_name="Relu"),
          ort("Kernel", "relu_kernel", 20050, 6, stream="7", op_name="Relu")]
    p = tmp_path / "onnxruntime_profile__2024-01-01_10-00-00.json"
    p.write_text(json.dumps(ev))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (2, 31_000, 46_000)
    assert any("pid 5120" in w and "read as GPU 0" in w for w in src["warnings"])
    from gpulens.collectors import collect

    k = collect(p).events
    assert sorted(k.loc[k["kind"].astype(str) == "kernel", "device_id"].tolist()) == [0, 0]
    kin = {"traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": 5, "dur": 2,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 3, "tid": 7, "ts": 10, "dur": 4,
         "args": {"stream": 7, "correlation": 1}}]}
    q = tmp_path / "kineto.json"
    q.write_text(json.dumps(kin))
    e = collect(q).events
    assert e.loc[e["kind"].astype(str) == "kernel", "device_id"].tolist() == [3]


def _paddle_event(name: str, cat: str, pid: int, tid, ts_us: float, dur_us: float, args: str) -> str:
    """One event as PaddlePaddle's chrometracing_logger.cc prints it: ``"name": "%s[%s]"`` with the duration shown in
    µs (ms above 1 ms, 3 decimals), ``ts`` truncated to whole µs, ``dur`` with 3 decimals."""
    shown = f"{dur_us / 1000:.3f} ms" if dur_us > 1000 else f"{dur_us:.3f} us"
    return (f'{{ "name": "{name}[{shown}]", "pid": {pid}, "tid": {tid}, "ts": {int(ts_us)}, "dur": {dur_us:.3f}, '
            f'"ph": "X", "cat": "{cat}", "args": {{ {args} }} }}')


def test_t11_paddle_profiler_names_carry_their_duration(tmp_path):
    """A PaddlePaddle profiler trace (``pid_…_time_….paddle_trace.json``): every event name ends with its duration,
    so the two calls of volta_sgemm_128x64_nn (30.7 µs at ts 20, 30.2 µs at ts 51) were two 'kernels'. Expected:
    volta_sgemm_128x64_nn 2 calls, 30.7 + 30.2 = 60.9 µs; relu_kernel 1 call 5.25 µs; 3 kernels, 66.15 µs summed,
    and a warning that the names were stripped. Control: a Kineto trace where one of two names ends like that keeps
    its names."""
    k = '"device": 0, "context": 1, "stream": 7, "correlation id": {}, "grid": [80, 1, 1], "block": [256, 1, 1]'
    ev = [_paddle_event("matmul dygraph", "Operator", 4242, '"11(C++)"', 5, 60.0, '"start_time": "5.000 us"'),
          _paddle_event("cudaLaunchKernel", "CudaRuntime", 4242, '"11(C++)"', 10, 4.5, '"correlation id": 1'),
          _paddle_event("volta_sgemm_128x64_nn", "Kernel", 0, 7, 20.4, 30.7, k.format(1)),
          _paddle_event("volta_sgemm_128x64_nn", "Kernel", 0, 7, 51.3, 30.2, k.format(2)),
          _paddle_event("relu_kernel", "Kernel", 0, 7, 83.6, 5.25, k.format(3))]
    text = ('{ "schemaVersion": "1.0.1", "displayTimeUnit": "ms", "span_indx": "0",\n "traceEvents": [\n'
            + ",\n".join(ev) + ',\n  {}\n  ],\n  "ExtraInfo": {"11": "MainThread"}\n  }\n')
    p = tmp_path / "pid_4242_time_2024_01_01.paddle_trace.json"
    p.write_text(text)
    code, src = _analyze(p, tmp_path)
    assert code == 0
    hot = {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}
    assert hot == {"volta_sgemm_128x64_nn": (2, 60_900), "relu_kernel": (1, 5_250)}
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (3, 66_150)
    assert any("PaddlePaddle" in w for w in src["warnings"])
    ln = src["analyses"]["launches"]["summary"]  # the one CudaRuntime call launched kernel 1 ("correlation id": 1)
    assert ln["launch_calls"] == 1 and ln["launch_calls_without_gpu_work"] == 0 and ln["kernels_linked"] == 1
    kin = {"traceEvents": [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": t, "dur": 1,
                            "args": {"device": 0, "stream": 7}} for n, t in (("k[1.000 us]", 10), ("gemm", 20))]}
    q = tmp_path / "kineto.json"
    q.write_text(json.dumps(kin))
    code, src = _analyze(q, tmp_path)
    assert {r["name"] for r in src["analyses"]["hotspots"]["table"]} == {"k[1.000 us]", "gemm"}
    assert not any("PaddlePaddle" in w for w in src["warnings"])


def test_t11_xla_xspace_protobuf_is_named_with_what_to_analyse(tmp_path, capsys):
    """The T11 producer's other output: ``jax.profiler.trace`` / ``tf.profiler.experimental`` write
    ``plugins/profile/<run>/<host>.xplane.pb`` (protobuf). Expected: exit 2 with one line naming the file as an
    XSpace and the trace-events JSON to analyse, not the generic "not a recognised trace format"."""
    p = tmp_path / "host0.xplane.pb"
    p.write_bytes(b"\x0a\x10\x08\x01\x12\x0c/host:CPU\x1a\x00\x22\x05XLine")
    code, _ = _analyze(p, tmp_path)
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and str(p) in err
    assert "XSpace" in err and "perfetto_trace.json.gz" in err and "not a recognised" not in err


def test_t06_xla_and_tensorflow_traces_without_gpu_activity_are_incomplete(tmp_path):
    """T06 kind in the T11 producers: GPU devices named, no GPU activity (the GPU tracer failed: CUPTI not loaded or
    not permitted). (a) A TensorFlow 1.x timeline with only the executor processes (/job:…/device:GPU:0 Compute: a
    MatMul op) and no /stream:S process; (b) a JAX/XLA trace whose /device:GPU:0 process has its Stream #14 thread
    but no event on it. Expected: 0 kernels and the capture said incomplete (naming the GPU device), never a bare
    "no GPU work"."""
    job = "/job:localhost/replica:0/task:0/device:GPU:0"
    p = tmp_path / "timeline.json"
    p.write_text(json.dumps(_tf_timeline(["Allocators", f"{job} Compute", f"{job} Tensors"],
                                         [(f"{job} Compute", 100, 5, "MatMul")])))
    xla = tmp_path / "perfetto_trace.json"
    xla.write_text(json.dumps({"displayTimeUnit": "ns", "traceEvents": [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
        {"ph": "M", "pid": 1, "tid": 14, "name": "thread_name", "args": {"name": "Stream #14(compute)"}},
        {"ph": "M", "pid": 701, "name": "process_name", "args": {"name": "/host:CPU"}},
        {"ph": "X", "pid": 701, "tid": 100, "ts": 1000.0, "dur": 80.0, "name": "PjitFunction(matmul)"}]}))
    for path, device in ((p, f"{job} Compute"), (xla, "/device:GPU:0")):
        code, src = _analyze(path, tmp_path)
        assert code == 5 and src["summary"]["kernel_count"] == 0
        note = " ".join(str(i.get("incomplete_capture") or "") for i in src["inputs"])
        assert device in note and "no GPU activity" in note


def test_b11_onnxruntime_profile_without_kernels_is_named(tmp_path, capsys):
    """An ONNX Runtime profile without CUDA profiling: Session and Node events only. Expected: exit 2, one line naming
    ONNX Runtime and why no kernel is there — not "unknown producer"."""
    ev = [{"cat": "Session", "pid": 7, "tid": 7, "dur": 80, "ts": 10, "ph": "X", "name": "model_run", "args": {}},
          {"cat": "Node", "pid": 7, "tid": 7, "dur": 40, "ts": 20, "ph": "X", "name": "Conv_0_kernel_time",
           "args": {"op_name": "Conv", "provider": "CUDAExecutionProvider"}}]
    p = tmp_path / "onnxruntime_profile__2024.json"
    p.write_text(json.dumps(ev))
    code, _ = _analyze(p, tmp_path)
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "ONNX Runtime" in err and "unknown producer" not in err


def _union_ns(iv: list[tuple[int, int]]) -> int:
    """Length of the union of [start, end) intervals (by hand: sorted sweep)."""
    total, end = 0, None
    for a, b in sorted(iv):
        if end is None or a > end:
            total, end = total + (b - a), b
        elif b > end:
            total, end = total + (b - end), b
    return total


@pytest.mark.parametrize("seed", range(4))
def test_t11_tensorflow_timeline_random_variants(tmp_path, seed):
    """Random TensorFlow 1.x timelines: 1–3 GPUs × 1–3 streams of serial ops (µs), copies (MEMCPYHtoD/DtoH) among
    them written to …/memcpy too, kernels to …/stream:all too, old (``/gpu:N``) or new (``/device:GPU:N``) names,
    events in random order; odd seeds as TF 2.0/2.1's trace-viewer export (no ``cat``, no `` Compute`` suffix). Expected from the generated values: kernels = the stream ops not copies, copies counted
    once, busy = Σ over GPUs of the union of its stream intervals, span = last end − first start."""
    rng = random.Random(seed)
    prefix = rng.choice(["/gpu:{}", "/device:GPU:{}"])
    procs, ops, per_gpu, kernels, copies = ["Allocators"], [], {}, 0, 0
    for g in range(rng.randint(1, 3)):
        dev = prefix.format(g)
        procs += [f"{dev}/stream:all Compute", f"{dev}/memcpy Compute"]
        for s in rng.sample(range(7, 40), rng.randint(1, 3)):
            procs.append(f"{dev}/stream:{s} Compute")
            t = rng.randint(100, 400)
            for _ in range(rng.randint(1, 4)):
                dur = rng.randint(1, 60)
                copy = rng.random() < 0.3
                name = rng.choice(["MEMCPYHtoD", "MEMCPYDtoH"]) if copy else rng.choice(["MatMul", "Relu", "Conv2D"])
                ops.append((f"{dev}/stream:{s} Compute", t, dur, name))
                ops.append((f"{dev}/memcpy Compute" if copy else f"{dev}/stream:all Compute", t, dur, name))
                per_gpu.setdefault(g, []).append((t * 1000, (t + dur) * 1000))
                copies, kernels = copies + copy, kernels + (not copy)
                t += dur + rng.randint(0, 30)
    rng.shuffle(ops)
    doc = _tf_timeline(procs, ops)
    if seed % 2:  # TF 2.0/2.1 trace-viewer export of the same step stats: no category, no " Compute" suffix
        for e in doc["traceEvents"]:
            if e["ph"] == "X":
                del e["cat"]
            elif e["ph"] == "M":
                e["args"]["name"] = e["args"]["name"].removesuffix(" Compute")
    p = tmp_path / "timeline.json"
    p.write_text(json.dumps(doc))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    sm = src["summary"]
    allv = [x for v in per_gpu.values() for x in v]
    assert (sm["kernel_count"], sm["memcpy_count"]) == (kernels, copies)
    assert sm["gpu_busy_ns"] == sum(_union_ns(v) for v in per_gpu.values())
    assert sm["span_ns"] == max(b for _, b in allv) - min(a for a, _ in allv)


def test_t06_xla_trace_with_host_processes_only_says_the_gpu_tracer_may_have_failed(tmp_path, capsys):
    """A JAX trace whose GPU tracer failed entirely has /host:CPU processes only. Expected: exit 2, one line naming
    the file, that no GPU device is recorded and that the GPU tracer may have recorded nothing."""
    p = tmp_path / "perfetto_trace.json"
    p.write_text(json.dumps({"traceEvents": [
        {"ph": "M", "pid": 701, "name": "process_name", "args": {"name": "/host:CPU"}},
        {"ph": "X", "pid": 701, "tid": 100, "ts": 1000.0, "dur": 80.0, "name": "PjitFunction(matmul)"}]}))
    code, _ = _analyze(p, tmp_path)
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and str(p) in err
    assert "no GPU device" in err and "GPU tracer recorded nothing" in err


def test_t06_paddle_profiler_trace_with_launches_and_no_kernel_is_incomplete(tmp_path):
    """T06 kind in a PaddlePaddle trace: two cudaLaunchKernel calls (CudaRuntime) and no Kernel event (GPU tracing
    off). Expected: 0 kernels and an incomplete capture counting the 2 launch calls, not a bare "no GPU work"."""
    ev = [_paddle_event("cudaLaunchKernel", "CudaRuntime", 4242, '"11(C++)"', 10 + 10 * i, 4.5,
                        f'"correlation id": {i + 1}') for i in range(2)]
    p = tmp_path / "pid_4242_time_2024_01_01.paddle_trace.json"
    p.write_text('{ "schemaVersion": "1.0.1", "displayTimeUnit": "ms", "span_indx": "0",\n "traceEvents": [\n'
                 + ",\n".join(ev) + ',\n  {}\n  ]\n  }\n')
    code, src = _analyze(p, tmp_path)
    assert code == 5 and src["summary"]["kernel_count"] == 0
    note = " ".join(str(i.get("incomplete_capture") or "") for i in src["inputs"])
    assert "2 launch calls" in note and "no GPU record" in note
