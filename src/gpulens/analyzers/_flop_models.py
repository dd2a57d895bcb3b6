"""FLOP and byte models of framework ops from their recorded shapes and dtypes (Kineto ``Input Dims`` /
``Input type``), after TraceLens' ``perf_model.py`` and PyTorch's ``computeFlops`` (gpu-facts §1.5).

=====================================  ======================================  ======================================
op                                     FLOPs                                   bytes
=====================================  ======================================  ======================================
mm A[M,K]·B[K,N]                       2·M·N·K                                 (MK + KN + MN)·b
addmm bias, A, B / linear x, W, bias   2·M·N·K + M·N (bias add)                + bias elements
bmm [B,M,K]·[B,K,N] / baddbmm          2·B·M·N·K (+ B·M·N)                     (BMK + BKN + BMN)·b (+ bias)
matmul                                 as mm / bmm with broadcast batch dims   inputs + output
conv x[N,C,*in], w[Co,C/g,*k] → out    2·prod(out)·prod(w[1:]) (+ prod(out))   (x + w + out (+ Co))·b
  out from the recorded stride, padding, dilation (Concrete Inputs): ⌊(in + 2p − d(k−1) − 1)/s⌋ + 1
conv backward (grad_out, x, w, …)      the forward's FLOPs per gradient asked     read dO + x + w, write the
                                       for (output_mask: dX, dW) + prod(out)      gradients asked for
                                       for dBias
SDPA q[B,Hq,Nq,d], k/v[B,Hkv,Nkv,·]    B·Hq·(2·Nq·Nkv·d + 2·Nq·Nkv·dv),        (Q + K + V + O)·b
                                       halved when causal (the call's recorded
                                       is_causal, else the caller's default)
                                       and Nq = Nkv;
                                       GQA: Hkv < Hq changes bytes only
SDPA backward (grad_out, q, k, v, …)   2 × the forward: dV, dP, dQ, dK          (2·(Q + K + V) + O + dO)·b
                                       (PyTorch's sdpa_backward_flop_count)
elementwise (unary, binary)            numel(out)                              Σ inputs + output
fill_ / zero_ ; copy_(dst, src)        0                                       output only ; src + dst
reduction / softmax / layer norm       c·numel(in) (c = 1, 5, 5)               Σ inputs + output
softmax / log-softmax backward         4·numel(dy): the dy·y product (or        dy + y + dx
  (dy, y, dim, dtype)                  exp(y)), the row sum, the subtraction
                                       and the product with y
activation backward (grad, x → dx)     numel(out)                              Σ inputs + output
batch-norm backward (dy, x, …)         9·numel(x): the reduction pass (x − μ,  2·(dy + x) + dx + the per-channel
                                       dy·(x − μ), two sums) and the dx pass   vectors: each pass reads dy and x
max pool x[N,C,*in] → out, indices     0 (comparisons, no arithmetic)          x + out + indices (int64)
  out from the recorded kernel_size, stride, padding, dilation, ceil_mode (Concrete Inputs), as a convolution's
max pool backward (dy, x, …, indices)  0                                       dy + indices + dx (dx: x's shape)
=====================================  ======================================  ======================================

``b`` = bytes per element of each tensor's own dtype; an elementwise output has the dtype PyTorch's type promotion
gives it (:func:`result_bytes`): a scalar or zero-dim argument does not widen a dimensioned tensor of its category
(``bf16 tensor × 2.0`` is bf16, not fp64). Softmax and the attention score scaling are not counted.
Models return None when the shapes do not fit (missing dims, a varlen attention call, a conv whose stride/padding
the trace does not record): no FLOPs is better than a guessed figure.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from math import prod
from typing import Any

DTYPE_BYTES = {"double": 8, "float": 4, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, "int": 4,
               "short int": 2, "signed char": 1, "unsigned char": 1, "bool": 1, "c10::Float8_e4m3fn": 1,
               "c10::Float8_e5m2": 1, "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2fnuz": 1,
               "c10::complex<float>": 8, "c10::complex<double>": 16}
DTYPE_PRECISION = {"double": "fp64", "float": "fp32", "c10::Half": "fp16", "c10::BFloat16": "bf16",
                   "c10::Float8_e4m3fn": "fp8", "c10::Float8_e5m2": "fp8", "c10::Float8_e4m3fnuz": "fp8",
                   "c10::Float8_e5m2fnuz": "fp8", "signed char": "int8", "unsigned char": "int8"}


@dataclass(frozen=True)
class OpCost:
    """Work of one op: ``flops`` [FLOP], ``bytes`` [bytes] moved (inputs + outputs, each once), ``precision``
    (``"bf16"``...) and ``matrix`` (True when it runs on tensor/matrix units: GEMM, conv, attention)."""

    flops: float
    bytes: float
    precision: str
    matrix: bool


#: no tensor dimension reaches 2^48 elements (a recorded value beyond it is not a shape: no model, not a huge cost)
_MAX_DIM = 1 << 48


def _tensors(dims: list, types: list) -> list[tuple[list[int], int, str]]:
    """(shape, bytes per element, dtype) of the tensor arguments, in order."""
    out = []
    for d, t in zip(dims, types):
        if isinstance(d, list) and isinstance(t, str) and t in DTYPE_BYTES \
                and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < _MAX_DIM for x in d):
            if d or t not in ("Scalar", ""):
                out.append((d, DTYPE_BYTES[t], t))
    return out


#: PyTorch type-promotion categories (torch docs, "Type Promotion"): bool < integral < floating < complex
_CATEGORY = {"bool": 0, "double": 2, "float": 2, "c10::Half": 2, "c10::BFloat16": 2, "c10::complex<float>": 3,
             "c10::complex<double>": 3}
_DEFAULT_BYTES = {1: 8, 2: 4, 3: 8}  # a higher-category scalar gives the default dtype: int64, float32, complex64


def _category(dtype: str) -> int:
    return _CATEGORY.get(dtype, 2 if "Float8" in dtype else 1)


def result_bytes(t: list[tuple[list[int], int, str]]) -> int:
    """Bytes per element of an elementwise op's result under PyTorch's type promotion (torch docs, "Type
    Promotion"): dimensioned tensors decide within the highest category among them (the widest dtype; fp16 with
    bf16 gives fp32); a zero-dim argument (shape ``[]``: a 0-dim tensor or a Python scalar) counts only when its
    category is higher, then the default dtype of that category (float32 for a float scalar)."""
    dimensioned = [x for x in t if x[0]] or t
    zero = [x for x in t if not x[0]] if len(dimensioned) < len(t) else []
    top = max(_category(d) for _, _, d in dimensioned)
    same = [x for x in dimensioned if _category(x[2]) == top]
    b = max(x[1] for x in same)
    if b == 2 and {"c10::Half", "c10::BFloat16"} <= {x[2] for x in same}:
        b = 4
    ztop = max((_category(d) for _, _, d in zero), default=-1)
    if ztop > top:
        b = _DEFAULT_BYTES.get(ztop, b)
    return b


def _nbytes(shape: list[int], b: int) -> int:
    return prod(shape) * b


def _prec(dtype: str) -> str:
    return DTYPE_PRECISION.get(dtype, "fp32")


#: Data precisions whose elementwise, reduction and normalisation work PyTorch computes in fp32: ATen's
#: ``OpMathType`` (aten/src/ATen/OpMathType.h: "For FP16 or BFloat16 inputs, ops should perform internal math in
#: FP32" — ``opmath_type<Half>``, ``<BFloat16>`` and the Float8 types are ``float``), which its CUDA/HIP elementwise
#: and reduction kernels (``opmath_gpu_kernel_with_scalars``, ``acc_type``) compute in.
OPMATH_FP32 = frozenset({"fp16", "bf16", "fp8"})


def math_precision(precision: str | None, matrix: bool, from_counters: bool = False) -> str:
    """The precision whose compute roof bounds an op's FLOPs: its data ``precision`` (None: fp32), except for work
    modelled from a framework op's shapes (not ``from_counters``) off the matrix units (``matrix`` False) in a
    16-bit or 8-bit float dtype, which PyTorch computes in fp32 (:data:`OPMATH_FP32`) — a bf16 add runs on the fp32
    vector pipe, never at the packed-bf16 vector peak (2× to 4× higher on A100/H100). Counted FLOPs keep their own
    precision: an FP16 instruction counter counts work the hardware did at FP16."""
    p = str(precision or "fp32")
    return "fp32" if p in OPMATH_FP32 and not matrix and not from_counters else p


def gemm(m: int, n: int, k: int, batch: int = 1, bias: bool = False) -> float:
    """GEMM FLOPs: 2·batch·M·N·K, plus batch·M·N when a bias is added."""
    return 2.0 * batch * m * n * k + (batch * m * n if bias else 0)


def attention(b: int, hq: int, nq: int, nkv: int, d: int, dv: int | None = None, causal: bool = False) -> float:
    """Attention FLOPs: the QKᵀ and PV GEMMs, B·Hq·(2·Nq·Nkv·d + 2·Nq·Nkv·dv); halved when causal with Nq = Nkv
    (the lower triangle). K/V heads (GQA/MQA) do not change the FLOPs: every query head attends to one K/V head."""
    dv = d if dv is None else dv
    f = b * hq * (2.0 * nq * nkv * d + 2.0 * nq * nkv * dv)
    return f / 2 if causal and nq == nkv else f


def conv(x: list[int], w: list[int], out_spatial: list[int], groups: int = 1, bias: bool = False,
         transposed: bool = False) -> float:
    """Convolution FLOPs (N-d, grouped): 2·prod(out)·prod(w[1:]) with out = [N, C_out, *out_spatial] and
    ``w = [C_out, C_in/groups, *kernel]`` (+ prod(out) for a bias). A transposed conv scatters every input element
    through ``w = [C_in, C_out/groups, *kernel]``: 2·prod(x)·prod(w[1:]). Recorded shapes do not include the
    stride/padding, so the caller gives the output's spatial size."""
    n, c_out = x[0], w[0] if not transposed else w[1] * groups
    out = [n, c_out, *out_spatial]
    per = prod(w[1:])
    f = 2.0 * (prod(x) if transposed else prod(out)) * per
    return f + (prod(out) if bias else 0)


#: Convolution ops → the positions of (stride, padding, dilation, groups, transposed, output_padding) among their
#: arguments (PyTorch native_functions.yaml; None: the op has no such argument). ``cudnn_convolution`` and
#: ``miopen_convolution`` take padding before stride. ``convolution_backward``'s grad_output records the output.
CONV_ARGS = {
    "conv1d": (3, 4, 5, 6, None, None), "conv2d": (3, 4, 5, 6, None, None), "conv3d": (3, 4, 5, 6, None, None),
    "convolution": (3, 4, 5, 8, 6, 7), "_convolution": (3, 4, 5, 8, 6, 7),
    "cudnn_convolution": (3, 2, 4, 5, None, None), "miopen_convolution": (4, 3, 5, 6, None, None),
    "convolution_backward": (4, 5, 6, 9, 7, 8),
}
_OUTPUT_MASK = 10  # convolution_backward's bool[3] output_mask (grad_input, grad_weight, grad_bias)


def _int_list(v: Any, n: int) -> list[int] | None:
    """A recorded int-list argument ('[2, 2]', '2', '[1]') as ``n`` ints (one value broadcast), else None."""
    try:
        x = json.loads(v) if isinstance(v, str) and v.strip() else None
    except (ValueError, RecursionError):
        return None
    x = [x] if isinstance(x, int) else x
    if not isinstance(x, list) or not x or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0
                                                   for i in x):
        return None
    return x * n if len(x) == 1 else (x if len(x) == n else None)


def _conv_cost(op: str, t: list[tuple[list[int], int, str]], args: list | None) -> OpCost | None:
    """FLOPs and bytes of a convolution call from its tensors and recorded scalar arguments (module table)."""
    pos = CONV_ARGS[op]
    back = op == "convolution_backward"
    if not args or len(args) <= max(p for p in pos if p is not None) or len(t) < (3 if back else 2):
        return None
    go = t[0] if back else None
    (x, bx, dt), (w, bw, _) = (t[1], t[2]) if back else (t[0], t[1])
    nsp = len(x) - 2
    if nsp < 1 or len(w) != len(x):
        return None
    stride, pad, dil = (_int_list(args[p], nsp) for p in pos[:3])
    groups = _int_list(args[pos[3]], 1)
    transposed = pos[4] is not None and str(args[pos[4]]).strip() == "True"
    if not (stride and dil and groups) or min(stride) < 1:
        return None
    out_sp = list(go[0][2:]) if back else None
    if out_sp is None and pad is None:  # conv2d's string padding: 'valid' is 0, 'same' keeps the size (stride 1)
        word = str(args[pos[1]]).strip().strip('"').lower()
        if word == "same" and stride == [1] * nsp:
            out_sp = list(x[2:])
        elif word == "valid":
            pad = [0] * nsp
        else:
            return None
    if out_sp is None and transposed:
        opad = _int_list(args[pos[5]], nsp) if pos[5] is not None else [0] * nsp
        if opad is None:
            return None
        out_sp = [(i - 1) * s_ - 2 * p + d * (k - 1) + o + 1
                  for i, s_, p, d, k, o in zip(x[2:], stride, pad, dil, w[2:], opad)]
    elif out_sp is None:
        out_sp = [(i + 2 * p - d * (k - 1) - 1) // s_ + 1 for i, p, d, k, s_ in zip(x[2:], pad, dil, w[2:], stride)]
    if min(out_sp) < 1:
        return None
    f = conv(x, w, out_sp, groups[0], transposed=transposed)
    c_out = w[1] * groups[0] if transposed else w[0]
    out_n = x[0] * c_out * prod(out_sp)
    if back:
        mask = args[_OUTPUT_MASK] if len(args) > _OUTPUT_MASK else None
        try:
            m = [bool(v) for v in json.loads(str(mask).replace("True", "true").replace("False", "false"))]
        except (ValueError, RecursionError, TypeError):
            m = [True, True, False]
        m = (m + [False] * 3)[:3]
        flops = f * m[0] + f * m[1] + out_n * m[2]
        by = go[1] * prod(go[0]) + bx * prod(x) + bw * prod(w) + bx * prod(x) * m[0] + bw * prod(w) * m[1]
        return OpCost(float(flops), int(by), _prec(dt), True)
    bias = len(t) > 2 and len(t[2][0]) == 1
    f = f + (out_n if bias else 0)
    by = bx * prod(x) + bw * prod(w) + bx * out_n + (t[2][1] * prod(t[2][0]) if bias else 0)
    return OpCost(float(f), int(by), _prec(dt), True)


def _pool_cost(op: str, t: list[tuple[list[int], int, str]], args: list | None) -> OpCost | None:
    """Bytes of a max-pooling call (module table): the output's spatial size from the recorded kernel_size, stride
    (empty: the kernel size, PyTorch's default), padding, dilation and ceil_mode, as PyTorch's pooling_output_shape;
    None when the trace does not record them."""
    (x, bx, dt), pos = t[0], POOL_ARGS[op]
    nsp = {"1": 1, "2": 2, "3": 3}[op[8]]
    if not args or len(args) <= pos[3] or len(x) not in (nsp + 1, nsp + 2):
        return None
    k = _int_list(args[pos[0]], nsp)
    s_ = _int_list(args[pos[1]], nsp) if str(args[pos[1]]).strip() not in ("[]", "") else k
    pad, dil = _int_list(args[pos[2]], nsp), _int_list(args[pos[3]], nsp)
    ceil = len(args) > pos[4] and str(args[pos[4]]).strip() == "True"
    if not (k and s_ and pad is not None and dil) or min(s_) < 1 or min(k) < 1:
        return None
    out_sp = []
    for i, kk, ss, p, d in zip(x[-nsp:], k, s_, pad, dil):
        span = i + 2 * p - d * (kk - 1) - 1
        o = (-(-span // ss) if ceil else span // ss) + 1
        if ceil and (o - 1) * ss >= i + p:  # the last window must start inside the input or its left padding
            o -= 1
        out_sp.append(o)
    if min(out_sp) < 1:
        return None
    out_n = prod(x[:-nsp]) * prod(out_sp)
    indices = 8 * out_n if op.endswith("_with_indices") else 0  # int64 indices
    return OpCost(0.0, bx * prod(x) + bx * out_n + indices, _prec(dt), False)


_GEMM = re.compile(r"^aten::(mm|addmm|bmm|baddbmm|matmul|linear|_scaled_mm)$")
#: attention ops: the SDPA entry points (``scaled_dot_product_attention``, ``_scaled_dot_product_{flash,efficient,
#: cudnn}_attention[_backward]``) and the ops that launch the kernels under them, ``_{flash,efficient,cudnn}_attention_
#: {forward,backward}`` (on an H200 with torch 2.11 the cuDNN kernels hang under ``_cudnn_attention_backward``)
_SDPA = re.compile(r"^aten::(_?scaled_dot_product\w*attention\w*|_(?:flash|efficient|cudnn)_attention_"
                   r"(?:forward|backward))$")
#: the ops among them that record q/k/v as [B, N, H, d] (the others record [B, H, N, d])
_BNHD = re.compile(r"^_(?:flash|efficient)_attention_(?:forward|backward)$")


@dataclass(frozen=True)
class Attention:
    """One attention call's problem: batch, query/KV heads, query/KV lengths, head dims, q's dtype, and whether it is
    the backward pass (whose first tensor is grad_out)."""

    b: int
    hq: int
    hkv: int
    nq: int
    nkv: int
    d: int
    dv: int
    dtype: str
    backward: bool

    def flops(self, causal: bool = False) -> float:
        """Forward: :func:`attention`; backward: twice that — the four GEMMs dV = PᵀdO, dP = dO·Vᵀ, dQ = dS·K,
        dK = dSᵀ·Q (PyTorch ``torch.utils.flop_counter.sdpa_backward_flop_count``; a kernel that recomputes
        S = QKᵀ does more, which is not counted)."""
        f = attention(self.b, self.hq, self.nq, self.nkv, self.d, self.dv, causal)
        return 2 * f if self.backward else f


#: The position of ``is_causal`` among each attention op's arguments (PyTorch ``native_functions.yaml``, torch
#: 2.5–2.11), as Kineto's ``Concrete Inputs`` list them ('' for a tensor, 'True'/'False' for a bool). The
#: ``_efficient_attention_*`` ops take ``custom_mask_type`` there instead (0 none, 1 causal from the top left,
#: 2 from the bottom right). An H200 GPT-2 trace: ``_cudnn_attention_forward`` ['', …, '1024', '1024', 'True',
#: '0.1', 'True', 'False', '0.125'] — position 10, after compute_log_sumexp (8) and dropout_p (9).
CAUSAL_ARG = {
    "scaled_dot_product_attention": 5, "_scaled_dot_product_attention_math": 5,
    "_scaled_dot_product_flash_attention": 4, "_scaled_dot_product_flash_attention_backward": 11,
    "_scaled_dot_product_flash_attention_for_cpu": 4, "_scaled_dot_product_flash_attention_for_cpu_backward": 7,
    "_scaled_dot_product_efficient_attention": 6, "_scaled_dot_product_efficient_attention_backward": 11,
    "_scaled_dot_product_cudnn_attention": 6, "_scaled_dot_product_cudnn_attention_backward": 14,
    "_flash_attention_forward": 8, "_flash_attention_backward": 11,
    "_cudnn_attention_forward": 10, "_cudnn_attention_backward": 14,
    "_efficient_attention_forward": 9, "_efficient_attention_backward": 14,
}


def _args(concrete: str | None) -> list | None:
    """A ``Concrete Inputs`` text as its list of argument strings, None when absent or not a list."""
    if not concrete:
        return None
    try:
        args = json.loads(concrete)
    except (ValueError, RecursionError):
        return None
    return args if isinstance(args, list) else None


def recorded_causal(op: str, concrete: str | None) -> bool | None:
    """Whether an attention call was causal, from its recorded ``Concrete Inputs`` (JSON text; see
    :data:`CAUSAL_ARG`); None when the op, the text or the value at that position does not say (an older trace,
    another signature: the caller's default then stands)."""
    pos = CAUSAL_ARG.get(op.split("::", 1)[-1])
    args = _args(concrete) if pos is not None else None
    if args is None or pos >= len(args) or not isinstance(args[pos], str):
        return None
    v = args[pos].strip()
    if op.split("::", 1)[-1].startswith("_efficient_attention"):
        return {"0": False, "1": True, "2": True}.get(v)
    return {"True": True, "False": False}.get(v)


def attention_problem(op: str, t: list[tuple[list[int], int, str]]) -> tuple[Attention, list] | None:
    """The :class:`Attention` problem of an attention op (``op`` without ``aten::``) from its tensors
    ``t`` ((shape, bytes per element, dtype) in order), with its q/k/v tensors as given; None when the shapes do
    not fit (a varlen call's 3-D packed tensors)."""
    four = [x for x in t if len(x[0]) == 4]
    backward = op.endswith("_backward")
    qkv = four[1:4] if backward else four[:3]  # a backward op's first tensor is grad_out
    if len(qkv) < 3:
        return None  # varlen (3-D packed) calls need cu_seqlens, which the trace does not give
    shapes = [list(x[0]) for x in qkv]
    if _BNHD.match(op):
        shapes = [[s[0], s[2], s[1], s[3]] for s in shapes]
    q, k, v = shapes
    return Attention(q[0], q[1], k[1], q[2], k[2], q[3], v[3], qkv[0][2], backward), qkv
_UNARY = {"relu", "gelu", "silu", "sigmoid", "tanh", "exp", "neg", "abs", "sqrt", "rsqrt", "log", "sin", "cos",
          "reciprocal", "erf", "clamp", "clamp_min", "clamp_max", "hardtanh", "leaky_relu", "threshold", "fill_",
          "zero_", "copy_", "to",
          "_to_copy", "contiguous", "clone", "dropout", "native_dropout"}
_BINARY = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "where", "eq", "ne", "lt", "gt", "le", "ge",
           "masked_fill", "addcmul", "addcdiv", "lerp", "rsub"}
_REDUCE = {"sum": 1, "mean": 1, "amax": 1, "amin": 1, "max": 1, "min": 1, "all": 1, "any": 1, "norm": 2,
           "softmax": 5, "_softmax": 5, "log_softmax": 5, "_log_softmax": 5, "native_layer_norm": 5,
           "layer_norm": 5, "rms_norm": 4, "mse_loss": 3, "_fused_rms_norm": 4, "native_batch_norm": 5, "batch_norm": 5}
#: activation backward ops (grad_output, self or result, …) → grad_input: elementwise, binary
_BINARY |= {"threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward",
            "hardtanh_backward", "leaky_relu_backward", "elu_backward", "hardswish_backward", "mish_backward"}
#: softmax backward dx = y·(dy − Σ dy·y), log-softmax backward dx = dy − exp(y)·Σ dy (PyTorch's
#: ``_softmax_backward_data`` / ``_log_softmax_backward_data``): 4 FLOP per element, reads dy and y, writes dx
_REDUCE.update({"_softmax_backward_data": 4, "_log_softmax_backward_data": 4})
_REDUCE.update({"cudnn_batch_norm": 5, "miopen_batch_norm": 5, "_native_batch_norm_legit": 5,
                "_native_batch_norm_legit_no_training": 5})
#: batch-norm backward ops: (grad_out, input, …) for ATen's, (input, grad_out, …) for cuDNN's and MIOpen's — the
#: same shape, so the model reads the first two tensors either way
_BN_BACKWARD = {"native_batch_norm_backward", "cudnn_batch_norm_backward", "miopen_batch_norm_backward"}
#: max-pooling ops: position of (kernel_size, stride, padding, dilation, ceil_mode) among the recorded arguments
POOL_ARGS = {"max_pool1d_with_indices": (1, 2, 3, 4, 5), "max_pool2d_with_indices": (1, 2, 3, 4, 5),
             "max_pool3d_with_indices": (1, 2, 3, 4, 5), "max_pool1d": (1, 2, 3, 4, 5), "max_pool2d": (1, 2, 3, 4, 5),
             "max_pool3d": (1, 2, 3, 4, 5)}
_POOL_BACKWARD = {"max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward"}
_WRITE_ONLY = {"fill_", "zero_"}
_COPY_NO_FLOPS = {"fill_", "zero_", "copy_", "to", "_to_copy", "contiguous", "clone"}


#: GEMM ops whose first tensor argument is the bias/accumulator (``self``) and then the two matrices
_SELF_FIRST = {"addmm", "baddbmm"}


def _gemm_operands(op: str, t: list[tuple[list[int], int, str]]) -> tuple[tuple, tuple, list] | None:
    """(A, B, the other tensors) of a GEMM op's recorded tensors, or None when they are not the op's arguments:
    ``linear``/``mm``/``bmm``/``matmul`` take two matrices (``linear``'s bias is 1-D), ``addmm``/``baddbmm`` a
    ``self`` (1-D to 3-D) then two. A record listing more matrices than the op takes is not its input list (old
    PyTorch builds appended the inputs of earlier ops to a wrapper's ``Input Dims``: an ``aten::linear`` with six
    inputs in the HTA multirank trace): no model rather than FLOPs of another op's shapes."""
    mats = [x for x in t if len(x[0]) >= 2]
    if op in _SELF_FIRST and len(mats) == 3:
        a, w = mats[1], mats[2]
    elif len(mats) == 2 or (op == "_scaled_mm" and len(mats) > 2):
        a, w = mats[0], mats[1]
    else:
        return None
    return a, w, [x for x in t if x is not a and x is not w]


def _gemm_problem(op: str, t: list[tuple[list[int], int, str]]) -> tuple[int, int, int, int] | None:
    """(M, N, K, batch) of a GEMM op (``op`` without ``aten::``) from its two matrix operands
    (:func:`_gemm_operands`): ``linear`` multiplies x[…, K] by weight[N, K]ᵀ (M = the product of x's leading
    dimensions); the others A[…, M, K] by B[…, K, N] with broadcast batch dimensions. None when the inner
    dimensions disagree or the record is not the op's arguments."""
    ops = _gemm_operands(op, t)
    if ops is None:
        return None
    a, w = ops[0][0], ops[1][0]
    if op == "linear":
        return (prod(a[:-1]), w[0], a[-1], 1) if len(w) == 2 and w[1] == a[-1] else None
    if a[-1] != w[-2]:
        return None
    batch_a, batch_w = a[:-2], w[:-2]
    nb = max(len(batch_a), len(batch_w))
    ba_, bw_ = [1] * (nb - len(batch_a)) + batch_a, [1] * (nb - len(batch_w)) + batch_w
    return a[-2], w[-1], a[-1], prod(max(p, q) for p, q in zip(ba_, bw_))


def _gemm_cost(op: str, t: list[tuple[list[int], int, str]]) -> OpCost | None:
    got = _gemm_problem(op, t)
    if got is None:
        return None
    m, n, k, batch = got
    (a, ba, ta), (w, bw, _), bias = _gemm_operands(op, t)
    out_b = ba if op != "_scaled_mm" else 2
    f = gemm(m, n, k, batch, bias=bool(bias) and op in ("linear", "addmm", "baddbmm"))
    by = _nbytes(a, ba) + _nbytes(w, bw) + batch * m * n * out_b + sum(_nbytes(s, b) for s, b, _ in bias)
    return OpCost(f, by, _prec(ta), True)


def gemm_extents(name: str, input_dims: str | None, input_types: str | None) -> tuple[int, int, int] | None:
    """(M, N, K) of one recorded GEMM op (``aten::mm``, ``addmm``, ``bmm``, ``baddbmm``, ``matmul``, ``linear``,
    ``_scaled_mm``) from the JSON texts Kineto records (``Input Dims``, ``Input types``); None for another op or
    shapes that fit no GEMM."""
    m = _GEMM.match(str(name))
    if not m or not input_dims or not input_types:
        return None
    try:
        t = _tensors(json.loads(input_dims), json.loads(input_types))
        got = _gemm_problem(m.group(1), t)
    except (ValueError, RecursionError, TypeError, IndexError, OverflowError):
        return None
    return tuple(int(x) for x in got[:3]) if got else None


def _sdpa_cost(op: str, t: list[tuple[list[int], int, str]], causal: bool) -> OpCost | None:
    got = attention_problem(op, t)
    if got is None:
        return None
    a, ((_, bq, tq), (_, bk, _), (_, bv, _)) = got
    qkv = a.b * (a.hq * a.nq * a.d * bq + a.hkv * a.nkv * a.d * bk + a.hkv * a.nkv * a.dv * bv)
    out = a.b * a.hq * a.nq * a.dv * bq
    # forward: read Q, K, V, write O; backward: read Q, K, V, O, dO, write dQ, dK, dV
    by = 2 * qkv + 2 * out if a.backward else qkv + out
    return OpCost(a.flops(causal), by, _prec(tq), True)


def op_cost(name: str, input_dims: str | None, input_types: str | None, causal: bool = False,
            concrete: str | None = None) -> OpCost | None:
    """FLOPs and bytes of one recorded op (see the module table); None when no model fits.

    Args:
        name: op name as recorded (``"aten::addmm"``).
        input_dims, input_types: the JSON texts Kineto records (``[[141, 512], [512, 512], []]``,
            ``["c10::BFloat16", ...]``).
        causal: treat attention as causal when the call does not record whether it is (the caller decides).
        concrete: the call's ``Concrete Inputs`` text: an attention call's recorded ``is_causal`` decides
            (:func:`recorded_causal`).
    """
    if not input_dims or not input_types:
        return None
    try:
        dims, types = json.loads(input_dims), json.loads(input_types)
    except (ValueError, RecursionError):
        return None
    if not isinstance(dims, list) or not isinstance(types, list):
        return None
    t = _tensors(dims, types)
    if not t:
        return None
    try:
        said = recorded_causal(name, concrete) if concrete else None
        cost = _cost(name, t, causal if said is None else said, _args(concrete))
    except (OverflowError, ValueError, TypeError, ZeroDivisionError, IndexError):
        return None  # shapes that fit no model (a ragged list, an overflowing product): no figure, not an error
    if cost is None or not all(math.isfinite(v) and v >= 0 for v in (cost.flops, float(cost.bytes))):
        return None
    return cost


def _cost(name: str, t: list[tuple[list[int], int, str]], causal: bool, args: list | None = None
          ) -> OpCost | None:
    m = _GEMM.match(name)
    if m:
        return _gemm_cost(m.group(1), t)
    base = name.split("::", 1)[-1]
    if name.startswith("aten::") and base in CONV_ARGS:
        return _conv_cost(base, t, args)
    m = _SDPA.match(name)
    if m:
        return _sdpa_cost(m.group(1), t, causal)
    base = name.split("::", 1)[-1]
    stem = base.rstrip("_") if base not in _COPY_NO_FLOPS else base
    ins = sum(_nbytes(s, b) for s, b, _ in t)
    first, b0, d0 = t[0]
    if base in POOL_ARGS:
        return _pool_cost(base, t, args)
    if base in _POOL_BACKWARD:  # (grad_output, input, …, indices): dx has the input's shape, dy's dtype
        if len(t) < 3 or t[-1][0] != first:
            return None
        return OpCost(0.0, _nbytes(first, b0) + _nbytes(t[-1][0], t[-1][1]) + _nbytes(t[1][0], b0), _prec(d0), False)
    if base in _BN_BACKWARD:
        if len(t) < 2 or t[1][0] != first:
            return None
        n, vec = prod(first), sum(_nbytes(s_, b) for s_, b, _ in t[2:])
        return OpCost(9.0 * n, 2 * (_nbytes(first, b0) + _nbytes(t[1][0], t[1][1])) + n * b0 + vec, _prec(d0), False)
    if stem in _UNARY or base in _UNARY:
        n = prod(first)
        out_b = b0
        if base in _WRITE_ONLY:  # fill_/zero_ write their tensor and read nothing
            by = n * out_b
        elif base == "copy_" and len(t) >= 2:  # copy_(dst, src): read src, write dst (dst is not read)
            by = _nbytes(t[1][0], t[1][1]) + n * out_b
        else:
            by = ins + n * out_b
        return OpCost(0.0 if base in _COPY_NO_FLOPS else float(n), by, _prec(d0), False)
    if stem in _BINARY:
        shapes = [s for s, _, _ in t]
        nd = max(len(s) for s in shapes)
        padded = [[1] * (nd - len(s)) + s for s in shapes]
        out = [max(col) for col in zip(*padded)]
        n = prod(out)
        if stem in ("eq", "ne", "lt", "gt", "le", "ge"):
            out_b = 1  # bool
        else:  # `where` decides by its two values, not the bool condition
            vals = [x for x in t if x[2] != "bool"] if stem == "where" else t
            out_b = result_bytes(vals or t)
        return OpCost(float(n), ins + n * out_b, _prec(d0), False)
    if stem in _REDUCE:
        n = prod(first)
        is_norm = "norm" in stem or "softmax" in stem
        return OpCost(float(_REDUCE[stem] * n), ins + (n * b0 if is_norm else 0), _prec(d0), False)
    return None
