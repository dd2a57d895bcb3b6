"""nvprof's GPU trace as console text (``nvprof --print-gpu-trace ./app``, no ``--csv``) → a per-kernel summary.

The console prints one aligned row per kernel, copy and memset (CUDA 9.0 on a GeForce GT 650M, as published)::

    ==30176== Profiling result:
       Start  Duration            Grid Size      Block Size     Regs*    SSMem*    DSMem*      Size  Throughput  SrcMemType  DstMemType           Device   Context    Stream  Name
    182.96ms  6.4049ms                    -               -         -         -         -  38.147MB  5.8163GB/s    Pageable      Device  GeForce GT 650M         1         7  [CUDA memcpy HtoD]
    195.89ms  3.4072ms          (39063 1 1)       (256 1 1)         8        0B        0B         -           -           -           -  GeForce GT 650M         1         7  vectorAdd(float const *, float const *, float*, int) [112]

Every value carries its unit and **5 significant digits**: a start of ``182.96ms`` is known to 10 µs, ``154.623s`` to
1 ms, so the rows cannot be placed on a timeline (neighbouring kernels would overlap or leave false gaps), and the
device name is cut to the column's width (``GeForce GTX 108``). What the text does give exactly enough is each
launch's duration: the rows are summed per kernel into ``tables["kernel_summary"]`` (calls, total, mean, min, max,
each checked within the printed step), as :mod:`.nvprof_summary` reads nvprof's summary mode; copies and memsets
are counted in a warning, unified-memory records left out. The CSV form (``--csv --print-gpu-trace``), printed at
full precision, is a timeline (:mod:`.nvprof_csv`).

Columns are cut at the header's label ends (nvprof right-aligns each value under its label; ``Name`` is the rest
of the line); the correlation id nvprof appends to kernel names (``… [112]``) is taken off.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from gpulens.collectors._csvrows import header_lines
from gpulens.collectors._io import head_lines
from gpulens.collectors.base import Collector
from gpulens.collectors.nvprof_summary import _NOT_REPORTS, _RESULT_BANNER, _step, _with_unit, summary_timeline
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline
from gpulens.units import plural

_HEADER = re.compile(r"^\s*Start\s+Duration\s+Grid Size\s+Block Size\s+Regs\*.*\sName\s*$", re.ASCII)
#: the footnotes nvprof prints under the table ("Regs: Number of registers used per CUDA thread. …")
_LEGEND = re.compile(r"^(?:Regs|SSMem|DSMem|Size|Throughput|SrcMemType|DstMemType): ", re.ASCII)
_CORR_SUFFIX = re.compile(r"^(.*\S)\s+\[[0-9]+\]$", re.ASCII | re.DOTALL)


def header_at(lines: list[str]) -> int | None:
    """Index of the console GPU-trace header among ``lines``, or None."""
    return next((i for i, ln in enumerate(lines) if _HEADER.match(ln)), None)


class NvprofTraceText(Collector):
    """nvprof's ``--print-gpu-trace`` console text: per-kernel aggregates of its rows (module docstring)."""

    name = "nvprof_trace_text"
    suffixes = (".txt", ".log")
    priority = 23

    def sniff(self, path: Path, head: bytes) -> bool:
        if Path(path).suffix.lower() in _NOT_REPORTS:
            return False  # a README quoting nvprof's output is no report
        return header_at(head_lines(head)[:200]) is not None

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        """Read one console GPU trace; raises :class:`TraceFormatError` (no header, no readable row)."""
        path = Path(path)
        raw, lines, at = header_lines(path, header_at, "no nvprof --print-gpu-trace header (Start  Duration …  Name)")
        head = lines[at]
        name_at = head.rindex("Name")
        dur_end = head.index("Duration") + len("Duration")
        per: dict[str, list] = defaultdict(list)
        um = unread = 0
        for ln in lines[at + 1:]:
            if not ln.strip():
                continue
            if ln.startswith("=="):
                if _RESULT_BANNER.match(ln) or "NVPROF is profiling" in ln:
                    break  # a later run
                continue
            if _LEGEND.match(ln):
                break  # nvprof's footnotes on the starred columns end the table
            name = ln[name_at:].strip() if len(ln) > name_at else ""
            if name.startswith("[Unified Memory"):
                um += 1
                continue
            dur = ln[:dur_end].split()[-1:] if len(ln) >= dur_end else []
            ns = _with_unit(dur[0]) if dur else None
            if not name or ns is None:
                unread += 1
                continue
            m = _CORR_SUFFIX.match(name) if not name.startswith("[") else None
            per[m.group(1) if m else name].append((ns, _step(dur[0])))
        if not per:
            raise TraceFormatError(path, "no readable row under the nvprof --print-gpu-trace header")
        gpu = []
        for name, v in per.items():
            total, step = sum(x for x, _ in v), sum(s for _, s in v)
            lo, hi = min(v), max(v)
            gpu.append([name, len(v), total, round(total / len(v)), lo[0], hi[0], step, step / len(v), lo[1], hi[1]])
        more = sum(1 for ln in lines[at + 1:] if _RESULT_BANNER.match(ln))
        tl = summary_timeline(path, raw.size_bytes, gpu, more, self.name, "nvprof GPU trace (console text)",
                              "nvprof GPU traces (console text)")
        if um:
            tl.meta.warnings.insert(0, f"{path}: {plural(um, 'unified-memory record(s)')} (page migrations and "
                                       "faults) left out: not copy-engine work on a stream")
        if unread:
            tl.meta.warnings.insert(0, f"{path}: {plural(unread, 'row(s)')} without a readable duration or name not "
                                       "read")
        tl.meta.warnings.append(f"{path}: its times are printed to 5 significant digits, too coarse to place the "
                                "rows in time: record with nvprof --csv --print-gpu-trace --log-file FILE for a "
                                "timeline")
        return tl
