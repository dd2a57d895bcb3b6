"""The small-grid finding's title states the definition its figure uses.

Kind: the figure counts kernels with fewer blocks than 90 % of the SMs/CUs (``verdict_rules.FULL_GRID_SHARE``: a grid
covering about every SM leaves no part of the GPU empty), but its title said "fewer blocks than CUs" — on the MI300X
BERT trace (304 CUs) that reads as every kernel (all grids are under 304 blocks, 388.34 µs), while the figure is
273.55 µs, and the verdict table beside it says a Tensile GEMM "gives 288 of the 304 CUs a block".
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from gpulens.report import analyze
from gpulens.reports import console, json_report, markdown

TRACE = Path(__file__).parent / "data" / "kineto" / "tracelens_mi300x_bert-small.json.gz"


def _hand_figures() -> tuple[int, int, int]:
    """From the trace itself: (all kernel time, time in grids of fewer than 0.9 × 304 = 273.6 blocks, CUs) [ns].

    ``numSms`` of deviceProperties is 304. A kernel's blocks are the product of its ``grid``, except Tensile
    (``Cijk_``) GEMMs launched through hipExtModuleLaunchKernel, whose ``grid`` is the global work size in threads:
    73,728 threads / 256 per block = 288 blocks. Durations are µs with 3 decimals."""
    d = json.loads(gzip.open(TRACE).read())
    cus = d["deviceProperties"][0]["numSms"]
    total = small = 0
    for e in d["traceEvents"]:
        if e.get("cat") != "kernel":
            continue
        g, b = e["args"]["grid"], e["args"]["block"]
        blocks = g[0] * g[1] * g[2]
        if e["name"].startswith("Cijk_"):
            blocks //= b[0] * b[1] * b[2]
        ns = round(e["dur"] * 1000)
        total += ns
        if blocks < 0.9 * cus:
            small += ns
    return total, small, cus


def test_small_grid_title_names_the_share_of_cus_its_figure_counts():
    total, small, cus = _hand_figures()
    assert cus == 304 and total == 388_344 and small == 273_545  # the Cijk 288-block grids are the difference
    rep = analyze([str(TRACE)])
    src = rep.sources[0]
    f = [x for x in src.results["bottlenecks"].findings if x.key == "small-grid"]
    assert len(f) == 1
    # s32: AMD says workgroups (HIP Programming Guide)
    assert f[0].title == "Small-grid kernels: 273.55 µs in kernels with fewer workgroups than 90 % of the CUs"
    # one title in every report (the console lists the findings with a time at stake; this one has none)
    js = json.loads(json_report.render(rep))["sources"][0]["findings"]
    flat = []
    stack = list(js)
    while stack:
        x = stack.pop()
        flat.append(x["title"])
        stack.extend(x.get("children") or [])
    assert f[0].title in flat
    assert f[0].title in markdown.render(rep).replace("\\_", "_")
    assert "fewer blocks than CUs" not in " ".join(console.render(rep, width=400).split())
