"""Building blocks of the HTML report: escaping, data tables, embedded plotly figures, the palette, page chrome.

Everything here formats; nothing computes a metric. Text from traces (kernel names, paths, warnings) is escaped
for the context it lands in: :func:`esc` for HTML, :func:`plot_text` for plotly labels (plotly reads a small
HTML-like markup in labels, and decodes ``&lt;``), and :func:`script_json` for JSON inside ``<script>``.
"""

from __future__ import annotations

import functools
import json
import math
import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import pandas as pd

from gpulens.reports._md_safe import visible
from gpulens.reports._values import _PLAIN_NUMBERS, ge_mark, largest_items, lower_bound_column, lower_bound_flags
from gpulens.reports._values import _SCALARS as _CELL_SCALARS
from gpulens.reports._values import _UNKNOWN, unknown_everywhere  # noqa: F401 (re-exported: the HTML pages use it)
from gpulens.reports._format import (MISSING, TEXT_UNITS, _is_bool, _is_num, clip, column_label, fmt_unit, is_missing,
                                      unit_of)
from gpulens.reports._names import is_name_column, short_names  # noqa: F401 (is_name_column re-exported)


def _escape(s: str, quote: bool = True) -> str:
    """``html.escape(s, quote)`` of the standard library, the same replacements in the same order: ``import html``
    loads its table of every named entity (``html.entities``, ≈ 5 ms at each report command's start) for
    ``unescape``, which no report uses."""
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return s.replace('"', "&quot;").replace("'", "&#x27;") if quote else s


#: Kernel name → drill-down anchor id, set by the HTML renderer for the report being drawn.
KERNEL_LINKS: ContextVar[dict[str, str]] = ContextVar("KERNEL_LINKS", default={})
#: Kernel name → its rank in the hot-kernel table (1 = most GPU time), set by the HTML renderer for the source being
#: drawn (:func:`hot_ranks`): the "#N" a kernel carries in every chart and table of the dashboard.
HOT_RANKS: ContextVar[dict[str, int]] = ContextVar("HOT_RANKS", default={})


def hot_ranks(s: Any) -> dict[str, int]:
    """Kernel name → its rank in ``s``'s hot-kernel table (1 = most GPU time; {} without that table): one numbering
    for the Hot kernels chart, the answer banner, the roofline's point labels and every other kernel chart."""
    hs = s.results.get("hotspots")
    if hs is None or hs.skipped or hs.table is None or "name" not in hs.table:
        return {}
    return {str(n): i + 1 for i, n in enumerate(hs.table["name"])}

#: Okabe & Ito (2008) colour-blind-safe palette ("Color Universal Design"), in plotting order.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
GREY = "#999999"
#: Colour of each GPU event kind (fixed, so a kind keeps its colour across pages).
KIND_COLOURS = {"kernel": "#0072B2", "comm": "#E69F00", "memcpy": "#CC79A7", "memset": "#009E73"}
#: Legend name of each kind of event (GPU kinds and the timeline's host kinds).
KIND_LABELS = {"cpu_op": "CPU op", "sync": "sync", "runtime": "runtime call", "kernel": "kernel",
               "comm": "communication", "memcpy": "memcpy", "memset": "memset"}
#: Characters of a name kept in chart labels and in table cells, and in a bar chart's category (tick) labels: 44
#: characters at 12 px are about 290 px, so on a 900-px-wide window the bars keep over half the chart's width (a
#: 120-character tick label took 700 px and squeezed the bars to a sliver); the full name is in the hover and table.
#: (plotly's ``automargin`` then gives the tick labels the room they take as drawn.)
LABEL_CHARS, TICK_CHARS = 200, 44
#: Average width of a character of chart text at 12 px (system-ui; wide enough for digits and capitals) [px], and the
#: narrowest chart width a report is laid out for (a 900-px-wide window less the page's padding) [px]: used only
#: where plotly has no layout of its own to place a text (the roofline's labels among its points,
#: :mod:`gpulens.reports._html_roofline`).
CHAR_PX, NARROW_CHART_PX = 7.0, 840.0
PLOT_CONFIG = {"displaylogo": False, "responsive": True}


def esc(v: Any) -> str:
    """HTML-escape any value's text (quotes included), for element content and attribute values; control and
    bidirectional characters are written as visible ``\\uXXXX`` (:func:`~gpulens.reports._md_safe.visible`)."""
    return _esc_text("" if v is None else str(v))


@functools.lru_cache(maxsize=1 << 12)
def _esc_text(s: str) -> str:
    """:func:`esc` of a ``str``, memoised: a report escapes the same names, labels and figures many times over."""
    return _escape(visible(s, bidi=True), quote=True)


def plot_text(v: Any, n: int = LABEL_CHARS) -> str:
    """Text for a plotly label or hover: clipped, then entity-escaped so plotly shows ``<``/``>`` literally."""
    return _escape(clip(visible("" if v is None else str(v), bidi=True), n), quote=False)


def tick_labels(names: Iterable[Any], full: Sequence[Any] | None = None) -> list[str]:
    """Category labels of a ranked bar chart: ``"#1 name"``, the name cut in its middle to :data:`TICK_CHARS`
    (``"vectorized_elem…MulFunctor› ‹4›"``: the head names the kernel, the tail tells its instances apart); names
    that would still read alike keep more characters (at most :data:`LABEL_CHARS`). Escaped for plotly; the rank
    keeps every category apart (plotly draws one bar for two equal categories).

    ``full``: the kernel names the labels stand for (same order): each then carries its hot-kernel rank
    (:data:`HOT_RANKS`), the number it has on every page (the occupancy chart's "#1" was the Hot kernels chart's
    "#2"); a kernel without one gets no number. Without ``full`` (or where ranks would not keep the labels apart)
    the number is the row's position."""
    texts = [visible("" if n is None else str(n), bidi=True) for n in names]
    n_chars = [TICK_CHARS] * len(texts)
    for _ in range(8):
        cut = [_mid_clip(t, k) for t, k in zip(texts, n_chars)]
        seen: dict[str, int] = {}
        for c in cut:
            seen[c] = seen.get(c, 0) + 1
        clash = [i for i, c in enumerate(cut) if seen[c] > 1 and c != texts[i]]
        if not clash:
            break
        for i in clash:
            n_chars[i] = min(LABEL_CHARS, n_chars[i] + 24)
    out = [f"#{i + 1} {_escape(c, quote=False)}" for i, c in enumerate(cut)]
    if full is not None:
        ranks = HOT_RANKS.get()
        ranked = [(f"#{ranks[str(f)]} " if str(f) in ranks else "") + _escape(c, quote=False)
                  for f, c in zip(full, cut)]
        if len(set(ranked)) == len(ranked) == len(out):
            return ranked
    return out


def _mid_clip(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters by an ellipsis in its middle (45 % head, the rest tail)."""
    if len(text) <= n:
        return text
    head = int(n * 0.45)
    return text[:head].rstrip() + "…" + text[len(text) - (n - head - 1):].lstrip()


def bar_value_labels(texts: Sequence[str], font_px: float = 11.0) -> dict[str, Any]:
    """Trace keys that print ``texts`` (already formatted) on horizontal bars where plotly finds room for them: inside
    the bar at its end when the text fits there, else just past the bar's end (plotly's ``textposition="auto"``,
    measured on the drawn text at the chart's actual width: no character-width guess), at a fixed size (plotly would
    shrink a text that does not fit to a few pixels) and never clipped by the axis."""
    return {"text": list(texts), "textposition": "auto", "insidetextanchor": "end", "constraintext": "none",
            "textfont": {"size": font_px}, "cliponaxis": False}


def wrap_name(v: Any, width: int = 90, lines: int = 4) -> str:
    """A long name for a hover box: escaped, broken every ``width`` characters, at most ``lines`` lines."""
    text = visible("" if v is None else str(v), bidi=True)
    chunks = [text[i:i + width] for i in range(0, len(text), width)][:lines]
    out = "<br>".join(_escape(c, quote=False) for c in chunks)
    return out + ("…" if len(text) > width * lines else "")


def script_json(obj: Any) -> str:
    """JSON text safe inside ``<script type="application/json">``: ``<``, ``>``, ``&`` and line separators escaped."""
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False, default=_json_default)
    for a, b in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(a, b)
    return text


def _json_default(o: Any) -> Any:
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    return str(o)


def _sort_key(v: Any) -> str:
    if type(v) in _PLAIN_NUMBERS:  # most cells: a number (what the checks below conclude, without them)
        f = float(v)
        return "" if f != f else repr(f)
    if _is_bool(v):
        return "1" if v else "0"
    if _is_num(v):
        f = float(v)
        return "" if math.isnan(f) else repr(f)
    return ""


def name_cell(full: Any, short: str) -> str:
    """A kernel-name cell: the short label, the full name as tooltip, a link to its page when it has one."""
    if is_missing(full):
        return f"<td>{MISSING}</td>"
    full = str(full)
    anchor = KERNEL_LINKS.get().get(full)
    inner = (f'<a class="klink" href="#{esc(anchor)}">{esc(short)}</a>' if anchor else esc(short))
    return f'<td class="name" title="{esc(full)}">{inner}</td>'


#: A column header longer than this wraps (CSS ``th.long``) instead of widening its column to one line.
LONG_HEADER_CHARS = 18
#: A column header longer than this, ending in a bracketed explanation, shows the words before the bracket with a
#: note mark (:data:`NOTE_MARKS`) and the explanation in a note under the table.
NOTE_HEADER_CHARS = 60
#: Marks of the header notes, in column order (past these: "[10]", "[11]"…).
NOTE_MARKS = ("¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹")
#: A text cell longer than this is prose (evidence, next steps): it gets a minimum width (CSS ``td.prose``); a
#: shorter one ("registers + shared memory") is kept on one line (CSS ``table.data td:not([class])``): squeezed
#: into the last column of a wide table it wrapped a word per line, each row 3–4 lines tall.
PROSE_CHARS = 40


#: A kernel label numbered to tell it from another of the same short name (``reports._names``: "CatArrayBatchedCopy
#: (2)"), and what the number means, said under any table that shows one.
NUMBERED = re.compile(r" \([0-9]+\)$")
NUMBERED_NOTE = ("(2), (3)…: another kernel with the same short name — its full name differs in a part the short "
                 "name leaves out (hover the name, or open it, for the full name)")


def header_note(label: str) -> tuple[str, str]:
    """A column header split for display: ``(name, explanation)`` when ``label`` is longer than
    :data:`NOTE_HEADER_CHARS` and ends in a bracketed explanation ("bound's % of peak (roofline basis: …)" →
    "bound's % of peak", "roofline basis: …"), else ``(label, "")``."""
    if len(label) <= NOTE_HEADER_CHARS or not label.endswith(")") or " (" not in label:
        return label, ""
    name, rest = label.split(" (", 1)
    return (name, rest[:-1]) if name.strip() else (label, "")


#: Cell values whose cell :func:`table_html` works out once per column: the cell is a function of the value and the
#: column's unit alone, and the type with ``repr`` (the text itself for a str) tells every value apart (−0.0 from 0.0,
#: True from 1).
_MEMO_TYPES = frozenset({str, int, float, bool})


#: A run of characters without a space longer than this (a demangled signature, an annotation path) in a prose
#: cell gets line-break opportunities after its separators: unbroken, it set its column's width up to 640 px.
LONG_TOKEN = re.compile(r"\S{25,}")
_BREAK_AFTER = re.compile(r"(::|[,/;<(_.>|])")


def breakable(text: str) -> str:
    """``text`` escaped for HTML, with ``<wbr>`` (a line break only if needed, nothing copied or filtered) after
    each separator (``::``, ``_``, ``,``, ``/``, ``<`` …) of its long space-less runs (:data:`LONG_TOKEN`): they
    wrap at their parts' boundaries, never inside a word."""
    out, last = [], 0
    for m in LONG_TOKEN.finditer(text):
        out.append(esc(text[last:m.start()]))
        out.append("<wbr>".join(esc(p) for p in _join_pairs(_BREAK_AFTER.split(m.group()))))
        last = m.end()
    out.append(esc(text[last:]))
    return "".join(out)


def _join_pairs(parts: list[str]) -> list[str]:
    """``re.split`` pieces with a captured separator, each separator joined to the text before it."""
    return [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)]


def _cell(v: Any, unit: str, lower: bool = False) -> str:
    """One ``<td>`` of :func:`table_html` (not a kernel-name cell): the value formatted from its column's ``unit``
    ("≥ " before it where it is a lower bound, ``lower``: :func:`gpulens.reports._values.lower_bound_mark`), its
    sort key in ``data-v``
    (numbers), right-aligned unless the unit is words or an id, prose wide enough."""
    top = largest_items(v, unit) if unit not in TEXT_UNITS and not isinstance(v, _CELL_SCALARS) else None
    if top is not None:  # a mapping of figures: its largest entries, one a line; every entry in the tooltip
        shown, rest = top
        more = f'<span class="more">+ {rest} more (hover)</span>' if rest else ""
        return (f'<td class="items" title="{esc(fmt_unit(v, unit))}">'
                + "".join(f"<span>{esc(k)}: {esc(x)}</span>" for k, x in shown) + f"{more}</td>")
    key = _sort_key(v)
    attr = f' data-v="{key}" class="num"' if key and unit not in (*TEXT_UNITS, "id") else (
        f' data-v="{key}"' if key else "")
    text = ge_mark(fmt_unit(v, unit)) if lower else fmt_unit(v, unit)
    if not attr and len(text) > PROSE_CHARS:  # a sentence: wide enough to read, never a word per line
        return f'<td class="prose">{breakable(text)}</td>'
    elif not attr and "; " in text:  # a list ("[512]; [141×512]; [512×512]"): may wrap between its items
        attr = ' class="list"'
    return f"<td{attr}>{esc(text)}</td>"


def table_html(df: pd.DataFrame | None, columns: Sequence[str] | None = None, max_rows: int = 200,
               headers: dict[str, str] | None = None, docs: dict[str, str] | None = None,
               caption: str = "") -> str:
    """A sortable, filterable HTML table of ``df`` (first ``max_rows`` rows; a note says how many were left out).

    Cells are formatted from the unit each column declares in ``docs`` (column → ``"meaning [unit]"``, also the
    header tooltip); headers are human labels. Numeric cells carry their raw value in ``data-v`` so a click on a
    header sorts by value, not by text. Kernel-name columns show distinguishable short names (full name on hover).
    """
    if df is None or not len(df):
        return '<p class="note">No rows.</p>'
    cols = [c for c in (columns or list(df.columns)) if c in df.columns]
    headers, docs = headers or {}, docs or {}
    units = {c: unit_of(c, docs.get(c, "")) for c in cols}
    body = df.iloc[:max_rows]  # head first (a view: head() copies), no column selection: never copy a long table's columns
    shorts = {c: short_names(body[c].astype(str).tolist()) for c in cols if is_name_column(c, docs.get(c, ""))}
    out = ['<input type="search" class="tfilter" placeholder="Filter rows…" aria-label="Filter the table below">'
           '<div class="tablewrap">']
    labels = {c: headers.get(c, column_label(c, docs.get(c, ""))) for c in cols}
    keys = _row_keys(cols, units, len(df), shorts)
    if keys:  # a few GPUs' or ranks' many figures: one row per figure, one column per GPU (fits the page)
        out.append(_flipped(body, cols, keys, units, labels, docs, shorts, caption))
        return "".join(out) + _rows_note(df, max_rows)
    same = _same_columns(df, cols, shorts) if len(df) <= max_rows else []  # every row shown: a cheap, whole truth
    marks = lower_bound_flags(df) if same else []  # a lower bound stays one ("FLOP: ≥ 17.18 GFLOP") in the note
    bound = {c: bool(lower_bound_column(c, units[c])) and [bool(x) for x in marks] for c in same}
    same = [c for c in same if not bound[c] or len(set(bound[c])) == 1]  # marked on some rows only: keeps its column
    if same:  # said once above the table, not repeated down a column of its own
        out.insert(0, '<p class="note same">Same on every row — ' + "; ".join(
            f"{esc(labels[c])}: {esc(_same_text(df[c].iloc[0], units[c], bool(bound[c]) and bound[c][0]))}"
            for c in same) + ".</p>")
        cols = [c for c in cols if c not in same]
    out.append('<table class="data sortable">' + (f"<caption>{esc(caption)}</caption>" if caption else ""))
    # a long header wraps (class "long"): on one line it set its column's width ("start (from the timeline's first
    # event)" took 290 px over numbers 70 px wide, squeezing the lane names beside it to a word a line); a header
    # with a long explanation in brackets shows its name with a note mark, the explanation under the table (the
    # roofline's "bound's % of peak (roofline basis: …)" made a header row 10 lines tall over one-line rows)
    split = {c: header_note(labels[c]) for c in cols}
    noted = [c for c in cols if split[c][1]]
    marks = {c: NOTE_MARKS[i] if i < len(NOTE_MARKS) else f"[{i + 1}]" for i, c in enumerate(noted)}
    long = ' class="long"'
    heads = "".join(f'<th scope="col" title="{esc(docs.get(c, ""))}" tabindex="0"'
                    f'{long if len(split[c][0]) > LONG_HEADER_CHARS else ""}>{esc(split[c][0])}'
                    + marks.get(c, "") + "</th>" for c in cols)
    out.append(f"<thead><tr>{heads}</tr></thead><tbody>")
    seen: dict[str, dict] = {c: {} for c in cols}  # column → value key → its cell (a value repeats down a column)
    lower = lower_bound_flags(body)  # FLOP figures over partial FP counters: "≥ 17.18 GFLOP", as every report
    for i, row in enumerate(zip(*[body[c].tolist() for c in cols])):
        cells = []
        for c, v in zip(cols, row):
            if c in shorts:
                cells.append(name_cell(v, shorts[c][i]))
                continue
            if lower[i] and lower_bound_column(c, units[c]):
                cells.append(_cell(v, units[c], True))
                continue
            kind = type(v)
            memo = (kind, v if kind is str else repr(v)) if kind in _MEMO_TYPES else None
            cell = seen[c].get(memo) if memo is not None else None
            if cell is None:
                cell = _cell(v, units[c])
                if memo is not None:
                    seen[c][memo] = cell
            cells.append(cell)
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    if any(NUMBERED.search(x) for lab in shorts.values() for x in lab):  # "CatArrayBatchedCopy (2)" said once
        out.append(f'<p class="note">{esc(NUMBERED_NOTE)}</p>')
    if noted:
        out.append('<p class="note colnotes">' + "<br>".join(
            f"{marks[c]} {esc(split[c][0])}: {esc(split[c][1])}" for c in noted) + "</p>")
    return "".join(out) + _rows_note(df, max_rows)


def _rows_note(df: pd.DataFrame, max_rows: int) -> str:
    """The note under a table cut to ``max_rows`` rows (where the others are), ``""`` when none was cut."""
    if len(df) <= max_rows:
        return ""
    from gpulens.reports.json_report import MAX_TABLE_ROWS

    where = ("the JSON report has all" if len(df) <= MAX_TABLE_ROWS else
             f"the JSON report has the first {MAX_TABLE_ROWS:,} and one row summing the rest; --csv or --parquet "
             "exports every row")
    return f'<p class="note">Showing the first {max_rows} of {len(df):,} rows ({where}).</p>'


#: A per-GPU / per-rank table (rows named by leading id columns: rank, GPU) of at most this many rows and at least
#: :data:`FLIP_COLUMNS` columns is drawn flipped, one row per figure and one column per GPU: 26 idle-split columns
#: of 75 px each scrolled inside their frame at 1280 px, while 2 GPUs' 26 figures fit in 3 columns.
FLIP_ROWS, FLIP_COLUMNS = 8, 12


#: A table of at least this many rows states a column whose value is the same on every row once, above it.
SAME_ROWS = 3


def _same_columns(df: pd.DataFrame, cols: Sequence[str], names: dict) -> list[str]:
    """The columns of ``df`` (not the first, not a kernel-name column in ``names``) with one value on all of its
    rows (at least :data:`SAME_ROWS`; never "unknown"): "vendor AMD", "ridge point 1.2
    FLOP/byte" down every row of a 15-column table made it scroll at 1280 px. ``[]`` when fewer than 4 columns
    would be left."""
    if len(df) < SAME_ROWS or len(cols) < 6:
        return []
    same = [c for c in cols[1:] if c not in names and _one_value(df[c])]
    return same if len(cols) - len(same) >= 4 else []


def _same_text(v: Any, unit: str, lower: bool) -> str:
    """The text of a value said once above its table (:func:`_same_columns`), "≥ " before it where it is a lower
    bound on every row (as its cells would show it: :func:`_cell`)."""
    return ge_mark(fmt_unit(v, unit)) if lower else fmt_unit(v, unit)


def _one_value(col: pd.Series) -> bool:
    """True when every value of ``col`` is the same known value (a column unknown on some or every row keeps its
    place: "achieved occupancy: unknown" beside each kernel is where a reader looks for it)."""
    miss = col.isna() if col.dtype != object else col.map(is_missing)
    if miss.any():
        return False
    try:
        return col.nunique(dropna=False) == 1
    except TypeError:  # unhashable cells (dicts, lists): compared by their text
        return col.astype(str).nunique() == 1


def _row_keys(cols: Sequence[str], units: dict[str, str], rows: int, names: dict) -> list[str]:
    """The leading id columns (rank, GPU) that name each row of a table :func:`table_html` draws flipped — or its
    first column when that is a kernel-name column (in ``names``) and the table has one or two kernels —, ``[]``
    when it is drawn as is (more than :data:`FLIP_ROWS` rows, fewer than :data:`FLIP_COLUMNS` columns, no id)."""
    if not 0 < rows <= FLIP_ROWS or len(cols) < FLIP_COLUMNS:
        return []
    if cols[0] in names:  # one kernel's 15 speed-of-light figures: a column of figures, not a 1,600-px row
        return [cols[0]] if rows <= 2 else []
    keys = []
    for c in cols:
        if units[c] != "id":
            break
        keys.append(c)
    return keys if keys and len(keys) < len(cols) else []


def _flipped(body: pd.DataFrame, cols: Sequence[str], keys: list[str], units: dict[str, str],
             labels: dict[str, str], docs: dict[str, str], shorts: dict[str, list], caption: str) -> str:
    """``body`` as a table with one row per figure (its label, tooltip the column's meaning) and one column per row
    of ``body``, headed by its ids ("rank 0 · GPU 1"): each cell formatted as :func:`table_html` formats it."""
    if keys[0] in shorts:  # a kernel per column: its name cell (short label, full name on hover, its page linked)
        heads = "".join(name_cell(full, short) for full, short in zip(body[keys[0]].tolist(), shorts[keys[0]]))
    else:
        heads = "".join('<th scope="col">' + esc(" · ".join(f"{labels[k]} {fmt_unit(v, 'id')}" for k, v in
                                                             zip(keys, vals))) + "</th>"
                        for vals in zip(*[body[k].tolist() for k in keys]))
    # one kernel or GPU: its figures read as a list, left-aligned beside their labels (a lone right-aligned
    # number sat 500 px from its label under a wide next-step cell)
    out = [f'<table class="data flipped{" one" if len(body) == 1 else ""}">' + (f"<caption>{esc(caption)}</caption>" if caption else "")
           + f'<thead><tr><th scope="col">figure</th>{heads}</tr></thead><tbody>']
    lower = lower_bound_flags(body)
    for c in cols:
        if c in keys:
            continue
        cells = "".join(name_cell(v, shorts[c][i]) if c in shorts else
                        _cell(v, units[c], bool(lower[i]) and lower_bound_column(c, units[c]))
                        for i, v in enumerate(body[c].tolist()))
        out.append(f'<tr><th scope="row" title="{esc(docs.get(c, ""))}">{esc(labels[c])}</th>{cells}</tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def kv_html(pairs: Iterable[tuple[str, Any]]) -> str:
    """A two-column key/value table (already formatted values)."""
    rows = "".join(f'<tr><th scope="row">{esc(k)}</th><td>{esc(v)}</td></tr>' for k, v in pairs)
    return f'<table class="kv">{rows}</table>'


@dataclass
class Panel:
    """One chart (or none) with its one-sentence takeaway and its data table.

    Attributes:
        title: heading.
        takeaway: one sentence shown as the figure caption and used as the chart's accessible name.
        figure: a plotly ``go.Figure``, or a ``{"data": [trace dicts], "layout": {...}}`` dict of plain JSON values
            (or None for a table-only panel).
        table: HTML of the data table shown beside the chart.
        note: extra HTML under the heading (e.g. why something is missing).
        data: base64 text of a gzip-compressed JSON payload the page script draws the chart from (the timeline),
            or a future of it (``concurrent.futures.Future``: compressed in a thread while other tabs are built);
            the figure then holds only the layout.
        static: a chart drawn here as plain HTML (:func:`html_bars`) instead of a plotly figure: shown at once,
            before plotly has loaded (the Summary's chart, so the first screen needs no plotly).
        table_open: whether the data table starts unfolded (folded where the chart shows the same few figures).
    """

    title: str
    takeaway: str = ""
    figure: Any = None
    table: str = ""
    note: str = ""
    data: Any = ""
    static: str = ""
    table_open: bool = True


@dataclass
class Page:
    """A tab of the report: an id, a title and its content blocks (HTML strings or Panels)."""

    id: str
    title: str
    blocks: list[Any] = field(default_factory=list)


def figure_spec(fig: Any) -> dict[str, Any]:
    """A plotly figure as the ``{data, layout}`` dict the page script hands to ``Plotly.newPlot``. ``fig`` is a
    ``go.Figure`` or already such a dict of plain JSON values (built without plotly's validation: faster)."""
    if isinstance(fig, dict):
        d = {"data": _finite(list(fig.get("data") or [])), "layout": _finite(dict(fig.get("layout") or {}))}
    else:
        d = json.loads(fig.to_json())
    d["layout"].pop("template", None)
    d["layout"].setdefault("font", {"family": "system-ui, sans-serif", "size": 12})
    d["layout"].setdefault("colorway", list(OKABE_ITO))
    d["layout"].setdefault("paper_bgcolor", "#ffffff")
    d["layout"].setdefault("plot_bgcolor", "#f7f7f7")
    return {"data": d["data"], "layout": d["layout"]}


def _finite(v: Any) -> Any:
    """``v`` with every NaN or infinite float replaced by None (JSON null: a gap in the chart, as plotly writes it)."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, list):
        return [_finite(x) for x in v] if any(isinstance(x, (float, list, dict)) for x in v) else v
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    return v


def has_values(fig: Any) -> bool:
    """Whether a figure dict draws anything: a trace with a finite, non-zero number among its values (``x`` of a
    horizontal bar, else ``y``; a heat-map's ``z``). A ``go.Figure`` or a figure without data traces counts as
    drawing (its layout may hold the drawing). A chart whose every value is unknown or zero would be an empty frame."""
    if not isinstance(fig, dict) or not fig.get("data"):
        return True

    def finite(v: Any) -> bool:
        if isinstance(v, list):
            return any(finite(x) for x in v)
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v != 0

    for t in fig["data"]:
        kind = t.get("type", "scatter")
        key = "z" if kind == "heatmap" else "x" if kind == "bar" and t.get("orientation") == "h" else "y"
        if kind not in ("bar", "heatmap", "scatter") or finite(t.get(key) or []):
            return True
    return False


def panel_html(p: Panel, fig_id: str) -> str:
    """A panel: heading, figure (a div the page script fills) with caption, and the table beside it."""
    parts = [f'<section class="panel"><h3>{esc(p.title)}</h3>']
    if p.note:
        parts.append(p.note)
    parts.append('<div class="row">')
    if p.static:
        parts.append(f'<figure class="fig" role="img" aria-label="{esc(p.title)}: {esc(p.takeaway)}">'
                     f'<div class="chart static" id="{fig_id}" data-drawn="1" data-rendered="1">{p.static}</div>'
                     f"<figcaption>{esc(p.takeaway)}</figcaption></figure>")
    elif p.figure is not None and not has_values(p.figure) and not p.data:
        parts.append(f'<p class="empty">Nothing to draw: every value of this chart is unknown or zero (the table '
                     f'shows them).</p>' + (f'<p class="takeaway">{esc(p.takeaway)}</p>' if p.takeaway else ""))
    elif p.figure is not None:
        parts.append(
            f'<figure class="fig" role="img" aria-label="{esc(p.title)}: {esc(p.takeaway)}">'
            f'<div class="chart" id="{fig_id}" data-spec="{fig_id}-spec"'
            + (f' data-timeline="{fig_id}-data"' if p.data else "") + '></div>'
            f"<figcaption>{esc(p.takeaway)}</figcaption></figure>"
            f'<script type="application/json" id="{fig_id}-spec">{script_json(figure_spec(p.figure))}</script>')
        if p.data:
            data = p.data if isinstance(p.data, str) else p.data.result()
            parts.append(f'<script type="application/octet-stream" id="{fig_id}-data">{data}</script>')
    elif p.takeaway:
        parts.append(f'<p class="takeaway">{esc(p.takeaway)}</p>')
    if p.table:
        parts.append(f'<details class="tbl"{" open" if p.table_open else ""}><summary>Data table</summary>'
                     f'{p.table}</details>')
    parts.append("</div></section>")
    return "".join(parts)


def html_bars(rows: Sequence[tuple[str, float, str, str]], axis: str = "") -> str:
    """A horizontal bar chart as plain HTML laid out by the browser (a CSS grid: label column as wide as its longest
    label, bar track, text column), shown at once without plotly: one bar per ``(label, value, text, colour)`` row,
    lengths relative to the largest value, the ``text`` (already formatted) beside each bar, ``axis`` under the bars,
    a tooltip per bar. No character-width guess: a long label ("idle: one-off gaps (left out of the verdict)") widens
    its column instead of running off the chart. Draws values as given (nothing is computed but the bar length)."""
    top = max((float(v) for _, v, _, _ in rows), default=0.0) or 1.0
    out = ['<div class="hbars">']
    for label, v, text, colour in rows:
        pct = max(0.0, float(v)) / top * 100
        out.append(f'<span class="hl" title="{esc(label)}: {esc(text)}">{esc(label)}</span>'
                   f'<span class="hb"><span style="width:{pct:.2f}%;background:{esc(colour)}"></span></span>'
                   f'<span class="ht">{esc(text)}</span>')
    out.append("</div>")
    if axis:
        out.append(f'<p class="haxis">{esc(axis)}</p>')
    return "".join(out)


def empty_html(what: str, reason: str) -> str:
    """The block a page shows when its analysis is absent, saying why."""
    return f'<p class="empty"><strong>{esc(what)}</strong>: {esc(reason)}</p>'
