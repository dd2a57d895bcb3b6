"""Ranks of the inputs of one multi-process run (a folder of per-rank or per-process files).

Each input says where its rank came from in ``meta.sources[*]["rank_source"]``: a recorded rank
(``distributedInfo``, ``record_param_comms``, ``trace (…)`` encodings, ``file name``) or none (``none``, or
``process`` for a per-process profiler file — rocpd database, rocprofv3 CSV set — that records a process id but no
rank). Inputs without a recorded rank would all be rank 0; when two of them would collide, :func:`number_rankless`
gives each the lowest rank not recorded by another input, in order (process id, then file name), and says so.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from gpulens.collectors._assemble import Parts, move_rank
from gpulens.timeline import Timeline
from gpulens.units import agree, listed, plural

#: rank sources that are not a recorded rank
RANKLESS = {None, "none", "process"}


def relabel_rank(tl: Timeline | Parts, rank: int) -> Timeline | Parts:
    """``tl`` with every event, rejected event, side-table row, source and device moved to ``rank`` (in place; returned); anything
    with its own ``relabel_rank`` (:class:`Parts`, a per-process run not yet built) is moved by it."""
    if hasattr(tl, "relabel_rank"):
        tl.relabel_rank(rank)
        return tl
    move_rank(tl, rank)
    for s in tl.meta.sources:
        s["rank"] = rank
    for d in tl.meta.devices:
        d["rank"] = rank
    return tl


def _rankless(tl: Timeline | Parts) -> bool:
    return bool(tl.meta.sources) and all(s.get("rank_source") in RANKLESS for s in tl.meta.sources) \
        and len(tl.ranks) <= 1


def _natural(text: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"([0-9]+)", text)]


def _order_key(label: str, tl: Timeline | Parts) -> tuple:
    pids = [s.get("process_id") for s in tl.meta.sources if s.get("process_id") is not None]
    return (0, min(pids), _natural(label)) if pids else (1, 0, _natural(label))


def number_rankless(parts: list[tuple[str, Timeline | Parts]]) -> list[str]:
    """Give the rank-less inputs of one run distinct ranks when they would collide; return the warnings.

    Args:
        parts: (label — usually the file name —, Timeline or :class:`~gpulens.collectors._assemble.Parts`) of
            each input, edited in place.
    """
    if len(parts) < 2:
        return []
    taken = {r for _, tl in parts if not _rankless(tl) for r in tl.ranks}
    rankless = [(label, tl) for label, tl in parts if _rankless(tl)]
    claimed = [r for _, tl in rankless for r in tl.ranks] + list(taken)
    if len(rankless) < 1 or len(claimed) == len(set(claimed)):
        return []
    given, nxt = [], 0
    for label, tl in sorted(rankless, key=lambda p: _order_key(*p)):
        while nxt in taken:
            nxt += 1
        relabel_rank(tl, nxt)
        pid = next((s.get("process_id") for s in tl.meta.sources if s.get("process_id") is not None), None)
        given.append(f"{label}{f' (pid {pid})' if pid is not None else ''} → rank {nxt}")
        taken.add(nxt)
    per_process = all(s.get("rank_source") == "process" for _, tl in rankless for s in tl.meta.sources)
    why = "one rank per process" if per_process else "numbered in file-name order"
    return [f"{plural(len(rankless), 'input')} {agree(len(rankless), 'records', 'record')} no rank; {why}: "
            + listed(given)]

#: torch.profiler's ``tensorboard_trace_handler`` file name: ``<worker>.<time in ns>.pt.trace.json[.gz]`` (worker
#: ``<hostname>_<pid>`` by default), one file per profiling cycle of a ``schedule(..., repeat=N)``
_CYCLE_FILE = re.compile(r"^(?P<worker>.+)\.(?P<ns>[0-9]{12,})\.pt\.trace\.json(\.gz)?$")


def _hull(tl: Timeline | Parts) -> tuple[int, int] | None:
    ev = tl.events
    start = np.asarray(ev["start_ns"], dtype="int64")
    if not len(start):
        return None
    return int(start.min()), int((start + np.asarray(ev["dur_ns"], dtype="int64")).max())


def successive_cycles(parts: list[tuple[str, Timeline | Parts]]) -> tuple[list[tuple[str, Timeline | Parts]],
                                                                             list[str]]:
    """Rank-less Kineto files that are successive profiling cycles of one worker, not ranks: several
    ``<worker>.<ns>.pt.trace.json`` files of the same worker whose time ranges do not overlap (one process profiled
    again and again on one GPU). Read as ranks, 32 cycles were "32 GPUs, busy 7.1 %" with "clocks that disagree";
    the gaps between cycles were never profiled, so they cannot be joined into one timeline either. The latest cycle
    of each such worker is kept (warm-up is in the first ones) and the others are listed in the returned note.

    Returns:
        (the parts to read, notes).
    """
    groups: dict[tuple, list[tuple[int, str, Timeline | Parts]]] = {}
    for label, tl in parts:
        m = _CYCLE_FILE.match(label.rsplit("/", 1)[-1])
        if m and len(tl.ranks) <= 1 and all(s.get("collector") == "kineto" for s in tl.meta.sources):
            # a worker's cycles record its rank (distributedInfo) or none; files of two ranks are never cycles
            rank = None if _rankless(tl) else tuple(tl.ranks)
            groups.setdefault((m.group("worker"), rank), []).append((int(m.group("ns")), label, tl))
    drop: set[str] = set()
    notes = []
    for (worker, _), files in groups.items():
        if len(files) < 2:
            continue
        hulls = sorted((h, label) for _, label, tl in files if (h := _hull(tl)) is not None)
        if len(hulls) < 2 or any(a[0][1] > b[0][0] for a, b in zip(hulls, hulls[1:])):
            continue  # overlapping in time: processes of a run after all (or nothing to tell)
        keep = max(files, key=lambda f: f[0])[1]
        gone = sorted((label for _, label, _ in files if label != keep), key=_natural)
        drop.update(gone)
        notes.append(f"{len(files)} files are successive profiling cycles of one worker ({worker}: one process, "
                     f"times that do not overlap), not ranks: analysed the latest, {keep}; not read: "
                     + listed(gone)
                     + " (pass one of them to analyse that cycle)")
    return [(label, tl) for label, tl in parts if label not in drop], notes


def separate_recorded_ranks(parts: list[tuple[str, Timeline | Parts]]) -> list[str]:
    """Inputs of one run that record the same rank (two files with ``distributedInfo.rank`` 0, or ``rank-1.json``
    beside ``rank-1.pt.trace.json``) are kept apart: the first in file-name order keeps the rank, each other gets
    the lowest rank no input records, and a warning says so. Joined, one rank's GPU time and kernels were counted
    twice, without a word. (Successive profiling cycles of one worker are found before, by
    :func:`successive_cycles`; rank-less inputs by :func:`number_rankless`.)

    Args:
        parts: (label, Timeline or Parts) of each input, edited in place.

    Returns:
        The warnings (one per rank recorded twice).
    """
    ranked = sorted(((label, tl) for label, tl in parts if not _rankless(tl) and len(tl.ranks) == 1),
                    key=lambda p: _natural(p[0]))
    by_rank: dict[int, list[str]] = {}
    for label, tl in ranked:
        by_rank.setdefault(int(tl.ranks[0]), []).append(label)
    if all(len(v) < 2 for v in by_rank.values()):
        return []
    taken = {int(r) for _, tl in parts for r in tl.ranks}
    tls = dict(ranked)
    notes, nxt = [], 0
    for rank, labels in sorted(by_rank.items()):
        if len(labels) < 2:
            continue
        moved = []
        for label in labels[1:]:
            while nxt in taken:
                nxt += 1
            relabel_rank(tls[label], nxt)
            taken.add(nxt)
            moved.append(f"{label} → rank {nxt}")
        notes.append(f"{len(labels)} inputs record rank {rank} ({listed(labels)}): kept apart, not joined (one "
                     f"rank's GPU time would count twice) — {labels[0]} stays rank {rank}, " + listed(moved)
                     + "; check that the folder holds one run")
    return notes



def ranks_without_gpu_work(labels: list[str], tl: Timeline, select: Any = None) -> str | None:
    """The note for the input files of a multi-file run that hold no GPU work (B05 inside a folder of ranks), or
    None: ``"1 of 4 input files holds no GPU work (no kernel, collective, copy or fill): rank1.json (rank 1) — its
    rank is left out of the GPU figures and of the rank comparison"``.

    ``labels``: the files' names as the run reports them, in the order of ``tl.meta.sources``; ``tl``: the run
    assembled from them (``events["rank"]``, ``events["kind"]``); ``select``: the
    :class:`~gpulens.timeline.selection.Selection` the files were read with, or None. A file whose rank(s) own no
    GPU event is counted; a rank whose file was read is then never mistaken for a rank that was not profiled. Under
    a selection of steps or a window the events were cut at load time, so the note says the files hold no GPU work
    *in the selection* (``"… hold no GPU work (…) in the selection (steps 3:4): …"``), never that the files hold
    none.
    """
    from gpulens.timeline.schema import GPU_KINDS

    if len(labels) < 2 or len(labels) != len(tl.meta.sources):
        return None
    ev = tl.events
    busy = set(ev.loc[ev["kind"].isin(GPU_KINDS).to_numpy(dtype=bool), "rank"].astype("int64").tolist())
    empty = [f"{label} (rank {s.get('rank')})" for label, s in zip(labels, tl.meta.sources)
             if s.get("rank") is not None and int(s["rank"]) not in busy]
    if not empty:
        return None
    n = len(empty)
    where = ""
    if select is not None and getattr(select, "active", False):
        from gpulens.timeline.selection import Selection

        where = f" in the selection ({Selection(select.steps, select.window_ns).describe()})"
    return (f"{n:,} of {len(labels):,} input files hold{'s' if n == 1 else ''} no GPU work (no kernel, collective, "
            f"copy or fill){where}: {', '.join(empty[:8])}{f' and {n - 8:,} more' if n > 8 else ''} — "
            f"{'its rank is' if n == 1 else 'their ranks are'} left out of the GPU figures and of the rank comparison")


def read_each(items: list, read_one) -> tuple[list, dict[str, str]]:
    """``read_one(item)`` for each of a folder's per-process file sets (``items``): the results, and ``{path:
    reason}`` of the sets that raised :class:`~gpulens.errors.TraceFormatError` (an empty, cut or zeroed file of one
    process beside the others) — the folder is then read without them, as a rank directory is without an unreadable
    rank file (the caller sets ``meta.unread`` and ``meta.rank_files``: the report says the figures are partial).

    Raises:
        TraceFormatError: the first set's error, when no set can be read.
    """
    from gpulens.errors import TraceFormatError

    out, unread, first = [], {}, None
    for item in items:
        try:
            out.append(read_one(item))
        except TraceFormatError as exc:
            first = first or exc
            unread[str(exc.path)] = exc.reason
    if not out and first is not None:
        raise first
    return out, unread
