"""rocprof v1 raw trace text (roctracer's ``*_hcc_ops_trace.txt`` + ``*_hip_api_trace.txt``) → Timeline.

``rocprof --hip-trace`` / ``--sys-trace`` first writes roctracer's text files into
``rpl_data_*/input_results_*/`` and then converts them into ``results.json`` / ``results.db`` (rocprof's
``tblextr.py``). When that conversion failed, was skipped, or only the folder was kept, these files are the whole
trace. One file per domain, each line one record (timestamps in ns on the host's monotonic clock):

* ``[<pid>_]hcc_ops_trace.txt`` — GPU work: ``BEGIN:END DEVICE:QUEUE NAME:CORRELATION_ID[:PID]``. Kind by name,
  as ``tblextr.py`` splits it: ``Copy``/``Memcpy`` → memcpy (``CopyHostToDevice`` → ``HtoD``…), ``Fill`` → memset,
  ``Marker`` (a barrier packet, no work) left out and counted, anything else a kernel. The name is read up to the
  trailing numbers (kernel names contain ``:`` and spaces).
* ``[<pid>_]hip_api_trace.txt`` / ``hsa_api_trace.txt`` — host API calls: ``BEGIN:END PID:TID CALL(ARGS)
  [kernel=NAME] :CORRELATION_ID``. The correlation id links a launch or ``hipMemcpy`` to its GPU record; the
  launch's ``numBlocks``/``dimBlocks`` give the kernel's grid and workgroup size, a copy call's ``sizeBytes`` its
  payload.
* ``begin_ts_file.txt``, ``hsa_handles.txt``, ``roctx_trace.txt``, ``async_copy_trace.txt`` are not read.

``device_id`` is the record's device number as roctracer writes it; copies get no queue (rocprof v1 writes queue 0
on copies, which is not the kernels' queue — see :mod:`gpulens.collectors.rocprof_v1_trace`). A line that does not
have its domain's shape is dropped and counted. Given one file, its siblings with the same ``<pid>_`` prefix in
the same folder are read with it; given the folder, every prefix group is read, one rank per group when there are
several (one process per GPU, as multi-process runs write them).

Format facts: roctracer's file plugin and ``tblextr.py`` (``fill_ops_db``: ``(\\d+):(\\d+) (\\d+):(\\d+) (.*)$``
then ``name:correlation``) in ROCm/rocprofiler and ROCm/roctracer.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulens.collectors._csvrows import last_line_cut
from gpulens.collectors._dispatch import Dispatches, build_timeline, merge
from gpulens.collectors._io import read_input
from gpulens.collectors._ranks import read_each
from gpulens.collectors.base import Collector
from gpulens.collectors.rocprof_v1_trace import copy_kind
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta, concat
from gpulens.units import plural

OPS_SUFFIX = "hcc_ops_trace.txt"
_PACKED = ("", ".gz", ".gzip")  # a trace file's name as written, or gzip-compressed
API_SUFFIXES = ("hip_api_trace.txt", "hsa_api_trace.txt")

#: An hcc_ops record: begin:end device:queue rest (rest = name:correlation[:pid]).
_OPS = re.compile(rb"^(\d+):(\d+) (\d+):(\d+) (.+?):(\d+)(?::(\d+))?[ \t\r]*$", re.M)
#: An API record: begin:end pid:tid call :correlation.
_API = re.compile(rb"^(\d+):(\d+) (\d+):(\d+) (.*) :(\d+)[ \t\r]*$", re.M)
_DIM = {k: re.compile(rb"%s=\{([^}]*)\}" % k) for k in (b"numBlocks", b"dimBlocks", b"gridDim", b"blockDim")}
#: (digits followed by a byte of a non-ASCII character — another script's digit, ``=12٣`` — are no number)
_XYZ = re.compile(rb"([xyz])=(\d+)(?![0-9\x80-\xff])")
_SIZE = re.compile(rb"\bsizeBytes=(\d+)(?![0-9\x80-\xff])")


def _kind(name: str) -> str | None:
    """Kind of an hcc_ops record by its name (``tblextr.py``'s split); None for a barrier marker."""
    if "Marker" in name:
        return None
    if "Copy" in name or "Memcpy" in name:
        return "memcpy"
    if "Fill" in name:
        return "memset"
    return "kernel"


def _records(data: bytes, pattern: re.Pattern) -> tuple[list[re.Match], int]:
    """The lines of ``data`` matching ``pattern`` and the count of other non-empty lines."""
    found = list(pattern.finditer(data))
    lines = sum(1 for ln in data.splitlines() if ln.strip())
    return found, lines - len(found)


def _sniff_line(head: bytes, pattern: re.Pattern) -> bool:
    first = next((ln for ln in head.splitlines()[:3] if ln.strip()), b"")
    return bool(pattern.match(first))


def _plain_name(name: str) -> str:
    """A file name without its compression suffix: ``894_hcc_ops_trace.txt.gz`` → ``894_hcc_ops_trace.txt`` (the
    content is gunzipped by :func:`~._io.read_input`, found by its magic bytes)."""
    for ext in _PACKED:
        if ext and name.endswith(ext):
            return name[: -len(ext)]
    return name


def _member(folder: Path, prefix: str, suffix: str) -> Path:
    """The file ``<prefix><suffix>`` of ``folder``, plain or gzip-compressed (``.gz``); the plain name when none is
    there."""
    for ext in _PACKED:
        p = folder / f"{prefix}{suffix}{ext}"
        if p.is_file():
            return p
    return folder / f"{prefix}{suffix}"


def group_of(path: Path) -> tuple[Path, str]:
    """(folder, prefix) of one raw trace file: ``…/894_hip_api_trace.txt`` (or ``….txt.gz``) → (``…``, ``894_``)."""
    name = _plain_name(path.name)
    for suffix in (OPS_SUFFIX, *API_SUFFIXES):
        if name.endswith(suffix):
            return path.parent, name[: -len(suffix)]
    return path.parent, ""


def _groups(folder: Path) -> list[str]:
    """Prefixes of the hcc_ops files (plain or ``.gz``) in ``folder`` (sorted, each once)."""
    return sorted({_plain_name(f.name)[: -len(OPS_SUFFIX)] for f in folder.iterdir()
                   if _plain_name(f.name).endswith(OPS_SUFFIX) and f.is_file()})


class RocprofV1Text(Collector):
    """rocprof v1 / roctracer raw trace text (see module docstring)."""

    name = "rocprof_v1_text"
    suffixes = (OPS_SUFFIX, *API_SUFFIXES)
    priority = 16
    accepts_dirs = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if path.is_dir():
            try:
                return bool(_groups(path))
            except OSError:
                return False
        name = _plain_name(path.name)
        if name.endswith(OPS_SUFFIX):
            return _sniff_line(head, _OPS)
        if name.endswith(API_SUFFIXES):
            return _sniff_line(head, _API)
        return False

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        if path.is_dir():
            groups = [(path, g) for g in _groups(path)]
        else:
            groups = [group_of(path)]
        # one process whose files cannot be read (an empty ops trace beside the others'): the rest, partial
        parts, unread = read_each([(rank, g) for rank, g in enumerate(groups)],
                                  lambda r: self._group(*r[1], r[0] if len(groups) > 1 else 0, path))
        tl = parts[0] if len(parts) == 1 else concat(parts)
        if unread:
            tl.meta.unread, tl.meta.rank_files = unread, len(groups)
            tl.meta.warnings.insert(0, f"{path}: {tl.meta.unread_text()}")
        return tl

    def _group(self, folder: Path, prefix: str, rank: int, given: Path) -> Timeline:
        warnings: list[str] = []
        files: list[str] = []
        ops_path = _member(folder, prefix, OPS_SUFFIX)
        api: dict[int, bytes] = {}  # correlation id → the call text of launches and copies
        parts: list[Dispatches] = []
        size = 0
        for suffix in API_SUFFIXES:
            p = _member(folder, prefix, suffix)
            if not p.is_file():
                continue
            raw = read_input(p)
            size += raw.size_bytes
            files.append(p.name)
            recs, bad = _records(raw.data, _API)
            cut = last_line_cut(p, raw.data, lambda ln: bool(_API.match(ln)))
            if cut is not None:  # the cut line is not a record (not counted as malformed): partial result
                warnings.append(cut)
                bad -= 1
            if bad:
                warnings.append(f"{p}: {plural(bad, 'line(s)')} dropped (not `begin:end pid:tid call :correlation`)")
            d = Dispatches(n=len(recs))
            calls = [m.group(5) for m in recs]
            d.cols.update(
                kind="runtime", device_id=[-1] * len(recs),
                name=[c.split(b"(", 1)[0].strip().decode("utf-8", "replace") for c in calls],
                start_ns=[int(m.group(1)) for m in recs], end_ns=[int(m.group(2)) for m in recs],
                pid=[int(m.group(3)) for m in recs], tid=[int(m.group(4)) for m in recs],
                correlation_id=[int(m.group(6)) for m in recs])
            parts.append(d)
            for m, c in zip(recs, calls):
                if b"numBlocks=" in c or b"gridDim=" in c or b"sizeBytes=" in c:
                    api[int(m.group(6))] = c
        if ops_path.is_file():
            raw = read_input(ops_path)
            size += raw.size_bytes
            files.insert(0, ops_path.name)
            recs, bad = _records(raw.data, _OPS)
            cut = last_line_cut(ops_path, raw.data, lambda ln: bool(_OPS.match(ln)))
            if cut is not None:
                warnings.append(cut)
                bad -= 1
            if bad:
                warnings.append(f"{ops_path}: {plural(bad, 'line(s)')} dropped (not `begin:end device:queue "
                                f"name:correlation`)")
            names = [m.group(5).decode("utf-8", "replace").strip() for m in recs]
            kinds = [_kind(n) for n in names]
            markers = kinds.count(None)
            if markers:
                warnings.append(f"{ops_path}: {plural(markers, 'barrier marker record(s)')} left out (no GPU work)")
            keep = [i for i, k in enumerate(kinds) if k is not None]
            recs, names, kinds = [recs[i] for i in keep], [names[i] for i in keep], [kinds[i] for i in keep]
            corr = [int(m.group(6)) for m in recs]
            d = Dispatches(n=len(recs))
            d.cols.update(
                kind=kinds, name=names, start_ns=[int(m.group(1)) for m in recs],
                end_ns=[int(m.group(2)) for m in recs], device_id=[int(m.group(3)) for m in recs],
                stream_id=[int(m.group(4)) if k == "kernel" else None for m, k in zip(recs, kinds)],
                pid=[int(m.group(7)) if m.group(7) else None for m in recs], correlation_id=corr,
                copy_kind=[copy_kind(n) if k == "memcpy" else None for n, k in zip(names, kinds)])
            launch = [api.get(c, b"") if k == "kernel" else b"" for c, k in zip(corr, kinds)]
            grid = [_dims(c, b"numBlocks", b"gridDim") for c in launch]
            block = [_dims(c, b"dimBlocks", b"blockDim") for c in launch]
            for i, axis in enumerate("xyz"):
                d.cols[f"block_{axis}"] = [b[i] if b else None for b in block]
                # HIP launches give the grid in blocks; Dispatches takes work-items (rocprof's convention)
                d.cols[f"grid_items_{axis}"] = [g[i] * b[i] if g and b else None for g, b in zip(grid, block)]
            d.cols["bytes"] = [_size(api.get(c, b"")) if k == "memcpy" else None for c, k in zip(corr, kinds)]
            parts.insert(0, d)
        if not parts:
            raise TraceFormatError(given, f"no {OPS_SUFFIX} or API trace beside it")
        meta = TimelineMeta(sources=[{"path": str(folder / prefix) if prefix else str(folder),
                                      "collector": self.name, "size_bytes": size, "rank": rank, "files": files}])
        if not ops_path.is_file():
            warnings.append(f"{folder}: no {prefix}{OPS_SUFFIX} beside the API trace: host calls only")
        return build_timeline(merge(parts), self.name, given, rank=rank, meta=meta, warnings=warnings)


def _dims(call: bytes, *keys: bytes) -> tuple[int, int, int] | None:
    """``{z=16, y=64, x=16}`` after the first of ``keys`` in a launch call → (x, y, z); None when absent."""
    for k in keys:
        m = _DIM[k].search(call)
        if m:
            got = {a.decode(): int(v) for a, v in _XYZ.findall(m.group(1))}
            if "x" in got:
                return got["x"], got.get("y", 1), got.get("z", 1)
    return None


def _size(call: bytes) -> int | None:
    m = _SIZE.search(call)
    return int(m.group(1)) if m else None


__all__ = ["RocprofV1Text", "group_of"]
