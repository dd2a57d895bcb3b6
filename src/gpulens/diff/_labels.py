"""Labels of diff rows that name a copy with its direction: a device-to-host copy in one run and a device-to-device
copy in the other are two pieces of work, in every table of the diff alike (kernels, categories)."""

from __future__ import annotations

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
