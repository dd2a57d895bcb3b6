"""``rocpd summary`` console output (ROCm 7's rocpd tool, ``rocpd summary -i run_results.db``) → per-kernel summary.

rocpd prints each summary as a section: a line ``KERNELS_SUMMARY:``, then a pandas-style text table whose columns are
right-aligned and separated by blanks — ``Name  Calls  DURATION (nsec)  AVERAGE (nsec)  PERCENT (INC)  MIN (nsec)
MAX (nsec)  STD_DEV`` (the column names of rocprofiler-sdk's ``rocpd`` summary views), one row per kernel name, up
to a blank line or the next section (``KERNELS_SUMMARY_BY_RANK:``, which adds ``ProcessID``/``Hostname`` columns
and is not read). Users save it to a file (amd/HPCTrainingExamples ``Rocprofv3/rocpd/README.md`` prints it for an
MI300A OpenMP Jacobi run).

The ``KERNELS_SUMMARY`` table is rewritten as the ``*_stats.csv`` summary rocprof writes (``Name, Calls,
TotalDurationNs, AverageNs, Percentage, MinNs, MaxNs, StdDev``: the same figures under rocprof's names, ns) and read
by :class:`~gpulens.collectors.rocprof_v1.RocprofStats`: no events, ``tables["rocprof_stats"]``. A row's numbers are
its last fields (a kernel name holds blanks: ``NormKernel1(int, double, …)``); a row with fewer fields than the
header's numbers is kept as it stands, for the stats reader to skip and count. Only ns (``(nsec)``) columns are read.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from gpulens.collectors._io import head_text
from gpulens.collectors.rocprof_v1 import RocprofStats, read_text
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline

#: rocpd's column names → rocprof's ``*_stats.csv`` column names (the reader of those files reads the table).
COLUMNS = {"name": "Name", "calls": "Calls", "duration (nsec)": "TotalDurationNs", "average (nsec)": "AverageNs",
           "percent (inc)": "Percentage", "min (nsec)": "MinNs", "max (nsec)": "MaxNs", "std_dev": "StdDev"}
_SECTION = re.compile(r"^\s*KERNELS_SUMMARY:\s*$")
_NEXT_SECTION = re.compile(r"^\s*[A-Z][A-Z0-9_]*:\s*$")


def kernel_summary_csv(text: str) -> str | None:
    """The ``KERNELS_SUMMARY`` section of rocpd's console text as a rocprof ``*_stats.csv`` text (header + one line per
    row), or None when ``text`` has no such section with a ``Name``, ``Calls`` and ``DURATION (nsec)`` header."""
    lines = text.splitlines()
    at = next((i for i, ln in enumerate(lines) if _SECTION.match(ln)), None)
    if at is None or at + 1 >= len(lines):
        return None
    head = [h.strip().lower() for h in re.split(r"\s{2,}", lines[at + 1].strip())]
    if head[:1] != ["name"] or not {"calls", "duration (nsec)"} <= set(head) or not set(head) <= set(COLUMNS):
        return None
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow([COLUMNS[h] for h in head])
    for ln in lines[at + 2:]:
        if not ln.strip() or _NEXT_SECTION.match(ln):
            break
        cells = ln.strip().rsplit(None, len(head) - 1)
        out.writerow(cells if len(cells) < len(head) else [cells[0].strip()] + cells[1:])
    return buf.getvalue()


class RocpdSummary(RocprofStats):
    """``rocpd summary`` console text saved to a file (see module docstring). The base of the collectors that
    rewrite a profiler's own text summary as a stats CSV: a subclass sets :meth:`rewrite` and :attr:`missing`."""

    name = "rocpd_summary"
    suffixes = (".txt", ".log")
    priority = 31
    #: the error for a file without the summary :meth:`rewrite` reads
    missing = ("no rocpd KERNELS_SUMMARY section (a 'KERNELS_SUMMARY:' line, then the Name, Calls, DURATION (nsec) "
               "… header)")

    def rewrite(self, text: str, path: Path | None = None) -> str | None:
        """The summary in ``text`` as a rocprof ``*_stats.csv`` text, or None when ``text`` holds none. ``path``:
        the file being read (not only sniffed), for an error naming it when the summary holds no kernel row."""
        return kernel_summary_csv(text)

    def sniff(self, path: Path, head: bytes) -> bool:
        return self.rewrite(head_text(head)) is not None

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        text, size = read_text(path)
        table = self.rewrite(text, path)
        if table is None:
            raise TraceFormatError(path, self.missing)
        return self.from_text(path, table, size, strict, file_bytes=len(text.encode("utf-8", errors="replace")))
