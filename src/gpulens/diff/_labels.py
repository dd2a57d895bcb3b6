"""Labels of diff rows that name a copy with its direction: a device-to-host copy in one run and a device-to-device
copy in the other are two pieces of work, in every table of the diff alike (kernels, categories); and the warning
that an assumed GPU differs from the other run's (:func:`assumed_gpu_differs`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors._kineto_kinds import copy_kind_of


def copy_direction(name: str) -> str:
    """The direction of a copy from its event name (``HtoD``, ``DtoH``, ``DtoD``, ``PtoP``, ``HtoH``…), or '' when the
    name does not say: the collectors' rule (:func:`gpulens.collectors._kineto_kinds.copy_kind_of`: CUDA ``Memcpy
    DtoH``, nsys 2023+ ``[CUDA memcpy Host-to-Device]``, HIP ``CopyDeviceToHost``, rocprofiler-sdk
    ``MEMORY_COPY_HOST_TO_DEVICE``, XLA ``MemcpyH2D``)."""
    return copy_kind_of(str(name)) or ""


def category_label(df: pd.DataFrame) -> pd.Series:
    """Each row's work category as the diff's tables show it (columns ``category``, ``kind``, ``name``): a copy's
    (``kind`` memcpy) with its direction, ``"copy (DtoH)"`` — the categories table then holds a DtoH copy that
    vanished and a DtoD copy that appeared as two rows, as the kernels table does, never one ``copy`` row that
    reads as the same copy 7 % slower (BERT H100 vs MI300X) — else the category as it is."""
    cat = df["category"].astype(str)
    memcpy = (df["kind"].astype(str) == "memcpy").to_numpy()
    if not memcpy.any():
        return cat
    d = df.loc[memcpy, "name"].astype(str).map(copy_direction)
    out = cat.copy()
    out[memcpy] = np.where(d != "", cat[memcpy] + " (" + d + ")", cat[memcpy])
    return out


def assumed_gpu_differs(base: Any, cand: Any) -> list[str]:
    """The warning that the GPU specs two :class:`~gpulens.diff.compute.DiffSide` were analysed as (``analysed_as``,
    else the recorded names) differ while a side's was assumed (its trace names no GPU, so the recorded names cannot
    tell the GPUs apart and the different-GPU warning is not given: an 80-SM trace assumed a V100 beside an A100
    run); else []."""
    specs = [set(s.analysed_as) or set(s.devices) for s in (base, cand)]
    return [f"the runs are likely on different GPUs (base: {base.device_label()}; candidate: {cand.device_label()}): "
            "a GPU not recorded was assumed, and the specs differ: the differences may measure the hardware as well "
            "as the code"] if (base.assumed or cand.assumed) and all(specs) and specs[0] != specs[1] else []
