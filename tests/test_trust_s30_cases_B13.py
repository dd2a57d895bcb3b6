"""B13 variants (../shared/cases/README.md): CUDA graphs — two ``cudaGraphLaunch`` replays of the same three kernels,
a driver-API ``cuGraphLaunch`` whose two kernels run on another stream, one ordinary launch; file order reversed.
One launch call per graph launch, every graph kernel linked and on the critical path. Figures derived by hand."""

from __future__ import annotations

import json

from gpulens.cli import main


def _l(name, ts, dur, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 70, "tid": 70, "ts": ts, "dur": dur,
            "args": {"correlation": corr}}


def _k(name, ts, dur, corr, stream=7):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr}}


def test_graph_replays_driver_graph_launch_and_critical_path(tmp_path):
    """Stream 7: replay 1 (corr 10) qkv 112+20, attn 132+30, mlp 162+10; replay 2 (corr 11) qkv 175+20, attn 195+30,
    mlp 225+10; rmsnorm 245+5 (cudaLaunchKernel corr 13 at 140). Stream 9: cuGraphLaunch corr 12 → samp_a 140+5,
    samp_b 150+5 (under stream 7's work). Busy = [112,172] ∪ [175,235] ∪ [245,250] = 125 µs; span 112 → 250 =
    138 µs; raw 2·(20+30+10) + 5 + 5 + 5 = 135 µs. Launch calls 4 (3 graph launches → 8 kernels) for 9 kernels.
    Critical path over the window 100 → 250 (150 µs): launch delay 100 → 112 = 12, the 7 stream-7 kernels 125,
    GPU gaps 172→175 + 235→245 = 13."""
    ev = [_l("cudaGraphLaunch", 100, 10, 10), _k("qkv", 112, 20, 10), _k("attn", 132, 30, 10), _k("mlp", 162, 10, 10),
          _l("cudaGraphLaunch", 115, 8, 11), _k("qkv", 175, 20, 11), _k("attn", 195, 30, 11), _k("mlp", 225, 10, 11),
          _l("cuGraphLaunch", 130, 6, 12), _k("samp_a", 140, 5, 12, 9), _k("samp_b", 150, 5, 12, 9),
          _l("cudaLaunchKernel", 140, 3, 13), _k("rmsnorm", 245, 5, 13)]
    p = tmp_path / "g.json"
    p.write_text(json.dumps({"traceEvents": ev[::-1]}))
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["kernel_time_ns"]) == (9, 125_000, 138_000, 135_000)
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["graph_launches"], la["gpu_events_from_graphs"]) == (4, 3, 8)
    assert (la["kernels_linked"], la["kernels_unlinked"]) == (9, 0)
    calls = {r["launch_name"]: (r["calls"], r["gpu_events"]) for r in src["analyses"]["launches"]["table"]}
    assert calls == {"cudaGraphLaunch": (2, 6), "cuGraphLaunch": (1, 2), "cudaLaunchKernel": (1, 1)}
    cp = src["analyses"]["critical_path"]["summary"]
    assert cp["path_ns"] == 150_000 and cp["class_ns"] == {"kernel": 125_000, "gpu_gap": 13_000, "launch_delay": 12_000}
    kern = next(r for r in src["analyses"]["critical_path"]["table"] if r["class"] == "kernel")
    assert kern["events"] == 7 and kern["top_event"] == "attn"
    hs = {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}
    assert hs["attn"] == (2, 60_000) and hs["qkv"] == (2, 40_000)
