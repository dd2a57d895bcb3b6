"""Fault classes found on real profiler outputs of public projects (eighth session, inputs helper; the real files
were fetched into /tmp/extra4 for local testing only and are not redistributed). Each class has a small inline
reproduction whose expected values are worked out from the rows written in the test.

Sources:
* ByungHyun21/LLM170 @ 1b035e1d : results.csv — rocprof v1 kernel trace of an RDNA GPU (wave_size 32) whose
  ``__amd_rocclr_copyBuffer`` blit rows sometimes end before they start (``DurationNs`` -756, -1042, …).
"""

from __future__ import annotations

import json

from gpulens.cli import main
from gpulens.collectors import collect

# --- class 1: rejected copy rows (end before start) are not counted as kernel launches

_V1_HEADER = ('"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr",'
              '"arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs",'
              '"DurationNs"\n')


def _v1_row(i: int, name: str, begin: int, end: int) -> str:
    return (f'{i},"{name}",1,0,{2 * i},611771,611771,512,512,0,0,16,0,128,32,"0x0","0x7510208257c0",'
            f'{begin - 1000},{begin},{end},{end + 1000},{end - begin}\n')


def test_copy_only_trace_with_negative_duration_rows_has_no_kernels(tmp_path):
    # rows shaped like LLM170's results.csv: three copyBuffer blits, the second ends 756 ns before it starts
    rows = [(0, 255625569646973, 255625569649895),   # 2922 ns
            (1, 255625569903820, 255625569903064),   # end < start: rejected
            (2, 255625569959932, 255625569962022)]   # 2090 ns
    p = tmp_path / "results.csv"
    p.write_text(_V1_HEADER + "".join(_v1_row(i, "__amd_rocclr_copyBuffer.kd", b, e) for i, b, e in rows))
    tl = collect(p)
    assert len(tl.rejected) == 1
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    s = json.loads(out.read_text())["sources"][0]["summary"]
    # the blits are copies (HIP runtime blit kernels), so the run has no kernel launch at all — the rejected copy
    # row was counted as "1 launch of 1 kernel, unknown summed" before
    assert s["kernel_count"] == 0
    assert s["kernel_time_ns"] == 0
    assert s["memcpy_count"] == 2
    # busy = the two valid copies, 2922 + 2090 ns
    assert s["gpu_busy_ns"] == 2922 + 2090


def test_rejected_kernel_rows_still_counted_when_no_kernel_is_timed(tmp_path):
    # the same fallback keeps kernels whose only rows were rejected: one copy is timed, the GEMM row is broken
    p = tmp_path / "results.csv"
    p.write_text(_V1_HEADER + _v1_row(0, "__amd_rocclr_copyBuffer.kd", 1000, 3000)
                 + _v1_row(1, "Cijk_Ailk_Bljk_HB_MT64x64x32.kd", 5000, 4000))
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    s = json.loads(out.read_text())["sources"][0]["summary"]
    assert s["kernel_count"] == 1          # the GEMM dispatch, duration unknown
    assert s["kernel_time_ns"] is None
