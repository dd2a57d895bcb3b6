"""``nvprof --csv --print-gpu-trace`` → Timeline: one row per kernel, copy and memset, in time order.

nvprof (CUDA 5–11; Kepler to Volta/Turing) writes its GPU trace as CSV on stderr or into ``--log-file``::

    ==12400== NVPROF is profiling process 12400, command: ./matrixMul
    ==12400== Profiling application: ./matrixMul
    ==12400== Profiling result:
    "Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread",
    "Static SMem","Dynamic SMem","Size","Throughput","Device","Context","Stream","Name"
    ms,ms,,,,,,,,KB,B,KB,MB/s,,,,
    584.620743,1.028854,,,,,,,,,,400.000000,379.670001,"GeForce GTX 1080 Ti (0)","1","7","[CUDA memcpy HtoD]"
    587.796940,0.077602,20,10,1,32,32,1,27,8.000000,0,,,"GeForce GTX 1080 Ti (0)","1","7","void matrixMulCUDA<int=32>(…) [1073]"

(leimingyu/magus ``00_featSel/13app_trace/matrixMul_trace.csv``; NVIDIA, *Profiler User's Guide*, "nvprof: GPU-Trace
and API-Trace Modes" and "CSV").

* the row under the header holds each column's **unit**, chosen by nvprof per file (``-u``/``--normalized-time-unit``
  or automatically): times in ``s``/``ms``/``us``/``ns``; ``Size``, ``Static SMem`` and ``Dynamic SMem`` in
  ``B``/``KB``/``MB``/``GB`` — binary multiples (a 320×320 float matrix copy prints ``400.000000`` KB = 409,600 B, a
  32×32×2 float tile ``8.000000`` KB of static shared memory = 8,192 B); a time column without a known unit is
  refused, a size column without one is not read;
* numbers may be written in scientific notation (``2.048000e-03``);
* ``Grid X`` … are the grid in blocks, ``Block X`` … the block in threads, ``Registers Per Thread`` the kernel's
  registers;
* later nvprof versions add ``SrcMemType``/``DstMemType`` (copies), ``Src Dev``/``Dst Dev`` (peer copies) and
  ``Correlation_ID``; columns are mapped by name. Without a ``Correlation_ID`` column nvprof appends the launch's
  correlation id to each kernel's name in brackets (``… [1073]``): it is read as the correlation id and removed
  from the name;
* ``Device`` is the GPU's name with its index (``GeForce GTX 1080 Ti (0)``), ``Stream`` the CUDA stream;
* ``Name``: kernels by their demangled name, ``[CUDA memcpy HtoD]`` / ``DtoH`` / ``DtoD`` / ``PtoP``,
  ``[CUDA memset]``; unified-memory records (``[Unified Memory Memcpy HtoD]``, ``[Unified Memory GPU page faults]``,
  written with ``--unified-memory-profiling per-process-device``) are page-migration records, not copy-engine work
  on a stream: left out and counted in a warning.

With ``--metrics``/``--events`` the trace gains one column per counter and nvprof replays each kernel to read them:
such a file (any column outside the trace's own) is a counter-collection run — span, busy and idle unknown — and its
counter values are not read.

Times count from the start of nvprof's session. There are no host events (launch calls, synchronisations) in this
report: idle time cannot be attributed to a cause.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._csvrows import header_lines
from gpulens.collectors._dispatch import Dispatches, build_timeline
from gpulens.collectors._io import head_lines
from gpulens.collectors._kineto_kinds import copy_kind_of
from gpulens.collectors._numbers import DIGITS, exact_int, not_recorded
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.units import plural

#: the GPU-trace header: quoted "Start","Duration" first, then the launch-configuration or device columns
#: the header, quoted as nvprof writes it or bare (the file re-saved by a CSV writer that quotes only when needed)
_HEADER = re.compile(r'^"?Start"?,"?Duration"?,.*\bName\b', re.ASCII)
_TRACE_ONLY = re.compile(r'(?:^|,)"?(?:Grid X|Device)"?(?:,|$)', re.ASCII)
_TIME_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
_SCALE = {"s": 9, "ms": 6, "us": 3, "ns": 0}
#: nvprof's size units are binary multiples (module docstring)
_BYTES = {"b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}
#: header → Dispatches column
_COLUMNS = {"Grid X": "grid_items_x", "Grid Y": "grid_items_y", "Grid Z": "grid_items_z", "Block X": "block_x",
            "Block Y": "block_y", "Block Z": "block_z", "Stream": "stream_id"}
#: the columns of a GPU trace without counters (nvprof 5–11); any other column is an event or metric
_TRACE_COLUMNS = frozenset(("Start", "Duration", "Grid X", "Grid Y", "Grid Z", "Block X", "Block Y", "Block Z",
                            "Registers Per Thread", "Static SMem", "Dynamic SMem", "Size", "Throughput", "SrcMemType",
                            "DstMemType", "Device", "Context", "Stream", "Name", "Correlation_ID", "Src Dev",
                            "Src Ctx", "Dst Dev", "Dst Ctx", "Unified Memory", "Virtual Address"))
_DEVICE = re.compile(rf"^(.*?)\s*\(({DIGITS})\)\s*$", re.ASCII)
#: the correlation id nvprof appends to a kernel's name when the file has no Correlation_ID column
_CORR_SUFFIX = re.compile(rf"^(.*\S)\s+\[({DIGITS})\]$", re.ASCII | re.DOTALL)


def header_at(lines: list[str]) -> int | None:
    """Index of the GPU-trace header among ``lines`` (``"Start","Duration"`` first, ``"Name"``, and ``"Grid X"``
    or ``"Device"``: the API trace (``--print-api-trace``) has neither; the cells quoted or bare), or None."""
    for i, ln in enumerate(lines):
        if _HEADER.match(ln) and _TRACE_ONLY.search(ln):
            return i
    return None


class NvprofCsv(Collector):
    """nvprof's GPU trace as CSV (``nvprof --csv --print-gpu-trace``): kernels, copies and memsets (module
    docstring)."""

    name = "nvprof_csv"
    suffixes = (".csv", ".txt", ".log")
    priority = 23

    def sniff(self, path: Path, head: bytes) -> bool:
        return header_at(head_lines(head)[:200]) is not None

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        """Read one GPU trace; raises :class:`TraceFormatError` (no header, no units row, a time column without a
        time unit)."""
        path = Path(path)
        raw, lines, at = header_lines(path, header_at, 'no nvprof GPU-trace header ("Start","Duration",…,"Name")')
        header = next(csv.reader([lines[at]]))
        col_at = {h.strip(): i for i, h in reversed(list(enumerate(header)))}
        missing = [h for h in ("Start", "Duration", "Name") if h not in col_at]
        if missing:
            raise TraceFormatError(path, f"missing required column {missing[0]!r} in the nvprof GPU-trace header")
        body = [ln for ln in lines[at + 1:] if ln.strip() and not ln.startswith("==")]
        rows = [r for r in csv.reader(io.StringIO("\n".join(body), newline="")) if r]
        if not rows or exact_int(rows[0][0]) is not None:
            raise TraceFormatError(path, "no units row under the nvprof header (ms,ms,,…): its times cannot be read")
        units = {h: (rows[0][i].strip().lower() if i < len(rows[0]) else "") for h, i in col_at.items()}
        rows = rows[1:]
        for key in ("Start", "Duration"):
            if units.get(key) not in _TIME_NS:
                raise TraceFormatError(path, f"the column {key!r} has no time unit gpulens knows (s, ms, us, ns): "
                                             f"{units.get(key)!r}")
        width = len(header)
        good = [r for r in rows if len(r) == width]
        warnings = []
        if len(good) < len(rows):
            warnings.append(f"{path}: {plural(len(rows) - len(good), 'row(s)')} with a wrong field count skipped")
        names_all = [r[col_at["Name"]] for r in good]
        um = [x.startswith("[Unified Memory") for x in names_all]
        if any(um):
            warnings.append(f"{path}: {plural(sum(um), 'unified-memory record(s)')} (page migrations and faults) "
                            "left out: not copy-engine work on a stream")
        good = [r for r, u in zip(good, um) if not u]
        n = len(good)

        def column(h: str) -> list[str] | None:
            return [r[col_at[h]] for r in good] if h in col_at else None

        d = Dispatches(n=n)
        d.cols["kind"] = "kernel"  # copies and memsets by their names (build_timeline → _work_rules)
        for h, dst in _COLUMNS.items():
            if (v := column(h)) is not None:
                d.cols[dst] = [exact_int(x) for x in v]
        if "grid_items_x" in d.cols and "block_x" in d.cols:  # grid in blocks → work-items (build_timeline divides)
            for ax in "xyz":
                d.cols[f"grid_items_{ax}"] = d.get(f"grid_items_{ax}") * d.get(f"block_{ax}")
        starts, durs = column("Start"), column("Duration")
        start = [exact_int(v, scale=_SCALE[units["Start"]]) for v in starts]
        dur = [exact_int(v, scale=_SCALE[units["Duration"]]) for v in durs]
        d.cols["start_ns"] = start
        d.cols["end_ns"] = [s + du if s is not None and du is not None else None for s, du in zip(start, dur)]
        d.unreadable_ts = np.array([(s is None and not not_recorded(a)) or (du is None and not not_recorded(b))
                                    for s, du, a, b in zip(start, dur, starts, durs)], dtype=bool)
        names, corr = [], column("Correlation_ID")
        corr = [exact_int(x) for x in corr] if corr is not None else None
        from_names = []
        for x in (r[col_at["Name"]] for r in good):
            m = _CORR_SUFFIX.match(x) if corr is None and not x.startswith("[") else None
            names.append(m.group(1) if m else x)
            from_names.append(int(m.group(2)) if m else None)
        d.cols["correlation_id"] = corr if corr is not None else from_names
        copy = [copy_kind_of(x) if x.startswith("[CUDA memcpy") else None for x in names]
        d.cols["copy_kind"] = copy
        # named as the nsys readers name them ("Memcpy HtoD", "Memset")
        d.cols["name"] = [f"Memcpy {c or 'Unknown'}" if x.startswith("[CUDA memcpy") else
                          "Memset" if x.startswith("[CUDA memset") else x for x, c in zip(names, copy)]
        if (size := column("Size")) is not None and units.get("Size") in _BYTES:
            d.cols["bytes"] = [_bytes(v, _BYTES[units["Size"]]) for v in size]
        devices, seen, ids = [], {}, []
        for text in column("Device") or []:
            m = _DEVICE.match(text.strip())
            ids.append(int(m.group(2)) if m else None)
            if m and m.group(1) and int(m.group(2)) not in seen:
                seen[int(m.group(2))] = m.group(1)
        if ids:
            d.cols["device_id"] = ids
            devices = [{"rank": 0, "device_id": k, "name": v} for k, v in sorted(seen.items())]
        src = {"path": str(path), "collector": self.name, "size_bytes": raw.size_bytes, "rank": 0, "rows": n,
               "session_start_epoch_ns": None}
        counters = [h for h in col_at if h and h not in _TRACE_COLUMNS]
        if counters:  # --metrics/--events with --print-gpu-trace: one column per counter, kernels replayed
            src["pmc"] = True
            warnings.append(f"{path}: an nvprof counter-collection run ({plural(len(counters), 'counter column')}, "
                            f"e.g. {counters[0]!r}): nvprof replayed each kernel to read them, so the start times and "
                            "gaps are not the workload's; the counter values are not read")
        meta = TimelineMeta(sources=[src], devices=devices)
        warnings.append(f"{path}: nvprof GPU trace: GPU work only (no launch calls, synchronisations or host "
                        "activity: idle time cannot be attributed)")
        tl = build_timeline(d, self.name, path, meta=meta, warnings=warnings)
        ids = d.get("correlation_id")
        _by_correlation(tl, "regs_per_thread", column("Registers Per Thread"), 1, ids, "Int32")
        for h, dst in (("Static SMem", "smem_static_bytes"), ("Dynamic SMem", "smem_dynamic_bytes")):
            if units.get(h) in _BYTES:
                _by_correlation(tl, dst, column(h), _BYTES[units[h]], ids, "Int64")
        return tl


def _bytes(text: str, unit: int) -> int | None:
    """A size cell × its unit in bytes (nvprof prints 6 decimals: 1.003906 KB = 1,028 B), None when empty or no
    number."""
    try:
        v = float(str(text).strip().strip('"'))
    except ValueError:
        return None
    b = v * unit
    return int(round(b)) if np.isfinite(b) and 0 <= b < 2.0**63 else None


def _by_correlation(tl: Timeline, dst: str, cells: list[str] | None, unit: int, corr: pd.Series,
                    dtype: str) -> None:
    """Per-row ``cells`` (× ``unit``) into the kernel events' ``dst`` column (in place), matched by correlation id
    where each id is one row (build_timeline keeps the valid rows; the id finds each one's value)."""
    ev = tl.events
    if cells is None or not len(ev) or "correlation_id" not in ev:
        return
    vals = [_bytes(c, unit) if c.strip() else None for c in cells]
    by_id = pd.Series(vals, index=corr.to_numpy(), dtype="Int64")
    by_id = by_id[by_id.index.notna()]
    by_id = by_id[~by_id.index.duplicated(keep=False)]
    got = ev["correlation_id"].map(by_id)
    kern = ev["kind"].astype(str).isin(["kernel", "comm"])
    ev[dst] = got.where(kern).astype(dtype)
