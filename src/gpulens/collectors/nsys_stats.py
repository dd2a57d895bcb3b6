"""``nsys stats --report cuda_gpu_kern_sum --format csv`` (and the older ``gpukernsum``) → a per-kernel summary.

This is an aggregate, not a timeline: the Timeline has **no events**, and the table is kept as
``timeline.tables["kernel_summary"]`` with the columns of :data:`SUMMARY_COLUMNS`. The hotspots analyzer ranks it
when a Timeline has no kernel events, so ``gpulens analyze summary.csv`` shows the top kernels, the kernel count
(Σ instances) and the kernel time (Σ total).

Header (nsys 2022+): ``Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name``;
older: ``Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name`` (also with ``StdDev``). Columns are mapped
by name; a time unit in the header (``(ns)``, ``(us)``, ``(ms)``, ``(s)`` from ``--timeunit``, and their spellings
``usec``, ``msecond``…) is converted to ns; a unit that is no time (``(cycle)``) makes its column unknown — an error
for Total Time. A time column without a unit takes Total Time's; a header with no unit at all is read as ns (the
older reports' documented unit), with a warning unless it has their form (:func:`unit_note`).
Names with commas are quoted by nsys (an unquoted one in the last column is rejoined); lines before the header (nsys' "Processing ..." notes) are skipped. The stdout
of ``nsys stats`` with several reports (banners, blank lines, one header per report) is read too: the kernel summary
is found wherever it is (under its ``cuda_gpu_kern_sum`` banner) and read up to its end (blank line or next report).
The same stdout in nsys' default ``--format column`` (what ``nsys profile --stats=true`` and ``nsys stats`` print to the
console, often saved as a .txt/.log: each table a header line, a rule of dashes under every column, rows aligned to
the rules, numbers with thousands separators) is read through :func:`column_tables_as_csv`, and so is ``--format table``
(the same tables drawn in ``+---+`` borders and ``|`` separators). Both print at most 100 characters of a name (a
longer one ends with ``…``): a warning counts such names and the rows that share one. ``--format tsv`` (tab-separated
fields) is rewritten as CSV the same way.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._csvrows import dedupe_header, rejoin_last_name
from gpulens.collectors._io import head_lines, read_input
from gpulens.collectors._nsys_exec_sum import WHAT, exec_sum_as_kern_sum
from gpulens.collectors._nsys_stat_checks import STATS as _STATS
from gpulens.collectors._nsys_stat_checks import blank_impossible_statistics as _blank_impossible_statistics
from gpulens.collectors._nsys_stat_checks import printed_step
from gpulens.collectors._shares import disagreeing_shares, impossible_shares, missing_share
from gpulens.collectors._summary_copies import summary_copies_note
from gpulens.collectors._time_units import ns_factor
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError, TruncationNote
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.timeline.sums import implausible_summary_rows
from gpulens.units import agree, plural

#: Columns of ``tables["kernel_summary"]`` (units in the names).
SUMMARY_COLUMNS = {
    "name": "kernel name as nsys prints it (demangled)",
    "calls": "number of launches (Instances)",
    "total_ns": "summed duration of all launches [ns]",
    "mean_ns": "mean duration [ns]",
    "min_ns": "shortest launch [ns]",
    "max_ns": "longest launch [ns]",
    "median_ns": "median duration [ns] (unknown when the report has none)",
    "stddev_ns": "standard deviation of durations [ns] (unknown when the report has none)",
    "time_pct": "nsys' Time (%) column: share of all kernel time [%]",
}
_HEADER_KEYS = {  # normalised header text → summary column
    "time (%)": "time_pct", "time(%)": "time_pct", "total time": "total_ns", "instances": "calls",
    "avg": "mean_ns", "average": "mean_ns", "med": "median_ns", "median": "median_ns", "min": "min_ns",
    "minimum": "min_ns", "max": "max_ns", "maximum": "max_ns", "stddev": "stddev_ns", "std dev": "stddev_ns",
    "name": "name",
}
_UNIT_RE = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")


def _map_header(header: list[str]) -> dict[int, tuple[str, float | None]] | None:
    """Column index → (summary column, factor to ns); None unless Name, Instances and Total Time are present.

    A time column's unit in brackets converts by :func:`._time_units.ns_factor` (``(us)``, ``(msec)``…); the factor
    is None for a unit that is no time (``(cycle)``): that column is unknown, never read as ns. A time column without
    a unit takes the Total Time's unit when that has one (nsys prints every time of a report in one unit: a
    ``Total Time (us)`` beside a bare ``Average`` whose values are Total / Instances), else ns — the unit of nsys'
    reports before ``--timeunit`` (their ``Output: All time values given in nanoseconds``); :func:`unit_note` says
    when that ns is an assumption."""
    out: dict[int, tuple[str, float | None]] = {}
    bare: set[int] = set()
    for i, h in enumerate(header):
        h = h.strip().lstrip("\ufeff")
        key, factor = h.lower(), 1.0
        m = _UNIT_RE.match(h)
        if m and not h.lower().startswith("time"):
            key, factor = m.group(1).lower(), ns_factor(m.group(2))
        elif h.lower().startswith("total time"):
            key = "total time"
        col = _HEADER_KEYS.get(key)
        if col and col not in {c for c, _ in out.values()}:
            out[i] = (col, factor)
            if not m and col.endswith("_ns"):
                bare.add(i)
    have = {c for c, _ in out.values()}
    if not {"name", "calls", "total_ns"} <= have:
        return None
    total_at = next(i for i, (c, _) in out.items() if c == "total_ns")
    if total_at not in bare:  # the report's unit, printed once on Total Time: the bare columns share it
        for i in bare:
            out[i] = (out[i][0], out[total_at][1])
    return out


#: Header words only nsys' reports before 2022 (``gpukernsum``) print; those reports wrote every time in ns.
_OLD_FORM = re.compile(r"^(time\(%\)|average|minimum|maximum)$", re.IGNORECASE)


def unit_note(path: Path, header: list[str]) -> str | None:
    """The warning for a kernel-summary header whose time unit is not printed (no ``(ns)``/``(us)`` on any time
    column) and that is not the header form of nsys' reports before 2022 (``Time(%)``, ``Average``, ``Minimum``,
    ``Maximum``: ns by their own documentation): its times are read as ns, an assumption the user must check (a
    table written with ``--timeunit us`` and its units stripped would be 1000× off). None when the unit is known."""
    cells = [h.strip().lstrip("\ufeff") for h in header]
    if any(_UNIT_RE.match(h) and not h.lower().startswith("time") for h in cells):
        return None
    if any(_OLD_FORM.match(h) for h in cells):
        return None
    return (f"{path}: the header gives no time unit (no '(ns)' on Total Time or any other time column) and is not "
            "the form of nsys' older reports (which printed ns): ns assumed — check the export's --timeunit, every "
            "time here scales with it")


_KERNEL_BANNER = re.compile(r"cuda_gpu_kern_sum|gpukernsum|GPU Kernel Summary|CUDA Kernel Statistics", re.IGNORECASE)
_STATS_BANNER = re.compile(r"^\s*(Processing \[.*\] with \[.*reports[/\\]\w+\.py\]|\*\* .*\((cuda|osrt|nvtx|um)_\w+\):)")
_REPORT_START = re.compile(r"^\s*(\*\*\s|Processing \[|Generating SQLite|NOTICE:|SKIPPED:|ERROR:)")


def _find_header(lines: list[str]) -> tuple[int, dict[int, tuple[str, float]]] | None:
    """The kernel-summary header line anywhere in the text (``nsys stats`` stdout holds several reports, each with
    a banner and its own header): the first header under a kernel-summary banner (within the 4 lines above it: a
    ``--format table`` header read from under its border), else the first kernel-summary header at all."""
    first = None
    for i, ln in enumerate(lines):
        if "Instances" in ln and "Name" in ln:
            m = _map_header(next(csv.reader([ln])))
            if m:
                if any(_KERNEL_BANNER.search(b) for b in lines[max(0, i - 4):i]):
                    return i, m
                first = first or (i, m)
    return first


#: The rule nsys' ``--format column`` prints under a table's header: one run of dashes per column, two spaces apart.
_RULE = re.compile(r"^\s*-{2,}(\s+-{2,})+\s*$")


def column_tables_as_csv(lines: list[str]) -> list[str] | None:
    """``lines`` with every ``--format column`` table rewritten as CSV, line for line (so byte offsets into the
    original text keep their line numbers): the rule under a header becomes the header as CSV, each row below it
    (up to a blank line) its fields as CSV; the original header line is left as it is (a single text field, no
    header to :func:`_find_header`). A field is the text between the start of its column's dashes and the start of
    the next column's (the last column: to the line end), stripped — nsys pads every column to its rule's width,
    numbers right-aligned, names left-aligned. Returns None when the text holds no such table.

    Source: nsys' own console output, e.g. ``[6/8] Executing 'cuda_gpu_kern_sum' stats report`` then
    `` Time (%)  Total Time (ns)  Instances  Avg (ns) … Name`` over `` --------  ---------------  ---------  …``
    (ayush-os/nsight-systems-deep-dive README, nsys 2024 on an A100)."""
    out, found, i = list(lines), False, 1
    while i < len(lines):
        if not (_RULE.match(lines[i]) and lines[i - 1].strip() and not _RULE.match(lines[i - 1])):
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"-+", lines[i])]

        def fields(line: str) -> list[str]:
            return [line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]

        out[i] = _as_csv(fields(lines[i - 1]))
        found = True
        i += 1
        while i < len(lines) and lines[i].strip() and not _RULE.match(lines[i]):
            out[i] = _as_csv(fields(lines[i]))
            i += 1
    found = _boxed_tables_as_csv(lines, out) or found
    found = _tab_lines_as_csv(lines, out) or found
    return out if found else None


def _tab_lines_as_csv(lines: list[str], out: list[str]) -> bool:
    """Rewrite in ``out`` (line for line, as :func:`column_tables_as_csv`) every line of ``nsys stats --format tsv``
    not rewritten yet: its fields are separated by tabs and never quoted (a kernel name holds commas and blanks, no
    tab). Returns whether any line was. Source: the nsys User Guide, "CLI Stats Command Switch Options": ``--format``
    column, table, csv, tsv, json, hdoc, htable."""
    found = False
    for i, ln in enumerate(lines):
        if "\t" in ln and out[i] is ln:
            out[i] = _as_csv([c.strip() for c in ln.split("\t")])
            found = True
    return found


def _as_csv(cells: list[str]) -> str:
    """``cells`` as one CSV line (quoted where a cell holds a comma or a quote)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(cells)
    return buf.getvalue()


#: The border nsys' ``--format table`` draws above and below a table's header and under its last row.
_BORDER = re.compile(r"^\s*\+(-+\+){2,}\s*$")


def _boxed_tables_as_csv(lines: list[str], out: list[str]) -> bool:
    """Rewrite in ``out`` (line for line, as :func:`column_tables_as_csv`) every ``--format table`` table of
    ``lines``: a border ``+----+----+``, the header ``| Time (%) | … | Name |``, a border, rows ``| 76.9 | … |``
    and a closing border. The border under the header becomes the header as CSV (the header line itself is left,
    one text field), each row its fields as CSV, the closing border a blank line (the table's end). A field is
    the text between two ``+`` of the border, stripped; a row whose ``|`` do not stand under them (a character
    wider than one column) is split at its ``|`` when that gives the border's field count, else left (counted as a
    row of the wrong width). Returns whether any such table was found.

    Source: ``nsys stats --format table`` stdout (nsys 2025.1 ``cuda_gpu_kern_sum`` / ``cuda_api_sum``, a vLLM
    Llama-70B run on a B200 committed as Markdown; names longer than 100 characters cut by nsys with ``…``)."""
    found, i = False, 0
    while i + 2 < len(lines):
        if not (_BORDER.match(lines[i]) and lines[i + 1].lstrip().startswith("|") and _BORDER.match(lines[i + 2])):
            i += 1
            continue
        cuts = [m.start() for m in re.finditer(r"\+", lines[i])]

        def fields(line: str) -> list[str]:
            if all(line[c:c + 1] == "|" for c in cuts):
                return [line[a + 1:b].strip() for a, b in zip(cuts, cuts[1:])]
            parts = line.strip().split("|")
            return [p.strip() for p in parts[1:-1]] if len(parts) == len(cuts) else [line]

        out[i + 2] = _as_csv(fields(lines[i + 1]))
        found = True
        i += 3
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            out[i] = _as_csv(fields(lines[i]))
            i += 1
        if i < len(lines) and _BORDER.match(lines[i]):
            out[i] = ""
    return found


def table_lines(lines: list[str], header: int) -> list[str]:
    """The rows of the table under ``header``: up to the first blank line or the start of the next report."""
    out = []
    for ln in lines[header + 1:]:
        if not ln.strip() or _REPORT_START.match(ln):
            break
        out.append(ln)
    return out


class NsysStatsCollector(Collector):
    """``nsys stats`` CUDA GPU kernel summary CSV (see module docstring)."""

    name = "nsys_stats"
    suffixes = (".csv",)
    priority = 25

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head_lines(head)
        if _find_header(lines) is not None or _find_header(column_tables_as_csv(lines) or []) is not None:
            return True
        if exec_sum_as_kern_sum(lines) is not None:  # cuda_kern_exec_sum: read as the kernel summary it holds
            return True
        # nsys stats stdout whose kernel table starts beyond the first 64 KiB: its report banners are enough
        return any(_STATS_BANNER.match(ln) for ln in lines[:200])

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        raw = read_input(path)
        lines = raw.data.decode("utf-8", errors="replace").splitlines()
        from gpulens.collectors.nsys_gpu_trace import NsysGpuTrace, header_at

        if header_at(lines) is not None:  # a cuda_gpu_trace table after reports filling the sniffed head: the
            return NsysGpuTrace().collect(path, strict)  # per-event table, as when it lies in the head
        found = _find_header(lines)
        if found is None:  # nsys' console form (--format column): its tables as CSV, line for line
            columns = column_tables_as_csv(lines)
            if columns is not None and _find_header(columns) is not None:
                lines, found = columns, _find_header(columns)
        exec_sum = exec_sum_as_kern_sum(lines) if found is None else None
        if exec_sum is not None and _find_header(exec_sum[0]) is not None:  # cuda_kern_exec_sum: its K columns
            lines, found = exec_sum[0], _find_header(exec_sum[0])
        if found is None:
            # nsys stats says itself why a report is missing ("SKIPPED: x.sqlite does not contain CUDA kernel
            # data."): name that instead of a bare "no header" (chukonu-team/MinerU-merge nsys_stats.csv: osrt_sum
            # only, every CUDA report skipped — the capture traced no CUDA)
            skipped = next((ln.split("does not contain", 1)[1].strip().rstrip(".") for ln in lines
                            if ln.startswith("SKIPPED:") and "does not contain CUDA kernel" in ln), None)
            if skipped is None:  # reports of API calls, NVTX ranges or copies only: say what they hold (exit 5)
                from gpulens.collectors._hints import nsys_stats_note

                raise TraceFormatError(path, nsys_stats_note(raw.data[:1 << 16]) or "no nsys kernel-summary "
                                       "header (Time (%), Total Time, Instances, ..., Name)")
            # B05: a capture with no kernel is no GPU work found (0 kernels, the "no data" exit), as the same
            # capture's SQLite export without a kernel table is — not an unreadable input
            return _no_kernel_data(path, raw.size_bytes, skipped)
        h, mapping = found
        under = table_lines(lines, h)
        rows = list(csv.reader(io.StringIO("\n".join(under), newline="")))
        head = next(csv.reader([lines[h]]))
        width = len(head)
        name_at = next(i for i, (c, _) in mapping.items() if c == "name")
        if name_at == width - 1:  # an unquoted name with commas (``f(float *, int)``) in the last column: rejoin it
            rows = rejoin_last_name(rows, under, width)
        warnings = dedupe_header(path, [c.strip() for c in head])[1]
        if exec_sum is not None:
            warnings.append(f"{path}: kernel summary {WHAT} ({plural(exec_sum[1], 'row(s)')})")
        assumed = unit_note(path, head)
        if assumed:
            warnings.append(assumed)
        text = raw.data.decode("utf-8", errors="replace")
        cut = _cut_last_row(path, text, lines, h + len(under), rows, width, name_at)
        if cut is not None:
            warnings.append(cut)
            rows.pop()
        good = [r for r in rows if len(r) == width]
        if len(good) != len([r for r in rows if r]):
            bad = len([r for r in rows if r]) - len(good)
            if strict and not good:
                raise TraceFormatError(path, f"no row has the header's {width} fields")
            warnings.append(f"{path}: {plural(bad, 'row(s)')} with a wrong field count skipped")
        odd = {col: head[i].strip() for i, (col, f) in mapping.items() if f is None and col.endswith("_ns")}
        if "total_ns" in odd:
            raise TraceFormatError(path, f"the column {odd['total_ns']!r} has a unit that is no time unit gpulens "
                                         "knows (ns, us, ms, s and their spellings): its kernel times are unknown")
        if odd:
            warnings.append(f"{path}: {plural(len(odd), 'column(s)')} with a unit that is no time unit gpulens knows ("
                            + ", ".join(repr(h) for h in odd.values()) + "): their values are unknown")
        data: dict[str, list] = {c: [] for c in SUMMARY_COLUMNS}
        res: dict[str, list] = {c: [] for c, f in mapping.values() if c in _STATS + ("total_ns",)}
        for r in good:
            for i, (col, f) in mapping.items():
                v = r[i].strip()
                if col == "name":
                    data[col].append(r[i])
                    continue
                if col in res:  # the printed precision: its last digit in ns (--timeunit sec with 3 decimals: 1 ms)
                    res[col].append(printed_step(v) * f if f is not None else np.nan)
                try:  # a non-numeric cell is unknown: a row without calls / total time is dropped below
                    # (ASCII only: float() reads "٢٤.٧" or full-width digits as 24.7, which nsys never prints)
                    x = float(v.replace(",", "")) if v and v.isascii() else np.nan
                except ValueError:
                    x = np.nan
                if col.endswith("_ns"):  # a time: in ns, or unknown when its unit is no time
                    x = x * f if f is not None else np.nan
                data[col].append(x)
        n = len(good)
        table = pd.DataFrame({c: (data[c] if data[c] else [np.nan] * n) for c in SUMMARY_COLUMNS})
        for c, steps in res.items():  # carried beside their rows through the row filters below, then dropped
            table[f"step:{c}"] = steps
        pct_at = next((i for i, (c, _) in mapping.items() if c == "time_pct"), None)
        odd_pct, unknown_pct = impossible_shares(path, head[pct_at].strip(), [r[pct_at] for r in good],
                                                 table["name"].tolist()) if pct_at is not None else (None, [])
        if odd_pct:  # shares of no whole: read as unknown, and no cut table told by them
            warnings.append(odd_pct)
            table.loc[np.asarray(unknown_pct, dtype=bool), "time_pct"] = np.nan
        short = None if cut or odd_pct else _rows_missing(path, text, lines, h + len(under), good, mapping,
                                                          table["total_ns"])
        if short is not None:
            warnings.append(short)
        elif pct_at is not None and not odd_pct and not cut and (dis := disagreeing_shares(
                path, head[pct_at].strip(), [r[pct_at] for r in good], table["total_ns"].tolist(),
                table["name"].astype(str).tolist())):
            warnings.append(dis)  # a printed share its own Total Time contradicts: said, never shown silently
        # Declared ranges: calls and total time are finite, non-negative and within int64; durations non-negative.
        num = table[["calls", "total_ns", "mean_ns", "min_ns", "max_ns"]].astype("float64")
        ok = (np.isfinite(num[["calls", "total_ns"]]).all(axis=1) & (num[["calls", "total_ns"]] >= 0).all(axis=1)
              & (num[["calls", "total_ns"]] < 2.0**63).all(axis=1) & ~(num < 0).any(axis=1)
              # F27's kind: a count is a whole number, and time with no instance at all is impossible
              & (num["calls"] == num["calls"].round()) & ~((num["calls"] == 0) & (num["total_ns"] > 0)))
        if not ok.all():
            dropped = int((~ok).sum())
            if not ok.any():
                raise TraceFormatError(path, f"no usable kernel row: {plural(dropped, 'row(s)')} {agree(dropped, 'has', 'have')} a negative, "
                                             "infinite, missing, non-numeric or out-of-range Instances / Total Time / "
                                             "duration, a fractional Instances or time without instances")
            warnings.append(f"{path}: {plural(dropped, 'kernel row(s)')} dropped (negative, infinite, missing, non-numeric or "
                            "out-of-range Instances / Total Time / duration, fractional Instances, or time without "
                            "instances)")
            table = table[ok].reset_index(drop=True)
        bare_total = next(head[i].strip() for i, (c, _) in mapping.items() if c == "total_ns")
        if not _UNIT_RE.match(bare_total):  # a Total Time without a unit read as ns: nsys prints whole ns
            frac = table["total_ns"][(table["total_ns"] % 1) != 0]
            if len(frac):
                raise TraceFormatError(path, f"the column {bare_total!r} has no unit and holds fractions ("
                                             f"{plural(len(frac), 'row')}, e.g. {frac.iloc[0]:g}), which nsys never "
                                             "prints for ns: its time unit is unknown — export it again with the "
                                             "units in the header (nsys stats --format csv)")
        table = _drop_implausible_totals(table, path, warnings)
        factors = {c: f for c, f in mapping.values() if c.endswith("_ns")}
        _blank_impossible_statistics(table, path, warnings,
                                     one_unit=len(set(factors.values())) == 1)
        table = table.drop(columns=[c for c in table.columns if str(c).startswith("step:")])
        table["name"] = table["name"].astype(str)
        cut_names = _cut_names_note(path, table["name"])
        if cut_names:
            warnings.append(cut_names)
        table["calls"] = table["calls"].round().astype("int64")
        table["total_ns"] = table["total_ns"].round().astype("int64")
        for c in ("mean_ns", "min_ns", "max_ns", "median_ns", "stddev_ns", "time_pct"):
            table[c] = table[c].astype("float64")
        mem = mem_time_rows(lines)
        if mem:
            old = any("gpumemtimesum" in ln for ln in lines)  # the report's name before nsys 2022, as the file says
            warnings.append(summary_copies_note(path, *mem, "gpumemtimesum" if old else "cuda_gpu_mem_time_sum"))
        meta = TimelineMeta(sources=[{"path": str(path), "collector": self.name, "size_bytes": raw.size_bytes,
                                      "rank": 0, "aggregate": True}],
                            warnings=[*warnings, f"{path}: nsys stats summary: per-kernel aggregates only, no "
                                                 "timeline (span, busy time and overlap are unknown)"])
        return Timeline(meta=meta, tables={"kernel_summary": table}).validate()


def _no_kernel_data(path: Path, size_bytes: int, what: str) -> Timeline:
    """The empty Timeline of an ``nsys stats`` output whose kernel report nsys skipped ("SKIPPED: x.sqlite does not
    contain CUDA kernel data."): no kernel, an empty kernel summary with its columns, and nsys' reason as a
    warning."""
    table = pd.DataFrame({c: pd.Series([], dtype="float64") for c in SUMMARY_COLUMNS})
    table["name"] = table["name"].astype(str)
    table["calls"] = table["calls"].astype("int64")
    table["total_ns"] = table["total_ns"].astype("int64")
    meta = TimelineMeta(sources=[{"path": str(path), "collector": "nsys_stats", "size_bytes": size_bytes, "rank": 0,
                                  "aggregate": True}],
                        warnings=[f"{path}: nsys stats skipped its kernel report: the export does not contain {what} "
                                  "— no kernel ran during the capture, or CUDA was not traced (nsys profile -t cuda)"])
    return Timeline(meta=meta, tables={"kernel_summary": table}).validate()


def mem_time_rows(lines: list[str]) -> tuple[int, int, float, int] | None:
    """The copy/fill rows of the ``cuda_gpu_mem_time_sum`` report (``gpumemtimesum`` before nsys 2022) among ``lines``
    (CSV, or the console form already rewritten as CSV by :func:`column_tables_as_csv`): (copies, fills, summed
    Total Time in ns, rows) — its header has ``Total Time``, ``Count`` (``Operations`` before nsys 2022) and
    ``Operation`` (``[CUDA memcpy HtoD]``, ``[CUDA memset]``…); None when there is no such table with a row."""
    for i, ln in enumerate(lines):
        head = [c.strip().lower() for c in next(csv.reader([ln]), [])]
        total = next((j for j, c in enumerate(head) if c.startswith("total time")), None)
        counted = "count" if "count" in head else "operations"
        if total is None or counted not in head or "operation" not in head:
            continue
        unit = _UNIT_RE.match(head[total])
        factor = ns_factor(unit.group(2)) if unit else 1.0  # no unit: ns, as the kernel table's
        if factor is None:  # a unit that is no time
            return None
        count, op = head.index(counted), head.index("operation")
        copies = fills = rows = 0
        summed = 0.0
        for row in csv.reader(table_lines(lines, i)):
            try:
                n, t = int(row[count].replace(",", "")), float(row[total].replace(",", ""))
            except (IndexError, ValueError):
                continue
            kind = row[op].lower()
            copies += n if "memcpy" in kind else 0
            fills += n if "memset" in kind else 0
            summed, rows = summed + t * factor, rows + 1
        return (copies, fills, summed, rows) if rows else None
    return None


def _cut_names_note(path: Path, names: pd.Series) -> str | None:
    """The warning for kernel names nsys cut short: its console forms (``--format column`` / ``table``) print at most
    100 characters of a name and end a longer one with ``…``. Distinct kernels whose names share those characters
    then read as one name (their rows are summed as one kernel). None when no name ends with ``…``."""
    cut = names[names.str.endswith("\u2026")]
    if cut.empty:
        return None
    shared = int(cut.duplicated(keep=False).sum())
    return (f"{path}: {plural(len(cut), 'kernel name(s)')} cut short by nsys (ending in '…': its column/table "
            "output prints 100 characters of a name)"
            + (f"; {shared} rows share a cut name and are counted as {cut[cut.duplicated(keep=False)].nunique()} "
               "kernel(s)" if shared else "")
            + " — export with nsys stats --format csv for the full names")


def _drop_implausible_totals(table: pd.DataFrame, path: Path, warnings: list[str]) -> pd.DataFrame:
    """``table`` without the rows no run can have measured (:func:`~gpulens.timeline.sums.implausible_summary_rows`:
    a mean launch beyond 104 days, or the largest totals of a table whose totals add up beyond 146 years, which
    the int64 kernel time would wrap), with a warning counting them; an error when no row is left."""
    bad = implausible_summary_rows(table["calls"].to_numpy(dtype="float64"),
                                   table["total_ns"].to_numpy(dtype="float64"))
    if not bad.any():
        return table
    if bad.all():
        raise TraceFormatError(path, f"no usable kernel row: all {int(bad.sum())} have an implausible Total Time (a "
                                     "mean launch beyond 104 days, or totals adding up beyond 146 years)")
    warnings.append(f"{path}: {plural(int(bad.sum()), 'kernel row(s)')} dropped: an implausible Total Time (a mean "
                    f"launch beyond 104 days, or among the largest of totals adding up beyond 146 years, which no int64 ns sum "
                    "holds): " + ", ".join(table.loc[bad, "name"].astype(str).head(3))[:160])
    return table[~bad].reset_index(drop=True)


def _offset(lines_before: list[str], text: str) -> int:
    """Byte offset in ``text`` of the start of line ``len(lines_before)`` (``str.splitlines`` numbering)."""
    n = len(lines_before)
    return len("".join(text.splitlines(keepends=True)[:n]).encode("utf-8", errors="replace"))


def _cut_last_row(path: Path, text: str, lines: list[str], end: int, rows: list[list[str]], width: int,
                  name_at: int) -> TruncationNote | None:
    """The note for a kernel table (last line ``lines[end]``) that is the end of the file and whose last line is cut (no line end, and the
    row short of the header's fields, inside an open quote, with an empty Name: ``…,6000.0,`` — nsys never
    prints a kernel without a name — or with an unquoted last-column Name that leaves a bracket open,
    ``softmax_kernel(flo``: a demangled signature closes its brackets); None otherwise. The caller drops that row."""
    if not rows or text.endswith(("\n", "\r")) or any(ln.strip() for ln in lines[end + 1:]):
        return None
    last = rows[-1]
    how = ("is cut after {} of {} fields".format(len(last), width) if len(last) < width
           else "ends inside a quoted name" if text.count('"') % 2
           else "ends before its kernel name" if len(last) == width and not last[name_at].strip()
           else "ends inside its unquoted kernel name (a bracket left open)" if _open_bracket(last, width, name_at)
           else None)
    if how is None:
        return None
    at = _offset(lines[:end], text)
    return TruncationNote(f"{path}: truncated: the last line (byte {at:,}) {how} with no line end; the rows before "
                          "it are kept, that one is not", path, at)


def _open_bracket(row: list[str], width: int, name_at: int) -> bool:
    """Whether ``row`` (full width) ends with an unquoted Name, its last column, holding more ``(`` than ``)`` or
    ``<`` than ``>`` — the prefix of a demangled signature (``void gemm<float, 128>(const fl``), not a name."""
    if len(row) != width or name_at != width - 1:
        return False
    name = row[name_at]
    return name.count("(") > name.count(")") or name.count("<") > name.count(">")


def _rows_missing(path: Path, text: str, lines: list[str], end: int, good: list[list[str]],
                  mapping: dict[int, tuple[str, float | None]], totals: pd.Series) -> TruncationNote | None:
    """The note for a kernel table (last line ``lines[end]``) whose rows hold less kernel time than their own ``Time (%)`` shares account for
    (:func:`._shares.missing_share`: rows cut off its end); None when it is whole or has no share column."""
    pct_at = next((i for i, (c, _) in mapping.items() if c == "time_pct"), None)
    if pct_at is None:
        return None
    known = totals.notna().to_numpy()
    lost = missing_share([r[pct_at] for r, k in zip(good, known) if k], totals[known].tolist())
    if lost is None:
        return None
    # rows present whose total time is unreadable (dropped, counted apart) hold their printed shares: not missing
    unread = sum(_share_of(r[pct_at]) for r, k in zip(good, known) if not k)
    if lost <= unread / 100 + 1e-3:
        return None
    at = _offset(lines[:end + 1], text)
    return TruncationNote(f"{path}: truncated: the kernel table's rows hold {100 * (1 - lost):.1f} % at most of the "
                          "kernel time their own Time (%) shares account for: rows are missing after byte "
                          f"{at:,} (at least {100 * lost:.1f} % of the kernel time)", path, at)


def _share_of(text: str) -> float:
    """A printed ``Time (%)`` share, rounded up by half its last digit (the most it may stand for); 0 when it is no
    ASCII decimal number."""
    t = text.strip()
    if not t.isascii():
        return 0.0
    try:
        x = float(t)
    except ValueError:
        return 0.0
    unit = 10.0 ** -(len(t.split(".", 1)[1]) if "." in t else 0)
    return x + unit / 2 if np.isfinite(x) and x >= 0 else 0.0

