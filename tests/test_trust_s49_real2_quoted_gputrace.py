"""nsys ``cuda_gpu_trace`` / ``gputrace`` CSV with every field quoted is still that report.

Kind of fault: the per-kernel trace report was recognised only when its header started with a bare ``Start``; the
same table saved with every field quoted (``"Start (ns)","Duration (ns)",…`` — Python's ``csv.QUOTE_ALL``,
spreadsheet tools, the quoting other nsys/nvprof/ncu CSVs use) was refused as "not a recognised trace format",
while the quoted kernel-summary report of the same tool was read. Expected values are computed by hand from the rows
written in the test (durations in ns, ``Bytes (MB)`` in SI megabytes with three decimals).
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


def _write(path, quoting):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=quoting, lineterminator="\n")
        w.writerow(_HEADER)
        w.writerows(_ROWS)
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
