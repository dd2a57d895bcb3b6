"""rocprofv2 tracer outputs (``rocprofv2 --hip-trace`` / ``--hsa-trace`` / ``--sys-trace``) → Timeline.

rocprofv2 (ROCm 5.5–6.x, ROCm/rocprofiler's v2 tool) writes its tracer records through a plugin, one output per
domain, in one of two forms (ROCm/rocprofiler ``plugin/cli/cli.cpp`` and ``plugin/file/file.cpp``,
``FlushTracerRecord``):

* the default ``cli`` plugin: ``[<pid>_]hcc_ops_trace.txt``, ``hip_api_trace.txt``, ``hsa_api_trace.txt``,
  ``async_copy_trace.txt``, ``roctx_trace.txt`` in the output folder, or everything on the program's stdout (mixed
  with the program's own lines) without one — one record per line::

    Domain(HIP_OPS_DOMAIN), Operation_Name(KernelExecution), Kernel_Name(vectoradd_float), Start_Timestamp(611510784400000), End_Timestamp(611510784450000), Correlation_ID(7)
    Domain(HIP_API_DOMAIN), Function(hipMemcpy), Start_Timestamp(…), End_Timestamp(…), Correlation_ID(4)
    Domain(HSA_OPS_DOMAIN), Operation_Name(COPY), Start_Timestamp(…), End_Timestamp(…), Correlation_ID(33)
    Domain(ROCTX_DOMAIN), Timestamp(…), ROCTX_ID(0), ROCTX_Message(…)

* ``--plugin file``: ``hcc_ops_trace_<pid>.csv`` (header ``Domain,Operation,Kernel_Name,Start_Timestamp,
  Stop_Timestamp,Correlation_ID``), ``hip_api_trace_<pid>.csv`` / ``hsa_api_trace_<pid>.csv`` (``Domain,Function,
  Start_Timestamp,End_Timestamp,Correlation_ID``; a launch row may carry its kernel name as one more field),
  ``async_copy_trace_<pid>.csv`` (``Domain,Operation,Start_Timestamp,Stop_Timestamp,Correlation_ID``); a blank line
  after the header, the operation and kernel names quoted.

Reading: ``HIP_OPS_DOMAIN`` records are GPU work, their kind by operation name as rocprof's ``tblextr.py`` splits
it (``Copy``/``Memcpy`` → memcpy with its direction, ``Fill`` → memset, ``Marker`` a barrier packet left out and
counted, anything else — ``KernelExecution`` — a kernel named by ``Kernel_Name``); ``HSA_OPS_DOMAIN`` ``COPY``
records are copies of unknown direction; ``HIP_API``/``HSA_API`` records are runtime calls on the host. Timestamps
are ns. Neither form records the device or the queue: GPU records go to device 0, and the device is "not recorded".
``ROCTX`` instants and other lines (the program's stdout) are left out and counted. Given one file, its siblings of
the same process (same ``<pid>_`` prefix or ``_<pid>.csv`` suffix) in its folder are read with it.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from gpulens.collectors._csvrows import last_line_cut
from gpulens.collectors._dispatch import Dispatches, build_timeline, merge
from gpulens.collectors._io import read_input
from gpulens.collectors._nsys_more import mark_incomplete
from gpulens.collectors.base import Collector
from gpulens.collectors.rocprof_v1_text import _kind
from gpulens.collectors.rocprof_v1_trace import copy_kind
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta, concat
from gpulens.units import plural

#: The cli plugin's record (module docstring): domain, operation or function, optional kernel name, times, id.
_CLI = re.compile(rb"^Domain\(([A-Z_]+?)_DOMAIN\),\s*(?:(?:Function|Operation_Name)\((.*?)\),\s*)?"
                  rb"(?:Kernel_Name\((.*)\),\s*)?Start_Timestamp\((\d+)\),\s*End_Timestamp\((\d+)\),\s*"
                  rb"Correlation_ID\((\d+)\)[ \t\r]*$", re.M)
_CLI_ANY = re.compile(rb"^Domain\((?:HIP_API|HIP_OPS|HSA_API|HSA_OPS|HSA_EVT|ROCTX|EXT_API)_DOMAIN\), ", re.M)
#: The file plugin's CSV headers (module docstring).
_HEADERS = (("Domain", "Operation", "Kernel_Name", "Start_Timestamp", "Stop_Timestamp", "Correlation_ID"),
            ("Domain", "Operation", "Start_Timestamp", "Stop_Timestamp", "Correlation_ID"),
            ("Domain", "Function", "Start_Timestamp", "End_Timestamp", "Correlation_ID"))
#: The per-domain outputs of one process: cli ``<pid>_<name>.txt``, file plugin ``<name>_<pid>.csv``.
_NAMES = ("hcc_ops_trace", "hip_api_trace", "hsa_api_trace", "async_copy_trace", "roctx_trace")
_CLI_FILE = re.compile(r"^(.*?)(%s)\.txt$" % "|".join(_NAMES))
_CSV_FILE = re.compile(r"^(%s)(_[^.]*)?\.csv$" % "|".join(_NAMES))


def _csv_header(head: bytes) -> tuple[str, ...] | None:
    first = head.split(b"\n", 1)[0].strip().decode("utf-8", "replace")
    cells = tuple(c.strip().strip('"') for c in first.split(","))
    return cells if cells in _HEADERS else None


def _siblings(path: Path) -> list[Path]:
    """``path`` and the other per-domain outputs of its process in its folder (module docstring), ops first."""
    m, c = _CLI_FILE.match(path.name), _CSV_FILE.match(path.name)
    if m:
        names = [f"{m.group(1)}{n}.txt" for n in _NAMES]
    elif c:
        names = [f"{n}{c.group(2) or ''}.csv" for n in _NAMES]
    else:
        return [path]
    found = [path.parent / n for n in names if (path.parent / n).is_file()]
    return found if path in found else [path, *found]


def _process_id(path: Path) -> str:
    """The process a per-domain output belongs to, from its name: ``<pid>_`` of the cli plugin's ``<pid>_…txt``,
    ``_<pid>`` of the file plugin's ``…_<pid>.csv`` ("" when the name has none)."""
    m, c = _CLI_FILE.match(path.name), _CSV_FILE.match(path.name)
    return (m.group(1).rstrip("_") if m else (c.group(2) or "").lstrip("_") if c else path.name)


def _folder_groups(folder: Path, warnings: list[str] | None = None) -> list[list[Path]]:
    """The per-process file groups of rocprofv2 tracer outputs in ``folder`` (sorted by name; a group's first file
    names it), recognised by content: a folder of roctracer's own ``*_hcc_ops_trace.txt`` is not one. A process
    written by both plugins (``<pid>_hcc_ops_trace.txt`` and ``hcc_ops_trace_<pid>.csv``) is one group — its
    records read twice were two ranks of the same kernels, every total doubled —; the other form is named in
    ``warnings``."""
    seen: set[Path] = set()
    groups, pids = [], {}
    for f in sorted(folder.iterdir()):
        if f in seen or not f.is_file() or not (_CLI_FILE.match(f.name) or _CSV_FILE.match(f.name)):
            continue
        with open(f, "rb") as fh:
            head = fh.read(8192)
        if _csv_header(head) is None and not _CLI.search(head):
            continue
        group = _siblings(f)
        seen.update(group)
        pid = _process_id(f)
        if pid and pid in pids:
            if warnings is not None:
                warnings.append(f"{folder}: {', '.join(g.name for g in group)} not read: process {pid} again (the "
                                f"other plugin's output of the same process, read from {pids[pid].name})")
            continue
        pids[pid] = f
        groups.append(group)
    return groups


class _Rows:
    """Records of one or more files, as parallel lists (domain, operation, kernel name, begin, end, id)."""

    def __init__(self) -> None:
        self.domain: list[str] = []
        self.op: list[str] = []
        self.kernel: list[str | None] = []
        self.start: list[int] = []
        self.end: list[int] = []
        self.corr: list[int] = []

    def add(self, domain: str, op: str, kernel: str | None, start: int, end: int, corr: int) -> None:
        self.domain.append(domain)
        self.op.append(op)
        self.kernel.append(kernel or None)
        self.start.append(start)
        self.end.append(end)
        self.corr.append(corr)


def _read_cli(path: Path, data: bytes, rows: _Rows, warnings: list[str]) -> None:
    recs = list(_CLI.finditer(data))
    for m in recs:
        rows.add(m.group(1).decode(), (m.group(2) or b"").decode("utf-8", "replace").strip(),
                 (m.group(3) or b"").decode("utf-8", "replace").strip(), _plain_int(m.group(4)),
                 _plain_int(m.group(5)), _plain_int(m.group(6)))
    lines = [ln for ln in data.splitlines() if ln.strip()]
    roctx = sum(1 for ln in lines if ln.startswith(b"Domain(ROCTX_DOMAIN)"))
    cut = last_line_cut(path, data, lambda ln: bool(_CLI.match(ln)) or not ln.startswith(b"Domain("))
    other = len(lines) - len(recs) - roctx - (cut is not None)
    if cut is not None:
        warnings.append(cut)
    if roctx:
        warnings.append(f"{path}: {plural(roctx, 'roctx marker record(s)')} not read (instants without a duration)")
    if other:
        warnings.append(f"{path}: {plural(other, 'line(s)')} dropped (not a rocprofv2 tracer record: the program's "
                        "own output or a damaged line)")


def _read_csv(path: Path, data: bytes, rows: _Rows, warnings: list[str]) -> None:
    text = data.decode("utf-8", "replace")
    bad = 0
    for i, row in enumerate(csv.reader(io.StringIO(text))):
        if i == 0 or not row or not any(c.strip() for c in row):
            continue
        # a field that is no plain number ("1_000", "٣٠٠٠") makes the row damage (dropped and counted), as a cli
        # record that is not of ASCII digits is no record
        start, end, corr = (_plain_int(x) for x in row[-3:]) if len(row) >= 3 else (None, None, None)
        if start is None or end is None or corr is None:
            bad += 1
            continue
        if len(row) < 5 or not row[0].endswith("_DOMAIN"):
            bad += 1
            continue
        rows.add(row[0][: -len("_DOMAIN")], row[1].strip(), row[2].strip() if len(row) > 5 else None,
                 start, end, corr)
    if bad:
        warnings.append(f"{path}: {plural(bad, 'row(s)')} dropped (not `domain,operation,…,start,end,correlation`)")


#: Stands for a field of more digits than any int64 has: rejected downstream as any value beyond int64 is (a time
#: "beyond int64 ns", an id unknown); ``int()`` of 4,301 digits raised ValueError and refused the whole file.
_BEYOND_INT64 = 1 << 64


def _plain_int(text: str | bytes) -> int | None:
    """A field of ASCII digits (surrounding spaces allowed) as an int (beyond int64: :data:`_BEYOND_INT64`), else
    None: rocprofv2 writes its times and ids as plain unsigned decimals (``FlushTracerRecord``); ``int()`` also read
    ``"1_000"``, ``"+5"`` and digits of other scripts (``"٣٠٠٠"``, full-width), which no rocprofv2 writes."""
    t = text.strip()
    if not (t.isascii() and t.isdigit()):
        return None
    return int(t) if len(t) <= 20 else _BEYOND_INT64


class RocprofV2Tracer(Collector):
    """rocprofv2 tracer records, cli text or file-plugin CSV (module docstring)."""

    name = "rocprofv2_tracer"
    suffixes = tuple(f"{n}.txt" for n in _NAMES) + tuple(f"{n}.csv" for n in _NAMES)
    priority = 15  # before roctracer's text (16) and rocprof v1's CSV (30), which share these file names
    accepts_dirs = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            try:
                return bool(_folder_groups(path))
            except OSError:
                return False
        if _csv_header(head) is not None:
            return True
        return bool(_CLI_ANY.search(head[:65536])) and bool(_CLI.search(head[:65536]))

    def sniff_further(self, path: Path) -> bool:
        """A cli-plugin stdout capture whose first record follows more than 64 KiB of the program's own output
        (start-up logs, a framework's banner: any amount of it): found by a record anywhere in the file, scanned
        in blocks of whole lines (:func:`~gpulens.collectors._io.text_lines_blocks`) up to the first."""
        from gpulens.collectors._io import text_lines_blocks

        for block in text_lines_blocks(path):
            if b"Domain(" in block and _CLI_ANY.search(block) and _CLI.search(block):
                return True
        return False

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        if not path.is_dir():
            return self._process(path, _siblings(path), 0, path)
        notes: list[str] = []
        groups = _folder_groups(path, notes)
        if not groups:
            raise TraceFormatError(path, "no rocprofv2 tracer output (hcc_ops_trace, hip_api_trace…) in the folder")
        parts = [self._process(files[0], files, rank if len(groups) > 1 else 0, path)
                 for rank, files in enumerate(groups)]
        if len(groups) > 1:  # rocprofv2 records no rank: the processes are numbered, as rank files without one are
            notes.append(f"{path}: {len(groups)} processes' outputs read as ranks 0–{len(groups) - 1} in the order "
                         "of their file names (rocprofv2 records no rank): "
                         + ", ".join(f"rank {r} = {g[0].name}" for r, g in enumerate(groups[:8])))
        tl = parts[0] if len(parts) == 1 else concat(parts)
        tl.meta.warnings.extend(notes)
        return tl

    def _process(self, path: Path, siblings: list[Path], rank: int, given: Path) -> Timeline:
        """The Timeline of one process's outputs ``siblings`` (``path`` names it in warnings)."""
        rows, warnings, files, size = _Rows(), [], [], 0
        for p in siblings:
            raw = read_input(p)
            size += raw.size_bytes
            files.append(p.name)
            if _csv_header(raw.data[:4096]) is not None:
                _read_csv(p, raw.data, rows, warnings)
            else:
                _read_cli(p, raw.data, rows, warnings)
        if not rows.start:
            raise TraceFormatError(path, "no rocprofv2 tracer record (`Domain(…_DOMAIN), …, Start_Timestamp(…), "
                                         "End_Timestamp(…), Correlation_ID(…)` or the file plugin's CSV rows)")
        gpu, host = [], []
        for i, dom in enumerate(rows.domain):
            (gpu if dom in ("HIP_OPS", "HSA_OPS") else host if dom in ("HIP_API", "HSA_API") else []).append(i)
        kinds = [_kind(rows.op[i]) if rows.domain[i] == "HIP_OPS" else "memcpy" for i in gpu]
        markers = kinds.count(None)
        if markers:
            warnings.append(f"{path}: {plural(markers, 'barrier marker record(s)')} left out (no GPU work)")
        keep = [(i, k) for i, k in zip(gpu, kinds) if k is not None]
        parts = []
        if keep:
            d = Dispatches(n=len(keep))
            d.cols.update(
                kind=[k for _, k in keep],
                name=[(rows.kernel[i] or rows.op[i]) if k == "kernel" else rows.op[i] for i, k in keep],
                start_ns=[rows.start[i] for i, _ in keep], end_ns=[rows.end[i] for i, _ in keep],
                correlation_id=[rows.corr[i] for i, _ in keep],
                copy_kind=[copy_kind(rows.op[i]) if k == "memcpy" else None for i, k in keep])
            parts.append(d)
        if host:
            d = Dispatches(n=len(host))
            d.cols.update(kind="runtime", device_id=[-1] * len(host), name=[rows.op[i] for i in host],
                          start_ns=[rows.start[i] for i in host], end_ns=[rows.end[i] for i in host],
                          correlation_id=[rows.corr[i] for i in host])
            parts.append(d)
        if not parts:
            raise TraceFormatError(path, "rocprofv2 tracer records of no GPU operation or API call")
        meta = TimelineMeta(sources=[{"path": str(path), "collector": self.name, "size_bytes": size, "rank": rank,
                                      "files": files}])
        tl = build_timeline(merge(parts), self.name, given, rank=rank, meta=meta, warnings=warnings)
        # launch calls and no GPU record: the GPU side was not traced, not idle (the API domain alone was asked for)
        mark_incomplete(tl, path, "the input holds no HIP_OPS record (no hcc_ops_trace)",
                        "trace the GPU side too: rocprofv2 --hip-trace --hip-activity (or --sys-trace)")
        return tl


__all__ = ["RocprofV2Tracer"]
