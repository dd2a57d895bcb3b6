"""The warnings about a source's input as every reporter shows them: identical warnings of several files said once
(:func:`grouped_warnings`), and the one-line note beside the headline that the figures rest on a damaged or partial
input (:func:`input_note`). Nothing is computed here beyond grouping text: the warnings are the collectors' and
analyzers' (``TimelineMeta.warnings``), the data-quality findings the analyzers'.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpulens.units import plural

#: A figure inside a warning's text ("3", "3,151", "2.5"): what may differ between the same warning of two files.
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?", re.ASCII)
#: At most this many figures of a group's varying figure are listed; more are shown as "first, second, …, last".
_LISTED = 8
#: How many (grouped) warnings the console and the Markdown list under Warnings; the others are counted and named
#: as in the JSON/HTML report (every warning).
WARNINGS_SHOWN = 10


def _files_text(names: list[str]) -> str:
    """``"rank0.json..rank7.json"`` for a run of numbered names (same text around consecutive integers), else the
    names themselves — up to three whole, more as ``"a, b, …, z"``."""
    m = [re.fullmatch(r"(.*?)(\d+)(\D*)", n, re.ASCII) for n in names]
    if len(names) > 2 and all(m) and len({(x.group(1), x.group(3)) for x in m}) == 1:
        nums = [int(x.group(2)) for x in m]
        if nums == list(range(nums[0], nums[0] + len(nums))):
            return f"{names[0]}..{names[-1]}"
    return ", ".join(names) if len(names) <= 3 else f"{names[0]}, {names[1]}, …, {names[-1]}"


def _values_text(values: list[str]) -> str:
    return ", ".join(values) if len(values) <= _LISTED else f"{values[0]}, {values[1]}, …, {values[-1]}"


def grouped_warnings(meta: Any) -> list[str]:
    """``meta.warnings`` (a :class:`~gpulens.timeline.timeline.TimelineMeta`) with the same warning of several input
    files said once, in the order first recorded: a warning written ``"<input path>: <text>"`` for several of the
    source's inputs (``meta.sources``) becomes ``"<text> (in 8 files: rank0.json..rank7.json)"``. Texts that differ
    in one figure only are one warning with that figure listed per file, in the files' order
    (``"no distributedInfo; rank 0, 1, …, 7 inferred from the file name (in 8 files: …, figures in that order)"``);
    texts differing in more than one figure stay apart (each file's figures read together). A warning of one file,
    or one not naming an input, is kept whole."""
    warnings = [str(w) for w in getattr(meta, "warnings", None) or []]
    paths = sorted({str(s.get("path")) for s in getattr(meta, "sources", None) or []
                    if isinstance(s, dict) and s.get("path")}, key=len, reverse=True)
    if len(paths) < 2:
        return warnings
    names = {p: Path(p).name for p in paths}
    if len(set(names.values())) < len(paths):  # same name in two folders: the path tells them apart
        names = {p: p for p in paths}
    groups: dict[Any, list[tuple[str, str]]] = {}
    order: list[Any] = []
    for i, w in enumerate(warnings):
        path = next((p for p in paths if w.startswith(p + ": ")), None)
        key: Any = ("whole", i) if path is None else _FIGURE.sub("#", w[len(path) + 2:])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append((path or "", w if path is None else w[len(path) + 2:]))
    out = []
    for key in order:
        members = groups[key]
        files = [names.get(p, p) for p, _ in members]
        if len(members) == 1 or len(set(files)) < len(files):  # one file, or a file saying it twice: kept whole
            out += [f"{p}: {t}" if p else t for p, t in members]
            continue
        texts = [t for _, t in members]
        where = f"in {len(files)} files: {_files_text(files)}"
        if len(set(texts)) == 1:
            out.append(f"{texts[0]} ({where})")
            continue
        figures = [_FIGURE.findall(t) for t in texts]
        differ = [j for j in range(len(figures[0])) if len({f[j] for f in figures}) > 1]
        if len(differ) != 1:  # several figures differ: each file's warning whole
            out += [f"{p}: {t}" for p, t in members]
            continue
        j, spans = differ[0], list(_FIGURE.finditer(texts[0]))
        values = _values_text([f[j] for f in figures])
        out.append(f"{texts[0][:spans[j].start()]}{values}{texts[0][spans[j].end():]} ({where}; "
                   "the figures in that order)")
    return out


def input_warnings(s: Any) -> tuple[list[str], list[str]]:
    """The warnings about one source's input: (its data-quality findings of severity warning or critical — recorded
    durations clipped, runaways cut, launches without their kernel — by their titles, in ranking order; its
    recorded warnings grouped by :func:`grouped_warnings`, less the clock ones the headline's clock note already
    says). ``s`` is a :class:`~gpulens.report.SourceReport`."""
    from gpulens.analyzers._span import CLOCK_GAP_TOPIC, CLOCK_HOST_TOPIC, CLOCK_SKEW_TOPIC
    from gpulens.reports._answer import pinned, root_findings, shown_title

    found = [shown_title(f) for f in root_findings(s.findings()) if pinned(f)]
    clocks = (CLOCK_GAP_TOPIC, CLOCK_SKEW_TOPIC, CLOCK_HOST_TOPIC)
    return found, [w for w in grouped_warnings(s.timeline.meta) if not w.startswith(clocks)]


def input_note(s: Any, warnings_at: str = "Warnings") -> str:
    """One line for the headline of every reporter (console and HTML beside the verdict, Markdown under it, JSON
    ``input_note``) when the figures rest on an input with warnings: how many, the first of them (the data-quality
    findings first — they say how far the figures can be trusted —, then the recorded warnings in the order the
    collectors wrote them, the most important first), and where the others are listed; ``""`` when there are none.
    The warnings themselves stay where they were (the Warnings list, the Findings); ``warnings_at`` names that list
    where the reporter has it elsewhere (the HTML: its Environment page)."""
    found, recorded = input_warnings(s)
    items = found + recorded
    if not items:
        return ""
    other_found = len(found) - 1 if found else 0  # the first item shown is a finding when there is one
    other_recorded = len(recorded) - (0 if found else 1)
    rest = [(n, where) for n, where in ((other_found, "Findings"), (other_recorded, warnings_at)) if n]
    # "(1 more under Warnings)", "(3 more: 1 under Findings and 2 under Warnings)" — never "the other: 1 under …"
    if len(rest) == 1:
        more = f" ({rest[0][0]:,} more under {rest[0][1]})"
    else:
        more = f" ({len(items) - 1:,} more: {' and '.join(f'{n:,} under {w}' for n, w in rest)})" if rest else ""
    return f"{plural(len(items), 'warning')} about the input the figures rest on — {items[0]}{more}"


def environment_notes(meta: Any) -> list[str]:
    """Facts of the machine the run was profiled on, not faults of the input: a GPU telemetry sampler that could not
    run (a ``telemetry`` source entry with ``available`` False, written by :mod:`gpulens.profiler.session`:
    ``"telemetry unavailable: nvml: the 'nvidia-ml-py' package is not installed …"``). Every reporter lists them
    apart from the input warnings (console and Markdown "Environment", the HTML Environment page, JSON
    ``environment_notes``), and the headline's input note never counts them: ``gpulens profile`` on a CPU-only
    machine read "INPUT: 1 warning about the input the figures rest on — telemetry unavailable: …"."""
    return [f"telemetry unavailable: {s.get('reason') or 'no reason recorded'}"
            for s in getattr(meta, "sources", None) or []
            if isinstance(s, dict) and s.get("collector") == "telemetry" and not s.get("available")]


def reading_notes(meta: Any) -> list[str]:
    """How the inputs were read where nothing was lost, not faults of the input: a ``reading_notes`` list of a source
    entry (``meta.sources``), written by the collector that chose between copies of the same records — a rocprof v1
    folder's ``results.db`` beside its ``results.csv`` (``"…/results.db: kernels not added again (the same 56
    dispatches as results.csv)"``), ``results.json`` beside ``results.db``, a counter pass of the same dispatches, the
    run's ``results.sysinfo.txt``. Every reporter lists them apart from the warnings (console and Markdown "Reading
    notes", the HTML Environment page, JSON ``reading_notes``) and the headline's input note never counts them: the
    de-duplication of a rocprof v1 folder read "INPUT: 3 warnings about the input the figures rest on — …results.db:
    kernels not added again". A copy that differs from the one read stays a warning (its kernels are not counted)."""
    return [str(n) for s in getattr(meta, "sources", None) or [] if isinstance(s, dict)
            for n in (s.get("reading_notes") or []) if n]


#: The heading every reporter gives :func:`reading_notes`.
READING_NOTES_TITLE = "Reading notes (how the input files were read; nothing left out)"

#: The reading notes of the report being rendered that are said once for all its inputs (:func:`shared_notes`),
#: set by a reporter of several inputs around its per-input sections (:func:`said_once`), left out of each of them.
_SAID_ONCE: contextvars.ContextVar[frozenset] = contextvars.ContextVar("gpulens_said_once", default=frozenset())


def shared_notes(report: Any) -> list[str]:
    """The reading notes every input of a report of several inputs records, in order: a folder's note about how it
    was split into runs (:func:`gpulens._split_runs.note_split`), the same words on each run. The console and
    Markdown say them once, before the first input (:func:`said_once`); ``[]`` for one input."""
    sources = list(getattr(report, "sources", None) or [])
    if len(sources) < 2:
        return []
    each = [reading_notes(s.timeline.meta) for s in sources]
    return [n for n in dict.fromkeys(each[0]) if all(n in other for other in each[1:])]


@contextlib.contextmanager
def said_once(notes: list[str]) -> Iterator[None]:
    """Within the block, :func:`own_reading_notes` leaves ``notes`` out (said once for the whole report)."""
    token = _SAID_ONCE.set(frozenset(notes))
    try:
        yield
    finally:
        _SAID_ONCE.reset(token)


def own_reading_notes(meta: Any) -> list[str]:
    """:func:`reading_notes` less those said once for the report being rendered (:func:`said_once`)."""
    skip = _SAID_ONCE.get()
    return [n for n in reading_notes(meta) if n not in skip]

__all__ = ["READING_NOTES_TITLE", "WARNINGS_SHOWN", "environment_notes", "grouped_warnings", "input_warnings",
           "input_note", "own_reading_notes", "reading_notes", "said_once", "shared_notes"]
