"""rocprof v1 / rocprofv2 ``results.txt`` (dispatch records as text, before CSV conversion) → Timeline + Counters.

rocprof writes each kernel dispatch as one ``dispatch[N], key(value), …`` line into ``[<pid>_]results.txt``, its
counters (``pmc:`` passes) on the following lines, and converts that file into ``results.csv`` afterwards (rocprof
v1's ``tblextr.py``); rocprofv2's file plugin writes the same shape. The keys differ between releases, so the line is
read as ``key(value)`` pairs by name, never by position:

=================================  ==========================================================================
key (spellings seen)               Timeline
=================================  ==========================================================================
``kernel-name("…")``/``kernel_name``  ``name`` (the quotes hold any parentheses of a C++ signature)
``time(dispatch,begin,end,complete)`` begin → ``start_ns``, end → ``end_ns`` (ns)
``start_time(…)``, ``end_time(…)``  the same, rocprofv2
``gpu-id``/``gpu_id``              ``device_id``
``queue-id``/``queue_id``          ``stream_id``
``pid``, ``tid``                   ``pid``, ``tid``
``grd``, ``wgr``                   grid and workgroup size in work-items, flattened (x; y = z = 1)
``lds``, ``scr``                   LDS bytes per workgroup, scratch bytes per work-item
``vgpr``/``arch_vgpr``, ``accum_vgpr``, ``sgpr``, ``wave_size``  registers and wavefront size
=================================  ==========================================================================

rocprofv2's default (``cli``) plugin writes ``<pid>_results.txt`` with another record form, one line per dispatch:
``Dispatch_ID(N), GPU_ID(…), Queue_ID(…), Process_ID(…), Thread_ID(…), Grid_Size(…), Workgroup_Size(…),
LDS_Per_Workgroup(…), Scratch_Per_Workitem(…), Arch_VGPR(…), Accum_VGPR(…), SGPR(…), Wave_Size(…) (older releases:
``LDS``, ``Scratch_Size``, ``Accumulative_VGPR``),
Kernel_Name("…"), Begin_Timestamp(ns), End_Timestamp(ns), Correlation_ID(…)``, then its counters on the same line as
``NAME(value)`` pairs (ROCm/rocprofiler ``plugin/cli/cli.cpp``); its keys map like the v1 keys above, and
``Begin_Timestamp``/``End_Timestamp`` give ``start_ns``/``end_ns``.

A counter line is ``NAME (value)``, optionally after a comma (rocprofv2: ``, SQ_WAVES (4096)``), and belongs to the
dispatch above it. A dispatch without both timestamps (rocprofv2 writes only ``time(begin)`` in some releases) is
kept with its counters as an undated dispatch (rejected, counters in ``tables["unattached_counters"]``), as every AMD
collector does. Format facts: ROCm/rocprofiler ``src/tool/tool.cpp`` (v1) and ``plugin/file/file.cpp`` (v2).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from gpulens.collectors._csvrows import last_line_cut
from gpulens.collectors._dispatch import Dispatches, build_timeline
from gpulens.collectors._io import read_input
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.units import plural

_DISPATCH = re.compile(r"^dispatch\[([0-9]+)\],\s*(.*)$")
#: rocprofv2 ``cli`` plugin record: ``Dispatch_ID(N), GPU_ID(…), …`` (module docstring)
_V2_DISPATCH = re.compile(r"^Dispatch_ID\(([0-9]+)\),\s*(.*)$")
#: ``key(value)``; the key starts after a non-word character and is matched possessively, so a long run of word
#: characters without ``(`` costs one pass, not one pass per start position (quadratic on a 300 kB mangled line)
_PAIR = re.compile(r'(?<![\w-])([A-Za-z_][\w-]*+)\(("(?:[^"\\]|\\.)*+"|[^()]*+)\)')
_COUNTER = re.compile(r"^\s*,?\s*([A-Za-z_][\w\[\].:-]*)\s*\(\s*([-+0-9.eE]+|nan|inf)\s*\)\s*,?\s*$")
#: A dispatch record's start: with its kernel name, or (a file cut before the name) rocprof's fixed first fields.
_SNIFF = re.compile(rb"^(?:dispatch\[\d+\],(?:.*kernel[-_]name\(| gpu-id\(\d+\), queue-id\()"
                    rb"|Dispatch_ID\(\d+\), GPU_ID\(\d+\), Queue_ID\()", re.M)

#: key spellings → Dispatches column
_KEYS = {"gpu-id": "device_id", "gpu_id": "device_id", "queue-id": "stream_id", "queue_id": "stream_id",
         "pid": "pid", "tid": "tid", "grd": "grid_items_x", "wgr": "block_x", "lds": "lds_bytes",
         "scr": "scratch_bytes", "vgpr": "arch_vgpr", "arch_vgpr": "arch_vgpr", "accum_vgpr": "accum_vgpr",
         "sgpr": "sgpr", "wave_size": "wave_size", "start_time": "start_ns", "end_time": "end_ns",
         # rocprofv2 cli plugin
         "process_id": "pid", "thread_id": "tid", "grid_size": "grid_items_x", "workgroup_size": "block_x",
         "lds_per_workgroup": "lds_bytes", "scratch_per_workitem": "scratch_bytes", "begin_timestamp": "start_ns",
         "end_timestamp": "end_ns", "correlation_id": "correlation_id",
         # its older releases (the golden traces of ROCm/rocprofiler tests-v2)
         "scratch_size": "scratch_bytes", "accumulative_vgpr": "accum_vgpr"}
#: rocprofv2 cli plugin: the record's last fixed key; the ``NAME(value)`` pairs after it are the dispatch's counters
_V2_LAST_KEY = "correlation_id"


_ASCII_INT = re.compile(r"[-+]?[0-9]+|[-+]?0[xX][0-9a-fA-F]+")


def _int(text: str) -> int | str | None:
    """A field's integer (decimal or ``0x`` hex, ASCII digits only); None when empty; else the text itself, so that
    the value counts as recorded but unreadable downstream (a timestamp: the row is no event, counted; a size: unknown,
    counted) — ``int()`` read ``٥٠٠٠`` as 5000, and a fraction (``grd(1048576.5)``) was dropped without a word."""
    text = text.strip()
    if not text:
        return None
    if _ASCII_INT.fullmatch(text):
        return int(text, 16) if "x" in text.lower() else int(text)
    return text


class RocprofResultsTxt(Collector):
    """rocprof ``results.txt`` dispatch records (see module docstring)."""

    name = "rocprof_results_txt"
    suffixes = ("results.txt",)
    priority = 16

    def sniff(self, path: Path, head: bytes) -> bool:
        first = next((ln for ln in head.splitlines()[:5] if ln.strip()), b"")
        return bool(_SNIFF.match(first))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        raw = read_input(path)
        rows: list[dict] = []
        counters: list[dict[str, float]] = []
        stray = bad = bad_counters = 0
        text = raw.data.decode("utf-8", "replace")
        # a last line with no line end that is not a whole record (a dispatch line not closed by ")", a counter line
        # not `NAME (value)`) was cut: left out, the result marked partial
        cut = last_line_cut(path, text, lambda ln: ln.rstrip().endswith(")") if _record(ln)
                            else bool(_COUNTER.match(ln)))
        if cut is not None:
            text = text[:len(text.rstrip(" \t")) - len(text.rstrip(" \t").splitlines()[-1])]
        for line in text.splitlines():
            if not line.strip():
                continue
            m = _record(line)
            if m:
                rec: dict = {"index": int(m.group(1))}
                counters.append({})
                in_counters = False
                for key, val in _PAIR.findall(m.group(2)):
                    k = key.lower()
                    if in_counters:  # rocprofv2: NAME(value) after Correlation_ID
                        try:
                            counters[-1][key] = float(val)
                        except ValueError:
                            bad_counters += 1
                    elif k in ("kernel-name", "kernel_name"):
                        rec["name"] = val[1:-1] if val.startswith('"') and val.endswith('"') else val
                    elif k == "time":
                        parts = [_int(x) for x in val.split(",")]
                        if len(parts) >= 3:
                            rec["start_ns"], rec["end_ns"] = parts[1], parts[2]
                        elif parts:
                            rec["start_ns"] = parts[0]
                    elif k in _KEYS:
                        rec[_KEYS[k]] = _int(val)
                        in_counters = k == _V2_LAST_KEY and m.re is _V2_DISPATCH
                rows.append(rec)
                continue
            c = _COUNTER.match(line)
            if c and rows:
                try:
                    counters[-1][c.group(1)] = float(c.group(2))
                except ValueError:
                    bad += 1
            elif c:
                stray += 1
            else:
                bad += 1
        if not rows:
            raise TraceFormatError(path, "truncated: the text ends inside its first dispatch record, before any "
                                         "complete one" if cut is not None else
                                         "no `dispatch[N], …` or `Dispatch_ID(N), …` record")
        d = Dispatches(n=len(rows))
        keys = dict.fromkeys(k for r in rows for k in r if k != "index")
        for k in keys:
            d.cols[k] = [r.get(k) for r in rows]
        d.cols["kind"] = "kernel"
        names = dict.fromkeys(n for cs in counters for n in cs)
        d.pmc = {n: np.array([cs.get(n, np.nan) for cs in counters], dtype="float64") for n in names}
        warnings = [cut] if cut is not None else []
        if bad:
            warnings.append(f"{path}: {plural(bad, 'line(s)')} dropped (neither a `dispatch[N], …` or `Dispatch_ID(N), "
                            "…` record nor a `NAME (value)` counter)")
        if bad_counters:
            warnings.append(f"{path}: {plural(bad_counters, 'non-numeric counter value(s)')} dropped")
        if stray:
            warnings.append(f"{path}: {plural(stray, 'counter line(s)')} before the first dispatch record dropped")
        meta = TimelineMeta(sources=[{"path": str(path), "collector": self.name, "size_bytes": raw.size_bytes,
                                      "rank": 0}])
        return build_timeline(d, self.name, path, meta=meta, warnings=warnings)


def _record(line: str) -> re.Match | None:
    """The dispatch record a line holds: rocprof v1's ``dispatch[N], …`` or rocprofv2's ``Dispatch_ID(N), …``."""
    return _DISPATCH.match(line) or _V2_DISPATCH.match(line)


__all__ = ["RocprofResultsTxt"]
