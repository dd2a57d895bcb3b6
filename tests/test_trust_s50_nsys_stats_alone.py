"""Session 50: an ``nsys stats --format csv`` report that holds no kernel, given alone.

``nsys stats --report cuda_api_sum --format csv run.sqlite > api.csv`` (or ``osrt_sum``, ``nvtx_sum``, the memory
summaries, ``cuda_api_trace``) is a valid output of a real profiler; gpulens said "not a recognised trace format"
(exit 2), which reads as a broken file. It now names the report, what it holds, that it holds no GPU kernels and no
timeline, and what to analyse instead — exit 5 (README: inputs holding no GPU work gpulens reads as kernels).
``gate``, ``diff`` and ``baseline save`` keep their input error (exit 2).

The headers are those of the reports listed by ``nsys stats --help-reports`` (nsys 2024/2025, and the 2021 names and
columns ``cudaapisum``, ``Time(%)``, ``Average``, ``Operations``), written out here.
"""

from __future__ import annotations

import pytest

from gpulens.cli import main

API = ("Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
       "45.3,123456789,1000,123456.8,100000.0,1000,5000000,20000.5,cudaLaunchKernel\n"
       "30.1,82000000,10,8200000.0,8000000.0,1000,9000000,100.0,cudaMemcpy\n")
API_2021 = ("Time(%),Total Time (ns),Num Calls,Average,Minimum,Maximum,StdDev,Name\n"
            "90.0,20000000,30,666666.7,1000,900000,10000.0,cudaLaunchKernel\n")
OSRT = ("Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "60.0,5000000,20,250000.0,250000.0,1000,900000,100.0,pthread_cond_wait\n")
NVTX = ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
        "100.0,5000000,2,2500000.0,2500000.0,1000,4999000,100.0,PushPop,forward\n")
MEM_TIME = ("Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"
            "90.0,900000,3,300000.0,300000.0,290000,310000,10000.0,[CUDA memcpy Host-to-Device]\n")
MEM_TIME_2021 = ("Time(%),Total Time (ns),Operations,Average,Minimum,Maximum,StdDev,Operation\n"
                 "100.0,900000,3,300000.0,290000,310000,10000.0,[CUDA memcpy HtoD]\n")
MEM_SIZE = ("Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation\n"
            "100.000,3,33.333,33.333,10.000,50.000,20.817,[CUDA memcpy Host-to-Device]\n")
API_TRACE = ("Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n"
             "1000,500,cudaLaunchKernel,0,12,100,100,20,python\n")


def _banner(report: str, title: str, table: str) -> str:
    return (f"Processing [/data/run.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/"
            f"{report}.py]... \n\n ** {title} ({report}):\n\n{table}\n")


@pytest.mark.parametrize("text, holds", [
    (API, "an Nsight Systems stats report of CUDA API calls — host-side call times"),
    (API_2021, "an Nsight Systems stats report of CUDA API calls — host-side call times"),
    (OSRT, "an Nsight Systems stats report of API calls (OS runtime or other libraries) — host-side call times"),
    (NVTX, "an Nsight Systems stats report of NVTX ranges — CPU-side ranges"),
    (MEM_TIME, "an Nsight Systems stats report of memory operations — GPU copies and fills"),
    (MEM_TIME_2021, "an Nsight Systems stats report of memory operations — GPU copies and fills"),
    (MEM_SIZE, "an Nsight Systems stats report of memory operations — GPU copies and fills"),
    (API_TRACE, "an Nsight Systems stats report of CUDA API calls — host-side call times"),
    (_banner("cuda_api_sum", "CUDA API Summary", API),
     "an Nsight Systems stats report of CUDA API calls (cuda_api_sum) — host-side call times"),
    (_banner("osrt_sum", "OS Runtime Summary", OSRT),
     "an Nsight Systems stats report of OS runtime calls (osrt_sum) — host-side call times"),
    (_banner("cuda_api_sum", "CUDA API Summary", API) + _banner("nvtx_sum", "NVTX Range Summary", NVTX),
     "Nsight Systems stats reports of CUDA API calls (cuda_api_sum) — host-side call times; NVTX ranges (nvtx_sum) "
     "— CPU-side ranges"),
])
def test_a_stats_report_without_kernels_says_what_it_holds(tmp_path, capsys, text, holds):
    p = tmp_path / "stats.csv"
    p.write_text(text)
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gpulens: error: {p}: {holds}, no GPU kernels and no timeline")
    assert "cuda_gpu_kern_sum" in err and "not a recognised trace format" not in err


def test_gate_and_diff_keep_their_input_error(tmp_path, capsys):
    p = tmp_path / "api.csv"
    p.write_text(API)
    assert main(["diff", str(p), str(p)]) == 2
    assert main(["gate", str(p), "--baseline", str(p), "-q"]) == 2
    err = capsys.readouterr().err
    assert "CUDA API calls" in err and "Traceback" not in err


def test_a_kernel_summary_beside_the_api_summary_is_still_read(tmp_path, capsys):
    """Control: with the kernel summary in the same stdout, the kernels are read — 20 + 10 = 30 launches."""
    kern = ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
            "72.7,8000000,20,400000.0,400000.0,390000,410000,5000.0,gemm_kernel\n"
            "27.3,3000000,10,300000.0,300000.0,290000,310000,6000.0,softmax_kernel\n")
    p = tmp_path / "stats.csv"
    p.write_text(_banner("cuda_api_sum", "CUDA API Summary", API)
                 + _banner("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", kern))
    import gpulens

    rep = gpulens.analyze([p])
    assert sum(int(r) for r in rep.sources[0].results["hotspots"].table["calls"]) == 30
