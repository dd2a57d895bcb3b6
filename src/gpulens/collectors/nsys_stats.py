"""``nsys stats --report cuda_gpu_kern_sum --format csv`` (and the older ``gpukernsum``) → a per-kernel summary.

This is an aggregate, not a timeline: the Timeline has **no events**, and the table is kept as
``timeline.tables["kernel_summary"]`` with the columns of :data:`SUMMARY_COLUMNS`. The hotspots analyzer ranks it
when a Timeline has no kernel events, so ``gpulens analyze summary.csv`` shows the top kernels, the kernel count
(Σ instances) and the kernel time (Σ total).

Header (nsys 2022+): ``Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name``;
older: ``Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name`` (also with ``StdDev``). Columns are mapped
by name; a time unit in the header (``(ns)``, ``(us)``, ``(ms)``, ``(s)`` from ``--timeunit``) is converted to ns.
Names with commas are quoted by nsys; lines before the header (nsys' "Processing ..." notes) are skipped.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._io import read_input
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta

#: Columns of ``tables["kernel_summary"]`` (units in the names).
SUMMARY_COLUMNS = {
    "name": "kernel name as nsys prints it (demangled)",
    "calls": "number of launches (Instances)",
    "total_ns": "summed duration of all launches [ns]",
    "mean_ns": "mean duration [ns]",
    "min_ns": "shortest launch [ns]",
    "max_ns": "longest launch [ns]",
    "median_ns": "median duration [ns] (NaN when the report has none)",
    "stddev_ns": "standard deviation of durations [ns] (NaN when the report has none)",
    "time_pct": "nsys' Time (%) column: share of all kernel time [%]",
}
_UNIT_NS = {"ns": 1.0, "us": 1e3, "μs": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "sec": 1e9}
_HEADER_KEYS = {  # normalised header text → summary column
    "time (%)": "time_pct", "time(%)": "time_pct", "total time": "total_ns", "instances": "calls",
    "avg": "mean_ns", "average": "mean_ns", "med": "median_ns", "median": "median_ns", "min": "min_ns",
    "minimum": "min_ns", "max": "max_ns", "maximum": "max_ns", "stddev": "stddev_ns", "std dev": "stddev_ns",
    "name": "name",
}
_UNIT_RE = re.compile(r"^(.*?)\s*\((ns|us|μs|µs|ms|s|sec)\)\s*$")


def _map_header(header: list[str]) -> dict[int, tuple[str, float]] | None:
    """Column index → (summary column, factor to ns); None unless Name, Instances and Total Time are present."""
    out: dict[int, tuple[str, float]] = {}
    for i, h in enumerate(header):
        h = h.strip().lstrip("\ufeff")
        key, factor = h.lower(), 1.0
        m = _UNIT_RE.match(h)
        if m and not h.lower().startswith("time"):
            key, factor = m.group(1).lower(), _UNIT_NS[m.group(2)]
        elif h.lower().startswith("total time"):
            key = "total time"
        col = _HEADER_KEYS.get(key)
        if col and col not in {c for c, _ in out.values()}:
            out[i] = (col, factor)
    have = {c for c, _ in out.values()}
    return out if {"name", "calls", "total_ns"} <= have else None


def _find_header(lines: list[str]) -> tuple[int, dict[int, tuple[str, float]]] | None:
    for i, ln in enumerate(lines[:50]):
        if "Instances" in ln and "Name" in ln:
            m = _map_header(next(csv.reader([ln])))
            if m:
                return i, m
    return None


class NsysStatsCollector(Collector):
    """``nsys stats`` CUDA GPU kernel summary CSV (see module docstring)."""

    name = "nsys_stats"
    suffixes = (".csv",)
    priority = 25

    def sniff(self, path: Path, head: bytes) -> bool:
        text = head.decode("utf-8", errors="replace")
        return _find_header(text.splitlines()) is not None

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        raw = read_input(path)
        lines = raw.data.decode("utf-8", errors="replace").splitlines()
        found = _find_header(lines)
        if found is None:
            raise TraceFormatError(path, "no nsys kernel-summary header (Time (%), Total Time, Instances, ..., Name)")
        h, mapping = found
        rows = list(csv.reader(io.StringIO("\n".join(lines[h + 1:]))))
        width = len(next(csv.reader([lines[h]])))
        good = [r for r in rows if len(r) == width]
        warnings = []
        if len(good) != len([r for r in rows if r]):
            bad = len([r for r in rows if r]) - len(good)
            if strict and not good:
                raise TraceFormatError(path, f"no row has the header's {width} fields")
            warnings.append(f"{path}: {bad} row(s) with a wrong field count skipped")
        data: dict[str, list] = {c: [] for c in SUMMARY_COLUMNS}
        for r in good:
            for i, (col, f) in mapping.items():
                v = r[i].strip()
                if col == "name":
                    data[col].append(r[i])
                    continue
                try:
                    x = float(v.replace(",", "")) if v else np.nan
                except ValueError:
                    raise TraceFormatError(path, f"non-numeric {col} value {v!r}") from None
                data[col].append(x * (f if col.endswith("_ns") else 1.0))
        n = len(good)
        table = pd.DataFrame({c: (data[c] if data[c] else [np.nan] * n) for c in SUMMARY_COLUMNS})
        # Declared ranges: calls and total time are finite, non-negative and within int64; durations non-negative.
        num = table[["calls", "total_ns", "mean_ns", "min_ns", "max_ns"]].astype("float64")
        ok = (np.isfinite(num[["calls", "total_ns"]]).all(axis=1) & (num[["calls", "total_ns"]] >= 0).all(axis=1)
              & (num[["calls", "total_ns"]] < 2.0**63).all(axis=1) & ~(num < 0).any(axis=1))
        if not ok.all():
            dropped = int((~ok).sum())
            if not ok.any():
                raise TraceFormatError(path, f"no usable kernel row: {dropped} row(s) have a negative, infinite, "
                                             "missing or out-of-range Instances / Total Time / duration")
            warnings.append(f"{path}: {dropped} kernel row(s) dropped (negative, infinite, missing or out-of-range "
                            "Instances / Total Time / duration)")
            table = table[ok].reset_index(drop=True)
        table["name"] = table["name"].astype(str)
        table["calls"] = table["calls"].round().astype("int64")
        table["total_ns"] = table["total_ns"].round().astype("int64")
        for c in ("mean_ns", "min_ns", "max_ns", "median_ns", "stddev_ns", "time_pct"):
            table[c] = table[c].astype("float64")
        meta = TimelineMeta(sources=[{"path": str(path), "collector": self.name, "size_bytes": raw.size_bytes,
                                      "rank": 0, "aggregate": True}],
                            warnings=[*warnings, f"{path}: nsys stats summary: per-kernel aggregates only, no "
                                                 "timeline (span, busy time and overlap are unknown)"])
        return Timeline(meta=meta, tables={"kernel_summary": table}).validate()
