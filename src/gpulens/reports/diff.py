"""Rendering of a ``gpulens diff`` result (:class:`gpulens.diff.DiffResult`): console, Markdown, HTML and JSON.

Every cell is formatted from its column's declared unit (``"meaning [unit]"``, :data:`gpulens.analyzers.base.UNITS`);
a missing figure prints as "unknown" (never None/nan). Names from traces are escaped for the output they land in.
The renderer computes nothing: it draws the result's tables.
"""

from __future__ import annotations

import html as _html
import json
import math
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from gpulens.analyzers.base import declared_unit
from gpulens.diff.compute import ROW_WORDS, DiffResult
from gpulens.reports._fit import NAME_MIN, TEXT_MIN, Col, FitTable
from gpulens.reports._html_diff import CHART_CSS, diff_charts
from gpulens.reports._names import short_names
from gpulens.reports.console import fmt_ns
from gpulens.reports.gate_markdown import md_escape
from gpulens.units import plural, share_pct_text, signed_pct_text

#: JSON layout version of a diff document (docs/report-schema.md, "gpulens diff").
DIFF_SCHEMA_VERSION = 2
#: Tables in the order they are shown, with their titles.
TITLES = {"contributors": "Top contributors to the difference", "kernels": "Per kernel",
          "operators": "Per operator", "categories": "Per category", "ranks": "Per rank"}
#: Columns shown by the console and Markdown (the JSON and HTML have all).
SHOWN = ("base_count", "base_time_ns", "base_share", "cand_count", "cand_time_ns", "cand_share", "delta_ns",
         "delta_pct")
#: Columns the console shows (narrower).
CONSOLE = ("base_count", "base_time_ns", "cand_count", "cand_time_ns", "delta_ns", "delta_pct")


#: Short console headers.
_HEADS = {"base_count": "base n", "base_time_ns": "base", "cand_count": "cand n", "cand_time_ns": "cand",
          "delta_ns": "Δ", "delta_pct": "Δ %", "contribution": "of Δ", "cumulative_delta_ns": "cum. Δ"}
#: Headers of the Markdown and HTML tables (column → human label; never the snake_case column name).
HEADERS = {"base_count": "base calls", "base_time_ns": "base time", "base_mean_ns": "base mean",
           "base_share": "base share", "cand_count": "candidate calls", "cand_time_ns": "candidate time",
           "cand_mean_ns": "candidate mean", "cand_share": "candidate share", "delta_ns": "Δ time", "delta_pct": "Δ %",
           "contribution": "of Δ", "cumulative_delta_ns": "cumulative Δ", "base_kernels": "base kernels",
           "cand_kernels": "candidate kernels", "op": "operator"}


#: A side's columns whose figure is per run: the mean over a report's repeats when the side has several
#: (``base_runs`` / ``cand_runs`` of the summary).
_PER_RUN = ("count", "time_ns")


def _runs(s: dict[str, Any] | None, side: str) -> int:
    """How many runs a side's figures are the mean of (``summary[f"{side}_runs"]``; 1 when not said)."""
    v = (s or {}).get(f"{side}_runs")
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 1 else 1


def runs_note(s: dict[str, Any]) -> str:
    """``" per run (base: mean of 2 runs; candidate: one run)"`` when either side's figures are means over a
    report's repeats (its counts may then be fractional), ``""`` when both are one run each (sums)."""
    b, c = _runs(s, "base"), _runs(s, "cand")
    if b == 1 and c == 1:
        return ""
    each = "; ".join(f"{w}: {'mean of ' + plural(n, 'run') if n > 1 else 'one run'}"
                     for w, n in (("base", b), ("candidate", c)))
    return f" per run ({each})"


def per_run_header(c: str, text: str, s: dict[str, Any] | None, short: bool = False) -> str:
    """``text``, the header of column ``c``, marked as a mean per run when its side's figures are means over a
    report's repeats: ``"base calls per run (mean of 2)"`` (``short``: ``"base n/run"`` for the console)."""
    side, _, rest = c.partition("_")
    if side not in ("base", "cand") or rest not in _PER_RUN or _runs(s, side) == 1:
        return text
    return f"{text}/run" if short else f"{text} per run (mean of {_runs(s, side)})"


def header(c: str, table: str | None = None, summary: dict[str, Any] | None = None) -> str:
    """The human header of a diff column (Markdown and HTML); in table ``table`` the "of Δ" column names the rows
    whose Σ|Δ| it divides ("of Δ (operator rows)"): each table has its own
    (:data:`gpulens.diff.compute.ROW_WORDS`). With the result's ``summary``, a side's calls and time averaged over
    repeats say so (:func:`per_run_header`)."""
    if c == "contribution" and table in ROW_WORDS:
        return f"of Δ ({ROW_WORDS[table]})"
    return per_run_header(c, HEADERS.get(c) or c.replace("_ns", "").replace("_", " "), summary)


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and math.isnan(float(v)))


def fmt_cell(v: Any, unit: str, width: int = 0) -> str:
    """A cell's text from its declared unit; missing values are 'unknown'."""
    if _missing(v):
        return "unknown"
    if unit == "ns":
        return fmt_ns(float(v))
    if unit == "share":  # never a false 0.0 % or 100.0 % (share_pct_text)
        return share_pct_text(100 * float(v))
    if unit == "%":
        return signed_pct_text(float(v))
    if unit == "ratio":
        return f"{float(v):+.3f}"
    if unit == "signed share":  # a part of the total change (rows sum to 100 %): a percentage, with its sign
        return signed_pct_text(100 * float(v))
    if unit == "count":
        f = float(v)
        return str(int(f)) if f.is_integer() else f"{f:.2f}"
    if unit == "bool":
        return "yes" if v else "no"
    s = str(v)
    return s if not width or len(s) <= width else s[: width - 1] + "…"


def _op_shapes_short(key: str, width: int) -> str:
    """A row key of ``op [shapes]`` (an operator matched with its input shapes) in about ``width`` characters, cut
    between whole tensors with the brackets closed and the rest counted (``aten::_flash_attention_forward
    [[1,141,8,64],[1,141,8,64], … 6 more]``), never inside a tensor's dims; any other key as a text cell."""
    op, sep, rest = key.partition(" [")
    if len(key) <= width or not sep:
        return fmt_cell(key, "text", width)
    try:
        tensors = json.loads("[" + rest)
    except ValueError:
        return fmt_cell(key, "text", width)
    if not isinstance(tensors, list):
        return fmt_cell(key, "text", width)
    texts = [json.dumps(t, separators=(",", ":")) for t in tensors]
    kept: list[str] = []
    for t in texts:
        if kept and len(op) + 2 + len(",".join(kept + [t])) > width:
            break
        kept.append(t)
    left = len(texts) - len(kept)
    return f"{op} [{','.join(kept)}" + (f", … {left} more]" if left else "]")


def _delta(v: Any) -> str:
    return "unknown" if _missing(v) else ("+" if float(v) > 0 else "") + fmt_ns(float(v))


def _cells(df: pd.DataFrame, docs: dict[str, str], cols: list[str], width: int) -> list[list[str]]:
    out = []
    # a table with no change at all (identical runs) has no gross change to take parts of: "—", not "unknown"
    still = df["delta_ns"].eq(0).to_numpy() if "delta_ns" in df else np.zeros(len(df), bool)
    for row, zero in zip(df[cols].itertuples(index=False), still):
        out.append(["—" if c == "contribution" and zero and _missing(v) else
                    _delta(v) if c in ("delta_ns", "cumulative_delta_ns") else
                    fmt_cell(v, "signed share" if c == "contribution" else declared_unit(docs[c]), width)
                    for c, v in zip(cols, row)])
    return out


def _cols(name: str, df: pd.DataFrame, shown: tuple[str, ...] = SHOWN) -> list[str]:
    first = [c for c in df.columns if c not in SHOWN and c not in ("base_mean_ns", "cand_mean_ns", "contribution",
                                                                     "base_kernels", "cand_kernels")]
    if shown is CONSOLE:  # narrow console: drop the secondary columns, never a table's own key
        first = [c for c in first if c not in ("category", "kernels") or (name == "categories" and c == "category")]
    if name == "contributors":
        return [c for c in df.columns if shown is not CONSOLE or c != "cumulative_delta_ns"]
    return first + [c for c in shown if c in df.columns]


def shown(r: DiffResult, name: str) -> pd.DataFrame:
    """Table ``name`` as people read it: a kernel row matched by name (or new / vanished) shows its kernel's short
    name (:func:`gpulens.reports._names.short_names`, one naming over both runs so different kernels never read
    alike); operator rows ("aten::addmm [[…]]") and the JSON keep the full key."""
    df = r.tables[name]
    if "kernel" not in df or "match" not in df or not len(df):
        return df
    kernels = r.tables["kernels"]
    named = lambda m: m not in ("op+shapes", "category")  # rows labelled by a kernel key (others keep their label)
    keys = kernels.loc[kernels["match"].map(named), "kernel"].astype(str).tolist()
    # each row's run(s): a row matched by name or variant is in both, a new one in the candidate, a vanished one in
    # the base — a "(2)" then marks two kernels of one run only, never one kernel per run
    m = kernels["match"].astype(str)
    runs = [set(kernels.loc[m.map(named) & (m != side), "kernel"].astype(str)) for side in ("new", "vanished")]
    short = dict(zip(keys, short_names(keys, runs=runs)))
    df = df.copy()
    df["kernel"] = [short.get(str(k), k) if named(m) else k for k, m in zip(df["kernel"], df["match"])]
    return df


def by_category(r: DiffResult, most: int = 4) -> str:
    """The categories' changes, largest |Δ| first (``most`` of them, non-zero only): "GEMM +4.09 ms, elementwise
    −4.82 ms" — the direction of each kind of work, which a small net change can hide."""
    cat = r.tables.get("categories")
    if cat is None or not len(cat):
        return ""
    cat = cat[cat["delta_ns"] != 0]
    cat = cat.iloc[np.argsort(-cat["delta_ns"].abs().to_numpy(), kind="stable")].head(most)
    return ", ".join(f"{fmt_cell(c, 'text', 30)} {_delta(d)}" for c, d in zip(cat["category"], cat["delta_ns"]))


def span_sentence(s: dict[str, Any]) -> str:
    """" GPU span 3.91 ms → 4.20 ms: +290 µs (+7.4 %); GPU busy 7.9 % → 9.3 % of it." — what the user waits for,
    idle gaps included, beside the summed kernel time; with a warning when the two move in opposite directions
    (kernels got faster but the run got longer: the time went to gaps). Empty when either span is unknown."""
    if s.get("span_delta_ns") is None:
        return ""
    d, pct = s["span_delta_ns"], s.get("span_delta_pct")
    per_run = "; mean per run" if runs_note(s) else ""
    out = (f" GPU span (first → last GPU event{per_run}) {fmt_ns(s['base_span_ns'])} → {fmt_ns(s['cand_span_ns'])}: "
           f"{_delta(d)}" + ("" if pct is None else f" ({signed_pct_text(pct)})"))
    if s.get("base_busy_pct") is not None and s.get("cand_busy_pct") is not None:
        out += f"; GPU busy {share_pct_text(s['base_busy_pct'])} → {share_pct_text(s['cand_busy_pct'])} of it"
    out += "."
    gpu, base_gpu = s.get("delta_ns"), s.get("base_time_ns")
    # opposite directions, each by at least 1 % of its base figure (a 1 ns wobble of the span is no story)
    if gpu is not None and gpu * d < 0 and abs(d) >= 0.01 * s["base_span_ns"] and base_gpu \
            and abs(gpu) >= 0.01 * base_gpu:
        out += (" The span moved the other way from the GPU time: the difference is in idle gaps (host work, "
                "launches, waits), not in the kernels." if d > 0 else
                " The span shrank although the GPU time grew: fewer or shorter idle gaps (or more overlap) more "
                "than made up for the slower GPU work.")
    return out


def headline(r: DiffResult) -> str:
    """One sentence: how much GPU time changed and what explains most of it."""
    s = r.summary
    if s.get("times_unknown"):
        k = r.tables["kernels"]
        calls = lambda c: fmt_cell(float(k[c].sum()) if len(k) else 0.0, "count")
        return (f"GPU time unknown: the {' and '.join('base' if p == 'base' else 'candidate' for p in s['times_unknown'])}"
                f" records no kernel durations, so no time difference can be computed. Kernel launches{runs_note(s)} "
                f"{calls('base_count')} → {calls('cand_count')}.{span_sentence(s)}")
    pct = "" if s.get("delta_pct") is None else f" ({signed_pct_text(s['delta_pct'])})"
    # the sum of GPU event times (kernels, copies, fills; overlapping events counted each), not analyze's busy union
    head = (f"Summed GPU time{runs_note(s)} {fmt_ns(s['base_time_ns'])} → {fmt_ns(s['cand_time_ns'])}: "
            f"{_delta(s['delta_ns'])}{pct}.{span_sentence(s)}")
    if s.get("base_ranks") and s.get("cand_ranks") and s.get("one_run_ranks_delta_ns"):
        head += (f" The runs hold different ranks (base {s['base_ranks']}, candidate {s['cand_ranks']}): "
                 f"{_delta(s['one_run_ranks_delta_ns'])} of it is ranks only one run has.")
    cats = by_category(r)
    if cats and len(r.tables["categories"]) > 1:
        head += f" By category: {cats}."
    c = shown(r, "contributors")
    top = c[~c["kernel"].astype(str).str.startswith("all other rows") & (c["delta_ns"] != 0)].head(3)
    if len(top):
        names = "; ".join(f"{_op_shapes_short(str(k), 60)} {_delta(d)}"
                          for k, d in zip(top["kernel"], top["delta_ns"]))
        head += f" Largest changes: {names}."
    return head


def _facts(r: DiffResult) -> list[tuple[str, str]]:
    s = r.summary
    return [("base", f"{r.base.label} ({r.base.device_label()}; {r.base.note})"),
            ("candidate", f"{r.cand.label} ({r.cand.device_label()}; {r.cand.note})"),
            ("kernel rows", f"{s['matched_by_name']} matched by name{_transfers_note(s)}, {s['matched_by_op']} "
                            "through operator + "
                            f"shapes, {s.get('matched_by_variant', 0)} as variants (other template values), "
                            f"{s.get('matched_by_category', 0)} by work category (kernels left unmatched), "
                            f"{s['new_kernels']} new, {s['vanished_kernels']} vanished"),
            ("of Δ", _of_delta_fact(s))]


def _transfers_note(s: dict[str, Any]) -> str:
    """How many of the rows matched by name are copies or memsets: ``" (2 kernels, 1 copy or memset)"``, ``""``
    when none is — the workload warning counts kernel names only, and its "2 of 8 kernel names in common" beside
    "3 matched by name" read as two counts of one thing."""
    t = int(s.get("matched_by_name_transfers") or 0)
    if not t:
        return ""
    return f" ({plural(int(s['matched_by_name']) - t, 'kernel')}, {plural(t, 'copy or memset', 'copies or memsets')})"


def _of_delta_fact(s: dict[str, Any]) -> str:
    """What "of Δ" divides, per table: each table's own Σ|Δ| (they differ when rows net rises and falls
    differently)."""
    if s.get("times_unknown"):
        return "unknown: no kernel durations recorded"
    if not s.get("gross_delta_ns"):
        return "no change"
    by = s.get("gross_delta_ns_by_table") or {"kernels": s["gross_delta_ns"]}
    each = ", ".join(f"{ROW_WORDS[n]} {fmt_ns(v)}" for n, v in by.items() if n in ROW_WORDS)
    return ("each row's signed part of the gross change of its own table (Δ / Σ|Δ| over that table's rows; the top "
            f"contributors: over the kernel rows); Σ|Δ|: {each}")


def renderable(r: DiffResult, top: int = 10, width: int = 80) -> Group:
    """Rich renderables of a diff (headline, facts, then each table's first ``top`` rows)."""
    from gpulens.reports._md_safe import visible

    # the headline, facts and warnings name the runs (paths, labels): their control characters made visible, as in
    # the table cells (a raw ESC recoloured or cleared the terminal)
    parts: list[Any] = [Text(visible(headline(r), bidi=True), style="bold")]
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for k, v in _facts(r):
        grid.add_row(k, visible(v, bidi=True) if isinstance(v, str) else v)
    parts.append(grid)
    for w in r.warnings:
        parts.append(Text(visible(f"warning: {w}", bidi=True), style="yellow"))
    for name, title in TITLES.items():
        df = shown(r, name)
        if not len(df) or (name == "ranks" and len(df) < 2):
            continue
        cols = _cols(name, df, CONSOLE)
        # figures never wrap nor get cut ("+203" for +203.8 % is a wrong number in a CI log): names wrap, and at a
        # narrow width the columns after the fourth are left out, the last first, and named in the caption; the
        # kernel names of op+shapes rows follow the table, numbered, when they would wrap to a word per line
        fit = []
        for i, c in enumerate(cols):
            text = declared_unit(r.columns[name][c]) == "text" and c != "match"
            fit.append(Col(per_run_header(c, _HEADS.get(c, c.replace("_ns", "").replace("_", " ")), r.summary, True),
                           "left" if text else "right",
                           figure=not text, optional=(i >= 4 or c.endswith("_count")) and c not in ("kernels", "delta_ns"),
                           below=c == "kernels", min_text=NAME_MIN if i == 0 and text else TEXT_MIN,
                           drop_first=2 if c.endswith("_count") else 1 if c == "delta_pct" else 0))
        # text cells wrap in the table: clipped only past 200 characters (both sides of a "base → candidate" cell)
        # the contributors' closing 'all other rows (N)' row (what makes Δ add up) is shown, never counted as a
        # hidden row: "first 10 of 11 rows" read as one contributor left out where it stood for four
        rest = (name == "contributors" and "kernel" in df and str(df["kernel"].iloc[-1]).startswith("all other rows"))
        body = df.iloc[:-1] if rest else df
        rows = pd.concat([body.head(top), df.iloc[-1:]]) if rest else df.head(top)
        cut = f" (first {top} of {len(body)} rows: --top N or --json for more)" if len(body) > top else ""
        parts.append(FitTable(title + cut, fit, _cells(rows, r.columns[name], cols, max(width, 200)),
                              show_lines=False))
    return Group(*parts)


def print_diff(r: DiffResult, console: Console | None = None, top: int = 10) -> None:
    """Print the diff to ``console`` (stdout by default)."""
    (console or Console()).print(renderable(r, top))


def render_console(r: DiffResult, width: int = 140, top: int = 10) -> str:
    """The console rendering as plain text."""
    import io

    c = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    c.print(renderable(r, top))
    return c.export_text()


#: Characters of a Markdown table cell of the diff (a longer one is cut with "…", and the table says so).
MD_CELL_CHARS = 100


def render_markdown(r: DiffResult, top: int = 15, limit: int = 65_000) -> str:
    """Markdown (PR comments, job summaries): headline, facts and the tables' first ``top`` rows, under ``limit``."""
    out = ["## gpulens diff", "", md_escape(headline(r)), ""]
    out += [f"- **{k}**: {md_escape(v)}" for k, v in _facts(r)] + [f"- **warning**: {md_escape(w)}" for w in r.warnings]
    for name, title in TITLES.items():
        df = shown(r, name)
        if not len(df):
            continue
        cols = _cols(name, df)
        block = ["", f"### {title}", "", "| " + " | ".join(md_escape(header(c, name, r.summary)) for c in cols) + " |",
                 "|" + "---|" * len(cols)]
        rows = _cells(df.head(top), r.columns[name], cols, MD_CELL_CHARS)
        block += ["| " + " | ".join(md_escape(x) for x in cells) + " |" for cells in rows]
        if len(df) > top:
            block.append(f"\n{len(df) - top} more rows in the JSON output.")
        if any(len(x) == MD_CELL_CHARS and x.endswith("…") for cells in rows for x in cells):
            # a cut name says where the whole one is (a PR comment reader has no other way to find it)
            block.append(f"\nCells longer than {MD_CELL_CHARS} characters are cut (…); the full names are in the JSON "
                         "output (gpulens diff … --json FILE).")
        if sum(map(len, out)) + sum(map(len, block)) > limit - 200:
            out.append("\n(further tables left out to stay under the size limit; see the JSON output)")
            break
        out += block
    return "\n".join(out) + "\n"


def _esc(v: Any) -> str:
    return _html.escape(str(v), quote=True)


#: Columns whose cells are kernel keys (``" | "``-separated in ``base_kernels``/``cand_kernels``).
_KEY_COLS = ("base_kernels", "cand_kernels")


def _html_labels(r: DiffResult) -> dict[str, str]:
    """Short label of every kernel key of the result, one naming over both runs (as :func:`shown` labels them)."""
    k = r.tables["kernels"]
    keys = [x for c in _KEY_COLS if c in k for v in k[c].astype(str) for x in v.split(" | ") if x]
    keys = list(dict.fromkeys(keys))
    runs = [{x for v in k[c].astype(str) for x in v.split(" | ") if x} for c in _KEY_COLS if c in k]
    return dict(zip(keys, short_names(keys, runs=runs)))


#: What the per-kernel table's name cell says under the row's label (its header's tooltip).
_SIDES_DOC = "; under it, the kernels of the row in each run (\"both runs\" when the same), full names on hover"


def _keys_html(raw: Any, labels: dict[str, str]) -> str:
    """A row's kernel keys (``" | "``-joined) as short labels, each with its full name as the tooltip."""
    return ", ".join(f'<span title="{_esc(x)}">{_esc(labels.get(x, x))}</span>' for x in str(raw).split(" | "))


def _kernel_cell(text: str, base: Any, cand: Any, labels: dict[str, str]) -> str:
    """The per-kernel table's row label with the row's base and candidate kernels under it, one cell ("both runs:"
    when they are the same kernels; "none" for a side without one): three columns of their own were ~83 px each
    at 1280 px and wrapped a kernel name a few letters per line."""
    b, c = ("" if _missing(v) else str(v) for v in (base, cand))
    sides = ([("both runs", b)] if b == c else [("base", b), ("candidate", c)])
    return (f'<td class="k kk">{_esc(text)}' + "".join(
        f'<span class="side">{who}: {_keys_html(v, labels) if v else "none"}</span>' for who, v in sides) + "</td>")


def _html_cell(col: str, raw: Any, text: str, unit: str, labels: dict[str, str]) -> str:
    """One table cell: kernel keys as short labels with the full name in the tooltip; figures unwrapped."""
    if col in _KEY_COLS and not _missing(raw) and str(raw):
        keys = str(raw).split(" | ")
        return '<td class="k">' + "<br>".join(_keys_html(x, labels) for x in keys) + "</td>"
    if unit in ("ns", "share", "%", "ratio", "count", "signed share") or col in ("delta_ns", "cumulative_delta_ns"):
        return f'<td class="n">{_esc(text)}</td>'
    return ('<td class="k">' if col in ("kernel", "operator") else "<td>") + f"{_esc(text)}</td>"


#: The diff page's style. A wide table scrolls inside its own box (``div.tablewrap``: at most the window's width and
#: 75 % of its height, so its horizontal scroll bar is on screen, not after 200 rows), with its header row kept in
#: view; kernel names wrap within 16 em (anywhere, 5 em at least: a long template name has no space), headers within 7 em, and
#: figures never wrap: the 16-column kernel table fits a 1280 px window. The page itself never scrolls sideways.
DIFF_CSS = ("body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;overflow-wrap:break-word}"
            "table{border-collapse:collapse;margin:0;font-size:13px}"
            "td,th{border:1px solid #ccc;padding:2px 4px;text-align:left;vertical-align:top;max-width:16em;"
            "overflow-wrap:break-word}td.k{overflow-wrap:anywhere;min-width:5em}td.kk{min-width:16em;max-width:24em}"
            "td.kk .side{display:block;font-size:12px;color:#444}th{background:#f0f0f0;position:sticky;top:0;z-index:1;max-width:7em;font-size:12px;"
            "overflow-wrap:normal}"
            "table.kv th{position:static}table.kv td{max-width:60em}"
            ".tablewrap{max-width:100%;max-height:75vh;overflow:auto;margin:.5em 0;border:1px solid #eee}"
            "td.n{white-space:nowrap;text-align:right;font-variant-numeric:tabular-nums}"
            "td span[title]{cursor:help}.headline{font-weight:bold}.warn{color:#D55E00}")


def render_html(r: DiffResult, max_rows: int = 200) -> str:
    """A small self-contained HTML page (no script, no network): the headline, its warnings, the facts, the
    before/after charts (:mod:`gpulens.reports._html_diff`), then every table (first ``max_rows`` rows).

    Kernel rows are labelled as in the console (:func:`shown`); the base/candidate kernel keys of a row are shown
    by their short labels, each with the full kernel name as its tooltip (the JSON keeps the full keys)."""
    body = [f"<h1>gpulens diff</h1><p class=\"headline\">{_esc(headline(r))}</p>"]
    # a warning qualifies the headline (e.g. the runs are not the same workload): right under it, before the facts
    body += [f'<p class="warn">warning: {_esc(w)}</p>' for w in r.warnings] + ['<table class="kv">']
    body += [f"<tr><th>{_esc(k)}</th><td>{_esc(v)}</td></tr>" for k, v in _facts(r)] + ["</table>"]
    body.append(diff_charts(r, shown(r, "kernels")))  # the answer first: what changed, drawn; then every table
    labels = _html_labels(r)
    for name, title in TITLES.items():
        df, docs = shown(r, name), r.columns[name]
        body.append(f'<section id="{name}"><h2>{_esc(title)}</h2>')
        if not len(df):
            body.append("<p>No rows.</p></section>")
            continue
        # the row's base and candidate kernels have columns of their own here: "kernels" (base → candidate) would
        # say it twice
        cols = [c for c in df.columns if not (c == "kernels" and all(k in df for k in _KEY_COLS))]
        # the row's base and candidate kernels go under its label (one wide name column, not three narrow ones)
        merged = "kernel" in cols and all(k in cols for k in _KEY_COLS)
        cols = [c for c in cols if not (merged and c in _KEY_COLS)]
        units = ["signed share" if c == "contribution" else declared_unit(docs[c]) for c in cols]
        body.append('<div class="tablewrap" tabindex="0"><table><thead><tr>' + "".join(f'<th title="{_esc(docs[c] + (_SIDES_DOC if merged and c == "kernel" else ""))}">{_esc(header(c, name, r.summary))}</th>'
                    for c in cols)
                    + "</tr></thead><tbody>")
        head = df.head(max_rows)
        sides = zip(*(head[k].tolist() for k in _KEY_COLS)) if merged else iter(lambda: (None, None), 0)
        for raw, cells, (b, c_) in zip(head[cols].itertuples(index=False), _cells(head, docs, cols, 0), sides):
            body.append("<tr>" + "".join(_kernel_cell(x, b, c_, labels) if merged and c == "kernel" else
                                         _html_cell(c, v, x, u, labels)
                                         for c, v, x, u in zip(cols, raw, cells, units)) + "</tr>")
        body.append("</tbody></table></div>")
        if len(df) > max_rows:
            body.append(f"<p>Showing {max_rows} of {len(df)} rows (the JSON output has all).</p>")
        body.append("</section>")
    style = DIFF_CSS + CHART_CSS
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpulens diff</title>"
            f"<style>{style}</style></head><body>" + "".join(body) + "</body></html>\n")


def _clean(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if _missing(v):
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if math.isinf(f) else (int(f) if f.is_integer() else f)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def to_dict(r: DiffResult) -> dict[str, Any]:
    """The diff as a JSON-safe dict (layout: docs/report-schema.md, section "gpulens diff")."""
    from gpulens import __version__

    side = lambda s: {"label": s.label, "devices": s.devices, "analysed_as": s.analysed_as,
                      "analysed_as_assumed": s.assumed, "read_as": s.note}
    return _clean({"diff_schema_version": DIFF_SCHEMA_VERSION, "tool": {"name": "gpulens", "version": __version__},
                   "base": side(r.base), "candidate": side(r.cand), "summary": r.summary, "warnings": r.warnings,
                   "columns": r.columns,
                   "tables": {n: t.astype(object).to_dict(orient="records") for n, t in r.tables.items()}})


def render_json(r: DiffResult) -> str:
    """The diff as indented JSON text."""
    return json.dumps(to_dict(r), indent=1, allow_nan=False)
