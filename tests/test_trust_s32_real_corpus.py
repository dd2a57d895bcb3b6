"""Held-back real traces (session 32): counts, sums and spans of three new public Kineto traces, exact.

Each file is an unmodified copy (see ``tests/data/PROVENANCE.md``): two ROCm traces of LLM serving on an MI300X with
the decode step replayed as a HIP graph (vLLM, SGLang — AMD-AGI/TraceLens) and a CUDA trace of event syncs across
three streams on an A100 with Kineto's INFO log block (facebookresearch/HolisticTraceAnalysis). The expected values
were computed from the raw files with plain ``json``/``gzip`` (``ph == "X"``; kernels ``cat == "kernel"``; GPU
events kernels + ``gpu_memcpy`` + ``gpu_memset``; span = first GPU start → last GPU end; a launch = the GPU event's
``args.correlation`` found on a ``cuda_runtime`` / ``cuda_driver`` event), not taken from gpulens:

| file | kernels (unique) | Σ kernel dur | GPU span | GPU events with a launch per stream |
|---|---|---|---|---|
| vLLM decode, graph execution | 425 (24) | 10,674.517 µs | 10,743.181 µs | stream 0: 434 (421 by hipGraphLaunch) |
| SGLang Qwen3-8B decode | 555 (27) | 9,765.437 µs | 473,749.943 µs | stream 3: 556, stream 2: 2 (544 by hipGraphLaunch) |
| A100 event sync, 3 streams | 3 (1) | 369 µs | 19,506 µs | streams 20, 24, 28: 2 each (a memset + a kernel) |
"""

from __future__ import annotations

import pytest

from tests.conftest import KINETO
from tests.real_figures import assert_exact_figures

FACTS = {
    "tracelens_mi300x_vllm_decode_graph_exec.json.gz": dict(
        kernels=425, unique=24, kernel_ns=10_674_517, span_ns=10_743_181, launches={0: 434}),
    "tracelens_mi300x_sglang_qwen3_decode.json.gz": dict(
        kernels=555, unique=27, kernel_ns=9_765_437, span_ns=473_749_943, launches={2: 2, 3: 556}),
    "hta_a100_event_sync_multi_stream.json.gz": dict(
        kernels=3, unique=1, kernel_ns=369_000, span_ns=19_506_000, launches={20: 2, 24: 2, 28: 2}),
}


@pytest.mark.parametrize("name", sorted(FACTS))
def test_new_real_trace_figures_are_exact_and_consistent(tmp_path, name):
    assert_exact_figures(tmp_path, KINETO / name, FACTS[name])
