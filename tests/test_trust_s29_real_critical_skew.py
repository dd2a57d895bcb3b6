"""Critical path across a blocking call whose GPU work the trace places after the call returned.

Host and GPU clocks disagree by a microsecond or two (the walk allows 2 µs): in the 2021 TensorBoard-plugin ResNet-50
trace of pytorch/kineto (``tb_plugin/samples/resnet50_autograd_api_num_workers_0``, µs timestamps) a synchronous
``cudaMemcpy`` runs 672–696 µs while its ``Memcpy HtoD`` runs 697–698 µs. The walk entered the copy at the call's
end (696 µs), before the copy's start: a −1 µs memcpy segment, dropped from the class table, so the classes summed
1 µs more than the path (5,295,421,000 vs 5,295,420,000 ns). The segments must tile the window with none negative.

Hand-made Kineto trace; times in µs in the events, ns in the results.
"""

from __future__ import annotations

import json

from gpulens.analyzers import run_all
from gpulens.analyzers._critical_paths import paths
from gpulens.collectors import collect


def _trace(tmp_path):
    ev = [
        # one op on the host thread, 0–40 µs: a kernel launch at 1 µs, then a synchronous copy 10–34 µs
        {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 0, "dur": 40},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
         "args": {"correlation": 6}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 1, "tid": 1, "ts": 10, "dur": 24,
         "args": {"correlation": 7}},
        {"ph": "X", "cat": "kernel", "name": "fill", "pid": 0, "tid": 7, "ts": 2, "dur": 3,
         "args": {"device": 0, "stream": 7, "correlation": 6}},
        # the copy the call waited for, stamped 1 µs after the call's end (35–36 µs): clock skew
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 35,
         "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 7, "bytes": 4}},
    ]
    p = tmp_path / "skew.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return collect(p)


def test_segments_tile_the_window_with_no_negative_length(tmp_path):
    tl = _trace(tmp_path)
    (_, _, length, seg), = paths(tl)
    assert length == 40_000  # the window: first event 0 µs → last end 40 µs (the op)
    ns = seg.cols["ns"]
    assert (ns >= 0).all()
    assert int(ns.sum()) == 40_000
    a = seg.cols["a"]
    assert ((a[:-1] + ns[:-1]) == a[1:]).all()  # each segment ends where the next starts


def test_class_times_add_up_to_the_path(tmp_path):
    r = run_all(_trace(tmp_path))["critical_path"]
    s = r.summary
    assert s["path_ns"] == 40_000
    assert sum(s["class_ns"].values()) == 40_000
    assert int(r.table["time_ns"].sum()) == 40_000
