"""nvprof's summary mode (``nvprof ./app``, its default) → a per-kernel summary, no timeline: the CSV
(``nvprof --csv``) and the console report saved to a file.

nvprof (CUDA 9–11) writes one table for GPU activities and API calls, the row type in the first column::

    ==1234== Profiling result:
    "Type","Time(%)","Time","Calls","Avg","Min","Max","Name"
    ,%,ms,,us,us,ms,
    "GPU activities",62.5,12.5,100,125.0,120.0,0.2,"k(float*)"
    "GPU activities",37.5,7.5,2,3750.0,3000.0,4.5,"[CUDA memcpy HtoD]"
    "API calls",90.0,300.0,5,…,"cudaMalloc"

(NVIDIA, *Profiler User's Guide*, "nvprof: Summary Mode" and "CSV"). CUDA 8 and older nvprof print no ``Type``
column: the GPU table first, then ``==PID== API calls:`` and the API table — read up to that line.

The console report (``nvprof ./app 2> prof.txt``; CUDA 9+; CUDA 10.1 on a GTX 1660 SUPER, as tutorials publish it)::

    ==9061== Profiling result:
                Type  Time(%)      Time     Calls       Avg       Min       Max  Name
     GPU activities:   87.52%  52.764ms         9  5.8626ms  5.7580ms  6.3870ms  [CUDA memcpy HtoD]
                        4.06%  2.4481ms         1  2.4481ms  2.4481ms  2.4481ms  reduceNeighbored(int*, int*, unsigned int)
          API calls:   55.91%  128.94ms         2  64.470ms  75.385us  128.86ms  cudaMalloc

prints each time with its unit and 5 significant digits (``2.4481ms``): the statistics are checked against each
other within that printed step. The same text saved with commas (``47.79%,542.36ms,45,12.052ms,…``) is read too.
A log holding several runs' reports is read for the first one, and a warning counts the others. Files named as
documents or sources (``.md``, ``.ipynb``, ``.py``, …) that quote such output are not claimed.

* the CSV's row under the header is each column's **unit** (``Time``, ``Avg``, ``Min`` and ``Max`` may each have another:
  ``s``/``ms``/``us``/``ns``); a time column without a known unit is refused;
* kernel rows become ``tables["kernel_summary"]`` (:data:`gpulens.collectors.nsys_stats.SUMMARY_COLUMNS`:
  ``calls``, ``total_ns``, ``mean_ns``, ``min_ns``, ``max_ns``; no median or standard deviation), ``time_pct``
  recomputed as the share of the summed kernel time (nvprof's ``Time(%)`` is a share of all GPU activities, copies
  included — one definition for every summary gpulens reads);
* copy and memset rows (``[CUDA memcpy …]``, ``[CUDA memset]``) are counted in a warning and kept out of the kernel
  figures; API rows are not read.

This is an aggregate: span, busy time and overlap are unknown.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd

from gpulens.collectors._csvrows import header_lines
from gpulens.collectors._io import head_lines
from gpulens.collectors._nsys_stat_checks import blank_impossible_statistics
from gpulens.collectors._numbers import exact_int
from gpulens.collectors._summary_copies import summary_copies_note
from gpulens.collectors.base import Collector
from gpulens.collectors.nsys_stats import SUMMARY_COLUMNS
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.units import plural

_HEADER = re.compile(r'^(?:"Type",)?"Time\(%\)","Time","Calls","Avg","Min","Max","Name"\s*$', re.ASCII)
#: the console report's header (``nvprof ./app``, CUDA 9+ with ``Type``), or that text saved as CSV by hand
_TEXT_HEADER = re.compile(r"^\s*(?:Type[\s,]+)?Time\(%\)[\s,]+Time[\s,]+Calls[\s,]+Avg[\s,]+Min[\s,]+Max[\s,]+Name\s*$",
                          re.ASCII)
#: a value with its unit attached, as the console report prints it (``542.36ms``, ``960ns``, ``47.79%``)
_WITH_UNIT = re.compile(r"^([0-9.]+(?:[eE][-+]?[0-9]+)?)(s|ms|us|\u00b5s|ns|%)?$", re.ASCII)
_RESULT_BANNER = re.compile(r"^==\d+== Profiling result:", re.ASCII)
_GPU_TYPE = re.compile(r"^\s*GPU activities:\s*", re.ASCII)
#: the sections after the GPU table: API calls, OpenACC / OS runtime, unified memory, NVTX
_NEXT_SECTION = re.compile(r"^\s*(?:API calls:|OpenACC|OS runtime|Unified Memory|Device \"|NVTX|==\d+== (?!Profiling result))",
                           re.ASCII)
_SCALE = {"s": 9, "ms": 6, "us": 3, "ns": 0}
#: documents and sources that quote nvprof's output (a tutorial's README): never read as a report
_NOT_REPORTS = frozenset((".md", ".rst", ".html", ".htm", ".ipynb", ".py", ".c", ".cc", ".cpp", ".cu", ".h", ".tex"))
_STATS = {"Time": "total_ns", "Avg": "mean_ns", "Min": "min_ns", "Max": "max_ns"}


def header_at(lines: list[str]) -> int | None:
    """Index of the summary header (with or without ``"Type"``) among ``lines``, or None."""
    return next((i for i, ln in enumerate(lines) if _HEADER.match(ln) or _TEXT_HEADER.match(ln)), None)


def _text_rows(lines: list[str]) -> list[list[str]]:
    """The GPU table of nvprof's console report (or that text saved with commas) as rows of ``[pct, time, calls,
    avg, min, max, name]`` cells with their units attached: from the line after the header to the next section
    (``API calls:``, unified memory, …). The name is the rest of the line (it holds spaces and commas)."""
    out = []
    for ln in lines:
        if not ln.strip():
            continue
        if _NEXT_SECTION.match(ln):
            break
        if ln.lstrip().startswith("="):
            continue  # nvprof's notes (======== Warning: …)
        body = _GPU_TYPE.sub("", ln).strip()
        parts = body.split(",", 6) if "," in body.split(None, 1)[0] else body.split(None, 6)
        if len(parts) == 7 and _WITH_UNIT.match(parts[1].strip()):
            out.append([p.strip() for p in parts])
    return out


def _with_unit(text: str, unit: str | None = None) -> int | None:
    """A time cell in ns: ``542.36ms`` (its own unit) or a number in ``unit`` (the units row's); None when not one."""
    m = _WITH_UNIT.match(text.strip().strip('"'))
    if not m:
        return None
    u = m.group(2) or unit
    u = "us" if u == "\u00b5s" else u
    return exact_int(m.group(1), scale=_SCALE[u]) if u in _SCALE else None


def _step(text: str, unit: str | None = None) -> float:
    """The printed step of a time cell in ns (``12.052ms``: 1,000 ns; ``960ns``: 1 ns), 0 when it is no number —
    the console report prints 5 significant digits, so Avg × Calls and Time agree only to that step."""
    m = _WITH_UNIT.match(text.strip().strip('"'))
    if not m:
        return 0.0
    u = "us" if (m.group(2) or unit) == "\u00b5s" else (m.group(2) or unit)
    mant = m.group(1).lower().split("e")[0]
    places = len(mant.split(".")[1]) if "." in mant else 0
    return 10.0 ** (_SCALE.get(u, 0) - places) if u in _SCALE else 0.0


def _csv_rows(path: Path, lines: list[str], at: int) -> list[list]:
    """The GPU-activity rows of the CSV layout as ``[name, calls, total, avg, min, max]`` (times in ns by the units
    row; None where a cell is no number), then the four times' printed steps in ns. Raises :class:`TraceFormatError` without a units row or a time unit."""
    header = next(csv.reader([lines[at]]))
    col = {h: i for i, h in enumerate(header)}
    body = []
    for ln in lines[at + 1:]:
        if ln.startswith("=="):
            if "API calls" in ln or "Profiling result" in ln:
                break  # CUDA ≤ 8: the API table follows its own banner
            continue
        if ln.strip():
            body.append(ln)
    rows = [r for r in csv.reader(io.StringIO("\n".join(body), newline="")) if len(r) == len(header)]
    if not rows or any(exact_int(x) is not None for x in rows[0][1:]):
        raise TraceFormatError(path, "no units row under the nvprof summary header (,%,ms,,…): its times cannot be "
                                     "read")
    units = {h: rows[0][i].strip().lower() for h, i in col.items()}
    bad = [h for h in _STATS if units.get(h) not in _SCALE]
    if bad:
        raise TraceFormatError(path, f"the column {bad[0]!r} has no time unit gpulens knows (s, ms, us, ns): "
                                     f"{units.get(bad[0])!r}")
    return [[r[col["Name"]], exact_int(r[col["Calls"]]), *(_with_unit(r[col[h]], units[h]) for h in _STATS),
             *(_step(r[col[h]], units[h]) for h in _STATS)]
            for r in rows[1:] if "Type" not in col or r[col["Type"]].strip() == "GPU activities"]


class NvprofSummary(Collector):
    """nvprof's summary CSV (``nvprof --csv``): per-kernel aggregates (module docstring)."""

    name = "nvprof_summary"
    suffixes = (".csv", ".txt", ".log")
    priority = 23

    def sniff(self, path: Path, head: bytes) -> bool:
        if Path(path).suffix.lower() in _NOT_REPORTS:
            return False  # a README or notebook quoting nvprof's output is no report
        return header_at(head_lines(head)[:200]) is not None

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        """Read one summary; raises :class:`TraceFormatError` (no header, no units row, a time column without a
        time unit, no GPU activity row)."""
        path = Path(path)
        raw, lines, at = header_lines(path, header_at, 'no nvprof summary header ("Time(%)","Time",…,"Name")')
        if _HEADER.match(lines[at]):
            gpu = _csv_rows(path, lines, at)  # [name, calls, total, avg, min, max] in ns
        else:
            gpu = [[r[6], exact_int(r[2]), *(_with_unit(r[i]) for i in (1, 3, 4, 5)), *(_step(r[i]) for i in (1, 3, 4, 5))]
                   for r in _text_rows(lines[at + 1:])]
        if not gpu:
            raise TraceFormatError(path, "no GPU activity row in the nvprof summary (API calls only)")
        more = sum(1 for ln in lines[at + 1:] if _RESULT_BANNER.match(ln))  # one per later run (not CUDA 8's API table)
        return summary_timeline(path, raw.size_bytes, gpu, more, self.name, "nvprof summary", "nvprof summaries")


def summary_timeline(path: Path, size_bytes: int, gpu: list[list], more: int, collector: str, what: str,
                     whats: str) -> Timeline:
    """The Timeline of an nvprof GPU-activity aggregate: ``gpu`` rows ``[name, calls, total, avg, min, max, step of
    total, avg, min, max]`` (ns) → ``tables["kernel_summary"]``, copy/memset rows counted in a warning, ``more``
    later runs in the file counted; ``what`` (plural ``whats``) names the input in the warnings."""
    copy = [str(r[0]).startswith(("[CUDA memcpy", "[CUDA memset")) for r in gpu]
    kern = [r for r, c in zip(gpu, copy) if not c]
    table = pd.DataFrame({"name": [r[0] for r in kern]})
    for i, c in enumerate(("calls", "total_ns", "mean_ns", "min_ns", "max_ns"), start=1):
        table[c] = pd.array([r[i] for r in kern], dtype="Int64")
    for i, c in enumerate(_STATS.values(), start=6):
        table[f"step:{c}"] = [r[i] for r in kern]
    warnings = []
    if more:
        warnings.append(f"{path}: {plural(more, f'more {what}', f'more {whats}')} in the file (later runs) not read: "
                        "the figures are the first run's")
    ok = table["calls"].notna() & table["total_ns"].notna() & (table["calls"] > 0) & (table["total_ns"] >= 0)
    if not ok.all():
        warnings.append(f"{path}: {plural(int((~ok).sum()), 'kernel row(s)')} dropped (missing, non-numeric or "
                        "negative Calls / Time)")
        table = table[ok.to_numpy()].reset_index(drop=True)
    table["calls"] = table["calls"].astype("int64")
    table["total_ns"] = table["total_ns"].astype("int64")
    for c in ("mean_ns", "min_ns", "max_ns", "median_ns", "stddev_ns"):
        table[c] = table[c].astype("float64") if c in table else float("nan")
    total = float(table["total_ns"].sum())
    table["time_pct"] = table["total_ns"] / total * 100 if total > 0 else float("nan")
    steps = [c for c in table.columns if str(c).startswith("step:")]
    table = table[list(SUMMARY_COLUMNS) + steps]
    blank_impossible_statistics(table, path, warnings)
    table = table.drop(columns=steps)
    if any(copy):
        cp = [r for r, c in zip(gpu, copy) if c]
        fills = sum(r[1] or 0 for r in cp if str(r[0]).startswith("[CUDA memset"))
        calls = sum(r[1] or 0 for r in cp)
        warnings.append(summary_copies_note(path, calls - fills, fills, sum(r[2] or 0 for r in cp), len(cp),
                                            "GPU activities"))
    meta = TimelineMeta(sources=[{"path": str(path), "collector": collector, "size_bytes": size_bytes,
                                  "rank": 0, "aggregate": True}],
                        warnings=[*warnings, f"{path}: {what}: per-kernel aggregates only, no timeline (span, busy "
                                             "time and overlap are unknown)"])
    return Timeline(meta=meta, tables={"kernel_summary": table}).validate()
