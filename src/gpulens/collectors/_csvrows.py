"""RFC-4180 reading of profiler CSVs with an explicit check of row widths (case B17).

rocprof v1 quotes kernel names that contain commas; rocprofv2 (``--plugin file --plugin-version 1``) wrote headers
wider than their rows (ROCm/rocprofiler#144). A naive reader then shifts columns silently (a kernel named ``1``, a
start time that is a string). Here:

* strict mode: any row whose field count differs from the header stops reading with a
  :class:`~gpulens.errors.TraceFormatError` naming the file, the line(s) and both counts;
* lenient mode (``strict=False``): a row is read only where one reading places every field (never a shifted row;
  :func:`read_ragged`): a wider row whose extra fields are a kernel name split by unquoted commas is re-joined —
  when every other field then has its column's type (a number where the file's full-width rows hold numbers) and
  the name does not end in a bare number (``kernel,100`` is a quoted name followed by a shifted count); a
  narrower row whose kernel name sits at the one text field where the fields after it are exactly the header's
  columns after the name column (the fields before it placed only when their count matches, else unknown: a row cut
  by a stray line end) — and, when no row has the header's width (the header is the odd one: rocprofv2's 21-column
  header over 19-field rows, case B17), with the fields after it placed from the left up to the last time column
  (``End_Timestamp``, ``EndNs``…) and the columns after that unknown (which field is missing is not known: one
  missing earlier would shift every later column), only where the row holds a field beyond that column and the times
  read in order (a field missing before them would move that non-time value into the last time column). Every other
  row of the wrong width — an extra trailing field, a field missing after the name among
  full-width rows, a number where the other rows hold text or text where they hold numbers — is dropped, and the
  warning counts it. Each repair is listed in the returned warnings.
"""

from __future__ import annotations

import csv
import io
import re
from itertools import chain
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gpulens.errors import TraceFormatError, TruncationNote
from gpulens.units import plural

_NUMBER = r"(?:[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|nan|NaN|inf|)"
_NUMERIC = re.compile(r"^\s*" + _NUMBER + r"\s*$")
#: Python's ``str`` whitespace (what ``\s`` matches in :data:`_NUMERIC`), for RE2 whose ``\s`` is ASCII only
_SPACE = r"[\t-\r\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"
_NUMERIC_RE2 = "\\A" + _SPACE + "*" + _NUMBER + _SPACE + "*\\z"


#: The most columns a profiler CSV header may have: rocprof v1 / rocprofv3 write one per field and collected
#: counter, ncu's raw page one per metric (a few thousand with ``--set full``); Excel stops at 16,384. A header far
#: wider (a fuzzer's 10^6 columns) made the counter columns cost minutes of DataFrame construction.
MAX_COLUMNS = 65_536

#: Header names (lower case) of columns the profilers write as text whatever the row: rocprofv3's ``Kind``
#: (``"KERNEL_DISPATCH"``), ``Domain``/``Function`` (API traces), ``Operation``/``Direction`` (copies) and agent ids written
#: as labels by ``--agent-index`` (``"GPU 0"``, ROCm/rocprofiler-sdk docs). A row of the wrong width may hold text there
#: even when no row of the file has the header's width to show it (every kernel name split by unquoted commas).
TEXT_COLUMNS = frozenset(("kind", "domain", "function", "operation", "direction", "agent_id", "source_agent_id",
                          "destination_agent_id"))

_SEP_LINE = re.compile(r"\A\ufeff?[ \t]*sep=(.)[ \t]*(?:\r\n|\r|\n|\Z)")


def header_lines(path: Path, header_at: Callable[[list[str]], int | None], missing: str):
    """``(raw, lines, at)``: ``path`` read (:func:`gpulens.collectors._io.read_input`), its text split in lines (a
    byte-order mark dropped, undecodable bytes replaced) and the index of the header ``header_at`` finds in them.

    Raises:
        TraceFormatError: no header (the message ``missing``).
    """
    from gpulens.collectors._io import read_input

    raw = read_input(path)
    lines = raw.data.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()
    at = header_at(lines)
    if at is None:
        raise TraceFormatError(path, missing)
    return raw, lines, at


def excel_sep(text: str) -> tuple[str, str]:
    """``(text, delimiter)``: a first line ``sep=X`` (Excel's delimiter hint, written by users and tools so that
    Excel opens the file in columns) removed and ``X`` returned as the delimiter. Without one, a first line with no
    comma but semicolons or tabs (a CSV saved again by a spreadsheet in a locale whose list separator is ``;``, or
    as Excel's "Unicode text", tab-separated) gives that delimiter; else ``","``."""
    m = _SEP_LINE.match(text)
    if m:
        return text[m.end():], m.group(1)
    first = text.lstrip("\ufeff\r\n")[:65536].split("\n", 1)[0]
    if "," not in first:
        for d in (";", "\t"):
            if first.count(d) >= 2:
                return text, d
    return text, ","


def check_header_width(path: Path, columns: int) -> None:
    """Refuse a CSV header of more than :data:`MAX_COLUMNS` columns.

    Raises:
        TraceFormatError: naming ``path`` and the count.
    """
    if columns > MAX_COLUMNS:
        raise TraceFormatError(path, f"CSV header has {columns:,} columns, more than the {MAX_COLUMNS:,} a profiler "
                                     "table holds (one per field, counter or metric): not a trace table")


def is_numeric_field(s: str | None) -> bool:
    """True for empty, decimal, scientific, hexadecimal (``0x…``) or nan/inf fields."""
    return s is None or bool(_NUMERIC.match(s))


def numeric_mask(values) -> np.ndarray:
    """:func:`is_numeric_field` of every entry of ``values`` (strings or None) at once: a bool array, one per
    entry. The same rule run by Arrow's RE2 over the column (no Python call per field: 1.4M fields of a 100k-row
    CSV took ≈ 6 s one by one); ``\\s`` is spelt out as the characters Python's ``str`` counts as whitespace, so
    both readings agree on every field."""
    try:
        arr = pa.array(values, type=pa.large_string(), from_pandas=False)
    except (UnicodeError, pa.ArrowException):  # a lone surrogate Arrow cannot encode: one by one
        return np.fromiter((is_numeric_field(v) for v in values), dtype=bool, count=len(values))
    return pc.match_substring_regex(arr, _NUMERIC_RE2).fill_null(True).to_numpy(zero_copy_only=False)


def dedupe_header(path: Path, header: list[str]) -> tuple[list[int], list[str]]:
    """The one rule for repeated CSV column names: the first column of a name is used, later ones are dropped
    (every reader maps columns by name; a repeat must not become, e.g., a counter column).

    Returns:
        (keep, warnings): indices of the columns to keep, in order; one warning naming the repeated columns (none
        when all names are distinct).
    """
    seen: set[str] = set()
    keep, dup = [], []
    for i, h in enumerate(header):
        if h in seen:
            if h not in dup:
                dup.append(h)
            continue
        seen.add(h)
        keep.append(i)
    if not dup:
        return keep, []
    shown = ", ".join(repr(h[:60]) for h in dup[:5]) + (f" (+{len(dup) - 5} more)" if len(dup) > 5 else "")
    return keep, [f"{path}: {plural(len(dup), 'repeated CSV column name(s)')} {shown}: the first column of each name "
                  f"is used, the {plural(len(header) - len(keep), 'repeat(s)')} ignored"]


def project(rows: list[list], keep: list[int], width: int) -> list[list]:
    """``rows`` restricted to the columns ``keep`` (no copy when ``keep`` is every one of ``width`` columns)."""
    if len(keep) == width:
        return rows
    return [[r[i] if i < len(r) else None for i in keep] for r in rows]


def _rejoin_leading_name(header: list[str], rec: list[str]) -> list[str] | None:
    """A row of a table whose first column is a name and every other column a number, wider than the header because
    the name holds unquoted commas (rocprof v1 of ROCm 4 wrote ``results.stats.csv`` names unquoted): the leading
    fields re-joined with ``,`` as the name, the trailing ones kept. None when that is not the only reading (a
    trailing field is not a number, or the row is narrower)."""
    w = len(header)
    if len(rec) <= w or w < 2 or not all(is_numeric_field(f) for f in rec[len(rec) - w + 1:]):
        return None
    if not split_name_ok(rec[:len(rec) - w + 1]):
        return None  # ``"k",100,…,24.06,999``: a quoted name and an extra field, not a name with commas
    return [",".join(rec[:len(rec) - w + 1])] + rec[len(rec) - w + 1:]


def split_name_ok(pieces: list[str]) -> bool:
    """Whether ``pieces`` (the fields an unquoted comma split a name into) can be one name: its first and last
    piece are text, not a bare number. A C++ signature split at its commas ends in ``int)``, ``11>`` or
    ``[clone .kd]``; a name followed by a count (``kernel,100``) is a name and a shifted number."""
    return len(pieces) >= 1 and not is_numeric_field(pieces[0]) and not is_numeric_field(pieces[-1])


def rejoin_last_name(rows: list[list[str]], lines: list[str], width: int) -> list[list[str]]:
    """``rows`` (parsed from ``lines``, one row per line) with an unquoted name that commas split in the *last*
    column of a ``width``-column table re-joined (``f(float *, int)`` → one field), as nsys' CSV reports need (nsys
    quotes such names; a hand-edited or re-exported file may not). Re-joined only for a name written unquoted (the
    line ends with the re-joined text) whose pieces can be one name (:func:`split_name_ok`) — a quoted name followed
    by an extra field (``"k",5``) stays a row of the wrong width, never the name ``k,5`` — or a row written with
    every field quoted (a quote-all dialect: the name's pieces quoted one by one, no bare field to mark a shifted
    number). Rows are returned unchanged when the table's rows span several lines (a quoted line break)."""
    if len(rows) != len(lines):
        return rows
    return [r[:width - 1] + [",".join(r[width - 1:])]
            if len(r) > width and split_name_ok(r[width - 1:])
            and (lines[i].rstrip().endswith(",".join(r[width - 1:])) or _all_quoted(lines[i], r)) else r
            for i, r in enumerate(rows)]


def _all_quoted(line: str, fields: list[str]) -> bool:
    """Whether ``line`` is exactly ``fields`` written with every field quoted (``"a","b"``, ``""`` for a quote)."""
    return line.strip() == ",".join('"' + f.replace('"', '""') + '"' for f in fields)


def read_rows(path: Path, text: str, strict: bool = True, name_columns: tuple[str, ...] = (),
              leading_name: bool = False, verify: Callable[[list[str], list], bool] | None = None
              ) -> tuple[list[str], list[list[str | None]], list[str]]:
    """Parse CSV ``text`` into its header and rows of the header's width.

    Args:
        path: the file (for messages).
        text: decoded content.
        strict: see module docstring.
        name_columns: header names of the kernel-name column, lower case (the realignment anchor).
        leading_name: the first column is the only text column (a ``*.stats.csv`` summary): a wider row whose
            trailing fields are all numbers is read, in strict mode too, with its leading fields re-joined as the
            name (the only reading; listed in the warnings).
        verify: ``verify(header, row)`` — True when a row's own figures agree with each other (a stats row: calls ×
            average = total): a narrower row whose trailing columns are missing is then read from the left in lenient
            mode when its figures agree (the reading is checked, not guessed), else dropped.

    Returns:
        (header, rows, warnings): every row has ``len(header)`` entries; ``None`` marks a field that lenient
        realignment could not place. Header names are unique (:func:`dedupe_header`: repeats dropped).

    Raises:
        TraceFormatError: no header; a header of more than :data:`MAX_COLUMNS` columns; or (strict) rows
            wider/narrower than the header.
    """
    text, delim = excel_sep(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
    header: list[str] | None = None
    rows: list[list[str | None]] = []
    bad: list[tuple[int, int]] = []
    raw_bad: list[tuple[int, list[str]]] = []
    for rec in reader:
        if not rec or (len(rec) == 1 and not rec[0].strip()):
            continue
        if header is None:
            check_header_width(path, len(rec))
            header = [h.strip() for h in rec]
            continue
        if len(rec) == len(header):
            rows.append(rec)
        else:
            bad.append((reader.line_num, len(rec)))
            raw_bad.append((len(rows), rec))
            rows.append(rec)
    if header is None:
        raise TraceFormatError(path, "CSV has no header line")
    cut = cut_note(path, text, len(header), rows[-1] if rows else None, header)
    keep, warnings = dedupe_header(path, header)
    if cut is not None:
        warnings.append(cut)
        if rows:
            rows.pop()
        if bad and bad[-1][0] == reader.line_num:
            bad.pop()
            raw_bad.pop()
    if bad and leading_name:
        joined = [(idx, _rejoin_leading_name(header, rec)) for idx, rec in raw_bad]
        if all(j is not None for _, j in joined):
            for idx, j in joined:
                rows[idx] = j
            warnings.append(f"{path}: {plural(len(bad), 'row(s)')} with a name holding unquoted commas (first at line "
                            f"{bad[0][0]}): the fields before the {len(header) - 1} numeric columns re-joined as "
                            "the name")
            bad, raw_bad = [], []
    if not bad:
        return [header[i] for i in keep], project(rows, keep, len(header)), warnings
    if strict:
        lines = ", ".join(str(ln) for ln, _ in bad[:5]) + (f" (+{len(bad) - 5} more)" if len(bad) > 5 else "")
        counts = sorted({n for _, n in bad})
        raise TraceFormatError(
            path, f"line{'s' if len(bad) > 1 else ''} {lines}: {'/'.join(map(str, counts))} fields but the header has "
                  f"{len(header)} columns; refusing to shift columns (--lenient reads such a row only where one reading "
                  "places every field, else drops it)")
    anchor = next((i for i, h in enumerate(header) if h.lower() in name_columns), None)
    ragged = {idx for idx, _ in raw_bad}
    full = [r for i, r in enumerate(rows) if i not in ragged]
    # a column is text when a full-width row holds text in it, or when the formats write text there by name
    # (:data:`TEXT_COLUMNS`: with no full-width row, the only evidence of rocprofv3's ``Kind``, which a split name's
    # rows must hold in place)
    text_cols = {int(i) for i in np.flatnonzero(~table_mask(full, len(header)).all(axis=0))} \
        | {i for i, h in enumerate(header) if h.lower() in TEXT_COLUMNS}
    if anchor is not None:
        text_cols.add(anchor)
    unplaced: set[str] = set()
    placed, dropped = [], []
    gone: set[int] = set()  # rows dropped (a set: a list looked up per ragged row was quadratic, minutes for a
    wide = wider_rows(header, [rec for _, rec in raw_bad], anchor, text_cols)  # the wider rows at once
    for k, ((idx, rec), (line, nf)) in enumerate(zip(raw_bad, bad)):  # binary file of 10^5 ragged "rows" in a
        fixed, lost = (wide[k], []) if len(rec) > len(header) else \
            read_ragged(header, rec, anchor, text_cols, systematic=not full, verify=verify)  # rocprof-compute folder)
        if fixed is None:
            dropped.append((line, nf))
            gone.add(idx)
            continue
        rows[idx] = fixed
        placed.append((line, nf))
        unplaced.update(lost)
    if placed:
        warnings.append(f"{path}: {plural(len(placed), 'row(s)')} did not match the header width ({len(header)} columns; first "
                        f"at line {placed[0][0]} with {placed[0][1]} fields); realigned on the kernel-name column"
                        + (f"; unknown for those rows: {', '.join(sorted(unplaced))}" if unplaced else ""))
    if dropped:
        rows = [r for i, r in enumerate(rows) if i not in gone]
        warnings.append(f"{path}: {plural(len(dropped), 'row(s)')} dropped: their field count does not match the header's "
                        f"{len(header)} columns (first at line {dropped[0][0]} with {dropped[0][1]} fields) and no "
                        "single reading places every field (an extra or missing field, or a text field where the "
                        "other rows hold numbers): not shifted into other columns")
    return [header[i] for i in keep], project(rows, keep, len(header)), warnings


#: Column names of the CSV layouts gpulens reads whose strict prefix, as the last name of a header-only file with no
#: line end, shows the header itself was cut (``Index,KernelName,gpu-id,queue-i``). Lower case. The collectors'
#: own name tables (``_amdcsv.ALIASES``/``IGNORED``, ncu's columns) are added by :func:`_known_columns`; counters
#: listed are the ones every rocprof/Omniperf guide collects (an unlisted counter cut mid-name cannot be told).
_MORE_COLUMNS = ("index", "kernelname", "dispatch_id", "gpu_id", "grid_size", "workgroup_size", "kernel_name",
                 "counter_name", "counter_value", "source_agent_id", "destination_agent_id", "operation", "domain",
                 "function", "calls", "totaldurationns", "averagens", "percentage", "minns", "maxns", "stddev",
                 "grbm_gui_active", "grbm_count", "sq_waves", "sq_wave_cycles", "sq_busy_cycles", "sq_cycles",
                 "gpubusy", "wavefronts", "fetch_size", "write_size", "valuinsts", "salu insts", "sq_insts_valu",
                 "lds_bank_conflict", "ldsbankconflict", "memunitstalled", "l2cachehit")


#: Column names that no profiler writes last: each is followed by more columns in every layout gpulens reads
#: (rocprof v1 ``…,sig,obj``; rocprofv3 ``…,Grid_Size_Z``; Omniperf ``…,wave_size,…``; ncu ``"ID",…,"Metric Value"``;
#: nsys stats ``Time (%),…,Name``). A header-only file with no line end whose last name is one of them was cut.
_NEVER_LAST = frozenset((
    "index", "kernelname", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds", "scr",
    "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "fbar", "sig", "dispatchns", "beginns", "kind", "agent_id",
    "queue_id", "stream_id", "thread_id", "dispatch_id", "kernel_id", "start_timestamp", "private_segment_size",
    "group_segment_size", "workgroup_size_x", "workgroup_size_y", "grid_size_x", "grid_size_y", "lds_block_size",
    "scratch_size", "vgpr_count", "accum_vgpr_count", "sgpr_count", "lds_per_workgroup", "scratch_per_workitem",
    "source_agent_id", "destination_agent_id", "id", "process id", "process name", "host name", "kernel name",
    "context", "stream", "section name", "metric name", "metric unit", "time (%)", "time(%)", "total time (ns)",
    "instances"))


def _known_columns() -> set[str]:
    from gpulens.collectors._amdcsv import ALIASES, IGNORED  # lazy: _amdcsv imports this module
    from gpulens.collectors.ncu_csv import LAUNCH_COLUMNS, LONG_COLUMNS

    out = {n for names in ALIASES.values() for n in names} | set(IGNORED) | set(_MORE_COLUMNS)
    return out | {c.lower() for c in (*LAUNCH_COLUMNS, *LONG_COLUMNS)}


def header_is_cut(header: list[str], text: str) -> bool:
    """Whether a header-only CSV ``text`` (no line end at its end) stops inside its header line: the file ends
    inside a quoted name (an odd number of ``"``), right after a separator (an empty last name), inside brackets
    (``TCC_HIT[1``), on a name no profiler writes last (:data:`_NEVER_LAST`), or on a name that is a strict prefix of
    another column of the same header (``TCC_E`` after ``TCC_EA_WRREQ[1]``) or of a column name gpulens knows and is
    not itself one (``queue-i``, ``GRBM_GUI_ACT``). A cut that ends exactly after a
    counter name that may be the last column cannot be told from a complete header: that file is an empty run."""
    if text.count('"') % 2:
        return True
    last = header[-1].strip().lower() if header else ""
    if not last:
        return len(header) > 1
    if last in _NEVER_LAST or last.count("[") > last.count("]") or last.count("(") > last.count(")"):
        return True  # an instance counter ``TCC_HIT[1`` or a unit ``Avg (ns`` cut before its closing bracket
    if any(h.strip().lower().startswith(last) and h.strip().lower() != last for h in header[:-1]):
        return True  # a strict prefix of a name earlier in the same header (``TCC_E`` after ``TCC_EA_WRREQ[1]``)
    known = _known_columns()
    return last not in known and any(k.startswith(last) for k in known)


def cut_note(path: Path, text: str, width: int, last_row: list | None,
             header: list[str] | None = None) -> TruncationNote | None:
    """The note for a CSV whose last line is cut: the text does not end with a line end and either its last row has
    fewer than ``width`` fields, or the text ends inside a quoted field (an odd number of ``"``: a kernel name cut
    mid-way while the field count still matches), or — a header-only file, ``header`` given — the header line itself
    is cut (:func:`header_is_cut`). None otherwise (a missing final newline alone is no truncation: hand-written
    files often lack it; a complete header-only file is an empty run, not a cut one)."""
    if text.endswith(("\n", "\r")):
        return None
    start = max(text.rfind("\n"), text.rfind("\r")) + 1
    offset = len(text[:start].encode("utf-8", errors="replace"))
    if not last_row:
        if header is None or not header_is_cut(header, text):
            return None
        return TruncationNote(f"{path}: truncated: the file ends inside its header line (byte {offset:,} on, "
                              f"{plural(len(header), 'column name(s)')}, the last one cut, no line end); no row was "
                              f"read",
                              path, offset)
    open_quote = text.count('"') % 2 == 1
    short_end = len(last_row) >= width and not open_quote and _end_before_start(header, last_row)
    if len(last_row) >= width and not open_quote and not short_end:
        return None
    if open_quote:  # the quoted field may span lines: the cut record starts at the last unquoted line start
        offset = _record_start(text)
    how = (f"is cut after {len(last_row)} of {width} fields" if len(last_row) < width
           else "ends inside a quoted field" if open_quote else
           f"ends in its last column {header[-1]!r} with a time before the row's start (digits lost)")
    return TruncationNote(f"{path}: truncated: the last line (byte {offset:,}) {how} with no line end; the rows "
                          f"before it are kept, that one is not", path, offset)


#: Last columns that are a time at or after the row's start (rocprof v1 ``CompleteNs``/``EndNs``, rocprofv3
#: ``End_Timestamp``), with the start columns they are compared with.
_END_COLUMNS = ("completens", "endns", "end_timestamp")
_START_COLUMNS = ("beginns", "start_timestamp", "dispatchns")


def _end_before_start(header: list[str] | None, row: list) -> bool:
    """Whether the last field of a full-width ``row`` with no line end is an end time below the row's start: a
    number that lost its last digits to a cut (the field count still matches)."""
    if not header or header[-1].strip().lower() not in _END_COLUMNS:
        return False
    lower = [h.strip().lower() for h in header]
    start = next((lower.index(c) for c in _START_COLUMNS if c in lower), None)
    try:
        return start is not None and int(str(row[-1]).strip()) < int(str(row[start]).strip())
    except (TypeError, ValueError, IndexError):
        return False


def _record_start(text: str) -> int:
    """Byte offset of the start of the last CSV record of ``text`` (a line start outside quotes); the quote state
    at the last 64 KiB is counted in C, only that tail is walked."""
    base = max(0, len(text) - 65536)
    inside, start = text.count('"', 0, base) % 2 == 1, 0
    for i in range(base, len(text)):
        ch = text[i]
        if ch == '"':
            inside = not inside
        elif ch in "\n\r" and not inside:
            start = i + 1
    return len(text[:start].encode("utf-8", errors="replace"))


def read_ragged(header: list[str], rec: list[str], anchor: int | None, text_cols: set[int],
                systematic: bool, verify: Callable[[list[str], list], bool] | None = None
                ) -> tuple[list[str | None] | None, list[str]]:
    """The one reading of a row of the wrong width that places every field (see module docstring), or None.

    Args:
        header: column names; rec: the row's fields; anchor: index of the kernel-name column (None: no reading).
        text_cols: columns that hold text (others must hold numbers: :func:`is_numeric_field`).
        systematic: no row of the file has the header's width (the header is the odd one, case B17).
        verify: see :func:`read_rows` — a narrower row read from the left when its figures agree.

    Returns:
        (row, lost): the row placed under the header (``None`` for unknown fields) and the header names left
        unknown; (None, []) when the row has no single reading (the caller drops it).
    """
    n = len(header)
    if anchor is None:
        return None, []
    if len(rec) > n:  # a name split by unquoted commas: re-join the fields that can only be it
        return wider_rows(header, [rec], anchor, text_cols)[0], []
    # a narrower row: the name at one of its text fields, the fields on a side of it placed only when their count is
    # the header's on that side (else that side is unknown) — or, when no row has the header's width (case B17), the
    # fields after it from the left; a row with no such placement, or with several, has no single reading
    found = []
    for pos in (i for i, f in enumerate(rec) if not is_numeric_field(f)):
        before, after = rec[:pos], rec[pos + 1:]
        if len(before) > anchor or len(after) > n - anchor - 1:
            continue
        exact_before, exact_after = len(before) == anchor, len(after) == n - anchor - 1
        checked = False
        if not exact_after and verify is not None:
            checked = True  # the trailing columns missing: kept only if the row's own figures agree
        elif not exact_after and not systematic:
            continue  # which of the fields after the name is missing is unknown
        out = [None] * n
        out[anchor] = rec[pos]
        if exact_before:
            out[:anchor] = before
        upto = len(after)
        if not exact_after and not checked:
            # from the left, a missing field among the placed ones would shift every one after it: only the columns
            # up to the name's last time column are placed, when the row holds a field beyond it and the times read
            # in order (a field missing before a time column moves that later, non-time field into it: out of
            # order); the rest stay unknown
            upto = _left_reading(header, anchor, after)
            if upto is None:
                continue
        for j, v in enumerate(after[:upto]):
            out[anchor + 1 + j] = v
        if _types_fit(out, text_cols, anchor) and (not checked or verify(header, out)):
            found.append(out)
    if len(found) != 1:
        return None, []
    return found[0], [h for h, v in zip(header, found[0]) if v is None]


def table_mask(rows: list[list[str]], width: int) -> np.ndarray:
    """:func:`numeric_mask` of ``rows`` (each of ``width`` fields) as a (rows × width) bool array, in one pass."""
    if not rows:
        return np.ones((0, width), dtype=bool)
    return numeric_mask(list(chain.from_iterable(rows))).reshape(len(rows), width)


def wider_rows(header: list[str], recs: list[list[str]], anchor: int | None, text_cols: set[int]
               ) -> list[list[str] | None]:
    """:func:`read_ragged` of every row of ``recs`` wider than ``header``, at once: each such row with the fields
    from the name column ``anchor`` on that only a name split by unquoted commas can be re-joined (its first and last
    piece text, :func:`split_name_ok`; every other field a number outside ``text_cols``), None for a row with no such
    reading or no wider than the header. The type checks run per column over all rows of one width
    (:func:`numeric_mask`), not per field."""
    n = len(header)
    out: list[list[str] | None] = [None] * len(recs)
    if anchor is None:
        return out
    by_width: dict[int, list[int]] = {}
    for k, rec in enumerate(recs):
        if len(rec) > n:
            by_width.setdefault(len(rec), []).append(k)
    for w, ks in by_width.items():
        extra = w - n
        num = table_mask([recs[k] for k in ks], w)
        # the header column each field lands in: those before the name keep theirs, those after move left by extra
        must_number = [j for j in range(w) if not anchor <= j <= anchor + extra
                       and (j if j < anchor else j - extra) not in text_cols]
        ok = ~num[:, anchor] & ~num[:, anchor + extra] & num[:, must_number].all(axis=1)
        for k in np.asarray(ks)[ok].tolist():
            rec = list(recs[k])
            out[k] = rec[:anchor] + [",".join(rec[anchor:anchor + extra + 1])] + rec[anchor + extra + 1:]
    return out


_TIME_COLUMN = re.compile(r"^(start|end|begin|complete|dispatch)_?(timestamp|ns)?$", re.ASCII | re.IGNORECASE)


def _left_reading(header: list[str], anchor: int, after: list[str]) -> int | None:
    """How many of the fields ``after`` the name column ``anchor`` a row short of fields there places from the left
    (the case-B17 reading: its trailing columns missing): those up to the last time column after the name
    (``Start_Timestamp``/``End_Timestamp``, ``DispatchNs``…``CompleteNs``), when the row holds a field beyond it and
    the times so placed never decrease; 0 when no time column follows the name; None when the reading does not hold
    (a field missing before or among the time columns)."""
    times = [i - anchor - 1 for i in range(anchor + 1, len(header)) if _TIME_COLUMN.match(header[i].strip())]
    if not times:
        return 0
    if len(after) <= times[-1] + 1:
        return None
    try:
        values = [float(after[j]) for j in times if after[j].strip()]
    except ValueError:
        return None
    return times[-1] + 1 if all(a <= b for a, b in zip(values, values[1:])) else None


def _types_fit(row: list[str | None], text_cols: set[int], anchor: int) -> bool:
    """Every placed field of ``row`` outside the text columns is a number, and the name is text."""
    if row[anchor] is None or is_numeric_field(row[anchor]):
        return False
    return all(v is None or i in text_cols or is_numeric_field(v) for i, v in enumerate(row))


def last_line_cut(path: Path, text: str | bytes, complete) -> TruncationNote | None:
    """The note for a line-record text file (roctracer ``*_trace.txt``, rocprof ``results.txt``) whose last line is
    cut: no line end after it and ``complete(last_line)`` is false (the line is not a whole record). None
    otherwise. The caller drops that line from its records (it is not counted as a malformed line)."""
    nl = b"\n" if isinstance(text, bytes) else "\n"
    cr = b"\r" if isinstance(text, bytes) else "\r"
    body = text.rstrip(b" \t" if isinstance(text, bytes) else " \t")
    if not body or body.endswith((nl, cr)):
        return None
    start = max(body.rfind(nl), body.rfind(cr)) + 1
    if complete(body[start:]):
        return None
    offset = start if isinstance(text, bytes) else len(text[:start].encode("utf-8", errors="replace"))
    return TruncationNote(f"{path}: truncated: the last line (byte {offset:,}) is cut with no line end; the records "
                          "before it are kept, that one is not", path, offset)
