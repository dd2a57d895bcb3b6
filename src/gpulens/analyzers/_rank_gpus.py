"""Per-rank tables of a rank that drove several GPUs (one process on four GPUs: nvprof / nsys single-process runs,
single-controller JAX): their time columns are sums over the rank's GPUs — device time, which may exceed the run's
wall span (ncclAllReduce on a V100×4: 468.25 ms = 116.66 + 117.18 + 117.20 + 117.22 ms, one figure per GPU). The
column's doc says so (:func:`rank_gpu_sum_docs`), and every reporter's header reads it from the doc
(:func:`gpulens.reports._format.column_label`): one definition for console, JSON, Markdown and HTML."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

#: The words a column's doc carries when its figures are sums over a rank's GPUs (reports head it "(Σ over the
#: rank's GPUs)").
RANK_GPU_SUM = "summed over the GPUs of its rank"


def most_gpus_per_rank(timeline: Any) -> int:
    """The largest number of distinct GPUs (``device_id`` of GPU events: kernels, collectives, copies, fills) any one
    rank ran work on; 0 without GPU events. Memoised on the analysis context."""
    from gpulens.analyzers.context import context_of

    ctx = context_of(timeline)

    def compute() -> int:
        gpu = ctx.gpu
        if not len(gpu):
            return 0
        dev = gpu["device_id"].to_numpy("int64", na_value=-1)
        known = dev >= 0
        d = dev[known]
        if not len(d) or d.min() == d.max():  # one GPU in the whole run (the usual case): no pass over pairs
            return 1
        pairs = pd.DataFrame({"rank": gpu["rank"].to_numpy()[known], "device": d}).drop_duplicates()
        return int(pairs.groupby("rank", sort=False).size().max())

    return ctx.memo("most_gpus_per_rank", compute)


def rank_gpu_sum_docs(columns: Mapping[str, str], timeline: Any, sum_columns: Iterable[str]) -> dict[str, str]:
    """``columns`` (name → doc ending in ``[unit]``) with the docs of ``sum_columns`` saying their figures are
    summed over the rank's GPUs when some rank ran on more than one (:func:`most_gpus_per_rank`); unchanged
    otherwise."""
    n = most_gpus_per_rank(timeline)
    out = dict(columns)
    if n <= 1:
        return out
    for c in sum_columns:
        doc = out[c]
        cut = doc.rfind(" [")
        head, unit = (doc[:cut], doc[cut:]) if cut >= 0 else (doc, "")
        out[c] = f"{head}, {RANK_GPU_SUM} (up to {n} GPUs){unit}"
    return out
