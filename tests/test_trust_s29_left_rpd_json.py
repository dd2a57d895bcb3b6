"""rocmProfileData's rpd2tracing Chrome trace (a JSON converted from an RPD database) is read, not refused.

The file below is written exactly as ROCm/rocmProfileData ``tools/rpd2tracing.py`` writes one: ``{"traceEvents": [
{}`` then one event a line with a leading comma; pids, tids, ``ts`` and ``dur`` as JSON strings (µs); GPU ops on pid
``gpuId`` (process_name ``GPU<gpuId>``) and tid ``queueId`` with ``args.desc`` = op type; HIP calls on the process's
pid; ``UserMarker`` ranges with their text as name and desc; ``UserMarker frame`` ranges on the GPU queues; ``api_op``
flow events and ``QueueDepth`` counters. Expected values are the hand sums of the durations written here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.collectors import collect


def _x(pid, tid, name, ts, dur, desc):
    return json.dumps({"pid": str(pid), "tid": str(tid), "name": name, "ts": str(ts), "dur": str(dur), "ph": "X",
                       "args": {"desc": desc}})


def write_rpd2tracing(path: Path) -> None:
    """An rpd2tracing output: GPU 0 queue 1 runs a 20.25 µs GEMM and a 4 µs fill, queue 2 a 5 µs HtoD copy; GPU 1
    queue 3 runs a 10 µs kernel; a barrier packet (op type ``BarrierAnd``) on GPU 1; a UserMarker frame over the
    GEMM on GPU 0 queue 1; host pid 4242 makes 3 HIP calls and one roctx range."""
    lines = ['{"traceEvents": [ {}',
             ',{"name": "process_name", "ph": "M", "pid":"0","args":{"name":"GPU0"}}',
             ',{"name": "process_sort_index", "ph": "M", "pid":"0","args":{"sort_index":"1000000"}}',
             ',{"name": "process_name", "ph": "M", "pid":"1","args":{"name":"GPU1"}}',
             ',{"name":"thread_name","ph":"M","pid":"4242","tid":"4243","args":{"name":"Hip 4243"}}',
             "," + _x(0, 1, "Cijk_Alik_Bljk_gemm", 1000.5, 20.25, "KernelExecution"),
             "," + _x(0, 1, "FillBuffer", 1021.0, 4.0, "FillBuffer"),
             "," + _x(0, 2, "CopyHostToDevice", 990.0, 5.0, "CopyHostToDevice"),
             "," + _x(1, 3, "elementwise_kernel", 1030.0, 10.0, "KernelExecution"),
             "," + _x(1, 3, "BarrierAnd", 1041.0, 1.0, "BarrierAnd"),
             "," + _x(4242, 4243, "hipLaunchKernel", 995.0, 3.0, "stream=0x1 kernel=Cijk"),
             "," + _x(4242, 4243, "hipLaunchKernel", 1025.0, 3.0, "stream=0x2"),
             "," + _x(4242, 4243, "hipMemcpyAsync", 985.0, 4.0, "dst=0x1 size=4096"),
             "," + _x(4242, 4243, "forward", 980.0, 70.0, "forward"),
             ',{"pid":"4242","tid":"4243","cat":"api_op","name":"api_op","ts":"996.0","id":"1","ph":"s"}',
             ',{"pid":"0","tid":"1","cat":"api_op","name":"api_op","ts":"1000.5","id":"1","ph":"f", "bp":"e"}',
             "," + _x(0, 1, "forward", 999.5, 21.25, "UserMarker frame: 1 ops"),
             ',{"pid":"0","name":"QueueDepth","ph":"C","ts":995.0,"args":{"depth":1}}',
             "]", "} "]
    path.write_text("\n".join(lines) + "\n")


def test_rpd2tracing_is_read_with_kernels_on_their_gpu_and_queue(tmp_path):
    p = tmp_path / "trace.json"
    write_rpd2tracing(p)
    tl = collect(p)
    ev = tl.events
    k = ev[ev["kind"] == "kernel"].sort_values("start_ns")
    assert list(k["name"].astype(str)) == ["Cijk_Alik_Bljk_gemm", "elementwise_kernel"]
    assert list(k["device_id"]) == [0, 1]  # pid "0" → GPU0, pid "1" → GPU1
    assert list(k["stream_id"]) == [1, 3]  # tid = queueId
    assert list(k["dur_ns"]) == [20250, 10000]  # "20.25" µs, "10.0" µs
    assert list(k["start_ns"]) == [1_000_500, 1_030_000]
    cp = ev[ev["kind"] == "memcpy"]
    assert len(cp) == 1 and cp["copy_kind"].astype(str).iloc[0] == "HtoD" and int(cp["device_id"].iloc[0]) == 0
    assert int((ev["kind"] == "memset").sum()) == 1
    # the UserMarker frame over the GEMM is a range, never a second kernel; the host roctx range too
    ann = ev[ev["kind"] == "annotation"]
    assert sorted(ann["device_id"].tolist()) == [-1, 0]
    rt = ev[ev["kind"] == "runtime"]
    assert sorted(rt["name"].astype(str)) == ["hipLaunchKernel", "hipLaunchKernel", "hipMemcpyAsync"]
    # GPU work summed: kernels 20.25 + 10 µs, fill 4 µs, copy 5 µs; the 1 µs barrier packet is no work
    gpu = ev[ev["kind"].isin(["kernel", "memcpy", "memset"])]
    assert int(gpu["dur_ns"].sum()) == 20250 + 10000 + 4000 + 5000
    # the converter's leading {} is no event: nothing is reported dropped
    assert not tl.meta.dropped
    assert any("rpd2tracing" in w for w in tl.meta.warnings)


def test_rpd2tracing_analyze_cli_reports_the_kernels(tmp_path):
    from typer.testing import CliRunner

    from gpulens.cli import app

    p = tmp_path / "trace.json"
    write_rpd2tracing(p)
    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["analyze", str(p), "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "not a PyTorch Profiler" not in res.output
    assert "PARTIAL" not in res.output


@pytest.mark.parametrize("names", [{"0": "GPU 0"}, {"7": "GPU3"}])
def test_other_gpu_process_names_are_not_taken_for_rpd2tracing(tmp_path, names):
    """Only ``GPU<N>`` naming pid ``N`` is rpd2tracing's: a Kineto-like 'GPU 0' or a mismatched pid stays unknown."""
    ev = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": n}} for pid, n in names.items()]
    ev += [{"pid": pid, "tid": "1", "name": "k", "ts": "1.0", "dur": "2.0", "ph": "X", "args": {"desc": "KernelExecution"}}
           for pid in names]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    from gpulens.errors import TraceFormatError

    with pytest.raises(TraceFormatError, match="not a PyTorch Profiler"):
        collect(p)
