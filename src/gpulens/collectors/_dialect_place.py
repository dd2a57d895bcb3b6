"""Placing the category-less events of the Chrome-trace dialects gpulens reads besides Kineto (rules:
:mod:`._chrome_dialects`): the JAX / XLA GPU profiler's and rocmProfileData's ``rpd2tracing``.

XLA: events of ``/device:GPU:N`` processes are GPU N's work on the stream their thread names (:func:`place_xla`).
rpd2tracing: the converter (ROCm/rocmProfileData ``tools/rpd2tracing.py``) writes every event without a category: GPU operations
as ``X`` events of pid ``gpuId`` / tid ``queueId`` with ``args.desc`` = the RPD op type, host calls as ``X`` events
of the process id with ``args.desc`` = the call's arguments. :func:`place_rpd` gives each such event its Timeline
kind, device and stream from those fields.
"""

from __future__ import annotations

from typing import Any

import numpy as np

def dialect_texts(acc: Any, src: Any, nocat: np.ndarray, op: np.ndarray) -> None:
    """Keep the text args the other Chrome-trace dialects describe their events with, keyed by Timeline row
    (``acc.rows`` + the row of ``src``), for :func:`place_xla` / :func:`place_rpd` once the dialect is known: XLA GPU
    ops' ``kernel_details`` (launch geometry) and copies' ``memcpy_details`` (size) → ``acc.kernel_details``;
    rpd2tracing's ``desc`` (op type / call arguments) → ``acc.desc`` (events without a category, ``nocat``); a
    TensorFlow timeline op's ``kernel`` (TensorFlow on ROCm writes the kernel's name there, the op type as its name)
    → ``acc.tf_kernel`` (events of category ``Op``, ``op``, or none). Text pids are always read by msgspec, never the
    fast scan; a piece that may hold these texts is read by msgspec too (:func:`._kineto_fast._dialect_args`), so
    the fast scan's ``values`` (None) is never the only reading."""
    base = acc.rows
    if nocat.any():
        nc = np.flatnonzero(nocat)
        for key, into in (("kernel_details", acc.kernel_details), ("memcpy_details", acc.kernel_details),
                          ("desc", acc.desc)):
            for i, text in zip(nc, src.values(key, nc)):
                if isinstance(text, str):
                    into[int(i) + base] = text
    rows = np.flatnonzero(nocat | op)
    if len(rows):
        for i, text in zip(rows, src.values("kernel", rows)):
            if isinstance(text, str) and text.strip():
                acc.tf_kernel[int(i) + base] = text.strip()


def place_xla(dialect: Any, kernel_details: dict[int, str], names: Any, copies: Any, kind: np.ndarray,
              name: np.ndarray, nocat: np.ndarray, copy: np.ndarray, ints: dict[str, tuple[np.ndarray, np.ndarray]],
              ignored: dict[str, int], tf_kernel: dict[int, str] | None = None) -> None:
    """XLA GPU dialect: category-less events of ``/device:GPU:N`` processes become GPU work of GPU N on the stream
    their thread names (or ranges, for the other named threads); TensorFlow 1.x timeline dialect: the ``Op`` events
    of the GPU tracer's ``/device:GPU:N/stream:S`` processes become GPU work of GPU N on stream S (those of the
    ``stream:all`` / ``memcpy`` processes that repeat them, ranges). Edits the accumulator's arrays in place.

    Args:
        dialect: the :class:`~._chrome_dialects.Dialect` (``gpu_pids``, ``stream_of``, ``ranges``, ``pid_stream``,
            ``range_pids``).
        kernel_details: row → XLA ``kernel_details`` text (launch geometry, registers, shared memory), or a copy's
            ``memcpy_details`` text (its size).
        names, copies, kind, name, nocat, copy, ints: as :func:`place_rpd`.
        ignored: category → events kept as kind ``other`` (the collector's warning); the placed events leave it.
        tf_kernel: row → a TensorFlow timeline op's ``args.kernel`` (:func:`dialect_texts`): that GPU work's name.
    """
    tf_kernel = tf_kernel or {}
    from gpulens.collectors._chrome_dialects import xla_kernel_details
    from gpulens.collectors._kineto_kinds import _K, copy_kind_of, kind_of

    pid, pid_ok = ints["pid"]
    tid, tid_ok = ints["tid"]
    dev, dev_ok = ints["device"]
    stream, stream_ok = ints["stream"]
    tf = bool(dialect.pid_stream or dialect.range_pids)  # TensorFlow timeline: its events have category "Op"
    rows = np.flatnonzero((nocat | (kind == _K["other"]) if tf else nocat) & pid_ok
                          & np.isin(pid, list(dialect.gpu_pids)))
    ignored.pop("", None)
    ignored.pop("(none)", None)
    if tf and ignored.get("op", 0) <= len(rows):
        ignored.pop("op", None)
    elif tf:
        ignored["op"] -= len(rows)
    for i in rows:
        key = (int(pid[i]), int(tid[i])) if tid_ok[i] else (int(pid[i]), -1)
        dev[i], dev_ok[i] = dialect.gpu_pids[key[0]], True
        if key in dialect.ranges or key[0] in dialect.range_pids:
            kind[i] = _K["annotation"]
            continue
        kind[i] = _K[kind_of("kernel", names.text(name[i]))]
        if kind[i] == _K["kernel"] and int(i) in tf_kernel:  # TensorFlow on ROCm: op type as name, kernel as arg
            name[i] = names.encode([tf_kernel[int(i)]])[0]
            kind[i] = _K[kind_of("kernel", names.text(name[i]))]
        if tf:
            if dialect.pid_stream.get(key[0], -1) >= 0:
                stream[i], stream_ok[i] = dialect.pid_stream[key[0]], True
        elif key in dialect.stream_of or tid_ok[i]:
            stream[i], stream_ok[i] = dialect.stream_of.get(key, key[1]), True
        if kind[i] == _K["memcpy"]:
            ck = copy_kind_of(names.text(name[i]))
            copy[i] = copies.encode([ck])[0] if ck else -1
        if int(i) in kernel_details:
            for k, val in xla_kernel_details(kernel_details[int(i)]).items():
                ints[k][0][i], ints[k][1][i] = val, True


#: ``args.desc`` of a GPU-process event that is a range over GPU work, not work (``UserMarker frame: 3 ops``)
_FRAME_PREFIX = "UserMarker frame:"


def place_rpd(gpu_pids: dict[int, int], desc: dict[int, str], names: Any, copies: Any, kind: np.ndarray,
              name: np.ndarray, nocat: np.ndarray, copy: np.ndarray, ints: dict[str, tuple[np.ndarray, np.ndarray]]
              ) -> int:
    """Edit the accumulator's arrays in place for an rpd2tracing trace; return the GPU-process events left ``other``
    (op types that are no GPU work: barrier / marker packets, as the RPD collector leaves them out).

    Args:
        gpu_pids: pid → GPU index (the ``GPU<N>`` processes).
        desc: row → ``args.desc`` text (rows without one are absent).
        names, copies: the accumulator's name and copy-kind dictionaries (``text``/``encode``).
        kind, name, nocat, copy: per-row kind codes, name codes, "no category" flags, copy-kind codes.
        ints: the accumulator's nullable int columns ``pid``, ``tid``, ``device``, ``stream`` (values, valid).
    """
    from gpulens.collectors._kineto_kinds import _K
    from gpulens.collectors.rpd import OP_KINDS

    pid, pid_ok = ints["pid"]
    tid, tid_ok = ints["tid"]
    dev, dev_ok = ints["device"]
    stream, stream_ok = ints["stream"]
    on_gpu = nocat & pid_ok & np.isin(pid, list(gpu_pids))
    left = 0
    for i in np.flatnonzero(on_gpu):
        dev[i], dev_ok[i] = gpu_pids[int(pid[i])], True
        if tid_ok[i]:
            stream[i], stream_ok[i] = int(tid[i]), True
        op = desc.get(int(i))
        if op in OP_KINDS:
            k, ck = OP_KINDS[op]
            kind[i] = _K[k]
            if ck:
                copy[i] = copies.encode([ck])[0]
        elif op is None or op.startswith(_FRAME_PREFIX) or names.text(name[i]).startswith("Graph "):
            kind[i] = _K["annotation"]  # a UserMarker frame or a graph execution: a range over the kernels
        else:
            left += 1
    host = np.flatnonzero(nocat & ~on_gpu)
    for i in host:
        text = names.text(name[i])
        # a roctx range is written with its text as both name and desc; a HIP / HSA call as API name + arguments
        kind[i] = _K["annotation"] if desc.get(int(i)) == text else _K["runtime"]
    return left


#: A stream id at or above this is a handle (a ``hipStream_t`` / ``cudaStream_t`` pointer such as ONNX Runtime's ROCm
#: profiler writes, ``0x55d1c2e3f000``), not a stream number: CUDA / HIP stream ids and queue numbers are small.
STREAM_HANDLE_MIN = 1 << 32


def number_stream_handles(stream: tuple[np.ndarray, np.ndarray], is_gpu: np.ndarray) -> int:
    """Give the GPU rows whose stream is a handle (:data:`STREAM_HANDLE_MIN`) small stream numbers, in the order the
    handles are first seen (row order), counting on from the largest stream number the other GPU rows record (from 1
    when none). Edits ``stream`` (values, valid) in place; returns the number of handles numbered."""
    val, ok = stream
    handle = is_gpu & ok & (val >= STREAM_HANDLE_MIN)
    if not handle.any():
        return 0
    rows = np.flatnonzero(handle)
    uniq, first, inv = np.unique(val[rows], return_index=True, return_inverse=True)
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))
    small = is_gpu & ok & ~handle
    base = int(val[small].max()) + 1 if small.any() else 1
    val[rows] = base + rank[inv.ravel()]
    return len(uniq)

