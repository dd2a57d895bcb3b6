"""Class 7 of issue 13: the stdout of ``nsys stats --format csv`` with several reports, as users save it.

The report layout (banner lines, blank lines, one CSV header per report) follows nsys 2024.x output; rows are
invented here, and the expected kernel counts/times are the sums of the rows written (comments).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gpulens
from gpulens.collectors import collect, sniff
from tests.conftest import SHARED

CASES = SHARED.parent / "cases"
KERN = ["Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name",
        '60.0,6000,3,2000.0,2000.0,1900,2100,100.0,"void gemm<float, 64>(const float *, float *, int)"',
        "40.0,4000,2,2000.0,2000.0,1900,2100,100.0,relu_kernel(float *, int)"]
MEM = ["Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation",
       "100.0,900000,3,300000.0,300000.0,290000,310000,10000.0,[CUDA memcpy Host-to-Device]"]


def report(name: str, title: str, table: list[str]) -> list[str]:
    return [f"Processing [run.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/{name}.py]... ",
            "", f" ** {title} ({name}):", ""] + table + [""]


def api_summary(rows: int) -> list[str]:
    head = "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
    return [head] + [f"0.1,{1000 + i},{i + 1},10.0,10.0,1,20,1.0,cudaApi_{i}" for i in range(rows)]


def check(tl) -> None:
    t = tl.tables["kernel_summary"].set_index("name")
    # 3 + 2 launches, 6,000 + 4,000 ns; the memops table after it is not read as kernels
    assert len(t) == 2 and int(t["calls"].sum()) == 5 and int(t["total_ns"].sum()) == 10_000
    assert t.loc["relu_kernel(float *, int)", "calls"] == 2  # unquoted comma in the last column, rejoined


@pytest.mark.parametrize("api_rows", [0, 80, 2000])  # 2000 rows: the kernel table starts beyond the first 64 KiB
def test_kernel_summary_found_after_other_reports(tmp_path, api_rows):
    lines = ["Generating SQLite file run.sqlite from run.nsys-rep"]
    if api_rows:
        lines += report("cuda_api_sum", "CUDA API Summary", api_summary(api_rows))
    lines += report("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", KERN)
    lines += report("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", MEM)
    p = tmp_path / "stats.txt"
    p.write_text("\n".join(lines) + "\n")
    assert sniff(p).name == "nsys_stats"
    check(collect(p))


def test_kernel_table_followed_by_a_report_without_blank_line(tmp_path):
    lines = report("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", KERN)[:-1]  # no blank line after the rows
    lines += report("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", MEM)
    p = tmp_path / "stats.csv"
    p.write_text("\n".join(lines))
    check(collect(p))


def test_case_t08():
    p = CASES / "T08.nsys_stats_stdout.csv"
    if not p.exists():
        pytest.skip("shared case T08 not present")
    s = gpulens.analyze([p]).sources[0].summary
    # README T08: 2 kernels, 30 launches, 11,000,000 ns
    assert s["unique_kernels"] == 2 and s["kernel_count"] == 30 and s["kernel_time_ns"] == 11_000_000
