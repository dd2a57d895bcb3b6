"""Collectors: one module per source format, found by content, all producing the same Timeline.

Public entry points:

* :func:`sniff` — which collector reads a path;
* :func:`collect` — read a file or a directory (a directory of per-rank files becomes one multi-rank Timeline).

Every module in this package that defines a :class:`~gpulens.collectors.base.Collector` subclass with a ``name``
joins the registry; nothing else needs editing to add a format.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path
from typing import Any

from gpulens._inputs import check_input
from gpulens.collectors._assemble import Parts, assemble
from gpulens.collectors._folder_files import _detect, _listed, _own_output, _rank_like, _trace_suffix, not_read_note
from gpulens.collectors._io import read_head, reading
from gpulens.collectors._sniff_fast import declared_kineto
from gpulens.collectors.base import Collector, folder_collectors, registry
from gpulens.errors import GpulensError, TraceFormatError, UnknownFormatError
from gpulens.timeline import Timeline
from gpulens.timeline.selection import Selection, unmatched_ranks_text
from gpulens.units import fmt_ns, plural

_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_") and mod.name != "base":
            importlib.import_module(f"{__name__}.{mod.name}")
    _loaded = True


#: The registry's classes in sniffing order with one instance each, for the registry they were made from
#: (:func:`_ordered`).
_ORDER: tuple[tuple[type[Collector], ...], list[Collector]] = ((), [])


def _ordered() -> list[Collector]:
    """One instance of every registered collector, in sniffing order (``priority``, then ``name``): made once per
    registry, not once per file sniffed (a folder of 20,000 files)."""
    global _ORDER
    classes = tuple(registry().values())
    if classes != _ORDER[0]:
        _ORDER = (classes, [cls() for cls in sorted(classes, key=lambda c: (c.priority, c.name))])
    return _ORDER[1]


def sniff(path: str | Path) -> Collector | None:
    """Return the collector that recognises ``path`` by content (a fresh instance), or None.

    Directories are offered only to collectors with ``accepts_dirs``. A file's head is read once
    (:func:`~gpulens.collectors._io.read_head`) and the same bytes offered to every collector in turn; a text file
    longer than the head that none recognises is offered to :meth:`Collector.sniff_further` (a bounded scan).
    """
    p = Path(path)
    if p.is_dir():  # only the folder collectors' modules imported (not every collector's)
        for c in folder_collectors():
            if c.sniff(p, b""):
                return type(c)()
        return None
    head = read_head(p)
    fast = declared_kineto(p, head)  # a Kineto trace by its own first key: no other collector module imported
    if fast is not None:
        return fast
    for c in _ordered():
        if c.sniff(p, head):
            return type(c)()
    if _longer_than_head(p, head) and b"\0" not in head:  # text beyond the head: a record may lie further in
        for c in _ordered():
            if c.sniff_further(p):
                return type(c)()
    return None


def _longer_than_head(p: Path, head: bytes, n: int = 65536) -> bool:
    """Whether the file holds more than its ``n``-byte head: the head is full (decompressed), or the file itself is
    longer (text transcoded from UTF-16/32 to UTF-8 makes a head shorter than the bytes it came from)."""
    try:
        return len(head) >= n or p.stat().st_size > n
    except OSError:
        return False


def collect_file(c: Collector, path: Path, strict: bool = True, select: Selection | None = None,
                 cache: bool = False) -> Timeline:
    """Load one file with collector ``c``: through the Timeline cache when ``cache`` (see :mod:`gpulens.cache`),
    applying ``select`` as early as the collector allows (the Kineto collector filters its columns before building
    the DataFrame; cached and other loads are filtered afterwards).

    Raises:
        TraceFormatError: the file is malformed (a parser's error on its content is reported as such, naming it).
    """
    with reading(path, c.name):
        return _collect_file(c, path, strict, select, cache)


def collect_parts(c: Collector, path: Path, strict: bool = True, select: Selection | None = None,
                  cache: bool = False) -> Parts:
    """:func:`collect_file` as :class:`~gpulens.collectors._assemble.Parts` (for joining many files): a collector
    that can stop before building its tables (``collect_parts``: Kineto) does, when neither the cache nor a
    selection is asked for; any other load is its Timeline's columns."""
    plain = not cache and (select is None or not (select.active or select.ranks is not None))
    if plain and hasattr(c, "collect_parts"):
        with reading(path, c.name):
            return c.collect_parts(path, strict=strict)
    return Parts.from_timeline(collect_file(c, path, strict, select, cache))


def _collect_file(c: Collector, path: Path, strict: bool, select: Selection | None, cache: bool) -> Timeline:
    import inspect

    active = select is not None and (select.active or select.ranks is not None)
    if cache:
        from gpulens.cache import load_or_collect

        tl = load_or_collect(path, c.name, lambda: _sizes(c.collect(path, strict=strict), path, c.name))
        return select.apply(tl) if active else tl
    if active and "select" in inspect.signature(c.collect).parameters:
        tl = c.collect(path, strict=strict, select=select)
        if select.ranks is None:
            return tl
        # the collector cut the steps and the window: only the ranks are left to select (applying the window again
        # would count it from the cut trace's first event, i.e. twice)
        out = Selection(ranks=select.ranks).apply(tl)
        out.meta = select.mark(tl.meta)
        return out
    tl = _sizes(c.collect(path, strict=strict), path, c.name)
    return select.apply(tl) if active else tl


def _sizes(tl: Timeline, path: Path, collector: str = "") -> Timeline:
    """A gzip-compressed input's source record says so, with both sizes (B02: compressed and uncompressed sizes are
    reported), whatever its collector (the Kineto reader writes them itself); GPU events on a device the file does
    not list get a device record and a warning, a few events far from the rest a warning (:mod:`._isolated`)."""
    from gpulens.collectors._io import gunzipped_size, gzip_trailing_bytes, mark_gzip_cut, trailing_warning
    from gpulens.collectors._isolated import read_checks
    from gpulens.collectors._sqlite import unpacked_size

    n = unpacked_size(path)
    n = gunzipped_size(path) if n is None else n
    if n is not None:
        for src in tl.meta.sources:
            if src.get("path") == str(path) and "compressed" not in src:
                src.update(compressed=True, uncompressed_bytes=n)
    trailing = gzip_trailing_bytes(path)
    if trailing and not any("trailing garbage" in w for w in tl.meta.warnings):
        tl.meta.warnings.append(trailing_warning(path, trailing))
    mark_gzip_cut(tl.meta, path)
    return read_checks(tl, path, collector)


#: Suffixes of the trace files a folder format does not read itself (Kineto / rocprofv3 JSON, nsys / rocpd SQLite).
_OTHER_TRACE_SUFFIXES = (".json", ".gz", ".sqlite", ".sqlite3", ".db")
#: NVIDIA outputs' other names, listed when they sniff as NVIDIA (an AMD folder's own CSVs are its own records)
_NVIDIA_SUFFIXES, _NVIDIA_FAMILIES = (".csv", ".ncu-rep", ".nvvp", ".txt", ".log"), ("ncu", "nsys", "nvprof")


def _same_run_elsewhere(p: Path, c: Collector, tl: Timeline) -> list[tuple[Path, str]]:
    """The rocprofv3 JSON / rocpd files of folder ``p`` (and its host subfolders) that hold the same run as the CSV
    files the folder collector ``c`` read (:mod:`._run_layouts`), each with why it was not read; [] for other
    folder collectors."""
    if c.name != "rocprofv3_csv_dir":
        return []
    from gpulens.collectors._run_layouts import same_run_files

    used = [Path(s["path"]) for s in tl.meta.sources if isinstance(s, dict) and s.get("path")]
    cand = [f for d in [p] + sorted(x for x in p.iterdir() if x.is_dir() and not x.name.startswith("."))
            for f in sorted(d.iterdir()) if f.is_file() and f.name.lower().endswith(_OTHER_TRACE_SUFFIXES)]
    sniffed = {}
    for f in cand:
        try:
            o = sniff(f)
        except (OSError, GpulensError):
            continue
        if o is not None:
            sniffed[f] = o.name
    return same_run_files(cand, used, sniffed)


def _other_traces(p: Path, c: Collector, tl: Timeline, told: set[Path] = frozenset()) -> list[tuple[Path, str]]:
    """The trace files at the top of folder ``p`` (claimed by the folder collector ``c``) that ``c`` did not read
    and that another format family recognises — a rank directory mixing formats must not lose files silently.
    Files of ``c``'s own family (``rocprof*``, ``omniperf*``: the same records in another layout) are not listed.
    Returns (file, the collector that recognises it) pairs, by name."""
    used = {str(Path(s.get("path", ""))) for s in tl.meta.sources if isinstance(s, dict)}
    family = c.name.split("_")[0]
    out = []
    for f in sorted(p.iterdir()):
        nv_only = not f.name.lower().endswith(_OTHER_TRACE_SUFFIXES)  # a folder's ncu CSV was dropped unnamed
        if f.name.startswith(".") or (nv_only and not f.name.lower().endswith(_NVIDIA_SUFFIXES)) or str(f) in used:
            continue
        try:
            if not f.is_file():
                continue
            o = sniff(f)
        except (OSError, GpulensError):
            continue
        fam = o.name.split("_")[0] if o is not None else family
        if fam != family and (not nv_only or fam in _NVIDIA_FAMILIES) and f not in told:
            out.append((f, o.name))
    return out


def _named(files: list[tuple[Path, str]]) -> str:
    """``"name (format), ..."`` of (file, format) pairs, the first 8 and how many more."""
    return ", ".join(f"{f.name} ({fmt})" for f, fmt in files[:8]) + (
        f" and {len(files) - 8} more" if len(files) > 8 else "")


def gpu_work_ns(tl: Timeline) -> int:
    """The summed duration (ns) of a Timeline's GPU events (kernels, collectives, copies, fills): how much of a
    run's GPU work it holds, to choose between two readings of one folder."""
    ev = tl.gpu_events()
    return int(ev["dur_ns"].sum()) if len(ev) else 0


def collect(path: str | Path, strict: bool = True, format: str | None = None, select: Selection | None = None,
            cache: bool = False, workers: int | None = None, scheduler: Any = None,
            require_all: bool = False) -> Timeline:
    """Read a trace file or directory into one Timeline.

    Args:
        path: a file of any supported format (gzip allowed), or a directory. A directory claimed by a
            directory-aware collector is read by it (when it also holds trace files of another format, the
            reading holding more GPU work is kept and the other named in a warning: :func:`_richer_reading`);
            otherwise every recognised file in it (not recursive) is read and the results concatenated (one
            Timeline for several ranks), in parallel when large (a folder with no trace file but subfolders, e.g.
            rocprofv3's ``<hostname>/<pid>_results.db``, is read one level down, and deeper —
            ``<host>/<pid>/<pid>_kernel_trace.csv``, rocprof v1's ``rpl_data_*/input_results_*/`` — when one level
            holds none either: :mod:`._nested`); files that record no rank are
            numbered instead of all becoming rank 0 (:mod:`._ranks`, with a warning).
        strict: see :meth:`Collector.collect`.
        format: collector name to force instead of sniffing.
        select: keep only some steps / a time window / some ranks (:class:`~gpulens.timeline.selection.Selection`);
            rank files of other ranks are not read at all.
        cache: read from / write to the Timeline cache (:mod:`gpulens.cache`).
        workers: processes for a directory of rank files (None: chosen from cores, memory and input size).
        scheduler: a Dask ``distributed`` scheduler address (``tcp://host:port``) or ``Client``: load the rank files
            on that cluster instead (needs ``pip install 'gpulens[dask]'``).
        require_all: a directory's file that cannot be used (unreadable, corrupt, not a trace) is an error; by
            default it is listed in a warning with the count of files used vs found.

    Raises:
        TraceFormatError: the path does not exist, is empty, or no collector recognises it (UnknownFormatError).
        DependencyError: ``scheduler`` given but Dask ``distributed`` is not installed.
    """
    p = check_input(path)  # missing, unreadable or special: refused (gpulens._inputs)
    cuts = []
    if not strict:  # truncated SQLite files, alone or in the folder: what their complete pages hold (_sqlite)
        from gpulens.collectors._sqlite import read_truncated, read_truncated_members

        cuts = read_truncated_members(p) if p.is_dir() else [w for w in [read_truncated(p)] if w]
    with reading(p):
        tl = _collect(p, strict, format, select, cache, workers, scheduler, require_all)
    tl.meta.warnings[:0] = [w for w in cuts if w not in tl.meta.warnings]
    return tl


def _collect(p: Path, strict: bool, format: str | None, select: Selection | None, cache: bool,
             workers: int | None, scheduler: Any, require_all: bool = False) -> Timeline:
    if format:
        reg = registry()
        if format not in reg:
            raise UnknownFormatError(p, f"unknown format {format!r}; known: {', '.join(sorted(reg))}")
        return collect_file(reg[format](), p, strict, select, cache)
    c = sniff(p)
    if c is not None:
        if p.is_dir():
            from gpulens.collectors._isolated import read_checks

            # a folder's devices are checked as a file's are (_sizes): GPU events on a device its records lack get
            # a device record, else the breakdown names a GPU that is not among the run's devices
            tl = read_checks(c.collect(p, strict=strict), p, c.name)
            _note_host_folders(p, tl)
            same = _same_run_elsewhere(p, c, tl)
            if same:
                tl.meta.warnings.append(f"{p}: {plural(len(same), 'file(s)')} not read: " + "; ".join(
                    f"{f.relative_to(p)}: {why}" for f, why in same[:8]))
            others = _other_traces(p, c, tl, {f for f, _ in same})
            if others:
                if require_all:
                    raise TraceFormatError(p, f"read by {c.name}; other trace files in the folder are not read: "
                                              f"{_named(others)} (--strict)")
                return _richer_reading(p, c, tl, others, strict, select, cache, workers, scheduler)
            return tl
        return collect_file(c, p, strict, select, cache)
    if p.is_dir():
        return _collect_dir(p, strict, select, cache, workers, scheduler, require_all)
    from gpulens.collectors._io import read_input

    raw = read_input(p)  # raises the precise reason for empty, unreadable or corrupt-gzip files
    from gpulens.collectors._hints import unsupported_format
    from gpulens.collectors._sqlite import connect_ro, truncated_by, unreadable_sqlite

    if truncated_by(p) or (raw.compressed and raw.data.startswith(b"SQLite format 3\x00")):
        connect_ro(p)  # an SQLite file shorter than its header declares, or gzip cut short: the precise reason
    why = unreadable_sqlite(p)  # locked by another process, or a corrupt schema: not "not a trace"
    if why:
        raise TraceFormatError(p, why)
    if raw.compressed and raw.data[:2] == b"\x1f\x8b":
        raise TraceFormatError(p, "compressed twice (a gzip file inside the gzip file): decompress it once "
                                  "(gunzip) and give gpulens the result")
    if _truncated_json(raw.data):  # a trace cut before its events: say so, not "not a trace"
        raise TraceFormatError(p, f"truncated JSON: the text ends after {len(raw.data):,} bytes"
                                  f"{' (decompressed)' if raw.compressed else ''}, before any trace event could be "
                                  "read (the writer was killed or the copy is incomplete)")
    known = unsupported_format(p)  # a real profiler's file gpulens does not read: say which and how to convert it
    if known:
        raise UnknownFormatError(p, known)
    own = _own_output(p)
    if own:
        raise UnknownFormatError(p, f"{own}: give `gpulens analyze` the trace it was made from"
                                    + (", or compare two reports with `gpulens diff A.json B.json`"
                                       if "JSON report" in own else ", or compare with it: `gpulens gate CANDIDATE "
                                       f"--baseline {p}`" if own.startswith("a gpulens baseline,") else ""))
    what = "gzip-compressed, but what it holds is not" if raw.compressed else "not"
    raise UnknownFormatError(p, f"{what} a recognised trace format — gpulens reads PyTorch profiler (Kineto) "
                                "JSON, rocprof v1/v2/v3 CSV/JSON/text, rocpd and rocprof-compute outputs, Nsight "
                                "Systems SQLite/stats CSV or console text, nvprof .nvvp and Nsight Compute "
                                "CSV/.ncu-rep/text report (README: AMD inputs, NVIDIA inputs)")


def _richer_reading(p: Path, c: Collector, tl: Timeline, others: list[tuple[Path, str]], strict: bool,
                    select: Selection | None, cache: bool, workers: int | None, scheduler: Any) -> Timeline:
    """Of a folder mixing formats — ``tl``, what the folder collector ``c`` read, and the trace files ``others``
    (file, format) of other formats — the reading holding more GPU work (:func:`gpu_work_ns`: a stray
    ``*_hcc_ops_trace.txt`` beside Kineto rank files must not claim the folder and drop the ranks' kernels), with a
    warning naming what was not read. Both hold one run's records twice when they are one run in two formats, so
    they are not joined."""
    try:
        alt = _collect_dir(p, strict, select, cache, workers, scheduler, only={f for f, _ in others})
    except GpulensError:
        alt = None
    if alt is None or gpu_work_ns(alt) <= gpu_work_ns(tl):
        tl.meta.warnings.append(f"{p}: read by {c.name}; other trace files in the folder are not read "
                                f"(pass them as inputs of their own): {_named(others)}")
        return tl
    used = sorted({Path(s["path"]).name for s in tl.meta.sources if isinstance(s, dict) and s.get("path")}
                  | {n for s in tl.meta.sources if isinstance(s, dict) for n in s.get("files", ())})
    alt.meta.warnings.append(
        f"{p}: the folder mixes formats: read its {', '.join(sorted({fmt for _, fmt in others}))} files, which hold "
        f"the run's GPU work ({fmt_ns(gpu_work_ns(alt))} summed, against {fmt_ns(gpu_work_ns(tl))}); not read "
        f"({c.name}; pass them as an input of their own): {', '.join(used[:8])}"
        + (f" and {len(used) - 8} more" if len(used) > 8 else ""))
    return alt


def _collect_dir(p: Path, strict: bool, select: Selection | None, cache: bool, workers: int | None,
                 scheduler: Any, require_all: bool = False, only: set[Path] | None = None) -> Timeline:
    """A folder no folder collector claims, read file by file (:func:`collect`): every recognised file (``only``:
    just these of its files) read by its own collector and the results joined as ranks.

    Raises:
        UnknownFormatError: no file of the folder is a recognised trace.
        TraceFormatError: a recognised file cannot be used and ``require_all`` (or none can).
    """
    from gpulens.collectors._links import first_of_each_file, links_twice_warning
    from gpulens.collectors._parallel import file_rank, load_many
    from gpulens.collectors._ranks import (number_rankless, ranks_without_gpu_work, separate_recorded_ranks,
                                            successive_cycles)
    from gpulens.collectors._session_clock import align_capture_starts, hosts_note
    from gpulens.collectors._io import special_reason

    # by name: the order of Path comparison within one folder, without its per-comparison cost
    entries = sorted((f for f in p.iterdir() if not f.name.startswith(".") and (only is None or f in only)),
                     key=lambda f: f.name)
    found = [f for f in entries if f.is_file()]
    # a link to nothing is a file the run meant to have (a rank trace moved or not copied): never passed over
    broken = [(f, f"broken symbolic link (to {os.readlink(f)})") for f in entries
              if f.is_symlink() and not f.exists()]
    broken += [(f, special_reason(f)) for f in entries if f.exists() and not f.is_file() and not f.is_dir()]
    detected = {f: _detect(f) for f in found}  # once per file: reading heads is a third of a small file's load
    if not any(c is not None for c, _ in detected.values()):
        # rocprofv3's default layout: <output>/<hostname>/<pid>_results.db — one level down
        below = [f for d in sorted(p.iterdir()) if d.is_dir() and not d.name.startswith(".")
                 for f in sorted(d.iterdir()) if f.is_file() and not f.name.startswith(".")]
        below_detected = {f: _detect(f) for f in below}
        if any(c is not None for c, _ in below_detected.values()) or not found:
            found, detected = below, below_detected
    searched = None
    if not any(c is not None for c, _ in detected.values()):
        # nothing in the folder or one level down: rocprofv3's <host>/<pid>/… and rocprof v1's rpl_data_*/input*_results_*
        # layouts, each nested folder a folder collector claims one input (:mod:`._nested`)
        from gpulens.collectors._nested import nested_inputs

        deep, searched = nested_inputs(p)
        if deep:
            found, detected = [f for f, _ in deep], {f: (c, None) for f, c in deep}
    sniffed = {f: c for f, (c, _) in detected.items()}
    skipped = list(broken) + [(f, detected[f][1]) for f in found if sniffed[f] is None]
    # a link (or hard link) to a file already listed: its events would count twice
    files, twice = first_of_each_file([f for f in found if sniffed[f] is not None])
    if not files:
        raise UnknownFormatError(p, "directory holds no trace file gpulens recognises"
                                    + (f": {plural(len(skipped), 'file(s)')}: "
                                       f"{_listed(skipped)}" if skipped else "")
                                    + (f" ({searched.split(': ', 1)[1]})" if searched else ""))
    if select is not None and select.ranks is not None:
        named = {f: file_rank(f) for f in files}
        if not (files := [f for f in files if named[f] is None or select.wants_rank(named[f])]):
            raise TraceFormatError(p, f"no rank file matches {select.describe()} ("
                                      f"{unmatched_ranks_text(named.values(), where='directory')})")
    from gpulens.collectors._run_layouts import one_layout_per_run, one_ncu_capture

    files, same_run = one_layout_per_run(files, [sniffed[f].name for f in files])
    n_found = len(files) + len(skipped)
    labelled = []
    formats = [sniffed[f].name for f in files]
    failed, labelled_files = set(), []
    for f, got in zip(files, load_many(files, strict, select, cache, workers, scheduler, parts=True,
                                       formats=formats)):
        if isinstance(got, GpulensError):
            skipped.append((f, getattr(got, "reason", None) or str(got)))
            failed.add(f)  # recognised as a trace, then could not be read: a lost rank file
        elif got is not None:
            labelled.append((str(f.relative_to(p)), got))
            labelled_files.append(f)
            if f.is_dir():  # a nested rocprofv3 CSV folder: its JSON / rocpd copies of the same run are named
                same_run += _same_run_elsewhere(f, sniffed[f], got)
    listed = _listed(skipped)
    if skipped and (require_all or not labelled):
        raise TraceFormatError(p, f"{len(skipped)} of {n_found} files cannot be used: {listed}"
                                  + (" (--strict)" if labelled else ""))
    labelled, notes = successive_cycles(labelled)  # one worker's profiling cycles are not ranks
    labelled, ncu_notes = one_ncu_capture(labelled)  # one ncu capture exported as .ncu-rep, raw and details CSV
    notes += ncu_notes
    notes += separate_recorded_ranks(labelled)  # two files of one recorded rank are not joined
    notes += number_rankless(labelled)  # rank-less files (or one per process) must not all become rank 0
    notes += align_capture_starts(labelled)  # files whose times count from their own capture start: one time axis
    notes += hosts_note(labelled)  # per-host clocks (rocprofiler): hosts not placeable against each other
    tl = assemble([t for _, t in labelled])  # tables built once for all files
    empty = ranks_without_gpu_work([name for name, _ in labelled], tl, select)
    tl.meta.warnings = [f"{p}: {n}" for n in notes + ([empty] if empty else [])] + tl.meta.warnings
    if select is not None and select.ranks is not None:  # an unusable file of a rank not asked for is no loss
        from gpulens.collectors._parallel import _RANK_IN_NAME

        named = {f: _RANK_IN_NAME.search(f.name) for f, _ in skipped}
        skipped = [(f, why) for f, why in skipped
                   if f in failed or named[f] is None or select.wants_rank(int(named[f].group(1)))]
    read_suffixes = {_trace_suffix(r) for r in labelled_files}  # once, not once per file skipped
    lost = [(f, why) for f, why in skipped if f in failed or _rank_like(f, read_suffixes)]
    ignored = [(f, why) for f, why in skipped if (f, why) not in lost]
    tl.meta.rank_files = len(labelled) + len(lost)
    tl.meta.unread = {str(f): why for f, why in lost}
    if lost:  # the run is missing ranks: its figures are partial (the report says so at its top, JSON status)
        tl.meta.warnings.insert(0, f"{p}: {tl.meta.unread_text()}")
    if ignored:
        tl.meta.warnings.append(not_read_note(p, ignored))
    if same_run:
        tl.meta.warnings.append(f"{p}: {plural(len(same_run), 'file(s)')} not read: " + "; ".join(
            f"{f.relative_to(p)}: {why}" for f, why in same_run[:8]))
    if twice:
        tl.meta.warnings.append(links_twice_warning(p, twice))
    if searched:
        tl.meta.warnings.append(searched)
    _note_host_folders(p, tl)
    return tl


def _note_host_folders(p: Path, tl: Timeline) -> None:
    """Warn when a folder's rocprofv3 CSV files lie in several host folders (:func:`~._session_clock.host_folders_note`)."""
    from gpulens.collectors._session_clock import host_folders_note

    note = host_folders_note(p, tl.meta.sources)
    if note and not any(note in w for w in tl.meta.warnings):
        tl.meta.warnings.append(f"{p}: {note}")


def _truncated_json(data: bytes) -> bool:
    """True when ``data`` is the start of a JSON object or array that ends before its closing bracket."""
    import msgspec

    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith((b"{", b"[")):
        return False
    try:
        msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        return "truncated" in str(exc)
    return False


__all__ = ["Collector", "collect", "collect_file", "collect_parts", "registry", "sniff"]
