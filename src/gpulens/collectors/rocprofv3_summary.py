"""``rocprofv3 --summary`` output (``-S``; stdout, or the ``--summary-output-file`` text) → per-kernel summary.

rocprofiler-sdk's tool prints each summary as a title line ``ROCPROFV3 SUMMARY:`` (every traced domain together) or
``ROCPROFV3 KERNEL_DISPATCH SUMMARY:`` (``--summary-per-domain``), then a Markdown-style table::

    |  NAME  |  DOMAIN  |  CALLS  | DURATION (nsec) | AVERAGE (nsec) | PERCENT (INC) | MIN (nsec) | MAX (nsec) | STDDEV |
    |--------|----------|---------|-----------------|----------------|---------------|------------|------------|--------|
    | JacobiIterationKernel | KERNEL_DISPATCH | 1000 | 559668641 | 5.597e+05 | 44.019012 | 538246 | 586086 | 7.319e+03 |

one row per name (kernels, HIP/HSA calls, copies: ``DOMAIN`` says which), sorted by total duration, indented by four
blanks on stdout (source: rocprofiler-sdk ``source/lib/rocprofiler-sdk-tool/generateStats.cpp``, ``generate_stats``;
ROCm 6.2 printed only the first six columns). The unit in the headers follows ``--summary-units`` (``nsec``,
``usec``, ``msec``, ``sec``); values in another unit than ns are printed as decimals.

The kernel rows (``DOMAIN`` = ``KERNEL_DISPATCH``) of the per-domain kernel section, else of the combined section,
are rewritten as the ``*_stats.csv`` summary rocprof writes (``Name, Calls, TotalDurationNs, MinNs, MaxNs, StdDev``,
ns) and read by :class:`~gpulens.collectors.rocprof_v1.RocprofStats` (through :class:`~.rocpd_summary.RocpdSummary`): no events, ``tables["rocprof_stats"]``.
``PERCENT (INC)`` is left out (in the combined section its denominator includes the API calls' time) and so is
``AVERAGE`` (printed with four significant digits; the mean is Total / Calls). A name may hold ``|``: a row's
fields are counted from its end.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from gpulens.collectors._summary_copies import summary_copies_note
from gpulens.collectors._time_units import ns_factor
from gpulens.collectors.rocpd_summary import RocpdSummary
from gpulens.collectors.rocprof_v1 import read_text
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline
from gpulens.units import plural

_TITLE = re.compile(r"^\s*ROCPROFV3 (?:(?P<domain>[A-Z_]+) )?SUMMARY:\s*$")
_RULE = re.compile(r"^\s*\|(-+\|){3,}\s*$")
_UNIT = re.compile(r"^(?P<key>[a-z ]+?)\s*\((?P<unit>[^()]*)\)$")
#: rocprofv3's column names → rocprof's ``*_stats.csv`` column names (None: not carried over)
_COLUMNS = {"name": "Name", "domain": None, "calls": "Calls", "duration": "TotalDurationNs", "average": None,
            "percent": None, "min": "MinNs", "max": "MaxNs", "stddev": "StdDev"}
_KERNEL_DOMAIN = "KERNEL_DISPATCH"


def _section(lines: list[str]) -> int | None:
    """Index of the title of the section to read: the per-domain ``KERNEL_DISPATCH`` one, else the combined one."""
    titles = [(i, m.group("domain")) for i, ln in enumerate(lines) if (m := _TITLE.match(ln))]
    for want in (_KERNEL_DOMAIN, None):
        at = next((i for i, d in titles if d == want), None)
        if at is not None:
            return at
    return None


def _cells(line: str) -> list[str]:
    """The fields of one ``| a | b |`` line, stripped."""
    body = line.strip()
    return [c.strip() for c in body[1:-1].split("|")] if body.startswith("|") and body.endswith("|") else []


def summary_parts(text: str) -> tuple[str, int] | None:
    """The kernel rows of rocprofv3's summary in ``text`` as a rocprof ``*_stats.csv`` text, and how many rows the
    section has in all (any domain); None when ``text`` holds no ``ROCPROFV3 … SUMMARY:`` title followed by a
    header with ``NAME``, ``CALLS`` and ``DURATION (<time unit>)`` over its ``|---|`` rule."""
    lines = text.splitlines()
    at = _section(lines)
    if at is None:
        return None
    head_at = next((j for j in range(at + 1, min(at + 4, len(lines))) if lines[j].strip()), None)
    if head_at is None or head_at + 1 >= len(lines) or not _RULE.match(lines[head_at + 1]):
        return None
    keys, factors = [], []
    for h in _cells(lines[head_at]):
        m = _UNIT.match(h.lower())
        key = (m.group("key") if m else h.lower()).strip()
        keys.append(key.split()[0] if key else key)
        factors.append(ns_factor(m.group("unit")) if m else None)
    if not {"name", "calls", "duration"} <= set(keys) or not set(keys) <= set(_COLUMNS) or keys[0] != "name":
        return None
    if factors[keys.index("duration")] is None:
        return None
    keep = [i for i, k in enumerate(keys) if _COLUMNS[k] and (k in ("name", "calls") or factors[i] or k == "stddev")]
    # STDDEV's header has no unit: it is printed in the summary's unit (the DURATION column's)
    factors = [factors[keys.index("duration")] if k == "stddev" else f for k, f in zip(keys, factors)]
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow([_COLUMNS[keys[i]] for i in keep])
    rows = 0
    for ln in lines[head_at + 2:]:
        cells = _cells(ln)
        if not cells:
            break
        rows += 1
        if len(cells) > len(keys):  # a name holding '|': the fields after it are the last ones
            cells = ["|".join(cells[:len(cells) - len(keys) + 1])] + cells[len(cells) - len(keys) + 1:]
        if len(cells) < len(keys):
            out.writerow(cells[:1])  # too few fields: kept for the stats reader to skip and count
            continue
        if "domain" in keys and cells[keys.index("domain")] != _KERNEL_DOMAIN:
            continue
        out.writerow([_ns(cells[i], factors[i], whole=keys[i] != "stddev") if factors[i] else cells[i]
                      for i in keep])
    return buf.getvalue(), rows


def copy_rows(text: str) -> tuple[int, int, float] | None:
    """The ``MEMORY_COPY`` rows of rocprofv3's summary in ``text``: (names, calls, summed duration in ns), from the
    per-domain ``MEMORY_COPY`` section when there is one, else from the combined section; None when neither holds a
    copy row. The kernel figures never include them (a copy is no kernel); a summary records no copy size."""
    lines = text.splitlines()
    titles = [(i, m.group("domain")) for i, ln in enumerate(lines) if (m := _TITLE.match(ln))]
    for want in ("MEMORY_COPY", None):
        at = next((i for i, d in titles if d == want), None)
        if at is None or at + 2 >= len(lines):
            continue
        keys = [(h.split("(")[0].strip().lower().split() or [""])[0] for h in _cells(lines[at + 2])]
        unit = _UNIT.match(next((h.lower() for h in _cells(lines[at + 2]) if h.lower().startswith("duration")), ""))
        if not {"name", "domain", "calls", "duration"} <= set(keys) or unit is None or ns_factor(unit.group("unit")) \
                is None:
            continue
        names = calls = 0
        total = 0.0
        for ln in lines[at + 4:]:
            cells = _cells(ln)
            if len(cells) != len(keys):
                break
            if cells[keys.index("domain")] != "MEMORY_COPY":
                continue
            try:
                c, t = int(cells[keys.index("calls")]), float(cells[keys.index("duration")])
            except ValueError:
                continue
            names, calls, total = names + 1, calls + c, total + t * ns_factor(unit.group("unit"))
        if names:
            return names, calls, total
    return None


def _ns(text: str, factor: float, whole: bool) -> str:
    """A printed time in the summary's unit as ns (rounded to whole ns when ``whole``); the text as it is when it is
    no number (the stats reader drops that row and counts it)."""
    try:
        v = float(text) * factor
    except ValueError:
        return text
    return str(round(v)) if whole and v == v and abs(v) != float("inf") else repr(v)


class RocprofV3Summary(RocpdSummary):
    """``rocprofv3 --summary`` text saved to a file (see module docstring)."""

    name = "rocprofv3_summary"
    missing = ("no rocprofv3 summary table (a 'ROCPROFV3 SUMMARY:' line, then the | NAME | DOMAIN | CALLS | "
               "DURATION (nsec) | … header and its |---| rule)")

    def rewrite(self, text: str, path: Path | None = None) -> str | None:
        parts = summary_parts(text)
        if parts is None:
            return None
        table, rows = parts
        if path is not None and table.count("\n") < 2:
            raise TraceFormatError(path, f"the rocprofv3 summary has no {_KERNEL_DOMAIN} row (its "
                                         f"{plural(rows, 'row')} are API calls or copies): no kernel was traced — "
                                         "run rocprofv3 with --kernel-trace as well as --summary")
        return table

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        tl = super().collect(path, strict)
        copies = copy_rows(read_text(Path(path))[0])
        if copies:
            names, calls, total = copies
            tl.meta.warnings.append(summary_copies_note(path, calls, 0, total, names, "MEMORY_COPY"))
        return tl
