"""T05 variants (../shared/cases/README.md): ROCm blit kernels of other shapes (``copyBufferRect``, ``copyImage``,
``copyBufferToImage``, ``fillBuffer``, ``fillImage``) in a rocprofv3 ``kernel_trace.csv``, on two queues, one hidden
under the GEMM: copies and fills, never computation. Figures derived by hand (ns)."""

from __future__ import annotations

import json

from gpulens.cli import main

HEADER = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
          '"Correlation_Id","Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size",'
          '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')


def test_blit_kernels_on_two_queues_in_rocprofv3_csv(tmp_path):
    """GEMM [1000,101000] queue 1: computation 100,000. copyBufferRect [50000,70000] queue 2: hidden under it.
    fillBuffer [101000,104000] and fillImage [130000,131000]: fills, exposed 3000 + 1000 = 4000.
    copyImage [110000,118000] q1 and copyBufferToImage [115000,125000] q2: copies, exposed union 15,000.
    Busy = [1000,104000] ∪ [110000,125000] ∪ [130000,131000] = 119,000 of span 130,000; 3 copies (38,000 ns),
    2 fills (4,000 ns), sizes unknown."""
    ks = [("Cijk_Ailk_Bljk_HHS_BH_MT64x64x32_x", 1, 1000, 101000), ("__amd_rocclr_copyBufferRect", 2, 50000, 70000),
          ("__amd_rocclr_fillBuffer", 1, 101000, 104000), ("__amd_rocclr_copyImage", 1, 110000, 118000),
          ("__amd_rocclr_copyBufferToImage", 2, 115000, 125000), ("__amd_rocclr_fillImage", 1, 130000, 131000)]
    p = tmp_path / "kernel_trace.csv"
    p.write_text(HEADER + "".join(f'"KERNEL_DISPATCH",1,{q},0,100,{i},{i},"{n}",{i},{s},{e},0,0,256,1,1,1024,1,1\n'
                                  for i, (n, q, s, e) in enumerate(ks, 1)))
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    sm = src["summary"]
    assert (sm["kernel_count"], sm["computation_ns"], sm["gpu_busy_ns"], sm["span_ns"]) == (1, 100_000, 119_000, 130_000)
    assert (sm["exposed_memcpy_ns"], sm["exposed_memset_ns"], sm["memcpy_count"]) == (15_000, 4_000, 3)
    co = src["analyses"]["copies"]["summary"]
    assert (co["copies"], co["copy_time_ns"], co["fills"], co["fill_time_ns"]) == (3, 38_000, 2, 4_000)
    assert co["copy_bytes"] is None and co["copy_sizes_unknown"] == 3
    assert [r["name"] for r in src["analyses"]["hotspots"]["table"]] == ["Cijk_Ailk_Bljk_HHS_BH_MT64x64x32_x"]
