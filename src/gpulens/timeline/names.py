"""Kernel-name normalisation shared by collectors, analyzers and the cross-source join.

Profilers spell the same kernel differently:

* rocprof v1 / Omniperf append the code-object symbol suffix: ``vecCopy(double*, …) [clone .kd]``,
  ``vecCopy(double*, …) (.kd)`` (rocprofv2-era) or ``__amd_rocclr_copyBuffer.kd``;
* rocprof v1's ``--hip-trace`` JSON and the Kineto trace of the same program write the bare demangled name;
* rocprofv3 ``truncated_kernel_name`` keeps only the function identifier (``vectorized_elementwise_kernel``)
  where Kineto keeps the full signature (``void at::native::vectorized_elementwise_kernel<4, …>(…)``).

:func:`normalize_kernel_name` removes only the toolchain suffixes (the Timeline column ``name_norm``);
:func:`truncate_kernel_name` reduces a name further to its bare function identifier, for matching sources where one
side truncated names.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

# trailing " [clone .kd]", " (.kd)", ".kd" (the AMDGPU kernel-descriptor symbol suffix), repeated or not
_KD_SUFFIX = re.compile(r"(?:\s*\[clone \.kd\]|\s*\(\.kd\)|\.kd)+\s*$")


def normalize_kernel_name(name: str | None) -> str | None:
    """``name`` without the AMDGPU ``.kd`` symbol suffixes (`` [clone .kd]``, `` (.kd)``, ``.kd``) and outer blanks.

    Other names are returned unchanged (stripped). ``None`` stays ``None``.

    >>> normalize_kernel_name("vecCopy(double*, double*, double*, int, int) [clone .kd]")
    'vecCopy(double*, double*, double*, int, int)'
    >>> normalize_kernel_name("__amd_rocclr_copyBuffer.kd")
    '__amd_rocclr_copyBuffer'
    """
    if name is None:
        return None
    out = _KD_SUFFIX.sub("", str(name)).strip()
    return out or str(name).strip()


def truncate_kernel_name(name: str | None) -> str | None:
    """The bare function identifier of a kernel name: no ``.kd`` suffix, return type, namespace, template or
    parameters (:func:`gpulens.timeline.join.base_name` applied to :func:`normalize_kernel_name`).

    ``void at::native::vectorized_elementwise_kernel<4, …>(int, …)`` → ``vectorized_elementwise_kernel``;
    ``Cijk_Ailk_Bjlk_…`` (no punctuation) is returned as is. This is what rocprofv3 writes as
    ``truncated_kernel_name``.
    """
    from gpulens.timeline.join import base_name

    n = normalize_kernel_name(name)
    return None if n is None else (base_name(n) or n)


def normalized_names(names: pd.Series) -> pd.Series:
    """Vectorised :func:`normalize_kernel_name` over a categorical (or any) Series: each distinct name is processed
    once, so millions of rows cost one pass over the categories plus an integer take on the codes (no per-row
    string objects are created). Returns a categorical Series for categorical input."""
    if isinstance(names.dtype, pd.CategoricalDtype):
        cats = names.cat.categories
        normed = [normalize_kernel_name(c) for c in cats]
        uniq = pd.Index(normed, dtype="str").unique()
        remap = uniq.get_indexer(normed)  # old category code -> new category code
        codes = names.cat.codes.to_numpy()
        new_codes = np.where(codes < 0, -1, remap.take(codes.clip(min=0)) if len(remap) else -1)
        return pd.Series(pd.Categorical.from_codes(new_codes, categories=uniq), index=names.index)
    return names.map(lambda v: normalize_kernel_name(v) if isinstance(v, str) else None)
