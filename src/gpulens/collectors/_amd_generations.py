"""A folder holding the outputs of both rocprof generations: rocprof v1 (``results.csv``, ``results.db``,
``results.json``, counter-pass CSVs, ``results.sysinfo.txt``) and rocprofv3 / rocprofiler-sdk (``kernel_trace.csv``
and the other domain CSVs, ``*_results.json``, rocpd ``*.db``).

The two tools never write into one run: such a folder holds two runs (the program profiled twice), and nothing in
the files says whether they are the same workload. Reading one and passing over the other would describe a run the
user may not have meant, so the folder is refused with a one-line error naming both sets and asking for one;
``--lenient`` (``strict=False``) reads the run the folder's layout belongs to and warns naming every file left out.
"""

from __future__ import annotations

from pathlib import Path

from gpulens.errors import TraceFormatError
from gpulens.units import plural

#: Collector names of each generation's trace files (stats summaries are left out: rocprofv3 writes
#: ``*_stats.csv`` in the v1 stats layout too, so they tell neither generation).
V1 = ("rocprof_v1", "rocprof_v1_db", "rocprof_v1_json", "rocminfo")
V3 = ("rocprofv3_csv", "rocprofv3_json", "rocpd")
_LABEL = {"v1": "rocprof v1", "v3": "rocprofv3"}


def _names(files: list[Path], first: int = 6) -> str:
    shown = ", ".join(f.name for f in files[:first])
    return shown + (f" and {len(files) - first} more" if len(files) > first else "")


def refuse_other_generation(path: Path, reading: str, read: list[Path], others: list[Path],
                            strict: bool) -> str | None:
    """Refuse (strict) or note (lenient) a folder read as ``reading`` (``"v1"`` or ``"v3"``) that also holds
    ``others``, trace files of the other rocprof generation.

    Args:
        path: the folder.
        reading: the generation the folder is read as.
        read: the files of that generation (named in the message).
        others: the other generation's files found beside them.
        strict: raise instead of returning the warning.

    Returns:
        None when ``others`` is empty, else the warning to add (lenient).

    Raises:
        TraceFormatError: ``others`` is not empty and ``strict``.
    """
    if not others:
        return None
    other = "v3" if reading == "v1" else "v1"
    what = (f"holds the outputs of two profiler runs: {_LABEL[reading]} ({_names(read) or 'no trace file'}) and "
            f"{_LABEL[other]} ({_names(others)})")
    if strict:
        raise TraceFormatError(path, f"{what}; pass one run: move one tool's files to a folder of their own "
                                     f"(--lenient reads the {_LABEL[reading]} run alone)")
    return f"{path}: {what}: read as the {_LABEL[reading]} run; {plural(len(others), _LABEL[other] + ' file(s)')} not read"
