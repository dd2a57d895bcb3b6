"""Placing the events of a rocmProfileData ``rpd2tracing`` Chrome trace (rules: :mod:`._chrome_dialects`).

The converter (ROCm/rocmProfileData ``tools/rpd2tracing.py``) writes every event without a category: GPU operations
as ``X`` events of pid ``gpuId`` / tid ``queueId`` with ``args.desc`` = the RPD op type, host calls as ``X`` events
of the process id with ``args.desc`` = the call's arguments. :func:`place_rpd` gives each such event its Timeline
kind, device and stream from those fields.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
    from gpulens.collectors._kineto_acc import _K
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
