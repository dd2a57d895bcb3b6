"""A framework op's host-side FLOP/s is shown only for a CPU-only run.

Kind: in a GPU run an op's recorded FLOPs run in its kernels while its host time is the launch, so flops / host time
read "attained FLOP/s 100.00 PFLOP/s" for an aten::mm launched in 20 µs on an A100 (fp32 peak 19.5 TFLOP/s) in the
HTML and Markdown CPU-operator tables. Expected rates are hand calculations on the traces below.
"""

from __future__ import annotations

import json
import math

import gpulens
from gpulens.reports import markdown


def _trace(tmp_path, with_gpu: bool):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 20,
           "args": {"External id": 1, "flops": 2e9}},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 200, "dur": 30,
           "args": {"External id": 2, "flops": 1e9}}]
    if with_gpu:
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 105,
                "dur": 10, "args": {"correlation": 1, "External id": 1}},
               {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 120,
                "dur": 5000, "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 1}}]
    p = tmp_path / f"mm_{with_gpu}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_cpu_only_run_keeps_the_host_rate(tmp_path):
    # (2e9 + 1e9) FLOP in 20 + 30 µs of host time = 3e9 / 50e-6 s = 6e13 FLOP/s
    t = gpulens.analyze([_trace(tmp_path, False)]).sources[0].results["cpu_ops"].table
    row = t[t["name"] == "aten::mm"].iloc[0]
    assert row["flops"] == 3e9 and math.isclose(row["flops_per_s"], 6e13)


def test_gpu_run_has_no_host_rate(tmp_path):
    rep = gpulens.analyze([_trace(tmp_path, True)])
    t = rep.sources[0].results["cpu_ops"].table
    row = t[t["name"] == "aten::mm"].iloc[0]
    assert row["flops"] == 3e9 and math.isnan(row["flops_per_s"])
    assert "PFLOP/s" not in markdown.render(rep) and "60.00 TFLOP/s" not in markdown.render(rep)
