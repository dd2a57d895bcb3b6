"""Loading many rank files at once: a local process pool, or a Dask distributed cluster.

Each rank file is one task (``load_task``): sniff, load (through the cache when asked), apply the selection. Results
come back as Timelines in the order of the files, so the concatenated multi-rank Timeline is identical whichever way
it was loaded.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

from gpulens.collectors._assemble import Parts
from gpulens.collectors._io import GZIP_MAGIC, describe, read_head
from gpulens.collectors._kineto_ranks import RANK_IN_FILE_NAME
from gpulens.errors import DependencyError, GpulensError
from gpulens.timeline import Timeline
from gpulens.timeline.selection import Selection

#: below this many bytes in all, a directory is read in this process (a pool costs more than it saves).
POOL_MIN_BYTES = 64 << 20
_RANK_IN_HEAD = re.compile(rb'"distributedInfo"\s*:\s*\{[^{}]*?"rank"\s*:\s*(\d+)')
_RANK_IN_NAME = RANK_IN_FILE_NAME  # one pattern of a rank in a file name (Kineto's reader uses it too)


def file_rank(path: Path) -> int | None:
    """The rank a trace file belongs to, from ``distributedInfo`` in its first 64 KiB or its name; None if unknown."""
    m = _RANK_IN_HEAD.search(read_head(path))
    if m:
        return int(m.group(1))
    m2 = _RANK_IN_NAME.search(path.name)
    return int(m2.group(1)) if m2 else None


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 8 << 30


def _load_estimate(path: Path) -> int:
    """Rough peak memory of loading one file: about 3× its JSON text (gzip expands ~10×), plus the interpreter."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        gz = fh.read(2) == GZIP_MAGIC
    return (size * 10 if gz else size) * 3 + (300 << 20)


def default_workers(files: list[Path]) -> int:
    """Processes to use for ``files``: no more than the files, the CPU cores, and what available memory holds."""
    if len(files) < 2:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    per = max(_load_estimate(f) for f in files)
    return max(1, min(len(files), cores, _available_memory() // per))


def analysis_workers(path: str | Path, workers: int | None) -> int:
    """Processes the analysis of ``path`` may use (:func:`gpulens.analyzers.run_all`): 1 for a single file (its
    analysis stays in one process, within the memory measured for it); for a directory, ``workers`` when given,
    else the decision :func:`load_many` makes for loading it — :func:`default_workers` (cores, available memory,
    file sizes) when its files hold at least :data:`POOL_MIN_BYTES` in all, else 1."""
    p = Path(path)
    try:
        if not p.is_dir():
            return 1
        if workers is not None:
            return workers
        files = [f for f in p.iterdir() if f.is_file() and not f.name.startswith(".")]
        total = sum(f.stat().st_size for f in files)
    except OSError:
        return 1
    return default_workers(files) if total >= POOL_MIN_BYTES else 1


def load_task(path: str, strict: bool, select: Selection | None, cache: bool, parts: bool = False,
              format: str | None = None) -> Timeline | Parts | GpulensError | None:
    """Load one file (the unit of work of the pool and of Dask); None when no collector recognises it, the
    :class:`~gpulens.errors.GpulensError` when it cannot be read (the caller lists it; one bad rank file does not
    stop the others). With ``parts``, the file's :class:`~gpulens.collectors._assemble.Parts` (the caller joins
    all files' columns and builds the tables once), with the per-file part of the join done here
    (:func:`~gpulens.collectors._assemble.prepare`: in a pool worker, not in the process joining the files).
    ``format``: the collector already found by sniffing."""
    from gpulens.collectors import collect_file, collect_parts, sniff
    from gpulens.collectors.base import collector_class

    if not strict:  # a truncated SQLite member: its recovered copy (made again in a process that lacks it)
        from gpulens.collectors._sqlite import read_truncated

        read_truncated(Path(path))
    c = collector_class(format)() if format else sniff(path)
    if c is None:
        return None
    try:
        if parts:
            from gpulens.collectors._assemble import prepare

            return prepare(collect_parts(c, Path(path), strict, select, cache))
        return collect_file(c, Path(path), strict, select, cache)
    except GpulensError as exc:
        return exc


def load_many(files: list[Path], strict: bool, select: Selection | None, cache: bool, workers: int | None,
              scheduler: Any = None, parts: bool = False, formats: list[str] | None = None
              ) -> list[Timeline | Parts | GpulensError | None]:
    """Load ``files`` in order: on Dask when ``scheduler`` is given, else in ``workers`` processes — this
    one (its share: :func:`own_share`) and a pool of ``workers - 1`` — (chosen by :func:`default_workers` when None;
    the pool is used only for large inputs when not forced);
    ``parts``, ``formats`` (collector name per file): see :func:`load_task`."""
    args = [(str(f), strict, select, cache, parts, fmt) for f, fmt in zip(files, formats or [None] * len(files))]
    if scheduler is not None:
        return _on_dask(args, scheduler)
    if workers is None:
        total = sum(f.stat().st_size for f in files)
        workers = default_workers(files) if total >= POOL_MIN_BYTES else 1
    if workers <= 1 or len(files) < 2:
        return [load_task(*a) for a in args]
    from concurrent.futures import ProcessPoolExecutor  # imported only for a pool (≈ 3 ms of CPU)

    own = own_share([f.stat().st_size for f in files], workers)
    rest = [i for i in range(len(args)) if i not in own]
    out: list[Timeline | Parts | GpulensError | None] = [None] * len(args)
    with ProcessPoolExecutor(max_workers=workers - 1) as pool:
        # every worker process is forked by now (fork start method)
        loading = pool.map(load_task, *zip(*(args[i] for i in rest)))
        preload = _preload()
        try:
            for i in own:  # this process is one of the ``workers``: no pickling, no transfer of its share
                out[i] = load_task(*args[i])
            for i, got in zip(rest, loading):
                out[i] = got
        finally:
            preload.join()
    return out


def own_share(sizes: list[int], workers: int) -> list[int]:
    """Positions of the files the process running :func:`load_many` loads itself while its ``workers - 1`` pool
    processes load the others: the last files, about ``1 / workers`` of the bytes (a file when at least half of
    it fits), at least one and never all. Before session 45 this process only waited on a pool of ``workers``
    (its CPU time then: receiving and unpickling every file's columns, ≈ 0.17 s for 8 files × 31 MB) while the
    pool's processes pickled them, on the critical path of a rank directory's load (issue 16, target 5)."""
    room = sum(sizes) / workers
    own: list[int] = []
    took = 0.0
    for i in range(len(sizes) - 1, 0, -1):
        if own and took + sizes[i] / 2 > room:
            break
        own.append(i)
        took += sizes[i]
    return sorted(own)


def _preload() -> threading.Thread:
    """Import what the analysis of the loaded files will import (every analyzer module) in a
    thread of this process while the files load (beside this process's own share) instead of after loading (≈ 0.4 s
    of CPU on the critical path of a run of 8 rank files; issue 16). Started only once the pool's processes exist
    (a fork during an import would copy its lock) and joined before loading returns (the analysis may fork)."""
    def run() -> None:
        try:
            from gpulens.analyzers import _load_all

            _load_all()
        except Exception:  # noqa: BLE001 — an import failing here fails again, and is reported, where it is used
            pass

    t = threading.Thread(target=run, name="gpulens-preload", daemon=True)
    t.start()
    return t


#: Seconds :func:`_connect` waits for a Dask client to connect (Dask's own ``timeout`` covers the TCP connection, not
#: a listener that accepts and never answers: that waited forever).
CONNECT_DEADLINE_S = 20.0


def _connect(client_class: Any, scheduler: str) -> Any:
    """``Client(scheduler)`` made in a daemon thread and waited for at most :data:`CONNECT_DEADLINE_S`.

    Raises:
        GpulensError: naming ``--scheduler`` whatever the address held — nothing (a refused or timed-out
            connection), a malformed address (ValueError), another service whose reply Dask reads as a frame length
            (MemoryError), or a listener that never answers (the deadline: the thread is left behind, a daemon) —
            never "malformed trace data" or "not enough memory to read this file" of the rank folder.
    """
    box: dict[str, Any] = {}

    def connect() -> None:
        try:
            box["client"] = client_class(scheduler, timeout="10s")
        except BaseException as exc:  # noqa: BLE001 - reported below, in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=connect, name="gpulens-dask-connect", daemon=True)
    worker.start()
    worker.join(CONNECT_DEADLINE_S)
    if "client" in box:
        return box["client"]
    exc = box.get("error")
    why = (f"no Dask answer within {CONNECT_DEADLINE_S:.0f} s: something there accepts connections but does not "
           "speak Dask's protocol" if exc is None else
           "something answered there, but not a Dask scheduler" if isinstance(exc, MemoryError) else describe(exc))
    raise GpulensError(f"--scheduler: cannot reach a Dask scheduler at {scheduler} ({why})")


def _on_dask(args: list[tuple], scheduler: Any) -> list[Timeline | None]:
    try:
        from distributed import Client
    except ImportError:
        raise DependencyError("distributed", "Loading rank files on a Dask cluster", extra="dask") from None
    own = isinstance(scheduler, str)
    client = _connect(Client, scheduler) if own else scheduler
    try:
        futures = client.map(load_task, *zip(*args), pure=False)
        return client.gather(futures)
    finally:
        if own:
            client.close()
