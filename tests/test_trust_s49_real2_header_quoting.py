"""A profiler CSV whose header is quoted otherwise than the tool writes it is still that report.

Kind of fault: a collector recognised its report only by the tool's own quoting of the header line, so the same
table re-saved by a CSV writer (Python's ``csv`` with ``QUOTE_ALL`` or ``QUOTE_MINIMAL``, pandas, a spreadsheet) was
refused — nsys ``cuda_gpu_trace`` (written bare) when quoted, as "not a recognised trace format"; nvprof's GPU trace
(written quoted) when bare, as "nvprof's text report … without a GPU trace" — while the cells themselves were read
with :mod:`csv` either way. Expected values are computed by hand from the rows written in each test.
"""

from __future__ import annotations

import csv

import pytest

import gpulens

_HEADER = ["Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd",
           "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MBps)", "SrcMemKd", "DstMemKd", "Device",
           "Ctx", "Strm", "Name"]
_DEV = "NVIDIA A100-SXM4-40GB (0)"
_ROWS = [
    ["1000000", "5000", "10", "", "", "", "", "", "", "", "", "", "4.194", "838.861", "Pageable", "Device", _DEV,
     "1", "7", "[CUDA memcpy HtoD]"],
    ["1010000", "20000", "11", "108", "1", "1", "256", "1", "1", "64", "0.016", "0.000", "", "", "", "", _DEV,
     "1", "7", "void gemm_kernel<float>(float*, int)"],
    ["1040000", "30000", "12", "108", "1", "1", "256", "1", "1", "64", "0.016", "0.000", "", "", "", "", _DEV,
     "1", "7", "void gemm_kernel<float>(float*, int)"],
    ["1080000", "2000", "13", "", "", "", "", "", "", "", "", "", "1.049", "524.500", "Device", "Pageable", _DEV,
     "1", "7", "[CUDA memcpy DtoH]"],
]


def _write(path, quoting, rows=(_HEADER, *_ROWS), preamble=""):
    """``rows`` written as CSV with ``quoting`` after the ``preamble`` text (a tool's banner lines)."""
    with open(path, "w", newline="") as f:
        f.write(preamble)
        csv.writer(f, quoting=quoting, lineterminator="\n").writerows(rows)
    return path


@pytest.mark.parametrize("quoting", [csv.QUOTE_ALL, csv.QUOTE_MINIMAL], ids=["quoted", "bare"])
def test_gputrace_read_whatever_the_quoting(tmp_path, quoting):
    path = _write(tmp_path / "gputrace.csv", quoting)
    if quoting == csv.QUOTE_ALL:
        assert path.read_text().startswith('"Start (ns)","Duration (ns)"')  # the case under test
    src = gpulens.analyze([path]).sources[0]
    hot = src.results["hotspots"].summary
    kernels = [r for r in _ROWS if not r[-1].startswith("[")]
    assert hot["kernel_count"] == len(kernels) == 2
    assert hot["kernel_time_ns"] == sum(int(r[1]) for r in kernels) == 50_000
    ev = src.timeline.events
    copies = ev[ev["kind"] == "memcpy"].sort_values("start_ns")
    # Bytes (MB) are SI megabytes: 4.194 MB = 4,194,000 B, 1.049 MB = 1,049,000 B
    assert copies["bytes"].tolist() == [4_194_000, 1_049_000]
    k = ev[ev["kind"] == "kernel"]
    assert set(k["stream_id"]) == {7} and set(k["device_id"]) == {0}
    assert set(k["regs_per_thread"]) == {64}


def test_quoted_and_bare_give_the_same_figures(tmp_path):
    a = gpulens.analyze([_write(tmp_path / "q.csv", csv.QUOTE_ALL)]).sources[0]
    b = gpulens.analyze([_write(tmp_path / "b.csv", csv.QUOTE_MINIMAL)]).sources[0]
    for name in ("hotspots", "breakdown"):
        sa, sb = a.results[name].summary, b.results[name].summary
        keys = [k for k in sa if k.endswith("_ns") or k.endswith("_count")]
        assert keys and {k: sa[k] for k in keys} == {k: sb[k] for k in keys}


# nvprof --csv --print-gpu-trace: banner lines, the header (nvprof quotes it), a units row, then one row per event
_NVP_HEADER = ["Start", "Duration", "Grid X", "Grid Y", "Grid Z", "Block X", "Block Y", "Block Z",
               "Registers Per Thread", "Static SMem", "Dynamic SMem", "Size", "Throughput", "SrcMemType", "DstMemType",
               "Device", "Context", "Stream", "Name", "Correlation_ID"]
_NVP_UNITS = ["ms", "us", "", "", "", "", "", "", "", "KB", "B", "MB", "GB/s", "", "", "", "", "", "", ""]
_V100 = "Tesla V100-SXM2-16GB (0)"
_NVP_ROWS = [
    ["0.100000", "5.000", "", "", "", "", "", "", "", "", "", "4.000000", "0.8", "Pageable", "Device", _V100, "1",
     "7", "[CUDA memcpy HtoD]", "1"],
    ["0.110000", "20.000", "108", "1", "1", "256", "1", "1", "64", "0.000000", "0", "", "", "", "", _V100, "1", "7",
     "gemm_kernel(float*, int)", "2"],
    ["0.140000", "30.500", "108", "1", "1", "256", "1", "1", "64", "0.000000", "0", "", "", "", "", _V100, "1", "7",
     "gemm_kernel(float*, int)", "3"],
]


_NVP_BANNER = ("==123== NVPROF is profiling process 123, command: ./a.out\n==123== Profiling application: ./a.out\n"
               "==123== Profiling result:\n")


@pytest.mark.parametrize("quoting", [csv.QUOTE_ALL, csv.QUOTE_MINIMAL], ids=["quoted", "bare"])
def test_nvprof_gpu_trace_read_whatever_the_quoting(tmp_path, quoting):
    path = _write(tmp_path / "nvprof_gpu_trace.csv", quoting, (_NVP_HEADER, _NVP_UNITS, *_NVP_ROWS), _NVP_BANNER)
    if quoting == csv.QUOTE_MINIMAL:
        assert "\nStart,Duration,Grid X," in path.read_text()  # the case under test
    src = gpulens.analyze([path]).sources[0]
    hot = src.results["hotspots"].summary
    assert hot["kernel_count"] == 2
    assert hot["kernel_time_ns"] == 20_000 + 30_500  # Duration is in us (units row): 20.000 us + 30.500 us
    ev = src.timeline.events
    k = ev[ev["kind"] == "kernel"].sort_values("start_ns")
    assert k["start_ns"].tolist() == [110_000, 140_000]  # Start in ms: 0.110000 ms, 0.140000 ms
    assert set(k["stream_id"]) == {7} and set(k["regs_per_thread"]) == {64}
    assert (ev["kind"] == "memcpy").sum() == 1
