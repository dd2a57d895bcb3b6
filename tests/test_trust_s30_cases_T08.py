"""T08 variants (../shared/cases/README.md): ``nsys stats --format csv`` stdout of other nsys versions and options —
the 2021 report names and columns (``gpukernsum``: ``Time(%)``, ``Average``, ``Minimum``…) between an API summary
and a memory summary; ``--timeunit usec`` / ``msec`` (times in µs / ms, named in the header) with CRLF line ends.
Only the kernel summary is read; times in ns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main

OLD = """Processing [run.sqlite] with [/opt/nvidia/nsight-systems/2021.3.1/host-linux-x64/reports/cudaapisum.py]...

 ** CUDA API Summary (cudaapisum):

Time(%),Total Time (ns),Num Calls,Average,Minimum,Maximum,StdDev,Name
60.0,6000000,30,200000.0,1000,900000,5000.0,cudaLaunchKernel
40.0,4000000,5,800000.0,1000,900000,5000.0,cudaMemcpy

Processing [run.sqlite] with [/opt/nvidia/nsight-systems/2021.3.1/host-linux-x64/reports/gpukernsum.py]...

 ** CUDA Kernel Statistics (gpukernsum):

Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,StdDev,Name
80.0,12000000,25,480000.0,470000,490000,1000.0,"void attn<64, true>(const half *, half *)"
20.0,3000000,5,600000.0,590000,610000,1000.0,layernorm(float *)

Processing [run.sqlite] with [/opt/nvidia/nsight-systems/2021.3.1/host-linux-x64/reports/gpumemtimesum.py]...

 ** CUDA Memory Operation Statistics (by time) (gpumemtimesum):

Time(%),Total Time (ns),Operations,Average,Minimum,Maximum,StdDev,Operation
100.0,900000,3,300000.0,290000,310000,10000.0,[CUDA memcpy HtoD]
"""

GEMM = "void gemm_kernel<float, 128>(const float *, float *, int)"
SOFT = "softmax_kernel(float *, int)"
USEC = f""" ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):

Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name
72.7,8000.000,20,400.000,400.000,390.000,410.000,5.000,"{GEMM}"
27.3,3000.500,10,300.050,300.000,290.000,310.000,6.000,{SOFT}
"""
MSEC = f""" ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\r
\r
Time (%),Total Time (ms),Instances,Avg (ms),Med (ms),Min (ms),Max (ms),StdDev (ms),Name\r
72.7,8.000000,20,0.400000,0.400000,0.390000,0.410000,0.005000,"{GEMM}"\r
27.3,3.000500,10,0.300050,0.300000,0.290000,0.310000,0.006000,{SOFT}\r
"""


def _hot(text: str, tmp_path: Path) -> tuple[dict, dict]:
    p = tmp_path / "stats.csv"
    p.write_bytes(text.encode())
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    assert not [w for w in src["warnings"] if "impossible" in w]  # Min ≤ Med/Avg ≤ Max, Avg = Total / Instances
    return {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}, src["summary"]


def test_2021_report_names_between_api_and_memory_summaries(tmp_path):
    """Kernels only: attn 25 × → 12,000,000 ns, layernorm 5 × → 3,000,000 ns; 30 launches, 15,000,000 ns; the
    cudaapisum and gpumemtimesum rows are not kernels; no timeline → busy unknown, not 0."""
    hot, sm = _hot(OLD, tmp_path)
    assert hot == {"void attn<64, true>(const half *, half *)": (25, 12_000_000), "layernorm(float *)": (5, 3_000_000)}
    assert (sm["kernel_count"], sm["kernel_time_ns"], sm["gpu_busy_ns"]) == (30, 15_000_000, None)


@pytest.mark.parametrize("text", [USEC, MSEC], ids=["usec", "msec-crlf"])
def test_time_unit_named_in_the_header(text, tmp_path):
    """8,000.000 µs = 8.000000 ms = 8,000,000 ns; 3,000.500 µs = 3.000500 ms = 3,000,500 ns; 30 launches."""
    hot, sm = _hot(text, tmp_path)
    assert hot == {GEMM: (20, 8_000_000), SOFT: (10, 3_000_500)}
    assert (sm["kernel_count"], sm["kernel_time_ns"]) == (30, 11_000_500)


@pytest.mark.parametrize("keep", ["softmax_kernel(flo", "softmax_kernel<float, 4"])
def test_cut_inside_an_unquoted_last_name_is_partial(keep, tmp_path):
    """B04's fault in T08's format: the stdout cut inside the *unquoted* softmax name (no line end, a bracket left
    open): that row is dropped like a cut quoted name — gemm alone, 20 launches, 8,000,000 ns — and the result is
    partial, never a third "kernel" named by the cut prefix with status ok."""
    head = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    gemm = f'72.7,8000000,20,400000.0,400000.0,390000,410000,5000.0,"{GEMM}"\n'
    p = tmp_path / "stats.csv"
    p.write_text(head + gemm + "27.3,3000000,10,300000.0,300000.0,290000,310000,6000.0," + keep)
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    assert src["status"] == "partial" and src["truncated"]
    hot = {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}
    assert hot == {GEMM: (20, 8_000_000)}
