"""Kernels replayed by a CUDA/HIP graph launch have no launch call of their own. The SGLang MI300X kernel pages
showed "0 % of launches shorter than the launch call; 5 ns of launch idle before it" (the graph launch's figures,
read as each kernel's) beside "no per-kernel launch analysis". Their evidence now says they were replayed by a
graph launch, with no per-kernel launch figures; a kernel with its own launch calls keeps them.
"""

from __future__ import annotations

import json

import gpulens

T0 = 1000  # µs


def _launch(ts, dur, corr, name="cudaLaunchKernel"):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 9, "tid": 9, "ts": T0 + ts, "dur": dur,
            "args": {"correlation": corr}}


def _kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": T0 + ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr, "grid": [1, 1, 1], "block": [64, 1, 1]}}


def _trace(tmp_path):
    # one 20 µs graph launch (correlation 1) replaying g_a, g_b, g_c of 5 µs each; three single launches of 3 µs
    # (correlations 2-4), each of a 2 µs kernel "single": 2 < 3, so all three are shorter than their call
    ev = [_launch(0, 20, 1, "cudaGraphLaunch")]
    ev += [_kernel(n, 30 + 6 * i, 5, 1) for i, n in enumerate(("g_a", "g_b", "g_c"))]
    for i in range(3):
        ev += [_launch(60 + 10 * i, 3, 2 + i), _kernel("single", 64 + 10 * i, 2, 2 + i)]
    p = tmp_path / "graph.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_graph_replayed_kernels_have_no_launch_figures(tmp_path):
    src = gpulens.analyze([_trace(tmp_path)]).sources[0]
    rows = {r["name"]: r for r in src.results["verdicts"].table.to_dict("records")}
    graph = [rows[n] for n in ("g_a", "g_b", "g_c") if n in rows]
    assert graph, rows.keys()
    for r in graph:
        assert "launches shorter than the launch call" not in r["evidence"], r["evidence"]
        assert "launch idle" not in r["evidence"]
        assert "replayed by a graph launch" in r["evidence"]
    assert "single" in rows  # its own calls: 3 of 3 launches shorter than their call (2 µs < 3 µs) = 100 %
    assert "100.0 % of launches shorter than the launch call" in rows["single"]["evidence"]
