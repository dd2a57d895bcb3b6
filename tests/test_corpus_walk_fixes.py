"""Classes found by the newcomer walk of the README (closing review of 2026-12-01).

- Kernel categories: ``fbgemm_gpu`` embedding/permute/quantise kernels are not GEMMs because their namespace
  contains the letters "gemm"; real GEMM kernels (cuBLAS/CUTLASS, Tensile ``Cijk_``) still are.
- Counter-collection replays (ncu) have no workload timeline: the critical path is skipped, not computed from the
  replay's serialised kernels.
"""

from pathlib import Path

import gpulens
from gpulens.analyzers._categories import kernel_category

DATA = Path(__file__).parent / "data" / "nvidia"


def test_fbgemm_namespace_is_not_a_gemm():
    not_gemm = ["void fbgemm_gpu::split_embedding_codegen_forward_kernel<float>(int)",
                "void fbgemm_gpu::permute_2D_data_kernel<float, int>(int)",
                "void fbgemm_gpu::bounds_check_indices_kernel<long>(long)"]
    assert [kernel_category(n) for n in not_gemm] != ["GEMM"] * 3
    assert all(kernel_category(n) != "GEMM" for n in not_gemm)
    assert kernel_category("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn>") \
        == "GEMM"
    assert kernel_category("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8") == "GEMM"


def test_counter_replay_has_no_critical_path():
    rep = gpulens.analyze([DATA / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"])
    cp = rep.sources[0].results["critical_path"]
    assert cp.skipped and "no workload timeline" in cp.skipped_reason
    assert not [f for f in rep.sources[0].findings() if f.category == "critical-path"]
