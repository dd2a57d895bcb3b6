"""kernel_key: the same kernel recorded mangled, demangled by GNU's or NVIDIA's demangler, or with AMD's ``.kd``
suffixes gets one key. The pairs below are real records: each mangled name and its demangled spelling were written
by the profiler into the same file (nsys ``CUPTI_ACTIVITY_KIND_KERNEL.mangledName``/``demangledName`` of
NVIDIA/Fuser's report1.sqlite, BSD-3-Clause; rocprofv3 ``kernel_symbols`` of AMD-AGI/TraceLens's
908_results.json.gz, MIT — see ../shared/traces/SOURCES.md)."""

from __future__ import annotations

import sqlite3

import pytest

from gpulens.timeline.names import kernel_key
from tests.conftest import shared_trace

pytest.importorskip("cxxfilt")

# rocprofv3 JSON (MI350X): kernel_symbols records `kernel_name` (mangled, `.kd`) and `formatted_kernel_name`
# / Kineto-style `[clone .kd]` spellings of the same RCCL kernel.
ROCPROF_MANGLED = "_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE.kd"
ROCPROF_DEMANGLED = "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)"
ROCPROF_CLONE = "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>) [clone .kd]"

# nsys 2024.6 (H200): mangledName and NVIDIA-demangled demangledName of one PyTorch fill kernel.
NSYS_MANGLED = (
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIN3c104HalfEEESt5arrayIPcLm1EEEEviT0_T1_"
)
NSYS_DEMANGLED = (
    "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<c10::Half>, "
    "std::array<char *, (unsigned long)1>>(int, T2, T3)"
)
# The same kernel as Kineto names it (GNU __cxa_demangle spelling, as in TraceLens's MI300X bert trace).
KINETO_SPELLING = (
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, std::array<char*, 1ul> >"
    "(int, at::native::FillFunctor<c10::Half>, std::array<char*, 1ul>)"
)


def test_rocprof_mangled_kd_and_clone_spellings_share_one_key():
    # c++filt of the mangled symbol (without `.kd`) is the formatted name rocprofv3 itself wrote.
    assert kernel_key(ROCPROF_MANGLED) == ROCPROF_DEMANGLED
    assert kernel_key(ROCPROF_CLONE) == ROCPROF_DEMANGLED
    assert kernel_key(ROCPROF_DEMANGLED) == ROCPROF_DEMANGLED


def test_nsys_mangled_nvidia_demangled_and_kineto_spellings_share_one_key():
    keys = {kernel_key(NSYS_MANGLED), kernel_key(NSYS_DEMANGLED), kernel_key(KINETO_SPELLING)}
    # The template arguments identify the instantiation; blanks and cast spellings are unified by hand:
    assert keys == {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, "
                    "std::array<char*, 1ul>>"}


def test_distinct_kernels_keep_distinct_keys():
    # Overloads of a non-template kernel differ only by their parameters: they must not merge.
    assert kernel_key("_Z6vecAddPfS_S_i") == "vecAdd(float*, float*, float*, int)"
    assert kernel_key("_Z6vecAddPdS_S_i") != kernel_key("_Z6vecAddPfS_S_i")
    # Different template arguments (4 vs 8) stay different.
    assert kernel_key(KINETO_SPELLING) != kernel_key(KINETO_SPELLING.replace("<4,", "<8,"))


def test_plain_names_only_lose_blanks_and_suffixes():
    assert kernel_key("  ampere_sgemm_128x64_nn ") == "ampere_sgemm_128x64_nn"
    assert kernel_key("__amd_rocclr_copyBuffer.kd") == "__amd_rocclr_copyBuffer"
    assert kernel_key("triton_poi_fused_add_0") == "triton_poi_fused_add_0"
    # something that looks mangled but is not valid stays as recorded
    assert kernel_key("_Zgarbage") == "_Zgarbage"


def test_nvidia_lambda_and_anonymous_namespace_spellings():
    nv = "void f<at::native::<unnamed>::Op, g()::[lambda(float) (instance 2)]>(T1, T2)"
    gnu = "void f<at::native::(anonymous namespace)::Op, g()::{lambda(float)#2}>(at::native::(anonymous namespace)::Op)"
    assert kernel_key(nv) == kernel_key(gnu)


def test_every_nsys_record_pair_of_the_corpus_matches():
    """Every kernel of the real nsys exports: key(mangledName) == key(demangledName), except kernels whose template
    arguments contain function types (NVIDIA prints nested return types and `const T &` where GNU prints `T const&`);
    counted from the SQL below: 32 of 33 distinct pairs in the three exports."""
    pairs = set()
    for rel in ("nsys/fuser_h200_nsys2024.6_report1.sqlite", "nsys/lashi_rtx4090_streamSimple.sqlite",
                "nsys/memfusion_rtx3090_report1.sqlite"):
        con = sqlite3.connect(f"file:{shared_trace(rel)}?mode=ro", uri=True)
        try:
            pairs |= set(con.execute(
                "select distinct m.value, d.value from CUPTI_ACTIVITY_KIND_KERNEL k "
                "join StringIds m on k.mangledName = m.id join StringIds d on k.demangledName = d.id"))
        finally:
            con.close()
    matched = sum(kernel_key(m) == kernel_key(d) for m, d in pairs)
    assert len(pairs) == 33
    assert matched >= 32


def test_comparison_inside_a_template_argument_closes_nothing():
    # TraceLens B200 trace: vLLM's kernel returns std::enable_if<((8)>(0)) && …, void>::type; the `>` of the
    # comparison closed the template and the kernel read "enable_if"
    from gpulens.reports._names import base_name

    name = ("std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
            "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, "
            "c10::BFloat16 const*, float, int, int)")
    assert base_name(name) == "fused_add_rms_norm_kernel"
    assert base_name("void k<(3<4), float>(float*)") == "k"


def test_a_generic_kernel_returning_enable_if_is_named_by_its_namespace_not_the_return_type():
    """cuBLAS' ``std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, …, (int)7, …>``
    (an nsys kern_sum CSV of an RTX 5090, fresh-user walk): the label read ``T7 ‹7›`` — the return type's template
    argument taken for the wrapper's. The function is ``internal::gemvx::kernel``; its first template argument is a
    scalar type, which names no kernel, so the label is ``gemvx::kernel``; the two variants differ by their 7 / 6."""
    from gpulens.reports._names import base_name, short_names

    def name(k):
        return ("std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, __nv_bfloat16, "
                f"__nv_bfloat16, float, (bool)0, (bool)1, (bool)1, (bool)0, (int){k}, (bool)0, cublasGemvParamsEx<int, "
                "cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensor<__nv_bfloat16>, float> >"
                "(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, "
                "cublasGemvTensor<__nv_bfloat16>, float>)")

    assert base_name(name(7)) == "gemvx::kernel"
    labels = short_names([name(7), name(6)])
    assert labels[0].startswith("gemvx::kernel") and labels[1].startswith("gemvx::kernel") and labels[0] != labels[1]
    assert not any("T7" in x for x in labels)
    # a wrapper whose first template argument is a kernel functor still reads as that functor
    assert base_name("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_tn_align4>(Params)") == \
        "cutlass_80_tensorop_s1688gemm_64x64_tn_align4"


@pytest.mark.parametrize("name", [
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT",  # cuBLAS on an H200 (tests/data/nvidia/h200)
    "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NTN",
])
def test_a_tile_the_clipped_start_shows_is_not_repeated(name):
    """'nvjet_sm90_tst_256x128… 256x128 64x4 1x2' said its first tile twice: the clipped start already showed it.
    Every tile of the label appears once: the start stops before the first tile it would hold."""
    from gpulens.reports._names import _TILE, short_name

    label = short_name(name)
    tiles = _TILE.findall(label.replace("…", " "))
    assert len(tiles) == len(set(tiles)) and tiles
    assert label.startswith("nvjet_sm90_tst… ") and label.split("… ")[1].split()[0] == name.split("_")[3]


def test_a_cut_mangled_name_is_labelled_by_its_classes_and_shapes():
    """cuDNN's CUTLASS wgrad convolutions in the H200 ResNet-18 trace are mangled names cut short (no demangler reads
    them): they were labelled 'cutlass__5x_cudnn::Kernel ‹4gemm9GemmShapeILi64ELi128ELi32EEENS4…›', a raw mangled
    fragment. The kernel template's first class names the kernel, its GemmShape<M, N, K> tells them apart."""
    import gzip
    import json
    import re

    from gpulens.reports._names import short_names
    from tests.conftest import DATA

    with gzip.open(DATA / "nvidia" / "h200" / "h200_resnet18_train.pt.trace.json.gz", "rt") as fh:
        ev = json.load(fh)["traceEvents"]
    cut = sorted({e["name"] for e in ev if e.get("cat") == "kernel" and e["name"].startswith("_Z")})
    assert len(cut) == 3
    # each name's threadblock shape, as its mangled text spells it: 9GemmShapeILi<M>ELi<N>ELi<K>E
    shapes = [re.search(r"9GemmShapeILi(\d+)ELi(\d+)ELi(\d+)E", n).groups() for n in cut]
    labels = short_names(cut)
    assert len(set(labels)) == 3
    for label, shape in zip(labels, shapes):
        assert label.startswith("ImplicitGemmConvolution ‹") and "x".join(shape) in label
        assert "ILi" not in label and "EEE" not in label
