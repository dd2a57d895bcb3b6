"""Session 50: case T08 (``nsys stats`` stdout holding several reports: read the kernel summary only) in nsys' documented
``--format tsv`` (nsys User Guide, "CLI Stats Command Switch Options": ``--format`` column, table, csv, tsv, json,
hdoc, htable): the tab-separated tables were "no nsys kernel-summary header" (exit 2), a saved ``*.tsv`` "not a
recognised trace format". Expected figures are the case README's: 2 kernels, 30 launches, 11,000,000 ns
(``void gemm_kernel<float, 128>(…)`` 20 ×, 8,000,000 ns; ``softmax_kernel(float *, int)`` 10 ×, 3,000,000 ns); the
copy table after it is not read as kernels.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main

HEAD = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
        "Name"]
KERNELS = [["72.7", "8000000", "20", "400000.0", "400000.0", "390000", "410000", "5000.0",
            "void gemm_kernel<float, 128>(const float *, float *, int)"],
           ["27.3", "3000000", "10", "300000.0", "300000.0", "290000", "310000", "6000.0", "softmax_kernel(float *, int)"]]
MEM_HEAD = ["Time (%)", "Total Time (ns)", "Count", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
            "Operation"]
MEM = [["90.0", "900000", "3", "300000.0", "300000.0", "290000", "310000", "10000.0", "[CUDA memcpy Host-to-Device]"]]
API_HEAD = ["Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
            "Name"]
API = [["60.0", "120000", "30", "4000.0", "4000.0", "3000", "5000", "500.0", "cudaLaunchKernel"]]


def _tsv(head: list[str], rows: list[list[str]]) -> str:
    return "\n".join("\t".join(r) for r in [head] + rows) + "\n"


def _report(name: str, title: str, table: str) -> str:
    return (f"Processing [run.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/{name}.py]... \n"
            f"\n ** {title} ({name}):\n\n{table}\n")


@pytest.mark.parametrize("layout", ["kernels only", "stdout, kernel table first", "stdout, kernel table between"])
def test_t08_nsys_stats_tsv(tmp_path, layout):
    kern = _tsv(HEAD, KERNELS)
    if layout == "kernels only":
        text, name = kern, "run_cuda_gpu_kern_sum.tsv"
    else:
        parts = [_report("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", kern),
                 _report("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", _tsv(MEM_HEAD, MEM))]
        if layout.endswith("between"):
            parts.insert(0, _report("cuda_api_sum", "CUDA API Summary", _tsv(API_HEAD, API)))
        text, name = "Generating SQLite file run.sqlite from run.nsys-rep\n" + "".join(parts), "stats.txt"
    p = tmp_path / name
    p.write_text(text)
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    hs = {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}
    assert hs == {"void gemm_kernel<float, 128>(const float *, float *, int)": (20, 8_000_000),
                  "softmax_kernel(float *, int)": (10, 3_000_000)}
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (30, 11_000_000)


GT_HEAD = ["Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd",
           "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MBps)", "SrcMemKd", "DstMemKd", "Device", "Ctx",
           "Strm", "Name"]


@pytest.mark.parametrize("stdout", [False, True])
def test_t08_nsys_gpu_trace_tsv(tmp_path, stdout):
    """``--report cuda_gpu_trace --format tsv``: a kernel 1,000 + 60,000 ns whose name holds commas and a kernel
    70,000 + 10,000 ns on stream 7 → 2 kernels, 70,000 ns, span 1,000 → 80,000 = 79,000 ns (the header's
    ``Start``/``Duration`` columns were "missing", exit 2)."""
    rows = [["1000", "60000", "1", "1", "1", "1", "256", "1", "1", "32", "0.000", "0.000", "", "", "", "",
             "NVIDIA H100 (0)", "1", "7", "void k<float, 2>(float *, int)"],
            ["70000", "10000", "2", "1", "1", "1", "256", "1", "1", "32", "0.000", "0.000", "", "", "", "",
             "NVIDIA H100 (0)", "1", "7", "small"]]
    table = _tsv(GT_HEAD, rows)
    p = tmp_path / ("stats.txt" if stdout else "cuda_gpu_trace.tsv")
    p.write_text(_report("cuda_gpu_trace", "CUDA GPU Trace", table) if stdout else table)
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    assert {r["name"]: r["total_ns"] for r in src["analyses"]["hotspots"]["table"]} == {
        "void k<float, 2>(float *, int)": 60_000, "small": 10_000}
    assert src["summary"]["span_ns"] == 79_000
