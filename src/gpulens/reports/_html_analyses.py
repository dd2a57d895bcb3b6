"""HTML pages for analyses that may or may not be in a Report: roofline, occupancy, stalls/verdicts, and a generic
panel for any :class:`~gpulens.analyzers.AnalysisResult`, so a new analyzer shows up without a new page.

A page whose analysis is absent says why: the result's ``skipped_reason``, or "analysis not available".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import AnalysisResult
from gpulens.report import SourceReport
from gpulens.analyzers._advice import vendor_word
from gpulens.analyzers._gap_codes import GAP_CLASSES
from gpulens.reports._format import (LABELS, column_label, fmt_ns, fmt_unit, is_missing, limiter_text, result_title, summary_items, time_scale,
                                     shown_columns, source_vendor, stall_class_label, unit_of, vendor_headers, vendor_label,
                                     with_limiter_text)
from gpulens.reports._values import NO_LIMITER_TEXT, bound_text
from gpulens.analyzers._occ_bound import not_recorded
from gpulens.reports._html_pages import _layout, axis_title, findings_table, nonzero_parts, part_marker
from gpulens.reports._html_parts import (
    OKABE_ITO,
    Panel,
    esc,
    bar_value_labels,
    empty_html,
    is_name_column,
    kv_html,
    plot_text,
    table_html,
    tick_labels,
    unknown_everywhere,
    wrap_name,
)
from gpulens.reports._names import short_names
from gpulens.units import MISSING, agree, plural

#: Result names shown on the stalls & verdicts page (any name containing one of these words).
VERDICT_WORDS = ("stall", "verdict", "bottleneck")
NOT_AVAILABLE = "analysis not available (no analyzer produced it for this input)"


def _absent(what: str, r: AnalysisResult | None) -> list[Any]:
    if r is None:
        return [empty_html(what, NOT_AVAILABLE)]
    if r.skipped:
        return [empty_html(what, str(r.skipped_reason))]
    return [empty_html(what, "the analysis ran and returned no rows")]


def _takeaway(r: AnalysisResult, default: str) -> str:
    from gpulens.reports._answer import shown_title  # the title with its premise, as every reporter shows it

    return shown_title(r.findings[0]) + "." if r.findings else default


def occupancy_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Achieved vs theoretical occupancy per hot kernel, with the limiter."""
    r = s.results.get("occupancy")
    if r is None or r.skipped or not len(r.table):
        return _absent("Occupancy", r)
    t = r.table.iloc[:25]
    vendor = r.summary.get("vendor")
    ys = tick_labels(short_names(t["name"].astype(str)), full=t["name"].astype(str).tolist())
    lims = t["limiters"] if "limiters" in t else t["limiter"]
    theo, ach = _numbers(t["theoretical_occupancy_pct"]), _numbers(t["achieved_occupancy_pct"])
    # each bar's value as the table prints it (the same column, the same formatter), the limiter after the
    # theoretical one: inside the bar where the text fits, else just past its end (plotly's own measure); the hover
    # says the same figure in words (plotly's own "x" printed 97.86969720100086 as 97.8697)
    pct = {c: unit_of(c, r.columns.get(c, "")) for c in ("theoretical_occupancy_pct", "achieved_occupancy_pct")}
    lim_words = [plot_text(limiter_text(x, vendor), 32) for x in lims]
    names = [wrap_name(n) for n in t["name"]]
    theo_fig = [fmt_unit(v, pct["theoretical_occupancy_pct"]) for v in t["theoretical_occupancy_pct"]]
    # a theoretical figure the block size alone bounds (registers / shared memory not recorded): its bound drawn
    # as an outlined bar in the theoretical bar's place, "≤ x %" (it was a bar of nothing labelled "… · unknown")
    bounds = _numbers(t["theoretical_max_pct"]) if "theoretical_max_pct" in t else [None] * len(t)
    bounds = [b if v is None else None for v, b in zip(theo, bounds)]
    ach_text = [fmt_unit(v, pct["achieved_occupancy_pct"]) if x is not None else "" for v, x in
                zip(t["achieved_occupancy_pct"], ach)]
    measured = any(x is not None for x in ach)
    data: list[dict[str, Any]] = []
    if any(v is not None for v in theo):  # no legend entry for bars that are not there
        data.append({"type": "bar", "y": ys, "x": theo, "orientation": "h", "offsetgroup": "theoretical",
                     "name": "theoretical" if measured else "theoretical (achieved occupancy not measured)",
                     "marker": {"color": OKABE_ITO[4]},
                     # an unknown limiter beside a known figure reads "limiter unknown", never a bare "unknown"
                     **bar_value_labels([f"{f} · {'limiter unknown' if w == MISSING else w}" if v is not None else ""
                                         for v, f, w in zip(theo, theo_fig, lim_words)]),
                     "hovertext": [f"{n}<br>theoretical occupancy {f} · limiter: {w}" for n, f, w in
                                   zip(names, theo_fig, lim_words)], "hoverinfo": "text"})
    if any(b is not None for b in bounds):
        why = not_recorded(vendor)
        data.append({"type": "bar", "y": ys, "x": bounds, "orientation": "h", "offsetgroup": "theoretical",
                     "name": f"theoretical: at most (block size alone; {why})",
                     "marker": {"color": "#ffffff", "line": {"color": OKABE_ITO[4], "width": 2}},
                     **bar_value_labels([f"≤ {b:.1f} %" if b is not None else "" for b in bounds]),
                     "insidetextfont": {"color": "#1a1a1a"},
                     "hovertext": [f"{n}<br>theoretical occupancy unknown ({why}): its block size alone allows at "
                                   f"most {b:.1f} %" if b is not None else "" for n, b in zip(names, bounds)],
                     "hoverinfo": "text"})
    if measured:  # no empty half-row per kernel and no legend entry for bars that are not there
        data.append({"type": "bar", "y": ys, "x": ach, "orientation": "h", "name": "achieved",
                     "offsetgroup": "achieved",
                     # thin stripes on white, the value in dark text: plotly's automatic white text on the
                     # striped bar could not be read (ncu H200 gemm_naive's "97.9 %")
                     "marker": {"color": OKABE_ITO[0], "line": {"color": OKABE_ITO[0], "width": 1},
                                "pattern": {"shape": "/", "bgcolor": "#ffffff", "fgcolor": OKABE_ITO[0],
                                            "solidity": 0.25}},
                     **bar_value_labels(ach_text), "insidetextfont": {"color": "#1a1a1a"},
                     "hovertext": [f"{n}<br>achieved occupancy {a}" for n, a in zip(names, ach_text)],
                     "hoverinfo": "text"})
    fig = _layout(data, 160 + (44 if measured and len(data) > 1 else 26) * len(ys), barmode="group",
                  xaxis={"title": axis_title(f"occupancy [% of max {vendor_word(vendor, 'warps')}]"),
                         "range": [0, 102]},
                  yaxis={"autorange": "reversed"}, showlegend=True)  # one trace: its legend says what is not drawn
    cols = ["name", "calls", "time_ns", "block_size", "regs_per_thread", "smem_bytes", "active_blocks_per_sm",
            "theoretical_occupancy_pct", "achieved_occupancy_pct", "limiters"]
    take = occupancy_caption(r, t, lims, measured)
    return [Panel("Occupancy of the hot kernels", take, fig, table_html(
        with_limiter_text(r.table, vendor), cols, max_rows, docs=r.columns,
        headers=vendor_headers(cols, vendor, r.columns)))]


def occupancy_caption(r: AnalysisResult, t: pd.DataFrame, lims: pd.Series, measured: bool) -> str:
    """What the occupancy chart shows, from the occupancy result alone: which kernels (``t``, the rows drawn, of
    ``r.table``), the time-weighted theoretical and achieved figures of its summary ("unknown" when absent; achieved
    "not measured" when no row has it), and the bar of the kernel with the most GPU time (the table's first row) with
    its limiter. Not the result's first finding: that is often a grid-fill (waves) finding, which the chart does not
    draw (H200 GPT-2's caption read "Grid of GammaBetaBackward… fills 9.1 % of one wave")."""
    vendor = r.summary.get("vendor")
    pct = unit_of("theoretical_occupancy_pct", r.columns.get("theoretical_occupancy_pct", ""))
    which = (f"the {len(t)} hot kernels with the most GPU time (of {len(r.table)})" if len(t) < len(r.table)
             else f"the {plural(len(t), 'hot kernel(s)')}")
    def weighted(key: str) -> str:  # the summary's time-weighted figure; nothing said when the result has none
        v = r.summary.get(key)
        return "" if is_missing(v) else f", time-weighted {fmt_unit(v, pct)}"

    ach = (f"achieved occupancy (striped) beside it{weighted('time_weighted_achieved_pct')}" if measured
           else "achieved occupancy not measured (no occupancy counters in this input)")
    first = ""
    times = pd.to_numeric(t["time_ns"], errors="coerce") if "time_ns" in t else pd.Series(dtype=float)
    if times.notna().any():
        i = int(times.fillna(-1).to_numpy().argmax())
        lim = limiter_text(lims.iloc[i], vendor)
        theor = t["theoretical_occupancy_pct"].iloc[i] if "theoretical_occupancy_pct" in t else None
        bound = bound_text(theor, t["theoretical_max_pct"].iloc[i] if "theoretical_max_pct" in t else None, vendor)
        who = f" The kernel with the most GPU time, {short_names([str(t['name'].iloc[i])])[0]},"
        if is_missing(theor) and not bound:  # never "has unknown theoretical (nothing limits it)": why when known
            why = r.summary.get("theoretical_missing")
            first = f"{who} has no theoretical occupancy figure" + (f": {why}." if why and not is_missing(why)
                                                                   else ".")
        else:  # a limiter not recorded is unknown, never "nothing limits it"; a block-size bound said as "≤ x %"
            first = (f"{who} has {bound or fmt_unit(theor, pct)} theoretical occupancy ("
                     + ("nothing limits it" if lim == NO_LIMITER_TEXT else "its limiter is unknown" if lim == MISSING else
                        f"limited by {lim}") + ").")
    theo_known = "theoretical_occupancy_pct" in t and pd.to_numeric(t["theoretical_occupancy_pct"],
                                                                  errors="coerce").notna().any()
    bounded = int(pd.to_numeric(t["theoretical_max_pct"], errors="coerce").notna().sum()) \
        if "theoretical_max_pct" in t else 0
    outlined = (f"; the outlined bar{'s' if bounded > 1 else ''} {'are' if bounded > 1 else 'is'} the most "
                "theoretical occupancy the block size alone allows" if bounded else "")
    if not theo_known:  # no theoretical bar is drawn: the caption never describes bars that are not there
        why = r.summary.get("theoretical_missing")
        alone = (f"the striped bars are achieved occupancy{weighted('time_weighted_achieved_pct')}" if measured
                 else "achieved occupancy not measured either" + ("" if bounded else ": nothing to draw"))
        return (f"No theoretical occupancy for {which}" + (f": {why}" if why and not is_missing(why) else "")
                + f"{outlined}; {alone}. Grid fill and tail waves are in the table and the findings.")
    return (f"Theoretical occupancy of {which} — the share of the "
            f"{vendor_word(vendor, 'sm')}'s {vendor_word(vendor, 'warp')} slots their launch configuration allows"
            f"{weighted('time_weighted_theoretical_pct')}, each bar labelled with the resource that limits it{outlined}; {ach}.{first} Grid fill "
            "and tail waves are in the table and the findings.")


def _vendor_of_stalls(st: AnalysisResult) -> str | None:
    """``amd`` / ``nvidia`` when every stall row's counters are that vendor's (the table's ``vendor`` column)."""
    v = set(st.table["vendor"].astype(str)) if "vendor" in st.table else set()
    return v.pop() if len(v) == 1 and v <= {"amd", "nvidia"} else None


def verdict_names(s: SourceReport) -> list[str]:
    """Names of results that belong on the stalls & verdicts page."""
    return [n for n in s.results if any(w in n.lower() for w in VERDICT_WORDS)]


def verdicts_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Idle causes per GPU (stacked bar), stall classes per kernel (stacked bar), kernel verdicts, then every other
    stall / verdict result drawn generically; says why the page is empty when there is none."""
    names = verdict_names(s)
    if not names:
        return [empty_html("Stalls and verdicts", NOT_AVAILABLE + "; the findings of the other analyses are on "
                                                                 "the Summary page")]
    out: list[Any] = []
    bn = s.results.get("bottlenecks")
    st = s.results.get("stalls")
    st = s.results.get("stalls")
    own = {"bottlenecks": ("rank", "device_id"), "stalls": ("name",), "verdicts": ("name", "verdict")}
    drawn = {n for n, cols in own.items() if n in s.results and not s.results[n].skipped
             and len(s.results[n].table) and all(c in s.results[n].table for c in cols)}
    if "bottlenecks" in drawn:
        out.append(_idle_panel(bn, max_rows, source_vendor(s)))
    if "stalls" in drawn:
        out.append(_stall_panel(st, max_rows))
    vd = s.results.get("verdicts")
    if "verdicts" in drawn:
        out.append(_verdict_panel(s, vd, max_rows))
    for n in names:
        r = s.results[n]
        if n in drawn:
            continue
        out += generic_panels(n, r, max_rows, source_vendor(s))
    return out


def _numbers(col: pd.Series, scale: float = 1.0) -> list[float | None]:
    """A column as JSON numbers for a chart (``col / scale``): a missing or non-numeric value is null (a gap)."""
    v = pd.to_numeric(col, errors="coerce").astype(float) / scale
    return [None if x != x else x for x in v.tolist()]


def _stacked(t: pd.DataFrame, ys: list[str], parts: list[tuple[str, str]], scale: float, axis: str,
             hover_unit: str, xrange: list[float] | None = None, full: list[str] | None = None) -> dict[str, Any]:
    """Horizontal bars of ``parts`` (column, label) stacked per row of ``t``; ``full`` names the rows in the hover
    (the tick labels are cut). Past the 8 palette colours, parts repeat a colour with a bar pattern added."""
    who = [wrap_name(n) for n in full] if full is not None else ys
    # a part keeps its colour whichever others are at 0 (no trace, no legend entry for those): idle "queued" is the
    # same pink whether or not the host idle is there
    drawn = set(nonzero_parts(t, parts))
    parts = [(i, col, label) for i, (col, label) in enumerate(parts) if (col, label) in drawn]
    data = [{"type": "bar", "y": ys, "x": (pd.to_numeric(t[col], errors="coerce").fillna(0) / scale).tolist(),
             "name": label, "orientation": "h", "customdata": who,
             "marker": part_marker(OKABE_ITO[i % len(OKABE_ITO)], ("", "/", "x", ".")[(i // len(OKABE_ITO)) % 4]),
             "hovertemplate": f"%{{customdata}}<br>{plot_text(label)}: %{{x:.3g}} {hover_unit}<extra></extra>"}
            for i, col, label in parts]
    xaxis: dict[str, Any] = {"title": axis_title(axis), **({"range": xrange} if xrange else {})}
    return _layout(data, 150 + 30 * len(ys), barmode="stack", xaxis=xaxis, yaxis={"autorange": "reversed"})


def _idle_panel(bn: AnalysisResult, max_rows: int, vendor: str | None = None) -> Panel:
    t = bn.table
    # the idle causes only (they add up to the idle): never a bound on it such as idle_untimed_ns, a part of the
    # causes' time, which stacked beside them counted that idle twice
    parts = [(c, column_label(c, bn.columns.get(c, ""))) for c in t.columns
             if c.startswith("idle_") and c.endswith("_ns") and c[5:-3] in GAP_CLASSES]
    ys = [f"rank {fmt_unit(r, 'id')} · GPU {fmt_unit(d, 'id')}" for r, d in zip(t["rank"], t["device_id"])]
    div, unit = time_scale(t["idle_ns"]) if "idle_ns" in t else (1e6, "ms")  # the unit follows the magnitude
    fig = _stacked(t, ys, parts, div, f"idle time [{unit}]", unit)
    # the table's "overhead" column (the run verdict is the verdicts analysis's: one figure called the verdict)
    over = ", ".join(sorted({fmt_unit(v, "text") for v in t["overhead"]})) if "overhead" in t else "unknown"
    busy = [c for c in ("exposed_comm_ns", "small_grid_ns") if c in t]
    beside = (" The table also shows busy time beside the idle split (" + ", ".join(
        column_label(c, bn.columns.get(c, "")) for c in busy) + "): it is not part of the idle time.") if busy else ""
    other = int(bn.summary.get("idle_other_clock_ns") or 0)  # the analysis's sum over the GPUs
    bound = (f" The idle is at most its figure: up to {fmt_ns(other)} of it may be GPU work written on another clock "
             "(events of one GPU on several time bases), so no verdict rests on it.") if other else ""
    return Panel("Why the GPU was idle", f"Idle time per GPU split by cause; {LABELS['overhead']}: {over}."
                 + beside + bound,
                 fig, table_html(t, None, max_rows, docs=bn.columns, headers=vendor_headers(t.columns, vendor, bn.columns)))


#: The stall table's columns a reader needs first, in reading order: which kernel, how long, what its warps waited
#: on (class, share, the largest reasons), what to do, and its speed of light — inside a 1280-px screen; the
#: bookkeeping (launch count, vendor, counter family) and the figures the reasons cell repeats after them (the
#: table in its original order, 1,900 px wide, cut the reasons and the guidance off at the right edge: ncu H200).
_STALL_FIRST = ("name", "time_ns", "dominant_class", "dominant_pct", "reasons", "guidance", "memory_sol_pct",
                "compute_sol_pct", "issue_pct", "top_reasons", "top_reason", "top_reason_pct")


def _stall_panel(st: AnalysisResult, max_rows: int) -> Panel:
    t = st.table.iloc[:20]
    parts = [(c, lab) for c in t.columns if (lab := stall_class_label(c, st.columns.get(c, "")))]
    ys = tick_labels(short_names(t["name"].astype(str)), full=t["name"].astype(str).tolist())
    fig = _stacked(t, ys, parts, 1.0, "share of stall time [%]", "%", xrange=[0, 100],
                   full=t["name"].astype(str).tolist())
    drawn = {p for p, _ in parts}
    cols = [c for c in _STALL_FIRST if c in st.table.columns] + [c for c in st.table.columns
                                                                 if c not in drawn and c not in _STALL_FIRST]
    return Panel("Stall classes of the hot kernels",
                 f"What the {vendor_word(_vendor_of_stalls(st), 'warps')} of {plural(len(st.table), 'kernel(s)')} "
                 "waited on, as shares of stall time.", fig,
                 table_html(st.table, cols, max_rows, docs=st.columns))


def _verdict_panel(s: SourceReport, vd: AnalysisResult, max_rows: int) -> Panel:
    """The kernel verdicts in the answer banner's layout (every row, each step whole, the evidence folded), then
    every column of the verdict table, folded."""
    from gpulens.reports._answer import order_text, verdict_rows
    from gpulens.reports._html_answer import kernels_html

    t = vd.table
    known = t[t["verdict"].astype(str) != "undetermined"]
    take = (f"{len(known)} of {plural(len(t), 'critical kernel(s)')} {agree(len(known), 'has', 'have')} a verdict; the time at stake is what the fix "
            "could save: at most, or at least where a mark says so (its note gives the upper bound)." if len(t) else "No kernel verdict.")
    # the rows by the rule the console and Markdown share, a cut said in their words ("the top N of M …")
    shown, cut = verdict_rows(s, max_rows)
    order = order_text(shown.get("time_at_stake_ns", []))  # the findings' order, said (_answer.stake_ordered)
    take += f" Rows: {order}." if order else ""
    more = f'<p class="note">Shown: {esc(cut)}.</p>' if cut else ""
    every = ('<details class="tbl"><summary>Every column of the verdict table</summary>'
             + table_html(t, verdict_columns(t), max_rows, docs=vd.columns) + "</details>")
    return Panel("Kernel verdicts", take, None,
                 kernels_html(s, shown.to_dict("records"), None, evidence=True) + more + every)


#: The verdict table's columns a reader needs first, in reading order: what, how long, which bound, what is at
#: stake, what to do — the evidence and the bookkeeping columns after them (a 1,700-px-wide table in its original
#: order put the next step off-screen at 1440 px).
_VERDICT_FIRST = ("name", "time_ns", "share", "verdict", "time_at_stake_ns", "next_steps", "evidence")


def verdict_columns(t: Any) -> list[str]:
    """The verdict table's shown columns: :data:`_VERDICT_FIRST`, then the rest; a column that says nothing in any
    row (every ``stake_note`` empty, every ``kind`` "kernel") left out, and ``inputs``: the analyses and collectors a
    verdict read, by their identifiers ("timeline; roofline; speed_of_light; collector:ncu_csv"), for the JSON
    report — ``evidence`` says the figures in words (console and Markdown show no such column either)."""
    def says_something(c: str) -> bool:
        if c == "inputs":
            return False
        v = t[c]
        if c == "kind":
            return bool((v.astype(str) != "kernel").any())
        if c == "stake_note":
            return bool(v.map(lambda x: isinstance(x, str) and bool(x.strip())).any())
        return True

    cols = [c for c in _VERDICT_FIRST if c in t.columns] + [c for c in t.columns if c not in _VERDICT_FIRST]
    return [c for c in cols if says_something(c)]


def _pick(t: pd.DataFrame, columns: list, preferred: tuple[str, ...], test) -> str | None:
    """The first of ``preferred``, else of ``columns`` (columns of ``t``), whose column ``test`` accepts."""
    for c in preferred:
        if c in columns and test(t[c]):
            return c
    for c in columns:
        if test(t[c]):
            return c
    return None


def _is_instant(column: str) -> bool:
    """A time column that holds a point in time (an offset or a start), not an amount: never a bar's length (the
    memory timeline's chart drew each device's ``peak_offset_ns`` as "the largest: cuda:0, 4.68 ms")."""
    return "offset" in column or "start" in column or column.endswith(("_at_ns", "_ts_ns"))


def _chart_text(values: pd.Series, figs: list[str], names: list[str], what: str, total: int) -> str:
    """What a generic bar chart shows, in one sentence: its figure, how many of the table's rows, in which order,
    and the largest bar (``names``: the rows' labels as the chart's ticks show them) with its figure as the table
    prints it ("Bars: recorded time of 4 rows, largest first; the largest: aten::mm, 479.85 µs.")."""
    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    rows = plural(total, "row(s)") if len(v) == total else f"the first {len(v)} of {total:,} rows"
    of = "the largest" if len(v) == total else "the largest of these"
    known = v[v == v]
    order = ("largest first" if len(known) > 1 and (known[:-1] >= known[1:]).all() else
             "in the table's order")
    i = int(np.nanargmax(v)) if len(known) else -1
    big = f"; {of}: {names[i]}, {figs[i]}" if i >= 0 else ""
    return f"Bars: {what} of {rows}, {order}{big}."


def generic_panels(name: str, r: AnalysisResult, max_rows: int, vendor: str | None = None) -> list[Any]:
    """Any AnalysisResult: a bar chart of its main quantity (time, else share) when it has several rows, its table
    formatted from the declared units (columns with no value at all left out; headers that name a vendor's unit in
    ``vendor``'s words, the result's own ``vendor`` summary first), its summary and findings."""
    title = result_title(name, (r.summary or {}).get("vendor") or vendor)
    if r.skipped:
        return [empty_html(title, str(r.skipped_reason))]
    t = r.table if r.table is not None else pd.DataFrame()
    # columns with no value at all are left out (isna: is_missing, vectorised); the table is not copied
    keep = [c for c in shown_columns(t.columns) if not unknown_everywhere(t, c)] if len(t) else shown_columns(t.columns)
    top = t.iloc[:25]  # the rows the chart draws (a view), its columns `keep` (a list selection copied them)
    fig, chart = None, ""
    if len(t) > 1:
        label = _pick(top, keep, ("name", "kernel", "op", "class", "category", "verdict", "reason", "metric"),
                      lambda c: c.dtype == object or isinstance(c.dtype, pd.CategoricalDtype) or c.dtype == "str")
        value = _pick(top, keep, ("time_at_stake_ns", "time_ns", "effective_ns", "total_ns", "share"),
                      lambda c: unit_of(str(c.name), r.columns.get(str(c.name), "")) in ("ns", "share", "%")
                      and not _is_instant(str(c.name))
                      and pd.api.types.is_numeric_dtype(c) and not pd.api.types.is_bool_dtype(c))
        if label and value:
            unit = unit_of(value, r.columns.get(value, ""))
            scale, axis = time_scale(top[value]) if unit == "ns" else (0.01, "%") if unit == "share" else (1.0, "%")
            names = top[label].astype(str).tolist()
            # kernel names stay as recorded (short form); class / category identifiers read as words
            shown = short_names(names) if is_name_column(label, r.columns.get(label, "")) else \
                [n.replace("_", " ") if label not in ("name", "kernel", "op") else n for n in names]
            ids = [c for c in ("rank", "device_id", "stream_id") if c in keep]
            if len(set(names)) < len(names) and ids:  # one row per (name, rank…): say which rank
                # each id column as a list (iterrows built a Series per row: an id reads the same either way)
                idv = [(column_label(c), top[c].tolist()) for c in ids]
                shown = [f"{lab} · " + " · ".join(f"{head} {fmt_unit(v[i], 'id')}" for head, v in idv)
                         for i, lab in enumerate(shown)]
        if label and value and len(set(shown)) == len(shown):
            # the hover gives each bar's figure as the table prints it (plotly's own "x" printed 0.4798 ms)
            what = column_label(value, r.columns.get(value, ""))
            figs = [fmt_unit(v, unit) for v in top[value]]
            bar = {"type": "bar", "x": _numbers(top[value], scale), "orientation": "h",
                   "y": tick_labels(shown, full=names if is_name_column(label, r.columns.get(label, "")) else None),
                   "hovertext": [f"{wrap_name(v)}<br>{plot_text(what)}: {f}" for v, f in zip(names, figs)],
                   "hoverinfo": "text", "marker": {"color": OKABE_ITO[0]}}
            fig = _layout([bar], 140 + 26 * len(top),
                          xaxis={"title": axis_title(f"{what} [{axis}]")}, yaxis={"autorange": "reversed"})
            chart = _chart_text(top[value], figs, shown, what, len(t))
    scalars = summary_items(r.summary or {}, r.summary_columns)
    take = _takeaway(r, chart if fig is not None else f"{plural(len(t), 'row(s)')} from the {title.lower()} "
                                                      "analysis.")
    vendor = (r.summary or {}).get("vendor") or vendor
    blocks: list[Any] = [Panel(title, take, fig, table_html(t, keep, max_rows, docs=r.columns,
                                                            headers=vendor_headers(keep, vendor, r.columns)),
                               note=kv_html(scalars) if scalars else "")]
    if r.findings:
        blocks.append(Panel(f"{title}: findings", "", None, findings_table(r.findings, max_rows)))
    return blocks
