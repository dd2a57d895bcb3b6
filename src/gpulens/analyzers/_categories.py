"""Work categories of GPU events and framework operators: GEMM, attention, elementwise, reduction, normalisation,
communication, copy, other — one vocabulary for the operator roll-up, ``kernel_groups`` and ``gpulens diff``.

Rules (first match wins; the op's name decides when the GPU event is linked to a framework op and the op's name
gives a category other than ``other``, else the kernel's name):

==============  =========================================================  ===========================================
category        framework op (``aten::…`` stem)                             kernel name (case-insensitive search)
==============  =========================================================  ===========================================
communication   every op that makes its kernels ``comm`` (the collectors'    ``nccl``, ``rccl``; every ``comm`` event
                launcher rules: ``record_param_comms``, ``c10d::…``,
                ``nccl:…``, ``symm_mem::…``), c10d / nccl / rccl /
                all_reduce / all_gather / …
copy            copy_, to, _to_copy, contiguous, clone, fill_, zero_, cat…     memcpy / memset events, ``copyBuffer``,
                                                                            ``fillBuffer``, ``memcpy``, ``memset``
attention       scaled_dot_product_*attention*, _flash_attention_*, …      ``flash``, ``fmha``, ``attn``, ``attention``
GEMM            mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm,       ``gemm``, ``gemv``, ``cutlass``, ``cublas``,
                addmv, mv, einsum, conv*, convolution*, cudnn_convolution*  ``Cijk_``, ``xmma``, ``wgmma``, ``nvjet``,
                (convolutions are implicit GEMMs)                            ``conv``, ``fprop``, ``dgrad``, ``wgrad``,
                                                                            ``matmul`` (Triton ``_matmul_ogs``), a
                                                                            leading ``bmm_`` (TensorRT-LLM batched GEMMs)
normalisation   *layer_norm*, *batch_norm*, *group_norm*, *rms_norm*,       ``layer_norm``, ``layernorm``, ``batch_norm``,
                *softmax*, instance_norm                                     ``bn_``, ``rms_norm``, ``group_norm``,
                                                                            ``softmax``
reduction       sum, mean, amax, amin, max, min, all, any, prod, norm,     ``reduce_kernel``, ``triton_red``,
                argmax, argmin, var, std, logsumexp, cumsum, cumprod, nansum ``DeviceReduce``, ``DeviceSegmentedReduce``
                (a reduction reads N values and writes fewer: its own        (CUB), ``reduce_`` (``reduce_1Block``…)
                category, memory-bound like elementwise but not fusable
                as a pointwise op; softmax and the norms are normalisation)
elementwise     unary/binary pointwise ops (the op models' lists in         ``elementwise``, ``triton_poi``,
                ``_flop_models``), activations, dropout                      ``unrolled``, ``pointwise``, ``vectorized``
other           anything else
==============  =========================================================  ===========================================

One definition of a communication op: the launcher rules of :mod:`gpulens.collectors._work_rules`
(``LAUNCHER_RULES``, which make a kernel launched under such an op a ``comm`` event) come first, so the op roll-up
calls ``record_param_comms`` communication, as the op-category summary does when it names it the top op of the
communication time.

Autograd nodes (``ConvolutionBackward0``, ``autograd::engine::evaluate_function: AddmmBackward0``, the older
``CudnnConvolutionBackward``) take the category of the forward op they differentiate: the node's name without the
``autograd::engine::evaluate_function:`` prefix and the ``Backward<N>`` suffix, CamelCase read as ATen's snake_case
(``NativeLayerNorm`` → ``native_layer_norm``, normalisation; ``Mm`` → ``mm``, GEMM; ``Mul`` → ``mul``, elementwise;
``ToCopy`` → ``_to_copy``, copy: a private op's leading underscore is not in the node's name).
Names of PyTorch's autograd nodes: ``torch/csrc/autograd/generated/Functions.h`` (one ``<Op>Backward<N>`` struct per
differentiable ATen op).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from gpulens.analyzers import _flop_models as fm
from gpulens.collectors._work_rules import is_comm_launcher

#: The category vocabulary, in the order reports list it.
CATEGORIES: tuple[str, ...] = ("GEMM", "attention", "elementwise", "reduction", "normalisation", "communication",
                               "copy", "other")

_OP_RULES: tuple[tuple[str, re.Pattern], ...] = (
    ("communication", re.compile(r"c10d|nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|broadcast|all_to_all|"
                                 r"all_?to_?all|all_?2_?all|send|recv|barrier", re.I)),
    ("copy", re.compile(r"^(?:aten::)?(copy_|to|_to_copy|contiguous|clone|fill_|zero_|zeros|ones|full|"
                        r"empty_strided|_copy_from|_copy_from_and_resize|cat|stack|narrow_copy)$")),
    ("attention", re.compile(r"scaled_dot_product|flash_attention|efficient_attention|_attention_forward|"
                             r"attention_backward|_fused_attention|cudnn_attention|sdpa", re.I)),
    ("GEMM", re.compile(r"^(?:aten::)?(mm|addmm|bmm|baddbmm|matmul|linear|_scaled_mm|addmv|mv|einsum|"
                        r"conv\w*|_convolution\w*|convolution\w*|cudnn_convolution\w*|miopen_convolution\w*|"
                        r"mkldnn_convolution|_addmm_activation|addbmm)$")),
    ("normalisation", re.compile(r"layer_norm|batch_norm|group_norm|rms_norm|instance_norm|softmax", re.I)),
    ("reduction", re.compile(r"^(?:aten::)?(sum|nansum|mean|nanmean|amax|amin|aminmax|max|min|all|any|prod|norm|"
                             r"linalg_vector_norm|argmax|argmin|var|std|var_mean|std_mean|logsumexp|cumsum|cumprod|"
                             r"count_nonzero|median|nanmedian|mode)(?:_|\.\w+)?$")),
)
_ELEMENTWISE_OPS = (fm._UNARY | fm._BINARY | set(fm._REDUCE)) - fm._COPY_NO_FLOPS
_EW_OP = re.compile(r"^(?:aten::)?(%s)_?$" % "|".join(sorted(map(re.escape, _ELEMENTWISE_OPS), key=len, reverse=True)))

_KERNEL_RULES: tuple[tuple[str, re.Pattern], ...] = (
    ("communication", re.compile(r"nccl|rccl", re.I)),
    ("copy", re.compile(r"memcpy|memset|copyBuffer|fillBuffer|copy_kernel|CatArray", re.I)),
    ("attention", re.compile(r"flash|fmha|attn|attention", re.I)),
    ("normalisation", re.compile(r"layer_?norm|batch_?norm|\bbn_|rms_?norm|group_?norm|softmax", re.I)),
    ("GEMM", re.compile(r"(?<!fb)gemm|gemv|cutlass|cublas|Cijk_|xmma|wgmma|nvjet|conv|fprop|dgrad|wgrad|implicit_gemm|"
                        r"matmul|^bmm_", re.I)),
    ("reduction", re.compile(r"reduce_kernel|triton_red|triton_per|DeviceReduce|DeviceSegmentedReduce|reduce_\d*Block|"
                             r"(?<!all_)(?<!all)(?<!_scatter_)\breduce_", re.I | re.ASCII)),
    ("elementwise", re.compile(r"elementwise|triton_poi|unrolled|pointwise|"
                               r"vectorized|Functor", re.I)),
)


_AUTOGRAD_NODE = re.compile(r"^(?:autograd::engine::evaluate_function:\s*)?([A-Za-z][A-Za-z0-9_]*?)Backward[0-9]*$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _forward_op(name: str) -> str | None:
    """The ATen-style name of the forward op an autograd node differentiates (``CudnnConvolutionBackward0`` →
    ``cudnn_convolution``), None when ``name`` is not an autograd node."""
    m = _AUTOGRAD_NODE.match(name.strip())
    return _CAMEL.sub("_", m.group(1)).lower() if m else None


def op_category(name: str | None) -> str:
    """Category of a framework op from its name (``"other"`` when no rule fits or ``name`` is empty); an autograd
    node's is its forward op's (module docstring)."""
    if not name:
        return "other"
    if is_comm_launcher(name):  # the ops whose kernels the collectors make comm events: one definition
        return "communication"
    for cat, rx in _OP_RULES:
        if rx.search(name):
            return cat
    if _EW_OP.match(name):
        return "elementwise"
    fwd = _forward_op(name)
    if not fwd:
        return "other"
    cat = op_category(fwd)  # ToCopyBackward0 differentiates aten::_to_copy: the leading underscore is not in the name
    return cat if cat != "other" else op_category("_" + fwd)


def kernel_category(name: str | None, kind: str = "kernel") -> str:
    """Category of a GPU event from its kind and name (``comm`` → communication, memcpy/memset → copy)."""
    if kind == "comm":
        return "communication"
    if kind in ("memcpy", "memset"):
        return "copy"
    if not isinstance(name, str):  # an unknown name (NaN/None) has no category
        return "other"
    for cat, rx in _KERNEL_RULES:
        if name and rx.search(name):
            return cat
    return "other"


def categorize(kinds: pd.Series, names: pd.Series, ops: pd.Series) -> np.ndarray:
    """Category per GPU event (object array): the op's category when linked and not ``other``, else the kernel's.

    Communication and copy events keep their kind's category whatever their op (an all-reduce launched inside
    ``aten::linear`` backward is still communication). Each distinct (kind, name, op) is classified once.
    """
    df = pd.DataFrame({"k": kinds.astype(str).to_numpy(), "n": names.astype(str).to_numpy(),
                       "o": ops.astype(object).where(ops.notna(), "").astype(str).to_numpy()})
    uniq = df.drop_duplicates()
    cats = []
    for k, n, o in zip(uniq["k"], uniq["n"], uniq["o"]):
        kc = kernel_category(n, k)
        oc = op_category(o)
        cats.append(kc if kc in ("communication", "copy") and k != "kernel" else (oc if oc != "other" else kc))
    lut = pd.Series(cats, index=pd.MultiIndex.from_frame(uniq))
    return lut.reindex(pd.MultiIndex.from_frame(df)).to_numpy(dtype=object)
