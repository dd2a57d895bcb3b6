"""Rank identity of each event of a Kineto trace, from every place the profilers and trace-fusion tools record it.

A trace written by one process has one rank: ``distributedInfo.rank`` (Kineto), else the ``Rank`` argument of its
``record_param_comms`` events (PyTorch c10d), else a number in the file name (``rank3``, ``rank-3``, ``rank_3``; a
warning says it was inferred), else none (rank 0, and a directory of such files numbers them, see
:mod:`gpulens.collectors._ranks`).

Several ranks merged into one JSON by trace-fusion tools are recognised per event, by these encodings (first that
applies wins for an event):

1. ``args.rank`` on the event, or a text pid naming the rank (``"pid": "RANK 2 - GPU 4"``);
2. the ``process_name`` metadata of its pid naming a rank: ``"RANK 2 - GPU 4"``, ``"rank 2"``, ``"Rank-2 GPU 4"``
   (a GPU number there is the device of that pid's GPU events when they record none); in a multi-host XLA /
   TensorFlow trace, the ``/job:J/replica:R/task:T`` host its process is named under
   (:func:`._chrome_dialects.host_ranks`);
3. the pid itself when it is ``100000000·rank + n`` (pid ≥ 10⁸: no Linux pid is that large — ``pid_max`` ≤ 2²²);
   ``n`` is the GPU of GPU events that record no device;
4. inherited: an event without any of these takes the rank of the other events of its pid when they agree, or of
   the GPU work its correlation id launched (a runtime call), and then its pid again (the CPU ops of that thread);
5. the file's rank (above).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gpulens.collectors._numbers import DIGITS

PID_RANK_BASE = 100_000_000
_RANK_IN_PROCESS = re.compile(rf"\brank\s*[-_:#]?\s*({DIGITS})", re.IGNORECASE)
_GPU_IN_PROCESS = re.compile(rf"\bGPU\s*[-_:#]?\s*({DIGITS})", re.IGNORECASE)
RANK_IN_FILE_NAME = re.compile(rf"rank[-_]?({DIGITS})", re.IGNORECASE)


@dataclass
class Ranks:
    """Per-event ranks of one trace.

    Attributes:
        rank: int64 rank per row.
        encodings: which per-event encodings were found (``args.rank``, ``process_name``, ``pid``).
        device_fix: row → device for GPU rows whose device was only their (encoded) pid.
        host_track_gpu: pid → count of GPU rows that record no device and sit on a host thread's track (that pid
            and tid carry CPU ops, runtime calls or other categorised host events: ONNX Runtime's profiler writes
            its CUDA kernels on the launching thread): the pid is a process id, no GPU index — read as GPU 0.
    """

    rank: np.ndarray
    encodings: list[str] = field(default_factory=list)
    device_fix: tuple[np.ndarray, np.ndarray] | None = None
    host_track_gpu: dict[int, int] = field(default_factory=dict)


def rank_in_label(labels: list) -> tuple[np.ndarray, np.ndarray]:
    """(rank, found) of each text pid that names a rank (``"RANK 2 - GPU 4"``); numbers and others: not found."""
    vals = np.zeros(len(labels), dtype=np.int64)
    ok = np.zeros(len(labels), dtype=bool)
    for i, lab in enumerate(labels):
        m = _RANK_IN_PROCESS.search(lab) if isinstance(lab, str) else None
        if m:
            vals[i], ok[i] = int(m.group(1)), True
    return vals, ok


def _map(keys: np.ndarray, table: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(values, found) of ``table[key]`` per key."""
    if not table or not len(keys):
        return np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=bool)
    s = pd.Series(keys).map(table)
    return s.fillna(-1).to_numpy(dtype=np.int64, copy=True), s.notna().to_numpy(copy=True)


def _inherit(rank: np.ndarray, known: np.ndarray, key: np.ndarray, key_ok: np.ndarray,
             source: np.ndarray | None = None) -> None:
    """Unknown rows take the rank that the known rows (``source`` rows, when given) of the same key agree on."""
    src = known & key_ok & (source if source is not None else True)
    if not src.any():
        return
    g = pd.DataFrame({"k": key[src], "r": rank[src]}).groupby("k")["r"]
    agreed = g.first()[g.nunique() == 1]
    want = ~known & key_ok
    if not want.any() or not len(agreed):
        return
    v, ok = _map(key[want], agreed.to_dict())
    idx = np.flatnonzero(want)[ok]
    rank[idx] = v[ok]
    known[idx] = True


def event_ranks(n: int, file_rank: int, args_rank: tuple[np.ndarray, np.ndarray],
                pid: tuple[np.ndarray, np.ndarray], corr: tuple[np.ndarray, np.ndarray], is_gpu: np.ndarray,
                device: np.ndarray, process_names: dict[int, str], host_track: tuple | None = None,
                host_of_pid: dict[int, int] | None = None) -> Ranks:
    """Rank of every row (rules in the module docstring) and the device repair of fused GPU pids.

    Args:
        args_rank, pid, corr: (values, valid) columns.
        is_gpu: GPU rows (kernels, copies, sets, collectives).
        device: device column (GPU rows fall back to the pid when the event records no device).
        host_track: ((tid values, valid), kind codes, no-category flags) of the rows, to find GPU rows on a host
            thread's track (:attr:`Ranks.host_track_gpu`); None: not looked for.
        host_of_pid: pid → rank of the processes of a multi-host XLA / TensorFlow trace
            (:func:`._chrome_dialects.host_ranks`: ``/job:…/task:N`` process names), read as encoding 2.
    """
    on_host = _on_host_track(is_gpu, pid, device, host_track) if host_track is not None else np.zeros(0, np.int64)
    if len(on_host):
        device = device.copy()
        device[on_host] = -1  # no longer "device == pid": the pid rules below leave these rows alone
    rank = np.full(n, file_rank, dtype=np.int64)
    known = np.zeros(n, dtype=bool)
    encodings: list[str] = []
    r_val, r_ok = args_rank
    if r_ok.any():
        rank[r_ok], known[r_ok] = r_val[r_ok], True
        encodings.append("args.rank")
    pids, pid_ok = pid
    by_name = {p: int(m.group(1)) for p, nm in process_names.items() if (m := _RANK_IN_PROCESS.search(nm or ""))}
    gpu_of_name = {p: int(m.group(1)) for p, nm in process_names.items() if p in by_name
                   and (m := _GPU_IN_PROCESS.search(nm or ""))}
    for table, label in ((by_name, "process_name"), (host_of_pid or {}, "process_name /job:…/task:N")):
        if not table:
            continue
        v, ok = _map(pids, table)
        ok = ok & pid_ok & ~known
        if ok.any():
            rank[ok], known[ok] = v[ok], True
            encodings.append(label)
    fused_pid = pid_ok & (pids >= PID_RANK_BASE)
    if fused_pid.any():
        ok = fused_pid & ~known
        if ok.any():
            rank[ok], known[ok] = pids[ok] // PID_RANK_BASE, True
            encodings.append("pid")
    host_fix = (on_host, np.zeros(len(on_host), dtype=np.int64)) if len(on_host) else None
    counts = dict(zip(*(v.tolist() for v in np.unique(pids[on_host], return_counts=True)))) if len(on_host) else {}
    if not encodings:
        return Ranks(rank, device_fix=host_fix, host_track_gpu=counts)
    _inherit(rank, known, pids, pid_ok)
    c_val, c_ok = corr
    _inherit(rank, known, c_val, c_ok, source=is_gpu)  # a launch call takes the rank of the work it launched
    _inherit(rank, known, pids, pid_ok)
    _inherit(rank, known, c_val, c_ok)  # GPU work takes the rank of its (now known) launch call
    # GPU rows whose device is only their pid: the GPU number encoded in the pid or named in the process name
    fix_rows, fix_dev = [], []
    own = is_gpu & pid_ok & (device == pids)
    if own.any():
        g, g_ok = _map(pids, gpu_of_name)
        sel = own & g_ok
        fix_rows.append(np.flatnonzero(sel))
        fix_dev.append(g[sel])
        sel = own & ~g_ok & (pids >= PID_RANK_BASE)
        fix_rows.append(np.flatnonzero(sel))
        fix_dev.append(pids[sel] % PID_RANK_BASE)
    if host_fix is not None:
        fix_rows.append(host_fix[0])
        fix_dev.append(host_fix[1])
    fix = (np.concatenate(fix_rows), np.concatenate(fix_dev)) if fix_rows else None
    return Ranks(rank, encodings, fix, counts)


def _on_host_track(is_gpu: np.ndarray, pid: tuple[np.ndarray, np.ndarray], device: np.ndarray,
                   host_track: tuple) -> np.ndarray:
    """Rows of GPU events whose device is only their pid (no ``device`` argument) and whose (pid, tid) is also the
    track of host events: CPU ops, runtime calls, Python functions, syncs, or events of another category that is no
    GPU one (ONNX Runtime's ``Node`` / ``Session``; not category-less events, which a GPU track may carry)."""
    from gpulens.collectors._kineto_kinds import _K

    (tids, tid_ok), kind, nocat = host_track
    pids, pid_ok = pid
    # a cheap test first (a few pids each side; Kineto's GPU pids are device numbers no host event has)
    shared = np.intersect1d(pd.unique(pids[is_gpu]), pd.unique(pids[~is_gpu]))
    if not len(shared):
        return np.zeros(0, dtype=np.int64)
    host = np.isin(kind, [_K[k] for k in ("cpu_op", "runtime", "python", "sync")]) | ((kind == _K["other"]) & ~nocat)
    cand = is_gpu & pid_ok & tid_ok & (device == pids)
    host &= pid_ok & tid_ok & np.isin(pids, shared)
    tracks = pd.MultiIndex.from_arrays([pids[host], tids[host]]).unique()
    rows = np.flatnonzero(cand & np.isin(pids, shared))
    return rows[pd.MultiIndex.from_arrays([pids[rows], tids[rows]]).isin(tracks)]
