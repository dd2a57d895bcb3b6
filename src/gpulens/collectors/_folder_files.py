"""The files of a folder of traces that are not read, and why: gpulens's own outputs, empty or NUL-only files, known
formats gpulens does not read, and the rest ("not a recognised trace format"); which of them are the run's lost
rank files; and the one warning that names them (used by :func:`gpulens.collectors.collect` for a folder and by the
folder formats :mod:`.rocprof_v1_dir` and :mod:`.rocprofv3_csv`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpulens._inputs import hole_only
from gpulens.collectors._io import nul_only, open_error
from gpulens.collectors.base import Collector
from gpulens.units import agree, plural


#: The header of ``columns.csv`` that :func:`gpulens.export.export_tables` writes beside ``summaries.json``.
_EXPORT_COLUMNS_HEADER = b"analyzer,column,meaning,unit"


def _own_output(f: Path) -> str | None:
    """What gpulens itself wrote, when ``f`` is one of its outputs (so never a lost rank file of a folder), else
    None: a JSON report (``"tool": {"name": "gpulens"`` in its first 4 KiB), a Markdown or HTML report of
    ``analyze``, ``diff`` or ``gate``, a baseline, a baseline history, the JSON of ``gate`` or ``diff``
    (:func:`gpulens._outputs.own_output_kind`), or a file of a table export
    (``--csv`` / ``--parquet``: a ``.json``, ``.csv`` or ``.parquet`` beside a ``columns.csv`` with gpulens's header).
    Never raises."""
    from gpulens._outputs import OWN_NAMES, own_output_kind
    from gpulens.collectors._io import REPORT_HEAD, read_head

    head = read_head(f, 4096).lstrip()
    kind = own_output_kind(head)
    if kind in OWN_NAMES:  # a baseline saved into a trace folder is no lost rank file of the run
        return f"{OWN_NAMES[kind]}, not a trace"
    if head.startswith(b"{") and REPORT_HEAD.search(head):
        return "a gpulens JSON report, not a trace"
    if f.suffix.lower() in (".json", ".csv", ".parquet") and \
            read_head(f.with_name("columns.csv"), 64).startswith(_EXPORT_COLUMNS_HEADER):
        return "part of a gpulens table export (--csv / --parquet), not a trace"
    return None


def _why_unreadable(f: Path) -> str:
    """Why a file of a directory is not used: the open error, empty, gpulens's own output, or not a recognised
    format."""
    try:
        with f.open("rb") as fh:
            head = fh.read(1 << 20)
    except OSError as exc:
        return open_error(f, exc).reason
    if not head:
        return "file is empty"
    if not head.strip(b"\x00") and (zeros := len(head) if len(head) < 1 << 20 else hole_only(f)):  # or one hole
        return nul_only(zeros)
    from gpulens.collectors._hints import lfs_pointer, unsupported_format
    from gpulens.collectors._sqlite import unreadable_sqlite

    # a known profiler format gpulens does not read (.nsys-rep, PC-sampling CSV, an archive…) is named as it is
    # for the file alone, never "not a recognised trace format"
    return (lfs_pointer(f) or _own_output(f) or unreadable_sqlite(f) or unsupported_format(f)
            or "not a recognised trace format")


def _detect(f: Path) -> tuple[Collector | None, str | None]:
    """The collector that recognises the file ``f`` of a folder (:func:`sniff`), or None and why none does
    (:func:`_why_unreadable`) — from one read of its head (:func:`~._io.one_read_of_heads`), where the checks
    behind the reason would read it four times more."""
    from gpulens.collectors import sniff
    from gpulens.collectors._io import one_read_of_heads

    with one_read_of_heads():
        c = sniff(f)
        return c, None if c is not None else _why_unreadable(f)


def _trace_suffix(f: Path) -> str:
    """The format suffix of a file name, compression left aside: ``.json`` for ``rank-3.pt.trace.json.gz``."""
    suffixes = [x.lower() for x in f.suffixes]
    while suffixes and suffixes[-1] in (".gz", ".gzip"):
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _rank_like(f: Path, read_suffixes: set[str]) -> bool:
    """Whether a file of a rank directory that could not be used is one of the run's rank files (so the run is
    missing a rank: a partial result) rather than a stray non-trace file (a README, a launch script, a log): its
    name carries a rank number (``rank-7``, ``rank_7``), or it has the format suffix (``read_suffixes``: the
    :func:`_trace_suffix` of every file that was read) of the files that were read (an empty or corrupt ``.json``
    among ``.json.gz`` rank traces)."""
    from gpulens.collectors._parallel import _RANK_IN_NAME

    if _own_output(f):  # a report or export gpulens wrote into the folder (analyze DIR --json DIR/report.json)
        return False
    if _RANK_IN_NAME.search(f.name):
        return True
    return _trace_suffix(f) != "" and _trace_suffix(f) in read_suffixes


def _listed(skipped: list[tuple[Path, str]], first: int = 8) -> str:
    """The unusable files of a directory by reason: ``"a.csv, b.csv, c.csv and 36 more (why); d.json (why 2)"`` —
    every reason (up to ``first`` of them, then how many files more), each with up to 3 of its files' names."""
    groups: dict[str, list[str]] = {}
    for f, why in skipped:
        groups.setdefault(why, []).append(f.name)
    parts = [", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "") + f" ({why})"
             for why, names in list(groups.items())[:first]]
    rest = sum(len(names) for names in list(groups.values())[first:])
    return "; ".join(parts) + (f"; and {rest} more" if rest else "")


def not_read_note(folder: Path, files: list[tuple[Path, str]]) -> str:
    """The warning naming the files of ``folder`` that were not read, each with why (``files``: (file, reason)):
    one sentence for the folder of traces and for every folder format (rocprof v1 output folder...)."""
    return (f"{folder}: {plural(len(files), 'file(s)')} in the folder "
            f"{agree(len(files), 'is not a trace and was', 'are not traces and were')} not read: {_listed(files)}")


def unread_in_folder(found: dict[Path, Any]) -> list[tuple[Path, str]]:
    """The files of a folder format's ``found`` (file → the collector that sniffed it, None: none) that no collector
    recognised, each with why (:func:`_why_unreadable`: empty, unreadable, NUL bytes, not a trace format)."""
    return [(f, _why_unreadable(f)) for f, c in found.items() if c is None]
