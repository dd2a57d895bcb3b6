"""Kineto ``B`` (begin) events of GPU work that no ``E`` ends: work that ran, with a start and no end.

Trace Event Format slices are never extended to the end of the trace (B04 of ../shared/cases). A host slice left
open is dropped and counted; a GPU one (category in :data:`._kineto_kinds.GPU_CATEGORIES`: a kernel, copy, memset)
is GPU work of unknown duration: it goes to the rejected rows with the reason :data:`._work_rules.NEVER_CLOSED`,
which the analyses count as an untimed launch (:func:`gpulens.analyzers._unknown_time.untimed_gpu_rows`: in the
kernel count, its time unknown) and :func:`._work_rules.refused_warnings` says so — as an nsys row with a NULL end.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np

from gpulens.collectors._kineto_kinds import _K, CATEGORY_KIND, GPU_CATEGORIES, category_key
from gpulens.collectors._work_rules import kinds_of_kernel_names

#: the reason code of such a row in the accumulator's rejected rows (index into its reasons, NEVER_CLOSED)
NEVER_CLOSED_CODE = 5


def is_gpu_slice(e: Any) -> bool:
    """Whether the ``B`` event ``e`` is GPU work (its category is a GPU one)."""
    return category_key(e.cat) in GPU_CATEGORIES


def unended_gpu_rows(opened: list[tuple[Decimal, Any]]) -> dict[str, Any]:
    """The rejected-rows record (the accumulator's ``rejected`` entry: kind codes, names, correlation ids, start
    [ns, on the trace's raw clock], durations unknown, reason :data:`NEVER_CLOSED_CODE`) of the GPU ``B`` events in
    ``opened`` ((ts µs, event) pairs)."""
    names = [e.name if isinstance(e.name, str) else None for _, e in opened]
    kinds = np.array([_K[CATEGORY_KIND.get(category_key(e.cat), "other")] for _, e in opened], dtype=np.int8)
    kern = np.flatnonzero(kinds == _K["kernel"])
    if len(kern):  # NCCL/RCCL kernels are communication, as for timed kernels
        kinds[kern] = [_K.get(k, _K["kernel"]) for k in kinds_of_kernel_names([names[i] for i in kern])]
    corr = []
    for _, e in opened:
        c = getattr(e.args, "correlation", None) if e.args is not None else None
        corr.append(c if isinstance(c, int) and not isinstance(c, bool) else None)
    n = len(opened)
    return {"kind": kinds, "name": names, "corr": corr,
            "ts": np.array([int(t * 1000) for t, _ in opened], dtype=np.int64), "ts_ok": np.ones(n, dtype=bool),
            "dur": np.zeros(n, dtype=np.int64), "dur_ok": np.zeros(n, dtype=bool),
            "reason": np.full(n, NEVER_CLOSED_CODE, dtype=np.int8)}
