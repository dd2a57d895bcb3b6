"""A new user's findings (session 40, part 1): labels that lose what a record is, one device wording, and occupancy
limiters at full occupancy. Expected values are derived by hand from the inputs the tests write (or from the file).

1. A graph-level CUDA graph replay (nsys ``--cuda-graph-trace=graph``: one ``CUPTI_ACTIVITY_KIND_GRAPH_TRACE`` row per
   replay, named ``CUDA graph <graphId>``) was labelled "5" — the last word of a phrase read as a C++ function after
   its return type — and told to collect ncu counters, which describe kernels, not a whole graph.
2. A GPU assumed from the SM count inferred from Kineto's 'blocks per SM' was said, in the findings, to have an SM
   count the input "records no" of, while the device line said it was inferred.
3. At 100 % theoretical occupancy the block limit that binds first limits nothing: no limiter is shown.
"""

from __future__ import annotations

import json
import re

from gpulens.cli import main
from gpulens.reports._names import base_name

from tests.case_variants import _nsys_db
from tests.dig_traces import KTrace

H200_NCU = "tests/data/nvidia/h200/h200_kernels_details.csv"


def test_phrase_names_keep_every_word():
    """Only C++ return-type words before a kernel's name are dropped: a profiler's phrase is kept whole."""
    assert base_name("CUDA graph 5") == "CUDA graph 5"
    assert base_name("CUDA graph") == "CUDA graph"
    assert base_name("Memcpy HtoD (Pageable -> Device)") == "Memcpy HtoD"
    # real signatures still lose their return type and parameters
    assert base_name("void gemm_kernel<float, 128>(float const*, float*, int)") == "gemm_kernel"
    assert base_name("__global__ void saxpy(int, float, float*)") == "saxpy"
    assert base_name("unsigned int count_kernel(int*)") == "count_kernel"


def _graph_run(tmp_path):
    """embed [1000,6000] s7 (corr 1); graph 5 replays corr 2 [6000,306000], corr 3 [306000,606000] s7; topk
    [700000,705000] s7 (corr 4). By hand: 2 kernel launches of 2 kernels + 2 replays of 1 graph (graphId 5)."""
    strings = ["cudaLaunchKernel_v7000", "cudaGraphLaunch_v10000", "embed", "topk"]
    rt = [(500, 900, 1, 1), (1500, 1900, 2, 2), (2500, 2900, 3, 2), (600_000, 600_500, 4, 1)]
    kernels = [(1000, 6000, 7, 1, 3, 3), (700_000, 705_000, 7, 4, 4, 4)]
    graphs = [(6000, 306_000, 7, 2), (306_000, 606_000, 7, 3)]
    p = _nsys_db(tmp_path / "run.sqlite", strings, rt, kernels, graphs)
    out = {k: tmp_path / f"out.{k}" for k in ("json", "md", "html")}
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out["json"]), "--markdown", str(out["md"]),
                 "--html", str(out["html"])]) == 0
    return json.loads(out["json"].read_text())["sources"][0], out["md"].read_text(), out["html"].read_text()


def test_graph_replay_label_step_and_header(tmp_path, capsys, monkeypatch):
    src, md, html = _graph_run(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")  # one table row a line
    assert main(["analyze", "--no-cache", str(tmp_path / "run.sqlite")]) == 0
    console = capsys.readouterr().out
    # every console table row with the graph's 600.00 µs total is its row, and names it whole
    rows = [ln for ln in console.splitlines() if ln.startswith("│") and "│ 600.00 µs │" in ln]
    assert rows and all("│ CUDA graph 5 " in ln for ln in rows)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["unique_kernels"], sm["graph_replays"], sm["graphs"]) == (4, 3, 2, 1)
    header = "2 launches of 2 kernels and 2 replays of 1 CUDA graph (traced whole)"
    assert f"| kernels | {header}," in md
    assert header in html
    # the replay keeps its label in the Markdown tables, never "5" alone
    # (every table row with the graph's 600.00 µs total is its row)
    rows = [ln for ln in md.splitlines() if ln.startswith("|") and "| 600.00 µs |" in ln]
    assert rows and all("| CUDA graph 5 |" in ln for ln in rows)
    assert "**5**" not in md
    # its next step: a node-level trace, not kernel counters for a whole graph
    v = [r for r in src["analyses"]["verdicts"]["table"] if r["name"] == "CUDA graph 5"]
    assert len(v) == 1 and v[0]["verdict"] == "undetermined"
    steps = " ".join(v[0]["next_steps"]) if isinstance(v[0]["next_steps"], list) else str(v[0]["next_steps"])
    assert "--cuda-graph-trace=node" in steps and "ncu" not in steps


def test_graph_header_without_kernels(tmp_path):
    """Only graph replays (no kernel table): the header names only them — 3 replays of graph 5."""
    strings = ["cudaGraphLaunch_v10000"]
    rt = [(500, 900, 1, 1), (1500, 1900, 2, 1), (2500, 2900, 3, 1)]
    graphs = [(1000, 11_000, 7, 1), (11_000, 21_000, 7, 2), (21_000, 31_000, 7, 3)]
    p = _nsys_db(tmp_path / "g.sqlite", strings, rt, None, graphs)
    md = tmp_path / "g.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--markdown", str(md)]) == 0
    assert "| kernels | 3 replays of 1 CUDA graph (traced whole)," in md.read_text()


def test_inferred_sm_count_said_as_inferred(tmp_path):
    """No deviceProperties; one kernel of grid 160 at 'blocks per SM' 2.0 → 160 / 2 = 80 SMs (a V100's count): the
    GPU is assumed, and the waves premise says the 80 SMs were inferred, as the device line does."""
    from gpulens.analyzers._stake import assumed_premise
    from gpulens.collectors import collect
    from gpulens.devices import identify

    tr = KTrace()
    c = tr.launch(tr.op("aten::mm", 0.0, 20.0), 1.0, [("gemm_kernel", 10.0, 100.0)])
    for e in tr.ev:
        if e.get("cat") == "kernel" and e["args"]["correlation"] == c:
            e["args"].update({"grid": [160, 1, 1], "blocks per SM": 2.0, "warps per SM": 16.0})
    doc = {"schemaVersion": 1, "traceEvents": tr.ev}
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps(doc))
    spec = identify(collect(p))
    assert spec is not None and spec.assumed and spec.num_sms == 80
    premise = assumed_premise(spec, "sms")
    assert "80 SMs inferred from Kineto's 'blocks per SM'" in premise
    assert "80 SMs inferred from Kineto's 'blocks per SM'" in spec.note
    assert "SM count" not in premise


def test_no_limiter_at_full_occupancy(tmp_path):
    """H200 (sm_90: 64 warps, 65,536 registers, 32 blocks per SM). gemm_naive / gemm_wmma: 256 threads × 32 registers
    → 8 blocks by warps (64 / 8) and 8 by registers (65,536 / 8,192): 64 of 64 warps = 100 %; saxpy 256 × 16: 8 blocks
    by warps, 16 by registers: 100 %. Nothing limits them. tiny: 32 threads (1 warp) → 32 blocks by the block limit =
    32 of 64 warps = 50 %: the block limit binds."""
    out, md = tmp_path / "o.json", tmp_path / "o.md"
    assert main(["analyze", "-q", "--no-cache", H200_NCU, "--json", str(out), "--markdown", str(md)]) == 0
    occ = json.loads(out.read_text())["sources"][0]["analyses"]["occupancy"]["table"]
    rows = {r["name"].split("(")[0].split()[-1]: r for r in occ}
    for k in ("gemm_naive", "gemm_wmma", "saxpy"):
        assert rows[k]["theoretical_occupancy_pct"] == 100.0
        assert (rows[k]["limiter"], rows[k]["limiters"]) == ("none", "none")
    assert rows["tiny"]["theoretical_occupancy_pct"] == 50.0 and rows["tiny"]["limiter"] == "blocks"
    text = md.read_text()
    assert "warps + registers" not in text and "| 100.0 % | 97.9 % | no limiter |" in text
