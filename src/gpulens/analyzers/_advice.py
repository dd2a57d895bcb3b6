"""Next steps that fit the kernel and the program: every sentence that names a technique is gated on what the input
shows, so a batch-norm kernel is never told to use split-K and a plain CUDA program is never told to use
torch.compile.

What is known, and from where:

* **kernel family** (:func:`~gpulens.analyzers._kernel_owner.family`): the kernel's name through :mod:`gpulens.analyzers._categories` (``gemm``,
  ``cutlass``, ``xmma``, ``conv``/``dgrad``/``wgrad``... → GEMM; ``flash``/``fmha``/``attn`` → attention;
  ``layer_norm``/``bn_``/``softmax`` → normalisation; ...), else its launching framework op's name. Split-K is a
  GEMM technique (the K dimension of a matrix product split across blocks, partial sums reduced; CUTLASS "split-K",
  cuBLAS ``CUBLASLT_ALGO_CONFIG_SPLITK_NUM``); split-KV is its attention form (FlashDecoding: the key/value sequence
  split across blocks, ``num_splits`` in FlashAttention). Neither exists for a normalisation or elementwise kernel.
* **who owns the kernel's code** (:func:`code_owner`): a library kernel (:func:`is_library`: cuDNN, cuBLAS(Lt) incl.
  ``nvjet``/``sm90_xmma``, TensorRT-LLM cubins ``bmm_E4m3…``, CUTLASS instances, rocBLAS/hipBLASLt/Tensile
  (``Cijk_``), MIOpen incl. its ``igemm_*_gtc`` assembly, CK, CUB/rocPRIM, FlashAttention, vendor custom-op
  libraries) has its registers and shared memory fixed by the library: the user picks another algorithm or shape,
  not ``__launch_bounds__``; a PyTorch ATen kernel is changed by fusion (torch.compile) or another op; an Inductor or
  nvFuser kernel by its generator's configuration; only the user's own kernels get source-level advice.
* **PyTorch present** (:func:`uses_pytorch`): the input was written by the PyTorch profiler (Kineto collector), or
  it records ``aten::`` operators, Python frames, or kernels only PyTorch builds (``at::native::``, ``c10::``,
  ``pytorch_flash``, Inductor's ``triton_`` kernels). Only then do steps name torch.compile, DataLoader, DDP/FSDP,
  ``.item()`` or torch.profiler options.
* **training or inference** (:func:`trains`): a PyTorch input that records a backward pass (autograd ``*Backward``
  functions, ``autograd::engine``, ``backward`` frames, ``*_bwd`` kernels) or an optimizer step is training; one
  that records none is inference. Only training is told to overlap collectives "during backward" (DDP bucketing,
  FSDP prefetch); inference is told to overlap them with the other independent work of its forward pass.
* **precision** (the roofline's precision and roof of the kernel's FLOPs): a kernel already on tensor cores / MFMA at
  BF16/FP16 is not told to "use a lower precision (TF32, BF16)" — FP8 is what is left; one at FP8/INT8 is told
  nothing about precision; a GEMM on the vector units is told to use tensor cores.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# the kernel's family and code owner (family, owned_kernel_step and triton_kernels are used as _advice.<name>)
from gpulens.analyzers._kernel_owner import (_PYTORCH_KERNEL, code_owner, family, is_library,  # noqa: F401
                                             owned_kernel_step, triton_kernels)
from gpulens.analyzers._advice_vendor import (HOST_TRACE, PROFILER_RANGE, VENDOR_WORDS,  # noqa: F401
                                               _runtime_vendor, amd_block_words, for_vendor, host_trace,
                                               profiler_range,
                                               vendor_of, vendor_text, vendor_word)
from gpulens.analyzers._advice_run import (  # noqa: F401 (re-exported)
    COPY_WAIT_SHARE, IDLE_ACTIONS, IDLE_DETAILS, _P2P, _SETUP_CALL, _TRAINING, busy_wait_action, comm_steps,
    exposed_comm_detail, exposed_copy_detail, host_path_action, idle_text, is_setup_call, pin_step, runtime_path_action, setup_step, trains, uses_pytorch)


#: A kernel name that says the kernel already splits its reduction dimension: split-KV attention
#: (``flash_fwd_splitkv_kernel``, FlashDecoding) or split-K GEMM (``…_splitK_…``, ``…splitk…``).
_SPLIT_KV = re.compile(r"split_?kv", re.I)
_SPLIT_K = re.compile(r"split_?k(?!v)", re.I)


def more_blocks(fam: str, library: bool = False, name: str | None = None, hint: str | None = None) -> str:
    """How to give a launch more blocks, for a kernel of family ``fam`` (one imperative sentence); a library kernel's
    grid follows from the problem it is given (an AOTriton kernel is one: ``hint``, :func:`triton_kernels`), a Triton
    kernel's from its BLOCK sizes. A kernel whose ``name`` says it already splits the key/value sequence
    (split-KV) or the K dimension (split-K) is told to raise its split count, not to adopt the split it uses."""
    library = library or hint == "aotriton"
    if name and fam == "attention" and _SPLIT_KV.search(name):
        return ("It already splits the key/value sequence across blocks (split-KV): raise its number of splits "
                "(num_splits), or give it more sequences or heads per call.")
    if name and fam == "gemm" and _SPLIT_K.search(name):
        return ("It already splits K across blocks (split-K): a larger split count or smaller tiles, or more problems "
                "per call (batched), gives it more blocks.")
    if library and fam == "gemm":
        return ("Give the library more work per call (larger batch, several problems in one batched call) so its grid "
                "fills the GPU, or let it pick a split-K or smaller-tile algorithm.")
    if library and fam == "attention":
        return ("Give it more blocks: more sequences or heads per call, or a split-KV (FlashDecoding) attention kernel "
                "when few queries attend to long keys.")
    if library:
        return ("Give the library more work per call (larger batch, several tensors in one call) so its grid fills "
                "the GPU.")
    if hint == "triton":
        return ("Give the launch more blocks: smaller BLOCK sizes (BLOCK_M / BLOCK_N…) so the grid has more programs"
                + (", a split-KV variant for few queries over long keys" if fam == "attention" else
                   ", split-K for a long K" if fam == "gemm" else "") + ", or more work per launch.")
    if fam == "gemm":
        return "Give the launch more blocks: split-K, smaller tiles, or several problems batched into one launch."
    if fam == "attention":
        return ("Give the launch more blocks: split the key/value sequence across blocks (split-KV, FlashDecoding), "
                "or batch more sequences or heads per launch.")
    if fam == "normalisation":
        return ("Give the launch more blocks: normalise more rows per launch (larger batch, or several tensors in "
                "one launch), or use a variant that spreads one row over several blocks.")
    return ("Give the launch more blocks: more elements or rows per launch (larger batches, several small launches "
            "fused into one), or run it concurrently with other work on another stream.")


#: Which library a kernel comes from, by its name (first match; see :data:`_LIBRARY` for where the names come from).
_LIBRARY_NAMES = ((re.compile(r"flash_fwd|flash_bwd|flash_attn|pytorch_flash", re.I), "FlashAttention"),
                  (re.compile(r"fmha", re.I), "FMHA"),
                  (re.compile(r"cudnn|convolve_sgemm|dgrad_engine|wgrad_alg|winograd|\bflip_filter\b|fft", re.I),
                   "cuDNN"),
                  (re.compile(r"cublas|nvjet|\b(?:volta|turing|ampere|hopper|maxwell)_|\bgemv2?|\bgemmSN_|\bgemmk1_|"
                              r"sgemm_largek|splitKreduce|\bsm[0-9]+_xmma", re.I), "cuBLAS"),
                  (re.compile(r"Cijk_|hipblaslt|rocblas", re.I), "hipBLASLt/rocBLAS"),
                  (re.compile(r"miopen|igemm_|Im2d2Col|Col2Im|SubTensorOp|batched_transpose_|transpose_(?:NCHW|CNHW)",
                              re.I), "MIOpen"),
                  (re.compile(r"\bck::|ck_tile|_ZN2ck|composable_kernel", re.I), "Composable Kernel"),
                  (re.compile(r"cutlass", re.I), "CUTLASS"))


def library_name(name: str | None) -> str:
    """The library a kernel comes from, in words (``"cuDNN"``, ``"cuBLAS"``…), ``"the library"`` when the name
    does not say."""
    for rx, lib in _LIBRARY_NAMES:
        if isinstance(name, str) and rx.search(name):
            return lib
    return "the library"


def _pick_another(name: str | None, pytorch: bool) -> str:
    """The clause that lets a library kernel's algorithm change: "let it pick another algorithm", with how in a
    PyTorch program — cudnn.benchmark tries cuDNN's *convolution* algorithms only (PyTorch docs,
    torch.backends.cudnn), while an attention kernel (cuDNN's, FlashAttention's, memory-efficient) is chosen by the
    scaled_dot_product_attention backend (torch.nn.attention.sdpa_kernel)."""
    if pytorch and family(name) == "attention":
        return ("run the attention on another SDPA backend (torch.nn.attention.sdpa_kernel: FlashAttention, "
                "memory-efficient or cuDNN attention)")
    bench = " (torch.backends.cudnn.benchmark = True tries them)" if pytorch and "cudnn" in str(name).lower() else ""
    return "let it pick another algorithm" + bench


def whole_waves(fam: str, library: bool, name: str | None = None, pytorch: bool = False,
                vendor: str | None = None) -> str:
    """How to remove a partly filled last wave (one imperative sentence). A library kernel's code, tiles and grid
    are the library's: the step says so and names what the user does choose — the shapes, layout and dtype it is
    given, the library version, another algorithm or op for the same work — never "resize the grid". SMs or CUs
    in ``vendor``'s words."""
    sms = vendor_word(vendor, "sms")
    if library:
        lib = library_name(name)
        whose = f"{lib}'s library kernel" if lib != "the library" else "a library kernel"
        if fam == "gemm":  # GEMMs and convolutions: the library has several algorithms for the same problem
            other = "let it pick another algorithm (tile configuration)" + (
                " — torch.backends.cudnn.benchmark = True tries them" if pytorch and lib == "cuDNN" else "")
        else:
            other = ("use another op for the same work (a fused or compiled one: torch.compile)" if pytorch else
                     "use another op or implementation for the same work")
        return (f"It is {whose}: its code and grid are not yours to edit — the grid follows from the shapes you give "
                f"it, so try shapes that make it a whole number of waves (blocks = multiple of {sms} × resident "
                f"blocks), another memory layout or dtype, another {lib if lib != 'the library' else 'library'} "
                f"version, or {other}.")
    if fam == "gemm":
        return (f"Size the grid to a whole number of waves (blocks = multiple of {sms} × resident blocks): pick tile "
                "sizes or split-K that divide the problem evenly.")
    return f"Size the grid to a whole number of waves (blocks = multiple of {sms} × resident blocks)."


def latency_check(vendor: str | None = None) -> str:
    """The clause an occupancy-limiter step carries while the evidence does not show the kernel latency-bound: what
    to measure first, and why, in the vendor's tool (ncu's Occupancy and WarpStateStats sections; rocprof-compute's
    wavefront occupancy and stall cycles) — a step, never a conditional guess ("if it is shown latency-bound").
    Starts with " — " and has no final stop."""
    tool = ("rocprof-compute profile: wavefront occupancy and stall cycles" if vendor == "amd" else
            "ncu --section Occupancy --section WarpStateStats" if vendor == "nvidia" else
            "ncu --section WarpStateStats, or rocprof-compute on AMD")
    warps = vendor_word(vendor, "warp") + "s"
    return (f" — first measure whether it is latency-bound ({tool}), which this trace does not show: more resident "
            f"{warps} help only when they stall waiting on memory or dependencies")


def limiter(resource: str, name: str | None, pytorch: bool = False, latency_bound: bool = False,
            hint: str | None = None, vendor: str | None = None) -> str:
    """How to relax a register / shared-memory occupancy limiter for this kernel (one imperative sentence).
    ``latency_bound``: the evidence already shows the kernel latency-bound (the advice then does not make it a
    condition — "if it is shown latency-bound" beside a latency-bound verdict was circular); otherwise the step says
    what to measure first (:func:`latency_check`), never a conditional guess. ``vendor`` ``"amd"``:
    shared memory is LDS and the register cap is ``__launch_bounds__`` or ``amdgpu_waves_per_eu``."""
    smem = "LDS" if vendor == "amd" else "shared memory"
    if is_library(name):
        bench = _pick_another(name, pytorch)
        hint = alignment_hint(name)
        lib = library_name(name)
        whose = f"the library's kernel ({lib})" if lib != "the library" else "the library's kernel"
        if latency_bound:
            return hint or (f"Its block size, registers and {smem} are fixed by {whose}, not yours to edit: "
                            f"give it a problem shape it tiles well, or {bench}.")
        return (f"Its block size, registers and {smem} are fixed by {whose}, not yours to edit: try another problem "
                f"shape, or {bench}{latency_check(vendor)}.")
    cond = "" if latency_bound else latency_check(vendor)
    owner = code_owner(name, hint)
    if owner in ("triton", "aotriton"):
        what = "registers per thread" if resource == "registers" else (
            f"{smem} per block" if resource == "shared_memory" else "its block configuration")
        if owner == "aotriton":
            return (f"Its {what} follow AOTriton's build-time Triton config (BLOCK sizes, num_warps, num_stages): give "
                    f"it a shape its tuning table covers or use another attention backend{cond}.")
        return (f"Its {what} follow its Triton config: smaller BLOCK sizes, fewer num_warps or num_stages "
                f"({smem} grows with num_stages × the tile), tried with triton.autotune{cond}.")
    if owner == "pytorch":
        return ("Its block size and registers are fixed by PyTorch's built-in kernel: fuse it with its neighbours "
                f"(torch.compile generates a kernel with its own launch configuration) or give it larger tensors per "
                f"call{cond}.")
    if owner == "inductor":
        what = "registers per thread" if resource == "registers" else (
            f"{smem} per block" if resource == "shared_memory" else "its block configuration")
        return (f"Its {what} follow Inductor's Triton config: smaller block sizes (XBLOCK/RBLOCK), fewer num_warps or "
                f"num_stages, or torch.compile mode=\"max-autotune\" to try other configs{cond}.")
    if owner == "nvfuser":
        return ("Its block size, unrolling and register cap come from nvFuser's scheduler: try another schedule "
                f"(less unrolling or vectorisation per thread, a register cap in its compile parameters){cond}.")
    if resource == "registers":
        cap = vendor_word("amd", "reg_cap") if vendor == "amd" else "__launch_bounds__, -maxrregcount"
        return f"Cut registers per thread ({cap}, fewer live values){cond}."
    if resource == "shared_memory":
        return f"Use less {smem} per block (smaller tiles, fewer pipeline stages){cond}."
    return {"warps": f"Use 128–256 threads per block{cond}.",
            "blocks": f"Use larger blocks with more work each{cond}.",
            "barriers": f"Use fewer named barriers per block{cond}."}.get(
        resource, f"Relax the resource that limits resident blocks ({resource}){cond}.")


_ALIGN = re.compile(r"(?:^|[_<\s])align([0-9]+)(?:\b|_|>)", re.I)
_ELEM_BYTES = ((re.compile(r"bf16|f16|fp16|h1688|h16816|hgemm|half", re.I), 2),
               (re.compile(r"e4m3|e5m2|fp8|i8816|s8|int8|u8", re.I), 1),
               (re.compile(r"tf32|s1688|s16816|sgemm|f32|fp32|float", re.I), 4),
               (re.compile(r"f64|fp64|dgemm|d884|double", re.I), 8))
#: CUTLASS 3 names its GEMMs ``cutlass3x_<arch>_<opclass>_<tile>gemm_<A>_<B>_<accumulator>_<C>_<D>_…_align<N>`` (the
#: CUTLASS library's procedural names), and ``alignN`` counts elements of the operands A and B: their type is the one
#: right after ``gemm_``, not an epilogue's ``f16`` further on (an FP8 GEMM with an FP16 output)
_OPERAND_TYPE = re.compile(r"gemm_(e4m3|e5m2|f8|bf16|f16|tf32|f32|f64|s8|u8)(?:_|$)", re.I)
_OPERAND_BYTES = {"e4m3": 1, "e5m2": 1, "f8": 1, "s8": 1, "u8": 1, "bf16": 2, "f16": 2, "tf32": 4, "f32": 4, "f64": 8}


#: How every alignment hint starts (:func:`alignment_hint`): one clause, so a step list keeps one of them. "full
#: name": the ``_alignN`` suffix is often in the part of a long CUTLASS name that tables cut (``cutlass_80_…``).
ALIGN_LEAD = "Its full name says align"


def alignment_hint(name: str | None, extents: Iterable[tuple[int, int, int]] = ()) -> str | None:
    """For a CUTLASS-style kernel named ``…_alignN`` with N elements under 16 bytes (``align1``: scalar, unaligned
    loads): pad the problem so the library can pick an aligned, vectorised kernel (one imperative sentence), else
    None. CUTLASS's alignment is the operands' guaranteed alignment in elements; its vectorised 128-bit global loads
    need 16-byte alignment, i.e. every GEMM dimension that is a leading dimension a multiple of 16 bytes / element
    size (cuBLAS's tensor-core rule of dimensions multiple of 8 for FP16/BF16 is the same 16 bytes).

    ``extents``: the (M, N, K) of the GEMM ops that launched it (:func:`gemm_extents`, from recorded shapes). The
    hint then names the N and K extents (the leading dimensions of contiguous row-major operands A[M,K], B[K,N],
    C[M,N]) that are not such a multiple with the size to pad each to (GPT-2's vocabulary 50257 → 50264); an odd M
    alone (141 tokens) matters only for a transposed first operand, and the hint says so; when every extent is a
    multiple, the sizes are not the cause and the hint names what is left, an operand's stride or start address (a
    sliced or transposed view)."""
    m = _ALIGN.search(str(name or ""))
    if not m:
        return None
    n = int(m.group(1))
    op = _OPERAND_TYPE.search(str(name))
    size = _OPERAND_BYTES[op.group(1).lower()] if op else \
        next((b for rx, b in _ELEM_BYTES if rx.search(str(name))), None)
    if size is not None and n * size >= 16:
        return None
    if size is None and n >= 8:
        return None
    mult = f"a multiple of {16 // size} elements (16 bytes)" if size else \
        "a multiple of 16 bytes (8 FP16/BF16 elements, 4 FP32)"
    lead = (f"{ALIGN_LEAD}{n}: the library could not assume aligned operands and picked a kernel with narrow loads")
    extents = sorted({tuple(int(x) for x in e) for e in extents})
    if extents and size:
        step = 16 // size
        pad = lambda xs: ", ".join(f"{x} to {-(-x // step) * step}" for x in xs)  # noqa: E731
        # the leading dimensions of contiguous row-major operands A[M,K], B[K,N], C[M,N] are K and N; M (the rows)
        # is one only when A is a transposed view (Xᵀ, as in a weight-gradient GEMM): padding a sequence of 141
        # tokens to 144 does not align a forward GEMM's operands
        odd = sorted({x for _, n, k in extents for x in (n, k) if x % step})
        rows = sorted({m for m, _, _ in extents if m % step} - set(odd))
        if odd:
            return (f"{lead}; of its GEMM sizes (M×N×K {_extents_words(extents)}), {', '.join(map(str, odd))} "
                    f"{'is' if len(odd) == 1 else 'are'} not {mult} — pad {pad(odd)} (a padded vocabulary or hidden "
                    "size) so an aligned, vectorised kernel is picked.")
        if rows:
            return (f"{lead}; of its GEMM sizes (M×N×K {_extents_words(extents)}), N and K — the leading dimensions "
                    f"of contiguous operands — are all {mult}; M = {', '.join(map(str, rows))} is a leading dimension "
                    "only when the first operand is a transposed view: make the operands contiguous (.contiguous()), "
                    f"or pad {pad(rows)} where the first operand must stay transposed, so an aligned, vectorised "
                    "kernel is picked.")
        return (f"{lead}; its GEMM sizes (M×N×K {_extents_words(extents)}) are all {mult}, so an operand's stride "
                "or start address is not — a sliced, offset or transposed view: make the operands contiguous "
                "(.contiguous()) so an aligned, vectorised kernel is picked.")
    return (f"{lead} — pad the GEMM's dimensions and its operands' leading dimensions to {mult} so an aligned, "
            "vectorised kernel is picked.")


def _extents_words(extents: list[tuple[int, ...]], most: int = 3) -> str:
    shown = ", ".join("×".join(f"{x}" for x in e) for e in extents[:most])
    return shown + (f" and {len(extents) - most} more" if len(extents) > most else "")


def balance(library: bool, vendor: str | None = None) -> str:
    """How to close a gap between achieved and theoretical occupancy (one imperative sentence, in ``vendor``'s
    words: :func:`vendor_word`)."""
    if library:
        return ("Give the library call a problem that divides evenly into its tiles (sizes that are multiples of the "
                f"tile), or more work per call so {vendor_word(vendor, 'blocks')} keep every {vendor_word(vendor, 'sm')} "
                "busy.")
    blocks = vendor_word(vendor, "blocks")
    wave = "grid wave" if vendor == "amd" else "wave"  # on AMD a "wave" alone is a wavefront
    return f"Balance work across {vendor_word(vendor, 'warps')} and {blocks}, or launch more {blocks} per {wave}."


def fuse(pytorch: bool) -> str:
    """The parenthesis naming how to fuse kernels: torch.compile only for a PyTorch program."""
    return "torch.compile, a fused kernel" if pytorch else "a fused kernel"


#: The normalisation a kernel's name says it computes (first match): the words its fusion advice uses.
_NORM_KINDS = ((re.compile(r"rms_?norm", re.I), "RMSNorm"), (re.compile(r"layer_?norm", re.I), "LayerNorm"),
               (re.compile(r"group_?norm", re.I), "GroupNorm"), (re.compile(r"instance_?norm", re.I), "InstanceNorm"),
               (re.compile(r"batch_?norm|\bbn_", re.I), "batch norm"), (re.compile(r"softmax", re.I), "softmax"))


def norm_kind(name: str) -> str | None:
    """``"LayerNorm"``, ``"RMSNorm"``, … for a normalisation kernel's name (``vectorized_layer_norm_kernel`` →
    ``"LayerNorm"``), else None."""
    return next((kind for pat, kind in _NORM_KINDS if pat.search(str(name))), None)


def fuse_step(pytorch: bool, fam: str | None = None, name: str = "", owner: str | None = None,
              vendor: str | None = None) -> str:
    """What to fuse a kernel with, lower-case, to be followed by "so one launch does more work". A normalisation
    kernel (LayerNorm, RMSNorm, softmax…) is already one fused kernel — its statistics, normalisation and affine
    run in one launch (PyTorch's ``vectorized_layer_norm_kernel``, apex's ``cuApplyLayerNorm``) — so "a fused
    kernel" alone would advise what it already is: the fusion left is with the elementwise ops beside it (a
    residual add, bias, dropout: torch.compile or a fused add+norm kernel). One that Inductor generated
    (``triton_…_fused_…``) is torch.compile's output already: its lever is a graph replaying its launches, not
    turning torch.compile on."""
    kind = norm_kind(name) if fam == "normalisation" else None
    if kind is None:
        return f"fuse it with its neighbours ({fuse(pytorch)})"
    if code_owner(name, owner) == "inductor":
        return f"it is already torch.compile's fused {kind} kernel: capture the step in {graphs(pytorch, vendor)}"
    if kind == "softmax":
        how = "torch.compile, or a fused scale+mask+softmax kernel" if pytorch else "a fused scale+mask+softmax kernel"
        return ("it is already one fused softmax kernel (max, exponent sum and division in one launch), so fuse it "
                f"with the elementwise ops beside it (the scale, mask or dropout: {how})")
    if _NORM_PART.search(str(name)):  # one of several launches of the norm (its statistics, or a backward pass)
        return (f"it is one of the launches PyTorch splits the {kind} into (statistics, normalisation, gradients), so "
                f"fuse the {kind} with the elementwise ops beside it ({fuse(pytorch)})")
    how = (f"torch.compile, or a fused add+{kind} kernel" if pytorch else f"a fused add+{kind} kernel")
    return (f"it is already one fused {kind} kernel (statistics, normalisation and scale in one launch), so fuse it "
            f"with the elementwise ops beside it (the residual add, bias or dropout: {how})")


#: A normalisation kernel that is one pass of several: PyTorch's CUDA batch norm (batch_norm_collect_statistics /
#: transform_input, backward_reduce / backward_elemt, and their _channels_last forms) and the backward kernels of
#: layer/group norm (layer_norm_grad_input_kernel, GammaBetaBackward, ComputeInternalGradients)
_NORM_PART = re.compile(r"collect_statistics|transform_input|backward|_reduce|_elemt|grad_input|GammaBeta|"
                        r"ComputeInternalGradients|RowwiseMoments|compute_stats", re.I)


def graphs(pytorch: bool, vendor: str | None = None) -> str:
    """How to capture launches in a graph: torch.cuda.CUDAGraph for a PyTorch program, else stream capture, named
    as the vendor's graphs (:func:`vendor_word`: CUDA graphs, HIP graphs, or both when the vendor is unknown)."""
    g = vendor_word(vendor, "graphs")
    return f"{g} (torch.cuda.CUDAGraph / torch.compile mode=\"reduce-overhead\")" if pytorch \
        else f"{g} (stream capture)"


#: precisions at which the compute roof is already a 16-bit or narrower tensor-core / MFMA one
_NARROW = ("bf16", "fp16")
_NARROWEST = ("fp8", "int8")


def precision_step(precision: str | None, compute_roof: str | None, pytorch: bool,
                   vendor: str | None = None) -> str | None:
    """The precision advice of a compute-bound GEMM / attention kernel, from the roofline's ``precision`` and
    ``compute_roof`` (``matrix.<p>`` tensor cores / MFMA, ``vector.<p>`` CUDA cores / SIMD): None when nothing
    lower is left (FP8/INT8) — the caller keeps its other steps; the generic sentence when unknown. The matrix
    unit is named in ``vendor``'s words (tensor cores, MFMA matrix cores; both when unknown)."""
    unit = vendor_word(vendor, "tensor")
    prec = (precision or "").lower()
    if isinstance(compute_roof, str):
        compute_roof = compute_roof.removeprefix("achievable.")  # the same unit, judged at its achievable peak
    on_matrix = isinstance(compute_roof, str) and compute_roof.startswith("matrix.")
    if prec in _NARROWEST:
        return None
    if prec in _NARROW and on_matrix:
        how = " (Transformer Engine, torchao float8)" if pytorch else ""
        return (f"It already runs at {prec.upper()} on {unit}: FP8{how} is the lower precision left, "
                "where accuracy allows.")
    if prec in ("fp32", "tf32", "fp64") and isinstance(compute_roof, str) and compute_roof.startswith("vector."):
        how = " (torch.autocast, or allow_tf32 for FP32 matmuls)" if pytorch else ""
        return (f"It runs on the vector units at {prec.upper()}: use {unit} at TF32 or BF16{how} where "
                "accuracy allows.")
    if prec in ("tf32", "fp32") and on_matrix:
        how = " (torch.autocast)" if pytorch else ""
        return (f"It runs at {prec.upper()} on {unit}: BF16/FP16{how} or FP8 halve the work per FLOP, where "
                "accuracy allows.")
    return None if prec else f"Use {unit} at a lower precision (TF32, BF16, FP8) where accuracy allows."


_NAME_PRECISION = ((re.compile(r"float8|(?<![a-z0-9])fp8|e4m3|e5m2", re.I), "fp8"),
                   (re.compile(r"bfloat16|(?<![a-z0-9])bf16(?![0-9])", re.I), "bf16"),
                   (re.compile(r"\bHalf\b|__half|float16|(?<![a-z0-9])f(?:p)?16(?![0-9])", re.I), "fp16"))


def name_precision(name: str | None) -> str | None:
    """The data type a kernel's name spells (template arguments such as ``c10::BFloat16``, ``__half``, ``e4m3``),
    narrowest first; None when it names none of them."""
    for pat, prec in _NAME_PRECISION:
        if isinstance(name, str) and pat.search(name):
            return prec
    return None


def bytes_step(precision: str | None, name: str | None = None) -> str:
    """The "move fewer bytes" advice of a memory-bound kernel, not naming a dtype it already uses (the roofline's
    precision, else the type its name spells)."""
    prec = (precision or name_precision(name) or "").lower()
    if prec in _NARROWEST:
        return "Move fewer bytes: vectorised and coalesced 128-bit accesses, and read each byte once (tiling, fusion)."
    if prec in _NARROW:
        return ("Move fewer bytes: FP8 or quantised (int8/int4) data where accuracy allows, vectorised and coalesced "
                "128-bit accesses.")
    return "Move fewer bytes: narrower dtypes (BF16/FP8), vectorised and coalesced 128-bit accesses."
