"""A rocprof v1 output folder (``results.csv``, ``results.db``, ``results.json``, ``*.stats.csv``,
``results.sysinfo.txt``, counter-pass CSVs) → one Timeline of the run, without counting anything twice.

rocprof v1 writes the same dispatches several times: ``results.csv`` and the ``KERN`` table of ``results.db`` are the
same kernel trace; ``results.json`` and ``results.db`` hold the same HIP/copy/kernel records. So:

1. ``results.json`` is skipped when ``results.db`` is present (same run, the db is typed).
2. Kernels are taken from the first file that has timed kernels, in the order ``results.csv``, other timed CSVs,
   ``results.db``, ``results.json``; the kernel events of later files are dropped (their copies and API calls kept).
3. Counter-mode CSVs without timestamps (``pmc:`` passes, separate runs of the same program) are attached to those
   kernels with :func:`gpulens.collectors.join.join_dispatches` (kernel name and order on the device); when there is
   no timed kernel at all they are kept as they are (rejected dispatches + ``tables["unattached_counters"]``).
4. ``results.sysinfo.txt`` gives ``meta.devices``; stats files give ``tables["rocprof_stats"]``.
5. A folder without ``results.*`` names whose files are all rocprof v1 outputs, with counter passes and at most one
   timed trace (:func:`counter_pass_folder`), is one run too: its passes are one rank (rocprof re-ran the program for
   each pass, so their pids differ), their dispatches counted once when they list the same kernels in the same order.
6. A folder of rocprof v1 summaries and nothing else (``<stem>.stats.csv``, ``<stem>.hip_stats.csv``,
   ``<stem>.copy_stats.csv``…: what ``rocprof --stats`` leaves when the trace files are not kept) is read one process
   per stem (:func:`stats_stems`): a stem's per-domain summaries are one process, never one rank each; several
   stems (``rocprof -o run_<rank>.csv`` per MPI rank) are one rank each.
7. A folder that also holds rocprofv3 outputs (``kernel_trace.csv``…, ``*_results.json``, rocpd ``.db``) holds two
   runs: refused with a one-line error, or with ``--lenient`` read as the v1 run with a warning naming the files left
   out (:mod:`gpulens.collectors._amd_generations`).
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulens.collectors._amd_generations import V1, V3, refuse_other_generation
from gpulens.collectors._work_rules import dispatch_rows
from gpulens.collectors.base import Collector
from gpulens.collectors.join import join_dispatches
from gpulens.timeline import Timeline, concat
from gpulens.units import plural

FAMILY = ("rocprof_v1", "rocprof_v1_db", "rocprof_v1_json", "rocprof_stats", "rocminfo", "rocprof_results_txt")


def without_kernels(tl: Timeline) -> Timeline:
    """``tl`` without its kernel-dispatch events (:func:`dispatch_rows`) and their counters."""
    keep = ~dispatch_rows(tl.events)
    ev = tl.events[keep].reset_index(drop=True)
    co = tl.counters[tl.counters["event_id"].isin(set(ev["event_id"])) | (tl.counters["event_id"] < 0)]
    return Timeline(ev, co.reset_index(drop=True), tl.rejected, tl.meta, tl.tables).validate()


#: A folder is read file by file beyond this many files (per-rank folders are large; pass folders are small).
MAX_PASS_FILES = 64


def counter_pass_folder(path: Path) -> bool:
    """True for a folder of rocprof v1 outputs of ONE run without ``results.*`` names: every recognised file is of
    the rocprof v1 family, at least one is a counter pass (``pmc:`` CSV without timestamps) and at most one holds
    timed kernels — e.g. ``bankconflicts.csv`` + ``data_movement.csv`` + ``results.stats.csv``, the passes rocprof
    wrote by re-running one program. A folder of several timed traces (one per rank) is not claimed."""
    from gpulens.collectors import sniff

    files = []
    for p in path.iterdir():  # stops at the 65th file: a folder of 20,000 rank files is not stat-ed whole here
        if not p.name.startswith(".") and p.is_file():
            files.append(p)
            if len(files) > MAX_PASS_FILES:
                return False
    if not files:
        return False
    files.sort(key=lambda p: p.name)  # the order of Path comparison within one folder
    passes = timed = 0
    for f in files:
        c = sniff(f)
        if c is None:
            continue
        if c.name not in FAMILY:
            return False
        if c.name == "rocprof_v1":
            if _has_timestamps(f):
                timed += 1
            else:
                passes += 1
    return passes >= 1 and timed <= 1


#: the per-domain summaries ``rocprof --stats`` writes beside its trace: ``<stem>.stats.csv`` (kernels),
#: ``<stem>.hip_stats.csv``, ``<stem>.hsa_stats.csv``, ``<stem>.copy_stats.csv`` (rocprof ``tblextr.py``)
_V1_STATS = re.compile(r"^(.+)\.(?:stats|hip_stats|hsa_stats|copy_stats)\.csv$", re.ASCII | re.IGNORECASE)


def stats_stems(path: Path) -> dict[str, list[Path]]:
    """The rocprof v1 summaries of a folder that holds nothing else gpulens reads, by stem (``{}`` otherwise): at
    least one ``<stem>.*stats.csv`` summary, any other recognised file a ``rocminfo`` dump — e.g. ``results.stats.csv``
    + ``results.hip_stats.csv`` + ``results.copy_stats.csv`` (one stem: one process), read before as three ranks (one
    per summary, the kernel one among the "files without GPU work")."""
    from gpulens.collectors import sniff

    stems: dict[str, list[Path]] = {}
    n = 0
    for p in sorted(path.iterdir(), key=lambda f: f.name):
        if p.name.startswith(".") or not p.is_file():
            continue
        n += 1
        if n > MAX_PASS_FILES:
            return {}
        c = sniff(p)
        if c is None or c.name == "rocminfo":
            continue
        m = _V1_STATS.match(p.name)
        if c.name != "rocprof_stats" or m is None:
            return {}
        stems.setdefault(m.group(1), []).append(p)
    return stems


def _stats_by_stem(path: Path, stems: dict[str, list[Path]], strict: bool) -> Timeline:
    """The summaries of each stem as one process (their Timelines concatenated), several stems numbered as ranks in
    stem order (:func:`~gpulens.collectors._ranks.number_rankless`); ``path``'s rocminfo dump gives the devices."""
    from gpulens.collectors import sniff
    from gpulens.collectors._ranks import number_rankless

    parts = [(stem, concat([sniff(f).collect(f, strict=strict) for f in files])) for stem, files in stems.items()]
    notes = [f"{path}: {n}" for n in number_rankless(parts)]
    tl = concat([t for _, t in parts])
    info = [f for f in sorted(path.iterdir(), key=lambda f: f.name) if f.is_file() and not f.name.startswith(".")
            and getattr(sniff(f), "name", None) == "rocminfo"]
    for f in info[:1]:
        extra = sniff(f).collect(f, strict=strict)
        tl.meta.devices = extra.meta.devices
        tl.meta.warnings += extra.meta.warnings
    tl.meta.warnings[:0] = notes
    return tl


def _has_timestamps(f: Path) -> bool:
    """True when a rocprof v1 CSV's header names begin/end timestamps (a kernel trace, not a counter pass)."""
    try:
        with open(f, "rb") as fh:
            header = fh.readline(65536).decode("utf-8", "replace")
    except OSError:
        return False
    cols = {c.strip().strip('"') for c in header.split(",")}
    return bool(cols & {"BeginNs", "Start_Timestamp", "DispatchNs"})


def _dispatch_names(tl: Timeline) -> list[str]:
    """Kernel names of a counter pass's dispatches in dispatch order (from its ``unattached_counters``)."""
    un = tl.tables.get("unattached_counters")
    if un is None or not len(un) or "dispatch_seq" not in un:
        return []
    d = un[["dispatch_seq", "name"]].drop_duplicates("dispatch_seq").sort_values("dispatch_seq", kind="stable")
    return d["name"].astype(str).tolist()


def _kernel_rows(tl: Timeline) -> tuple[int, tuple[tuple[str, int], ...]]:
    """(dispatch count, (kernel name, count) sorted): what two exports of one run's kernels share."""
    k = tl.events[dispatch_rows(tl.events)]
    counts = k["name"].astype(str).value_counts()
    return len(k), tuple(sorted((str(a), int(b)) for a, b in counts.items()))


class RocprofV1Dir(Collector):
    """rocprof v1 output folder (see module docstring)."""

    name = "rocprof_v1_dir"
    accepts_dirs = True
    priority = 22

    def sniff(self, path: Path, head: bytes) -> bool:
        if not path.is_dir():
            return False
        if any((path / f).is_file() for f in ("results.csv", "results.db", "results.json", "results.sysinfo.txt")):
            return True
        return counter_pass_folder(path) or bool(stats_stems(path))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        from gpulens.collectors import sniff
        from gpulens.collectors._folder_files import not_read_note, unread_in_folder

        path = Path(path)
        stems = stats_stems(path)
        if len(stems) > 1:  # summaries only, one stem per process: each stem one rank
            return _stats_by_stem(path, stems, strict)
        loaded: dict[str, Timeline] = {}
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        found = {f: sniff(f) for f in files}
        v3 = [f for f, c in found.items() if c is not None and c.name in V3]
        note = refuse_other_generation(path, "v1", [f for f, c in found.items() if c is not None and c.name in V1],
                                       v3, strict)
        for f, c in found.items():
            if c is not None and c.name in FAMILY:
                loaded[f.name] = c.collect(f, strict=strict, with_siblings=False) \
                    if c.name in ("rocprof_v1", "rocprof_v1_json", "rocprof_v1_db") \
                    else c.collect(f, strict=strict)  # the folder reads every sibling itself
        notes = [note] if note else []
        reading: list[str] = []  # how the folder's files were read, nothing lost: reading notes, not warnings
        if "results.db" in loaded and "results.json" in loaded:
            del loaded["results.json"]
            reading.append(f"{path}: results.json skipped (results.db holds the same records)")
        timed = [n for n, t in loaded.items() if dispatch_rows(t.events).any()]
        order = sorted(timed, key=lambda n: (n != "results.csv", n.endswith(".db"), n.endswith(".json"), n))
        untimed = [n for n, t in loaded.items() if n not in timed and "unattached_counters" in t.tables]
        parts = []
        first_pass = untimed[0] if untimed and not order else None
        for n, t in loaded.items():
            if n in untimed and order:
                continue
            if first_pass is not None and n in untimed and n != first_pass:
                # another counter pass of the same run (rocprof re-ran the program for it): one rank, its
                # dispatches counted once — the rows it could not place as events are those of the first pass
                same = _dispatch_names(t) == _dispatch_names(loaded[first_pass])
                (reading if same else notes).append(
                    f"{path / n}: counter pass of the same run as {first_pass} ("
                    + (f"the same {plural(len(_dispatch_names(t)), 'dispatch(es)')}" if same else
                       "its dispatches differ: counters are compared per kernel name") + "), one rank")
                if same:
                    t = Timeline(t.events, t.counters, t.rejected.iloc[0:0], t.meta, t.tables)
            if n in order[1:]:
                same, first = _kernel_rows(t), _kernel_rows(loaded[order[0]])
                t = without_kernels(t)
                if same == first:
                    reading.append(f"{path / n}: kernels not added again (the same "
                                   f"{plural(same[0], 'dispatch(es)')} as {order[0]})")
                else:  # another export of another run, or of part of it: its kernels are not this run's
                    notes.append(f"{path / n}: kernels not added: its {plural(same[0], 'dispatch(es)')} are not "
                                 f"the {first[0]:,} of {order[0]} (other kernel names or counts: an export of "
                                 f"another run?); the figures are {order[0]}'s")
            parts.append(t)
        tl = concat(parts) if parts else Timeline()
        for n in (untimed if order else []):
            res = join_dispatches(tl, loaded[n])
            tl = res.timeline
        unread = unread_in_folder(found)  # an emptied results.csv, a sysinfo of NULs: said, never passed over
        if unread:
            notes.append(not_read_note(path, unread))
        if dispatch_rows(tl.events).any():  # the run's GPU description beside its trace: a fact, not a fault
            said = tuple(f"{path / n}: device description only" for n, t in loaded.items()
                         if any(x.get("collector") == "rocminfo" for x in t.meta.sources))
            reading += [w for w in tl.meta.warnings if said and w.startswith(said)]
            tl.meta.warnings = [w for w in tl.meta.warnings if not (said and w.startswith(said))]
        tl.meta.warnings = notes + tl.meta.warnings
        if reading and tl.meta.sources:
            tl.meta.sources[0] = {**tl.meta.sources[0], "reading_notes": reading}
        elif reading:
            tl.meta.warnings = reading + tl.meta.warnings  # no source to carry them: said as warnings, never lost
        return tl
