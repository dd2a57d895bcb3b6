"""T07 variant (../shared/cases/README.md): CUDA graphs traced at graph level by Nsight Systems — three replays, two
back to back on stream 7 and one *concurrent* on stream 13, between two ordinary kernels. Replays are GPU work, one
interval each, linked to their ``cudaGraphLaunch``; concurrency is not double-counted. Figures derived by hand (ns)."""

from __future__ import annotations

import json

from gpulens.cli import main

from tests.case_variants import _nsys_db


def test_graph_replays_on_two_streams(tmp_path):
    """embed [1000,6000] s7; replays corr 2 [6000,306000] s7, corr 3 [100000,400000] s13, corr 4 [306000,606000] s7;
    topk [700000,705000] s7. Busy = [1000,606000] ∪ [700000,705000] = 605,000 + 5,000 = 610,000; span 1000 →
    705,000 = 704,000; idle 94,000; raw GPU time 5,000 + 3 × 300,000 + 5,000 = 910,000. 5 launch calls
    (3 graph launches → 3 replays), all linked; not host-bound."""
    strings = ["cudaLaunchKernel_v7000", "cudaGraphLaunch_v10000", "embed", "topk"]
    rt = [(500, 900, 1, 1), (1500, 1900, 2, 2), (2500, 2900, 3, 2), (3500, 3900, 4, 2), (400_000, 400_500, 5, 1)]
    kernels = [(1000, 6000, 7, 1, 3, 3), (700_000, 705_000, 7, 5, 4, 4)]
    graphs = [(6000, 306_000, 7, 2), (100_000, 400_000, 13, 3), (306_000, 606_000, 7, 4)]
    p = _nsys_db(tmp_path / "run.sqlite", strings, rt, kernels, graphs)
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    sm = src["summary"]
    assert (sm["gpu_busy_ns"], sm["span_ns"], sm["idle_ns"], sm["kernel_time_ns"]) == (610_000, 704_000, 94_000, 910_000)
    assert abs(sm["gpu_busy_pct"] - 100 * 610_000 / 704_000) < 1e-9
    assert "host" not in str(sm["verdict"])
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["graph_launches"], la["gpu_events_from_graphs"], la["kernels_unlinked"]) == (5, 3, 3, 0)
    assert any("graph level" in w for w in src["warnings"])
