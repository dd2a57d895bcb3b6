"""Console section for the analyses that have no dedicated console table (operator roll-up, annotations,
distributions, memory, critical path, copies, collectives, speed of light, …): a compact table per result.

Formatting only, driven by each result's declared column units (:func:`gpulens.reports._format.fmt_value`);
the full tables are in the JSON, HTML and Markdown reports and the ``--csv``/``--parquet`` export.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

# the compact-table rules live in a module free of rich (--markdown uses them); _blank and _sort_column re-exported
from gpulens.reports._compact import (NAME_COLUMNS, USER_TEXT_COLUMNS, _blank, _sort_column,  # noqa: F401
                                      compact_columns, lower_bound_note)
from gpulens.reports._fit import Col, FitTable
from gpulens.reports._format import (TEXT_UNITS, column_label, fmt_value, result_title, source_vendor,
                                     unit_of, vendor_label)
from gpulens.reports._md_safe import visible
from gpulens.reports._names import is_name_column, short_names
from gpulens.reports._values import lower_bound_flags, lower_bound_mark

#: Results the console already shows in their own sections.
SHOWN = frozenset({"hotspots", "breakdown", "roofline", "occupancy", "verdicts", "bottlenecks", "ranks", "stalls",
                   "stream_timeline", "queue_length_series", "memory_series", "critical_path_segments"})
#: Rows and columns of each compact table.
ROWS, COLS = 5, 6


def other_renderables(s: Any, rows: int = ROWS) -> list:
    """One compact table (first ``rows`` rows, first :data:`COLS` columns) per non-empty result not in SHOWN."""
    parts: list = []
    for name, r in s.results.items():
        if name in SHOWN or r.skipped or not len(r.table):
            continue
        cols = compact_columns(r, COLS)
        if not cols:
            continue
        head = r.table.iloc[:rows]
        more = f" — first {rows} of {len(r.table):,} rows" if len(r.table) > rows else ""
        cells = {}
        for c in cols:
            vals = head[c].tolist()
            if c in NAME_COLUMNS and c not in USER_TEXT_COLUMNS and all(isinstance(v, str) for v in vals):
                # kernel names short (as every report labels them); operator and annotation names as recorded
                # ("aten::mm", as the HTML and Markdown tables show them), control characters made visible
                names = short_names(vals) if is_name_column(str(c), r.columns.get(c, "")) else \
                    [visible(v, bidi=True) for v in vals]
                # a blank name (an unlinked kernel's op) reads "unknown" as in the HTML and Markdown tables
                cells[c] = [n if v.strip() else fmt_value(v, str(c), r.columns.get(c, "")) for n, v in zip(names, vals)]
            else:
                cells[c] = [fmt_value(v, str(c), r.columns.get(c, "")) for v in vals]
        # a figure (time, bytes, %, count…) never wraps; names and text do; columns after the third may be left out
        vendor = (r.summary or {}).get("vendor") or source_vendor(s)
        fit_cols = [Col(vendor_label(str(c), vendor, column_label(str(c), r.columns.get(c, "")), r.columns.get(c, "")),
                        "right" if _figure(c, r.columns.get(c, "")) else "left",
                        figure=_figure(c, r.columns.get(c, "")), optional=k >= 3) for k, c in enumerate(cols)]
        note = _lower_bounds(r, head, cols, cells)
        rows_ = [[Text(str(cells[c][i])) for c in cols] for i in range(len(head))]
        parts.append(FitTable(f"{result_title(name, vendor)}{more}", fit_cols, rows_))
        if note:
            parts.append(Text(note, style="dim"))
    return parts


def _lower_bounds(r: Any, head: Any, cols: list, cells: dict) -> str:
    """Mark the FLOP figures of the shown rows whose ``flops_lower_bound`` note is set with "≥ " (in ``cells``, in
    place, :func:`gpulens.reports._values.lower_bound_mark`) and return :func:`lower_bound_note` to say under the
    table ("" when none): the console's hierarchical roofline showed "17.18 GFLOP" for a kernel whose FP counters
    were partly missing, while the HTML and JSON said it is a lower bound (H200 ncu CSV gemm_wmma)."""
    note = lower_bound_note(head)
    if not note:
        return ""
    flags = lower_bound_flags(head)
    for c in cols:
        unit = unit_of(str(c), r.columns.get(c, ""))
        cells[c] = [lower_bound_mark(str(v), str(c), unit, lower) for v, lower in zip(cells[c], flags)]
    return "≥ " + note


def _figure(column: Any, doc: str) -> bool:
    """True for a column whose unit is a figure (time, bytes, FLOP, %, share, count, ratio, id, bool)."""
    return str(column) not in NAME_COLUMNS and unit_of(str(column), doc) not in TEXT_UNITS
