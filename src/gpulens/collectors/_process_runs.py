"""A folder of per-process file sets (rocprofv3 ``<pid>_kernel_trace.csv`` …) built as one Timeline.

Each process's files are read first into a :class:`ProcessRun` (their Dispatches, sources, devices and reading
notes); the folder numbers the rank-less processes on those (:func:`gpulens.collectors._ranks.number_rankless`)
and then builds every run's rows at once (:func:`gpulens.collectors._dispatch.joined_build`) instead of a
Timeline per file, one per process and a join of them all: 1,000 small per-process CSVs cost ~60 ms each that way
(issue 16). The result equals the join of the runs built one by one (:meth:`ProcessRun.timeline`), which is what
runs get that cannot be built with the others (summaries beside their traces, device records the Timeline's checks
would change, no rows), or on which the Timeline's checks warn (each run's build says so in its own words).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Callable

from gpulens.collectors._assemble import move_rank
from gpulens.collectors._dispatch import Dispatches, FileRows, build_timeline, joined_build
from gpulens.timeline import Timeline, TimelineMeta, concat
from gpulens.timeline.launch import scrub_device_records


class ProcessRun:
    """One process's files, read and not yet built.

    Attributes:
        rows: (file, its Dispatches) in the order their Timelines join.
        meta: the run's sources and devices (as the files list them) and the notes of reading them.
        source: collector name (``source`` column).
        finish: what the run still does once built into its own Timeline (reading summaries beside the traces);
            None when nothing.
        rank: the rank :func:`~gpulens.collectors._ranks.number_rankless` gave the run (None: as read, 0).
        stamp: fields every source of the run gets (``rank_source``, ``process_id``), those the summaries read
            once built included.
    """

    def __init__(self, rows: list[tuple[Path, Dispatches]], meta: TimelineMeta, source: str,
                 finish: Callable[[Timeline], list[str]] | None = None) -> None:
        self.rows, self.meta, self.source, self.finish = rows, meta, source, finish
        self.rank: int | None = None
        self.stamp: dict = {}

    def mark(self, **fields: object) -> None:
        """Give every source of the run ``fields`` (see :attr:`stamp`)."""
        self.stamp.update(fields)
        for s in self.meta.sources:
            s.update(fields)

    @property
    def ranks(self) -> list[int]:
        """The ranks of the run as :attr:`Timeline.ranks` gives them once built (all rows are read as rank 0)."""
        return [0] if self.rank is None else [self.rank]

    def relabel_rank(self, rank: int) -> None:
        """Move the run to ``rank`` (see :func:`gpulens.collectors._ranks.relabel_rank`): its events and rejected
        rows once built, its sources and devices now."""
        self.rank = rank
        for s in self.meta.sources:
            s["rank"] = rank
        for d in self.meta.devices:
            d["rank"] = rank

    def joinable(self) -> bool:
        """Whether the run can be built together with others: it has rows, nothing left to do once built, sources
        of its rank (0 as read), and device records the Timeline's checks leave as they are."""
        return bool(self.rows) and self.finish is None and \
            all(int(s.get("rank", 0) or 0) == (self.rank or 0) for s in self.meta.sources) and \
            not scrub_device_records(copy.deepcopy(self.meta.devices))

    def timeline(self) -> Timeline:
        """The run built on its own: a Timeline per file, joined, with the run's sources, devices and notes."""
        tls = []
        for f, d in self.rows:
            tl = build_timeline(d, self.source, f)
            tls.append(tl)
        tl = concat(tls) if tls else Timeline()
        tl.meta.sources = self.meta.sources
        tl.meta.devices = self.meta.devices + noted_devices(self.meta.devices, tl.meta.devices, self.rank)
        tl.meta.warnings = self.meta.warnings + tl.meta.warnings
        if self.finish is not None:
            tl.meta.warnings += self.finish(tl)
            for s in tl.meta.sources:  # the summaries' sources too
                s.update(self.stamp)
        tl = tl.validate()
        if self.rank is not None:
            move_rank(tl, self.rank)
        return tl


def noted_devices(listed: list[dict], built: list[dict], rank: int | None) -> list[dict]:
    """The device records the build added for rows on a GPU the run's files do not list (a stand-in device 0, an
    agent the agent list lacks: :mod:`._dispatch_notes`) that ``listed`` (the run's own) does not hold, moved to
    ``rank`` when the run was given one — the run's list replaced them, and the report said "not recorded"."""
    have = {(int(x.get("rank", 0) or 0), x.get("device_id")) for x in listed}
    out = []
    for x in built:
        if x.get("stand_in") is None and not x.get("unknown_why"):
            continue
        x = {**x, "rank": rank} if rank is not None else x
        if (int(x.get("rank", 0) or 0), x.get("device_id")) not in have:
            out.append(x)
    return out


class BuiltRun(ProcessRun):
    """A run already built as a Timeline (a process's ``*_stats.csv`` summaries with no trace beside them, read as
    each is alone): marked and renumbered as any run, never joined with others (it has no rows)."""

    def __init__(self, tl: Timeline, source: str) -> None:
        super().__init__([], tl.meta, source)
        self.built = tl

    def timeline(self) -> Timeline:
        """The Timeline as read, its events and rejected rows moved to the run's rank if it was given one."""
        tl = self.built
        if self.rank is not None:
            move_rank(tl, self.rank)
        return tl


def build_runs(runs: list[ProcessRun | Timeline]) -> list[Timeline]:
    """The Timelines of ``runs`` in order (a Timeline stays as it is): consecutive joinable runs built as one
    (:func:`~gpulens.collectors._dispatch.joined_build`), each with the sources, devices and notes it would have
    on its own — one by one where the Timeline's checks (validation with their sources and devices) warn;
    :func:`gpulens.timeline.concat` of the result equals that of every run built alone."""
    out: list[Timeline] = []
    batch: list[ProcessRun] = []

    def flush() -> None:
        tl = None
        if len(batch) > 1:
            files = [FileRows(d, run.source, f, warnings=run.meta.warnings if j == 0 else None, relabel=run.rank)
                     for run in batch for j, (f, d) in enumerate(run.rows)]
            tl = joined_build(files)
        if tl is not None:
            tl.meta.sources = [s for run in batch for s in run.meta.sources]
            listed = [x for run in batch for x in run.meta.devices]
            tl.meta.devices = listed + noted_devices(listed, tl.meta.devices, None)
            n_warn = len(tl.meta.warnings)
            tl.validate()  # with the runs' devices and sources: a launch check or note there is each run's to say
            if len(tl.meta.warnings) != n_warn:
                tl = None
        out.extend([tl] if tl is not None else [run.timeline() for run in batch])
        batch.clear()

    for run in runs:
        if isinstance(run, ProcessRun) and run.joinable():
            batch.append(run)
            continue
        flush()
        out.append(run.timeline() if isinstance(run, ProcessRun) else run)
    flush()
    return out
