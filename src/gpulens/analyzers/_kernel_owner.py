"""Who owns a kernel's code and what kind of kernel it is, from its name (and, for Triton, the trace): the kernel
family (:func:`family`), library kernels (:func:`is_library`, :func:`own_name`), the code owner (:func:`code_owner`:
library / PyTorch ATen / Inductor / nvFuser / Triton / the user's own), Triton-generated kernels of a trace
(:func:`triton_kernels`) and the step fitting the owner (:func:`owned_kernel_step`). The advice of
:mod:`gpulens.analyzers._advice` is built on these (its module docstring says what each owner is told).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._categories import kernel_category, op_category

#: Kernel families the advice distinguishes (``_categories`` names, lower-cased).
FAMILIES = ("gemm", "attention", "normalisation", "elementwise", "communication", "copy", "other")

#: Kernels whose code the user does not own: prebuilt vendor-library cubins/code objects and the kernels of
#: libraries compiled with their own tuned launch configuration. Families and where their names come from:
#: cuBLAS/cuBLASLt (``volta_``/``turing_``/``ampere_``/``hopper_``/``sm90_xmma``…, ``nvjet_`` on Hopper/Blackwell,
#: ``gemv2N_kernel``, ``gemmSN_``, ``gemmk1_``, ``sgemm_largek_lds64``, ``splitKreduce_kernel``); cuDNN (``cudnn``,
#: ``implicit_convolve_sgemm``, ``explicit_convolve_sgemm``, ``precomputed_convolve_sgemm``, ``fft2d_r2c_16x16``,
#: ``flip_filter``, ``winograd``, ``dgrad_engine``, ``wgrad_alg``); TensorRT-LLM / FlashInfer trtllm-gen cubins
#: (``bmm_<dtype>_…_t128x16x256…_sm100``); CUTLASS instances; Tensile/hipBLASLt (``Cijk_``), rocBLAS, MIOpen
#: (``MIOpen*``, ``igemm_fwd_gtcx3_…``, ``Im2d2Col``, ``SubTensorOp…``, ``batched_transpose_16x64…``,
#: ``transpose_NCHW2CNHW…``); Composable Kernel (mangled ``_ZN2ck``/``7ck_tile``); FlashAttention. Matched anywhere
#: in the name (these words do not occur as mere template arguments of other code).
_LIBRARY = re.compile(r"cudnn|cublas|\bvolta_|\bturing_|\bampere_|\bhopper_|\bmaxwell_|\bsm[0-9]+_xmma|"
                      r"\bsm[0-9]+_|xmma_|nvjet|cutlass|Cijk_|miopen|MIOpen|hipblaslt|rocblas|\bck::|\bck_tile::|"
                      r"_ZN2ck[0-9]|[0-9]ck_tile[0-9]|"
                      r"composable_kernel|implicit_gemm|(?:implicit|explicit|precomputed)_convolve_sgemm|"
                      r"\bgemv2?[NT]?_kernel|\bgemv2[NT]|\bgemmSN_|\bgemmk1_|\bsgemm_largek|splitKreduce_kernel|"
                      r"dgrad_engine|wgrad_alg|fft\w*_kernel|\bfft[0-9]?d_(?:r2c|c2r|c2c)|\bflip_filter\b|winograd|"
                      r"\bbmm_(?:Mx)?(?:E[0-9]m[0-9]|Bfloat16|Fp16|Fp32|Fp8|Int8)_|"
                      r"\bigemm_(?:fwd|bwd|wrw)_gtc|\bIm2d2Col|\bCol2Im|\bSubTensorOp|"
                      r"\bbatched_transpose_[0-9]+x[0-9]+|"
                      r"\btranspose_(?:NCHW2CNHW|CNHW2NCHW)|_ZN5aiter|flash_(?:fwd|bwd)|flash_attn|fmha", re.I)
#: Library namespaces, matched only in the kernel's own qualified name (template arguments and parameters removed:
#: ``at::native::reduce_kernel<…thrust::pair…>`` is PyTorch's kernel, not Thrust's): CUB/hipCUB/rocPRIM/Thrust
#: (their tuning policies fix block size and registers), TensorRT-LLM (``tensorrt_llm::``, ``moe::dev::``),
#: FlashInfer, FBGEMM-GPU, vLLM, AITER and SGLang custom-op kernels (built into their wheels), CK.
_LIBRARY_NS = re.compile(r"^(?:at_cuda_detail::cub|cub|hipcub|rocprim|thrust|tensorrt_llm|moe::dev|flashinfer|fbgemm_gpu|vllm|aiter|"
                         r"sgl_hip|sgl_kernel|ck|ck_tile)::")
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>|\([^()]*\)")


def own_name(name: str) -> str:
    """The kernel's own qualified name: template arguments, parameter lists and the return type removed
    (``std::enable_if<…>::type vllm::rms_norm_kernel<c10::BFloat16>(…)`` → ``vllm::rms_norm_kernel``)."""
    prev, s = None, name
    for _ in range(64):  # nested brackets: innermost first
        if s == prev:
            break
        prev, s = s, _TEMPLATE_ARGS.sub("", s)
    parts = s.split()
    return parts[-1] if parts else s


_PYTORCH_KERNEL = re.compile(r"at::native::|at::cuda::|\bc10::|pytorch_flash|\btriton_(?:poi|red|per|tem)_|"
                             r"\bat_cuda_detail", re.I)


def family(name: str | None, op: str | None = None) -> str:
    """The kernel's family (one of :data:`FAMILIES`): from its name, else from its launching op's name."""
    cat = kernel_category(name)
    if cat == "other" and op:
        cat = op_category(op)
    return "gemm" if cat == "GEMM" else cat


def is_library(name: str | None) -> bool:
    """True for a kernel whose code the user does not own (:data:`_LIBRARY`, :data:`_LIBRARY_NS`): cuDNN, cuBLAS(Lt),
    TensorRT-LLM cubins, CUTLASS instances, rocBLAS/hipBLASLt/Tensile, MIOpen, CK, CUB/rocPRIM, FlashAttention,
    vendor/custom-op libraries. Its registers and block size are fixed by the library: advice is about the problem
    it is given (shape, dtype, batching) or the algorithm the library picks, never ``__launch_bounds__``."""
    return bool(isinstance(name, str) and (_LIBRARY.search(name) or _LIBRARY_NS.search(own_name(name))))


#: PyTorch's own kernels (ATen): built into the torch wheel with launch configurations the user does not set.
_ATEN_KERNEL = re.compile(r"^(?:at::|at_cuda_detail::|c10::|pytorch_flash::)|(?:^|::)(?:cunn_|softmax_warp_|"
                          r"indexing_backward_kernel)")
#: Kernels TorchInductor generated (``triton_poi_``/``triton_red_``/``triton_per_``/``triton_tem_``…): their block
#: sizes, ``num_warps`` and ``num_stages`` come from Inductor's Triton configs.
_INDUCTOR_KERNEL = re.compile(r"^triton_(?:poi|red|per|tem|mm|bmm)_", re.I)
#: Kernels nvFuser generated (``nvfuser_none_f0_c0_r0_g0``, ``<unnamed>::nvfuser_pointwise_…``): its scheduler picks
#: their block size, unrolling and register cap.
_NVFUSER_KERNEL = re.compile(r"(?:^|::)nvfuser_")


def code_owner(name: str | None, hint: str | None = None) -> str:
    """Who sets the kernel's launch configuration and register budget: ``library`` (:func:`is_library`),
    ``pytorch`` (an ATen kernel of the torch wheel), ``inductor`` (a TorchInductor-generated Triton kernel),
    ``nvfuser`` (a kernel nvFuser generated), ``triton`` / ``aotriton`` (a Triton kernel the trace shows —
    ``hint``, from :func:`triton_kernels`: its meta-parameters, not per-thread code, set its configuration), else
    ``user`` (code the user compiles: ``__launch_bounds__``/``-maxrregcount`` apply)."""
    if not isinstance(name, str):
        return "user"
    if is_library(name):
        return "library"
    own = own_name(name)
    if _INDUCTOR_KERNEL.search(own):
        return "inductor"
    if hint in ("triton", "aotriton"):
        return hint
    if _NVFUSER_KERNEL.search(own):
        return "nvfuser"
    if _ATEN_KERNEL.search(own):
        return "pytorch"
    return "user"


#: Launch calls of compiled code objects (the driver / module API): how Triton's launcher starts its kernels (CUDA
#: ``cuLaunchKernel(Ex)``, HIP ``hipModuleLaunchKernel``), where ATen kernels go through ``cudaLaunchKernel`` /
#: ``hipLaunchKernel``.
_MODULE_LAUNCH = re.compile(r"^(?:cuLaunchKernel(?:Ex)?|hipModuleLaunchKernel)(?:_v[0-9]+)?$")
#: A Triton kernel's name is its Python function's: one identifier, no C++ signature or namespace.
_BARE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: PyTorch's attention ops whose ROCm kernels are AOTriton's (Triton kernels compiled and tuned when PyTorch is built).
_AOTRITON_OPS = re.compile(r"(?:_flash_attention|_efficient_attention|_scaled_dot_product_(?:flash|efficient)"
                           r"_attention)(?:_forward|_backward)?\b")


def triton_kernels(timeline: Any) -> dict[str, str]:
    """Kernel name → ``"triton"`` / ``"aotriton"`` for the kernels the trace shows to be Triton-generated (computed
    once per Timeline): a bare identifier as name, launched through the module API (:data:`_MODULE_LAUNCH`), and
    either Triton in the trace (an event whose name says ``triton``: Triton's Python launcher frames, Inductor's
    ``triton_`` kernels) → ``triton``, or launched by one of PyTorch's attention ops through HIP (ROCm's AOTriton
    kernels, e.g. ``attn_fwd`` under ``aten::_flash_attention_forward``) → ``aotriton``. Inductor's own
    ``triton_*`` kernels are :func:`code_owner`'s ``inductor`` already."""
    from gpulens.analyzers.context import context_of, first_seen_codes, reindex_sorted, text_series

    ctx = context_of(timeline)

    def compute() -> dict[str, str]:
        # the kernel rows' names only: the full-width kernel frame (ctx.of_kind, ~190 MiB at 1M kernels) would be
        # built here in occupancy and held to bottlenecks, under the command's peak
        kname = timeline.events["name"][ctx.mask_of("kernel")]
        if not len(kname):
            return {}
        codes, uniq = first_seen_codes(kname)
        if (codes < 0).any():  # a kernel without a name: per-row strings, as before (the rule reads each one)
            uniq = text_series(kname).astype(str).to_numpy()
            codes = np.arange(len(uniq))
        # the rule depends on the name alone: decided once per distinct name, not once per kernel
        bare_u = np.fromiter((bool(_BARE_NAME.match(n)) and not is_library(n) for n in uniq), bool, len(uniq))
        bare = bare_u[codes]
        if not bare.any():
            return {}
        # by row position (the kernel rows are GPU rows): no hash index of a million labels
        lid = reindex_sorted(ctx.links["launch_event_id"], kname.index).to_numpy(dtype="float64", na_value=np.nan)
        ok = bare & ~np.isnan(lid)
        if not ok.any():
            return {}
        launch = np.asarray(ctx.event_values("name", lid[ok].astype("int64")), dtype=object)
        # launch-call and op names decided once per distinct name (missing names: code -1, never a match)
        lcodes, lnames = pd.factorize(launch)
        module_u = np.append(np.fromiter((isinstance(c, str) and bool(_MODULE_LAUNCH.match(c)) for c in lnames), bool,
                                         len(lnames)), False)
        hip_u = np.append(np.array([str(c).startswith("hip") for c in lnames], dtype=bool), False)
        module = module_u[lcodes]
        rows = np.flatnonzero(ok)[module]
        if not rows.size:
            return {}
        col = timeline.events["name"]
        cats = col.cat.categories if isinstance(col.dtype, pd.CategoricalDtype) else col.dropna().unique()
        triton_seen = any(isinstance(n, str) and "triton" in n.lower() for n in cats)
        hip = hip_u[lcodes[module]]
        aot = np.zeros(rows.size, dtype=bool)
        if hip.any():  # the launching op matters for HIP launches only: no op tree built for a CUDA trace here
            from gpulens.analyzers._optree import gpu_op_links

            ops = gpu_op_links(timeline).reindex(kname.index[rows]).to_numpy(dtype="float64", na_value=np.nan)
            op_names = np.full(rows.size, None, dtype=object)
            has = ~np.isnan(ops)
            if has.any():
                op_names[has] = ctx.event_values("name", ops[has].astype("int64"))
            ocodes, onames = pd.factorize(op_names)
            aot = np.append(np.array([isinstance(o, str) and bool(_AOTRITON_OPS.search(o)) for o in onames],
                                     dtype=bool), False)[ocodes]
        # per launched kernel: 1 aotriton (HIP launch under an AOTriton op), 2 triton (Triton seen), 0 nothing; a
        # name takes the label of its first labelled kernel, names in that order
        label = np.where(hip & aot, 1, 2 if triton_seen else 0)
        lab = label > 0
        name_codes, label = codes[rows][lab], label[lab]
        _, first = np.unique(name_codes, return_index=True)
        return {str(uniq[name_codes[i]]): ("aotriton" if label[i] == 1 else "triton") for i in np.sort(first)}

    return ctx.memo("triton_kernels", compute)


#: The step for a Triton kernel: its meta-parameters, never per-thread code (Triton has no __launch_bounds__).
_TRITON_KNOBS = ("its Triton meta-parameters: the BLOCK sizes (BLOCK_M / BLOCK_N / BLOCK_K…), num_warps and "
                 "num_stages — try other configs with triton.autotune")


def owned_kernel_step(name: str | None, fam: str, hint: str | None = None) -> str:
    """The latency-bound step for a kernel whose code the user does not write (:func:`code_owner` ``pytorch``,
    ``inductor``, ``nvfuser``, ``triton`` or ``aotriton``): the lever is what generates or calls it, never its
    per-thread code."""
    owner = code_owner(name, hint)
    if owner == "inductor":
        return ("Its code is Inductor's: let torch.compile mode=\"max-autotune\" try other Triton configs, or change "
                "what it fuses (torch._inductor.config) so each kernel gets more work.")
    if owner == "triton":
        return (f"It is a Triton kernel: its launch configuration comes from {_TRITON_KNOBS} (smaller BLOCK sizes "
                "give more programs to fill the GPU; more num_stages hide memory latency at the cost of shared "
                "memory).")
    if owner == "aotriton":
        return ("It is one of PyTorch's AOTriton kernels (Triton, compiled and tuned when PyTorch was built): its "
                "BLOCK sizes, num_warps and num_stages are fixed by AOTriton's tuning table — give it a shape that "
                "table covers (head dimension, sequence length, batch × heads) or use another attention backend "
                "(torch.nn.attention.sdpa_kernel).")
    if owner == "nvfuser":
        return ("Its code is nvFuser's: try another schedule (unroll/vectorisation, the fusion's segmentation) so "
                "each kernel gets more work.")
    low = str(name).lower()
    # a log-softmax (LogSoftMaxForwardEpilogue: cross-entropy over the vocabulary) is a loss, not attention
    soft = (" — for a cross-entropy loss, a fused or chunked cross-entropy (torch.compile fuses log-softmax with the "
            "loss)" if "logsoftmax" in low else
            " — for attention, scaled_dot_product_attention instead of matmul + softmax" if "softmax" in low else "")
    return ("It is PyTorch's built-in kernel: fuse it with its neighbours (torch.compile generates its own kernel) or "
            f"call an op that does the work in fewer, larger kernels{soft}.")
