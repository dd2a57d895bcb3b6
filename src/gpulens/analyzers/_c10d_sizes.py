"""Type and message size of a collective from the ``c10d::`` op that launched it, for traces whose
``record_param_comms`` events carry no ``In msg nelems`` / ``Out msg nelems`` / ``dtype`` args (PyTorch before 2.1
wrote only ``Input Dims`` / ``Input type`` on them, as on every op recorded with ``record_shapes``).

The rule. The ops of ``TORCH_LIBRARY(c10d, …)`` (pytorch/pytorch torch/csrc/distributed/c10d/Ops.cpp) take the
message buffers as their tensor arguments, e.g. ``_allgather_base_(Tensor output_tensor, Tensor input_tensor, …)``,
``alltoall_base_(Tensor output, Tensor input, …, int[] output_split_sizes, int[] input_split_sizes, …)``,
``_reduce_scatter_base_(Tensor output_tensor, Tensor input_tensor, …)``, ``barrier(Tensor tensor, …)``. Kineto
records each argument's shape and element type (``Input Dims`` ``[[1073741824], [16777216], []]``, ``Input type``
``["signed char", "signed char", ""]``). The size is then

    bytes = max over the tensor arguments of numel × element size

— the largest buffer, which is the "size" of nccl-tests (NVIDIA/nccl-tests doc/PERFORMANCE.md: the all-gather's
output, the reduce-scatter's input, the all-to-all's full buffer) and the ``max(In msg nelems, Out msg nelems) ×
dtype size`` that :mod:`gpulens.collectors._collectives` takes from the args when they are recorded. Element sizes:
:func:`gpulens.collectors._collectives.dtype_bytes`.

Unknown (None), never guessed: an op whose buffers are tensor lists (``allreduce_(Tensor[] tensors, …)``,
``allgather_(Tensor[][] …)``: Kineto writes ``TensorList`` and no shapes), an element type without a known size, or
no tensor argument. Only ``c10d::`` ops: the functional collectives (``_c10d_functional::all_gather_into_tensor(Tensor
input, int group_size, …)``) allocate their output, so their recorded tensors are not the whole message.
"""

from __future__ import annotations

import json
import re
from math import prod
from typing import Any

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.analyzers.context import codes_of
from gpulens.collectors._collectives import dtype_bytes

_C10D_OP = re.compile(r"^c10d::")
#: ``Input type`` values of arguments that are lists of tensors (their shapes are not recorded)
_TENSOR_LISTS = {"tensorlist", "genericlist", "tensor[]", "list"}
#: ``Input type`` values Kineto writes for arguments that are not tensors (ints, int lists, strings, devices)
_NOT_TENSORS = {"", "scalar", "scalarlist", "string", "device", "none"}


def _json(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return None
    return v


def c10d_message_bytes(dims: Any, types: Any) -> int | None:
    """Message size [bytes] of a ``c10d::`` op call from its recorded ``Input Dims`` and ``Input type`` (lists or
    their JSON text): the largest tensor argument's numel × element size; None when a buffer is a tensor list, an
    element size is unknown, or no tensor argument is recorded (module docstring)."""
    d, t = _json(dims), _json(types)
    if not isinstance(d, list) or not isinstance(t, list):
        return None
    sizes = []
    for shape, typ in zip(d, t):
        if not isinstance(typ, str) or typ.strip().lower() in _NOT_TENSORS:
            continue  # not a tensor: a scalar, an int list (split sizes), the process group object
        if typ.strip().lower() in _TENSOR_LISTS:
            return None
        b = dtype_bytes(typ)
        if b is None or not isinstance(shape, list) \
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in shape):
            return None
        sizes.append(prod(shape) * b)
    return max(sizes) if sizes else None


def c10d_ops_of(ops: pd.DataFrame, op_ids: np.ndarray) -> pd.DataFrame:
    """For each op event id in ``op_ids`` (int64, −1 for none): the innermost ``c10d::`` op that is that op or
    encloses it on its thread (``ops``: :func:`gpulens.analyzers._optree.op_tree` ``["ops"]``), as columns
    ``c10d_op`` (its name, None when none) and ``c10d_bytes`` (:func:`c10d_message_bytes`, Int64 <NA> when
    unknown), one row per entry of ``op_ids``."""
    from gpulens.analyzers._optree import _positions_of

    n = len(op_ids)
    out = pd.DataFrame({"c10d_op": pd.Series(np.full(n, None, dtype=object)), "c10d_bytes": all_missing(n)})
    if not n or not len(ops):
        return out
    ids = ops["event_id"].to_numpy()
    parent = ops["parent_event_id"].fillna(-1).astype("int64").to_numpy()
    name = ops["name"]
    if isinstance(name.dtype, pd.CategoricalDtype):  # the categories' codes: no string per op (≈ 0.2 s at 1M ops)
        codes, names = codes_of(name), name.cat.categories
    else:
        codes, names = pd.factorize(name.astype(object))
    is_c10d = np.array([isinstance(x, str) and bool(_C10D_OP.match(x)) for x in names] + [False])[
        np.where(codes >= 0, codes, len(names))]
    pos = _positions_of(ids, np.asarray(op_ids, dtype=np.int64))
    found = np.full(n, -1, dtype=np.int64)
    active = pos >= 0
    for _ in range(int(ops["depth"].max()) + 1 if "depth" in ops else 64):  # one step up per nesting level
        if not active.any():
            break
        p = np.maximum(pos, 0)
        hit = active & is_c10d[p]
        found[hit] = pos[hit]
        active &= ~hit
        nxt = np.where(active, parent[p], -1)
        pos = np.where(nxt >= 0, _positions_of(ids, nxt), -1)
        active &= pos >= 0
    has = found >= 0
    if not has.any():
        return out
    rows = found[has]
    # the found ops' rows taken first, then made text (not every op's: ~1M rows per column at 1M kernels)
    name = np.asarray(ops["name"].iloc[rows].astype(object).to_numpy(), dtype=object)
    dims = ops["input_dims"].iloc[rows].astype(object).to_numpy() if "input_dims" in ops else [None] * len(rows)
    types = ops["input_types"].iloc[rows].astype(object).to_numpy() if "input_types" in ops else [None] * len(rows)
    memo: dict[tuple, int | None] = {}  # one parse per distinct (dims, types): a few shapes for many calls
    nbytes = []
    for d, t in zip(dims, types):
        k = (d if isinstance(d, str) else None, t if isinstance(t, str) else None)
        if k not in memo:
            memo[k] = c10d_message_bytes(*k)
        nbytes.append(memo[k])
    out.loc[has, "c10d_op"] = name
    out.loc[has, "c10d_bytes"] = pd.array(nbytes, dtype="Int64")
    return out
