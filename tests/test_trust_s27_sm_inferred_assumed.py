"""A GPU chosen from an SM count alone is *assumed*, never shown as read from the trace.

A Kineto trace without ``deviceProperties`` (older PyTorch, or a trace filtered by another tool) still carries
Kineto's per-kernel ``blocks per SM`` = grid blocks / SMs, so gpulens infers the SM count (1080 blocks / 10.0 =
108 SMs) and takes the first built-in GPU with that many SMs (an A100 40GB SXM). But 108 SMs name no part: the
A100 80GB SXM (2.04 TB/s against 1.56 TB/s), the A100 PCIe and any GPU missing from the table have as many. Before,
the spec was not marked assumed: the JSON said ``device_spec_assumed: false`` and times at stake computed from the
A100's peaks carried no premise.
"""

from __future__ import annotations

import json

import gpulens
from gpulens.devices import identify


def _trace(tmp_path):
    # one GEMM-like kernel of 1,080 blocks of 128 threads, 'blocks per SM' 10.0 → 108 SMs; its launch links it
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 110, "dur": 400,
           "args": {"correlation": 1, "device": 0, "stream": 7, "grid": [1080, 1, 1], "block": [128, 1, 1],
                    "blocks per SM": 10.0, "registers per thread": 64, "shared memory": 16384}}]
    p = tmp_path / "no_device.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_sm_count_gpu_is_assumed(tmp_path):
    spec = identify(gpulens.collect(_trace(tmp_path)))
    assert spec is not None and spec.num_sms == 108
    assert spec.assumed  # was False: the note read "no device recorded; 108 SMs inferred …"
    assert "108 SMs" in spec.note and "A100 80GB" in spec.note  # the other built-in part with 108 SMs is named


def test_json_and_console_say_assumed(tmp_path):
    from gpulens.reports.json_report import to_dict

    run = gpulens.analyze([_trace(tmp_path)])
    src = to_dict(run)["sources"][0]
    assert src["device_spec_assumed"] is True
    assert "assumed" in src["device_text"] and "108 SMs" in src["device_text"]


def test_device_named_as_its_spec_is_said_once():
    # TraceLens's torch_compile_triton trace records "AMD Instinct MI300X", the spec's own name: one name, not
    # "AMD Instinct MI300X (analysed as AMD Instinct MI300X)"; a recorded name that differs keeps the spec beside it
    from gpulens.devices import get_spec
    from gpulens.reports._format import device_text

    mi300x = get_spec("AMD Instinct MI300X").with_note("identified from name 'AMD Instinct MI300X'")
    assert device_text([{"name": "AMD Instinct MI300X"}], mi300x) == "AMD Instinct MI300X"
    h100 = get_spec("NVIDIA H100 SXM").with_note("identified from name 'NVIDIA H100 80GB HBM3'")
    assert device_text([{"name": "NVIDIA H100 80GB HBM3"}], h100) == "NVIDIA H100 80GB HBM3 (analysed as NVIDIA H100 SXM)"
