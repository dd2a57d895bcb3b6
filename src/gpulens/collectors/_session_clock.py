"""Rank files whose times count from their own capture start, placed on one time axis before they are joined.

An Nsight Systems export records every time in ns from the start of its own capture (session) and that start's
wall-clock time in ``TARGET_INFO_SESSION_START_TIME.utcEpochNs`` (read by
:func:`gpulens.collectors._nsys_devices.session_start_ns` into the source's ``session_start_epoch_ns``). A run
profiled with one export per rank or process (``nsys profile -o rank%q{RANK}``) therefore has one clock origin per
file: the captures start when each process does, milliseconds to seconds apart. Joined as they are, the ranks'
events are shifted against each other by the difference of their starts — the wall span, the order in which the
ranks reached a collective and the rank comparison are then wrong, silently when the shift is smaller than the
ranks' spans (users who join such exports add ``utcEpochNs`` to every time for the same reason).

:func:`align_capture_starts` shifts each such file by (its capture start − the earliest capture start of the
files), so that every time is counted from the earliest capture start, and says so; a file of the same kind that
records no capture start (an ``nsys stats --report cuda_gpu_trace`` CSV never does) cannot be placed and is
named. Files whose times are already on a shared clock (Kineto's
epoch times) carry no ``session_start_epoch_ns`` and are left as they are.

rocprofiler-sdk (rocpd, rocprofv3 JSON) times are each host's own monotonic clock (time since boot): files of one
host share it, files of several hosts cannot be aligned at all — :func:`hosts_note` says so when a run's files
name several hosts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gpulens.units import fmt_ns, plural

#: Source-metadata key of a file's capture start [ns since the Unix epoch]; present (maybe None) only for formats
#: whose times count from the capture start.
KEY = "session_start_epoch_ns"


def _starts(part: Any) -> list[Any]:
    return [s.get(KEY) for s in part.meta.sources if isinstance(s, dict) and KEY in s]


#: collector → (what its files are, where a capture start would be) for the note on files without one
_UNTIMED = {"nvprof_csv": ("nvprof GPU trace(s)", "nvprof prints its times from its own session start, no date"),
            "": ("Nsight Systems export(s)", "the SQLite export's TARGET_INFO_SESSION_START_TIME; an nsys stats "
                 "report prints none")}


def align_capture_starts(labelled: list[tuple[str, Any]]) -> list[str]:
    """Shift the events of each part of ``labelled`` (``(file name, Parts)``) whose times count from its own
    capture start onto the earliest capture start of them (in place); returns the notes to warn with (none when
    fewer than two such files, or when their captures started together)."""
    timed = [(name, part, _starts(part)) for name, part in labelled]
    timed = [(name, part, [s for s in st if s is not None]) for name, part, st in timed if st]
    if len(timed) < 2:
        return []
    known = [(name, part, min(st)) for name, part, st in timed if st]
    unknown = [name for name, _, st in timed if not st]
    tools = {str(s.get("collector")) for _, part, st in timed if not st for s in part.meta.sources
             if isinstance(s, dict) and KEY in s}
    notes = []
    if len(known) >= 2:
        first = min(s for _, _, s in known)
        moved = [(name, s - first) for name, part, s in known if s != first]
        for name, part, s in known:
            if s != first and part.rows:
                part.events["start_ns"] = np.asarray(part.events["start_ns"], dtype=np.int64) + np.int64(s - first)
        if moved:
            listed = ", ".join(f"{name} +{fmt_ns(d)}" for name, d in sorted(moved, key=lambda x: x[1])[:4])
            notes.append(f"{plural(len(known), 'Nsight Systems export(s)')} count their times from their own capture "
                         f"start (TARGET_INFO_SESSION_START_TIME): aligned on the earliest start — {listed}"
                         + (f" and {len(moved) - 4} more" if len(moved) > 4 else ""))
    if unknown:
        what, where = _UNTIMED.get(tools.pop(), _UNTIMED[""]) if len(tools) == 1 else _UNTIMED[""]
        notes.append(f"{plural(len(unknown), what)} of {len(timed)} record no capture start ({where}): their "
                     "times count from their own start and cannot be placed "
                     "against the other files' — the wall span and the order in which the ranks reached a "
                     f"collective are not aligned for them: {', '.join(unknown[:4])}"
                     + (f" and {len(unknown) - 4} more" if len(unknown) > 4 else ""))
    return notes


#: Collectors whose times are rocprofiler-sdk timestamps: each host's own monotonic clock (a rocprofv3 JSON of an
#: MI350X run records ``init_time`` 63,855,948,165,371 ns — 17.7 hours, the host's time since boot, not a date).
HOST_CLOCK_COLLECTORS = frozenset({"rocprofv3_json", "rocpd"})


def hosts_note(labelled: list[tuple[str, Any]]) -> list[str]:
    """A note when the files of ``labelled`` whose times are on a per-host clock (:data:`HOST_CLOCK_COLLECTORS`,
    with the ``hostname`` they record) come from several hosts: those clocks share no origin, so events of different
    hosts cannot be placed against each other (no offset between them is recorded)."""
    hosts: dict[str, list[str]] = {}
    for name, part in labelled:
        for s in part.meta.sources:
            if isinstance(s, dict) and s.get("collector") in HOST_CLOCK_COLLECTORS and s.get("hostname"):
                hosts.setdefault(str(s["hostname"]), []).append(name)
    if len(hosts) < 2:
        return []
    named = ", ".join(f"{h} ({plural(len(f), 'file(s)')})" for h, f in sorted(hosts.items())[:4])
    return [f"the rank files come from {len(hosts)} hosts — {named}{' …' if len(hosts) > 4 else ''}: rocprofiler "
            "times count on each host's own monotonic clock (time since boot, no wall clock shared by the hosts), so "
            "events of different hosts cannot be placed against each other — the wall span and the order in which "
            "the ranks reached a collective are not aligned across hosts"]


#: collectors of rocprofiler per-host clock times that record no host name (rocprofv3 CSV)
_UNNAMED_HOST_COLLECTORS = frozenset({"rocprofv3_csv"})


def host_folders_note(root: Path, sources: list[Any]) -> str | None:
    """A note when the rocprofv3 CSV files of ``sources`` (read from the folder ``root``) lie in folders of different
    names where rocprofv3 puts a host's files: its output file is ``%hostname%/<pid>`` unless ``-o`` says otherwise
    (rocprofiler-sdk ``config.hpp``), so a file's host folder is taken as the nearest folder above it, below
    ``root``, whose name is not a number (``<host>/<pid>/<pid>_kernel_trace.csv`` → ``<host>``). CSV files record no
    host name, so the note is conditional: if those folders are different hosts, their times (each host's own
    monotonic clock) cannot be placed against each other. None for one such folder or none."""
    folders: dict[str, int] = {}
    for s in sources:
        if not isinstance(s, dict) or s.get("collector") not in _UNNAMED_HOST_COLLECTORS or s.get("hostname"):
            continue
        try:
            rel = Path(str(s.get("path", ""))).relative_to(root)
        except ValueError:
            continue
        host = next((part for part in reversed(rel.parts[:-1]) if not part.isdigit()), None)
        if host is not None:
            folders[host] = folders.get(host, 0) + 1
    if len(folders) < 2:
        return None
    named = ", ".join(f"{h}/ ({plural(n, 'file(s)')})" for h, n in sorted(folders.items())[:4])
    return (f"the rocprofv3 CSV files lie in {len(folders)} folders where rocprofv3 writes one host's files "
            f"(-o %hostname%/%pid%, its default) — {named}{' …' if len(folders) > 4 else ''}; CSV files record no "
            "host name: if these are different hosts, rocprofiler times count on each host's own monotonic clock "
            "(time since boot), so events of different hosts cannot be placed against each other — the wall span "
            "and the order in which the ranks reached a collective are not aligned across them")
