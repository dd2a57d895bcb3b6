"""Session 48 — variants of ../shared/cases read like the originals.

T08 variant (nsys 2021 ``nsys stats`` stdout, reports ``gpukernsum`` / ``gpumemtimesum``): the note about the copy
table named it ``cuda_gpu_mem_time_sum`` — a report the file does not hold (nsys renamed it in 2022). Kind: a
message naming what the input does not contain. Now the table is named as the file names it.
B13 variants (HIP and driver-API graph launches) are checked to read as the CUDA runtime's: one launch call, three
kernels linked to it. Expected figures are the case README's (T08: 30 launches, 11 ms; 3 copies + 2 fills, 1.00 ms;
B13: 4 kernels, 65 µs busy, 2 launch calls, every kernel linked).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main

CASES = Path("/work/shared/cases")

T08_2021 = """\
Using run.sqlite for SQL queries.
Running [/opt/nvidia/nsight-systems/2021.3.1/target-linux-x64/reports/gpukernsum.py run.sqlite]...

Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,StdDev,Name
72.7,8000000,20,400000.0,390000,410000,5000.0,"void gemm_kernel<float, 128>(const float *, float *, int)"
27.3,3000000,10,300000.0,290000,310000,6000.0,"softmax_kernel(float *, int)"

Running [/opt/nvidia/nsight-systems/2021.3.1/target-linux-x64/reports/gpumemtimesum.py run.sqlite]...

Time(%),Total Time (ns),Operations,Average,Minimum,Maximum,StdDev,Operation
90.0,900000,3,300000.0,290000,310000,10000.0,[CUDA memcpy HtoD]
10.0,100000,2,50000.0,40000,60000,14142.1,[CUDA memset]
"""


def _analyze(path: Path, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)])
    return code, json.loads(out.read_text())["sources"][0]


def test_t08_nsys_2021_copy_table_named_as_in_the_file(tmp_path):
    p = tmp_path / "stats.csv"
    p.write_text(T08_2021)
    code, src = _analyze(p, tmp_path)
    assert code == 0 and (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (30, 11_000_000)
    said = [w for w in src["warnings"] if "3 copies and 2 fills" in w]
    assert len(said) == 1 and "gpumemtimesum rows" in said[0] and "cuda_gpu_mem_time_sum" not in said[0]


@pytest.mark.skipif(not (CASES / "B13.json").exists(), reason="shared cases not present")
@pytest.mark.parametrize("launch,cat", [("hipGraphLaunch", "cuda_runtime"), ("cuGraphLaunch", "cuda_driver")])
def test_b13_graph_launch_of_other_apis(tmp_path, launch, cat):
    d = json.loads((CASES / "B13.json").read_text().replace("cudaGraphLaunch", launch))
    for e in d["traceEvents"]:
        e["cat"] = cat if e["cat"] == "cuda_runtime" else e["cat"]
    p = tmp_path / "b13.json"
    p.write_text(json.dumps(d))
    code, src = _analyze(p, tmp_path)
    ln = src["analyses"]["launches"]["summary"]
    assert code == 0 and (src["summary"]["kernel_count"], src["summary"]["gpu_busy_ns"]) == (4, 65_000)
    assert (ln["launch_calls"], ln["kernels_linked"], ln["kernels_unlinked"]) == (2, 4, 0)
