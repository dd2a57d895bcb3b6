"""Nsight Compute text report (``ncu`` run without ``--csv``, its stdout saved to a file; or
``ncu --import r.ncu-rep`` printed as text) → Timeline + Counters, through the same builder as the CSV reader.

This is the form most often committed beside CUDA code (``ncu ./app > ncu.log``). Its layout, per profiled launch::

    [828] cuda_exec.out@127.0.0.1                                         ← [pid] process@host
      sgemm(int, …, float *) (32, 32, 1)x(32, 32, 1), Context 1, Stream 7, Device 0, CC 7.5
        Section: GPU Speed Of Light Throughput
        ----------------------- ------------- -------------
        Metric Name               Metric Unit  Metric Value       ← header rows: ncu 2023+ only
        ----------------------- ------------- -------------
        DRAM Frequency          cycle/nsecond          5.00
        Duration                      msecond         96.32
        ----------------------- ------------- -------------

        OPT   This kernel exhibits low compute throughput …   ← a rule message

The launch line is ``NAME (gx, gy, gz)x(bx, by, bz), Context C, Stream S, Device D, CC M.m``; ncu releases before
2021 print ``NAME, YYYY-Mon-DD hh:mm:ss, Context C, Stream S`` (no grid, block or device), both are read. A per-kernel
summary (``--print-summary per-kernel``) prints ``NAME (grid)x(block), Invocations N`` (device and CC on the line
itself or on a ``Device D, CC M.m`` line above) and Minimum / Maximum / Average columns: its kernel becomes N
launches, each with the Average (said in a warning). Each
table's columns are the runs of dashes of the rule above its header (ncu sizes them to their contents): the metric
name is the first column's text, the unit the text up to the value column, the value the rest of the line (a row
indented deeper than its rule shifts every column by as much). Values
keep ncu's thousands separators and units (``56,344,784``, ``msecond``, ``Kbyte``) and are converted like the
CSV's (:mod:`gpulens.collectors._ncu_units`). Lines of the program's own output and ``==PROF==`` lines between
launches are skipped. A launch line with no table after it (ncu printed no section) is a launch with unknown
duration. A rule message (``OPT`` / ``WRN`` / ``INF`` / ``ERR``, its text continued on lines indented to its
column, ncu 2023+ heading it with ``Est. [Local|Global] Speedup: P%``) is a rule result of that launch; the text
report names no rule, so the section it sits under stands for its name.

Output as :mod:`gpulens.collectors._ncu` (synthetic start times: ncu replays kernels one at a time).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors import _ncu
from gpulens.collectors._io import read_input
from gpulens.collectors._ncu_units import decimal_comma, decimal_comma_note, parse_number
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline

#: ``[pid] process@host`` opening a process's launches.
#: (re.ASCII throughout: ``\d`` read digits of other scripts, which ``int`` turns into numbers.)
_PROCESS = re.compile(r"^\s*\[(\d+)\]\s+(.+?)@(\S+)\s*$", re.ASCII)
#: A launch line (ncu 2021+): name, grid and block, context, stream, and (2022+) device and compute capability.
_LAUNCH = re.compile(r"^\s+(?P<name>\S.*?) \((?P<grid>\d+, \d+, \d+)\)x\((?P<block>\d+, \d+, \d+)\), "
                     r"Context (?P<context>\d+), Stream (?P<stream>\d+)"
                     r"(?:, Device (?P<device>\d+), CC (?P<cc>\d+\.\d+))?\s*$", re.ASCII)
#: A launch line of ncu 2019–2020: name, the launch's date and time, context, stream.
_LAUNCH_OLD = re.compile(r"^\s+(?P<name>\S.*?), \d{4}-[A-Za-z]{3}-\d{1,2} \d{1,2}:\d{2}:\d{2}, "
                         r"Context (?P<context>\d+), Stream (?P<stream>\d+)\s*$", re.ASCII)
#: A kernel of a per-kernel summary (``--print-summary per-kernel``): ``NAME (grid)x(block)[, Context C, Stream S]
#: [, Device D, CC M.m], Invocations N``; its tables give Minimum / Maximum / Average over the N launches.
_LAUNCH_SUM = re.compile(r"^\s+(?P<name>\S.*?) \((?P<grid>\d+, \d+, \d+)\)x\((?P<block>\d+, \d+, \d+)\)"
                         r"(?:, Context (?P<context>\d+))?(?:, Stream (?P<stream>\d+))?"
                         r"(?:, Device (?P<device>\d+), CC (?P<cc>\d+\.\d+))?, Invocations (?P<n>\d+)\s*$", re.ASCII)
#: ``Device D, CC M.m`` on its own line above a summary's kernels (ncu 2023+ ``--print-summary``).
_DEVICE = re.compile(r"^\s+Device (?P<device>\d+), CC (?P<cc>\d+\.\d+)\s*$", re.ASCII)
_SECTION = re.compile(r"^\s+Section: (.+?)\s*$")
#: Most launches a per-kernel summary is expanded into (its Invocations summed): a larger count is refused.
MAX_LAUNCHES = _ncu.MAX_SUMMARY_LAUNCHES
_RULE_LINE = re.compile(r"^(\s+)(OPT|WRN|INF|ERR)(\s{2,})(\S.*?)\s*$")
#: ncu 2023+'s estimate heading a rule message: ``Est. Speedup: 92.5%``, ``Est. Local Speedup: 79.63%``.
_EST = re.compile(r"^Est\. (?:(Local|Global) )?Speedup: ([\d.,]+)%\s*(.*)$", re.IGNORECASE | re.ASCII)
RULE_COLUMNS = ["launch", "section", "rule", "type", "description", "speedup_type", "estimated_speedup_pct"]
_DASHES = re.compile(r"-+")


def _is_rule(line: str) -> bool:
    return bool(line.strip()) and set(line.strip()) <= {"-", " "} and "-" in line


def looks_like_ncu_text(text: str) -> bool:
    """True when ``text`` (the head of a file) holds an ncu text report: a launch line, then a ``Section:`` line with
    the dash rule of its table right under it."""
    if "Section: " not in text:  # the section line (_SECTION) is required: no line-by-line match without it
        return False
    lines = text.splitlines()
    seen_launch = False
    for i, ln in enumerate(lines):
        if _LAUNCH.match(ln) or _LAUNCH_OLD.match(ln) or _LAUNCH_SUM.match(ln):
            seen_launch = True
        elif seen_launch and _SECTION.match(ln):
            return i + 1 < len(lines) and _is_rule(lines[i + 1])
    return False


def parse(text: str) -> tuple[list[dict[str, Any]], pd.DataFrame, list[dict[str, str]], pd.DataFrame, int, str | None]:
    """The launches, long metric rows (``launch, section, metric, unit, value``; value in the printed unit, NaN for
    text), text-valued metrics per launch, the rule messages (:data:`RULE_COLUMNS`), the number of launches from a
    per-kernel summary (each of a summary kernel's N invocations is one launch with the summary's *averages*), and
    the first value only a decimal-comma locale writes, or None (:func:`~gpulens.collectors._ncu_units.decimal_comma`)."""
    launches: list[dict[str, Any]] = []
    rows: list[tuple] = []  # (launch, section, metric, unit, value text → number)
    strings: list[dict[str, str]] = []
    rules: list[tuple] = []
    proc: dict[str, Any] = {}
    calls: list[int] = []  # launches each launch line stands for (a summary's Invocations, else 1)
    section = ""
    lines = text.splitlines()
    i, n = 0, len(lines)
    while i < n:
        ln = lines[i]
        if m := _PROCESS.match(ln):
            proc = {"pid": m.group(1), "process": m.group(2), "host": m.group(3)}
        elif m := _DEVICE.match(ln):
            proc = {**proc, "device": m.group("device"), "cc": m.group("cc")}
        elif (m := _LAUNCH.match(ln)) or (m := _LAUNCH_OLD.match(ln)) or (m := _LAUNCH_SUM.match(ln)):
            d = {k: v for k, v in m.groupdict().items() if v is not None}
            calls.append(int(d.pop("n", 1)))
            for k in ("grid", "block"):
                if k in d:
                    d[k] = f"({d[k]})"
            launches.append({"id": str(len(launches)), **proc, **d})
            strings.append({})
            section = ""
        elif launches and (m := _SECTION.match(ln)):
            section = m.group(1)
        elif launches and (m := _RULE_LINE.match(ln)):
            # a rule message: its type, then its text — continuation lines indented to the text's column
            col = len(m.group(1)) + len(m.group(2)) + len(m.group(3))
            text = [m.group(4)]
            while i + 1 < n and lines[i + 1].strip() and len(lines[i + 1]) - len(lines[i + 1].lstrip()) >= col \
                    and not _is_rule(lines[i + 1]):
                i += 1
                text.append(lines[i].strip())
            est = _EST.match(text[0])
            kind, pct = ("", np.nan)
            if est:
                kind, pct = (est.group(1) or "").lower(), est.group(2)  # a number once the locale is known
                text = ([est.group(3)] if est.group(3) else []) + text[1:]
            # the text report names no rule: the section it sits under stands for it
            rules.append((len(launches) - 1, section, section or "rule", m.group(2), " ".join(text), kind, pct))
        elif launches and _is_rule(ln) and i + 1 < n and lines[i + 1].strip() and not _is_rule(lines[i + 1]):
            spans = [mm.span() for mm in _DASHES.finditer(ln)]
            # a header row between two rules (ncu 2023+); ncu 2021-2022 print the rows right under the first rule
            header = "Metric Name" in lines[i + 1] and i + 2 < n and _is_rule(lines[i + 2])
            i += 3 if header else 1
            while i < n and lines[i].strip() and not _is_rule(lines[i]) and not _RULE_LINE.match(lines[i]):
                row = lines[i]
                # rows indented deeper than their rule (seen in saved ncu 2022 logs) shift every column alike
                sh = max(0, len(row) - len(row.lstrip()) - spans[0][0])
                if len(spans) >= 3:  # name, unit, value — or a summary's name, unit, minimum, maximum, average
                    name = row[spans[0][0] + sh:spans[0][1] + sh].strip()
                    unit = row[spans[0][1] + sh:spans[2][0] + sh].strip()
                    value = row[spans[-1][0] + sh:].strip()
                else:  # a two-column table (name, value)
                    name, unit, value = (row[spans[0][0] + sh:spans[0][1] + sh].strip(), "",
                                         row[spans[0][1] + sh:].strip())
                rows.append((len(launches) - 1, section, name, unit, value))
                i += 1
            if i < n and _is_rule(lines[i]):
                i += 1  # the closing rule: not the opening of another table
            continue
        i += 1
    comma = decimal_comma(r[4] for r in rows)  # ncu writes the locale's separators: read the file one way
    dec = comma is not None
    for k, (launch, _, name, _, value) in enumerate(rows):
        num = parse_number(value, dec)
        if num is None and value not in ("", "n/a", "N/A"):
            strings[launch].setdefault(name, value)
        rows[k] = rows[k][:4] + (np.nan if num is None else float(num),)
    rules = [r[:6] + ((np.nan if (v := parse_number(r[6], dec)) is None else v) if isinstance(r[6], str) else r[6],)
             for r in rules]
    metrics = pd.DataFrame(rows, columns=["launch", "section", "metric", "unit", "value"])
    rule_df = pd.DataFrame(rules, columns=RULE_COLUMNS)
    launches, metrics, strings, rule_df = _ncu.expand_summary(launches, metrics, strings, rule_df, calls)
    return launches, metrics, strings, rule_df, int(sum(c for c in calls if c > 1)), comma


class NcuTextCollector(Collector):
    """Nsight Compute's text report (``ncu`` without ``--csv``; see module docstring)."""

    name = "ncu_text"
    suffixes = (".txt", ".log", ".ncu.txt")
    priority = 21

    def sniff(self, path: Path, head: bytes) -> bool:
        return looks_like_ncu_text(head.decode("utf-8", errors="replace"))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        raw = read_input(path)
        text = raw.data.decode("utf-8-sig", errors="replace")
        try:
            launches, metrics, strings, rules, summarised, comma = parse(text)
        except ValueError as e:
            raise TraceFormatError(path, str(e)) from None
        if not launches:
            raise TraceFormatError(path, "no Nsight Compute launch line (NAME (grid)x(block), Context C, Stream S) "
                                         "found")
        warnings = []
        if summarised:
            warnings.append(_ncu.summary_note(path, summarised, ""))
        if comma:
            warnings.append(decimal_comma_note(path, comma))
        return _ncu.build(path, self.name, launches, metrics, strings, rules, warnings, {"layout": "text"})
