"""Class 5 of issue 13: events without a category, and Chrome traces that are not Kineto.

Every input is written inline; expected values are read off the events written here (µs → ns by × 1000).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.collectors.kineto import KinetoCollector
from gpulens.errors import TraceFormatError
from tests.conftest import SHARED

CASES = SHARED.parent / "cases"

LAUNCH = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": 10,
          "dur": 4, "args": {"correlation": 1}}
KERNEL = {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 20, "dur": 10,
          "args": {"device": 0, "stream": 7, "correlation": 1}}
HOST = {"ph": "X", "name": "dataloader_wait", "pid": 4242, "tid": 4243, "ts": 5, "dur": 500}


def write(tmp_path: Path, events: list, name: str = "t.json", **top) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps({"traceEvents": events, **top}))
    return p


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_event_without_category_is_never_gpu_work_in_any_order(tmp_path, order):
    # one 10 µs kernel; the 500 µs cat-less host event must stay host-side whatever precedes it
    events = [[LAUNCH, KERNEL, HOST][i] for i in order]
    tl = collect(write(tmp_path, events))
    gpu = tl.gpu_events()
    assert list(gpu["name"]) == ["gemm_kernel"]
    assert int(gpu["dur_ns"].sum()) == 10_000
    host = tl.events[tl.events["name"] == "dataloader_wait"]
    assert list(host["kind"]) == ["other"] and list(host["device_id"]) == [-1]


@pytest.mark.parametrize("cat", [None, "", 7])
def test_null_empty_or_non_text_category_is_other(tmp_path, cat):
    # the kernel comes right before the odd event, so "the category decoded last" would be `kernel`
    odd = dict(HOST, cat=cat)
    tl = collect(write(tmp_path, [LAUNCH, KERNEL, odd]))
    assert tl.events.set_index("name").loc["dataloader_wait", "kind"] == "other"
    assert len(tl.gpu_events()) == 1


def test_category_missing_across_stream_pieces(tmp_path):
    # many pieces (tiny chunk size): a cat-less event at the start of a piece follows kernels of the previous one
    events = []
    for i in range(40):
        events.append(dict(KERNEL, ts=1000 + 20 * i, args={"device": 0, "stream": 7, "correlation": i}))
        events.append(dict(HOST, ts=1000 + 20 * i, dur=5, name=f"host_{i}"))
    p = write(tmp_path, events)
    tl = KinetoCollector().collect(p, chunk_bytes=300)
    assert len(tl.gpu_events()) == 40  # exactly the 40 kernels written
    assert (tl.events[tl.events["name"].str.startswith("host_")]["kind"] == "other").all()


def test_event_without_name_gets_a_placeholder(tmp_path):
    nameless = {k: v for k, v in KERNEL.items() if k != "name"}
    tl = collect(write(tmp_path, [LAUNCH, nameless]))
    assert list(tl.gpu_events()["name"]) == ["(unnamed)"]


def xla_trace(device: str = "/device:GPU:0") -> list:
    """A JAX/XLA profiler trace shaped like TensorFlow's trace_events_to_json output."""
    return [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": device}},
        {"ph": "M", "pid": 1, "tid": 3, "name": "thread_name", "args": {"name": "Stream #3(compute)"}},
        {"ph": "M", "pid": 1, "tid": 900, "name": "thread_name", "args": {"name": "XLA Ops"}},
        {"ph": "M", "pid": 9, "name": "process_name", "args": {"name": "/host:CPU"}},
        {"ph": "X", "pid": 9, "tid": 1, "ts": 100, "dur": 50, "name": "PjitFunction(f)"},
        {"ph": "X", "pid": 1, "tid": 900, "ts": 110, "dur": 30, "name": "dot.1"},  # range over the kernel
        {"ph": "X", "pid": 1, "tid": 3, "ts": 110, "dur": 30, "name": "gemm_fusion",
         "args": {"kernel_details": "regs:96 static_shared:1024 dynamic_shared:0 grid:16,4,1 block:128,1,1"}},
        {"ph": "X", "pid": 1, "tid": 3, "ts": 141, "dur": 4, "name": "MemcpyD2H", "args": {"bytes": 4096}},
        {},
    ]


def test_xla_gpu_trace_is_read_by_its_dialect(tmp_path):
    tl = collect(write(tmp_path, xla_trace()))
    gpu = tl.gpu_events().set_index("name")
    # the two activities of stream 3: a 30 µs kernel and a 4 µs device-to-host copy
    assert sorted(gpu.index) == ["MemcpyD2H", "gemm_fusion"]
    assert gpu.loc["gemm_fusion", "kind"] == "kernel" and gpu.loc["gemm_fusion", "dur_ns"] == 30_000
    assert gpu.loc["MemcpyD2H", "kind"] == "memcpy" and gpu.loc["MemcpyD2H", "copy_kind"] == "DtoH"
    assert set(gpu["stream_id"]) == {3} and set(gpu["device_id"]) == {0}
    g = gpu.loc["gemm_fusion"]  # launch configuration from XLA's kernel_details text
    assert (g["grid_x"], g["grid_y"], g["block_x"], g["regs_per_thread"], g["smem_static_bytes"]) == \
        (16, 4, 128, 96, 1024)
    ev = tl.events.set_index("name")
    assert ev.loc["dot.1", "kind"] == "annotation"  # the "XLA Ops" line is not counted twice
    assert ev.loc["PjitFunction(f)", "kind"] == "other"
    assert tl.meta.sources[0]["producer"] == "xla-gpu"


def test_xla_gpu_index_comes_from_the_process_name(tmp_path):
    tl = collect(write(tmp_path, xla_trace("/job:localhost/replica:0/task:0/device:GPU:3")))
    assert set(tl.gpu_events()["device_id"]) == {3}


@pytest.mark.parametrize("events,words", [
    (xla_trace("/device:TPU:0"), ("JAX/XLA", "TPU")),
    ([{"ph": "X", "cat": "devtools.timeline", "name": "RunTask", "pid": 1, "tid": 1, "ts": 1, "dur": 2}],
     ("Chrome browser",)),
    ([{"ph": "X", "cat": "my_tool", "name": "step", "pid": 1, "tid": 1, "ts": 1, "dur": 2}],
     ("not a PyTorch Profiler", "'my_tool'")),
])
def test_other_chrome_producers_are_refused_in_one_line(tmp_path, events, words):
    p = write(tmp_path, events)
    with pytest.raises(TraceFormatError) as exc:
        collect(p)
    msg = str(exc.value)
    assert "\n" not in msg and str(p) in msg
    for w in words:
        assert w in msg


def test_kineto_header_keeps_a_trace_with_unknown_categories(tmp_path):
    # a Kineto trace (schemaVersion) whose only events are of a category gpulens does not know: read, not refused
    p = write(tmp_path, [{"ph": "X", "cat": "mlu_notifier", "name": "x", "pid": 1, "tid": 1, "ts": 1, "dur": 2}],
              schemaVersion=1)
    assert list(collect(p).events["kind"]) == ["other"]


def _case(name: str) -> Path:
    p = CASES / name
    if not p.exists():
        pytest.skip(f"shared case {name} not present")
    return p


def test_case_t11_xla_gpu_ops():
    # README T11: 3 GPU ops of /device:GPU:0 stream 14: 30.25 + 10 + 4.75 µs = 45,000 ns, span 46,250 ns
    s = gpulens.analyze([_case("T11.json")]).sources[0].summary
    assert s["kernel_count"] == 3 and s["kernel_time_ns"] == 45_000 and s["span_ns"] == 46_250


def test_case_t11b_category_less_host_event():
    s = gpulens.analyze([_case("T11b.json")]).sources[0].summary
    assert s["kernel_count"] == 1 and s["kernel_time_ns"] == 10_000
