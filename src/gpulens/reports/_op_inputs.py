"""An op's recorded input shapes and dtypes as an engineer writes them (units ``shapes`` / ``dtypes`` of
:data:`gpulens.analyzers.base.UNITS`): ``[141×512]; [512×512]; –`` and ``bf16 ×3, scalar ×2``, read from the compact
JSON text the profiler records (Kineto ``Input Dims`` / ``Input type``), which the JSON report keeps as it is."""

from __future__ import annotations

import itertools
from typing import Any

#: PyTorch's C++ scalar type names as the profiler records them (``Input type``) → the torch dtype's short name
_DTYPE_SHORT = {"c10::BFloat16": "bf16", "c10::Half": "fp16", "float": "fp32", "double": "fp64",
                "c10::Float8_e4m3fn": "fp8 e4m3", "c10::Float8_e5m2": "fp8 e5m2",
                "c10::Float8_e4m3fnuz": "fp8 e4m3fnuz",
                "c10::Float8_e5m2fnuz": "fp8 e5m2fnuz", "long int": "int64", "long": "int64", "int": "int32",
                "short int": "int16", "short": "int16", "signed char": "int8", "unsigned char": "uint8",
                "bool": "bool", "c10::complex<float>": "complex64", "c10::complex<double>": "complex128",
                "c10::complex<c10::Half>": "complex32", "Scalar": "scalar", "": "–"}


def _recorded_list(text: Any) -> list | None:
    """The JSON list a shapes/dtypes cell holds, or None when it holds something else."""
    import json

    try:
        v = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return None
    return v if isinstance(v, list) else None


def _shape(v: Any) -> str:
    if isinstance(v, list) and v and all(isinstance(x, list) for x in v):  # a tensor list
        return "[" + ", ".join(_shape(x) for x in v) + "]"
    if isinstance(v, list):
        return "[" + "×".join(str(x) for x in v) + "]" if v else "–"
    return str(v)


def shapes_text(text: Any) -> str:
    """An op's recorded input shapes (``[[141,512],[512,512],[]]``) as a person reads them: ``[141×512];
    [512×512]; –`` — one entry per input in order, each tensor in brackets (a 1-D tensor of 1,073,741,824 elements
    reads as a shape, ``[1073741824]``, not as a bare count or a clock value), ``–`` for an input that is not a tensor
    (a scalar, None; a run of three or more counted: ``12 × –``), a tensor list as a list of them
    (``[[2×3], [4]]``). Anything that is not a JSON list is returned as it is."""
    v = _recorded_list(text)
    if not v:
        return str(text)
    out: list[str] = []
    for x, run in itertools.groupby(_shape(x) for x in v):
        k = len(list(run))
        out += [f"{k} × –"] if x == "–" and k >= 3 else [x] * k  # three or more non-tensor inputs: counted
    return "; ".join(out)


def dtypes_text(text: Any) -> str:
    """An op's recorded input dtypes (``["c10::BFloat16","c10::BFloat16","Scalar"]``) as a person reads them:
    PyTorch's short names in input order, a run of equal ones counted (``bf16 ×2, scalar``); ``–`` for an input
    without a dtype. One recorded dtype on its own (a GEMM's ``"c10::BFloat16"``) reads as its short name
    (``bf16``); anything else that is not a JSON list is returned as it is."""
    v = _recorded_list(text)
    if v is None and isinstance(text, str) and (text in _DTYPE_SHORT or text.startswith("c10::")):
        return _DTYPE_SHORT.get(text, text.removeprefix("c10::"))
    if not v:
        return str(text)
    runs: list[list[Any]] = []
    for x in v:
        name = _DTYPE_SHORT.get(str(x), str(x).removeprefix("c10::"))
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    return ", ".join(f"{n} ×{k}" if k > 1 else n for n, k in runs)
