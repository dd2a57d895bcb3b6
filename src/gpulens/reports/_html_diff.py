"""The charts of the ``gpulens diff`` HTML page: base-vs-candidate bars, drawn as plain HTML (no script, no plotly).

Two charts open the page after its headline: the kernel rows with the largest change in GPU time and every work
category, each row a pair of bars (base, candidate) on one scale per chart with the figures beside them and the
direction marked by a symbol as well as by the sign (▲ more GPU time in the candidate, ▼ less), never by colour
alone. The bars draw the diff's own tables (:class:`gpulens.diff.DiffResult`: ``base_time_ns``, ``cand_time_ns``,
``delta_ns``, ``delta_pct``, rows already ordered by |Δ|); nothing is computed here but each bar's length.
"""

from __future__ import annotations

import html as _html
import math
from typing import Any, Sequence

import pandas as pd

from gpulens.units import plural

#: Bar colours (Okabe-Ito: grey for the base, blue for the candidate; told apart by position and legend too).
BASE_COLOUR, CAND_COLOUR = "#999999", "#0072B2"
#: Rows per chart: the kernel rows with the largest |Δ| (as many as the top contributors list by default), and
#: the categories (all of them, up to this many).
CHART_KERNELS, CHART_CATEGORIES = 10, 12

#: Style of the charts (appended to the diff page's style).
CHART_CSS = (".dchart{margin:.8em 0 1.2em;max-width:1200px}.dchart h2{margin:.2em 0 .4em}"
             ".pbars{display:grid;grid-template-columns:minmax(8em,max-content) minmax(120px,420px) max-content;"
             "gap:5px 10px;align-items:center;font-size:13px}"
             ".pl{text-align:right;max-width:26em;overflow-wrap:anywhere}.pt{display:block;background:#f2f2f2}"
             ".pb{display:block;height:9px;margin:1px 0}.pb.b{background:" + BASE_COLOUR + "}"
             ".pb.c{background:" + CAND_COLOUR + "}.px{font-variant-numeric:tabular-nums;white-space:nowrap}"
             ".sw{display:inline-block;width:1.2em;height:.7em;margin:0 .3em 0 .8em;vertical-align:middle}"
             ".sw.b{background:" + BASE_COLOUR + "}.sw.c{background:" + CAND_COLOUR + "}"
             ".dgroup{grid-column:1/-1;font-weight:bold;margin-top:4px}.dchart figcaption{font-size:13px;color:#333;margin-top:4px}.dlegend{font-size:13px;margin:0 0 6px}"
             "@media (max-width:700px){.pbars{grid-template-columns:minmax(6em,12em) minmax(80px,1fr)}"
             ".px{grid-column:1/-1;white-space:normal;text-align:right}}"
             # the diff page's charts (.dcharts) share one label width, --dlw (diff_charts: the longest label of
             # either chart, within the label's 8–26 em): each grid sized its labels to its own, so the category bars
             # began 200 px left of the kernels'
             "@media (min-width:701px){.dcharts .pbars{grid-template-columns:var(--dlw) minmax(120px,420px) "
             "max-content}}")


def _esc(v: Any) -> str:
    return _html.escape(str(v), quote=True)


def _num(v: Any) -> float | None:
    """``v`` as a float, None when missing (None, NA, NaN)."""
    if v is None or v is pd.NA:
        return None
    f = float(v)
    return None if math.isnan(f) else f


def _width(v: float | None, top: float) -> str:
    """A bar's CSS width: its share of the chart's longest bar (a non-zero time stays visible: 1 px at least)."""
    if not v or v <= 0 or top <= 0:
        return "width:0"
    return f"width:{100 * v / top:.2f}%;min-width:1px"


def _change(delta: float | None, pct: Any, match: str) -> str:
    """"▲ +45.00 µs (+30.0 %)": the change with its direction as a symbol; a row one run lacks says so."""
    from gpulens.reports.diff import _delta, fmt_cell

    if delta is None:
        return "Δ unknown"
    mark = "▲ " if delta > 0 else "▼ " if delta < 0 else "= "
    tail = (" (new)" if match == "new" else " (vanished)" if match == "vanished"
            else "" if _num(pct) is None else f" ({fmt_cell(pct, '%')})")
    return mark + _delta(delta) + tail


def paired_bars(rows: Sequence[tuple[str, str, Any, Any, Any, Any, str]]) -> str:
    """A base-vs-candidate bar chart as an HTML grid: one ``(label, full name, base ns, candidate ns, Δ ns, Δ %,
    match)`` row per line — the label (full name on hover), the two bars on one scale (the longest time shown is the
    full track), then "base → candidate · ▲/▼ Δ (Δ %)". A missing time draws no bar and reads "unknown"."""
    from gpulens.reports.console import fmt_ns

    return bar_rows([(label, full, base, cand,
                      f"{'unknown' if _num(base) is None else fmt_ns(_num(base))} → "
                      f"{'unknown' if _num(cand) is None else fmt_ns(_num(cand))} · {_change(_num(delta), pct, match)}")
                     for label, full, base, cand, delta, pct, match in rows])


def bar_rows(rows: Sequence[tuple[str, str, Any, Any, str]]) -> str:
    """Base-vs-candidate bars as an HTML grid, one ``(label, full name, base, candidate, text)`` row per line: the
    label (full name on hover), the two bars on one scale (the largest value shown is the full track) and ``text``
    beside them. A missing value draws no bar. Used by the diff page (:func:`paired_bars`) and the gate page."""
    return grouped_bar_rows([("", rows)])


def grouped_bar_rows(groups: Sequence[tuple[str, Sequence[tuple[str, str, Any, Any, str]]]]) -> str:
    """:func:`bar_rows` for ``(heading, rows)`` groups in one grid (labels and bars aligned across groups), each
    group on its own scale (its largest value is the full track) under its heading (none when ``""``)."""
    out = ['<div class="pbars">']
    for head, rows in groups:
        if head:
            out.append(f'<span class="dgroup">{_esc(head)}</span>')
        top = max((t for r in rows for t in (_num(r[2]), _num(r[3])) if t is not None), default=0.0)
        for label, full, base, cand, text in rows:
            b, c = _num(base), _num(cand)
            out.append(f'<span class="pl" title="{_esc(full)}">{_esc(label)}</span>'
                       f'<span class="pt" title="{_esc(label)}: {_esc(text)}"><span class="pb b" '
                       f'style="{_width(b, top)}"></span><span class="pb c" style="{_width(c, top)}"></span></span>'
                       f'<span class="px">{_esc(text)}</span>')
    out.append("</div>")
    return "".join(out)


#: The charts' legend (above the bars): which bar is which run, and what the direction marks mean.
LEGEND = ('<p class="dlegend"><span class="sw b"></span>base<span class="sw c"></span>candidate · ▲ more GPU time in '
          "the candidate, ▼ less</p>")


def diff_charts(r: Any, kernels: pd.DataFrame) -> str:
    """The diff page's two charts (HTML), or a note saying why there are none.

    Args:
        r: the :class:`gpulens.diff.DiffResult`.
        kernels: its kernel table as people read it (:func:`gpulens.reports.diff.shown`: short kernel labels);
            rows ordered by |Δ| as the diff orders them.
    """
    if r.summary.get("times_unknown"):
        return ('<p class="warn">No charts: GPU times are unknown (a run records no kernel durations); the tables '
                "give the launch counts.</p>")
    out, labels = [], []
    kt = r.tables["kernels"]
    # a row matched through its operator and shapes (or by category) is labelled by that key: its hover names the
    # kernels on each side too ("flash_fwd_kernel → attn_fwd": which kernels the bars are, across vendors)
    pairs = kt["kernels"].astype(str).tolist() if "kernels" in kt else [""] * len(kt)
    full = [f"{key}\nkernels: {pair}" if str(m) in ("op+shapes", "category") and pair else key
            for key, pair, m in zip(kt["kernel"].astype(str), pairs, kt["match"].astype(str))]
    k = kernels.head(CHART_KERNELS)
    # rows whose GPU time did not change are no "largest change": drawn, they filled the chart with "= 0 ns" bars
    # under the one kernel that moved (a 2× flash_fwd_kernel beside 9 unchanged kernels); said, not drawn
    same = pd.to_numeric(k["delta_ns"], errors="coerce").eq(0) if "delta_ns" in k else pd.Series(False, k.index)
    unchanged = int(same.sum()) if not same.all() else 0
    k = k[~same] if unchanged else k
    if len(k):
        rows = [(lab, f, b, c, d, p, m) for lab, f, b, c, d, p, m in zip(
            k["kernel"], full, k["base_time_ns"], k["cand_time_ns"], k["delta_ns"], k["delta_pct"],
            k["match"].astype(str))]
        labels += [x[0] for x in rows]
        out.append(_figure("chart-kernels", "Largest changes per kernel: base vs candidate", rows,
                           f"The {plural(len(k), 'kernel row')} with the largest change in GPU time (of "
                           f"{len(kernels)} rows), "
                           "largest first, as the top contributors list them; bars: GPU time summed over each run's "
                           "launches, one scale for the chart."
                           + (f" Rows whose GPU time did not change (0 ns) are not drawn: {unchanged} of the first "
                              f"{CHART_KERNELS}." if unchanged else "")))
    cat = r.tables.get("categories")
    if cat is not None and len(cat):
        c = cat.head(CHART_CATEGORIES)
        rows = [(str(n), str(n), b, cd, d, p, "") for n, b, cd, d, p in zip(
            c["category"], c["base_time_ns"], c["cand_time_ns"], c["delta_ns"], c["delta_pct"])]
        labels += [x[0] for x in rows]
        out.append(_figure("chart-categories", "GPU time per category: base vs candidate", rows,
                           f"{len(c)} of {len(cat)} work categories, largest change first; bars: GPU time summed over "
                           "each run, one scale for the chart."))
    if not out:
        return ""
    # one label column for both charts: the longest label in characters (ch: a digit's width, the labels being
    # mostly digits and brackets), the chart's own bounds (.pl max-width 26em; 8em at least)
    longest = max(len(str(x)) for x in labels)
    return f'<div class="dcharts" style="--dlw:min(26em,max(8em,{longest + 1}ch))">{"".join(out)}</div>'


def _figure(fid: str, title: str, rows: list, takeaway: str) -> str:
    return (f'<figure class="dchart" id="{fid}" role="img" aria-label="{_esc(title)}: {_esc(takeaway)}">'
            f"<h2>{_esc(title)}</h2>{LEGEND}{paired_bars(rows)}<figcaption>{_esc(takeaway)}</figcaption></figure>")
