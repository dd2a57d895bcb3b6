"""RFC-4180 reading of profiler CSVs with an explicit check of row widths (case B17).

rocprof v1 quotes kernel names that contain commas; rocprofv2 (``--plugin file --plugin-version 1``) wrote headers
wider than their rows (ROCm/rocprofiler#144). A naive reader then shifts columns silently (a kernel named ``1``, a
start time that is a string). Here:

* strict mode: any row whose field count differs from the header stops reading with a
  :class:`~gpulens.errors.TraceFormatError` naming the file, the line(s) and both counts;
* lenient mode (``strict=False``): the row is realigned on its kernel-name field (the one non-numeric field): the
  fields after it map to the header columns after the name column; the fields before it map only when their count
  matches, else those columns are left unknown; a name split by unquoted commas is re-joined. Each repair is
  listed in the returned warnings.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from gpulens.errors import TraceFormatError, TruncationNote

_NUMERIC = re.compile(r"^\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|nan|NaN|inf|)\s*$")


def is_numeric_field(s: str | None) -> bool:
    """True for empty, decimal, scientific, hexadecimal (``0x…``) or nan/inf fields."""
    return s is None or bool(_NUMERIC.match(s))


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
    return keep, [f"{path}: repeated CSV column name(s) {shown}: the first column of each name is used, the "
                  f"{len(header) - len(keep)} repeat(s) ignored"]


def project(rows: list[list], keep: list[int], width: int) -> list[list]:
    """``rows`` restricted to the columns ``keep`` (no copy when ``keep`` is every one of ``width`` columns)."""
    if len(keep) == width:
        return rows
    return [[r[i] if i < len(r) else None for i in keep] for r in rows]


def read_rows(path: Path, text: str, strict: bool = True,
              name_columns: tuple[str, ...] = ()) -> tuple[list[str], list[list[str | None]], list[str]]:
    """Parse CSV ``text`` into its header and rows of the header's width.

    Args:
        path: the file (for messages).
        text: decoded content.
        strict: see module docstring.
        name_columns: header names of the kernel-name column, lower case (the realignment anchor).

    Returns:
        (header, rows, warnings): every row has ``len(header)`` entries; ``None`` marks a field that lenient
        realignment could not place. Header names are unique (:func:`dedupe_header`: repeats dropped).

    Raises:
        TraceFormatError: no header; or (strict) rows wider/narrower than the header.
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    rows: list[list[str | None]] = []
    bad: list[tuple[int, int]] = []
    raw_bad: list[tuple[int, list[str]]] = []
    for rec in reader:
        if not rec or (len(rec) == 1 and not rec[0].strip()):
            continue
        if header is None:
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
    cut = cut_note(path, text, len(header), rows[-1] if rows else None)
    keep, warnings = dedupe_header(path, header)
    if cut is not None:
        warnings.append(cut)
        rows.pop()
        if bad and bad[-1][0] == reader.line_num:
            bad.pop()
            raw_bad.pop()
    if not bad:
        return [header[i] for i in keep], project(rows, keep, len(header)), warnings
    if strict:
        lines = ", ".join(str(ln) for ln, _ in bad[:5]) + (f" (+{len(bad) - 5} more)" if len(bad) > 5 else "")
        counts = sorted({n for _, n in bad})
        raise TraceFormatError(
            path, f"line{'s' if len(bad) > 1 else ''} {lines}: {'/'.join(map(str, counts))} fields but the header has "
                  f"{len(header)} columns; refusing to shift columns (use lenient mode to realign on the kernel name)")
    anchor = next((i for i, h in enumerate(header) if h.lower() in name_columns), None)
    unplaced: set[str] = set()
    for idx, rec in raw_bad:
        fixed, lost = realign(header, rec, anchor)
        rows[idx] = fixed
        unplaced.update(lost)
    warnings.append(f"{path}: {len(bad)} row(s) did not match the header width ({len(header)} columns; first at "
                    f"line {bad[0][0]} with {bad[0][1]} fields); realigned on the kernel-name column"
                    + (f"; unknown for those rows: {', '.join(sorted(unplaced))}" if unplaced else ""))
    return [header[i] for i in keep], project(rows, keep, len(header)), warnings


def cut_note(path: Path, text: str, width: int, last_row: list | None) -> TruncationNote | None:
    """The note for a CSV whose last line is cut: the text does not end with a line end and its last row has fewer
    than ``width`` fields (a writer killed mid-line, a copy cut short). None otherwise (a missing final newline alone
    is no truncation: hand-written files often lack it; a header-only file is an empty run, not a cut one)."""
    if not last_row or text.endswith(("\n", "\r")) or len(last_row) >= width:
        return None
    start = max(text.rfind("\n"), text.rfind("\r")) + 1
    offset = len(text[:start].encode("utf-8", errors="replace"))
    return TruncationNote(f"{path}: truncated: the last line (byte {offset:,}) is cut after {len(last_row)} of "
                          f"{width} fields with no line end; the rows before it are kept, that one is not",
                          path, offset)


def realign(header: list[str], rec: list[str], anchor: int | None) -> tuple[list[str | None], list[str]]:
    """Place the fields of a row of the wrong width under the header (see module docstring).

    Returns:
        (row, lost): the realigned row (``None`` for unknown fields) and the header names left unknown.
    """
    n = len(header)
    text_idx = [i for i, f in enumerate(rec) if not is_numeric_field(f)]
    if anchor is None or not text_idx:
        out: list[str | None] = (rec + [None] * n)[:n]  # nothing to anchor on: keep left-aligned, pad/cut
        return out, [h for h, v in zip(header, out) if v is None]
    if len(rec) > n and len(text_idx) > 1 and text_idx[0] == anchor:
        extra = len(rec) - n  # unquoted commas split the name: re-join the run of text fields
        rec = rec[:anchor] + [",".join(rec[anchor:anchor + extra + 1])] + rec[anchor + extra + 1:]
        if len(rec) == n:
            return list(rec), []
    pos = text_idx[0]
    out = [None] * n
    out[anchor] = rec[pos]
    before, after = rec[:pos], rec[pos + 1:]
    if len(before) == anchor:
        out[:anchor] = before
    for j, v in enumerate(after[: n - anchor - 1]):
        out[anchor + 1 + j] = v
    return out, [h for h, v in zip(header, out) if v is None]
