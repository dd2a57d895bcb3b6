"""Kineto: what each event is — the category → kind rules, copy directions, and the Trace Event Format phases.

:data:`CATEGORY_KIND` maps a lower-cased Kineto category to a Timeline kind, refined by name for kernels
(:func:`kind_of`); :func:`copy_kind_of` reads a copy's direction from its name; :data:`KIND_LIST` numbers the kinds
(:data:`_K`) as the accumulator (:mod:`._kineto_acc`) stores them, and :func:`_codes_to_cat` turns those codes back
into a categorical. :func:`_unknown_phases` and :func:`_has_other` sort a decoded piece's events by phase.
"""

from __future__ import annotations

import re
from operator import attrgetter

import numpy as np

from gpulens.collectors._kineto_columns import SKIPPED_PHASES, used_codes
from gpulens.collectors._work_rules import kind_of_kernel_name

#: lower-cased Kineto category → Timeline kind (current and 2021 legacy spellings).
CATEGORY_KIND = {
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "memcpy": "memcpy",
    "gpu_memset": "memset",
    "memset": "memset",
    "cpu_op": "cpu_op",
    "operator": "cpu_op",
    "cuda_runtime": "runtime",
    "cuda_driver": "runtime",
    "runtime": "runtime",
    "driver": "runtime",
    # the host-side API categories of Kineto's other backends (libkineto ActivityType names): Intel XPU (Unified
    # Runtime / Level Zero calls), MTIA, PrivateUse1 devices — launch calls like cuda_runtime's, linked by correlation
    "xpu_runtime": "runtime",
    "xpu_driver": "runtime",
    "mtia_runtime": "runtime",
    "privateuse1_runtime": "runtime",
    "privateuse1_driver": "runtime",
    # PaddlePaddle's profiler (chrometracing_logger.cc) names its CUDA API calls' category CudaRuntime; their
    # "correlation id" arg (Paddle's spelling) links them to their kernels as "correlation" does
    "cudaruntime": "runtime",
    # its step ranges (``ProfileStep#N``): category ProfileStep (schema 1.0.1), profile_step (1.0.0, 2022); its
    # user ranges (paddle.profiler.RecordEvent): UserDefined / PythonUserDefined (1.0.1), user_defined (1.0.0)
    "profilestep": "annotation",
    "profile_step": "annotation",
    "userdefined": "annotation",
    "pythonuserdefined": "annotation",
    "user_defined": "annotation",
    "cuda_sync": "sync",
    "xpu_sync": "sync",
    "user_annotation": "annotation",
    "gpu_user_annotation": "annotation",
    "python_function": "python",
}
GPU_CATEGORIES = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset", "gpu_user_annotation"}
#: ``Memcpy HtoD (…)``; TensorFlow 1.x timelines write ``MEMCPYHtoD`` (its GPU tracer's node names), PaddlePaddle
#: ``MEMCPY_HtoD`` (``MemcpyKind`` of paddle/fluid/platform/profiler/cuda_tracer.cc)
_COPY_KIND_RE = re.compile(r"(?:\b|(?<=MEMCPY)|(?<=MEMCPY_))(HtoD|DtoH|DtoD|PtoP|HtoH|DtoA|AtoD)\b")
#: XLA spells copy directions ``MemcpyH2D`` / ``MemcpyD2H`` / ``MemcpyD2D`` / ``MemcpyP2P``
_COPY_KIND_2_RE = re.compile(r"(H|D|P)2(H|D|P)\b")
#: rocprofiler-sdk spells them ``MEMORY_COPY_HOST_TO_DEVICE`` (ROCm 7.1 Kineto copies recorded as kernels)
_COPY_KIND_3_RE = re.compile(r"MEMORY_COPY_(HOST|DEVICE|PEER)_TO_(HOST|DEVICE|PEER)\b", re.IGNORECASE)
#: HIP / roctracer activity names spell them ``CopyHostToDevice`` / ``CopyDeviceToHost`` / ``CopyPeerToPeer`` (ROCm
#: Kineto copies recorded under ``kernel``, pytorch/kineto PR#1295; rocprof v1 and RPD use the same op names)
_COPY_KIND_4_RE = re.compile(r"Copy(Host|Device|Peer)To(Host|Device|Peer)(?![a-z])")
#: nsys (2023+) spells them ``[CUDA memcpy Host-to-Device]`` / ``Device-to-Host`` / ``Peer-to-Peer``
_COPY_KIND_5_RE = re.compile(r"\b(Host|Device|Peer)-to-(Host|Device|Peer)\b")
#: Intel PTI (XPU Kineto) spells them ``Memcpy M2D (MEMORY(Unknown) -> DEVICE)`` / ``D2M`` / ``H2D`` / ``S2D``, M for
#: memory no USM allocator made (PTI's MEMORY type: a user-allocated host buffer, as PTI's own tests and its later
#: "Host (User Allocated)" wording say), S for shared USM, which may sit on either side: a copy naming S has no
#: direction here
_COPY_KIND_PTI_RE = re.compile(r"\b([MHDS])2([MHDS])\b")
_PTI_SIDE = {"M": "H", "H": "H", "D": "D"}
KIND_LIST = ("kernel", "comm", "memcpy", "memset", "cpu_op", "runtime", "sync", "annotation", "python", "other")
_K = {k: i for i, k in enumerate(KIND_LIST)}
#: per kind code read as a byte (code -1: 255): whether it is a GPU kind (kernel, comm, memcpy, memset)
GPU_KIND_TABLE = np.zeros(256, dtype=bool)
GPU_KIND_TABLE[[_K[k] for k in ("kernel", "comm", "memcpy", "memset")]] = True


def category_key(cat: object) -> str:
    """An event's category as the key of :data:`CATEGORY_KIND`: lower-cased; ``""`` when it is not text. The Trace
    Event Format makes ``cat`` "a comma separated list of categories for the event" (Trace Event Format, Google,
    "Event Descriptions"): of a list (``"kernel,gpu"``), the first listed category with a kind here, else the whole
    text (then an other category)."""
    if not isinstance(cat, str):
        return ""
    low = cat.lower()
    if "," in low:
        for part in low.split(","):
            if part.strip() in CATEGORY_KIND:
                return part.strip()
    return low


def kind_of(cat: str, name: str) -> str:
    """Timeline kind of a Kineto event from its lower-cased category and its name: a ``kernel`` that is a copy,
    a fill or a collective by name becomes ``memcpy``/``memset``/``comm`` (rules: :mod:`._work_rules`)."""
    kind = CATEGORY_KIND.get(cat, "other")
    if kind == "kernel":
        return kind_of_kernel_name(name)
    return kind


def copy_kind_of(name: str) -> str | None:
    """Copy direction named in a copy's name (``Memcpy HtoD (Pageable -> Device)``, XLA ``MemcpyH2D``,
    rocprofiler-sdk ``MEMORY_COPY_HOST_TO_DEVICE``, HIP ``CopyHostToDevice``, nsys ``[CUDA memcpy Host-to-Device]``,
    Intel PTI ``Memcpy M2D (MEMORY(Unknown) -> DEVICE)`` = HtoD), or None."""
    m = _COPY_KIND_RE.search(name)
    if m:
        return m.group(1)
    m = _COPY_KIND_2_RE.search(name)
    if m:
        return f"{m.group(1)}to{m.group(2)}"
    m = _COPY_KIND_3_RE.search(name) or _COPY_KIND_4_RE.search(name) or _COPY_KIND_5_RE.search(name)
    if m:
        return f"{m.group(1)[0].upper()}to{m.group(2)[0].upper()}"
    m = _COPY_KIND_PTI_RE.search(name)
    if m and m.group(1) in _PTI_SIDE and m.group(2) in _PTI_SIDE:
        return f"{_PTI_SIDE[m.group(1)]}to{_PTI_SIDE[m.group(2)]}"
    return None


_OTHER_PHASES = ("M", "i", "I", "B", "E")  # a tuple: `in` compares with ==, so an unhashable ph is no error
_PH = attrgetter("ph")
_OTHER_SET = frozenset(_OTHER_PHASES)
#: every phase of the Trace Event Format: read (X and the others above) or skipped by design (flows, counters…)
_KNOWN_PHASES = frozenset(("X",) + _OTHER_PHASES + SKIPPED_PHASES)


def _unknown_phases(events: list) -> list:
    """The ``ph`` of each event whose phase is none of the Trace Event Format's (a number, null, ``"Q"``). An empty
    object ``{}`` (no phase, name, pid or time: rocmProfileData's rpd2tracing opens its event list with one) holds
    no event and is not counted."""
    try:  # a C-level pass first: nearly every piece holds known phases only
        if _KNOWN_PHASES.issuperset(map(_PH, events)):
            return []
    except TypeError:  # an unhashable ph (the general decoder keeps any JSON value)
        pass
    out = []
    for e in events:
        ph = e.ph
        if ph is None and e.name is None and e.pid is None and not bytes(e.ts):
            continue
        if not isinstance(ph, str) or ph not in _KNOWN_PHASES:
            out.append(ph)
    return out


def _has_other(events: list) -> bool:
    """Whether any event is of an :data:`_OTHER_PHASES` phase: a C-level pass (most pieces have none, only flows
    beside their ``X`` events); an unhashable ``ph`` (the general decoder keeps any JSON value) answers True."""
    try:
        return not _OTHER_SET.isdisjoint(map(_PH, events))
    except TypeError:
        return True


def _codes_to_cat(codes: np.ndarray, values: list[str]):
    import pandas as pd

    if not len(codes):
        return pd.Categorical([], categories=pd.Index([], dtype="str"))
    used = used_codes(codes, len(KIND_LIST))
    from gpulens.collectors._assemble import categorical, code_dtype

    cats = sorted(KIND_LIST[u] for u in used)
    remap = np.zeros(len(KIND_LIST), dtype=code_dtype(len(cats)))  # the codes' stored dtype: no int64 copy
    for i, c in enumerate(cats):
        remap[KIND_LIST.index(c)] = i
    return categorical(remap[codes], cats)
