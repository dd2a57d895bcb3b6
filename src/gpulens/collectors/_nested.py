"""Trace inputs nested more than one folder below the folder given: the profilers' per-host / per-process layouts.

rocprofv3 writes ``<output path>/<output file>_<domain>`` (rocprofiler-sdk ``source/lib/rocprofiler-sdk-tool``:
``config.hpp``, ``output_file.cpp``), the output path being the working directory or ``-d``, the output file
``%hostname%/<pid>`` unless ``-o``; both take placeholders (``%hostname%``/``%h``, ``%pid%``/``%p``, ``%rank%``…,
rocprofv3 I/O options page). So a run's files lie at several depths:

* default: ``<host>/<pid>_kernel_trace.csv`` (``_results.db``, ``_results.json``) — one level down;
* ``-d %h/%p``: ``<host>/<pid>/<host>/<pid>_…`` — three; ``-d %h/%p -o %p``: ``<host>/<pid>/<pid>_…`` — two;
* the MPI example ``-d %h.%p.%env{OMPI_COMM_WORLD_RANK}%``: ``<host>.<pid>.<rank>/<host>/<pid>_…`` — two, one folder
  per rank.

rocprof v1 ``-d DIR`` keeps its raw traces in ``DIR/rpl_data_<time>_<pid>/input<N>_results_<time>/`` (``rpl_run.sh``)
— two. A folder whose own files and direct subfolders hold no recognised trace is searched down to
:data:`MAX_DEPTH` levels, at most :data:`MAX_FOLDERS` folders (a home directory given by mistake is not walked whole):
a subfolder that a folder collector claims (a rocprofv3 CSV set, a rocprof v1 output folder…) is one input and is not
searched further (the rocprofv3 CSV reader takes the files of its direct subfolders too: one level more); every other
recognised file is one input. Several pid folders are several processes, several host
folders several hosts (the joining of rank inputs says what that means for their clocks).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

#: Folder levels searched below the folder given (``<host>/<pid>/<host>/<pid>_…`` is three).
MAX_DEPTH = 4
#: Folders looked into at most, all levels together.
MAX_FOLDERS = 2000


def nested_inputs(top: Path) -> tuple[list[tuple[Path, Any]], str | None]:
    """The trace inputs below ``top`` (see the module docstring), shallowest first, by name within a level.

    Returns:
        ([(file or folder, the collector that recognises it)], a note when the search stopped at
        :data:`MAX_FOLDERS` folders, else None). Never raises on an unreadable folder (it is passed over).
    """
    from gpulens.collectors import sniff

    found: list[tuple[Path, Any]] = []
    seen = {os.path.realpath(top)}
    level, looked = [top], 0
    for depth in range(1, MAX_DEPTH + 1):
        nxt: list[Path] = []
        for folder in level:
            for sub in _entries(folder):
                try:
                    if not sub.is_dir():
                        continue
                    real = os.path.realpath(sub)
                except OSError:
                    continue
                if real in seen:  # a link back up, or to a folder already searched: its files read twice
                    continue
                seen.add(real)
                looked += 1
                if looked > MAX_FOLDERS:
                    return found, (f"{top}: searched {MAX_FOLDERS:,} folders down to {MAX_DEPTH} levels and "
                                   "stopped; give the folder of one run")
                c = _sniffed(sub, sniff)
                if c is not None:
                    found.append((sub, c))
                    continue
                if depth > 1:  # files one level down were looked at already by the caller
                    for f in _entries(sub):
                        if f.is_file() and (fc := _sniffed(f, sniff)) is not None:
                            found.append((f, fc))
                if depth < MAX_DEPTH:
                    nxt.append(sub)
        level = nxt
    return found, None


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted((e for e in folder.iterdir() if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError:
        return []


def _sniffed(path: Path, sniff: Any) -> Any:
    from gpulens.errors import GpulensError

    try:
        return sniff(path)
    except (OSError, GpulensError):
        return None
