"""Nsight Compute CSV (``ncu --csv`` / ``ncu --import r.ncu-rep --csv``) → Timeline + Counters + rule results.

Three layouts, told apart by the header:

* **details page** (``--page details``, the default) and **``--metrics`` output** — long: one row per
  (launch, section, metric) with ``Section Name``, ``Metric Name``, ``Metric Unit``, ``Metric Value``; newer ncu adds
  ``Block Size``/``Grid Size``/``Device``/``CC`` (15 columns) and rule columns ``Rule Name``, ``Rule Type``,
  ``Rule Description``, ``Estimated Speedup Type``, ``Estimated Speedup`` (20 columns); older ones have ``Kernel Time``
  (12 columns). Columns are mapped by name, never by position.
* **raw page** (``--page raw``) — wide: one row per launch, one column per metric, and a **units row** under the
  header (its ID cell is empty).
* **per-kernel summary** (``--print-summary per-kernel``) — long, with no ``ID``: one row per (kernel and launch
  shape, section, metric) with ``Invocations`` and ``Minimum``/``Maximum``/``Average`` in place of ``Metric Value``
  (``"Process ID","Process Name","Host Name","Kernel Name","Block Size","Grid Size","Device","CC","Invocations",
  "Section Name","Metric Name","Metric Unit","Minimum","Maximum","Average"``, as ``ncu --import r.ncu-rep --csv
  --print-summary per-kernel`` prints it). Each kernel and launch shape becomes ``Invocations`` launches with the
  averages, as the text report's summary does (:func:`gpulens.collectors._ncu.expand_summary`), said in a warning.

Quirks handled: leading non-CSV lines (``==PROF==``, ``==WARNING==``, the application's own stdout) and a UTF-8 BOM;
thousands separators (``"1,234.56"``); ``n/a``; per-row units converted to base units
(:mod:`gpulens.collectors._ncu_units`; Kbyte = 1000 bytes); the same metric under two sections (both kept, told
apart by unit; exact duplicates dropped); and a file with ``==PROF==`` lines but no CSV at all (ncu matched no
kernel), which gives an empty Timeline with the warning "no kernels profiled", not an error. Several outputs in one
file (``ncu --csv … >> out.csv`` twice: a header line again mid-file, launch IDs from 0 again, with or without that
header) are read one after another as distinct launches, with a warning.

Output: see :mod:`gpulens.collectors._ncu` (one kernel event per launch with synthetic sequential start times,
Counters with metric names exactly as ncu spells them, ``tables["ncu_rules"]``).
"""

from __future__ import annotations

import csv
from contextvars import ContextVar
import re
import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors import _ncu
from gpulens.collectors._csvrows import check_header_width, cut_note, dedupe_header, project
from gpulens.collectors._io import read_input
from gpulens.collectors._ncu_units import UNIT_NOT_RECORDED, decimal_comma, decimal_comma_note, parse_number
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.units import listed, plural

#: Launch-level columns (everything else in a raw page is a metric).
LAUNCH_COLUMNS = {"ID": "id", "Process ID": "pid", "Process Name": "process", "Host Name": "host",
                  "Kernel Name": "name", "Kernel Time": "time", "Context": "context", "Stream": "stream",
                  "Block Size": "block", "Grid Size": "grid", "Device": "device", "CC": "cc"}
LONG_COLUMNS = {"Section Name", "Metric Name", "Metric Unit", "Metric Value", "Rule Name", "Rule Type",
                "Rule Description", "Estimated Speedup Type", "Estimated Speedup"}
NO_KERNELS = "no kernels profiled"
#: The columns that make a long CSV a per-kernel summary (``--print-summary per-kernel``: no ``ID`` column).
SUMMARY_COLUMNS = {"Invocations", "Metric Name", "Average"}
_TOOL_PREFIXES = ("==PROF==", "==WARNING==", "==ERROR==", "==WARN==")


def _text(data: bytes) -> str:
    return data.decode("utf-8-sig", errors="replace").lstrip("\ufeff")


def _header_index(lines: list[str]) -> int | None:
    """Index of the header line: the first whose CSV fields include ``ID`` and ``Kernel Name`` (ncu writes ``"ID"``
    first; a header whose columns were reordered or re-quoted by another tool is found as well)."""
    for i, ln in enumerate(lines):
        s = ln.lstrip("\ufeff")
        if s.startswith('"ID",') and '"Kernel Name"' in s:
            return i
        if "Kernel Name" in s and "," in s and ("ID" in s or "Invocations" in s):
            fields = {f.strip() for f in next(csv.reader([s]), [])}
            if "Kernel Name" in fields and ("ID" in fields or SUMMARY_COLUMNS <= fields):
                return i
    return None


def _only_tool_lines(lines: list[str]) -> bool:
    body = [ln.strip() for ln in lines if ln.strip()]
    return bool(body) and all(b.startswith(_TOOL_PREFIXES) for b in body) and any(
        b.startswith("==PROF==") for b in body)


class NcuCsvCollector(Collector):
    """Nsight Compute CSV: details page, raw page and ``--metrics`` output (see module docstring)."""

    name = "ncu_csv"
    suffixes = (".csv", ".ncu.csv")
    priority = 20

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = _text(head).splitlines()
        if _header_index(lines) is not None:
            return True
        return _only_tool_lines(lines[:-1] if len(head) >= 65536 else lines)

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        raw = read_input(path)
        lines = _text(raw.data).splitlines()
        h = _header_index(lines)
        if h is None:
            if _only_tool_lines(lines):
                meta = TimelineMeta(sources=[{"path": str(path), "collector": self.name, "rank": 0,
                                              "size_bytes": raw.size_bytes, "launches": 0}],
                                    warnings=[f"{path}: {NO_KERNELS} (only ncu log lines, no CSV rows)"])
                return Timeline(meta=meta).validate()
            raise TraceFormatError(path, "no Nsight Compute CSV header (a line starting with \"ID\",...) found")
        body = [(i, ln) for i, ln in enumerate(lines[h:], start=h) if not ln.startswith(_TOOL_PREFIXES)]
        segments = _segments(body)
        # outputs of a header (and units row) alone hold no launch: not parsed one by one (each costs a few ms of
        # table work: 5,000 header lines, a 1.5 MB file, took 22 s), only counted
        full = [seg for k, seg in enumerate(segments) if k == 0 or not _header_only(seg)]
        groups, joined = _join_alike(full)
        warnings: list[str] = []
        layouts, pieces = [], []
        for k, seg in enumerate(groups):
            layout, parts = self._segment(path, raw, seg, strict, warnings, last=k == len(groups) - 1)
            layouts.append(layout)
            pieces.append(parts)
        parts, restarts = _combine(pieces)
        restarts = max(0, restarts - joined)  # the joined outputs' restarts are their header lines, said below
        layout = "+".join(dict.fromkeys(layouts))
        if len(segments) > 1 or restarts:
            heads = [str(seg[0][0] + 1) for seg in segments[1:]]
            empty = len(segments) - len(full)
            warnings.append(
                f"{path}: {len(segments) + restarts:,} ncu outputs appended in one file ("
                + (f"the header line again at line {listed(heads)}" if heads else "")
                + (f"; {plural(empty, 'output(s)')} of a header alone" if empty else "")
                + ("; " if heads and restarts else "")
                + (f"launch IDs restart {plural(restarts, 'time(s)')}" if restarts else "")
                + f"): read one after another as {plural(len(parts[0]), 'launch(es)')}, renumbered")
        if not parts[0]:
            warnings.append(f"{path}: {NO_KERNELS} (CSV header but no launch rows)")
        tl = _ncu.build(path, self.name, *parts, warnings, {"layout": layout})
        _name_from_preamble(path, tl, lines[:h])
        return tl

    @staticmethod
    def _segment(path: Path, raw: Any, seg: list[tuple[int, str]], strict: bool, warnings: list[str],
                 last: bool) -> tuple[str, tuple]:
        """One ncu output (a header line and its rows) → (layout, (launches, metrics, strings, rules)); notes are
        appended to ``warnings``. Only the ``last`` output can end in a cut line."""
        rows = list(csv.reader(io.StringIO("\n".join(ln for _, ln in seg), newline="")))
        header, rows = rows[0], [r for r in rows[1:] if r]
        width = len(header)
        check_header_width(path, width)
        cut = cut_note(path, _text(raw.data), width, rows[-1] if rows else None, header) if last else None
        if cut is not None and rows:  # a last row cut mid-line: not a launch (short rows are padded below)
            rows.pop()
        if width > 1:  # a row of one field is no launch (ncu's rows hold at least ID … Metric Value): a log line
            # inside the CSV ('"==PROF== Disconnected from process 859"', quoted) — skipped, counted, never a launch
            lone = [r[0] for r in rows if len(r) == 1]
            if lone:
                rows = [r for r in rows if len(r) != 1]
                warnings.append(f"{path}: {plural(len(lone), 'line(s)')} of a single field inside the CSV (a log "
                                f"line, not a launch) skipped (first: {lone[0][:60]!r})")
        bad = sum(len(r) > width for r in rows)  # short rows are normal: ncu omits empty trailing rule columns
        rows = [r + [""] * (width - len(r)) for r in rows if len(r) <= width]
        if bad:
            warnings.append(f"{path}: {plural(bad, 'CSV row(s)')} with more fields than the header skipped")
        if bad and strict and not rows:
            raise TraceFormatError(path, f"every CSV row has more fields than the header's {width}")
        keep, dup = dedupe_header(path, header)
        header, rows = [header[i] for i in keep], project(rows, keep, width)
        warnings[:0] = dup
        if cut is not None:
            warnings.append(cut)
        df = pd.DataFrame(rows, columns=header, dtype=object) if rows else pd.DataFrame(columns=header, dtype=object)
        # ncu writes the locale's separators: one reading for the output's value cells (_ncu_units.decimal_comma)
        cells = [c for c in df.columns if c not in LAUNCH_COLUMNS and (c not in LONG_COLUMNS or c in _VALUE_COLUMNS)]
        comma = decimal_comma(str(v) for v in pd.unique(df[cells].to_numpy().ravel())) if cells and len(df) else None
        if comma is not None:
            warnings.append(decimal_comma_note(path, comma))
        token = _COMMA.set(comma is not None)
        try:
            if SUMMARY_COLUMNS <= set(df.columns) and "Metric Value" not in df.columns:
                return "per-kernel summary", _summary(df, path, warnings)
            if "Metric Name" in df.columns and "Metric Value" in df.columns:
                return "details", _long(df)
            return "raw", _wide(df, path, warnings)
        finally:
            _COMMA.reset(token)


def _header_only(seg: list[tuple[int, str]]) -> bool:
    """Whether an output holds no launch row: after its header only blank lines and units rows (first field
    empty: ``"","",…,"Mbyte"``)."""
    return all(not ln.strip() or ln.startswith(('"",', ",")) for _, ln in seg[1:])


def _units_line(seg: list[tuple[int, str]]) -> str | None:
    return seg[1][1] if len(seg) > 1 and seg[1][1].startswith(('"",', ",")) else None


def _join_alike(segs: list[list[tuple[int, str]]]) -> tuple[list[list[tuple[int, str]]], int]:
    """Consecutive outputs of the same header line and units row joined into one (their own header and units lines
    dropped), and how many joins: parsed as one table, their launches split where IDs restart
    (:func:`_launches`), as outputs appended without a header are — not one table each (3–7 ms of table work per
    output: 2,000 appended outputs of one launch, 3.4 MB, took 11.5 s)."""
    out: list[list[tuple[int, str]]] = []
    joined = 0
    for seg in segs:
        if out and seg[0][1] == out[-1][0][1] and _units_line(seg) == _units_line(out[-1]):
            out[-1] = out[-1] + seg[2 if _units_line(seg) is not None else 1:]
            joined += 1
        else:
            out.append(seg)
    return out, joined


def _segments(body: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """The (line number, line) list cut before every header line after the first: ``ncu --csv … >> out.csv`` run
    twice appends a second output, header and all (its launch IDs start at 0 again)."""
    out: list[list[tuple[int, str]]] = [[]]
    for i, ln in body:
        if out[-1] and _header_index([ln]) == 0:
            out.append([])
        out[-1].append((i, ln))
    return out


def _combine(pieces: list[tuple]) -> tuple[tuple, int]:
    """The parts of several outputs as one list of launches (launch indices offset), and how many times launch IDs
    restarted inside an output (see :func:`_launches`)."""
    launches, metrics, strings, rules, restarts, off = [], [], [], [], 0, 0
    for la, m, st, r in pieces:
        restarts += sum(1 for x in la if x.pop("_restart", False))
        launches += la
        strings += st
        metrics.append(m.assign(launch=m["launch"].astype("int64") + off))
        rules.append(r.assign(launch=r["launch"].astype("int64") + off) if len(r) else r)
        off += len(la)
    if len(pieces) == 1:
        return (launches, metrics[0], strings, rules[0]), restarts
    m = pd.concat(metrics, ignore_index=True)
    r = pd.concat([x for x in rules if len(x)] or rules[:1], ignore_index=True)
    return (launches, m, strings, r), restarts


#: An NVIDIA GPU named in the lines before the CSV (the profiled program's or a wrapper's own output), with the
#: SM count when the same line gives it: ``device: NVIDIA GeForce RTX 5070 (sm_120), 48 SMs``.
_GPU_NAME_RE = re.compile(r"(NVIDIA (?:GeForce |Quadro |Tesla |RTX )*[A-Z]{0,3}\s?[0-9]{2,4}\w*(?: (?:Ti|SXM\w*|PCIe|"
                          r"NVL|[0-9]+GB[\w ]*))?)(?:.*?([0-9]+) SMs)?")


def _name_from_preamble(path: Path, tl: Timeline, preamble: list[str]) -> None:
    """Name devices the CSV records only by compute capability (or not at all) after the one NVIDIA GPU the
    preamble lines name, with a warning saying so; several different names → left alone."""
    found = {m.group(1).strip(): m.group(2) for ln in preamble if not ln.startswith(_TOOL_PREFIXES)
             for m in [_GPU_NAME_RE.search(ln)] if m}
    if len(found) != 1:
        return
    (name, sms), = found.items()
    changed = False
    for d in tl.meta.devices:
        if isinstance(d, dict) and (not d.get("name") or d.get("name_assumed")):
            d["name"] = name
            d.pop("name_assumed", None)
            if sms and not d.get("num_sms"):
                d["num_sms"] = int(sms)
            changed = True
    if changed:
        tl.meta.warnings.append(f"{path}: the CSV records no device name; {name!r} taken from the program output "
                                "printed before it")


#: whether the output being read writes a decimal comma (set per output by ``_segment``, read by :func:`_numbers`)
_COMMA: ContextVar[bool] = ContextVar("ncu_csv_decimal_comma", default=False)
#: the long layouts' columns that hold numbers (the others name, place or describe)
_VALUE_COLUMNS = ("Metric Value", "Estimated Speedup")


def _numbers(s: pd.Series) -> np.ndarray:
    """Vectorised :func:`parse_number` over a column of text (each distinct text parsed once), in the output's
    decimal notation (:data:`_COMMA`)."""
    codes, uniq = pd.factorize(s.fillna(""), sort=False)
    comma = _COMMA.get()
    vals = np.array([np.nan if (v := parse_number(u, comma)) is None else v for u in uniq], dtype="float64")
    return vals[codes] if len(codes) else np.zeros(0)


def _launches(df: pd.DataFrame) -> tuple[list[dict[str, Any]], pd.Series]:
    """One dict per launch in order of appearance, and each row's launch index.

    A launch is the rows with the same ID (and process and kernel name). An ID seen before that comes back after
    other rows starts a new output (two outputs appended without a header between them: IDs restart at 0) when it
    cannot be the same launch: another process or kernel name under that ID, a metric (details page: ``Metric
    Name``) that launch already has, or any repeat on the raw page (one row per launch). Otherwise (rows of the
    details page sorted or filtered by another column, so a launch's metrics are not adjacent) the rows join that
    launch. The first launch dict of a new output carries ``_restart`` (popped and counted by
    :func:`_combine`)."""
    ids = df["ID"].astype(str).to_numpy()
    who = df["ID"].astype(str)
    for c in ("Process ID", "Kernel Name"):
        if c in df.columns:
            who = who + "|" + df[c].astype(str)
    who = who.to_numpy()
    metric = df["Metric Name"].fillna("").astype(str).to_numpy() if "Metric Name" in df.columns else None
    starts = np.flatnonzero(np.r_[True, who[1:] != who[:-1]]) if len(ids) else np.zeros(0, dtype="int64")
    ends = np.r_[starts[1:], len(ids)]
    run_of, seen, run, restart_at = np.zeros(len(starts), dtype="int64"), {}, 0, set()
    for j, i in enumerate(starts):
        names = set() if metric is None else {m for m in metric[i:ends[j]] if m}
        prev = seen.get(ids[i])
        if prev is not None and (metric is None or prev[0] != who[i] or prev[1] & names):
            run, seen = run + 1, {}
            restart_at.add(j)
            prev = None
        seen[ids[i]] = (who[i], names if prev is None else prev[1] | names)
        run_of[j] = run
    per_row = np.repeat(run_of, np.diff(np.r_[starts, len(ids)])) if len(ids) else np.zeros(0, dtype="int64")
    codes, _ = pd.factorize(pd.Series(per_row.astype(str), index=df.index) + "|" + df["ID"].astype(str), sort=False)
    codes = _launch_order(codes, per_row, df["ID"])
    first = df.iloc[np.unique(codes, return_index=True)[1]] if len(codes) else df.iloc[:0]
    keep = [c for c in LAUNCH_COLUMNS if c in df.columns]
    launches = [{LAUNCH_COLUMNS[c]: r[c] for c in keep} for _, r in first[keep].iterrows()]
    for j in restart_at:
        launches[int(codes[starts[j]])]["_restart"] = True
    return launches, pd.Series(codes, index=df.index)


def _launch_order(codes: np.ndarray, run: np.ndarray, ids: pd.Series) -> np.ndarray:
    """``codes`` renumbered so that launch ``i`` is the ``i``-th to run: by output (``run``), then by ncu's ``ID``
    (ncu numbers launches in the order they ran; a details page sorted by kernel name, section or value lists them
    otherwise — the synthetic start times, laid end to end, must follow the launches). Unchanged when an ID is not
    a number (no order to trust)."""
    if not len(codes):
        return codes
    num = pd.to_numeric(ids.astype(str).str.strip(), errors="coerce").to_numpy(dtype="float64")
    if np.isnan(num).any():
        return codes
    per = pd.DataFrame({"c": codes, "run": run, "id": num}).groupby("c", sort=True).first()
    order = per.sort_values(["run", "id"], kind="stable").index.to_numpy()
    remap = np.empty(len(order), dtype="int64")
    remap[order] = np.arange(len(order))
    return remap[codes]


def _long(df: pd.DataFrame):
    launches, li = _launches(df)
    name = df["Metric Name"].fillna("")
    is_metric = name != ""
    md = df[is_metric]
    vals = _numbers(md["Metric Value"])
    metrics = pd.DataFrame({"launch": li[is_metric].to_numpy(), "section": md.get("Section Name", "").to_numpy()
                            if "Section Name" in md else "", "metric": md["Metric Name"].to_numpy(),
                            "unit": md["Metric Unit"].to_numpy() if "Metric Unit" in md else UNIT_NOT_RECORDED,
                            "value": vals})
    strings: list[dict[str, str]] = [{} for _ in launches]
    text_rows = np.isnan(vals) & ~md["Metric Value"].str.strip().isin(["", "n/a", "N/A"]).to_numpy()
    for i, k, v in zip(li[is_metric].to_numpy()[text_rows], md["Metric Name"].to_numpy()[text_rows],
                       md["Metric Value"].to_numpy()[text_rows]):
        strings[int(i)].setdefault(str(k), str(v))
    rules = _rules(df, li)
    return launches, metrics, strings, rules


#: What tells a per-kernel summary's kernels apart: ncu writes one group of rows per kernel and launch shape.
_SUMMARY_KEY = ("Process ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC", "Context", "Stream")


def _summary(df: pd.DataFrame, path: Path, warnings: list[str]):
    """A per-kernel summary (see module docstring) → (launches, metrics, strings, rules): its ``Average`` read as
    the metric value, each kernel and launch shape expanded into its ``Invocations`` launches. An Invocations cell
    that is no whole number ≥ 1 counts as one launch, said in ``warnings``."""
    key = [c for c in _SUMMARY_KEY if c in df.columns]
    group, _ = pd.factorize(df[key].fillna("").astype(str).agg("|".join, axis=1), sort=False)
    df = df.assign(**{"ID": group.astype(str), "Metric Value": df["Average"]})
    launches, li = _launches(df)
    calls = np.ones(len(launches), dtype="int64")
    n = pd.Series(_numbers(df["Invocations"]), index=df.index)
    per = n.groupby(li).first() if len(df) else n
    bad = 0
    for i, v in per.items():
        if v == v and v >= 1 and float(v).is_integer():
            calls[int(i)] = int(v)
        else:
            bad += 1
    if bad:
        warnings.append(f"{path}: {plural(bad, 'kernel(s)')} of the per-kernel summary with no whole Invocations "
                        "count: each read as one launch")
    try:
        parts = _ncu.expand_summary(*_long(df), [int(c) for c in calls])
    except ValueError as e:
        raise TraceFormatError(path, str(e)) from None
    warnings.append(_ncu.summary_note(path, int(calls.sum()), " per-kernel --csv"))
    return parts


def _rules(df: pd.DataFrame, li: pd.Series) -> pd.DataFrame:
    if "Rule Name" not in df.columns:
        return pd.DataFrame(columns=["launch", *list(_ncu.RULE_COLUMNS)[2:]])
    r = df[df["Rule Name"].fillna("") != ""]

    def col(c: str) -> np.ndarray:
        return r[c].fillna("").to_numpy(dtype=object) if c in r.columns else np.full(len(r), "", dtype=object)

    return pd.DataFrame({"launch": li[r.index].to_numpy(), "section": col("Section Name"), "rule": col("Rule Name"),
                         "type": col("Rule Type"), "description": col("Rule Description"),
                         "speedup_type": col("Estimated Speedup Type"),
                         "estimated_speedup_pct": _numbers(pd.Series(col("Estimated Speedup")))})


def _wide(df: pd.DataFrame, path: Path, warnings: list[str]):
    """The raw page (one row per launch, one column per metric, the units row first) → (launches, metrics,
    strings, rules). A later row without a launch ID and without a single number (the units row written again, an
    empty row) is no launch: skipped and counted in ``warnings``, not read as an unnamed launch of unknown
    duration (which would make every time total unknown)."""
    units = {}
    if len(df) and str(df.iloc[0]["ID"]).strip() == "":
        units = df.iloc[0].to_dict()
        df = df.iloc[1:]
    blank = df["ID"].fillna("").astype(str).str.strip().eq("").to_numpy() if len(df) else np.zeros(0, bool)
    if blank.any():
        cells = df[blank].fillna("").astype(str)
        numeric = np.zeros(int(blank.sum()), dtype=bool)
        for c in cells.columns:
            numeric |= ~np.isnan(_numbers(cells[c]))
        drop = np.flatnonzero(blank)[~numeric]
        if len(drop):
            df = df.drop(index=df.index[drop])
            warnings.append(f"{path}: {plural(len(drop), 'row')} without a launch ID or any number (the units row again, or "
                            "an empty row) skipped: not launches")
    launches, li = _launches(df) if len(df) else ([], pd.Series(dtype="int64"))
    mcols = [c for c in df.columns if c not in LAUNCH_COLUMNS and c not in LONG_COLUMNS]
    strings: list[dict[str, Any]] = [{} for _ in launches]
    at = li.to_numpy()
    names, values = [], []  # the numeric columns, stacked once below (a frame per column cost ~10 ms each:
    for c in mcols:         # 20 s for the few thousand metric columns of an ``ncu --set full`` raw page)
        vals = _numbers(df[c])
        if np.isnan(vals).all():
            txt = df[c].fillna("")
            for i, v in zip(at, txt.to_numpy()):
                if v.strip() and v.strip() not in ("n/a", "N/A"):
                    strings[int(i)][c] = v
            continue
        names.append(c)
        values.append(vals)
    unit = [(units.get(c, "") or "") if units else UNIT_NOT_RECORDED for c in names]
    metrics = pd.DataFrame({"launch": np.tile(at, len(names)).astype("int64"), "section": "",
                            "metric": np.repeat(np.array(names, dtype=object), len(at)),
                            "unit": np.repeat(np.array(unit, dtype=object), len(at)),
                            "value": np.concatenate(values) if values else np.zeros(0)})
    return launches, metrics, strings, _rules(df, li)
