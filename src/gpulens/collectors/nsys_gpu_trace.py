"""``nsys stats --report cuda_gpu_trace --format csv`` → Timeline: one row per kernel, copy and memset, in time order.

Header (nsys 2023+; the columns are mapped by name, and older reports lack ``GreenCtx`` or print ``Throughput
(MBps)``)::

    Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),
    Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name

* times: the unit in brackets (``(ns)``, or ``(us)``/``(ms)`` under ``--timeunit``) converts to ns; a time column
  without a unit is refused (its scale is unknown);
* ``GrdX`` … are the grid in **blocks** and the block in threads (CUDA's launch configuration), ``Reg/Trd`` the
  registers per thread;
* ``Bytes (MB)`` is printed in SI megabytes with three decimals (``4.194`` for 4,194,304 B): a copy's size is
  kept to the nearest 1,000 bytes it can be read to, and unknown below 0.001 MB (``0.000``). The shared-memory
  columns (``StcSMem (MB)``, ``DymSMem (MB)``) are printed the same way; at that precision they cannot give a
  block's shared memory (occupancy limits turn on a few hundred bytes), so they are not read;
* ``Device`` is the GPU's name with its index in brackets (``NVIDIA H100 80GB HBM3 (0)``) — the index is the
  device id, the name the device's; ``Strm`` the CUDA stream, ``CorrId`` the correlation id of the launch call;
* ``Name``: kernels by their demangled name, ``[CUDA memcpy Host-to-Device]`` (``[CUDA memcpy HtoD]`` before 2023),
  ``[CUDA memset]`` — named ``Memcpy HtoD`` / ``Memset`` as the SQLite reader names them, and classified by the
  rules every collector uses (:mod:`._work_rules`).

Lines before the header (``Processing [...] with [cuda_gpu_trace.py]...``, ``NOTICE:``) are skipped, and so are the
other reports of an ``nsys stats`` stdout that holds several (``--report cuda_api_sum --report cuda_gpu_trace``): the
header is found wherever it is and the table read up to its end (a blank line or the next report's banner), never
the rows of the reports after it. There are no host events: launch calls, synchronisations and the CPU side are not
in this report.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._dispatch import Dispatches, build_timeline
from gpulens.collectors._io import head_lines
from gpulens.collectors._csvrows import header_lines, rejoin_last_name
from gpulens.collectors._kineto_kinds import copy_kind_of
from gpulens.collectors._numbers import DIGITS, exact_int, not_recorded
from gpulens.collectors._time_units import ns_factor
from gpulens.collectors.nsys_stats import table_lines
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.units import plural

_UNIT = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")
#: header key (lower case, unit removed) → Dispatches column
_COLUMNS = {"corrid": "correlation_id", "grdx": "grid_items_x", "grdy": "grid_items_y", "grdz": "grid_items_z",
            "blkx": "block_x", "blky": "block_y", "blkz": "block_z", "strm": "stream_id", "name": "name"}
_DEVICE_INDEX = re.compile(rf"\(({DIGITS})\)\s*$|({DIGITS})\s*$")
#: bytes in one of the report's MB (SI, as ``4.194`` for 4 MiB shows)
_MB = 1_000_000


def header_at(lines: list[str]) -> int | None:
    """Index of the ``cuda_gpu_trace`` header among ``lines`` (Start, Duration and Name columns, and the
    launch-configuration or stream columns only this report prints), or None. Anywhere in the lines: in ``nsys stats``
    stdout other reports (an API summary of a hundred rows) may come first."""
    for i, ln in enumerate(lines):
        # a header with every field quoted ("Start (ns)","Duration (ns)",…: the CSV re-saved by csv.QUOTE_ALL
        # writers or spreadsheet tools) is the same report; its cells are read by csv.reader either way
        if (ln.lstrip('"').startswith("Start") and "Duration" in ln and "Name" in ln
                and ("GrdX" in ln or "Strm" in ln)):
            return i
    return None


def _cells(header: list[str]) -> dict[str, tuple[int, str | None]]:
    """Lower-cased column key → (index, unit in brackets or None)."""
    out = {}
    for i, h in enumerate(header):
        m = _UNIT.match(h.strip())
        key, unit = (m.group(1), m.group(2)) if m else (h.strip(), None)
        out.setdefault(key.lower(), (i, unit))
    return out


class NsysGpuTrace(Collector):
    """``nsys stats`` ``cuda_gpu_trace`` CSV: GPU kernels, copies and memsets one row each (module docstring)."""

    name = "nsys_gpu_trace"
    suffixes = (".csv",)
    priority = 24

    def sniff(self, path: Path, head: bytes) -> bool:
        return header_at(head_lines(head)) is not None

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        """Read one report; raises :class:`TraceFormatError` (no header, a time column without a time unit)."""
        path = Path(path)
        raw, lines, at = header_lines(path, header_at, "no nsys cuda_gpu_trace header (Start, Duration, …, Name)")
        under = [ln for ln in table_lines(lines, at) if ln.strip()]  # up to the table's end: never the next report's
        # nsys stats --format tsv: fields separated by tabs, never quoted (nsys_stats._tab_lines_as_csv)
        opts: dict = {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if "\t" in lines[at] else {}
        header = next(csv.reader([lines[at]], **opts))
        rows = [r for r in csv.reader(io.StringIO("\n".join(under), newline=""), **opts) if r]
        cells = _cells(header)
        if not opts and cells.get("name", (None,))[0] == len(header) - 1:  # an unquoted name with commas at the end
            rows = rejoin_last_name(rows, under, len(header))
        factors = {}
        for key in ("start", "duration"):
            if key not in cells:
                raise TraceFormatError(path, f"missing required column {key.title()!r}")
            f = ns_factor(cells[key][1])
            if f is None:
                raise TraceFormatError(path, f"the column {header[cells[key][0]]!r} has no time unit gpulens knows "
                                             "(ns, us, ms, s): its times cannot be read")
            factors[key] = f
        if "name" not in cells:
            raise TraceFormatError(path, "missing required column 'Name'")
        width = len(header)
        good = [r for r in rows if len(r) == width]
        warnings = []
        if len(good) < len(rows):
            warnings.append(f"{path}: {plural(len(rows) - len(good), 'row(s)')} with a wrong field count skipped")
        n = len(good)
        col = {k: [r[i] for r in good] for k, (i, _) in cells.items()}
        d = Dispatches(n=n)
        d.cols["kind"] = "kernel"  # copies and memsets by their names (build_timeline → _work_rules)
        for key, dst in _COLUMNS.items():
            if key in col:
                d.cols[dst] = col[key] if dst == "name" else [exact_int(v) for v in col[key]]
        if {"grdx", "blkx"} <= set(col):  # grid in blocks → work-items (build_timeline divides by the block back)
            for ax in "xyz":
                g, b = d.get(f"grid_items_{ax}"), d.get(f"block_{ax}")
                d.cols[f"grid_items_{ax}"] = g * b
        start = [_scaled(v, factors["start"]) for v in col["start"]]
        dur = [_scaled(v, factors["duration"]) for v in col["duration"]]
        d.cols["start_ns"] = start
        d.cols["end_ns"] = [s + du if s is not None and du is not None else None for s, du in zip(start, dur)]
        d.unreadable_ts = np.array([(s is None and not not_recorded(a)) or (du is None and not not_recorded(b))
                                    for s, du, a, b in zip(start, dur, col["start"], col["duration"])], dtype=bool)
        names = [str(x) for x in col["name"]]
        copy = [copy_kind_of(x) if x.startswith("[CUDA memcpy") else None for x in names]
        d.cols["copy_kind"] = copy
        # named as the same run's SQLite export names them (nsys_sqlite: "Memcpy HtoD", "Memset")
        d.cols["name"] = [f"Memcpy {c or 'Unknown'}" if x.startswith("[CUDA memcpy") else
                          "Memset" if x.startswith("[CUDA memset") else x for x, c in zip(names, copy)]
        if "bytes" in col and cells["bytes"][1] and cells["bytes"][1].lower() == "mb":
            d.cols["bytes"] = [_bytes(v) for v in col["bytes"]]
        devices = []
        if "device" in col:
            ids, seen = [], {}
            for text in col["device"]:
                m = _DEVICE_INDEX.search(text.strip())
                dev = int(m.group(1) or m.group(2)) if m else None
                ids.append(dev)
                label = _DEVICE_INDEX.sub("", text).strip()
                if dev is not None and dev not in seen and label and not label.upper().startswith("GPU"):
                    seen[dev] = label
            d.cols["device_id"] = ids
            devices = [{"rank": 0, "device_id": k, "name": v} for k, v in sorted(seen.items())]
        # its times count from the capture start of the export it was made from, which the report does not print:
        # one such file per rank cannot be aligned with the others (:mod:`._session_clock` says so)
        src = {"path": str(path), "collector": self.name, "size_bytes": raw.size_bytes, "rank": 0, "rows": n,
               "session_start_epoch_ns": None}
        if "bytes" in d.cols:  # sizes printed to 0.001 MB: what the CI gate may compare them to (gate.runs)
            src["copy_bytes_resolution"] = _MB // 1000
        meta = TimelineMeta(sources=[src], devices=devices)
        warnings.append(f"{path}: nsys cuda_gpu_trace report: GPU work only (no launch calls, synchronisations or "
                        "host activity: idle time cannot be attributed); copy sizes to the 1,000 bytes the report "
                        "prints, shared memory per block not read (printed in MB)")
        tl = build_timeline(d, self.name, path, meta=meta, warnings=warnings)
        _registers(tl, col.get("reg/trd"), d.get("correlation_id"))
        return tl


def _scaled(text: str, factor: float) -> int | None:
    """A time cell in ns: integers exactly (``"1134711990"``), decimals scaled and rounded; None when empty or no
    number."""
    if factor == 1.0:
        return exact_int(text)
    v = exact_int(text, scale=int(round(np.log10(factor)))) if factor in (1e3, 1e6, 1e9) else None
    return v


def _bytes(text: str) -> int | None:
    """``Bytes (MB)`` cell → bytes (SI MB), None when empty, not a number or below the printed 0.001 MB."""
    try:
        v = float(str(text).replace(",", ""))
    except ValueError:
        return None
    return int(round(v * _MB)) if np.isfinite(v) and v >= 0.001 else None


def _registers(tl: Timeline, regs: list[str] | None, corr: pd.Series) -> None:
    """``Reg/Trd`` into the kernel events' ``regs_per_thread`` (in place), matched by correlation id where each id
    is one row (build_timeline keeps the valid rows; the id finds each one's registers)."""
    ev = tl.events
    if regs is None or not len(ev) or "correlation_id" not in ev:
        return
    by_id = pd.Series([exact_int(r) for r in regs], index=corr.to_numpy(), dtype="Int64")
    by_id = by_id[by_id.index.notna()]
    by_id = by_id[~by_id.index.duplicated(keep=False)]
    got = ev["correlation_id"].map(by_id)
    kern = ev["kind"].astype(str).isin(["kernel", "comm"])
    ev["regs_per_thread"] = got.where(kern).astype("Int32")
