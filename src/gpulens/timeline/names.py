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

#: Runtime/driver calls that launch kernels, by name, whatever the vendor — the one table of collectors (an
#: incomplete capture: launch calls without kernels) and analyzers (launch accounting): CUDA runtime and driver
#: (``cudaLaunchKernel``, ``cudaLaunchKernelExC``, ``cuLaunchKernel(Ex)``, cooperative launches), HIP
#: (``hipLaunchKernel``, ``hipExtModuleLaunchKernel``, ``hipModuleLaunchKernel``, ``hipDrvLaunchKernelEx``), Intel XPU
#: as Kineto records it (Unified Runtime ``urEnqueueKernelLaunch*`` / ``urEnqueueCooperativeKernelLaunch*``, the older
#: PI ``piEnqueueKernelLaunch``, Level Zero ``zeCommandListAppendLaunch*Kernel*``) and graph replays
#: (:data:`GRAPH_LAUNCH_RE`). Matched after nsys' ``_vNNNN`` suffix is dropped.
LAUNCH_API_RE = re.compile(r"^(?:cuda|cu|hip)(?:Drv)?(?:Ext)?(?:Module)?Launch|^(?:cuda|cu|hip)GraphLaunch"
                           r"|^urEnqueue(?:Cooperative)?KernelLaunch|^piEnqueueKernelLaunch"
                           r"|^zeCommandListAppendLaunch\w*Kernel|^urCommandBufferEnqueueExp")
#: Collective-library calls that enqueue GPU work (NCCL / RCCL: ``ncclAllReduce``, ``ncclSend``, ``ncclGroupEnd``…, as
#: rocprofv3's RCCL API domain and nsys' NCCL trace record them): not launch calls (their kernels are launched inside
#: the library, by calls of :data:`LAUNCH_API_RE`), but a capture holding them and no GPU record is incomplete too.
COLLECTIVE_API_RE = re.compile(r"^(?:nccl|rccl)(?:AllReduce|AllGather|ReduceScatter|Reduce|Broadcast|Bcast|AllToAll"
                               r"|Alltoall|Gather|Scatter|Send|Recv|GroupEnd)\w*$")
#: Graph replays among :data:`LAUNCH_API_RE`: CUDA/HIP ``GraphLaunch``, SYCL graphs ``urCommandBufferEnqueueExp``.
GRAPH_LAUNCH_RE = re.compile(r"GraphLaunch|^urCommandBufferEnqueueExp")
#: The name of a GPU record that is a whole CUDA graph replay, not one kernel: nsys with its default
#: ``--cuda-graph-trace=graph`` writes one ``CUPTI_ACTIVITY_KIND_GRAPH_TRACE`` row per replay
#: (:func:`gpulens.collectors._nsys_more.graph_trace` names it :func:`graph_replay_name`).
GRAPH_REPLAY_RE = re.compile(r"^CUDA graph(?: [0-9]+)?$")


def graph_replay_name(graph_id: int | None) -> str:
    """``"CUDA graph 5"`` (``"CUDA graph"`` without an id): the name of a graph-level replay record."""
    return "CUDA graph" if graph_id is None else f"CUDA graph {int(graph_id)}"


def is_graph_replay(name: object) -> bool:
    """Whether a kernel-kind record is a whole CUDA graph replay traced at graph level (:data:`GRAPH_REPLAY_RE`):
    its kernels were not recorded one by one, so no per-kernel counter or verdict applies to it."""
    return isinstance(name, str) and GRAPH_REPLAY_RE.match(name) is not None


def graph_capture_text(side: str, other: str, graphs: list[str]) -> str:
    """The one wording of two runs of which only ``side`` traced CUDA graphs at graph level (``graphs``: its
    replay record names, :func:`is_graph_replay`), for the gate and ``gpulens diff``: "the baseline traced CUDA
    graphs at graph level (CUDA graph 5: each replay one record, its kernels not counted one by one) and the
    candidate did not"."""
    return (f"the {side} traced CUDA graphs at graph level ({', '.join(graphs[:3])}: each replay one record, its "
            f"kernels not counted one by one) and the {other} did not")

#: Runtime calls that enqueue a copy / a fill (CUDA runtime and driver, HIP, Intel Unified Runtime and Level Zero): the
#: GPU record such a call enqueues is a copy / a fill whatever category or name it carries (B12 of ../shared/cases:
#: ROCm copies recorded as ``kernel`` records, pytorch/kineto PR#1295).
COPY_API_RE = re.compile(r"^(?:cuda|cu|hip)(?:Drv)?Memcpy|^urEnqueueUSMMemcpy|^urEnqueueMemBuffer(?:Read|Write|Copy)"
                         r"|^zeCommandListAppendMemoryCopy")
FILL_API_RE = re.compile(r"^(?:cuda|cu|hip)(?:Drv)?Memset|^urEnqueueUSMFill|^urEnqueueMemBufferFill"
                         r"|^zeCommandListAppendMemoryFill")

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


def code_dtype(n: int) -> np.dtype:
    """The integer dtype pandas keeps the codes of a Categorical of ``n`` categories in (the smallest of int8,
    int16, int32, int64 whose maximum is above ``n``: ``pandas.core.dtypes.cast.coerce_indexer_dtype``). A code
    table (``remap``) of this dtype makes ``remap[codes]`` the column's codes as they are stored: no int64 array of
    every row's codes, then a second, narrowed copy of it (each a fresh 3M-row array at 1M kernels)."""
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


def normalized_names(names: pd.Series) -> pd.Series:
    """Vectorised :func:`normalize_kernel_name` over a categorical (or any) Series: each distinct name is processed
    once, so millions of rows cost one pass over the categories plus an integer take on the codes (no per-row
    string objects are created). Returns a categorical Series for categorical input."""
    if isinstance(names.dtype, pd.CategoricalDtype):
        cats = names.cat.categories
        normed = [normalize_kernel_name(c) for c in cats]
        uniq = pd.Index(normed, dtype="str").unique()
        remap = uniq.get_indexer(normed)  # old category code -> new category code
        # one lookup per row: the table's last slot (-1) is what code -1 (no name) reads; the table in the dtype
        # pandas keeps the new codes in, so no int64 array of every row is made (3M rows at 1M kernels)
        lut = np.empty(len(remap) + 1, dtype=code_dtype(len(uniq)))
        lut[:-1] = remap
        lut[-1] = -1
        new_codes = lut[names.cat.codes.to_numpy()]
        return pd.Series(pd.Categorical.from_codes(new_codes, categories=uniq), index=names.index)
    return names.map(lambda v: normalize_kernel_name(v) if isinstance(v, str) else None)


# --- kernel_key: one spelling per kernel across profilers, demanglers and mangled/demangled records -------------

# NVIDIA's demangler (nsys ``demangledName``, ncu, cu++filt) writes integer template arguments with a C cast,
# GNU's ``__cxa_demangle`` (Kineto, rocprof, c++filt) with a literal suffix. Both spell the same value.
_CAST_SUFFIX = {
    "int": "",
    "unsigned int": "u",
    "long": "l",
    "unsigned long": "ul",
    "long long": "ll",
    "unsigned long long": "ull",
}
_CAST_LITERAL = re.compile(r"\((unsigned long long|long long|unsigned long|unsigned int|long|int|bool)\)(-?[0-9]+)\b")
_NV_LAMBDA = re.compile(r"\[lambda\(([^()]*)\) \(instance ([0-9]+)\)\]")
_ANON_NS = re.compile(r"<unnamed>|\{anonymous\}")
_SPACE_BEFORE = re.compile(r"\s+([*&>),\]])")
_SPACE_AFTER = re.compile(r"([(<\[])\s+")
_OPERATOR_CALL = re.compile(r"operator \(\)")
_BLANKS = re.compile(r"\s+")


def _demangle(name: str) -> str:
    """Itanium C++ ABI demangling of ``name`` (``_Z…``) by libstdc++'s ``abi::__cxa_demangle`` through
    :mod:`cxxfilt` — the demangler Kineto and rocprof use, so the result is spelled as they spell it. Names
    that are not mangled, or that the demangler rejects, are returned unchanged; so is everything when the
    C++ runtime library cannot be found."""
    try:
        import cxxfilt

        return cxxfilt.demangle(name)
    except Exception:  # cxxfilt absent, C++ runtime not found, or not a valid mangled name: keep as recorded
        return name


def _cast_literal(m: re.Match) -> str:
    kind, value = m.group(1), m.group(2)
    if kind == "bool":
        return "false" if value == "0" else "true"
    return value + _CAST_SUFFIX[kind]


def _drop_template_params(name: str) -> str:
    """Drop the parameter list of a function template (``f<A, B>(int, T2, T3)`` → ``f<A, B>``).

    The template arguments identify the instantiation; its parameter list follows from them, and demanglers
    print it differently (NVIDIA's writes template-parameter names ``T2``, GNU's the substituted types).
    Non-template names keep their parameters: ``vecAdd(float*)`` and ``vecAdd(double*)`` stay distinct."""
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        c = name[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                head = name[:i]
                return head if head.endswith(">") else name
    return name


def kernel_key(name: str) -> str:
    """The name used to match one kernel across runs, profilers and name spellings (the gate, ``gpulens diff``
    and hotspot grouping).

    Steps: outer blanks and the AMDGPU ``.kd`` suffixes are removed (:func:`normalize_kernel_name`); an
    Itanium-mangled name (``_Z…``) is demangled with libstdc++'s ``__cxa_demangle`` (:mod:`cxxfilt`); the
    spellings of NVIDIA's demangler are rewritten to GNU's (``(int)4`` → ``4``, ``(unsigned long)1`` → ``1ul``,
    ``(bool)0`` → ``false``, ``<unnamed>`` → ``(anonymous namespace)``, ``[lambda(int) (instance 2)]`` →
    ``{lambda(int)#2}``); blanks are collapsed and removed before ``* & > ) , ]`` and after ``( < [``
    (``char *`` → ``char*``, ``> >`` → ``>>``); a function template loses its parameter list (see
    :func:`_drop_template_params`). Names without C++ syntax (``ampere_sgemm_128x64_nn``,
    ``triton_poi_fused_0``) only lose blanks and suffixes.

    >>> kernel_key("_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE.kd")
    'ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)'
    >>> kernel_key("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>) [clone .kd]")
    'ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)'
    """
    text = normalize_kernel_name(str(name)) or ""
    if text.startswith("_Z"):
        text = normalize_kernel_name(_demangle(text)) or text
    if not any(c in text for c in "<>(),*&[]{}: "):
        return text
    text = _BLANKS.sub(" ", text)
    text = _CAST_LITERAL.sub(_cast_literal, text)
    text = _NV_LAMBDA.sub(lambda m: "{lambda(%s)#%s}" % (m.group(1), m.group(2)), text)
    text = _ANON_NS.sub("(anonymous namespace)", text)
    text = _OPERATOR_CALL.sub("operator()", text)
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    return _drop_template_params(text.strip())


#: The name an event gets when its source records none, or only blanks (an nsys ``StringIds`` value ``''``, a Kineto
#: ``"name": ""``): one visible text for every collector (``collectors._dispatch.UNNAMED`` is the same string).
UNNAMED = "(unnamed)"


def blank_names_named(names: pd.Series) -> pd.Series:
    """``names`` (a categorical of ``str`` categories) with every blank category — empty or whitespace only —
    written :data:`UNNAMED` (merged with an existing ``UNNAMED`` category). Work is per category, not per row; the
    series itself is returned when no category is blank."""
    cats = names.cat.categories
    if not len(cats):
        return names
    blank = np.fromiter((not str(c).strip() for c in cats), dtype=bool, count=len(cats))
    if not blank.any():
        return names
    new = pd.Index([UNNAMED if b else c for c, b in zip(cats.tolist(), blank.tolist())], dtype=object)
    uniq = pd.Index(pd.unique(new), dtype=object)
    remap = uniq.get_indexer(new)
    codes = names.cat.codes.to_numpy()
    codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
    return pd.Series(pd.Categorical.from_codes(codes, categories=pd.Index(uniq.tolist(), dtype=cats.dtype)),
                     index=names.index)
