"""One rank per process for a single file that records several (an ncu report of ``--target-processes all`` over
``mpirun -n 4``, an nsys export of a multi-process run, a merged rocpd database).

Every reader of such a file put all its rows on rank 0: four MPI ranks' kernels were one "GPU" whose kernels
overlapped and whose busy time was the four processes' summed. Kineto and rocprofv3 folders give each process its
own rank (:func:`gpulens.collectors._ranks.number_rankless`); :func:`split_processes` does the same inside one file:
rank = the position of the row's OS process id among the file's GPU processes (sorted), and the warning lists the
mapping. Rows of a process that did no GPU work (a launcher, a data-loader worker) or whose process is not recorded
stay on rank 0 and are counted in the warning. Device entries (``meta.devices``) are copied to every rank whose
GPU rows use them, so each rank keeps its GPU's name and figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.timeline import GPU_KINDS, Timeline
from gpulens.units import agree, listed, plural


def gpu_processes(tl: Timeline) -> list[int]:
    """The OS process ids (sorted) of the GPU rows (kernels, copies, fills…) of ``tl`` that record one."""
    ev = tl.events
    if not len(ev) or "pid" not in ev:
        return []
    pid = pd.to_numeric(ev["pid"], errors="coerce")
    gpu = ev["kind"].astype(str).isin(GPU_KINDS)
    return sorted({int(p) for p in pid[gpu].dropna()})


def split_processes(tl: Timeline, path: Path | str, pids: list[int] | None = None, what: str = "file") -> str | None:
    """Give each process of ``tl`` (one input, rank 0) its own rank, in place, and return the warning that says so;
    None when there is one process or none to tell apart.

    Args:
        tl: the input's Timeline, every row on rank 0.
        path: the input (named in the warning).
        pids: the processes to number (the file's own process list); default :func:`gpu_processes`.
        what: the input's noun in the warning ("database", "report").

    Returns:
        ``"<path>: 2 processes in one report: one rank per process (pid 11 → rank 0, pid 12 → rank 1)"`` and, when
        rows stay on rank 0, how many and why; when no row records its process, that they were not told apart.
    """
    pids = gpu_processes(tl) if pids is None else sorted(int(p) for p in pids)
    if len(pids) < 2:
        return None
    ev = tl.events
    own = pd.to_numeric(ev["pid"], errors="coerce") if "pid" in ev else pd.Series(np.nan, index=ev.index)
    known = own.isin(pids)
    head = f"{path}: {len(pids)} processes in one {what}"
    if not known.any():
        return f"{head} ({listed([str(p) for p in pids])}); their events are not told apart by process (all rank 0)"
    rank_of = {p: i for i, p in enumerate(pids)}
    ranks = own[known].map(rank_of).astype("int64")
    ev.loc[known, "rank"] = ranks
    _copy_devices(tl, ev.loc[known], ranks)
    for s in tl.meta.sources:
        s.update(ranks=list(range(len(pids))), rank_source="process", process_ids=pids)
    left = int((~known).sum())
    shared = _shared_gpus(ev.loc[known], ranks)
    return (f"{head}: one rank per process ("
            + listed([f"pid {p} → rank {i}" for i, p in enumerate(pids)]) + ")"
            + (f"; {plural(left, 'event(s)')} of no GPU process or no recorded process {agree(left, 'stays', 'stay')} "
               "rank 0" if left else "")
            + (f"; {shared}: each rank's figures are that process's share of the GPU, not the GPU's" if shared
               else ""))


def split_by_process(tl: Timeline, path: Path | str, what: str) -> Timeline:
    """``tl`` with one rank per GPU process (:func:`split_processes`, its warning added), validated again when
    anything moved; ``tl`` itself when it holds one process."""
    said = split_processes(tl, path, what=what)
    if said is None:
        return tl
    tl.meta.warnings.append(said)
    return tl.validate()


def _copy_devices(tl: Timeline, ev: pd.DataFrame, ranks: pd.Series) -> None:
    """Copy each device entry of rank 0 to every other rank whose GPU rows run on that device; an entry rank 0's
    own GPU rows no longer use (its process was another rank's) goes with them rather than staying as an idle GPU."""
    gpu = ev["kind"].astype(str).isin(GPU_KINDS).to_numpy()
    used = {(int(r), int(d)) for r, d in zip(ranks.to_numpy()[gpu], pd.to_numeric(ev["device_id"], errors="coerce")
                                             .to_numpy()[gpu]) if d == d and d >= 0}
    every = tl.events
    on0 = every["kind"].astype(str).isin(GPU_KINDS).to_numpy() & (every["rank"].to_numpy() == 0)
    used0 = {int(d) for d in pd.to_numeric(every["device_id"], errors="coerce").to_numpy()[on0] if d == d and d >= 0}
    have = {(int(d.get("rank", 0) or 0), d.get("device_id")) for d in tl.meta.devices}
    base = {d.get("device_id"): d for d in tl.meta.devices if int(d.get("rank", 0) or 0) == 0}
    moved = set()
    for r, dev in sorted(used):
        if r != 0 and (r, dev) not in have and dev in base:
            tl.meta.devices.append({**base[dev], "rank": r})
            moved.add(dev)
    tl.meta.devices = [d for d in tl.meta.devices if not (int(d.get("rank", 0) or 0) == 0
                                                          and d.get("device_id") in moved - used0)]


def _shared_gpus(ev: pd.DataFrame, ranks: pd.Series) -> str:
    """``"ranks 0 and 1 ran on GPU 0"`` for GPUs used by several of the processes, ``""`` when none is."""
    gpu = ev["kind"].astype(str).isin(GPU_KINDS).to_numpy()
    dev = pd.to_numeric(ev["device_id"], errors="coerce").to_numpy()[gpu]
    pairs = pd.DataFrame({"dev": dev, "rank": ranks.to_numpy()[gpu]}).dropna().drop_duplicates()
    many = pairs.groupby("dev")["rank"].apply(sorted)
    many = many[many.map(len) > 1]
    said = [f"ranks {', '.join(map(str, rs[:-1]))} and {rs[-1]} ran on GPU {int(d)}" for d, rs in many.items()]
    return "; ".join(said[:3]) + (f" and {len(said) - 3} more GPUs" if len(said) > 3 else "")
