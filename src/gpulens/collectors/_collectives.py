"""Collective metadata as PyTorch records it → ``tables["collectives"]`` (one row per event that carries it).

PyTorch's c10d writes, on its ``record_param_comms`` CPU op (and, since 2.1, on the NCCL kernel itself), the args
(torch/csrc/distributed/c10d/ParamCommsUtils.hpp): ``Collective name``, ``In msg nelems``, ``Out msg nelems``,
``dtype`` (a c10 ScalarType name), ``Group size``, ``Process Group Name``, ``Process Group Description``,
``Process Group Ranks``, ``In split size``, ``Out split size``.

Columns (:data:`COLLECTIVE_COLUMNS`): the event it belongs to, those values, and ``bytes`` = max(in, out) elements ×
element size — the "size" of nccl-tests (the full buffer: for all-gather the output, for reduce-scatter the input;
NVIDIA/nccl-tests doc/PERFORMANCE.md). ``bytes`` is NA when the dtype or the element counts are unknown.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

COLLECTIVE_COLUMNS = ("event_id", "collective", "in_nelems", "out_nelems", "dtype", "bytes", "group_size",
                      "pg_name", "pg_desc", "pg_ranks", "in_split", "out_split")

#: dtype name → bytes per element: c10 ScalarType names (c10/core/ScalarType.h), torch dtype names, and the
#: element type names Kineto writes in a cpu_op's ``Input type`` (c10 TypeMeta: the demangled C++ type, c10/util/
#: TypeIndex.h — ``unsigned char`` for uint8, ``signed char`` for int8, ``long``/``long int`` for int64,
#: ``c10::Half``, ``c10::complex<float>``), compared lower-case without the ``c10::`` prefix
DTYPE_BYTES = {"float": 4, "double": 8, "half": 2, "bfloat16": 2, "complexfloat": 8, "complexdouble": 16,
               "complexhalf": 4, "byte": 1, "char": 1, "short": 2, "int": 4, "long": 8, "bool": 1,
               "uint16": 2, "uint32": 4, "uint64": 8, "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1,
               "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1, "qint8": 1, "quint8": 1, "qint32": 4,
               "float32": 4, "float64": 8, "float16": 2, "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8,
               "unsigned char": 1, "signed char": 1, "short int": 2, "long int": 8, "long long": 8,
               "long long int": 8, "unsigned short": 2, "unsigned int": 4, "unsigned long": 8,
               "complex<float>": 8, "complex<double>": 16, "complex<c10::half>": 4, "complex<half>": 4}


def _int(v: Any) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, float) and v == v:
        return int(v)
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v.strip())
    return None


def _text(v: Any) -> str | None:
    if v is None:
        return None
    return v if isinstance(v, str) else str(v)


def dtype_bytes(dtype: Any) -> int | None:
    """Bytes per element of a ScalarType name (``Float``, ``BFloat16``, ``c10::Half``, ``torch.float16``)."""
    if not isinstance(dtype, str):
        return None
    key = dtype.strip().lower().replace("c10::", "").replace("torch.", "").replace("at::", "")
    return DTYPE_BYTES.get(key)


def collective_table(pieces: list[tuple[np.ndarray, list]], keep: np.ndarray | None,
                     new_id: np.ndarray | None) -> pd.DataFrame | None:
    """``tables["collectives"]`` from (row numbers, Args) pieces; rows dropped by a selection are left out."""
    if not pieces:
        return None
    rows = np.concatenate([r for r, _ in pieces])
    args = [a for _, part in pieces for a in part]
    if keep is not None:
        kept = keep[rows]
        rows, args = new_id[rows[kept]], [a for a, k in zip(args, kept) if k]
    if not len(rows):
        return None
    in_n = [_int(a.in_nelems) for a in args]
    out_n = [_int(a.out_nelems) for a in args]
    size = [dtype_bytes(a.dtype) for a in args]
    nbytes = [max(x for x in (i, o) if x is not None) * s if s is not None and (i is not None or o is not None)
              else None for i, o, s in zip(in_n, out_n, size)]
    return pd.DataFrame({
        "event_id": rows.astype("int64"),
        "collective": [_text(a.coll_name) for a in args],
        "in_nelems": pd.array(in_n, dtype="Int64"), "out_nelems": pd.array(out_n, dtype="Int64"),
        "dtype": [_text(a.dtype) for a in args], "bytes": pd.array(nbytes, dtype="Int64"),
        "group_size": pd.array([_int(a.group_size) for a in args], dtype="Int64"),
        "pg_name": [_text(a.pg_name) for a in args], "pg_desc": [_text(a.pg_desc) for a in args],
        "pg_ranks": [_text(a.pg_ranks) for a in args], "in_split": [_text(a.in_split) for a in args],
        "out_split": [_text(a.out_split) for a in args]})
